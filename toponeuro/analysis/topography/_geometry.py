"""Reading a map and where its values live into a :class:`~toponeuro.analysis.TopoMap`.

:func:`as_topomap` reads

* a per-unit map (dim ``"unit"`` with ``layer``/``row``/``col`` coords, e.g. a selectivity map)
  plus the layer name, or a 2-D ``(row, col)`` map (``da.topo.map(layer)``): a model sheet,
  distances in unit spacings;
* a per-unit map whose units carry free 2-D tissue positions (coords ``pos_x``, ``pos_y``;
  TDANN-style), or 1-D values with ``positions=(n, 2)`` and ``units="mm"`` / ``"sheet"``:
  units at free positions, neighbours from the Delaunay triangulation;
* values on the vertices of a mesh (e.g. fsaverage5) with ``positions`` (vertex coordinates,
  flat 2-D or 3-D), optionally a precomputed ``distance`` (matrix, callable, or ``"graph"`` for
  shortest paths along the mesh edges), an ``adjacency`` (neighbour graph) or ``faces``
  (triangles: neighbours and surface area) and a ``sphere`` (for the spin test).

It checks what it reads (values, positions, distances, meshes, sheet size) once, here; the
map type and the questions every map answers (``geometry``, ``neighbours()``,
``point_areas()``, ``extent``, ``null_names`` ...) are in ``_topomap.py``, the rules in
``_places.py``. The metrics take the points as one ``geometry=`` mapping (:data:`GEOMETRY_KEYS`,
read by ``_map_of``) and share the parameter text of this module (``_fill``).

Free positions format: one ``(x, y)`` pair per unit, as unit coords ``pos_x`` / ``pos_y``
of a per-unit map (``toponeuro._util.dims.POS_X`` / ``POS_Y``) with the map's attr
``position_units`` = ``"mm"`` or ``"sheet"`` (and, for sheet units, optionally
``mm_per_unit``), or as an explicit ``positions=(n, 2)`` array with ``units=``. A sheet
gets a physical scale only from ``mm_per_unit`` (or positions in mm); without one, its
descriptors are in extent units only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from numbers import Real

import numpy as np
import xarray as xr
from scipy import sparse

from ..._io.meshes import MESH_SIZES
from ..._util import dims as D
from ..._util.docs import fill_doc
from ..._util.params import Interval, Options, Text, check_number, validate_params
from ...exceptions import (
    CoordinateError,
    DimensionError,
    InputTypeError,
    InvalidDataError,
    SheetError,
    UnknownNameError,
    close_matches,
)
from ._topomap import TopoMap

__all__ = ["GEOMETRY_KEYS", "MESH_SIZES", "MIN_SHEET_UNITS", "POSITION_UNITS", "as_topomap"]

#: fewest units a layer needs for its sheet to carry a topography (at least 2 x 2 as well)
MIN_SHEET_UNITS = 16

#: the keys of a ``geometry=`` mapping: the keywords of :func:`as_topomap` that place points
GEOMETRY_KEYS = ("positions", "distance", "adjacency", "mesh", "faces", "sphere", "units",
                 "mm_per_unit", "prune")

#: the units free positions (and mesh positions) may be given in
POSITION_UNITS = ("mm", "sheet")

_LAYER_DOC = """layer : str, optional
        Layer of a per-unit map that holds several layers."""

_GEOMETRY_DOC = _LAYER_DOC + """
    geometry : mapping, optional
        Where the points of a map that is not a model sheet lie: any of the keys
        ``positions``, ``distance``, ``adjacency`` and ``mesh`` of :func:`as_topomap` (for
        an atlas, ``CortexMaps.geometry``). A model sheet brings its own geometry."""


_POINTS_DOC = _LAYER_DOC + """
    positions : array (n, 2) or (n, 3), optional
        Point coordinates for maps that are not a model sheet (cortical vertices, flat or
        inflated coordinates, voxel centres in mm).
    distance : None, "graph", array (n, n) or callable, optional
        How far apart points are: ``None`` Euclidean between positions; ``"graph"`` shortest
        paths along ``adjacency`` with edge length = Euclidean edge length (mesh distance); a
        precomputed matrix; or ``f(sources) -> (len(sources), n)`` distances from the points
        ``sources`` to all points.
    adjacency : sparse matrix (n, n) or float, optional
        Neighbour graph of the points (mesh edges) used for connected patches, or a radius:
        points closer than it are neighbours.
    mesh : str, optional
        Template mesh the values live on (``"fsaverage5"`` ...); checks the vertex count. A
        map with twice its vertex count holds both hemispheres, left then right: the spin
        test then rotates the two spheres together, the right by the left's rotation mirrored
        across the mid-sagittal plane (Alexander-Bloch et al. 2018)."""

#: the rest of :data:`_POINTS_DOC`, after ``mesh`` (as_topomap documents ``name`` between)
_SHAPE_DOC = """faces : array (m, 3), optional
        Triangles of a mesh: its neighbours (edges) when ``adjacency`` is not given, and its
        surface area (the extent).
    sphere : array (n, 3), optional
        Sphere coordinates of a mesh's vertices, used for the spin test when ``positions``
        are not on a sphere.
    units : {"mm", "sheet"}, optional
        Units of ``positions``. Given with 2-D positions and no mesh information, it makes
        the points free unit positions (neighbours: Delaunay edges).
    mm_per_unit : float, optional
        Millimetres per position unit (a sheet's physical scale); ``units="mm"`` implies 1.
    prune : float, optional
        Free positions: drop Delaunay edges longer than ``prune`` x the median edge."""


def _fill(obj):
    doc = obj.__doc__.replace("%(geometry)s", _GEOMETRY_DOC)
    doc = doc.replace("%(points)s", _POINTS_DOC)
    obj.__doc__ = doc.replace("%(shape)s", _SHAPE_DOC)
    return fill_doc(obj)


def _check_mesh(n: int, mesh: str | None, name: str):
    if mesh is None:
        return
    if mesh not in MESH_SIZES:
        raise UnknownNameError(f"Unknown mesh {mesh!r}; {close_matches(mesh, MESH_SIZES)}")
    per_hemi = MESH_SIZES[mesh]
    if n not in (per_hemi, 2 * per_hemi):
        guess = [k for k, v in MESH_SIZES.items() if n in (v, 2 * v)]
        hint = f" It has the size of {guess[0]}; pass mesh={guess[0]!r}." if guess else ""
        raise DimensionError(
            f"A map on {mesh} has {per_hemi:,} vertices per hemisphere ({2 * per_hemi:,} for "
            f"both); {name or 'this map'} has {n:,}.{hint} Resample it to {mesh} (e.g. "
            "nilearn.surface.vol_to_surf on the fsaverage5 mesh) or give another mesh name."
        )


def _sheet_from_units(da: xr.DataArray, layer: str | None, name: str) -> TopoMap:
    layers = da.topo.layers
    if layer is None:
        if len(layers) > 1:
            raise CoordinateError(
                f"This per-unit map holds {len(layers)} layers {layers}; pass layer=... "
                "to pick the sheet."
            )
        layer = layers[0]
    sub = da.topo.select(layer)
    rows = sub[D.ROW].values.astype(int)
    cols = sub[D.COL].values.astype(int)
    h, w = int(rows.max()) + 1, int(cols.max()) + 1
    vals = np.asarray(sub.values, dtype=float)
    _check_sheet(h, w, f"Layer {layer!r}")
    flat = rows * w + cols
    ok = np.isfinite(vals)
    sums = np.bincount(flat, weights=np.where(ok, vals, 0.0), minlength=h * w)
    counts = np.bincount(flat, weights=ok.astype(float), minlength=h * w)
    with np.errstate(invalid="ignore", divide="ignore"):
        grid_vals = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
    return _grid_map(grid_vals.reshape(h, w), name or f"{da.name or 'map'}[{layer}]")


def _check_sheet(h: int, w: int, what: str):
    if h * w < MIN_SHEET_UNITS or h < 2 or w < 2:
        raise SheetError(
            f"{what} has a {h} x {w} sheet ({h * w} units); topography needs at least "
            f"{MIN_SHEET_UNITS} units on a sheet at least 2 x 2. Choose a wider layer (a "
            "prime unit count gives a 1 x n strip), or compare several layers instead."
        )


def _grid_map(grid: np.ndarray, name: str) -> TopoMap:
    grid = np.asarray(grid, dtype=float)
    h, w = grid.shape
    _check_sheet(h, w, name or "This map")
    rr, cc = np.divmod(np.arange(h * w), w)
    return TopoMap(
        values=grid.ravel().copy(),
        positions=np.stack([rr, cc], axis=1).astype(float),
        grid_shape=(h, w),
        name=name,
        kind="sheet",
    )


@validate_params({
    "layer": [Text(), None],
    "name": [Text(empty=True), None],
    "units": [Options(POSITION_UNITS, error=UnknownNameError), None],
    "mm_per_unit": [Interval(Real, 0, None, closed="neither"), None],
    "prune": [Interval(Real, 1, None, closed="left", fix=(
        "prune drops Delaunay edges longer than prune x the median.")), None],
})
@_fill
def as_topomap(
    data,
    *,
    layer: str | None = None,
    positions: np.ndarray | None = None,
    distance: str | np.ndarray | Callable[[np.ndarray], np.ndarray] | None = None,
    adjacency: sparse.spmatrix | float | None = None,
    mesh: str | None = None,
    name: str | None = None,
    faces: np.ndarray | None = None,
    sphere: np.ndarray | None = None,
    units: str | None = None,
    mm_per_unit: float | None = None,
    prune: float | None = None,
) -> TopoMap:
    """Read a model sheet map, units at free positions or a cortical map as a :class:`TopoMap`.

    Parameters
    ----------
    data : TopoMap, xarray.DataArray or array
        A per-unit map (dim ``"unit"`` with ``layer``, ``row``, ``col`` coords, or with
        free positions ``pos_x``, ``pos_y`` and attr ``position_units``), a 2-D
        ``(row, col)`` sheet map, or 1-D values on the points given by ``positions`` (a
        DataArray with ``x``, ``y`` [, ``z``] coords brings its own positions).
    %(points)s
    name : str, optional
        Label used in messages and tables.
    %(shape)s

    Returns
    -------
    TopoMap
        The map with its points, neighbours and distance (``data`` itself if a TopoMap).

    Raises
    ------
    SheetError
        The layer has too few units for a sheet.
    DimensionError
        Shapes disagree, or the map is not on the stated mesh.

    Examples
    --------
    >>> from toponeuro import make_activations
    >>> acts = make_activations({"fc": 64}, n_stimuli=3, random_state=0)
    >>> as_topomap(acts.mean("stimulus")).grid_shape
    (8, 8)
    >>> as_topomap(np.zeros(50), positions=np.random.default_rng(0).random((50, 3))).kind
    'surface'

    Units at free positions (TDANN-style, in mm):

    >>> pos = np.random.default_rng(0).random((40, 2)) * 10
    >>> tm = as_topomap(np.zeros(40), positions=pos, units="mm")
    >>> tm.geometry, tm.neighbours().shape, tm.null_names
    ('free', (40, 40), ('positions',))
    """
    if isinstance(data, TopoMap):
        return data
    scale = {"units": units, "mm_per_unit": mm_per_unit}
    if isinstance(data, xr.DataArray):
        label = name or (str(data.name) if data.name is not None else "")
        scale = {"units": units or data.attrs.get(D.ATTR_POSITION_UNITS),
                 "mm_per_unit": mm_per_unit or data.attrs.get(D.ATTR_MM_PER_UNIT)}
        if D.UNIT in data.dims:
            if data.ndim != 1:
                others = [d for d in data.dims if d != D.UNIT]
                raise DimensionError(
                    f"A map needs one value per unit; this one also has dims {others}. Pick "
                    f"one, e.g. .sel({others[0]}=...) or .mean({others[0]!r})."
                )
            if D.POS_X in data.coords and D.POS_Y in data.coords:
                return _free_from_units(data, layer, label, prune=prune, **scale)
            for c in (D.LAYER, D.ROW, D.COL):
                if c not in data.coords:
                    raise CoordinateError(
                        f"A per-unit map needs the unit coords layer, row, col; {c!r} is "
                        "missing. Compute the map from Activations so the coords come along."
                    )
            return _scaled(_sheet_from_units(data, layer, label), **scale)
        if data.ndim == 2 and tuple(data.dims) == (D.ROW, D.COL):
            return _scaled(_grid_map(data.values, label or str(data.attrs.get(D.LAYER, ""))),
                           **scale)
        if data.ndim != 1:
            raise DimensionError(
                f"A map must be per-unit (dim 'unit'), a (row, col) sheet or 1-D values on "
                f"a mesh; got dims {tuple(data.dims)}. Reduce the other dims first (e.g. "
                "compute a selectivity map from Activations)."
            )
        if positions is None and all(c in data.coords for c in (D.X, D.Y)):
            cols = [D.X, D.Y] + ([D.Z] if D.Z in data.coords else [])
            positions = np.stack([data[c].values for c in cols], axis=1)
        mesh = mesh or data.attrs.get("mesh")
        values = np.asarray(data.values, dtype=float)
    else:
        label = name or ""
        values = np.asarray(data, dtype=float)
        if values.ndim == 2 and positions is None:
            return _scaled(_grid_map(values, label), **scale)
    if values.ndim != 1:
        raise DimensionError(
            f"Values on a mesh must be 1-D (one per vertex); got shape {values.shape}."
        )
    _check_mesh(values.size, mesh, label)
    if positions is None:
        raise CoordinateError(
            f"{label or 'This map'} ({values.size} values) is not a model sheet, so it needs "
            "positions=(n, 2 or 3) vertex coordinates (e.g. the fsaverage5 inflated or flat "
            "mesh coordinates), optionally with distance= and adjacency= -- the metrics take "
            "them as geometry={'positions': ...} (an atlas: CortexMaps.geometry)."
        )
    pos = np.asarray(positions, dtype=float)
    if pos.ndim != 2 or pos.shape[0] != values.size:
        raise DimensionError(
            f"positions must be (n_points, 2 or 3) with n_points = {values.size}; got "
            f"{pos.shape}. Give the coordinates of the same vertices as the values."
        )
    if isinstance(distance, str) and distance != "graph":
        raise UnknownNameError(
            f"Unknown distance {distance!r}; use None, 'graph', a matrix or a callable."
        )
    if isinstance(distance, np.ndarray) and distance.shape != (values.size, values.size):
        raise DimensionError(
            f"A distance matrix must be ({values.size}, {values.size}); got {distance.shape}."
        )
    _check_points(pos, distance, adjacency, label)
    free = (scale["units"] is not None and pos.shape[1] == 2 and mesh is None
            and adjacency is None and faces is None and distance is None)
    if free:
        return _free_map(values, pos, label, prune=prune, **scale)
    if faces is not None:
        faces = np.asarray(faces, dtype=np.int64)
        if faces.ndim != 2 or faces.shape[1] != 3 or faces.min() < 0 or faces.max() >= values.size:
            raise DimensionError(
                f"faces must be (m, 3) vertex indices below {values.size}; got shape "
                f"{faces.shape}. Give the triangles of the mesh the values lie on."
            )
    if sphere is not None:
        sphere = np.asarray(sphere, dtype=float)
        if sphere.shape != (values.size, 3):
            raise DimensionError(
                f"sphere must be (n_vertices, 3) = ({values.size}, 3); got {sphere.shape}."
            )
    return TopoMap(
        values=values,
        positions=pos,
        distance=distance,
        adjacency=adjacency,
        name=label,
        kind="surface",
        mesh=mesh,
        faces=faces,
        sphere=sphere,
        **scale,
    )


def _scaled(tm: TopoMap, units=None, mm_per_unit=None) -> TopoMap:
    """A sheet map with its physical scale (``mm_per_unit``; ``units="mm"``: 1 mm)."""
    if units is None and mm_per_unit is None:
        return tm
    return replace(tm, units=units or "sheet", mm_per_unit=mm_per_unit, _cache={})


def _free_map(values, pos, label, *, units, mm_per_unit=None, prune=None) -> TopoMap:
    """Units at free 2-D positions; units at one place are averaged (as a sheet's cells)."""
    uniq, inverse = np.unique(pos, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    if uniq.shape[0] < pos.shape[0]:
        ok = np.isfinite(values)
        sums = np.bincount(inverse, weights=np.where(ok, values, 0.0), minlength=len(uniq))
        counts = np.bincount(inverse, weights=ok.astype(float), minlength=len(uniq))
        with np.errstate(invalid="ignore", divide="ignore"):
            values = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
        pos = uniq
    if pos.shape[0] < MIN_SHEET_UNITS:
        raise SheetError(
            f"{label or 'This map'} has {pos.shape[0]} distinct unit positions; topography "
            f"needs at least {MIN_SHEET_UNITS}. Give more units (or check that the positions "
            "are not all rounded onto a few places)."
        )
    return TopoMap(values=np.asarray(values, dtype=float), positions=pos, name=label,
                   kind="free", units=units or "sheet", mm_per_unit=mm_per_unit, prune=prune)


def _free_from_units(da: xr.DataArray, layer, label, *, units, mm_per_unit=None,
                     prune=None) -> TopoMap:
    """A per-unit map with free positions (coords ``pos_x``, ``pos_y``), one layer."""
    sub = da
    if D.LAYER in da.coords:
        layers = list(dict.fromkeys(str(v) for v in da[D.LAYER].values))
        if layer is None and len(layers) > 1:
            raise CoordinateError(
                f"This per-unit map holds {len(layers)} layers {layers}; pass layer=... "
                "to pick the units."
            )
        layer = layer or layers[0]
        if layer not in layers:
            raise UnknownNameError(f"No layer {layer!r}; {close_matches(layer, layers)}")
        sub = da.isel({D.UNIT: np.flatnonzero(da[D.LAYER].values.astype(str) == layer)})
    if units is None:
        raise CoordinateError(
            f"{label or 'This map'} has free unit positions ({D.POS_X}, {D.POS_Y}) but no "
            f"units: set attrs[{D.ATTR_POSITION_UNITS!r}] to 'mm' or 'sheet' (or pass "
            "units=...)."
        )
    pos = np.stack([sub[D.POS_X].values, sub[D.POS_Y].values], axis=1).astype(float)
    _check_points(pos, None, None, label)
    name = label or (f"{da.name or 'map'}[{layer}]" if layer else str(da.name or ""))
    return _free_map(np.asarray(sub.values, dtype=float), pos, name, units=units,
                     mm_per_unit=mm_per_unit, prune=prune)


def _check_points(pos, distance, adjacency, label):
    """Positions finite, a distance matrix finite and >= 0, an adjacency radius > 0."""
    what = label or "This map"
    bad = ~np.isfinite(pos).all(axis=1)
    if bad.any():
        raise CoordinateError(
            f"{what}: positions of {int(bad.sum())} of {pos.shape[0]} points are NaN or inf "
            f"(e.g. point {int(np.flatnonzero(bad)[0])}); every point needs finite coordinates. "
            "Drop those points (and their values) or give their coordinates."
        )
    if isinstance(distance, np.ndarray):
        d = np.asarray(distance, dtype=float)
        if not np.isfinite(d).all() or (d < 0).any():
            n_bad = int((~np.isfinite(d) | (d < 0)).sum())
            raise InvalidDataError(
                f"{what}: a distance matrix must hold finite distances >= 0; {n_bad} entries "
                f"are negative, NaN or inf (min {np.nanmin(d):.4g}). Pass distances, not "
                "similarities (e.g. 1 - r), or distance='graph' for mesh distances."
            )
    if adjacency is not None and np.isscalar(adjacency):
        check_number(adjacency, "adjacency", lo=0, lo_open=True,
                     fix="A number is a radius: points closer than it are neighbours.")


def _check_geometry(geometry) -> dict:
    """``geometry=`` as keywords of :func:`as_topomap` (None: none), unknown keys refused."""
    if geometry is None:
        return {}
    if not isinstance(geometry, Mapping):
        raise InputTypeError(
            f"geometry must be a mapping of {list(GEOMETRY_KEYS)} (e.g. CortexMaps.geometry); "
            f"got {type(geometry).__name__}."
        )
    for key in geometry:
        if key not in GEOMETRY_KEYS:
            raise UnknownNameError(
                f"Unknown geometry key {key!r}; {close_matches(str(key), GEOMETRY_KEYS)}"
            )
    return dict(geometry)


def _map_of(data, layer=None, geometry=None) -> TopoMap:
    """:func:`as_topomap` of ``data`` with ``layer=`` and a ``geometry=`` mapping."""
    return as_topomap(data, layer=layer, **_check_geometry(geometry))
