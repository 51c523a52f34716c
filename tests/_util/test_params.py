"""The vocabulary of declared parameters (toponeuro/_util/params.py, issue 44)."""

import math
import numbers

import numpy as np
import pytest

from toponeuro._util.params import (
    ALPHA,
    N_PERMUTATIONS,
    TOP_K,
    Boolean,
    Callable,
    InstanceOf,
    Interval,
    Options,
    Seed,
    Text,
    bad_values,
    check_param,
    declared_params,
    validate_params,
)
from toponeuro.exceptions import (
    InputTypeError,
    InternalError,
    ParameterError,
    ToponeuroError,
    UnknownNameError,
)

Integral, Real = numbers.Integral, numbers.Real


@pytest.mark.parametrize(("constraint", "good", "bad"), [
    (Interval(Integral, 1, None, closed="left"), [1, np.int64(7), 3.0], [0, 2.5, -1, math.nan]),
    (Interval(Integral, 0, 10, closed="neither"), [1, 9], [0, 10, 11]),
    (Interval(Real, 0, 1, closed="right"), [1, 0.5, np.float32(0.1)], [0, 1.5, math.inf]),
    (Interval(Real, 0, 1, closed="left"), [0, 0.99], [1, -0.1, math.nan]),
    (Options({"pearson", "spearman"}), ["pearson", "spearman"], ["Pearson", "", 3]),
    (Boolean(), [True, False, np.bool_(True)], [0, 1, "yes", None]),
    (Seed(), [None, 0, 5, np.random.default_rng(0)], [-1, 1.5, "abc", True]),
    (Text(), ["a", "layer 1"], ["", "  ", 3, None]),
    (Text(empty=True), ["", "a"], [3, None]),
    (Callable(), [len, lambda x: x], ["len", 3]),
    (InstanceOf(dict, example={}), [{}, {"a": 1}], [[], None]),
])
def test_each_constraint_accepts_and_refuses(constraint, good, bad):
    for v in good:
        assert constraint.is_satisfied_by(v), v
    for v in bad:
        assert not constraint.is_satisfied_by(v), v
    assert constraint.is_satisfied_by(constraint.example())
    for v in constraint.bad_values():
        assert not constraint.is_satisfied_by(v), v
    assert constraint.describe()


def test_booleans_are_not_numbers_and_whole_floats_are():
    count = Interval(Integral, 1, None, closed="left")
    assert not count.is_satisfied_by(True)
    assert check_param(3.0, "n", count) == 3 and type(check_param(np.int64(3), "n", count)) is int
    assert not Interval(Integral, 1, None, whole_floats=False).is_satisfied_by(3.0)


def test_bad_values_of_a_parameter_are_refused_by_every_constraint():
    spec = [Interval(Integral, 1, None, closed="left"), None]
    values = bad_values(spec)
    assert None not in values and 0 in values and 2.5 in values
    for v in values:
        with pytest.raises(ToponeuroError):
            check_param(v, "n", spec)
    # top_k: 1.0 is a fraction (every unit), 0.5 too; 0, 1.5 and True are no top_k
    assert check_param(1.0, "top_k", TOP_K) == 1.0 and check_param(5, "top_k", TOP_K) == 5
    refused = bad_values(TOP_K)
    assert 0 in refused and 1.5 in refused and any(v is True for v in refused)


@pytest.mark.parametrize(("value", "spec", "error", "message"), [
    (2.7, N_PERMUTATIONS, ParameterError,
     r"^n_permutations=2\.7 is not a whole number in \[0, 1000000\]\. 0 draws no null"),
    ("10", N_PERMUTATIONS, InputTypeError,
     r"^n_permutations='10' is not a whole number in \[0, 1000000\] \(got a str\)\."),
    (1, ALPHA, ParameterError, r"^alpha=1 is not a finite number in \(0, 1\)\. 0\.05 is"),
    ("pearsn", Options(("pearson", "spearman"), error=UnknownNameError), UnknownNameError,
     r"^metric='pearsn' is not one of 'pearson', 'spearman'; did you mean 'pearson'"),
    (None, [Interval(Real, 0, None, closed="neither"), None], None, None),
    (-1, [Interval(Real, 0, None, closed="neither"), None], ParameterError,
     r"^x=-1 is not a finite number > 0 or None\.$"),
])
def test_messages_name_the_parameter_what_was_expected_and_got(value, spec, error, message):
    name = "metric" if isinstance(spec, Options) else (
        "x" if isinstance(spec, list) else "n_permutations" if spec is N_PERMUTATIONS else "alpha")
    if error is None:
        assert check_param(value, name, spec) is value
        return
    with pytest.raises(error, match=message) as err:
        check_param(value, name, spec)
    assert isinstance(err.value, ToponeuroError)


def test_validate_params_checks_converts_and_is_introspectable():
    @validate_params({"n": Interval(Integral, 1, None, closed="left"), "flag": Boolean()})
    def f(x, n=2, *, flag=False):
        """Doc."""
        return x, n, flag

    assert f("a", np.int64(3)) == ("a", 3, False) and type(f("a", np.int64(3))[1]) is int
    assert f("a", n=4.0, flag=np.bool_(True)) == ("a", 4, True)
    with pytest.raises(ParameterError, match="^n=0 "):
        f("a", 0)
    with pytest.raises(InputTypeError, match="^flag='yes' "):
        f("a", flag="yes")
    with pytest.raises(TypeError, match="missing 1 required positional argument"):
        f()  # Python words a missing argument itself
    assert set(declared_params(f)) == {"n", "flag"} and f.__doc__ == "Doc."
    assert f.__wrapped__.__name__ == "f"


def test_a_declaration_of_an_unknown_parameter_is_a_bug():
    with pytest.raises(InternalError, match="declares"):
        @validate_params({"m": Boolean()})
        def f(n):
            return n

    with pytest.raises(InternalError, match="twice"):
        @validate_params({"n": Boolean()})
        @validate_params({"n": Boolean()})
        def g(n):
            return n


def test_nested_calls_trust_and_outer_calls_check():
    seen = []

    @validate_params({"n": Interval(Integral, 1, None, closed="left")})
    def inner(n):
        seen.append(n)
        return n

    @validate_params({"n": Interval(Integral, 0, None, closed="left")})
    def outer(n):
        return inner(n)

    @validate_params({"n": Interval(Integral, 0, None, closed="left")},
                     prefer_skip_nested_validation=False)
    def careful(n):
        return inner(n)

    assert outer(0) == 0  # inner trusts its caller
    with pytest.raises(ParameterError, match="^n=0"):
        careful(0)  # a function that hands on what it did not check lets inner check
    with pytest.raises(ParameterError, match="^n=0"):
        inner(0)  # the flag is reset after the outer call
    assert seen == [0]


def test_options_read_a_registry_when_checking():
    registry = {"a": 1}
    c = Options(registry)
    assert not c.is_satisfied_by("b")
    registry["b"] = 2
    assert c.is_satisfied_by("b")
