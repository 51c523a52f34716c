"""Analyses: selectivity maps, topography metrics, comparison with cortex, encoding models,
RSA, dimensionality and layer x region sweeps."""

from .._deprecate import removed_names
from . import (
    _autocorr,
    _compare,
    _dimensionality,
    _efficiency,
    _encoding,
    _geometry,
    _localizer,
    _null,
    _patches,
    _rsa,
    _rsa_compare,
    _rsa_convert,
    _searchlight,
    _selectivity,
    _sweep,
    _tables,
    _topography,
    _verdict,
)
from ._autocorr import *
from ._compare import *
from ._dimensionality import *
from ._efficiency import *
from ._encoding import *
from ._geometry import *
from ._localizer import *
from ._null import *
from ._patches import *
from ._rsa import *
from ._rsa_compare import *
from ._rsa_convert import *
from ._searchlight import *
from ._selectivity import *
from ._sweep import *
from ._tables import *
from ._topography import *
from ._verdict import *

__all__ = [
    *_tables.__all__,
    *_selectivity.__all__,
    *_localizer.__all__,
    *_geometry.__all__,
    *_topography.__all__,
    *_verdict.__all__,
    *_autocorr.__all__,
    *_patches.__all__,
    *_null.__all__,
    *_compare.__all__,
    *_efficiency.__all__,
    *_encoding.__all__,
    *_rsa.__all__,
    *_rsa_compare.__all__,
    *_rsa_convert.__all__,
    *_searchlight.__all__,
    *_dimensionality.__all__,
    *_sweep.__all__,
]


#: names removed in 0.3.0 -> what replaces them (docs/changelog.rst)
__getattr__ = removed_names(__name__, {
    "trajectory": "toponeuro.training.trajectory",
    "noise_ceiling": "toponeuro.analysis.rdm_noise_ceiling (the RDM ceiling) or "
                     "toponeuro.brain.voxel_noise_ceiling (NSD's voxel ceiling)",
    "compare_topography": "topography_table on each side, then compare_tables",
})
