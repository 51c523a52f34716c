"""Topography: the one ruler (descriptors on any geometry, model vs cortex), selectivity maps, smoothness, patches, map similarity, spatial nulls, arrangement and autocorrelation on a model sheet or a cortical mesh.

A wing of :mod:`toponeuro.analysis`: import the public names from there."""

from . import (
    _autocorr,
    _compare,
    _descriptors,
    _flatten,
    _geometry,
    _label_null,
    _localizer,
    _null,
    _patches,
    _ruler,
    _selectivity,
    _table_compare,
    _tables,
    _topography,
    _topomap,
    _transfer,
    _verdict,
)
from ._autocorr import *
from ._compare import *
from ._descriptors import *
from ._flatten import *
from ._geometry import *
from ._label_null import *
from ._localizer import *
from ._null import *
from ._patches import *
from ._ruler import *
from ._selectivity import *
from ._table_compare import *
from ._tables import *
from ._topography import *
from ._topomap import *
from ._transfer import *
from ._verdict import *

__all__ = [
    *_selectivity.__all__,
    *_localizer.__all__,
    *_geometry.__all__,
    *_topomap.__all__,
    *_topography.__all__,
    *_verdict.__all__,
    *_autocorr.__all__,
    *_patches.__all__,
    *_null.__all__,
    *_label_null.__all__,
    *_compare.__all__,
    *_tables.__all__,
    *_table_compare.__all__,
    *_transfer.__all__,
    *_descriptors.__all__,
    *_flatten.__all__,
    *_ruler.__all__,
]
