"""Moran's I: parity with PySAL's esda.Moran, planted truths, and its null's calibration."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.ndimage import gaussian_filter

from toponeuro import exceptions as E
from toponeuro.analysis import as_topomap, moran_weights, morans_i, spatial_null


def _smooth(shape, sigma, seed):
    rng = np.random.default_rng(seed)
    return gaussian_filter(rng.standard_normal(shape), sigma, mode="wrap")


@pytest.mark.parametrize("rook", [True, False])
@pytest.mark.parametrize("transform", ["r", "b"])
def test_morans_i_matches_esda(rook, transform):
    esda = pytest.importorskip("esda")
    lat2W = pytest.importorskip("libpysal.weights").lat2W
    h, w = 9, 13
    x = _smooth((h, w), 1.5, 0) + 0.3 * np.random.default_rng(1).standard_normal((h, w))
    wts = lat2W(h, w, rook=rook)
    ref = esda.Moran(x.ravel(), wts, transformation=transform, permutations=0)
    got = morans_i(x, weights="rook" if rook else "queen", transform=transform,
                   n_permutations=0)
    assert got.statistic == pytest.approx(ref.I, rel=1e-12)
    assert got.attrs["expected"] == pytest.approx(ref.EI, rel=1e-12)
    # the weights themselves: libpysal's lat2W ids are row-major, like a sheet's units
    ours = moran_weights(as_topomap(x), "rook" if rook else "queen", transform).toarray()
    wts.transform = transform
    assert np.allclose(ours, wts.full()[0])


def test_morans_i_on_a_mesh_matches_esda_with_the_same_graph():
    esda = pytest.importorskip("esda")
    W = pytest.importorskip("libpysal.weights").W
    rng = np.random.default_rng(3)
    pos = rng.random((200, 2)) * 10
    vals = np.sin(pos[:, 0]) + 0.2 * rng.standard_normal(200)
    tm = as_topomap(vals, positions=pos, adjacency=1.5)
    adj = tm._adjacency().tocoo()
    neigh = {i: [] for i in range(200)}
    for a, b in zip(adj.row, adj.col):
        neigh[int(a)].append(int(b))
    ref = esda.Moran(vals, W(neigh, silence_warnings=True), permutations=0)
    got = morans_i(vals, weights="graph", n_permutations=0,
                   geometry={"positions": pos, "adjacency": 1.5})
    assert got.statistic == pytest.approx(ref.I, rel=1e-12)


def test_planted_clustered_map_is_clustered_and_its_shuffle_is_not():
    clustered = _smooth((24, 24), 2.5, 0)
    shuffled = np.random.default_rng(1).permutation(clustered.ravel()).reshape(24, 24)
    a = morans_i(clustered, n_permutations=199, random_state=0)
    b = morans_i(shuffled, n_permutations=199, random_state=0)
    assert a.statistic > 0.8 and a.p_value == pytest.approx(1 / 200)
    assert abs(b.statistic - b.attrs["expected"]) < 0.1 and b.p_value > 0.05
    # a checkerboard is anti-correlated: I near -1, never called clustered
    check = np.indices((16, 16)).sum(0) % 2 * 2.0 - 1
    c = morans_i(check, n_permutations=99, random_state=0)
    assert c.statistic == pytest.approx(-1.0) and c.p_value == pytest.approx(1.0)


def test_morans_i_is_the_spatial_null_statistic_and_skips_missing_units():
    x = _smooth((16, 16), 2.0, 2)
    direct = morans_i(x, n_permutations=50, random_state=4)
    via = spatial_null("morans_i", x, n_permutations=50, random_state=4)
    assert via.statistic == direct.statistic and np.array_equal(via.null, direct.null)
    holes = x.copy()
    holes[0, :5] = np.nan
    r = morans_i(holes, n_permutations=0)
    assert np.isfinite(r.statistic) and r.attrs["n_points"] == 16 * 16 - 5


def test_morans_i_null_is_calibrated_on_unstructured_maps():
    # independent white-noise maps: p <= 0.05 about 5% of the time (binomial 95% band)
    ps = np.array([morans_i(np.random.default_rng(s).standard_normal((16, 16)),
                            n_permutations=99, random_state=s).p_value for s in range(200)])
    assert 0.015 <= np.mean(ps <= 0.05) <= 0.09


def test_morans_i_bad_input_is_typed():
    x = _smooth((8, 8), 1.0, 0)
    with pytest.raises(E.UnknownNameError, match="rook"):
        morans_i(x, weights="rok")
    with pytest.raises(E.UnknownNameError, match="transform"):
        morans_i(x, transform="x")
    with pytest.raises(E.InvalidDataError, match="graph"):
        morans_i(np.zeros(30), weights="rook", geometry={"positions": np.random.rand(30, 2),
                                                         "adjacency": 0.3})


# --------------------------------------------------------------- clustering of the positive units
def test_sign_clustering_is_morans_i_of_the_positive_indicator_as_esda():
    esda = pytest.importorskip("esda")
    lat2W = pytest.importorskip("libpysal.weights").lat2W
    h, w = 9, 13
    x = _smooth((h, w), 1.5, 0) + 0.3 * np.random.default_rng(1).standard_normal((h, w))
    for transform in ("r", "b"):
        ref = esda.Moran((x > 0).ravel().astype(float), lat2W(h, w), transformation=transform,
                         permutations=0)
        got = spatial_null("sign_clustering", x, transform=transform, n_permutations=0)
        assert got.statistic == pytest.approx(ref.I, rel=1e-12)
        assert got.attrs["method"] == "sign_clustering"
        assert got.attrs["fraction_positive"] == pytest.approx(np.mean(x > 0))


def test_sign_clustering_planted_truths():
    rr, cc = np.mgrid[:16, :16]
    # co-located positives (one blob) are clustered, at any fraction
    for radius in (3, 6):
        blob = np.where((rr - 7) ** 2 + (cc - 8) ** 2 <= radius**2, 1.0, -1.0)
        r = spatial_null("sign_clustering", blob, n_permutations=199, random_state=0)
        assert r.statistic > 0.6 and r.p_value == pytest.approx(1 / 200)
    # the same positives scattered: I near its expectation (how often p <= 0.05 is the
    # calibration test's); a checkerboard of signs: I = -1, never clustered
    scattered = np.random.default_rng(2).permutation(blob.ravel()).reshape(16, 16)
    s = spatial_null("sign_clustering", scattered, n_permutations=0)
    assert abs(s.statistic - s.attrs["expected"]) < 0.15
    check = np.indices((16, 16)).sum(0) % 2 * 2.0 - 1
    c = spatial_null("sign_clustering", check, n_permutations=99, random_state=0)
    assert c.statistic == pytest.approx(-1.0) and c.p_value == pytest.approx(1.0)
    # only the sign counts: a monotone transform of the positive values changes nothing
    x = _smooth((16, 16), 2.0, 5)
    a = spatial_null("sign_clustering", x, n_permutations=50, random_state=1)
    b = spatial_null("sign_clustering", np.where(x > 0, x**3 + 5, x), n_permutations=50,
                     random_state=1)
    assert a.statistic == b.statistic and np.array_equal(a.null, b.null)


def test_sign_clustering_null_is_calibrated_on_scattered_signs():
    # independent signs at fractions 10-90 %: p <= 0.05 about 5 % of the time
    ps = []
    for s in range(200):
        rng = np.random.default_rng(s)
        x = rng.random((16, 16)) - rng.uniform(0.1, 0.9)
        ps.append(spatial_null("sign_clustering", x, n_permutations=99, random_state=s).p_value)
    assert 0.015 <= np.mean(np.array(ps) <= 0.05) <= 0.09


def test_sign_clustering_of_one_sign_is_undefined_with_a_warning():
    with pytest.warns(E.ToponeuroWarning, match="every point .* positive"):
        r = spatial_null("sign_clustering", np.ones((8, 8)), n_permutations=19, random_state=0)
    assert np.isnan(r.statistic) and np.isnan(r.p_value)


def test_morans_i_of_a_constant_map_is_nan_with_a_warning():
    """A constant map (dead units everywhere but finite) has no Moran's I: NaN, said with an
    UndefinedValueWarning (it came with only the null's RuntimeWarning)."""
    with pytest.warns(E.UndefinedValueWarning, match="constant"):
        res = morans_i(np.zeros((8, 8)), n_permutations=19, random_state=0)
    assert np.isnan(res.statistic) and np.isnan(res.p_value)
