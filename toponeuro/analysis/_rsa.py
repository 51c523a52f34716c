"""Representational similarity analysis: blockwise RDMs, RDM comparison, noise ceilings.

RDMs are returned as condensed vectors (the upper triangle, row by row: the order of
``scipy.spatial.distance.squareform`` and of rsatoolbox's ``RDMs.get_vectors()``) or, on
request, as square matrices. Both are filled block by block, so 20,000 stimuli need only the
output (0.8 GB condensed in float32) plus one block of rows.

Definitions follow rsatoolbox 0.3.2 where it has them: ``"sqeuclidean"`` is rsatoolbox's
``"euclidean"`` (squared distance divided by the number of features), ``"correlation"`` is
``1 - r``, ``"crossnobis"`` is rsatoolbox's leave-one-run-out estimator (divided by the number
of features). ``"euclidean"`` and ``"cosine"`` follow ``scipy.spatial.distance.pdist``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.stats
import xarray as xr

from .. import _dims as D
from ..exceptions import DimensionError, InvalidDataError, UnknownNameError, close_matches
from ._backend import get_backend
from ._validate import as_matrix, check_finite

__all__ = [
    "rdm",
    "compare_rdms",
    "bootstrap_compare_rdms",
    "noise_ceiling",
    "BootstrapResult",
    "RDM_METRICS",
    "COMPARE_METHODS",
    "to_rsatoolbox_dataset",
    "from_rsatoolbox_dataset",
    "to_rsatoolbox_rdms",
    "from_rsatoolbox_rdms",
    "n_from_condensed",
    "as_condensed",
]

_BLOCK_BYTES = 128 * 2**20


# ----------------------------------------------------------------------------- helpers
def n_from_condensed(length: int) -> int:
    """Number of conditions of a condensed RDM of ``length`` entries.

    Examples
    --------
    >>> n_from_condensed(6)
    4
    """
    n = int(round((1 + np.sqrt(1 + 8 * int(length))) / 2))
    if n * (n - 1) // 2 != length or length < 1:
        raise DimensionError(
            f"A condensed RDM has n*(n-1)/2 entries; {length} is not such a number. Pass the "
            "upper triangle (scipy.spatial.distance.squareform) or a square matrix."
        )
    return n


def as_condensed(r, what: str = "RDM") -> np.ndarray:
    """Condensed float64 vector of a condensed or square, symmetric, zero-diagonal RDM.

    Examples
    --------
    >>> as_condensed([[0, 1, 2], [1, 0, 3], [2, 3, 0]]).tolist()
    [1.0, 2.0, 3.0]
    """
    a = r.values if isinstance(r, xr.DataArray) else np.asarray(r)
    a = np.asarray(a, dtype=np.float64)
    if a.ndim == 1:
        n_from_condensed(a.shape[0])
        return a
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise DimensionError(
            f"The {what} must be a square matrix or a condensed vector; got shape {a.shape}. "
            "Compute it with toponeuro.analysis.rdm, or pass squareform(vector)."
        )
    scale = np.nanmax(np.abs(a)) if a.size else 1.0
    tol = 1e-6 * (scale if np.isfinite(scale) and scale > 0 else 1.0)
    if not np.allclose(a, a.T, atol=tol, equal_nan=True):
        raise InvalidDataError(
            f"The {what} is not symmetric (max |A - A.T| = {np.nanmax(np.abs(a - a.T)):.3g}); "
            "an RDM must be. Symmetrise it with (A + A.T) / 2 if the asymmetry is noise."
        )
    if np.any(np.abs(np.diag(a)) > tol):
        raise InvalidDataError(
            f"The {what} has a non-zero diagonal (max {np.max(np.abs(np.diag(a))):.3g}); a "
            "dissimilarity of a stimulus to itself must be 0. Use np.fill_diagonal(A, 0)."
        )
    return a[np.triu_indices(a.shape[0], 1)]


def _square(v: np.ndarray) -> np.ndarray:
    n = n_from_condensed(v.shape[0])
    out = np.zeros((n, n), dtype=v.dtype)
    iu = np.triu_indices(n, 1)
    out[iu] = v
    out[iu[1], iu[0]] = v
    return out


def _labels(data, spec, what):
    if spec is None:
        return None
    if isinstance(spec, str):
        if not isinstance(data, xr.DataArray) or spec not in data.coords:
            have = list(data.coords) if isinstance(data, xr.DataArray) else []
            raise UnknownNameError(
                f"No coord {spec!r} for the {what}; {close_matches(spec, have)}"
            )
        return np.asarray(data[spec].values)
    return np.asarray(spec)


# ----------------------------------------------------------------------------- RDMs
def _prep(B, X, metric, dtype):
    X = B.asarray(X, dtype=dtype)
    if metric in ("correlation", "cosine"):
        if metric == "correlation":
            X = X - X.mean(1, keepdims=True)
        norm = B.sqrt((X * X).sum(1))
        if bool(B.to_numpy((norm == 0).any())):
            raise InvalidDataError(
                f"Some patterns are constant (zero norm), so the {metric} distance is "
                "undefined; drop them or use metric='euclidean'."
            )
        return X / norm[:, None], None
    return X, (X * X).sum(1)


def _block_rows(n, n_cols, itemsize, block_size):
    if block_size:
        return int(block_size)
    return int(max(1, min(n, _BLOCK_BYTES // max(1, 3 * n_cols * itemsize))))


def _fill(out, blk, a, n, condensed):
    """Write rows ``a..a+len(blk)`` of the distance matrix (columns ``a..n``) into ``out``."""
    if condensed:
        for r in range(blk.shape[0]):
            i = a + r
            start = i * n - i * (i + 1) // 2
            out[start : start + n - i - 1] = blk[r, r + 1 :]
    else:
        b = a + blk.shape[0]
        out[a:b, a:] = blk
        out[a:, a:b] = blk.T
        np.fill_diagonal(out[a:b, a:b], 0.0)


def rdm(
    data,
    metric: str = "correlation",
    *,
    conditions=None,
    runs=None,
    noise=None,
    square: bool = False,
    dtype=None,
    block_size: int | None = None,
    backend: str = "numpy",
    device: str = "cpu",
) -> np.ndarray:
    """Representational dissimilarity matrix of the stimuli, computed block by block.

    Parameters
    ----------
    data : Activations, BrainResponses or array (n_stimuli, n_features)
        One pattern per row. For ``"crossnobis"``: one row per measurement, with
        ``conditions`` and ``runs`` labelling each row.
    metric : {"correlation", "euclidean", "sqeuclidean", "cosine", "crossnobis"}
        See the module notes for the exact definitions (rsatoolbox's where it has one).
    conditions, runs : array-like or coord name, optional
        Crossnobis only: the condition (RDM row) and run (cross-validation fold) of every
        row. Patterns are averaged per condition within each run; each run in turn is the
        test set against the mean of the others (leave one run out, as rsatoolbox). Rows of
        the result follow the sorted unique conditions.
    noise : array (n_features, n_features), optional
        Crossnobis only: noise precision matrix (identity when omitted).
    square : bool
        Return a square matrix instead of the condensed upper triangle.
    dtype : numpy dtype, optional
        Output and compute precision; defaults to the data's float type (float64 for ints).
    block_size : int, optional
        Rows per block; by default blocks hold about 128 MB.
    backend : {"numpy", "torch"}
    device : str

    Returns
    -------
    numpy.ndarray
        Condensed vector of length n*(n-1)/2, or an (n, n) matrix when ``square``.

    Examples
    --------
    >>> X = np.array([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0], [1.0, 2.0, 4.0]])
    >>> np.round(rdm(X, "correlation"), 4).tolist()
    [2.0, 0.018, 1.982]
    """
    if metric not in RDM_METRICS:
        raise UnknownNameError(f"Unknown RDM metric {metric!r}; {close_matches(metric, RDM_METRICS)}")
    X = np.asarray(as_matrix(data, "data"))
    check_finite(X, "data")
    if dtype is None:
        dtype = X.dtype if np.issubdtype(X.dtype, np.floating) else np.float64
    dtype = np.dtype(dtype)
    B = get_backend(backend, device)
    if metric == "crossnobis":
        return _crossnobis(B, data, X, conditions, runs, noise, square, dtype, block_size)
    if conditions is not None or runs is not None or noise is not None:
        raise InvalidDataError(
            "conditions, runs and noise apply to metric='crossnobis' only; average repeated "
            "measurements yourself for other metrics."
        )
    n, p = X.shape
    if n < 2:
        raise InvalidDataError(f"An RDM needs at least 2 stimuli; got {n}.")
    Z, sq = _prep(B, X, metric, dtype)
    out = np.zeros(n * (n - 1) // 2 if not square else (n, n), dtype=dtype)
    step = _block_rows(n, n, dtype.itemsize, block_size)
    for a in range(0, n - 1, step):
        b = min(n, a + step)
        # one block: Z @ Z.T lets BLAS compute half the products (syrk)
        G = Z @ Z.T if (a == 0 and b == n) else Z[a:b] @ Z[a:].T
        if metric in ("correlation", "cosine"):
            blk = 1.0 - G
        else:
            blk = sq[a:b, None] + sq[None, a:] - 2.0 * G
            if metric == "sqeuclidean":
                blk = blk / p
            else:
                blk = B.sqrt(B.clip_min(blk, 0.0))
        _fill(out, B.to_numpy(blk), a, n, not square)
    return out


def _crossnobis(B, data, X, conditions, runs, noise, square, dtype, block_size):
    cond = _labels(data, conditions, "data")
    run = _labels(data, runs, "data")
    if cond is None or run is None:
        raise InvalidDataError(
            "metric='crossnobis' needs conditions= and runs= (arrays, or coord names of the "
            "DataArray) labelling each measurement, so distances are cross-validated over runs."
        )
    if len(cond) != X.shape[0] or len(run) != X.shape[0]:
        raise DimensionError(
            f"conditions ({len(cond)}) and runs ({len(run)}) need one label per row of the "
            f"data ({X.shape[0]})."
        )
    ucond = np.unique(cond)
    uruns = np.unique(run)
    if len(uruns) < 2:
        raise InvalidDataError(
            f"Crossnobis needs at least 2 runs to cross-validate; got {len(uruns)}."
        )
    n, p = len(ucond), X.shape[1]
    cidx = np.searchsorted(ucond, cond)
    means = np.zeros((len(uruns), n, p))
    for k, r in enumerate(uruns):
        sel = run == r
        counts = np.bincount(cidx[sel], minlength=n)
        if np.any(counts == 0):
            missing = ucond[counts == 0][:3].tolist()
            raise InvalidDataError(
                f"Run {r!r} lacks conditions {missing}; every run must contain every condition "
                "for the leave-one-run-out estimate."
            )
        np.add.at(means[k], cidx[sel], X[sel])
        means[k] /= counts[:, None]
    if noise is not None:
        noise = np.asarray(noise, dtype=np.float64)
        if noise.shape != (p, p):
            raise DimensionError(f"noise must be ({p}, {p}); got {noise.shape}.")
    folds = []
    for k in range(len(uruns)):
        # rsatoolbox: mean over the training rows (pooled), not the mean of run means
        train_sel = run != uruns[k]
        counts = np.bincount(cidx[train_sel], minlength=n)
        tr = np.zeros((n, p))
        np.add.at(tr, cidx[train_sel], X[train_sel])
        tr /= counts[:, None]
        te = means[k]
        trn = tr @ noise if noise is not None else tr
        folds.append((B.asarray(trn, dtype), B.asarray(te, dtype)))
    diag = [(a * b).sum(1) for a, b in folds]
    out = np.zeros(n * (n - 1) // 2 if not square else (n, n), dtype=dtype)
    step = _block_rows(n, n, dtype.itemsize, block_size)
    for a in range(0, n - 1, step):
        b = min(n, a + step)
        blk = None
        for (trn, te), dg in zip(folds, diag):
            part = dg[a:b, None] + dg[None, a:] - trn[a:b] @ te[a:].T - te[a:b] @ trn[a:].T
            blk = part if blk is None else blk + part
        _fill(out, B.to_numpy(blk / (p * len(folds))), a, n, not square)
    return out


RDM_METRICS = ("correlation", "euclidean", "sqeuclidean", "cosine", "crossnobis")


# ----------------------------------------------------------------------------- comparisons
def _cosine(a, b):
    na, nb = np.sqrt(a @ a), np.sqrt(b @ b)
    if na == 0 or nb == 0:
        return 0.0
    return float(a @ b / (na * nb))


def _pearson(a, b):
    return _cosine(a - a.mean(), b - b.mean())


def _rankdata(v: np.ndarray) -> np.ndarray:
    """Average ranks (1-based, ties share their mean rank), as ``scipy.stats.rankdata``."""
    order = np.argsort(v)
    sv = v[order]
    new = np.empty(len(v) + 1, dtype=bool)
    new[0] = True
    np.not_equal(sv[1:], sv[:-1], out=new[1:-1])
    new[-1] = True
    bounds = np.flatnonzero(new)
    group = np.cumsum(new[:-1]) - 1
    mean_rank = (bounds[:-1] + bounds[1:] + 1) / 2.0
    ranks = np.empty(len(v))
    ranks[order] = mean_rank[group]
    return ranks


def _spearman(a, b):
    return _pearson(_rankdata(a), _rankdata(b))


def _tie_pairs(v):
    _, c = np.unique(v, return_counts=True)
    c = c.astype(np.int64)
    return int((c * (c - 1) // 2).sum())


def _kendall_tau_a(a, b):
    n = a.shape[0]
    tot = n * (n - 1) // 2
    tau_b = scipy.stats.kendalltau(a, b).statistic
    if not np.isfinite(tau_b):
        return 0.0
    xt, yt = _tie_pairs(a), _tie_pairs(b)
    return float(np.clip(tau_b * np.sqrt(float(tot - xt) * float(tot - yt)) / tot, -1, 1))


def _double_centred(v):
    """``H (-D/2) H`` of a condensed RDM: the whitened space of rsatoolbox's *_cov methods."""
    G = -0.5 * _square(v)
    G -= G.mean(0, keepdims=True)
    G -= G.mean(1, keepdims=True)
    return G


