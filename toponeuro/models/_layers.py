"""``list_layers``: the modules of a model that ``extract`` can read, with their unit counts.

The peers' equivalents are THINGSvision's ``show_model`` and Net2Brain's ``get_all_layers``;
this one also says how many units each layer gives ``extract`` (pooled as ``extract`` pools
them by default) and the cortical sheet those units are laid on.
"""

from __future__ import annotations

import pandas as pd

from .._util.params import Boolean, validate_params
from ..exceptions import InputTypeError, SheetError
from ..sheet import sheet_shape

__all__ = ["list_layers", "LAYER_TABLE_COLUMNS"]

#: columns of the table :func:`list_layers` returns
LAYER_TABLE_COLUMNS = ("layer", "type", "output_shape", "n_units", "sheet_shape", "topo")

# tokens of the dummy text the probe runs through language models
_PROBE_TOKENS = 8


def _resolve(model):
    from torch import nn

    from ._factory import create_model
    from ._registry import ModelCard

    if isinstance(model, str):
        module = create_model(model)  # the architecture is enough: no weights are read
        return module, module.model_card
    if (
        isinstance(model, (tuple, list))
        and len(model) == 2
        and isinstance(model[0], nn.Module)
        and (model[1] is None or isinstance(model[1], ModelCard))
    ):
        return model[0], model[1]
    if isinstance(model, nn.Module):
        return model, getattr(model, "model_card", None)
    raise InputTypeError(
        f"model must be a registered name, an nn.Module or a (module, ModelCard) pair; got "
        f"{type(model).__name__}."
    )


def _probe_input(module, card, input_shape):
    import torch

    if input_shape is not None:
        return torch.zeros((1, *map(int, input_shape)))
    if card is None:
        return None
    if card.modality == "language":
        return torch.zeros((1, _PROBE_TOKENS), dtype=torch.long)
    if card.input_size:
        return torch.zeros((1, 3, int(card.input_size), int(card.input_size)))
    return None


def _static_units(mod) -> int | None:
    """Units of a module whose output width its own parameters fix (conv, linear, norm)."""
    for attr in ("out_channels", "out_features", "num_features", "embedding_dim"):
        value = getattr(mod, attr, None)
        if isinstance(value, int) and value > 0:
            return value
    shape = getattr(mod, "normalized_shape", None)
    if isinstance(shape, tuple) and len(shape) == 1:
        return int(shape[0])
    return None


def _pooled_units(shape: tuple[int, ...]) -> int | None:
    # as extract pools by default: conv maps (B, C, H, W) -> C; tokens (B, T, D) -> D
    if len(shape) in (2, 3, 4):
        return int(shape[1] if len(shape) == 4 else shape[-1])
    return None


@validate_params({"probe": Boolean()})
def list_layers(model, *, input_shape=None, probe: bool = True) -> pd.DataFrame:
    """The modules of ``model`` that :func:`toponeuro.features.extract` can read.

    One row per named module (the model itself excluded), in the model's order. Unit counts
    come from one forward pass of a blank input (an image of the card's ``input_size``, or
    eight tokens for a language model), so they hold for every module the model calls;
    without a card or with ``probe=False`` they are read off the module's own size (convs,
    linear layers, norms) and are missing for the rest.

    Parameters
    ----------
    model : str, torch.nn.Module or (module, ModelCard)
        A registered name (the architecture is built without weights, nothing is
        downloaded), a module (its ``model_card`` attribute is used when present), or a
        module with its card.
    input_shape : tuple of int, optional
        Shape of one input without the batch dimension, e.g. ``(3, 32, 32)``, for models
        without a card (or to override the card's input size).
    probe : bool
        Run the forward pass that measures each module's output. ``False`` reads sizes off
        the modules only (no computation).

    Returns
    -------
    pandas.DataFrame
        Columns ``layer`` (the name to pass to ``extract``), ``type`` (module class),
        ``output_shape`` (of one input, without the batch dimension; ``None`` when not
        measured or not a tensor), ``n_units`` (units ``extract`` gives with its default
        pooling: channels of a conv map, features of a token sequence; ``<NA>`` when
        unknown, and for a module the probed forward pass never calls or calls more than
        once, which ``extract`` cannot read either), ``sheet_shape`` (``(rows, cols)`` of the cortical sheet of those units) and
        ``topo`` (the card lists the layer as a TopoLoss layer, i.e. ``layers="topo"``).

    Raises
    ------
    UnknownNameError
        An unknown registered name (close matches listed).

    Examples
    --------
    >>> from toponeuro.models import SmallResNet
    >>> table = list_layers(SmallResNet(widths=(8, 16, 16, 32)), input_shape=(3, 32, 32))
    >>> rows = table[table.layer.isin(["layer1.0.conv1", "fc"])]
    >>> print(rows[["layer", "output_shape", "n_units", "sheet_shape"]].to_string(index=False))
             layer output_shape  n_units sheet_shape
    layer1.0.conv1  (8, 16, 16)        8      (2, 4)
                fc        (10,)       10      (2, 5)
    >>> list_layers("toponet_demo.v2_tau_0").query("topo").shape[0]
    8
    """
    import torch

    module, card = _resolve(model)
    topo = set(card.topo_layers) if card is not None else set()
    named = [(n, m) for n, m in module.named_modules() if n]
    shapes: dict[str, tuple[int, ...] | None] = {}
    again: set[str] = set()  # modules the forward pass runs more than once
    x = _probe_input(module, card, input_shape) if probe else None
    if x is not None:
        handles = []

        def hook(name):
            def _record(_mod, _inp, out):
                out = out[0] if isinstance(out, (tuple, list)) and out else out
                if hasattr(out, "last_hidden_state"):
                    out = out.last_hidden_state
                if name in shapes:
                    again.add(name)
                shapes[name] = tuple(out.shape[1:]) if isinstance(out, torch.Tensor) else None

            return _record

        for name, mod in named:
            handles.append(mod.register_forward_hook(hook(name)))
        was_training = module.training
        module.eval()
        try:
            with torch.inference_mode():
                module(x)
        finally:
            for h in handles:
                h.remove()
            module.train(was_training)
    rows = []
    for name, mod in named:
        shape = shapes.get(name)
        if name in again:  # several outputs (a reused ReLU): extract refuses it
            units = None
        elif name in shapes:  # measured (None: the output is not a tensor)
            units = _pooled_units((1, *shape)) if shape is not None else None
        elif shapes:  # probed, but the forward pass never calls it: extract cannot read it
            units = None
        else:
            units = _static_units(mod)
        try:
            sheet = sheet_shape(units) if units else None
        except SheetError:
            sheet = None
        rows.append((name, type(mod).__name__, shape, units, sheet, name in topo))
    table = pd.DataFrame(rows, columns=list(LAYER_TABLE_COLUMNS))
    table["n_units"] = table["n_units"].astype("Int64")
    table.attrs["model"] = card.name if card is not None else type(module).__name__
    table.attrs["probed"] = bool(shapes)
    return table

