"""TopoLoss fine-tuning of a sentence encoder, kept close to itself by distillation.

A recipe with ``kind = "language_distillation"`` fine-tunes only some parameters of a
registered language model (the *base*, e.g. ``minilm.l6_v2``; ``model.train`` lists them by
glob) with

``loss = (1 - cos(student embedding, frozen base embedding)) + TopoLoss``

on sentences of an English corpus: the student's sentence embedding (mean over real tokens
of the last hidden state, as sentence-transformers pools all-MiniLM-L6-v2) is pulled toward
the frozen base's embedding of the same sentence, while TopoLoss pulls each feed-forward
unit's weight vector toward a blurred copy of its sheet (the TopoNets recipe for language
models' MLP layers). The student runs in training mode (the base's dropout), so a
``tau = 0`` run is the same fine-tuning without TopoLoss: the control.

Corpora (``data.kind``): ``"wordnet"`` reads the usage examples and definitions of WordNet
3.0 as Debian's ``wordnet-base`` package installs them (``/usr/share/wordnet``; WordNet 3.0
licence, Princeton University); ``"synthetic"`` makes sentences from a small built-in grammar
(for smoke tests). Held-out text is every sentence whose CRC-32 is divisible by
``data.heldout_every``: fixed by the text alone, the same for every seed.

What a run writes to its folder: ``history.json`` (loss, distillation cosine, TopoLoss term
against step; held-out cosine at each evaluation), ``trained.pt`` (the trained parameters
only, float32), ``checkpoint.pt`` (the same plus optimiser state, to resume) and
``recipe.json``, beside ``run.json``, the record of what the run trains (as
:func:`~toponeuro.training.train` writes it): a folder holding files a run did not write is
refused, never written into.
"""

from __future__ import annotations

import copy
import fnmatch
import json
import math
import numbers
import os
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from .._io.fetch import sha256sum
from .._io.output import write_text
from .._util.constraints import MAPPING
from .._util.docs import fill_doc
from .._util.frozen import validate_fields
from .._util.params import (
    NON_NEGATIVE,
    SEED,
    Boolean,
    InstanceOf,
    Interval,
    PathLike,
    Text,
    check_random_state,
    validate_params,
)
from ..exceptions import CheckpointError, MissingFileError, OutputExistsError, RecipeError
from ..models import load_torch_file
from ._checkpoint import non_finite_tensors, read_checkpoint_file
from ._runs import _identity, _open_run, _RunLayout, _strip_recipe
from ._schema import LANGUAGE_KIND, validate_language_recipe
from ._train import _divergence, _grads_finite, _save_atomic

__all__ = [
    "wordnet_sentences",
    "synthetic_sentences",
    "language_corpus",
    "export_trained_parameters",
    "LanguageTrainResult",
]

WORDNET_PATH = "/usr/share/wordnet"
_WORDNET_FILES = ("data.noun", "data.verb", "data.adj", "data.adv")


