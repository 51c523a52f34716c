"""What a :class:`~toponeuro.stimuli.StimulusSet` is, for caches and alignment: its one
content hash (:func:`stimulus_hash`)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

__all__ = ["stimulus_hash"]


def _is_tensor(obj) -> bool:
    return hasattr(obj, "detach") and hasattr(obj, "shape")


def _pixel_bytes(obj) -> bytes:
    """Shape, dtype and values of an image, array or tensor, for the content hash."""
    if _is_tensor(obj):
        obj = obj.detach().cpu().numpy()
    elif hasattr(obj, "mode") and hasattr(obj, "tobytes"):  # a PIL image
        return f"pil:{obj.mode}:{obj.size}".encode() + obj.tobytes()
    arr = np.ascontiguousarray(np.asarray(obj))
    return f"{arr.shape}{arr.dtype}".encode() + arr.tobytes()


def stimulus_hash(kind: str, ids, items, loader=None) -> str:
    """sha256 (hex) over ``kind``, the ids and each stimulus' content, in order.

    Image files contribute their bytes, texts their UTF-8; what a ``loader`` returns (images,
    arrays, tensors or texts) contributes its pixels (or text). What
    :meth:`StimulusSet.content_hash <toponeuro.stimuli.StimulusSet.content_hash>` returns.

    Examples
    --------
    >>> stimulus_hash("text", ["a"], ["hello"]) == stimulus_hash("text", ["a"], ["hello!"])
    False
    """
    h = hashlib.sha256()
    h.update(f"toponeuro.StimulusSet\0{kind}\0{len(ids)}\0".encode())
    for sid, item in zip(ids, items):
        h.update(sid.encode() + b"\0")
        if kind == "text":
            obj = loader(item) if loader is not None else item
            data = str(obj).encode()
        elif loader is None:
            data = Path(item).read_bytes()
        else:
            data = _pixel_bytes(loader(item))
        h.update(hashlib.sha256(data).digest())
    return h.hexdigest()
