"""Comparing RDMs: similarity methods (rsatoolbox's), bootstrap CIs and RDM noise ceilings.

Every function takes RDMs from :func:`~toponeuro.analysis.rdm` (labelled: aligned by stimulus
id with an exact join) or plain condensed / square arrays (then the same stimulus order is
assumed). A comparison that is undefined for the data (a constant RDM has no correlation)
is NaN with an :class:`~toponeuro.exceptions.UndefinedValueWarning`, never 0.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from numbers import Integral, Real
from types import MappingProxyType

import numpy as np
import xarray as xr

from ..._util import dims as D
from ..._util.constraints import NDARRAY
from ..._util.docs import fill_doc
from ..._util.frozen import validate_fields
from ..._util.metrics import pearson_r, rankdata
from ..._util.params import (
    MAX_PERMUTATIONS,
    NON_NEGATIVE_INT,
    NUMBER,
    SEED,
    Interval,
    Options,
    Text,
    check_random_state,
    validate_params,
)
from ..._util.stack import user_stacklevel
from ..._util.typing import RandomState
from ...exceptions import (
    AlignmentError,
    InputTypeError,
    InvalidDataError,
    UndefinedValueWarning,
    UnknownNameError,
    close_matches,
)
from ._rsa import _square, align_rdms, is_rsatoolbox_rdms, rsatoolbox_rdm_list

__all__ = [
    "compare_rdms",
    "bootstrap_compare_rdms",
    "rdm_noise_ceiling",
    "BootstrapResult",
    "COMPARE_METHODS",
    "COMPARE_ALIASES",
]


# ----------------------------------------------------------------------------- kernels
# Each kernel returns NaN where its statistic is undefined; the public functions warn.
def _constant(v) -> bool:
    return v.size == 0 or bool(np.all(v == v[0]))


def _cos(a, b):
    na, nb = np.sqrt(a @ a), np.sqrt(b @ b)
    if na == 0 or nb == 0:
        return np.nan
    return float(a @ b / (na * nb))


def _cosine(a, b):
    return _cos(a, b)


def _pearson(a, b):
    if _constant(a) or _constant(b):
        return np.nan
    return pearson_r(a, b)


def _spearman(a, b):
    return _pearson(rankdata(a), rankdata(b))


def _rho_a(a, b):
    """rsatoolbox's ``rho-a``: Spearman's rho under random tie-breaking (expected value)."""
    if _constant(a) or _constant(b):
        return np.nan
    ra, rb = rankdata(a), rankdata(b)
    n = a.shape[0]
    return float((ra - ra.mean()) @ (rb - rb.mean()) / (n**3 - n) * 12)


def _tie_pairs(v):
    _, c = np.unique(v, return_counts=True)
    c = c.astype(np.int64)
    return int((c * (c - 1) // 2).sum())


def _kendall_tau_b(a, b):
    if _constant(a) or _constant(b):
        return np.nan
    import scipy.stats  # on first use: `import toponeuro.analysis` stays light

    return float(scipy.stats.kendalltau(a, b).statistic)


def _kendall_tau_a(a, b):
    tau_b = _kendall_tau_b(a, b)
    if not np.isfinite(tau_b):
        return np.nan
    n = a.shape[0]
    tot = n * (n - 1) // 2
    xt, yt = _tie_pairs(a), _tie_pairs(b)
    return float(np.clip(tau_b * np.sqrt(float(tot - xt) * float(tot - yt)) / tot, -1, 1))


def _double_centred(v):
    """``H (-D/2) H`` of a condensed RDM: the whitened space of rsatoolbox's *_cov methods."""
    G = -0.5 * _square(v)
    G -= G.mean(0, keepdims=True)
    G -= G.mean(1, keepdims=True)
    return G


def _cosine_cov(a, b):
    return _cos(_double_centred(a).ravel(), _double_centred(b).ravel())


