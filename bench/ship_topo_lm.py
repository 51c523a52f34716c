"""Train, ship and measure the topographic language demo models (``toponet_lm_demo.*``).

End to end (on a CPU; each run is ``toponeuro train --recipe lm-minilm-topo-tau<τ> --seed
<s>``)::

    python bench/ship_topo_lm.py --runs RUNS --train        # trains what RUNS lacks
    python bench/ship_topo_lm.py --runs RUNS                # ship + measure finished runs

For every run folder ``RUNS/tau<τ>_s<seed>`` holding a finished ``trained.pt``:

* the trained parameters (the six ``intermediate.dense`` weights and biases) become the
  float16 overlay ``toponeuro/models/weights/toponet_lm_demo.tau_<τ>[_seed<s>].pt``
  (:func:`toponeuro.training.export_trained_parameters`), laid over ``minilm.l6_v2``'s
  weights when loaded (the card's ``base_model`` / ``base_sha256``);
* the model cards between the ``BEGIN lm demo`` / ``END lm demo`` markers of
  ``toponeuro/models/cards.toml`` are rewritten (recipe, seed, steps, sha256, evaluation);
* the measurements of issue 20 are made on the shipped weights with the library's own
  functions and written to ``docs/demo_language_results.json`` and the table
  ``docs/demo_language_table.inc``; the training curves to
  ``docs/demo_language_curves.json`` and ``docs/_static/demo_language_curves.png``.

Measurements (the definitions are fixed here, before any result):

1. clustering: Welch t of the Fedorenko et al. (2010) S vs N items per unit, on the RAW
   activations (``language_selectivity(smooth_fwhm=None)``: smoothing on the sheet before
   the test would make every map smooth and the positions null would then call a
   non-topographic model topographic), laid on each layer's 32 x 48 sheet;
   ``smoothness`` with its positions null (200 draws) and ``find_patches`` (TDANN's
   threshold t >= 2, its positions null with the smoothing inside, 200 draws) per layer;
2. stability: the top-10 % S > N units of ``language_selectivity`` with TopoLM's
   definitions (sheet smoothing FWHM 2, Welch t, BH over all layers, top-k over all layers)
   on the odd items vs on the even items of each condition; Dice overlap of the two sets
   (chance: the set's fraction, 0.10);
3. task: cosine between the model's and the frozen ``minilm.l6_v2``'s sentence embeddings
   (mean-pooled, normalised, eval mode) on the 512 held-out WordNet sentences, and the
   fraction of held-out sentences whose embedding's nearest base embedding is its own
   (retrieval top-1 among 512). Margin fixed in advance: within 0.05 cosine of tau = 0.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from pathlib import Path

import numpy as np
import torch
from _common import card_toml as common_card_toml

ROOT = Path(__file__).resolve().parents[1]
CARDS = ROOT / "toponeuro" / "models" / "cards.toml"
WEIGHTS = ROOT / "toponeuro" / "models" / "weights"
DOCS = ROOT / "docs"
BEGIN, END = "# BEGIN lm demo", "# END lm demo"
RUN = re.compile(r"^tau(\d+)_s(\d+)$")
LANGLOC = ROOT.parent / "shared" / "data" / "langloc" / "fedorenko2010_stimuli.csv"
MARGIN = 0.05
N_PERM = 200


def model_name(tau: int, seed: int) -> str:
    """``toponet_lm_demo.tau_1`` (seed 0) or ``toponet_lm_demo.tau_1_seed1``."""
    return f"toponet_lm_demo.tau_{tau}" + (f"_seed{seed}" if seed else "")


def label_null_note(name: str) -> str:
    """The card's sentence on the label null, from the record bench/calibrate_label_null.py
    writes (toponeuro/analysis/topography/null_calibration.json, key "labels"); "" if absent."""
    rec = json.loads((ROOT / "toponeuro/analysis/topography/null_calibration.json")
                     .read_text()).get("labels", {}).get(name)
    if not rec:
        return ""
    rows = [r for r in rec["real"] if r["statistic"] == "morans_i"]
    ps = [r["p_labels"] for r in rows]
    n_sig = sum(p <= 0.05 for p in ps)
    n_pos = sum(r["p_positions"] <= 0.05 for r in rows)
    verdict = ("is NOT more clustered than contrasts of random splits of the same items"
               if not n_sig else f"is more clustered than random splits in {n_sig} of "
               f"{len(rows)} layers")
    return (f" Its S > N map (raw Welch t) {verdict} (label null, Moran's I p "
            f"{min(ps):.2f}-{max(ps):.2f} in {len(rows)} layers; positions null p <= 0.05 in "
            f"{n_pos} of {len(rows)}; bench/calibrate_label_null.py): "
            + ("the model shows a topographic sheet, not topographic language selectivity."
               if not n_sig and n_pos else "no selective language topography."
               if not n_sig else "see docs/reproduction."))


def card_toml(name, tau, seed, recipe, steps, sha, base, evaluation, minutes) -> str:
    seed_txt = f", seed {seed}" if seed else ""
    how = ("fine-tuned by TopoLoss (factor 2, 32 x 48 sheets) + distillation of its own "
           "sentence embeddings") if tau else (
           "fine-tuned by distillation of its own sentence embeddings alone (the control: the "
           "same recipe without TopoLoss)")
    return common_card_toml(
        name=name, profile="toponet_lm_demo", sha=sha, base_sha256=base.sha256, tau=tau,
        recipe=recipe["name"], seed=seed, steps=steps, evaluation=evaluation,
        description=f"Topographic MiniLM demo, TopoLoss tau={tau}{seed_txt}: all-MiniLM-L6-v2 (minilm.l6_v2) with its six intermediate.dense layers {how}, on WordNet 3.0 sentences (Debian wordnet-base, WordNet 3.0 licence), {steps} AdamW steps of batch 16 on one CPU thread ({minutes:.0f} min), recipe {recipe['name']}; only those layers are shipped (float16), laid over minilm.l6_v2's weights. Not one of the TopoNets paper's models."
        + label_null_note(name),
    )


def _history(run: Path) -> list[dict]:
    return json.loads((run / "history.json").read_text())


def find_runs(root: Path) -> list[tuple[int, int, Path]]:
    runs = []
    for d in sorted(root.iterdir()) if root.is_dir() else []:
        m = RUN.match(d.name)
        if m and (d / "trained.pt").is_file():
            recipe = json.loads((d / "recipe.json").read_text())
            if _history(d)[-1]["step"] == recipe["train"]["steps"]:
                runs.append((int(m.group(1)), int(m.group(2)), d))
    return sorted(runs, key=lambda r: (r[0], r[1]))


def train_missing(root: Path, taus, seeds) -> None:
    from toponeuro.training import load_recipe, run_recipe

    for tau in taus:
        for seed in seeds:
            out = root / f"tau{tau}_s{seed}"
            if (out / "trained.pt").is_file():
                continue
            run_recipe(load_recipe(f"lm-minilm-topo-tau{tau}"), out, seed=seed)


def write_cards(blocks, evals) -> None:
    from toponeuro.models import model_card

    base = model_card("minilm.l6_v2")
    text = CARDS.read_text()
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    body = "\n".join(
        card_toml(n, t, s, r, st, sha, base, evals.get(n, {}), mi)
        for n, t, s, r, st, sha, mi in blocks
    )
    CARDS.write_text(f"{head}{BEGIN} (written by bench/ship_topo_lm.py)\n{body}{END}{tail}")
    from toponeuro.models import _registry

    _registry._CARDS_LOADED = False
    _registry._REGISTRY.clear()


# --- measurements ---------------------------------------------------------------------------
def task_metrics(name: str, held: list[str]) -> dict:
    """Held-out cosine to the frozen base's embeddings and retrieval top-1 (measure 3)."""
    from toponeuro.models import create_model, load_tokenizer
    from toponeuro.training._language import _embed

    tok = load_tokenizer("minilm.l6_v2")
    base = create_model("minilm.l6_v2", pretrained=True).eval()
    model = create_model(name, pretrained=True).eval()
    enc = tok(held, padding=True, truncation=True, max_length=32, return_tensors="pt")
    enc = {k: enc[k] for k in ("input_ids", "attention_mask")}
    with torch.no_grad():
        a, b = _embed(model, enc), _embed(base, enc)
    cos = (a * b).sum(-1)
    top1 = (a @ b.T).argmax(1) == torch.arange(len(held))
    return {"heldout_cosine": float(cos.mean()), "heldout_retrieval_top1": float(top1.float().mean())}


