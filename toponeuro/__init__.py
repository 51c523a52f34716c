"""toponeuro: compare topographic neural networks (TopoNets) with the human brain.

``import toponeuro`` is light: it touches neither network nor disk and does not import torch.
Sub-packages load on first use (``toponeuro.topoloss``, ``toponeuro.training`` ...), and the
most used functions are available at the top level.
"""

from __future__ import annotations

from . import exceptions
from ._util.deprecate import lazy_names
from ._version import __version__
from .sheet import (
    check_activations,
    make_activations,
    read_unit_positions,
    set_unit_positions,
    sheet_positions,
    sheet_shape,
)

# public name -> module that defines it (imported on first access)
_LAZY = {
    "LayerSpec": "toponeuro.topoloss",
    "TopoLoss": "toponeuro.topoloss",
    "TauSchedule": "toponeuro.topoloss",
    "train": "toponeuro.training",
    "load_recipe": "toponeuro.training",
    # defined in toponeuro.models; reached through training, which registers its
    # checkpoints' reader with it on import (models never imports training)
    "load_model": "toponeuro.training",
    "StimulusSet": "toponeuro.stimuli",
    "load_floc": "toponeuro.stimuli",
    "load_language_localizer": "toponeuro.stimuli",
    "load_image_folder": "toponeuro.stimuli",
    "load_nsd_stimuli": "toponeuro.stimuli",
    "make_image_folder": "toponeuro.stimuli",
    "make_brain_responses": "toponeuro.brain",
    "check_responses": "toponeuro.brain",
    "load_volume_betas": "toponeuro.brain",
    "load_bids_betas": "toponeuro.brain",
    "load_surface_betas": "toponeuro.brain",
    "load_nsd_betas": "toponeuro.brain",
    "load_visfatlas": "toponeuro.atlases",
    "load_language_parcels": "toponeuro.atlases",
    "selectivity": "toponeuro.analysis",
    "domain_selectivity": "toponeuro.analysis",
    "language_selectivity": "toponeuro.analysis",
    "smoothness": "toponeuro.analysis",
    "find_patches": "toponeuro.analysis",
    "map_similarity": "toponeuro.analysis",
    "spatial_null": "toponeuro.analysis",
    "RidgeEncoder": "toponeuro.analysis",
    "PLSEncoder": "toponeuro.analysis",
    "encoding_score": "toponeuro.analysis",
    "rdm": "toponeuro.analysis",
    "compare_rdms": "toponeuro.analysis",
    "rdm_noise_ceiling": "toponeuro.analysis",
    "searchlight_rsa": "toponeuro.analysis",
    "participation_ratio": "toponeuro.analysis",
    "effective_dimensionality": "toponeuro.analysis",
    "sweep": "toponeuro.analysis",
    "extract": "toponeuro.features",
    "create_model": "toponeuro.models",
    "list_models": "toponeuro.models",
    "model_card": "toponeuro.models",
    "export_plugin": "toponeuro.brainscore",
    "score_with_brainscore": "toponeuro.brainscore",
    # `toponeuro map`: an entry point (it uses plotting), so only reachable lazily
    "run_map": "toponeuro.reporting",
    "run_language_map": "toponeuro.reporting",
    "prepare": "toponeuro.reporting",
}
_SUBPACKAGES = (
    "topoloss",
    "training",
    "models",
    "features",
    "stimuli",
    "brain",
    "atlases",
    "analysis",
    "plotting",
    "brainscore",
    "settings",
)

__all__ = [
    "__version__",
    "exceptions",
    "sheet_shape",
    "sheet_positions",
    "check_activations",
    "make_activations",
    "set_unit_positions",
    "read_unit_positions",
    *_LAZY,
]


#: names removed in 0.3.0 -> what replaces them (docs/changelog.rst)
_REMOVED = {
    "noise_ceiling": "toponeuro.rdm_noise_ceiling (the RDM ceiling) or "
                     "toponeuro.brain.voxel_noise_ceiling (NSD's voxel ceiling)",
}


__getattr__, __dir__ = lazy_names("toponeuro", _LAZY, submodules=_SUBPACKAGES,
                                   removed=_REMOVED)