def _corr_cov(a, b):
    if _constant(a) or _constant(b):
        return np.nan
    return _cosine_cov(a - a.mean(), b - b.mean())


#: canonical comparison methods (each also under rsatoolbox's name, see COMPARE_ALIASES)
_CANONICAL = {
    "spearman": _spearman,
    "pearson": _pearson,
    "kendall_tau_a": _kendall_tau_a,
    "kendall_tau_b": _kendall_tau_b,
    "rho_a": _rho_a,
    "cosine": _cosine,
    "corr_cov": _corr_cov,
    "cosine_cov": _cosine_cov,
}
#: rsatoolbox 0.3.2's names (``rsatoolbox.rdm.compare(method=...)``) -> toponeuro's
COMPARE_ALIASES = {
    "corr": "pearson",
    "tau-a": "kendall_tau_a",
    "tau-b": "kendall_tau_b",
    "kendall": "kendall_tau_b",
    "rho-a": "rho_a",
}
#: every accepted name, rsatoolbox's aliases included (read-only: a method added here would
#: have no rsatoolbox counterpart for compare_rdm_models; compare your own way on the vectors)
COMPARE_METHODS = MappingProxyType(
    {**_CANONICAL, **{k: _CANONICAL[v] for k, v in COMPARE_ALIASES.items()}})
#: toponeuro's name -> rsatoolbox's (for converters and parity checks)
RSATOOLBOX_METHODS = {
    "spearman": "spearman",
    "pearson": "corr",
    "kendall_tau_a": "tau-a",
    "kendall_tau_b": "tau-b",
    "rho_a": "rho-a",
    "cosine": "cosine",
    "corr_cov": "corr_cov",
    "cosine_cov": "cosine_cov",
}
RSATOOLBOX_METHODS.update({k: RSATOOLBOX_METHODS[v] for k, v in COMPARE_ALIASES.items()})


def _method(method):
    """``(canonical name, kernel)`` of a comparison method (rsatoolbox's names accepted)."""
    if not isinstance(method, str):
        raise InputTypeError(
            f"method must be the name of an RDM comparison (a str such as 'spearman'); got "
            f"{type(method).__name__} {method!r:.40}. Known: {', '.join(COMPARE_METHODS)}."
        )
    if method not in COMPARE_METHODS:
        raise UnknownNameError(
            f"Unknown RDM comparison {method!r}; {close_matches(method, COMPARE_METHODS)}"
        )
    name = COMPARE_ALIASES.get(method, method)
    return name, COMPARE_METHODS[name]


def _undefined(method, why):
    warnings.warn(
        f"RDM comparison {method!r} is undefined {why} (a constant RDM has no correlation); "
        "returning NaN. Check that the RDM's data are not constant or duplicated.",
        UndefinedValueWarning, stacklevel=user_stacklevel(),
    )


def _compare_vectors(va, vb, name, fn):
    """Compare two aligned condensed vectors; NaN entries left out (not for *_cov)."""
    ok = np.isfinite(va) & np.isfinite(vb)
    if not ok.all():
        if name.endswith("_cov"):
            raise InvalidDataError(
                f"method={name!r} needs complete RDMs; {int((~ok).sum())} entries are NaN. "
                "Use 'spearman' or 'pearson', or fill the missing entries."
            )
        va, vb = va[ok], vb[ok]
    if va.shape[0] < 2:
        raise InvalidDataError(
            f"Need at least 2 valid RDM entries to compare; got {va.shape[0]} (the others are "
            "NaN). Compute the RDMs from at least 3 stimuli with finite data."
        )
    return fn(va, vb)


#: the declared ``method`` of an RDM comparison (rsatoolbox's names accepted)
COMPARE_METHOD = Options(COMPARE_METHODS, error=UnknownNameError)
#: the declared ``ci``: coverage of a confidence interval
CI = Interval(Real, 0, 1, closed="neither", fix="0.95 is the usual choice.")


