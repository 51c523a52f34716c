"""Per-unit category selectivity: t, Welch t and d' contrasts, FDR and top-k masks.

All statistics are computed for every unit at once (vectorised over the ``unit`` dim); the
results keep every unit coordinate so ``result.topo.map(layer)`` lays them on the sheet.
"""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Real

import numpy as np
import xarray as xr

from ..._util import dims as D
from ..._util.constraints import ArrayLike
from ..._util.docs import fill_doc
from ..._util.params import (
    PROBABILITY,
    TOP_K,
    Boolean,
    Interval,
    Options,
    Text,
    check_top_k,
    validate_params,
)
from ...exceptions import (
    DimensionError,
    InputTypeError,
    InvalidDataError,
    ParameterError,
    UnknownNameError,
    close_matches,
)
from ...sheet import check_activations
from .._domains import FLOC_DOMAINS, FLOC_SCRAMBLED, LANGUAGE_AGAINST, LANGUAGE_TARGET

__all__ = [
    "SELECTIVITY_METRICS",
    "selectivity",
    "domain_selectivity",
    "language_selectivity",
    "fdr_bh",
    "welch_t",
    "student_t",
    "tdann_t",
    "dprime",
    "DEFAULT_SELECTIVITY",
    "SELECTIVITY_REFERENCES",
    "fdr_selection",
]


def _moments(a: np.ndarray, b: np.ndarray):
    # float64 accumulation without copying float32 activations
    a, b = np.asarray(a), np.asarray(b)
    f8 = np.float64
    return (
        a.mean(0, dtype=f8),
        b.mean(0, dtype=f8),
        a.var(0, ddof=1, dtype=f8),
        b.var(0, ddof=1, dtype=f8),
        a.shape[0],
        b.shape[0],
    )


def _ratio(num, den):
    with np.errstate(divide="ignore", invalid="ignore"):
        return num / den


