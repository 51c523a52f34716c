"""Dimensionality of representations: effective dimensionality and participation ratio.

The participation ratio ``(tr C)^2 / tr(C^2)`` of a covariance ``C`` is biased when ``C`` is
estimated from few samples (the plain estimate falls as samples shrink). The bias-corrected
estimator replaces numerator and denominator by unbiased U-statistics over distinct samples
(Chen, Zhang & Zhong 2010 for ``tr(C^2)``; the same construction for ``(tr C)^2``). Both are
translation invariant, so they are computed on centred data; every sum over distinct index
tuples is reduced to traces of the Gram matrix, so the cost is one ``n x n`` or ``p x p``
product.
"""

from __future__ import annotations

import warnings

import numpy as np
import xarray as xr

from .._util import dims as D
from .._util.constraints import ArrayLike, DataArrayWith, Names
from .._util.docs import fill_doc
from .._util.params import Boolean, Text, validate_params
from .._util.stack import user_stacklevel
from ..exceptions import InvalidDataError, UndefinedValueWarning
from ._validate import as_matrix, check_finite

__all__ = ["dimensionality", "effective_dimensionality", "participation_ratio", "trace_moments"]

ED_REFERENCE = (
    "effective dimensionality (sum lambda)^2 / sum lambda^2 of the covariance eigenvalues: "
    "Del Giudice (2021); TopoNets (Deb et al. 2025) and TDANN (Margalit et al. 2024; "
    "neuroailab/TDANN spacetorch/analyses/dimensionality.py effective_dim on "
    "sklearn PCA().explained_variance_, i.e. the n-1 sample covariance, as here)"
)
PR_REFERENCE = (
    "bias-corrected participation ratio: unbiased U-statistic estimates of (tr C)^2 and "
    "tr(C^2) (Chen, Zhang & Zhong 2010, J Am Stat Assoc 105, 810-819)"
)


def _centred(data, need):
    X = np.asarray(as_matrix(data, "data"), dtype=np.float64)
    check_finite(X, "data")
    if X.shape[0] < need:
        raise InvalidDataError(
            f"Need at least {need} samples (stimuli); got {X.shape[0]}."
        )
    return X - X.mean(0)


def _frob2_gram(X):
    """``||X X'||_F^2`` via the smaller Gram matrix."""
    n, p = X.shape
    G = X @ X.T if n <= p else X.T @ X
    return float((G * G).sum())


@validate_params({"bias_corrected": Boolean()})
@fill_doc
def trace_moments(data, bias_corrected: bool = True) -> tuple[float, float]:
    """Estimates of ``(tr C)^2`` and ``tr(C^2)`` of the covariance of the rows of ``data``.

    With ``bias_corrected`` they are unbiased (sums over distinct samples); otherwise they
    are those of the sample covariance (``n - 1`` normalisation).

    Parameters
    ----------
    %(dimensionality_data)s
    %(bias_corrected)s

    Returns
    -------
    tr_c_sq : float
        The estimate of ``(tr C)^2``.
    tr_c2 : float
        The estimate of ``tr(C^2)``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((4000, 3)) * [1.0, 1.0, 2.0]
    >>> [round(v, 1) for v in trace_moments(X)]  # true values 36 and 18
    [35.7, 17.8]
    """
    X = _centred(data, 4 if bias_corrected else 2)
    n = X.shape[0]
    d = (X * X).sum(1)  # K_ii
    sum_d, sum_d2 = d.sum(), (d * d).sum()
    frob = _frob2_gram(X)
    if not bias_corrected:
        return sum_d**2 / (n - 1) ** 2, frob / (n - 1) ** 2
    # centred data: row sums of K without its diagonal are r_i = -d_i, and the sum of
    # off-diagonal entries is T0 = -sum(d)
    s2 = frob - sum_d2  # sum_{i!=j} K_ij^2
    r2 = sum_d2  # sum_i r_i^2
    t0 = -sum_d
    p3 = r2 - s2  # sum over distinct i,j,k of K_ij K_jk
    q4 = t0**2 - 4 * r2 + 2 * s2  # sum over distinct i,j,k,l of K_ij K_kl
    dd = sum_d**2 - sum_d2  # sum_{i!=j} d_i d_j
    dk = float((d * (t0 + 2 * d)).sum())  # sum over distinct i,j,k of d_i K_jk
    n2, n3, n4 = n * (n - 1), n * (n - 1) * (n - 2), n * (n - 1) * (n - 2) * (n - 3)
    tr_c_sq = dd / n2 - 2 * dk / n3 + q4 / n4
    tr_c2 = s2 / n2 - 2 * p3 / n3 + q4 / n4
    return float(tr_c_sq), float(tr_c2)


