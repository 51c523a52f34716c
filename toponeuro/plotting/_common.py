"""Shared plotting plumbing: the matplotlib import guard and figure/axes handling."""

from __future__ import annotations

import numpy as np

from .._optional import optional_import
from ..exceptions import ParameterError


def require_matplotlib():
    """Import pyplot or raise an ImportError naming the extra to install."""
    return optional_import("matplotlib.pyplot", "plot", "toponeuro.plotting")


def figure_and_axes(ax, nrows=1, ncols=1, panel_size=(3.2, 3.0), **kw):
    """``(fig, axes 2-D array)``; uses ``ax`` when one panel is asked for and ``ax`` is given."""
    plt = require_matplotlib()
    if ax is not None:
        if nrows * ncols != 1:
            raise ParameterError(
                f"ax= draws a single panel, but this plot needs {nrows} x {ncols}; "
                "leave ax=None or select one layer/domain."
            )
        return ax.figure, np.array([[ax]])
    fig, axes = plt.subplots(
        nrows,
        ncols,
        figsize=(panel_size[0] * ncols + 0.8, panel_size[1] * nrows + 0.4),
        squeeze=False,
        **kw,
    )
    return fig, axes


def symmetric_limits(values, vmin=None, vmax=None, center=0.0):
    """Colour limits shared by all panels; symmetric around ``center`` when it is given."""
    finite = np.asarray(values, dtype=float)
    finite = finite[np.isfinite(finite)]
    if finite.size == 0:
        return -1.0, 1.0
    if center is None:
        return (finite.min() if vmin is None else vmin), (finite.max() if vmax is None else vmax)
    lim = np.abs(finite - center).max() or 1.0
    return (center - lim if vmin is None else vmin), (center + lim if vmax is None else vmax)