@validate_params({"method": COMPARE_METHOD})
def compare_rdms(a, b, method: str = "spearman") -> float:
    """Similarity of two RDMs (condensed vectors or square matrices).

    Parameters
    ----------
    a, b : xarray.DataArray or array-like
        RDMs from :func:`~toponeuro.analysis.rdm` carry their stimulus ids, and ``b`` is
        reordered to ``a``'s ids (exact join: different sets of ids raise
        :class:`~toponeuro.exceptions.AlignmentError`). Plain arrays are taken to describe
        the same stimuli in the same order. An rsatoolbox ``RDMs`` holding one RDM is
        joined by its ``stimulus_id`` pattern descriptor (plain without one).
    method : str
        ``"spearman"``, ``"pearson"``, ``"kendall_tau_a"``, ``"kendall_tau_b"``, ``"rho_a"``,
        ``"cosine"``, ``"corr_cov"`` or ``"cosine_cov"``, as in rsatoolbox 0.3.2, whose own
        names work too (``"corr"``, ``"tau-a"``, ``"tau-b"``/``"kendall"``, ``"rho-a"``;
        see ``COMPARE_ALIASES``). ``"cosine_cov"`` / ``"corr_cov"`` whiten with the covariance
        of distance estimates under i.i.d. noise (rsatoolbox without ``sigma_k``), computed
        as the cosine of the double-centred ``-D/2`` matrices. Entries that are NaN in
        either RDM are left out (not allowed for the ``*_cov`` methods).

    Returns
    -------
    float
        NaN, with an :class:`~toponeuro.exceptions.UndefinedValueWarning`, when the
        comparison is undefined (e.g. a constant RDM under a correlation).

    Examples
    --------
    >>> round(compare_rdms([1.0, 2.0, 3.0], [10.0, 20.0, 35.0], method="spearman"), 6)
    1.0

    Labelled RDMs are matched by stimulus id, whatever the order of the data:

    >>> from toponeuro import make_activations
    >>> from toponeuro.analysis import rdm
    >>> acts = make_activations({"a": 30}, n_stimuli=8, random_state=0)
    >>> shuffled = acts.isel(stimulus=np.random.default_rng(1).permutation(8))
    >>> round(compare_rdms(rdm(acts), rdm(shuffled)), 6)
    1.0
    """
    name, fn = _method(method)
    (va, vb), _ = align_rdms([a, b], ["first RDM", "second RDM"])
    value = _compare_vectors(va, vb, name, fn)
    if not np.isfinite(value):
        _undefined(method, "for these RDMs")
    return float(value)


@dataclass(frozen=True)
@validate_fields({
    "value": NUMBER, "ci_low": NUMBER, "ci_high": NUMBER, "samples": NDARRAY,
    "n_undefined": NON_NEGATIVE_INT, "method": Text()})
class BootstrapResult:
    """A comparison value with a bootstrap confidence interval over stimuli.

    ``samples`` holds the defined resample values only; ``n_undefined`` counts the resamples
    whose comparison was undefined (e.g. constant after resampling), which are left out of
    the interval rather than counted as 0.

    Parameters
    ----------
    value : float
        The comparison on all stimuli.
    ci_low, ci_high : float
        The percentile confidence interval.
    samples : numpy.ndarray
        The defined resample values.
    n_undefined : int
        Resamples whose comparison was undefined.
    method : str
        The comparison method.

    Examples
    --------
    >>> res = BootstrapResult(0.5, 0.3, 0.7, np.array([0.4, 0.5, 0.6]))
    >>> res.ci_high - res.ci_low, res.n_undefined, res.method
    (0.39999999999999997, 0, 'spearman')
    """

    value: float
    ci_low: float
    ci_high: float
    samples: np.ndarray
    n_undefined: int = 0
    method: str = "spearman"


