"""Checks of scalar arguments at the public entries: one function per kind of parameter.

Each check returns the value in its canonical type and raises a typed error whose message
names the parameter, what arrived and the valid range, in *parameter* names (the CLI rewrites
them as flags with :func:`toponeuro.cli._checks.cli_message`). A wrong type is an
:class:`~toponeuro.exceptions.InputTypeError` (also a ``TypeError``); a value of the right
type outside the range a :class:`~toponeuro.exceptions.ParameterError` (also a
``ValueError``).

The parameters of a public function are *declared* once, in one vocabulary (modelled on
scikit-learn's ``_param_validation``): :func:`validate_params` checks them where the function
is called from outside and hands the body canonical values; calls between toponeuro's own
functions skip the check (the outer one already made it). Each constraint says what it
accepts (:meth:`Constraint.describe`), gives a cheap valid value (``example``) and values it
refuses (``bad_values``), which ``tests/house/test_bad_values.py`` feeds to every public
function.

Examples
--------
>>> check_int(1000, "n_permutations", lo=0, hi=MAX_PERMUTATIONS)
1000
>>> check_int(2.7, "n_permutations", lo=0)
Traceback (most recent call last):
...
toponeuro.exceptions.ParameterError: n_permutations=2.7 is not a whole number >= 0.
>>> check_number(float("nan"), "threshold")
Traceback (most recent call last):
...
toponeuro.exceptions.ParameterError: threshold=nan is not a finite number.
"""

from __future__ import annotations

import abc
import contextvars
import functools
import inspect
import math
import numbers
import os
from types import MappingProxyType

import numpy as np

from ..exceptions import InputTypeError, InternalError, ParameterError, close_matches

__all__ = [
    "MAX_PERMUTATIONS",
    "N_PERMUTATIONS",
    "ALPHA",
    "SEED",
    "TOP_K",
    "PROBABILITY",
    "COUNT",
    "NON_NEGATIVE_INT",
    "POSITIVE",
    "NON_NEGATIVE",
    "NUMBER",
    "P_VALUE",
    "Boolean",
    "Callable",
    "Constraint",
    "InstanceOf",
    "Interval",
    "Options",
    "PathLike",
    "Seed",
    "Text",
    "bad_values",
    "check_param",
    "without_none",
    "declared_params",
    "validate_params",
    "check_int",
    "check_number",
    "check_random_state",
    "check_n_permutations",
    "check_top_k",
]

#: the most draws a spatial null takes (``n_permutations``): 10**6 draws resolve p-values
#: to 1e-6, far below any level tested; more only costs time and memory
MAX_PERMUTATIONS = 1_000_000


def _num(x) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def _range_text(lo, hi, lo_open=False, hi_open=False) -> str:
    if lo is not None and hi is not None:
        return f"in {'(' if lo_open else '['}{_num(lo)}, {_num(hi)}{')' if hi_open else ']'}"
    if lo is not None:
        return f"{'>' if lo_open else '>='} {_num(lo)}"
    if hi is not None:
        return f"{'<' if hi_open else '<='} {_num(hi)}"
    return ""


def _shown(value) -> str:
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, float | np.floating):
        return f"{float(value):g}"
    if isinstance(value, numbers.Number):
        return str(value)
    shape = getattr(value, "shape", None)
    if isinstance(shape, tuple):  # an array: its kind and shape, not its values
        dims = getattr(value, "dims", None)
        named = f" dims {tuple(dims)}" if isinstance(dims, tuple) else ""
        return f"<{type(value).__name__}{named} shape {shape}>"
    text = repr(value)
    return text if len(text) <= 80 and "\n" not in text else f"<{type(value).__name__}>"


def _type_error(value, name: str, want: str, fix: str):
    hint = f" {fix}" if fix else ""
    return InputTypeError(
        f"{name}={_shown(value)} is not {want} (got a {type(value).__name__}).{hint}"
    )


