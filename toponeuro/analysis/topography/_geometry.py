"""Where the values of a map live: a model sheet or a cortical mesh (:class:`TopoMap`).

:func:`as_topomap` reads

* a per-unit map (dim ``"unit"`` with ``layer``/``row``/``col`` coords, e.g. a selectivity map)
  plus the layer name, or a 2-D ``(row, col)`` map (``da.topo.map(layer)``): a model sheet,
  distances in unit spacings;
* values on the vertices of a mesh (e.g. fsaverage5) with ``positions`` (vertex coordinates,
  flat 2-D or 3-D), optionally a precomputed ``distance`` (matrix, callable, or ``"graph"`` for
  shortest paths along the mesh edges) and an ``adjacency`` (neighbour graph) for patches.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np
import xarray as xr
from scipy import sparse
from scipy.sparse import csgraph
from scipy.spatial import cKDTree
from scipy.spatial.distance import cdist

from ... import _dims as D
from ..._docs import fill_doc
from ..._meshes import MESH_SIZES
from ..._params import check_number
from ...exceptions import (
    CoordinateError,
    DimensionError,
    InputTypeError,
    InvalidDataError,
    SheetError,
    UnknownNameError,
    close_matches,
)

__all__ = ["GEOMETRY_KEYS", "MESH_SIZES", "MIN_SHEET_UNITS", "TopoMap", "as_topomap"]

#: fewest units a layer needs for its sheet to carry a topography (at least 2 x 2 as well)
MIN_SHEET_UNITS = 16

#: the keys of a ``geometry=`` mapping: the keywords of :func:`as_topomap` that place points
GEOMETRY_KEYS = ("positions", "distance", "adjacency", "mesh")

_LAYER_DOC = """layer : str, optional
        Layer of a per-unit map that holds several layers."""

_GEOMETRY_DOC = _LAYER_DOC + """
    geometry : mapping, optional
        Where the points of a map that is not a model sheet lie: any of the keys
        ``positions``, ``distance``, ``adjacency`` and ``mesh`` of :func:`as_topomap` (for
        an atlas, ``CortexMaps.geometry``). A model sheet brings its own geometry."""


_POINTS_DOC = _LAYER_DOC + """
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
        Template mesh the values live on (``"fsaverage5"`` ...); checks the vertex count. A
        map with twice its vertex count holds both hemispheres, left then right: the spin
        test then rotates the two spheres together, the right by the left's rotation mirrored
        across the mid-sagittal plane (Alexander-Bloch et al. 2018)."""


def _fill(obj):
    doc = obj.__doc__.replace("%(geometry)s", _GEOMETRY_DOC)
    obj.__doc__ = doc.replace("%(points)s", _POINTS_DOC)
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
    mesh: str | None = None
    _cache: dict = field(default_factory=dict, repr=False)

    @property
    def hemispheres(self) -> tuple[slice, ...]:
        """The points of each hemisphere: two halves (left, then right) for a map on both
        hemispheres of a named ``mesh``, else one slice over every point.

        Examples
        --------
        >>> pos = np.random.default_rng(0).random((1284, 3))
        >>> as_topomap(np.zeros(1284), positions=pos, mesh="fsaverage3").hemispheres
        (slice(0, 642, None), slice(642, 1284, None))
        >>> as_topomap(np.zeros(642), positions=pos[:642], mesh="fsaverage3").hemispheres
        (slice(0, 642, None),)
        """
        if self.mesh is not None and self.n == 2 * MESH_SIZES[self.mesh]:
            half = MESH_SIZES[self.mesh]
            return slice(0, half), slice(half, 2 * half)
        return (slice(0, self.n),)

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
                    "matrix) or a radius (float) within which points are neighbours -- in "
                    "geometry={'adjacency': ...} for the metrics (CortexMaps.geometry has it)."
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
    positions: np.ndarray | None = None,
    distance: str | np.ndarray | Callable[[np.ndarray], np.ndarray] | None = None,
    adjacency: sparse.spmatrix | float | None = None,
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
    %(points)s
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
            "mesh coordinates), optionally with distance= and adjacency= -- the metrics take "
            "them as geometry={'positions': ...} (an atlas: CortexMaps.geometry)."
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
    _check_points(pos, distance, adjacency, label)
    return TopoMap(
        values=values,
        positions=pos,
        distance=distance,
        adjacency=adjacency,
        name=label,
        kind="surface",
        mesh=mesh,
    )


def _check_points(pos, distance, adjacency, label):
    """Positions finite, a distance matrix finite and >= 0, an adjacency radius > 0."""
    what = label or "This map"
    bad = ~np.isfinite(pos).all(axis=1)
    if bad.any():
        raise CoordinateError(
            f"{what}: positions of {int(bad.sum())} of {pos.shape[0]} points are NaN or inf "
            f"(e.g. point {int(np.flatnonzero(bad)[0])}); every point needs finite coordinates. "
            "Drop those points (and their values) or give their coordinates."
        )
    if isinstance(distance, np.ndarray):
        d = np.asarray(distance, dtype=float)
        if not np.isfinite(d).all() or (d < 0).any():
            n_bad = int((~np.isfinite(d) | (d < 0)).sum())
            raise InvalidDataError(
                f"{what}: a distance matrix must hold finite distances >= 0; {n_bad} entries "
                f"are negative, NaN or inf (min {np.nanmin(d):.4g}). Pass distances, not "
                "similarities (e.g. 1 - r), or distance='graph' for mesh distances."
            )
    if adjacency is not None and np.isscalar(adjacency):
        check_number(adjacency, "adjacency", lo=0, lo_open=True,
                     fix="A number is a radius: points closer than it are neighbours.")


def _check_geometry(geometry) -> dict:
    """``geometry=`` as keywords of :func:`as_topomap` (None: none), unknown keys refused."""
    if geometry is None:
        return {}
    if not isinstance(geometry, Mapping):
        raise InputTypeError(
            f"geometry must be a mapping of {list(GEOMETRY_KEYS)} (e.g. CortexMaps.geometry); "
            f"got {type(geometry).__name__}."
        )
    for key in geometry:
        if key not in GEOMETRY_KEYS:
            raise UnknownNameError(
                f"Unknown geometry key {key!r}; {close_matches(str(key), GEOMETRY_KEYS)}"
            )
    return dict(geometry)


def _map_of(data, layer=None, geometry=None) -> TopoMap:
    """:func:`as_topomap` of ``data`` with ``layer=`` and a ``geometry=`` mapping."""
    return as_topomap(data, layer=layer, **_check_geometry(geometry))
