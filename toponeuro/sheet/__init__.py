"""The cortical sheet: where each unit of a layer sits, and the ``.topo`` accessor.

A layer of ``n`` units is laid out row-major on an ``h x w`` sheet, ``h`` the largest divisor
of ``n`` not above ``sqrt(n)`` and ``w = n // h`` (exactly as the official ``topoloss``
package does). Unit ``i`` sits at ``(row, col) = (i // w, i % w)``.

Activations are a plain :class:`xarray.DataArray` with dims ``("stimulus", "unit")`` and unit
coordinates ``layer``, ``channel``, ``row``, ``col``; the ``.topo`` accessor lays any per-unit
values back onto each layer's sheet.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence

import numpy as np
import xarray as xr

from .._util import dims as D
from .._util.docs import fill_doc
from .._util.params import (
    SEED,
    Boolean,
    Constraint,
    Interval,
    check_param,
    check_random_state,
    validate_params,
)
from .._util.typing import RandomState
from .._version import __version__
from ..exceptions import (
    CoordinateError,
    DimensionError,
    InvalidDataError,
    SheetError,
    UnknownNameError,
    close_matches,
)
from ._positions import position_units, read_unit_positions, set_unit_positions, unit_positions

__all__ = [
    "MAX_SHEET_UNITS",
    "sheet_shape",
    "sheet_positions",
    "check_activations",
    "make_activations",
    "TopoAccessor",
    "set_unit_positions",
    "read_unit_positions",
]


#: the largest layer :func:`sheet_shape` lays out (no real layer comes near 10**12 units)
MAX_SHEET_UNITS = 10**12


class _UnitCount(Constraint):
    """The units of a layer's sheet: an int from 1 to ``MAX_SHEET_UNITS`` (not a float, not
    a bool), refused with a :class:`~toponeuro.exceptions.SheetError` in the sheet's words."""

    error = type_error = SheetError

    def kind_ok(self, value) -> bool:
        return isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_)

    def is_satisfied_by(self, value) -> bool:
        return self.kind_ok(value) and 1 <= int(value) <= MAX_SHEET_UNITS

    def convert(self, value):
        return int(value)

    def describe(self) -> str:
        return f"a whole number of units (an int) from 1 to {MAX_SHEET_UNITS:.0e}"

    def example(self):
        return 64

    def bad_values(self) -> list:
        return [0, MAX_SHEET_UNITS + 1, 64.0, float("nan"), True, None, "64"]

    def refusal(self, value, name: str) -> str:
        if not self.kind_ok(value):
            return (f"{name}={value!r}: a sheet needs a whole number of units (an int); got "
                    f"{type(value).__name__} {value!r}. Pass the layer's unit count, e.g. "
                    "int(weight.shape[0]).")
        return (f"{name}={int(value)}: a sheet needs between 1 and {MAX_SHEET_UNITS:.0e} "
                f"units; got {int(value)}. Pass the number of units (output channels) of one "
                "layer.")


#: ``n_units`` of a sheet (:func:`sheet_shape`, :func:`sheet_positions`)
UNIT_COUNT = _UnitCount()


def _unit_count(n_units) -> int:
    # also for the counts toponeuro computes itself (a declared caller trusts them)
    return check_param(n_units, "n_units", UNIT_COUNT)