def check_int(value, name: str, *, lo: int | None = None, hi: int | None = None,
              fix: str = "") -> int:
    """``value`` as an ``int`` in ``[lo, hi]``; whole floats (``10.0``) are accepted.

    Refused: ``bool``, strings (``'10'``), fractions (``2.7``), NaN and inf, values out of
    range. ``fix`` is appended to the message.

    Examples
    --------
    >>> check_int(np.int64(5), "n_bins", lo=2)
    5
    >>> check_int("10", "n_permutations")
    Traceback (most recent call last):
    ...
    toponeuro.exceptions.InputTypeError: n_permutations='10' is not a whole number (got a str).
    """
    return check_param(value, name, Interval(numbers.Integral, lo, hi, closed="both", fix=fix))


def check_number(value, name: str, *, lo: float | None = None, hi: float | None = None,
                 lo_open: bool = False, hi_open: bool = False, fix: str = "") -> float:
    """``value`` as a finite ``float`` in the range given (``lo_open``: ``> lo``).

    Refused: ``bool``, strings, NaN, inf, values out of range.

    Examples
    --------
    >>> check_number(0.05, "alpha", lo=0, hi=1, lo_open=True, hi_open=True)
    0.05
    >>> check_number(1, "alpha", lo=0, hi=1, lo_open=True, hi_open=True)
    Traceback (most recent call last):
    ...
    toponeuro.exceptions.ParameterError: alpha=1 is not a finite number in (0, 1).
    """
    closed = {(False, False): "both", (False, True): "left", (True, False): "right",
              (True, True): "neither"}[(bool(lo_open), bool(hi_open))]
    return check_param(value, name, Interval(numbers.Real, lo, hi, closed=closed, fix=fix))


def check_n_permutations(value, name: str = "n_permutations") -> int:
    """Draws of a null: a whole number in ``[0, MAX_PERMUTATIONS]`` (0: no null).

    Examples
    --------
    >>> check_n_permutations(999)
    999
    """
    return check_param(value, name, N_PERMUTATIONS)


def check_random_state(random_state, name: str = "random_state") -> np.random.Generator:
    """A ``numpy.random.Generator`` from a seed: None, an int >= 0, a Generator or SeedSequence.

    Examples
    --------
    >>> int(check_random_state(0).integers(10)) == int(np.random.default_rng(0).integers(10))
    True
    >>> check_random_state("abc")
    Traceback (most recent call last):
    ...
    toponeuro.exceptions.InputTypeError: random_state='abc' is not None, a whole number >= 0 or a numpy.random.Generator (got a str).
    """
    want = "None, a whole number >= 0 or a numpy.random.Generator"
    if random_state is None or isinstance(
        random_state, np.random.Generator | np.random.SeedSequence | np.random.BitGenerator
    ):
        return np.random.default_rng(random_state)
    if isinstance(random_state, bool | np.bool_) or not isinstance(random_state, numbers.Integral):
        raise _type_error(random_state, name, want, "")
    if int(random_state) < 0:
        raise ParameterError(f"{name}={int(random_state)} is not {want}.")
    return np.random.default_rng(int(random_state))


def check_top_k(top_k):
    """``top_k``: an int >= 1 is a count of units; a float in (0, 1] a fraction of them.

    Examples
    --------
    >>> check_top_k(5), check_top_k(0.1)
    (5, 0.1)
    >>> check_top_k(0)
    Traceback (most recent call last):
    toponeuro.exceptions.ParameterError: top_k=0 is not a whole number >= 1 or a finite number in (0, 1]. An int is a count of units (top_k=5), a float in (0, 1] a fraction of them (top_k=0.1; 1.0 = every unit).
    """
    return check_param(top_k, "top_k", TOP_K)


# --------------------------------------------------------------------------------------------
# The vocabulary of declared parameters
# --------------------------------------------------------------------------------------------


class _Junk:
    """A value of no type any parameter accepts (a bad value for type-only constraints)."""

    def __repr__(self) -> str:
        return "<object>"