@validate_params({
    "method": COMPARE_METHOD,
    "n_bootstrap": Interval(Integral, 1, MAX_PERMUTATIONS, closed="both"),
    "ci": CI,
    "random_state": SEED,
})
@fill_doc
def bootstrap_compare_rdms(
    a, b, method: str = "spearman", n_bootstrap: int = 1000, ci: float = 0.95,
    random_state: RandomState = None,
) -> BootstrapResult:
    """Compare two RDMs with a percentile confidence interval from resampling stimuli.

    Each bootstrap draws ``n`` stimuli with replacement and compares the RDMs restricted to
    them; pairs of a stimulus with its own copy are left out, as rsatoolbox does (the
    ``*_cov`` methods, which whiten the complete matrix, keep them at distance 0). Labelled
    RDMs are aligned by stimulus id first (see :func:`compare_rdms`). Resamples whose
    comparison is undefined are left out and counted (``n_undefined``, with a warning).

    Parameters
    ----------
    a, b : array-like or xarray.DataArray
        The RDMs (condensed or square; labelled ones aligned by id).
    method : str
        The comparison (:func:`compare_rdms`).
    n_bootstrap : int
        Resamples drawn.
    ci : float
        Coverage of the interval, in (0, 1).
    %(random_state)s

    Returns
    -------
    BootstrapResult
        The value, its interval and the resample values.

    Examples
    --------
    >>> from toponeuro.analysis import rdm
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((12, 30))
    >>> r = bootstrap_compare_rdms(rdm(X), rdm(X + 0.5 * rng.standard_normal(X.shape)),
    ...                            n_bootstrap=50, random_state=0)
    >>> bool(r.ci_low <= r.value <= r.ci_high), r.n_undefined
    (True, 0)
    """
    name, fn = _method(method)
    (va, vb), _ = align_rdms([a, b], ["first RDM", "second RDM"])
    value = _compare_vectors(va, vb, name, fn)
    if not np.isfinite(value):
        _undefined(method, "for these RDMs")
    Sa, Sb = _square(va), _square(vb)
    n = Sa.shape[0]
    rng = check_random_state(random_state)
    iu = np.triu_indices(n, 1)
    samples = np.full(n_bootstrap, np.nan)
    for k in range(n_bootstrap):
        idx = np.sort(rng.integers(0, n, n))
        x = Sa[np.ix_(idx, idx)][iu]
        y = Sb[np.ix_(idx, idx)][iu]
        if name.endswith("_cov"):  # whitening needs the complete (resampled) matrix
            samples[k] = fn(x, y)
            continue
        keep = (idx[iu[0]] != idx[iu[1]]) & np.isfinite(x) & np.isfinite(y)
        if keep.sum() >= 2:
            samples[k] = fn(x[keep], y[keep])
    defined = samples[np.isfinite(samples)]
    n_undef = n_bootstrap - defined.size
    if n_undef:
        warnings.warn(
            f"{n_undef} of {n_bootstrap} bootstrap resamples gave an undefined {method!r} "
            "comparison (constant RDM after resampling); they are left out of the interval "
            "and counted in BootstrapResult.n_undefined.",
            UndefinedValueWarning, stacklevel=user_stacklevel(),
        )
    if defined.size:
        lo, hi = np.quantile(defined, [(1 - ci) / 2, 1 - (1 - ci) / 2])
    else:
        lo = hi = np.nan
    return BootstrapResult(float(value), float(lo), float(hi), defined, int(n_undef), name)


