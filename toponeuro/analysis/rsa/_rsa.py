"""Representational similarity analysis: blockwise RDMs, RDM comparison, noise ceilings.

RDMs are returned as condensed vectors (the upper triangle, row by row: the order of
``scipy.spatial.distance.squareform`` and of rsatoolbox's ``RDMs.get_vectors()``) or, on
request, as square matrices. Both are filled block by block, so 20,000 stimuli need only the
output (0.8 GB condensed in float32) plus one block of rows.

Definitions follow rsatoolbox 0.3.2 where it has them: ``"sqeuclidean"`` is rsatoolbox's
``"euclidean"`` (squared distance divided by the number of features), ``"correlation"`` is
``1 - r``, ``"crossnobis"`` is rsatoolbox's leave-one-run-out estimator (divided by the number
of features). ``"euclidean"`` and ``"cosine"`` follow ``scipy.spatial.distance.pdist``.

An RDM knows its stimuli. :func:`rdm` returns an :class:`xarray.DataArray`:

- condensed (the default): dim ``"pair"``, the stimulus ids in ``attrs["stimulus_id"]`` (a
  condensed vector has no per-stimulus axis to hang a coordinate on; rsatoolbox keeps them
  beside its vectors the same way, as ``pattern_descriptors``);
- square (``square=True``): dims ``("stimulus", "stimulus_b")``, the stimulus coords of the
  data on ``"stimulus"`` and again, suffixed ``_b``, on ``"stimulus_b"``.

Either carries ``attrs["metric"]``. ``np.asarray`` of it is the plain array. Comparisons and
noise ceilings align labelled RDMs by stimulus id with the exact join of
:func:`toponeuro._util.align.align_stimuli` (different sets of ids raise :class:`AlignmentError`);
plain arrays are accepted as they are when no RDM of the comparison has ids (then the same
stimulus order is assumed); a labelled RDM against a plain one raises
:class:`AlignmentError` (give the plain one its ids with ``labelled_rdm``).
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
import xarray as xr

from ..._util import dims as D
from ..._util.align import align_stimuli, as_labelled, pandas_ids
from ..._util.docs import fill_doc
from ..._util.params import Boolean, Interval, Options, Text, validate_params
from ...exceptions import (
    AlignmentError,
    DimensionError,
    InvalidDataError,
    UnknownNameError,
    close_matches,
)
from .._backend import BACKENDS, get_backend
from .._validate import as_matrix, check_finite

# n_from_condensed and as_condensed serve the other analysis modules; not re-exported
__all__ = ["rdm", "RDM_METRICS", "rdm_stimulus_ids"]

_BLOCK_BYTES = 128 * 2**20

RDM_METRICS = ("correlation", "euclidean", "sqeuclidean", "cosine", "crossnobis")
#: the declared ``metric`` of an RDM
RDM_METRIC = Options(RDM_METRICS, error=UnknownNameError)


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


@validate_params({
    "metric": RDM_METRIC,
    "square": Boolean(),
    "block_size": [Interval(Integral, 1, None, closed="left"), None],
    "backend": Options(BACKENDS, error=UnknownNameError),
})
@fill_doc
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
) -> xr.DataArray:
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
    %(device)s

    Returns
    -------
    xarray.DataArray
        Condensed: dim ``"pair"`` of length n*(n-1)/2 (upper triangle, row by row), the
        stimulus ids in ``attrs["stimulus_id"]``. Square (``square=True``): dims
        ``("stimulus", "stimulus_b")`` with the data's stimulus coords on both (``_b``
        suffix on the second). ``attrs["metric"]`` and ``attrs["n_stimuli"]`` always. Data
        without a ``stimulus_id`` coord (plain arrays) give an RDM without ids, which the
        comparisons take to be in the same stimulus order as the other RDM. For crossnobis
        the rows are the sorted conditions, which become the ids.

    Examples
    --------
    >>> X = np.array([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0], [1.0, 2.0, 4.0]])
    >>> np.round(rdm(X, "correlation"), 4).values.tolist()
    [2.0, 0.018, 1.982]

    Labelled data give a labelled RDM:

    >>> from toponeuro import make_activations
    >>> acts = make_activations({"a": 8}, n_stimuli=4, random_state=0)
    >>> r = rdm(acts, square=True)
    >>> r.dims, r.stimulus_id.values.tolist()[:2], r.attrs["metric"]
    (('stimulus', 'stimulus_b'), ['stim-0000', 'stim-0001'], 'correlation')
    >>> rdm(acts).attrs["stimulus_id"][:2].tolist()
    ['stim-0000', 'stim-0001']
    """
    data = as_labelled(data, "data")  # ids in a DataFrame's index or a Series count
    values, ids = _rdm_values(data, metric, conditions=conditions, runs=runs, noise=noise,
                              square=square, dtype=dtype, block_size=block_size,
                              backend=backend, device=device)
    return _labelled(values, data, ids, metric, square)


