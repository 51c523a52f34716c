"""RDMs keep their stimuli: alignment by id, undefined comparisons, caches keyed on every id
(issue 13), and rsatoolbox's method names (issue 12)."""

import warnings

import numpy as np
import pytest
import rsatoolbox as rt
import xarray as xr

from toponeuro import make_activations
from toponeuro.analysis import (
    COMPARE_ALIASES,
    bootstrap_compare_rdms,
    compare_rdms,
    rdm,
    rdm_noise_ceiling,
    rdm_stimulus_ids,
    searchlight_rsa,
    sweep,
    to_rsatoolbox_rdms,
)
from toponeuro.exceptions import AlignmentError, UndefinedValueWarning


def _acts_and_responses(n=30, seed=0):
    rng = np.random.default_rng(seed)
    latent = rng.standard_normal((n, 4))
    acts = make_activations({"a": latent @ rng.standard_normal((4, 20))}, random_state=0)
    resp = xr.DataArray(latent @ rng.standard_normal((4, 9)) + 0.8 * rng.standard_normal((n, 9)),
                        dims=("stimulus", "voxel"),
                        coords={"stimulus_id": ("stimulus", acts.stimulus_id.values),
                                "roi": ("voxel", ["V1"] * 9)})
    return acts, resp


def test_rdm_is_labelled_condensed_and_square():
    acts, _ = _acts_and_responses(6)
    c, s = rdm(acts), rdm(acts, "euclidean", square=True)
    assert c.dims == ("pair",) and c.attrs["metric"] == "correlation"
    assert c.attrs["n_stimuli"] == 6
    assert list(c.attrs["stimulus_id"]) == list(acts.stimulus_id.values)
    assert s.dims == ("stimulus", "stimulus_b") and s.attrs["metric"] == "euclidean"
    assert list(s.stimulus_id.values) == list(s.stimulus_id_b.values) == list(
        acts.stimulus_id.values)
    # np.asarray gives the plain arrays every caller used before
    assert isinstance(np.asarray(c), np.ndarray) and np.asarray(c).shape == (15,)
    np.testing.assert_allclose(np.asarray(s)[np.triu_indices(6, 1)], rdm(acts, "euclidean"))
    assert rdm_stimulus_ids(np.asarray(c)) is None and "stimulus_id" not in rdm(acts.values).attrs


def test_compare_aligns_by_stimulus_id():
    acts, resp = _acts_and_responses()
    perm = np.random.default_rng(5).permutation(resp.sizes["stimulus"])
    shuffled = resp.isel(stimulus=perm)
    same_order = compare_rdms(rdm(acts), rdm(resp))
    assert same_order > 0.3
    # before: the bare arrays were compared position by position (rho near 0)
    assert abs(compare_rdms(np.asarray(rdm(acts)), np.asarray(rdm(shuffled)))) < 0.2
    assert compare_rdms(rdm(acts), rdm(shuffled)) == pytest.approx(same_order, abs=1e-12)
    assert compare_rdms(rdm(acts, square=True), rdm(shuffled)) == pytest.approx(same_order)
    boot = bootstrap_compare_rdms(rdm(acts), rdm(shuffled), n_bootstrap=30, random_state=0)
    ref = bootstrap_compare_rdms(rdm(acts), rdm(resp), n_bootstrap=30, random_state=0)
    np.testing.assert_allclose(boot.samples, ref.samples)


def test_mismatched_or_sliced_ids_raise():
    acts, resp = _acts_and_responses(10)
    other = resp.assign_coords(stimulus_id=("stimulus", [f"x{i}" for i in range(10)]))
    with pytest.raises(AlignmentError, match="10 ids only in first RDM"):
        compare_rdms(rdm(acts), rdm(other))
    with pytest.raises(AlignmentError, match="sliced"):
        compare_rdms(rdm(acts)[:36], rdm(resp)[:36])
    with pytest.raises(AlignmentError, match="same stimuli"):
        rdm_noise_ceiling([rdm(resp), rdm(other)])


