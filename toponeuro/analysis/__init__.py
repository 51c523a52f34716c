"""Analyses: selectivity maps, topography metrics, comparison with cortex, encoding models,
RSA, dimensionality and layer x region sweeps."""

from ._compare import (
    DEFAULT_PAIRS,
    arrangement_similarity,
    compare_topography,
    patch_centroid,
)
from ._dimensionality import effective_dimensionality, participation_ratio, trace_moments
from ._efficiency import EFFICIENCY_METHODS, efficiency_curve, pool_matrix, trajectory
from ._encoding import ENCODING_MODELS, PLSEncoder, RidgeEncoder, encoding_score, make_folds
from ._geometry import MESH_SIZES, MIN_SHEET_UNITS, TopoMap, as_topomap
from ._rsa import RDM_METRICS, rdm, rdm_stimulus_ids
from ._rsa_compare import (
    COMPARE_ALIASES,
    COMPARE_METHODS,
    BootstrapResult,
    bootstrap_compare_rdms,
    compare_rdms,
    noise_ceiling,
    rdm_noise_ceiling,
)
from ._rsa_convert import (
    from_rsatoolbox_dataset,
    from_rsatoolbox_rdms,
    to_rsatoolbox_dataset,
    to_rsatoolbox_rdms,
)
from ._searchlight import searchlight_rsa, surface_neighbourhoods, volume_neighbourhoods
from ._selectivity import (
    SELECTIVITY_METRICS,
    domain_selectivity,
    dprime,
    fdr_bh,
    language_selectivity,
    selectivity,
    student_t,
    welch_t,
)
from ._sweep import SWEEP_METHODS, sweep
from ._tables import TopographyTable, compare_tables, topography_table
from ._topography import (
    Patches,
    correlation_profile,
    find_patches,
    map_similarity,
    smoothness,
)

__all__ = [
    "TopographyTable",
    "topography_table",
    "compare_tables",
    "SELECTIVITY_METRICS",
    "selectivity",
    "domain_selectivity",
    "language_selectivity",
    "fdr_bh",
    "student_t",
    "welch_t",
    "dprime",
    "MESH_SIZES",
    "MIN_SHEET_UNITS",
    "TopoMap",
    "Patches",
    "as_topomap",
    "smoothness",
    "correlation_profile",
    "find_patches",
    "map_similarity",
    "DEFAULT_PAIRS",
    "patch_centroid",
    "arrangement_similarity",
    "compare_topography",
    "EFFICIENCY_METHODS",
    "efficiency_curve",
    "pool_matrix",
    "trajectory",
    "RidgeEncoder",
    "PLSEncoder",
    "encoding_score",
    "make_folds",
    "ENCODING_MODELS",
    "rdm",
    "rdm_stimulus_ids",
    "compare_rdms",
    "bootstrap_compare_rdms",
    "rdm_noise_ceiling",
    "noise_ceiling",
    "BootstrapResult",
    "RDM_METRICS",
    "COMPARE_METHODS",
    "COMPARE_ALIASES",
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
