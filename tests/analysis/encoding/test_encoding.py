"""Encoding models: parity with scikit-learn and himalaya, planted weights, dask, bad input."""

import warnings

import numpy as np
import pytest
import xarray as xr

from toponeuro import make_activations
from toponeuro.analysis import PLSEncoder, RidgeEncoder, encoding_score, make_folds
from toponeuro.exceptions import AlignmentError, InvalidDataError, NotFittedError, UnknownNameError

BACKENDS = ["numpy", "torch"]
ALPHAS = np.logspace(-2, 4, 7)


def _data(n=60, p=8, v=6, noise=3.0, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p))
    W = rng.standard_normal((p, v))
    return X, X @ W + noise * rng.standard_normal((n, v)) + 2.0, W


def _responses(Y, ids, roi=None):
    v = Y.shape[1]
    return xr.DataArray(
        Y, dims=("stimulus", "voxel"),
        coords={"stimulus_id": ("stimulus", ids),
                "subject": ("voxel", ["s1"] * v),
                "roi": ("voxel", roi if roi is not None else ["V1"] * v),
                "x": ("voxel", np.arange(v, dtype=float))},
    )


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("shape", [(60, 8), (40, 100)])  # primal and dual forms
def test_ridge_matches_sklearn_ridgecv_on_same_folds(backend, shape):
    from sklearn.linear_model import RidgeCV
    from sklearn.model_selection import KFold

    X, Y, _ = _data(*shape)
    kf = KFold(4)
    ours = RidgeEncoder(alphas=ALPHAS, cv=kf, alpha_per_target=False, backend=backend).fit(X, Y)
    ref = RidgeCV(alphas=ALPHAS, cv=kf).fit(X, Y)
    assert ours.alpha_ == ref.alpha_
    np.testing.assert_allclose(ours.predict(X), ref.predict(X), atol=1e-4)
    np.testing.assert_allclose(ours.coef_, ref.coef_, atol=1e-4)
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, atol=1e-4)


@pytest.mark.parametrize("backend", BACKENDS)
def test_ridge_single_alpha_matches_sklearn_ridge(backend):
    from sklearn.linear_model import Ridge

    X, Y, _ = _data()
    ours = RidgeEncoder(alphas=[3.0], alpha_per_target=False, cv=3, backend=backend).fit(X, Y)
    ref = Ridge(alpha=3.0).fit(X, Y)
    np.testing.assert_allclose(ours.predict(X), ref.predict(X), atol=1e-4)
    assert ours.score(X, Y) == pytest.approx(ref.score(X, Y), abs=1e-6)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("shape", [(60, 8), (40, 100)])
