"""NanoGPT (the language TopoNets' architecture) for exported brainscore-language plugins.

Copied verbatim into language plugins as ``toponet_nanogpt.py``, next to ``toponet_arch.py``
(whose hash-checked ``fetch_weights``/``load_state_dict`` it reuses). Imports only torch.
Module names follow nanoGPT (``transformer.h.<i>.mlp.c_fc`` ...), so a layer commitment
such as ``transformer.h.5`` names the output of block 5.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

__all__ = ["NanoGPT", "build_nanogpt", "nanogpt_config"]


class _SelfAttention(nn.Module):
    def __init__(self, n_embd, n_head, bias):
        super().__init__()
        self.n_head = n_head
        self.c_attn = nn.Linear(n_embd, 3 * n_embd, bias=bias)
        self.c_proj = nn.Linear(n_embd, n_embd, bias=bias)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.c_attn(x).split(c, dim=2)
        q, k, v = (z.view(b, t, self.n_head, c // self.n_head).transpose(1, 2) for z in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.c_proj(y.transpose(1, 2).contiguous().view(b, t, c))


class _MLP(nn.Module):
    def __init__(self, n_embd, bias):
        super().__init__()
        self.c_fc = nn.Linear(n_embd, 4 * n_embd, bias=bias)
        self.gelu = nn.GELU()
        self.c_proj = nn.Linear(4 * n_embd, n_embd, bias=bias)

    def forward(self, x):
        return self.c_proj(self.gelu(self.c_fc(x)))


class _Block(nn.Module):
    def __init__(self, n_embd, n_head, bias):
        super().__init__()
        self.ln_1 = nn.LayerNorm(n_embd, bias=bias)
        self.attn = _SelfAttention(n_embd, n_head, bias)
        self.ln_2 = nn.LayerNorm(n_embd, bias=bias)
        self.mlp = _MLP(n_embd, bias)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class NanoGPT(nn.Module):
    """A GPT-2-style decoder: token + position embeddings, pre-LN blocks, tied LM head."""

    def __init__(self, vocab_size=50304, block_size=1024, n_layer=12, n_head=12, n_embd=768,
                 bias=True):
        super().__init__()
        if n_embd % n_head:
            raise ValueError(f"n_embd={n_embd} is not divisible by n_head={n_head}")
        self.block_size = block_size
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(vocab_size, n_embd),
            wpe=nn.Embedding(block_size, n_embd),
            h=nn.ModuleList([_Block(n_embd, n_head, bias) for _ in range(n_layer)]),
            ln_f=nn.LayerNorm(n_embd, bias=bias),
        ))
        self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)
        self.lm_head.weight = self.transformer.wte.weight
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.normal_(p, 0.0, 0.02 / math.sqrt(2 * n_layer))

    def forward(self, idx):
        """``idx`` (batch, time) token ids -> logits (batch, time, vocab)."""
        t = idx.shape[1]
        if t > self.block_size:
            raise ValueError(f"sequence of {t} tokens exceeds the block size {self.block_size}")
        pos = torch.arange(t, device=idx.device)
        x = self.transformer.wte(idx) + self.transformer.wpe(pos)
        for block in self.transformer.h:
            x = block(x)
        return self.lm_head(self.transformer.ln_f(x))


def nanogpt_config(state_dict, n_head=None) -> dict:
    """Read the NanoGPT config off a state dict; ``n_head`` defaults to ``n_embd // 64``."""
    vocab_size, n_embd = state_dict["transformer.wte.weight"].shape
    block_size = state_dict["transformer.wpe.weight"].shape[0]
    n_layer = 1 + max(int(k.split(".")[2]) for k in state_dict if k.startswith("transformer.h."))
    bias = "transformer.ln_f.bias" in state_dict
    return dict(vocab_size=int(vocab_size), block_size=int(block_size), n_layer=n_layer,
                n_head=int(n_head or max(1, n_embd // 64)), n_embd=int(n_embd), bias=bias)


def build_nanogpt(state_dict, n_head=None) -> NanoGPT:
    """Build a NanoGPT sized from ``state_dict``, load it (strict), eval mode."""
    state_dict = {k: v for k, v in state_dict.items() if not k.endswith(".attn.bias")}  # masks
    model = NanoGPT(**nanogpt_config(state_dict, n_head=n_head))
    if "lm_head.weight" not in state_dict:
        state_dict = {**state_dict, "lm_head.weight": state_dict["transformer.wte.weight"]}
    model.load_state_dict(state_dict, strict=True)
    return model.eval()
