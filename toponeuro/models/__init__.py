"""The model zoo: released TopoNets and their baselines, by ``arch.tag`` name.

``load_model(name)`` / ``load_model(checkpoint=FILE)`` is the front door for a network;
``create_model(name, pretrained=True)`` builds the architecture and loads its weights
(sha256-verified, safely unpickled); ``model_card(name)`` says where they come from, how to
preprocess inputs and which layers carried TopoLoss.

The cards are data (``cards.toml``), and so are the architectures' hyper-parameters
(``architectures.toml``, read by ``architecture_config(name, size)``); the builder modules
imported here register their architectures by name (as timm's ``models/__init__.py``
does), and the registry imports none of them.

Importing this package imports no torch: the builders import it when they build, and the
classes that need it at definition (:class:`GPT`, :class:`SmallResNet`,
:class:`BlurPoolConv2d` ...) load on first use, so ``toponeuro models`` lists the registry
(``describe_models``) without torch.
"""

from .._util.deprecate import lazy_names
from . import (
    _architectures,
    _catalog,
    _factory,
    _hf,  # noqa: F401 - the builder modules register their architectures on import
    _registry,
    _small,
    _surgery,
    _tokenizers,
    _vision,  # noqa: F401
    _weights,
)
from ._architectures import *
from ._catalog import *
from ._factory import *
from ._layers import list_layers
from ._registry import *
from ._small import *
from ._surgery import *
from ._tokenizers import *
from ._weights import *

#: public name -> the module (it imports torch) that defines it, imported on first access
_LAZY = {
    "BlurPoolConv2d": "toponeuro.models._blocks",
    "add_blurpool": "toponeuro.models._blocks",
    "SmallResNet": "toponeuro.models._standalone",
    "GPT": "toponeuro.models._nanogpt",
    "GPTConfig": "toponeuro.models._nanogpt",
}

__all__ = [
    *_surgery.__all__,
    *_LAZY,
    *_small.__all__,
    *_registry.__all__,
    *_factory.__all__,
    *_weights.__all__,
    *_tokenizers.__all__,
    *_catalog.__all__,
    *_architectures.__all__,
    "list_layers",
]

#: the classes above on first access; names removed in 0.3.0 -> what replaces them
#: (docs/changelog.rst)
__getattr__, __dir__ = lazy_names(__name__, _LAZY, removed={
    "load_checkpoint": "toponeuro.models.load_weights (a weights file) or "
                       "toponeuro.training.load_checkpoint (a training checkpoint)"})