def test_ridge_matches_himalaya_per_target(backend, shape):
    from himalaya.ridge import RidgeCV as HRidgeCV
    from himalaya.scoring import r2_score
    from sklearn.model_selection import KFold

    X, Y, _ = _data(*shape)
    kf = KFold(4)
    ours = RidgeEncoder(alphas=ALPHAS, cv=kf, backend=backend).fit(X, Y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = HRidgeCV(alphas=ALPHAS, cv=kf, fit_intercept=True,
                       solver_params={"score_func": r2_score}).fit(X, Y)
    np.testing.assert_allclose(ours.best_alphas_, np.asarray(ref.best_alphas_), rtol=1e-12)
    assert len(set(ours.best_alphas_)) > 1 or shape[1] == 8  # several alphas really chosen
    np.testing.assert_allclose(ours.predict(X), ref.predict(X), atol=1e-4)
    np.testing.assert_allclose(ours.cv_scores_.max(0), np.asarray(ref.cv_scores_), atol=1e-6)


def test_ridge_float32_and_target_batches_agree():
    X, Y, _ = _data(80, 10, 9)
    a = RidgeEncoder(alphas=ALPHAS, cv=4).fit(X, Y)
    b = RidgeEncoder(alphas=ALPHAS, cv=4, n_targets_batch=2).fit(X, Y)
    c = RidgeEncoder(alphas=ALPHAS, cv=4).fit(X.astype(np.float32), Y.astype(np.float32))
    np.testing.assert_allclose(a.cv_scores_, b.cv_scores_, atol=1e-12)
    np.testing.assert_array_equal(a.best_alphas_, b.best_alphas_)
    np.testing.assert_allclose(a.predict(X), c.predict(X.astype(np.float32)), atol=1e-3)


@pytest.mark.parametrize("backend", BACKENDS)
def test_planted_weights_recovered(backend):
    rng = np.random.default_rng(1)
    X = rng.standard_normal((400, 12))
    W = rng.standard_normal((12, 5))
    Y = X @ W + 0.01 * rng.standard_normal((400, 5))
    enc = RidgeEncoder(backend=backend, random_state=0).fit(X, Y)
    np.testing.assert_allclose(enc.coef_.T, W, atol=5e-3)
    assert np.all(enc.best_alphas_ <= 1.0)


def test_scoring_options_pick_sensible_alphas():
    X, Y, _ = _data(noise=10.0)
    for scoring in ("pearson", "neg_mse"):
        enc = RidgeEncoder(alphas=ALPHAS, cv=4, scoring=scoring).fit(X, Y)
        assert enc.cv_scores_.shape == (len(ALPHAS), Y.shape[1])


@pytest.mark.parametrize("algorithm", ["nipals", "svd"])
def test_pls_matches_sklearn(algorithm):
    from sklearn.cross_decomposition import PLSRegression

    for shape in [(60, 8), (40, 100)]:
        X, Y, _ = _data(*shape)
        for k in (1, 3, 5):
            kw = {} if algorithm == "nipals" else {"tol": 1e-20, "max_iter": 100000}
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ref = PLSRegression(k, scale=False, **kw).fit(X, Y)
            ours = PLSEncoder(k, algorithm=algorithm).fit(X, Y)
            np.testing.assert_allclose(ours.predict(X), ref.predict(X), atol=1e-4)


def test_encoding_score_parity_and_labels():
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import KFold

    X, Y, _ = _data(72, 6, 5, noise=1.0)
    acts = make_activations({"l": X}, random_state=0)
    ids = acts.stimulus_id.values
    resp = _responses(Y, ids)
    folds = list(KFold(4).split(X))
    model = RidgeEncoder(alphas=[2.0], alpha_per_target=False, cv=3)
    got = encoding_score(acts, resp, model=model, cv=folds, metric="r2")
    ref = np.mean([
        1 - ((Y[te] - Ridge(2.0).fit(X[tr], Y[tr]).predict(X[te])) ** 2).sum(0)
        / ((Y[te] - Y[te].mean(0)) ** 2).sum(0)
        for tr, te in folds
    ], axis=0)
    np.testing.assert_allclose(got.values, ref, atol=1e-6)
    assert got.dims == ("voxel",) and list(got.roi.values) == ["V1"] * 5
    assert list(got.x.values) == list(range(5))
    # stimuli shuffled on the brain side: aligned by id, same scores
    perm = np.random.default_rng(0).permutation(72)
    shuffled = encoding_score(acts, resp.isel(stimulus=perm), model=model, cv=folds, metric="r2")
    np.testing.assert_allclose(shuffled.values, got.values, atol=1e-10)
    # ceiling normalisation
    ceil = np.full(5, 0.5)
    np.testing.assert_allclose(
        encoding_score(acts, resp, model=model, cv=folds, metric="r2", ceiling=ceil).values,
        got.values / 0.5)


def test_encoding_score_pearson_with_pls_and_names():
    X, Y, _ = _data(90, 30, 4, noise=0.2)
    s = encoding_score(X, Y, model="pls", cv=3)
    assert s.attrs["model"] == "PLSEncoder" and np.all(s.values > 0.9)
    s = encoding_score(X, Y, model=PLSEncoder(2), cv=3)
    assert s.shape == (4,)


def test_dask_cluster_matches_in_memory():
    da = pytest.importorskip("dask.array")
    distributed = pytest.importorskip("distributed")
    X, Y, _ = _data(48, 6, 8, noise=1.0)
    model = RidgeEncoder(alphas=ALPHAS, cv=3)
    ids = [f"s{i}" for i in range(48)]
    feats = xr.DataArray(X, dims=("stimulus", "unit"), coords={"stimulus_id": ("stimulus", ids)})
    mem = encoding_score(feats, _responses(Y, ids), model=model, cv=4)
    lazy = _responses(da.from_array(Y, chunks=(48, 3)), ids)
    shared = RidgeEncoder(alphas=ALPHAS, cv=3, alpha_per_target=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, distributed.Client(cluster):
        got = encoding_score(feats, lazy, model=model, cv=4)
        fit_lazy = RidgeEncoder(alphas=ALPHAS, cv=3).fit(X, da.from_array(Y, chunks=(48, 3)))
        shared_lazy = shared._clone().fit(X, da.from_array(Y, chunks=(48, 3)))
    np.testing.assert_allclose(got.values, mem.values, atol=1e-10)
    assert list(got.roi.values) == list(mem.roi.values)
    fit_mem = RidgeEncoder(alphas=ALPHAS, cv=3).fit(X, Y)
    np.testing.assert_allclose(fit_lazy.coef_, fit_mem.coef_, atol=1e-10)
    np.testing.assert_array_equal(fit_lazy.best_alphas_, fit_mem.best_alphas_)
    shared_mem = shared._clone().fit(X, Y)
    assert shared_lazy.alpha_ == shared_mem.alpha_
    np.testing.assert_allclose(shared_lazy.coef_, shared_mem.coef_, atol=1e-10)


def test_make_folds_matches_kfold():
    from sklearn.model_selection import KFold

    for n, k in [(10, 3), (17, 5)]:
        ours = make_folds(k, n, shuffle=False)
        ref = list(KFold(k).split(np.zeros(n)))
        for (a, b), (c, d) in zip(ours, ref):
            np.testing.assert_array_equal(a, c)
            np.testing.assert_array_equal(b, d)
        # the default: the same fold sizes over shuffled stimuli, reproducibly
        shuffled = make_folds(k, n)
        assert [len(te) for _, te in shuffled] == [len(d) for _, d in ref]
        assert sorted(np.concatenate([te for _, te in shuffled]).tolist()) == list(range(n))
        assert all(np.intersect1d(tr, te).size == 0 for tr, te in shuffled)
        assert any(not np.array_equal(te, d) for (_, te), (_, d) in zip(shuffled, ref))
        again = make_folds(k, n, random_state=0)
        assert all(np.array_equal(a[1], b[1]) for a, b in zip(shuffled, again))


def test_default_folds_are_shuffled_on_category_sorted_stimuli():
    """Stimuli sorted by category (load_floc order): contiguous folds hold out whole
    categories, so a category effect can never be learned; shuffled folds (the default)
    see every category in training (issue 13: median r 0.12 -> 0.35 on fLoc order)."""
    from sklearn.model_selection import KFold

    rng = np.random.default_rng(0)
    n_cat, per = 5, 16
    cat = np.repeat(np.arange(n_cat), per)  # sorted by category
    X = np.hstack([np.eye(n_cat)[cat], 0.1 * rng.standard_normal((n_cat * per, 3))])
    Y = rng.standard_normal((n_cat, 6))[cat] + 0.3 * rng.standard_normal((n_cat * per, 6))
    model = RidgeEncoder(alphas=[1.0], alpha_per_target=False)
    contiguous = encoding_score(X, Y, model=model, cv=KFold(n_cat))
    default = encoding_score(X, Y, model=model, cv=n_cat)
    assert np.median(contiguous.values) < 0.3 < 0.8 < np.median(default.values)
    np.testing.assert_array_equal(
        default.values, encoding_score(X, Y, model=model, cv=n_cat, random_state=0).values)


def test_bad_inputs_raise_typed_errors():
    X, Y, _ = _data(30, 4, 3)
    acts = make_activations({"l": X}, random_state=0)
    other = _responses(Y, [f"other-{i}" for i in range(30)])
    with pytest.raises(AlignmentError, match="Select the common stimuli"):
        encoding_score(acts, other)
    with pytest.raises(AlignmentError, match="have 30 stimuli"):
        RidgeEncoder().fit(X, Y[:20])
    with pytest.raises(InvalidDataError, match="Too few stimuli"):
        RidgeEncoder(cv=5).fit(X[:4], Y[:4])
    bad = Y.copy()
    bad[0, 0] = np.nan
    with pytest.raises(InvalidDataError, match="NaN"):
        RidgeEncoder().fit(X, bad)
    with pytest.raises(InvalidDataError, match="alpha_per_target=False"):
        RidgeEncoder(alphas=1.0).fit(X, Y)
    with pytest.raises(NotFittedError, match="fit"):
        RidgeEncoder().predict(X)
    with pytest.raises(UnknownNameError, match="ridge"):
        encoding_score(X, Y, model="rigde")
    with pytest.raises(UnknownNameError, match="pearson"):
        encoding_score(X, Y, metric="pearsn")
    with pytest.raises(InvalidDataError, match="n_components"):
        PLSEncoder(50).fit(X, Y)
    with pytest.raises(ValueError, match="torch"):
        RidgeEncoder(device="cuda").fit(X, Y)


def test_the_estimators_parameters_are_declared_and_checked_when_fit_starts():
    """RidgeEncoder and PLSEncoder declare their parameters (_parameter_constraints, in
    validate_params's vocabulary): a bad one is refused by name when fit starts, before any
    work, and __init__ keeps what it was given (scikit-learn's rule)."""
    from toponeuro.exceptions import InputTypeError, ParameterError

    X, Y, _ = _data(30, 4, 2)
    est = RidgeEncoder(alphas=[1.0, -1.0])
    assert est.alphas == [1.0, -1.0]  # stored unchanged
    with pytest.raises(ParameterError, match=r"^alphas=\[1.0, -1.0\] is not a number >= 0"):
        est.fit(X, Y)
    with pytest.raises(UnknownNameError, match=r"^scoring='R2' is not one of"):
        RidgeEncoder(scoring="R2").fit(X, Y)
    with pytest.raises(ParameterError, match=r"^cv=1 is not a whole number >= 2"):
        RidgeEncoder(cv=1).fit(X, Y)
    with pytest.raises(InputTypeError, match=r"^alpha_per_target='yes'"):
        RidgeEncoder(alpha_per_target="yes").fit(X, Y)
    with pytest.raises(UnknownNameError, match=r"^algorithm='nipal' is not one of .*'nipals'"):
        PLSEncoder(2, algorithm="nipal").fit(X, Y)
    with pytest.raises(ParameterError, match=r"^n_components=0 is not a whole number >= 1"):
        PLSEncoder(0).fit(X, Y)
    # a splitter and (train, test) pairs are folds too
    from sklearn.model_selection import KFold

    folds = make_folds(3, 30)
    a = RidgeEncoder(alphas=[0.1, 1.0], cv=KFold(3)).fit(X, Y)
    b = RidgeEncoder(alphas=[0.1, 1.0], cv=folds).fit(X, Y)
    assert a.best_alphas_.shape == b.best_alphas_.shape == (2,)


def test_torch_pearson_scoring_and_sklearn_estimator_in_encoding_score():
    from sklearn.linear_model import Ridge

    X, Y, _ = _data(50, 5, 3, noise=0.5)
    a = RidgeEncoder(alphas=ALPHAS, cv=3, scoring="pearson").fit(X, Y)
    b = RidgeEncoder(alphas=ALPHAS, cv=3, scoring="pearson", backend="torch").fit(X, Y)
    np.testing.assert_allclose(a.cv_scores_, b.cv_scores_, atol=1e-10)
    ints = RidgeEncoder(alphas=ALPHAS, cv=3).fit(np.round(X * 10).astype(int), Y)
    assert ints.coef_.dtype == np.float64
    s = encoding_score(X, Y, model=Ridge(1.0), cv=3)
    assert s.attrs["model"] == "Ridge" and np.all(s.values > 0.5)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("shape", [(60, 8), (40, 100)])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_deletion_identity_equals_per_fold_refits(backend, shape, fit_intercept):
    X, Y, _ = _data(*shape)
    kw = {"alphas": ALPHAS, "cv": 4, "backend": backend, "fit_intercept": fit_intercept}
    a = RidgeEncoder(cv_solver="deletion", **kw).fit(X, Y)
    b = RidgeEncoder(cv_solver="per_fold", **kw).fit(X, Y)
    np.testing.assert_allclose(a.cv_scores_, b.cv_scores_, atol=1e-8)
    np.testing.assert_allclose(a.coef_, b.coef_, atol=1e-10)


def test_non_partition_splitters_use_per_fold_path():
    from himalaya.ridge import RidgeCV as HRidgeCV
    from himalaya.scoring import r2_score
    from sklearn.model_selection import ShuffleSplit

    X, Y, _ = _data()
    ss = ShuffleSplit(3, test_size=0.25, random_state=0)
    ours = RidgeEncoder(alphas=ALPHAS, cv=ss).fit(X, Y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = HRidgeCV(alphas=ALPHAS, cv=ss, fit_intercept=True,
                       solver_params={"score_func": r2_score}).fit(X, Y)
    np.testing.assert_allclose(ours.cv_scores_.max(0), np.asarray(ref.cv_scores_), atol=1e-6)
    with pytest.raises(InvalidDataError, match="per_fold"):
        RidgeEncoder(alphas=ALPHAS, cv=ss, cv_solver="deletion").fit(X, Y)
    with pytest.raises(UnknownNameError, match="per_fold"):
        RidgeEncoder(alphas=ALPHAS, cv_solver="per-fold").fit(X, Y)


def test_ceiling_units_are_checked():
    """NSD's ceiling is in percent variance; passing it as an r ceiling used to turn
    r = 0.83 into 0.01 (issue 13). Now a typed error names the conversion."""
    from toponeuro.brain import make_repeated_responses, voxel_noise_ceiling
    from toponeuro.exceptions import UndefinedValueWarning, UnitsError

    resp, signal = make_repeated_responses(60, 3, 3, noise=0.5, return_signal=True)
    rng = np.random.default_rng(1)
    nc = voxel_noise_ceiling(resp)
    assert nc.attrs["units"] == "percent variance" and float(nc.max()) > 50
    X, Y = signal + 0.3 * rng.standard_normal(signal.shape), signal
    model = RidgeEncoder(alphas=[1.0], alpha_per_target=False)
    raw = encoding_score(X, Y, model=model, cv=4)
    with pytest.raises(UnitsError, match=r"np.sqrt\(nc / 100\)"):
        encoding_score(X, Y, model=model, cv=4, ceiling=nc)
    with pytest.raises(UnitsError, match=r"nc / 100"):
        encoding_score(X, Y, model=model, cv=4, metric="r2", ceiling=nc.values)  # unlabelled
    fixed = encoding_score(X, Y, model=model, cv=4, ceiling=np.sqrt(nc.values / 100))
    np.testing.assert_allclose(fixed.values, raw.values / np.sqrt(nc.values / 100))
    with pytest.raises(UnitsError, match="square it"):
        encoding_score(X, Y, model=model, cv=4, metric="r2",
                       ceiling=nc.copy(data=np.full(3, 0.9)).assign_attrs(units="r"))
    with pytest.warns(UndefinedValueWarning, match="ceiling of 0"):
        out = encoding_score(X, Y, model=model, cv=4, ceiling=np.array([0.9, 0.0, np.nan]))
    assert np.isfinite(out.values[0]) and np.isnan(out.values[1:]).all()


def test_a_labelled_ceiling_is_matched_to_the_voxels_by_their_coords():
    """A ceiling computed before the responses were reordered used to divide the wrong
    voxels' scores; now it is matched on the voxel coords both carry, or refused."""
    from toponeuro.brain import make_brain_responses
    from toponeuro.exceptions import AlignmentError

    rng = np.random.default_rng(2)
    X = rng.standard_normal((60, 5))
    Y = X @ rng.standard_normal((5, 4)) + rng.standard_normal((60, 4)) * [0.1, 0.5, 1.0, 2.0]
    ids = [f"s{i}" for i in range(60)]
    resp = make_brain_responses(Y, ids, xyz=np.arange(12).reshape(4, 3))
    feats = xr.DataArray(X, dims=("stimulus", "feature"), coords={"stimulus_id": ("stimulus", ids)})
    ceiling = xr.DataArray([0.9, 0.8, 0.6, 0.3], dims=(resp.dims[1],),
                           coords={k: v for k, v in resp.coords.items() if v.dims == (resp.dims[1],)})
    model = RidgeEncoder(alphas=[1.0], alpha_per_target=False)
    base = encoding_score(feats, resp, model=model, cv=4, ceiling=ceiling)
    flipped = resp.isel({resp.dims[1]: [3, 2, 1, 0]})
    out = encoding_score(feats, flipped, model=model, cv=4, ceiling=ceiling)
    np.testing.assert_allclose(out.values, base.values[::-1])
    # positional use of the same numbers would divide by the wrong voxels' ceilings
    assert not np.allclose(out.values, base.values[::-1] * [0.3, 0.6, 0.8, 0.9] / [0.9, 0.8, 0.6, 0.3])
    with pytest.raises(AlignmentError, match="no ceiling"):
        encoding_score(feats, resp, model=model, cv=4,
                       ceiling=ceiling.assign_coords(x=(resp.dims[1], [9, 9, 9, 99])))


def test_labelled_features_with_plain_responses_warn_that_they_pair_by_position():
    """Labels beat positions: with ids on one side only the pairing is by position, which is
    right only if the orders agree -- said with a PairedByPositionWarning (before: silent;
    shuffled responses scored r = 0.07 instead of 0.68 with no word). Both plain: on purpose,
    no warning; both labelled: joined by id."""
    import warnings

    from toponeuro import make_activations
    from toponeuro.exceptions import PairedByPositionWarning

    acts = make_activations({"a": 16}, n_stimuli=40, random_state=0)
    Y = np.asarray(acts)[:, :3] + 0.1 * np.random.default_rng(0).standard_normal((40, 3))
    with pytest.warns(PairedByPositionWarning, match="Label the responses"):
        encoding_score(acts, Y, random_state=0)
    with pytest.warns(PairedByPositionWarning, match="Label the targets"):
        RidgeEncoder().fit(acts, Y)
    resp = xr.DataArray(Y, dims=("stimulus", "voxel"),
                        coords={"stimulus_id": ("stimulus", acts.stimulus_id.values)})
    with warnings.catch_warnings():
        warnings.simplefilter("error", PairedByPositionWarning)
        encoding_score(np.asarray(acts), Y, random_state=0)
        encoding_score(acts, resp.isel(stimulus=slice(None, None, -1)), random_state=0)
