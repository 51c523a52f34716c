"""The language job's figures: its t maps on the sheets and the four conditions per layer."""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Integral

import numpy as np

from .._util import dims as D
from .._util.docs import fill_doc
from .._util.params import Interval, validate_params
from ..exceptions import DimensionError
from ._common import LABEL, TITLE, figure_and_axes
from ._sheet import outline_mask, plot_sheet_map

__all__ = ["plot_condition_profile", "plot_language_sheets"]


@fill_doc
@validate_params({"ylabel": LABEL, "title": TITLE})
def plot_condition_profile(
    profile,
    *,
    layer_names: Sequence[str] | None = None,
    ylabel: str = "response (z), held-out items",
    title: str | None = None,
    ax=None,
):
    """Grouped bars of the language units' response to each condition, one group per layer.

    Parameters
    ----------
    profile : xarray.Dataset
        A :func:`~toponeuro.analysis.language_profile` result: ``response`` and ``sem`` with
        dims ``(layer, condition)``.
    layer_names : sequence of str, optional
        Tick labels of the layers (default the layer names).
    ylabel, title : str
        The y-axis label and the title.
    %(ax_panel)s

    %(figure)s

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> r = xr.DataArray([[1.0, 0.5, 0.4, 0.0]], dims=("layer", "condition"),
    ...                  coords={"layer": ["h"], "condition": list("SWJN")})
    >>> fig = plot_condition_profile(xr.Dataset({"response": r, "sem": 0.1 + 0 * r}))
    >>> [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    ['S', 'W', 'J', 'N']
    """
    resp, sem = profile["response"], profile["sem"]
    if set(resp.dims) != {D.LAYER, "condition"}:
        raise DimensionError(
            f"profile['response'] must have dims ('layer', 'condition'); got {resp.dims}. "
            "Pass the result of toponeuro.analysis.language_profile.")
    resp = resp.transpose(D.LAYER, "condition")
    sem = sem.transpose(D.LAYER, "condition")
    layers = [str(v) for v in resp[D.LAYER].values]
    conds = [str(c) for c in resp["condition"].values]
    names = list(layer_names) if layer_names is not None else layers
    if len(names) != len(layers):
        raise DimensionError(f"Got {len(names)} layer_names for {len(layers)} layers.")
    width_in = max(3.2, 0.9 * len(layers) * len(conds) / 4 + 1.2)
    fig, axes = figure_and_axes(ax, panel_size=(width_in, 3.0), layout="constrained")
    a = axes[0, 0]
    width = 0.8 / len(conds)
    xs = np.arange(len(layers))
    for j, c in enumerate(conds):
        a.bar(xs + (j - (len(conds) - 1) / 2) * width, resp.values[:, j], width,
              yerr=sem.values[:, j], label=c, capsize=2)
    a.set_xticks(xs, names, rotation=30, ha="right", fontsize=8)
    a.axhline(0, color="k", lw=0.6)
    a.set_ylabel(ylabel)
    if title:
        a.set_title(title, fontsize=9)
    a.legend(fontsize=8, frameon=False, ncol=len(conds))
    return fig


@fill_doc
@validate_params({"ncols": Interval(Integral, 1, None, closed="left"),
                  "colorbar_label": LABEL, "title": TITLE})
def plot_language_sheets(
    tmap,
    layers: Sequence[str] | None = None,
    *,
    threshold: float | None = None,
    ncols: int = 3,
    colorbar_label: str = "t (sentences vs nonword lists)",
    title: str | None = None,
):
    """Each layer's language map on its sheet, wrapped into rows of ``ncols`` panels, with
    the units at or above ``threshold`` outlined (the ones that pass Benjamini-Hochberg, when
    ``threshold`` is the smallest t that does).

    Parameters
    ----------
    tmap : xarray.DataArray
        Per-unit t map, dim ``"unit"`` with the unit coords (one map: no other dim).
    layers : sequence of str, optional
        Default every layer of ``tmap``.
    threshold : float, optional
        Outline units with ``t >= threshold`` (None or NaN: no outline).
    ncols : int
        Panels per row.
    colorbar_label, title : str
        The colour bar's label and the title.

    %(figure)s

    Examples
    --------
    >>> from toponeuro import make_activations
    >>> t = make_activations({"a": 64, "b": 64}, 1, random_state=0).isel(stimulus=0)
    >>> fig = plot_language_sheets(t, threshold=1.0, ncols=1)
    >>> [a.get_title().splitlines()[0] for a in fig.axes if a.get_images()]
    ['a', 'b']
    """
    if tmap.ndim != 1:
        raise DimensionError(
            f"plot_language_sheets draws one map; got dims {tmap.dims}. Select one map "
            "first (e.g. tmap.sel(map='language')).")
    layers = tmap.topo.layers if layers is None else list(layers)
    fig = plot_sheet_map(tmap, layers, ncols=ncols, scale="shared",
                         colorbar_label=colorbar_label, title=title)
    if threshold is not None and np.isfinite(threshold):
        panels = [a for a in fig.axes if a.get_images() and a.get_visible()]
        for a, ly in zip(panels, layers):
            m = tmap.topo.map(ly, reduce="mean").values
            outline_mask(a, np.nan_to_num(m, nan=-np.inf) >= threshold)
    return fig
