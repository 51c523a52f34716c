"""A model's map and the cortex's map side by side, on one colour logic."""

from __future__ import annotations

from numbers import Real

import numpy as np

from .._docs import fill_doc
from .._params import Interval, Options, validate_params
from ..exceptions import DimensionError, UnknownNameError
from ._common import LABEL, TITLE, require_matplotlib
from ._surface import SURFACE_VIEWS

#: the declared view of one hemisphere on its mesh
_ON_MESH = {
    "hemi": Options(("left", "right"), error=UnknownNameError),
    "view": Options(SURFACE_VIEWS, error=UnknownNameError),
    "threshold": [Interval(Real, 0, None, closed="left"), None],
    "colorbar_label": LABEL,
    "title": TITLE,
}

__all__ = ["plot_model_cortex_maps", "plot_cortex_map"]


def _limit(values, robust: float = 99.0) -> float:
    v = np.abs(np.asarray(values, dtype=float))
    v = v[np.isfinite(v)]
    return float(np.percentile(v, robust)) if v.size else 1.0


@fill_doc
@validate_params({**_ON_MESH, "model_title": LABEL, "cortex_title": LABEL})
def plot_model_cortex_maps(
    model,
    cortex,
    *,
    mesh: str = "fsaverage5",
    hemi: str = "left",
    threshold: float | None = 2.0,
    view: str = "lateral",
    cmap: str = "RdBu_r",
    colorbar_label: str = "t",
    model_title: str = "model sheet",
    cortex_title: str = "cortex",
    title: str | None = None,
):
    """Draw a model's sheet map beside a cortical map, with one colour logic for both.

    The same diverging colour map centred at 0, the same limits (symmetric, the 99th
    percentile of ``|value|`` over both maps together, so a t of 4 has one colour on both),
    and the same ``threshold`` (``|value| < threshold`` uncoloured on both: grey on the sheet,
    the bare surface on the cortex). No-data points (NaN, a medial wall) are uncoloured too.
    A 0/1 cortex map (parcels, an ROI) is drawn as what it is: inside coloured as a value at
    the threshold (selective), outside uncoloured.

    Parameters
    ----------
    model : array (h, w)
        The sheet map (e.g. ``selectivity.topo.map(layer)``).
    cortex : array
        One value per vertex of one hemisphere of ``mesh``.
    mesh : {"fsaverage5", "fs_LR_32k"}
        The cortex map's mesh (drawn on its inflated surface).
    hemi : {"left", "right"}
        The cortex map's hemisphere.
    threshold : float, optional
        Leave values with ``|value| < threshold`` uncoloured on both sides (None: none).
    view : {"lateral", "medial", "ventral", "dorsal"}
        The view of the hemisphere.
    cmap : str
        Diverging colour map, centred at 0 (default ``"RdBu_r"``).
    colorbar_label : str
        Label of the shared colour bar (default ``"t"``).
    model_title : str
        Title of the sheet's panel.
    cortex_title : str
        Title of the cortex's panel.
    title : str, optional
        Title of the figure.

    %(figure)s

    Examples
    --------
    >>> rr, cc = np.mgrid[:16, :24]
    >>> sheet = 5 * np.exp(-((rr - 8) ** 2 + (cc - 12) ** 2) / 20.0)
    >>> fig = plot_model_cortex_maps(sheet, np.linspace(-4, 4, 10242), mesh="fsaverage5")
    >>> len(fig.axes)  # sheet, cortex, colour bar
    3
    """
    plt = require_matplotlib()
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import Normalize

    from .._meshes import MESH_SIZES, mesh_surface
    from ._surface import _draw_hemisphere

    sheet = np.asarray(model, dtype=float)
    if sheet.ndim != 2:
        raise DimensionError(
            f"model must be a 2-D sheet map (rows, cols); got shape {sheet.shape}. Use "
            "selectivity.topo.map(layer).")
    vals = np.asarray(cortex, dtype=float).ravel()
    n = MESH_SIZES.get(mesh)
    if n is None or vals.size != n:
        raise DimensionError(
            f"cortex must hold one value per vertex of one {mesh} hemisphere "
            f"({n if n else 'unknown mesh'}); got {vals.size:,}.")
    fin = vals[np.isfinite(vals)]
    binary = bool(fin.size) and bool(np.isin(fin, (0.0, 1.0)).all())
    lim = max(_limit(sheet), 0.0 if binary else _limit(vals), (threshold or 0) * 1.5, 1e-9)
    if binary:  # a 0/1 map (parcels, an ROI): inside coloured as "at the threshold or above"
        vals = np.where(vals == 1.0, max(threshold or 0.0, lim / 2), np.where(
            np.isfinite(vals), 0.0, np.nan))
    norm, cm = Normalize(-lim, lim), plt.get_cmap(cmap)

    fig, (ax_m, ax_c) = plt.subplots(1, 2, figsize=(9.4, 3.9),
                                     gridspec_kw={"width_ratios": [1.0, 1.25]})
    shown = np.where(np.isfinite(sheet), sheet, np.nan)
    rgba = cm(norm(np.nan_to_num(shown)))
    hide = ~np.isfinite(shown)
    if threshold is not None:
        hide |= np.abs(np.nan_to_num(shown)) < threshold
    rgba[hide] = (0.85, 0.85, 0.85, 1.0)
    ax_m.imshow(rgba, origin="upper", interpolation="nearest")
    ax_m.set_xticks([])
    ax_m.set_yticks([])
    ax_m.set_title(model_title, fontsize=10)

    xyz, faces = mesh_surface(mesh, "inflated", hemi)
    fin = np.isfinite(vals)[faces]  # a face's colour: the mean of its vertices with data
    with np.errstate(invalid="ignore", divide="ignore"):
        fv = np.where(fin, np.nan_to_num(vals)[faces], 0.0).sum(1) / fin.sum(1)
    over = cm(norm(np.nan_to_num(fv)))
    hide = ~np.isfinite(fv)
    if threshold is not None:
        hide |= np.abs(np.nan_to_num(fv)) < threshold
    over[hide] = 0.0
    _draw_hemisphere(ax_c, xyz, faces, None, over, view, hemi)
    label = colorbar_label + (f" (|{colorbar_label}| < {threshold:g} uncoloured)"
                              if threshold is not None else "")
    if binary:
        cortex_title += " (a 0/1 map: inside drawn as selective)"
    ax_c.set_title(cortex_title, fontsize=10)
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
    plt = require_matplotlib()
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import Normalize

    from .._meshes import MESH_SIZES, mesh_surface
    from ._surface import _draw_hemisphere

    vals = np.asarray(values, dtype=float).ravel()
    n = MESH_SIZES.get(mesh)
    if n is None or vals.size != n:
        raise DimensionError(
            f"values must hold one value per vertex of one {mesh} hemisphere "
            f"({n if n else 'unknown mesh'}); got {vals.size:,}.")
    lim = max(_limit(vals), (threshold or 0) * 1.5, 1e-9)
    norm, cm = Normalize(-lim, lim), plt.get_cmap(cmap)
    fig, ax = plt.subplots(1, 1, figsize=(5.6, 3.9))
    xyz, faces = mesh_surface(mesh, "inflated", hemi)
    fin = np.isfinite(vals)[faces]
    with np.errstate(invalid="ignore", divide="ignore"):
        fv = np.where(fin, np.nan_to_num(vals)[faces], 0.0).sum(1) / fin.sum(1)
    over = cm(norm(np.nan_to_num(fv)))
    hide = ~np.isfinite(fv)
    if threshold is not None:
        hide |= np.abs(np.nan_to_num(fv)) < threshold
    over[hide] = 0.0
    _draw_hemisphere(ax, xyz, faces, None, over, view, hemi)
    ax.set_title(f"{hemi} hemisphere, {mesh} (inflated)", fontsize=10)
    label = colorbar_label + (f" (|value| < {threshold:g} uncoloured)"
                              if threshold is not None else "")
    fig.colorbar(ScalarMappable(norm=norm, cmap=cm), ax=ax, shrink=0.75, label=label)
    if title:
        fig.suptitle(title, fontsize=11)
    return fig
