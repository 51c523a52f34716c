"""What ``extract`` accepts as stimuli, seen through one small interface.

A ``StimulusSet`` (``toponeuro.stimuli``) is used as is: ``.ids``, ``.categories``, ``.kind``,
``len()``, ``.get(i)``, ``.content_hash()``. Anything else iterable (image paths, PIL images,
tensors, or texts) is wrapped so it looks the same; its ids are ``"stim-0000"`` ... and its
content hash is computed here.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from ..exceptions import InvalidDataError

__all__ = ["as_stimuli", "ItemStimuli"]


def _is_stimulus_set(obj) -> bool:
    return all(hasattr(obj, a) for a in ("ids", "kind", "get", "content_hash", "__len__"))


def _item_kind(item) -> str:
    from PIL import Image

    if isinstance(item, Image.Image):
        return "image"
    if isinstance(item, Path):
        return "image"
    if isinstance(item, str):
        return "image" if os.path.isfile(item) else "text"
    if hasattr(item, "shape") and hasattr(item, "dtype"):  # torch tensor or numpy array
        return "image"
    raise InvalidDataError(
        f"Cannot use a {type(item).__name__} as a stimulus; expected an image path, a PIL "
        "image, a tensor (C, H, W), a text string, or a toponeuro StimulusSet."
    )


def _hash_item(h, item) -> None:
    from PIL import Image

    if isinstance(item, Image.Image):
        h.update(f"pil:{item.mode}:{item.size}".encode())
        h.update(item.tobytes())
    elif isinstance(item, (str, Path)) and os.path.isfile(item):
        with open(item, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
    elif isinstance(item, str):
        h.update(b"text:" + item.encode("utf-8"))
    else:
        arr = item.detach().cpu().numpy() if hasattr(item, "detach") else np.asarray(item)
        h.update(f"array:{arr.dtype}:{arr.shape}".encode())
        h.update(np.ascontiguousarray(arr).tobytes())
    h.update(b"\x00")


class ItemStimuli:
    """A list of image paths, PIL images, tensors or texts with the StimulusSet interface.

    Examples
    --------
    >>> s = ItemStimuli(["a face", "a house"])
    >>> s.kind, s.ids.tolist(), s.get(1)
    ('text', ['stim-0000', 'stim-0001'], 'a house')
    """

    def __init__(self, items: Iterable):
        self._items = list(items)
        if not self._items:
            raise InvalidDataError(
                "No stimuli: the stimulus list is empty. Pass at least one image path, PIL "
                "image, tensor or text (or a non-empty StimulusSet)."
            )
        kinds = {_item_kind(x) for x in self._items}
        if len(kinds) > 1:
            raise InvalidDataError(
                "Stimuli mix images and texts (a string that is not an existing file is read "
                "as text); pass only image paths/images/tensors or only texts."
            )
        self.kind = kinds.pop()
        self.ids = np.array([f"stim-{i:04d}" for i in range(len(self._items))])
        self.categories = None
        self._hash = None

    def __len__(self) -> int:
        return len(self._items)

    def get(self, i: int):
        item = self._items[i]
        if self.kind == "image" and not (hasattr(item, "shape") and hasattr(item, "dtype")):
            from ..stimuli import read_image

            return read_image(item)  # paths and PIL images; tensors pass through as given
        return item

    def content_hash(self) -> str:
        if self._hash is None:
            h = hashlib.sha256()
            for i, item in zip(self.ids, self._items):
                h.update(str(i).encode() + b"\x00")
                _hash_item(h, item)
            self._hash = h.hexdigest()
        return self._hash


def as_stimuli(stimuli):
    """Return ``stimuli`` as an object with the StimulusSet interface (checked non-empty)."""
    if _is_stimulus_set(stimuli):
        if len(stimuli) == 0:
            raise InvalidDataError(
                "The StimulusSet is empty; select at least one stimulus before extracting."
            )
        if stimuli.kind not in ("image", "text"):
            raise InvalidDataError(
                f"StimulusSet.kind must be 'image' or 'text'; got {stimuli.kind!r}."
            )
        ids = np.asarray(stimuli.ids).astype(str)
        if len(ids) != len(stimuli) or len(np.unique(ids)) != len(ids):
            raise InvalidDataError(
                f"The StimulusSet has {len(stimuli)} stimuli but {len(np.unique(ids))} unique "
                "ids; every stimulus needs its own id."
            )
        return stimuli
    if isinstance(stimuli, (str, Path)):
        raise InvalidDataError(
            f"Got a single {type(stimuli).__name__} {str(stimuli)!r}; pass a list of stimuli "
            "(e.g. [path] or [text]), or load a folder with toponeuro.stimuli."
        )
    if hasattr(stimuli, "shape") and hasattr(stimuli, "dtype") and len(stimuli.shape) == 4:
        stimuli = list(stimuli)  # a (N, C, H, W) batch tensor: one stimulus per row
    try:
        items = list(stimuli)
    except TypeError as err:
        raise InvalidDataError(f"Stimuli must be iterable; got {type(stimuli).__name__}.") from err
    return ItemStimuli(items)
