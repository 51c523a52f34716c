"""Model vs cortex comparison: arrangements with a known answer."""

from __future__ import annotations

import numpy as np
import pytest

from toponeuro import make_activations
from toponeuro.analysis import (
    arrangement_similarity,
    as_topomap,
    compare_tables,
    find_patches,
    patch_centroid,
    topography_table,
)
from toponeuro.exceptions import InvalidDataError, UnknownNameError

DOMAINS = ["faces", "bodies", "places", "characters", "objects"]
SHEET_CENTRES = np.array([[5.0, 6.0], [8.0, 20.0], [18.0, 27.0], [20.0, 8.0], [13.0, 14.0]])


def _sheet_maps(h=24, w=32):
    rr, cc = np.mgrid[:h, :w]
    maps = {}
    for name, (r, c) in zip(DOMAINS, SHEET_CENTRES):
        grid = 6 * np.exp(-((rr - r) ** 2 + (cc - c) ** 2) / (2 * 3.0**2))
        acts = make_activations({"layer4": grid.reshape(1, -1)})
        maps[name] = acts.isel(stimulus=0, drop=True)  # a per-unit map, like selectivity()
    return maps


def _rotation3d(a, b):
    ca, sa, cb, sb = np.cos(a), np.sin(a), np.cos(b), np.sin(b)
    rz = np.array([[ca, -sa, 0], [sa, ca, 0], [0, 0, 1]])
    rx = np.array([[1, 0, 0], [0, cb, -sb], [0, sb, cb]])
    return rx @ rz


def _cortex(centres_2d, scale=2.5, radius=5.0):
    """A flat cortical patch embedded in 3-D, with binary ROIs at transformed centres."""
    g = np.stack(np.meshgrid(np.arange(-10, 80.0, 1.5), np.arange(-10, 80.0, 1.5)), -1).reshape(
        -1, 2
    )
    rot = _rotation3d(0.6, 0.9)
    pos3 = np.c_[g, np.zeros(len(g))] @ rot.T + np.array([30.0, -60, 10])
    cen3 = np.c_[scale * centres_2d, np.zeros(len(centres_2d))] @ rot.T + np.array([30.0, -60, 10])
    maps = {}
    for name, c in zip(DOMAINS, cen3):
        maps[name] = (np.linalg.norm(pos3 - c, axis=1) <= radius).astype(float)
    geom = {"positions": pos3, "adjacency": 1.51}
    return maps, geom


def _compare(sheet, cortex, geom=None, *, threshold=2.0, n_permutations=0, sample_size=None,
             random_state=0):
    """The model-vs-cortex table the one way: a topography table per side, then compare_tables
    (the ROIs as patches at 0.5, with the model's smoothing and 10-point minimum)."""
    maps = {k: as_topomap(v, **geom) for k, v in cortex.items()} if geom else cortex
    kw = dict(n_permutations=n_permutations, sample_size=sample_size, random_state=random_state)
    model = topography_table({"model": sheet}, threshold=threshold, **kw)
    ctx = topography_table({"cortex": maps}, threshold=0.5, **kw)
    return compare_tables(model, "model", ctx, "cortex")


def test_arrangement_similarity_known_answers():
    rng = np.random.default_rng(0)
    a = rng.uniform(0, 30, size=(5, 2))
    theta = 0.7
    rot = np.array([[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]])
    res = arrangement_similarity(a, 4.0 * a @ rot.T + [3, -2])
    assert res["spearman"] == pytest.approx(1.0)
    assert res["procrustes"] == pytest.approx(0.0, abs=1e-12)
    # 2-D sheet vs 3-D cortex
    a3 = np.c_[a, np.zeros(5)] @ _rotation3d(0.3, 1.1).T
    res = arrangement_similarity(a, 2 * a3)
    assert res["spearman"] == pytest.approx(1.0)
    assert res["procrustes"] == pytest.approx(0.0, abs=1e-12)
    # a scrambled arrangement is worse
    bad = arrangement_similarity(a, rng.uniform(0, 30, size=(5, 2)))
    assert bad["procrustes"] > 0.05 and bad["spearman"] < 0.9
    # mappings are matched by name, NaN regions dropped
    m = arrangement_similarity(
        {"a": [0, 0], "b": [1, 0], "c": [0, 2], "d": [np.nan, 0]},
        {"c": [0, 4], "b": [2, 0], "a": [0, 0], "e": [1, 1]},
    )
    assert m["regions"] == ["a", "b", "c"] and m["procrustes"] == pytest.approx(0.0, abs=1e-12)
    assert np.isnan(arrangement_similarity(a[:2], a[:2])["spearman"])


