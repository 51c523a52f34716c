"""A model's map and the cortex's map side by side, on one colour logic; one hemisphere's map.

One colour logic for every such figure (the vision job's ``model_and_cortex.png``, the
language job's ``model_vs_cortex_*.png``, a lab's ``cortex_*.png``): a diverging map centred
at 0, one symmetric scale for all that is drawn, and ``|value| < threshold`` (and no data)
left uncoloured.
"""

from __future__ import annotations

from numbers import Real

import numpy as np

from .._util.docs import fill_doc
from .._util.params import Interval, Options, validate_params
from ..exceptions import DimensionError, UnknownNameError
from ._common import LABEL, TITLE, model_cortex_axes, require_matplotlib, symmetric_limits
from ._surface import SURFACE_VIEWS

#: the declared view of one hemisphere on its mesh
_ON_MESH = {
    "hemi": Options(("left", "right"), error=UnknownNameError),
    "view": Options(SURFACE_VIEWS, error=UnknownNameError),
    "threshold": [Interval(Real, 0, None, closed="left"), None],
    "colorbar_label": LABEL,
    "title": TITLE,
}

#: a map's selectivity threshold, > 0, or None (no threshold)
_SELECTIVITY_THRESHOLD = [Interval(Real, 0, None, closed="neither",
                                   fix="It is the map's selectivity threshold (None: none)."),
                          None]

__all__ = ["plot_model_cortex_maps", "plot_cortex_map"]

#: the colour of a sheet's or a flat map's point left uncoloured (below threshold, no data)
_UNCOLOURED = (0.85, 0.85, 0.85, 1.0)


def _colour_scale(maps, threshold, cmap, robust=99.0):
    """``(norm, cmap)``: one diverging scale centred at 0 for all ``maps`` together, its
    limit the ``robust`` percentile of their ``|value|``, at least 1.5 x ``threshold``."""
    from matplotlib.colors import Normalize

    pooled = np.concatenate([np.ravel(np.asarray(m, dtype=float)) for m in maps])
    lim = max(symmetric_limits(pooled, robust=robust)[1], (threshold or 0.0) * 1.5, 1e-9)
    return Normalize(-lim, lim), require_matplotlib().get_cmap(cmap)


def _rgba(values, norm, cm, threshold, uncoloured):
    """The colours of ``values``; ``uncoloured`` where there is no data or ``|value| <
    threshold``."""
    v = np.asarray(values, dtype=float)
    rgba = cm(norm(np.nan_to_num(v)))
    hide = ~np.isfinite(v)
    if threshold is not None:
        hide |= np.abs(np.nan_to_num(v)) < threshold
    rgba[hide] = uncoloured
    return rgba


def _mesh_values(values, mesh, name):
    """``values`` flat, refused unless one value per vertex of one ``mesh`` hemisphere."""
    from .._io.meshes import MESH_SIZES

    vals = np.asarray(values, dtype=float).ravel()
    n = MESH_SIZES.get(mesh)
    if n is None or vals.size != n:
        raise DimensionError(
            f"{name} must hold one value per vertex of one {mesh} hemisphere "
            f"({n if n else 'unknown mesh'}); got {vals.size:,}.")
    return vals


def _draw_on_mesh(ax, vals, mesh, hemi, view, norm, cm, threshold):
    """One hemisphere's values on its inflated mesh; uncoloured faces show the bare surface."""
    from .._io.meshes import mesh_surface
    from ._surface import _draw_hemisphere

    xyz, faces = mesh_surface(mesh, "inflated", hemi)
    fin = np.isfinite(vals)[faces]  # a face's colour: the mean of its vertices with data
    with np.errstate(invalid="ignore", divide="ignore"):
        fv = np.where(fin, np.nan_to_num(vals)[faces], 0.0).sum(1) / fin.sum(1)
    _draw_hemisphere(ax, xyz, faces, None, _rgba(fv, norm, cm, threshold, 0.0), view, hemi)


def _draw_points(ax, vals, positions, norm, cm, threshold, name, size):
    """Values at free 2-D positions (a flat map, a TDANN-style sheet)."""
    pos = np.asarray(positions, dtype=float)
    if pos.ndim != 2 or pos.shape[0] != vals.size or pos.shape[1] < 2:
        raise DimensionError(
            f"{name} must be (n, 2+) for its {vals.size:,} values; got {pos.shape}.")
    ax.scatter(pos[:, 0], pos[:, 1], c=_rgba(vals, norm, cm, threshold, _UNCOLOURED),
               s=size, linewidths=0, rasterized=True)
    ax.set_aspect("equal")
    ax.tick_params(labelsize=7)


def _draw_grid(ax, sheet, norm, cm, threshold):
    ax.imshow(_rgba(sheet, norm, cm, threshold, _UNCOLOURED), origin="upper",
              interpolation="nearest")
    ax.set_xticks([])
    ax.set_yticks([])


