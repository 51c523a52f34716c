"""The arithmetic of places: neighbours, areas and extent of a grid, free points or a mesh.

Pure functions on arrays; :class:`~toponeuro.analysis.TopoMap` calls them (its
``neighbours()``, ``point_areas()``, ``extent`` and ``extent_mm``), so each rule is written
once. The rules (also in docs/one_ruler.rst):

neighbours (one rule per geometry)
    grid sheet: rook (the 4 edge neighbours); free 2-D positions: the edges of the Delaunay
    triangulation (``scipy.spatial.Delaunay``), optionally pruned of edges longer than
    ``prune`` x the median edge (the long edges across a concave border); mesh: its edges
    (the ``adjacency`` given, else the edges of its ``faces``).
point areas
    grid: 1 unit spacing^2 per cell; free positions: the convex-hull area of the points with
    data shared equally among them; mesh with faces: one third of the area of each triangle
    given to each of its vertices; mesh without faces: ``sqrt(3) / 2 * l**2`` per vertex with
    ``l`` the median edge length (a regular triangulation's area per vertex).
extent
    ``sqrt`` of the summed area of the points *with data* (so a map's NaN region, e.g. the
    medial wall, does not count): the side of the square of the map's area. Distances and
    areas of the descriptors are divided by it (distance / extent, area / extent^2), which
    puts a 28 x 28 sheet and a cortical hemisphere on one scale.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse
from scipy.spatial import ConvexHull, Delaunay, QhullError

from ...exceptions import CoordinateError

#: area per vertex of a regular triangulation with edge length 1 (two triangles per vertex)
_REGULAR_VERTEX_AREA = np.sqrt(3.0) / 2.0


def _symmetric(a, b, n) -> sparse.csr_matrix:
    m = sparse.coo_matrix((np.ones(a.size), (a, b)), shape=(n, n)).tocsr()
    m = m + m.T
    m.data[:] = 1.0
    return m


def grid_graph(shape: tuple[int, int]) -> sparse.csr_matrix:
    """Binary neighbour graph of an ``h x w`` sheet grid (row-major cells): rook, the 4 edge
    neighbours.

    Examples
    --------
    >>> int(grid_graph((2, 3)).sum()) // 2  # 2 x 2 along the rows, 3 across
    7
    """
    h, w = shape
    idx = np.arange(h * w).reshape(h, w)
    a = np.concatenate([idx[:, :-1].ravel(), idx[:-1, :].ravel()])
    b = np.concatenate([idx[:, 1:].ravel(), idx[1:, :].ravel()])
    m = sparse.coo_matrix((np.ones(a.size), (a, b)), shape=(h * w, h * w)).tocsr()
    return m + m.T


def edge_lengths(adj, positions: np.ndarray) -> sparse.csr_matrix:
    """The neighbour graph ``adj`` weighted by the Euclidean length of each edge (for graph
    distances along a mesh; a zero length is kept as 1e-12, since csgraph drops zeros).

    Examples
    --------
    >>> pos = np.array([[0.0, 0], [3, 4], [3, 0]])
    >>> edge_lengths(face_graph(np.array([[0, 1, 2]]), 3), pos).toarray()[0].tolist()
    [0.0, 5.0, 3.0]
    """
    coo = sparse.triu(adj, k=1).tocoo()
    lengths = np.linalg.norm(positions[coo.row] - positions[coo.col], axis=1)
    lengths = np.maximum(lengths, 1e-12)  # csgraph drops explicit zeros
    g = sparse.coo_matrix((lengths, (coo.row, coo.col)), shape=adj.shape).tocsr()
    return g + g.T


def delaunay_graph(positions: np.ndarray, prune: float | None = None) -> sparse.csr_matrix:
    """Binary neighbour graph of 2-D points: the Delaunay triangulation's edges.

    ``prune``: drop edges longer than ``prune`` x the median edge length (None keeps all).

    Examples
    --------
    >>> pos = np.array([[0.0, 0], [1, 0], [0, 1], [1, 1]])
    >>> int(delaunay_graph(pos).sum()) // 2  # 4 sides and one diagonal
    5
    """
    pos = np.asarray(positions, dtype=float)
    n = pos.shape[0]
    if pos.ndim != 2 or pos.shape[1] != 2 or n < 3:
        raise CoordinateError(
            f"Free unit positions must be (n_units, 2) with at least 3 units; got {pos.shape}. "
            "Give each unit's (x, y) tissue position."
        )
    try:
        tri = Delaunay(pos)
    except QhullError:
        tri = Delaunay(pos, qhull_options="QJ")  # collinear or repeated points: joggled
    s = tri.simplices
    a = np.concatenate([s[:, 0], s[:, 1], s[:, 2]])
    b = np.concatenate([s[:, 1], s[:, 2], s[:, 0]])
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    keep = lo != hi
    pairs = np.unique(np.stack([lo[keep], hi[keep]], 1), axis=0)
    if prune is not None and pairs.size:
        length = np.linalg.norm(pos[pairs[:, 0]] - pos[pairs[:, 1]], axis=1)
        pairs = pairs[length <= float(prune) * np.median(length)]
    return _symmetric(pairs[:, 0], pairs[:, 1], n)


def face_graph(faces: np.ndarray, n: int) -> sparse.csr_matrix:
    """Binary neighbour graph of a triangle mesh: its edges.

    Examples
    --------
    >>> int(face_graph(np.array([[0, 1, 2], [1, 2, 3]]), 4).sum()) // 2
    5
    """
    f = np.asarray(faces, dtype=np.int64)
    a = np.concatenate([f[:, 0], f[:, 1], f[:, 2]])
    b = np.concatenate([f[:, 1], f[:, 2], f[:, 0]])
    return _symmetric(a, b, n)


def vertex_areas(positions: np.ndarray, faces: np.ndarray) -> np.ndarray:
    """Area of each vertex of a triangle mesh: a third of each triangle it belongs to.

    Examples
    --------
    >>> pos = np.array([[0.0, 0, 0], [1, 0, 0], [0, 1, 0]])
    >>> vertex_areas(pos, np.array([[0, 1, 2]])).round(4).tolist()
    [0.1667, 0.1667, 0.1667]
    """
    pos = np.asarray(positions, dtype=float)
    if pos.shape[1] == 2:
        pos = np.pad(pos, ((0, 0), (0, 1)))
    f = np.asarray(faces, dtype=np.int64)
    cross = np.cross(pos[f[:, 1]] - pos[f[:, 0]], pos[f[:, 2]] - pos[f[:, 0]])
    tri_area = 0.5 * np.linalg.norm(cross, axis=1)
    return np.bincount(f.ravel(), weights=np.repeat(tri_area / 3.0, 3), minlength=pos.shape[0])


def graph_vertex_areas(positions: np.ndarray, adjacency) -> np.ndarray:
    """Area per vertex of a mesh known only by its edges: ``sqrt(3)/2 * l**2`` each, ``l`` the
    median edge length (a regular triangulation's area per vertex).

    Examples
    --------
    >>> pos = np.array([[0.0, 0], [2, 0], [0, 2]])
    >>> adj = face_graph(np.array([[0, 1, 2]]), 3)
    >>> graph_vertex_areas(pos, adj).round(3).tolist()
    [3.464, 3.464, 3.464]
    """
    coo = sparse.triu(adjacency, k=1).tocoo()
    if coo.nnz == 0:
        raise CoordinateError("The mesh has no edges, so its area is unknown; pass faces=.")
    lengths = np.linalg.norm(positions[coo.row] - positions[coo.col], axis=1)
    ell = float(np.median(lengths))
    return np.full(positions.shape[0], _REGULAR_VERTEX_AREA * ell**2)


def hull_area(positions: np.ndarray) -> float:
    """Area of the convex hull of 2-D points (0 for fewer than 3 or collinear points).

    Examples
    --------
    >>> hull_area(np.array([[0.0, 0], [2, 0], [0, 3], [2, 3], [1, 1]]))
    6.0
    """
    pos = np.asarray(positions, dtype=float)
    if pos.shape[0] < 3:
        return 0.0
    try:
        return float(ConvexHull(pos).volume)  # in 2-D, "volume" is the area
    except QhullError:
        return 0.0
