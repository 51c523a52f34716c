"""The model zoo: released TopoNets and their baselines, by ``arch.tag`` name.

``create_model(name, pretrained=True)`` builds the architecture and loads its weights
(sha256-verified, safely unpickled); ``model_card(name)`` says where they come from, how to
preprocess inputs and which layers carried TopoLoss.

The cards are data (``cards.toml``); the builder modules imported here register their
architectures by name (as timm's ``models/__init__.py`` does), and the registry imports none
of them.
"""

# the builder modules register their architectures on import
from . import _hf, _nanogpt, _vision  # noqa: F401
from ._blocks import BlurPoolConv2d, add_blurpool
from ._catalog import WEIGHTS_STATUSES, describe_models, weights_status
from ._layers import list_layers
from ._nanogpt import GPT, GPTConfig
from ._registry import (
    CHECKPOINT_FORMATS,
    ModelCard,
    create_model,
    list_models,
    load_checkpoint,  # noqa: F401 - deprecated alias of load_weights, not in __all__
    load_weights,
    model_card,
    register_builder,
    register_model,
)
from ._small import SmallResNet, small_resnet_topo_layers
from ._surgery import downsample_weights, prune_weights, restoring, sheet_units, unit_hooks
from ._tokenizers import load_tokenizer

__all__ = [
    "restoring",
    "sheet_units",
    "unit_hooks",
    "prune_weights",
    "downsample_weights",
    "BlurPoolConv2d",
    "add_blurpool",
    "SmallResNet",
    "small_resnet_topo_layers",
    "ModelCard",
    "CHECKPOINT_FORMATS",
    "register_model",
    "register_builder",
    "list_models",
    "model_card",
    "create_model",
    "load_weights",
    "load_tokenizer",
    "list_layers",
    "describe_models",
    "weights_status",
    "WEIGHTS_STATUSES",
    "GPT",
    "GPTConfig",
]
