"""Dimensionality: exact U-statistics, true dimensionality recovered, flat in n."""

import itertools

import numpy as np
import pytest

from toponeuro import make_activations
from toponeuro.analysis import (
    dimensionality,
    effective_dimensionality,
    participation_ratio,
    trace_moments,
)
from toponeuro.exceptions import InvalidDataError, UndefinedValueWarning


def test_estimates_equal_brute_force_u_statistics():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((7, 4)) * [1, 2, 3, 0.5] + 5.0  # non-zero mean on purpose
    num = den = 0.0
    perms = list(itertools.permutations(range(7), 4))
    for i, j, k, m in perms:
        a, b = X[i] - X[j], X[k] - X[m]
        num += (a @ a) * (b @ b) / 4
        den += (a @ b) ** 2 / 4
    got = trace_moments(X)
    assert got == pytest.approx((num / len(perms), den / len(perms)), rel=1e-10)
    # translation invariant, and the same through either Gram matrix (n < p and n > p)
    assert trace_moments(X + 100.0) == pytest.approx(got, rel=1e-8)
    wide = rng.standard_normal((6, 9))
    assert trace_moments(wide) == pytest.approx(trace_moments(wide.T.T.copy()), rel=1e-12)


def test_plain_estimator_is_eigenvalue_formula():
    rng = np.random.default_rng(2)
    for shape in [(40, 10), (10, 40)]:
        X = rng.standard_normal(shape) @ rng.standard_normal((shape[1], shape[1]))
        lam = np.linalg.eigvalsh(np.cov(X.T))
        ref = lam.sum() ** 2 / (lam**2).sum()
        assert effective_dimensionality(X) == pytest.approx(ref, rel=1e-10)
        assert participation_ratio(X, bias_corrected=False) == pytest.approx(ref, rel=1e-10)


def test_bias_corrected_recovers_truth_and_stays_flat():
    rng = np.random.default_rng(3)
    p = 120
    lam = 1.0 / np.arange(1, p + 1)
    true = lam.sum() ** 2 / (lam**2).sum()
    rows = []
    for n in (30, 100, 1000):
        draws = [rng.standard_normal((n, p)) * np.sqrt(lam) + 3.0 for _ in range(10)]
        rows.append((np.mean([participation_ratio(d) for d in draws]),
                     np.mean([effective_dimensionality(d) for d in draws])))
    corrected, plain = np.array(rows).T
    np.testing.assert_allclose(corrected, true, rtol=0.12)  # flat in n, near the truth
    assert plain[0] < 0.7 * true and plain[0] < plain[1] < plain[2]  # plain drifts down


def test_labelled_input_and_errors():
    acts = make_activations({"a": 20}, n_stimuli=300, random_state=0)
    assert participation_ratio(acts) == pytest.approx(20, rel=0.15)
    with pytest.warns(UndefinedValueWarning, match="at least 4"):
        assert np.isnan(participation_ratio(np.zeros((3, 5))))
    # no variance: undefined, NaN with a warning in every estimator (issue 45; it raised
    # for the plain estimates and gave NaN for the corrected one)
    for f in (effective_dimensionality, lambda x: participation_ratio(x, bias_corrected=False)):
        with pytest.warns(UndefinedValueWarning, match="zero variance"):
            assert np.isnan(f(np.ones((5, 3))))
    with pytest.raises(InvalidDataError, match="NaN"):
        participation_ratio(np.full((5, 3), np.nan))


def test_dimensionality_per_layer_says_which_responses():
    rng = np.random.default_rng(9)
    x = np.c_[rng.standard_normal((60, 16)), rng.standard_normal((60, 25)) * 0.1]
    x[:, 16:] += rng.standard_normal((60, 1))  # layer b: one dominant direction
    acts = make_activations({"a": x[:, :16], "b": x[:, 16:]}, categories=["u", "v"] * 30)
    res = dimensionality(acts)
    assert res["layer"].values.tolist() == ["a", "b"]
    assert float(res["effective_dimensionality"].sel(layer="a")) == pytest.approx(
        effective_dimensionality(x[:, :16])
    )
    assert float(res["participation_ratio"].sel(layer="b")) == pytest.approx(
        participation_ratio(x[:, 16:])
    )
    assert res["effective_dimensionality"].sel(layer="b") < 3
    assert res.attrs["n_stimuli"] == 60 and res.attrs["categories"] == "u,v"
    assert "TDANN" in res.attrs["reference"]


def test_estimators_document_data_and_bias_corrected_from_one_text():
    """trace_moments, effective_dimensionality, participation_ratio share one docs text."""
    from toponeuro._util.docs import DOCDICT
    from toponeuro.analysis._dimensionality import (
        effective_dimensionality,
        participation_ratio,
        trace_moments,
    )

    data_line = DOCDICT["dimensionality_data"].split("\n")[-1].strip()
    bias_line = DOCDICT["bias_corrected"].split("\n")[-1].strip()
    for fn in (trace_moments, effective_dimensionality, participation_ratio):
        assert "%(" not in fn.__doc__ and fn.__doc__.count(data_line) == 1, fn.__name__
    for fn in (trace_moments, participation_ratio):
        assert fn.__doc__.count(bias_line) == 1, fn.__name__