@validate_params({"n_units": UNIT_COUNT})
def sheet_shape(n_units: int) -> tuple[int, int]:
    """Height and width of the cortical sheet of a layer with ``n_units`` units.

    Height is the largest divisor of ``n_units`` not above its square root; width is
    ``n_units // height``. Prime counts give a ``1 x n`` strip. ``n_units`` must be an int
    from 1 to ``MAX_SHEET_UNITS`` (10**12); anything else (floats, bools, NaN, None, 0)
    raises :class:`~toponeuro.exceptions.SheetError`.

    Parameters
    ----------
    n_units : int
        Units of the layer, from 1 to ``MAX_SHEET_UNITS``.

    Returns
    -------
    height : int
        The sheet's rows: the largest divisor of ``n_units`` not above its square root.
    width : int
        The sheet's columns, ``n_units // height``.

    Raises
    ------
    SheetError
        ``n_units`` is not a whole number in range.

    Examples
    --------
    >>> sheet_shape(64), sheet_shape(512), sheet_shape(3072), sheet_shape(7)
    ((8, 8), (16, 32), (48, 64), (1, 7))
    """
    n = _unit_count(n_units)
    r = math.isqrt(n)
    if r <= 4096:
        h = r
        while n % h:
            h -= 1
        return h, n // h
    # vectorised search for the largest divisor <= sqrt(n): ~1e6 candidates at most
    cand = np.arange(1, r + 1, dtype=np.int64)
    h = int(cand[n % cand == 0][-1])
    return h, n // h


@validate_params({"n_units": UNIT_COUNT})
def sheet_positions(n_units: int) -> tuple[np.ndarray, np.ndarray]:
    """Sheet ``(rows, cols)`` of units 0 to ``n_units - 1`` (row-major).

    Parameters
    ----------
    n_units : int
        Units of the layer (as :func:`sheet_shape`).

    Returns
    -------
    rows : numpy.ndarray
        Each unit's row (integers, length ``n_units``).
    cols : numpy.ndarray
        Each unit's column.

    Examples
    --------
    >>> rows, cols = sheet_positions(6)
    >>> rows.tolist(), cols.tolist()
    ([0, 0, 0, 1, 1, 1], [0, 1, 2, 0, 1, 2])
    """
    _, w = sheet_shape(n_units)
    idx = np.arange(_unit_count(n_units))
    return idx // w, idx % w


@validate_params({"require_stimulus": Boolean()})
def check_activations(da: xr.DataArray, *, require_stimulus: bool = True) -> xr.DataArray:
    """Validate an Activations DataArray and return it unchanged.

    Parameters
    ----------
    da : xarray.DataArray
        Must have dims ``("stimulus", "unit")`` (or only ``"unit"`` when
        ``require_stimulus=False``, e.g. a selectivity map) and unit coords ``layer``,
        ``channel``, ``row``, ``col``. Also refused: ``row`` / ``col`` that are negative,
        fractional or shared by two units of a layer (``.topo.map`` would overwrite one
        with the other; units of unpooled feature maps are told apart by ``y`` / ``x``
        coords), and inf values (in-memory data; lazy dask data is not read). NaN is
        allowed.
    require_stimulus : bool
        Require the ``"stimulus"`` dim (Activations); ``False`` also accepts a per-unit
        result with dim ``"unit"`` alone.

    Returns
    -------
    xarray.DataArray
        ``da`` itself, unchanged.

    Raises
    ------
    DimensionError, CoordinateError, InvalidDataError
        With a message that names the fix.

    Examples
    --------
    >>> acts = make_activations({"conv1": 16}, n_stimuli=3, random_state=0)
    >>> check_activations(acts).dims
    ('stimulus', 'unit')
    """
    if not isinstance(da, xr.DataArray):
        raise DimensionError(
            f"Activations must be an xarray.DataArray; got {type(da).__name__}. Build one with "
            "toponeuro.make_activations or toponeuro.extract."
        )
    expected = D.ACTIVATION_DIMS if require_stimulus else (D.UNIT,)
    dims = tuple(da.dims)
    if require_stimulus and dims != expected:
        fix = (
            "Call .transpose('stimulus', 'unit')."
            if set(dims) == set(expected)
            else "Rename the dims with .rename({...}) or build the array with "
            "toponeuro.make_activations."
        )
        raise DimensionError(f"Activations must have dims {expected}; got {dims}. {fix}")
    if not require_stimulus and D.UNIT not in dims:
        raise DimensionError(
            f"Per-unit values need a 'unit' dim; got {dims}. Compute them from Activations "
            "so the unit coords (layer, row, col) come along."
        )
    missing = [c for c in D.UNIT_COORDS if c not in da.coords]
    if missing:
        raise CoordinateError(
            f"Activations lack the unit coords {missing} (need {list(D.UNIT_COORDS)}). "
            "Create them with toponeuro.make_activations, or assign sheet positions with "
            "toponeuro.sheet_positions(n_units) per layer."
        )
    for c in D.UNIT_COORDS:
        if da.coords[c].dims != (D.UNIT,):
            raise CoordinateError(
                f"Coordinate {c!r} must label the 'unit' dim; it has dims {da.coords[c].dims}."
            )
    if require_stimulus and D.STIMULUS_ID not in da.coords:
        raise CoordinateError(
            "Activations lack the 'stimulus_id' coord on the 'stimulus' dim; assign it with "
            "da.assign_coords(stimulus_id=('stimulus', ids))."
        )
    _check_positions(da)
    _check_no_inf(da)
    return da