def _cosine_cov(a, b):
    Ga, Gb = _double_centred(a), _double_centred(b)
    na, nb = np.sqrt((Ga * Ga).sum()), np.sqrt((Gb * Gb).sum())
    if na == 0 or nb == 0:
        return 0.0
    return float((Ga * Gb).sum() / (na * nb))


def _corr_cov(a, b):
    return _cosine_cov(a - a.mean(), b - b.mean())


COMPARE_METHODS = {
    "spearman": _spearman,
    "pearson": _pearson,
    "kendall_tau_a": _kendall_tau_a,
    "cosine": _cosine,
    "corr_cov": _corr_cov,
    "cosine_cov": _cosine_cov,
}
# names rsatoolbox uses for the same methods (for converters and noise ceilings)
RSATOOLBOX_METHODS = {
    "spearman": "spearman",
    "pearson": "corr",
    "kendall_tau_a": "tau-a",
    "cosine": "cosine",
    "corr_cov": "corr_cov",
    "cosine_cov": "cosine_cov",
}


def _method(method):
    if method not in COMPARE_METHODS:
        raise UnknownNameError(
            f"Unknown RDM comparison {method!r}; {close_matches(method, COMPARE_METHODS)}"
        )
    return COMPARE_METHODS[method]


def _pair(a, b):
    va, vb = as_condensed(a, "first RDM"), as_condensed(b, "second RDM")
    if va.shape != vb.shape:
        raise DimensionError(
            f"The RDMs describe {n_from_condensed(len(va))} and {n_from_condensed(len(vb))} "
            "stimuli; compare RDMs of the same stimuli in the same order."
        )
    return va, vb