def _dice(a: np.ndarray, b: np.ndarray) -> float:
    return float(2 * np.sum(a & b) / (np.sum(a) + np.sum(b)))


def localizer_metrics(name: str, stim, store=None) -> dict:
    """Measures 1 and 2 on the Fedorenko S and N items."""
    from toponeuro.analysis import find_patches, language_selectivity, smoothness
    from toponeuro.features import extract

    acts = extract(name, stim, "topo", progress=False, store=store)
    layers = list(dict.fromkeys(acts["layer"].values.tolist()))
    raw = language_selectivity(acts, smooth_fwhm=None)
    per_layer = {}
    for i, layer in enumerate(layers):
        t = raw["t"].where(raw["layer"] == layer, drop=True)
        sm = smoothness(t, n_permutations=N_PERM, random_state=i)
        pa = find_patches(t, n_permutations=N_PERM, random_state=i)
        per_layer[layer] = {
            "smoothness": float(sm["score"]),
            "smoothness_null_mean": float(sm["null_mean"]),
            "smoothness_p": float(sm["p_value"]),
            "n_patches": int(pa.n_patches),
            "n_significant_patches": int(pa.significant.n_patches),
        }
    cats = np.asarray(acts["category"].values)
    rank = np.zeros(len(cats), dtype=int)
    for c in np.unique(cats):
        idx = np.flatnonzero(cats == c)
        rank[idx] = np.arange(len(idx))
    odd, even = rank % 2 == 1, rank % 2 == 0
    full = language_selectivity(acts)
    m_odd = language_selectivity(acts.isel(stimulus=odd))["topk_mask"].values.astype(bool)
    m_even = language_selectivity(acts.isel(stimulus=even))["topk_mask"].values.astype(bool)
    m_full = full["topk_mask"].values.astype(bool)
    return {
        "layers": per_layer,
        "n_layers_smooth_p05": int(sum(v["smoothness_p"] < 0.05 for v in per_layer.values())),
        "n_layers_with_significant_patch": int(
            sum(v["n_significant_patches"] > 0 for v in per_layer.values())
        ),
        "mean_smoothness": float(np.mean([v["smoothness"] for v in per_layer.values()])),
        "n_fdr_units": int(full["fdr_mask"].sum()),
        "split_half_dice": _dice(m_odd, m_even),
        "split_half_chance": float(m_full.mean()),
        "n_units": int(acts.sizes["unit"]),
    }


