"""Maps on the model's cortical sheet."""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence

import numpy as np
import xarray as xr

from .._util import dims as D
from .._util.docs import fill_doc
from .._util.params import Interval, Options, validate_params
from ..exceptions import DimensionError, ParameterError
from ._common import TITLE, figure_and_axes, symmetric_limits

__all__ = ["plot_sheet_map", "outline_mask"]


def outline_mask(ax, mask: np.ndarray, color: str = "k", linewidth: float = 1.2) -> None:
    """Draw the pixel-exact boundary of a boolean ``(rows, cols)`` mask drawn by ``imshow``."""
    from matplotlib.collections import LineCollection

    m = np.pad(np.asarray(mask, dtype=bool), 1)
    segs = []
    # horizontal edges: between rows r-1 and r where the mask changes
    for r, c in zip(*np.nonzero(m[1:, 1:-1] != m[:-1, 1:-1])):
        segs.append([(c - 0.5, r - 0.5), (c + 0.5, r - 0.5)])
    # vertical edges: between cols c-1 and c
    for r, c in zip(*np.nonzero(m[1:-1, 1:] != m[1:-1, :-1])):
        segs.append([(c - 0.5, r - 0.5), (c - 0.5, r + 0.5)])
    if segs:
        ax.add_collection(LineCollection(segs, colors=color, linewidths=linewidth))


def _aspect(pos: np.ndarray) -> float:
    """Width / height of the box around free unit positions."""
    span = np.ptp(pos, axis=0)
    return float(span[0] / span[1]) if span[1] > 0 else 1.0


def _scatter_units(a, pos, vals, cmap, lo, hi, outline, mask, head, units):
    """One panel of units at free positions: a dot per unit coloured by its value, the
    outlined units (at or above a number, or a boolean mask per unit) ringed in black."""
    ring = None
    if mask is not None:
        ring = np.asarray(mask, dtype=bool)
        if ring.shape != vals.shape:
            raise DimensionError(
                f"The outline of {head} must be a boolean mask of its {vals.size} units (it "
                f"sits at free positions); got shape {ring.shape}.")
    elif outline is not None and not isinstance(outline, Mapping):
        ring = np.nan_to_num(vals, nan=-np.inf) >= outline
    size = float(np.clip(12000.0 / max(vals.size, 1), 4, 200))
    im = a.scatter(pos[:, 0], pos[:, 1], c=vals, cmap=cmap, vmin=lo, vmax=hi, s=size,
                   linewidths=0)
    if ring is not None and ring.any():
        a.scatter(pos[ring, 0], pos[ring, 1], s=size, facecolors="none", edgecolors="k",
                  linewidths=0.8)
    a.set_aspect("equal")
    a.set_title(f"{head}\n({vals.size} units at free positions)", fontsize=9)
    a.set_xlabel(f"x ({units or 'position units'})")
    a.set_ylabel(f"y ({units or 'position units'})")
    a.tick_params(labelsize=7)
    return im