def _model_map(model, model_positions, model_grid_shape):
    """The model's values as a grid ``(h, w)`` or, with ``model_positions``, flat."""
    values = np.asarray(model, dtype=float)
    if model_positions is not None:
        return values.ravel()
    if model_grid_shape is not None:
        shape = tuple(int(s) for s in model_grid_shape)
        if len(shape) != 2 or values.size != shape[0] * shape[1]:
            raise DimensionError(
                f"model_grid_shape {model_grid_shape!r} does not hold the model's "
                f"{values.size:,} values; give the sheet's (rows, cols).")
        return values.reshape(shape)
    if values.ndim != 2:
        raise DimensionError(
            f"model must be a 2-D sheet map (rows, cols); got shape {values.shape}. Use "
            "selectivity.topo.map(layer), or give model_grid_shape (row-major grid values) or "
            "model_positions (units at free positions).")
    return values


@fill_doc
@validate_params(dict(_ON_MESH, threshold=_SELECTIVITY_THRESHOLD,
                      cortex_threshold=_SELECTIVITY_THRESHOLD, model_title=LABEL,
                      cortex_title=LABEL))
def plot_model_cortex_maps(
    model,
    cortex,
    *,
    threshold: float | None = 2.0,
    cortex_threshold: float | None = None,
    mesh: str = "fsaverage5",
    hemi: str = "left",
    view: str = "lateral",
    cortex_positions=None,
    model_positions=None,
    model_grid_shape: tuple[int, int] | None = None,
    model_units: str = "sheet units",
    cmap: str = "RdBu_r",
    robust: float = 99.0,
    colorbar_label: str = "t",
    model_title: str = "model sheet",
    cortex_title: str = "cortex",
    title: str | None = None,
    ax=None,
):
    """Draw a model's map beside a cortical map, with one colour logic for both.

    The same diverging colour map centred at 0, the same limits (symmetric, the ``robust``
    percentile of ``|value|`` over both maps together, so a t of 4 has one colour on both),
    and the same ``threshold`` (``|value| < threshold`` uncoloured on both: grey on a sheet
    or a flat map, the bare surface on a mesh). No-data points (NaN, a medial wall) are
    uncoloured too. A cortex map with another threshold (``cortex_threshold``) is drawn
    scaled so its threshold has the colour of the model's. A 0/1 cortex map (parcels, an
    ROI) has threshold 0.5 unless told: inside coloured as selective, outside uncoloured.

    Parameters
    ----------
    model : array
        The model's map: a sheet ``(h, w)`` (e.g. ``selectivity.topo.map(layer)``), or flat
        values with ``model_grid_shape`` (row-major) or ``model_positions``.
    cortex : array
        One value per vertex: of one hemisphere of ``mesh``, or at ``cortex_positions``.
    threshold : float, optional
        The model's selectivity threshold: ``|value| < threshold`` uncoloured on both sides
        (None: nothing uncoloured but no data).
    cortex_threshold : float, optional
        The cortex map's threshold, where it is not ``threshold`` (default ``threshold``;
        0.5 for a 0/1 map).
    mesh : {"fsaverage5", "fs_LR_32k"}
        The cortex map's mesh (drawn on its inflated surface) when ``cortex_positions`` is
        not given.
    hemi : {"left", "right"}
        The cortex map's hemisphere on ``mesh``.
    view : {"lateral", "medial", "ventral", "dorsal"}
        The view of the hemisphere on ``mesh``.
    cortex_positions : array (n_vertices, >= 2), optional
        Where to draw the cortex's vertices instead (its flat map, mm).
    model_positions : array (n_units, 2), optional
        Free positions of the model's units (TDANN-style).
    model_grid_shape : (int, int), optional
        The model's sheet ``(h, w)``, for flat grid values.
    model_units : str
        Unit of ``model_positions`` for the axis labels.
    cmap : str
        Diverging colour map, centred at 0 (default ``"RdBu_r"``).
    robust : float
        Percentile of both maps' ``|value|`` that sets the shared colour limits (default 99).
    colorbar_label : str
        Label of the shared colour bar (default ``"t"``).
    model_title : str
        Title of the model's panel.
    cortex_title : str
        Title of the cortex's panel.
    title : str, optional
        Title of the figure.
    ax : sequence of two matplotlib Axes, optional
        The two panels to draw into (default a new figure).

    %(figure)s

    Examples
    --------
    >>> rr, cc = np.mgrid[:16, :24]
    >>> sheet = 5 * np.exp(-((rr - 8) ** 2 + (cc - 12) ** 2) / 20.0)
    >>> fig = plot_model_cortex_maps(sheet, np.linspace(-4, 4, 10242), mesh="fsaverage5")
    >>> len(fig.axes)  # sheet, cortex, colour bar
    3
    >>> pos = np.random.default_rng(0).random((300, 2)) * 50
    >>> roi = (np.hypot(*(pos - 25).T) < 8).astype(float)  # a 0/1 ROI on a flat map
    >>> fig = plot_model_cortex_maps(sheet.ravel(), roi, model_grid_shape=(16, 24),
    ...                              cortex_positions=pos)
    >>> len(fig.axes)
    3
    """
    from matplotlib.cm import ScalarMappable

    sheet = _model_map(model, model_positions, model_grid_shape)
    if cortex_positions is None:
        vals = _mesh_values(cortex, mesh, "cortex")
    else:
        vals = np.asarray(cortex, dtype=float).ravel()
    fin = vals[np.isfinite(vals)]
    binary = bool(fin.size) and bool(np.isin(fin, (0.0, 1.0)).all())
    if cortex_threshold is None and binary:
        cortex_threshold = 0.5
    scaled = cortex_threshold is not None and cortex_threshold != (threshold or 1.0)
    if scaled:  # the cortex's threshold drawn at the model's
        vals = vals * ((threshold or 1.0) / cortex_threshold)
    norm, cm = _colour_scale([sheet, vals], threshold, cmap, robust)

    fig, (ax_m, ax_c) = model_cortex_axes(
        ax, (9.6, 4.0), layout="constrained",
        gridspec_kw={"width_ratios": [1.0, 1.25 if cortex_positions is None else 1.0]})
    if model_positions is None:
        _draw_grid(ax_m, sheet, norm, cm, threshold)
    else:
        _draw_points(ax_m, sheet, model_positions, norm, cm, threshold, "model_positions",
                     float(np.clip(6000.0 / max(sheet.size, 1), 2, 120)))
        ax_m.set_xlabel(f"x ({model_units})", fontsize=8)
        ax_m.set_ylabel(f"y ({model_units})", fontsize=8)
    ax_m.set_title(model_title, fontsize=10)
    if cortex_positions is None:
        _draw_on_mesh(ax_c, vals, mesh, hemi, view, norm, cm, threshold)
    else:
        _draw_points(ax_c, vals, cortex_positions, norm, cm, threshold, "cortex_positions",
                     float(np.clip(20000.0 / max(vals.size, 1), 1.5, 40)))
        ax_c.set_xlabel("flat-map x (mm)", fontsize=8)
        ax_c.set_ylabel("flat-map y (mm)", fontsize=8)
    if binary:
        cortex_title += "\n(a 0/1 map: inside drawn as selective)"
    ax_c.set_title(cortex_title, fontsize=10)
    label = colorbar_label + (f" (|{colorbar_label}| < {threshold:g} uncoloured)"
                              if threshold is not None else "")
    if scaled:
        label += f"; cortex × {(threshold or 1.0) / cortex_threshold:g}"
    fig.colorbar(ScalarMappable(norm=norm, cmap=cm), ax=[ax_m, ax_c], shrink=0.75,
                 label=label)
    if title:
        fig.suptitle(title, fontsize=11)
    return fig


