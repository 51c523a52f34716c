"""The base of the report's typed records (issue 44): a record's ``summary.json`` entry is
its fields (:meth:`_Record.to_summary`), and an entry read back becomes the record
(:meth:`_Record.from_summary`); ``None`` in an optional field is left out of the file.
"""

from __future__ import annotations

from dataclasses import field, fields

import numpy as np

from ...exceptions import InvalidDataError

__all__ = ["jsonable", "num"]

#: a field whose ``None`` is left out of ``summary.json`` (a section the run did not make)
_OPTIONAL = {"optional": True}


def _typed(record, how: str = "one", *, optional: bool = False, **kw):
    """A field whose ``summary.json`` entry becomes a ``record`` when the record is made
    (:meth:`_Record.__post_init__`): ``how`` ``"one"`` (the value), ``"each"`` (each value
    of a dict) or ``"list"`` (each item of a list); ``record`` may name a class attribute
    holding the record (a base parameterised by its row type). ``optional``: None is left
    out of ``summary.json``."""
    meta = {"record": record, "how": how, **(_OPTIONAL if optional else {})}
    return field(metadata=meta, **kw)


def _type_fields(obj) -> None:
    """Each :func:`_typed` field of ``obj`` as its record (a ``summary.json`` entry becomes
    one; a record or None stays)."""
    for f in fields(obj):
        rec = f.metadata.get("record")
        value = getattr(obj, f.name)
        if rec is None or value is None:
            continue
        rec = getattr(obj, rec) if isinstance(rec, str) else rec
        how = f.metadata["how"]
        value = (_as(rec, value) if how == "one" else _as_each(rec, value) if how == "each"
                 else [_as(rec, v) for v in value])
        object.__setattr__(obj, f.name, value)


def _refuse_moved(entry: dict, moved: dict, where: str) -> None:
    """Refuse an entry of an older ``summary.json`` that still repeats a setting: each key of
    ``moved`` (key -> the setting's one name) that ``entry`` carries is named with where its
    value lives now."""
    there = [k for k in moved if k in entry]

    def now(names):
        names = (names,) if isinstance(names, str) else names
        return (" and ".join(f"settings.{n}" for n in names) + "; read it with "
                + " and ".join(f"report.setting({n!r})" for n in names))

    if there:
        raise InvalidDataError(
            f"{where} repeats settings that summary.json records once: "
            + ", ".join(f"{k!r} (now {now(moved[k])})" for k in there)
            + ". Fix: read a summary.json written by this toponeuro version, or drop these "
            "keys: the run's settings block holds their values.")


def num(v):
    """A number as ``summary.json`` keeps it: None when not finite, an int when whole
    (and at least 1), else rounded to 4 decimals.

    Examples
    --------
    >>> num(3.0), num(0.123456), num(float("nan"))
    (3, 0.1235, None)
    """
    v = float(v)
    return None if not np.isfinite(v) else (int(v) if v.is_integer() and abs(v) >= 1 else round(v, 4))


def jsonable(obj):
    """``obj`` with JSON types only: str keys, lists for tuples, None for non-finite floats,
    anything else as its text.

    Examples
    --------
    >>> jsonable({1: (1.5, float("nan"), np.float32(2))})
    {'1': [1.5, None, 2.0]}
    """
    if isinstance(obj, _Record):
        return jsonable(obj.to_summary())
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, (str, bool, int)) or obj is None:
        return obj
    if isinstance(obj, float | np.floating):
        return None if not np.isfinite(obj) else float(obj)
    return str(obj)


class _Record:
    """A typed record of a report's section: ``summary.json``'s entry is its fields."""

    #: the section's key in ``summary.json`` (for messages)
    _key = "section"
    #: keys an older ``summary.json`` repeated here -> the setting that records them once
    #: (an entry still carrying one is refused, naming it)
    _moved: dict = {}

    def __post_init__(self):
        _type_fields(self)

    def to_summary(self) -> dict:
        """The section's ``summary.json`` entry."""
        return _fields_dict(self)

    @classmethod
    def from_summary(cls, entry: dict):
        """The section back from its ``summary.json`` entry."""
        return _from_dict(cls, entry, f"summary[{cls._key!r}]")


def _as(cls, value):
    """``value`` as a ``cls`` record (a ``summary.json`` entry becomes one; None stays)."""
    return cls.from_summary(value) if isinstance(value, dict) else value


def _as_each(cls, mapping: dict) -> dict:
    """Each value of ``mapping`` as a ``cls`` record."""
    return {k: _as(cls, v) for k, v in mapping.items()}


def _plain(v):
    """``v`` with each record in it as its ``summary.json`` entry."""
    if isinstance(v, _Record):
        return v.to_summary()
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_plain(x) for x in v]
    return v


def _fields_dict(obj) -> dict:
    out = {}
    for f in fields(obj):
        v = getattr(obj, f.name)
        if v is None and f.metadata.get("optional"):
            continue
        out[f.name] = _plain(v)
    return out


def _from_dict(cls, entry: dict, where: str):
    names = {f.name for f in fields(cls)}
    unknown = sorted(set(entry) - names)
    _refuse_moved(entry, {k: v for k, v in getattr(cls, "_moved", {}).items() if k in unknown},
                  where)
    if unknown:
        raise InvalidDataError(
            f"{where} has keys that {cls.__name__} does not know: {unknown}; expected only "
            f"{sorted(names)}. Fix: read a summary.json written by this toponeuro version "
            "(0.5 moved the cortex's hemispheres under cortex['hemispheres'], and the "
            "settings it repeated at the top and in its sections -- n_permutations, alpha, "
            "patch_min_units, token_pooling, ... -- under settings).")
    try:
        return cls(**entry)
    except TypeError as err:  # a missing field
        raise InvalidDataError(
            f"{where} lacks a field of {cls.__name__}: {err}. Fix: pass the whole "
            "summary.json content.") from None
