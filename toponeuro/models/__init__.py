"""The model zoo: released TopoNets and their baselines, by ``arch.tag`` name.

``load_model(name)`` / ``load_model(checkpoint=FILE)`` is the front door for a network;
``create_model(name, pretrained=True)`` builds the architecture and loads its weights
(sha256-verified, safely unpickled); ``model_card(name)`` says where they come from, how to
preprocess inputs and which layers carried TopoLoss.

The cards are data (``cards.toml``), and so are the architectures' hyper-parameters
(``architectures.toml``, read by ``architecture_config(name, size)``); the builder modules
imported here register their architectures by name (as timm's ``models/__init__.py``
does), and the registry imports none of them.
"""

from .._util.deprecate import removed_names
from . import (
    _architectures,
    _blocks,
    _catalog,
    _factory,
    _hf,  # noqa: F401 - the builder modules register their architectures on import
    _nanogpt,  # noqa: F401
    _registry,
    _small,
    _surgery,
    _tokenizers,
    _vision,  # noqa: F401
    _weights,
)
from ._architectures import *
from ._blocks import *
from ._catalog import *
from ._factory import *
from ._layers import list_layers
from ._nanogpt import GPT, GPTConfig
from ._registry import *
from ._small import *
from ._surgery import *
from ._tokenizers import *
from ._weights import *

__all__ = [
    *_surgery.__all__,
    *_blocks.__all__,
    *_small.__all__,
    *_registry.__all__,
    *_factory.__all__,
    *_weights.__all__,
    *_tokenizers.__all__,
    *_catalog.__all__,
    *_architectures.__all__,
    "list_layers",
    "GPT",
    "GPTConfig",
]

#: names removed in 0.3.0 -> what replaces them (docs/changelog.rst)
__getattr__ = removed_names(__name__, {"load_checkpoint": "toponeuro.models.load_weights (a "
                                       "weights file) or toponeuro.training.load_checkpoint "
                                       "(a training checkpoint)"})