def _stimulus_coords(data):
    """1-D stimulus coords of a DataArray (ids first), or ``{}``."""
    if not isinstance(data, xr.DataArray) or D.STIMULUS not in data.dims:
        return {}
    return {k: np.asarray(c.values) for k, c in data.coords.items() if c.dims == (D.STIMULUS,)}


def _labelled(values, data, ids, metric, square):
    attrs = {"metric": metric, "n_stimuli": int(values.shape[0]) if square
             else n_from_condensed(values.shape[0])}
    if not square:
        if ids is not None:
            attrs[D.STIMULUS_ID] = np.asarray(ids).astype(str)
        return xr.DataArray(values, dims=(D.PAIR,), attrs=attrs, name="rdm")
    coords = {}
    if ids is not None:
        per = {D.STIMULUS_ID: np.asarray(ids).astype(str)}
        if metric != "crossnobis":  # crossnobis rows are conditions, not the data's rows
            per.update({k: v for k, v in _stimulus_coords(data).items() if k != D.STIMULUS_ID})
        for k, v in per.items():
            coords[k] = (D.STIMULUS, v)
            coords[f"{k}_b"] = (D.STIMULUS_B, v)
    return xr.DataArray(values, dims=(D.STIMULUS, D.STIMULUS_B), coords=coords, attrs=attrs,
                        name="rdm")


def _rdm_values(data, metric="correlation", *, conditions=None, runs=None, noise=None,
                square=False, dtype=None, block_size=None, backend="numpy", device="cpu"):
    """The kernel of :func:`rdm`: ``(plain array, stimulus ids or None)``."""
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
    ids = _stimulus_coords(data).get(D.STIMULUS_ID)
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
    return out, ids


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
    return out, ucond.astype(str)




# ----------------------------------------------------------------------------- labels
@validate_params({"what": Text()})
def rdm_stimulus_ids(r, what: str = "RDM"):
    """The stimulus ids an RDM carries (``None`` for a plain array).

    Parameters
    ----------
    r : xarray.DataArray or array-like
        An RDM from :func:`rdm` (condensed or square) or a plain array.
    what : str
        Name of the RDM in error messages.

    Returns
    -------
    numpy.ndarray or None
        The ids, in the RDM's row order; ``None`` when it carries none.

    Examples
    --------
    >>> from toponeuro import make_activations
    >>> acts = make_activations({"a": 8}, n_stimuli=3, random_state=0)
    >>> rdm_stimulus_ids(rdm(acts)).tolist(), rdm_stimulus_ids(np.zeros(3))
    (['stim-0000', 'stim-0001', 'stim-0002'], None)
    """
    if not isinstance(r, xr.DataArray):
        return None
    if r.ndim == 2 and D.STIMULUS_ID in r.coords:
        ids = np.asarray(r[D.STIMULUS_ID].values).astype(str)
        other = f"{D.STIMULUS_ID}_b"
        if r.dims != (D.STIMULUS, D.STIMULUS_B) or (
            other in r.coords and not np.array_equal(np.asarray(r[other].values).astype(str), ids)
        ):
            raise DimensionError(
                f"The {what} has dims {tuple(r.dims)} and different stimuli along its rows and "
                "columns; a square RDM has dims ('stimulus', 'stimulus_b') with the same ids "
                "on both. Recompute it with toponeuro.analysis.rdm(data, square=True)."
            )
        return ids
    ids = r.attrs.get(D.STIMULUS_ID)
    if ids is None or r.ndim != 1:
        return None
    ids = np.asarray(ids).astype(str)
    n = n_from_condensed(r.shape[0])
    if len(ids) != n:
        raise AlignmentError(
            f"The {what} lists {len(ids)} stimulus ids in attrs['stimulus_id'] but holds the "
            f"pairs of {n} stimuli (was it sliced?). Recompute it from the selected stimuli "
            "with toponeuro.analysis.rdm, or pass np.asarray(rdm) to drop the labels."
        )
    return ids


def _id_index(ids, what):
    return xr.DataArray(np.arange(len(ids)), dims=(D.STIMULUS,),
                        coords={D.STIMULUS_ID: (D.STIMULUS, np.asarray(ids))}, name=what)


def is_rsatoolbox_rdms(r) -> bool:
    """``r`` is an rsatoolbox ``RDMs`` (checked by its interface: rsatoolbox is optional)."""
    return hasattr(r, "get_vectors") and hasattr(r, "pattern_descriptors")


def _one_rdm(r, what):
    """``r``, or the labelled RDM of an rsatoolbox ``RDMs`` holding one (its ids from the
    ``stimulus_id`` pattern descriptor; without one it is plain). A square pandas
    DataFrame is labelled by its index (columns reordered to it) unless that is pandas'
    default ``0..n-1``."""
    if type(r).__module__.startswith("pandas") and getattr(r, "ndim", 0) == 2:
        return _frame_rdm(r, what)
    if not is_rsatoolbox_rdms(r):
        return r
    if r.n_rdm != 1:
        raise DimensionError(
            f"The {what} is an rsatoolbox RDMs holding {r.n_rdm} RDMs where one is compared; "
            "pass its RDMs one at a time, or all as a list "
            "(toponeuro.analysis.from_rsatoolbox_rdms(rdms))."
        )
    return rsatoolbox_rdm_list(r)[0]


