"""Figures: ``plot_*`` functions only. Each returns the matplotlib figure and accepts ``ax=``.

Needs matplotlib (``pip install 'toponeuro[plot]'``). Nothing else in toponeuro imports this
package.
"""

from ._compare import plot_arrangement, plot_comparison
from ._rdm import plot_rdm
from ._sheet import plot_sheet_map
from ._surface import DOMAIN_COLORS, SURFACE_VIEWS, plot_distance_profile, plot_surface_map
from ._sweep import plot_sweep

__all__ = [
    "plot_sheet_map",
    "plot_rdm",
    "plot_surface_map",
    "plot_distance_profile",
    "plot_sweep",
    "plot_arrangement",
    "plot_comparison",
    "SURFACE_VIEWS",
    "DOMAIN_COLORS",
]
