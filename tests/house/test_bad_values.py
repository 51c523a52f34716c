"""The generated bad-value test: every declared parameter of every public function refuses
values outside its declaration with a typed toponeuro error naming the parameter (issue 44).

Public functions are every function in the ``__all__`` of the package and its sub-packages
(as in ``test_docstrings.py``). For each parameter declared with
:func:`toponeuro._util.params.validate_params`, hypothesis draws values outside the declared
constraints (wrong types, NaN, inf, out of range, empty strings, unknown options) and the call
must raise a :class:`~toponeuro.exceptions.ToponeuroError` whose message starts with
``name=``. The other parameters get a cheap valid value (the declaration's example) or, when
undeclared, a placeholder: the check runs before the body, so the body, and any expensive
work, never starts.

A public function that declares nothing must be listed in ``_undeclared.UNDECLARED`` with a
kind of reason this test checks (``_undeclared.REASONS``); the list only shrinks (an entry
that declares now, or is gone, must be removed). Public classes declare their ``__init__``
or their fields (:func:`toponeuro._util.frozen.validate_fields`, checked when a record is
made) and are tested the same way.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import inspect
import math
import numbers
import re
import runpy
from pathlib import Path

import pytest
import xarray as xr
from test_imports import graph_reaches, import_graph  # tests/house: the import graph

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import toponeuro  # noqa: E402
from toponeuro._util.params import (  # noqa: E402
    Interval,
    Options,
    Text,
    _as_constraints,
    bad_values,
    check_param,
    declared_params,
)
from toponeuro.exceptions import ToponeuroError  # noqa: E402

#: the shrinking list of public functions that declare nothing, with why
_LISTS = runpy.run_path(str(Path(__file__).with_name("_undeclared.py")))
UNDECLARED = _LISTS["UNDECLARED"]
REASONS = _LISTS["REASONS"]

PACKAGES = ["toponeuro", "toponeuro.sheet", "toponeuro.exceptions", "toponeuro.tutorial",
            "toponeuro.reporting", *(f"toponeuro.{p}" for p in toponeuro._SUBPACKAGES)]


def public_functions() -> dict:
    """qualified name of the definition -> the function, for every function in an ``__all__``."""
    found = {}
    for pkg in PACKAGES:
        module = importlib.import_module(pkg)
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if inspect.isfunction(obj):
                found.setdefault(f"{obj.__module__}.{obj.__qualname__}", obj)
    return found


FUNCTIONS = public_functions()
DECLARED = {q: f for q, f in FUNCTIONS.items() if declared_params(f)}
CASES = sorted((q, p) for q, f in DECLARED.items() for p in declared_params(f))


class _Placeholder:
    """An undeclared argument: never read, since the declared check fails first."""

    def __repr__(self) -> str:
        return "<placeholder>"


def params_of(obj) -> dict:
    """What a function, or a class (its fields, else its ``__init__``), declares."""
    if inspect.isclass(obj):
        return declared_params(obj) if "__toponeuro_params__" in vars(obj) else \
            declared_params(obj.__init__)
    return declared_params(obj)


def _call_args(func, param: str, value):
    """Positional and keyword arguments: ``value`` for ``param``, cheap valid values for the
    other declared parameters without a default, placeholders for the undeclared ones."""
    declared = params_of(func)
    args, kwargs = [], {}
    for name, p in inspect.signature(func).parameters.items():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        if name == param:
            v = value
        elif p.default is not p.empty:
            continue
        elif name in declared:
            v = declared[name][0].example()
        else:
            v = _Placeholder()
        if p.kind is p.POSITIONAL_ONLY:
            args.append(v)
        else:
            kwargs[name] = v
    return args, kwargs


def _outside(constraints):
    """A hypothesis strategy of values no constraint of a parameter accepts."""
    pool = [st.sampled_from(bad_values(constraints))]
    for c in constraints:
        if isinstance(c, Interval):
            if c.lo is not None:
                pool.append(st.floats(max_value=c.lo, allow_nan=False))
                pool.append(st.integers(max_value=math.floor(c.lo)))
            if c.hi is not None:
                pool.append(st.floats(min_value=c.hi, allow_nan=False))
                pool.append(st.integers(min_value=math.ceil(c.hi)))
            if c.integral:
                pool.append(st.floats(allow_nan=False, allow_infinity=False).filter(
                    lambda x: not float(x).is_integer()))
        elif isinstance(c, Options):
            pool.append(st.text(max_size=12))
        elif isinstance(c, Text) and not c.empty:
            pool.append(st.text(alphabet=" \t\n", max_size=4))
    return st.one_of(pool).filter(lambda v: not any(c.is_satisfied_by(v) for c in constraints))


def _outside_any(constraints, values) -> list:
    """The values no constraint of a parameter accepts (a bad value of one constraint may be
    the good value of another: None for ``[COUNT, None]``)."""
    return [v for v in values if not any(c.is_satisfied_by(v) for c in constraints)]


def assert_refused(constraints, problem) -> None:
    """``problem(value)`` (None: refused as it should be) must be None for each of the
    constraints' typical bad values (:func:`~toponeuro._util.params.bad_values`: wrong types,
    NaN, inf, out of range, empty strings, unknown options). Values hypothesis draws are
    :func:`test_drawn_bad_values_are_refused`'s, in the slow lane."""
    bad = _outside_any(constraints, bad_values(constraints))
    # a declaration that accepts every typical bad value of its own would pass vacuously
    assert bad, f"the declaration {constraints} accepts each of its typical bad values"
    problems = [(v, p) for v in bad if (p := problem(v)) is not None]
    assert not problems, problems


