"""The spatial null: SSIM parity, calibration on noise, planted structure, patches, spin test."""

from __future__ import annotations

import numpy as np
import pytest
from _planted import blob, skimage_metrics
from scipy.ndimage import gaussian_filter
from scipy.spatial import ConvexHull

from toponeuro.analysis import (
    NullResult,
    find_patches,
    map_similarity,
    null_p_value,
    smoothness,
    spatial_null,
)
from toponeuro.exceptions import DimensionError, InvalidDataError, UnknownNameError


@pytest.mark.parametrize("shape", [(24, 32), (16, 16), (9, 40)])
@pytest.mark.parametrize("win", [3, 7])
def test_ssim_equals_scikit_image(shape, win):
    rng = np.random.default_rng(sum(shape) + win)
    pairs = [
        (rng.standard_normal(shape), rng.standard_normal(shape)),
        (blob(shape, (4, 5), 2.0), blob(shape, (5, 6), 2.5) + 0.1 * rng.random(shape)),
        (gaussian_filter(rng.standard_normal(shape), 2), 3 * rng.random(shape) - 1),
    ]
    def unit(x):
        return (x - x.min()) / (x.max() - x.min())

    for a, b in pairs:
        # default: each map rescaled to [0, 1], data_range 1
        ref = skimage_metrics.structural_similarity(unit(a), unit(b), win_size=win,
                                                    data_range=1.0)
        got = map_similarity(a, b, win_size=win, n_permutations=0)
        assert float(got) == pytest.approx(ref, abs=1e-6)
        assert got.attrs["data_range"] == 1.0
        # a given data_range: the maps as they are
        ref2 = skimage_metrics.structural_similarity(a, b, win_size=win, data_range=10.0)
        assert float(map_similarity(a, b, win_size=win, data_range=10.0, n_permutations=0)) == (
            pytest.approx(ref2, abs=1e-6)
        )
    # the default window is scikit-image's 7 where it fits
    assert map_similarity(a, b, n_permutations=0).attrs["win_size"] == 7


def test_pearson_null_is_constant_under_positions_null():
    """A position-free statistic: shuffling positions alike never changes it, p = 1."""
    rng = np.random.default_rng(0)
    a = gaussian_filter(rng.standard_normal((16, 20)), 2)
    b = a + 0.5 * rng.standard_normal(a.shape)
    res = map_similarity(a, b, "pearson", null="positions", n_permutations=199, random_state=0)
    assert np.ptp(res.null) < 1e-12 and res.null[0] == pytest.approx(res.statistic)
    assert res.p_value == 1.0 and np.isnan(res.z)
    # the shift null (the default for two maps) does see where the values sit
    shift = map_similarity(a, b, "pearson", n_permutations=199, random_state=0)
    assert shift.p_value <= 0.05 and shift.null.std() > 0.05


def _fraction_significant(pvalues):
    return float(np.mean(np.asarray(pvalues) < 0.05))


def test_smoothness_null_is_calibrated_on_white_noise():
    rng = np.random.default_rng(1)
    ps = [
        float(smoothness(rng.standard_normal((8, 12)), n_permutations=199,
                         random_state=i)["p_value"])
        for i in range(100)
    ]
    assert 0.02 <= _fraction_significant(ps) <= 0.10


@pytest.mark.parametrize("sigma", [0.0, 2.0])
def test_ssim_shift_null_is_calibrated_on_independent_maps(sigma):
    rng = np.random.default_rng(2 + int(sigma))

    def draw():
        x = rng.standard_normal((20, 20))
        return gaussian_filter(x, sigma, mode="wrap") if sigma else x

    # periodic maps: the torus null is exact for them
    ps = [map_similarity(draw(), draw(), null="torus", n_permutations=199,
                         random_state=i).p_value for i in range(100)]
    assert 0.01 <= float(np.mean(np.asarray(ps) <= 0.05)) <= 0.10


def test_planted_co_located_blobs_are_significant_and_displaced_ones_are_not():
    rng = np.random.default_rng(3)
    shape = (24, 24)
    a = blob(shape, (8, 9), 3.0) + 0.2 * rng.standard_normal(shape)
    b = blob(shape, (8, 9), 3.0) + 0.2 * rng.standard_normal(shape)
    for method in ("ssim", "pearson"):
        res = map_similarity(a, b, method, n_permutations=499, random_state=0)
        assert res.p_value < 0.01, method
        assert res.attrs["null"] == "mirror" and res.n_permutations == 499
    far = blob(shape, (19, 19), 3.0) + 0.2 * rng.standard_normal(shape)
    res = map_similarity(a, far, n_permutations=499, random_state=0)
    assert res.statistic < res.null_mean  # displaced: not more alike than chance


