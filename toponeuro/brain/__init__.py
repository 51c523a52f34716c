"""fMRI responses as labelled arrays (BrainResponses), their loaders and reliability.

BrainResponses are :class:`xarray.DataArray` with dims ``("stimulus", "voxel")``, stimulus
coord ``stimulus_id`` (plus ``repetition`` for repeated trials) and voxel coords
``subject``, ``roi`` and either ``x``, ``y``, ``z`` (mm) or ``hemi``, ``vertex``. Every
loader builds them with :func:`make_brain_responses`. Atlases live in
:mod:`toponeuro.atlases` (re-exported here for convenience).
"""

from ..atlases import Atlas, load_language_parcels, load_visfatlas
from ._nsd import (
    NSD_BETA_SCALE,
    NSD_SPACES,
    NSD_TRIALS_PER_SESSION,
    load_nsd_betas,
    nsd_noise_ceiling,
    nsd_trial_images,
    read_nsd_expdesign,
)
from ._reliability import (
    ncsnr,
    noise_ceiling,
    spearman_brown,
    split_half_reliability,
    voxel_noise_ceiling,
)
from ._responses import (
    average_repetitions,
    check_responses,
    handle_invalid,
    invalid_voxels,
    make_brain_responses,
    zscore_within,
)
from ._surface import MESH_SIZES, load_surface_betas, read_surface_data
from ._volume import load_bids_betas, load_image, load_volume_betas

__all__ = [
    "make_brain_responses",
    "check_responses",
    "invalid_voxels",
    "handle_invalid",
    "average_repetitions",
    "load_volume_betas",
    "load_bids_betas",
    "load_surface_betas",
    "load_nsd_betas",
    "load_image",
    "read_surface_data",
    "read_nsd_expdesign",
    "nsd_trial_images",
    "nsd_noise_ceiling",
    "split_half_reliability",
    "spearman_brown",
    "ncsnr",
    "voxel_noise_ceiling",
    "noise_ceiling",
    "zscore_within",
    "MESH_SIZES",
    "NSD_SPACES",
    "NSD_TRIALS_PER_SESSION",
    "NSD_BETA_SCALE",
    "Atlas",
    "load_visfatlas",
    "load_language_parcels",
]
