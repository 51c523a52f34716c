"""Localise on one stimulus set, test on another (issue 31): ``localizer_transfer`` finds a
planted transfer, its permutation p is calibrated on null data, and bad inputs say what to do."""

import numpy as np
import pytest
import xarray as xr

from toponeuro import make_activations
from toponeuro.analysis import TransferResult, localizer_transfer, null_p_value
from toponeuro.exceptions import (
    AlignmentError,
    InvalidDataError,
    UndefinedValueWarning,
    UnknownNameError,
)

N_UNITS = 30
CATS_A = np.array(["faces", "objects", "places"] * 12)  # set A: 36 stimuli
CATS_B = np.array(["face", "body", "object", "place"] * 8)  # set B: 32 other stimuli
IDS_B = [f"b{i:02d}" for i in range(CATS_B.size)]
FACE_UNITS = np.arange(5)


def _sets(rng, a_gain=1.5, b_gain=1.5, b_units=FACE_UNITS):
    sel_a = np.zeros(N_UNITS)
    sel_a[FACE_UNITS] = a_gain
    sel_b = np.zeros(N_UNITS)
    sel_b[b_units] = b_gain
    xa = rng.standard_normal((CATS_A.size, N_UNITS)) + np.outer(CATS_A == "faces", sel_a)
    xb = rng.standard_normal((CATS_B.size, N_UNITS)) + np.outer(CATS_B == "face", sel_b)
    a = make_activations({"fc": xa}, categories=list(CATS_A))
    b = make_activations({"fc": xb}, categories=list(CATS_B), stimulus_ids=IDS_B)
    return a, b


# ----------------------------------------------------------------- planted ground truth
def test_units_selective_on_both_sets_transfer():
    a, b = _sets(np.random.default_rng(0))
    r = localizer_transfer(a, b, "faces", "face", top_k=5, n_permutations=499, random_state=0)
    assert isinstance(r, TransferResult)
    assert sorted(r.units.tolist()) == FACE_UNITS.tolist() and r.n_units == 5
    assert r.statistic > 1.5  # Cohen's d of a 1.5 SD effect on 5 averaged units
    assert r.p_value == pytest.approx(1 / 500)  # at the floor: no relabelling does as well
    assert (r.n_target, r.n_against) == (8, 24)
    assert r.localizer == "faces > objects+places" and r.test == "face > body+object+place"
    assert abs(r.null_mean) < 0.2 and 0.2 < r.null_std < 0.8
    assert r.method == "cohen_d" and "Phipson" in r.reference


def test_the_statistic_is_cohens_d_of_the_z_scored_population_response():
    a, b = _sets(np.random.default_rng(1))
    r = localizer_transfer(a, b, "faces", "face", top_k=5, n_permutations=9, random_state=0)
    x = b.values[:, r.units]
    z = (x - x.mean(0)) / x.std(0, ddof=1)
    score = z.mean(1)
    t, o = score[CATS_B == "face"], score[CATS_B != "face"]
    pooled = ((t.size - 1) * t.var(ddof=1) + (o.size - 1) * o.var(ddof=1)) / (score.size - 2)
    assert r.statistic == pytest.approx((t.mean() - o.mean()) / np.sqrt(pooled), rel=1e-12)


def test_units_selective_on_a_only_do_not_transfer():
    a, b = _sets(np.random.default_rng(2), b_units=np.arange(10, 15))  # B's face units differ
    r = localizer_transfer(a, b, "faces", "face", top_k=5, n_permutations=199, random_state=0)
    assert sorted(r.units.tolist()) == FACE_UNITS.tolist()
    assert r.p_value > 0.05 and abs(r.statistic) < 1


def test_a_preference_for_another_category_is_found_with_less():
    a, b = _sets(np.random.default_rng(3), b_gain=-1.5)  # A's face units avoid B's faces
    less = localizer_transfer(a, b, "faces", "face", top_k=5, n_permutations=199,
                              alternative="less", random_state=0)
    greater = localizer_transfer(a, b, "faces", "face", top_k=5, n_permutations=199,
                                 random_state=0)
    assert less.statistic < -1 and less.p_value == pytest.approx(1 / 200)
    assert greater.p_value > 0.9


def test_false_positive_rate_on_null_data_is_near_alpha():
    """200 independent null data sets (A's units selective, B's labels carry nothing): the
    share of p <= 0.05 is within binomial error of 0.05 (sd 0.015 for 200 draws)."""
    rng = np.random.default_rng(4)
    a, _ = _sets(rng)
    p = []
    for k in range(200):
        xb = rng.standard_normal((CATS_B.size, N_UNITS))
        b = make_activations({"fc": xb}, categories=list(CATS_B), stimulus_ids=IDS_B)
        p.append(localizer_transfer(a, b, "faces", "face", top_k=5, n_permutations=39,
                                    random_state=k).p_value)
    p = np.asarray(p)
    assert 0.01 <= (p <= 0.05).mean() <= 0.10
    assert 0.35 < np.median(p) < 0.65  # roughly uniform
    assert (p >= 1 / 40).all()