class Constraint(abc.ABC):
    """One kind of value a parameter accepts; a parameter declares a list of them (any one).

    ``is_satisfied_by`` decides, ``kind_ok`` says whether a refused value was at least of
    the right kind (then the error is a :class:`~toponeuro.exceptions.ParameterError`,
    otherwise an :class:`~toponeuro.exceptions.InputTypeError`), ``convert`` gives the value
    the body receives, ``describe`` the phrase of the message, ``example`` a cheap valid
    value and ``bad_values`` values outside the constraint. ``fix`` is appended to the
    message.
    """

    fix = ""
    #: raised for a refused value of the right kind
    error = ParameterError
    #: raised for a value of the wrong kind
    type_error = InputTypeError

    @abc.abstractmethod
    def is_satisfied_by(self, value) -> bool:
        """Whether ``value`` is accepted."""

    def kind_ok(self, value) -> bool:
        return self.is_satisfied_by(value)

    def convert(self, value):
        return value

    @abc.abstractmethod
    def describe(self) -> str:
        """The phrase of the message: ``"a whole number >= 1"``."""

    @abc.abstractmethod
    def example(self):
        """A cheap valid value."""

    def bad_values(self) -> list:
        return [_Junk()]

    def hint(self, value) -> str:
        return ""

    def raising(self, error, type_error=None):
        """This constraint, refusing with a domain's ``error`` (a wrong kind with
        ``type_error``, by default ``error`` too): ``Interval(...).raising(SheetError)``."""
        self.error, self.type_error = error, type_error or error
        return self

    def refusal(self, value, name: str) -> str | None:
        """The constraint's own message for a refused ``value`` (it starts with ``name=``);
        None: :func:`check_param` words it."""
        return None

    def __repr__(self) -> str:
        return f"<{type(self).__name__}: {self.describe()}>"


class _NoneOk(Constraint):
    """``None`` (declared as ``None`` in a parameter's list)."""

    def is_satisfied_by(self, value) -> bool:
        return value is None

    def describe(self) -> str:
        return "None"

    def example(self):
        return None

    def bad_values(self) -> list:
        return []


def _is_number(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool | np.bool_)


class Interval(Constraint):
    """A number in a range: ``Interval(numbers.Integral, 1, None, closed="left")`` is a
    whole number >= 1; ``Interval(numbers.Real, 0, 1, closed="neither")`` a finite number
    in (0, 1).

    ``closed``: which ends belong to the range (``"both"``, ``"left"``, ``"right"``,
    ``"neither"``). A whole number accepts whole floats (``10.0`` -> ``10``) unless
    ``whole_floats=False``; booleans, strings, NaN and inf are refused (NaN is accepted
    with ``allow_nan=True``: a p-value left undefined, a statistic of too few units).
    """

    def __init__(self, kind, lo=None, hi=None, *, closed="both", fix="", whole_floats=True,
                 allow_nan=False):
        if kind not in (numbers.Integral, numbers.Real, int, float):
            raise InternalError(f"Interval kind must be numbers.Integral or numbers.Real, "
                                f"not {kind!r}.")
        if closed not in ("both", "left", "right", "neither"):
            raise InternalError(f"Interval closed={closed!r} is not 'both', 'left', 'right' "
                                "or 'neither'.")
        self.integral = kind in (numbers.Integral, int)
        self.lo, self.hi, self.closed, self.fix = lo, hi, closed, fix
        self.whole_floats, self.allow_nan = whole_floats, allow_nan and not self.integral

    @property
    def _lo_open(self) -> bool:
        return self.closed in ("right", "neither")

    @property
    def _hi_open(self) -> bool:
        return self.closed in ("left", "neither")

    def kind_ok(self, value) -> bool:
        return _is_number(value)

    def _in_range(self, x: float) -> bool:
        if self.lo is not None and (x <= self.lo if self._lo_open else x < self.lo):
            return False
        return not (self.hi is not None and (x >= self.hi if self._hi_open else x > self.hi))

    def is_satisfied_by(self, value) -> bool:
        if not _is_number(value):
            return False
        if self.integral and not isinstance(value, numbers.Integral):
            f = float(value)
            if not (self.whole_floats and math.isfinite(f) and f.is_integer()):
                return False
        f = float(value)
        return (math.isfinite(f) and self._in_range(f)) or (self.allow_nan and f != f)

    def convert(self, value):
        return int(value) if self.integral else float(value)

    def describe(self) -> str:
        rng = _range_text(self.lo, self.hi, self._lo_open, self._hi_open)
        want = "a whole number" if self.integral else "a finite number"
        return want + (f" {rng}" if rng else "") + (" or NaN" if self.allow_nan else "")

    def example(self):
        lo, hi = self.lo, self.hi
        if lo is None and hi is None:
            return 1 if self.integral else 0.5
        if lo is None:
            x = hi - 1 if self._hi_open or not self.integral else hi
            return int(x) if self.integral else float(hi - 1)
        if hi is None:
            return int(lo) + 1 if self.integral else float(lo) + 1.0
        if self.integral:
            return int(lo) + 1 if self._lo_open else int(lo)
        return (lo + hi) / 2

    def bad_values(self) -> list:
        out = ["1", None, True, [1]] + ([] if self.allow_nan else [float("nan")])
        out += [float("inf"), float("-inf")]
        step, far = (1, 10**6) if self.integral else (0.5, 1e6)
        if self.lo is not None:
            out += [self.lo if self._lo_open else self.lo - step, self.lo - far]
        if self.hi is not None:
            out += [self.hi if self._hi_open else self.hi + step, self.hi + far]
        if self.integral:
            base = self.lo if self.lo is not None else 0
            out += [base + 1.5]
            if not self.whole_floats:
                out += [float(self.example())]
        return out


