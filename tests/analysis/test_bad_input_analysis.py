"""Bad input to the analysis, TopoLoss, recipe, brain-volume and sheet APIs (issue 13).

Every case asserts the exception type (a toponeuro type that is also the builtin a caller
catches), and that the message names the offending value and the fix.
"""

import copy
import math
import re

import nibabel as nib
import numpy as np
import pytest
import xarray as xr

from toponeuro import check_activations, make_activations, sheet_shape
from toponeuro.analysis import (
    RidgeEncoder,
    bootstrap_compare_rdms,
    compare_rdms,
    encoding_score,
    rdm,
    rdm_noise_ceiling,
)
from toponeuro.brain import load_volume_betas
from toponeuro.exceptions import (
    AlignmentError,
    CoordinateError,
    DimensionError,
    InvalidDataError,
    ParameterError,
    RecipeError,
    SheetError,
    ToponeuroError,
    UnitsError,
    UnknownNameError,
)
from toponeuro.topoloss import LayerSpec, TauSchedule, TopoLoss
from toponeuro.training import build_from_recipe, load_recipe, run_recipe, validate_recipe

RNG = np.random.default_rng(0)
X = RNG.standard_normal((10, 7))
ACTS = make_activations({"a": 12}, n_stimuli=10, random_state=0)
A = np.asarray(rdm(X))
MODEL = RidgeEncoder(alphas=[1.0], alpha_per_target=False)
IMG = nib.Nifti1Image(RNG.standard_normal((3, 3, 2, 6)).astype("f4"), np.eye(4) * 2)


def _other_ids():
    return rdm(ACTS.assign_coords(stimulus_id=("stimulus", [f"x{i}" for i in range(10)])))


def _nan_X():
    bad = X.copy()
    bad[2, 3] = np.nan
    return bad


def _asym():
    sq = np.asarray(rdm(X, square=True)).copy()
    sq[0, 1] += 1.0
    return sq


def _pct_ceiling():
    return xr.DataArray(np.full(7, 83.0), dims="voxel", attrs={"units": "percent variance"})


def _recipe(**changes):
    r = copy.deepcopy(load_recipe("demo-smoke"))
    for path, value in changes.items():
        section, _, key = path.rpartition("__")
        table = r
        for part in section.split("__") if section else []:
            table = table.setdefault(part, {})
        table[key] = value
    return r


def _acts_with(coord, values):
    return ACTS.assign_coords({coord: ("unit", values)})


def _inf_acts():
    a = ACTS.copy(data=ACTS.values.copy())
    a.values[3, 5] = np.inf
    return a


def _neg_cols():
    cols = ACTS.col.values.copy()
    cols[4] = -1
    return cols


def _dup_rows():
    rows, cols = ACTS.row.values.copy(), ACTS.col.values.copy()
    rows[1], cols[1] = rows[0], cols[0]
    return rows, cols


def _map_negative():
    da = ACTS.assign_coords(col=("unit", _neg_cols()))
    return da.topo.map("a")


def _dup_acts():
    rows, cols = _dup_rows()
    return ACTS.assign_coords(row=("unit", rows), col=("unit", cols))


