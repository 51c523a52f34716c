"""How far the demo TopoNets reproduce the TopoNets signatures: writes docs/reproduction.rst.

Rerun (after retraining, or to check the page)::

    python bench/reproduce_toponets.py --floc /path/to/floc

Models: every registered ``toponet_demo.v2_*`` name (both seeds of τ = 0, 10, 50; their
weights ship in the package), or ``--models NAME ...``. Everything is measured on the
held-out fLoc images 97-120 of the ten non-scrambled categories (240 images; the models were
trained on images 1-96), with the library's functions only:

1. smoothness (:func:`toponeuro.analysis.smoothness`, TDANN's score) of each domain's
   selectivity map in every TopoLoss layer, with its positions null;
2. effective dimensionality and the bias-corrected participation ratio
   (:func:`~toponeuro.analysis.effective_dimensionality`,
   :func:`~toponeuro.analysis.participation_ratio`) of every TopoLoss layer's responses;
3. faces-bodies and faces-places SSIM (:func:`~toponeuro.analysis.map_similarity`) with the
   shift null;
4. significant face, body and place patches (:func:`~toponeuro.analysis.find_patches`, TDANN
   procedure, family-wise p < 0.05 against the positions null);
5. accuracy: instance accuracy on fresh augmented views of the training images
   (:func:`toponeuro.training.instance_accuracy`) and the ten-category accuracy of a
   nearest-centroid read-out of the pooled last-block features fitted on images 1-96 and
   tested on 97-120 (:func:`toponeuro.training.nearest_centroid_accuracy`).

The verdict rules are fixed below (``VERDICT_RULES``), before looking at the numbers, and are
printed on the page. Writes ``docs/reproduction.rst``, ``docs/reproduction_results.json`` and
the figures under ``docs/_static/reproduction/``.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import torch
import xarray as xr

from toponeuro._util import dims as D
from toponeuro.analysis import (
    as_topomap,
    domain_selectivity,
    effective_dimensionality,
    find_patches,
    map_similarity,
    overlap_verdict,
    participation_ratio,
    smoothness,
)
from toponeuro.features import extract
from toponeuro.models import create_model, list_models, model_card
from toponeuro.stimuli import FLOC_DOMAINS, load_floc
from toponeuro.training import (
    build_from_recipe,
    instance_accuracy,
    load_recipe,
    nearest_centroid_accuracy,
)

ROOT = Path(__file__).resolve().parents[1]
DOMAINS = ("faces", "bodies", "places", "characters", "objects")
PATCH_DOMAINS = ("faces", "bodies", "places")
CATEGORIES = [c for d in DOMAINS for c in FLOC_DOMAINS[d]]
#: layers whose SSIM and patches decide signatures 3 and 4 (the last block: 16 x 16 sheets)
VERDICT_LAYERS = ("layer4.0.conv1", "layer4.0.conv2")
READOUT_LAYER = "avgpool"
ALPHA = 0.05
PAPER = {
    "smoothness": "rises with τ in every layer (the paper's own smoothness definition, "
    "whose values exceed 1; not the TDANN score used here, so only the direction compares)",
    "dimensionality": "effective dimensionality 29 → 12 for ResNet-18 from τ = 0 to 50",
    "ssim": "faces–bodies SSIM 0.79 vs faces–scenes −0.41 (TopoNet ResNet-18)",
    "patches": "face, body and place patches in the topographic models",
    "accuracy": "topography costs little task performance",
}
VERDICT_RULES = {
    "smoothness": "reproduced when, for both seeds and every TopoLoss layer, the mean smoothness "
    "over the five domain maps is ordered τ = 0 < 10 < 50 and the τ = 50 maps are above "
    "their positions null (p < 0.05) in the verdict layers",
    "dimensionality": "reproduced when, for both seeds, ED and the bias-corrected PR at τ = 50 "
    "are below τ = 0 in every TopoLoss layer; partly when in some layers",
    "ssim": "reproduced when, for both seeds and both verdict layers, the τ = 50 faces–bodies "
    "SSIM is above its shift null (the verdict 'share territory': two-sided p < 0.05 on the "
    "high side) and above faces–places, and the τ = 0 faces–bodies SSIM is not",
    "patches": "reproduced when, for both seeds, the τ = 50 model has at least one significant "
    "face, body and place patch in a verdict layer and the τ = 0 model has fewer significant "
    "patches in total over the verdict layers",
    "accuracy": "reproduced when the τ = 50 read-out accuracy is within 5 points of τ = 0 "
    "(mean over seeds)",
}


def demo_models(names):
    names = names or list_models("toponet_demo.v2_*")
    out = []
    for name in names:
        card = model_card(name)
        out.append((name, card))
    return sorted(out, key=lambda nc: (nc[1].seed or 0, nc[1].tau or 0))


def measure(name, card, held, train_imgs, floc, n_perm) -> dict:
    module = create_model(name, pretrained=True)
    layers = list(card.topo_layers)
    acts = extract((module, card), held, layers + [READOUT_LAYER], progress=False)
    cats = np.asarray(held.categories, str)
    acts = acts.assign_coords({D.CATEGORY: (D.STIMULUS, cats)})
    topo_acts = acts.isel({D.UNIT: acts[D.LAYER].values != READOUT_LAYER})
    sel = domain_selectivity(topo_acts, list(DOMAINS))
    res = {"name": name, "tau": card.tau, "seed": card.seed, "weights_sha256": card.sha256,
           "layers": {}}
    for li, layer in enumerate(layers):
        r = {"smoothness": {}, "patches": {}}
        for di, d in enumerate(DOMAINS):
            s = smoothness(sel.sel({D.DOMAIN: d}), layer=layer, n_permutations=n_perm,
                           random_state=1000 * li + di)
            r["smoothness"][d] = {k: float(s[k]) for k in ("score", "null_mean", "null_std",
                                                           "p_value")}
        r["mean_smoothness"] = float(np.mean([v["score"] for v in r["smoothness"].values()]))
        x = topo_acts.topo.select(layer).transpose(D.STIMULUS, D.UNIT).values
        r["effective_dimensionality"] = effective_dimensionality(x)
        r["participation_ratio_bc"] = participation_ratio(x, bias_corrected=True)
        for other in ("bodies", "places"):
            for method in ("ssim", "pearson"):
                sim = map_similarity(sel.sel({D.DOMAIN: "faces"}), sel.sel({D.DOMAIN: other}),
                                     method, n_permutations=n_perm, random_state=li,
                                     layer=layer)
                v = overlap_verdict(sim, alpha=ALPHA)
                r[f"{method}_faces_{other}"] = {**sim.to_dict(), "verdict": v.outcome,
                                                "p_text": v.p_text}
        for di, d in enumerate(PATCH_DOMAINS):
            p = find_patches(sel.sel({D.DOMAIN: d}), layer=layer, n_permutations=n_perm,
                             random_state=100 + 10 * li + di)
            r["patches"][d] = {"n_patches": p.n_patches,
                               "n_significant": p.significant.n_patches,
                               "p_values": [float(v) for v in p.table["p_value"]]}
        res["layers"][layer] = r
    # accuracy: nearest-centroid read-out of the pooled last-block features (fit 1-96, test 97-120)
    feats = extract((module, card), train_imgs, [READOUT_LAYER], progress=False)
    res["category_accuracy"] = nearest_centroid_accuracy(
        feats.values, np.asarray(train_imgs.categories), acts.topo.select(READOUT_LAYER).values,
        cats,
    )
    if card.recipe:
        _, train_ds, _, _ = build_from_recipe(load_recipe(card.recipe), data_path=floc)
        torch.manual_seed(0)
        res["instance_accuracy"] = instance_accuracy(module, train_ds, n_views=4, seed=2024)
    res["_sel"] = sel
    return res


# ---------------------------------------------------------------------------- verdicts
def _by(results, tau, seed):
    for r in results:
        if r["tau"] == tau and r["seed"] == seed:
            return r
    return None


def verdicts(results) -> dict:
    seeds = sorted({r["seed"] for r in results})
    taus = sorted({r["tau"] for r in results})
    if not ({0.0, 50.0} <= set(taus)):
        return {k: ("not comparable", "needs τ = 0 and τ = 50 models") for k in VERDICT_RULES}
    out = {}
    layers = list(results[0]["layers"])
    # 1. smoothness
    ordered, above = [], []
    for s in seeds:
        rs = [_by(results, t, s) for t in taus]
        if any(r is None for r in rs):
            continue
        for layer in layers:
            sm = [r["layers"][layer]["mean_smoothness"] for r in rs]
            ordered.append(all(a < b for a, b in zip(sm, sm[1:])))
        r50 = _by(results, 50.0, s)
        for layer in VERDICT_LAYERS:
            above.append(all(v["p_value"] < ALPHA
                             for v in r50["layers"][layer]["smoothness"].values()))
    n_ok = sum(ordered)
    v = "reproduced" if ordered and all(ordered) and all(above) else (
        "partly reproduced" if n_ok else "not reproduced")
    out["smoothness"] = (v, f"ordered τ = 0 < 10 < 50 in {n_ok} of {len(ordered)} "
                            f"(seed, layer) pairs; τ = 50 domain maps above their null in "
                            f"{sum(above)} of {len(above)} (seed, verdict layer) pairs")
    # 2. dimensionality
    falls = []
    for s in seeds:
        a, b = _by(results, 0.0, s), _by(results, 50.0, s)
        if a is None or b is None:
            continue
        for layer in layers:
            falls.append(all(b["layers"][layer][k] < a["layers"][layer][k]
                             for k in ("effective_dimensionality", "participation_ratio_bc")))
    v = "reproduced" if falls and all(falls) else ("partly reproduced" if any(falls)
                                                   else "not reproduced")
    out["dimensionality"] = (v, f"ED and bias-corrected PR lower at τ = 50 than τ = 0 in "
                                f"{sum(falls)} of {len(falls)} (seed, layer) pairs")
    # 3. SSIM
    ok50, ok0 = [], []
    for s in seeds:
        a, b = _by(results, 0.0, s), _by(results, 50.0, s)
        for layer in VERDICT_LAYERS:
            fb, fp = b["layers"][layer]["ssim_faces_bodies"], b["layers"][layer]["ssim_faces_places"]
            ok50.append(fb["verdict"] == "share territory"
                        and fb["statistic"] > fp["statistic"])
            ok0.append(a["layers"][layer]["ssim_faces_bodies"]["verdict"] != "share territory")
    v = "reproduced" if all(ok50) and all(ok0) else (
        "partly reproduced" if any(ok50) else "not reproduced")
    out["ssim"] = (v, f"τ = 50 faces–bodies above null and above faces–places in {sum(ok50)} of "
                      f"{len(ok50)} (seed, layer) pairs; τ = 0 faces–bodies at its null in "
                      f"{sum(ok0)} of {len(ok0)}")
    # 4. patches
    have, fewer = [], []
    for s in seeds:
        a, b = _by(results, 0.0, s), _by(results, 50.0, s)
        have.append(all(any(b["layers"][la]["patches"][d]["n_significant"] > 0
                            for la in VERDICT_LAYERS) for d in PATCH_DOMAINS))

        def total(r):
            return sum(r["layers"][la]["patches"][d]["n_significant"]
                       for la in VERDICT_LAYERS for d in PATCH_DOMAINS)

        fewer.append(total(a) < total(b))
    v = "reproduced" if all(have) and all(fewer) else (
        "partly reproduced" if any(have) or any(fewer) else "not reproduced")
    out["patches"] = (v, f"τ = 50 has significant face, body and place patches for "
                         f"{sum(have)} of {len(have)} seeds; τ = 0 has fewer for {sum(fewer)} "
                         f"of {len(fewer)}")
    # 5. accuracy
    acc = {t: np.mean([r["category_accuracy"] for r in results if r["tau"] == t]) for t in taus}
    drop = acc[0.0] - acc[50.0]
    v = "reproduced" if drop <= 0.05 else "not reproduced"
    out["accuracy"] = (v, f"read-out accuracy τ = 0: {acc[0.0]:.3f}, τ = 50: {acc[50.0]:.3f} "
                          f"(drop {100 * drop:+.1f} points)")
    return out


# ---------------------------------------------------------------------------- figures
def figures(results, static: Path) -> dict:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    static.mkdir(parents=True, exist_ok=True)
    files = {}
    seeds = sorted({r["seed"] for r in results})
    taus = sorted({r["tau"] for r in results})
    layer = VERDICT_LAYERS[-1]
    # sheet maps per tau, side by side (first seed), one shared colour scale
    s0 = seeds[0]
    rows = [r for r in (_by(results, t, s0) for t in taus) if r is not None]
    grids = {(r["tau"], d): (lambda tm: tm.grid(tm.values))(
        as_topomap(r["_sel"].sel({D.DOMAIN: d}), layer=layer)) for r in rows
        for d in PATCH_DOMAINS}
    vmax = max(float(np.nanmax(np.abs(g))) for g in grids.values())
    fig, axes = plt.subplots(len(PATCH_DOMAINS), len(rows),
                             figsize=(2.6 * len(rows) + 1, 2.5 * len(PATCH_DOMAINS)),
                             squeeze=False)
    for j, r in enumerate(rows):
        for i, d in enumerate(PATCH_DOMAINS):
            im = axes[i, j].imshow(grids[(r["tau"], d)], cmap="RdBu_r", vmin=-vmax, vmax=vmax)
            axes[i, j].set_title(f"τ = {r['tau']:g}: {d}", fontsize=9)
            axes[i, j].set_xticks([])
            axes[i, j].set_yticks([])
    fig.colorbar(im, ax=axes, shrink=0.6, label="t (domain vs the other four)")
    fig.suptitle(f"Selectivity on the {layer} sheet, held-out images, seed {s0}", fontsize=10)
    files["sheets"] = static / "sheet_maps.png"
    fig.savefig(files["sheets"], dpi=110)
    plt.close(fig)
    # smoothness and ED against tau
    layers = list(results[0]["layers"])
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
    for s, ls in zip(seeds, ("-", "--")):
        rs = [_by(results, t, s) for t in taus]
        for layer_name in layers:
            col = plt.cm.viridis(layers.index(layer_name) / max(1, len(layers) - 1))
            kw = dict(color=col, ls=ls, marker="o", label=f"{layer_name}, seed {s}")
            axes[0].plot(taus, [r["layers"][layer_name]["mean_smoothness"] for r in rs], **kw)
            axes[1].plot(taus, [r["layers"][layer_name]["effective_dimensionality"] for r in rs],
                         **kw)
            axes[2].plot(taus, [r["layers"][layer_name]["participation_ratio_bc"] for r in rs],
                         **kw)
    for ax, t in zip(axes, ("mean smoothness (5 domain maps)", "effective dimensionality",
                            "participation ratio (bias-corrected)")):
        ax.set_xlabel("τ")
        ax.set_title(t)
        ax.set_xticks(taus)
    axes[0].legend(fontsize=6, ncol=2)
    fig.tight_layout()
    files["smoothness_ed"] = static / "smoothness_ed_vs_tau.png"
    fig.savefig(files["smoothness_ed"], dpi=110)
    plt.close(fig)
    # SSIM against its null
    fig, axes = plt.subplots(1, len(VERDICT_LAYERS), figsize=(6 * len(VERDICT_LAYERS), 3.8),
                             squeeze=False)
    for ax, layer_name in zip(axes[0], VERDICT_LAYERS):
        labels, xs = [], 0
        for r in results:
            for k, col in (("ssim_faces_bodies", "C0"), ("ssim_faces_places", "C3")):
                v = r["layers"][layer_name][k]
                ax.bar(xs, v["statistic"], color=col, alpha=0.8)
                ax.errorbar(xs, v["null_mean"], yerr=2 * v["null_std"], fmt="_k", capsize=4)
                xs += 1
            labels.append(f"τ {r['tau']:g}\nseed {r['seed']}")
            xs += 0.6
        step = 2.6
        ax.set_xticks([0.5 + step * i for i in range(len(results))])
        ax.set_xticklabels(labels, fontsize=7)
        ax.axhline(0, color="grey", lw=0.5)
        ax.set_title(f"{layer_name}: SSIM faces–bodies (blue), faces–places (red); "
                     "black: shift null mean ± 2 sd", fontsize=8)
    fig.tight_layout()
    files["ssim"] = static / "ssim_vs_null.png"
    fig.savefig(files["ssim"], dpi=110)
    plt.close(fig)
    # training curves shipped beside the figures
    curves = sorted((static / "training").glob("*.csv"))
    if curves:
        import pandas as pd

        fig, axes = plt.subplots(1, 2, figsize=(11, 3.6))
        for f in curves:
            df = pd.read_csv(f)
            axes[0].plot(df["step"], df["ce_loss"], lw=0.8, label=f.stem)
            axes[1].plot(df["step"], df["topo_raw"], lw=0.8, label=f.stem)
        axes[0].set_title("task loss (cross-entropy over 1,056 instances)")
        axes[1].set_title("TopoLoss 1 − cos, mean over the 8 layers (unscaled)")
        for ax in axes:
            ax.set_xlabel("step")
        axes[1].legend(fontsize=6)
        fig.tight_layout()
        files["curves"] = static / "training_curves.png"
        fig.savefig(files["curves"], dpi=110)
        plt.close(fig)
    return files


# ---------------------------------------------------------------------------- page
def _fmt_null(v: dict) -> str:
    return (f"{v['statistic']:+.2f} (null {v['null_mean']:+.2f} ± {v['null_std']:.2f}, "
            f"{v['p_text']}): {v['verdict']}")


def _table(head, rows) -> list[str]:
    lines = [".. list-table::", "   :header-rows: 1", ""]
    for row in [head, *rows]:
        lines.append("   * - " + str(row[0]))
        lines += [f"     - {c}" for c in row[1:]]
    return lines + [""]


def page(results, verdict, files, meta) -> str:
    rel = {k: "/" + str(Path(v).relative_to(ROOT / "docs")) for k, v in files.items()}
    layers = list(results[0]["layers"])
    L = [
        ".. Generated by bench/reproduce_toponets.py -- do not edit by hand; rerun the script.",
        "",
        "How far the demo TopoNets reproduce the TopoNets signatures",
        "============================================================",
        "",
        "The TopoNets paper (Deb, Deb & Murty, ICLR 2025) reports signatures of topographic "
        "networks trained on ImageNet. The paper's models cannot be downloaded everywhere, so "
        "toponeuro ships small demo TopoNets (:doc:`demo_toponets`) and this page measures "
        "each signature on them, with its spatial null. The demo models are not the paper's: "
        "a 4-stage ResNet at 32 px trained on 1,056 fLoc images, so absolute numbers are "
        "**not comparable** with the paper's; the question is whether the *direction* of each "
        "effect appears.",
        "",
        f"Measured by ``python bench/reproduce_toponets.py --floc /path/to/floc`` "
        f"({meta['n_permutations']} null draws per statistic; {meta['seconds']:.0f} s on "
        f"{meta['machine']}{', numbers of ' + str(meta['cached']) + ' models reused from --cache' if meta['cached'] else ''}). Stimuli: fLoc images 97–120 of the ten non-scrambled categories "
        "(240 images, never trained on). Models: "
        + ", ".join(f"``{r['name']}`` (weights sha256 {r['weights_sha256'][:12]}…)"
                    for r in results)
        + "; each file was checked against its card's sha256 when loaded. Numbers: "
        "``docs/reproduction_results.json``.",
        "",
        "Verdicts",
        "--------",
        "",
    ]
    titles = {"smoothness": "1. Smoothness rises with τ",
              "dimensionality": "2. Effective dimensionality falls with τ",
              "ssim": "3. Faces and bodies share territory, faces and places do not",
              "patches": "4. Significant face, body and place patches",
              "accuracy": "5. Topography costs little accuracy"}
    L += _table(["signature", "paper", "rule (fixed before measuring)", "ours", "verdict"],
                [[titles[k], PAPER[k], VERDICT_RULES[k], verdict[k][1], f"**{verdict[k][0]}**"]
                 for k in titles])
    L += ["Accuracy", "--------", "",
          "Instance discrimination has no held-out accuracy on new images (its classes are "
          "the training images), so two numbers stand in: the instance accuracy on four "
          "fresh augmented views of each training image (1,056 classes, chance 0.001), and "
          "the ten-category accuracy of a nearest-centroid read-out of the pooled "
          f"``{READOUT_LAYER}`` features (z-scored with the training rows; fitted on images "
          "1–96, tested on 97–120; chance 0.1).", ""]
    L += _table(["model", "τ", "seed", "instance accuracy (augmented views)",
                 "10-category read-out accuracy (held out)"],
                [[f"``{r['name']}``", f"{r['tau']:g}", r["seed"],
                  f"{r.get('instance_accuracy', float('nan')):.3f}",
                  f"{r['category_accuracy']:.3f}"] for r in results])
    L += ["Smoothness and dimensionality per layer", "---------------------------------------",
          "",
          "Mean TDANN smoothness of the five domain selectivity maps (faces, bodies, places, "
          "characters, objects; t of each domain against the other four) with the mean of their "
          "positions nulls, and the effective dimensionality (ED, ``(Σλ)² / Σλ²`` of the "
          "response covariance over the 240 images) with the bias-corrected participation "
          "ratio (PR).", "",
          f".. image:: {rel['smoothness_ed']}", "   :width: 100%", ""]
    rows = []
    for r in results:
        for layer in layers:
            v = r["layers"][layer]
            nm = np.mean([s["null_mean"] for s in v["smoothness"].values()])
            n_sig = sum(s["p_value"] < ALPHA for s in v["smoothness"].values())
            rows.append([f"{r['tau']:g}", r["seed"], layer, f"{v['mean_smoothness']:.3f}",
                         f"{nm:.3f}", f"{n_sig} / 5", f"{v['effective_dimensionality']:.2f}",
                         f"{v['participation_ratio_bc']:.2f}"])
    L += _table(["τ", "seed", "layer", "mean smoothness", "null mean", "maps with p < 0.05",
                 "ED", "PR (bias-corrected)"], rows)
    L += ["Map similarity (SSIM) and patches", "---------------------------------", "",
          "SSIM of the faces map with the bodies and places maps "
          "(:func:`toponeuro.analysis.map_similarity`: each map rescaled to [0, 1], so a map "
          "scores below 0 against its negative; shift null: each map in turn, half the draws "
          "each, shifted within the sheet mirrored into a 2h x 2w torus; two-sided p and the verdict of "
          ":func:`toponeuro.analysis.overlap_verdict`), Pearson r beside it with the same "
          "null, and the significant patches "
          "(:func:`toponeuro.analysis.find_patches`: TDANN smoothing and areas, t ≥ 2, "
          "family-wise p < 0.05 against the positions null) on the last block's sheets.", "",
          f".. image:: {rel['ssim']}", "   :width: 100%", "",
          f".. image:: {rel['sheets']}", "   :width: 90%", ""]
    rows = []
    for r in results:
        for layer in layers:
            v = r["layers"][layer]
            rows.append([f"{r['tau']:g}", r["seed"], layer, _fmt_null(v["ssim_faces_bodies"]),
                         _fmt_null(v["ssim_faces_places"]),
                         _fmt_null(v["pearson_faces_bodies"]),
                         _fmt_null(v["pearson_faces_places"]),
                         " / ".join(f"{v['patches'][d]['n_significant']} of "
                                    f"{v['patches'][d]['n_patches']}" for d in PATCH_DOMAINS)])
    L += _table(["τ", "seed", "layer", "faces–bodies SSIM", "faces–places SSIM",
                 "faces–bodies Pearson r", "faces–places Pearson r",
                 "significant patches faces / bodies / places"], rows)
    # the label null of every selective claim: bench/calibrate_label_null.py --inc writes it
    L += ["Selective topography: the label null", "------------------------------------",
          "", ".. include:: reproduction_label_null.inc", ""]
    # the language half: measured by bench/ship_topo_lm.py and toponeuro map --language on
    # the shipped language models, written once in its own file and included here
    L += ["Language: TopoLM's and TopoNets' claims", "---------------------------------------",
          "", ".. include:: reproduction_language.inc", ""]
    L += ["Limits of this comparison", "-------------------------", "",
          "- The models: a 4-block ResNet (widths 32–256) at 32 × 32 px, trained for 2,112 steps "
          "of batch 64 on 1,056 images by instance discrimination, against the paper's "
          "ResNet-18 (8 blocks) at 224 px trained on ImageNet (1.28 million "
          "images). The compute was what a shared 2-core CPU allowed (:doc:`demo_toponets`); "
          "longer training, larger images, other τ and other tasks were not tried here.",
          "- The stimuli: 240 held-out fLoc images (24 per category) at 32 px; ED and PR are "
          "computed over these 240 responses, the paper's over its own image set, so the "
          "absolute values differ by construction (the bias-corrected PR corrects for the "
          "small number of images, ED does not).",
          "- The metrics: smoothness is TDANN's score, not the paper's (unpublished) "
          "definition; the paper does not state its SSIM window or data range (here: "
          "scikit-image's 7 × 7 window on each map rescaled to [0, 1], data range 1); patches "
          "follow TDANN "
          "(smoothing, t ≥ 2, area limits) with a family-wise null. No definition was changed "
          "after seeing the numbers.",
          "- Two seeds per τ: differences between seeds show how much of a number is training "
          "noise.", ""]
    if "curves" in rel:
        L += ["Training curves", "---------------", "",
              "Task loss and unscaled TopoLoss every 10 steps (``docs/_static/reproduction/"
              "training/*.csv``). The τ = 0 control logs its TopoLoss without optimising it.",
              "", f".. image:: {rel['curves']}", "   :width: 100%", ""]
    return "\n".join(L) + "\n"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--floc", default=None, help="local fLoc folder (default: load_floc's)")
    p.add_argument("--models", nargs="*", default=None, help="registered names (default: "
                   "toponet_demo.v2_*)")
    p.add_argument("--n-permutations", type=int, default=1000)
    p.add_argument("--out", type=Path, default=ROOT / "docs")
    p.add_argument("--machine", default="a 2-core CPU shared with other jobs")
    p.add_argument("--cache", type=Path, default=None,
                   help="keep each model's numbers here (keyed by name, weights sha256 and "
                   "--n-permutations) and reuse them on a rerun")
    args = p.parse_args(argv)
    t0 = time.perf_counter()
    torch.manual_seed(0)
    held = load_floc(args.floc, categories=CATEGORIES, numbers=range(97, 121))
    train_imgs = load_floc(args.floc, categories=CATEGORIES, numbers=range(1, 97))
    floc = args.floc or str(Path(held.metadata["path"].iloc[0]).parent.parent)
    results, n_cached = [], 0
    for name, card in demo_models(args.models):
        t = time.perf_counter()
        cached = None
        if args.cache is not None:
            key = f"{name}-{card.sha256[:16]}-{args.n_permutations}"
            cached = args.cache / f"{key}.json", args.cache / f"{key}.nc"
        if cached is not None and cached[0].is_file() and cached[1].is_file():
            n_cached += 1
            r = json.loads(cached[0].read_text())
            r["_sel"] = xr.load_dataarray(cached[1])
        else:
            r = measure(name, card, held, train_imgs, floc, args.n_permutations)
            if cached is not None:
                args.cache.mkdir(parents=True, exist_ok=True)
                cached[0].write_text(json.dumps({k: v for k, v in r.items() if k != "_sel"}))
                r["_sel"].to_netcdf(cached[1])
        results.append(r)
        print(f"{name}: {time.perf_counter() - t:.0f} s", flush=True)
    verdict = verdicts(results)
    static = args.out / "_static" / "reproduction"
    files = figures(results, static)
    meta = {"n_permutations": args.n_permutations, "seconds": time.perf_counter() - t0,
            "machine": args.machine, "cached": n_cached}
    clean = [{k: v for k, v in r.items() if not k.startswith("_")} for r in results]
    (args.out / "reproduction_results.json").write_text(json.dumps(
        {"meta": meta, "paper": PAPER, "rules": VERDICT_RULES,
         "verdicts": {k: {"verdict": v[0], "evidence": v[1]} for k, v in verdict.items()},
         "models": clean}, indent=2))
    (args.out / "reproduction.rst").write_text(page(results, verdict, files, meta))
    for k, v in verdict.items():
        print(f"{k}: {v[0]} -- {v[1]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
