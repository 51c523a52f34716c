"""Variogram-matched surrogates on a sheet: parity with BrainSMASH and known answers."""

import warnings

import numpy as np
import pytest
from scipy.ndimage import gaussian_filter

from toponeuro.analysis import map_similarity
from toponeuro.analysis.topography._variogram import (
    DELTAS,
    MAX_UNITS,
    SheetVariogram,
    grid_distances,
    regress,
)
from toponeuro.exceptions import InvalidDataError, ToponeuroWarning

brainsmash = pytest.importorskip(
    "brainsmash", reason="BrainSMASH is the parity reference: pip install brainsmash==0.11.0"
)
from brainsmash.mapgen.base import Base  # noqa: E402

SHAPES = [(8, 8), (7, 12), (16, 32)]


def _smooth(shape, sigma, seed):
    return gaussian_filter(np.random.default_rng(seed).standard_normal(shape), sigma).ravel()


@pytest.mark.parametrize("shape", SHAPES)
def test_variogram_equals_brainsmash(shape):
    x = _smooth(shape, 2.0, 0)
    ref = Base(x, grid_distances(shape), seed=0)
    sv = SheetVariogram(shape)
    np.testing.assert_allclose(sv.h, ref.h, rtol=0, atol=1e-12)
    np.testing.assert_allclose(sv.b, ref.b, rtol=1e-12)
    np.testing.assert_allclose(sv.variogram(x), ref.compute_smooth_variogram(x),
                               rtol=1e-10, atol=1e-12)
    # many maps at once: each row as BrainSMASH computes it alone
    maps = np.stack([_smooth(shape, s, i) for i, s in enumerate((0.5, 1, 3))])
    np.testing.assert_allclose(sv.variogram(maps),
                               [ref.compute_smooth_variogram(m) for m in maps], atol=1e-12)


@pytest.mark.parametrize("shape", SHAPES)
def test_smoothing_equals_brainsmash(shape):
    """Same neighbours (BrainSMASH sorts distances with numpy's default sort, whose order of
    tied distances is unspecified; here both take the stable order), same weights."""
    x = np.random.default_rng(1).standard_normal(shape[0] * shape[1])
    d = grid_distances(shape)
    ref = Base(x, d, seed=0)
    order = np.argsort(d, axis=-1, kind="stable")
    rows = np.arange(x.size)[:, None]
    for delta in ref.deltas:
        k = int(delta * x.size)
        ref._jkn[delta] = order[:, 1:k + 1]
        ref._dkn[delta] = d[rows, ref._jkn[delta]]
    ours = SheetVariogram(shape).smooth(x)
    for i, delta in enumerate(ref.deltas):
        np.testing.assert_allclose(ours[i], ref.smooth_map(x[:, None], delta)[:, 0],
                                   atol=1e-12)


def test_regression_equals_brainsmash():
    rng = np.random.default_rng(2)
    ref = Base(rng.standard_normal(64), grid_distances((8, 8)), seed=0)
    x, y = rng.random((5, 25)), rng.random(25)
    a, b, r = regress(x, y)
    ra, rb, rr = ref.regress(x.T, y)
    np.testing.assert_allclose([a, b, r], [ra, rb, rr], rtol=1e-10)


def test_deltas_are_brainsmash_defaults():
    np.testing.assert_allclose(DELTAS, np.linspace(0.1, 0.9, 9))


def test_surrogates_have_brainsmash_variograms():
    """Our surrogates' mean variogram is BrainSMASH's (same method, other random numbers).

    Both sit above a smooth map's own variogram at short range: where the best fit has a
    negative intercept, the method adds white noise of variance ``|alpha|`` (Burt et al.'s
    ``sqrt(|alpha|)``), a nugget the map does not have.
    """
    shape = (12, 16)
    x = _smooth(shape, 2.0, 3)
    sv = SheetVariogram(shape)
    ours = sv.variogram(sv.surrogates(x, 200, np.random.default_rng(0), resample=False))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # np.row_stack inside BrainSMASH
        theirs = sv.variogram(Base(x, grid_distances(shape), seed=0)(200, batch_size=50))
    np.testing.assert_allclose(ours.mean(0), theirs.mean(0), rtol=0.1)
    assert (ours.mean(0) > sv.variogram(x)).all()


def test_resampled_surrogates_keep_the_map_values():
    shape = (10, 10)
    x = _smooth(shape, 1.5, 4)
    out = SheetVariogram(shape).surrogates(x, 20, np.random.default_rng(0))
    np.testing.assert_array_equal(np.sort(out, axis=1), np.tile(np.sort(x), (20, 1)))
    again = SheetVariogram(shape).surrogates(x, 20, np.random.default_rng(0))
    np.testing.assert_array_equal(out, again)


def test_smoother_maps_get_smoother_surrogates():
    """Known ordering: the surrogates of a smoother map have a smaller short-range variogram
    relative to their variance (the fitted neighbourhood is larger)."""
    shape = (16, 16)
    sv = SheetVariogram(shape)
    rough, smooth = _smooth(shape, 0.7, 5), _smooth(shape, 3.0, 6)

    def short_range(m):
        m = (m - m.mean(-1, keepdims=True)) / m.std(-1, keepdims=True)
        return sv.variogram(m)[..., 0].mean()

    rng = np.random.default_rng(0)
    assert short_range(sv.surrogates(smooth, 50, rng)) < 0.5 * short_range(
        sv.surrogates(rough, 50, rng))


def test_variogram_null_in_map_similarity():
    shape = (16, 16)
    a, b = _smooth(shape, 2, 7).reshape(shape), _smooth(shape, 2, 8).reshape(shape)
    with pytest.warns(ToponeuroWarning, match="liberal on smooth sheet maps.*null='shift'"):
        res = map_similarity(a, b, null="variogram", n_permutations=99, random_state=0)
    assert res.attrs["null"] == "variogram"
    assert "Burt" in res.attrs["null_reference"]
    assert res.n_permutations == 99 and 0 < res.p_value <= 1
    with pytest.warns(ToponeuroWarning):
        co = map_similarity(a, a + 0.3 * _smooth(shape, 2, 9).reshape(shape),
                            null="variogram", n_permutations=99, random_state=0)
    assert co.p_value <= 0.02


def test_variogram_null_refuses_a_mesh_and_a_huge_sheet():
    pos = np.random.default_rng(0).standard_normal((50, 3))
    a = np.random.default_rng(1).standard_normal(50)
    with pytest.raises(InvalidDataError, match="null='shift'"):
        map_similarity(a, a, "pearson", null="variogram", geometry={"positions": pos},
                       n_permutations=9)
    h = 64
    w = MAX_UNITS // h + 1
    big = np.zeros((h, w)) + np.arange(w)
    with pytest.raises(InvalidDataError, match="null='shift'"):
        map_similarity(big, big, null="variogram", n_permutations=9, random_state=0)
