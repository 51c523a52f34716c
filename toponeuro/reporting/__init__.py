"""The main job: ``toponeuro map`` as a composition of the library's stages.

:func:`run_map` loads a model, extracts activations on stimuli, measures every topography
statistic once (model sheet and cortex) and writes the report (HTML from
``templates/report.html``, PNG figures, ``results.nc``, ``summary.json``), calling one named
stage after the other: :func:`map_layers`, :func:`load_map_stimuli`,
:func:`training_images`, :func:`check_sheet_layers`, :func:`model_topography`,
:func:`cortex_topography`, :func:`compare_model_cortex`. :func:`run_language_map` does the
same for a language model and the language network, with its own named stages
(:func:`language_layers`, :func:`load_language_stimuli`, :func:`language_units`,
:func:`language_model_topography`, :func:`language_cortex`). :func:`prepare` draws the vision
job's cortex side once, into the null cache, before its first run (``toponeuro prepare``).
"""

from ._kit.headline import HEADLINE_RULE, choose_headline
from ._kit.schema import SUMMARY_SCHEMAS, summary_schema
from ._language import fit as _language_fit
from ._language import stages as _language_stages
from ._language import verbs as _language_verbs
from ._language.fit import *  # noqa: F403 - the model-vs-cortex comparisons and the headline rule
from ._language.job import (
    DEFAULT_LANGUAGE_MODEL,
    LanguageMapResult,
    language_verdict,
    run_language_map,
)
from ._language.results import format_language_summary
from ._language.stages import *  # noqa: F403 - the named stages of run_language_map
from ._language.verbs import *  # noqa: F403 - the verb - noun stage (TopoLM's fMRI fit)
from ._prepare import prepare
from ._vision import ruler as _ruler_stage
from ._vision import stages as _stages
from ._vision.job import CORTEX_DOMAINS, DEFAULT_MAP_MODEL, MAP_DOMAINS, MapResult, run_map
from ._vision.ruler import *  # noqa: F403 - the one-ruler stage of run_map
from ._vision.stages import *  # noqa: F403 - the named stages of run_map
from ._vision.terminal import format_summary
from ._vision.words import comparison_view

__all__ = [
    "DEFAULT_MAP_MODEL",
    "MAP_DOMAINS",
    "CORTEX_DOMAINS",
    "MapResult",
    "run_map",
    "prepare",
    "DEFAULT_LANGUAGE_MODEL",
    "run_language_map",
    "LanguageMapResult",
    "language_verdict",
    "format_language_summary",
    "format_summary",
    "comparison_view",
    "summary_schema",
    "SUMMARY_SCHEMAS",
    "HEADLINE_RULE",
    "choose_headline",
    *_stages.__all__,
    *_ruler_stage.__all__,
    *_language_stages.__all__,
    *_language_verbs.__all__,
    *_language_fit.__all__,
]
