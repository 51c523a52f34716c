"""Schedules for the TopoLoss strength τ: a multiplier of every layer's τ per training step."""

from __future__ import annotations

import math
import numbers
from dataclasses import asdict, dataclass

from .._util.frozen import validate_fields
from .._util.params import COUNT, NON_NEGATIVE_INT, Interval, Options, validate_params
from ..exceptions import RecipeError, UnknownNameError, close_matches

__all__ = ["TauSchedule", "SCHEDULES", "constant", "linear_warmup", "cosine_decay"]


def _constant(step: int, s: TauSchedule) -> float:
    return 1.0


def _linear_warmup(step: int, s: TauSchedule) -> float:
    if s.warmup_steps <= 0:
        return 1.0
    return min(1.0, max(0.0, step / s.warmup_steps))


def _cosine_decay(step: int, s: TauSchedule) -> float:
    if s.warmup_steps > 0 and step < s.warmup_steps:
        return _linear_warmup(step, s)
    span = max(1, s.total_steps - s.warmup_steps)
    t = min(1.0, max(0.0, (step - s.warmup_steps) / span))
    return s.final + (1.0 - s.final) * 0.5 * (1.0 + math.cos(math.pi * t))


#: schedule kinds, picked by name
SCHEDULES = {"constant": _constant, "linear_warmup": _linear_warmup, "cosine_decay": _cosine_decay}


class _RecipeSteps(Interval):
    """A whole number of optimiser steps (an int: ``2.0`` is refused), refused with the
    :class:`~toponeuro.exceptions.RecipeError` a recipe's value raises, of the wrong kind
    too."""

    error = type_error = RecipeError

    def __init__(self, lo=None, *, fix=""):
        super().__init__(numbers.Integral, lo, None, closed="left" if lo is not None else "both",
                         whole_floats=False, fix=fix)

    def kind_ok(self, value) -> bool:  # a float, even a whole one, is told "(got a float)"
        return isinstance(value, numbers.Integral) and not isinstance(value, bool)


@dataclass(frozen=True)
@validate_fields({
    "kind": Options(SCHEDULES).raising(UnknownNameError),
    "warmup_steps": _RecipeSteps(0, fix="0 means no warm-up."),
    "total_steps": _RecipeSteps(),
    "final": Interval(numbers.Real, 0, 1, closed="both", fix=(
        "final is the multiplier of tau at the end of the decay.")).raising(RecipeError),
})
class TauSchedule:
    """A multiplier in ``[0, 1]`` applied to every spec's τ at a given optimiser step.

    Parameters
    ----------
    kind : {"constant", "linear_warmup", "cosine_decay"}
        ``linear_warmup`` ramps 0 → 1 over ``warmup_steps``; ``cosine_decay`` (after an
        optional warm-up) follows half a cosine from 1 down to ``final`` at ``total_steps``.
    warmup_steps, total_steps : int
        Steps of the linear warm-up, and the step at which a cosine decay ends.
    final : float
        Multiplier reached at the end of a cosine decay.

    Notes
    -----
    The fields are declared (``__toponeuro_params__``) and stored in their canonical type
    (``final=1`` as ``1.0``). A bad value raises a recipe's error naming the field
    (:class:`~toponeuro.exceptions.RecipeError`: ``final=2 is not a finite number in [0, 1]``;
    steps are ints, ``warmup_steps=2.0`` is refused; an unknown ``kind`` is an
    :class:`~toponeuro.exceptions.UnknownNameError`); ``cosine_decay`` needs ``total_steps >
    warmup_steps``.

    Examples
    --------
    >>> s = cosine_decay(total_steps=100, warmup_steps=10)
    >>> round(s(0), 3), round(s(10), 3), round(s(55), 3), round(s(100), 3)
    (0.0, 1.0, 0.5, 0.0)
    """

    kind: str = "constant"
    warmup_steps: int = 0
    total_steps: int = 0
    final: float = 0.0

    def __post_init__(self):
        # a rule across two fields (the declared checks of each ran before)
        if self.kind == "cosine_decay" and self.total_steps <= self.warmup_steps:
            raise RecipeError(
                f"cosine_decay needs total_steps > warmup_steps; got total_steps="
                f"{self.total_steps}, warmup_steps={self.warmup_steps}."
            )

    def __call__(self, step: int) -> float:
        return float(SCHEDULES[self.kind](int(step), self))

    def to_dict(self) -> dict:
        """The fields as a dict (:meth:`from_dict` reads it back).

        Returns
        -------
        dict
            Field name -> value.
        """
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> TauSchedule:
        """A schedule from a dict of its fields (a recipe's ``topoloss.schedule`` table).

        Parameters
        ----------
        d : dict
            Field name -> value; unknown keys raise :class:`~toponeuro.exceptions.RecipeError`.

        Returns
        -------
        TauSchedule
            The schedule.
        """
        if not isinstance(d, dict):
            raise RecipeError(f"A τ schedule is a table (dict) of {_FIELDS}; got {d!r}.")
        unknown = [k for k in d if k not in _FIELDS]
        if unknown:
            raise RecipeError(
                f"Unknown τ schedule key {unknown[0]!r}; {close_matches(unknown[0], _FIELDS)} "
                f"(keys: {list(_FIELDS)})."
            )
        try:
            return cls(**d)
        except TypeError as err:
            raise RecipeError(f"Bad τ schedule {d!r}: {err}") from err


_FIELDS = tuple(TauSchedule.__dataclass_fields__)


def constant() -> TauSchedule:
    """A schedule that keeps τ as given.

    Returns
    -------
    TauSchedule
        ``schedule(step) == 1`` at every step.

    Examples
    --------
    >>> constant()(0), constant()(10_000)
    (1.0, 1.0)
    """
    return TauSchedule("constant")


@validate_params({"warmup_steps": NON_NEGATIVE_INT})
def linear_warmup(warmup_steps: int) -> TauSchedule:
    """A schedule that ramps τ linearly from 0 to its value over ``warmup_steps`` steps.

    Parameters
    ----------
    warmup_steps : int
        Steps of the ramp (τ is at its value from then on).

    Returns
    -------
    TauSchedule
        ``schedule(step)``: the factor τ is multiplied by at ``step``.

    Examples
    --------
    >>> s = linear_warmup(100)
    >>> s(0), s(50), s(100), s(500)
    (0.0, 0.5, 1.0, 1.0)
    """
    return TauSchedule("linear_warmup", warmup_steps=warmup_steps)


@validate_params({"total_steps": COUNT, "warmup_steps": NON_NEGATIVE_INT,
                  "final": Interval(numbers.Real, 0, 1, closed="both", fix=(
                      "final is the multiplier of tau at the end of the decay."))})
def cosine_decay(total_steps: int, warmup_steps: int = 0, final: float = 0.0) -> TauSchedule:
    """Optional linear warm-up, then a cosine decay of τ to ``final`` × τ at ``total_steps``.

    Parameters
    ----------
    total_steps : int
        The step at which the decay reaches ``final``.
    warmup_steps : int
        Steps of a linear ramp from 0 first (0: none).
    final : float
        The factor at ``total_steps`` and after.

    Returns
    -------
    TauSchedule
        ``schedule(step)``: the factor τ is multiplied by at ``step``.

    Examples
    --------
    >>> s = cosine_decay(total_steps=100, final=0.1)
    >>> round(s(0), 3), round(s(50), 3), round(s(100), 3)
    (1.0, 0.55, 0.1)
    """
    return TauSchedule("cosine_decay", warmup_steps, total_steps, final)
