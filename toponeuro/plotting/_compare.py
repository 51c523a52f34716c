"""Model sheet vs cortex: where the domains sit on each, and the side-by-side table."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .._util.docs import fill_doc
from .._util.params import ALPHA, N_PERMUTATIONS, Text, validate_params
from ..exceptions import InvalidDataError
from ._common import LABEL, TITLE, model_cortex_axes, require_matplotlib
from ._surface import DOMAIN_COLORS

__all__ = ["plot_arrangement", "plot_arrangement_by_layer", "plot_comparison", "plot_domain_arrangement"]


def _finite(cents: Mapping) -> dict:
    return {k: np.asarray(v, float) for k, v in cents.items()
            if np.isfinite(np.asarray(v, float)).all()}


@fill_doc
def _frame_sheet(axis, sheet_shape) -> None:
    """Sheet axes in image orientation (row 0 on top); a grey frame for the whole sheet if known."""
    if sheet_shape is not None:
        h, w = sheet_shape
        plt = require_matplotlib()
        axis.add_patch(plt.Rectangle((-0.5, -0.5), w, h, fill=False, ec="0.6", lw=1))
        axis.set_xlim(-1, w)
        axis.set_ylim(h, -1)
        axis.set_xlabel(f"sheet column (the grey frame is the whole {h}×{w} sheet)")
    else:
        axis.invert_yaxis()
        axis.set_xlabel("sheet column")
    axis.set_ylabel("sheet row")


@fill_doc
@validate_params({"model_label": LABEL, "cortex_label": LABEL, "title": TITLE})
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
        The model's label, the cortex's label and the title.
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
    fig, axes = model_cortex_axes(ax, (8.6, 3.8))
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
    _frame_sheet(axes[0], sheet_shape)
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
@validate_params({"title": TITLE})
def plot_comparison(table, *, title: str | None = None, ax=None):
    """A labelled table (rows x columns of text or numbers) drawn as a figure.

    Made for the main job's model-vs-cortex view (rows ``metric · domain``, one column for
    the model and one per hemisphere), but any small DataFrame works.

    Parameters
    ----------
    table : pandas.DataFrame
        Cells to show; the index labels the rows and the columns the columns.
    title : str, optional
        The title (defaults used when omitted).
    %(ax_panel)s

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


def _p_text(p) -> str:
    return "n/a" if p is None or not np.isfinite(p) else f"{p:.3f}"


@fill_doc
@validate_params({"model_label": LABEL, "cortex_label": LABEL, "title": TITLE,
                  "p_text": [Text(empty=True), None]})