def test_labels_from_a_stimulus_coord_and_top_k_as_a_fraction():
    rng = np.random.default_rng(5)
    a, b = _sets(rng)
    b = b.assign_coords(face=("stimulus", (CATS_B == "face").astype(int)))
    r = localizer_transfer(a, b, "faces", "1", test_against="0", test_labels="face",
                           top_k=5 / N_UNITS, n_permutations=99, random_state=0)
    ref = localizer_transfer(a, b, "faces", "face", top_k=5, n_permutations=99, random_state=0)
    assert r.n_units == 5 and r.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert r.p_value == ref.p_value  # same draws: null_p_value of the same null
    # labels given as arrays work the same
    r2 = localizer_transfer(a.drop_vars("category"), b, "faces", "face", labels=CATS_A,
                            test_labels=CATS_B, top_k=5, n_permutations=99, random_state=0)
    assert r2.statistic == pytest.approx(ref.statistic, rel=1e-12)


def test_the_null_is_b_relabelled_and_p_follows_the_shared_rule():
    """Rebuild the null by hand (B's face labels shuffled among B's stimuli with the same
    generator, the units fixed): null_mean, null_std and p equal the function's."""
    a, b = _sets(np.random.default_rng(6), b_gain=0.4)
    r = localizer_transfer(a, b, "faces", "face", top_k=5, n_permutations=99,
                           alternative="two-sided", random_state=1)
    x = b.values[:, r.units]
    score = ((x - x.mean(0)) / x.std(0, ddof=1)).mean(1)

    def d(mask):
        t, o = score[mask], score[~mask]
        pooled = ((t.size - 1) * t.var(ddof=1) + (o.size - 1) * o.var(ddof=1)) / (score.size - 2)
        return (t.mean() - o.mean()) / np.sqrt(pooled)

    rng = np.random.default_rng(1)
    null = np.array([d(rng.permutation(CATS_B == "face")) for _ in range(99)])
    assert r.null_mean == pytest.approx(null.mean(), rel=1e-12)
    assert r.null_std == pytest.approx(null.std(), rel=1e-12)
    assert r.p_value == null_p_value(r.statistic, null, "two-sided")
    assert r.alternative == "two-sided" and r.n_permutations == 99


# ------------------------------------------------------------------------- bad inputs
def test_shared_stimuli_are_refused_as_circular():
    a, _ = _sets(np.random.default_rng(7))
    with pytest.raises(AlignmentError, match=r"share 36 stimulus ids.*circular\. Test on other"
                                             r" stimuli \(or split one set"):
        localizer_transfer(a, a, "faces", "faces", n_permutations=9)


def test_bad_inputs_name_what_to_do():
    rng = np.random.default_rng(8)
    a, b = _sets(rng)
    with pytest.raises(AlignmentError, match="have 30 units and the test activations 29; "
                                             "extract both from the same model"):
        localizer_transfer(a, b.isel(unit=slice(0, 29)), "faces", "face")
    with pytest.raises(UnknownNameError, match="alternative='bigger' is not one of 'greater'"):
        localizer_transfer(a, b, "faces", "face", alternative="bigger")
    with pytest.raises(UnknownNameError, match=r"test_labels='kind' names no stimulus coord of "
                                               r"the test activations.*assign the coord first"):
        localizer_transfer(a, b, "faces", "face", test_labels="kind")
    with pytest.raises(UnknownNameError, match=r"labels='catgory' names no stimulus coord of "
                                               r"the localizer activations.*did you mean "
                                               r"'category'"):
        localizer_transfer(a, b, "faces", "face", labels="catgory")
    with pytest.raises(UnknownNameError, match="Unknown category or domain 'car'"):
        localizer_transfer(a, b, "faces", "car")
    with pytest.raises(InvalidDataError, match=r"No unit was selected on the localizer set "
                                               r"\(top_k=0.01.*Pass a larger top_k"):
        localizer_transfer(a, b, "faces", "face", top_k=0.01, n_permutations=9)
    flat = b.copy(data=np.ones(b.shape))
    with pytest.raises(InvalidDataError, match=r"Every selected unit is constant \(or not "
                                               r"finite\) over the test set's contrast"):
        localizer_transfer(a, flat, "faces", "face", top_k=5, n_permutations=9)
    with pytest.raises((ValueError, TypeError), match="n_permutations"):
        localizer_transfer(a, b, "faces", "face", n_permutations=0)


def test_units_undefined_on_b_are_left_out_with_a_warning():
    a, b = _sets(np.random.default_rng(10))
    x = b.values.copy()
    x[3, 0] = np.nan  # one selected unit has a missing response on B
    x[:, 1] = 2.0  # another is constant on B
    with pytest.warns(UndefinedValueWarning, match="2 of the 5 units selected on the localizer"
                                                   " set are constant or not finite"):
        r = localizer_transfer(a, b.copy(data=x), "faces", "face", top_k=5, n_permutations=19,
                               random_state=0)
    assert np.isfinite(r.statistic) and r.n_units == 5


def test_an_undefined_effect_size_is_nan_with_a_warning():
    """Selected units whose population response is constant within each of B's groups (the
    pooled SD is 0): d is undefined, NaN with a warning, never 0."""
    a, b = _sets(np.random.default_rng(9))
    x = np.where(np.asarray(CATS_B == "face")[:, None], 1.0, 0.0) * np.ones((1, N_UNITS))
    b2 = xr.DataArray(x, dims=b.dims, coords=b.coords)
    with pytest.warns(UndefinedValueWarning, match="Cohen's d .* is undefined"):
        r = localizer_transfer(a, b2, "faces", "face", top_k=5, n_permutations=9,
                               random_state=0)
    assert np.isnan(r.statistic) and np.isnan(r.p_value)
