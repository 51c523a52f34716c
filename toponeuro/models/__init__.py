"""The model zoo: released TopoNets and their baselines, by ``arch.tag`` name.

``create_model(name, pretrained=True)`` builds the architecture and loads its weights
(sha256-verified, safely unpickled); ``model_card(name)`` says where they come from, how to
preprocess inputs and which layers carried TopoLoss.
"""

from ._blocks import BlurPoolConv2d, add_blurpool
from ._catalog import WEIGHTS_STATUSES, describe_models, weights_status
from ._layers import list_layers
from ._registry import (
    CHECKPOINT_FORMATS,
    ModelCard,
    create_model,
    list_models,
    load_checkpoint,
    model_card,
    register_model,
)
from ._small import SmallResNet, small_resnet_topo_layers
from ._tokenizers import load_tokenizer

__all__ = [
    "BlurPoolConv2d",
    "add_blurpool",
    "SmallResNet",
    "small_resnet_topo_layers",
    "ModelCard",
    "CHECKPOINT_FORMATS",
    "register_model",
    "list_models",
    "model_card",
    "create_model",
    "load_checkpoint",
    "load_tokenizer",
    "list_layers",
    "describe_models",
    "weights_status",
    "WEIGHTS_STATUSES",
    "GPT",
    "GPTConfig",
]


def __getattr__(name):
    # torch-heavy architecture modules load on first use
    if name in ("GPT", "GPTConfig"):
        from . import _nanogpt

        return getattr(_nanogpt, name)
    raise AttributeError(f"module 'toponeuro.models' has no attribute {name!r}")
