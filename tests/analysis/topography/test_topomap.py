"""TopoMap (``analysis/topography/_topomap.py``): the questions every map answers, on maps
whose answers are known by construction."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import sparse

from toponeuro.analysis import TopoMap, as_topomap
from toponeuro.exceptions import CoordinateError, DimensionError, SheetError


def _path_mesh(n: int = 5) -> TopoMap:
    """``n`` vertices on a line at x = 0, 1, 3, 6, 10 ... (gaps 1, 2, 3, ...), edges between
    neighbours: graph distances are the sums of the gaps."""
    x = np.concatenate([[0.0], np.cumsum(np.arange(1, n))])
    pos = np.stack([x, np.zeros(n), np.zeros(n)], axis=1)
    adj = sparse.diags([np.ones(n - 1), np.ones(n - 1)], [1, -1], shape=(n, n)).tocsr()
    return as_topomap(np.arange(n, dtype=float), positions=pos, adjacency=adj,
                      distance="graph")


def test_grid_reshapes_the_map_or_given_values_and_refuses_a_mesh():
    tm = as_topomap(np.arange(20.0).reshape(4, 5))
    assert np.array_equal(tm.grid(), np.arange(20.0).reshape(4, 5))
    assert np.array_equal(tm.grid(-tm.values)[3], -np.arange(15.0, 20.0))
    with pytest.raises(SheetError, match="not a sheet grid"):
        _path_mesh().grid()


def test_distances_from_on_a_sheet_are_euclidean_in_unit_spacings():
    tm = as_topomap(np.zeros((4, 4)))
    d = tm.distances_from([0, 5], [3, 15])
    assert d.shape == (2, 2)
    assert np.allclose(d, [[3.0, np.hypot(3, 3)], [np.hypot(1, 2), np.hypot(2, 2)]])
    assert tm.distances_from([0]).shape == (1, 16)  # targets default to every point


def test_graph_distances_sum_the_edges_and_stop_at_the_limit():
    tm = _path_mesh()  # x = 0, 1, 3, 6, 10
    assert np.allclose(tm.distances_from([0]), [[0.0, 1.0, 3.0, 6.0, 10.0]])
    capped = tm.distances_from([0], limit=4.0)[0]
    assert np.allclose(capped[:3], [0.0, 1.0, 3.0]) and np.isinf(capped[3:]).all()


def test_precomputed_and_callable_distances_are_read_as_given():
    pos = np.random.default_rng(0).random((20, 3))
    mat = np.abs(np.subtract.outer(np.arange(20.0), np.arange(20.0)))
    tm = as_topomap(np.zeros(20), positions=pos, distance=mat)
    assert np.array_equal(tm.distances_from([2], [0, 7]), [[2.0, 5.0]])
    called = as_topomap(np.zeros(20), positions=pos, distance=lambda src: mat[src])
    assert np.array_equal(called.distances_from([4], [1]), [[3.0]])
    wrong = as_topomap(np.zeros(20), positions=pos, distance=lambda src: mat[src][:, :5])
    with pytest.raises(DimensionError, match=r"\(1, 20\)"):
        wrong.distances_from([0])


def test_neighbours_one_rule_per_geometry():
    assert int(as_topomap(np.zeros((4, 5))).neighbours().sum()) // 2 == 4 * 4 + 3 * 5  # rook
    pts = np.array([[x, y] for x in range(4) for y in range(4)], dtype=float)
    free = as_topomap(np.zeros(16), positions=pts, units="mm").neighbours()
    assert free.diagonal().sum() == 0 and (free != free.T).nnz == 0
    assert free[0, 1] == 1 and free[0, 15] == 0  # Delaunay joins neighbours, not far corners
    with pytest.raises(CoordinateError, match="adjacency="):
        as_topomap(np.zeros(20), positions=np.random.default_rng(1).random((20, 3))).neighbours()


def test_point_areas_share_the_area_by_geometry():
    assert np.array_equal(as_topomap(np.zeros((4, 4))).point_areas(), np.ones(16))
    pts = np.array([[x, y] for x in range(4) for y in range(4)], dtype=float)  # a 3 x 3 square
    free = as_topomap(np.zeros(16), positions=pts, units="mm")
    assert np.allclose(free.point_areas(), 9.0 / 16) and free.extent_mm == pytest.approx(3.0)
    tri = np.array([[0.0, 0, 0], [2, 0, 0], [0, 2, 0]])
    mesh = TopoMap(values=np.zeros(3), positions=tri, kind="surface",
                   faces=np.array([[0, 1, 2]]))
    assert np.allclose(mesh.point_areas(), 2.0 / 3)  # a third of the triangle's area 2 each


def test_on_sphere_swaps_in_the_sphere_and_keeps_the_values():
    rng = np.random.default_rng(0)
    pos = rng.standard_normal((20, 3))
    sph = pos / np.linalg.norm(pos, axis=1, keepdims=True)
    tm = as_topomap(np.arange(20.0), positions=pos * 3 + 1, sphere=sph, name="m")
    on = tm.on_sphere()
    assert np.array_equal(on.positions, sph) and np.array_equal(on.values, tm.values)
    assert on.name == "m" and on.sphere is None
    bare = as_topomap(np.zeros(20), positions=pos)
    assert bare.on_sphere() is bare