@validate_params(dict(data=ArrayLike()))
@fill_doc
def effective_dimensionality(data) -> float:
    """``(sum lambda)^2 / sum lambda^2`` of the sample covariance eigenvalues.

    The definition of TopoNets and TDANN (``spacetorch/analyses/dimensionality.py``: PCA
    explained variances, the ``n - 1`` sample covariance). It falls when there are few
    stimuli (it cannot exceed ``n - 1``); :func:`participation_ratio` corrects that bias, and
    :func:`dimensionality` reports both per layer with the responses used. Data with no
    variance give NaN with an :class:`~toponeuro.exceptions.UndefinedValueWarning` (as
    :func:`participation_ratio` does), not an error.

    Parameters
    ----------
    %(dimensionality_data)s

    Returns
    -------
    float
        Between 1 and ``min(n_stimuli - 1, n_features)``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> round(effective_dimensionality(rng.standard_normal((5000, 10))), 1)
    10.0
    """
    num, den = trace_moments(data, bias_corrected=False)
    if den <= 0:
        return _no_variance()
    return float(num / den)


def _no_variance() -> float:
    """NaN with the warning every dimensionality estimate gives for data with no variance
    (as the bias-corrected ratio and the RDM comparisons do for an undefined value)."""
    warnings.warn(
        "The data have zero variance (every feature constant), so the dimensionality is "
        "undefined: NaN. Check the data (dead units, a wrong hook or selection).",
        UndefinedValueWarning, stacklevel=user_stacklevel(),
    )
    return float("nan")


#: the rule under which the bias-corrected participation ratio is reported
PR_BOUNDS_RULE = (
    "clipped to [1, min(n_stimuli - 1, n_features)]: the population value lies in "
    "[1, n_features], and n centred stimuli span at most n - 1 dimensions, so an estimate "
    "beyond n - 1 claims more than the stimuli can show (unclipped, for n = 6 i.i.d. stimuli "
    "in 200 dimensions it exceeds 200 in 59 % of draws, up to 1,434). NaN with an "
    "UndefinedValueWarning where the U-statistics do not exist (fewer than 4 stimuli) or "
    "the estimate of tr(C^2) is not positive"
)


@validate_params({"bias_corrected": Boolean()})
@fill_doc
def participation_ratio(data, bias_corrected: bool = True) -> float:
    """Participation ratio ``(tr C)^2 / tr(C^2)``, bias-corrected by default.

    The corrected estimate divides unbiased estimates of numerator and denominator, so it
    stays near the population value when there are few stimuli, where the plain estimate
    (``bias_corrected=False``, equal to :func:`effective_dimensionality`) falls. The
    corrected estimate is clipped to ``[1, min(n_stimuli - 1, n_features)]``: the population
    value cannot exceed ``n_features``, and beyond ``n - 1`` dimensions the correction
    extrapolates further than the stimuli can show (its variance explodes there). With
    fewer than 4 stimuli (the U-statistics do not exist) or an estimate of ``tr(C^2)`` that
    is not positive it is NaN with an :class:`~toponeuro.exceptions.UndefinedValueWarning`
    (the rule: ``PR_BOUNDS_RULE``).

    Parameters
    ----------
    %(dimensionality_data)s
    %(bias_corrected)s

    Returns
    -------
    float
        The participation ratio (NaN when undefined, with a warning).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((60, 20))  # true dimensionality 20
    >>> round(participation_ratio(X, bias_corrected=False)), round(participation_ratio(X))
    (14, 19)
    """
    X = np.asarray(as_matrix(data, "data"), dtype=np.float64)
    n, p = X.shape
    if bias_corrected and n < 4:
        warnings.warn(
            f"The bias-corrected participation ratio needs at least 4 stimuli; got {n}. "
            "Returning NaN (use bias_corrected=False for the plain estimate).",
            UndefinedValueWarning, stacklevel=user_stacklevel(),
        )
        return float("nan")
    num, den = trace_moments(X, bias_corrected)
    if den <= 0:
        if not bias_corrected:
            return _no_variance()
        warnings.warn(
            f"The bias-corrected participation ratio is undefined here (NaN): the estimate of "
            f"tr(C^2) is {den:.3g}, not positive (n_stimuli = {n}, n_features = {p}; too few "
            "stimuli, or no variance). Use more stimuli, or bias_corrected=False.",
            UndefinedValueWarning, stacklevel=user_stacklevel(),
        )
        return float("nan")
    pr = float(num / den)
    if bias_corrected:
        pr = float(np.clip(pr, 1.0, float(min(n - 1, p))))
    return pr