@validate_params({"min_words": Interval(numbers.Integral, 1, None, closed="left")})
def wordnet_sentences(path: str | os.PathLike = WORDNET_PATH, *, min_words: int = 4) -> list[str]:
    """Usage examples and definitions of WordNet 3.0 with at least ``min_words`` words.

    Reads the ``data.noun/verb/adj/adv`` files of a WordNet 3.0 database folder (Debian:
    ``apt-get install wordnet-base`` puts them in ``/usr/share/wordnet``). Each synset's gloss
    is split at ``;``; quoted parts are usage examples, the others definitions. Duplicates
    are dropped, the order is the files' order.

    Parameters
    ----------
    path : path-like
        The WordNet 3.0 database folder.
    min_words : int
        Shorter glosses are dropped.

    Returns
    -------
    list of str
        The sentences.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> line = '00001740 03 n 01 entity 0 000 | that which is perceived to exist; "a real thing here"\\n'
    >>> _ = (d / "data.noun").write_text("  1 header line\\n" + line)
    >>> wordnet_sentences(d, min_words=3)
    ['that which is perceived to exist', 'a real thing here']
    """
    root = Path(path)
    files = [root / f for f in _WORDNET_FILES if (root / f).is_file()]
    if not files:
        raise MissingFileError(
            f"No WordNet data files ({', '.join(_WORDNET_FILES)}) in {root}; install Debian's "
            "wordnet-base package (apt-get install wordnet-base, which fills "
            f"{WORDNET_PATH}) or set the recipe's data.path (or data_path=) to a WordNet 3.0 "
            "dict folder."
        )
    seen: set[str] = set()
    out: list[str] = []
    for f in files:
        with open(f, encoding="latin-1") as fh:
            for line in fh:
                if line.startswith("  ") or " | " not in line:
                    continue  # the licence header
                for part in line.split(" | ", 1)[1].strip().split(";"):
                    text = part.strip().strip('"').strip()
                    if len(text.split()) >= min_words and text not in seen:
                        seen.add(text)
                        out.append(text)
    return out


_SUBJECTS = ["the dog", "a child", "my sister", "the old farmer", "every student", "the river"]
_VERBS = ["watched", "carried", "found", "painted", "followed", "remembered"]
_OBJECTS = ["the red boat", "a small house", "the letters", "her friend", "the long road"]
_TAILS = ["in the morning", "after the storm", "near the bridge", "with great care", ""]


@fill_doc
@validate_params({"n": Interval(numbers.Integral, 1, None, closed="left"),
                  "random_state": SEED})
def synthetic_sentences(n: int = 256, *, random_state: int = 0) -> list[str]:
    """``n`` distinct simple English sentences from a small built-in grammar (smoke tests).

    Parameters
    ----------
    n : int
        Sentences wanted.
    %(random_state)s

    Returns
    -------
    list of str
        ``n`` distinct sentences.

    Examples
    --------
    >>> s = synthetic_sentences(3)
    >>> len(s), len(set(s)), all(len(x.split()) >= 4 for x in s)
    (3, 3, True)
    """
    rng = check_random_state(random_state)
    total = len(_SUBJECTS) * len(_VERBS) * len(_OBJECTS) * len(_TAILS)
    if not 1 <= n <= total:
        raise RecipeError(f"data.n_sentences must be from 1 to {total}; got {n}.")
    picks = rng.choice(total, size=n, replace=False)
    out = []
    for k in picks:
        k, a = divmod(int(k), len(_SUBJECTS))
        k, b = divmod(k, len(_VERBS))
        d, c = divmod(k, len(_OBJECTS))
        out.append(" ".join(w for w in (_SUBJECTS[a], _VERBS[b], _OBJECTS[c], _TAILS[d]) if w))
    return out


def _is_heldout(text: str, every: int) -> bool:
    return zlib.crc32(text.encode("utf-8")) % every == 0


@validate_params(dict(data=MAPPING, data_path=[PathLike(), None]))
def language_corpus(data: dict, data_path: str | None = None) -> tuple[list[str], list[str]]:
    """``(train, heldout)`` sentences of a recipe's ``[data]`` table.

    Held out: sentences whose CRC-32 is divisible by ``heldout_every`` (default 20, i.e. 5 %),
    capped at ``heldout_size`` (default 512) by taking the first ones.

    Parameters
    ----------
    data : dict
        The recipe's ``[data]`` table (``kind``: ``"wordnet"`` or ``"synthetic"``, and its
        options).
    data_path : str, optional
        Overrides ``data.path`` (the WordNet folder).

    Returns
    -------
    train : list of str
        The training sentences.
    heldout : list of str
        The held-out sentences (none of them in ``train``).

    Examples
    --------
    >>> train, held = language_corpus({"kind": "synthetic", "n_sentences": 200, "heldout_every": 10})
    >>> len(train) + len(held) == 200 and 0 < len(held) < 50
    True
    """
    kind = data.get("kind")
    if kind == "wordnet":
        texts = wordnet_sentences(
            data_path or data.get("path", WORDNET_PATH), min_words=int(data.get("min_words", 4))
        )
    elif kind == "synthetic":
        texts = synthetic_sentences(int(data.get("n_sentences", 256)), random_state=0)
    else:
        raise RecipeError(
            f"Unknown data.kind {kind!r} for a {LANGUAGE_KIND} recipe; use 'wordnet' or "
            "'synthetic'."
        )
    every = int(data.get("heldout_every", 20))
    held = [t for t in texts if _is_heldout(t, every)][: int(data.get("heldout_size", 512))]
    held_set = set(held)
    train = [t for t in texts if t not in held_set and not _is_heldout(t, every)]
    return train, held


