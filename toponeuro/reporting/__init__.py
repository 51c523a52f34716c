"""The main job: ``toponeuro map`` as a composition of the library's stages.

``run_map`` loads a model, extracts activations on stimuli, computes the topography metrics
once and writes the report (HTML, PNG figures, ``results.nc``, ``summary.json``).
"""

from ._map import DEFAULT_MAP_MODEL, MAP_DOMAINS, MapResult, format_summary, run_map

__all__ = ["DEFAULT_MAP_MODEL", "MAP_DOMAINS", "MapResult", "format_summary", "run_map"]
