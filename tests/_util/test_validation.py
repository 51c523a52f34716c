"""Arguments checked where they enter, with the valid range in the message (issue 19).

Every case below was a silent wrong answer or a foreign traceback in 0.2.0 (the comment says
which); now each raises a toponeuro error that is also the builtin a caller catches, and whose
message names the parameter, the value and the valid range or the fix.
"""

import re
import warnings

import numpy as np
import pytest
import xarray as xr
from scipy.ndimage import gaussian_filter

from toponeuro import make_activations
from toponeuro._util.params import MAX_PERMUTATIONS, check_int, check_number, check_random_state
from toponeuro.analysis import (
    RidgeEncoder,
    bootstrap_compare_rdms,
    correlation_profile,
    domain_selectivity,
    encoding_score,
    find_patches,
    language_selectivity,
    map_similarity,
    rdm,
    selectivity,
    smoothness,
    spatial_null,
    topography_table,
)
from toponeuro.exceptions import (
    AlignmentError,
    CoordinateError,
    ImplausibleValueWarning,
    InputTypeError,
    InvalidDataError,
    ParameterError,
    ToponeuroError,
)
from toponeuro.models import create_model, model_card

RNG = np.random.default_rng(0)
MAP = gaussian_filter(RNG.standard_normal((16, 16)), 2)
POS = RNG.standard_normal((40, 2))
VALS = RNG.standard_normal(40)
CATS = ["adult", "child", "car", "house"] * 5
ACTS = make_activations({"fc": 16}, n_stimuli=20, categories=CATS, random_state=0)
X = RNG.standard_normal((40, 5))
Y = X @ RNG.standard_normal((5, 3)) + 0.3 * RNG.standard_normal((40, 3))
IDS = [f"s{i}" for i in range(40)]


def _geo(**extra):
    return {"positions": POS, **extra}


def _negative_distances():
    d = np.abs(POS[:, None, 0] - POS[None, :, 0])
    d[0, 1] = d[1, 0] = -0.5
    return d


def _nan_positions():
    pos = POS.copy()
    pos[3] = np.nan
    return pos


def _labels_with(missing):
    lab = list(CATS)
    lab[0] = missing
    return lab


def _x_ids_y_plain():
    xd = xr.DataArray(X, dims=("stimulus", "unit"), coords={"stimulus_id": ("stimulus", IDS)})
    return encoding_score(xd, xr.DataArray(Y[::-1], dims=("stimulus", "voxel")), cv=4)


def _x_plain_y_ids():
    yd = xr.DataArray(Y, dims=("stimulus", "voxel"), coords={"stimulus_id": ("stimulus", IDS)})
    return encoding_score(xr.DataArray(X[::-1], dims=("stimulus", "unit")), yd, cv=4)


