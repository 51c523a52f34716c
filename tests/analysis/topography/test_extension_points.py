"""Extension points accept only what works (issue 45): a registry takes a callable under a
free name (overwrite=True to replace one on purpose), a null's draws are checked to be
n_draws surrogates, and the claims check their inputs' types before reading them."""

import numpy as np
import pytest

from toponeuro.analysis import NULL_METHODS, morans_i, spatial_null
from toponeuro.analysis.topography import (
    contrast_claim,
    each_but_first,
    organisation_claim,
    register_null,
    unregister_null,
)
from toponeuro.analysis.topography._null_registry import _NULLS, register_statistic
from toponeuro.exceptions import (
    InputTypeError,
    InvalidDataError,
    NameClashError,
    ParameterError,
)

BLOB = np.exp(-((np.mgrid[:16, :16][0] - 5) ** 2 + (np.mgrid[:16, :16][1] - 9) ** 2) / 10.0)


def test_register_null_refuses_a_non_callable():
    with pytest.raises(InputTypeError, match=r"draw='not a function' is not a callable or None "
                                             r".*draw\(maps, n_draws, rng\) -> list"):
        register_null("x", "not a function")
    with pytest.raises(InputTypeError, match="is a function draw"):
        register_null("x", np.arange(3))
    assert "x" not in NULL_METHODS


def test_builtin_null_is_not_replaced_silently():
    """Before: register_null('shift', ...) replaced the built-in (a p went 0.24 -> 1.0)."""
    before = _NULLS["shift"]
    with pytest.raises(NameClashError, match="already registered as 'shift'.*overwrite=True"):
        register_null("shift", each_but_first(lambda first, tm, n, rng: None))
    assert _NULLS["shift"] is before
    register_null("mine", each_but_first(lambda first, tm, n, rng: None))
    try:
        with pytest.raises(NameClashError):
            register_null("mine", each_but_first(lambda first, tm, n, rng: None))
        new = each_but_first(lambda first, tm, n, rng: None)
        assert register_null("mine", new, overwrite=True) is new  # on purpose: allowed
    finally:
        unregister_null("mine")


def test_a_draw_of_one_surrogate_is_refused_not_99_identical_draws():
    """Before: a draw returning one surrogate gave a null of 99 identical values."""
    def one(first, tm, n_draws, rng):  # ignores n_draws
        return rng.permutation(tm.n)

    register_null("one_draw", each_but_first(one), geometries="sheet")  # one name: fine
    assert _NULLS["one_draw"].geometries == ("sheet",)  # was read letter by letter
    try:
        with pytest.raises(InvalidDataError, match=r"shape \(256,\).*expected \(99, 256\)"):
            spatial_null("pearson", BLOB, BLOB.T, null="one_draw", n_permutations=99,
                         random_state=0)
    finally:
        unregister_null("one_draw")


def test_draw_output_checked_entries_and_values():
    register_null("short", lambda tms, n, rng: [None], geometries=("sheet",))
    register_null("floats", each_but_first(
        lambda first, tm, n, rng: rng.random((n, tm.n))), geometries=("sheet",))
    register_null("vals", each_but_first(
        lambda first, tm, n, rng: ("values", rng.random((n, tm.n)))), geometries=("sheet",))
    try:
        with pytest.raises(InvalidDataError, match="list of 1 entries for 2 maps"):
            spatial_null("pearson", BLOB, BLOB, null="short", n_permutations=9)
        with pytest.raises(InvalidDataError, match=r"indices of shape \(9, 256\) \(float64\)"):
            spatial_null("pearson", BLOB, BLOB, null="floats", n_permutations=9)
        res = spatial_null("pearson", BLOB, BLOB, null="vals", n_permutations=9,
                           random_state=0)  # ('values', (n_draws, n)) surrogates: fine
        assert res.null.size == 9 and np.unique(res.null).size == 9
    finally:
        for k in ("short", "floats", "vals"):
            unregister_null(k)


