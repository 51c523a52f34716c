"""Measure the shipped demo TopoNets on the held-out fLoc images and write the docs table.

Rerun after retraining::

    python bench/demo_toponets_report.py --floc /path/to/floc

For each first (superseded) ``toponet_demo.tau_*`` model (or the final checkpoints of training runs
with ``--runs DIR``, one sub-folder per recipe), on fLoc images 97-120 of the ten
non-scrambled categories (held out from training):

- top-1 accuracy over the ten categories,
- per layer (the last convolutions): smoothness of each domain's selectivity (t) map, number
  of patches (t >= 3, >= 3 units), faces-bodies and faces-places map similarity, effective
  dimensionality ((sum lambda)^2 / sum lambda^2 of the channel-response covariance across
  the 240 images), and the weight-sheet TopoLoss term (1 - cos, what TopoLoss minimises).

Writes ``docs/demo_toponets_results.json`` and ``docs/demo_toponets_table.inc`` (included by
``docs/demo_toponets.rst``) and prints the table.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import torch

from toponeuro import _dims as D
from toponeuro.analysis import domain_selectivity, effective_dimensionality, topography_table
from toponeuro.features import extract
from toponeuro.stimuli import load_floc
from toponeuro.topoloss import TopoLoss
from toponeuro.training import load_recipe

DOMAINS = ("faces", "bodies", "places", "characters", "objects")
LAYERS = ("layer3.0.conv2", "layer4.0.conv1", "layer4.0.conv2")
THRESHOLD, MIN_UNITS = 3.0, 3
ROOT = Path(__file__).resolve().parents[1]


def models(runs: Path | None):
    from toponeuro.models import create_model, list_models, model_card

    if runs is None:
        for name in list_models("toponet_demo.tau_*"):  # the superseded first models
            m = create_model(name, pretrained=True)
            yield name, model_card(name).tau, m, model_card(name)
        return
    from toponeuro.training import list_checkpoints, load_trained_model

    for run in sorted(p for p in runs.iterdir() if p.is_dir()):
        module = load_trained_model(list_checkpoints(run)[-1])
        yield run.name, module.model_card.tau, module, module.model_card


def measure(module, card, stim, classes) -> dict:
    acts = extract((module, card), stim, list(LAYERS) + ["fc"], pooling="mean", progress=False)
    acts = acts.assign_coords({D.CATEGORY: (D.STIMULUS, np.asarray(stim.categories, str))})
    logits = acts.topo.select("fc").values
    truth = np.array([classes.index(c) for c in stim.categories])
    out = {"accuracy": float((logits.argmax(1) == truth).mean()), "layers": {}}
    sel = domain_selectivity(acts.isel({D.UNIT: acts[D.LAYER].values != "fc"}), list(DOMAINS))
    loss = TopoLoss.for_layers(module, list(LAYERS), factor_h=2, factor_w=2, tau=1.0)
    with torch.no_grad():
        weight_loss = {k: float(v) for k, v in loss.layerwise(module).items()}
    # the same per-layer x domain table as `toponeuro map` (each map measured once)
    topo = topography_table(sel, layers=list(LAYERS), threshold=THRESHOLD, min_units=MIN_UNITS,
                            random_state=0)
    for layer in LAYERS:
        r = {"smoothness": {d: float(topo.row(layer, d)["smoothness"]) for d in DOMAINS},
             "n_patches": {d: int(topo.row(layer, d)["n_patches"]) for d in DOMAINS}}
        r["faces-bodies"] = topo.similarity_of(layer, "faces-bodies")
        r["faces-places"] = topo.similarity_of(layer, "faces-places")
        r["effective_dimensionality"] = effective_dimensionality(
            acts.topo.select(layer).transpose(D.STIMULUS, D.UNIT).values
        )
        r["weight_topoloss"] = weight_loss[layer]
        out["layers"][layer] = r
    return out


def rst_table(results: dict) -> str:
    head = ["model", "τ", "accuracy", "layer", "smoothness (faces / bodies / places / "
            "characters / objects)", "mean smoothness", "patches (f/b/p/c/o)",
            "faces–bodies r", "faces–places r", "eff. dim.", "weight 1−cos"]
    rows = []
    for name, r in results.items():
        for layer, v in r["layers"].items():
            sm = [v["smoothness"][d] for d in DOMAINS]
            rows.append([
                name, f"{r['tau']:g}", f"{r['accuracy']:.3f}", layer,
                " / ".join(f"{x:.2f}" for x in sm), f"{np.mean(sm):.3f}",
                " / ".join(str(v["n_patches"][d]) for d in DOMAINS),
                f"{v['faces-bodies']:+.2f}", f"{v['faces-places']:+.2f}",
                f"{v['effective_dimensionality']:.2f}", f"{v['weight_topoloss']:.3f}",
            ])
    lines = [".. list-table::", "   :header-rows: 1", ""]
    for row in [head, *rows]:
        lines.append("   * - " + row[0])
        lines += [f"     - {c}" for c in row[1:]]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--floc", default=None, help="local fLoc folder (default: load_floc's)")
    p.add_argument("--runs", type=Path, default=None,
                   help="measure the last checkpoint of each training run in this folder")
    p.add_argument("--out", type=Path, default=ROOT / "docs")
    args = p.parse_args(argv)
    torch.manual_seed(0)
    classes = load_recipe("demo-floc-tau0")["data"]["categories"]
    stim = load_floc(args.floc, categories=classes, numbers=range(97, 121))
    results = {}
    for name, tau, module, card in models(args.runs):
        t0 = time.perf_counter()
        results[name] = {"tau": tau, **measure(module, card, stim, classes)}
        print(f"{name}: measured in {time.perf_counter() - t0:.1f} s", flush=True)
    results = dict(sorted(results.items(), key=lambda kv: kv[1]["tau"]))
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "demo_toponets_results.json").write_text(json.dumps(results, indent=2))
    table = rst_table(results)
    (args.out / "demo_toponets_table.inc").write_text(table)
    print(table)
    for layer in LAYERS:
        sm = [np.mean(list(r["layers"][layer]["smoothness"].values())) for r in results.values()]
        ed = [r["layers"][layer]["effective_dimensionality"] for r in results.values()]
        taus = [r["tau"] for r in results.values()]
        print(f"{layer}: tau {taus} -> mean smoothness {np.round(sm, 3).tolist()}, "
              f"effective dimensionality {np.round(ed, 2).tolist()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
