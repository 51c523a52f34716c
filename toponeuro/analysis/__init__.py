"""Analyses: selectivity maps, topography metrics and comparison with cortex."""

from ._compare import (
    DEFAULT_PAIRS,
    arrangement_similarity,
    compare_topography,
    patch_centroid,
)
from ._efficiency import EFFICIENCY_METHODS, efficiency_curve, pool_matrix, trajectory
from ._geometry import MESH_SIZES, MIN_SHEET_UNITS, TopoMap, as_topomap
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
from ._topography import (
    Patches,
    correlation_profile,
    find_patches,
    map_similarity,
    smoothness,
)

__all__ = [
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
]
