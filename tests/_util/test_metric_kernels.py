"""toponeuro._util.metrics: the one R², Pearson and rank correlation, against scipy/scikit-learn."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats
from sklearn.metrics import r2_score as sk_r2

from toponeuro._util.metrics import pearson_r, r2_score, rankdata, spearman_r


def _data(seed=0):
    rng = np.random.default_rng(seed)
    y = rng.normal(size=(30, 4))
    return y, y + rng.normal(size=(30, 4))


def test_parity_with_scipy_and_sklearn():
    y, p = _data()
    ref = [scipy.stats.pearsonr(y[:, j], p[:, j]).statistic for j in range(4)]
    np.testing.assert_allclose(pearson_r(y, p), ref, rtol=1e-12)
    np.testing.assert_allclose(r2_score(y, p), sk_r2(y, p, multioutput="raw_values"), rtol=1e-12)
    assert r2_score(y[:, 0], p[:, 0]) == pytest.approx(sk_r2(y[:, 0], p[:, 0]), rel=1e-12)
    v = np.round(p[:, 0], 1)  # ties
    np.testing.assert_array_equal(rankdata(v), scipy.stats.rankdata(v))
    assert spearman_r(v, y[:, 0]) == pytest.approx(scipy.stats.spearmanr(v, y[:, 0]).statistic)


def test_broadcast_over_leading_axes_and_torch():
    torch = pytest.importorskip("torch")
    y, p = _data(1)
    batch = np.stack([p, 2 * p + 1])  # (2, n, targets): Pearson is scale-free, R² is not
    r = pearson_r(y, batch)
    np.testing.assert_allclose(r[0], r[1], rtol=1e-12)
    assert r2_score(y, batch).shape == (2, 4)
    rt = pearson_r(torch.from_numpy(y), torch.from_numpy(batch))
    np.testing.assert_allclose(rt.numpy(), r, rtol=1e-12)
    np.testing.assert_allclose(
        r2_score(torch.from_numpy(y), torch.from_numpy(p)).numpy(), r2_score(y, p), rtol=1e-12
    )


def test_undefined_is_nan_not_zero():
    y = np.ones((5, 2))
    y[:, 1] = np.arange(5)
    assert np.isnan(pearson_r(y, y)[0]) and pearson_r(y, y)[1] == pytest.approx(1.0)
    assert np.isnan(r2_score(y, y + 1)[0])
    assert np.isnan(spearman_r([1.0, 1.0, 1.0], [1.0, 2.0, 3.0]))


def test_rankdata_along_an_axis_with_nans_matches_scipy_omit():
    rng = np.random.default_rng(3)
    x = rng.integers(0, 4, size=(6, 11)).astype(float)  # many ties
    x[rng.random(x.shape) < 0.25] = np.nan
    for axis in (0, 1, -1):
        np.testing.assert_allclose(
            rankdata(x, axis=axis), scipy.stats.rankdata(x, axis=axis, nan_policy="omit"),
            equal_nan=True,
        )


def test_pearson_omit_nan_matches_scipy_on_the_finite_pairs():
    rng = np.random.default_rng(4)
    a = rng.standard_normal((40, 3))
    b = a + rng.standard_normal((40, 3))
    b[[2, 9], 1] = np.nan
    a[5, 2] = np.nan
    r = pearson_r(a, b, omit_nan=True)
    for j in range(3):
        ok = np.isfinite(a[:, j]) & np.isfinite(b[:, j])
        assert r[j] == pytest.approx(scipy.stats.pearsonr(a[ok, j], b[ok, j]).statistic)
    # fewer than 3 shared samples, or no variance: NaN, not 0
    assert np.isnan(pearson_r(np.array([1.0, 2.0, np.nan]), np.array([1.0, np.nan, 3.0]),
                              omit_nan=True))
    assert np.isnan(pearson_r(np.ones(5), np.arange(5.0), omit_nan=True))
