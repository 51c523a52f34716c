"""Ridge at scale: primal vs dual forms, weights on request, dask.distributed worker processes."""

import warnings

import numpy as np
import pytest

from toponeuro.analysis import RidgeEncoder, encoding_score, make_folds
from toponeuro.analysis._backend import get_backend
from toponeuro.analysis.encoding import _ridge_solver as rs
from toponeuro.exceptions import (
    InputTypeError,
    InvalidDataError,
    NotFittedError,
    OutputPathError,
    ParameterError,
)

ALPHAS = np.logspace(-2, 4, 7)
PARAMS = {"fit_intercept": True, "scoring": "r2", "backend": "numpy", "device": "cpu",
          "n_targets_batch": None, "cv_solver": "per_fold"}


def _data(n, p, v=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p)) + 3.0  # an offset, as ReLU features have
    Y = X @ rng.standard_normal((p, v)) / np.sqrt(p) + rng.standard_normal((n, v)) + 1.0
    return X, Y


@pytest.mark.parametrize("shape", [(60, 12), (30, 80)])  # primal by shape, dual by shape
@pytest.mark.parametrize("solver", ["per_fold", "deletion"])
def test_primal_and_dual_forms_agree_with_each_other_and_with_sklearn(shape, solver):
    from sklearn.linear_model import Ridge
    from sklearn.metrics import r2_score

    X, Y = _data(*shape)
    folds = make_folds(4, len(X))
    params = {**PARAMS, "cv_solver": solver}
    out = {}
    for form in ("primal", "dual"):
        d = rs._Design(X, folds, ALPHAS, params, Y.shape[1], True, form=form)
        scores = d.cv_scores(Y)
        coef, icpt = d.refit(Y, np.full(Y.shape[1], 3))
        out[form] = (scores, coef, icpt)
    np.testing.assert_allclose(out["primal"][0], out["dual"][0], atol=1e-8)
    np.testing.assert_allclose(out["primal"][1], out["dual"][1], atol=1e-8)
    # every alpha's cross-validated R^2 equals scikit-learn's Ridge refitted on each fold
    ref = np.zeros((len(ALPHAS), Y.shape[1]))
    for ia, a in enumerate(ALPHAS):
        for tr, te in folds:
            pred = Ridge(alpha=a).fit(X[tr], Y[tr]).predict(X[te])
            ref[ia] += r2_score(Y[te], pred, multioutput="raw_values") / len(folds)
    np.testing.assert_allclose(out["dual"][0], ref, atol=1e-8)
    full = Ridge(alpha=ALPHAS[3]).fit(X, Y)
    np.testing.assert_allclose(out["dual"][1].T, full.coef_, atol=1e-8)
    np.testing.assert_allclose(out["primal"][2], full.intercept_, atol=1e-8)


def test_forms_are_chosen_by_shape_and_match_himalaya():
    from himalaya.ridge import RidgeCV as HRidgeCV
    from himalaya.scoring import r2_score
    from sklearn.model_selection import KFold

    for shape in [(80, 10), (40, 120)]:
        X, Y = _data(*shape, v=8)
        est = RidgeEncoder(alphas=ALPHAS, cv=KFold(4), cv_solver="per_fold").fit(X, Y)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = HRidgeCV(alphas=ALPHAS, cv=KFold(4), fit_intercept=True,
                           solver_params={"score_func": r2_score}).fit(X, Y)
        np.testing.assert_allclose(est.best_alphas_, np.asarray(ref.best_alphas_), rtol=1e-12)
        np.testing.assert_allclose(est.predict(X), ref.predict(X), atol=1e-6)
        np.testing.assert_allclose(est.best_scores_, np.asarray(ref.cv_scores_), atol=1e-6)


def test_a_wide_layer_costs_n_by_n(monkeypatch):
    """P = 2,000 features, N = 40 stimuli: no eigendecomposition or product is P x P."""
    X, Y = _data(40, 2000)
    sizes = []
    B = get_backend("numpy")
    real = type(B).eigh

    def eigh(self, a):
        sizes.append(a.shape[0])
        return real(self, a)

    monkeypatch.setattr(type(B), "eigh", eigh)
    est = RidgeEncoder(alphas=ALPHAS, cv=4).fit(X, Y)
    assert sizes and max(sizes) <= 40
    cost = rs._solver_flops(40, 2000, make_folds(4, 40), len(ALPHAS), 5)
    assert cost["per_fold"] < 2000**2 * 40 * 4  # far below one P x P Gram per fold
    assert est.coef_.shape == (5, 2000)