def compare_rdms(a, b, method: str = "spearman") -> float:
    """Similarity of two RDMs (condensed vectors or square matrices).

    Parameters
    ----------
    a, b : array-like
        RDMs of the same stimuli in the same order.
    method : {"spearman", "pearson", "kendall_tau_a", "cosine", "corr_cov", "cosine_cov"}
        As in rsatoolbox 0.3.2 (``"pearson"`` is its ``"corr"``, ``"kendall_tau_a"`` its
        ``"tau-a"``). ``"cosine_cov"`` / ``"corr_cov"`` whiten with the covariance of
        distance estimates under i.i.d. noise (rsatoolbox without ``sigma_k``), computed as
        the cosine of the double-centred ``-D/2`` matrices. Entries that are NaN in either
        RDM are left out (not allowed for the ``*_cov`` methods).

    Examples
    --------
    >>> round(compare_rdms([1.0, 2.0, 3.0], [10.0, 20.0, 35.0], method="spearman"), 6)
    1.0
    """
    fn = _method(method)
    va, vb = _pair(a, b)
    ok = np.isfinite(va) & np.isfinite(vb)
    if not ok.all():
        if method.endswith("_cov"):
            raise InvalidDataError(
                f"method={method!r} needs complete RDMs; {int((~ok).sum())} entries are NaN. "
                "Use 'spearman' or 'pearson', or fill the missing entries."
            )
        va, vb = va[ok], vb[ok]
    if va.shape[0] < 2:
        raise InvalidDataError("Need at least 2 valid RDM entries to compare.")
    return fn(va, vb)


