"""The nulls :func:`spatial_null` can draw from, registered like its statistics.

A null is one function and one call: ``register_null(name, draw, reference=...,
geometries=...)``. ``draw(maps, n_draws, rng)`` receives the :class:`TopoMap` of every map
of the test and returns one entry per map: ``None`` (the map stays), gather indices
``(n_draws, n)`` into the map's values, or ``("values", surrogates)`` with surrogates
``(n_draws, n)``. :func:`each_but_first` turns ``f(first, map, n_draws, rng)`` into such a
draw for the usual case (the first map stays, every other moves on its own). The module
that defines a null registers it (``_null.py``: positions, spin; ``_sheet_null.py``: the sheet
nulls; ``_label_null.py``: labels), so ``spatial_null`` imports none of them by name and the
calibration bench (``bench/calibrate_nulls.py``) walks :data:`NULL_METHODS`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..._util.constraints import MAPPING, Names
from ..._util.params import COUNT, Boolean, Text, validate_params
from ..._util.params import Callable as IsCallable
from ...exceptions import (
    InputTypeError,
    InvalidDataError,
    NameClashError,
    UnknownNameError,
    close_matches,
)

__all__ = ["NULL_METHODS", "NullMethod", "register_null", "unregister_null", "each_but_first",
           "null_method", "checked_draw", "register_statistic", "one_number"]

#: the places a map can lie: a model sheet (grid) or a cortical mesh
GEOMETRIES = ("sheet", "mesh")
#: a null's draw function
_DRAW = IsCallable(fix="draw is a function draw(maps, n_draws, rng) -> list; pass the function "
                       "itself (not its result).")


@dataclass(frozen=True)
class NullMethod:
    """One registered null (see :func:`register_null`).

    Attributes
    ----------
    name : str
    draw : callable
        ``draw(maps, n_draws, rng) -> list`` (module docs).
    reference : str or None
        The source written into ``attrs["null_reference"]``.
    geometries : tuple of str
        Where it applies: ``"sheet"``, ``"mesh"`` or both.
    min_maps : int
        Fewest maps it can test (1: it moves the first map too; 2: every map but the first).
    warning : str or callable or None
        Warned whenever it is drawn (a callable gets the maps and returns the text or None).
    question : str
        What a small p says, for sentences and docs.

    Examples
    --------
    >>> null_method("positions").min_maps, null_method("shift").geometries
    (1, ('sheet', 'mesh'))
    """

    name: str
    draw: Callable
    reference: str | None = None
    geometries: tuple = GEOMETRIES
    min_maps: int = 2
    warning: str | Callable | None = None
    question: str = ""
    #: for an alias: the registered null it stands for on each geometry
    alias_of: dict | None = None

    def resolve(self, geometry: str) -> NullMethod:
        """The null this name draws on ``geometry`` (an alias's target, else itself)."""
        if geometry not in self.geometries:
            where = {"sheet": "a sheet grid", "mesh": "a mesh"}
            fix = ("Use null='shift' (the spin test on a sphere)." if geometry == "mesh"
                   else "Use null='shift' (the mirrored shift).")
            raise InvalidDataError(
                f"null={self.name!r} draws on {' or '.join(where[g] for g in self.geometries)};"
                f" these maps lie on {where[geometry]}. {fix}"
            )
        if self.alias_of:
            return _NULLS[self.alias_of[geometry]].resolve(geometry)
        return self


_NULLS: dict[str, NullMethod] = {}
#: statistic name -> factory ``f(tms, **kwargs) -> (kernel, attrs)`` (:func:`register_statistic`)
_STATISTIC_FACTORIES: dict[str, Callable] = {}


def _check_entry(kind: str, name, fn, what: str, registry: dict, overwrite: bool) -> None:
    """The rules every registry holds: a str name, a callable, no silent replacement."""
    if not isinstance(name, str) or not name:
        raise InputTypeError(f"A {kind}'s name must be a non-empty str; got {name!r}.")
    if not callable(fn):
        raise InputTypeError(
            f"{what} must be a function; got {type(fn).__name__} {fn!r:.60}. Pass the "
            "function itself (not its result)."
        )
    if name in registry and not overwrite and registry[name] is not fn:
        raise NameClashError(
            f"A {kind} is already registered as {name!r}; registering another would replace "
            "it for every caller. Choose another name, or pass overwrite=True to replace it "
            "on purpose."
        )


def register_statistic(name: str, factory: Callable, *, overwrite: bool = False) -> Callable:
    """Make ``factory`` available to :func:`spatial_null` under ``name`` (returns it).

    ``factory(tms, **kwargs)`` returns the batched kernel and its attrs. A name already
    registered (a built-in statistic included) raises
    :class:`~toponeuro.exceptions.NameClashError` unless ``overwrite=True``; a factory that
    is not callable raises :class:`~toponeuro.exceptions.InputTypeError`.

    Examples
    --------
    >>> register_statistic("pearson", len)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    toponeuro.exceptions.NameClashError: A statistic is already registered as 'pearson'...
    """
    _check_entry("statistic", name, factory, "factory", _STATISTIC_FACTORIES, overwrite)
    _STATISTIC_FACTORIES[name] = factory
    return factory


class _Names(Sequence):
    """The names of the registered nulls, read live from the registry."""

    def __getitem__(self, i):
        return tuple(_NULLS)[i]

    def __len__(self):
        return len(_NULLS)

    def __contains__(self, name):
        return name in _NULLS

    def __repr__(self):
        return repr(tuple(_NULLS))

    def __eq__(self, other):
        return tuple(self) == tuple(other)

    __hash__ = None


#: the names of the nulls :func:`spatial_null` draws from (live: a registered null appears)
NULL_METHODS = _Names()


@validate_params(dict(name=Text(), draw=[_DRAW, None], reference=[Text(), None],
                      geometries=[Text(), Names(empty=False)], min_maps=COUNT,
                      warning=[Text(empty=True), "callable", None], question=Text(empty=True),
                      alias_of=[MAPPING, None], overwrite=Boolean()))
def register_null(name: str, draw: Callable | None = None, *, reference: str | None = None,
                  geometries: Sequence[str] = GEOMETRIES, min_maps: int = 2,
                  warning: str | Callable | None = None, question: str = "",
                  alias_of: dict | None = None, overwrite: bool = False) -> Callable | None:
    """Make a null available to :func:`spatial_null` (and every metric built on it) as ``name``.

    Mirrors :func:`register_statistic`: the module that defines a null calls this once.

    Each draw is checked when it is used: one entry per map, and every entry ``None`` or
    ``n_draws`` surrogates of the map's ``n`` values (a single surrogate would make a null
    of identical values), else :class:`~toponeuro.exceptions.InvalidDataError`.

    Parameters
    ----------
    name : str
        The value of ``null=``.
    draw : callable
        ``draw(maps, n_draws, rng) -> list``, one entry per map: ``None`` (it stays), gather
        indices ``(n_draws, n)`` or ``("values", (n_draws, n) surrogates)``. Wrap
        ``f(first, map, n_draws, rng)`` with :func:`each_but_first` for a null that moves
        every map but the first. Not needed for an alias.
    reference : str, optional
        Its source, written into the result's ``attrs["null_reference"]``.
    geometries : sequence of {"sheet", "mesh"}
        Where it applies; elsewhere ``spatial_null`` refuses it with a typed error.
    min_maps : int
        1 when it also moves a single map (its draw must then move the first map), 2 when it
        moves every map but the first.
    warning : str or callable, optional
        Warned (``ToponeuroWarning``) whenever it is drawn; a callable ``f(maps)`` returns the
        text or None.
    question : str
        What a small p says ("the map is organised on the sheet").
    alias_of : dict, optional
        ``{geometry: registered name}``: the name stands for another null on each geometry
        (``"shift"``: the mirrored shift on a sheet, the spin test on a mesh).
    overwrite : bool
        Replace a null already registered as ``name`` (a built-in one included). Without it
        that name raises :class:`~toponeuro.exceptions.NameClashError`, so a built-in null
        is never replaced by accident.

    Returns
    -------
    callable
        ``draw`` (so it can decorate).

    Examples
    --------
    >>> import numpy as np
    >>> from toponeuro.analysis import spatial_null
    >>> def flip(first, tm, n_draws, rng):  # every other map upside down, every draw alike
    ...     h, w = tm.grid_shape
    ...     return np.tile(np.arange(h * w).reshape(h, w)[::-1].ravel(), (n_draws, 1))
    >>> _ = register_null("flip", each_but_first(flip), geometries=("sheet",))
    >>> a = np.arange(16.0).reshape(4, 4)
    >>> spatial_null("pearson", a, a, null="flip", n_permutations=9).null[:2].round(2)
    array([-0.88, -0.88])
    >>> "flip" in NULL_METHODS, unregister_null("flip"), "flip" in NULL_METHODS
    (True, None, False)
    """
    if isinstance(geometries, str):  # one geometry, not its letters
        geometries = (geometries,)
    bad = [g for g in geometries if g not in GEOMETRIES]
    if bad or not geometries:
        raise UnknownNameError(
            f"geometries must name some of {GEOMETRIES}; got {tuple(geometries)!r}."
        )
    if draw is None and alias_of is None:
        raise InvalidDataError(f"register_null({name!r}) needs a draw function (or alias_of=).")
    for what, f in (("warning", warning),):
        if f is not None and not (isinstance(f, str) or callable(f)):
            raise InputTypeError(f"{what} must be a str or a function f(maps); got "
                                 f"{type(f).__name__}.")
    if alias_of is not None:
        if not isinstance(alias_of, dict) or not set(alias_of) <= set(GEOMETRIES):
            raise InputTypeError(f"alias_of must be a dict {{geometry: registered null}} over "
                                 f"{GEOMETRIES}; got {alias_of!r}.")
        unknown = [v for v in alias_of.values() if v not in _NULLS]
        if unknown:
            raise UnknownNameError(f"alias_of names unregistered nulls {unknown}; register "
                                   "them first.")
    if isinstance(min_maps, bool) or min_maps not in (1, 2):
        raise InvalidDataError(f"min_maps must be 1 or 2; got {min_maps!r}.")
    if name in _NULLS and not overwrite:
        raise NameClashError(
            f"A null is already registered as {name!r}; registering another would replace "
            "it for every caller. Choose another name, or pass overwrite=True to replace it "
            "on purpose (unregister_null removes one)."
        )
    _NULLS[name] = NullMethod(name=name, draw=draw, reference=reference,
                              geometries=tuple(geometries), min_maps=int(min_maps),
                              warning=warning, question=question,
                              alias_of=dict(alias_of) if alias_of else None)
    return draw


@validate_params(dict(name=Text()))
def unregister_null(name: str) -> None:
    """Remove a null registered with :func:`register_null` (a test's or an example's).

    Parameters
    ----------
    name : str
        The null's name.

    Raises
    ------
    UnknownNameError
        No null is registered as ``name`` (close matches listed).

    Examples
    --------
    >>> _ = register_null("same", each_but_first(lambda first, tm, n, rng: None))
    >>> unregister_null("same"), "same" in NULL_METHODS
    (None, False)
    """
    null_method(name)
    del _NULLS[name]


@validate_params(dict(per_map="callable"))
def each_but_first(per_map: Callable) -> Callable:
    """A null's ``draw`` from ``per_map(first, map, n_draws, rng)``: the first map stays.

    Parameters
    ----------
    per_map : callable
        ``per_map(first, map, n_draws, rng)``: the draws of one map, given the first map.

    Returns
    -------
    callable
        ``draw(maps, n_draws, rng)`` for :func:`register_null`: ``None`` for the first map,
        ``per_map``'s draws for each other.

    Examples
    --------
    >>> draw = each_but_first(lambda first, tm, n, rng: None)
    >>> draw([0, 1, 2], 5, None)
    [None, None, None]
    """

    def draw(tms, n_draws, rng):
        first = tms[0]
        return [None] + [per_map(first, tm, n_draws, rng) for tm in tms[1:]]

    draw.__name__ = getattr(per_map, "__name__", "draw")
    draw.__doc__ = per_map.__doc__
    return draw


def null_method(name: str) -> NullMethod:
    """The registered null called ``name`` (typed error with the close matches otherwise).

    Examples
    --------
    >>> null_method("positions").name
    'positions'
    """
    if name not in _NULLS:
        raise UnknownNameError(f"Unknown null {name!r}; {close_matches(name, tuple(_NULLS))}")
    return _NULLS[name]


def checked_draw(entry: NullMethod, tms, n_draws: int, rng) -> list:
    """``entry.draw(tms, n_draws, rng)``, its output checked: one entry per map, each
    ``None``, gather indices ``(n_draws, n)`` or ``("values", (n_draws, n))``.

    Examples
    --------
    >>> bad = NullMethod("one", lambda tms, n, rng: [None, np.arange(3)])
    >>> class M:
    ...     n = 3
    >>> checked_draw(bad, [M(), M()], 5, None)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    toponeuro.exceptions.InvalidDataError: The null 'one' drew indices of shape (3,) ...expected (5, 3)...
    """
    out = entry.draw(tms, n_draws, rng)
    if not isinstance(out, list | tuple) or len(out) != len(tms):
        raise InvalidDataError(
            f"The null {entry.name!r} drew {type(out).__name__} "
            f"{'of ' + str(len(out)) + ' entries ' if isinstance(out, list | tuple) else ''}"
            f"for {len(tms)} maps; its draw(maps, n_draws, rng) must return a list with one "
            "entry per map (None, indices or ('values', surrogates))."
        )
    for k, (tm, ix) in enumerate(zip(tms, out)):
        if ix is None:
            continue
        values = isinstance(ix, tuple)
        if values and (len(ix) != 2 or ix[0] != "values"):
            raise InvalidDataError(
                f"The null {entry.name!r} drew a tuple for map {k}; expected "
                "('values', surrogates (n_draws, n)), gather indices or None."
            )
        arr = np.asarray(ix[1] if values else ix)
        want = (n_draws, tm.n)
        ok = arr.shape == want and (values or np.issubdtype(arr.dtype, np.integer))
        if not ok:
            raise InvalidDataError(
                f"The null {entry.name!r} drew {'surrogates' if values else 'indices'} of "
                f"shape {arr.shape} ({arr.dtype}) for map {k}; expected {want}: one "
                f"{'surrogate' if values else 'integer index row'} per draw ({n_draws}) over "
                f"the map's {tm.n} values. A single surrogate would give a null of "
                f"{n_draws} identical values; draw n_draws distinct ones."
            )
    return out


def one_number(out, statistic) -> float:
    """A user statistic's value for one draw: one real number, else a typed error.

    Examples
    --------
    >>> one_number(np.float32(0.5), len)
    0.5
    >>> one_number("a", len)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    toponeuro.exceptions.InvalidDataError: statistic len must return one number per call...
    """
    arr = np.asarray(out)
    if arr.size != 1 or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
        raise InvalidDataError(
            f"statistic {getattr(statistic, '__name__', 'the callable')} must return one "
            f"number per call; it returned {type(out).__name__} of shape {arr.shape}. Return "
            "a float (or, with vectorized=True, one value per map of the batch).")
    return float(arr.reshape(()))