def test_smoothness_reports_its_null():
    rng = np.random.default_rng(4)
    smooth = gaussian_filter(rng.standard_normal((16, 16)), 2)
    res = smoothness(smooth, n_permutations=199, random_state=0)
    assert float(res["p_value"]) == pytest.approx(1 / 200)
    assert float(res["null_mean"]) < 0.2 < float(res["score"])
    assert res["null"].dims == ("permutation",) and res["null"].size == 199
    assert res.attrs["method"] == "tdann" and "TDANN" in res.attrs["reference"]
    assert "not implemented" in res.attrs["toponets_definition"]
    bare = smoothness(smooth, random_state=0)
    assert np.isnan(float(bare["p_value"])) and bare.attrs["null"] == "none"
    # spatial_null("smoothness") is the same statistic
    sn = spatial_null("smoothness", smooth, n_permutations=0, random_state=0)
    assert sn.statistic == pytest.approx(float(bare["score"]))
    with pytest.raises(UnknownNameError, match="not implemented"):
        smoothness(smooth, method="toponets")


def test_white_noise_t_maps_rarely_give_a_significant_patch():
    rng = np.random.default_rng(5)
    hits = 0
    for i in range(100):
        p = find_patches(1.5 * rng.standard_normal((20, 20)), smooth_sigma=1.0, threshold=1.0,
                         min_units=4, n_permutations=199, random_state=i)
        hits += p.significant.n_patches > 0
    assert hits <= 10


def test_planted_blob_found_once_at_its_centroid_and_significant():
    rng = np.random.default_rng(6)
    shape = (32, 32)
    t = 6 * blob(shape, (11, 20), 2.5) + rng.standard_normal(shape)
    p = find_patches(t, n_permutations=199, random_state=0)
    assert p.n_patches == 1
    assert np.allclose(p.centroids[0], [11, 20], atol=0.75)
    assert p.table["p_value"][0] == pytest.approx(1 / 200)
    sig = p.significant
    assert sig.n_patches == 1 and (sig.labels > 0).sum() == p.table["n_units"][0]
    assert p.attrs["method"] == "tdann" and p.attrs["smooth_sigma"] == pytest.approx(
        2.4 / 70 * 32
    )
    with pytest.raises(InvalidDataError, match="n_permutations"):
        _ = find_patches(t, n_permutations=0).significant
    # the shuffled map has no significant patch
    shuffled = rng.permutation(t.ravel()).reshape(shape)
    assert find_patches(shuffled, n_permutations=199, random_state=0).significant.n_patches == 0


def _sphere(n=400):
    i = np.arange(n) + 0.5
    phi = np.arccos(1 - 2 * i / n)
    theta = np.pi * (1 + 5**0.5) * i
    return np.stack([np.cos(theta) * np.sin(phi), np.sin(theta) * np.sin(phi), np.cos(phi)], 1)


def test_spin_test_on_a_sphere():
    pts = 50 * _sphere()
    assert len(ConvexHull(pts).simplices) > 0
    north = np.exp(-np.linalg.norm(pts - [0, 0, 50], axis=1) ** 2 / 400)
    south = np.exp(-np.linalg.norm(pts - [0, 0, -50], axis=1) ** 2 / 400)
    rng = np.random.default_rng(7)
    noisy = north + 0.05 * rng.standard_normal(north.size)
    sphere = {"positions": pts}
    # 599 draws of 300 rotations: about 300 effective draws for two near-identical maps
    same = map_similarity(north, noisy, "pearson", geometry=sphere, n_permutations=599,
                          random_state=0)
    assert same.attrs["null"] == "spin" and same.p_value <= 0.01
    assert "Alexander-Bloch" in same.attrs["null_reference"]
    apart = map_similarity(north, south, "pearson", geometry=sphere, n_permutations=199,
                           random_state=0)
    assert apart.statistic < apart.null_mean and apart.alternative == "two-sided"
    with pytest.raises(InvalidDataError, match="method='pearson'"):
        map_similarity(north, noisy, geometry=sphere)
    with pytest.raises(InvalidDataError, match="on a sphere"):
        map_similarity(north, noisy, "pearson", geometry={"positions": pts * [1, 1, 3]},
                       n_permutations=9)


