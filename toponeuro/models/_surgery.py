"""Model surgery on sheet layers: lesion or pool units, prune or downsample weights.

Each edit is temporary: use it inside :func:`restoring` (weights, buffers and train/eval
modes come back afterwards), as :func:`toponeuro.analysis.efficiency_curve` does.
"""

from __future__ import annotations

import contextlib
import copy
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from numbers import Real

from .._util.constraints import MAPPING, TorchModule
from .._util.params import Interval, Text, validate_params
from ..exceptions import InvalidDataError, UnknownNameError, close_matches
from ..sheet import sheet_shape

__all__ = [
    "restoring",
    "sheet_units",
    "unit_hooks",
    "prune_weights",
    "downsample_weights",
]


def _module(model, name: str):
    try:
        return model.get_submodule(name)
    except AttributeError:
        names = [n for n, _ in model.named_modules() if n]
        raise UnknownNameError(
            f"{type(model).__name__} has no layer {name!r}; {close_matches(name, names)}"
        ) from None


def _weight(model, name: str):
    from ..topoloss import layer_weight

    _module(model, name)
    return layer_weight(model, name)[0]


@validate_params(dict(model=TorchModule(), name=Text()))
def sheet_units(model, name: str) -> int:
    """Number of units (output channels / features) of a conv or linear sheet layer.

    Parameters
    ----------
    model : torch.nn.Module
        The network.
    name : str
        A module name of ``model`` (``list_layers``).

    Returns
    -------
    int
        The layer's units on the sheet (output channels of a conv, features of a linear).

    Examples
    --------
    >>> import torch
    >>> sheet_units(torch.nn.Sequential(torch.nn.Linear(3, 16)), "0")
    16
    """
    return int(_weight(model, name).shape[0])


@validate_params(dict(model=TorchModule()))
@contextlib.contextmanager
def restoring(model) -> Iterator:
    """Context in which ``model`` may be edited: its state and modes come back on exit.

    Parameters
    ----------
    model : torch.nn.Module
        The network whose weights are restored on exit.

    Yields
    ------
    torch.nn.Module
        ``model``, to change freely inside the ``with`` block.

    Examples
    --------
    >>> import torch
    >>> net = torch.nn.Linear(2, 2)
    >>> with restoring(net):
    ...     _ = net.weight.data.zero_()
    >>> bool(net.weight.abs().sum() > 0)
    True
    """
    saved = copy.deepcopy(model.state_dict())
    modes = {m: m.training for m in model.modules()}
    try:
        yield model
    finally:
        model.load_state_dict(saved)
        for m, t in modes.items():
            m.train(t)


def _channel_dim(out, n: int, name: str) -> int:
    if out.ndim >= 2 and out.shape[1] == n and out.ndim != 3:
        return 1
    if out.shape[-1] == n:
        return out.ndim - 1
    raise InvalidDataError(
        f"Layer {name!r} outputs shape {tuple(out.shape)}; cannot find its {n} units (expected "
        "them on dim 1 for conv / linear outputs or on the last dim)."
    )


@validate_params(dict(model=TorchModule(), edits=MAPPING))
@contextlib.contextmanager
def unit_hooks(model, edits: Mapping[str, Callable]) -> Iterator:
    """Forward hooks that rewrite layers' outputs, unit axis last: ``edits[name](out)``.

    Parameters
    ----------
    model : torch.nn.Module
        The network; its modules are not changed, only hooked while the block runs.
    edits : mapping layer name -> callable
        Each callable gets the layer's output with its units on the last axis (e.g.
        ``(batch, h, w, units)`` for a conv) and returns the replacement.

    Yields
    ------
    torch.nn.Module
        ``model``, whose forward passes inside the ``with`` block are edited.

    Examples
    --------
    >>> import torch
    >>> net = torch.nn.Sequential(torch.nn.Linear(3, 4))
    >>> with unit_hooks(net, {"0": lambda t: t * 0}):
    ...     float(net(torch.ones(1, 3)).abs().sum())
    0.0
    """
    handles = []
    try:
        for name, fn in edits.items():
            n = sheet_units(model, name)

            def hook(_mod, _inp, out, n=n, name=name, fn=fn):
                dim = _channel_dim(out, n, name)
                return fn(out.movedim(dim, -1)).movedim(-1, dim)

            handles.append(_module(model, name).register_forward_hook(hook))
        yield model
    finally:
        for h in handles:
            h.remove()


