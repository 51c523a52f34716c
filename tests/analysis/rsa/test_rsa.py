"""RSA: RDMs and comparisons equal rsatoolbox 0.3.2 (and scipy), blockwise, bad input."""

import warnings

import numpy as np
import pytest
import rsatoolbox as rt
from scipy.spatial.distance import pdist, squareform

from toponeuro import make_activations
from toponeuro.analysis import (
    COMPARE_METHODS,
    bootstrap_compare_rdms,
    compare_rdms,
    from_rsatoolbox_dataset,
    from_rsatoolbox_rdms,
    rdm,
    rdm_noise_ceiling,
    to_rsatoolbox_dataset,
    to_rsatoolbox_rdms,
)
from toponeuro.analysis.rsa._rsa_compare import RSATOOLBOX_METHODS
from toponeuro.exceptions import DimensionError, InvalidDataError, UnknownNameError

BACKENDS = ["numpy", "torch"]
rng0 = np.random.default_rng(0)
X = rng0.standard_normal((17, 23))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("block", [None, 4])
def test_rdm_metrics_match_rsatoolbox_and_scipy(backend, block):
    ds = rt.data.Dataset(X)
    kw = {"backend": backend, "block_size": block}
    ref = rt.rdm.calc_rdm(ds, method="correlation").get_vectors()[0]
    np.testing.assert_allclose(rdm(X, "correlation", **kw), ref, atol=1e-10)
    ref = rt.rdm.calc_rdm(ds, method="euclidean").get_vectors()[0]
    np.testing.assert_allclose(rdm(X, "sqeuclidean", **kw), ref, atol=1e-10)
    for metric in ("euclidean", "cosine"):
        np.testing.assert_allclose(rdm(X, metric, **kw), pdist(X, metric), atol=1e-10)
        np.testing.assert_allclose(rdm(X, metric, square=True, **kw),
                                   squareform(pdist(X, metric)), atol=1e-10)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("with_noise", [False, True])
@pytest.mark.filterwarnings("ignore:invalid value encountered in cast")  # rsatoolbox
def test_crossnobis_matches_rsatoolbox(backend, with_noise):
    rng = np.random.default_rng(1)
    n_cond, n_runs, p = 9, 4, 12
    conds = np.tile(np.arange(n_cond), n_runs)
    runs = np.repeat(np.arange(n_runs), n_cond)
    data = np.tile(rng.standard_normal((n_cond, p)), (n_runs, 1))
    data = data + rng.standard_normal(data.shape)
    order = rng.permutation(len(conds))  # rows in any order
    data, conds, runs = data[order], conds[order], runs[order]
    noise = np.linalg.inv(np.cov(rng.standard_normal((80, p)).T)) if with_noise else None
    ds = rt.data.Dataset(data, obs_descriptors={"c": conds, "r": runs})
    ref = rt.rdm.calc_rdm(ds, method="crossnobis", descriptor="c", cv_descriptor="r",
                          noise=noise).get_vectors()[0]
    got = rdm(data, "crossnobis", conditions=conds, runs=runs, noise=noise, backend=backend,
              block_size=3)
    np.testing.assert_allclose(got, ref, atol=1e-10)


def test_crossnobis_reads_coords_and_is_unbiased():
    rng = np.random.default_rng(2)
    n_runs = 6
    truth = np.zeros((3, 200))  # all conditions identical: true distances are 0
    data = np.tile(truth, (n_runs, 1)) + rng.standard_normal((3 * n_runs, 200))
    import xarray as xr

    da = xr.DataArray(data, dims=("stimulus", "voxel"),
                      coords={"cond": ("stimulus", np.tile([0, 1, 2], n_runs)),
                              "run": ("stimulus", np.repeat(np.arange(n_runs), 3))})
    cv = rdm(da, "crossnobis", conditions="cond", runs="run")
    plain = rdm(data.reshape(n_runs, 3, 200).mean(0), "sqeuclidean")
    assert abs(cv.mean()) < 0.1 < plain.mean()


def _pairs():
    a = np.asarray(rdm(X))
    b = np.asarray(rdm(X + rng0.standard_normal(X.shape)))
    return [(a, b), (a, np.round(b, 1)), (np.round(a, 1), np.round(b, 1))]  # with ties


@pytest.mark.parametrize("method", list(COMPARE_METHODS))
def test_compare_matches_rsatoolbox(method):
    for a, b in _pairs():
        ref = rt.rdm.compare(rt.rdm.RDMs(a[None]), rt.rdm.RDMs(b[None]),
                             method=RSATOOLBOX_METHODS[method])[0, 0]
        assert compare_rdms(a, b, method) == pytest.approx(ref, abs=1e-10)
        assert compare_rdms(squareform(a), squareform(b), method) == pytest.approx(ref, abs=1e-10)


@pytest.mark.parametrize("method", list(COMPARE_METHODS))
def test_noise_ceiling_matches_rsatoolbox(method):
    rng = np.random.default_rng(3)
    truth = np.asarray(rdm(X))
    subjects = truth + 0.4 * rng.standard_normal((6, truth.size))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = rt.inference.boot_noise_ceiling(rt.rdm.RDMs(subjects),
                                              method=RSATOOLBOX_METHODS[method])
    got = rdm_noise_ceiling(subjects, method)
    np.testing.assert_allclose(got, ref, atol=1e-10)
    assert got[0] <= got[1]
    np.testing.assert_allclose(rdm_noise_ceiling([squareform(s) for s in subjects], method), got)


