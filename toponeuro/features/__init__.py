"""Feature extraction: stimuli -> model -> sheet-organised Activations.

``extract(model, stimuli, layers)`` hooks the named modules, pools conv maps per channel and
transformer tokens per unit, and returns an Activations DataArray (optionally streamed to an
on-disk, resumable store).
"""

from ._extract import POOLINGS, TOKEN_POOLINGS, extract
from ._stimuli import ItemStimuli, as_stimuli  # noqa: F401 - ItemStimuli: deprecated alias
from ._store import ActivationStore, cache_key

__all__ = [
    "extract",
    "POOLINGS",
    "TOKEN_POOLINGS",
    "as_stimuli",
    "cache_key",
    "ActivationStore",
]
