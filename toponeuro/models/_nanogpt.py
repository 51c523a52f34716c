"""NanoGPT (Karpathy's GPT-2 style decoder) with its parameter names, and the GPT-2 BPE.

Parameter names follow nanoGPT (``transformer.wte``, ``transformer.h.N.mlp.c_fc`` ...), so the
released TopoNet NanoGPT checkpoints load with ``strict=True`` once the ``_orig_mod.`` prefix
that ``torch.compile`` adds is stripped. Its builder (``nanogpt``) is registered by
:mod:`._hf`, which imports this module (and torch) only when it builds.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from numbers import Real

import torch
import torch.nn.functional as F
from torch import nn

from .._util.frozen import validate_fields
from .._util.optional import optional_import
from .._util.params import COUNT, Boolean, InstanceOf, Interval, validate_params
from ..exceptions import DownloadError, InvalidDataError, MissingFileError, ParameterError

__all__ = ["GPTConfig", "GPT", "load_gpt2_tokenizer"]

#: what each field of a GPTConfig accepts (its declaration: checked when one is made)
_CONFIG_FIELDS = {
    **dict.fromkeys(("block_size", "vocab_size", "n_layer", "n_head", "n_embd"), COUNT),
    "dropout": Interval(Real, 0, 1, closed="left"),
    "bias": Boolean(),
}


@dataclass
@validate_fields(_CONFIG_FIELDS)
class GPTConfig:
    """Hyper-parameters of :class:`GPT` (defaults: the TopoNets NanoGPT, GPT-2 small size).

    Parameters
    ----------
    block_size : int
        Longest sequence, in tokens (the learned position embeddings).
    vocab_size : int
        Tokens of the vocabulary (GPT-2's 50,257 padded to 50,304).
    n_layer : int
        Transformer blocks.
    n_head : int
        Attention heads per block.
    n_embd : int
        Width of the residual stream.
    dropout : float
        Dropout rate (0 for inference).
    bias : bool
        Whether linear layers and layer norms have biases.

    Examples
    --------
    >>> GPTConfig(n_layer=2, n_head=2, n_embd=32, vocab_size=64, block_size=16).n_embd
    32
    """

    block_size: int = 1024
    vocab_size: int = 50304
    n_layer: int = 12
    n_head: int = 12
    n_embd: int = 768
    dropout: float = 0.0
    bias: bool = False



class _LayerNorm(nn.Module):
    def __init__(self, dim: int, bias: bool):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim)) if bias else None

    def forward(self, x):
        return F.layer_norm(x, self.weight.shape, self.weight, self.bias, 1e-5)


class _SelfAttention(nn.Module):
    def __init__(self, cfg: GPTConfig):
        super().__init__()
        if cfg.n_embd % cfg.n_head:
            raise ParameterError(f"n_embd ({cfg.n_embd}) must be a multiple of n_head ({cfg.n_head}).")
        self.c_attn = nn.Linear(cfg.n_embd, 3 * cfg.n_embd, bias=cfg.bias)
        self.c_proj = nn.Linear(cfg.n_embd, cfg.n_embd, bias=cfg.bias)
        self.resid_dropout = nn.Dropout(cfg.dropout)
        self.n_head = cfg.n_head
        self.dropout = cfg.dropout

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.c_attn(x).split(c, dim=2)
        shape = (b, t, self.n_head, c // self.n_head)
        q, k, v = (z.view(shape).transpose(1, 2) for z in (q, k, v))
        y = F.scaled_dot_product_attention(
            q, k, v, dropout_p=self.dropout if self.training else 0.0, is_causal=True
        )
        y = y.transpose(1, 2).contiguous().view(b, t, c)
        return self.resid_dropout(self.c_proj(y))


class _MLP(nn.Module):
    def __init__(self, cfg: GPTConfig):
        super().__init__()
        self.c_fc = nn.Linear(cfg.n_embd, 4 * cfg.n_embd, bias=cfg.bias)
        self.gelu = nn.GELU()
        self.c_proj = nn.Linear(4 * cfg.n_embd, cfg.n_embd, bias=cfg.bias)
        self.dropout = nn.Dropout(cfg.dropout)

    def forward(self, x):
        return self.dropout(self.c_proj(self.gelu(self.c_fc(x))))


class _Block(nn.Module):
    def __init__(self, cfg: GPTConfig):
        super().__init__()
        self.ln_1 = _LayerNorm(cfg.n_embd, cfg.bias)
        self.attn = _SelfAttention(cfg)
        self.ln_2 = _LayerNorm(cfg.n_embd, cfg.bias)
        self.mlp = _MLP(cfg)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    """A GPT-2 style causal language model with nanoGPT's module names.

    ``lm_head`` shares its weight with ``transformer.wte``. ``forward(idx)`` returns logits of
    shape ``(batch, tokens, vocab_size)``.

    Parameters
    ----------
    config : GPTConfig
        The hyper-parameters.

    Examples
    --------
    >>> model = GPT(GPTConfig(n_layer=2, n_head=2, n_embd=16, vocab_size=50, block_size=8))
    >>> model(torch.zeros(1, 5, dtype=torch.long)).shape
    torch.Size([1, 5, 50])
    >>> model.lm_head.weight is model.transformer.wte.weight
    True
    """

    @validate_params(dict(config=[InstanceOf(GPTConfig), None]))
    def __init__(self, config: GPTConfig | None = None):
        super().__init__()
        cfg = config or GPTConfig()
        self.config = cfg
        self.transformer = nn.ModuleDict(
            dict(
                wte=nn.Embedding(cfg.vocab_size, cfg.n_embd),
                wpe=nn.Embedding(cfg.block_size, cfg.n_embd),
                drop=nn.Dropout(cfg.dropout),
                h=nn.ModuleList([_Block(cfg) for _ in range(cfg.n_layer)]),
                ln_f=_LayerNorm(cfg.n_embd, cfg.bias),
            )
        )
        self.lm_head = nn.Linear(cfg.n_embd, cfg.vocab_size, bias=False)
        self.transformer.wte.weight = self.lm_head.weight
        self.apply(self._init_weights)
        for name, p in self.named_parameters():
            if name.endswith("c_proj.weight"):
                nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * cfg.n_layer))

    @staticmethod
    def _init_weights(module):
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        """Next-token logits of a batch of token sequences.

        Parameters
        ----------
        idx : torch.Tensor
            ``(batch, n_tokens)`` token ids, at most ``config.block_size`` tokens.

        Returns
        -------
        torch.Tensor
            ``(batch, n_tokens, vocab_size)`` logits.
        """
        t = idx.shape[1]
        if t > self.config.block_size:
            raise InvalidDataError(
                f"Sequence of {t} tokens is longer than the block size "
                f"{self.config.block_size}; truncate the text."
            )
        pos = torch.arange(t, device=idx.device)
        x = self.transformer.drop(self.transformer.wte(idx) + self.transformer.wpe(pos))
        for block in self.transformer.h:
            x = block(x)
        return self.lm_head(self.transformer.ln_f(x))


_GPT2_FILES = ("vocab.json", "merges.txt")


def load_gpt2_tokenizer(path=None, *, cache_dir=None):
    """The GPT-2 byte-level BPE tokenizer (``transformers.GPT2TokenizerFast``).

    Parameters
    ----------
    path : path-like, optional
        A folder holding ``vocab.json`` and ``merges.txt`` (for offline machines). Without it
        both files are fetched from the Hugging Face repo ``openai-community/gpt2`` into the
        cache (``<cache>/hf/openai-community/gpt2/``, where a hand-placed copy is used offline).

    Raises
    ------
    DownloadError
        Offline and no copy in the cache: names the files and where to put them.
    ImportError
        ``transformers`` is missing (install ``toponeuro[language]``).
    """
    GPT2TokenizerFast = optional_import(
        "transformers", "language", "The GPT-2 tokenizer"
    ).GPT2TokenizerFast
    if path is not None:
        files = [os.path.join(path, f) for f in _GPT2_FILES]
        missing = [f for f in files if not os.path.isfile(f)]
        if missing:
            raise MissingFileError(
                f"The GPT-2 tokenizer folder {path} lacks {missing}; it needs vocab.json and "
                "merges.txt from https://huggingface.co/openai-community/gpt2."
            )
    else:
        from .._io.fetch import fetch_hf_file

        try:
            files = [
                str(fetch_hf_file("openai-community/gpt2", f, cache_dir=cache_dir))
                for f in _GPT2_FILES
            ]
        except DownloadError as err:
            raise DownloadError(
                f"The GPT-2 BPE files are not available offline. {err} Alternatively pass "
                "path= a folder with vocab.json and merges.txt."
            ) from err
    return GPT2TokenizerFast.from_pretrained(os.path.dirname(files[0]))
