"""Ship trained demo TopoNets v2: weights, model cards and training curves, from training runs.

After ``toponeuro train --recipe demo-floc-inst-tau<τ> --seed <s> --out RUNS/tau<τ>_seed<s>``
for every τ and seed::

    python bench/ship_demo_toponets.py --runs RUNS --floc /path/to/floc

For each run folder ``tau<τ>_seed<s>``: the last checkpoint becomes the float16 weights file
``toponeuro/models/weights/toponet_demo.v2_tau_<τ>[_seed<s>].pt`` (seed 0 has no suffix)
(:func:`toponeuro.training.export_weights`), its ``steps.csv`` is copied to
``docs/_static/reproduction/training/<name>.csv``, and the model cards between the
``BEGIN demo v2`` / ``END demo v2`` markers of ``toponeuro/models/cards.toml`` are rewritten
with the recipe, seed, steps, sha256 and two accuracies measured on the exported weights:
instance accuracy on fresh augmented views of the training images
(:func:`toponeuro.training.instance_accuracy`) and the ten-category accuracy of a
nearest-centroid read-out of the pooled last-block features, fitted on fLoc images 1-96 and
tested on 97-120 (:func:`toponeuro.training.nearest_centroid_accuracy`).
"""

from __future__ import annotations

import argparse
import re
import shutil
import tomllib
from pathlib import Path

import numpy as np
import torch
from _common import card_toml as common_card_toml

from toponeuro.features import extract
from toponeuro.models import small_resnet_topo_layers
from toponeuro.stimuli import FLOC_DOMAINS, load_floc
from toponeuro.training import (
    build_from_recipe,
    export_weights,
    instance_accuracy,
    list_checkpoints,
    load_checkpoint,
    nearest_centroid_accuracy,
)

ROOT = Path(__file__).resolve().parents[1]
CARDS = ROOT / "toponeuro" / "models" / "cards.toml"
WEIGHTS = ROOT / "toponeuro" / "models" / "weights"
CURVES = ROOT / "docs" / "_static" / "reproduction" / "training"
BEGIN, END = "# BEGIN demo v2", "# END demo v2"
CATEGORIES = [c for d in ("faces", "bodies", "places", "characters", "objects")
              for c in FLOC_DOMAINS[d]]
RUN = re.compile(r"^tau(\d+)_seed(\d+)$")


def model_name(tau: int, seed: int) -> str:
    """``toponet_demo.v2_tau_50`` (seed 0) or ``toponet_demo.v2_tau_50_seed1``."""
    return f"toponet_demo.v2_tau_{tau}" + (f"_seed{seed}" if seed else "")


def evaluate(name, weights, recipe, floc) -> dict:
    from toponeuro.models import create_model, model_card

    module = create_model(name, checkpoint=weights)
    card = model_card(name)
    held = load_floc(floc, categories=CATEGORIES, numbers=range(97, 121))
    train = load_floc(floc, categories=CATEGORIES, numbers=range(1, 97))
    f_train = extract((module, card), train, ["avgpool"], progress=False)
    f_held = extract((module, card), held, ["avgpool"], progress=False)
    _, train_ds, _, _ = build_from_recipe(recipe, data_path=floc)
    return {
        "instance_accuracy": instance_accuracy(module, train_ds, n_views=4, seed=2024),
        "category_accuracy_nearest_centroid": nearest_centroid_accuracy(
            f_train.values, np.asarray(train.categories), f_held.values,
            np.asarray(held.categories)
        ),
    }


def card_toml(name, tau, seed, recipe, steps, sha, evaluation, minutes) -> str:
    seed_txt = f", seed {seed}" if seed else ""
    return common_card_toml(
        name=name, profile="toponet_demo_v2", sha=sha, tau=tau, recipe=recipe["name"],
        seed=seed, steps=steps, evaluation=evaluation,
        description=f"Demo TopoNet v2 (SmallResNet, BlurPool), TopoLoss tau={tau}{seed_txt}: instance discrimination over fLoc images 1-96 of all 11 categories (1,056 classes, strong augmentation), 32 px, {steps} SGD steps of batch 64 on one CPU thread ({minutes:.0f} min), recipe {recipe['name']}; not one of the paper's ImageNet models.",
    )


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=Path, required=True)
    p.add_argument("--floc", required=True)
    args = p.parse_args(argv)
    runs = []
    for d in sorted(args.runs.iterdir()):
        m = RUN.match(d.name)
        if m and d.is_dir() and list_checkpoints(d):
            runs.append((int(m.group(1)), int(m.group(2)), d))
    runs.sort(key=lambda r: (r[1], r[0]))
    blocks = []
    CURVES.mkdir(parents=True, exist_ok=True)
    for tau, seed, d in runs:
        ckpt_path = list_checkpoints(d)[-1]
        ckpt = load_checkpoint(ckpt_path)
        recipe = ckpt["recipe"]
        if ckpt["epoch"] != recipe["train"]["epochs"]:
            print(f"skip {d}: epoch {ckpt['epoch']} of {recipe['train']['epochs']}")
            continue
        assert recipe["model"]["widths"] == [32, 64, 128, 256]
        assert list(small_resnet_topo_layers()) == [s["name"] for s in ckpt["topoloss"]["specs"]]
        name = model_name(tau, seed)
        weights = WEIGHTS / f"{name}.pt"
        sha = export_weights(ckpt_path, weights)
        shutil.copy(d / "steps.csv", CURVES / f"{name}.csv")
        minutes = sum(h["seconds"] for h in ckpt["history"]) / 60
        blocks.append((name, tau, seed, recipe, int(ckpt["global_step"]), sha, minutes))
    # cards first without numbers (the registry needs them to load the weights), then measured;
    # numbers already on a card whose weights did not change are kept
    text = CARDS.read_text()
    known = {m["name"]: m for m in tomllib.loads(text).get("model", [])}
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)

    def write(evals):
        body = "\n".join(
            card_toml(n, t, s, r, st, sha, evals.get(n, {}), mi)
            for n, t, s, r, st, sha, mi in blocks
        )
        CARDS.write_text(f"{head}{BEGIN} (written by bench/ship_demo_toponets.py)\n{body}{END}"
                         f"{tail}")

    write({})
    from toponeuro.models import _registry

    _registry._CARDS_LOADED = False
    _registry._REGISTRY.clear()
    evals = {}
    for n, _t, _s, r, st, sha, mi in blocks:
        old = known.get(n, {})
        if old.get("sha256") == sha and old.get("evaluation"):
            evals[n] = old["evaluation"]
            continue
        torch.manual_seed(0)
        evals[n] = evaluate(n, WEIGHTS / f"{n}.pt", r, args.floc)
        print(n, f"{st} steps, {mi:.1f} min, sha256 {sha[:12]}", evals[n], flush=True)
    write(evals)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
