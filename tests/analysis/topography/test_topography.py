"""Topography metrics: planted blobs, smoothed noise, shuffled sheets, meshes."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr
from scipy import sparse
from scipy.ndimage import gaussian_filter
from scipy.spatial import ConvexHull

from toponeuro import make_activations
from toponeuro.analysis import (
    as_topomap,
    correlation_profile,
    find_patches,
    map_similarity,
    smoothness,
)
from toponeuro.exceptions import (
    CoordinateError,
    DimensionError,
    InputTypeError,
    SheetError,
    UnknownNameError,
)

H, W = 24, 32
#: find_patches as in 0.1.0: no smoothing, no area limits, no null
RAW = dict(smooth_sigma=0.0, min_fraction=0.0, max_fraction=1.0, n_permutations=0)


def _blobs(centres, sigma=2.0, shape=(H, W)):
    rr, cc = np.mgrid[: shape[0], : shape[1]]
    out = np.zeros(shape)
    for r, c in centres:
        out += np.exp(-((rr - r) ** 2 + (cc - c) ** 2) / (2 * sigma**2))
    return out


def _unit_map(grid, layer="fc"):
    """A per-unit DataArray (like a selectivity map) whose sheet is ``grid``."""
    acts = make_activations({layer: grid.reshape(1, -1)})
    return acts.isel(stimulus=0, drop=True).rename("sel")


def _sphere(n=642, radius=50.0):
    i = np.arange(n) + 0.5
    phi = np.arccos(1 - 2 * i / n)
    theta = np.pi * (1 + 5**0.5) * i
    pts = radius * np.stack(
        [np.cos(theta) * np.sin(phi), np.sin(theta) * np.sin(phi), np.cos(phi)], 1
    )
    tri = ConvexHull(pts).simplices
    a = np.concatenate([tri[:, 0], tri[:, 1], tri[:, 2]])
    b = np.concatenate([tri[:, 1], tri[:, 2], tri[:, 0]])
    adj = sparse.coo_matrix((np.ones(a.size), (a, b)), shape=(n, n)).tocsr()
    adj = ((adj + adj.T) > 0).astype(float)
    return pts, adj


def test_planted_blobs_found_with_right_centroids():
    centres = [(6.0, 8.0), (16.0, 24.0), (5.0, 26.0)]
    grid = _blobs(centres) + 0.05 * np.random.default_rng(0).standard_normal((H, W))
    for data in (grid, _unit_map(grid), _unit_map(grid).topo.map("fc")):
        p = find_patches(data, threshold=0.5, min_units=4, **{**RAW, "smooth_sigma": 0.5})
        assert p.n_patches == 3
        got = sorted(map(tuple, p.centroids.round(0).tolist()))
        assert got == sorted(centres)
        assert p.label_grid().shape == (H, W)
        assert (p.table["fraction"] < 0.1).all()
        # the peak of each patch sits at its planted centre
        for _, row in p.table.iterrows():
            r, c = divmod(int(row["peak_index"]), W)
            assert (r, c) in {(int(a), int(b)) for a, b in centres}


def test_min_units_and_threshold_filter_patches():
    grid = _blobs([(6, 8)], sigma=2.0) + 0.3 * _blobs([(18, 24)], sigma=0.6)
    assert find_patches(grid, threshold=0.2, min_units=1, **RAW).n_patches == 2
    assert find_patches(grid, threshold=0.2, min_units=5, **RAW).n_patches == 1
    assert find_patches(grid, threshold=2.0, **RAW).n_patches == 0
    # the 1.2 % second blob is under TDANN's smallest patch (100 of 4,900 mm^2)
    assert find_patches(grid, threshold=0.2, min_units=1, smooth_sigma=0.0,
                        n_permutations=0).n_patches == 1


def test_smoothness_ranks_kernel_width_and_shuffle_kills_it():
    rng = np.random.default_rng(1)
    noise = rng.standard_normal((H, W))
    scores = [
        float(smoothness(gaussian_filter(noise, s), random_state=0)["score"]) for s in (0.5, 2, 4)
    ]
    assert scores[0] < scores[1] < scores[2]
    assert scores[2] > 0.5
    smooth = gaussian_filter(noise, 4).ravel()
    shuffled = rng.permutation(smooth).reshape(H, W)
    assert abs(float(smoothness(shuffled, random_state=0)["score"])) < 0.1
    res = smoothness(_unit_map(gaussian_filter(noise, 4)), sample_size=200, random_state=0)
    assert res["profiles"].shape[0] == 20 and res["profile"].dims == ("distance",)
    prof = res["profile"].values
    assert prof[0] < prof[-1]  # neighbours differ less than distant units


def test_shuffling_unit_positions_of_a_unit_map_drives_smoothness_to_zero():
    rng = np.random.default_rng(6)
    um = _unit_map(gaussian_filter(rng.standard_normal((H, W)), 3))
    perm = rng.permutation(um.sizes["unit"])
    shuffled = um.assign_coords(
        row=("unit", um["row"].values[perm]), col=("unit", um["col"].values[perm])
    )
    assert float(smoothness(um, random_state=0)["score"]) > 0.6
    assert abs(float(smoothness(shuffled, random_state=0)["score"])) < 0.1


def test_smoothness_is_seeded():
    g = gaussian_filter(np.random.default_rng(2).standard_normal((H, W)), 2)
    a = smoothness(g, sample_size=100, random_state=3)
    b = smoothness(g, sample_size=100, random_state=3)
    xr.testing.assert_identical(a, b)


def test_correlation_profile_falls_with_distance_on_smooth_sheet():
    rng = np.random.default_rng(4)
    maps = np.stack([gaussian_filter(rng.standard_normal((16, 16)), 2) for _ in range(40)])
    acts = make_activations({"a": maps.reshape(40, -1), "b": rng.standard_normal((40, 256))})
    prof = correlation_profile(acts, layer="a", random_state=0)["profile"].values
    assert prof[0] > 0.5 and prof[0] > prof[-1] + 0.3
    flat = correlation_profile(acts, layer="b", random_state=0)["profile"].values
    assert np.abs(flat).max() < 0.15
    with pytest.raises(CoordinateError, match="layer="):
        correlation_profile(acts)


def test_mesh_maps_patches_graph_distance_and_smoothness():
    pts, adj = _sphere()
    north = np.array([0, 0, 50.0])
    east = np.array([50.0, 0, 0])
    d_n = np.linalg.norm(pts - north, axis=1)
    d_e = np.linalg.norm(pts - east, axis=1)
    values = np.exp(-(d_n**2) / (2 * 8.0**2)) + np.exp(-(d_e**2) / (2 * 8.0**2))
    mesh = {"positions": pts, "adjacency": adj}
    p = find_patches(values, threshold=0.5, min_units=4, **RAW, geometry=mesh)
    assert p.n_patches == 2
    cen = p.centroids
    for target in (north, east):
        direction = cen[np.argmin(np.linalg.norm(cen - target, axis=1))]
        cosang = direction @ target / np.linalg.norm(direction) / 50.0
        assert cosang > 0.99
    # a radius graph works as well as the mesh edges
    assert find_patches(values, 0.5, 4, **RAW, geometry={"positions": pts, "adjacency": 8.0}).n_patches == 2
    # graph distance: along the surface, close to the great-circle distance, above the chord
    tm = as_topomap(values, positions=pts, adjacency=adj, distance="graph")
    i, j = int(np.argmin(d_n)), int(np.argmin(d_e))
    g = tm.distances_from([i], [j])[0, 0]
    arc = 50.0 * np.arccos(np.clip(pts[i] @ pts[j] / 2500.0, -1, 1))
    assert np.linalg.norm(pts[i] - pts[j]) < g < 1.2 * arc
    # precomputed matrix and callable give the Euclidean default's numbers
    full = np.linalg.norm(pts[:, None] - pts[None], axis=-1)
    s0, s1, s2 = (
        smoothness(values, geometry=geo, sample_size=200, random_state=0)
        for geo in ({"positions": pts}, {"positions": pts, "distance": full},
                    {"positions": pts, "distance": lambda src: full[src]})
    )
    assert float(s0["score"]) == pytest.approx(float(s1["score"]))
    assert float(s0["score"]) == pytest.approx(float(s2["score"]))
    assert float(s0["score"]) > 0.3
    sm = find_patches(values, 0.5, 4, smooth_sigma=3.0, n_permutations=0, geometry=mesh)
    assert sm.n_patches == 2


def test_map_similarity():
    rng = np.random.default_rng(5)
    a = gaussian_filter(rng.standard_normal((H, W)), 2)
    b = gaussian_filter(rng.standard_normal((H, W)), 2)
    for method in ("pearson", "ssim"):
        assert float(map_similarity(a, a, method)) == pytest.approx(1.0)
        mixed = a + b
        assert map_similarity(a, mixed, method) > map_similarity(b, -mixed, method)
    assert float(map_similarity(a, -a, "pearson")) == pytest.approx(-1.0)
    # each map is rescaled to [0, 1] first, so a map and its negative score below 0 wherever
    # they sit (on the raw zero-centred maps the two negative terms would multiply to > 0)
    assert float(map_similarity(a, -a)) < -0.8
    assert float(map_similarity(a + 5, 5 - a)) == pytest.approx(float(map_similarity(a, -a)))
    ua, ub = _unit_map(a), _unit_map(2 * a + 1)
    assert float(map_similarity(ua, ub, "pearson")) == pytest.approx(1.0)
    assert float(map_similarity(ua, np.exp(ub), method="spearman")) == pytest.approx(1.0)
    # the rescaling makes SSIM invariant to a positive affine change of either map; a given
    # data_range compares the maps as they are (means and contrasts too)
    assert float(map_similarity(ua, ub)) == pytest.approx(1.0)
    assert float(map_similarity(ua, ub, data_range=3.0)) < 0.9


def test_bad_inputs_raise_with_fix():
    with pytest.raises(DimensionError, match="same units"):
        map_similarity(np.zeros((4, 5)), np.zeros((5, 4)))
    with pytest.raises(SheetError, match="at least 16 units"):
        smoothness(_unit_map(np.zeros((2, 3))))
    with pytest.raises(SheetError, match="1 x n strip"):
        smoothness(make_activations({"p": 17}, n_stimuli=1, random_state=0).isel(stimulus=0))
    with pytest.raises(DimensionError, match="10,242 vertices per hemisphere"):
        as_topomap(np.zeros(10000), positions=np.zeros((10000, 3)), mesh="fsaverage5")
    with pytest.raises(DimensionError, match="pass mesh='fsaverage4'"):
        as_topomap(np.zeros(2562), positions=np.zeros((2562, 3)), mesh="fsaverage5")
    with pytest.raises(UnknownNameError, match="fsaverage5"):
        as_topomap(np.zeros(20), positions=np.zeros((20, 3)), mesh="fsaverage55")
    with pytest.raises(CoordinateError, match="positions="):
        smoothness(np.zeros(30))
    with pytest.raises(DimensionError, match="positions must be"):
        smoothness(np.zeros(30), geometry={"positions": np.zeros((29, 3))})
    with pytest.raises(CoordinateError, match="adjacency="):
        find_patches(np.ones(30), 0.5, geometry={"positions": np.random.default_rng(0).random((30, 3))})
    two = make_activations({"a": 16, "b": 16}, n_stimuli=2, random_state=0)
    with pytest.raises(CoordinateError, match="layer="):
        smoothness(two.isel(stimulus=0))
    with pytest.raises(DimensionError, match=r"\.sel\(stimulus"):
        smoothness(two)
    with pytest.raises(UnknownNameError, match="did you mean 'a'"):
        smoothness(two.isel(stimulus=0), layer="aa")


def test_geometry_is_one_mapping():
    from toponeuro.analysis import GEOMETRY_KEYS, spatial_null

    pts = np.random.default_rng(0).random((40, 3))
    vals = pts[:, 0] * 3
    new = smoothness(vals, geometry={"positions": pts}, random_state=0)
    assert np.isfinite(float(new["score"]))
    p_new = find_patches(vals, 1.0, geometry={"positions": pts, "adjacency": 0.5}, n_permutations=0)
    assert p_new.n_patches >= 0
    assert set(GEOMETRY_KEYS) == {"positions", "distance", "adjacency", "mesh", "faces",
                                  "sphere", "units", "mm_per_unit", "prune"}
    with pytest.raises(UnknownNameError, match="did you mean 'positions'"):
        smoothness(vals, geometry={"position": pts})
    with pytest.raises(InputTypeError, match="geometry must be a mapping"):
        map_similarity(vals, vals, "pearson", geometry=pts)
    with pytest.raises(TypeError, match="mesh"):  # 0.1's separate keywords: removed in 0.3.0
        spatial_null("smoothness", vals, geometry={"positions": pts}, mesh="fsaverage5")


def test_patches_of_a_map_without_values_are_refused_not_zero():
    """An all-NaN map (a layer whose units never respond) has no patches to find: 0 patches
    (and n_patches p = 1 under the null) claimed a finding; it is an InvalidDataError."""
    from toponeuro.analysis import spatial_null
    from toponeuro.exceptions import InvalidDataError

    empty = np.full((8, 8), np.nan)
    with pytest.raises(InvalidDataError, match="0 of 64 points"):
        find_patches(empty, n_permutations=0)
    with pytest.raises(InvalidDataError, match="0 of 64 points"):
        spatial_null("n_patches", empty, n_permutations=19, random_state=0)


def test_ssim_with_dead_units_in_every_window_is_nan_with_a_warning():
    """Dead units (NaN t) in every 7 x 7 window leave SSIM undefined: NaN with an
    UndefinedValueWarning naming the fix, and no null run (it was a bare NaN)."""
    from toponeuro.exceptions import UndefinedValueWarning

    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(2, 8, 8))
    a[:2, :] = b[:2, :] = np.nan  # rows 0-1 dead: every 7 x 7 window holds one
    with pytest.warns(UndefinedValueWarning, match="no such window.*pearson"):
        res = map_similarity(a, b, n_permutations=19, random_state=0)
    assert np.isnan(res.statistic) and np.isnan(res.p_value)
    assert res.attrs["n_permutations"] == 0
    r = map_similarity(a, b, "pearson", n_permutations=19, random_state=0)  # still defined
    assert np.isfinite(r.statistic)
