"""Analyses: selectivity maps, topography metrics, comparison with cortex, encoding models,
RSA, dimensionality and layer x region sweeps."""

from ._compare import (
    DEFAULT_PAIRS,
    arrangement_similarity,
    compare_topography,
    patch_centroid,
)
from ._dimensionality import (
    dimensionality,
    effective_dimensionality,
    participation_ratio,
    trace_moments,
)
from ._efficiency import EFFICIENCY_METHODS, TOPONETS_NANOGPT_KEEP, efficiency_curve, pool_matrix
from ._encoding import ENCODING_MODELS, PLSEncoder, RidgeEncoder, encoding_score, make_folds
from ._geometry import MESH_SIZES, MIN_SHEET_UNITS, TopoMap, as_topomap
from ._null import NULL_METHODS, NullResult, null_p_value, spatial_null
from ._patches import PATCH_STATISTICS, TDANN_PATCHES
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
    DEFAULT_SELECTIVITY,
    SELECTIVITY_METRICS,
    SELECTIVITY_REFERENCES,
    domain_selectivity,
    dprime,
    fdr_bh,
    language_selectivity,
    selectivity,
    student_t,
    tdann_t,
    welch_t,
)
from ._sweep import SWEEP_METHODS, sweep
from ._tables import TopographyTable, compare_tables, topography_table
from ._topography import (
    SIMILARITY_METHODS,
    SMOOTHNESS_METHODS,
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
    "tdann_t",
    "DEFAULT_SELECTIVITY",
    "SELECTIVITY_REFERENCES",
    "MESH_SIZES",
    "MIN_SHEET_UNITS",
    "TopoMap",
    "Patches",
    "as_topomap",
    "smoothness",
    "correlation_profile",
    "find_patches",
    "map_similarity",
    "SIMILARITY_METHODS",
    "SMOOTHNESS_METHODS",
    "TDANN_PATCHES",
    "PATCH_STATISTICS",
    "NULL_METHODS",
    "NullResult",
    "spatial_null",
    "null_p_value",
    "DEFAULT_PAIRS",
    "patch_centroid",
    "arrangement_similarity",
    "compare_topography",
    "EFFICIENCY_METHODS",
    "efficiency_curve",
    "pool_matrix",
    "TOPONETS_NANOGPT_KEEP",
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
    "dimensionality",
    "effective_dimensionality",
    "participation_ratio",
    "trace_moments",
    "sweep",
    "SWEEP_METHODS",
]


def __getattr__(name):
    # deprecated alias, kept for one release: reading checkpoints is the training stage's job
    if name == "trajectory":
        import importlib
        import warnings

        warnings.warn(
            "toponeuro.analysis.trajectory moved to toponeuro.training.trajectory (it reads "
            "training checkpoints); the old name goes in the next release.",
            FutureWarning,
            stacklevel=2,
        )
        return importlib.import_module("toponeuro.training").trajectory
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
