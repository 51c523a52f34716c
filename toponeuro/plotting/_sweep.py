"""Layer x region heatmaps of a sweep table (:func:`toponeuro.analysis.sweep`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .._util import dims as D
from .._util.docs import fill_doc
from .._util.params import Boolean, Text, validate_params
from ..exceptions import (
    CoordinateError,
    InputTypeError,
    InvalidDataError,
    UnknownNameError,
    close_matches,
)
from ._common import TITLE, figure_and_axes, symmetric_limits

__all__ = ["plot_sweep"]


def _ordered(values, wanted, what):
    """Unique values in order of first appearance, or ``wanted`` (checked) in its order."""
    import pandas as pd

    found = list(pd.unique(np.asarray(values)))
    if wanted is None:
        return found
    wanted = [wanted] if isinstance(wanted, str) else list(wanted)
    for w in wanted:
        if w not in found:
            raise UnknownNameError(f"No {what} {w!r} in the sweep table; {close_matches(w, found)}")
    return wanted


@fill_doc
@validate_params({"annotate": Boolean(), "fmt": Text(), "colorbar_label": TITLE,
                  "title": TITLE})
def plot_sweep(
    table,
    *,
    models: str | Sequence[str] | None = None,
    layers: Sequence[str] | None = None,
    regions: Sequence[str] | None = None,
    region: str = D.ROI,
    method: str | None = None,
    subject: str | None = None,
    annotate: bool = True,
    fmt: str = ".2f",
    cmap: str = "RdBu_r",
    center: float | None = 0.0,
    vmin: float | None = None,
    vmax: float | None = None,
    colorbar_label: str | None = None,
    title: str | None = None,
    ax=None,
):
    """Heatmap of a layer x region sweep: one panel per model, one shared colour scale.

    Parameters
    ----------
    table : pandas.DataFrame
        The tidy table of :func:`toponeuro.analysis.sweep` (columns ``model``, ``layer``,
        the region column, ``score``, ``method`` and optionally ``subject``).
    models : str or list of str, optional
        Models to draw, one panel each (default: all, in table order).
    layers : list of str, optional
        Layers to draw, top to bottom (default: every layer of the model in the order the
        sweep visited them, i.e. network order). Layers a model lacks are skipped for it.
    regions : list of str, optional
        Regions to draw, left to right (default: table order).
    region : str
        The column holding the region names (default ``"roi"``).
    method : str, optional
        Which method to draw when the table holds several (``"rsa"``, ``"encoding"``).
    subject : str, optional
        Draw one subject; by default scores are averaged over subjects (the colour bar
        says how many).
    annotate : bool
        Write each score in its cell (with ``fmt``), in black or white for contrast.
    fmt : str
        Format of the written scores (:func:`format` spec, ``".2f"``).
    %(colour_scale)s
    colorbar_label, title : str, optional
        The colour bar's label and the title (defaults used when omitted).
    ax : matplotlib Axes, optional
        Draw into this axes; the table (or ``models``) must then hold a single model.

    %(figure)s

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"model": ["a"] * 4 + ["b"] * 2,
    ...                       "layer": ["l1", "l1", "l2", "l2", "l1", "l1"],
    ...                       "roi": ["V1", "FFA"] * 3,
    ...                       "score": [0.5, 0.1, 0.2, 0.6, 0.3, -0.1],
    ...                       "method": "rsa"})
    >>> fig = plot_sweep(table)
    >>> [a.get_title() for a in fig.axes[:2]]
    ['a', 'b']
    >>> fig.axes[0].get_images()[0].get_array().tolist()  # layers x regions
    [[0.5, 0.1], [0.2, 0.6]]
    """
    import pandas as pd

    if not isinstance(table, pd.DataFrame):
        raise InputTypeError(
            f"plot_sweep needs the pandas DataFrame returned by toponeuro.analysis.sweep; got "
            f"{type(table).__name__}."
        )
    missing = [c for c in ("model", D.LAYER, region, "score") if c not in table.columns]
    if missing:
        raise CoordinateError(
            f"The sweep table lacks the column(s) {missing}; it has {list(table.columns)}. "
            + (close_matches(region, list(table.columns)) if region in missing else
               "Pass the table returned by toponeuro.analysis.sweep.")
        )
    t = table
    if "method" in t.columns:
        methods = list(pd.unique(t["method"]))
        if method is None and len(methods) > 1:
            raise InvalidDataError(
                f"The sweep table mixes methods {methods}; pick one with method=..."
            )
        if method is not None:
            _ordered(methods, [method], "method")
            t = t[t["method"] == method]
        method = method or (methods[0] if methods else None)
    n_subjects = 1
    if D.SUBJECT in t.columns:
        if subject is not None:
            _ordered(t[D.SUBJECT], [subject], "subject")
            t = t[t[D.SUBJECT] == subject]
        n_subjects = t[D.SUBJECT].nunique()
    models = _ordered(t["model"], models, "model")
    regions = _ordered(t[region], regions, "region")
    grids = {}
    for m in models:
        sub = t[t["model"] == m]
        use = _ordered(sub[D.LAYER], None, "layer")
        if layers is not None:
            wanted = _ordered(t[D.LAYER], layers, "layer")  # unknown names raise; a str is one
            use = [lay for lay in wanted if lay in use]
        mean = sub.groupby([D.LAYER, region], sort=False)["score"].mean()
        grid = mean.unstack(region).reindex(index=use, columns=regions)
        grids[m] = grid
    values = np.concatenate([g.to_numpy(dtype=float).ravel() for g in grids.values()])
    lo, hi = symmetric_limits(values, vmin, vmax, center)
    n_rows = max(len(g) for g in grids.values())
    fig, axes = figure_and_axes(
        ax, 1, len(models), panel_size=(0.7 * len(regions) + 1.6, 0.45 * n_rows + 1.4),
        layout="constrained",
    )
    from matplotlib import colormaps

    plt_cmap = colormaps[cmap]
    im = None
    for a, m in zip(axes[0], models):
        grid = grids[m]
        z = grid.to_numpy(dtype=float)
        im = a.imshow(z, cmap=plt_cmap, vmin=lo, vmax=hi, aspect="auto", interpolation="nearest")
        a.set_xticks(range(len(regions)), [str(r) for r in regions], rotation=45, ha="right",
                     fontsize=8)
        a.set_yticks(range(len(grid.index)), [str(lay) for lay in grid.index], fontsize=8)
        a.set_title(str(m), fontsize=10)
        a.set_xlabel(f"brain region ({region})")
        if a is axes[0, 0]:
            a.set_ylabel("layer (network order ↓)")
        if annotate:
            norm = im.norm
            for (i, j), v in np.ndenumerate(z):
                if not np.isfinite(v):
                    continue
                r, g, b, _ = plt_cmap(norm(v))
                dark = 0.299 * r + 0.587 * g + 0.114 * b < 0.5
                a.text(j, i, format(v, fmt), ha="center", va="center", fontsize=7,
                       color="w" if dark else "k")
    label = colorbar_label
    if label is None:
        label = {"rsa": "RSA score", "encoding": "encoding score"}.get(
            method, f"{method} score" if method else "score")
        if n_subjects > 1:
            label += f" (mean of {n_subjects} subjects)"
    fig.colorbar(im, ax=axes.ravel().tolist(), shrink=0.85, label=label)
    if title:
        fig.suptitle(title)
    return fig