@validate_params({"fraction": Interval(Real, 0, 1, closed="both")})
def prune_weights(model, layers: Sequence[str], fraction: float) -> float:
    """Zero, in place, the ``fraction`` of each layer's weights smallest in magnitude.

    Returns the fraction of the layers' weights that are zero afterwards (ties at the
    cut are zeroed too). Use inside :func:`restoring`.

    Parameters
    ----------
    model : torch.nn.Module
        The network, changed in place.
    layers : sequence of str
        Module names whose weights are pruned.
    fraction : float
        Share of weights set to zero in each layer, in [0, 1].

    Returns
    -------
    float
        The share of the layers' weights that is zero afterwards.

    Examples
    --------
    >>> import torch
    >>> net = torch.nn.Sequential(torch.nn.Linear(4, 4))
    >>> with restoring(net):
    ...     prune_weights(net, ["0"], 0.5)
    0.5
    """
    import torch

    weights = [_weight(model, name) for name in layers]
    total = sum(w.numel() for w in weights)
    zeroed = 0
    with torch.no_grad():
        for w in weights:
            k = int(round(float(fraction) * w.numel()))
            if k:
                mask = w.abs() <= w.abs().flatten().kthvalue(k).values
                zeroed += int(mask.sum())
                w.masked_fill_(mask, 0.0)
    return zeroed / total


@validate_params({"keep": Interval(Real, 0, 1, closed="right")})
def downsample_weights(model, layers: Sequence[str], keep: float, *,
                       mode: str = "bilinear") -> float:
    """Keep ``keep`` of each layer's weights by shrinking its cortical sheet, in place.

    Each layer's weights are laid on its sheet as TopoLoss sees them
    (:func:`toponeuro.topoloss.sheet_tensor`: an ``h x w`` grid of units, each holding its
    incoming weights), resized down to ``h' x w'`` with ``h' w' ~= keep * h w`` (antialiased
    ``mode`` interpolation) and back up to ``h x w`` (``mode`` interpolation); the
    layer then holds only ``h' w'`` distinct units' worth of parameters. Biases are left
    as they are. ``keep = 1`` leaves the layer unchanged.

    Parameters
    ----------
    model : torch.nn.Module
        The network, changed in place.
    layers : sequence of str
        Conv / linear sheet layers.
    keep : float
        Fraction of the sheet's parameters kept, in (0, 1].
    mode : {"bilinear", "bicubic"}
        Interpolation of ``torch.nn.functional.interpolate``.

    Returns
    -------
    float
        The fraction kept, ``sum h' w' / sum h w`` over the layers' units.

    Examples
    --------
    >>> import torch
    >>> net = torch.nn.Sequential(torch.nn.Linear(32, 64))  # 64 units: an 8 x 8 sheet
    >>> with restoring(net):
    ...     kept = downsample_weights(net, ["0"], 0.25)  # through a 4 x 4 sheet
    ...     rank = int(torch.linalg.matrix_rank(net[0].weight))
    >>> kept, rank  # 16 units' worth of weights left: rank 16 instead of 32
    (0.25, 16)
    """
    import torch
    import torch.nn.functional as F

    kept = total = 0
    with torch.no_grad():
        for name in layers:
            w = _weight(model, name)
            h, wd = sheet_shape(w.shape[0])
            total += h * wd
            if keep == 1.0:
                kept += h * wd
                continue
            hs = max(1, round(h * math.sqrt(keep)))
            ws = max(1, round(wd * math.sqrt(keep)))
            kept += hs * ws
            img = w.detach().reshape(h, wd, -1).permute(2, 0, 1)[None].float()  # (1, e, h, w)
            small = F.interpolate(img, size=(hs, ws), mode=mode, align_corners=False,
                                  antialias=True)
            back = F.interpolate(small, size=(h, wd), mode=mode, align_corners=False)
            w.copy_(back[0].permute(1, 2, 0).reshape(w.shape).to(w.dtype))
    return kept / total

