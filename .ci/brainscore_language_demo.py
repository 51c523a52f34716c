"""End-to-end check of toponeuro's language export against brainscore-language itself
(.ci/brainscore_language.sh).

Runs in toponeuro's environment; brainscore-language 2.3.0 runs in the environment whose
Python is $TOPONEURO_BRAINSCORE_PYTHON (its own, .venv-bsl: it needs transformers < 5 and
numpy < 2). Steps:

1. A byte-level BPE tokenizer is trained on text that ships with Python (the standard
   library's docstrings; no download), saved as a Hugging Face tokenizer folder.
2. A toponeuro NanoGPT (``toponeuro.models.GPT``, 2 blocks, 64 dims, seed 0; or the
   registered NanoGPT-type language model named by $TOPONEURO_BSL_MODEL when it has packaged
   weights) is saved as a state dict and exported with ``toponeuro.brainscore.export_plugin``
   as a brainscore-language plugin (its language system read out from the last block).
3. In the brainscore-language environment (.ci/brainscore_language_score.py): the plugin is
   loaded by its registry name through ``brainscore_language.load_model``; its behavioural
   (reading times = surprisal, next word) and neural (language_system recordings) outputs
   are checked for shape and labels; the same weights are loaded into transformers'
   GPT2LMHeadModel and wrapped in brainscore-language's own ``HuggingfaceSubject``; both
   subjects are scored on SyntaxGym suites read from the files the released wheel ships
   (offline), and their scores and per-region surprisals compared.

Exits non-zero on any failure. Prints one JSON line with the numbers (also written to
$TOPONEURO_BRAINSCORE_WORK/bsl_result.json).
"""

from __future__ import annotations

import inspect
import json
import os
import pydoc
import subprocess
import sys
import time
from pathlib import Path

import torch

from toponeuro.brainscore import export_plugin, install_plugin
from toponeuro.models import GPT, GPTConfig, ModelCard

REPO = Path(__file__).resolve().parents[1]
IDENTIFIER = "toponeuro-lm-ci"
SUITES = ("number_prep",)  # 19 items x 4 conditions, the smallest suites


def log(msg):
    print(f"[brainscore-language-demo {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def corpus_lines(limit=4000):
    """Docstrings of the standard library: English text that ships with Python."""
    lines = []
    for name in ("collections", "json", "pathlib", "argparse", "logging", "string", "textwrap",
                 "functools", "itertools", "inspect", "unittest", "email", "http", "csv",
                 "datetime", "random", "statistics", "fractions", "decimal", "shutil"):
        mod = pydoc.safeimport(name)
        for _, obj in inspect.getmembers(mod):
            doc = inspect.getdoc(obj) or ""
            lines += [ln.strip() for ln in doc.splitlines() if len(ln.split()) > 3]
    return lines[:limit]


def build_tokenizer(folder: Path, block_size: int):
    """A Hugging Face tokenizer folder both transformers 4 and 5 read (tokenizer.json and a
    config naming the class both know)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=2048, special_tokens=["<|endoftext|>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(corpus_lines(), trainer)
    folder.mkdir(parents=True, exist_ok=True)
    tok.save(str(folder / "tokenizer.json"))
    (folder / "tokenizer_config.json").write_text(json.dumps({
        "tokenizer_class": "PreTrainedTokenizerFast", "model_max_length": block_size,
        "eos_token": "<|endoftext|>", "bos_token": "<|endoftext|>",
        # GPT-2's inputs: without this the tokenizer also returns token_type_ids, which
        # transformers' GPT2Model adds as a second token embedding (wte[0] everywhere)
        "model_input_names": ["input_ids", "attention_mask"]}))
    return tok


def main() -> int:
    work = Path(os.environ.get("TOPONEURO_BRAINSCORE_WORK") or "/tmp/toponeuro-bsl")
    work.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    block = 128
    tok = build_tokenizer(work / "tokenizer", block)
    log(f"tokenizer: byte-level BPE, {tok.get_vocab_size()} tokens, trained on stdlib docstrings "
        f"({time.time() - t0:.1f} s)")
    torch.manual_seed(0)
    cfg = GPTConfig(n_layer=2, n_head=2, n_embd=64, vocab_size=tok.get_vocab_size(), block_size=block)
    net = GPT(cfg).eval()
    state = {k: v for k, v in net.state_dict().items() if not k.endswith(".attn.bias")}
    weights = work / "weights.pt"
    torch.save(state, weights)
    card = ModelCard(name="nanogpt.ci", arch="nanogpt", tag="ci", modality="language",
                     input_size=None, mean=None, std=None,
                     topo_layers=tuple(f"transformer.h.{i}.mlp.c_fc" for i in range(2)),
                     description="CI NanoGPT: toponeuro.models.GPT, 2 blocks, 64 dims, seed 0")
    plugin = export_plugin(card, work / "plugin", weights_url=weights.as_uri(), n_head=2,
                           identifier=IDENTIFIER, tokenizer=str(work / "tokenizer"),
                           overwrite=True)
    log(f"exported {plugin.path} (language_system -> {plugin.region_layer_map})")
    installed = install_plugin(plugin, overwrite=True)
    log(f"installed into {installed}")
    out = work / "bsl_result.json"
    cmd = [os.environ["TOPONEURO_BRAINSCORE_PYTHON"], "-W", "ignore::FutureWarning",
           str(REPO / ".ci" /
           "brainscore_language_score.py"), "--identifier", IDENTIFIER, "--weights",
           str(weights), "--tokenizer", str(work / "tokenizer"), "--n-head", "2",
           "--layer", plugin.region_layer_map["language_system"], "--out", str(out),
           "--suites", *SUITES]
    proc = subprocess.run(cmd, cwd=work, env={**os.environ, "BS_INSTALL_DEPENDENCIES": "no"})
    if proc.returncode != 0:
        log(f"brainscore-language scoring failed (exit {proc.returncode})")
        return 1
    result = json.loads(out.read_text())
    print(json.dumps(result))
    log(f"done in {time.time() - t0:.1f} s")
    return 0 if result.get("ok") else 1


if __name__ == "__main__":
    sys.exit(main())