def _rdm_stack(rdms):
    """``(vectors (n_subjects, n_pairs), ids)`` of a stack or list of RDMs, aligned by id."""
    if is_rsatoolbox_rdms(rdms):  # its RDMs, each labelled by the stimulus_id descriptor
        rdms = rsatoolbox_rdm_list(rdms)
    if isinstance(rdms, xr.DataArray) and rdms.ndim == 2 and not _looks_square(rdms.values):
        if rdms.attrs.get(D.STIMULUS_ID) is not None:
            raise AlignmentError(
                "A DataArray of condensed RDMs (one per row) carries a single "
                "attrs['stimulus_id'] for every row, and xr.concat keeps only the first RDM's "
                "attrs, so rows in another stimulus order cannot be told apart. Pass the RDMs "
                "as a list (each joined by its own ids), or np.asarray(rdms) when every row "
                "has one stimulus order."
            )
        return np.asarray(rdms.values, dtype=np.float64), None
    if isinstance(rdms, np.ndarray) and rdms.ndim == 2 and not _looks_square(rdms):
        return np.asarray(rdms, dtype=np.float64), None
    if isinstance(rdms, xr.DataArray) and rdms.ndim == 3:
        # square RDMs stacked along a third dim (xr.concat keeps each one's ids there as a
        # 2-D stimulus_id coord): each slice is a labelled RDM, joined by its own ids
        stack = [d for d in rdms.dims if d not in (D.STIMULUS, D.STIMULUS_B)]
        if len(stack) == 1:
            rdms = [rdms.isel({stack[0]: i}).transpose(D.STIMULUS, D.STIMULUS_B)
                    for i in range(rdms.sizes[stack[0]])]
        else:
            rdms = list(np.asarray(rdms))
    if isinstance(rdms, np.ndarray) and rdms.ndim == 3:
        rdms = list(rdms)
    if isinstance(rdms, (np.ndarray, xr.DataArray)) and rdms.ndim < 3:
        rdms = [rdms]  # one RDM (condensed, or square): one subject
    vecs, ids = align_rdms(list(rdms), [f"RDM {i}" for i in range(len(rdms))])
    return np.stack(vecs), ids


def _looks_square(a):
    a = np.asarray(a)
    return a.shape[0] == a.shape[1] and np.allclose(np.diag(a), 0)


def _pool(V, method):
    """rsatoolbox's ``inference_util.pool_rdm``: the group's average RDM under ``method``.

    As there, the ``*_cov`` methods pool like their unwhitened versions, and the additive
    shifts rsatoolbox applies are left out (no comparison method here depends on them).
    """
    if method in ("cosine", "cosine_cov"):
        V = V / np.sqrt(np.nanmean(V**2, axis=1, keepdims=True))
    elif method in ("pearson", "corr_cov"):
        V = V - np.nanmean(V, axis=1, keepdims=True)
        V = V / np.nanstd(V, axis=1, keepdims=True)
    elif method in ("spearman", "kendall_tau_a", "kendall_tau_b", "rho_a"):
        V = np.stack([rankdata(v) for v in V])
    return V.mean(0)


def rdm_groups(rdms, subjects, n: int) -> np.ndarray | None:
    """The group (subject) of each of ``n`` RDMs: an array, or an attr name of labelled RDMs.

    Examples
    --------
    >>> rdm_groups(None, ["a", "a", "b"], 3).tolist()
    ['a', 'a', 'b']
    """
    if subjects is None:
        return None
    if isinstance(subjects, str):
        items = list(rdms) if isinstance(rdms, list | tuple) else []
        if len(items) != n or not all(isinstance(r, xr.DataArray) and subjects in r.attrs
                                      for r in items):
            raise InvalidDataError(
                f"subjects={subjects!r} names an attr, but not every RDM is a labelled "
                f"DataArray with attrs[{subjects!r}]; pass one subject per RDM as a list."
            )
        groups = np.array([str(r.attrs[subjects]) for r in items])
    else:
        groups = np.asarray(subjects).astype(str).ravel()
    if groups.shape[0] != n:
        raise InvalidDataError(
            f"subjects must give one subject per RDM ({n}); got {groups.shape[0]}. Sessions "
            "of one subject share a label, e.g. ['s1', 's1', 's2', 's2']."
        )
    if np.unique(groups).size < 2:
        raise InvalidDataError(
            f"A noise ceiling needs RDMs of at least 2 subjects; subjects names "
            f"{np.unique(groups).size}."
        )
    return groups