def plot_domain_arrangement(
    arrangement: Mapping,
    *,
    sheet_shape: tuple[int, int] | None = None,
    cortex_positions=None,
    model_label: str = "model sheet",
    cortex_label: str = "cortex",
    title: str | None = None,
    p_text: str | None = None,
    ax=None,
    model_positions=None,
):
    """One model-vs-cortex arrangement: the domain centres on each side and their distances.

    Three panels: the centres on the sheet, the centres on the cortex (its flat map), and
    each pair's centre distance on the sheet against that on the cortex, with Spearman's ρ
    and both nulls' p-values in the title.

    Parameters
    ----------
    arrangement : mapping
        A :func:`toponeuro.analysis.arrangement_comparison` result (or
        ``compare_tables(...).attrs["arrangement"]``).
    sheet_shape : (int, int), optional
        ``(rows, cols)`` of the sheet, drawn as a grey frame.
    cortex_positions : array (n_vertices, >= 2), optional
        Where to draw the cortex's centres (e.g. the fsaverage5 flat map of the hemisphere):
        its rows are indexed by the centres' vertex indices. Without it, cortex centres that
        are coordinates are drawn as they are.
    model_label, cortex_label, title : str
        The model's label, the cortex's label and the title.
    p_text : str, optional
        The test's p in words (e.g. the summary's ``p_text``, written by
        :func:`toponeuro.analysis.format_p`); default the p-values as numbers.
    ax : sequence of three matplotlib Axes, optional
        Draw into these; by default into a new 1 x 3 figure.
    model_positions : array (n_units, 2), optional
        Free ``(x, y)`` positions of the model's units (TDANN-style layers, whose centres
        are unit indices): the centres are drawn there.

    %(figure)s

    Examples
    --------
    >>> arr = {"domains": ["faces", "bodies", "places"], "pairs": ["faces-bodies",
    ...        "faces-places", "bodies-places"], "model_centres": {"faces": [2, 3],
    ...        "bodies": [9, 4], "places": [7, 12]}, "cortex_centres": {"faces": [0, 0],
    ...        "bodies": [10, 3], "places": [4, 20]}, "model_distances": [7.1, 10.3, 8.2],
    ...        "cortex_distances": [10.4, 20.4, 18.8], "spearman": 0.5, "p_shift": 0.4,
    ...        "p_spin": float("nan"), "n_pairs": 3}
    >>> fig = plot_domain_arrangement(arr, sheet_shape=(16, 16))
    >>> len(fig.axes)
    3
    """
    plt = require_matplotlib()
    if ax is None:
        fig, axes = plt.subplots(1, 3, figsize=(12.0, 3.9), layout="constrained")
    else:
        axes = list(ax)
        if len(axes) != 3:
            raise InvalidDataError(f"ax= needs three axes; got {len(axes)}.")
        fig = axes[0].figure
    names = list(arrangement.get("domains", []))

    def where(c, is_sheet):
        c = np.asarray(c, float)
        if not is_sheet and c.ndim == 0 and cortex_positions is not None:
            c = np.asarray(cortex_positions, float)[int(c)]
        if is_sheet and c.ndim == 0 and model_positions is not None:  # a unit index
            c = np.asarray(model_positions, float)[int(c)]
            return c[0], c[1]
        return (c[1], c[0]) if is_sheet else (c[0], c[1])

    for axis, key, label, is_sheet in ((axes[0], "model_centres", model_label, True),
                                       (axes[1], "cortex_centres", cortex_label, False)):
        cents = arrangement.get(key, {})
        for name in names:
            if name not in cents:
                continue
            x, y = where(cents[name], is_sheet)
            axis.scatter([x], [y], s=110, color=DOMAIN_COLORS.get(name, "k"), edgecolor="k",
                         zorder=3)
            axis.annotate(name, (x, y), textcoords="offset points", xytext=(7, 5), fontsize=9)
        axis.set_title(label, fontsize=10)
        axis.set_aspect("equal")
        axis.margins(0.25)
    _frame_sheet(axes[0], sheet_shape)
    if cortex_positions is not None:
        pos = np.asarray(cortex_positions, float)
        axes[1].scatter(pos[::3, 0], pos[::3, 1], s=0.3, color="0.85", zorder=1,
                        rasterized=True)
    axes[1].set_xlabel("flat-map x (mm)")
    axes[1].set_ylabel("flat-map y (mm)")
    dm = np.asarray(arrangement.get("model_distances", []), float)
    dc = np.asarray(arrangement.get("cortex_distances", []), float)
    axes[2].scatter(dm, dc, s=40, color="0.3", zorder=3)
    for pair, x, y in zip(arrangement.get("pairs", []), dm, dc):
        axes[2].annotate(pair.replace("-", "–"), (x, y), textcoords="offset points",
                         xytext=(5, 3), fontsize=8)
    axes[2].set_xlabel("distance between centres on the sheet (units)")
    axes[2].set_ylabel("geodesic distance on the cortex (mm)")
    axes[2].margins(0.2)
    rho = arrangement.get("spearman", np.nan)
    if p_text is None:
        p_text = (f"p = {_p_text(arrangement.get('p_value'))} (the larger of sheet shift "
                  f"{_p_text(arrangement.get('p_shift'))}, spin "
                  f"{_p_text(arrangement.get('p_spin'))})")
    else:  # the summary's text, cut before its list of nulls to fit a title
        p_text = p_text.split(" (one-sided")[0] + " (one-sided, the larger of two nulls)"
    axes[2].set_title(
        f"Spearman ρ = {'n/a' if not np.isfinite(rho) else f'{rho:+.2f}'} over "
        f"{arrangement.get('n_pairs', len(dm))} pairs of centres\n{p_text}",
        fontsize=9)
    if title:
        fig.suptitle(title, fontsize=11)
    return fig


