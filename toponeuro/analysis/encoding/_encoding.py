"""Encoding models: ridge (one eigendecomposition shared over every alpha and target) and PLS.

The ridge solution for all alphas comes from symmetric eigendecompositions: of the feature
Gram ``X.T @ X`` when there are fewer features than samples (primal form), else of the kernel
``X @ X.T`` (dual form). Cross-validation either decomposes each training set (per fold) or
only the full design (group-deletion identity ``e_g = (I - H_gg)^-1 r_g``), whichever costs
fewer operations; scores of every alpha for a chunk of targets are then a few matrix
products. The solver itself lives in :mod:`toponeuro.analysis._ridge_solver`.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable
from numbers import Integral
from types import MappingProxyType

import numpy as np
import xarray as xr

from ..._util.constraints import NumberGrid
from ..._util.docs import fill_doc
from ..._util.metrics import pearson_r, r2_score
from ..._util.optional import optional_import
from ..._util.params import (
    COUNT,
    SEED,
    Boolean,
    Interval,
    Options,
    PathLike,
    Text,
    check_random_state,
    validate_params,
)
from ..._util.stack import user_stacklevel
from ..._util.typing import RandomState
from ...exceptions import (
    InputTypeError,
    InvalidDataError,
    NotFittedError,
    ParameterError,
    UndefinedValueWarning,
    UnknownNameError,
    close_matches,
)
from .._backend import BACKENDS
from .._validate import (
    CV,
    EstimatorMixin,
    LinearPredictorMixin,
    _is_dask,
    check_finite,
    paired_matrices,
    voxel_template,
)
from . import _ridge_solver as _ridge
from ._ceiling import _align_ceiling, _check_ceiling, _check_normalised
from ._pls import PLSEncoder
from ._ridge_solver import SCORINGS

__all__ = ["RidgeEncoder", "PLSEncoder", "encoding_score", "make_folds", "ENCODING_MODELS"]

# ----------------------------------------------------------------------------- folds
@fill_doc
@validate_params({"n_samples": Interval(Integral, 1, None, closed="left"),
                  "random_state": SEED, "shuffle": Boolean()})
def make_folds(
    cv, n_samples: int, random_state: RandomState = None, *, shuffle: bool = True
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Train/test index pairs from an int (k-fold), a splitter with ``split`` or pairs.

    An int gives k-fold splits of the sizes ``sklearn.model_selection.KFold`` makes, over
    the stimuli **shuffled** with a fixed seed (``random_state``; ``None`` means 0, so results
    are reproducible). Why shuffled: stimulus sets usually come sorted by category
    (``load_floc``, most fMRI designs), and contiguous folds then hold out whole categories,
    so every test fold asks the model to extrapolate to a category it never saw; on fLoc
    order this drops the median voxel r from about 0.35 to 0.12. Pass ``shuffle=False`` (or
    ``cv=KFold(k)``) for contiguous folds, or a grouped splitter (``GroupKFold``) when
    held-out groups are the point.

    Parameters
    ----------
    cv : int, splitter or list of (train, test)
        The number of folds, an object with ``split(X)`` (scikit-learn's splitters), or the
        index pairs themselves (returned as arrays).
    n_samples : int
        The stimuli to split.
    %(random_state)s
    shuffle : bool
        Shuffle the stimuli before k-fold splits of an int ``cv``.

    Returns
    -------
    list of (numpy.ndarray, numpy.ndarray)
        Sorted train and test indices of each fold.

    Examples
    --------
    >>> [te.tolist() for _, te in make_folds(3, 7, shuffle=False)]
    [[0, 1, 2], [3, 4], [5, 6]]
    >>> sorted(np.concatenate([te for _, te in make_folds(3, 7)]).tolist()) == list(range(7))
    True
    """
    n = int(n_samples)
    if isinstance(cv, (bool, np.bool_)) or (
        isinstance(cv, (float, np.floating)) and not float(cv).is_integer()
    ):
        raise InvalidDataError(
            f"cv must be a whole number of folds (e.g. cv=5), a splitter or (train, test) "
            f"pairs; got cv={cv!r}."
        )
    if isinstance(cv, (float, np.floating)):
        cv = int(cv)
    if isinstance(cv, (int, np.integer)):
        k = int(cv)
        if k < 2:
            raise InvalidDataError(f"cv must be at least 2 folds; got cv={cv}.")
        if n < k or n - -(-n // k) < 2:
            raise InvalidDataError(
                f"Too few stimuli for {k}-fold cross-validation: got {n}, need at least "
                f"{max(k, 3)} (each training set needs 2 or more). Use fewer folds (cv=...) or "
                "more stimuli."
            )
        order = np.arange(n)
        if shuffle:
            check_random_state(0 if random_state is None else random_state).shuffle(order)
        tests = np.array_split(order, k)
        return [(np.sort(np.setdiff1d(order, te, assume_unique=True)), np.sort(te))
                for te in tests]
    if hasattr(cv, "split"):
        pairs = list(cv.split(np.zeros((n, 1))))
    elif isinstance(cv, Iterable):
        pairs = list(cv)
    else:
        raise InvalidDataError(
            f"cv must be an int, a splitter with .split(X) or (train, test) pairs; got {cv!r}."
        )
    out = []
    for tr, te in pairs:
        tr, te = np.asarray(tr), np.asarray(te)
        if len(tr) < 2 or len(te) < 1:
            raise InvalidDataError(
                f"A fold has {len(tr)} training and {len(te)} test stimuli; each needs at least "
                "2 and 1. Use fewer folds or more stimuli."
            )
        out.append((tr, te))
    if not out:
        raise InvalidDataError("cv produced no folds.")
    return out


# ----------------------------------------------------------------------------- estimators
@fill_doc
class RidgeEncoder(LinearPredictorMixin, EstimatorMixin):
    """Ridge regression with cross-validated alpha, per target or shared.

    Symmetric eigendecompositions (primal ``X.T X`` when there are fewer features than
    samples, else dual ``X X.T``, as himalaya chooses) serve every alpha and every target:
    either one per training set, or one of the full design that gives every fold's held-out
    residuals exactly (group-deletion identity, see ``cv_solver``). The predictions of all
    alphas for a chunk of targets are then matrix products, and targets are processed in
    chunks so memory stays bounded; in the dual form each fold's kernel is a block of the full
    kernel, so a wide layer costs N x N, not P x P.
    When ``y`` is a dask array chunked over targets, each chunk is fitted as one task on the
    active dask scheduler; with a ``dask.distributed`` client the features are scattered to
    every worker once and each worker decomposes them once (see :doc:`/large_datasets`).

    Parameters
    ----------
    alphas : array-like
        Regularisation strengths to try (default ``np.logspace(-2, 6, 10)``).
    cv : int, splitter or list of (train, test)
        Folds used to pick alpha: an int is k-fold over shuffled stimuli (fixed seed
        ``random_state``, 0 when ``None``; see :func:`make_folds` for why).
    alpha_per_target : bool
        Choose the best alpha per target (default) or one alpha for all targets (highest mean
        score over targets, as ``sklearn.linear_model.RidgeCV`` with ``cv`` does).
    fit_intercept : bool
        Centre features and targets on each training set.
    scoring : {"r2", "pearson", "neg_mse"}
        Per-target score averaged over folds to pick alpha.
    backend : {"numpy", "torch"}
    %(device)s
    n_targets_batch : int or None
        Targets processed together; ``None`` sizes chunks to ~256 MB of predictions.
    cv_solver : {"auto", "deletion", "per_fold"}
        ``"per_fold"`` decomposes each training set; ``"deletion"`` decomposes the full
        design once and obtains every fold's held-out residuals exactly as
        ``(I - H_gg)^-1 r_g`` (group-deletion identity of penalised least squares), which
        needs k-fold style folds; ``"auto"`` (default) uses whichever needs fewer
        operations for the problem's shape and number of targets (both are exact).
    %(random_state)s
    weights : "memory", None or path
        What to do with the coefficients (n_features x n_targets): ``"memory"`` (default)
        keeps them as ``coef_`` -- refused before any work when they would exceed
        ``toponeuro.analysis._ridge_solver.WEIGHTS_BUDGET`` (4 GiB); ``None`` computes no
        refit at all (``cv_scores_``, ``best_alphas_`` and ``best_scores_`` only, the
        cheapest fit); a path (``"coef.nc"``) writes them to a netCDF store chunk by chunk
        of targets, never holding more than one chunk, and ``coef_`` is then a lazy dask
        array read from it (variables ``coef``, ``intercept``, ``best_alpha``,
        ``best_score``, ``cv_scores``; an existing file is never overwritten).
        :func:`encoding_score` needs ``"memory"`` (see there).

    Attributes
    ----------
    coef_ : ndarray (n_targets, n_features)
        Not set when ``weights=None``.
    intercept_ : ndarray (n_targets,)
        Not set when ``weights=None``.
    best_alphas_ : ndarray (n_targets,)
    best_scores_ : ndarray (n_targets,)
        Cross-validated score of each target at its chosen alpha.
    cv_scores_ : ndarray (n_alphas, n_targets)
        Mean cross-validated score of every alpha for every target.
    cv_solver_ : str
        The solver that ran (``"per_fold"`` or ``"deletion"``).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((60, 5))
    >>> Y = X @ rng.standard_normal((5, 3))
    >>> enc = RidgeEncoder(alphas=[1e-3, 1.0, 1e3], cv=3).fit(X, Y)
    >>> enc.best_alphas_.tolist()
    [0.001, 0.001, 0.001]
    >>> round(enc.score(X, Y), 4)
    1.0
    """

    def __init__(
        self,
        alphas=None,
        cv=5,
        alpha_per_target: bool = True,
        fit_intercept: bool = True,
        scoring: str = "r2",
        backend: str = "numpy",
        device: str = "cpu",
        n_targets_batch: int | None = None,
        cv_solver: str = "auto",
        random_state: RandomState = None,
        weights="memory",
    ):
        self.weights = weights
        self.cv_solver = cv_solver
        self.alphas = alphas
        self.cv = cv
        self.alpha_per_target = alpha_per_target
        self.fit_intercept = fit_intercept
        self.scoring = scoring
        self.backend = backend
        self.device = device
        self.n_targets_batch = n_targets_batch
        self.random_state = random_state

    _parameter_constraints = {  # checked when a fit starts (_design), scikit-learn's way
        "alphas": [NumberGrid(0), None], "cv": CV, "alpha_per_target": Boolean(),
        "fit_intercept": Boolean(), "scoring": Options(SCORINGS, error=UnknownNameError),
        "backend": Options(BACKENDS, error=UnknownNameError), "device": Text(),
        "n_targets_batch": [COUNT, None], "random_state": SEED,
        "cv_solver": Options(("auto", "deletion", "per_fold"), error=UnknownNameError),
        "weights": [None, PathLike(fix="'memory' keeps them in memory; a path writes them.")]}

    def _alphas(self):
        alphas = np.logspace(-2, 6, 10) if self.alphas is None else self.alphas
        alphas = np.atleast_1d(np.asarray(alphas, dtype=float))
        if self.alpha_per_target and len(alphas) == 1:
            raise InvalidDataError(
                f"alpha_per_target=True needs several alphas to choose from; got only "
                f"{alphas.tolist()}. Pass a grid (e.g. alphas=np.logspace(-2, 6, 10)) or set "
                "alpha_per_target=False.")
        return alphas

    @fill_doc
    def fit(self, X, y):
        """Pick alpha by cross-validation, then refit on all samples. Returns ``self``.

        Parameters
        ----------
        %(fit_xy)s

        Returns
        -------
        RidgeEncoder
            ``self``, fitted.
        """
        X, Y, _ = paired_matrices(X, y, ("features", "targets"))
        self._y_1d = np.ndim(y) == 1
        X = np.asarray(X)
        if not np.issubdtype(X.dtype, np.floating):
            X = X.astype(np.float64)
        check_finite(X, "features")
        if not _is_dask(Y):
            Y = np.asarray(Y)
            check_finite(Y, "targets")
        self._fit_chunks(self._design(X, Y.dtype, Y.shape[1]), Y)
        return self

    def _design(self, X, target_dtype, n_targets, held_targets=None):
        """The features, inner folds and alphas of one fit: its decompositions, computed
        once per process and shared by every chunk of targets fitted with it.
        ``held_targets``: the most targets whose coefficients are in memory at once (default
        all; a chunk's width when each chunk is fitted on its own)."""
        self._validate_params()
        alphas = self._alphas()
        folds = make_folds(self.cv, X.shape[0], self.random_state)
        if target_dtype != X.dtype:  # the features' precision (at least float32) for both
            X = X.astype(np.result_type(X.dtype, np.float32))
        held = n_targets if held_targets is None else held_targets
        need_coef = self._weights_mode(X.shape[1], held, X.dtype.itemsize) is not None
        return _ridge._Design(X, folds, alphas, self.get_params(), n_targets, need_coef)

    def _weights_mode(self, p, n_t, itemsize):
        w = self.weights
        if w is None:
            return None
        if isinstance(w, str) and w == "memory":
            over = _over_budget(p, n_t, itemsize, "targets")
            if over:
                raise InvalidDataError(
                    f"The {over}; pass weights=None (scores and alphas only) or "
                    "weights='coef.nc' (written to a store)."
                )
            return "memory"
        # a path (declared): coef_ is then a lazy dask array on the store, refused before any
        # work without dask
        optional_import("dask.array", "dask",
                        f"weights={os.fspath(w)!r} (coef_ read lazily from the store)")
        return "store"

    def _fit_chunks(self, design, Y):
        """Fit the targets ``Y`` (all of them, or one chunk of the targets ``design`` was
        built for) with the decompositions of ``design``; sets the fitted attributes."""
        X, alphas = design.X, design.alphas
        n_t, p = Y.shape[1], X.shape[1]
        mode = self._weights_mode(p, n_t, X.dtype.itemsize)
        if _is_dask(Y):
            Y = Y.rechunk({0: -1})
            blocks = list(Y.to_delayed().ravel())
            sizes = list(Y.chunks[1])
        else:
            step = n_t if mode != "store" else max(1, _ridge._WEIGHTS_CHUNK // (p * X.itemsize))
            blocks = [Y[:, s : s + step] for s in range(0, n_t, step)]
            sizes = [b.shape[1] for b in blocks]
        starts = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
        scores = np.full((len(alphas), n_t), np.nan)
        best = np.zeros(n_t, dtype=int)
        coef = np.empty((n_t, p), dtype=X.dtype) if mode == "memory" else None
        intercept = np.empty(n_t, dtype=X.dtype) if mode is not None else None
        writer = (_ridge.WeightsWriter(self.weights, n_t, p, X.dtype, alphas)
                  if mode == "store" else None)

        def keep(i, part):
            sl = slice(starts[i], starts[i + 1])
            if "scores" in part:
                scores[:, sl] = part["scores"]
            best[sl] = part["best"]
            if "coef" in part:
                intercept[sl] = part["intercept"]
                if writer is not None:
                    writer.write(int(starts[i]), part["coef"], part["intercept"])
                else:
                    coef[sl] = part["coef"]

        try:
            shared = not self.alpha_per_target and len(alphas) > 1
            _ridge.map_chunks(design, blocks, {"fixed_index": None, "scores": True,
                                               "coef": mode is not None and not shared,
                                               "per_target": self.alpha_per_target}, keep)
            if shared:  # one alpha for all: every target's scores first, then the refit
                ia = int(np.argmax(np.nan_to_num(scores.mean(1), nan=-np.inf)))
                best[:] = ia
                if mode is not None:
                    _ridge.map_chunks(design, blocks, {"fixed_index": ia, "scores": False,
                                                       "coef": True, "per_target": False}, keep)
        except BaseException:
            if writer is not None:
                writer.abort()
            raise
        self.cv_scores_ = scores
        self.cv_solver_ = design.solver
        self._set_best(alphas, best)
        self.best_scores_ = scores[best, np.arange(n_t)]
        for attr in ("coef_", "intercept_"):
            self.__dict__.pop(attr, None)
        if mode == "memory":
            self.coef_, self.intercept_ = coef, intercept
        elif mode == "store":
            writer.finish(self.best_alphas_, self.best_scores_, scores)
            self.coef_, self.intercept_ = _open_weights(writer.path)
        self.n_features_in_ = p

    def _check_fitted(self):
        if not hasattr(self, "cv_scores_"):
            raise NotFittedError(f"This {type(self).__name__} is not fitted; call fit(X, y) first.")
        if not hasattr(self, "coef_"):
            raise NotFittedError(
                "This RidgeEncoder was fitted with weights=None, so it has scores and alphas "
                "but no coefficients to predict with; refit with weights='memory' or a path."
            )

    def _set_best(self, alphas, best):
        self.best_index_ = np.asarray(best)
        self.best_alphas_ = alphas[self.best_index_]
        if not self.alpha_per_target:
            self.alpha_ = float(self.best_alphas_[0])

    @property
    def _separable(self):
        return bool(self.alpha_per_target)


def _open_weights(path):
    """``(coef, intercept)`` of a weights store: a lazy dask array and a numpy vector."""
    ds = xr.open_dataset(path, engine="h5netcdf", chunks={})
    return ds["coef"].data, np.asarray(ds["intercept"].values)


#: the names ``model=`` takes (read-only: pass your own estimator object as ``model=``)
ENCODING_MODELS = MappingProxyType({"ridge": RidgeEncoder, "pls": PLSEncoder})


# ----------------------------------------------------------------------------- scoring
def _metric(Y, P, metric):
    return pearson_r(Y, P) if metric == "pearson" else r2_score(Y, P)


def _clone(model):
    if hasattr(model, "_clone"):
        return model._clone()
    if hasattr(model, "get_params"):
        return type(model)(**model.get_params())
    raise InputTypeError(
        f"model must be 'ridge', 'pls' or an estimator with get_params/fit/predict; got "
        f"{type(model).__name__}."
    )


def _cv_predict_score(model, X, Y, folds, metric):
    check_finite(Y, "responses")
    Y = np.asarray(Y)
    out = np.zeros(Y.shape[1])
    for tr, te in folds:
        est = _clone(model).fit(X[tr], Y[tr])
        out += _held_out_score(est, X[te], Y[te], metric)
    return out / len(folds)


def _held_out_score(est, X_test, Y_test, metric):
    P = np.atleast_2d(est.predict(X_test).T).T
    return _metric(Y_test, P, metric)


def _fold_chunk_score(design, Y, *, model, X_test, train, test, metric):
    """One outer fold's held-out score of one chunk of voxels ``Y`` (all stimuli), the
    ridge fitted with the fold's shared ``design`` (its training stimuli's decompositions)."""
    check_finite(Y, "responses")
    Y = np.asarray(Y)
    est = _clone(model)
    est._fit_chunks(design, Y[train])
    return _held_out_score(est, X_test, Y[test], metric)


def _chunked_cv_score(model, X, Y, folds, metric):
    """encoding_score of a RidgeEncoder on dask responses chunked over voxels, fold by fold
    as the in-memory path: each outer training set is decomposed once per process (sent to
    each dask.distributed worker once) and shared by every chunk, and only one fold's
    decompositions are held at a time (the responses are read once per fold)."""
    Y = Y.rechunk({0: -1})
    blocks = list(Y.to_delayed().ravel())
    starts = np.concatenate([[0], np.cumsum(Y.chunks[1])]).astype(int)
    out = np.zeros(Y.shape[1])

    def keep(i, part):
        out[starts[i]:starts[i + 1]] += part

    for tr, te in folds:
        design = model._design(X[tr], Y.dtype, Y.shape[1], held_targets=max(Y.chunks[1]))
        kwargs = {"model": model, "X_test": _ridge.scatter_once(X[te]), "train": tr,
                  "test": te, "metric": metric}
        _ridge.map_chunks(design, blocks, kwargs, keep, fn=_fold_chunk_score)
    return out / len(folds)


#: fewest test stimuli per fold for a per-fold score (a Pearson r of 2 points is +-1)
MIN_TEST_STIMULI = 3


def _check_test_folds(folds, cv, n_stimuli, metric):
    """Refuse folds whose per-fold score is degenerate (fewer than 3 test stimuli)."""
    small = min(len(te) for _, te in folds)
    if small < MIN_TEST_STIMULI:
        k = n_stimuli // MIN_TEST_STIMULI
        fix = (f"Use at most cv={k} folds for {n_stimuli} stimuli." if k >= 2 else
               f"{n_stimuli} stimuli are too few for 2 such folds: give at least "
               f"{2 * MIN_TEST_STIMULI} stimuli.")
        raise InvalidDataError(
            f"cv={cv!r} leaves folds with {small} test stimul{'us' if small == 1 else 'i'}; "
            f"encoding_score scores each fold ({metric}) and needs at least "
            f"{MIN_TEST_STIMULI} test stimuli per fold (with 2 a Pearson r is +-1, with 1 it is "
            f"undefined). {fix}"
        )


@validate_params({"metric": Options(("pearson", "r2"), error=UnknownNameError),
                  "random_state": SEED})
def encoding_score(
    features,
    responses,
    model="ridge",
    cv=5,
    metric: str = "pearson",
    ceiling=None,
    random_state: RandomState = None,
) -> xr.DataArray:
    """Cross-validated encoding score of every voxel: how well features predict responses.

    For each outer fold the model is fitted on the training stimuli (a :class:`RidgeEncoder`
    picks its alpha by an inner cross-validation on those stimuli only) and scored on the
    held-out ones; the per-voxel score is the mean over folds (each fold needs at least 3
    test stimuli, so leave-one-out is refused: a per-fold r of 1 or 2 points is undefined or
    +-1). Voxels whose score is undefined (constant responses) are NaN with an
    :class:`~toponeuro.exceptions.UndefinedValueWarning`. Stimuli are aligned by
    ``stimulus_id`` (exact join). Dask-backed responses chunked over voxels are fitted chunk
    by chunk on the active dask scheduler when the model treats targets independently (ridge
    with ``alpha_per_target=True``), fold by fold as in memory: each outer training set's
    decompositions are computed once per process and shared by every chunk (the responses
    are read once per fold); other models load the responses into memory.

    Parameters
    ----------
    features : Activations or array (n_stimuli, n_features)
        The predictors (e.g. one layer, ``acts.topo.select(layer)``).
    responses : BrainResponses or array (n_stimuli, n_voxels)
        Any DataArray with dims ``("stimulus", <voxel dim>)``; its voxel coords are kept.
        Two DataArrays with ``stimulus_id`` are aligned by id; when only one of two
        DataArrays carries ids, :class:`~toponeuro.exceptions.AlignmentError` (pairing them
        by position could pair different stimuli); plain arrays pair by position, and a
        labelled DataArray with a plain array pairs by position with a
        :class:`~toponeuro.exceptions.PairedByPositionWarning`.
    model : {"ridge", "pls"} or estimator
        An estimator with ``fit``/``predict``/``get_params`` (cloned for each fold). Each
        fold's clone predicts that fold's held-out stimuli and is then dropped (no fitted
        model is returned), so a :class:`RidgeEncoder` must keep its coefficients in memory
        (``weights="memory"``, its default): ``weights=None`` leaves nothing to predict with,
        and a path would have every fold's clone write the same file, which nothing returns;
        both raise :class:`~toponeuro.exceptions.ParameterError` before any fit. To keep coefficients, fit ``RidgeEncoder(weights=path)`` on all stimuli
        yourself; for coefficients too large for memory, pass the responses as a dask array
        chunked over voxels (each chunk is fitted on its own).
    cv : int, splitter or list of (train, test)
        An int is k-fold over the stimuli shuffled with a fixed seed (``random_state``, 0
        when ``None``): sorted stimulus sets (``load_floc``) would otherwise hold out whole
        categories per fold (see :func:`make_folds`). Pass ``KFold(k)`` for contiguous folds.
    metric : {"pearson", "r2"}
        The score of the held-out predictions, per voxel: Pearson's r or R².
    ceiling : float, array or DataArray, optional
        Per-voxel noise ceiling **in the units of** ``metric``, in (0, 1]: r for
        ``"pearson"``, R² (fraction of variance) for ``"r2"``; the scores are divided by it.
        A ceiling in percent of variance (NSD's, :func:`toponeuro.brain.voxel_noise_ceiling`)
        or one labelled with other units (``attrs["units"]``) raises
        :class:`~toponeuro.exceptions.UnitsError` naming the conversion
        (``nc / 100`` for ``"r2"``, ``np.sqrt(nc / 100)`` for ``"pearson"``). Voxels whose
        ceiling is 0 or NaN get NaN (with a warning). A DataArray ceiling is matched to the
        responses' voxels by the voxel coords both carry (reordered to match, or
        :class:`~toponeuro.exceptions.AlignmentError` when voxels are missing). A ceiling is
        the best score the voxel's noise allows, so when the median normalised score exceeds
        1 (most voxels beat their ceiling: a ceiling far too small, e.g. ``0.01``, or in
        other units) an :class:`~toponeuro.exceptions.ImplausibleValueWarning` names the rule.
    %(random_state)s

    Returns
    -------
    xarray.DataArray
        Dims ``("voxel",)`` with the responses' voxel coords; attrs ``metric``, ``model``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((80, 6))
    >>> Y = X @ rng.standard_normal((6, 4)) + 0.1 * rng.standard_normal((80, 4))
    >>> s = encoding_score(X, Y, model=RidgeEncoder(alphas=[0.1, 10.0], cv=3), cv=4)
    >>> s.dims, bool((s > 0.95).all())
    (('voxel',), True)
    """
    if isinstance(model, str):
        if model not in ENCODING_MODELS:
            raise UnknownNameError(
                f"Unknown encoding model {model!r}; {close_matches(model, ENCODING_MODELS)}"
            )
        model = ENCODING_MODELS[model]()
    _check_fold_weights(model)
    X, Y, resp = paired_matrices(features, responses, ("features", "responses"))
    X = np.asarray(X)
    if not np.issubdtype(X.dtype, np.floating):
        X = X.astype(np.float64)
    check_finite(X, "features")
    folds = make_folds(cv, X.shape[0], random_state)
    _check_test_folds(folds, cv, X.shape[0], metric)
    _check_inner_cv(model, folds, X.shape[0], cv)
    if ceiling is not None:  # checked before fitting
        c = _check_ceiling(_align_ceiling(ceiling, resp), metric, Y.shape[1])
    else:
        c = None
    if _is_dask(Y) and isinstance(model, RidgeEncoder) and model._separable:
        scores = _chunked_cv_score(model, X, Y, folds, metric)
    else:
        _check_fold_memory(model, X, Y)
        scores = _cv_predict_score(model, X, np.asarray(Y), folds, metric)
    n_undef = int(np.count_nonzero(~np.isfinite(scores)))
    if n_undef:
        warnings.warn(
            f"{n_undef} of {scores.size} voxels have an undefined encoding score (NaN): their "
            "responses (or the predictions) are constant within a test fold, so a "
            f"{metric} score has no variance to explain. Drop constant voxels first.",
            UndefinedValueWarning, stacklevel=user_stacklevel(),
        )
    dim, coords = voxel_template(resp, scores.shape[0])
    out = xr.DataArray(scores, dims=(dim,), coords=coords,
                       attrs={"metric": metric, "model": type(model).__name__})
    if c is not None:
        with np.errstate(divide="ignore", invalid="ignore"):
            normalised = np.where(c > 0, scores / np.where(c > 0, c, 1.0), np.nan)
        _check_normalised(normalised, metric)
        out = out.copy(data=normalised)
        out.attrs.update(metric=metric, model=type(model).__name__, ceiling_normalised=True)
    return out


def _check_fold_weights(model):
    """A RidgeEncoder in encoding_score predicts each held-out fold from coefficients in
    memory; refuse weights that cannot (None) or that every fold would write (a path)."""
    w = getattr(model, "weights", "memory") if isinstance(model, RidgeEncoder) else "memory"
    if isinstance(w, str) and w == "memory":
        return
    why = ("leaves no coefficients to predict the held-out stimuli with" if w is None else
           "would have every fold's copy of the model write the same file (toponeuro never "
           "overwrites one), and encoding_score returns no fitted model")
    keep = ("" if w is None else f" To keep coefficients, fit RidgeEncoder(weights={w!r}) on "
            "all stimuli yourself.")
    raise ParameterError(
        f"encoding_score got RidgeEncoder(weights={w!r}), which {why}: each outer fold's "
        "copy is fitted, predicts that fold's held-out stimuli and is dropped, so it needs "
        f"weights='memory' (the default).{keep} For coefficients too large for memory, pass "
        "the responses as a dask array chunked over voxels (each chunk is fitted on its own)."
    )


def _over_budget(p: int, n_t: int, itemsize: int, what: str) -> str | None:
    """Why ``p x n_t`` coefficients do not fit the in-memory budget, or None if they do."""
    need = p * n_t * itemsize
    if need <= _ridge.WEIGHTS_BUDGET:
        return None
    return (f"coefficients ({p} features x {n_t} {what}) would take {need / 2**30:.1f} GiB "
            f"in memory, above the {_ridge.WEIGHTS_BUDGET / 2**30:.0f} GiB budget")


def _check_fold_memory(model, X, Y):
    """A RidgeEncoder fold keeps its coefficients in memory; above the budget say what
    encoding_score can do (RidgeEncoder's own advice, weights=None or a path, it refuses)."""
    if not isinstance(model, RidgeEncoder):
        return
    over = _over_budget(X.shape[1], Y.shape[1], np.result_type(X.dtype, np.float32).itemsize,
                        "voxels")
    if over:
        how = ("pass the responses as a dask array chunked over voxels (each chunk of voxels "
               "is fitted and scored on its own)" if model._separable else
               "score the voxels in groups (this RidgeEncoder's settings fit all voxels "
               "together, so dask chunks cannot split them)")
        raise InvalidDataError(
            f"Each fold's {over}; {how}, or reduce the features (e.g. PCA) first."
        )


def _check_inner_cv(model, folds, n_stimuli, cv):
    """An estimator's own cross-validation (RidgeEncoder's alpha search) runs on each outer
    training fold; refuse at once, in the numbers the caller passed, when it cannot."""
    inner = getattr(model, "cv", None)
    if not isinstance(inner, int | np.integer) or isinstance(inner, bool):
        return
    smallest = min(len(tr) for tr, _ in folds)
    try:
        make_folds(inner, smallest, shuffle=False)
    except InvalidDataError:
        outer = f"cv={cv}" if isinstance(cv, int | np.integer) else "the outer folds"
        raise InvalidDataError(
            f"encoding_score got {n_stimuli} stimuli; {outer} leaves {smallest} training "
            f"stimuli in the smallest outer fold, and the {type(model).__name__}'s inner "
            f"cross-validation (its cv={int(inner)}) chooses alpha on those, which needs at "
            f"least {max(int(inner), 3)}. Use fewer outer folds (cv=...), a smaller inner cv "
            f"({type(model).__name__}(cv=...)), or more stimuli."
        ) from None


encoding_score = fill_doc(encoding_score)