# --- training -----------------------------------------------------------------------------
@dataclass
@validate_fields({
    "history": InstanceOf(list, "a list of dict", example=list),
    "out_dir": [PathLike(), None], "trained": [PathLike(), None],
    "seconds": NON_NEGATIVE, "name": Text(empty=True)})
class LanguageTrainResult:
    """What :func:`toponeuro.training.run_recipe` returns for a language recipe.

    ``history`` has one entry per logged step (``step``, ``loss``, ``distill_cosine``,
    ``topo_loss`` (unscaled mean over layers), ``tau`` (scheduled), ``lr``, and
    ``heldout_cosine`` at evaluation steps); ``trained`` is the path of the trained
    parameters (float32 state dict of the trained parameters only).

    Parameters
    ----------
    model : torch.nn.Module
        The fine-tuned student, in eval mode.
    history : list of dict
        One entry per logged step (see above).
    out_dir : pathlib.Path or None
        The run's folder.
    trained : pathlib.Path or None
        The file of the trained parameters.
    seconds : float
        Wall time of the run.
    name : str
        The recipe's name.

    Examples
    --------
    >>> res = LanguageTrainResult(model=None, name="x", out_dir=Path("runs/x"), history=[
    ...     {"step": 5, "topo_loss": 0.41, "heldout_cosine": 0.987}])
    >>> print(res.summary())
    trained 'x': 5 steps, held-out distillation cosine 0.9870, topo loss 0.4100; files in runs/x
    """

    model: object
    history: list[dict] = field(default_factory=list)
    out_dir: Path | None = None
    trained: Path | None = None
    seconds: float = 0.0
    name: str = ""

    def summary(self) -> str:
        """One sentence: steps, last held-out distillation cosine and TopoLoss term.

        Returns
        -------
        str
            The sentence.
        """
        last = self.history[-1]
        return (
            f"trained {self.name!r}: {last['step']} steps, held-out distillation cosine "
            f"{last.get('heldout_cosine', float('nan')):.4f}, topo loss "
            f"{last['topo_loss']:.4f}; files in {self.out_dir}"
        )


