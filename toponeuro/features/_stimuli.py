"""What ``extract`` accepts as stimuli: a StimulusSet, or a list it becomes one of.

A :class:`~toponeuro.stimuli.StimulusSet` (or any object with its interface: ``.ids``,
``.categories``, ``.kind``, ``len()``, ``.get(i)``, ``.content_hash()``) is used as is.
Anything else iterable (image paths, PIL images, tensors, or texts) becomes one with
:meth:`StimulusSet.from_items <toponeuro.stimuli.StimulusSet.from_items>`: ids
``"stim-0000"`` ..., the one content hash of :meth:`StimulusSet.content_hash`.
"""

from __future__ import annotations

import numpy as np

from .._util.constraints import STIMULUS_ITEMS, HasAttributes
from .._util.params import validate_params
from ..exceptions import InvalidDataError
from ..stimuli import StimulusSet

__all__ = ["as_stimuli"]


#: what extract reads of a StimulusSet (any object with its interface is used as is)
_STIMULUS_SET = HasAttributes(("ids", "kind", "get", "content_hash", "__len__"),
                              "a StimulusSet")


def _is_stimulus_set(obj) -> bool:
    return _STIMULUS_SET.is_satisfied_by(obj)


@validate_params({"stimuli": [_STIMULUS_SET, STIMULUS_ITEMS]})
def as_stimuli(stimuli):
    """Return ``stimuli`` as a StimulusSet (or an object with its interface), checked.

    Parameters
    ----------
    stimuli : StimulusSet or sequence
        A StimulusSet (or an object with its interface: ``stimulus_ids``, ``modality``,
        ``load`` ...), or a list of images or texts to wrap.

    Returns
    -------
    StimulusSet
        ``stimuli`` itself when it has the interface, else a StimulusSet of the items.

    Examples
    --------
    >>> s = as_stimuli(["a face", "a house"])
    >>> type(s).__name__, s.kind, len(s)
    ('StimulusSet', 'text', 2)
    >>> as_stimuli(s) is s
    True
    """
    if not _is_stimulus_set(stimuli):
        return StimulusSet.from_items(stimuli)
    if len(stimuli) == 0:
        raise InvalidDataError(
            "The StimulusSet is empty; select at least one stimulus before extracting."
        )
    if stimuli.kind not in ("image", "text"):
        raise InvalidDataError(f"StimulusSet.kind must be 'image' or 'text'; got {stimuli.kind!r}.")
    ids = np.asarray(stimuli.ids).astype(str)
    if len(ids) != len(stimuli) or len(np.unique(ids)) != len(ids):
        raise InvalidDataError(
            f"The StimulusSet has {len(stimuli)} stimuli but {len(np.unique(ids))} unique "
            "ids; every stimulus needs its own id."
        )
    return stimuli