# (id, call, toponeuro type, builtin, pattern naming the value, pattern naming the fix)
CASES = [
    # --- RSA
    ("rdm-metric-typo", lambda: rdm(X, "corelation"), UnknownNameError, KeyError,
     "'corelation'", "did you mean 'correlation'"),
    ("compare-method-typo", lambda: compare_rdms(A, A, "spearmann"), UnknownNameError, KeyError,
     "'spearmann'", "did you mean 'spearman'"),
    ("compare-ids-differ", lambda: compare_rdms(rdm(ACTS), _other_ids()), AlignmentError,
     ValueError, r"stim-0000", "recompute them from data holding the same stimuli"),
    ("compare-sliced-labelled", lambda: compare_rdms(rdm(ACTS)[:36], rdm(ACTS)[:36]),
     AlignmentError, ValueError, "lists 10 stimulus ids", "Recompute it"),
    ("compare-not-square", lambda: compare_rdms(np.zeros((3, 4)), A), DimensionError,
     ValueError, r"\(3, 4\)", "squareform"),
    ("compare-asymmetric", lambda: compare_rdms(_asym(), A), InvalidDataError, ValueError,
     r"max \|A - A.T\| = 1", r"\(A \+ A.T\) / 2"),
    ("compare-not-condensed", lambda: compare_rdms(A[:-1], A[:-1]), DimensionError, ValueError,
     "44 is not such a number", "squareform"),
    ("compare-all-nan", lambda: compare_rdms(np.full(45, np.nan), A), InvalidDataError,
     ValueError, "got 0", "finite data"),
    ("noise-ceiling-one-subject", lambda: rdm_noise_ceiling(A[None]), InvalidDataError,
     ValueError, "got 1", "one RDM per subject"),
    ("rdm-constant-patterns", lambda: rdm(np.ones((3, 4))), InvalidDataError, ValueError,
     "constant", "metric='euclidean'"),
    ("rdm-nan", lambda: rdm(_nan_X()), InvalidDataError, ValueError, "1 NaN/inf", "dropna"),
    ("rdm-runs-without-crossnobis", lambda: rdm(X, runs=np.zeros(10)), InvalidDataError,
     ValueError, "runs", "metric='crossnobis' only"),
    ("bootstrap-zero", lambda: bootstrap_compare_rdms(A, A, n_bootstrap=0), ParameterError,
     ValueError, "n_bootstrap=0", r"in \[1, 1000000\]"),
    ("bootstrap-ci-percent", lambda: bootstrap_compare_rdms(A, A, ci=95), ParameterError,
     ValueError, "ci=95", "0.95"),
    # --- encoding
    ("ceiling-percent-labelled", lambda: encoding_score(X, X, model=MODEL, cv=3,
                                                        ceiling=_pct_ceiling()),
     UnitsError, ValueError, "'percent variance'", r"np.sqrt\(nc / 100\)"),
    ("ceiling-percent-unlabelled", lambda: encoding_score(X, X, model=MODEL, cv=3, metric="r2",
                                                          ceiling=np.full(7, 83.0)),
     UnitsError, ValueError, "reach 83", r"nc / 100"),
    ("ceiling-negative", lambda: encoding_score(X, X, model=MODEL, cv=3,
                                                ceiling=np.full(7, -0.2)),
     InvalidDataError, ValueError, "-0.2", "Clip negative"),
    ("ceiling-shape", lambda: encoding_score(X, X, model=MODEL, cv=3, ceiling=np.ones(2)),
     InvalidDataError, ValueError, r"shape \(2,\)", "one value per voxel"),
    ("cv-one", lambda: encoding_score(X, X, model=MODEL, cv=1), InvalidDataError, ValueError,
     "cv=1", "at least 2"),
    ("cv-fraction", lambda: encoding_score(X, X, model=MODEL, cv=2.5), InvalidDataError,
     ValueError, "cv=2.5", "whole number"),
    ("cv-bool", lambda: encoding_score(X, X, model=MODEL, cv=True), InvalidDataError,
     ValueError, "cv=True", "cv=5"),
    ("encoding-metric-typo", lambda: encoding_score(X, X, metric="pearsn"), UnknownNameError,
     KeyError, "'pearsn'", "did you mean 'pearson'"),
    # --- TopoLoss specs and schedules
    ("tau-negative", lambda: LayerSpec("fc", 2, 2, tau=-5.0), RecipeError, ValueError,
     "tau=-5 is not", "tau=0 or None"),
    ("tau-nan", lambda: LayerSpec("fc", 2, 2, tau=float("nan")), RecipeError, ValueError,
     "tau=nan", "finite number >= 0"),
    ("tau-inf", lambda: LayerSpec("fc", 2, 2, tau=math.inf), RecipeError, ValueError,
     "tau=inf", "finite number >= 0"),
    ("tau-bool", lambda: LayerSpec("fc", 2, 2, tau=True), RecipeError, ValueError,
     "tau=True", "finite number >= 0"),
    ("factor-nan", lambda: LayerSpec("fc", float("nan"), 2), SheetError, ValueError,
     "factor_h=nan", "2.0 is the TopoNets' value"),
    ("factor-inf", lambda: LayerSpec("fc", 2, math.inf), SheetError, ValueError,
     "factor_w=inf", "finite number >= 1"),
    ("interpolation-typo", lambda: LayerSpec("fc", 2, 2, interpolation="bilinar"),
     UnknownNameError, KeyError, "'bilinar'", "did you mean 'bilinear'"),
    ("spec-empty-name", lambda: LayerSpec("", 2, 2), RecipeError, ValueError, "name=''",
     "'layer2.0.conv1'"),
    ("topoloss-dict-spec", lambda: TopoLoss([{"name": "fc", "factor_h": 2, "factor_w": 2}]),
     RecipeError, ValueError, "dict", r"LayerSpec\(\*\*d\)"),
    ("topoloss-single-spec", lambda: TopoLoss(LayerSpec("fc", 2, 2)), RecipeError, ValueError,
     "one LayerSpec", "Wrap it in a list"),
    ("topoloss-from-dict-keys", lambda: TopoLoss.from_dict(
        {"format": "toponeuro.topoloss/1", "specs": [{"nam": "fc"}], "schedule": None}),
     RecipeError, ValueError, "nam", "Each spec takes the keys"),
    ("schedule-final", lambda: TauSchedule("cosine_decay", 0, 10, final=2.0), RecipeError,
     ValueError, "final=2 is not", r"in \[0, 1\]"),
    ("schedule-key-typo", lambda: TauSchedule.from_dict({"knd": "constant"}), RecipeError,
     ValueError, "'knd'", "did you mean 'kind'"),
    ("schedule-fractional-steps", lambda: TauSchedule("linear_warmup", warmup_steps=2.5),
     RecipeError, ValueError, "warmup_steps=2.5", "whole number"),
    # --- recipes
    ("recipe-epochz", lambda: validate_recipe(_recipe(train__epochz=3)), RecipeError,
     ValueError, "'train.epochz'", "did you mean 'epochs'"),
    ("recipe-top-level-typo", lambda: validate_recipe(_recipe(topolos={})), RecipeError,
     ValueError, "'topolos'", "did you mean 'topoloss'"),
    ("recipe-tau-negative", lambda: build_from_recipe(_recipe(topoloss__tau=-5.0)),
     RecipeError, ValueError, "got -5.0", "0 computes TopoLoss without optimising"),
    ("recipe-tau-nan", lambda: build_from_recipe(_recipe(topoloss__tau=float("nan"))),
     RecipeError, ValueError, "got nan", "Fix the value"),
    ("recipe-epochs-zero", lambda: validate_recipe(_recipe(train__epochs=0)), RecipeError,
     ValueError, "got 0", "epochs=N"),
    ("recipe-lr-negative", lambda: validate_recipe(_recipe(train__lr=-0.1)), RecipeError,
     ValueError, "got -0.1", "> 0"),
    ("recipe-widths", lambda: validate_recipe(_recipe(model__widths="abc")), RecipeError,
     ValueError, "got 'abc'", "list of positive whole numbers"),
    ("recipe-schedule-key", lambda: validate_recipe(
        _recipe(topoloss__schedule={"kind": "constant", "warmup": 3})), RecipeError, ValueError,
     "'topoloss.schedule.warmup'", "did you mean 'warmup_steps'"),
    ("recipe-data-kind", lambda: validate_recipe(_recipe(data__kind="synthetc")), RecipeError,
     ValueError, "got 'synthetc'", "'synthetic'"),
    # --- brain volumes
    ("volume-ids-string", lambda: load_volume_betas(IMG, "abcdef"), DimensionError, ValueError,
     "'abcdef'", r"Pass a list, e.g. \['abcdef'\]"),
    ("volume-ids-set", lambda: load_volume_betas(IMG, set("abcdef")), DimensionError,
     ValueError, "got set", "unordered"),
    ("volume-ids-none", lambda: load_volume_betas(IMG, None), DimensionError, ValueError,
     "got NoneType None", "one id per volume"),
    ("volume-ids-missing", lambda: load_volume_betas(IMG, ["a", None, "c", "d", "e", "f"]),
     DimensionError, ValueError, "1 missing ids", "give every volume an id"),
    ("volume-ids-count", lambda: load_volume_betas(IMG, list("abcde")), DimensionError,
     ValueError, "6 volumes but 5", "exactly one id per volume"),
    # --- the sheet
    ("sheet-huge", lambda: sheet_shape(2**61 - 1), SheetError, ValueError,
     "2305843009213693951", "number of units"),
    ("sheet-nan", lambda: sheet_shape(float("nan")), SheetError, ValueError, "float nan",
     r"int\(weight.shape\[0\]\)"),
    ("sheet-inf", lambda: sheet_shape(math.inf), SheetError, ValueError, "float inf",
     "an int"),
    ("sheet-none", lambda: sheet_shape(None), SheetError, ValueError, "NoneType None",
     "an int"),
    ("sheet-float", lambda: sheet_shape(64.0), SheetError, ValueError, "float 64.0", "an int"),
    ("sheet-bool", lambda: sheet_shape(True), SheetError, ValueError, "bool True", "an int"),
    ("sheet-zero", lambda: sheet_shape(0), SheetError, ValueError, "got 0", "between 1 and"),
    ("activations-inf", lambda: check_activations(_inf_acts()), InvalidDataError, ValueError,
     "1 inf values", "drop the units"),
    ("activations-negative-col", lambda: check_activations(_acts_with("col", _neg_cols())),
     CoordinateError, ValueError, "min -1", "Positions start at 0"),
    ("activations-duplicate-position", lambda: check_activations(_dup_acts()),
     CoordinateError, ValueError, r"\(row, col\) = \(0, 0\)", "its own position"),
    ("activations-fractional-row", lambda: check_activations(
        _acts_with("row", ACTS.row.values + 0.5)), CoordinateError, ValueError, "0.5",
     "sheet_positions"),
    ("map-negative-col", _map_negative, CoordinateError, ValueError, "negative",
     "Positions start at 0"),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_bad_input_raises_typed_error_naming_value_and_fix(case):
    _, call, exc_type, builtin, value_pat, fix_pat = case
    with pytest.raises(exc_type) as info:
        call()
    err = info.value
    assert isinstance(err, ToponeuroError) and isinstance(err, builtin)
    msg = str(err)
    assert re.search(value_pat, msg), f"message does not name the value: {msg}"
    assert re.search(fix_pat, msg), f"message does not name the fix: {msg}"


def test_enough_cases():
    assert len(CASES) >= 35


def test_invalid_recipe_never_trains(tmp_path):
    """tau = -5 or nan used to train with TopoLoss switched off and exit 0."""
    for tau in (-5.0, float("nan")):
        with pytest.raises(RecipeError, match="topoloss.tau"):
            run_recipe(_recipe(topoloss__tau=tau), tmp_path / "run", progress=False)
    with pytest.raises(ParameterError, match="^epochs=0 "):  # run_recipe's own, declared
        run_recipe(_recipe(), tmp_path / "run", progress=False, epochs=0)
    assert not (tmp_path / "run").exists() or not any((tmp_path / "run").iterdir())


def test_bad_input_leaves_the_data_unchanged():
    before = ACTS.copy(deep=True)
    with pytest.raises(CoordinateError):
        check_activations(_acts_with("col", _neg_cols()))
    xr.testing.assert_identical(ACTS, before)
