"""Input checks shared by the analysis modules: labelled data in, plain arrays out."""

from __future__ import annotations

import inspect
import numbers
import warnings

import numpy as np
import xarray as xr

from .._util import dims as D
from .._util.align import align_stimuli, as_labelled
from .._util.constraints import HasAttributes
from .._util.params import InstanceOf, Interval, check_param
from .._util.stack import user_stacklevel
from ..exceptions import (
    AlignmentError,
    DimensionError,
    InvalidDataError,
    NotFittedError,
    PairedByPositionWarning,
    ParameterError,
)

__all__ = [
    "as_matrix",
    "paired_matrices",
    "voxel_template",
    "check_finite",
    "EstimatorMixin",
    "LinearPredictorMixin",
]


def _is_dask(x) -> bool:
    return type(x).__module__.startswith("dask")


def as_matrix(data, what: str = "data"):
    """``(n_stimuli, n_features)`` array from a DataArray or array-like (dask kept lazy)."""
    if isinstance(data, xr.DataArray):
        if data.ndim != 2 or data.dims[0] != D.STIMULUS:
            raise DimensionError(
                f"The {what} must have dims ('stimulus', <features>); got {tuple(data.dims)}. "
                "Call .transpose('stimulus', ...) first."
            )
        arr = data.data
    else:
        arr = data
    if _is_dask(arr):
        return arr
    arr = np.asarray(arr) if not hasattr(arr, "__torch_function__") else arr
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2:
        raise DimensionError(
            f"The {what} must be 2-D (n_stimuli, n_features); got shape {tuple(arr.shape)}."
        )
    return arr


def check_finite(arr, what: str):
    """Raise :class:`InvalidDataError` when ``arr`` holds NaN or inf."""
    a = np.asarray(arr)
    if not np.all(np.isfinite(a)):
        n_bad = int(np.size(a) - np.isfinite(a).sum())
        raise InvalidDataError(
            f"The {what} hold {n_bad} NaN/inf values; expected finite numbers. Drop or impute "
            "them first (e.g. da.dropna('voxel') or da.fillna(da.mean('stimulus')))."
        )


def paired_matrices(features, responses, names=("features", "responses")):
    """Align two stimulus-by-something inputs by stimulus id; return arrays ``(X, Y)``.

    Ids are read wherever they are (:func:`toponeuro._util.align.as_labelled`: a DataArray
    coord, a DataFrame's index or ``stimulus_id`` column, a Series' index)."""
    features = as_labelled(features, names[0], D.UNIT)
    responses = as_labelled(responses, names[1], D.VOXEL)
    if isinstance(features, xr.DataArray) and isinstance(responses, xr.DataArray):
        has = [D.STIMULUS_ID in features.coords, D.STIMULUS_ID in responses.coords]
        if all(has):
            features, responses = align_stimuli(features, responses, names=names)
        elif any(has):
            with_ids, without = (names[0], names[1]) if has[0] else (names[1], names[0])
            raise AlignmentError(
                f"The {with_ids} carry 'stimulus_id' but the {without} (a DataArray) do not, so "
                "their stimuli cannot be matched by id, and pairing them by position could "
                f"silently pair different stimuli. Label the {without} "
                "(.assign_coords(stimulus_id=('stimulus', ids))), or pass both as plain arrays "
                "(np.asarray) to pair them by position on purpose."
            )
    else:
        ids = [isinstance(a, xr.DataArray) and D.STIMULUS_ID in a.coords
               for a in (features, responses)]
        if any(ids):  # one side labelled, the other a plain array: paired by position
            with_ids, without = (names[0], names[1]) if ids[0] else (names[1], names[0])
            warnings.warn(
                f"The {with_ids} carry stimulus ids but the {without} are a plain array "
                "(no ids in a coord, index or 'stimulus_id' column), so they are paired by "
                "position: right only if the two list the same stimuli "
                f"in the same order. Label the {without} (a DataArray with a 'stimulus_id' "
                "coord) to join them by id, or pass both as plain arrays (np.asarray) to "
                "pair them by position on purpose.",
                PairedByPositionWarning, stacklevel=user_stacklevel(),
            )
    X = as_matrix(features, names[0])
    Y = as_matrix(responses, names[1])
    for arr, name in ((X, names[0]), (Y, names[1])):
        if np.iscomplexobj(arr):  # a cast to float would drop the imaginary part silently
            raise InvalidDataError(
                f"Complex data not supported: the {name} are {arr.dtype}; expected real "
                "numbers. Pass the part you mean explicitly (np.real(x) or np.abs(x))."
            )
    for arr, name in ((X, names[0]), (Y, names[1])):
        if 0 in tuple(arr.shape):  # nothing to fit or to score: no NaN and no bare error
            raise InvalidDataError(
                f"The {name} are empty (shape {tuple(arr.shape)}); expected at least one "
                "stimulus and one column. Check the selection that made them (a layer or "
                "region with no units / voxels?)."
            )
    if X.shape[0] != Y.shape[0]:
        raise AlignmentError(
            f"The {names[0]} have {X.shape[0]} stimuli but the {names[1]} have {Y.shape[0]}; "
            "pass labelled DataArrays with a 'stimulus_id' coord so they are aligned by id, or "
            "select the same stimuli in the same order."
        )
    return X, Y, responses