def test_register_statistic_same_rules():
    with pytest.raises(NameClashError, match="statistic is already registered as 'pearson'"):
        register_statistic("pearson", lambda tms, **kw: None)
    with pytest.raises(InputTypeError, match="factory must be a function"):
        register_statistic("new_stat", 3.0)


def test_register_model_same_rules():
    pytest.importorskip("torch")
    from toponeuro.models import register_model
    from toponeuro.models._registry import _REGISTRY

    with pytest.raises(NameClashError, match="model is already registered as 'resnet18'"):
        register_model("resnet18")(lambda: None)
    with pytest.raises(InputTypeError, match="decorates a function"):
        register_model("doc_thing.v1")("not callable")
    assert "doc_thing.v1" not in _REGISTRY


@pytest.mark.parametrize("claim", [organisation_claim, contrast_claim])
def test_claims_check_types_first(claim):
    """Before: alpha='0.05' -> TypeError ('<' between str and float) and a float for the
    result -> AttributeError, from inside the claim."""
    res = morans_i(BLOB, n_permutations=19, random_state=0)
    with pytest.raises(InputTypeError, match="alpha='0.05' is not a finite number"):
        claim(res, "0.05")
    with pytest.raises(InputTypeError, match="result must be a NullResult"):
        claim(0.04)
    with pytest.raises(ParameterError, match="alpha=1.5"):
        claim(res, 1.5)
    with pytest.raises(InputTypeError, match="what=3 is not a string"):
        claim(res, what=3)


def test_method_tables_are_read_only_and_method_must_be_a_name():
    """Before: COMPARE_METHODS['mine'] = 3 was accepted and failed later with "'int' object
    is not callable"; method=['spearman'] raised "unhashable type: 'list'"."""
    from toponeuro.analysis import ENCODING_MODELS, compare_rdms
    from toponeuro.analysis.rsa import COMPARE_METHODS

    with pytest.raises(TypeError):
        COMPARE_METHODS["mine"] = 3
    with pytest.raises(TypeError):
        ENCODING_MODELS["mine"] = object
    rng = np.random.default_rng(0)
    for bad in (["spearman"], None, 3):
        with pytest.raises(InputTypeError, match=r"method=.* is not one of"):
            compare_rdms(rng.random(10), rng.random(10), bad)


def test_a_user_statistic_must_return_one_number():
    """Before: a statistic returning an array or a str raised numpy's bare TypeError /
    ValueError ('only 0-dimensional arrays ...', 'could not convert string')."""
    rng = np.random.default_rng(0)
    a, b = rng.random((8, 8)), rng.random((8, 8))
    for bad in (lambda x, y: np.array([1.0, 2.0]), lambda x, y: "a"):
        with pytest.raises(InvalidDataError, match="must return one number per call"):
            spatial_null(bad, a, b, n_permutations=9, random_state=0)
    res = spatial_null(lambda x, y: float(np.corrcoef(x.ravel(), y.ravel())[0, 1]), a, b,
                       n_permutations=9, random_state=0)
    assert np.unique(res.null).size == 9


def test_overlap_verdict_checks_types_first():
    """Before: statistic='0.5' was read as 0.5, null='abc' raised numpy's bare ValueError and
    statistic=None a bare TypeError."""
    from toponeuro.analysis import overlap_verdict

    with pytest.raises(InputTypeError, match="statistic must be a NullResult"):
        overlap_verdict("0.5", np.zeros(99))
    with pytest.raises(InputTypeError, match="statistic must be a NullResult"):
        overlap_verdict(None, np.zeros(99))
    with pytest.raises(InputTypeError, match="null must be the null draws"):
        overlap_verdict(0.5, "abc")
    with pytest.raises(InputTypeError, match="null must be the null draws"):
        overlap_verdict(0.5, [[0.1, 0.2]])
    assert overlap_verdict(np.float32(0.5), [0.1] * 99).outcome == "share territory"