# (id, call, toponeuro type, builtin, pattern that must be in the message)
# before: what 0.2.0 did
CASES = [
    # n_permutations: 2.7 truncated to 2, '10' accepted, -5 drew nothing, 10**12 accepted
    ("nperm-fraction-smoothness", lambda: smoothness(MAP, n_permutations=2.7),
     ParameterError, ValueError, r"n_permutations=2.7 is not a whole number in \[0, 1000000\]"),
    ("nperm-string-similarity", lambda: map_similarity(MAP, MAP, n_permutations="10"),
     InputTypeError, TypeError, r"n_permutations='10' is not a whole number .*\(got a str\)"),
    ("nperm-negative-patches", lambda: find_patches(MAP, n_permutations=-5),
     ParameterError, ValueError, r"n_permutations=-5 is not a whole number in \[0, 1000000\]"),
    ("nperm-huge-null", lambda: spatial_null("pearson", MAP, MAP, n_permutations=10**12),
     ParameterError, ValueError, r"n_permutations=1000000000000 is not"),
    ("nperm-huge-table", lambda: topography_table({"s": MAP}, n_permutations=10**12),
     ParameterError, ValueError, r"n_permutations=1000000000000 is not"),
    ("nperm-fraction-table", lambda: topography_table({"f": MAP}, n_permutations=2.7),
     ParameterError, ValueError, r"n_permutations=2.7 is not"),
    ("nbootstrap-fraction", lambda: bootstrap_compare_rdms(rdm(X), rdm(X), n_bootstrap=9.5),
     ParameterError, ValueError, r"n_bootstrap=9.5 is not a whole number in \[1, 1000000\]"),
    # random_state='abc': numpy's "SeedSequence expects int" TypeError
    ("random-state-string", lambda: smoothness(MAP, random_state="abc"),
     InputTypeError, TypeError, r"random_state='abc' is not None, a whole number >= 0 .*\(got a str\)"),
    ("random-state-string-patches", lambda: find_patches(MAP, random_state="abc"),
     InputTypeError, TypeError, r"random_state='abc'"),
    ("random-state-negative", lambda: make_activations({"fc": 4}, random_state=-1),
     ParameterError, ValueError, r"random_state=-1 is not"),
    ("random-state-folds", lambda: encoding_score(X, Y, cv=3, random_state="abc"),
     InputTypeError, TypeError, r"random_state='abc'"),
    # SSIM win_size=1: ZeroDivisionError
    ("ssim-win-size-1", lambda: map_similarity(MAP, MAP, win_size=1, n_permutations=0),
     ParameterError, ValueError, r"win_size=1 is not an odd whole number from 3 to the sheet's smaller side \(16\)"),
    ("ssim-win-size-float", lambda: map_similarity(MAP, MAP, win_size=4.5, n_permutations=0),
     ParameterError, ValueError, r"win_size=4.5 is not a whole number"),
    # smoothness n_bins <= 1 and sample_size=2 returned a score of 0.0
    ("smoothness-n-bins-1", lambda: smoothness(MAP, n_bins=1),
     ParameterError, ValueError, r"n_bins=1 is not a whole number >= 2. With one bin"),
    ("smoothness-n-bins-0", lambda: correlation_profile(ACTS, n_bins=0),
     ParameterError, ValueError, r"n_bins=0 is not a whole number >= 2"),
    ("smoothness-sample-size-2", lambda: smoothness(MAP, sample_size=2),
     ParameterError, ValueError, r"sample_size=2 is not a whole number >= 3"),
    ("smoothness-null-sample-size", lambda: spatial_null("smoothness", MAP, sample_size=2),
     ParameterError, ValueError, r"sample_size=2 is not"),
    ("smoothness-max-distance", lambda: smoothness(MAP, max_distance=-1.0),
     ParameterError, ValueError, r"max_distance=-1 is not a finite number > 0"),
    # patches: threshold=nan and min_fraction > max_fraction found 0 patches; smooth_sigma=-1
    # was accepted
    ("patches-threshold-nan", lambda: find_patches(MAP, threshold=float("nan")),
     ParameterError, ValueError, r"threshold=nan is not a finite number"),
    ("patches-fractions-crossed", lambda: find_patches(MAP, min_fraction=0.5, max_fraction=0.1),
     ParameterError, ValueError, r"min_fraction=0.5 > max_fraction=0.1"),
    ("patches-fraction-above-tdann-max", lambda: find_patches(MAP, min_fraction=0.95),
     ParameterError, ValueError, r"min_fraction=0.95 > max_fraction=0.918"),
    ("patches-sigma-negative", lambda: find_patches(MAP, smooth_sigma=-1),
     ParameterError, ValueError, r"smooth_sigma=-1 is not a finite number >= 0"),
    ("patches-alpha-one", lambda: find_patches(MAP, alpha=1),
     ParameterError, ValueError, r"alpha=1 is not a finite number in \(0, 1\)"),
    ("patches-min-units-zero", lambda: find_patches(MAP, min_units=0),
     ParameterError, ValueError, r"min_units=0 is not a whole number >= 1"),
    ("table-threshold-nan", lambda: topography_table({"s": MAP}, threshold=float("nan")),
     ParameterError, ValueError, r"threshold=nan is not"),
    # geometry: a negative distance matrix (a bincount ValueError) and a negative adjacency
    # radius (accepted) ; NaN positions ("the points do not spread out")
    ("distance-negative", lambda: smoothness(VALS, geometry=_geo(distance=_negative_distances())),
     InvalidDataError, ValueError, r"finite distances >= 0; 2 entries .*min -0.5"),
    ("adjacency-radius-negative", lambda: find_patches(
        VALS, threshold=0, min_units=1, n_permutations=0, geometry=_geo(adjacency=-1.0)),
     ParameterError, ValueError, r"adjacency=-1 is not a finite number > 0"),
    ("positions-nan", lambda: smoothness(VALS, geometry={"positions": _nan_positions()}),
     CoordinateError, ValueError, r"positions of 1 of 40 points are NaN or inf \(e.g. point 3\)"),
    # selectivity: domains=[] an xarray concat error; None/NaN labels became a category
    ("domains-empty", lambda: domain_selectivity(ACTS, domains=[]),
     ParameterError, ValueError, r"domains must name at least one .*got \[\]"),
    ("labels-none", lambda: selectivity(ACTS, "adult", labels=_labels_with(None)),
     InvalidDataError, ValueError, r"1 missing categories .* at stimulus 0 \(None\)"),
    ("labels-nan", lambda: selectivity(ACTS, "adult", labels=_labels_with(float("nan"))),
     InvalidDataError, ValueError, r"1 missing categories .* \(nan\)"),
    ("category-coord-none", lambda: selectivity(
        ACTS.assign_coords(category=("stimulus", _labels_with(None))), "adult"),
     InvalidDataError, ValueError, r"The 'category' coord holds 1 missing"),
    ("target-none", lambda: selectivity(ACTS, None),
     InputTypeError, TypeError, r"target must be a category or domain name .*NoneType None"),
    # top_k=1.0 selected one unit
    ("top-k-fraction-above-one", lambda: language_selectivity(
        ACTS, labels=["S", "N"] * 10, top_k=2.5),
     ParameterError, ValueError, r"top_k=2.5 is not a whole number >= 1 or a finite number in \(0, 1\]. An int is a count"),
    ("top-k-zero", lambda: language_selectivity(ACTS, labels=["S", "N"] * 10, top_k=0),
     ParameterError, ValueError, r"top_k=0 is not a whole number >= 1"),
    # create_model(None): "unsupported operand type(s) for +" TypeError
    ("create-model-none", lambda: create_model(None),
     InputTypeError, TypeError, r"model name must be a str .*NoneType None"),
    ("model-card-int", lambda: model_card(18),
     InputTypeError, TypeError, r"name=18 is not a non-empty string"),
    # encoding_score: scored by position, silently, when only one side carried ids
    ("encoding-ids-one-side", _x_ids_y_plain,
     AlignmentError, ValueError, r"features carry 'stimulus_id' but the responses .* do not"),
    ("encoding-ids-other-side", _x_plain_y_ids,
     AlignmentError, ValueError, r"responses carry 'stimulus_id' but the features .* do not"),
    # the inner-CV error said "got 2" when 4 stimuli were passed
    ("encoding-inner-cv", lambda: encoding_score(X[:6], Y[:6], cv=2),
     InvalidDataError, ValueError, r"encoding_score got 6 stimuli; cv=2 leaves 3 training .*cv=5"),
    ("encoding-folds-too-small", lambda: encoding_score(X[:4], Y[:4], cv=2),
     InvalidDataError, ValueError, r"2 test stimuli.*at least 6 stimuli"),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_bad_argument_is_refused_with_its_range(case):
    _, call, exc_type, builtin, pattern = case
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        with pytest.raises(exc_type) as info:
            call()
    err = info.value
    assert isinstance(err, ToponeuroError) and isinstance(err, builtin)
    assert re.search(pattern, str(err)), str(err)


def test_one_validator_per_kind():
    assert check_int(10.0, "n") == 10 and isinstance(check_int(np.int32(3), "n"), int)
    with pytest.raises(InputTypeError):
        check_int(True, "n")
    with pytest.raises(ParameterError, match=r"n=6 is not a whole number in \[0, 5\]"):
        check_int(6, "n", lo=0, hi=5)
    with pytest.raises(InputTypeError, match=r"x='1' is not a finite number \(got a str\)"):
        check_number("1", "x")
    with pytest.raises(ParameterError, match="x=inf is not"):
        check_number(float("inf"), "x", lo=0)
    g = np.random.default_rng(5)
    assert check_random_state(g) is g
    assert MAX_PERMUTATIONS == 10**6
    assert smoothness(MAP, n_permutations=3.0, random_state=0).attrs["n_permutations"] == 3


def test_int_labels_and_target_work_as_their_text():
    """selectivity(acts, 1, labels=[ints]) raised "'int' object is not iterable"."""
    ints = [0, 1, 2, 3] * 5
    sel = selectivity(ACTS, 1, labels=ints)
    by_text = selectivity(ACTS, "1", labels=[str(i) for i in ints])
    np.testing.assert_array_equal(sel.values, by_text.values)
    assert sel.attrs["target"] == "1" and sel.attrs["against"] == "0+2+3"
    assert domain_selectivity(ACTS, domains="faces")["domain"].values.tolist() == ["faces"]


def test_top_k_float_is_a_fraction_and_int_a_count():
    """top_k=1.0 used to select one unit: it is the fraction 1, every unit with a t."""
    lab = ["S", "N"] * 10
    every = language_selectivity(ACTS, labels=lab, top_k=1.0)
    assert int(every["topk_mask"].sum()) == int(np.isfinite(every["t"]).sum()) == 16
    assert int(language_selectivity(ACTS, labels=lab, top_k=1)["topk_mask"].sum()) == 1
    assert int(language_selectivity(ACTS, labels=lab, top_k=0.25)["topk_mask"].sum()) == 4


def test_implausibly_small_ceiling_warns_with_its_rule():
    """ceiling=0.01 gave normalised scores of ~97 without a word."""
    with pytest.warns(ImplausibleValueWarning, match=r"median normalised score exceeds 1"):
        out = encoding_score(X, Y, cv=4, ceiling=0.01)
    assert float(out.median()) > 50
    with warnings.catch_warnings():
        warnings.simplefilter("error", ImplausibleValueWarning)
        encoding_score(X, Y, cv=4, ceiling=1.0)


def test_encoding_pairs_by_position_only_on_purpose():
    """Both sides labelled: aligned by id; both plain: by position; reversed rows still
    score as the correctly paired data (r 0.94, not 0.06)."""
    xd = xr.DataArray(X, dims=("stimulus", "unit"), coords={"stimulus_id": ("stimulus", IDS)})
    yd = xr.DataArray(Y, dims=("stimulus", "voxel"), coords={"stimulus_id": ("stimulus", IDS)})
    model = RidgeEncoder(alphas=[1.0], alpha_per_target=False)
    aligned = encoding_score(xd, yd[::-1], model=model, cv=4)
    plain = encoding_score(X, Y, model=model, cv=4)
    assert float(aligned.mean()) > 0.9
    np.testing.assert_allclose(aligned.values, plain.values, atol=0.05)


def test_smoothness_ignores_a_constant_offset():
    """Smoothness of a map + 1e7 was 0.459 instead of 0.725 (differences in float32)."""
    base = float(smoothness(MAP)["score"])
    assert float(smoothness(MAP + 1e7)["score"]) == pytest.approx(base, abs=1e-9)
    on_mesh = float(smoothness(VALS, geometry=_geo(), random_state=0)["score"])
    shifted = float(smoothness(VALS + 1e7, geometry=_geo(), random_state=0)["score"])
    assert shifted == pytest.approx(on_mesh, abs=1e-9)
