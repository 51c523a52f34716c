"""Analyses: selectivity maps, topography metrics and comparison with cortex."""

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

__all__ = [
    "SELECTIVITY_METRICS",
    "selectivity",
    "domain_selectivity",
    "language_selectivity",
    "fdr_bh",
    "student_t",
    "welch_t",
    "dprime",
]
