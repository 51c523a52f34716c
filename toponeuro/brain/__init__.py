"""fMRI responses as labelled arrays (BrainResponses), their loaders and reliability.

BrainResponses are :class:`xarray.DataArray` with dims ``("stimulus", "voxel")``, stimulus
coord ``stimulus_id`` (plus ``repetition`` for repeated trials) and voxel coords
``subject``, ``roi`` and either ``x``, ``y``, ``z`` (mm) or ``hemi``, ``vertex``. Every
loader builds them with :func:`make_brain_responses`; :func:`make_repeated_responses` simulates
repeated trials of known reliability. Atlases live in
:mod:`toponeuro.atlases` (re-exported here for convenience).
"""

from .._util.deprecate import removed_names
from ..atlases import Atlas, load_language_parcels, load_visfatlas
from . import _nsd, _reliability, _responses, _surface, _volume
from ._nsd import *
from ._reliability import *
from ._responses import *
from ._surface import *
from ._volume import *

__all__ = [
    *_responses.__all__,
    *_volume.__all__,
    *_surface.__all__,
    *_nsd.__all__,
    *_reliability.__all__,
    "Atlas",
    "load_visfatlas",
    "load_language_parcels",
]

#: names removed in 0.3.0 -> what replaces them (docs/changelog.rst)
__getattr__ = removed_names(__name__, {
    "load_image": "toponeuro.brain.load_brain_image (a NIfTI/MGH image; pictures are read by "
                  "toponeuro.stimuli.read_image)",
    "noise_ceiling": "toponeuro.brain.voxel_noise_ceiling (NSD's voxel ceiling) or "
                     "toponeuro.analysis.rdm_noise_ceiling (the RDM ceiling)",
})