def _int_positions(da, name):
    """``row`` / ``col`` as int64, refusing non-integer, non-finite and negative values."""
    vals = np.asarray(da[name].values)
    if vals.dtype.kind not in "iuf" or vals.dtype.kind == "f" and (
        not np.all(np.isfinite(vals)) or not np.all(vals == np.round(vals))
    ):
        raise CoordinateError(
            f"Unit coord {name!r} must hold whole sheet positions (0, 1, 2, ...); got dtype "
            f"{vals.dtype} with values like {vals[:3].tolist()}. Recompute positions with "
            "toponeuro.sheet_positions(n_units) per layer."
        )
    vals = vals.astype(np.int64)
    if vals.size and vals.min() < 0:
        layers = np.asarray(da[D.LAYER].values)[vals < 0] if D.LAYER in da.coords else []
        raise CoordinateError(
            f"Unit coord {name!r} has {int((vals < 0).sum())} negative positions (min "
            f"{int(vals.min())}, layers {sorted(set(map(str, layers)))[:3]}); a negative "
            "index would overwrite another unit in .topo.map. Positions start at 0: use "
            "toponeuro.sheet_positions(n_units)."
        )
    return vals


def _check_positions(da):
    """Every unit has its own place on its layer's sheet (y/x tell unpooled maps apart)."""
    rows, cols = _int_positions(da, D.ROW), _int_positions(da, D.COL)
    _, layer_idx = np.unique(np.asarray(da[D.LAYER].values).astype(str), return_inverse=True)
    keys = [layer_idx.ravel(), rows, cols]
    keys += [np.asarray(da[c].values) for c in (D.Y, D.X)
             if c in da.coords and da[c].dims == (D.UNIT,)]
    key = np.stack([np.asarray(k, dtype=np.int64) for k in keys], axis=1)
    uniq, first, counts = np.unique(key, axis=0, return_index=True, return_counts=True)
    if len(uniq) != len(key):
        dup = np.flatnonzero(counts > 1)[0]
        i = first[dup]
        raise CoordinateError(
            f"{int((counts > 1).sum())} sheet positions hold more than one unit, e.g. layer "
            f"{str(da[D.LAYER].values[i])!r} at (row, col) = ({rows[i]}, {cols[i]}); .topo.map "
            "would keep only one of them. Give each unit its own position "
            "(toponeuro.sheet_positions), or label unpooled feature-map units with 'y' and "
            "'x' unit coords."
        )