@validate_params(dict(activations=DataArrayWith((D.STIMULUS, D.UNIT), fix="See toponeuro.check_activations."),
                      layers=[Text(), Names(), None]))
@fill_doc
def dimensionality(activations: xr.DataArray, *, layers=None) -> xr.Dataset:
    """Effective dimensionality of each layer's responses, bias-corrected ratio beside it.

    Parameters
    ----------
    %(activations)s
    layers : str or sequence of str, optional
        Layers to measure (one name is one layer); default all.

    Returns
    -------
    xarray.Dataset
        Over ``"layer"``: ``effective_dimensionality`` (plain, :func:`effective_dimensionality`),
        ``participation_ratio`` (bias-corrected, :func:`participation_ratio`; NaN with an
        :class:`~toponeuro.exceptions.UndefinedValueWarning` outside its bounds), ``n_units``.
        A layer with no variance (every unit constant) is NaN in both, with that warning,
        and the other layers are measured.
        ``attrs`` say which responses were used -- ``n_stimuli``, ``categories``,
        ``pooling`` and ``model`` (from the activations' attrs) -- with ``method`` and
        ``reference`` of both estimators.

    Examples
    --------
    >>> from toponeuro import make_activations
    >>> acts = make_activations({"a": 16, "b": 25}, n_stimuli=40, random_state=0)
    >>> res = dimensionality(acts)
    >>> res["effective_dimensionality"].dims, res.attrs["n_stimuli"]
    (('layer',), 40)
    """
    from ..sheet import check_activations

    check_activations(activations)
    all_layers = list(dict.fromkeys(activations[D.LAYER].values.tolist()))
    if isinstance(layers, str):  # one layer, not its letters
        layers = [layers]
    layers = all_layers if layers is None else [str(ly) for ly in layers]
    ed, pr, n_units = [], [], []
    for layer in layers:
        x = activations.topo.select(layer).transpose(D.STIMULUS, D.UNIT).values
        if x.size and np.all(np.isfinite(x)) and not np.any(x != x[:1]):
            # no variance (e.g. a layer of dead units): undefined for this layer only
            warnings.warn(
                f"Layer {layer!r} has zero variance over the {x.shape[0]} stimuli (every "
                "unit constant, e.g. all zeros), so its dimensionality is undefined: NaN. "
                "Check that layer's activations (dead units, wrong hook).",
                UndefinedValueWarning, stacklevel=user_stacklevel(),
            )
            ed.append(np.nan)
            pr.append(np.nan)
        else:
            ed.append(effective_dimensionality(x))
            pr.append(participation_ratio(x))  # NaN with a warning where undefined
        n_units.append(x.shape[1])
    cats = (
        sorted(set(np.asarray(activations[D.CATEGORY].values, str).tolist()))
        if D.CATEGORY in activations.coords
        else []
    )
    return xr.Dataset(
        {
            "effective_dimensionality": (D.LAYER, np.asarray(ed)),
            "participation_ratio": (D.LAYER, np.asarray(pr)),
            "n_units": (D.LAYER, np.asarray(n_units)),
        },
        coords={D.LAYER: layers},
        attrs={
            "method": "effective_dimensionality (plain) and participation_ratio "
            "(bias-corrected)",
            "reference": ED_REFERENCE,
            "participation_ratio_reference": PR_REFERENCE,
            "participation_ratio_rule": PR_BOUNDS_RULE,
            "responses": "one response vector per stimulus and unit, as extracted",
            "n_stimuli": int(activations.sizes[D.STIMULUS]),
            "categories": ",".join(cats),
            "pooling": str(activations.attrs.get("pooling", "unknown")),
            "model": str(activations.attrs.get("model", "unknown")),
        },
    )