def test_the_tables_recover_a_rotated_scaled_cortex():
    sheet = _sheet_maps()
    cortex, geom = _cortex(SHEET_CENTRES)
    table = _compare(sheet, cortex, geom, threshold=3.0, sample_size=250)
    vs = table["model_vs_cortex"]
    assert vs[("arrangement_spearman", "centroids")] == pytest.approx(1.0)
    assert vs[("arrangement_procrustes", "centroids")] < 1e-3
    assert vs[("arrangement_n_regions", "centroids")] == 5
    for d in DOMAINS:
        assert table.loc[("n_patches", d), "model"] == 1
        assert table.loc[("n_patches", d), "cortex"] == 1
        assert 0 < table.loc[("mean_patch_fraction", d), "model"] < 0.1
        assert table.loc[("smoothness", d), "model"] > 0.5
        assert table.loc[("smoothness", d), "cortex"] > 0.1
    assert ("map_similarity", "faces-bodies") in table.index
    assert table.attrs["arrangement_regions"] == DOMAINS
    np.testing.assert_allclose(table.attrs["model_centroids"]["faces"], SHEET_CENTRES[0], atol=0.01)
    # the same cortex with its ROI labels swapped around no longer matches
    shuffled = dict(
        zip(DOMAINS, [cortex[d] for d in ["places", "faces", "objects", "bodies", "characters"]])
    )
    worse = _compare(sheet, shuffled, geom, sample_size=100)["model_vs_cortex"]
    assert worse[("arrangement_procrustes", "centroids")] > 0.05


def test_patch_centroid_modes():
    rr, cc = np.mgrid[:20, :30]
    big = np.exp(-((rr - 5) ** 2 + (cc - 5) ** 2) / 18.0)
    small = np.exp(-((rr - 15) ** 2 + (cc - 25) ** 2) / 4.0)
    raw = dict(smooth_sigma=0.0, min_units=4, min_fraction=0.0, n_permutations=0)
    p = find_patches(big + small, threshold=0.5, **raw)
    np.testing.assert_allclose(patch_centroid(p, "largest"), [5, 5], atol=1e-9)
    allc = patch_centroid(p, "all")
    assert 5 < allc[0] < 15 and 5 < allc[1] < 25
    assert np.isnan(patch_centroid(find_patches(big, threshold=9.0, **raw))).all()
    with pytest.raises(UnknownNameError, match="largest"):
        patch_centroid(p, "biggest")


def test_compare_bad_inputs():
    sheet = _sheet_maps()
    model = topography_table({"model": sheet}, n_permutations=0, random_state=0)
    cortex = topography_table({"cortex": {"FFA": np.r_[np.zeros(40), np.ones(24)].reshape(8, 8)}},
                              threshold=0.5, min_units=3, n_permutations=0, random_state=0)
    none_shared = compare_tables(model, "model", cortex, "cortex")
    assert none_shared.loc[("arrangement_n_regions", "centroids"), "model_vs_cortex"] == 0
    with pytest.raises(UnknownNameError, match="No sheet"):
        compare_tables(model, "layer9", cortex, "cortex")
    with pytest.raises(InvalidDataError, match="same n_regions"):
        arrangement_similarity(np.zeros((3, 2)), np.zeros((4, 2)))
    tm = as_topomap(np.zeros(20), positions=np.random.default_rng(0).random((20, 3)))
    assert tm.kind == "surface"


def test_the_comparison_carries_each_sides_null():
    sheet = _sheet_maps()
    table = _compare(sheet, sheet, n_permutations=99)
    for d in DOMAINS:
        assert table.loc[("smoothness_p", d), "model"] == pytest.approx(0.01)
        assert table.loc[("n_significant_patches", d), "model"] == 1
    # faces and bodies sit apart: their similarity is not beyond chance
    assert table.loc[("map_similarity_p", "faces-bodies"), "model"] > 0.05
    bare = _compare(sheet, sheet)
    assert np.isnan(bare.loc[("smoothness_p", "faces"), "model"])


def test_compare_on_a_flat_cortex_keeps_pearson_without_a_spin_null():
    sheet = _sheet_maps()
    cortex, geom = _cortex(SHEET_CENTRES)
    geom2 = {"positions": geom["positions"][:, :2], "adjacency": geom["adjacency"]}
    maps = {k: as_topomap(v, **geom2) for k, v in cortex.items()}
    flat = topography_table({"cortex": maps}, threshold=0.5, n_permutations=19, sample_size=100,
                            random_state=0).similarity.set_index("pair")
    assert np.isfinite(flat.loc["faces-bodies", "value"])
    assert np.isnan(flat.loc["faces-bodies", "p_value"])  # no sphere, so no spin test
    table = _compare(sheet, sheet, n_permutations=19, sample_size=100)
    assert table.loc[("map_similarity_p", "faces-bodies"), "model"] > 0
