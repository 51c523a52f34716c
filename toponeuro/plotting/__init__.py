"""Figures: ``plot_*`` functions only. Each returns the matplotlib figure and accepts ``ax=``.

Needs matplotlib (``pip install 'toponeuro[plot]'``). Nothing else in toponeuro imports this
package.
"""

from . import _compare, _language, _pair, _rdm, _surface, _sweep
from ._common import save_figure
from ._compare import *
from ._language import *
from ._pair import *
from ._rdm import *
from ._sheet import plot_sheet_map
from ._surface import *
from ._sweep import *

__all__ = [
    *_rdm.__all__,
    *_surface.__all__,
    *_sweep.__all__,
    *_compare.__all__,
    *_language.__all__,
    *_pair.__all__,
    "plot_sheet_map",
    "save_figure",
]