def test_compare_skips_nans_like_rsatoolbox():
    a, b = _pairs()[0]
    a, b = a.copy(), b.copy()
    a[[3, 10]] = np.nan
    b[[3, 10]] = np.nan
    ref = rt.rdm.compare(rt.rdm.RDMs(a[None]), rt.rdm.RDMs(b[None]), method="spearman")[0, 0]
    assert compare_rdms(a, b) == pytest.approx(ref, abs=1e-10)
    with pytest.raises(InvalidDataError, match="complete"):
        compare_rdms(a, b, "cosine_cov")


def test_bootstrap_ci_is_reproducible_and_covers():
    a, b = _pairs()[0]
    r1 = bootstrap_compare_rdms(a, b, n_bootstrap=200, random_state=0)
    r2 = bootstrap_compare_rdms(a, b, n_bootstrap=200, random_state=0)
    np.testing.assert_array_equal(r1.samples, r2.samples)
    assert r1.ci_low < r1.value < r1.ci_high
    assert r1.value == compare_rdms(a, b)
    # identical RDMs: every resample gives exactly 1
    r = bootstrap_compare_rdms(a, a, "pearson", n_bootstrap=20, random_state=1)
    np.testing.assert_allclose(r.samples, 1.0)
    r = bootstrap_compare_rdms(a, b, "corr_cov", n_bootstrap=20, random_state=1)
    assert np.all(np.isfinite(r.samples))


def test_block_condensed_equals_square_and_float32():
    big = np.random.default_rng(4).standard_normal((301, 40)).astype(np.float32)
    cond = rdm(big, block_size=37)
    sq = rdm(big, square=True, block_size=50)
    assert cond.dtype == np.float32 and sq.dtype == np.float32
    np.testing.assert_allclose(squareform(cond, checks=False), sq, atol=1e-6)
    np.testing.assert_allclose(cond, pdist(big.astype(np.float64), "correlation"), atol=1e-5)


def test_labelled_input_and_converters_roundtrip():
    acts = make_activations({"a": 6, "b": 4}, n_stimuli=5, random_state=0)
    ds = to_rsatoolbox_dataset(acts)
    ref = rt.rdm.calc_rdm(ds, method="correlation").get_vectors()[0]
    np.testing.assert_allclose(rdm(acts), ref, atol=1e-6)
    back = from_rsatoolbox_dataset(ds)
    assert back.dims == acts.dims and list(back.layer.values) == list(acts.layer.values)
    np.testing.assert_array_equal(back.values, acts.values)
    r = to_rsatoolbox_rdms(rdm(acts), metric="correlation", stimulus_ids=acts.stimulus_id.values)
    assert r.n_cond == 5 and list(r.pattern_descriptors["stimulus_id"]) == list(
        acts.stimulus_id.values)
    back_rdm = from_rsatoolbox_rdms(r)[0]
    np.testing.assert_allclose(back_rdm, rdm(acts))
    # the round trip keeps the ids and metric, so it aligns with a reordered RDM by id
    assert back_rdm.attrs["stimulus_id"].tolist() == acts.stimulus_id.values.tolist()
    assert back_rdm.attrs["metric"] == "correlation"
    flipped = rdm(acts.isel(stimulus=[4, 3, 2, 1, 0]))
    assert float(compare_rdms(back_rdm, flipped, "pearson")) == pytest.approx(1.0)
    subj = rt.rdm.RDMs(np.stack([rdm(acts), rdm(acts)]), rdm_descriptors={"subject": ["s1", "s2"]})
    unlabelled = from_rsatoolbox_rdms(subj)
    assert [u.attrs["subject"] for u in unlabelled] == ["s1", "s2"]
    assert "stimulus_id" not in unlabelled[0].attrs
    assert np.asarray(unlabelled).shape == (2, 10)
    stack = to_rsatoolbox_rdms(np.stack([rdm(acts), rdm(acts, "euclidean")]))
    assert stack.n_rdm == 2


def test_bad_inputs():
    a = rdm(X)
    with pytest.raises(DimensionError, match="square"):
        compare_rdms(np.zeros((3, 4)), a)
    sq = squareform(a)
    sq[0, 1] += 1.0
    with pytest.raises(InvalidDataError, match="not symmetric"):
        compare_rdms(sq, a)
    diag = squareform(a)
    np.fill_diagonal(diag, 1.0)
    with pytest.raises(InvalidDataError, match="diagonal"):
        compare_rdms(diag, a)
    with pytest.raises(DimensionError, match="n\\*\\(n-1\\)/2"):
        compare_rdms(a[:-1], a[:-1])
    with pytest.raises(DimensionError, match="same stimuli"):
        compare_rdms(a, rdm(X[:-1]))
    with pytest.raises(UnknownNameError, match="spearman"):
        compare_rdms(a, a, "spearmann")
    with pytest.raises(UnknownNameError, match="correlation"):
        rdm(X, "corelation")
    with pytest.raises(InvalidDataError, match="conditions= and runs="):
        rdm(X, "crossnobis")
    with pytest.raises(InvalidDataError, match="'crossnobis' only"):
        rdm(X, "correlation", runs=np.zeros(17))
    with pytest.raises(InvalidDataError, match="constant"):
        rdm(np.ones((3, 4)))
    bad = X.copy()
    bad[1, 1] = np.nan
    with pytest.raises(InvalidDataError, match="NaN"):
        rdm(bad)
    with pytest.raises(InvalidDataError, match="at least 2 subjects"):
        rdm_noise_ceiling(a.values[None], "spearman")
    with pytest.raises(InvalidDataError, match="every condition"):
        rdm(X[:5], "crossnobis", conditions=[0, 1, 2, 0, 1], runs=[0, 0, 0, 1, 1])