def test_spatial_null_with_a_callable_and_errors():
    rng = np.random.default_rng(8)
    a = gaussian_filter(rng.standard_normal((16, 16)), 2)

    def overlap(x, y):  # vectorised: batch first
        return ((x > 0) & (y > 0)).mean(axis=(-2, -1))

    res = spatial_null(overlap, a, a, n_permutations=99, random_state=0)
    assert res.p_value == pytest.approx(0.01) and res.attrs["method"] == "overlap"
    loop = spatial_null(lambda x, y: float(((x > 0) & (y > 0)).mean()), a, a,
                        n_permutations=99, random_state=0)
    np.testing.assert_allclose(loop.null, res.null)
    with pytest.raises(InvalidDataError, match="two or more maps"):
        spatial_null("smoothness", a, null="shift")
    with pytest.raises(UnknownNameError, match="ssim"):
        spatial_null("ssmi", a, a)
    with pytest.raises(DimensionError, match="same points"):
        spatial_null("ssim", a, a[:, :8])


def test_null_result_acts_as_its_number():
    r = NullResult.from_null(0.5, [0.1, 0.6, 0.2], "shift", {"method": "ssim"})
    assert float(r) == 0.5 and f"{r:+.2f}" == "+0.50" and r > 0.4 and round(r, 1) == 0.5
    assert r.p_value == pytest.approx(0.5) and r.to_dict()["method"] == "ssim"
    assert null_p_value(1.0, [1.0, 1.0]) == 1.0  # ties count
    assert np.isnan(null_p_value(np.nan, [1.0]))


def test_patch_null_on_a_mesh_and_ssim_with_missing_units():
    from scipy import sparse

    pts = 50 * _sphere(300)
    tri = ConvexHull(pts).simplices
    a = np.concatenate([tri[:, 0], tri[:, 1], tri[:, 2]])
    b = np.concatenate([tri[:, 1], tri[:, 2], tri[:, 0]])
    adj = sparse.coo_matrix((np.ones(a.size), (a, b)), shape=(300, 300)).tocsr()
    rng = np.random.default_rng(9)
    t = 5 * np.exp(-np.linalg.norm(pts - [0, 0, 50], axis=1) ** 2 / 300) + rng.standard_normal(300)
    p = find_patches(t, geometry={"positions": pts, "adjacency": adj}, n_permutations=49,
                     random_state=0)
    assert p.n_patches >= 1 and p.table["p_value"][0] == pytest.approx(0.02)
    assert p.attrs["smooth_sigma"] == pytest.approx(2.4)  # TDANN's 2.4 mm on a mesh in mm
    # SSIM leaves out the windows that hold a missing unit
    g = gaussian_filter(rng.standard_normal((16, 16)), 2)
    h = g + 0.1 * rng.standard_normal(g.shape)
    g_nan = g.copy()
    g_nan[0, 0] = np.nan
    full = float(map_similarity(g, h, n_permutations=0))
    part = map_similarity(g_nan, h, n_permutations=19, random_state=0)
    assert np.isfinite(part.statistic) and abs(part.statistic - full) < 0.05


def test_ssim_shift_fast_path_equals_the_general_kernel():
    from toponeuro.analysis.topography._sheet_null import _torus_indices
    from toponeuro.analysis.topography._ssim import ssim_batch

    rng = np.random.default_rng(10)
    a = gaussian_filter(rng.standard_normal((18, 22)), 2)
    b = gaussian_filter(rng.standard_normal((18, 22)), 2)
    res = spatial_null("ssim", a, b, null="torus", n_permutations=64, random_state=3)
    idx = _torus_indices(a.shape, 64, np.random.default_rng(3))

    def unit(x):
        return (x - x.min()) / (x.max() - x.min())

    moved = unit(b).ravel()[idx].reshape(64, *a.shape)
    ref = ssim_batch(np.repeat(unit(a)[None], 64, 0), moved, data_range=1.0)
    np.testing.assert_allclose(res.null, ref, atol=1e-12)


