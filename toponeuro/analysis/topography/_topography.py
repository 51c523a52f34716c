"""Topography metrics on a model's sheet or on the cortex: smoothness, patches, map similarity.

Every metric reads its input with :func:`as_topomap`, so the same call works on a per-unit
selectivity map (plus ``layer``), a ``(row, col)`` sheet map, or values on cortical vertices
with ``positions`` (and ``distance`` / ``adjacency`` where needed).
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Mapping
from numbers import Integral, Real

import numpy as np
import xarray as xr
from scipy.spatial import cKDTree
from scipy.spatial.distance import pdist

from ..._util import dims as D
from ..._util.params import (
    N_PERMUTATIONS,
    SEED,
    Interval,
    Options,
    check_int,
    check_number,
    check_random_state,
    validate_params,
)
from ..._util.stack import user_stacklevel
from ..._util.typing import RandomState
from ...exceptions import (
    CoordinateError,
    DimensionError,
    InvalidDataError,
    ToponeuroWarning,
    UndefinedValueWarning,
    UnknownNameError,
    close_matches,
)
from ._geometry import _check_geometry, _check_sheet, _fill, _map_of
from ._null import NullResult, run_null
from ._null_registry import register_statistic
from ._pvalues import ALTERNATIVE
from ._similarity import SIMILARITY_METHODS, _corr_factory, _ssim_factory
from ._topomap import TopoMap

__all__ = [
    "SIMILARITY_METHODS",
    "SMOOTHNESS_METHODS",
    "smoothness",
    "correlation_profile",
    "map_similarity",
]

# --------------------------------------------------------------------------- smoothness


def _bin_edges(tm: TopoMap, n_bins: int, max_distance: float | None) -> np.ndarray:
    if max_distance is None:
        pos = tm.positions[tm.finite]
        max_distance = 0.5 * float(np.linalg.norm(pos.max(0) - pos.min(0)))
    if not max_distance > 0:
        raise InvalidDataError("max_distance must be positive; the points do not spread out.")
    # the first bin must hold the nearest neighbours: bins at least 1.5 point spacings wide
    pos = tm.positions[tm.finite]
    nn = cKDTree(pos).query(pos, k=2)[0][:, 1]
    spacing = float(np.median(nn[nn > 0])) if (nn > 0).any() else 0.0
    n_bins = (
        int(max(1, min(int(n_bins), np.floor(max_distance / (1.5 * spacing)))))
        if (spacing > 0)
        else int(n_bins)
    )
    return np.linspace(0.0, float(max_distance), n_bins + 1)


def _pair_distances(tm: TopoMap, idx: np.ndarray, limit: float | None = None) -> np.ndarray:
    """Condensed (upper-triangle, row-major) distances between the points ``idx`` (graph
    distances beyond ``limit`` may be ``inf``: they fall outside every bin)."""
    if tm.distance is None:
        return pdist(tm.positions[idx])
    full = tm.distances_from(idx, idx, limit=limit)
    return full[np.triu_indices(idx.size, k=1)]


#: sources of one shortest-path search in :func:`_graph_pair_distances`
_SOURCE_CHUNK = 512


def _graph_pair_distances(tm: TopoMap, samples, limit: float):
    """:func:`_pair_distances` of every sample at once on a map with graph distances: one
    search from each point any sample holds (a point in several samples is searched once,
    not once per sample), each sample's rows then gathered; None for other distances or a
    single sample (searched as it is). The same numbers: a row depends on its source only."""
    if not isinstance(tm.distance, str) or len(samples) < 2:
        return None
    every = np.unique(np.concatenate(samples))
    full = [np.empty((idx.size, idx.size)) for idx in samples]
    for lo in range(0, every.size, _SOURCE_CHUNK):
        src = every[lo:lo + _SOURCE_CHUNK]
        d = tm.distances_from(src, limit=limit)
        for idx, out in zip(samples, full):
            pos = np.searchsorted(src, idx)
            mine = (pos < src.size) & (src[np.minimum(pos, src.size - 1)] == idx)
            if mine.any():
                out[mine] = d[pos[mine]][:, idx]
    return [out[np.triu_indices(idx.size, k=1)] for idx, out in zip(samples, full)]


def _binned(d: np.ndarray, v: np.ndarray, edges: np.ndarray):
    """Mean of pair values ``v`` in uniform distance bins ``edges`` (both condensed)."""
    n_bins = len(edges) - 1
    keep = (d <= edges[-1]) & np.isfinite(v) & np.isfinite(d)
    b = np.minimum((d[keep] * (n_bins / edges[-1])).astype(np.intp), n_bins - 1)
    sums = np.bincount(b, weights=v[keep], minlength=n_bins)
    counts = np.bincount(b, minlength=n_bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        return sums / np.where(counts > 0, counts, np.nan), counts


def _samples(tm: TopoMap, valid: np.ndarray, n_samples: int, sample_size: int, rng):
    idx = np.flatnonzero(valid)
    if idx.size < 3:
        raise InvalidDataError(
            f"{tm.name or 'This map'} has {idx.size} points with values; smoothness needs at "
            "least 3."
        )
    if sample_size >= idx.size:
        return [idx]
    return [np.sort(rng.choice(idx, size=sample_size, replace=False)) for _ in range(n_samples)]


def _profile_dataset(profiles, counts, edges, name, attrs) -> xr.Dataset:
    centers = 0.5 * (edges[:-1] + edges[1:])
    profiles = np.asarray(profiles)
    return xr.Dataset(
        {
            "profiles": ((D.SAMPLE, D.DISTANCE), profiles),
            "profile": ((D.DISTANCE,), np.nanmean(profiles, axis=0)),
            "pair_counts": ((D.DISTANCE,), np.asarray(counts).sum(0)),
        },
        coords={
            D.DISTANCE: centers,
            "bin_lo": (D.DISTANCE, edges[:-1]),
            "bin_hi": (D.DISTANCE, edges[1:]),
        },
        attrs={"map": name, **attrs},
    )


#: where the smoothness score comes from
TDANN_REFERENCE = (
    "Margalit et al. (2024) A unifying framework for functional organization in early and "
    "higher ventral visual cortex. Neuron 112(14), 2435-2451; code: neuroailab/TDANN, "
    "spacetorch/utils/spatial_utils.py (smoothness) and spacetorch/maps/it_map.py "
    "(category_smoothness)"
)
#: what was found of the TopoNets paper's own smoothness definition
TOPONETS_SMOOTHNESS_NOTE = (
    "The TopoNets paper (Deb, Deb & Murty, ICLR 2025; arXiv 2501.16396) reports a "
    "'smoothness' whose values exceed 1; its defining formula was not in the sources read for "
    "toponeuro (project page toponets.github.io, murtylab/topoloss, toponets/toponets), so it "
    "is not implemented. The score here is TDANN's, which cannot exceed 1; do not compare it "
    "with the TopoNets figures."
)
SMOOTHNESS_METHODS = ("tdann",)
#: sample_size=None uses every point once up to this many points, else samples of 500
_ALL_PAIRS_MAX = 1000
#: pair differences (draws x pairs) below which the samples are not shared among threads
_THREAD_MIN_PAIRS = 20_000_000
#: points per sample below which the samples' pairs are not binned on several threads
_THREAD_MIN_POINTS = 200


@functools.lru_cache(maxsize=2)
def _triu(n: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.triu_indices(n, k=1)``, made once per sample size (read-only)."""
    ii, jj = np.triu_indices(n, k=1)
    ii.flags.writeable = jj.flags.writeable = False
    return ii, jj