@dataclass(frozen=True)
class BootstrapResult:
    """A comparison value with a bootstrap confidence interval over stimuli."""

    value: float
    ci_low: float
    ci_high: float
    samples: np.ndarray


def bootstrap_compare_rdms(
    a, b, method: str = "spearman", n_bootstrap: int = 1000, ci: float = 0.95,
    random_state=None,
) -> BootstrapResult:
    """Compare two RDMs with a percentile confidence interval from resampling stimuli.

    Each bootstrap draws ``n`` stimuli with replacement and compares the RDMs restricted to
    them; pairs of a stimulus with its own copy are left out, as rsatoolbox does (the
    ``*_cov`` methods, which whiten the complete matrix, keep them at distance 0).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((12, 30))
    >>> r = bootstrap_compare_rdms(rdm(X), rdm(X + 0.5 * rng.standard_normal(X.shape)),
    ...                            n_bootstrap=50, random_state=0)
    >>> bool(r.ci_low <= r.value <= r.ci_high)
    True
    """
    fn = _method(method)
    va, vb = _pair(a, b)
    value = compare_rdms(va, vb, method)
    Sa, Sb = _square(va), _square(vb)
    n = Sa.shape[0]
    rng = np.random.default_rng(random_state)
    iu = np.triu_indices(n, 1)
    samples = np.empty(int(n_bootstrap))
    for k in range(int(n_bootstrap)):
        idx = np.sort(rng.integers(0, n, n))
        x = Sa[np.ix_(idx, idx)][iu]
        y = Sb[np.ix_(idx, idx)][iu]
        if method.endswith("_cov"):  # whitening needs the complete (resampled) matrix
            samples[k] = fn(x, y)
            continue
        keep = (idx[iu[0]] != idx[iu[1]]) & np.isfinite(x) & np.isfinite(y)
        samples[k] = fn(x[keep], y[keep])
    lo, hi = np.nanquantile(samples, [(1 - ci) / 2, 1 - (1 - ci) / 2])
    return BootstrapResult(float(value), float(lo), float(hi), samples)