def _mean_pool(hidden: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    m = mask.unsqueeze(-1).to(hidden.dtype)
    return (hidden * m).sum(1) / m.sum(1).clamp_min(1.0)


def _embed(model, enc) -> torch.Tensor:
    out = model(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"])
    emb = _mean_pool(out.last_hidden_state, enc["attention_mask"])
    return torch.nn.functional.normalize(emb, dim=-1)


def _trainable(model, globs: list[str]) -> list[str]:
    names = [n for n, _ in model.named_parameters()]
    picked = [n for n in names if any(fnmatch.fnmatchcase(n, g) for g in globs)]
    if not picked:
        raise RecipeError(
            f"model.train globs {globs} match no parameter of the base model (e.g. "
            f"{names[:3]}); use names like 'encoder.layer.*.intermediate.dense.weight'."
        )
    return picked


def _topoloss(model, base_card, tcfg: dict):
    from ..topoloss import LayerSpec, TauSchedule, TopoLoss

    layers = tcfg.get("layers", "topo")
    layers = list(base_card.topo_layers) if layers == "topo" else list(layers)
    tau = float(tcfg.get("tau", 1.0))
    specs = [
        LayerSpec(n, float(tcfg.get("factor_h", 2.0)), float(tcfg.get("factor_w", 2.0)),
                  tau=tau if tau > 0 else None)
        for n in layers
    ]
    sched = TauSchedule.from_dict(tcfg["schedule"]) if tcfg.get("schedule") else None
    topo = TopoLoss(specs, sched)
    topo.validate(model)
    return topo


def _lr_at(step: int, steps: int, base_lr: float, schedule: str, warmup: int) -> float:
    if warmup and step < warmup:
        return base_lr * (step + 1) / warmup
    if schedule == "constant":
        return base_lr
    span = max(steps - warmup, 1)
    return base_lr * 0.5 * (1 + math.cos(math.pi * (step - warmup) / span))


@torch.no_grad()
def _heldout_cosine(student, teacher_emb: torch.Tensor, batches) -> float:
    was = student.training
    student.eval()
    cos = []
    for enc, lo, hi in batches:
        cos.append((_embed(student, enc) * teacher_emb[lo:hi]).sum(-1))
    student.train(was)
    return float(torch.cat(cos).mean())


def _without_steps(recipe) -> dict | None:
    # a longer run of the same recipe continues a shorter one (train.steps may grow)
    if not isinstance(recipe, dict):
        return None
    out = copy.deepcopy(recipe)
    out.get("train", {}).pop("steps", None)
    return out


#: what a language checkpoint must hold to be resumed
_RESUME_KEYS = ("recipe", "step", "history", "trained", "optimizer", "torch_rng")


def _resumable_checkpoint(path: Path, device) -> dict:
    """The checkpoint a run resumes from, checked: readable, complete, finite weights."""
    ckpt = read_checkpoint_file(path, device, fix="It may be truncated by a kill during "
                                "saving; pass restart=True to start the run over.")
    missing = [k for k in _RESUME_KEYS if not isinstance(ckpt, dict) or k not in ckpt]
    bad = [] if missing else [n for n, t in ckpt["trained"].items()
                              if torch.is_tensor(t) and not torch.isfinite(t).all()]
    if missing or bad:
        what = (f"lacks {', '.join(missing)}" if missing
                else f"holds non-finite weights ({', '.join(bad[:3])})")
        raise CheckpointError(
            f"Checkpoint {path} {what}; it cannot be resumed. Pass restart=True to start the "
            "run over."
        )
    return ckpt


def _language_legacy(path: Path) -> dict:
    """The recorded identity of a run written without ``run.json`` (its ``checkpoint.pt``)."""
    ckpt = read_checkpoint_file(path, fix="It is not replaced. Move it away or give another "
                                "out_dir=.")
    recipe = ckpt.get("recipe") if isinstance(ckpt, dict) else None
    if not isinstance(recipe, dict) or recipe.get("kind") != LANGUAGE_KIND:
        raise OutputExistsError(
            f"{path} is not a checkpoint of a {LANGUAGE_KIND} run; it is not replaced. Move it "
            "away or give another out_dir=."
        )
    return {"legacy": True, "recipe": _strip_recipe(_without_steps(recipe))}


#: the run folder of a language recipe's run
_LANGUAGE_RUN = _RunLayout(
    written=("checkpoint.pt", "checkpoint.pt.part", "trained.pt", "trained.pt.part",
             "history.json", "recipe.json"),
    checkpoints=lambda out_dir: ([out_dir / "checkpoint.pt"]
                                 if (out_dir / "checkpoint.pt").is_file() else []),
    legacy=_language_legacy,
)


def _run_language(recipe: dict, out: Path, *, resume: bool, restart: bool, progress: bool,
                  device: str | None) -> LanguageTrainResult:
    """Fine-tune what a ``language_distillation`` recipe describes (see the module docs):
    :func:`toponeuro.training.run_recipe` for a language recipe, its overrides applied and
    its folder ``out`` chosen."""
    from ..models import create_model, load_tokenizer, model_card

    validate_language_recipe(recipe, recipe.get("name", "recipe"))
    t = recipe["train"]
    n_steps = int(t["steps"])
    bs = int(t.get("batch_size", 32))
    max_len = int(recipe["data"].get("max_length", 32))
    log_every = int(t.get("log_every", 10))
    eval_every = int(t.get("eval_every", n_steps))
    if t.get("threads"):
        torch.set_num_threads(int(t["threads"]))
    dev = torch.device(device or recipe.get("device", "cpu"))
    out = Path(out)
    # checked before anything is built: a clash fails fast
    existing = _open_run(out, _identity(None, None, _without_steps(recipe), {}),
                         resume=resume, restart=restart, layout=_LANGUAGE_RUN)
    ckpt, ckpt_path = None, out / "checkpoint.pt"
    if existing:
        ckpt = _resumable_checkpoint(ckpt_path, dev)
    write_text(out / "recipe.json", json.dumps(recipe, indent=2))
    base_name = recipe["model"]["base"]
    base_card = model_card(base_name)
    if base_card.modality != "language":
        raise RecipeError(f"model.base {base_name!r} is a {base_card.modality} model.")
    train_texts, held_texts = language_corpus(recipe["data"])
    if not train_texts or not held_texts:
        raise RecipeError(
            f"The corpus gave {len(train_texts)} training and {len(held_texts)} held-out "
            "sentences; both must be non-empty (more sentences, or a smaller heldout_every)."
        )
    tok = load_tokenizer(base_card)

    def encode(texts):
        enc = tok(texts, padding=True, truncation=True, max_length=max_len, return_tensors="pt")
        return {k: enc[k].to(dev) for k in ("input_ids", "attention_mask")}

    teacher = create_model(base_name, pretrained=True).to(dev).eval()
    torch.manual_seed(int(recipe["seed"]))
    student = create_model(base_name, pretrained=True).to(dev)
    names = _trainable(student, recipe["model"]["train"])
    for n, p in student.named_parameters():
        p.requires_grad_(n in names)
    params = [p for n, p in student.named_parameters() if n in names]
    topo = _topoloss(student, base_card, recipe["topoloss"])
    opt = torch.optim.AdamW(params, lr=float(t.get("lr", 1e-4)),
                            weight_decay=float(t.get("weight_decay", 0.0)))

    held_batches, held_emb = [], []
    with torch.no_grad():
        for lo in range(0, len(held_texts), 64):
            enc = encode(held_texts[lo:lo + 64])
            held_batches.append((enc, lo, lo + len(held_texts[lo:lo + 64])))
            held_emb.append(_embed(teacher, enc))
    held_emb = torch.cat(held_emb)

    history: list[dict] = []
    start, last_good = 0, None
    if ckpt is not None:
        student.load_state_dict(ckpt["trained"], strict=False)
        opt.load_state_dict(ckpt["optimizer"])
        history, start = ckpt["history"], int(ckpt["step"])
        torch.set_rng_state(ckpt["torch_rng"])
        last_good = start

    def diverged(what: str, at: int, lr: float):
        where = (f"the last good checkpoint is {ckpt_path} (step {last_good})"
                 if last_good is not None else f"there is no good checkpoint yet in {out}")
        return _divergence(what, f"step {at}", lr, unsaved="this step on", where=where,
                           lr_name="train.lr in the recipe")

    order_rng = np.random.default_rng(int(recipe["seed"]))
    order = np.concatenate([order_rng.permutation(len(train_texts))
                            for _ in range(n_steps * bs // len(train_texts) + 1)])
    student.train()
    t0 = time.perf_counter()
    warm = int(t.get("warmup_steps", 0))
    for step in range(start, n_steps):
        lr = _lr_at(step, n_steps, float(t.get("lr", 1e-4)), t.get("lr_schedule", "cosine"), warm)
        for g in opt.param_groups:
            g["lr"] = lr
        batch = [train_texts[i] for i in order[step * bs:(step + 1) * bs]]
        enc = encode(batch)
        with torch.no_grad():
            target = _embed(teacher, enc)
        cos = (_embed(student, enc) * target).sum(-1).mean()
        topo_scaled = topo(student, step=step)
        loss = (1 - cos) + topo_scaled
        if not bool(torch.isfinite(loss.detach())):
            raise diverged("the loss", step + 1, lr)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        if not _grads_finite(student):
            raise diverged("a gradient", step + 1, lr)
        opt.step()
        bad = non_finite_tensors({n: p.detach() for n, p in student.named_parameters()
                                  if n in names})
        if bad:
            raise diverged(f"the weights ({bad[0]!r})", step + 1, lr)
        done = step + 1
        if done % log_every == 0 or done == n_steps or done % eval_every == 0:
            with torch.no_grad():
                raw = topo.layerwise(student)
            entry = {
                "step": done,
                "loss": loss.item(),
                "distill_cosine": cos.item(),
                "topo_loss": float(torch.stack(list(raw.values())).mean()),
                "tau": float(recipe["topoloss"].get("tau", 1.0))
                * (topo.schedule(step) if topo.schedule is not None else 1.0),
                "lr": lr,
                "seconds": round(time.perf_counter() - t0, 2),
            }
            if done % eval_every == 0 or done == n_steps:
                entry["heldout_cosine"] = _heldout_cosine(student, held_emb, held_batches)
            history.append(entry)
            if progress:
                print(json.dumps(entry), flush=True)
            if "heldout_cosine" in entry:
                _save_atomic({
                    "recipe": recipe, "step": done, "history": history,
                    "trained": {n: p.detach().cpu() for n, p in student.named_parameters()
                                if n in names},
                    "optimizer": opt.state_dict(), "torch_rng": torch.get_rng_state(),
                }, ckpt_path)
                last_good = done
                write_text(out / "history.json", json.dumps(history, indent=1))
    trained = out / "trained.pt"
    _save_atomic({n: p.detach().cpu().clone() for n, p in student.named_parameters()
                  if n in names}, trained)
    write_text(out / "history.json", json.dumps(history, indent=1))
    student.eval()
    return LanguageTrainResult(model=student, history=history, out_dir=out, trained=trained,
                               seconds=time.perf_counter() - t0, name=recipe["name"])


@validate_params({"half": Boolean()})
def export_trained_parameters(trained: str | os.PathLike, out: str | os.PathLike,
                              *, half: bool = True) -> str:
    """Write the trained parameters of a run (``trained.pt``) as a shipped overlay file.

    The file is a plain state dict (``torch.save``) of only the fine-tuned parameters, as
    float16 when ``half``; a card with ``base_model`` lays it over the base's weights. Returns
    the sha256 of the file written.

    Parameters
    ----------
    trained : path-like
        A run's ``trained.pt``.
    out : path-like
        The file to write.
    half : bool
        Store floating-point tensors as float16.

    Returns
    -------
    str
        The sha256 of the file written.

    Examples
    --------
    >>> import tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> torch.save({"a.weight": torch.ones(2, 2)}, os.path.join(d, "trained.pt"))
    >>> sha = export_trained_parameters(os.path.join(d, "trained.pt"), os.path.join(d, "w.pt"))
    >>> torch.load(os.path.join(d, "w.pt"), weights_only=True)["a.weight"].dtype, len(sha)
    (torch.float16, 64)
    """
    state = load_torch_file(trained)  # tensors only, never trusted
    if not isinstance(state, dict) or not state:
        raise CheckpointError(f"{trained} holds no state dict of trained parameters.")
    state = {k: (v.to(torch.float16) if half and v.is_floating_point() else v).contiguous()
             for k, v in state.items()}
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    _save_atomic(state, out)
    return sha256sum(out)

