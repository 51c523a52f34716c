"""Topography metrics on a model's sheet or on the cortex: smoothness, patches, map similarity.

Every metric reads its input with :func:`as_topomap`, so the same call works on a per-unit
selectivity map (plus ``layer``), a ``(row, col)`` sheet map, or values on cortical vertices
with ``positions`` (and ``distance`` / ``adjacency`` where needed).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import xarray as xr
from scipy import ndimage
from scipy.sparse import csgraph
from scipy.spatial import cKDTree
from scipy.spatial.distance import pdist

from .. import _dims as D
from .._metrics import pearson_r, rankdata
from ..exceptions import (
    CoordinateError,
    DimensionError,
    InvalidDataError,
    UnknownNameError,
    close_matches,
)
from ._geometry import TopoMap, _check_sheet, _fill, _geometry_kwargs, as_topomap

__all__ = ["Patches", "smoothness", "correlation_profile", "find_patches", "map_similarity"]

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


def _pair_distances(tm: TopoMap, idx: np.ndarray) -> np.ndarray:
    """Condensed (upper-triangle, row-major) distances between the points ``idx``."""
    if tm.distance is None:
        return pdist(tm.positions[idx])
    full = tm.distances_from(idx, idx)
    return full[np.triu_indices(idx.size, k=1)]


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


@_fill
def smoothness(
    data,
    *,
    n_samples: int = 20,
    sample_size: int = 500,
    n_bins: int = 10,
    max_distance: float | None = None,
    random_state=None,
    layer: str | None = None,
    positions=None,
    distance=None,
    adjacency=None,
    mesh: str | None = None,
) -> xr.Dataset:
    """Smoothness of a map: how much less neighbours differ than distant points (TDANN).

    For each of ``n_samples`` random samples of ``sample_size`` points, the absolute value
    difference ``|v_i - v_j|`` of every pair is averaged in distance bins (from 0 to
    ``max_distance``); the sample's score is ``(max - first bin) / max`` of that profile. A
    smooth map (neighbours alike) scores near 1; a map with no spatial structure near 0.

    Parameters
    ----------
    data : map
        See :func:`as_topomap`.
    n_samples, sample_size : int
        Random samples of points (all points once when ``sample_size`` covers them).
    n_bins : int
        Distance bins (at most; fewer when bins would be narrower than 1.5 point spacings,
        so the first bin always holds the nearest neighbours).
    max_distance : float, optional
        Largest distance binned; default half the diagonal of the points' bounding box.
    %(random_state)s
    %(geometry)s

    Returns
    -------
    xarray.Dataset
        ``score`` (mean over samples), ``scores`` (per sample), ``profile`` (mean
        ``|difference|`` per distance bin), ``profiles`` (per sample), ``pair_counts``; coord
        ``distance`` = bin centres (sheet: unit spacings; mesh: the units of positions).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> from scipy.ndimage import gaussian_filter
    >>> smooth = gaussian_filter(rng.standard_normal((32, 32)), 3)
    >>> res = smoothness(smooth, random_state=0)
    >>> float(res["score"]) > 0.5, res["profile"].dims
    (True, ('distance',))
    """
    tm = as_topomap(data, **_geometry_kwargs(layer, positions, distance, adjacency, mesh))
    rng = np.random.default_rng(random_state)
    edges = _bin_edges(tm, n_bins, max_distance)
    profiles, counts, scores = [], [], []
    for idx in _samples(tm, tm.finite, n_samples, sample_size, rng):
        v = tm.values[idx]
        prof, cnt = _binned(_pair_distances(tm, idx), pdist(v[:, None], "cityblock"), edges)
        peak = np.nanmax(prof) if np.isfinite(prof).any() else np.nan
        with np.errstate(invalid="ignore", divide="ignore"):
            scores.append((peak - prof[0]) / peak if peak > 0 else np.nan)
        profiles.append(prof)
        counts.append(cnt)
    ds = _profile_dataset(profiles, counts, edges, tm.name, {"n_bins": int(n_bins)})
    ds["scores"] = ((D.SAMPLE,), np.asarray(scores))
    ds["score"] = float(np.nanmean(scores)) if np.isfinite(scores).any() else np.nan
    return ds


@_fill
def correlation_profile(
    responses,
    *,
    n_samples: int = 20,
    sample_size: int = 500,
    n_bins: int = 10,
    max_distance: float | None = None,
    random_state=None,
    layer: str | None = None,
    positions=None,
    distance=None,
    mesh: str | None = None,
) -> xr.Dataset:
    """Correlation of unit (or vertex) responses as a function of their distance.

    Pearson correlation across stimuli of every sampled pair, averaged in distance bins. On a
    topographic sheet nearby units respond alike, so the profile falls with distance.

    Parameters
    ----------
    responses : xarray.DataArray or array (n_stimuli, n_points)
        Activations (dims ``("stimulus", "unit")``, pick ``layer``) or responses on mesh
        vertices with ``positions``.
    n_samples, sample_size, n_bins, max_distance :
        As in :func:`smoothness`.
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
        from ..sheet import check_activations

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
        tm = as_topomap(np.zeros(x.shape[1]), positions=positions, distance=distance, mesh=mesh)
    rng = np.random.default_rng(random_state)
    edges = _bin_edges(tm, n_bins, max_distance)
    good = x.std(0) > 0
    profiles, counts = [], []
    for idx in _samples(tm, good, n_samples, sample_size, rng):
        r = np.corrcoef(x[:, idx], rowvar=False)
        prof, cnt = _binned(_pair_distances(tm, idx), r[np.triu_indices(idx.size, k=1)], edges)
        profiles.append(prof)
        counts.append(cnt)
    return _profile_dataset(profiles, counts, edges, tm.name, {"n_bins": int(n_bins)})


