"""Model-brain analyses: encoding models, RSA, dimensionality and sweeps."""

from ._dimensionality import effective_dimensionality, participation_ratio, trace_moments
from ._encoding import ENCODING_MODELS, PLSEncoder, RidgeEncoder, encoding_score, make_folds
from ._rsa import (
    COMPARE_METHODS,
    RDM_METRICS,
    BootstrapResult,
    bootstrap_compare_rdms,
    compare_rdms,
    from_rsatoolbox_dataset,
    from_rsatoolbox_rdms,
    noise_ceiling,
    rdm,
    to_rsatoolbox_dataset,
    to_rsatoolbox_rdms,
)
from ._searchlight import searchlight_rsa, surface_neighbourhoods, volume_neighbourhoods
from ._sweep import SWEEP_METHODS, sweep

__all__ = [
    "RidgeEncoder",
    "PLSEncoder",
    "encoding_score",
    "make_folds",
    "ENCODING_MODELS",
    "rdm",
    "compare_rdms",
    "bootstrap_compare_rdms",
    "noise_ceiling",
    "BootstrapResult",
    "RDM_METRICS",
    "COMPARE_METHODS",
    "to_rsatoolbox_dataset",
    "from_rsatoolbox_dataset",
    "to_rsatoolbox_rdms",
    "from_rsatoolbox_rdms",
    "searchlight_rsa",
    "volume_neighbourhoods",
    "surface_neighbourhoods",
    "effective_dimensionality",
    "participation_ratio",
    "trace_moments",
    "sweep",
    "SWEEP_METHODS",
]