def test_spin_draws_are_reused_exactly_across_maps_on_one_sphere():
    """Several maps on one hemisphere with the same seed rotate alike: the rotations are
    drawn once, and a reused draw leaves the generator where a fresh one would."""
    from toponeuro.analysis import as_topomap
    from toponeuro.analysis.topography import _null

    pts = 50 * _sphere()
    tm = as_topomap(np.zeros(len(pts)), positions=pts)
    _null._SPIN_CACHE.clear()
    rng = np.random.default_rng(11)
    first = _null._spin_indices(tm, 50, rng)
    after_fresh = rng.random()
    rng = np.random.default_rng(11)
    again = _null._spin_indices(as_topomap(np.ones(len(pts)), positions=pts), 50, rng)
    assert again is first and rng.random() == after_fresh
    assert not first.flags.writeable
    # a cold draw gives the same indices (the cache changes nothing but time)
    _null._SPIN_CACHE.clear()
    cold = _null._spin_indices(tm, 50, np.random.default_rng(11))
    np.testing.assert_array_equal(cold, first)
    other = _null._spin_indices(tm, 50, np.random.default_rng(12))
    assert not np.array_equal(other, first)


def test_phase_surrogates_keep_the_values_and_the_smoothness_and_draw_the_position():
    """Each surrogate holds exactly the map's values (missing units stay missing), is about as
    smooth as the map, and loses its position: a cosine along the rows correlates with its
    surrogates anywhere from -1 to 1, 0 on average."""
    from toponeuro.analysis import as_topomap
    from toponeuro.analysis.topography._sheet_null import _phase_values

    rng = np.random.default_rng(0)
    g = gaussian_filter(rng.standard_normal((40, 40)), 2)[8:24, 8:28]  # cropped: not periodic
    g[2, 3] = np.nan
    s = _phase_values(as_topomap(g), 300, rng).reshape(300, 16, 20)
    assert np.isnan(s[:, 2, 3]).all() and np.isfinite(s).sum() == 300 * (16 * 20 - 1)
    fin = np.isfinite(g)
    np.testing.assert_array_equal(np.sort(s[:, fin], axis=1),
                                  np.tile(np.sort(g[fin]), (300, 1)))

    def lag1(x):  # correlation of horizontal neighbours, missing units left out
        u, v = x[..., :, :-1].reshape(len(x), -1), x[..., :, 1:].reshape(len(x), -1)
        ok = np.isfinite(u) & np.isfinite(v)
        return np.array([np.corrcoef(a[m], b[m])[0, 1] for a, b, m in zip(u, v, ok)])

    own = lag1(g[None])[0]
    assert own > 0.8 and abs(lag1(s).mean() - own) < 0.05  # a shuffle would give 0
    h, w, k = 16, 10, 2
    rows = np.cos(np.pi * k * (np.arange(h) + 0.5) / h)
    c = _phase_values(as_topomap(np.repeat(rows[:, None], w, 1)), 400, rng).reshape(400, h, w)
    r = np.array([np.corrcoef(p, rows)[0, 1] for p in c[:, :, 0]])
    assert abs(r.mean()) < 0.1 and (r > 0.5).mean() > 0.15 and (r < -0.5).mean() > 0.15


