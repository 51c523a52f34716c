"""Representational dissimilarity matrices."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.spatial.distance import squareform

from .._util.docs import fill_doc
from .._util.params import validate_params
from ..exceptions import DimensionError
from ._common import LABEL, TITLE, figure_and_axes

__all__ = ["plot_rdm"]


@fill_doc
@validate_params({"title": TITLE, "colorbar_label": LABEL})
def plot_rdm(
    rdm,
    labels: Sequence[str] | None = None,
    *,
    cmap: str = "viridis",
    title: str | None = None,
    colorbar_label: str = "dissimilarity",
    ax=None,
):
    """Draw an RDM, with category blocks marked when ``labels`` are given.

    Parameters
    ----------
    rdm : array-like or xarray.DataArray
        Square ``(n, n)`` matrix or condensed vector of length ``n (n - 1) / 2``.
    labels : sequence of str, optional
        One label per stimulus (categories). Stimuli should be sorted by label; each run of
        equal labels is marked with a tick at its middle and a thin separating line.
    cmap, title, colorbar_label : str
        The colour map (a matplotlib name), the title and the colour bar's label.
    %(ax_panel)s

    %(figure)s

    Examples
    --------
    >>> import numpy as np
    >>> x = np.random.default_rng(0).normal(size=(6, 3))
    >>> d = np.linalg.norm(x[:, None] - x[None], axis=-1)
    >>> fig = plot_rdm(d, labels=["a", "a", "a", "b", "b", "b"])
    """
    mat = np.asarray(getattr(rdm, "values", rdm), dtype=float)
    if mat.ndim == 1:
        mat = squareform(mat, checks=False)
    if mat.ndim != 2 or mat.shape[0] != mat.shape[1]:
        raise DimensionError(f"An RDM must be square or condensed; got shape {mat.shape}.")
    fig, axes = figure_and_axes(ax, panel_size=(4.2, 3.8), layout="constrained")
    a = axes[0, 0]
    off = mat[~np.eye(len(mat), dtype=bool)]
    im = a.imshow(mat, cmap=cmap, vmin=np.nanmin(off) if off.size else None, vmax=np.nanmax(off) if off.size else None)
    if labels is not None:
        labels = np.asarray(labels).astype(str)
        if len(labels) != len(mat):
            raise DimensionError(f"Got {len(labels)} labels for a {len(mat)} x {len(mat)} RDM.")
        starts = np.flatnonzero(np.r_[True, labels[1:] != labels[:-1]])
        ends = np.r_[starts[1:], len(labels)]
        mids = (starts + ends - 1) / 2
        a.set_xticks(mids, labels[starts], rotation=90, fontsize=8)
        a.set_yticks(mids, labels[starts], fontsize=8)
        for s in starts[1:]:
            a.axhline(s - 0.5, color="w", lw=0.6)
            a.axvline(s - 0.5, color="w", lw=0.6)
    else:
        a.set_xlabel("stimulus")
        a.set_ylabel("stimulus")
    fig.colorbar(im, ax=a, shrink=0.85, label=colorbar_label)
    if title:
        a.set_title(title)
    return fig
