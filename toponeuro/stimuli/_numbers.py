"""fLoc image numbers: the one reader of ``numbers=`` (and the CLI's ``--images``)."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from .._util.params import InstanceOf, Text, validate_params
from ..exceptions import InvalidDataError

__all__ = ["floc_numbers"]


#: the largest image number accepted (fLoc has 144 per category; a larger one is a typo)
_MAX_FLOC_NUMBER = 100_000


def _check_largest(hi: int, numbers) -> None:
    if hi > _MAX_FLOC_NUMBER:
        raise InvalidDataError(
            f"numbers={numbers!r} reaches image number {hi}; fLoc has 144 images per category "
            f"and at most {_MAX_FLOC_NUMBER:,} are accepted. Give e.g. numbers='97-120'."
        )


def _integral(n, numbers) -> int:
    """``n`` as an int; a non-integral number (97.5) or a bool is refused, not truncated."""
    if isinstance(n, bool):
        raise InvalidDataError(f"numbers={numbers!r} holds {n!r}, not an image number; give "
                               "a list of int.")
    if isinstance(n, str):
        n = n.strip()
    value = float(n) if not isinstance(n, (int, np.integer)) else n
    if isinstance(value, float) and not value.is_integer():
        raise InvalidDataError(
            f"numbers={numbers!r} holds {n!r}, which is not a whole image number (fLoc images "
            "are numbered 1, 2, 3 ...); give whole numbers, e.g. numbers=[97, 98]."
        )
    return int(value)


@validate_params({"numbers": [None, Text(), InstanceOf(
    Iterable, "an iterable of image numbers (a list or range of int)", example=[97])]})
def floc_numbers(numbers) -> list[int] | None:
    """The fLoc image numbers as a sorted list: the one reader of ``numbers=`` everywhere.

    ``None`` or ``"all"`` mean every image (returned as ``None``); text is one number
    (``"97"``) or an inclusive range (``"97-120"``); any other iterable gives its integers.
    :func:`load_floc`, :func:`fetch_floc`, :func:`toponeuro.run_map` and the CLI's
    ``--images`` all read their numbers through this function.

    Parameters
    ----------
    numbers : None, str or iterable of int
        The selection, as the user wrote it.

    Returns
    -------
    list of int or None
        Sorted unique numbers, each at least 1; ``None`` for every image.

    Raises
    ------
    InvalidDataError
        Text that is not a number or a range, a range whose end is before its start, a
        number below 1 or above 100,000, a non-integral number (97.5: never truncated), or
        an empty selection.

    Examples
    --------
    >>> floc_numbers("97-100"), floc_numbers("all"), floc_numbers([3, 1, 3])
    ([97, 98, 99, 100], None, [1, 3])
    >>> floc_numbers([97.5, 98.9])
    Traceback (most recent call last):
    ...
    toponeuro.exceptions.InvalidDataError: numbers=[97.5, 98.9] holds 97.5, which is not a whole image number (fLoc images are numbered 1, 2, 3 ...); give whole numbers, e.g. numbers=[97, 98].
    """
    if numbers is None or (isinstance(numbers, str) and numbers.strip() == "all"):
        return None
    if isinstance(numbers, str):
        first, _, last = numbers.strip().partition("-")
        try:
            lo, hi = int(first), int(last or first)
        except ValueError:
            raise InvalidDataError(
                f"numbers={numbers!r} is neither a range of fLoc image numbers nor 'all'; give "
                "a range such as numbers='97-120', one number, 'all', or a list of int."
            ) from None
        if hi < lo:
            raise InvalidDataError(
                f"numbers={numbers!r}: the range ends ({hi}) before it starts ({lo}); give "
                "first-last with first <= last, e.g. numbers='97-120'."
            )
        _check_largest(hi, numbers)
        numbers = range(lo, hi + 1)
    if isinstance(numbers, range):  # checked before anything is allocated
        if len(numbers):
            _check_largest(max(numbers[0], numbers[-1]), numbers)
    try:
        out = sorted({_integral(n, numbers) for n in numbers})
    except InvalidDataError:
        raise
    except (TypeError, ValueError):
        raise InvalidDataError(
            f"numbers={numbers!r} is not a collection of fLoc image numbers; give a list of "
            "int, a range such as numbers='97-120', or 'all'."
        ) from None
    if out:
        _check_largest(out[-1], numbers)
    if not out or out[0] < 1:
        raise InvalidDataError(
            f"numbers={numbers!r}: fLoc image numbers start at 1 and at least one is needed; "
            f"got {out[:5]}. Give e.g. numbers='97-120'."
        )
    return out