def _rdm_stack(rdms) -> np.ndarray:
    if isinstance(rdms, xr.DataArray):
        rdms = rdms.values
    if isinstance(rdms, np.ndarray) and rdms.ndim == 2 and not _looks_square(rdms):
        return np.asarray(rdms, dtype=np.float64)
    if isinstance(rdms, np.ndarray) and rdms.ndim == 3:
        rdms = list(rdms)
    return np.stack([as_condensed(r, f"RDM {i}") for i, r in enumerate(rdms)])


def _looks_square(a):
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
    elif method in ("spearman", "kendall_tau_a"):
        V = np.stack([_rankdata(v) for v in V])
    return V.mean(0)


def noise_ceiling(rdms, method: str = "spearman") -> tuple[float, float]:
    """Lower and upper bounds of the noise ceiling across subjects (rsatoolbox's definition).

    Upper bound: mean similarity of each subject's RDM to the pooled RDM of all subjects.
    Lower bound: the same with each subject left out of the pool (leave one subject out).
    Pooling normalises each RDM as rsatoolbox's ``pool_rdm`` does for ``method``.

    Parameters
    ----------
    rdms : array (n_subjects, n_pairs), list of RDMs, or (n_subjects, n, n)
    method : str
        A :func:`compare_rdms` method.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.random(45)
    >>> subj = truth + 0.3 * rng.standard_normal((5, 45))
    >>> lo, hi = noise_ceiling(subj, "pearson")
    >>> bool(0 < lo < hi < 1)
    True
    """
    _method(method)
    V = _rdm_stack(rdms)
    if V.shape[0] < 2:
        raise InvalidDataError(
            f"A noise ceiling needs RDMs of at least 2 subjects; got {V.shape[0]}."
        )
    full = _pool(V, method)
    lower, upper = [], []
    for i in range(V.shape[0]):
        rest = _pool(np.delete(V, i, axis=0), method)
        lower.append(compare_rdms(rest, V[i], method))
        upper.append(compare_rdms(full, V[i], method))
    return float(np.mean(lower)), float(np.mean(upper))


