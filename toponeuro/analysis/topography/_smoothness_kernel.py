"""TDANN's smoothness of many maps at once: the point samples, their pairs binned by
distance, and the mean |difference| per bin of every map (the kernel of
:func:`~toponeuro.analysis.smoothness` and its null).
"""

from __future__ import annotations

import functools
import warnings

import numpy as np
from scipy.spatial import cKDTree
from scipy.spatial.distance import pdist

from ...exceptions import InvalidDataError
from ._forked import forked_map, n_cores, n_workers
from ._topomap import TopoMap


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
    single sample (searched as it is). The same numbers: a row depends on its source only,
    so many sources are searched in worker processes on several cores (scipy's search holds
    the GIL; :func:`~._forked.forked_map`), each sending back its rows within its samples."""
    if not isinstance(tm.distance, str) or len(samples) < 2:
        return None
    every = np.unique(np.concatenate(samples))
    chunks = [every[lo:lo + _SOURCE_CHUNK] for lo in range(0, every.size, _SOURCE_CHUNK)]
    full = [np.empty((idx.size, idx.size)) for idx in samples]
    workers = n_workers(every.size)
    if workers:
        tm.distances_from(every[:1], limit=0.0)  # its edge graph, built once before the fork
    for rows in forked_map(_sample_rows, chunks, (tm, samples, limit), workers=workers):
        for k, (mine, block) in rows.items():
            full[k][mine] = block
    return [out[np.triu_indices(idx.size, k=1)] for idx, out in zip(samples, full)]


def _sample_rows(tm: TopoMap, samples, limit: float, src: np.ndarray) -> dict:
    """``{k: (mine, rows)}``: the rows of sample ``k`` whose points are among the sources
    ``src`` (``mine``, a mask over the sample), each its distances to the sample's points,
    from one search from ``src`` (distances beyond ``limit`` may be ``inf``)."""
    d = tm.distances_from(src, limit=limit)
    out = {}
    for k, idx in enumerate(samples):
        pos = np.searchsorted(src, idx)
        mine = (pos < src.size) & (src[np.minimum(pos, src.size - 1)] == idx)
        if mine.any():
            out[k] = (mine, d[pos[mine]][:, idx])
    return out


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
                and (n_threads := n_cores()) > 1):
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
        if len(todo) > 1 and work >= _THREAD_MIN_PAIRS and (n_threads := n_cores()) > 1:
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
