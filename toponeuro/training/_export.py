"""Turn a training checkpoint into a compact weights file (how the demo TopoNets are shipped)."""

from __future__ import annotations

import os
from pathlib import Path

import torch

from .._io.fetch import sha256sum
from .._io.output import save_torch
from .._util.params import Boolean, validate_params
from ..exceptions import CheckpointError
from ._train import load_checkpoint

__all__ = ["export_weights"]


@validate_params({"half": Boolean()})
def export_weights(
    checkpoint: str | os.PathLike, out: str | os.PathLike, *, half: bool = True
) -> str:
    """Save the model state dict of a ``toponeuro train`` checkpoint as a plain weights file.

    Floating-point tensors are stored as float16 when ``half`` (half the size; loading with
    ``model.load_state_dict`` casts them back to the model's float32); integer buffers
    (``num_batches_tracked``) are kept. Optimizer state, history and recipe are dropped.

    Parameters
    ----------
    checkpoint : path-like
        An ``epoch_XXX.pt`` file written by :func:`train`.
    out : path-like
        The weights file to write (a plain ``state_dict`` saved by ``torch.save``).
    half : bool
        Store floating tensors as float16.

    Returns
    -------
    str
        The sha256 of the written file (what a model card records).

    Examples
    --------
    >>> import tempfile, os
    >>> from torch import nn
    >>> d = tempfile.mkdtemp()
    >>> net = nn.Linear(3, 2)
    >>> torch.save({"model": net.state_dict(), "epoch": 1}, os.path.join(d, "epoch_001.pt"))
    >>> sha = export_weights(os.path.join(d, "epoch_001.pt"), os.path.join(d, "w.pt"))
    >>> state = torch.load(os.path.join(d, "w.pt"), weights_only=True)
    >>> state["weight"].dtype, len(sha)
    (torch.float16, 64)
    >>> net.load_state_dict(state); net.weight.dtype
    <All keys matched successfully>
    torch.float32
    """
    ckpt = load_checkpoint(checkpoint)
    state = ckpt["model"]
    if not isinstance(state, dict) or not state:
        raise CheckpointError(f"{checkpoint} holds no model state dict.")
    out_state = {
        k: (v.detach().to(torch.float16) if half and v.is_floating_point() else v.detach())
        .clone()
        .contiguous()
        for k, v in state.items()
    }
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    save_torch(out_state, out)
    return sha256sum(out)
