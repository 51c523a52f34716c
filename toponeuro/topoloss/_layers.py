"""Read a layer's parameters as a cortical sheet tensor ``(height, width, features)``."""

from __future__ import annotations

import torch
from torch import nn

from .._util.constraints import TorchModule
from .._util.params import Options, Text, validate_params
from ..exceptions import UnknownNameError, UnsupportedLayerError, close_matches
from ..sheet import sheet_shape

TARGETS = ("weight", "bias", "input")


def resolve(model: nn.Module, name: str) -> nn.Module | torch.Tensor:
    """The module or parameter at dotted path ``name`` inside ``model``."""
    if name == "":
        return model
    obj = model
    for part in name.split("."):
        if isinstance(obj, nn.Module) and part in obj._modules:
            obj = obj._modules[part]
        elif hasattr(obj, part):
            obj = getattr(obj, part)
        else:
            names = [n for n, _ in model.named_modules() if n] + [
                n for n, _ in model.named_parameters()
            ]
            raise UnknownNameError(
                f"{type(model).__name__} has no layer or parameter {name!r}; "
                f"{close_matches(name, names)}"
            )
    return obj


def _is_hf_conv1d(module: nn.Module) -> bool:
    # transformers' GPT-2 style Conv1D stores weight as (in_features, out_features)
    return type(module).__name__ == "Conv1D" and hasattr(module, "nf")


@validate_params(dict(model=TorchModule(), name=Text()))
def layer_weight(model: nn.Module, name: str) -> tuple[torch.Tensor, torch.Tensor | None]:
    """``(weight, bias)`` with weight shaped ``(out, in)`` or ``(out, in, kh, kw)``.

    Accepts ``nn.Conv2d``, ``nn.Linear``, transformers' ``Conv1D`` (transposed), a wrapper
    whose single conv lives at ``.conv`` (BlurPool), or a 2-D / 4-D parameter named by its
    attribute path (``"rnn.weight_hh_l0"``, ``"attn.in_proj_weight"``).

    Parameters
    ----------
    model : torch.nn.Module
        The network.
    name : str
        A module name, or the attribute path of a 2-D / 4-D parameter.

    Returns
    -------
    weight : torch.Tensor
        The weight, shaped ``(out, in)`` or ``(out, in, kh, kw)`` (the tensor itself, not a copy).
    bias : torch.Tensor or None
        The bias, ``None`` when the layer has none.

    Examples
    --------
    >>> net = nn.Sequential(nn.Conv2d(3, 16, 3), nn.ReLU(), nn.Linear(16, 4))
    >>> weight, bias = layer_weight(net, "0")
    >>> tuple(weight.shape), tuple(layer_weight(net, "2")[0].shape)
    ((16, 3, 3, 3), (4, 16))
    """
    obj = resolve(model, name)
    if isinstance(obj, torch.Tensor):
        if obj.ndim not in (2, 4):
            raise UnsupportedLayerError(
                f"Parameter {name!r} has {obj.ndim} dims (shape {tuple(obj.shape)}); TopoLoss "
                "needs a 2-D (out, in) or 4-D (out, in, kh, kw) weight."
            )
        return obj, None
    module = obj
    if not isinstance(module, nn.Conv2d | nn.Linear) and isinstance(
        getattr(module, "conv", None), nn.Conv2d
    ):
        module = module.conv
    if isinstance(module, nn.Conv2d | nn.Linear):
        return module.weight, module.bias
    if _is_hf_conv1d(module):
        return module.weight.t(), module.bias
    raise UnsupportedLayerError(
        f"Layer {name!r} is a {type(module).__name__}; TopoLoss supports nn.Conv2d, nn.Linear "
        "(and transformers' Conv1D). For another module with a 2-D or 4-D weight, name the "
        f"parameter itself, e.g. '{name}.weight'."
    )


@validate_params(dict(model=TorchModule(), name=Text(), target=Options(TARGETS)))
def sheet_tensor(model: nn.Module, name: str, target: str = "weight") -> torch.Tensor:
    """The layer as a sheet: ``(h, w, e)`` for weight/input targets, ``(h, w)`` for bias.

    Parameters
    ----------
    model : torch.nn.Module
        The network.
    name : str
        The layer (as :func:`layer_weight`).
    target : {"weight", "input", "bias"}
        What lies on the sheet: each output unit's incoming weights, each input unit's
        outgoing weights (the sheet over the layer's inputs) or each unit's bias.

    Returns
    -------
    torch.Tensor
        ``(h, w, e)`` for ``"weight"`` / ``"input"``, ``(h, w)`` for ``"bias"``, on the
        layer's sheet (:func:`toponeuro.sheet_shape`).

    Examples
    --------
    >>> net = nn.Sequential(nn.Linear(8, 16))
    >>> tuple(sheet_tensor(net, "0").shape), tuple(sheet_tensor(net, "0", "bias").shape)
    ((4, 4, 8), (4, 4))
    """
    weight, bias = layer_weight(model, name)
    if target == "weight":
        h, w = sheet_shape(weight.shape[0])
        return weight.reshape(h, w, -1)
    if target == "input":
        if weight.ndim == 4:  # sheet over input channels, each unit's vector its fan-out
            weight = weight.transpose(0, 1).reshape(weight.shape[1], -1)
            h, w = sheet_shape(weight.shape[0])
            return weight.reshape(h, w, -1)
        h, w = sheet_shape(weight.shape[1])
        return weight.t().reshape(h, w, -1)
    if target == "bias":
        if bias is None:
            raise UnsupportedLayerError(
                f"Layer {name!r} has no bias; use target='weight' or build it with bias=True."
            )
        h, w = sheet_shape(bias.shape[0])
        return bias.reshape(h, w)
    raise UnsupportedLayerError(f"Unknown target {target!r}; choose one of {TARGETS}.")