@validate_params(dict(a=ArrayLike(), b=ArrayLike()))
@fill_doc
def student_t(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Two-sample t with pooled variance, per column: ``a`` (n_a, n_units), ``b`` (n_b, n_units).

    Equals ``scipy.stats.ttest_ind(a, b).statistic``.

    Parameters
    ----------
    %(two_samples)s

    %(t_values)s

    Examples
    --------
    >>> round(float(student_t(np.array([[1.0], [2.0], [3.0]]), np.array([[0.0], [1.0]]))[0]), 4)
    1.8
    """
    ma, mb, va, vb, na, nb = _moments(a, b)
    pooled = ((na - 1) * va + (nb - 1) * vb) / (na + nb - 2)
    return _ratio(ma - mb, np.sqrt(pooled * (1.0 / na + 1.0 / nb)))


@validate_params({"return_df": Boolean()})
@fill_doc
def welch_t(a: np.ndarray, b: np.ndarray, return_df: bool = False):
    """Welch's unequal-variance t per column (``scipy.stats.ttest_ind(a, b, equal_var=False)``).

    With ``return_df=True`` also returns the Welch–Satterthwaite degrees of freedom.

    Parameters
    ----------
    %(two_samples)s
    return_df : bool
        Also return the degrees of freedom.

    Returns
    -------
    t : numpy.ndarray
        ``(n_units,)`` t values; undefined (NaN, or ±inf) where both variances are 0.
    df : numpy.ndarray
        ``(n_units,)`` Welch–Satterthwaite degrees of freedom (only with ``return_df``).

    Examples
    --------
    >>> t = welch_t(np.array([[1.0], [2.0], [3.0]]), np.array([[0.0], [1.0]]))
    >>> round(float(t[0]), 4)
    1.964
    """
    ma, mb, va, vb, na, nb = _moments(a, b)
    sa, sb = va / na, vb / nb
    t = _ratio(ma - mb, np.sqrt(sa + sb))
    if not return_df:
        return t
    df = _ratio((sa + sb) ** 2, sa**2 / (na - 1) + sb**2 / (nb - 1))
    return t, df


@validate_params(dict(a=ArrayLike(), b=ArrayLike()))
@fill_doc
def tdann_t(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """TDANN's selectivity t per column: Welch-type, with population (ddof=0) variances.

    ``(mean_a - mean_b) / sqrt(var_a / n_a + var_b / n_b)`` with ``np.var`` (ddof=0), as
    ``spacetorch.utils.array_utils.tstat`` (neuroailab/TDANN). TDANN returns 0 where both
    variances are 0; here that is NaN (undefined), as everywhere in toponeuro.

    Parameters
    ----------
    %(two_samples)s

    %(t_values)s

    Examples
    --------
    >>> round(float(tdann_t(np.array([[1.0], [2.0], [3.0]]), np.array([[0.0], [1.0]]))[0]), 4)
    2.5456
    """
    a, b = np.asarray(a), np.asarray(b)
    f8 = np.float64
    va, vb = a.var(0, dtype=f8), b.var(0, dtype=f8)
    num = a.mean(0, dtype=f8) - b.mean(0, dtype=f8)
    return _ratio(num, np.sqrt(va / a.shape[0] + vb / b.shape[0]))


@validate_params(dict(a=ArrayLike(), b=ArrayLike()))
@fill_doc
def dprime(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The d' of each column: ``(mean_a - mean_b) / sqrt((var_a + var_b) / 2)`` (ddof=1).

    Parameters
    ----------
    %(two_samples)s

    Returns
    -------
    numpy.ndarray
        ``(n_units,)``; undefined (NaN, or ±inf) where both variances are 0.

    Examples
    --------
    >>> round(float(dprime(np.array([[1.0], [3.0]]), np.array([[0.0], [2.0]]))[0]), 4)
    0.7071
    """
    ma, mb, va, vb, _, _ = _moments(a, b)
    return _ratio(ma - mb, np.sqrt((va + vb) / 2.0))


#: selectivity metric name -> kernel ``f(a, b) -> per-unit values``
SELECTIVITY_METRICS = {"tdann_t": tdann_t, "t": student_t, "welch_t": welch_t, "dprime": dprime}
#: the declared selectivity metric
SELECTIVITY_METRIC = Options(SELECTIVITY_METRICS, error=UnknownNameError)

#: where each selectivity metric comes from
SELECTIVITY_REFERENCES = {
    "tdann_t": "Margalit et al. (2024) Neuron 112(14); neuroailab/TDANN "
    "spacetorch/utils/array_utils.py tstat (Welch-type, ddof=0), each domain against the other "
    "four, scrambled left out (spacetorch/datasets/floc.py fLocResponses.selectivity)",
    "t": "two-sample Student t, pooled variance (scipy.stats.ttest_ind)",
    "welch_t": "Welch t, unequal variances (scipy.stats.ttest_ind(equal_var=False))",
    "dprime": "d' = (mean_a - mean_b) / sqrt((var_a + var_b) / 2)",
}
DEFAULT_SELECTIVITY = "tdann_t"


@validate_params(dict(pvalues=ArrayLike()))
def fdr_bh(pvalues: np.ndarray) -> np.ndarray:
    """Benjamini–Hochberg adjusted p-values (``scipy.stats.false_discovery_control``).

    NaN p-values are left out of the family and stay NaN.

    Parameters
    ----------
    pvalues : array-like
        The p-values of one family (any shape).

    Returns
    -------
    numpy.ndarray
        The adjusted p-values, the shape of ``pvalues``.

    Examples
    --------
    >>> fdr_bh(np.array([0.01, 0.04, 0.03, 0.5])).round(3).tolist()
    [0.04, 0.053, 0.053, 0.5]
    """
    p = np.asarray(pvalues, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    ok = np.isfinite(p)
    bad = p[ok & ((p < 0) | (p > 1))]
    if bad.size:
        raise InvalidDataError(
            f"pvalues must lie in [0, 1]; {bad.size} do not (e.g. {bad[0]:g}). Pass p-values, "
            "not statistics or log-p (NaN marks a missing p and is left out)."
        )
    pv = p[ok]
    m = pv.size
    if m == 0:
        return out
    order = np.argsort(pv)
    scaled = pv[order] * m / np.arange(1, m + 1)
    adj = np.minimum.accumulate(scaled[::-1])[::-1]
    res = np.empty(m)
    res[order] = np.clip(adj, 0.0, 1.0)
    out[ok] = res
    return out


# --------------------------------------------------------------------------- contrasts


def _missing_labels(values) -> np.ndarray:
    """Mask of labels that are missing: None, NaN, pandas NA or ''."""
    import pandas as pd

    return np.array([v is None or (not isinstance(v, str) and np.ndim(v) == 0 and bool(pd.isna(v)))
                     or (isinstance(v, str) and v == "")
                     for v in values], dtype=bool)


def _stimulus_labels(activations: xr.DataArray, labels) -> np.ndarray:
    n = activations.sizes[D.STIMULUS]
    if labels is not None:
        if isinstance(labels, str):
            raise InputTypeError(
                f"labels must give one category per stimulus ({n}); got the string {labels!r}. "
                "Pass a list of strings."
            )
        raw = np.asarray(labels, dtype=object)
        if raw.shape != (n,):
            raise DimensionError(
                f"labels must give one category per stimulus ({n}); got shape {raw.shape}."
            )
        what = "labels"
    elif D.CATEGORY not in activations.coords:
        raise UnknownNameError(
            "These activations have no 'category' stimulus coord, so the contrast cannot be "
            "formed. Pass labels=[...] (one per stimulus) or extract from a StimulusSet with "
            "categories."
        )
    else:
        raw = np.asarray(activations[D.CATEGORY].values, dtype=object)
        what = "The 'category' coord"
    missing = _missing_labels(raw)
    if missing.any():
        first = int(np.flatnonzero(missing)[0])
        raise InvalidDataError(
            f"{what} {'hold' if what == 'labels' else 'holds'} {int(missing.sum())} missing categories (None, NaN or '') of {n}, "
            f"the first at stimulus {first} ({raw[first]!r}); every stimulus needs a category "
            "(a missing one is not a category of its own). Drop those stimuli "
            "(activations.isel(stimulus=...)) or label them."
        )
    return raw.astype(str)


def _contrast_names(names, what: str):
    """A contrast side as a name (str) or a list of names; numbers become their text."""
    import numbers

    def one(x):
        if isinstance(x, str):
            return x
        if isinstance(x, numbers.Number | np.generic) and not isinstance(x, bool | np.bool_):
            return str(x)
        raise InputTypeError(
            f"{what} must be a category or domain name (str), or a list of them; got "
            f"{type(x).__name__} {x!r}."
        )

    if isinstance(names, str) or not isinstance(names, Sequence | np.ndarray | set | tuple):
        return one(names)
    out = [one(x) for x in names]
    if not out:
        raise ParameterError(f"{what} must name at least one category or domain; got [].")
    return out


def _expand(names, present: Sequence[str], domains) -> list[str]:
    """Domain or category names -> the category names they stand for."""
    if isinstance(names, str):
        names = [names]
    out: list[str] = []
    known = sorted(set(present) | set(domains))
    for name in names:
        name = str(name)
        if name in present:  # a category of these stimuli wins over a domain of that name
            cats = [name]
        elif name in domains:
            cats = list(domains[name])
        else:
            in_table = any(name in c for c in domains.values())
            if in_table:
                raise UnknownNameError(
                    f"Contrast category {name!r} is absent from these stimuli (present: "
                    f"{sorted(present)}). Extract activations for stimuli that include it, or "
                    "choose a target among the present categories."
                )
            raise UnknownNameError(
                f"Unknown category or domain {name!r}; {close_matches(name, known)}"
            )
        missing = [c for c in cats if c not in present]
        if missing:
            raise UnknownNameError(
                f"Domain {name!r} needs the categories {cats}, but {missing} are absent from "
                f"these stimuli (present: {sorted(present)}). Extract activations for the full "
                "fLoc set, or contrast the present categories by name."
            )
        out.extend(c for c in cats if c not in out)
    return out


def contrast_masks(categories: np.ndarray, target, against="rest", domains=None):
    """Boolean stimulus masks ``(target, against)`` and the category lists they cover."""
    domains = FLOC_DOMAINS if domains is None else domains
    present = list(dict.fromkeys(categories.tolist()))
    tgt = _expand(target, present, domains)
    if isinstance(against, str) and against == "rest":
        agn = [c for c in present if c not in tgt and c != FLOC_SCRAMBLED]
    else:
        agn = _expand(against, present, domains)
    overlap = sorted(set(tgt) & set(agn))
    if overlap:
        raise InvalidDataError(
            f"Categories {overlap} are on both sides of the contrast; give disjoint target and "
            "against."
        )
    t_mask = np.isin(categories, tgt)
    a_mask = np.isin(categories, agn)
    for side, mask, cats in (("target", t_mask, tgt), ("against", a_mask, agn)):
        if mask.sum() < 2:
            raise InvalidDataError(
                f"The {side} side ({cats}) has {int(mask.sum())} stimuli; a t or d' contrast "
                "needs at least 2 per side. Use more stimuli per category."
            )
    return t_mask, a_mask, tgt, agn


def _unit_coords(activations: xr.DataArray) -> dict:
    return {k: (D.UNIT, v.values) for k, v in activations.coords.items() if v.dims == (D.UNIT,)}


def _label(x) -> str:
    return x if isinstance(x, str) else "+".join(str(v) for v in x)


@validate_params({"metric": SELECTIVITY_METRIC})
@fill_doc
def selectivity(
    activations: xr.DataArray,
    target: str | Sequence[str],
    against: str | Sequence[str] = "rest",
    metric: str = DEFAULT_SELECTIVITY,
    labels: Sequence[str] | None = None,
) -> xr.DataArray:
    """Per-unit selectivity for ``target`` over ``against`` (TDANN's t by default).

    Parameters
    ----------
    %(activations)s
    target : str or sequence of str
        Category names (``"adult"``) or fLoc domain names (``"faces"`` = adult + child). A
        name that is a category of these stimuli means that category; domain names expand
        only when no category has the name.
    against : "rest", str or sequence of str
        ``"rest"`` (default) means every other category present except ``"scrambled"`` (for a
        domain: the other four domains, as TDANN).
    metric : {"tdann_t", "t", "welch_t", "dprime"}
        ``"tdann_t"`` (default): TDANN's Welch-type t with population variances
        (:func:`tdann_t`); ``"t"``: pooled-variance two-sample t (``scipy.stats.ttest_ind``,
        the default of toponeuro 0.1.0); ``"welch_t"``: unequal variances
        (``equal_var=False``); ``"dprime"``: mean difference over the root mean variance.
        Units with zero variance on both sides get NaN.
    labels : sequence of str, optional
        One category per stimulus; defaults to the ``category`` stimulus coord.

    Returns
    -------
    xarray.DataArray
        Dim ``"unit"`` with every unit coord (``layer``, ``channel``, ``row``, ``col`` ...), so
        ``result.topo.map(layer)`` draws the sheet map. Attrs record the contrast.

    Raises
    ------
    UnknownNameError
        A contrast category is unknown or absent from the stimuli.
    InvalidDataError
        Fewer than two stimuli on a side, or overlapping sides.

    Examples
    --------
    >>> from toponeuro import make_activations
    >>> cats = ["adult", "child", "car", "house"] * 5
    >>> acts = make_activations({"fc": 16}, n_stimuli=20, categories=cats, random_state=0)
    >>> faces = selectivity(acts, "faces")
    >>> faces.dims, faces.attrs["against"], faces.topo.map("fc").shape
    (('unit',), 'car+house', (4, 4))
    """
    check_activations(activations)
    target = _contrast_names(target, "target")
    against = _contrast_names(against, "against")
    cats = _stimulus_labels(activations, labels)
    t_mask, a_mask, tgt, agn = contrast_masks(cats, target, against)
    x = activations.transpose(D.STIMULUS, D.UNIT).values
    vals = SELECTIVITY_METRICS[metric](x[t_mask], x[a_mask])
    return xr.DataArray(
        vals,
        dims=(D.UNIT,),
        coords=_unit_coords(activations),
        name=f"{_label(target)}_selectivity",
        attrs={
            **activations.attrs,
            "target": _label(tgt),
            "against": _label(agn),
            "metric": metric,
            "method": metric,
            "reference": SELECTIVITY_REFERENCES[metric],
            "n_target": int(t_mask.sum()),
            "n_against": int(a_mask.sum()),
        },
    )


@validate_params({"metric": SELECTIVITY_METRIC})
@fill_doc
def domain_selectivity(
    activations: xr.DataArray,
    domains: Sequence[str] | None = None,
    metric: str = DEFAULT_SELECTIVITY,
    labels: Sequence[str] | None = None,
) -> xr.DataArray:
    """Selectivity of each fLoc domain against the rest, stacked along a ``"domain"`` dim.

    Each domain's map is :func:`selectivity` of that domain against ``"rest"`` (every other
    category present but ``"scrambled"``: for the five fLoc domains, the other four, as in
    TDANN), with the same ``metric`` and ``labels``.

    Parameters
    ----------
    %(activations)s
    domains : sequence of str, optional
        Domain names; default all five (faces, bodies, places, characters, objects).
    metric : {"tdann_t", "t", "welch_t", "dprime"}
        See :func:`selectivity`; default TDANN's t, each domain against the other four.
    labels : sequence of str, optional
        One category per stimulus; defaults to the ``category`` coord.

    Returns
    -------
    xarray.DataArray
        Dims ``("domain", "unit")`` with every unit coord. Attrs as :func:`selectivity`'s
        (the metric and its reference), without the per-domain ``target`` and ``against``.

    Examples
    --------
    >>> from toponeuro import make_activations
    >>> cats = [c for pair in FLOC_DOMAINS.values() for c in pair] * 3
    >>> acts = make_activations({"fc": 12}, n_stimuli=30, categories=cats, random_state=0)
    >>> sel = domain_selectivity(acts)
    >>> sel.dims, sel["domain"].values.tolist()[:2]
    (('domain', 'unit'), ['faces', 'bodies'])
    """
    if domains is None:  # the five domains; scrambled is a control, not a domain contrast
        domains = [d for d in FLOC_DOMAINS if d != FLOC_SCRAMBLED]
    domains = _contrast_names(domains, "domains")
    domains = [domains] if isinstance(domains, str) else domains
    maps = [selectivity(activations, d, "rest", metric=metric, labels=labels) for d in domains]
    out = xr.concat(maps, dim=D.DOMAIN, coords="minimal", combine_attrs="drop_conflicts")
    out = out.assign_coords({D.DOMAIN: domains})
    out.name = "domain_selectivity"
    out.attrs = {k: v for k, v in maps[0].attrs.items() if k not in ("target", "against")}
    return out


#: where the language localizer follows
TOPOLM_REFERENCE = (
    "Rathi et al. (2025) TopoLM: brain-like spatio-functional organization in a topographic "
    "language model (ICLR 2025); epflneuroailab/topolm eval/localize.py (Welch t of smoothed "
    "activations, scipy.stats.ttest_ind(equal_var=False), two-sided; "
    "scipy.stats.false_discovery_control over all layers at once; top-k over all layers) and "
    "eval/hrf.py NeuronSmoothing (FWHM 2 units on a 1-unit grid)"
)
_SCOPES = ("all", "layer")


def _smooth_on_sheet(activations: xr.DataArray, x: np.ndarray, fwhm: float) -> np.ndarray:
    """Gaussian smoothing of every stimulus's activations on each layer's sheet.

    TopoLM's NeuronSmoothing sums the units with an (unnormalised at the borders) Gaussian of
    the given FWHM; a zero-padded Gaussian filter is the same linear map up to one scale
    factor, which no t-statistic sees.
    """
    from scipy import ndimage

    sigma = float(fwhm) / np.sqrt(8.0 * np.log(2.0))
    out = np.empty_like(x, dtype=np.float64)
    layers = activations[D.LAYER].values
    rows = activations[D.ROW].values.astype(int)
    cols = activations[D.COL].values.astype(int)
    for layer in dict.fromkeys(layers.tolist()):
        idx = np.flatnonzero(layers == layer)
        h, w = rows[idx].max() + 1, cols[idx].max() + 1
        grid = np.zeros((x.shape[0], h, w))
        grid[:, rows[idx], cols[idx]] = x[:, idx]
        sm = ndimage.gaussian_filter(grid, (0, sigma, sigma), mode="constant", truncate=6.0)
        out[:, idx] = sm[:, rows[idx], cols[idx]]
    return out


def _top_k(score: np.ndarray, top_k, groups) -> np.ndarray:
    """Mask of the ``top_k`` highest finite scores in each group (never a NaN score)."""
    top_k = check_top_k(top_k)
    mask = np.zeros(score.shape, dtype=bool)
    for idx in groups:
        k = top_k if isinstance(top_k, int) else int(round(top_k * idx.size))
        finite = idx[np.isfinite(score[idx])]
        best = finite[np.argsort(-score[finite], kind="stable")[: min(k, finite.size)]]
        mask[best] = True
    return mask


#: the declared selection of the language units (TopoLM's)
LANGUAGE_SELECTION = {
    "q": PROBABILITY,
    "top_k": TOP_K,
    "alternative": Options(("greater", "two-sided", "less"), error=UnknownNameError),
    "smooth_fwhm": [Interval(Real, 0, None, closed="neither"), None],
    "scope": Options(_SCOPES, error=UnknownNameError),
}


@validate_params(LANGUAGE_SELECTION)
@fill_doc
def language_selectivity(
    activations: xr.DataArray,
    target=LANGUAGE_TARGET,
    against=LANGUAGE_AGAINST,
    q: float = 0.05,
    top_k: float | int = 0.1,
    alternative: str = "two-sided",
    labels=None,
    *,
    smooth_fwhm: float | None = 2.0,
    scope: str = "all",
) -> xr.Dataset:
    """Language-localizer contrast (sentences vs nonword lists) as TopoLM computes it.

    TopoLM (epflneuroailab/topolm ``eval/localize.py``): activations smoothed on each layer's
    sheet (Gaussian, FWHM 2 units), Welch t per unit, two-sided p-values, Benjamini-Hochberg
    over the units of all layers at once, and a top-k mask over all layers.

    Parameters
    ----------
    %(activations)s
    target, against : str or sequence of str
        Condition labels; default ``"S"`` (sentences) vs ``"N"`` (nonword lists), the codes of
        the Fedorenko et al. (2010) stimulus table.
    q : float
        Benjamini-Hochberg false-discovery rate.
    top_k : float or int
        Units with the highest t over ``scope``: an int >= 1 is a count (``5``), a float in
        (0, 1] a fraction (``0.1``; ``1.0`` = every unit). A unit whose t is undefined (NaN)
        is never picked.
    alternative : {"two-sided", "greater", "less"}
        Alternative of the p-values (``scipy.stats.ttest_ind``); TopoLM: two-sided.
    labels : sequence of str, optional
        One condition per stimulus; defaults to the ``category`` coord.
    smooth_fwhm : float or None
        FWHM (unit spacings) of the Gaussian smoothing of the activations on the sheet before
        the t-test; TopoLM's 2.0; ``None`` tests the raw activations.
    scope : {"all", "layer"}
        The FDR family and the top-k pool: all layers at once (TopoLM) or each layer.

    Returns
    -------
    xarray.Dataset
        Over ``"unit"`` (with every unit coord): ``t`` (Welch), ``df``, ``p``, ``q``
        (BH-adjusted p), ``fdr_mask`` (``q <= q`` and t in the contrast's direction: > 0 unless
        ``alternative="less"``) and ``topk_mask``. ``attrs``: ``method``, parameters,
        ``reference``.

    Examples
    --------
    >>> from toponeuro import make_activations
    >>> acts = make_activations({"h": 20}, n_stimuli=16, categories=["S", "N"] * 8,
    ...                         random_state=0)
    >>> res = language_selectivity(acts, top_k=5)
    >>> sorted(res.data_vars), int(res["topk_mask"].sum()), res.attrs["scope"]
    (['df', 'fdr_mask', 'p', 'q', 't', 'topk_mask'], 5, 'all')
    """
    check_activations(activations)
    cats = _stimulus_labels(activations, labels)
    t_mask, a_mask, tgt, agn = contrast_masks(cats, target, against)
    x = activations.transpose(D.STIMULUS, D.UNIT).values
    if smooth_fwhm is not None:
        x = _smooth_on_sheet(activations, x, smooth_fwhm)
    t, df = welch_t(x[t_mask], x[a_mask], return_df=True)
    from scipy import stats  # on first use: scipy.stats is a heavy import

    if alternative == "greater":
        p = stats.t.sf(t, df)
    elif alternative == "less":
        p = stats.t.cdf(t, df)
    else:
        p = 2 * stats.t.sf(np.abs(t), df)
    layers = activations[D.LAYER].values
    groups = (
        [np.arange(t.size)]
        if scope == "all"
        else [np.flatnonzero(layers == ly) for ly in dict.fromkeys(layers.tolist())]
    )
    qv = np.full(t.shape, np.nan)
    for idx in groups:
        qv[idx] = fdr_bh(p[idx])
    signed = -t if alternative == "less" else t
    topk = _top_k(signed, top_k, groups)
    fdr_mask = (np.nan_to_num(qv, nan=1.0) <= q) & (np.nan_to_num(signed, nan=0.0) > 0)
    attrs = {
        **activations.attrs,
        "method": "topolm",
        "statistic": "welch_t",
        "reference": TOPOLM_REFERENCE,
        "target": _label(tgt),
        "against": _label(agn),
        "q_level": q,
        "top_k": top_k,
        "alternative": alternative,
        "smooth_fwhm": float("nan") if smooth_fwhm is None else float(smooth_fwhm),
        "scope": scope,
        "n_target": int(t_mask.sum()),
        "n_against": int(a_mask.sum()),
    }
    return xr.Dataset(
        {
            "t": (D.UNIT, t),
            "df": (D.UNIT, df),
            "p": (D.UNIT, p),
            "q": (D.UNIT, qv),
            "fdr_mask": (D.UNIT, fdr_mask),
            "topk_mask": (D.UNIT, topk),
        },
        coords=_unit_coords(activations),
        attrs=attrs,
    )


@validate_params({"layer": [Text(), None], "what": Text()})
def fdr_selection(result: xr.Dataset, *, layer: str | None = None,
                  what: str = "language-selective units") -> dict:
    """The units :func:`language_selectivity` selects at its FDR level, and their threshold.

    An empty selection is a result, not an error: ``threshold`` is then ``None`` (pass it on
    as :func:`topography_table`'s ``threshold=None``: no patches) and the text says so.

    Parameters
    ----------
    result : xarray.Dataset
        From :func:`language_selectivity` (``t``, ``fdr_mask``, ``attrs["q_level"]``).
    layer : str, optional
        Count the units of this layer only (default all).
    what : str
        What the selected units are, for the sentence.

    Returns
    -------
    dict
        ``n_selected``, ``n_units``, ``q``, ``threshold`` (the smallest t among the selected
        units, the patch threshold the job uses; ``None`` when none passes), ``empty`` and
        ``text`` ("no language-selective units at q = 0.05" or "12 language-selective units
        at q = 0.05 (t >= 3.41)").

    Examples
    --------
    >>> from toponeuro import make_activations
    >>> acts = make_activations({"h": 64}, n_stimuli=20, categories=["S", "N"] * 10,
    ...                         random_state=0)
    >>> fdr_selection(language_selectivity(acts, smooth_fwhm=None))["text"]
    'no language-selective units at q = 0.05'
    >>> x = acts.values.copy(); x[acts["category"].values == "S", :6] += 3.0
    >>> sel = fdr_selection(language_selectivity(acts.copy(data=x), smooth_fwhm=None))
    >>> sel["n_selected"], sel["empty"]
    (6, False)
    """
    for need in ("t", "fdr_mask"):
        if need not in result:
            raise InvalidDataError(
                f"fdr_selection reads the result of language_selectivity (variables 't' and "
                f"'fdr_mask'); this Dataset has {sorted(result.data_vars)}."
            )
    keep = np.ones(result.sizes[D.UNIT], dtype=bool)
    if layer is not None:
        keep = np.asarray(result[D.LAYER].values).astype(str) == str(layer)
        if not keep.any():
            raise UnknownNameError(
                f"Unknown layer {layer!r}; "
                f"{close_matches(layer, sorted(set(result[D.LAYER].values.astype(str))))}"
            )
    mask = np.asarray(result["fdr_mask"].values, dtype=bool) & keep
    t = np.asarray(result["t"].values, dtype=float)
    q = float(result.attrs.get("q_level", float("nan")))
    n = int(mask.sum())
    threshold = float(np.min(t[mask])) if n else None
    text = (f"no {what} at q = {q:g}" if not n
            else f"{n:,} {what[:-1] if n == 1 and what.endswith('s') else what} at q = {q:g} "
                 f"(t >= {threshold:.2f})")
    return {"n_selected": n, "n_units": int(keep.sum()), "q": q, "threshold": threshold,
            "empty": not n, "text": text}
