"""Ridge with per-target alpha: parity with himalaya's RidgeCV on every solver path, and the
held-out operator form of the deletion solver (issue 46)."""

import warnings

import numpy as np
import pytest

from toponeuro.analysis import RidgeEncoder, make_folds
from toponeuro.analysis.encoding import _ridge_solver as rs

ALPHAS = np.logspace(-2, 6, 10)  # the bench's grid


def _data(n=200, p=50, v=300, seed=0, dtype=np.float64):
    """Targets with a planted signal-to-noise ratio that varies over targets, so the best
    alpha varies too."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p)) + 1.0
    W = rng.standard_normal((p, v)) * (rng.random(v) * 3 / np.sqrt(p))
    Y = X @ W + rng.standard_normal((n, v)) + 2.0
    return X.astype(dtype), Y.astype(dtype)


def _himalaya(X, Y, folds):
    from himalaya.backend import set_backend
    from himalaya.ridge import RidgeCV
    from himalaya.scoring import r2_score

    set_backend("numpy")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return RidgeCV(alphas=ALPHAS, cv=folds, fit_intercept=True,
                       solver_params={"score_func": r2_score}).fit(X, Y)


@pytest.mark.parametrize("path", ["per_fold", "residual", "operator", "auto"])
def test_same_alpha_and_predictions_as_himalaya(path, monkeypatch):
    """N 200 x P 50 -> V 300, himalaya's folds and alpha grid: every target gets himalaya's
    alpha, and the same predictions and best cross-validated scores, on each solver path."""
    from sklearn.model_selection import KFold

    X, Y = _data()
    kf = KFold(5)
    solver = {"per_fold": "per_fold", "auto": "auto"}.get(path, "deletion")
    if path in ("residual", "operator"):
        monkeypatch.setattr(rs, "_deletion_form", lambda *a, form=path: form)
    ours = RidgeEncoder(alphas=ALPHAS, cv=kf, cv_solver=solver).fit(X, Y)
    ref = _himalaya(X, Y, kf)
    assert ours.cv_solver_ == (solver if solver != "auto" else ours.cv_solver_)
    np.testing.assert_allclose(ours.best_alphas_, np.asarray(ref.best_alphas_), rtol=1e-12)
    assert len(set(ours.best_alphas_)) >= 3  # the test really discriminates alphas
    np.testing.assert_allclose(ours.best_scores_, np.asarray(ref.cv_scores_), atol=1e-9)
    np.testing.assert_allclose(ours.predict(X), ref.predict(X), atol=1e-8)
    np.testing.assert_allclose(ours.coef_.T, np.asarray(ref.coef_), atol=1e-8)


def test_float32_alphas_match_himalaya():
    """In float32 (the bench's precision) the operator form picks himalaya's alpha for every
    target here too, and its predictions agree to float32 precision."""
    from sklearn.model_selection import KFold

    X, Y = _data(dtype=np.float32)
    kf = KFold(5)
    design = RidgeEncoder(alphas=ALPHAS, cv=kf, cv_solver="deletion")
    d = design._design(X, Y.dtype, Y.shape[1])
    d.deletion_form = "operator"
    design._fit_chunks(d, Y)
    ref = _himalaya(X, Y, kf)
    np.testing.assert_allclose(design.best_alphas_, np.asarray(ref.best_alphas_), rtol=1e-6)
    scale = np.abs(Y).max()
    np.testing.assert_allclose(design.predict(X), ref.predict(X), atol=1e-4 * scale)


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("shape", [(60, 12), (30, 80)])  # primal and dual decompositions
def test_held_out_operator_is_each_folds_refit(fit_intercept, shape):
    """The operator's block for alpha a, applied to the training targets, gives the fold's
    own ridge refit's test predictions (scikit-learn's Ridge on the training rows)."""
    from sklearn.linear_model import Ridge

    rng = np.random.default_rng(3)
    X = rng.standard_normal(shape) + 2.0
    y = X @ rng.standard_normal(shape[1]) + rng.standard_normal(shape[0]) + 1.0
    folds = make_folds(4, shape[0])
    params = {"fit_intercept": fit_intercept, "scoring": "r2", "backend": "numpy",
              "device": "cpu", "n_targets_batch": None, "cv_solver": "deletion"}
    d = rs._Design(X, folds, ALPHAS[:6], params, 1, True)
    B = d.backend
    for tr, te in folds:
        _, _, op = rs._held_out_operator(B, d.global_decomposition(), d.alphas, tr, te,
                                         fit_intercept)
        pred = (op @ y[tr]).reshape(len(d.alphas), len(te))
        for ia, a in enumerate(d.alphas):
            ref = Ridge(alpha=a, fit_intercept=fit_intercept).fit(X[tr], y[tr]).predict(X[te])
            np.testing.assert_allclose(pred[ia], ref, rtol=1e-7, atol=1e-7)


def test_issue_bench_shape_uses_one_decomposition():
    """N 3,000 x P 2,048 -> V 20,000, 5 folds, 10 alphas: auto takes the deletion solver in
    its operator form (one eigendecomposition instead of six), and the cost model says why."""
    folds = make_folds(5, 3000)
    assert rs._choose_solver("auto", folds, 3000, 2048, 10, 20_000, True) == "deletion"
    assert rs._deletion_form(3000, 2048, folds, 10, 20_000) == "operator"
    cost = rs._deletion_flops(3000, 2048, folds, 10)
    # per target the operator form costs what the per-fold solver's cheapest path costs
    assert cost["operator"][1] == sum(2.0 * 10 * len(te) * len(tr) for tr, te in folds)
    assert cost["operator"][1] < cost["residual"][1]
    # few targets: the residual form's smaller fixed cost wins
    assert rs._deletion_form(3000, 2048, folds, 10, 100) == "residual"