@fill_doc
@validate_params({"alpha": ALPHA, "title": TITLE, "n_permutations": [N_PERMUTATIONS, None]})
def plot_arrangement_by_layer(results: Mapping, *, alpha: float = 0.05, headline=None,
                              title: str | None = None, n_permutations: int | None = None,
                              ax=None):
    """Spearman ρ of the domain arrangement for every layer and hemisphere, with its nulls.

    Parameters
    ----------
    results : mapping (layer, hemisphere) -> arrangement result
        :func:`toponeuro.analysis.arrangement_comparison` results.
    %(alpha)s
        Here: filled markers ``p_value <= alpha`` (both nulls beaten); open: not.
    headline : str, optional
        The layer named in the report's headline, marked on the axis.
    title : str, optional
        The title (defaults used when omitted).
    n_permutations : int, optional
        Draws of the nulls: p-values at their floor are then written as
        :func:`toponeuro.analysis.format_p` writes them (``p < 0.001``).
    %(ax_panel)s

    %(figure)s

    Examples
    --------
    >>> res = {("l1", "left"): {"spearman": 0.2, "p_value": 0.3, "null_shift_mean": 0.0,
    ...                         "null_shift_std": 0.3, "n_pairs": 6},
    ...        ("l2", "left"): {"spearman": 0.9, "p_value": 0.01, "null_shift_mean": 0.0,
    ...                         "null_shift_std": 0.3, "n_pairs": 6}}
    >>> fig = plot_arrangement_by_layer(res, headline="l2")
    >>> len(fig.axes)
    1
    """
    plt = require_matplotlib()
    layers = list(dict.fromkeys(k[0] for k in results))
    hemis = list(dict.fromkeys(k[1] for k in results))
    if ax is None:
        fig, ax = plt.subplots(figsize=(1.6 * len(layers) + 3.4, 3.4), layout="constrained")
    else:
        fig = ax.figure
    colors = {"left": "tab:blue", "right": "tab:orange"}
    width = 0.3
    for k, h in enumerate(hemis):
        off = (k - (len(hemis) - 1) / 2) * width
        for i, ly in enumerate(layers):
            r = results.get((ly, h))
            if r is None:
                continue
            x = i + off
            mu, sd = r.get("null_shift_mean", np.nan), r.get("null_shift_std", np.nan)
            if np.isfinite(mu) and np.isfinite(sd):
                ax.errorbar([x], [mu], yerr=[sd], color="0.6", capsize=3, lw=1, zorder=1)
            rho, p = r.get("spearman", np.nan), r.get("p_value", np.nan)
            sig = bool(np.isfinite(p) and p <= alpha)
            c = colors.get(h, f"C{k}")
            ax.scatter([x], [rho], s=70, zorder=3, color=c if sig else "white", edgecolor=c,
                       lw=1.5, label=f"{h} hemisphere" if i == 0 else None)
            if np.isfinite(rho):
                if n_permutations:
                    from ..analysis import format_p

                    text = format_p(p, n_permutations).split(" (")[0]
                else:
                    text = f"p = {_p_text(p)}"
                ax.annotate(text, (x, rho), textcoords="offset points",
                            xytext=(0, 8), ha="center", fontsize=7)
    ax.axhline(0, color="0.7", lw=0.8)
    ax.set_xticks(range(len(layers)))
    ax.set_xticklabels([f"{ly}\n(headline)" if ly == headline else ly for ly in layers],
                       fontsize=8)
    ax.set_ylim(-1.15, 1.25)
    ax.set_ylabel("Spearman ρ, sheet vs cortex\ncentre distances")
    ax.legend(fontsize=8, frameon=False, loc="lower right")
    ax.set_title(title or f"Domain arrangement per layer\n(filled: p ≤ {alpha:g} against both "
                 "nulls; grey bars: the sheet-shift null's mean ± s.d.)", fontsize=9)
    return fig
