"""Brain-Score: export TopoNets as plugins and score them locally with Brain-Score itself.

:func:`export_plugin` writes a self-contained brainscore-vision (or brainscore-language)
plugin; :func:`write_brainscore_benchmark` turns a StimulusSet and BrainResponses into plain
files that Brain-Score's StimulusSet and NeuroidAssembly are built from; and
:func:`score_with_brainscore` runs brainscore-vision's own ``ModelCommitment``, metrics and
split-half ceiling on them in a separate Python environment.
"""

from ._convert import read_brainscore_benchmark, write_brainscore_benchmark
from ._export import (
    BRAINSCORE_REGIONS,
    LANGUAGE_REGIONS,
    ExportedPlugin,
    export_plugin,
    known_plugin_names,
    plugin_layers,
    propose_region_layer_map,
)
from ._score import (
    BRAINSCORE_METRICS,
    TOPONEURO_COMPARE,
    brainscore_python,
    install_plugin,
    score_with_brainscore,
)

__all__ = [
    "BRAINSCORE_REGIONS",
    "LANGUAGE_REGIONS",
    "BRAINSCORE_METRICS",
    "TOPONEURO_COMPARE",
    "ExportedPlugin",
    "export_plugin",
    "known_plugin_names",
    "plugin_layers",
    "propose_region_layer_map",
    "write_brainscore_benchmark",
    "read_brainscore_benchmark",
    "brainscore_python",
    "install_plugin",
    "score_with_brainscore",
]
