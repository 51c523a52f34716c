"""The pieces every frozen settings object and record is made of (issue 44).

The settings objects of :mod:`toponeuro.settings` (the jobs) and of
:mod:`toponeuro.training` (``train``) are frozen dataclasses whose fields declare their
command-line flag and help (:func:`declared`, read by ``toponeuro.cli._settings`` to build the
flags) and whose ``__post_init__`` stores each value in its checked, canonical form
(:func:`set_checked`); their records (``summary.json``, a checkpoint's ``settings``) write
each value as :func:`record_value` does. A record (a result, a row of a table, a stage's
output) and a settings object that checks its fields from a declaration
(:class:`toponeuro.training.TrainSchedule`) declare them in the vocabulary of
:func:`toponeuro._util.params.validate_params` with :func:`validate_fields`: they are checked
when it is made, as a public function's parameters are.

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
import functools
import numbers
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import MappingProxyType

import numpy as np

from ..exceptions import InternalError
from .params import _NESTED, _as_constraints, check_param, without_none

__all__ = ["declared", "set_checked", "record_value", "recipe_value", "validate_fields"]


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
        ``--log-every none``), ``recipe_none`` (the recipe's values that mean ``None``,
        which the flag takes too: ``--log-every 0``, :func:`recipe_value`). A field's
        constraints are not declared here but with its class's :func:`validate_fields`.

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


def recipe_value(f: dataclasses.Field, value):
    """``value`` of a recipe's key (or its flag) for the settings field ``f``: ``None`` where
    the field declares the value as the recipe's word for None (``recipe_none``:
    ``log_every = 0``, ``lr_schedule = "constant"``), else ``value`` (a boolean is never such
    a word).

    Examples
    --------
    >>> @dataclasses.dataclass(frozen=True)
    ... class Log:
    ...     every: int | None = dataclasses.field(default=None, metadata=declared(
    ...         "--every", "log every N steps", recipe_none=(0,)))
    >>> f = dataclasses.fields(Log)[0]
    >>> recipe_value(f, 0), recipe_value(f, 5), recipe_value(f, False)
    (None, 5, False)
    """
    words = f.metadata.get("recipe_none", ())
    return None if not isinstance(value, bool) and value in words else value


def validate_fields(constraints: dict):
    """Declare a record's (or a settings object's) fields: checked when it is made.

    The record is a dataclass (the decorator goes *below* ``@dataclass``: the checks run
    first in its ``__post_init__``, before the class's own) or a ``NamedTuple`` (checked in
    its ``__new__``); a record derived from a declared one checks its own fields, then
    calls the base's checks. ``constraints`` maps a field to a constraint or a list of them, as in
    :func:`~toponeuro._util.params.validate_params`; a refused value raises the typed error
    naming the field, an accepted one is stored in its canonical type. As for a declared
    function, a record made while a declared toponeuro function runs trusts its values (the
    function made them). The declaration stays readable as the class's
    ``__toponeuro_params__`` (:func:`~toponeuro._util.params.declared_params`): the recipe
    schema and the command line's flags read it there.

    A settings object (a frozen dataclass whose ``_name`` names the parameter it is passed
    as: :class:`toponeuro.training.TrainSchedule` is ``schedule``) is checked wherever it is
    made, also inside a declared function; a message names a field ``schedule.lr``, and a
    value other than None is checked against the constraints but None (the message says
    what a value must be, the constraint's ``fix`` what None means).

    Parameters
    ----------
    constraints : dict
        Field name -> constraint(s).

    Returns
    -------
    callable
        The class decorator.

    Examples
    --------
    >>> import dataclasses
    >>> from toponeuro._util.params import COUNT
    >>> @dataclasses.dataclass(frozen=True)
    ... @validate_fields({"n": COUNT})
    ... class Draws:
    ...     n: int
    >>> Draws(3.0).n
    3
    >>> Draws(0)
    Traceback (most recent call last):
    ...
    toponeuro.exceptions.ParameterError: n=0 is not a whole number >= 1.
    >>> @dataclasses.dataclass(frozen=True)
    ... @validate_fields({"n": [COUNT, None]})
    ... class Every:
    ...     _name = "records"
    ...     n: int | None = None
    >>> Every(None).n is None
    True
    >>> Every(0)
    Traceback (most recent call last):
    ...
    toponeuro.exceptions.ParameterError: records.n=0 is not a whole number >= 1.
    """
    declared = {name: _as_constraints(spec) for name, spec in constraints.items()}

    def decorate(cls):
        param = vars(cls).get("_name")  # a settings object: the parameter it is passed as
        # name -> (the name in messages, None passes, the constraints a value is checked by)
        how = {name: (name, False, cons) for name, cons in declared.items()} if param is None \
            else {name: (f"{param}.{name}", len(without_none(cons)) < len(cons),
                         without_none(cons) or cons) for name, cons in declared.items()}

        def checked(values: dict) -> dict:
            """The declared fields whose canonical value differs from the one given."""
            out = {}
            for name, (shown, none_ok, cons) in how.items():
                if values[name] is None and none_ok:
                    continue
                new = check_param(values[name], shown, cons)
                if new is not values[name]:
                    out[name] = new
            return out

        is_tuple = issubclass(cls, tuple) and hasattr(cls, "_fields")
        if "__dataclass_fields__" in vars(cls) or not (is_tuple or "__annotations__" in
                                                       vars(cls)):
            raise InternalError(f"validate_fields decorates a NamedTuple or a class below "
                                f"its @dataclass, not {cls.__qualname__}.")
        names = cls._fields if is_tuple else {n for k in cls.__mro__
                                              for n in vars(k).get("__annotations__", ())}
        unknown = [n for n in declared if n not in names]
        if unknown:
            raise InternalError(f"{cls.__qualname__} declares {unknown}, which are not its "
                                "fields.")
        if is_tuple:
            make = cls.__new__

            @functools.wraps(make)  # its signature: the fields
            def __new__(klass, *args, **kwargs):
                record = make(klass, *args, **kwargs)
                if _NESTED.get():
                    return record
                new = checked(record._asdict())
                return record._replace(**new) if new else record

            cls.__new__ = staticmethod(__new__)
        else:
            own = getattr(cls, "__post_init__", None)  # its own, or a base record's

            def __post_init__(self):
                if param is not None or not _NESTED.get():
                    for name, value in checked({n: getattr(self, n) for n in declared}).items():
                        object.__setattr__(self, name, value)
                if own is not None:
                    own(self)

            cls.__post_init__ = __post_init__
        cls.__toponeuro_params__ = MappingProxyType({**getattr(cls, "__toponeuro_params__", {}),
                                                     **declared})
        return cls

    return decorate
