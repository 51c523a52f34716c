"""The two pieces every frozen settings object is made of (issue 44).

The settings objects of :mod:`toponeuro.settings` (the jobs) and of
:mod:`toponeuro.training` (``train``) are frozen dataclasses whose fields declare their
command-line flag and help (:func:`declared`, read by ``toponeuro.cli._settings`` to build the
flags) and whose ``__post_init__`` stores each value in its checked, canonical form
(:func:`set_checked`); their records (``summary.json``, a checkpoint's ``settings``) write
each value as :func:`record_value` does.

Examples
--------
>>> import dataclasses
>>> @dataclasses.dataclass(frozen=True)
... class Draws:
...     n: int = dataclasses.field(default=10, metadata=declared("--n", "how many draws"))
...     def __post_init__(self):
...         set_checked(self, "n", int(self.n))
>>> Draws(n=3.0).n, dataclasses.fields(Draws)[0].metadata["flag"]
(3, '--n')
"""

from __future__ import annotations

import dataclasses
import numbers
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

__all__ = ["declared", "set_checked", "record_value"]


def declared(flag: str | None, help: str, **extra) -> dict:
    """A settings field's declaration beyond its type and default (its ``metadata``).

    Parameters
    ----------
    flag : str or None
        The command-line flag that sets the field (``None``: Python only).
    help : str
        What the field is, as ``--help`` shows it (the default is added there).
    **extra
        More for the command line: ``old_flags`` (earlier names, kept as hidden aliases that
        warn), ``metavar``, ``nargs``, ``choices``, ``type``, ``action``, ``cli_adds`` (the
        command adds the flag itself), ``language_help``, ``none`` (what ``None`` means, in
        words), ``cli_none`` (the flag's word for ``None``, where ``None`` is a choice a flag
        makes: ``--log-every none``; the command line's messages write ``log_every=None`` as
        ``--log-every none``), ``recipe_none``
        (the recipe values that mean ``None``); and ``check``, the field's constraints in the
        vocabulary of :mod:`toponeuro._util.params` where the object checks its fields from
        their declarations (:class:`toponeuro.training.TrainSchedule`).

    Returns
    -------
    dict
        ``{"flag": flag, "help": help, **extra}``.

    Examples
    --------
    >>> declared("--alpha", "significance level")
    {'flag': '--alpha', 'help': 'significance level'}
    """
    return {"flag": flag, "help": help, **extra}


def set_checked(obj, name: str, value) -> None:
    """Store a checked (canonical) value on a frozen settings object, in its ``__post_init__``.

    Parameters
    ----------
    obj : object
        The frozen dataclass instance being made.
    name : str
        The field.
    value : object
        Its checked value.

    Examples
    --------
    >>> import dataclasses
    >>> @dataclasses.dataclass(frozen=True)
    ... class Rate:
    ...     value: float = 1
    ...     def __post_init__(self):
    ...         set_checked(self, "value", float(self.value))
    >>> Rate(2).value
    2.0
    """
    object.__setattr__(obj, name, value)


def record_value(value):
    """A settings value as a record writes it (JSON): numbers as ``int`` / ``float``, paths
    as text, a dataclass or mapping as a dict, a sequence as a list, an array as
    ``"<array shape>"`` and any other object as ``"<its type>"``.

    Parameters
    ----------
    value : object
        A settings object's field.

    Returns
    -------
    object
        JSON-able.

    Examples
    --------
    >>> record_value(np.int64(3)), record_value(Path("a") / "b"), record_value(np.zeros((2, 3)))
    (3, 'a/b', '<array 2x3>')
    >>> record_value({"radius": 2.0, "kind": ("a", "b")})
    {'radius': 2.0, 'kind': ['a', 'b']}
    """
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    if isinstance(value, os.PathLike):
        return str(Path(value))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: record_value(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k): record_value(v) for k, v in value.items()}
    if isinstance(value, Sequence):
        return [record_value(v) for v in value]
    if isinstance(value, np.ndarray):
        return f"<array {'x'.join(map(str, value.shape))}>"
    return f"<{type(value).__name__}>"