@fill_doc
@validate_params({
    "outline_label": TITLE,
    "colorbar_label": TITLE,
    "title": TITLE,
    "ncols": [Interval(numbers.Integral, 1, None, closed="left"), None],
    "scale": Options(("shared", "layer")),
})
def plot_sheet_map(
    values: xr.DataArray,
    layers: str | Sequence[str] | None = None,
    *,
    facet: str | None = None,
    outline: float | Mapping | None = None,
    outline_label: str | None = None,
    cmap: str = "RdBu_r",
    center: float | None = 0.0,
    vmin: float | None = None,
    vmax: float | None = None,
    colorbar_label: str | None = None,
    title: str | None = None,
    ncols: int | None = None,
    scale: str = "shared",
    robust: float | None = None,
    ax=None,
):
    """Draw per-unit values on each layer's cortical sheet, one panel per layer (× facet).

    Parameters
    ----------
    values : xarray.DataArray
        Per-unit values with dim ``"unit"`` and the unit coords ``layer``, ``row``, ``col``
        (a selectivity map, for example). At most one more dim, drawn as rows of panels.
        A layer whose units carry free positions (``pos_x``, ``pos_y``;
        :func:`toponeuro.set_unit_positions`) is drawn as a scatter of its units at their
        positions (an outline mask is then one boolean per unit).
    layers : str or list of str, optional
        Layers to draw (default: all, in order).
    facet : str, optional
        The extra dim to draw as rows (found automatically when there is exactly one).
    outline : float or mapping, optional
        A number: outline the units at or above it with a black contour. A mapping: the
        regions to outline, ``layer -> boolean (rows, cols) mask`` (with a facet
        ``(facet value, layer) -> mask``), e.g. the patches a table counts
        (:meth:`toponeuro.analysis.Patches.label_grid` ``> 0``), so the figure outlines
        exactly what is counted.
    outline_label : str, optional
        What the outlines are, for the colour bar's label (default ``"outlined: ≥ value"``
        for a number, ``"outlined: the given regions"`` for masks).
    %(colour_scale)s
    colorbar_label : str, optional
        Defaults to the DataArray's name.
    title : str, optional
        The title (defaults used when omitted).
    ncols : int, optional
        Without a facet, wrap the layers into rows of at most ``ncols`` panels (default: one
        row).
    scale : {"shared", "layer"}
        One colour scale for every panel with one colour bar (default), or one per layer
        (column), each with its own colour bar under the column: layers whose values differ
        in range (deeper layers' t often reach further) then each use the whole colour map.
    robust : float, optional
        Percentile of ``|value - center|`` (e.g. 99) that sets the colour limits instead of
        the largest value, so a few extreme units do not wash out the rest; values beyond
        are drawn in the end colours. Ignored where ``vmin``/``vmax`` are given.
    ax : matplotlib Axes, optional
        Draw a single panel into this axes.

    %(figure)s

    Examples
    --------
    >>> import toponeuro
    >>> acts = toponeuro.make_activations({"conv": 64, "fc": 32}, n_stimuli=4, random_state=0)
    >>> fig = plot_sheet_map(acts.mean("stimulus").rename("mean response"))
    >>> len(fig.axes)  # two panels and one shared colour bar
    3
    >>> acts = toponeuro.make_activations({f"l{i}": 16 for i in range(5)}, n_stimuli=2)
    >>> fig = plot_sheet_map(acts.mean("stimulus"), ncols=3)  # 2 x 3 grid, one left empty
    >>> sum(a.get_visible() for a in fig.axes)  # five panels and the colour bar
    6
    >>> fig = plot_sheet_map(acts.mean("stimulus"), scale="layer", robust=99)
    >>> len(fig.axes)  # five panels, five colour bars
    10

    Units at free positions (TDANN-style) are drawn where they sit:

    >>> free = acts.topo.with_positions({"l0": np.random.default_rng(0).random((16, 2))})
    >>> fig = plot_sheet_map(free.mean("stimulus"), layers="l0", outline=0.5)
    >>> fig.axes[0].get_xlabel()
    'x (mm)'
    """
    if D.UNIT not in values.dims:
        raise DimensionError(
            f"plot_sheet_map needs per-unit values (a 'unit' dim); got dims {values.dims}. "
            "Reduce over stimuli first, e.g. acts.mean('stimulus')."
        )
    layers = values.topo.layers if layers is None else [layers] if isinstance(layers, str) else list(layers)
    extra = [d for d in values.dims if d != D.UNIT]
    if facet is None and len(extra) == 1:
        facet = extra[0]
    if len(extra) > (1 if facet else 0):
        raise DimensionError(
            f"plot_sheet_map draws one extra dim as rows of panels; got extra dims {extra}. "
            "Select or reduce the others first."
        )
    facet_vals = list(values[facet].values) if facet else [None]
    maps = {}
    # layers whose units sit at free positions: drawn as a scatter of the units
    free = {ly: values.topo.free_positions(ly) for ly in layers}
    free = {ly: pos for ly, pos in free.items() if pos is not None}
    for fv in facet_vals:
        sub = values.sel({facet: fv}) if facet else values
        for layer in layers:
            maps[fv, layer] = (sub.topo.select(layer) if layer in free
                               else sub.topo.map(layer, reduce="mean"))

    def limits(vals):
        return symmetric_limits(vals, vmin, vmax, center, robust)

    per_layer = {ly: limits(np.concatenate([maps[fv, ly].values.ravel() for fv in facet_vals]))
                 for ly in layers}
    shared = limits(np.concatenate([m.values.ravel() for m in maps.values()]))
    if ncols is not None and int(ncols) < 1:
        raise ParameterError(f"ncols must be a positive number of panels per row; got {ncols!r}.")
    wrap = facet is None and ncols is not None and len(layers) > int(ncols)
    if wrap:
        ncols = int(ncols)
        nrows = -(-len(layers) // ncols)
        cells = [(None, layer, k // ncols, k % ncols) for k, layer in enumerate(layers)]
    else:
        nrows, ncols = len(facet_vals), len(layers)
        cells = [
            (fv, layer, i, j)
            for i, fv in enumerate(facet_vals)
            for j, layer in enumerate(layers)
        ]
    kw = {}
    if ax is None:
        kw["layout"] = "constrained"
        if not wrap:  # columns as wide as their sheets, so the panels line up
            widths = [_aspect(free[ly]) if ly in free else
                      maps[facet_vals[0], ly].shape[1] / maps[facet_vals[0], ly].shape[0]
                      for ly in layers]
            kw["gridspec_kw"] = {"width_ratios": widths}
    fig, axes = figure_and_axes(ax, nrows, ncols, **kw)
    im, ims = None, {}

    def head_of(fv, layer):
        return layer if fv is None else f"{fv} · {layer}"

    for fv, layer, i, j in cells:
        a = axes[i, j]
        m = maps[fv, layer].values
        lo, hi = per_layer[layer] if scale == "layer" else shared
        if layer in free:
            im = _scatter_units(a, free[layer], m, cmap, lo, hi, outline,
                                outline.get(layer if fv is None else (fv, layer))
                                if isinstance(outline, Mapping) else None,
                                head_of(fv, layer), values.topo.position_units)
            ims.setdefault(layer, (im, []))[1].append(a)
            continue
        im = a.imshow(m, cmap=cmap, vmin=lo, vmax=hi, interpolation="nearest")
        ims.setdefault(layer, (im, []))[1].append(a)
        if isinstance(outline, Mapping):
            mask = outline.get(layer if fv is None else (fv, layer))
            if mask is not None:
                mask = np.asarray(mask, dtype=bool)
                if mask.shape != m.shape:
                    raise DimensionError(
                        f"The outline of {head_of(fv, layer)} must be a {m.shape} mask like "
                        f"its sheet; got {mask.shape}. Pass the patches' label_grid() > 0.")
                outline_mask(a, mask)
        elif outline is not None:
            outline_mask(a, np.nan_to_num(m, nan=-np.inf) >= outline)
        h, w = m.shape
        head = head_of(fv, layer)
        a.set_title(f"{head}\n({h}×{w} units)", fontsize=9)
        a.set_xticks([])
        a.set_yticks([])
        if j == 0:
            a.set_ylabel("sheet row ↓" if fv is None else f"{fv}\nsheet row ↓")
        if i == nrows - 1 or (wrap and (i + 1) * ncols + j >= len(layers)):
            a.set_xlabel("sheet column →")
    for k in range(len(cells), nrows * ncols):  # empty cells of a wrapped grid
        axes[k // ncols, k % ncols].set_visible(False)
    axes = np.array([axes[i, j] for _, _, i, j in cells])
    label = colorbar_label or (values.name if values.name else "value")
    if outline_label is not None:
        label += f"  ({outline_label})"
    elif isinstance(outline, Mapping):
        label += "  (outlined: the given regions)"
    elif outline is not None:
        label += f"  (outlined: ≥ {outline:g})"
    if scale == "layer":
        for im_l, axs in ims.values():
            fig.colorbar(im_l, ax=axs, orientation="horizontal", shrink=0.9, aspect=25,
                         label="t" if len(ims) > 1 else label)
        if len(ims) > 1:
            fig.text(0.5, -0.01, label + "; each column has its own colour scale",
                     ha="center", va="top", fontsize=9)
    else:
        fig.colorbar(im, ax=axes.ravel().tolist(), shrink=0.85, label=label)
    if title:
        fig.suptitle(title)
    return fig