def _frame_rdm(df, what):
    """A square RDM given as a DataFrame: labelled by its index, its columns joined to it."""
    ids = pandas_ids(df.index)
    if ids is None:
        return df.to_numpy()
    cols = np.asarray(df.columns).astype(str)
    if df.shape[0] != df.shape[1] or set(cols) != set(ids) or len(set(ids)) != len(ids):
        raise AlignmentError(
            f"The {what} is a DataFrame whose index and columns do not name the same "
            f"stimuli once each ({df.shape[0]} rows, {df.shape[1]} columns); a square RDM "
            "lists the same stimulus ids on both. Fix the table, or pass df.to_numpy() to "
            "use its order."
        )
    values = df.to_numpy(dtype=np.float64)[:, [list(cols).index(i) for i in ids]]
    return _labelled(values, None, ids, df.attrs.get("metric"), square=True)


def rsatoolbox_rdm_list(rdms, ids=None, metric=None) -> list:
    """The RDMs of an rsatoolbox ``RDMs`` as labelled condensed DataArrays (the conversion
    behind :func:`~toponeuro.analysis.from_rsatoolbox_rdms`, which checks ``stimulus_ids``):
    ids from ``ids`` or the ``stimulus_id`` pattern descriptor (none: plain), the RDM
    descriptors in each one's attrs."""
    if ids is None:
        ids = dict(rdms.pattern_descriptors or {}).get(D.STIMULUS_ID)
    metric = rdms.dissimilarity_measure if metric is None else metric
    out = []
    for k, vec in enumerate(np.asarray(rdms.get_vectors(), dtype=np.float64)):
        r = _labelled(vec, None, ids, metric, square=False)
        for name, values in (rdms.rdm_descriptors or {}).items():
            if name != "index":
                r.attrs[name] = np.asarray(values)[k].item()
        out.append(r)
    return out


def align_rdms(rdms, names=None):
    """Condensed float64 vectors of ``rdms``, labelled ones reordered to the first's ids.

    The join is :func:`toponeuro._util.align.align_stimuli` (exact: the same set of ids, each
    once); RDMs without ids are used in the order given when none has ids, and a mix of
    labelled and plain RDMs raises :class:`AlignmentError` (as ``encoding_score`` does for
    features and responses). Returns ``(vectors, ids)`` where
    ``ids`` are those of the first labelled RDM (or ``None``).
    """
    names = names or [f"RDM {i}" for i in range(len(rdms))]
    rdms = [_one_rdm(r, nm) for r, nm in zip(rdms, names)]
    vecs = [as_condensed(r, nm) for r, nm in zip(rdms, names)]
    ids = [rdm_stimulus_ids(r, nm) for r, nm in zip(rdms, names)]
    sizes = {n_from_condensed(len(v)) for v in vecs}
    if len(sizes) != 1:
        raise DimensionError(
            f"The RDMs describe {sorted(sizes)} stimuli; compare RDMs of the same stimuli "
            "(compute them from data with the same stimulus ids)."
        )
    labelled = [k for k, i in enumerate(ids) if i is not None]
    if not labelled:
        return vecs, None
    plain = [k for k, i in enumerate(ids) if i is None]
    if plain:
        raise AlignmentError(
            f"{names[labelled[0]]} carries stimulus ids but {names[plain[0]]} is a plain array "
            "without them, so its rows cannot be matched to stimuli: pairing them by position "
            "could pair different stimuli. Give the plain one its ids with "
            "toponeuro.analysis.labelled_rdm(matrix, stimulus_ids) (or load_rdms for a file), "
            "or drop every label with np.asarray(rdm) if the orders are known to agree."
        )
    ref_k = labelled[0]
    for k in labelled[1:]:
        vecs[k] = reorder_condensed(vecs[k], ids[k], ids[ref_k], (names[ref_k], names[k]))
    return vecs, ids[ref_k]


def reorder_condensed(vec, ids, target_ids, names=("reference", "RDM")):
    """Condensed RDM ``vec`` (rows ``ids``) reordered to ``target_ids`` (exact join)."""
    if len(ids) == len(target_ids) and np.array_equal(np.asarray(ids).astype(str),
                                                      np.asarray(target_ids).astype(str)):
        return vec  # same stimuli in the same order (repeated ids included): nothing to join
    try:
        _, moved = align_stimuli(_id_index(target_ids, names[0]), _id_index(ids, names[1]),
                                 names=tuple(names))
    except AlignmentError as err:
        raise AlignmentError(
            f"{err} (For RDMs: recompute them from data holding the same stimuli.)"
        ) from err
    perm = moved.values
    if np.array_equal(perm, np.arange(len(perm))):
        return vec
    return _square(vec)[np.ix_(perm, perm)][np.triu_indices(len(perm), 1)]
