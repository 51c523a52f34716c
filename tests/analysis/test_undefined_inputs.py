"""An undefined input never gives a confident answer (issue 45): a constant model RDM,
missing RDM entries and a dead layer mean the same in every function -- NaN with an
UndefinedValueWarning where a value is undefined, missing pairs left out -- as
compare_rdms and rdm_noise_ceiling already did."""

import warnings

import numpy as np
import pytest

from toponeuro import make_activations
from toponeuro.analysis import (
    compare_rdm_models,
    compare_rdms,
    dimensionality,
    rdm_noise_ceiling,
)
from toponeuro.exceptions import InvalidDataError, UndefinedValueWarning


def _data(seed=0, n_pairs=190, n_rdms=6):
    rng = np.random.default_rng(seed)
    truth = rng.random(n_pairs)
    return truth, truth + 0.3 * rng.standard_normal((n_rdms, n_pairs))


# ------------------------------------------------------------------ constant model RDM
def test_constant_model_rdm_is_nan_not_a_confident_zero():
    """Before: evaluation 0.0 and 'differs from truth, p ~ 1e-13'; compare_rdms said NaN."""
    truth, data = _data()
    const = np.ones_like(truth)
    with pytest.warns(UndefinedValueWarning, match="for these RDMs"):
        assert np.isnan(compare_rdms(const, data[0]))
    with pytest.warns(UndefinedValueWarning, match=r"Model RDM\(s\) \['const'\] are constant"):
        res = compare_rdm_models({"truth": truth, "const": const}, data, n_bootstrap=60,
                                 random_state=0)
    row = res.table().set_index("model").loc["const"]
    assert row.isna().all()  # value, mean, sem, CI and both p-values
    assert res.p_pairwise.loc["truth", "const"] != res.p_pairwise.loc["truth", "const"]
    assert np.isnan(res.evaluations[:, 1]).all()
    # the other model's numbers are those of a run without the constant one
    alone = compare_rdm_models({"truth": truth}, data, n_bootstrap=60, random_state=0)
    for f in ("value", "mean", "sem", "ci_low", "ci_high", "p_zero", "p_noise_ceiling"):
        np.testing.assert_array_equal(getattr(res, f)[:1], getattr(alone, f))
    np.testing.assert_array_equal(res.evaluations[:, :1], alone.evaluations)


def test_constant_over_the_chosen_stimuli_only():
    """A category model that varies elsewhere but is constant over these stimuli."""
    truth, data = _data(1, n_pairs=45)
    with pytest.warns(UndefinedValueWarning, match="constant over the chosen stimuli"):
        res = compare_rdm_models({"truth": truth, "cat": np.full(45, 2.0)}, data,
                                 n_bootstrap=30, random_state=0)
    assert np.isnan(res.value[1]) and np.isfinite(res.value[0])


def test_every_model_constant_or_constant_data_refused():
    truth, data = _data(2, n_pairs=45)
    with pytest.raises(InvalidDataError, match="Every model RDM is constant"):
        compare_rdm_models({"a": np.ones(45)}, data, n_bootstrap=10, random_state=0)
    flat = data.copy()
    flat[2] = 0.5
    with pytest.raises(InvalidDataError, match=r"Data RDM\(s\) \[2\] are constant"):
        compare_rdm_models({"truth": truth}, flat, n_bootstrap=10, random_state=0)


def test_cosine_constant_model_is_defined():
    """Under cosine a constant (non-zero) RDM has a value; only an all-zero one has none."""
    truth, data = _data(3, n_pairs=45)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UndefinedValueWarning)
        res = compare_rdm_models({"truth": truth, "c": np.ones(45)}, data, method="cosine",
                                 n_bootstrap=20, random_state=0)
    assert np.isfinite(res.value).all()


# ------------------------------------------------------------------ missing entries
def test_nan_entry_in_a_data_rdm_is_left_out_as_compare_rdms_does():
    """Before: rsatoolbox's bare ValueError 'rdm1 and rdm2 have different nan positions'."""
    truth, data = _data(4)
    data[0, 5] = np.nan
    data[3, [7, 11]] = np.nan
    res = compare_rdm_models({"truth": truth}, data, n_bootstrap=40, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedValueWarning)
        want = np.mean([compare_rdms(truth, d) for d in data])  # pairs left out per RDM
    assert res.value[0] == pytest.approx(want, abs=1e-12)
    assert res.noise_ceiling == pytest.approx(rdm_noise_ceiling(data))
    assert np.isfinite(res.mean[0]) and np.isfinite(res.p_zero[0])
    assert np.isfinite(res.evaluations).all()


def test_nan_entries_refused_for_whitened_methods():
    truth, data = _data(5, n_pairs=45)
    data[0, 3] = np.nan
    with pytest.raises(InvalidDataError, match="needs complete RDMs"):
        compare_rdm_models({"truth": truth}, data, method="corr_cov", n_bootstrap=10)


def test_complete_data_unchanged_by_the_missing_path():
    """No NaN: rsatoolbox's own compare and noise ceiling, the numbers as before."""
    import rsatoolbox

    truth, data = _data(6, n_pairs=45)
    res = compare_rdm_models({"truth": truth}, data, n_bootstrap=20, random_state=0)
    rt = rsatoolbox.rdm.compare(rsatoolbox.rdm.RDMs(truth[None]), rsatoolbox.rdm.RDMs(data),
                                "spearman")
    assert res.value[0] == pytest.approx(float(np.mean(rt)), abs=1e-12)


# ------------------------------------------------------------------ dimensionality
def test_dead_layer_is_nan_and_the_other_layers_are_measured():
    """Before: one all-zero layer stopped dimensionality() for every layer."""
    acts = make_activations({"a": 16, "b": 25}, n_stimuli=40, random_state=0)
    dead = acts.copy(data=np.where((acts.layer == "b").values[None, :], 0.0, acts.values))
    with pytest.warns(UndefinedValueWarning, match="Layer 'b' has zero variance"):
        res = dimensionality(dead)
    assert np.isnan(res["effective_dimensionality"].sel(layer="b"))
    assert np.isnan(res["participation_ratio"].sel(layer="b"))
    ref = dimensionality(acts, layers=["a"])
    assert float(res["effective_dimensionality"].sel(layer="a")) == float(
        ref["effective_dimensionality"].sel(layer="a"))


# ------------------------------------------------------------------ empty inputs
@pytest.mark.parametrize("shape_x, shape_y, who", [((40, 0), (40, 3), "features"),
                                                   ((40, 5), (40, 0), "responses")])
def test_empty_features_or_responses_are_a_typed_error(shape_x, shape_y, who):
    """Before: no columns of features gave NaN for every voxel (blamed on the responses), no
    responses a bare ValueError 'range() arg 3 must not be zero'."""
    from toponeuro.analysis import encoding_score

    rng = np.random.default_rng(0)
    with pytest.raises(InvalidDataError, match=f"The {who} are empty"):
        encoding_score(rng.random(shape_x), rng.random(shape_y), cv=4)
