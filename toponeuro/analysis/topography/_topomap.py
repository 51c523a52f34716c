"""The map type of the one ruler: values at points with positions and a distance (:class:`TopoMap`).

A :class:`TopoMap` holds one value per point and answers the questions every descriptor asks
of its geometry, whatever the geometry is (a model sheet, units at free 2-D positions, a
cortical mesh): ``geometry``, ``neighbours()``, ``point_areas()``, ``extent`` and
``extent_mm``, ``distances_from()``, ``hemispheres`` and ``null_names``. The arithmetic of each
rule is in ``_places.py``; reading user data into a :class:`TopoMap` (the checks of values,
positions, distances and meshes) is :func:`~toponeuro.analysis.as_topomap`, in
``_geometry.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import sparse
from scipy.sparse import csgraph
from scipy.spatial import cKDTree
from scipy.spatial.distance import cdist

from ..._io.meshes import MESH_SIZES
from ..._util.constraints import NDARRAY
from ..._util.frozen import validate_fields
from ..._util.params import NUMBER, InstanceOf, Text
from ...exceptions import CoordinateError, DimensionError, SheetError
from ._places import (
    delaunay_graph,
    edge_lengths,
    face_graph,
    graph_vertex_areas,
    grid_graph,
    hull_area,
    vertex_areas,
)

__all__ = ["TopoMap"]


@dataclass(frozen=True, eq=False)
@validate_fields({
    "values": NDARRAY, "positions": NDARRAY,
    "grid_shape": [InstanceOf(tuple, "a (rows, cols) tuple", example=(1, 1)), None],
    "name": Text(empty=True), "kind": Text(), "mesh": [Text(), None],
    "faces": [NDARRAY, None], "sphere": [NDARRAY, None], "units": [Text(empty=True), None],
    "mm_per_unit": [NUMBER, None], "prune": [NUMBER, None]})
class TopoMap:
    """Values at points with positions and a distance: a model sheet, units at free
    positions, or a cortical map.

    Build one with :func:`as_topomap`. ``values`` is ``(n,)`` (NaN = no data); on a sheet
    the points are the ``h x w`` grid cells in row-major order and ``grid_shape`` is set.
    ``kind`` is ``"sheet"``, ``"free"`` (units at free 2-D positions) or ``"surface"`` (a
    mesh, or points with positions); :attr:`geometry` names the three the one ruler knows.

    Parameters
    ----------
    values : numpy.ndarray
        One value per point, ``(n,)``; NaN where there is no data.
    positions : numpy.ndarray
        Point coordinates, ``(n, 2)`` or ``(n, 3)`` (a sheet: ``(row, col)`` of each cell).
    grid_shape : tuple of int or None
        ``(h, w)`` of a sheet; ``None`` for other geometries.
    distance : None, str, numpy.ndarray or callable
        How far apart points are, as ``distance`` of :func:`as_topomap`.
    adjacency : sparse matrix, float or None
        Neighbour graph of the points, or a radius, as ``adjacency`` of :func:`as_topomap`.
    name : str
        Label used in messages and tables.
    kind : str
        ``"sheet"``, ``"free"`` or ``"surface"``.
    mesh : str or None
        Template mesh the values live on (``"fsaverage5"`` ...).
    faces : numpy.ndarray or None
        Triangles of a mesh, ``(m, 3)``.
    sphere : numpy.ndarray or None
        Sphere coordinates of a mesh's vertices, for the spin test.
    units : str or None
        Units of ``positions`` (``"mm"`` or ``"sheet"``).
    mm_per_unit : float or None
        Millimetres per position unit.
    prune : float or None
        Free positions: Delaunay edges longer than ``prune`` x the median edge are dropped.
    _cache : dict
        Derived arrays computed once (point areas, neighbours); internal, leave it out.

    Examples
    --------
    >>> from toponeuro.analysis import as_topomap
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
    faces: np.ndarray | None = None
    sphere: np.ndarray | None = None
    units: str | None = None
    mm_per_unit: float | None = None
    prune: float | None = None
    _cache: dict = field(default_factory=dict, repr=False)

    @property
    def geometry(self) -> str:
        """``"sheet"`` (grid), ``"free"`` (units at free 2-D positions) or ``"mesh"``.

        Examples
        --------
        >>> from toponeuro.analysis import as_topomap
        >>> as_topomap(np.zeros((4, 4))).geometry
        'sheet'
        >>> pos = np.random.default_rng(0).random((30, 2))
        >>> as_topomap(np.zeros(30), positions=pos, units="mm").geometry
        'free'
        """
        return {"sheet": "sheet", "free": "free"}.get(self.kind, "mesh")

    def neighbours(self) -> sparse.csr_matrix:
        """The neighbour graph, one rule per geometry: grid rook; free positions Delaunay
        edges (pruned by ``prune``); mesh its ``adjacency`` or the edges of its ``faces``.

        Returns
        -------
        scipy.sparse.csr_matrix
            ``(n, n)``, symmetric: 1 where two points are neighbours, 0 elsewhere and on the
            diagonal.

        Raises
        ------
        CoordinateError
            A mesh known only by its positions: no ``adjacency`` or ``faces`` to read edges
            from.

        Examples
        --------
        >>> from toponeuro.analysis import as_topomap
        >>> int(as_topomap(np.zeros((4, 4))).neighbours().sum()) // 2  # 2 * 4 * 3 edges
        24
        """
        w = self._adjacency()
        w = (w != 0).astype(float).tocsr()
        w.setdiag(0)
        w.eliminate_zeros()
        return w

    def point_areas(self) -> np.ndarray:
        """Area of each point in squared position units (``_places`` module docs).

        Returns
        -------
        numpy.ndarray
            ``(n,)``: 1 per sheet cell; free positions share the convex hull of the points
            with data equally; a mesh gives each vertex a third of each of its triangles (or,
            without ``faces``, a regular triangulation's area per vertex). Computed once.

        Examples
        --------
        >>> from toponeuro.analysis import as_topomap
        >>> as_topomap(np.zeros((4, 4))).point_areas()[:2].tolist()
        [1.0, 1.0]
        """
        out = self._cache.get("point_areas")
        if out is not None:
            return out
        if self.grid_shape is not None:
            out = np.ones(self.n)
        elif self.kind == "free":
            fin = self.finite
            out = np.full(self.n, hull_area(self.positions[fin]) / max(int(fin.sum()), 1))
        elif self.faces is not None:
            out = vertex_areas(self.positions, self.faces)
        else:
            out = graph_vertex_areas(self.positions, self._adjacency())
        self._cache["point_areas"] = out
        return out

    @property
    def extent(self) -> float:
        """``sqrt`` of the summed area of the points with data, in position units.

        Examples
        --------
        >>> from toponeuro.analysis import as_topomap
        >>> as_topomap(np.zeros((4, 9))).extent
        6.0
        """
        return float(np.sqrt(self.point_areas()[self.finite].sum()))

    @property
    def extent_mm(self) -> float:
        """:attr:`extent` in mm: NaN unless the map has a physical scale (``units="mm"`` or
        ``mm_per_unit``).

        Examples
        --------
        >>> from toponeuro.analysis import as_topomap
        >>> as_topomap(np.zeros((4, 9)), mm_per_unit=0.5).extent_mm
        3.0
        >>> import math; math.isnan(as_topomap(np.zeros((4, 9))).extent_mm)
        True
        """
        scale = self.scale_mm
        return self.extent * scale if scale is not None else float("nan")

    @property
    def scale_mm(self) -> float | None:
        """Millimetres per position unit, or None when the map has no physical scale."""
        if self.mm_per_unit is not None:
            return float(self.mm_per_unit)
        return 1.0 if self.units == "mm" else None

    @property
    def null_names(self) -> tuple[str, ...]:
        """The nulls that can be drawn on this map: ``"positions"`` everywhere; a sheet also
        the mirrored ``"shift"`` and the sheet surrogates (``"variogram"``, ...) and
        ``"labels"``; a mesh ``"spin"`` when it has sphere coordinates; free positions only
        ``"positions"``.

        Examples
        --------
        >>> from toponeuro.analysis import as_topomap
        >>> as_topomap(np.zeros((4, 4))).null_names[:2]
        ('positions', 'shift')
        """
        from ._null_registry import NULL_METHODS, null_method

        if self.geometry == "free":
            return ("positions",)
        geo = self.geometry
        names = []
        for name in NULL_METHODS:
            entry = null_method(name)
            if geo not in entry.geometries:
                continue
            target = entry.resolve(geo).name
            if target == "spin" and not self.has_sphere:
                continue
            names.append(name)
        order = {"positions": 0, "shift": 1}
        return tuple(sorted(names, key=lambda k: order.get(k, 2)))

    @property
    def has_sphere(self) -> bool:
        """Whether the spin test can rotate this map (sphere coordinates known)."""
        if self.sphere is not None:
            return True
        if self.geometry != "mesh" or self.positions.shape[1] != 3:
            return False
        centred = self.positions - self.positions.mean(0)
        r = np.linalg.norm(centred, axis=1)
        return bool(r.min() > 0 and r.std() <= 0.05 * r.mean())

    def on_sphere(self) -> TopoMap:
        """This map with its sphere coordinates as positions (for the spin test).

        Returns
        -------
        TopoMap
            A mesh map whose ``positions`` are its ``sphere`` (values, name, kind and mesh
            kept); the map itself when it has no sphere coordinates.

        Examples
        --------
        >>> from toponeuro.analysis import as_topomap
        >>> pos = np.random.default_rng(0).standard_normal((20, 3))
        >>> sph = pos / np.linalg.norm(pos, axis=1, keepdims=True)
        >>> tm = as_topomap(np.zeros(20), positions=pos, sphere=sph)
        >>> bool(np.allclose(tm.on_sphere().positions, sph))
        True
        """
        if self.sphere is None:
            return self
        return TopoMap(values=self.values, positions=self.sphere, name=self.name,
                       kind=self.kind, mesh=self.mesh)

    @property
    def hemispheres(self) -> tuple[slice, ...]:
        """The points of each hemisphere: two halves (left, then right) for a map on both
        hemispheres of a named ``mesh``, else one slice over every point.

        Examples
        --------
        >>> from toponeuro.analysis import as_topomap
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
        """``values`` (default the map's) reshaped to the sheet grid.

        Parameters
        ----------
        values : numpy.ndarray, optional
            One value per point, ``(n,)``, in the map's row-major cell order (e.g. a null
            draw); default the map's own ``values``.

        Returns
        -------
        numpy.ndarray
            ``(h, w)`` = :attr:`grid_shape`.

        Raises
        ------
        SheetError
            The map is not a sheet (free positions or a mesh have no grid).

        Examples
        --------
        >>> from toponeuro.analysis import as_topomap
        >>> tm = as_topomap(np.arange(20.0).reshape(4, 5))
        >>> tm.grid()[1].tolist()
        [5.0, 6.0, 7.0, 8.0, 9.0]
        >>> tm.grid(2 * tm.values)[0, :3].tolist()
        [0.0, 2.0, 4.0]
        """
        if self.grid_shape is None:
            raise SheetError(f"{self.name or 'This map'} lives on a mesh, not a sheet grid.")
        return (self.values if values is None else values).reshape(self.grid_shape)

    def distances_from(self, sources, targets=None, limit: float | None = None) -> np.ndarray:
        """Distances ``(len(sources), len(targets))`` between points, by the map's ``distance``.

        Euclidean between positions (``distance=None``), shortest paths along the edges
        weighted by their length (``"graph"``), the rows of a precomputed matrix, or what a
        distance callable returns.

        Parameters
        ----------
        sources : array-like of int
            Indices of the points to measure from.
        targets : array-like of int, optional
            Indices of the points to measure to; default every point.
        limit : float, optional
            Graph distances only: paths longer than ``limit`` may be returned as ``inf``
            (the search stops there, which is faster); other distances ignore it.

        Returns
        -------
        numpy.ndarray
            ``(len(sources), len(targets))`` distances, in position units.

        Raises
        ------
        DimensionError
            A distance callable returned another shape than ``(len(sources), n)``.

        Examples
        --------
        >>> from toponeuro.analysis import as_topomap
        >>> as_topomap(np.zeros((4, 4))).distances_from([0], [3, 15]).round(3).tolist()
        [[3.0, 4.243]]
        """
        sources = np.asarray(sources, dtype=int)
        tgt = slice(None) if targets is None else np.asarray(targets, dtype=int)
        dist = self.distance
        if dist is None:
            pos = self.positions
            return cdist(pos[sources], pos[tgt])
        if isinstance(dist, str):  # "graph"
            graph = self._cache.get("graph")
            if graph is None:
                graph = edge_lengths(self._adjacency(), self.positions)
                self._cache["graph"] = graph
            # the edge graph is symmetric (g + g.T): its directed search relaxes each edge
            # once instead of twice, with the same minima, so the same distances
            return csgraph.dijkstra(graph, directed=True, indices=sources,
                                    limit=np.inf if limit is None else float(limit))[:, tgt]
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
                adj = grid_graph(self.grid_shape)
            elif self.kind == "free":
                adj = delaunay_graph(self.positions, self.prune)
            elif self.faces is not None:
                adj = face_graph(self.faces, self.n)
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