# --------------------------------------------------------------------------- patches


@dataclass(frozen=True, eq=False)
class Patches:
    """Connected patches of a thresholded map (from :func:`find_patches`).

    Attributes
    ----------
    table : pandas.DataFrame
        One row per patch, largest first: ``patch`` (label), ``n_units`` (points),
        ``fraction`` (of the map's points with values), the centroid (``row``/``col`` on a
        sheet, ``x``/``y``[/``z``] on a mesh), ``peak`` value, ``peak_index`` and ``mean``.
    labels : numpy.ndarray
        Patch label of every point (0 = outside), same order as ``map.values``.
    smoothed : numpy.ndarray
        The (smoothed) values that were thresholded.
    map : TopoMap
    threshold : float

    Examples
    --------
    >>> rr, cc = np.mgrid[:20, :20]
    >>> p = find_patches(np.exp(-((rr - 5) ** 2 + (cc - 12) ** 2) / 8.0), threshold=0.5)
    >>> isinstance(p, Patches), len(p.table), p.labels.shape == p.smoothed.shape
    (True, 1, True)
    """

    table: pd.DataFrame
    labels: np.ndarray
    smoothed: np.ndarray
    map: TopoMap
    threshold: float

    @property
    def n_patches(self) -> int:
        """Number of patches."""
        return len(self.table)

    @property
    def centroids(self) -> np.ndarray:
        """``(n_patches, d)`` centroid coordinates, largest patch first."""
        cols = (
            ["row", "col"]
            if self.map.kind == "sheet"
            else ["x", "y", "z"][: self.map.positions.shape[1]]
        )
        return self.table[cols].to_numpy(dtype=float)

    def label_grid(self) -> np.ndarray:
        """Patch labels on the sheet grid (sheets only)."""
        return self.map.grid(self.labels)


def _smooth(tm: TopoMap, sigma: float) -> np.ndarray:
    v = tm.values
    if not sigma:
        return v.copy()
    ok = tm.finite
    if tm.grid_shape is not None:
        num = ndimage.gaussian_filter(
            np.where(ok, v, 0.0).reshape(tm.grid_shape), sigma, mode="constant"
        )
        den = ndimage.gaussian_filter(
            ok.astype(float).reshape(tm.grid_shape), sigma, mode="constant"
        )
        out = (num / np.where(den > 0, den, np.nan)).ravel()
    else:
        tree = cKDTree(tm.positions)
        pairs = tree.sparse_distance_matrix(tree, 3.0 * sigma, output_type="coo_matrix")
        # sparse_distance_matrix leaves the zero self-distances out; add the diagonal back
        rows = np.concatenate([pairs.row, np.arange(tm.n)])
        cols = np.concatenate([pairs.col, np.arange(tm.n)])
        d = np.concatenate([pairs.data, np.zeros(tm.n)])
        wts = np.exp(-0.5 * (d / sigma) ** 2) * ok[cols]
        num = np.bincount(rows, weights=wts * np.where(ok, v, 0.0)[cols], minlength=tm.n)
        den = np.bincount(rows, weights=wts, minlength=tm.n)
        out = num / np.where(den > 0, den, np.nan)
    out[~ok] = np.nan
    return out