def _check_no_inf(da):
    data = da.data
    if type(data).__module__.startswith("dask") or not np.issubdtype(da.dtype, np.floating):
        return  # lazy arrays are not read here; integer data cannot hold inf
    arr = np.asarray(data)
    flat = arr.reshape(-1, arr.shape[-1]) if arr.ndim > 1 else arr[None]
    step = max(1, 2**24 // max(1, flat.shape[1]))
    for a in range(0, flat.shape[0], step):
        bad = np.isinf(flat[a:a + step])
        if bad.any():
            unit_axis = list(da.dims).index(D.UNIT)
            per_unit = np.isinf(arr).any(axis=tuple(k for k in range(arr.ndim) if k != unit_axis))
            units = np.flatnonzero(per_unit)
            raise InvalidDataError(
                f"The activations hold {int(np.isinf(arr).sum())} inf values in {len(units)} "
                f"units (e.g. unit {int(units[0])} of layer "
                f"{str(da[D.LAYER].values[units[0]])!r}); statistics of such units are "
                "undefined. Find the overflow (e.g. extract in float32 after a bounded "
                "nonlinearity) or drop the units: da.isel(unit=np.isfinite(da).all('stimulus'))."
            )


@fill_doc
@validate_params({"n_stimuli": [Interval(numbers.Integral, 1, None, closed="left"), None],
                  "random_state": SEED})
def make_activations(
    layers: Mapping[str, int] | Mapping[str, np.ndarray],
    n_stimuli: int | None = None,
    *,
    stimulus_ids: Sequence | None = None,
    categories: Sequence | None = None,
    random_state: RandomState = None,
    attrs: Mapping | None = None,
    unit_coords: Mapping[str, Mapping[str, np.ndarray]] | None = None,
) -> xr.DataArray:
    """Build an Activations DataArray from per-layer arrays (or random data).

    This is the single constructor used throughout toponeuro: :func:`toponeuro.extract`
    builds its output through it, and tests use it to plant ground truth.

    Parameters
    ----------
    layers : mapping
        ``{layer_name: n_units}`` for Gaussian random values, or
        ``{layer_name: array of shape (n_stimuli, n_units)}`` for given values. Layers may
        differ in size; units are laid on each layer's own sheet.
    n_stimuli : int, optional
        Number of stimuli when random values are drawn.
    stimulus_ids, categories : sequence, optional
        Stimulus labels; ids default to ``"stim-0000"``, ``"stim-0001"``, ...
    %(random_state)s
    attrs : mapping, optional
        Extra attributes (model name, weights sha256 ...). The toponeuro version is added.
    unit_coords : mapping, optional
        ``{layer_name: {coord_name: array of n_units}}``: per-unit coords that replace the
        defaults (``channel``, ``row``, ``col``) or add new ones (``y``, ``x`` of unpooled
        feature maps). A coord given for some layers only is ``-1`` in the others.

    Returns
    -------
    xarray.DataArray
        Activations with dims ``("stimulus", "unit")``, unit coords ``layer``, ``channel``,
        ``row``, ``col`` (each layer on its own sheet) and stimulus coords ``stimulus_id``
        (and ``category`` when given).

    Examples
    --------
    >>> acts = make_activations({"a": 12, "b": 20}, n_stimuli=5, random_state=0)
    >>> acts.sizes["unit"], acts.topo.layers
    (32, ['a', 'b'])

    Unpooled 2 x 2 feature maps of 4 channels: each channel's units share its sheet position.

    >>> import numpy as np
    >>> ch = np.repeat(np.arange(4), 4)
    >>> rows, cols = sheet_positions(4)
    >>> extra = {"conv": {"channel": ch, "row": rows[ch], "col": cols[ch],
    ...                   "y": np.tile([0, 0, 1, 1], 4), "x": np.tile([0, 1, 0, 1], 4)}}
    >>> acts = make_activations({"conv": np.zeros((1, 16))}, unit_coords=extra)
    >>> acts.topo.map("conv", reduce="mean").shape
    (1, 2, 2)
    """
    rng = check_random_state(random_state)
    blocks, layer_c, chan_c, row_c, col_c = [], [], [], [], []
    unit_coords = unit_coords or {}
    extra_names = [
        c for per in unit_coords.values() for c in per if c not in (D.CHANNEL, D.ROW, D.COL)
    ]
    extra_names = list(dict.fromkeys(extra_names))
    extra_c = {c: [] for c in extra_names}
    unknown = [k for k in unit_coords if k not in layers]
    if unknown:
        raise CoordinateError(f"unit_coords names layers {unknown} that are not in layers.")
    for name, spec in layers.items():
        if np.isscalar(spec):
            if n_stimuli is None:
                raise DimensionError("Give n_stimuli when layers maps names to unit counts.")
            arr = rng.standard_normal((int(n_stimuli), int(spec))).astype(np.float32)
        else:
            arr = np.asarray(spec)
            if arr.ndim != 2:
                raise DimensionError(
                    f"Layer {name!r}: expected an array (n_stimuli, n_units); got shape "
                    f"{arr.shape}. Flatten or pool the feature maps first."
                )
        n_units = arr.shape[1]
        rows, cols = sheet_positions(n_units)
        given = {k: np.asarray(v) for k, v in unit_coords.get(name, {}).items()}
        bad = {k: v.shape for k, v in given.items() if v.shape != (n_units,)}
        if bad:
            raise CoordinateError(
                f"Layer {name!r} has {n_units} units; unit_coords shapes {bad} do not match."
            )
        blocks.append(arr)
        layer_c.append(np.full(n_units, name, dtype=object))
        chan_c.append(given.get(D.CHANNEL, np.arange(n_units)))
        row_c.append(given.get(D.ROW, rows))
        col_c.append(given.get(D.COL, cols))
        for c in extra_names:
            extra_c[c].append(given.get(c, np.full(n_units, -1)))
    sizes = {b.shape[0] for b in blocks}
    if len(sizes) != 1:
        raise DimensionError(f"All layers need the same number of stimuli; got sizes {sizes}.")
    n = sizes.pop()
    ids = np.asarray(
        stimulus_ids if stimulus_ids is not None else [f"stim-{i:04d}" for i in range(n)],
        dtype=object,
    )
    if len(ids) != n:
        raise DimensionError(f"Got {len(ids)} stimulus_ids for {n} stimuli.")
    if len(set(ids.tolist())) != n:
        raise CoordinateError("stimulus_ids must be unique; found duplicates.")
    coords = {
        D.STIMULUS_ID: (D.STIMULUS, ids),
        D.LAYER: (D.UNIT, np.concatenate(layer_c).astype(str)),
        D.CHANNEL: (D.UNIT, np.concatenate(chan_c)),
        D.ROW: (D.UNIT, np.concatenate(row_c)),
        D.COL: (D.UNIT, np.concatenate(col_c)),
    }
    for c in extra_names:
        coords[c] = (D.UNIT, np.concatenate(extra_c[c]))
    if categories is not None:
        cats = np.asarray(categories, dtype=object)
        if len(cats) != n:
            raise DimensionError(f"Got {len(cats)} categories for {n} stimuli.")
        coords[D.CATEGORY] = (D.STIMULUS, cats.astype(str))
    all_attrs = {D.ATTR_VERSION: __version__}
    all_attrs.update(attrs or {})
    data = np.concatenate(blocks, axis=1) if len(blocks) > 1 else blocks[0]
    return xr.DataArray(data, dims=D.ACTIVATION_DIMS, coords=coords, attrs=all_attrs)


@xr.register_dataarray_accessor("topo")
class TopoAccessor:
    """``da.topo``: sheet geometry of DataArrays that carry unit coords.

    Works on Activations ``("stimulus", "unit")`` and on any per-unit result (for example a
    selectivity map with dim ``"unit"``) as long as ``layer``, ``row`` and ``col`` come along.

    Parameters
    ----------
    da : xarray.DataArray
        The array the accessor is attached to (``da.topo``).

    Examples
    --------
    >>> acts = make_activations({"conv": 16}, n_stimuli=3)
    >>> acts.topo.layers, acts.topo.sheet_shape("conv"), acts.topo.map("conv").shape
    (['conv'], (4, 4), (3, 4, 4))
    """

    def __init__(self, da: xr.DataArray):
        self._da = da

    def _need_units(self):
        if D.UNIT not in self._da.dims or any(
            c not in self._da.coords for c in (D.LAYER, D.ROW, D.COL)
        ):
            raise CoordinateError(
                "The .topo accessor needs a 'unit' dim with 'layer', 'row' and 'col' coords; "
                f"got dims {tuple(self._da.dims)} and coords {list(self._da.coords)}. Keep the "
                "unit coords when you reduce (xarray keeps them unless you drop them)."
            )

    @property
    def layers(self) -> list[str]:
        """Layer names in the order they first appear along ``unit``."""
        self._need_units()
        vals = self._da[D.LAYER].values
        _, first = np.unique(vals, return_index=True)
        return [str(vals[i]) for i in sorted(first)]

    @fill_doc
    def select(self, layer: str) -> xr.DataArray:
        """The units of one layer (without free-position coords when that layer has
        none: its units sit on the grid sheet).

        Parameters
        ----------
        %(accessor_layer)s

        Returns
        -------
        xarray.DataArray
            The layer's units.
        """
        self._need_units()
        layers = self.layers
        if layer not in layers:
            raise UnknownNameError(
                f"No layer {layer!r} in these activations; {close_matches(layer, layers)}"
            )
        sub = self._da.isel({D.UNIT: np.flatnonzero(self._da[D.LAYER].values == layer)})
        if position_units(sub) is not None and unit_positions(sub) is None:
            sub = sub.drop_vars([D.POS_X, D.POS_Y])
            sub.attrs.pop(D.ATTR_POSITION_UNITS, None)
        return sub

    @fill_doc
    def sheet_shape(self, layer: str) -> tuple[int, int]:
        """``(height, width)`` of ``layer``'s sheet, read off its row/col coords.

        Parameters
        ----------
        %(accessor_layer)s

        Returns
        -------
        tuple of int
            ``(height, width)``.
        """
        sub = self.select(layer)
        return int(sub[D.ROW].max()) + 1, int(sub[D.COL].max()) + 1

    @fill_doc
    def map(self, layer: str, reduce: str | None = None) -> xr.DataArray:
        """Values of ``layer`` laid on its sheet: dims ``(..., "row", "col")``.

        Parameters
        ----------
        %(accessor_layer)s
        reduce : {None, "mean", "max"}
            How to combine several units that share a sheet position (unpooled conv maps,
            which keep ``y``/``x`` units per channel). ``None`` raises if positions repeat.

        Returns
        -------
        xarray.DataArray
            The values on the sheet grid.

        Examples
        --------
        >>> acts = make_activations({"fc": 6}, n_stimuli=4, random_state=0)
        >>> acts.topo.map("fc").dims, acts.topo.map("fc").shape
        (('stimulus', 'row', 'col'), (4, 2, 3))
        """
        sub = self.select(layer)
        h, w = self.sheet_shape(layer)
        rows = _int_positions(sub, D.ROW)
        cols = _int_positions(sub, D.COL)
        flat = rows * w + cols
        other = [d for d in sub.dims if d != D.UNIT]
        vals = sub.transpose(*other, D.UNIT).values
        lead = vals.shape[:-1]
        dtype = np.result_type(vals.dtype, np.float32)
        out = np.full(lead + (h * w,), np.nan, dtype=dtype)
        if len(np.unique(flat)) != len(flat):
            if reduce not in ("mean", "max"):
                raise SheetError(
                    f"Layer {layer!r} has several units per sheet position (unpooled feature "
                    "maps); pass reduce='mean' or 'max', or extract with pooling='mean'."
                )
            order = np.argsort(flat, kind="stable")
            sflat = flat[order]
            svals = vals[..., order].astype(dtype)
            starts = np.flatnonzero(np.r_[True, sflat[1:] != sflat[:-1]])
            ufunc = np.add if reduce == "mean" else np.maximum
            red = ufunc.reduceat(svals, starts, axis=-1)
            if reduce == "mean":
                red = red / np.diff(np.r_[starts, len(sflat)])
            out[..., sflat[starts]] = red
        else:
            out[..., flat] = vals
        out = out.reshape(lead + (h, w))
        coords = {d: sub[d] for d in other if d in sub.coords}
        for name, c in sub.coords.items():
            if c.dims and all(d in other for d in c.dims) and name not in coords:
                coords[name] = c
        coords[D.ROW] = np.arange(h)
        coords[D.COL] = np.arange(w)
        return xr.DataArray(
            out,
            dims=tuple(other) + (D.ROW, D.COL),
            coords=coords,
            attrs={**self._da.attrs, D.LAYER: layer},
            name=self._da.name,
        )

    @property
    def position_units(self) -> str | None:
        """``"mm"`` or ``"sheet"`` when the units carry free positions (``pos_x``/``pos_y``,
        TDANN-style; :func:`toponeuro.set_unit_positions`), else None (grid sheets only).
        """
        return position_units(self._da)

    @fill_doc
    def free_positions(self, layer: str) -> np.ndarray | None:
        """``(n_units, 2)`` free ``(x, y)`` positions of ``layer``'s units, or None when the
        layer sits on its grid sheet.

        Parameters
        ----------
        %(accessor_layer)s

        Returns
        -------
        numpy.ndarray or None
            ``(n_units, 2)`` positions, or None.

        Examples
        --------
        >>> acts = make_activations({"fc": 2}, n_stimuli=1).topo.with_positions(
        ...     {"fc": [[0.0, 0.0], [1.5, 0.0]]})
        >>> acts.topo.free_positions("fc").tolist(), acts.topo.position_units
        ([[0.0, 0.0], [1.5, 0.0]], 'mm')
        """
        self.select(layer)
        return unit_positions(self._da, layer)

    def with_positions(self, positions: Mapping, units: str = "mm") -> xr.DataArray:
        """A copy that carries free unit positions: ``{layer: (n_units, 2) array or path to
        a .npy / .csv (columns unit, x, y)}`` in ``units`` ("mm" or "sheet"); see
        :func:`toponeuro.set_unit_positions`.

        Parameters
        ----------
        positions : mapping
            Layer -> ``(n_units, 2)`` array, or path to a .npy / .csv file.
        units : {"mm", "sheet"}
            The positions' units.

        Returns
        -------
        xarray.DataArray
            A copy with ``pos_x`` / ``pos_y`` unit coords.
        """
        self._need_units()
        return set_unit_positions(self._da, positions, units=units)

    @fill_doc
    def positions(self, layer: str) -> np.ndarray:
        """``(n_units, 2)`` positions of the units of ``layer``: their free ``(x, y)`` when
        the layer has them (:meth:`free_positions`), else their sheet ``(row, col)``.

        Parameters
        ----------
        %(accessor_layer)s

        Returns
        -------
        numpy.ndarray
            ``(n_units, 2)`` positions.
        """
        free = self.free_positions(layer)
        if free is not None:
            return free
        sub = self.select(layer)
        return np.stack([sub[D.ROW].values, sub[D.COL].values], axis=1).astype(float)

    @fill_doc
    def distances(self, layer: str) -> xr.DataArray:
        """Unit-by-unit Euclidean distances on ``layer``'s sheet (in unit spacings), or
        between the free positions of its units (in their ``position_units``).

        Parameters
        ----------
        %(accessor_layer)s

        Returns
        -------
        xarray.DataArray
            ``(n_units, n_units)`` distances.

        Examples
        --------
        >>> acts = make_activations({"fc": 4}, n_stimuli=2, random_state=0)
        >>> acts.topo.distances("fc").values.round(3).tolist()[0]
        [0.0, 1.0, 1.0, 1.414]
        """
        pos = self.positions(layer)
        diff = pos[:, None, :] - pos[None, :, :]
        dist = np.sqrt((diff**2).sum(-1))
        sub = self.select(layer)
        unit_coords = {k: (D.UNIT, v.values) for k, v in sub.coords.items() if v.dims == (D.UNIT,)}
        return xr.DataArray(
            dist,
            dims=(D.UNIT, "unit_b"),
            coords={**unit_coords},
            attrs={D.LAYER: layer, "units": self.position_units if self.free_positions(layer)
                   is not None else "sheet"},
            name="sheet_distance",
        )