def measure(job) -> tuple[dict, dict, float]:
    """Measures 1-3 of one shipped model (one process of ``--jobs``)."""
    name, held, stim, store = job
    torch.set_num_threads(1)
    t0 = time.perf_counter()
    task = task_metrics(name, held)
    return task, localizer_metrics(name, stim, store), time.perf_counter() - t0


def curves_figure(curves: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(12, 3.4))
    for name, hist in curves.items():
        steps = [h["step"] for h in hist]
        ls = "-" if "seed" not in name else "--"
        axes[0].plot(steps, [h["loss"] for h in hist], ls, label=name)
        axes[1].plot(steps, [h["topo_loss"] for h in hist], ls, label=name)
        ev = [(h["step"], h["heldout_cosine"]) for h in hist if "heldout_cosine" in h]
        axes[2].plot(*zip(*ev), ls + "o", label=name)
    axes[0].set(xlabel="step", ylabel="loss (1 - cos + TopoLoss term)", title="training loss")
    axes[1].set(xlabel="step", ylabel="TopoLoss (mean over 6 layers, unscaled)",
                title="TopoLoss")
    axes[2].set(xlabel="step", ylabel="cosine to frozen base", title="held-out distillation")
    axes[2].legend(fontsize=7)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)


def _fmt_p(p: float) -> str:
    return f"{p:.3f}"