class Options(Constraint):
    """One of a few values, usually strings: ``Options({"pearson", "spearman"})``.

    A misspelt option's message suggests the closest ones. ``error``: the error raised for
    a value of the right type that is no option (``UnknownNameError``, also a ``KeyError``,
    for names of methods, metrics ...).
    """

    def __init__(self, options, *, fix="", error=ParameterError):
        self.error, self.fix = error, fix
        # a dict is read when checking: names registered later are options too
        self._live = options if isinstance(options, dict) else None
        self._options = tuple(sorted(options, key=str)) if isinstance(options, set | frozenset) \
            else tuple(options)

    @property
    def options(self) -> tuple:
        return tuple(self._live) if self._live is not None else self._options


    def is_satisfied_by(self, value) -> bool:
        if isinstance(value, bool | np.bool_ | np.ndarray):  # ``array in options`` compares
            return False  # element-wise: a one-name array would pass, a longer one raise
        try:
            return value in self.options
        except (TypeError, ValueError):  # unhashable, or compared element-wise (a Series)
            return False

    def kind_ok(self, value) -> bool:
        return any(type(value) is type(o) for o in self.options)

    def describe(self) -> str:
        return "one of " + ", ".join(repr(o) for o in self.options)

    def example(self):
        return self.options[0]

    def bad_values(self) -> list:
        return ["not-an-option", "", 3, None, _Junk()]

    def hint(self, value) -> str:
        if isinstance(value, str) and self.options and all(isinstance(o, str)
                                                           for o in self.options):
            near = close_matches(value, self.options)
            return near if near.startswith("did") else ""
        return ""


class Boolean(Constraint):
    """``True`` or ``False`` (also numpy's booleans); ``0``, ``1`` and ``"yes"`` are refused."""

    def __init__(self, *, fix=""):
        self.fix = fix

    def is_satisfied_by(self, value) -> bool:
        return isinstance(value, bool | np.bool_)

    def convert(self, value):
        return bool(value)

    def describe(self) -> str:
        return "True or False"

    def example(self):
        return False

    def bad_values(self) -> list:
        return ["yes", 2, None, _Junk()]