@fill_doc
@validate_params(_ON_MESH)
def plot_cortex_map(values, *, mesh: str = "fsaverage5", hemi: str = "left",
                    threshold: float | None = 2.0, view: str = "lateral", cmap: str = "RdBu_r",
                    colorbar_label: str = "value", title: str | None = None):
    """Draw one hemisphere's map on its own mesh (fsaverage5 or fs_LR 32k, inflated).

    The colour logic of :func:`plot_model_cortex_maps`, for one map.

    Parameters
    ----------
    values : array
        One value per vertex of one hemisphere of ``mesh`` (NaN: no data, uncoloured).
    mesh : {"fsaverage5", "fs_LR_32k"}
        The mesh the values live on (drawn on its inflated surface).
    hemi : {"left", "right"}
        The hemisphere the values cover.
    threshold : float, optional
        ``|value| < threshold`` uncoloured (None: none).
    view : {"lateral", "medial", "ventral", "dorsal"}
        The view of the hemisphere.
    cmap : str
        Diverging colour map, centred at 0 (default ``"RdBu_r"``).
    colorbar_label : str
        Label of the colour bar (default ``"value"``).
    title : str, optional
        Title of the figure.

    %(figure)s

    Examples
    --------
    >>> fig = plot_cortex_map(np.linspace(-4, 4, 10242), mesh="fsaverage5")
    >>> len(fig.axes)  # the hemisphere and its colour bar
    2
    """
    from matplotlib.cm import ScalarMappable

    vals = _mesh_values(values, mesh, "values")
    norm, cm = _colour_scale([vals], threshold, cmap)
    fig, ax = require_matplotlib().subplots(1, 1, figsize=(5.6, 3.9))
    _draw_on_mesh(ax, vals, mesh, hemi, view, norm, cm, threshold)
    ax.set_title(f"{hemi} hemisphere, {mesh} (inflated)", fontsize=10)
    label = colorbar_label + (f" (|value| < {threshold:g} uncoloured)"
                              if threshold is not None else "")
    fig.colorbar(ScalarMappable(norm=norm, cmap=cm), ax=ax, shrink=0.75, label=label)
    if title:
        fig.suptitle(title, fontsize=11)
    return fig