def table_rst(results: dict) -> str:
    rows = [
        "   * - model\n     - tau\n     - seed\n     - layers smooth beyond null (p < 0.05)"
        "\n     - mean smoothness\n     - layers with a significant patch"
        "\n     - split-half Dice of S > N units (chance)\n     - held-out cosine to base"
        "\n     - held-out retrieval top-1"
    ]
    for name, r in results.items():
        loc, task = r["localizer"], r["task"]
        rows.append(
            f"   * - ``{name}``\n     - {r['tau']:g}\n     - {r['seed']}"
            f"\n     - {loc['n_layers_smooth_p05']} / 6\n     - {loc['mean_smoothness']:.3f}"
            f"\n     - {loc['n_layers_with_significant_patch']} / 6"
            f"\n     - {loc['split_half_dice']:.3f} ({loc['split_half_chance']:.2f})"
            f"\n     - {task['heldout_cosine']:.4f}\n     - {task['heldout_retrieval_top1']:.3f}"
        )
    return (".. list-table::\n   :header-rows: 1\n\n" + "\n".join(rows) + "\n")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=Path, required=True)
    p.add_argument("--train", action="store_true", help="train the runs RUNS lacks first")
    p.add_argument("--taus", type=int, nargs="+", default=[0, 1])
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    p.add_argument("--langloc", type=Path, default=LANGLOC)
    p.add_argument("--store", type=Path, help="activation store folder (reused across calls)")
    p.add_argument("--jobs", type=int, default=1, help="models measured in parallel")
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    if args.train:
        train_missing(args.runs, args.taus, args.seeds)
    from toponeuro.stimuli import load_language_localizer
    from toponeuro.training import export_trained_parameters, language_corpus

    blocks, curves = [], {}
    for tau, seed, d in find_runs(args.runs):
        recipe = json.loads((d / "recipe.json").read_text())
        name = model_name(tau, seed)
        sha = export_trained_parameters(d / "trained.pt", WEIGHTS / f"{name}.pt")
        hist = _history(d)
        curves[name] = hist
        blocks.append((name, tau, seed, recipe, hist[-1]["step"], sha, hist[-1]["seconds"] / 60))
    write_cards(blocks, {})
    _, held = language_corpus(blocks[0][3]["data"])
    stim = load_language_localizer(args.langloc, conditions=["S", "N"])
    results, evals = {}, {}
    jobs = [(name, held, stim, args.store) for name, *_ in blocks]
    if args.jobs > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(args.jobs) as pool:
            measured = list(pool.map(measure, jobs))
    else:
        measured = [measure(j) for j in jobs]
    for (name, tau, seed, *_), (task, loc, seconds) in zip(blocks, measured, strict=True):
        results[name] = {"tau": tau, "seed": seed, "task": task, "localizer": loc}
        evals[name] = task
        print(name, json.dumps(task), loc["n_layers_smooth_p05"], loc["split_half_dice"],
              f"{seconds:.0f} s", flush=True)
    write_cards(blocks, evals)
    ref = [r["task"]["heldout_cosine"] for r in results.values() if r["tau"] == 0]
    summary = {
        "margin": MARGIN,
        "tau0_heldout_cosine_mean": float(np.mean(ref)) if ref else None,
        "definitions": __doc__.split("Measurements", 1)[1].strip(),
        "models": results,
    }
    (DOCS / "demo_language_results.json").write_text(json.dumps(summary, indent=1) + "\n")
    (DOCS / "demo_language_curves.json").write_text(json.dumps(curves, indent=1) + "\n")
    (DOCS / "demo_language_table.inc").write_text(table_rst(results))
    curves_figure(curves, DOCS / "_static" / "demo_language_curves.png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