# ----------------------------------------------------------------------------- converters
def _rsatoolbox():
    try:
        import rsatoolbox
    except ImportError as err:  # pragma: no cover - core dependency
        raise ImportError("The rsatoolbox converters need rsatoolbox: pip install rsatoolbox") from err
    return rsatoolbox


def to_rsatoolbox_dataset(data):
    """An rsatoolbox ``Dataset`` from Activations / BrainResponses (coords become descriptors).

    Examples
    --------
    >>> from toponeuro import make_activations
    >>> ds = to_rsatoolbox_dataset(make_activations({"a": 4}, n_stimuli=3, random_state=0))
    >>> ds.n_obs, ds.n_channel, ds.obs_descriptors["stimulus_id"][0]
    (3, 4, 'stim-0000')
    """
    rt = _rsatoolbox()
    if not isinstance(data, xr.DataArray) or data.ndim != 2 or data.dims[0] != D.STIMULUS:
        raise DimensionError(
            "to_rsatoolbox_dataset needs a DataArray with dims ('stimulus', <unit or voxel>)."
        )
    ch_dim = data.dims[1]
    obs = {k: np.asarray(v.values) for k, v in data.coords.items() if v.dims == (D.STIMULUS,)}
    chan = {k: np.asarray(v.values) for k, v in data.coords.items() if v.dims == (ch_dim,)}
    desc = {k: v for k, v in data.attrs.items() if np.isscalar(v)}
    desc["channel_dim"] = ch_dim
    return rt.data.Dataset(np.asarray(data.values), descriptors=desc, obs_descriptors=obs,
                           channel_descriptors=chan)


def from_rsatoolbox_dataset(ds) -> xr.DataArray:
    """A DataArray ``("stimulus", <channel dim>)`` from an rsatoolbox ``Dataset``.

    Examples
    --------
    >>> from toponeuro import make_activations
    >>> acts = make_activations({"a": 4}, n_stimuli=3, random_state=0)
    >>> back = from_rsatoolbox_dataset(to_rsatoolbox_dataset(acts))
    >>> bool((back == acts).all()), back.dims
    (True, ('stimulus', 'unit'))
    """
    desc = dict(ds.descriptors or {})
    ch_dim = desc.pop("channel_dim", D.UNIT)
    coords = {k: (D.STIMULUS, np.asarray(v)) for k, v in ds.obs_descriptors.items()}
    coords.update({k: (ch_dim, np.asarray(v)) for k, v in ds.channel_descriptors.items()})
    return xr.DataArray(np.asarray(ds.measurements), dims=(D.STIMULUS, ch_dim), coords=coords,
                        attrs=desc)


def to_rsatoolbox_rdms(rdms, metric: str | None = None, stimulus_ids=None):
    """rsatoolbox ``RDMs`` from one RDM or a stack (condensed or square).

    Examples
    --------
    >>> r = to_rsatoolbox_rdms([1.0, 2.0, 3.0], metric="correlation")
    >>> r.n_rdm, r.n_cond
    (1, 3)
    """
    rt = _rsatoolbox()
    arr = np.asarray(rdms.values if isinstance(rdms, xr.DataArray) else rdms, dtype=np.float64)
    V = as_condensed(arr)[None] if arr.ndim == 1 or _looks_square(arr) else _rdm_stack(arr)
    pat = None
    if stimulus_ids is not None:
        pat = {D.STIMULUS_ID: np.asarray(stimulus_ids)}
    return rt.rdm.RDMs(V, dissimilarity_measure=metric, pattern_descriptors=pat)


def from_rsatoolbox_rdms(rdms) -> np.ndarray:
    """Condensed vectors ``(n_rdm, n_pairs)`` of an rsatoolbox ``RDMs`` (same entry order).

    Examples
    --------
    >>> from_rsatoolbox_rdms(to_rsatoolbox_rdms([1.0, 2.0, 3.0])).tolist()
    [[1.0, 2.0, 3.0]]
    """
    return np.asarray(rdms.get_vectors(), dtype=np.float64)