def assert_drawn_refused(constraints, problem) -> None:
    """Draw values outside ``constraints`` with hypothesis; ``problem(value)`` must be None
    for each."""

    @settings(max_examples=12, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
    @given(value=_outside(constraints))
    def refuses(value):
        assert problem(value) is None, value

    refuses()


def test_public_functions_found():
    assert len(FUNCTIONS) > 250 and DECLARED


@pytest.mark.parametrize(("qual", "param"), CASES, ids=[f"{q.rsplit('.', 1)[1]}-{p}"
                                                        for q, p in CASES])
def test_bad_value_is_refused(qual, param):
    func = DECLARED[qual]
    assert_refused(declared_params(func)[param],
                   lambda value: refusal_problem(func, param, value))


def refusal_problem(func, param: str, value) -> str | None:
    """None if ``func`` refuses ``value`` for ``param`` with a typed error naming it (a
    settings object's field as ``schedule.lr=``: its ``_name``), else what went wrong."""
    args, kwargs = _call_args(func, param, value)
    named = f"{func._name}.{param}=" if "_name" in vars(func) else f"{param}="
    return call_problem(lambda: func(*args, **kwargs), lambda m: m.startswith(named))


def call_problem(call, names_it) -> str | None:
    """None if ``call()`` raises a typed error whose message ``names_it``, else what went
    wrong (another message, an untyped error, or nothing raised)."""
    try:
        call()
    except ToponeuroError as err:
        return None if names_it(str(err)) else f"message: {err}"
    except Exception as err:  # noqa: BLE001 - any other error is the finding
        return f"untyped {type(err).__name__}: {err}"
    return "accepted"


@pytest.mark.parametrize("qual", sorted(DECLARED), ids=lambda q: q.rsplit(".", 1)[1])
def test_defaults_and_examples_are_accepted(qual):
    """Every declared default (never checked at call time) and example is valid."""
    check_defaults_and_examples(qual, DECLARED[qual])


def _defaults(func) -> dict:
    """Parameter -> its default (a dataclass field's ``default_factory()`` made)."""
    out = {n: p.default for n, p in inspect.signature(func).parameters.items()
           if p.default is not p.empty}
    if inspect.isclass(func) and dataclasses.is_dataclass(func):
        out.update({f.name: f.default_factory() for f in dataclasses.fields(func)
                    if f.default_factory is not dataclasses.MISSING})
    return out


def check_defaults_and_examples(qual: str, func) -> None:
    defaults = _defaults(func)
    for name, constraints in params_of(func).items():
        default = defaults.get(name, inspect.Parameter.empty)
        if default is not inspect.Parameter.empty:
            check_param(default, name, constraints)
        for c in constraints:
            try:
                ex = c.example()
            except ToponeuroError:  # an InstanceOf without an example: not needed
                continue
            assert c.is_satisfied_by(ex), (qual, name, c, ex)


def takes_parameters(func) -> bool:
    """Whether ``func`` has a named parameter to declare (``*args`` and ``**kwargs`` have no
    name to declare; a function without parameters has nothing to check)."""
    return any(p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
               for p in inspect.signature(func).parameters.values())


def list_gaps(functions: dict, listed: dict) -> tuple[list, list]:
    """``(missing, stale)``: undeclared functions not listed; listed ones that declare now
    or are gone."""
    undeclared = sorted(q for q, f in functions.items()
                        if not declared_params(f) and takes_parameters(f))
    return ([q for q in undeclared if q not in listed],
            sorted(q for q in listed if q not in undeclared))


@functools.cache
def _graph() -> dict:
    return import_graph()


#: values of every kind (a function that "refuses nothing" returns with each)
JUNK = [object(), 3, None, [1.5], float("nan")]
#: values of no kind a parameter takes (a function "checked by hand" refuses each)
ALIEN = [object(), _Placeholder(), 2.5j]


def _call_with(obj, value):
    """Call ``obj`` with ``value`` for each named parameter without a default."""
    named = [p for p in inspect.signature(obj).parameters.values()
             if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    return obj(**{p.name: value for p in named})


def _refuses_naming(obj, value) -> bool:
    names = list(inspect.signature(obj).parameters)
    return call_problem(lambda: _call_with(obj, value), lambda m: any(
        re.search(rf"\b{n}\b", m.split(";")[0]) for n in names)) is None


def _returns(obj, value) -> bool:
    return call_problem(lambda: _call_with(obj, value), lambda m: False) == "accepted"


def reason_problem(qual: str, obj, kind: str, why: str) -> str | None:
    """None if the kind of reason listed for ``obj`` holds (``_undeclared.REASONS``), else
    what is wrong."""
    if kind not in REASONS:
        return f"unknown kind of reason {kind!r}; one of {sorted(REASONS)}"
    if not why.strip():
        return "no why"
    module = obj.__module__
    holds = {
        "imported by the vocabulary": lambda: graph_reaches("toponeuro._util.params", module,
                                                            _graph()),
        "standalone": lambda: not _graph()[module],
        "refuses nothing": lambda: all(_returns(obj, v) for v in JUNK),
        "checked by hand": lambda: all(_refuses_naming(obj, v) for v in ALIEN),
        "built by xarray": lambda: any(getattr(xr.DataArray, n, None) is obj
                                       for n in dir(xr.DataArray) if not n.startswith("_")),
        "pending": lambda: f"{module.rsplit('.', 1)[1]}.py" in why,
    }[kind]
    return None if holds() else f"{qual}: {kind!r} does not hold ({REASONS[kind]})"


def assert_listed(gaps: tuple[list, list], listed: dict, found: dict, what: str) -> None:
    """No public ``what`` undeclared and unlisted, no stale entry, every reason holds."""
    missing, stale = gaps
    assert not missing, (f"Public {what} that declare nothing: declare them (validate_params, "
                         f"validate_fields) or list them in _undeclared.py, with why: {missing}")
    assert not stale, f"Remove from _undeclared.py (declared now, or not public): {stale}"
    wrong = {q: r for q, (kind, why) in listed.items()
             if (r := reason_problem(q, found[q], kind, why)) is not None}
    assert not wrong, wrong


def test_undeclared_functions_are_listed():
    """Every public function declares its parameters or is listed, with its reason."""
    assert_listed(list_gaps(FUNCTIONS, UNDECLARED), UNDECLARED, FUNCTIONS, "functions")
    bare = [q for q, f in FUNCTIONS.items() if not declared_params(f) and not takes_parameters(f)]
    print(f"\n{len(DECLARED)} public functions declare parameters; {len(UNDECLARED)} are "
          f"listed in _undeclared.py; {len(bare)} take no named parameter.")


def test_the_rules_find_planted_gaps():
    """A planted undeclared function is missing from the list, a planted entry stale, and a
    planted declaration that lets a bad value through is caught by the refusal check."""
    from toponeuro._util.params import validate_params

    def bare(n):
        return n

    def nothing_to_declare():
        return 1

    @validate_params({"n": Interval(numbers.Integral, 1, None, closed="left")})
    def declared(n):
        return n

    assert list_gaps({"pkg.bare": bare, "pkg.declared": declared,
                      "pkg.nothing_to_declare": nothing_to_declare},
                     {"pkg.declared": "why", "pkg.gone": "why"}) == (["pkg.bare"],
                                                                      ["pkg.declared", "pkg.gone"])

    class Lax(Interval):  # a declaration whose check lets its own bad values through
        def is_satisfied_by(self, value):
            return True

    @validate_params({"n": Lax(numbers.Integral, 1, None, closed="left")})
    def lax(n):
        return n

    assert refusal_problem(lax, "n", 0) == "accepted"
    assert refusal_problem(declared, "n", 0) is None
    # the fast lane's check: a lax declaration fails it (no bad value is left to try), as
    # does a declared parameter whose function does not run the check
    with pytest.raises(AssertionError, match="accepts each of its typical bad values"):
        assert_refused(declared_params(lax)["n"], lambda v: refusal_problem(lax, "n", v))

    def unchecked(n):
        return n

    unchecked.__toponeuro_params__ = declared_params(declared)  # declared, never checked
    with pytest.raises(AssertionError, match="accepted"):
        assert_refused(declared_params(declared)["n"],
                       lambda v: refusal_problem(unchecked, "n", v))
    assert_refused(declared_params(declared)["n"], lambda v: refusal_problem(declared, "n", v))

    def star(*args, **kwargs):  # no named parameter: nothing to declare, nothing to list
        return args

    assert list_gaps({"pkg.star": star}, {}) == ([], [])
    # a listed reason that does not hold is found
    assert reason_problem("pkg.bare", bare, "refuses nothing", "why") is None
    assert reason_problem("pkg.declared", declared, "refuses nothing", "why") is not None
    assert reason_problem("pkg.bare", bare, "checked by hand", "why") is not None
    assert reason_problem("pkg.bare", bare, "no such kind", "why") is not None
    sheet = importlib.import_module("toponeuro.sheet")
    assert reason_problem("q", sheet.sheet_shape, "standalone", "why") is not None
    assert reason_problem("q", sheet.sheet_shape, "imported by the vocabulary", "w") is not None
    assert reason_problem("q", sheet.sheet_shape, "pending", "in _null.py") is not None
    assert reason_problem("q", bare, "built by xarray", "why") is not None


def test_nested_calls_are_not_checked_twice():
    """A declared function called from a declared function trusts its arguments."""
    from toponeuro._util.params import validate_params

    calls = []

    @validate_params({"n": Interval(numbers.Integral, 1, None, closed="left")})
    def inner(n):
        calls.append(n)
        return n

    @validate_params({"m": Interval(numbers.Integral, 0, None, closed="left")})
    def outer(m):
        return inner(m)  # m=0 breaks inner's rule: only a nested call lets it through

    assert outer(0) == 0 and calls == [0]
    with pytest.raises(ToponeuroError, match="n=0"):
        inner(0)


# --------------------------------------------------------------------------------------------
# Public classes: a declared __init__ or declared fields (validate_fields) are tested as a
# function's parameters; a dataclass's own __post_init__ checks are tested from its fields'
# annotations; every other class is listed, with a kind of reason checked below.
# --------------------------------------------------------------------------------------------

#: the shrinking list of public classes whose constructor is not covered, with why
UNCOVERED_CLASSES = _LISTS["UNCOVERED_CLASSES"]
#: dataclass fields whose __post_init__ does not refuse every bad value of their annotation
UNCOVERED_FIELDS = _LISTS["UNCOVERED_FIELDS"]


def public_classes() -> dict:
    """qualified name -> the class, for every class in an ``__all__`` (not exceptions or
    warnings: they are raised by toponeuro, not built by users)."""
    found = {}
    for pkg in PACKAGES:
        module = importlib.import_module(pkg)
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if inspect.isclass(obj) and not issubclass(obj, BaseException):
                found.setdefault(f"{obj.__module__}.{obj.__qualname__}", obj)
    return found


CLASSES = public_classes()
DECLARED_CLASSES = {q: c for q, c in CLASSES.items() if params_of(c)}
CHECKED_DATACLASSES = {q: c for q, c in CLASSES.items() if dataclasses.is_dataclass(c)
                       and "__post_init__" in vars(c) and q not in DECLARED_CLASSES}
CLASS_CASES = sorted((q, p) for q, c in DECLARED_CLASSES.items() for p in params_of(c))


@pytest.mark.parametrize(("qual", "param"), CLASS_CASES,
                         ids=[f"{q.rsplit('.', 1)[1]}-{p}" for q, p in CLASS_CASES])
def test_bad_value_is_refused_by_a_class(qual, param):
    cls = DECLARED_CLASSES[qual]
    assert_refused(params_of(cls)[param], lambda value: refusal_problem(cls, param, value))


@pytest.mark.parametrize("qual", sorted(DECLARED_CLASSES), ids=lambda q: q.rsplit(".", 1)[1])
def test_class_defaults_and_examples_are_accepted(qual):
    """A declared class's defaults and examples are valid, and one built from them is
    made (its declared checks pass)."""
    cls = DECLARED_CLASSES[qual]
    check_defaults_and_examples(qual, cls)
    args, kwargs = _call_args(cls, "", None)
    if not any(isinstance(v, _Placeholder) for v in [*args, *kwargs.values()]):
        cls(*args, **kwargs)


#: valid values of the fields without a default (the other fields keep theirs)
REQUIRED_FIELDS = {
    "toponeuro.topoloss._loss.LayerSpec": {"name": "layer1.0.conv1", "factor_h": 2.0,
                                           "factor_w": 2.0},
    "toponeuro.models._registry.ModelCard": {"name": "my_net.v1", "arch": "my_net"},
    "toponeuro.atlases._maps.CortexMaps": {"hemi": "left"},
}

_BAD_BY_TYPE = {"int": ["1", [1], 1.5, _Placeholder()], "float": ["1", [1], _Placeholder()],
                "bool": ["yes", _Placeholder()], "str": [3, _Placeholder()]}


def field_bad_values(annotation) -> list:
    """Values outside a field's simple annotation (``int``, ``float | None`` ...); ``[]``
    for other annotations (their checks are the readers')."""
    kinds = [k.strip() for k in str(annotation).split("|")]
    simple = [k for k in kinds if k != "None"]
    if len(simple) != 1 or simple[0] not in _BAD_BY_TYPE:
        return []
    bad = list(_BAD_BY_TYPE[simple[0]])
    return bad + ([] if "None" in kinds else [None])


DATACLASS_CASES = sorted(
    (q, f.name) for q, c in CHECKED_DATACLASSES.items() for f in dataclasses.fields(c)
    if f.init and field_bad_values(f.type))


def field_refusal_problem(cls, field: str, value, base: dict) -> str | None:
    """None if building ``cls`` with ``value`` for ``field`` raises a typed error that names
    the field (``field=``, ``section.field=`` or ``LayerSpec field``), else what went wrong."""
    return call_problem(lambda: cls(**dict(base, **{field: value})),
                        lambda m: re.search(rf"\b{field}\b", m.split(";")[0]) is not None)


@pytest.mark.parametrize(("qual", "field"), DATACLASS_CASES,
                         ids=[f"{q.rsplit('.', 1)[1]}-{f}" for q, f in DATACLASS_CASES])
def test_dataclass_post_init_refuses_bad_values(qual, field):
    cls = CHECKED_DATACLASSES[qual]
    base = REQUIRED_FIELDS.get(qual, {})
    cls(**base)  # the base is valid
    annotation = next(f.type for f in dataclasses.fields(cls) if f.name == field)
    problems = [(v, p) for v in field_bad_values(annotation)
                if (p := field_refusal_problem(cls, field, v, base)) is not None]
    allowed = UNCOVERED_FIELDS.get(f"{qual}.{field}")
    assert not problems or allowed, problems


# --------------------------------------------------------------------------------------------
# Public estimators: __init__ stores its parameters unchanged (scikit-learn's rule), so they are
# declared on the class, ``_parameter_constraints`` in the vocabulary of validate_params, and
# checked when fit starts (``_validate_params``), as scikit-learn's own estimators do.
# --------------------------------------------------------------------------------------------

DECLARED_ESTIMATORS = {q: c for q, c in CLASSES.items()
                       if getattr(c, "_parameter_constraints", None)}
ESTIMATOR_CASES = sorted((q, p) for q, c in DECLARED_ESTIMATORS.items()
                         for p in c._parameter_constraints)


def estimator_refusal_problem(cls, param: str, value) -> str | None:
    """None if an estimator built with ``value`` for ``param`` keeps it as given and its
    parameter check refuses it with a typed error naming it, else what went wrong."""
    est = cls(**{param: value})
    if getattr(est, param) is not value:
        return "__init__ changed the value (scikit-learn's rule: stored unchanged)"
    return call_problem(est._validate_params, lambda m: m.startswith(f"{param}="))


@pytest.mark.parametrize(("qual", "param"), ESTIMATOR_CASES,
                         ids=[f"{q.rsplit('.', 1)[1]}-{p}" for q, p in ESTIMATOR_CASES])
def test_bad_value_is_refused_by_an_estimator(qual, param):
    cls = DECLARED_ESTIMATORS[qual]
    assert_refused(_as_constraints(cls._parameter_constraints[param]),
                   lambda value: estimator_refusal_problem(cls, param, value))


@pytest.mark.parametrize("qual", sorted(DECLARED_ESTIMATORS), ids=lambda q: q.rsplit(".", 1)[1])
def test_an_estimator_declares_every_parameter_and_its_defaults_pass(qual):
    cls = DECLARED_ESTIMATORS[qual]
    params = [p for p in inspect.signature(cls.__init__).parameters if p != "self"]
    assert sorted(cls._parameter_constraints) == sorted(params), qual
    cls()._validate_params()  # the defaults are valid


def class_gaps(classes: dict, listed: dict) -> tuple[list, list]:
    """``(missing, stale)``: classes neither declared, nor dataclasses with checks, nor
    estimators declaring ``_parameter_constraints``, nor listed; listed ones that are
    covered now or gone."""
    uncovered = sorted(q for q, c in classes.items() if not params_of(c)
                       and not (dataclasses.is_dataclass(c) and "__post_init__" in vars(c))
                       and not getattr(c, "_parameter_constraints", None))
    return ([q for q in uncovered if q not in listed],
            sorted(q for q in listed if q not in uncovered))


def test_every_public_class_is_covered_or_listed():
    assert_listed(class_gaps(CLASSES, UNCOVERED_CLASSES), UNCOVERED_CLASSES, CLASSES, "classes")
    print(f"\n{len(DECLARED_CLASSES)} public classes declare __init__ or their fields, "
          f"{len(CHECKED_DATACLASSES)} check their fields in __post_init__, "
          f"{len(UNCOVERED_CLASSES)} listed.")


def test_hand_checked_dataclasses_are_listed_and_only_shrink():
    """A public dataclass that checks its fields by hand (no declaration) is listed in
    ``_undeclared.CHECKED_BY_HAND`` with why; one that declares its fields now is removed."""
    listed = _LISTS["CHECKED_BY_HAND"]
    missing = sorted(q for q in CHECKED_DATACLASSES if q not in listed)
    stale = sorted(q for q in listed if q not in CHECKED_DATACLASSES)
    assert not missing, f"Declare their fields (validate_fields) or list them, with why: {missing}"
    assert not stale, f"Remove from CHECKED_BY_HAND (declared now, or not public): {stale}"
    assert all(why.strip() for why in listed.values())


def test_the_class_rules_find_planted_gaps():
    """A planted bare class is missing, a planted dataclass whose __post_init__ lets a bad
    value through is caught, and a declared __init__ is tested as a function."""
    from toponeuro._util.params import validate_params
    from toponeuro.analysis._validate import EstimatorMixin

    class Bare:
        def __init__(self, n):
            self.n = n

    @dataclasses.dataclass
    class Lax:
        n: int = 1

        def __post_init__(self):
            pass

    class Declared:
        @validate_params({"n": Interval(numbers.Integral, 1, None, closed="left")})
        def __init__(self, n):
            self.n = n

    assert class_gaps({"pkg.Bare": Bare, "pkg.Lax": Lax, "pkg.Declared": Declared},
                      {"pkg.Declared": "why"}) == (["pkg.Bare"], ["pkg.Declared"])
    assert field_refusal_problem(Lax, "n", "1", {}) == "accepted"

    class LaxEstimator(EstimatorMixin):  # declares n, but its check lets n=0 through
        _parameter_constraints = {"n": Interval(numbers.Integral, 0, None, closed="left")}

        def __init__(self, n=1):
            self.n = n

    class Estimator(LaxEstimator):
        _parameter_constraints = {"n": Interval(numbers.Integral, 1, None, closed="left")}

    assert class_gaps({"pkg.Estimator": Estimator}, {}) == ([], [])
    assert estimator_refusal_problem(LaxEstimator, "n", 0) == "accepted"
    assert estimator_refusal_problem(Estimator, "n", 0) is None
    assert refusal_problem(Declared, "n", 0) is None
    assert refusal_problem(Declared, "n", 1) == "accepted"

    from typing import NamedTuple

    from toponeuro._util.frozen import validate_fields

    count = Interval(numbers.Integral, 1, None, closed="left")

    @dataclasses.dataclass(frozen=True)
    @validate_fields({"n": count})
    class Record:
        n: int

    @validate_fields({"n": count})
    class Row(NamedTuple):
        n: int

    class LaxCount(Interval):  # a declaration whose check lets its own bad values through
        def is_satisfied_by(self, value):
            return True

    @dataclasses.dataclass(frozen=True)
    @validate_fields({"n": LaxCount(numbers.Integral, 1, None, closed="left")})
    class LaxRecord:
        n: int

    @dataclasses.dataclass(frozen=True)
    class Derived(Record):  # inherits the declaration, declares nothing of its own
        m: int = 0

    assert class_gaps({"pkg.Record": Record, "pkg.Row": Row, "pkg.Derived": Derived},
                      {}) == (["pkg.Derived"], [])
    assert params_of(Record)["n"] == params_of(Row)["n"] == (count,)
    assert refusal_problem(Record, "n", 0) is None and refusal_problem(Row, "n", 0) is None
    assert refusal_problem(LaxRecord, "n", 0) == "accepted"
    assert Record(2.0).n == 2 and Row(2.0).n == 2  # canonical values are stored



def _drawn_cases() -> dict:
    """kind -> [(case name, constraints, problem)] of every declared parameter."""
    return {
        "function": [(f"{q}:{p}", declared_params(DECLARED[q])[p],
                      functools.partial(refusal_problem, DECLARED[q], p)) for q, p in CASES],
        "class": [(f"{q}:{p}", params_of(DECLARED_CLASSES[q])[p],
                   functools.partial(refusal_problem, DECLARED_CLASSES[q], p))
                  for q, p in CLASS_CASES],
        "estimator": [(f"{q}:{p}",
                       _as_constraints(DECLARED_ESTIMATORS[q]._parameter_constraints[p]),
                       functools.partial(estimator_refusal_problem, DECLARED_ESTIMATORS[q], p))
                      for q, p in ESTIMATOR_CASES],
    }


@pytest.mark.slow  # hypothesis: 12 drawn values for each of ~1,000 declared parameters (~10 s)
@pytest.mark.parametrize("kind", ["function", "class", "estimator"])
def test_drawn_bad_values_are_refused(kind):
    """Beyond the typical bad values the fast lane checks (``assert_refused``): values
    hypothesis draws outside each declaration (any float below an interval's bound, any
    text for an option, ...) are refused with a typed error naming the parameter."""
    failures = []
    for name, constraints, problem in _drawn_cases()[kind]:
        try:
            assert_drawn_refused(constraints, problem)
        except Exception as err:  # noqa: BLE001 - every case's finding, not the first only
            failures.append(f"{name}: {type(err).__name__}: {err}")
    assert not failures, "\n".join(failures)
