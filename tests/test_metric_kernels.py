"""toponeuro._metrics: the one R², Pearson and rank correlation, against scipy/scikit-learn."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats
from sklearn.metrics import r2_score as sk_r2

from toponeuro._metrics import pearson_r, r2_score, rankdata, spearman_r


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