class Seed(Constraint):
    """A seed (``random_state``): None, a whole number >= 0 or a ``numpy.random.Generator``
    (also a ``SeedSequence`` or ``BitGenerator``); the body turns it into a Generator with
    :func:`check_random_state`.
    """

    _RNG = (np.random.Generator, np.random.SeedSequence, np.random.BitGenerator)

    def __init__(self, *, fix=""):
        self.fix = fix

    def kind_ok(self, value) -> bool:
        return isinstance(value, numbers.Integral) and not isinstance(value, bool | np.bool_)

    def is_satisfied_by(self, value) -> bool:
        return value is None or isinstance(value, self._RNG) or (
            self.kind_ok(value) and int(value) >= 0)

    def describe(self) -> str:
        return "None, a whole number >= 0 or a numpy.random.Generator"

    def example(self):
        return 0

    def bad_values(self) -> list:
        return [-1, "abc", 1.5, True, _Junk()]


class Text(Constraint):
    """A non-empty string (a name, a label) or, with ``empty=True``, any string.

    ``error``: the error raised for a blank string (``InputTypeError`` where a blank name
    was always refused as one).
    """

    def __init__(self, *, empty=False, fix="", error=ParameterError):
        self.empty, self.fix, self.error = empty, fix, error

    def kind_ok(self, value) -> bool:
        return isinstance(value, str)

    def is_satisfied_by(self, value) -> bool:
        return isinstance(value, str) and (self.empty or bool(value.strip()))

    def describe(self) -> str:
        return "a string" if self.empty else "a non-empty string"

    def example(self):
        return "x"

    def bad_values(self) -> list:
        return [3, None, _Junk()] + ([] if self.empty else ["", "  "])


class PathLike(Constraint):
    """A path: a non-empty string or an ``os.PathLike`` (``pathlib.Path``)."""

    def __init__(self, *, fix=""):
        self.fix = fix

    def kind_ok(self, value) -> bool:
        return isinstance(value, str)

    def is_satisfied_by(self, value) -> bool:
        return isinstance(value, os.PathLike) or (isinstance(value, str) and bool(value.strip()))

    def describe(self) -> str:
        return "a path (a non-empty str or a pathlib.Path)"

    def example(self):
        return "x"

    def bad_values(self) -> list:
        return [3, "", _Junk(), b"x"]


class Callable(Constraint):
    """A callable (a function, a class, an object with ``__call__``)."""

    def __init__(self, *, fix=""):
        self.fix = fix

    def is_satisfied_by(self, value) -> bool:
        return callable(value)

    def describe(self) -> str:
        return "a callable"

    def example(self):
        return len

    def bad_values(self) -> list:
        return ["len", 3, None]


class InstanceOf(Constraint):
    """An instance of a type: ``InstanceOf(torch.nn.Module, "a torch.nn.Module")``.

    ``example``: a valid value, or a function that makes one (called only when needed).
    """

    def __init__(self, kind, description: str = "", *, example=None, fix=""):
        self.kind, self.fix, self._example = kind, fix, example
        names = kind if isinstance(kind, tuple) else (kind,)
        self.description = description or " or ".join(f"a {k.__name__}" for k in names)

    def is_satisfied_by(self, value) -> bool:
        return isinstance(value, self.kind)

    def describe(self) -> str:
        return self.description

    def example(self):
        if self._example is None:
            raise InternalError(f"{self!r} has no example; pass example=.")
        if callable(self._example) and not isinstance(self._example, self.kind):
            return self._example()  # made when needed: a card read from the registry
        return self._example

    def bad_values(self) -> list:
        return [_Junk(), None, "x"]


#: the draws of a spatial null (``n_permutations``): 0 (no null) to :data:`MAX_PERMUTATIONS`
N_PERMUTATIONS = Interval(numbers.Integral, 0, MAX_PERMUTATIONS, closed="both",
                          fix="0 draws no null; 1000 is the usual choice.")
#: a significance level in (0, 1)
ALPHA = Interval(numbers.Real, 0, 1, closed="neither", fix="0.05 is the usual choice.")
#: a seed (``random_state``)
SEED = Seed()
_TOP_K_FIX = ("An int is a count of units (top_k=5), a float in (0, 1] a fraction of them "
              "(top_k=0.1; 1.0 = every unit).")
#: units kept by a score (``top_k``): an int >= 1 counts them, a float in (0, 1] is a fraction
TOP_K = [Interval(numbers.Integral, 1, None, closed="left", whole_floats=False),
         Interval(numbers.Real, 0, 1, closed="right", fix=_TOP_K_FIX)]