def test_auto_picks_the_cheaper_exact_solver():
    folds = make_folds(5, 10000)
    # NSD-sized responses: per fold beats deletion (whose n_g x n_g blocks cost n_a n^2/K)
    assert rs._choose_solver("auto", folds, 10000, 2048, 10, 100_000, False) == "per_fold"
    small = make_folds(5, 200)
    assert rs._choose_solver("auto", small, 200, 5000, 10, 50, True) == "deletion"
    X, Y = _data(60, 8)
    a = RidgeEncoder(alphas=ALPHAS, cv=4, cv_solver="deletion").fit(X, Y)
    b = RidgeEncoder(alphas=ALPHAS, cv=4).fit(X, Y)
    np.testing.assert_allclose(a.cv_scores_, b.cv_scores_, atol=1e-10)
    assert b.cv_solver_ in rs.CV_SOLVERS


def test_weights_none_memory_and_store(tmp_path, monkeypatch):
    import xarray as xr

    X, Y = _data(50, 6, v=9)
    mem = RidgeEncoder(alphas=ALPHAS, cv=3).fit(X, Y)
    none = RidgeEncoder(alphas=ALPHAS, cv=3, weights=None).fit(X, Y)
    np.testing.assert_array_equal(none.best_alphas_, mem.best_alphas_)
    np.testing.assert_allclose(none.cv_scores_, mem.cv_scores_)
    np.testing.assert_allclose(none.best_scores_, mem.cv_scores_.max(0))
    assert not hasattr(none, "coef_")
    with pytest.raises(NotFittedError, match="weights=None"):
        none.predict(X)
    # a store, written in chunks of 2 targets (its coef_ is a lazy dask array: the dask
    # extra; without it, tests/house/test_core_install.py checks the refusal)
    pytest.importorskip("dask.array")
    monkeypatch.setattr(rs, "_WEIGHTS_CHUNK", 2 * 6 * 8)
    path = tmp_path / "coef.nc"
    stored = RidgeEncoder(alphas=ALPHAS, cv=3, weights=path).fit(X, Y)
    np.testing.assert_allclose(np.asarray(stored.coef_), mem.coef_, atol=1e-12)
    np.testing.assert_allclose(np.asarray(stored.predict(X)), mem.predict(X), atol=1e-10)
    with xr.open_dataset(path, engine="h5netcdf") as ds:
        np.testing.assert_allclose(ds["best_alpha"].values, mem.best_alphas_)
        np.testing.assert_allclose(ds["cv_scores"].values, mem.cv_scores_)
    assert not (tmp_path / "coef.nc.partial").exists()
    with pytest.raises(OutputPathError, match="never overwrites"):
        RidgeEncoder(alphas=ALPHAS, cv=3, weights=path).fit(X, Y)
    # a coefficient matrix above the budget is refused before any work, naming the fixes
    monkeypatch.setattr(rs, "WEIGHTS_BUDGET", 100)
    with pytest.raises(InvalidDataError, match="weights=None"):
        RidgeEncoder(alphas=ALPHAS, cv=3).fit(X, Y)
    with pytest.raises(InputTypeError, match=r"^weights=3 is not None or a path"):
        RidgeEncoder(alphas=ALPHAS, cv=3, weights=3).fit(X, Y)


def test_encoding_score_above_the_memory_budget_names_what_it_accepts(monkeypatch):
    """RidgeEncoder's own budget error named weights=None or a path, both of which
    encoding_score refuses; encoding_score now names the dask route, which it takes."""
    da = pytest.importorskip("dask.array")

    X, Y = _data(48, 6, v=4)
    monkeypatch.setattr(rs, "WEIGHTS_BUDGET", 100)  # the 6 x 4 coefficients take 192 bytes
    with pytest.raises(InvalidDataError, match="dask array chunked over voxels") as info:
        encoding_score(X, Y, model=RidgeEncoder(alphas=ALPHAS, cv=3), cv=4)
    assert "weights=None" not in str(info.value) and "0.0 GiB" in str(info.value)
    with pytest.raises(InvalidDataError, match="score the voxels in groups"):
        encoding_score(X, Y, model=RidgeEncoder(alphas=ALPHAS, cv=3, alpha_per_target=False),
                       cv=4)
    # and the route it names works: one voxel per chunk (48 bytes) fits the budget
    chunked = encoding_score(X, da.from_array(Y, chunks=(48, 1)),
                             model=RidgeEncoder(alphas=ALPHAS, cv=3), cv=4)
    monkeypatch.setattr(rs, "WEIGHTS_BUDGET", 2**30)
    whole = encoding_score(X, Y, model=RidgeEncoder(alphas=ALPHAS, cv=3), cv=4)
    np.testing.assert_allclose(np.asarray(chunked), np.asarray(whole), atol=1e-10)


