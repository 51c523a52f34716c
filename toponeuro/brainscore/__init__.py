"""Brain-Score: export TopoNets as plugins and score them locally with Brain-Score itself.

:func:`export_plugin` writes a self-contained brainscore-vision (or brainscore-language)
plugin; :func:`write_brainscore_benchmark` turns a StimulusSet and BrainResponses into plain
files that Brain-Score's StimulusSet and NeuroidAssembly are built from; and
:func:`score_with_brainscore` runs brainscore-vision's own ``ModelCommitment``, metrics and
split-half ceiling on them in a separate Python environment.
"""

from . import _export, _score
from ._convert import read_brainscore_benchmark, write_brainscore_benchmark
from ._export import *
from ._score import *

__all__ = [
    *_export.__all__,
    *_score.__all__,
    "write_brainscore_benchmark",
    "read_brainscore_benchmark",
]