def test_iaaft_surrogates_keep_the_values_and_the_smoothness_and_draw_the_position():
    """IAAFT (Schreiber & Schmitz 1996): exactly the map's values (missing units stay
    missing), about its smoothness (a shuffle of these values is 33 times rougher), a sparse
    map stays sparse, and the position is lost."""
    from toponeuro.analysis import as_topomap
    from toponeuro.analysis.topography._sheet_null import _iaaft_values, iaaft_surrogates

    def roughness(x):  # mean squared difference of neighbours over the variance
        x = x - x.mean(axis=(-2, -1), keepdims=True)
        d2 = (np.diff(x, axis=-1) ** 2).mean(axis=(-2, -1)) + (np.diff(x, axis=-2) ** 2).mean(
            axis=(-2, -1))
        return d2 / (x * x).mean(axis=(-2, -1))

    rng = np.random.default_rng(0)
    g = gaussian_filter(rng.standard_normal((48, 52)), 3)[12:28, 12:32]  # cropped: not periodic
    s, n_iter = iaaft_surrogates(g, 200, rng)
    assert 1 <= n_iter < 100
    np.testing.assert_array_equal(np.sort(s.reshape(200, -1), axis=1),
                                  np.tile(np.sort(g.ravel()), (200, 1)))
    shuffled = rng.permuted(np.tile(g.ravel(), (200, 1)), axis=1).reshape(200, 16, 20)
    own, it = roughness(g), roughness(s).mean()
    assert 1.0 < it / own < 2.0 < roughness(shuffled).mean() / own, it / own
    # missing units stay missing; the others hold the map's values
    h = g.copy()
    h[2, 3] = np.nan
    t = _iaaft_values(as_topomap(h), 50, rng).reshape(50, 16, 20)
    assert np.isnan(t[:, 2, 3]).all() and np.isfinite(t).sum() == 50 * (16 * 20 - 1)
    # a blob on a flat background stays a blob on a flat background, placed anywhere
    rr, cc = np.mgrid[:16, :20]
    blob_map = np.where((rr - 5) ** 2 + (cc - 6) ** 2 <= 6, 1.0, 0.0)
    b, _ = iaaft_surrogates(blob_map, 100, rng)
    assert ((b == 0).sum(axis=(1, 2)) == (blob_map == 0).sum()).all()
    centre = np.array([np.argwhere(x > 0).mean(0) for x in b])
    assert centre[:, 0].std() > 2 and centre[:, 1].std() > 2
    assert np.mean([roughness(x) for x in b]) < 3 * roughness(blob_map)  # one patch, not dust


def test_iaaft_null_refuses_a_mesh():
    rng = np.random.default_rng(1)
    pos = rng.standard_normal((30, 3))
    with pytest.raises(InvalidDataError, match="sheet"):
        spatial_null("pearson", rng.standard_normal(30), rng.standard_normal(30),
                     null="iaaft", geometry={"positions": pos}, n_permutations=9)


def test_ssim_null_draws_are_rescaled_as_the_observed_map():
    """Each surrogate is min-max rescaled to [0, 1] on its own, as the observed map is."""
    from toponeuro.analysis import as_topomap
    from toponeuro.analysis.topography._sheet_null import _phase_values
    from toponeuro.analysis.topography._ssim import ssim_batch

    rng = np.random.default_rng(12)
    a = gaussian_filter(rng.standard_normal((14, 20)), 2)
    b = gaussian_filter(rng.standard_normal((14, 20)), 2)
    res = spatial_null("ssim", a, b, null="phase", n_permutations=32, random_state=4)
    sur = _phase_values(as_topomap(b), 32, np.random.default_rng(4)).reshape(32, 14, 20)

    def unit(x):
        lo = x.min(axis=(-2, -1), keepdims=True)
        return (x - lo) / (x.max(axis=(-2, -1), keepdims=True) - lo)

    ref = ssim_batch(np.repeat(unit(a)[None], 32, 0), unit(sur), data_range=1.0)
    np.testing.assert_allclose(res.null, ref, atol=1e-12)


def test_displaced_noise_free_blobs_are_not_called_alike():
    """A moved or surrogate patch on a flat background keeps the background flat (a shift;
    the phase null's amplitude adjustment). Without the adjustment the surrogates of a
    noise-free blob were spread-out fields and two displaced blobs came out 'alike' with
    p = 0.002. 99 draws: no surrogate as alike as the pair gives p = 0.01; the nulls here
    give 0.14 to 0.6."""
    rr, cc = np.mgrid[:24, :32]
    a = 6 * np.exp(-((rr - 5) ** 2 + (cc - 6) ** 2) / 18.0)
    b = 6 * np.exp(-((rr - 8) ** 2 + (cc - 20) ** 2) / 18.0)
    for null in (None, "phase", "iaaft"):
        for method in ("ssim", "pearson"):
            res = map_similarity(a, b, method, null=null, n_permutations=99, random_state=0)
            assert res.p_value > 0.05, (null, method, res)


def test_tail_parameter_documented_once_for_p_value_helpers():
    """null_p_value, can_reject and too_few_draws_text render one shared ``alternative`` text."""
    from toponeuro._util.docs import DOCDICT
    from toponeuro.analysis.topography._pvalues import can_reject, null_p_value
    from toponeuro.analysis.topography._verdict import too_few_draws_text

    tail = DOCDICT["test_tail"].split("\n")[-1].strip()
    for fn in (null_p_value, can_reject, too_few_draws_text):
        assert "%(" not in fn.__doc__ and fn.__doc__.count(tail) == 1, fn.__name__