def test_noise_ceiling_aligns_subjects_by_id():
    rng = np.random.default_rng(2)
    acts, _ = _acts_and_responses(12)
    subjects = [acts.copy(data=acts.values + rng.standard_normal(acts.shape)) for _ in range(4)]
    ordered = rdm_noise_ceiling([rdm(s) for s in subjects])
    shuffled = [s.isel(stimulus=rng.permutation(12)) for s in subjects]
    assert rdm_noise_ceiling([rdm(s) for s in shuffled]) == pytest.approx(ordered)
    assert rdm_noise_ceiling(np.stack([np.asarray(rdm(s)) for s in subjects])) == pytest.approx(
        ordered)


@pytest.mark.parametrize("method", ["spearman", "pearson", "corr", "kendall_tau_a", "tau-a",
                                    "tau-b", "rho-a", "cosine", "corr_cov"])
def test_constant_rdm_is_nan_with_a_warning_not_zero(method):
    varied = np.asarray(rdm(np.random.default_rng(0).standard_normal((6, 5))))
    const = np.full(15, 0.7) if method != "cosine" else np.zeros(15)
    with pytest.warns(UndefinedValueWarning, match="undefined"):
        assert np.isnan(compare_rdms(const, varied, method))  # before: 0.0


def test_bootstrap_leaves_undefined_resamples_out_and_counts_them():
    # only stimulus 0 differs from the others: resamples without it give a constant RDM
    sq = np.zeros((5, 5))
    sq[0, 1:] = sq[1:, 0] = 1.0
    sq[np.triu_indices(5, 1)] += 1.0
    sq = np.triu(sq, 1) + np.triu(sq, 1).T
    b = sq[np.triu_indices(5, 1)] + np.random.default_rng(0).normal(0, 0.1, 10)
    with pytest.warns(UndefinedValueWarning, match="left out"):
        r = bootstrap_compare_rdms(sq, b, "pearson", n_bootstrap=200, random_state=0)
    assert r.n_undefined > 20 and r.samples.size + r.n_undefined == 200
    assert np.all(np.isfinite(r.samples)) and not np.any(r.samples == 0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        v = np.asarray(rdm(np.random.default_rng(0).standard_normal((12, 5))))
        assert bootstrap_compare_rdms(v, v + 1.0, "pearson", n_bootstrap=20).n_undefined == 0


def test_sweep_caches_region_rdms_on_every_stimulus_id():
    """A model whose stimuli share the first ids of another's but not the rest of the order
    must get its own region RDM (before: cached on the first three ids only)."""
    acts, resp = _acts_and_responses(24)
    order = np.r_[0, 1, 2, np.random.default_rng(3).permutation(np.arange(3, 24))]
    # the same model, its stimuli extracted in another order
    twin = make_activations({"a": acts.values[order]}, stimulus_ids=acts.stimulus_id.values[order])
    table = sweep({"first": acts, "second": twin}, ["a"], resp, progress=False)
    got = table.set_index("model").score
    aligned = resp.isel(stimulus=order)
    truth = compare_rdms(np.asarray(rdm(twin)), np.asarray(rdm(aligned)))
    wrong = compare_rdms(np.asarray(rdm(twin)), np.asarray(rdm(resp)))
    assert truth > 0.3 and abs(wrong) < 0.15  # the planted case tells the two apart
    assert got["second"] == pytest.approx(truth, abs=1e-12)  # before: == wrong
    assert got["first"] == pytest.approx(compare_rdms(rdm(acts), rdm(resp)), abs=1e-12)


def test_searchlight_reorders_a_labelled_model_rdm():
    acts, resp = _acts_and_responses(14)
    resp = resp.assign_coords(x=("voxel", np.arange(9.0)), y=("voxel", np.zeros(9)),
                              z=("voxel", np.zeros(9)))
    model = rdm(acts)
    ref = searchlight_rsa(resp, model, radius=1.5)
    shuffled = rdm(acts.isel(stimulus=np.random.default_rng(0).permutation(14)))
    np.testing.assert_allclose(searchlight_rsa(resp, shuffled, radius=1.5), ref)


def test_to_rsatoolbox_rdms_keeps_ids_and_metric():
    acts, _ = _acts_and_responses(5)
    r = to_rsatoolbox_rdms(rdm(acts, "euclidean"))
    assert r.dissimilarity_measure == "euclidean"
    assert list(r.pattern_descriptors["stimulus_id"]) == list(acts.stimulus_id.values)


@pytest.mark.parametrize("alias", sorted(COMPARE_ALIASES))
def test_rsatoolbox_method_names_are_aliases_with_parity(alias):
    rng = np.random.default_rng(1)
    a = np.round(np.asarray(rdm(rng.standard_normal((9, 6)))), 1)  # ties too
    b = np.round(a + rng.normal(0, 0.3, a.shape), 1)
    ref = rt.rdm.compare(rt.rdm.RDMs(a[None]), rt.rdm.RDMs(b[None]), method=alias)[0, 0]
    assert compare_rdms(a, b, alias) == pytest.approx(ref, abs=1e-10)
    assert compare_rdms(a, b, alias) == compare_rdms(a, b, COMPARE_ALIASES[alias])


def test_an_rsatoolbox_rdms_is_joined_by_its_stimulus_id_descriptor():
    # before: compare_rdms / rdm_noise_ceiling on an rsatoolbox RDMs raised numpy's
    # "setting an array element with a sequence" ValueError
    acts = make_activations({"a": 30}, n_stimuli=8, random_state=0)
    perm = np.random.default_rng(1).permutation(8)
    a, b = rdm(acts), rdm(acts.isel(stimulus=perm))
    assert compare_rdms(to_rsatoolbox_rdms(a), to_rsatoolbox_rdms(b), "pearson") == (
        pytest.approx(1.0))
    assert compare_rdms(a, to_rsatoolbox_rdms(b), "pearson") == pytest.approx(1.0)
    assert np.allclose(rdm_noise_ceiling([to_rsatoolbox_rdms(a), to_rsatoolbox_rdms(b)],
                                         "pearson"), 1.0)
    plain = rt.rdm.RDMs(np.asarray(b)[None])  # no stimulus_id descriptor: never by position
    with pytest.raises(AlignmentError, match="plain"):
        compare_rdms(a, plain)
    from toponeuro.exceptions import DimensionError

    with pytest.raises(DimensionError, match="2 RDMs"):
        compare_rdms(a, rt.rdm.concat([plain, plain]))


def test_a_stack_of_rdms_made_with_xr_concat_is_joined_by_each_rdms_ids():
    """xr.concat of square RDMs in different stimulus orders keeps each one's ids (a 2-D
    stimulus_id coord): every slice is joined by its own ids (before: np.asarray of the
    stack paired them by position, noise ceiling (-0.12, 0.66) for identical RDMs). A stack
    of condensed RDMs has one attrs['stimulus_id'] for all rows (concat keeps the first
    RDM's): refused, naming the list and the plain-array routes."""
    subjects = [_acts_and_responses(12, seed=s)[0] for s in range(3)]
    orders = [np.arange(12), np.random.default_rng(1).permutation(12),
              np.random.default_rng(2).permutation(12)]
    square = [rdm(a.isel(stimulus=o), square=True) for a, o in zip(subjects, orders)]
    stacked = xr.concat(square, dim="subject")
    assert stacked[0].shape == (12, 12)
    expected = rdm_noise_ceiling([rdm(a) for a in subjects])
    assert rdm_noise_ceiling(stacked) == pytest.approx(expected)
    assert rdm_noise_ceiling(square) == pytest.approx(expected)
    back = to_rsatoolbox_rdms(stacked)
    assert list(back.pattern_descriptors["stimulus_id"]) == list(subjects[0].stimulus_id.values)
    np.testing.assert_allclose(back.dissimilarities, to_rsatoolbox_rdms(
        [rdm(a) for a in subjects]).dissimilarities, rtol=1e-6)

    condensed = xr.concat([rdm(a.isel(stimulus=o)) for a, o in zip(subjects, orders)],
                          dim="subject")
    with pytest.raises(AlignmentError, match="as a list"):
        rdm_noise_ceiling(condensed)
    same_order = np.asarray(xr.concat([rdm(a) for a in subjects], dim="subject"))
    assert rdm_noise_ceiling(same_order) == pytest.approx(expected)