@validate_params({"method": COMPARE_METHOD})
def rdm_noise_ceiling(rdms, method: str = "spearman", *, subjects=None) -> tuple[float, float]:
    """Lower and upper bounds of the RDM noise ceiling across subjects (rsatoolbox's).

    Upper bound: mean similarity of each subject's RDM to the pooled RDM of all subjects.
    Lower bound: the same with each subject left out of the pool (leave one subject out).
    With ``subjects`` (several RDMs per subject, e.g. sessions), a subject's RDMs are left out
    together and each bound is the mean over subjects of the mean over their RDMs: what
    rsatoolbox's ``boot_noise_ceiling(rdms, method, rdm_descriptor="subject")`` computes.
    Taking 8 session RDMs of 4 subjects as 8 subjects instead lets a subject's other
    session into the pool and lifts the lower bound (on the hIT RDMs of the 92 images,
    Spearman: 0.328 instead of 0.306). Pooling normalises each RDM as rsatoolbox's
    ``pool_rdm`` does for ``method``. The
    bounds are in the units of ``method`` (a correlation for ``"spearman"``); for the NSD
    voxel noise ceiling in percent variance see
    :func:`toponeuro.brain.voxel_noise_ceiling`.

    Parameters
    ----------
    rdms : list of RDMs, array (n_subjects, n_pairs) or (n_subjects, n, n)
        Labelled RDMs (from :func:`~toponeuro.analysis.rdm`) are aligned by stimulus id to
        the first; plain arrays are taken to share one stimulus order.
    method : str
        A :func:`compare_rdms` method (rsatoolbox's names accepted).
    subjects : sequence or str, optional
        The subject of each RDM (sessions of one subject share a label), or the name of an
        attr every labelled RDM carries (e.g. ``"subject"``). Default: each RDM is a subject.

    Returns
    -------
    lower : float
        The lower bound (NaN, with a warning, when a subject's comparison is undefined:
        a constant RDM).
    upper : float
        The upper bound (NaN likewise).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.random(45)
    >>> subj = truth + 0.3 * rng.standard_normal((5, 45))
    >>> lo, hi = rdm_noise_ceiling(subj, "pearson")
    >>> bool(0 < lo < hi < 1)
    True

    Two sessions per subject, left out together:

    >>> sessions = np.repeat(subj, 2, axis=0) + 0.1 * rng.standard_normal((10, 45))
    >>> lo2, hi2 = rdm_noise_ceiling(sessions, "pearson", subjects=np.repeat(range(5), 2))
    >>> bool(0 < lo2 < hi2 < 1)
    True
    """
    name, fn = _method(method)
    V, _ = _rdm_stack(rdms)
    if V.shape[0] < 2:
        raise InvalidDataError(
            f"A noise ceiling needs RDMs of at least 2 subjects; got {V.shape[0]}. Pass one "
            "RDM per subject (a list, or an array (n_subjects, n_pairs))."
        )
    groups = rdm_groups(rdms, subjects, V.shape[0])
    if groups is None:
        groups = np.arange(V.shape[0]).astype(str)
    full = _pool(V, name)
    lower, upper, bad = [], [], []
    for g in np.unique(groups):
        inside = groups == g
        rest = _pool(V[~inside], name)
        lo = [_compare_vectors(rest, v, name, fn) for v in V[inside]]
        hi = [_compare_vectors(full, v, name, fn) for v in V[inside]]
        lower.append(np.mean(lo))
        upper.append(np.mean(hi))
        if not (np.isfinite(lower[-1]) and np.isfinite(upper[-1])):
            bad.append(str(g))
    if bad:
        _undefined(method, f"for subjects {bad[:5]} (their RDM or the pooled RDM is constant)")
    return float(np.mean(lower)), float(np.mean(upper))