def voxel_template(responses, n: int):
    """Per-voxel coords of ``responses`` (any coords along its second dim) for a result."""
    if isinstance(responses, xr.DataArray):
        dim = responses.dims[1]
        coords = {k: v for k, v in responses.coords.items() if v.dims == (dim,)}
        return dim, coords
    return D.VOXEL, {}


#: folds (``cv``): a whole number >= 2 (k-fold), a splitter with ``split`` or a list of
#: (train, test) index pairs (:func:`~toponeuro.analysis.make_folds`)
CV = [Interval(numbers.Integral, 2, None, closed="left"),
      HasAttributes(("split",), "a splitter"),
      InstanceOf((list, tuple), "a list of (train, test) pairs", example=[])]


class EstimatorMixin:
    """``get_params`` / ``set_params`` / ``__repr__`` in the scikit-learn manner, and the
    parameters declared once (``_parameter_constraints``, checked by
    :meth:`_validate_params` when ``fit`` starts, as scikit-learn's estimators do)."""

    #: parameter name -> its constraints, in the vocabulary of
    #: :func:`toponeuro._util.params.validate_params` (scikit-learn's
    #: ``_parameter_constraints``); every ``__init__`` parameter is declared
    _parameter_constraints: dict = {}

    def _validate_params(self) -> None:
        """Check each parameter against ``_parameter_constraints``: a typed error naming it
        (``alphas=-1 is not ...``). ``__init__`` stores the parameters unchanged and
        ``fit`` never changes them (scikit-learn's rules), so only the check is made here;
        the estimator converts a value where it uses it."""
        for name, constraints in self._parameter_constraints.items():
            check_param(getattr(self, name), name, constraints)

    @classmethod
    def _param_names(cls):
        sig = inspect.signature(cls.__init__)
        return [p for p in sig.parameters if p != "self"]

    def get_params(self, deep: bool = True) -> dict:
        return {k: getattr(self, k) for k in self._param_names()}

    def set_params(self, **params):
        for k, v in params.items():
            if k not in self._param_names():
                raise ParameterError(f"{type(self).__name__} has no parameter {k!r}.")
            setattr(self, k, v)
        return self

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    def _clone(self):
        return type(self)(**self.get_params())


class LinearPredictorMixin:
    """``predict`` / ``score`` of a fitted linear model with ``coef_`` and ``intercept_``."""

    def _check_fitted(self):
        if not hasattr(self, "coef_"):
            raise NotFittedError(f"This {type(self).__name__} is not fitted; call fit(X, y) first.")

    def predict(self, X):
        """Predicted targets ``(n_samples, n_targets)`` (1-D when fitted on 1-D ``y``)."""
        self._check_fitted()
        X = np.asarray(as_matrix(X, "features"))
        if X.shape[1] != self.n_features_in_:
            raise InvalidDataError(
                f"X has {X.shape[1]} features, but {type(self).__name__} is expecting "
                f"{self.n_features_in_} features as input (the number it was fitted on)."
            )
        dtype = X.dtype if np.issubdtype(X.dtype, np.floating) else self.coef_.dtype
        X = X.astype(dtype, copy=False)
        check_finite(X, "features")
        P = X @ self.coef_.T.astype(dtype, copy=False) + self.intercept_
        return P[:, 0] if getattr(self, "_y_1d", False) else P

    def __sklearn_tags__(self):
        """scikit-learn's estimator tags: a multi-output regressor that needs ``y``.

        Only scikit-learn calls this (its ``check_estimator``, meta-estimators), so it
        imports scikit-learn here, which toponeuro itself does not need.
        """
        from sklearn.utils import InputTags, RegressorTags, Tags, TargetTags

        return Tags(estimator_type="regressor",
                    target_tags=TargetTags(required=True, multi_output=True),
                    regressor_tags=RegressorTags(), input_tags=InputTags())

    def score(self, X, y):
        """Coefficient of determination R² averaged over targets (as scikit-learn)."""
        P = np.atleast_2d(self.predict(X).T).T
        Y = np.asarray(as_matrix(y, "targets"))
        return float(np.mean(1 - ((Y - P) ** 2).sum(0) / ((Y - Y.mean(0)) ** 2).sum(0)))