def _n_threads() -> int:
    """Cores this process may use (at most 4: the loops are memory-bound)."""
    import os

    try:
        n = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        n = os.cpu_count() or 1
    return max(1, min(4, n))


class _SmoothnessKernel:
    """TDANN's smoothness of many maps at once over fixed point samples and distance bins."""

    def __init__(self, tm, valid, n_samples, sample_size, n_bins, max_distance, rng):
        self.edges = _bin_edges(tm, n_bins, max_distance)
        nb = len(self.edges) - 1
        self.samples = []
        #: per sample, its ``ii`` as runs: ``ii == np.repeat(first, length)``
        self.runs = []
        self.offsets = None
        if tm.grid_shape is not None and tm.distance is None and sample_size >= valid.sum():
            # every pair of a sheet once: pairs grouped by their grid offset, summed by slicing
            self.grid_shape = tm.grid_shape
            self.offsets = self._grid_offsets(tm.grid_shape, nb)
            counts = np.zeros(nb, dtype=np.int64)
            for dr, dc, b in self.offsets:
                a, c = self._pair_views(tm.values.reshape(*tm.grid_shape, 1), dr, dc)
                counts[b] += int(np.count_nonzero(np.isfinite(a - c)))
            self.samples.append((None, None, None, counts))
            return
        samples = _samples(tm, valid, n_samples, sample_size, rng)
        graph_d = _graph_pair_distances(tm, samples, self.edges[-1])

        def pairs(k):
            d = (graph_d[k] if graph_d is not None
                 else _pair_distances(tm, samples[k], limit=self.edges[-1]))
            return self._binned_pairs(samples[k], d, nb)

        if (len(samples) > 1 and samples[0].size >= _THREAD_MIN_POINTS
                and (n_threads := _n_threads()) > 1):
            # the samples are drawn above; each one's pairs are its own (numpy and scipy
            # release the GIL in these loops), kept in the samples' order
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(min(n_threads, len(samples))) as pool:
                done = list(pool.map(pairs, range(len(samples))))
        else:
            done = [pairs(k) for k in range(len(samples))]
        self.samples = [sample for sample, _ in done]
        self.runs = [runs for _, runs in done]

    def _binned_pairs(self, idx, d, nb):
        """Sample ``idx``'s pairs within the last edge, ordered by distance bin (stably),
        and its ``ii`` as runs; ``d`` are the sample's condensed pair distances."""
        top = self.edges[-1]
        ii, jj = _triu(idx.size)
        keep = np.flatnonzero(np.isfinite(d) & (d <= top))
        # the bin of each kept pair (d <= top, so at most nb before the minimum)
        if nb < 2**8:
            b = np.minimum((d[keep] * (nb / top)).astype(np.uint8), nb - 1)
        else:
            b = np.minimum((d[keep] * (nb / top)).astype(np.intp), nb - 1)
            b = b.astype(np.uint16) if nb <= 2**16 else b
        # the same stable order, by numpy's radix sort of small keys (O(n))
        order = np.argsort(b, kind="stable")
        counts = np.bincount(b, minlength=nb)
        pick = keep[order]
        ii, jj = ii[pick], jj[pick]
        # within a bin the pairs keep the row-major order, so ``ii`` runs in long
        # stretches of one point: rebuilt by np.repeat, twice as fast as a gather
        first = np.flatnonzero(np.diff(ii, prepend=-1)) if ii.size else ii
        # the sample's points, its pairs as positions within the sample, their bins
        return ((idx, (ii, jj), np.repeat(np.arange(nb), counts), counts),
                (ii[first], np.diff(first, append=ii.size)))

    def _grid_offsets(self, shape, nb):
        h, w = shape
        top = self.edges[-1]
        out = []
        for dr in range(h):
            for dc in range(-(w - 1), w):
                if dr == 0 and dc <= 0:
                    continue
                d = float(np.hypot(dr, dc))
                if d <= top:
                    out.append((dr, dc, min(int(d * (nb / top)), nb - 1)))
        return out

    @staticmethod
    def _pair_views(v, dr, dc):
        """The two ends of every pair at grid offset (dr, dc); ``v`` is (h, w, ...)."""
        h, w = v.shape[:2]
        a = v[dr:, max(0, dc) : w + min(0, dc)]
        c = v[: h - dr, max(0, -dc) : w - max(0, dc)]
        return a, c

    def _grid_profiles(self, values):
        nb = len(self.edges) - 1
        n_maps = values.shape[0]
        # batch last: every slice below is contiguous along the draws, which numpy adds fast
        v = np.ascontiguousarray(values.reshape(n_maps, *self.grid_shape).transpose(1, 2, 0))
        sums = np.zeros((n_maps, nb))
        cnt = np.zeros((n_maps, nb))
        finite = bool(np.isfinite(values).all())
        if finite:
            # differences in float64: float32 loses a map's detail under a large offset
            # (a map + 1e7 keeps only ~1 of its 7 significant digits)
            v = v.astype(np.float64, copy=False)
            buf = np.empty_like(v)
        for dr, dc, b in self.offsets:
            a, c = self._pair_views(v, dr, dc)
            if finite:
                d = buf[: a.shape[0], : a.shape[1]]
                np.subtract(a, c, out=d)
                np.abs(d, out=d)
                sums[:, b] += d.sum(axis=(0, 1), dtype=np.float64)
                cnt[:, b] += a.shape[0] * a.shape[1]
            else:
                diff = np.abs(a - c)
                sums[:, b] += np.nansum(diff, axis=(0, 1))
                cnt[:, b] += np.isfinite(diff).sum(axis=(0, 1))
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(cnt > 0, sums / np.where(cnt > 0, cnt, 1), np.nan)[:, None, :]

    def profiles(self, values: np.ndarray) -> np.ndarray:
        """Mean |difference| per bin, ``(B, n_samples, n_bins)``, for values ``(B, n)``."""
        if self.offsets is not None:
            return self._grid_profiles(values)
        nb = len(self.edges) - 1
        out = np.full((values.shape[0], len(self.samples), nb), np.nan)
        todo = [s for s, sample in enumerate(self.samples) if sample[1][0].size]
        work = sum(self.samples[s][1][0].size for s in todo) * values.shape[0]
        if len(todo) > 1 and work >= _THREAD_MIN_PAIRS and (n_threads := _n_threads()) > 1:
            # the samples are independent, each written to its own slice of ``out``: numpy
            # releases the GIL in these loops, so the cores share them, with the same sums
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(min(n_threads, len(todo))) as pool:
                list(pool.map(lambda s: self._sample_profiles(s, values, out), todo))
        else:
            for s in todo:
                self._sample_profiles(s, values, out)
        return out

    def _sample_profiles(self, s: int, values: np.ndarray, out: np.ndarray) -> None:
        """Fill ``out[:, s]``: sample ``s``'s mean |difference| per bin of every draw.

        One draw at a time: its pair buffers (the sample's pairs, ~100,000 for 500 points)
        stay in the core's cache, where a block of draws spills out of it; the differences
        are float64 throughout (an offset, map + 1e7, leaves them exact) and each bin's sum
        is numpy's pairwise sum of the bin's pairs in the same order, so the numbers are
        those of a block of draws, bit for bit.
        """
        idx, (ii, jj), _, counts = self.samples[s]
        first, length = self.runs[s]
        nonempty = np.flatnonzero(counts > 0)
        starts = (np.cumsum(counts) - counts)[nonempty]
        cnt = counts[nonempty]
        other = np.empty(ii.size)
        v_all = values[:, idx].astype(np.float64)  # the sample's points of every draw
        big = np.abs(v_all).max(axis=1, initial=0.0) if v_all.size else np.zeros(len(v_all))
        for r, v in enumerate(v_all):
            if not (np.isfinite(big[r]) and big[r] < 8e307):  # NaN, inf or overflow
                self._sample_profiles_masked(v[None, :], ii, jj, counts, out[r : r + 1, s])
                continue
            diff = np.repeat(v[first], length)  # == v[ii]
            np.take(v, jj, out=other, mode="clip")
            diff -= other
            np.abs(diff, out=diff)
            out[r, s, nonempty] = np.add.reduceat(diff, starts, dtype=np.float64) / cnt

    @staticmethod
    def _sample_profiles_masked(v, ii, jj, counts, out) -> None:
        """``out`` (draws, bins): the mean |difference| per bin over the finite pairs of draws
        ``v`` (the sample's points) that hold a NaN, an infinity or values that overflow."""
        nonempty = np.flatnonzero(counts > 0)
        starts = (np.cumsum(counts) - counts)[nonempty]
        diff = np.abs(v[:, ii] - v[:, jj])
        fin = np.isfinite(diff)
        sums = np.add.reduceat(np.where(fin, diff, 0.0), starts, axis=1, dtype=np.float64)
        cnt = np.add.reduceat(fin.astype(np.float64), starts, axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[:, nonempty] = np.where(cnt > 0, sums / np.where(cnt > 0, cnt, 1), np.nan)

    @staticmethod
    def scores(profiles: np.ndarray) -> np.ndarray:
        """Per-sample ``(max - first bin) / max``, NaN where the profile's max is not positive."""
        with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            peak = np.nanmax(profiles, axis=-1)
            return np.where(peak > 0, (peak - profiles[..., 0]) / peak, np.nan)

    def __call__(self, values: np.ndarray) -> np.ndarray:
        return self.score_profiles(self.profiles(values))

    def score_profiles(self, profiles: np.ndarray) -> np.ndarray:
        """The score ``(B,)`` of profiles ``(B, n_samples, n_bins)``: the mean over samples."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return np.nanmean(self.scores(profiles), axis=1)


def _check_sampling(n_samples, sample_size, n_bins, max_distance):
    """The point-sampling and binning parameters of smoothness and correlation_profile."""
    n_samples = check_int(n_samples, "n_samples", lo=1)
    if sample_size is not None:
        sample_size = check_int(
            sample_size, "sample_size", lo=3,
            fix="Two points make one pair, one distance bin: no profile to score.",
        )
    n_bins = check_int(
        n_bins, "n_bins", lo=2,
        fix="With one bin the first bin is the maximum, so the score is 0 by construction.",
    )
    if max_distance is not None:
        max_distance = check_number(max_distance, "max_distance", lo=0, lo_open=True)
    return n_samples, sample_size, n_bins, max_distance


#: the point-sampling and binning parameters of smoothness and correlation_profile, declared
_SAMPLING = {
    "n_samples": Interval(Integral, 1, None, closed="left"),
    "sample_size": [Interval(Integral, 3, None, closed="left", fix=(
        "Two points make one pair, one distance bin: no profile to score.")), None],
    "n_bins": Interval(Integral, 2, None, closed="left", fix=(
        "With one bin the first bin is the maximum, so the score is 0 by construction.")),
    "max_distance": [Interval(Real, 0, None, closed="neither"), None],
    "random_state": SEED,
}


def _smoothness_setup(tm, n_samples, sample_size, n_bins, max_distance, rng):
    n_samples, sample_size, n_bins, max_distance = _check_sampling(
        n_samples, sample_size, n_bins, max_distance
    )
    if sample_size is None:
        sample_size = int(tm.finite.sum()) if tm.finite.sum() <= _ALL_PAIRS_MAX else 500
    kernel = _SmoothnessKernel(tm, tm.finite, n_samples, sample_size, n_bins, max_distance, rng)
    attrs = {
        "method": "tdann",
        "formula": "(max - first bin) / max of mean |v_i - v_j| in distance bins",
        "n_samples": int(len(kernel.samples)),
        "sample_size": int(sample_size),
        "n_bins": int(len(kernel.edges) - 1),
        "max_distance": float(kernel.edges[-1]),
        "reference": TDANN_REFERENCE,
        "toponets_definition": TOPONETS_SMOOTHNESS_NOTE,
    }
    return kernel, attrs


def _check_values(tm: TopoMap, what: str) -> None:
    """An all-NaN (or nearly empty) map is bad input, not an undefined value."""
    n_ok = int(tm.finite.sum())
    if n_ok < 3:
        raise InvalidDataError(
            f"{tm.name or 'The map'} has {n_ok} of {tm.n} points with a finite value; {what} "
            "needs at least 3. Check the map (an all-NaN map usually means the selectivity "
            "of a category absent from the stimuli, or units that never respond)."
        )


def _smoothness_undefined(tm: TopoMap, attrs: dict) -> str:
    """Why TDANN's score is undefined for this map ("" when it is defined)."""
    if attrs["n_bins"] < 2:
        return (f"its points span only one distance bin (max_distance "
                f"{attrs['max_distance']:.3g}, bins at least 1.5 point spacings wide), so "
                "neighbours cannot be compared with distant points; sheets need at least 6 x 6 "
                "units (or pass a larger max_distance).")
    v = tm.values[tm.finite]
    if np.ptp(v) == 0:
        return "the map is constant (no differences between points)."
    return ""


class _nan_kernel:  # noqa: N801 -- stands in for a _SmoothnessKernel
    """A smoothness kernel whose score is NaN (undefined), keeping the bins and samples."""

    def __init__(self, kernel):
        self._k = kernel
        self.samples, self.edges = kernel.samples, kernel.edges

    def profiles(self, values):
        return self._k.profiles(values)

    def __call__(self, values):
        return np.full(np.atleast_2d(values).shape[0], np.nan)

    def score_profiles(self, profiles):
        return np.full(len(profiles), np.nan)


@validate_params(dict(_SAMPLING, n_permutations=N_PERMUTATIONS))
@_fill
def smoothness(
    data,
    *,
    method: str = "tdann",
    n_samples: int = 20,
    sample_size: int | None = None,
    n_bins: int = 10,
    max_distance: float | None = None,
    n_permutations: int = 0,
    null: str = "positions",
    random_state: RandomState = None,
    layer: str | None = None,
    geometry: Mapping | None = None,
) -> xr.Dataset:
    """Smoothness of a map: how much less neighbours differ than distant points (TDANN).

    TDANN's score (Margalit et al. 2024; ``spacetorch.utils.spatial_utils.smoothness``): for
    each sample of points, the absolute difference ``|v_i - v_j|`` of every pair is averaged
    in distance bins (0 to ``max_distance``) and the sample's score is
    ``(max - first bin) / max`` of that profile. A smooth map (neighbours alike) scores near
    1; a map with no spatial structure near 0; the score cannot exceed 1.

    The TopoNets paper reports a "smoothness" above 1 -- a different definition, not
    implemented here because its formula could not be found (see ``attrs["toponets_definition"]``
    and the "Metrics and their definitions" page).

    Parameters
    ----------
    data : map
        See :func:`as_topomap`.
    method : {"tdann"}
        The definition (the only one implemented).
    n_samples : int
        Random samples of points when the map has more than 1,000 points.
    sample_size : int, optional
        Points per sample, at least 3; default every point once for maps of at most 1,000
        points (no sampling noise), else 500 (TDANN's sample size).
    n_bins : int
        Distance bins, at least 2 (with one, the first bin is the maximum and the score 0 by
        construction); at most, fewer when bins would be narrower than 1.5 point spacings,
        so the first bin always holds the nearest neighbours.
    max_distance : float, optional
        Largest distance binned; default half the diagonal of the points' bounding box.
    %(n_permutations)s
        At most ``MAX_PERMUTATIONS`` (10**6; see :func:`spatial_null`). The samples and
        bins stay fixed, so the null varies the map only.
    null : {"positions"}
        ``"positions"``: the map's values scattered over its points at random.
    %(random_state)s
    %(geometry)s

    Returns
    -------
    xarray.Dataset
        ``score`` (mean over samples; NaN with an
        :class:`~toponeuro.exceptions.UndefinedValueWarning` where TDANN's score is
        undefined: a constant map, or points spanning fewer than 2 distance bins -- sheets
        smaller than 6 x 6), ``scores`` (per sample), ``profile`` (mean
        ``|difference|`` per distance bin), ``profiles`` (per sample), ``pair_counts``; coord
        ``distance`` = bin centres (sheet: unit spacings; mesh: the units of positions).
        ``null_mean``, ``null_std``, ``p_value``, ``z`` (NaN without a null) and ``null``
        (the draws, dim ``permutation``). ``attrs``: ``method``, ``formula``, parameters,
        ``reference``, ``null``, ``n_permutations``.

    Raises
    ------
    InvalidDataError
        Fewer than 3 points with a finite value (e.g. an all-NaN map).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> from scipy.ndimage import gaussian_filter
    >>> smooth = gaussian_filter(rng.standard_normal((32, 32)), 3)
    >>> res = smoothness(smooth, n_permutations=199, random_state=0)
    >>> float(res["score"]) > 0.5, float(res["p_value"]), res["profile"].dims
    (True, 0.005, ('distance',))
    """
    if method not in SMOOTHNESS_METHODS:
        hint = (
            " The TopoNets paper's definition is not implemented: " + TOPONETS_SMOOTHNESS_NOTE
            if method.lower().startswith("topo")
            else ""
        )
        raise UnknownNameError(
            f"Unknown smoothness method {method!r}; "
            f"{close_matches(method, SMOOTHNESS_METHODS)}{hint}"
        )
    if null != "positions":
        raise UnknownNameError(
            f"smoothness of one map takes null='positions'; got {null!r}. (A shift of one map "
            "keeps its smoothness by design, so it is no null for it.)"
        )
    rng = check_random_state(random_state)
    tm = _map_of(data, layer, geometry)
    _check_values(tm, "smoothness")
    kernel, attrs = _smoothness_setup(tm, n_samples, sample_size, n_bins, max_distance, rng)
    undefined = _smoothness_undefined(tm, attrs)
    if undefined:
        warnings.warn(f"{tm.name or 'The map'}: smoothness is undefined (NaN): {undefined}",
                      UndefinedValueWarning, stacklevel=user_stacklevel())
        kernel = _nan_kernel(kernel)
        n_permutations = 0
    profiles = kernel.profiles(tm.values[None, :])[0]
    counts = [c for (_, _, _, c) in kernel.samples]
    scores = kernel.scores(profiles) if not undefined else np.full(len(counts), np.nan)
    # the observed map's score from its profiles, not profiled a second time
    res = run_null(kernel, [tm], null, n_permutations, rng, attrs,
                   observed=float(kernel.score_profiles(profiles[None])[0]))
    ds = _profile_dataset(profiles, counts, kernel.edges, tm.name, res.attrs)
    ds["scores"] = ((D.SAMPLE,), np.asarray(scores))
    ds["score"] = res.statistic
    ds["null"] = ((D.PERMUTATION,), res.null)
    for key in ("null_mean", "null_std", "p_value", "z"):
        ds[key] = getattr(res, key)
    return ds

@validate_params(_SAMPLING)
@_fill
def correlation_profile(
    responses,
    *,
    n_samples: int = 20,
    sample_size: int = 500,
    n_bins: int = 10,
    max_distance: float | None = None,
    random_state: RandomState = None,
    layer: str | None = None,
    geometry: Mapping | None = None,
) -> xr.Dataset:
    """Correlation of unit (or vertex) responses as a function of their distance.

    Pearson correlation across stimuli of every sampled pair, averaged in distance bins. On a
    topographic sheet nearby units respond alike, so the profile falls with distance.

    Parameters
    ----------
    responses : xarray.DataArray or array (n_stimuli, n_points)
        Activations (dims ``("stimulus", "unit")``, pick ``layer``) or responses on mesh
        vertices with ``geometry``.
    n_samples : int
        Random samples of points when there are more than 1,000 (as in :func:`smoothness`).
    sample_size : int
        Points per sample (500; as in :func:`smoothness`).
    n_bins : int
        Distance bins, at least 2 (as in :func:`smoothness`).
    max_distance : float, optional
        Largest distance binned (as in :func:`smoothness`; default half the diagonal of the
        points' bounding box).
    %(random_state)s
    %(geometry)s

    Returns
    -------
    xarray.Dataset
        ``profile`` (mean r per bin), ``profiles`` (per sample), ``pair_counts``; coord
        ``distance``.

    Examples
    --------
    >>> from toponeuro import make_activations
    >>> acts = make_activations({"fc": 64}, n_stimuli=30, random_state=0)
    >>> prof = correlation_profile(acts, random_state=0)
    >>> prof["distance"].values.round(2).tolist()  # an 8 x 8 sheet: 3 bins up to 4.95
    [0.82, 2.47, 4.12]
    """
    if isinstance(responses, xr.DataArray) and D.UNIT in responses.dims:
        from ...sheet import check_activations

        check_activations(responses)
        layers = responses.topo.layers
        if layer is None and len(layers) > 1:
            raise CoordinateError(f"These activations hold layers {layers}; pass layer=...")
        sub = responses.topo.select(layer or layers[0])
        h, w = sub.topo.sheet_shape(layer or layers[0])
        _check_sheet(h, w, f"Layer {layer or layers[0]!r}")
        x = np.asarray(sub.transpose(D.STIMULUS, D.UNIT).values, dtype=float)
        tm = TopoMap(
            values=np.zeros(x.shape[1]),
            positions=sub.topo.positions(layer or layers[0]),
            name=str(layer or layers[0]),
        )
    else:
        x = np.asarray(responses, dtype=float)
        if x.ndim != 2:
            raise DimensionError(f"responses must be (n_stimuli, n_points); got shape {x.shape}.")
        tm = _map_of(np.zeros(x.shape[1]), geometry=geometry)
    rng = check_random_state(random_state)
    edges = _bin_edges(tm, n_bins, max_distance)
    good = x.std(0) > 0
    profiles, counts = [], []
    for idx in _samples(tm, good, n_samples, sample_size, rng):
        r = np.corrcoef(x[:, idx], rowvar=False)
        prof, cnt = _binned(_pair_distances(tm, idx), r[np.triu_indices(idx.size, k=1)], edges)
        profiles.append(prof)
        counts.append(cnt)
    attrs = {
        "method": "pearson r of unit responses across stimuli, mean per distance bin",
        "n_bins": int(len(edges) - 1),
        "max_distance": float(edges[-1]),
        "reference": "TDANN (Margalit et al. 2024) response correlation vs cortical distance; "
        "neuroailab/TDANN spacetorch/utils/spatial_utils.py agg_by_distance",
    }
    return _profile_dataset(profiles, counts, edges, tm.name, attrs)


# --------------------------------------------------------------------------- registry


def _smoothness_factory(tms, *, n_samples=20, sample_size=None, n_bins=10, max_distance=None,
                        rng=None):
    if len(tms) != 1:
        raise InvalidDataError(f"smoothness is a statistic of one map; got {len(tms)}.")
    rng = check_random_state(rng, "random_state")
    return _smoothness_setup(tms[0], n_samples, sample_size, n_bins, max_distance, rng)


#: named statistics of :func:`spatial_null`: factory(maps, **params) -> (kernel, attrs)
_STATISTIC_FACTORIES = {
    "ssim": _ssim_factory,
    "pearson": lambda tms, rng=None: _corr_factory(tms, method="pearson"),
    "spearman": lambda tms, rng=None: _corr_factory(tms, method="spearman"),
    "smoothness": _smoothness_factory,
}
for _name, _factory in _STATISTIC_FACTORIES.items():
    register_statistic(_name, _factory)


@validate_params({
    "method": Options(SIMILARITY_METHODS, error=UnknownNameError),
    "n_permutations": N_PERMUTATIONS,
    "alternative": ALTERNATIVE,
    "random_state": SEED,
})
@_fill
def map_similarity(
    map_a,
    map_b,
    method: str = "ssim",
    *,
    n_permutations: int = 1000,
    null: str | None = None,
    alternative: str = "two-sided",
    win_size: int | None = None,
    data_range: float | None = None,
    random_state: RandomState = None,
    layer: str | None = None,
    geometry: Mapping | None = None,
) -> NullResult:
    """Similarity of two maps on the same sheet, with its spatial null.

    ``"ssim"`` (default): structural similarity (Wang et al. 2004) of the two maps on the
    sheet grid, each map first put on an image's scale -- min-max rescaled to [0, 1] over its
    units -- so that overlap means overlap: a map scores 1 against itself and below 0 against
    its negative (as TopoNets' face-scene -0.41 implies). The number equals
    ``skimage.metrics.structural_similarity(a01, b01, win_size=7, data_range=1)`` on the
    rescaled maps ``a01``, ``b01``; default window scikit-image's 7 x 7 (smaller sheets: the
    largest odd size that fits). A given ``data_range`` compares the maps as they are instead
    (then a map and its negative can score above 0). ``"pearson"`` and ``"spearman"``
    correlate the maps across units and are position-free: shuffling every unit's position
    alike leaves them unchanged. :func:`overlap_verdict` turns the result into words.

    Parameters
    ----------
    map_a, map_b : map
        Two maps on the same sheet or mesh (see :func:`as_topomap`); per-unit maps with
        several layers need ``layer``. 1-D arrays without positions are compared element-wise
        (correlations only).
    method : {"ssim", "pearson", "spearman"}
    %(n_permutations)s
    null : str, optional
        Default ``"shift"`` (sheet: shifts within the mirrored sheet; mesh: the spin test):
        half the draws move ``map_b``, the same moves shift ``map_a`` in the other half, so
        swapping the maps gives the same null and p (with an even ``n_permutations``).
        Others (``map_b`` moves), and ``"positions"`` (no null for overlap; warns):
        :func:`spatial_null`.
    alternative : {"two-sided", "greater", "less"}
        The tail of ``p_value``: two-sided (default) tests "more *or* less alike than
        chance", the one test behind the three outcomes of :func:`overlap_verdict`.
    win_size, data_range : optional
        SSIM's window (odd) and data range (default: the rescaled maps, data range 1).
    %(random_state)s
    %(geometry)s

    Returns
    -------
    NullResult
        ``statistic``, ``p_value``, ``z``, ``null``; acts as a float. ``attrs``: ``method``,
        the parameters, ``reference``, ``null``, ``n_permutations``, and with the default
        null ``moves`` (each map in turn).

    Raises
    ------
    DimensionError
        The maps have different shapes or unit positions.
    InvalidDataError
        SSIM on a cortical mesh (no standard window there; use ``"pearson"``).

    Examples
    --------
    >>> a = np.arange(20.0).reshape(4, 5)
    >>> float(map_similarity(a, -a, "pearson", n_permutations=0))
    -1.0
    >>> round(float(map_similarity(a, a, n_permutations=0)), 6)
    1.0
    >>> float(map_similarity(a, -a, n_permutations=0)) < 0
    True
    """
    rng = check_random_state(random_state)

    geo = _check_geometry(geometry)

    def _tm(m):
        if isinstance(m, np.ndarray | list | tuple) and np.ndim(m) == 1 and "positions" not in geo:
            v = np.asarray(m, dtype=float)
            return TopoMap(values=v, positions=np.arange(v.size, dtype=float)[:, None],
                           kind="vector")
        return _map_of(m, layer, geo)

    ta, tb = _tm(map_a), _tm(map_b)
    if ta.n != tb.n or ta.grid_shape != tb.grid_shape:
        raise DimensionError(
            f"Maps to compare must cover the same units; got {ta.grid_shape or ta.n} and "
            f"{tb.grid_shape or tb.n}. Compute both from the same layer (or resample one map "
            "onto the other's mesh)."
        )
    ok = np.isfinite(ta.values) & np.isfinite(tb.values)
    if ok.sum() < 3:
        raise InvalidDataError("Fewer than 3 units have values in both maps.")
    not_tested = None
    if ta.kind == "vector" and (method == "ssim" or n_permutations):
        if method == "ssim":
            raise InvalidDataError(
                "SSIM needs the maps on a sheet: pass (row, col) maps or per-unit maps, not "
                "bare 1-D arrays (or use method='pearson')."
            )
        if n_permutations:  # 1-D values without positions cannot carry a spatial null
            warnings.warn(
                f"map_similarity: n_permutations={n_permutations} asked for a spatial null, but "
                "these maps are bare 1-D arrays without positions, so no null can be drawn and "
                "the similarity is not tested. Pass sheet maps (h, w), per-unit maps with a "
                "layer, or geometry={'positions': ...}.", ToponeuroWarning, stacklevel=user_stacklevel())
            not_tested = "1-D maps without positions: no spatial null"
        n_permutations = 0
    params = {"win_size": win_size, "data_range": data_range} if method == "ssim" else {}
    kernel, attrs = _STATISTIC_FACTORIES[method]([ta, tb], **params)
    if not_tested:
        attrs = {**attrs, "not_tested": not_tested}
    null = null or "shift"
    flat = [name for name, t in (("map_a", ta), ("map_b", tb)) if np.ptp(t.values[ok]) == 0]
    if flat:
        warnings.warn(
            f"map_similarity is undefined (NaN): {' and '.join(flat)} "
            f"{'is' if len(flat) == 1 else 'are'} constant over the units both maps cover.",
            UndefinedValueWarning, stacklevel=user_stacklevel(),
        )
        n_permutations = 0
    elif method == "ssim" and not np.isfinite(kernel(ta.values[None], tb.values[None])[0]):
        n_missing = int((~ok).sum())
        warnings.warn(
            f"map_similarity is undefined (NaN): SSIM averages {attrs['win_size']} x "
            f"{attrs['win_size']} windows of the sheet with a value at every unit in both "
            f"maps, and the {n_missing} units without one leave no such window. Use "
            "method='pearson' (it leaves those units out), or a smaller win_size.",
            UndefinedValueWarning, stacklevel=user_stacklevel(),
        )
        n_permutations = 0
    return run_null(kernel, [ta, tb], null, n_permutations, rng, attrs, alternative)