@_fill
def find_patches(
    data,
    threshold: float,
    min_units: int = 4,
    smooth_sigma: float = 0.0,
    *,
    connectivity: int = 1,
    layer: str | None = None,
    positions=None,
    distance=None,
    adjacency=None,
    mesh: str | None = None,
) -> Patches:
    """Connected patches where the (optionally smoothed) map reaches ``threshold``.

    Parameters
    ----------
    data : map
        See :func:`as_topomap`. On a mesh an ``adjacency`` (neighbour graph) is needed.
    threshold : float
        Points with value ``>= threshold`` (after smoothing) form patches; e.g. ``t >= 3``,
        or ``0.5`` for a binary ROI map.
    min_units : int
        Patches with fewer points are dropped.
    smooth_sigma : float
        Gaussian smoothing before thresholding (sheet: unit spacings; mesh: units of
        ``positions``, Euclidean kernel). NaN points are ignored by the kernel.
    connectivity : {1, 2}
        On a sheet: 1 = edge neighbours (4), 2 = edge and corner neighbours (8).
    %(geometry)s

    Returns
    -------
    Patches
        ``.table`` (area, centroid, peak per patch), ``.labels``, ``.n_patches``.

    Examples
    --------
    >>> rr, cc = np.mgrid[:30, :40]
    >>> blob = np.exp(-((rr - 10) ** 2 + (cc - 25) ** 2) / (2 * 3.0**2))
    >>> p = find_patches(blob, threshold=0.5)
    >>> p.n_patches, p.centroids.round(1).tolist()
    (1, [[10.0, 25.0]])
    """
    tm = as_topomap(data, **_geometry_kwargs(layer, positions, distance, adjacency, mesh))
    sm = _smooth(tm, smooth_sigma)
    above = np.nan_to_num(sm, nan=-np.inf) >= threshold
    if tm.grid_shape is not None and tm.adjacency is None:
        if connectivity not in (1, 2):
            raise InvalidDataError(f"connectivity must be 1 or 2; got {connectivity}.")
        struct = ndimage.generate_binary_structure(2, connectivity)
        lab, _ = ndimage.label(above.reshape(tm.grid_shape), structure=struct)
        lab = lab.ravel()
    else:
        adj = tm._adjacency()
        idx = np.flatnonzero(above)
        lab = np.zeros(tm.n, dtype=int)
        if idx.size:
            _, comp = csgraph.connected_components(adj[idx][:, idx], directed=False)
            lab[idx] = comp + 1
    n_total = int(tm.finite.sum())
    pos_cols = ["row", "col"] if tm.kind == "sheet" else ["x", "y", "z"][: tm.positions.shape[1]]
    rows = []
    labels_out = np.zeros(tm.n, dtype=int)
    if lab.max() > 0:
        sizes = np.bincount(lab)
        keep = [k for k in np.argsort(-sizes[1:], kind="stable") + 1 if sizes[k] >= min_units]
        for new, k in enumerate(keep, start=1):
            members = np.flatnonzero(lab == k)
            labels_out[members] = new
            vals = sm[members]
            peak_i = members[int(np.nanargmax(vals))]
            cen = tm.positions[members].mean(0)
            rows.append(
                {
                    "patch": new,
                    "n_units": members.size,
                    "fraction": members.size / max(n_total, 1),
                    **dict(zip(pos_cols, cen.tolist())),
                    "peak": float(sm[peak_i]),
                    "peak_index": int(peak_i),
                    "mean": float(np.nanmean(vals)),
                }
            )
    cols = ["patch", "n_units", "fraction", *pos_cols, "peak", "peak_index", "mean"]
    table = pd.DataFrame(rows, columns=cols)
    return Patches(table=table, labels=labels_out, smoothed=sm, map=tm, threshold=float(threshold))


# --------------------------------------------------------------------------- similarity

_SIMILARITY = ("pearson", "spearman")


def map_similarity(map_a, map_b, method: str = "pearson", *, layer: str | None = None) -> float:
    """Correlation across units (or vertices) of two maps, e.g. faces vs bodies selectivity.

    Points where either map has no value are left out.

    Parameters
    ----------
    map_a, map_b : map
        Two maps on the same sheet or mesh (see :func:`as_topomap`); per-unit maps with
        several layers need ``layer``. 1-D arrays are compared element-wise.
    method : {"pearson", "spearman"}
    layer : str, optional

    Returns
    -------
    float

    Raises
    ------
    DimensionError
        The maps have different shapes or unit positions.

    Examples
    --------
    >>> a = np.arange(20.0).reshape(4, 5)
    >>> map_similarity(a, -a), map_similarity(a, a**3, method="spearman")
    (-1.0, 1.0)
    """
    if method not in _SIMILARITY:
        raise UnknownNameError(f"Unknown method {method!r}; {close_matches(method, _SIMILARITY)}")

    def _vals(m):
        if isinstance(m, np.ndarray | list | tuple) and np.ndim(m) == 1:
            return np.asarray(m, dtype=float), None
        tm = as_topomap(m, layer=layer)
        return tm.values, tm.grid_shape

    (a, ga), (b, gb) = _vals(map_a), _vals(map_b)
    if a.shape != b.shape or ga != gb:
        raise DimensionError(
            f"Maps to compare must cover the same units; got {ga or a.shape} and "
            f"{gb or b.shape}. Compute both from the same layer (or resample one map onto the "
            "other's mesh)."
        )
    ok = np.isfinite(a) & np.isfinite(b)
    if ok.sum() < 3:
        raise InvalidDataError("Fewer than 3 units have values in both maps.")
    a, b = a[ok], b[ok]
    if method == "spearman":
        a, b = rankdata(a), rankdata(b)
    if a.std() == 0 or b.std() == 0:
        return float("nan")
    return pearson_r(a, b)
