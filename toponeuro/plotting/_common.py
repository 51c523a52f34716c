"""Shared plotting plumbing: the matplotlib import guard and figure/axes handling."""

from __future__ import annotations

from numbers import Integral

import numpy as np

from .._util.optional import optional_import
from .._util.params import Interval, Text, validate_params
from ..exceptions import InvalidDataError, ParameterError


def require_matplotlib():
    """Import pyplot or raise an ImportError naming the extra to install."""
    return optional_import("matplotlib.pyplot", "plot", "toponeuro.plotting")


@validate_params({"dpi": Interval(Integral, 1, None, closed="left")})
def save_figure(fig, path, dpi: int = 120):
    """Write ``fig`` to ``path`` (tight bounding box) and close it.

    The one place a report's figure is saved: the report writers draw through
    :mod:`toponeuro.plotting` and call no matplotlib themselves.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure (e.g. from a ``plot_*`` function).
    path : path-like
        Where to write it; the suffix picks the format.
    dpi : int
        Resolution of a raster format.

    Returns
    -------
    path-like
        ``path``, as given.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from toponeuro.plotting import plot_distance_profile, save_figure
    >>> from toponeuro.analysis import smoothness
    >>> import numpy as np
    >>> fig = plot_distance_profile(smoothness(np.eye(8), random_state=0))
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "profile.png"
    >>> save_figure(fig, out).is_file()
    True
    """
    plt = require_matplotlib()
    fig.savefig(path, dpi=dpi, bbox_inches="tight")
    plt.close(fig)
    return path


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


def model_cortex_axes(ax, figsize, **kw):
    """``(fig, (model axes, cortex axes))``: the two axes given as ``ax``, or a new 1 x 2
    figure of ``figsize`` (``kw`` to ``plt.subplots``)."""
    if ax is None:
        fig, axes = require_matplotlib().subplots(1, 2, figsize=figsize, **kw)
        return fig, tuple(axes)
    axes = list(ax)
    if len(axes) != 2:
        raise InvalidDataError(f"ax= needs two axes (model, cortex); got {len(axes)}.")
    return axes[0].figure, tuple(axes)


def symmetric_limits(values, vmin=None, vmax=None, center=0.0, robust=None):
    """Colour limits shared by all panels; symmetric around ``center`` when it is given.

    The half-width is the largest ``|value - center|``, or with ``robust`` (a percentile,
    e.g. 99) that percentile of it, so a few extreme values do not wash out the rest.
    ``vmin`` / ``vmax`` replace the limit they name; ``robust`` needs a ``center``.

    Examples
    --------
    >>> symmetric_limits([-1.0, 0.5, 4.0])
    (-4.0, 4.0)
    >>> symmetric_limits([-1.0, 0.5, 4.0], vmax=2.0, center=None)
    (-1.0, 2.0)
    >>> symmetric_limits(list(range(-100, 101)), robust=90)
    (-90.0, 90.0)
    """
    finite = np.asarray(values, dtype=float)
    finite = finite[np.isfinite(finite)]
    if finite.size == 0:
        return -1.0, 1.0
    if center is None:
        lo, hi = float(finite.min()), float(finite.max())
        return (lo if vmin is None else vmin), (hi if vmax is None else vmax)
    spread = np.abs(finite - center)
    lim = float(np.percentile(spread, robust) if robust is not None else spread.max()) or 1.0
    return (center - lim if vmin is None else vmin), (center + lim if vmax is None else vmax)


#: declared words on a figure (a title, a label): any string, or None for none
TITLE = [Text(empty=True), None]
#: a declared label with a default: any string
LABEL = Text(empty=True)
