"""Model sheet vs cortex: where the domains sit on each, and the side-by-side table."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .._docs import fill_doc
from ..exceptions import InvalidDataError
from ._common import require_matplotlib
from ._surface import DOMAIN_COLORS

__all__ = ["plot_arrangement", "plot_comparison"]


def _finite(cents: Mapping) -> dict:
    return {k: np.asarray(v, float) for k, v in cents.items()
            if np.isfinite(np.asarray(v, float)).all()}


@fill_doc
def plot_arrangement(
    model_centroids: Mapping,
    cortex_centroids: Mapping,
    *,
    sheet_shape: tuple[int, int] | None = None,
    spearman: float | None = None,
    procrustes: float | None = None,
    model_label: str = "model sheet",
    cortex_label: str = "cortex (flat map)",
    title: str | None = None,
    ax=None,
):
    """Where each region's centroid lies on the model's sheet and on the flat cortex.

    Parameters
    ----------
    model_centroids : mapping name -> (row, col)
        Sheet centroids, e.g. ``compare_tables(...).attrs["model_centroids"]``; NaN
        centroids (no patch) are left out.
    cortex_centroids : mapping name -> (x, y[, z])
        Flat-map centroids in mm (the first two coordinates are drawn).
    sheet_shape : (int, int), optional
        ``(rows, cols)`` of the sheet: drawn as a grey frame, and the axes span it.
    spearman, procrustes : float, optional
        Arrangement statistics for the title (:func:`toponeuro.analysis.arrangement_similarity`).
    model_label, cortex_label, title : str
    ax : sequence of two matplotlib Axes, optional
        Draw into these (model, cortex); by default a new 1 x 2 figure.

    %(figure)s

    Examples
    --------
    >>> fig = plot_arrangement({"faces": (3, 4), "bodies": (10, 12)},
    ...                        {"faces": (-30.0, 10.0), "bodies": (-20.0, 25.0)},
    ...                        sheet_shape=(16, 16), spearman=1.0)
    >>> len(fig.axes)
    2
    """
    plt = require_matplotlib()
    if ax is None:
        fig, axes = plt.subplots(1, 2, figsize=(8.6, 3.8))
    else:
        axes = list(ax)
        if len(axes) != 2:
            raise InvalidDataError(f"ax= needs two axes (model, cortex); got {len(axes)}.")
        fig = axes[0].figure
    mc, cc = _finite(model_centroids), _finite(cortex_centroids)
    for axis, cents, label, is_sheet in ((axes[0], mc, model_label, True),
                                         (axes[1], cc, cortex_label, False)):
        for name, c in cents.items():
            x, y = (c[1], c[0]) if is_sheet else (c[0], c[1])
            axis.scatter([x], [y], s=120, color=DOMAIN_COLORS.get(name, "k"), edgecolor="k",
                         zorder=3)
            axis.annotate(name, (x, y), textcoords="offset points", xytext=(7, 5), fontsize=9)
        axis.set_title(label, fontsize=10)
        axis.margins(0.2)
        axis.set_aspect("equal")
    if sheet_shape is not None:
        h, w = sheet_shape
        axes[0].add_patch(plt.Rectangle((-0.5, -0.5), w, h, fill=False, ec="0.6", lw=1))
        axes[0].set_xlim(-1, w)
        axes[0].set_ylim(h, -1)
        axes[0].set_xlabel(f"sheet column (the grey frame is the whole {h}×{w} sheet)")
    else:
        axes[0].invert_yaxis()
        axes[0].set_xlabel("sheet column")
    axes[0].set_ylabel("sheet row")
    if cc:
        pts = np.array([c[:2] for c in cc.values()])
        mid = (pts.max(0) + pts.min(0)) / 2
        half = 0.65 * max(np.ptp(pts[:, 0]), np.ptp(pts[:, 1])) + 8
        axes[1].set_xlim(mid[0] - half, mid[0] + half)
        axes[1].set_ylim(mid[1] - half, mid[1] + half)
    axes[1].set_xlabel("flat-map x (mm)")
    axes[1].set_ylabel("flat-map y (mm)")
    if title is None:
        n = len(set(mc) & set(cc))
        stats = []
        if spearman is not None:
            stats.append("Spearman ρ of pairwise distances = "
                         + ("n/a" if not np.isfinite(spearman) else f"{spearman:.2f}"))
        if procrustes is not None:
            stats.append("Procrustes disparity = "
                         + ("n/a" if not np.isfinite(procrustes) else f"{procrustes:.2f}"))
        title = (f"Centroids of each domain's largest patch ({n} domains on both sides)"
                 + (": " + ", ".join(stats) if stats else ""))
    fig.suptitle(title, fontsize=10)
    if ax is None:
        fig.tight_layout()
    return fig


@fill_doc
def plot_comparison(table, *, title: str | None = None, ax=None):
    """A labelled table (rows x columns of text or numbers) drawn as a figure.

    Made for the main job's model-vs-cortex view (rows ``metric · domain``, one column for
    the model and one per hemisphere), but any small DataFrame works.

    Parameters
    ----------
    table : pandas.DataFrame
        Cells to show; the index labels the rows and the columns the columns.
    title : str, optional
    ax : matplotlib Axes, optional

    %(figure)s

    Examples
    --------
    >>> import pandas as pd
    >>> view = pd.DataFrame({"model": ["0.21"], "cortex": ["0.51"]}, index=["smoothness"])
    >>> fig = plot_comparison(view, title="model vs cortex")
    >>> fig.axes[0].get_title()
    'model vs cortex'
    """
    plt = require_matplotlib()
    if not len(table):
        raise InvalidDataError("plot_comparison needs a table with at least one row.")
    if ax is None:
        fig, ax = plt.subplots(figsize=(8.4, 0.25 * len(table) + 1.0))
    else:
        fig = ax.figure
    ax.axis("off")
    tab = ax.table(cellText=np.asarray(table.to_numpy(), dtype=object).astype(str),
                   rowLabels=[str(i) for i in table.index],
                   colLabels=[str(c) for c in table.columns], loc="center", cellLoc="center")
    tab.auto_set_font_size(False)
    tab.set_fontsize(8)
    tab.scale(1, 1.2)
    if title:
        ax.set_title(title, fontsize=10)
    return fig