#: a false-discovery rate or a probability strictly between 0 and 1
PROBABILITY = Interval(numbers.Real, 0, 1, closed="neither")
#: a count of things (epochs, folds, units): a whole number >= 1
COUNT = Interval(numbers.Integral, 1, None, closed="left")
#: a whole number >= 0 (a seed, a number of extra items)
NON_NEGATIVE_INT = Interval(numbers.Integral, 0, None, closed="left")
#: a finite number > 0 (a rate, a radius, a scale)
POSITIVE = Interval(numbers.Real, 0, None, closed="neither")
#: a finite number >= 0
NON_NEGATIVE = Interval(numbers.Real, 0, None, closed="left")

#: a statistic a record holds: a finite number, or NaN where it is undefined
NUMBER = Interval(numbers.Real, allow_nan=True)
#: a p-value a record holds: in [0, 1], or NaN where nothing was tested
P_VALUE = Interval(numbers.Real, 0, 1, closed="both", allow_nan=True)

_NAMED = {"boolean": Boolean, "random_state": Seed, "callable": Callable}


def _as_constraint(c) -> Constraint:
    if c is None:
        return _NoneOk()
    if isinstance(c, Constraint):
        return c
    if isinstance(c, str) and c in _NAMED:
        return _NAMED[c]()
    if isinstance(c, type):
        return InstanceOf(c)
    raise InternalError(f"{c!r} is not a parameter constraint: use None, 'boolean', "
                        "'random_state', 'callable', a type or a Constraint.")


def _as_constraints(spec) -> tuple[Constraint, ...]:
    items = spec if isinstance(spec, list | tuple) else [spec]
    return tuple(_as_constraint(c) for c in items)


def without_none(constraints) -> tuple[Constraint, ...]:
    """A parameter's constraints but those None satisfies: what a value given where None
    is not meant (a flag, a settings field set) is checked by, so its message says what a
    value must be without "or None".

    Examples
    --------
    >>> without_none([COUNT, None])
    (<Interval: a whole number >= 1>,)
    """
    return tuple(c for c in _as_constraints(constraints) if not c.is_satisfied_by(None))


def check_param(value, name: str, constraints):
    """``value`` checked against a parameter's constraints (any one), in its canonical type.

    The message names the parameter, what arrived and what is accepted, and ends with the
    constraints' fixes; a value of the wrong kind raises an
    :class:`~toponeuro.exceptions.InputTypeError`, one of the right kind outside the range
    a :class:`~toponeuro.exceptions.ParameterError`.

    Examples
    --------
    >>> check_param(np.int64(3), "n_bins", Interval(numbers.Integral, 2, None, closed="left"))
    3
    >>> check_param("pearsn", "metric", [Options({"pearson", "spearman"}), None])
    Traceback (most recent call last):
    ...
    toponeuro.exceptions.ParameterError: metric='pearsn' is not one of 'pearson', 'spearman' or None; did you mean 'pearson' or 'spearman'?
    """
    constraints = _as_constraints(constraints)
    for c in constraints:
        if c.is_satisfied_by(value):
            return c.convert(value)
    want = " or ".join(c.describe() for c in constraints)
    if len(constraints) > 2:
        want = ", ".join(c.describe() for c in constraints[:-1]) + \
            f" or {constraints[-1].describe()}"
    hint = next((h for h in (c.hint(value) for c in constraints) if h), "")
    fixes = []
    for c in constraints:
        if c.fix and c.fix not in fixes:
            fixes.append(c.fix)
    tail = "".join(f" {f}" for f in fixes)
    kind = next((c for c in constraints if c.kind_ok(value)), None)
    if kind is None:
        want += f" (got a {type(value).__name__})"
    error = kind.error if kind is not None else constraints[0].type_error
    own = next((m for m in (c.refusal(value, name) for c in constraints) if m), None)
    if own:
        raise error(own)
    # "...; did you mean 'pearson'?" ends the sentence for a misspelt option
    end = f"; {hint}" if hint else "."
    raise error(f"{name}={_shown(value)} is not {want}{end}{tail}")


