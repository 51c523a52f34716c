"""Feature extraction: stimuli -> model -> sheet-organised Activations.

``extract(model, stimuli, layers)`` hooks the named modules, pools conv maps per channel and
transformer tokens per unit, and returns an Activations DataArray (optionally streamed to an
on-disk, resumable store).
"""

from .._util.deprecate import removed_names
from ._extract import POOLINGS, TOKEN_POOLINGS, extract
from ._stimuli import as_stimuli
from ._store import ActivationStore, cache_key

#: names removed in 0.3.0 -> what replaces them (docs/changelog.rst)
__getattr__ = removed_names(__name__, {"ItemStimuli": "toponeuro.stimuli.StimulusSet.from_items"})

__all__ = [
    "extract",
    "POOLINGS",
    "TOKEN_POOLINGS",
    "as_stimuli",
    "cache_key",
    "ActivationStore",
]