def test_encoding_score_refuses_weights_its_folds_cannot_use(tmp_path):
    """weights=path: the first outer fold failed (dask's NotImplementedError on its lazily
    read coefficients) and left its store at the path, which every fold's clone would write;
    weights=None failed at the first predict. Both are refused before any fit, naming the
    fix."""
    X, Y = _data(48, 6, v=4)
    path = tmp_path / "coef.nc"
    with pytest.raises(ParameterError, match="weights='memory'") as info:
        encoding_score(X, Y, model=RidgeEncoder(alphas=ALPHAS, cv=3, weights=path), cv=4)
    assert "every fold" in str(info.value) and "fit RidgeEncoder(weights=" in str(info.value)
    assert not list(tmp_path.iterdir())  # nothing written
    with pytest.raises(ParameterError, match="no coefficients to predict"):
        encoding_score(X, Y, model=RidgeEncoder(alphas=ALPHAS, cv=3, weights=None), cv=4)
    got = encoding_score(X, Y, model=RidgeEncoder(alphas=ALPHAS, cv=3), cv=4)
    assert np.isfinite(got.values).all()


def test_shared_alpha_with_weights_none_and_chunks():
    da = pytest.importorskip("dask.array")
    X, Y = _data(48, 6, v=8)
    mem = RidgeEncoder(alphas=ALPHAS, cv=3, alpha_per_target=False).fit(X, Y)
    lazy = RidgeEncoder(alphas=ALPHAS, cv=3, alpha_per_target=False, weights=None).fit(
        X, da.from_array(Y, chunks=(48, 3)))
    assert lazy.alpha_ == mem.alpha_
    np.testing.assert_allclose(lazy.cv_scores_, mem.cv_scores_, atol=1e-10)


@pytest.mark.parametrize("scheduler", ["synchronous", "threads"])
def test_encoding_score_chunks_share_the_inner_cv_decompositions(monkeypatch, scheduler):
    """encoding_score's dask path decomposed each outer fold's training set again for every
    chunk of voxels (6 chunks: 6x the in-memory path's count); it now shares them as the
    in-memory path does, with the same scores."""
    dask = pytest.importorskip("dask")
    da = pytest.importorskip("dask.array")
    X, Y = _data(60, 8, v=12)
    model = RidgeEncoder(alphas=ALPHAS, cv=3)
    calls = []
    real = rs._eigh
    monkeypatch.setattr(rs, "_eigh", lambda *a, **k: calls.append(1) or real(*a, **k))
    mem = encoding_score(X, Y, model=model, cv=4)
    n_mem = len(calls)
    with dask.config.set(scheduler=scheduler, num_workers=2):
        lazy = encoding_score(X, da.from_array(Y, chunks=(60, 2)), model=model, cv=4)
    assert len(calls) - n_mem == n_mem > 0
    np.testing.assert_allclose(lazy.values, mem.values, rtol=0, atol=1e-12)  # last-bit BLAS differences


class _Count:
    n = 0


@pytest.mark.slow  # starts a dask cluster of two worker processes
def test_distributed_worker_processes_equal_the_single_process_fit(monkeypatch):
    """Two worker *processes*; the design is sent to each worker once, not once per chunk."""
    dask = pytest.importorskip("dask")
    da = pytest.importorskip("dask.array")
    distributed = pytest.importorskip("distributed")
    X, Y = _data(60, 8, v=12)
    Yd = da.from_array(Y, chunks=(60, 2))  # 6 chunks
    with dask.config.set(scheduler="synchronous"):
        single = RidgeEncoder(alphas=ALPHAS, cv=4).fit(X, Yd)
        single_scores = encoding_score(X, Yd, model=RidgeEncoder(alphas=ALPHAS, cv=3), cv=4)
    real = rs._Design.__getstate__

    def counted(self):
        _Count.n += 1
        return real(self)

    monkeypatch.setattr(rs._Design, "__getstate__", counted)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster):
        got = RidgeEncoder(alphas=ALPHAS, cv=4).fit(X, Yd)
        n_fit = _Count.n
        got_scores = encoding_score(X, Yd, model=RidgeEncoder(alphas=ALPHAS, cv=3), cv=4)
    assert 1 <= n_fit <= 2  # scattered (one copy per worker), never per chunk
    # encoding_score: one design per outer fold (4), sent to each worker once, not per chunk
    assert 4 <= _Count.n - n_fit <= 8
    np.testing.assert_array_equal(got.best_alphas_, single.best_alphas_)
    np.testing.assert_allclose(got.cv_scores_, single.cv_scores_, rtol=0, atol=1e-12)
    np.testing.assert_allclose(got.coef_, single.coef_, rtol=0, atol=1e-12)
    np.testing.assert_allclose(got_scores.values, single_scores.values, rtol=0, atol=1e-12)
    mem = RidgeEncoder(alphas=ALPHAS, cv=4).fit(X, Y)
    np.testing.assert_allclose(got.coef_, mem.coef_, atol=1e-10)
