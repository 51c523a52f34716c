"""Checks of scalar arguments at the public entries: one function per kind of parameter.

Each check returns the value in its canonical type and raises a typed error whose message
names the parameter, what arrived and the valid range, in *parameter* names (the CLI rewrites
them as flags with :func:`toponeuro.cli._checks.cli_message`). A wrong type is an
:class:`~toponeuro.exceptions.InputTypeError` (also a ``TypeError``); a value of the right
type outside the range a :class:`~toponeuro.exceptions.ParameterError` (also a
``ValueError``).

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

import math
import numbers

import numpy as np

from ..exceptions import InputTypeError, ParameterError

__all__ = [
    "MAX_PERMUTATIONS",
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
    return repr(value) if not isinstance(value, numbers.Number) else str(value)


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
    rng = _range_text(lo, hi)
    want = "a whole number" + (f" {rng}" if rng else "")
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
        raise _type_error(value, name, want, fix)
    if isinstance(value, numbers.Integral):
        out = int(value)
    else:
        f = float(value)
        if not (math.isfinite(f) and f.is_integer()):
            raise ParameterError(f"{name}={_shown(value)} is not {want}." +
                                 (f" {fix}" if fix else ""))
        out = int(f)
    if (lo is not None and out < lo) or (hi is not None and out > hi):
        raise ParameterError(f"{name}={out} is not {want}." + (f" {fix}" if fix else ""))
    return out


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
    rng = _range_text(lo, hi, lo_open, hi_open)
    want = "a finite number" + (f" {rng}" if rng else "")
    tail = f" {fix}" if fix else ""
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
        raise _type_error(value, name, want, fix)
    out = float(value)
    bad = not math.isfinite(out)
    if lo is not None:
        bad = bad or (out <= lo if lo_open else out < lo)
    if hi is not None:
        bad = bad or (out >= hi if hi_open else out > hi)
    if bad:
        raise ParameterError(f"{name}={_shown(value)} is not {want}.{tail}")
    return out


def check_n_permutations(value, name: str = "n_permutations") -> int:
    """Draws of a null: a whole number in ``[0, MAX_PERMUTATIONS]`` (0: no null).

    Examples
    --------
    >>> check_n_permutations(999)
    999
    """
    return check_int(value, name, lo=0, hi=MAX_PERMUTATIONS,
                     fix="0 draws no null; 1000 is the usual choice.")


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
    toponeuro.exceptions.ParameterError: top_k=0 is not a whole number >= 1.
    """
    if isinstance(top_k, numbers.Integral) and not isinstance(top_k, bool | np.bool_):
        return check_int(top_k, "top_k", lo=1)
    fix = ("An int is a count of units (top_k=5), a float in (0, 1] a fraction of them "
           "(top_k=0.1; 1.0 = every unit).")
    return check_number(top_k, "top_k", lo=0, hi=1, lo_open=True, fix=fix)
