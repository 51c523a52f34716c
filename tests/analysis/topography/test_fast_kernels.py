"""The faster null kernels (issue 46) give exactly what the code before them gave.

Each test holds the old kernel's code inline and compares, on planted maps, bit for bit:
the spin matcher (bounded KD-tree search, all
cores), the surface smoother (geodesic neighbourhoods shared by the maps of one mesh) and the
smoothness profile of a sheet.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import sparse
from scipy.spatial import ConvexHull, cKDTree
from scipy.spatial.transform import Rotation

from toponeuro.analysis import as_topomap
from toponeuro.analysis.topography import _descriptors as desc
from toponeuro.analysis.topography._spin import _MIRROR, _rotated_indices, _units_of


def _sphere(n=642, radius=50.0):
    i = np.arange(n) + 0.5
    phi = np.arccos(1 - 2 * i / n)
    theta = np.pi * (1 + 5**0.5) * i
    pts = radius * np.stack(
        [np.cos(theta) * np.sin(phi), np.sin(theta) * np.sin(phi), np.cos(phi)], 1)
    tri = ConvexHull(pts).simplices
    a = np.concatenate([tri[:, 0], tri[:, 1], tri[:, 2]])
    b = np.concatenate([tri[:, 1], tri[:, 2], tri[:, 0]])
    adj = sparse.coo_matrix((np.ones(a.size), (a, b)), shape=(n, n)).tocsr()
    return pts, ((adj + adj.T) > 0).astype(float)


def _old_rotated_indices(tm, rots):
    """``_rotated_indices`` before issue 46: an unbounded nearest-vertex search."""
    unit, parts = _units_of(tm), tm.hemispheres
    idx = np.empty((len(rots), tm.n), dtype=np.int32)
    for h, part in enumerate(parts):
        tree = cKDTree(unit[part])
        turn = rots if h == 0 else _MIRROR @ rots @ _MIRROR
        q = np.einsum("nk,dkj->dnj", unit[part], turn)
        idx[:, part] = tree.query(q.reshape(-1, 3))[1].reshape(len(rots), -1) + part.start
    return idx


@pytest.mark.parametrize("n", [642, 2562])
def test_spin_indices_match_the_unbounded_search(n):
    pts, _ = _sphere(n)
    tm = as_topomap(np.zeros(n), positions=pts)
    rots = Rotation.random(40, random_state=np.random.default_rng(3)).as_matrix()
    new = _rotated_indices(tm, rots)
    assert np.array_equal(new, _old_rotated_indices(tm, rots))
    # a different set of rotations is a different reassignment (the check can fail)
    other = Rotation.random(40, random_state=np.random.default_rng(4)).as_matrix()
    assert np.mean(_old_rotated_indices(tm, other) == new) < 0.5


def test_spin_indices_tiny_radius_falls_back_to_the_full_search():
    pts, _ = _sphere(500)
    tm = as_topomap(np.zeros(500), positions=pts)
    rots = Rotation.random(10, random_state=np.random.default_rng(0)).as_matrix()
    want = _old_rotated_indices(tm, rots)
    tree = cKDTree(_units_of(tm))
    tm._cache["sphere_trees"] = [(tree, 1e-9)]  # nearly every query misses the radius
    assert np.array_equal(_rotated_indices(tm, rots), want)


def _old_surface_smoother(tm, sigma):
    """``_surface_smoother`` before issue 46 (one shortest-path search per map)."""
    from scipy.sparse import csgraph

    from toponeuro.analysis.topography._places import edge_lengths

    ok = tm.finite
    graph = edge_lengths(tm.neighbours(), tm.positions)
    rows, cols, dists = [], [], []
    for lo in range(0, tm.n, 256):
        src = np.arange(lo, min(tm.n, lo + 256))
        d = csgraph.dijkstra(graph, directed=False, indices=src, limit=3.0 * sigma)
        r, c = np.nonzero(np.isfinite(d))
        rows.append(src[r])
        cols.append(c)
        dists.append(d[r, c])
    r, c, d = (np.concatenate(x) for x in (rows, cols, dists))
    kern = sparse.csr_matrix((np.exp(-0.5 * (d / sigma) ** 2) * ok[c], (r, c)),
                             shape=(tm.n, tm.n))
    den = np.asarray(kern.sum(1)).ravel()
    den = np.where(den > 0, den, np.nan)
    return lambda v: np.where(ok, ((kern @ np.where(ok, v, 0.0).T).T / den), np.nan)


def test_surface_smoother_shared_across_maps_is_the_old_one():
    pts, adj = _sphere(900)
    rng = np.random.default_rng(2)
    draws = rng.standard_normal((7, 900))
    desc._GEODESIC_CACHE.clear()
    for k in range(3):  # three maps on one mesh, each with its own missing points
        vals = rng.standard_normal(900)
        vals[rng.choice(900, 40 * k, replace=False)] = np.nan
        tm = as_topomap(vals, positions=pts, adjacency=adj)
        new = desc._surface_smoother(tm, 6.0)(draws)
        old = _old_surface_smoother(as_topomap(vals, positions=pts, adjacency=adj), 6.0)(draws)
        assert np.array_equal(new, old, equal_nan=True)
    assert len(desc._GEODESIC_CACHE) == 1  # searched once for the three maps
    # another sigma, another neighbourhood
    tm = as_topomap(np.ones(900), positions=pts, adjacency=adj)
    assert not np.array_equal(desc._surface_smoother(tm, 3.0)(draws),
                              _old_surface_smoother(tm, 6.0)(draws))
    assert len(desc._GEODESIC_CACHE) == 2


def _old_sample_profiles(kernel, values):
    """``_SmoothnessKernel.profiles`` of sampled points before issue 46 (column-major pairs)."""
    nb = len(kernel.edges) - 1
    out = np.full((values.shape[0], len(kernel.samples), nb), np.nan)
    for s, (idx, (ii, jj), _, counts) in enumerate(kernel.samples):
        step = max(1, 2_000_000 // ii.size)
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]])[counts > 0]
        nonempty = np.flatnonzero(counts > 0)
        for lo in range(0, values.shape[0], step):
            v = values[lo : lo + step][:, idx].astype(np.float64)
            diff = v[:, ii]
            diff -= v[:, jj]
            np.abs(diff, out=diff)
            fin = np.isfinite(diff)
            if fin.all():
                sums = np.add.reduceat(diff, starts, axis=1, dtype=np.float64)
                cnt = counts[nonempty][None, :]
            else:
                sums = np.add.reduceat(np.where(fin, diff, 0.0), starts, axis=1,
                                       dtype=np.float64)
                cnt = np.add.reduceat(fin.astype(np.float64), starts, axis=1)
            with np.errstate(invalid="ignore", divide="ignore"):
                out[lo : lo + step, s, nonempty] = np.where(
                    cnt > 0, sums / np.where(cnt > 0, cnt, 1), np.nan)
    return out


@pytest.mark.parametrize("offset", [0.0, 1e7])
def test_sampled_smoothness_profiles_are_the_old_ones(offset):
    from toponeuro.analysis.topography._smoothness_kernel import _SmoothnessKernel

    pts, _ = _sphere(3000)
    rng = np.random.default_rng(4)
    planted = np.exp(-((pts[:, 0] - 20) ** 2 + pts[:, 1] ** 2) / 300.0) + offset
    tm = as_topomap(planted + 0.1 * rng.standard_normal(3000), positions=pts)
    kernel = _SmoothnessKernel(tm, tm.finite, 5, 400, 10, None, np.random.default_rng(1))
    draws = tm.values[np.argsort(rng.random((40, 3000)), axis=1)]
    draws[7, :50] = np.nan  # a draw with missing points takes the NaN-aware branch
    draws[9, 3] = np.inf
    new, old = kernel.profiles(draws), _old_sample_profiles(kernel, draws)
    assert np.array_equal(new, old, equal_nan=True)
    assert np.isfinite(new[0]).all() and not np.array_equal(new[0], new[1])


def test_spin_indices_in_chunks_of_rotations_are_the_same(monkeypatch):
    from toponeuro.analysis.topography import _spin

    pts, _ = _sphere(700)
    tm = as_topomap(np.zeros(700), positions=pts)
    rots = Rotation.random(23, random_state=np.random.default_rng(8)).as_matrix()
    monkeypatch.setattr(_spin, "_QUERY_POINTS", 5 * 700)  # 5 rotations per search
    assert np.array_equal(_rotated_indices(tm, rots), _old_rotated_indices(tm, rots))


def test_surface_smoothers_of_one_mesh_share_its_index_arrays():
    pts, adj = _sphere(600)
    desc._GEODESIC_CACHE.clear()
    a = as_topomap(np.arange(600.0), positions=pts, adjacency=adj)
    b = as_topomap(np.where(np.arange(600) < 50, np.nan, 1.0), positions=pts, adjacency=adj)
    desc._surface_smoother(a, 5.0)
    desc._surface_smoother(b, 5.0)
    (base,) = desc._GEODESIC_CACHE.values()
    draws = np.random.default_rng(0).standard_normal((3, 600))
    assert np.array_equal(desc._surface_smoother(b, 5.0)(draws),
                          _old_surface_smoother(b, 5.0)(draws), equal_nan=True)
    assert (base.data > 0).all()  # b's missing points are zeroed in b's copy, not the mesh's


def test_sampled_smoothness_profiles_of_a_sheet_are_the_old_ones():
    """The language job's case: 500 of a 32 x 48 sheet's units per sample, one draw at a time."""
    from scipy.ndimage import gaussian_filter

    from toponeuro.analysis.topography._smoothness_kernel import _SmoothnessKernel

    rng = np.random.default_rng(5)
    tm = as_topomap(gaussian_filter(rng.standard_normal((32, 48)), 2))
    kernel = _SmoothnessKernel(tm, tm.finite, 4, 500, 10, None, np.random.default_rng(2))
    first, length = kernel.runs[0]
    assert np.array_equal(np.repeat(first, length), kernel.samples[0][1][0])
    draws = tm.values[np.argsort(rng.random((25, tm.n)), axis=1)]
    draws[3, 100:140] = np.nan
    new, old = kernel.profiles(draws), _old_sample_profiles(kernel, draws)
    assert np.array_equal(new, old, equal_nan=True)
    assert not np.array_equal(new[0], new[1])


def test_smoothness_profiles_the_observed_map_once(monkeypatch):
    from toponeuro.analysis import smoothness
    from toponeuro.analysis.topography._smoothness_kernel import _SmoothnessKernel

    calls = []
    profiles = _SmoothnessKernel.profiles
    monkeypatch.setattr(_SmoothnessKernel, "profiles",
                        lambda self, v: calls.append(len(v)) or profiles(self, v))
    rng = np.random.default_rng(6)
    tm = as_topomap(rng.standard_normal((40, 40)))
    res = smoothness(tm, n_permutations=9, random_state=0)
    assert calls == [1, 9]  # the observed map, then the draws: not the observed map again
    kernel = _SmoothnessKernel(tm, tm.finite, 20, 500, 10, None, np.random.default_rng(0))
    assert float(res["score"]) == float(kernel(tm.values[None, :])[0])
