"""Analyses: selectivity maps, topography metrics, comparison with cortex, encoding models,
RSA, dimensionality and layer x region sweeps.

Three wings behind this one public face: :mod:`~toponeuro.analysis.topography`,
:mod:`~toponeuro.analysis.rsa` and :mod:`~toponeuro.analysis.encoding`; the shared input checks,
backends and domains sit here at the root."""

from .._util.deprecate import removed_names
from . import _dimensionality, _efficiency, encoding, rsa, topography
from ._dimensionality import *
from ._efficiency import *
from .encoding import *
from .rsa import *
from .topography import *

__all__ = [
    *topography.__all__,
    *_efficiency.__all__,
    *encoding.__all__,
    *rsa.__all__,
    *_dimensionality.__all__,
]


#: names removed in 0.3.0 -> what replaces them (docs/changelog.rst)
__getattr__ = removed_names(__name__, {
    "trajectory": "toponeuro.training.trajectory",
    "noise_ceiling": "toponeuro.analysis.rdm_noise_ceiling (the RDM ceiling) or "
                     "toponeuro.brain.voxel_noise_ceiling (NSD's voxel ceiling)",
})