def bad_values(constraints) -> list:
    """Values no constraint of a parameter accepts (for the generated bad-value test).

    Examples
    --------
    >>> bad_values([Interval(numbers.Integral, 1, None, closed="left"), None])
    ['1', True, [1], nan, inf, -inf, 0, -999999, 2.5]
    """
    constraints = _as_constraints(constraints)
    out = []
    for c in constraints:
        for v in c.bad_values():
            if not any(k.is_satisfied_by(v) for k in constraints) and not any(
                    v is w or (type(v) is type(w) and _same(v, w)) for w in out):
                out.append(v)
    return out


def _same(a, b) -> bool:
    try:
        return bool(a == b) or (a != a and b != b)
    except Exception:  # noqa: BLE001 - arrays, junk: compare by identity only
        return False


#: set while a validated function runs: the functions it calls trust their arguments
_NESTED = contextvars.ContextVar("toponeuro_validated_call", default=False)


def validate_params(constraints: dict, *, prefer_skip_nested_validation: bool = True):
    """Declare a public function's parameters: checked once, where it is called from outside.

    ``constraints`` maps a parameter name to a constraint or a list of them (any one is
    enough): a :class:`Constraint`, ``None`` (None is accepted), ``"boolean"``,
    ``"random_state"``, ``"callable"`` or a type. The call's arguments are checked with
    :func:`check_param` before the body runs, and the body receives them in their canonical
    type (``np.int64(5)`` -> ``5``); defaults are not checked (a test checks them once).
    While the body runs, the toponeuro functions it calls skip their own check
    (``prefer_skip_nested_validation=False`` when the body passes on arguments it did not
    check itself, such as ``**kwargs``). The declaration stays readable as the function's
    ``__toponeuro_params__``.

    Examples
    --------
    >>> @validate_params({"n": Interval(numbers.Integral, 1, None, closed="left")})
    ... def halve(n):
    ...     return n / 2
    >>> halve(4)
    2.0
    >>> halve(0)
    Traceback (most recent call last):
    ...
    toponeuro.exceptions.ParameterError: n=0 is not a whole number >= 1.
    >>> declared_params(halve)
    {'n': (<Interval: a whole number >= 1>,)}
    """
    declared = {name: _as_constraints(spec) for name, spec in constraints.items()}

    def decorate(func):
        if hasattr(func, "__toponeuro_params__"):  # the outer layer would skip the inner one
            raise InternalError(f"{func.__qualname__} declares its parameters twice; merge "
                                "the declarations into one validate_params.")
        sig = inspect.signature(func)
        unknown = [n for n in declared if n not in sig.parameters or sig.parameters[n].kind
                   in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)]
        if unknown:
            raise InternalError(f"{func.__qualname__} declares {unknown}, which are not "
                                "named parameters of it.")

        @functools.wraps(func)
        def checked(*args, **kwargs):
            if _NESTED.get():
                return func(*args, **kwargs)
            try:
                bound = sig.bind(*args, **kwargs)
            except TypeError:  # let Python word the missing or extra argument
                return func(*args, **kwargs)
            changed = False
            arguments = bound.arguments
            for name, cons in declared.items():
                if name in arguments:
                    value = arguments[name]
                    new = check_param(value, name, cons)
                    if new is not value:
                        arguments[name] = new
                        changed = True
            token = _NESTED.set(True) if prefer_skip_nested_validation else None
            try:
                if changed:
                    return func(*bound.args, **bound.kwargs)
                return func(*args, **kwargs)
            finally:
                if token is not None:
                    _NESTED.reset(token)

        checked.__toponeuro_params__ = MappingProxyType(declared)
        return checked

    return decorate


def declared_params(func) -> dict:
    """The parameters ``func`` declares with :func:`validate_params` (``{}`` if none).

    Examples
    --------
    >>> declared_params(len)
    {}
    """
    return dict(getattr(func, "__toponeuro_params__", {}))



