"""Topography metrics on a model's sheet or on the cortex: smoothness, patches, map similarity.

Every metric works on a :class:`TopoMap`: values at points with positions and a distance.
:func:`as_topomap` builds one from

* a per-unit map (dim ``"unit"`` with ``layer``/``row``/``col`` coords, e.g. a selectivity map)
  plus the layer name, or a 2-D ``(row, col)`` map (``da.topo.map(layer)``): a model sheet,
  distances in unit spacings;
* values on the vertices of a mesh (e.g. fsaverage5) with ``positions`` (vertex coordinates,
  flat 2-D or 3-D), optionally a precomputed ``distance`` (matrix, callable, or ``"graph"`` for
  shortest paths along the mesh edges) and an ``adjacency`` (neighbour graph) for patches.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import xarray as xr
from scipy import ndimage, sparse
from scipy.sparse import csgraph
from scipy.spatial import cKDTree
from scipy.spatial.distance import cdist, pdist

from .. import _dims as D
from .._docs import fill_doc
from ..exceptions import (
    CoordinateError,
    DimensionError,
    InvalidDataError,
    SheetError,
    UnknownNameError,
    close_matches,
)

__all__ = [
    "MESH_SIZES",
    "MIN_SHEET_UNITS",
    "TopoMap",
    "Patches",
    "as_topomap",
    "smoothness",
    "correlation_profile",
    "find_patches",
    "map_similarity",
]

#: vertices per hemisphere of the FreeSurfer template meshes
MESH_SIZES = {
    "fsaverage3": 642,
    "fsaverage4": 2562,
    "fsaverage5": 10242,
    "fsaverage6": 40962,
    "fsaverage": 163842,
}
#: fewest units a layer needs for its sheet to carry a topography (at least 2 x 2 as well)
MIN_SHEET_UNITS = 16

_GEOMETRY_DOC = """layer : str, optional
        Layer of a per-unit map that holds several layers.
    positions : array (n, 2) or (n, 3), optional
        Point coordinates for maps that are not a model sheet (cortical vertices, flat or
        inflated coordinates, voxel centres in mm).
    distance : None, "graph", array (n, n) or callable, optional
        How far apart points are: ``None`` Euclidean between positions; ``"graph"`` shortest
        paths along ``adjacency`` with edge length = Euclidean edge length (mesh distance); a
        precomputed matrix; or ``f(sources) -> (len(sources), n)`` distances from the points
        ``sources`` to all points.
    adjacency : sparse matrix (n, n) or float, optional
        Neighbour graph of the points (mesh edges) used for connected patches, or a radius:
        points closer than it are neighbours.
    mesh : str, optional
        Template mesh the values live on (``"fsaverage5"`` ...); checks the vertex count."""


def _fill(obj):
    obj.__doc__ = obj.__doc__.replace("%(geometry)s", _GEOMETRY_DOC)
    return fill_doc(obj)


@dataclass(frozen=True, eq=False)
class TopoMap:
    """Values at points with positions and a distance: a model sheet or a cortical map.

    Build one with :func:`as_topomap`. ``values`` is ``(n,)`` (NaN = no data); on a sheet
    the points are the ``h x w`` grid cells in row-major order and ``grid_shape`` is set.

    Examples
    --------
    >>> tm = as_topomap(np.arange(20.0).reshape(4, 5))
    >>> tm.n, tm.grid_shape, tm.positions[6].tolist()
    (20, (4, 5), [1.0, 1.0])
    """

    values: np.ndarray
    positions: np.ndarray
    grid_shape: tuple[int, int] | None = None
    distance: object = None
    adjacency: object = None
    name: str = ""
    kind: str = "sheet"
    _cache: dict = field(default_factory=dict, repr=False)

    @property
    def n(self) -> int:
        """Number of points (grid cells or vertices)."""
        return int(self.values.shape[0])

    @property
    def finite(self) -> np.ndarray:
        """Boolean mask of points with a value."""
        return np.isfinite(self.values)

    def grid(self, values: np.ndarray | None = None) -> np.ndarray:
        """``values`` (default the map's) reshaped to the sheet grid."""
        if self.grid_shape is None:
            raise SheetError(f"{self.name or 'This map'} lives on a mesh, not a sheet grid.")
        return (self.values if values is None else values).reshape(self.grid_shape)

    def distances_from(self, sources, targets=None) -> np.ndarray:
        """Distances ``(len(sources), len(targets))`` between points (targets default all)."""
        sources = np.asarray(sources, dtype=int)
        tgt = slice(None) if targets is None else np.asarray(targets, dtype=int)
        dist = self.distance
        if dist is None:
            pos = self.positions
            return cdist(pos[sources], pos[tgt])
        if isinstance(dist, str):  # "graph"
            graph = self._cache.get("graph")
            if graph is None:
                graph = _edge_lengths(self._adjacency(), self.positions)
                self._cache["graph"] = graph
            return csgraph.dijkstra(graph, directed=False, indices=sources)[:, tgt]
        if callable(dist):
            out = np.asarray(dist(sources), dtype=float)
            if out.shape != (sources.size, self.n):
                raise DimensionError(
                    f"distance(sources) must return (len(sources), n) = ({sources.size}, "
                    f"{self.n}); got {out.shape}."
                )
            return out[:, tgt]
        return np.asarray(dist)[sources][:, tgt]

    def _adjacency(self):
        adj = self._cache.get("adjacency")
        if adj is not None:
            return adj
        if self.adjacency is None:
            if self.grid_shape is not None:
                adj = _grid_adjacency(self.grid_shape)
            else:
                raise CoordinateError(
                    f"{self.name or 'This map'} needs a neighbour graph for connected patches "
                    "or graph distances; pass adjacency= (the mesh's edges as a sparse (n, n) "
                    "matrix) or a radius (float) within which points are neighbours."
                )
        elif np.isscalar(self.adjacency):
            pairs = cKDTree(self.positions).query_pairs(
                float(self.adjacency), output_type="ndarray"
            )
            adj = sparse.coo_matrix(
                (np.ones(len(pairs)), (pairs[:, 0], pairs[:, 1])), shape=(self.n, self.n)
            ).tocsr()
            adj = adj + adj.T
        else:
            adj = sparse.csr_matrix(self.adjacency)
            if adj.shape != (self.n, self.n):
                raise DimensionError(
                    f"adjacency must be ({self.n}, {self.n}) for {self.n} points; got {adj.shape}."
                )
        self._cache["adjacency"] = adj
        return adj


def _grid_adjacency(shape) -> sparse.csr_matrix:
    h, w = shape
    idx = np.arange(h * w).reshape(h, w)
    a = np.concatenate([idx[:, :-1].ravel(), idx[:-1, :].ravel()])
    b = np.concatenate([idx[:, 1:].ravel(), idx[1:, :].ravel()])
    m = sparse.coo_matrix((np.ones(a.size), (a, b)), shape=(h * w, h * w)).tocsr()
    return m + m.T


def _edge_lengths(adj, positions) -> sparse.csr_matrix:
    coo = sparse.triu(adj, k=1).tocoo()
    lengths = np.linalg.norm(positions[coo.row] - positions[coo.col], axis=1)
    lengths = np.maximum(lengths, 1e-12)  # csgraph drops explicit zeros
    g = sparse.coo_matrix((lengths, (coo.row, coo.col)), shape=adj.shape).tocsr()
    return g + g.T


def _check_mesh(n: int, mesh: str | None, name: str):
    if mesh is None:
        return
    if mesh not in MESH_SIZES:
        raise UnknownNameError(f"Unknown mesh {mesh!r}; {close_matches(mesh, MESH_SIZES)}")
    per_hemi = MESH_SIZES[mesh]
    if n not in (per_hemi, 2 * per_hemi):
        guess = [k for k, v in MESH_SIZES.items() if n in (v, 2 * v)]
        hint = f" It has the size of {guess[0]}; pass mesh={guess[0]!r}." if guess else ""
        raise DimensionError(
            f"A map on {mesh} has {per_hemi:,} vertices per hemisphere ({2 * per_hemi:,} for "
            f"both); {name or 'this map'} has {n:,}.{hint} Resample it to {mesh} (e.g. "
            "nilearn.surface.vol_to_surf on the fsaverage5 mesh) or give another mesh name."
        )


def _sheet_from_units(da: xr.DataArray, layer: str | None, name: str) -> TopoMap:
    layers = da.topo.layers
    if layer is None:
        if len(layers) > 1:
            raise CoordinateError(
                f"This per-unit map holds {len(layers)} layers {layers}; pass layer=... "
                "to pick the sheet."
            )
        layer = layers[0]
    sub = da.topo.select(layer)
    rows = sub[D.ROW].values.astype(int)
    cols = sub[D.COL].values.astype(int)
    h, w = int(rows.max()) + 1, int(cols.max()) + 1
    vals = np.asarray(sub.values, dtype=float)
    _check_sheet(h, w, f"Layer {layer!r}")
    flat = rows * w + cols
    ok = np.isfinite(vals)
    sums = np.bincount(flat, weights=np.where(ok, vals, 0.0), minlength=h * w)
    counts = np.bincount(flat, weights=ok.astype(float), minlength=h * w)
    with np.errstate(invalid="ignore", divide="ignore"):
        grid_vals = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
    return _grid_map(grid_vals.reshape(h, w), name or f"{da.name or 'map'}[{layer}]")


def _check_sheet(h: int, w: int, what: str):
    if h * w < MIN_SHEET_UNITS or h < 2 or w < 2:
        raise SheetError(
            f"{what} has a {h} x {w} sheet ({h * w} units); topography needs at least "
            f"{MIN_SHEET_UNITS} units on a sheet at least 2 x 2. Choose a wider layer (a "
            "prime unit count gives a 1 x n strip), or compare several layers instead."
        )


def _grid_map(grid: np.ndarray, name: str) -> TopoMap:
    grid = np.asarray(grid, dtype=float)
    h, w = grid.shape
    _check_sheet(h, w, name or "This map")
    rr, cc = np.divmod(np.arange(h * w), w)
    return TopoMap(
        values=grid.ravel().copy(),
        positions=np.stack([rr, cc], axis=1).astype(float),
        grid_shape=(h, w),
        name=name,
        kind="sheet",
    )


@_fill
def as_topomap(
    data,
    *,
    layer: str | None = None,
    positions=None,
    distance=None,
    adjacency=None,
    mesh: str | None = None,
    name: str | None = None,
) -> TopoMap:
    """Read a model sheet map or a cortical map as a :class:`TopoMap`.

    Parameters
    ----------
    data : TopoMap, xarray.DataArray or array
        A per-unit map (dim ``"unit"`` with ``layer``, ``row``, ``col`` coords), a 2-D
        ``(row, col)`` sheet map, or 1-D values on the points given by ``positions`` (a
        DataArray with ``x``, ``y`` [, ``z``] coords brings its own positions).
    %(geometry)s
    name : str, optional
        Label used in messages and tables.

    Returns
    -------
    TopoMap

    Raises
    ------
    SheetError
        The layer has too few units for a sheet.
    DimensionError
        Shapes disagree, or the map is not on the stated mesh.

    Examples
    --------
    >>> from toponeuro import make_activations
    >>> acts = make_activations({"fc": 64}, n_stimuli=3, random_state=0)
    >>> as_topomap(acts.mean("stimulus")).grid_shape
    (8, 8)
    >>> as_topomap(np.zeros(50), positions=np.random.default_rng(0).random((50, 3))).kind
    'surface'
    """
    if isinstance(data, TopoMap):
        return data
    if isinstance(data, xr.DataArray):
        label = name or (str(data.name) if data.name is not None else "")
        if D.UNIT in data.dims:
            if data.ndim != 1:
                others = [d for d in data.dims if d != D.UNIT]
                raise DimensionError(
                    f"A map needs one value per unit; this one also has dims {others}. Pick "
                    f"one, e.g. .sel({others[0]}=...) or .mean({others[0]!r})."
                )
            for c in (D.LAYER, D.ROW, D.COL):
                if c not in data.coords:
                    raise CoordinateError(
                        f"A per-unit map needs the unit coords layer, row, col; {c!r} is "
                        "missing. Compute the map from Activations so the coords come along."
                    )
            return _sheet_from_units(data, layer, label)
        if data.ndim == 2 and tuple(data.dims) == (D.ROW, D.COL):
            return _grid_map(data.values, label or str(data.attrs.get(D.LAYER, "")))
        if data.ndim != 1:
            raise DimensionError(
                f"A map must be per-unit (dim 'unit'), a (row, col) sheet or 1-D values on "
                f"a mesh; got dims {tuple(data.dims)}. Reduce the other dims first (e.g. "
                "compute a selectivity map from Activations)."
            )
        if positions is None and all(c in data.coords for c in (D.X, D.Y)):
            cols = [D.X, D.Y] + ([D.Z] if D.Z in data.coords else [])
            positions = np.stack([data[c].values for c in cols], axis=1)
        mesh = mesh or data.attrs.get("mesh")
        values = np.asarray(data.values, dtype=float)
    else:
        label = name or ""
        values = np.asarray(data, dtype=float)
        if values.ndim == 2 and positions is None:
            return _grid_map(values, label)
    if values.ndim != 1:
        raise DimensionError(
            f"Values on a mesh must be 1-D (one per vertex); got shape {values.shape}."
        )
    _check_mesh(values.size, mesh, label)
    if positions is None:
        raise CoordinateError(
            f"{label or 'This map'} ({values.size} values) is not a model sheet, so it needs "
            "positions=(n, 2 or 3) vertex coordinates (e.g. the fsaverage5 inflated or flat "
            "mesh coordinates), optionally with distance= and adjacency=."
        )
    pos = np.asarray(positions, dtype=float)
    if pos.ndim != 2 or pos.shape[0] != values.size:
        raise DimensionError(
            f"positions must be (n_points, 2 or 3) with n_points = {values.size}; got "
            f"{pos.shape}. Give the coordinates of the same vertices as the values."
        )
    if isinstance(distance, str) and distance != "graph":
        raise UnknownNameError(
            f"Unknown distance {distance!r}; use None, 'graph', a matrix or a callable."
        )
    if isinstance(distance, np.ndarray) and distance.shape != (values.size, values.size):
        raise DimensionError(
            f"A distance matrix must be ({values.size}, {values.size}); got {distance.shape}."
        )
    return TopoMap(
        values=values,
        positions=pos,
        distance=distance,
        adjacency=adjacency,
        name=label,
        kind="surface",
    )


def _geometry_kwargs(layer, positions, distance, adjacency, mesh):
    return dict(layer=layer, positions=positions, distance=distance, adjacency=adjacency, mesh=mesh)


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
        from scipy.stats import rankdata

        a, b = rankdata(a), rankdata(b)
    if a.std() == 0 or b.std() == 0:
        return float("nan")
    return float(np.corrcoef(a, b)[0, 1])
