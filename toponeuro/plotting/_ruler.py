"""The model's map beside the cortex's, on one colour logic (issue 43's comparison figure)."""

from __future__ import annotations

import numpy as np

from .._docs import fill_doc
from .._params import validate_params
from ..exceptions import DimensionError
from ._common import LABEL, TITLE, require_matplotlib

__all__ = ["plot_model_and_cortex"]


def _draw(ax, values, positions, grid_shape, cmap, lim, title, xlabel, ylabel, size):
    scaled = np.asarray(values, float)
    if grid_shape is not None:
        im = ax.imshow(scaled.reshape(grid_shape), cmap=cmap, vmin=-lim, vmax=lim,
                       interpolation="nearest")
        sel = np.nan_to_num(scaled.reshape(grid_shape), nan=-np.inf) >= 1
        if sel.any():
            ax.contour(sel.astype(float), levels=[0.5], colors="k", linewidths=0.9)
        ax.set_xticks([])
        ax.set_yticks([])
    else:
        pos = np.asarray(positions, float)
        if pos.ndim != 2 or pos.shape[0] != scaled.size:
            raise DimensionError(
                f"{title}: positions must be (n, 2+) for its {scaled.size} values; got "
                f"{pos.shape}.")
        ok = np.isfinite(scaled)
        ax.set_facecolor("0.8")  # points at 0 are white: they show against grey; no data: grey
        im = ax.scatter(pos[ok, 0], pos[ok, 1], c=scaled[ok], cmap=cmap, vmin=-lim, vmax=lim,
                        s=size, linewidths=0, rasterized=True)
        ring = ok & (np.nan_to_num(scaled, nan=-np.inf) >= 1)
        if ring.any():
            ax.scatter(pos[ring, 0], pos[ring, 1], s=size * 2.5, facecolors="none",
                       edgecolors="k", linewidths=0.3, rasterized=True)
        ax.set_aspect("equal")
        ax.tick_params(labelsize=7)
    ax.set_title(title, fontsize=9)
    ax.set_xlabel(xlabel, fontsize=8)
    ax.set_ylabel(ylabel, fontsize=8)
    return im


@fill_doc
@validate_params({"model_units": LABEL, "model_title": LABEL, "cortex_title": LABEL,
                  "title": TITLE})
def plot_model_and_cortex(
    model_values,
    cortex_values,
    *,
    model_threshold: float,
    cortex_threshold: float,
    cortex_positions,
    model_positions=None,
    model_grid_shape: tuple[int, int] | None = None,
    model_units: str = "sheet units",
    model_title: str = "model",
    cortex_title: str = "cortex",
    title: str | None = None,
    cmap: str = "RdBu_r",
    robust: float = 99.0,
    ax=None,
):
    """The model's map and the cortex's map side by side, on one colour logic.

    Each map is divided by its own selectivity threshold (the model's t threshold, the
    cortex map's: 0.5 for a 0/1 ROI), so on both panels 0 is white, 1 is the threshold
    (points at or above it are outlined in black: the selective area the ruler's
    descriptors measure) and one colour scale (``robust`` percentile of both maps'
    ``|value / threshold|``) and one colour bar serve both.

    Parameters
    ----------
    model_values : array
        The model's map: ``(h * w,)`` grid values (row-major, with ``model_grid_shape``) or
        one value per unit at ``model_positions``.
    cortex_values : array (n_vertices,)
        The cortex's map (NaN: no data).
    model_threshold, cortex_threshold : float
        Each side's selectivity threshold (> 0).
    cortex_positions : array (n_vertices, >= 2)
        Where to draw the cortex's vertices (its flat map, mm).
    model_positions : array (n_units, 2), optional
        Free positions of the model's units (TDANN-style); else ``model_grid_shape``.
    model_grid_shape : (int, int), optional
        The model's sheet ``(h, w)``, for grid values.
    model_units : str
        Unit of ``model_positions`` for the axis labels.
    model_title : str
        Title of the model's panel.
    cortex_title : str
        Title of the cortex's panel.
    title : str, optional
        Title of the figure.
    cmap : str
        Colour map; diverging ``"RdBu_r"`` by default, white at 0.
    robust : float
        Percentile of both maps' ``|value / threshold|`` that sets the shared colour limits
        (default 99).
    ax : sequence of two matplotlib Axes, optional
        The two panels to draw into (default a new figure).

    %(figure)s

    Examples
    --------
    >>> rr, cc = np.mgrid[:12, :12]
    >>> sheet = 4 * np.exp(-((rr - 3) ** 2 + (cc - 8) ** 2) / 8.0)
    >>> pos = np.random.default_rng(0).random((300, 2)) * 50
    >>> roi = (np.hypot(*(pos - 25).T) < 8).astype(float)
    >>> fig = plot_model_and_cortex(sheet.ravel(), roi, model_threshold=2.0,
    ...                             cortex_threshold=0.5, cortex_positions=pos,
    ...                             model_grid_shape=(12, 12))
    >>> len(fig.axes)  # two panels and one colour bar
    3
    """
    for name, thr in (("model_threshold", model_threshold),
                      ("cortex_threshold", cortex_threshold)):
        if not (np.isfinite(thr) and thr > 0):
            from ..exceptions import ParameterError

            raise ParameterError(f"{name} must be a number > 0 (the map's selectivity "
                                 f"threshold); got {thr!r}.")
    m = np.asarray(model_values, float) / float(model_threshold)
    c = np.asarray(cortex_values, float) / float(cortex_threshold)
    both = np.abs(np.concatenate([m[np.isfinite(m)], c[np.isfinite(c)]]))
    lim = float(np.percentile(both, robust)) if both.size else 1.0
    lim = max(lim, 1.0)
    if ax is None:
        fig, axes = require_matplotlib().subplots(1, 2, figsize=(10.0, 4.2),
                                                  layout="constrained")
    else:
        axes = list(ax)
        if len(axes) != 2:
            raise DimensionError(f"ax= needs two axes (model, cortex); got {len(axes)}.")
        fig = axes[0].figure
    if model_positions is None and model_grid_shape is None:
        raise DimensionError("Give model_grid_shape (a grid sheet) or model_positions (units "
                             "at free positions) to place the model's values.")
    im = _draw(axes[0], m, model_positions, model_grid_shape if model_positions is None
               else None, cmap, lim, model_title,
               "sheet column →" if model_positions is None else f"x ({model_units})",
               "sheet row ↓" if model_positions is None else f"y ({model_units})",
               float(np.clip(6000.0 / max(m.size, 1), 2, 120)))
    _draw(axes[1], c, cortex_positions, None, cmap, lim, cortex_title, "flat-map x (mm)",
          "flat-map y (mm)", float(np.clip(20000.0 / max(c.size, 1), 1.5, 40)))
    fig.colorbar(im, ax=list(axes), shrink=0.85,
                 label="value / its selectivity threshold (outlined: ≥ 1)")
    if title:
        fig.suptitle(title, fontsize=10)
    return fig
