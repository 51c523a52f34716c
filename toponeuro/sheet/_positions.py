"""Free positions per unit (TDANN-style): where each unit of a layer sits on the tissue.

A layer's units normally sit on its integer grid sheet (``row``, ``col``; :mod:`toponeuro.sheet`).
A TDANN-style model (Margalit et al. 2024) instead places every unit at a free 2-D position
on its simulated cortex, in mm or in sheet units. Such activations carry two more unit
coords, ``pos_x`` and ``pos_y`` (float; ``toponeuro._util.dims.POS_X`` / ``POS_Y``), and say their
unit in the attr ``position_units`` (``"mm"`` or ``"sheet"``; on the DataArray and on both
coords, so it survives reductions); layers without free positions hold NaN there. ``row`` /
``col`` stay (every unit keeps a grid place, which the grid drawings and the streaming store
use), but every topography analysis measures distances between the free positions
(:func:`toponeuro.analysis.as_topomap` reads them), and a sheet is drawn as a scatter of the
units at their positions.

The positions format (:func:`read_unit_positions`), per layer:

* an array ``(n_units, 2)``: row ``i`` is ``(x, y)`` of unit ``i`` of the layer (the order of
  the layer's units along ``unit``: channel order for pooled conv layers, ``(channel, y, x)``
  row-major for unpooled ones);
* a ``.npy`` file holding such an array;
* a ``.csv`` / ``.tsv`` file with a header and columns ``unit``, ``x``, ``y`` (``unit`` the
  unit's index in the layer, 0 to ``n_units - 1``, each once, in any order).

:func:`set_unit_positions` attaches them (``extract(..., unit_positions=...)``, a model card's
``unit_positions``, ``da.topo.with_positions(...)`` and ``run_map(ModelSource(..., unit_positions=...))``
call it).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import xarray as xr

from .._util import dims as D
from .._util.constraints import ArrayLike, DataArrayWith
from .._util.params import COUNT, InstanceOf, PathLike, Text, validate_params
from ..exceptions import (
    CoordinateError,
    DimensionError,
    InputTypeError,
    InvalidDataError,
    MissingFileError,
    UnknownNameError,
    close_matches,
)

__all__ = ["POSITION_UNITS", "read_unit_positions", "set_unit_positions", "unit_positions",
           "position_units"]

#: the units free positions may be given in: millimetres of cortex, or sheet units (one grid
#: spacing of the layer's sheet)
POSITION_UNITS = ("mm", "sheet")
#: the columns of a positions table
POSITION_COLUMNS = ("unit", D.X, D.Y)  # the table says x, y; the coords are pos_x, pos_y


def _check_units(units) -> str:
    if units not in POSITION_UNITS:
        raise UnknownNameError(
            f"position_units must be one of {POSITION_UNITS} (millimetres of cortex, or "
            f"grid spacings of the sheet); got {units!r}."
        )
    return units


def _read_file(path: Path, param: str) -> np.ndarray:
    if not path.is_file():
        raise MissingFileError(
            f"{param}: no positions file {path}. Give an (n_units, 2) array, a .npy file of "
            "one, or a .csv/.tsv with columns unit, x, y."
        )
    suffix = path.suffix.lower()
    if suffix == ".npy":
        return np.load(path, allow_pickle=False)
    if suffix not in (".csv", ".tsv", ".txt"):
        raise InvalidDataError(
            f"{param}: {path.name} is neither .npy nor .csv/.tsv; save the positions as an "
            "(n_units, 2) .npy array or a table with columns unit, x, y."
        )
    import pandas as pd

    try:
        table = pd.read_csv(path, sep=None, engine="python", encoding="utf-8-sig")
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as err:
        raise InvalidDataError(
            f"{param}: {path} is not a readable table ({str(err).strip()}); save it as CSV "
            "with the header unit,x,y."
        ) from err
    table.columns = [str(c).strip().lower() for c in table.columns]
    missing = [c for c in POSITION_COLUMNS if c not in table.columns]
    if missing:
        raise InvalidDataError(
            f"{param}: {path.name} lacks the columns {missing} (it has "
            f"{list(table.columns)}); a positions table has one row per unit with columns "
            "unit (0, 1, ...), x, y."
        )
    try:
        unit = np.asarray(table["unit"], dtype=float)
        xy = np.asarray(table[[D.X, D.Y]], dtype=float)
    except ValueError as err:
        raise InvalidDataError(
            f"{param}: {path.name} holds non-numbers in unit, x or y ({err}); give numbers."
        ) from err
    n = len(unit)
    if not (np.all(unit == np.round(unit)) and np.array_equal(np.sort(unit), np.arange(n))):
        raise InvalidDataError(
            f"{param}: the unit column of {path.name} must number the {n} units 0 to {n - 1}, "
            f"each once; got values like {unit[:5].tolist()}."
        )
    out = np.empty((n, 2))
    out[unit.astype(int)] = xy
    return out


def _package_or_path(spec) -> Path:
    """A path, or a ``"package.module:relative/path"`` file shipped in an installed package
    (how a model card names its files)."""
    path = Path(spec)
    text = str(spec)
    if path.exists() or ":" not in text or len(text.split(":", 1)[0]) < 2:
        return path  # an existing file, or a Windows drive letter "C:..."
    import importlib.resources

    module, rel = text.split(":", 1)
    try:
        return Path(str(importlib.resources.files(module).joinpath(rel)))
    except ModuleNotFoundError:
        return path


@validate_params(dict(spec=[PathLike(), ArrayLike(ndim=2)], n_units=[COUNT, None],
                      layer=Text(empty=True), param=Text()))
def read_unit_positions(spec, n_units: int | None = None, *, layer: str = "",
                        param: str = "unit_positions") -> np.ndarray:
    """One layer's free unit positions as an ``(n_units, 2)`` float array of ``(x, y)``.

    Parameters
    ----------
    spec : array-like (n_units, 2) or path-like
        The positions, or a ``.npy`` file of them, or a ``.csv``/``.tsv`` table with
        columns ``unit``, ``x``, ``y`` (see the module docstring for the format).
    n_units : int, optional
        The layer's unit count, checked against the positions.
    layer : str
        Layer name, for messages.
    param : str
        The parameter that brought ``spec``, for messages.

    Returns
    -------
    numpy.ndarray
        ``(n_units, 2)``, finite.

    Raises
    ------
    DimensionError
        Not ``(n_units, 2)``.
    InvalidDataError, MissingFileError
        A file that cannot be read, or non-finite positions.

    Examples
    --------
    >>> read_unit_positions([[0.0, 0.5], [1.0, 0.25]], 2).tolist()
    [[0.0, 0.5], [1.0, 0.25]]
    >>> read_unit_positions(np.zeros((3, 2)), 4, layer="conv")
    Traceback (most recent call last):
    ...
    toponeuro.exceptions.DimensionError: unit_positions['conv'] has 3 positions for the 4 units of the layer; give one (x, y) row per unit.
    """
    where = f"{param}[{layer!r}]" if layer else param
    if isinstance(spec, (str, os.PathLike)):
        pos = _read_file(_package_or_path(spec), where)
    else:
        try:
            pos = np.asarray(spec, dtype=float)
        except (TypeError, ValueError) as err:
            raise InputTypeError(
                f"{where} must be an (n_units, 2) array of numbers or a path to a .npy/.csv "
                f"file; got {type(spec).__name__} ({err})."
            ) from err
    if pos.ndim != 2 or pos.shape[1] != 2:
        raise DimensionError(
            f"{where} must be (n_units, 2): one (x, y) row per unit; got shape {pos.shape}."
        )
    if n_units is not None and pos.shape[0] != n_units:
        raise DimensionError(
            f"{where} has {pos.shape[0]} positions for the {n_units} units of the layer; give "
            "one (x, y) row per unit."
        )
    if not np.isfinite(pos).all():
        bad = int((~np.isfinite(pos).all(axis=1)).sum())
        raise InvalidDataError(
            f"{where}: {bad} of {pos.shape[0]} units have NaN or inf positions; every unit "
            "needs a finite (x, y). Drop those units first (da.isel(unit=...))."
        )
    return pos.astype(float)


def position_units(da: xr.DataArray) -> str | None:
    """``"mm"`` or ``"sheet"`` when ``da`` carries free unit positions (``pos_x``, ``pos_y``
    coords), else None.

    Examples
    --------
    >>> from toponeuro import make_activations
    >>> acts = make_activations({"conv": 4}, 2)
    >>> position_units(acts), position_units(set_unit_positions(acts, {"conv": np.eye(4, 2)}))
    (None, 'mm')
    """
    if D.POS_X not in da.coords or D.POS_Y not in da.coords:
        return None
    units = da[D.POS_X].attrs.get(D.ATTR_POSITION_UNITS, da.attrs.get(D.ATTR_POSITION_UNITS))
    return units if units in POSITION_UNITS else None


def unit_positions(da: xr.DataArray, layer: str | None = None) -> np.ndarray | None:
    """The free ``(x, y)`` positions ``(n, 2)`` of ``da``'s units (of ``layer``), or None
    when they have none (grid sheet only).

    Examples
    --------
    >>> from toponeuro import make_activations
    >>> acts = set_unit_positions(make_activations({"a": 2, "b": 2}, 1), {"a": [[0, 1], [2, 3]]})
    >>> unit_positions(acts, "a").tolist(), unit_positions(acts, "b")
    ([[0.0, 1.0], [2.0, 3.0]], None)
    """
    if position_units(da) is None:
        return None
    sub = da
    if layer is not None:
        sub = da.isel({D.UNIT: np.flatnonzero(np.asarray(da[D.LAYER].values).astype(str)
                                               == str(layer))})
    pos = np.stack([np.asarray(sub[c].values, float) for c in (D.POS_X, D.POS_Y)], 1)
    if not np.isfinite(pos).all():
        return None
    return pos


@validate_params(dict(da=DataArrayWith((D.UNIT,)),
                      positions=InstanceOf(Mapping, "a mapping {layer: (n_units, 2) array or .npy/.csv path}", example={})))
def set_unit_positions(da: xr.DataArray, positions: Mapping, *,
                       units: str = "mm") -> xr.DataArray:
    """``da`` with free unit positions: unit coords ``pos_x``, ``pos_y`` (attr ``position_units``).

    Parameters
    ----------
    da : xarray.DataArray
        Activations or any per-unit result (dim ``"unit"``, coord ``layer``).
    positions : mapping
        ``{layer: positions}``, each an ``(n_units, 2)`` array or a path to a ``.npy`` /
        ``.csv`` file (:func:`read_unit_positions`). Layers left out keep the grid sheet
        (NaN positions); layers that already had free positions keep theirs unless given.
    units : {"mm", "sheet"}
        Unit of the positions (one for every layer of ``da``).

    Returns
    -------
    xarray.DataArray
        A copy with the coords (the values are shared).

    Raises
    ------
    UnknownNameError
        A layer that ``da`` does not hold, or unknown ``units``.
    CoordinateError
        ``da`` holds free positions in other units.

    Examples
    --------
    >>> from toponeuro import make_activations
    >>> acts = make_activations({"conv": 3}, n_stimuli=2)
    >>> out = set_unit_positions(acts, {"conv": [[0.0, 0.0], [0.5, 0.0], [0.0, 0.5]]})
    >>> out["pos_x"].values.tolist(), out.attrs["position_units"]
    ([0.0, 0.5, 0.0], 'mm')
    """
    units = _check_units(units)
    if not isinstance(positions, Mapping):
        raise InputTypeError(
            "unit_positions must be a mapping {layer: (n_units, 2) array or .npy/.csv path}; "
            f"got {type(positions).__name__}."
        )
    layer_of = np.asarray(da[D.LAYER].values).astype(str)
    found = list(dict.fromkeys(layer_of.tolist()))
    for ly in positions:
        if ly not in found:
            raise UnknownNameError(
                f"unit_positions names layer {ly!r}, which these activations do not hold; "
                f"{close_matches(str(ly), found)}"
            )
    had = position_units(da)
    if had is not None and had != units:
        raise CoordinateError(
            f"These activations already carry free positions in {had!r}; position_units="
            f"{units!r} would mix units. Give every layer's positions in one unit."
        )
    n = da.sizes[D.UNIT]
    xy = np.full((n, 2), np.nan)
    if had is not None:
        xy[:] = np.stack([np.asarray(da[c].values, float) for c in (D.POS_X, D.POS_Y)], 1)
    for ly, spec in positions.items():
        idx = np.flatnonzero(layer_of == ly)
        xy[idx] = read_unit_positions(spec, idx.size, layer=str(ly))
    attrs = {D.ATTR_POSITION_UNITS: units}
    out = da.assign_coords({D.POS_X: (D.UNIT, xy[:, 0]), D.POS_Y: (D.UNIT, xy[:, 1])})
    out[D.POS_X].attrs.update(attrs)
    out[D.POS_Y].attrs.update(attrs)
    out.attrs.update(attrs)
    return out
