"""Calibration of the label-permutation (contrast) null on shipped models: random-split contrasts.

For a shipped model and its localizer (language: the Fedorenko et al. 2010 sentences vs
nonword lists; vision: an fLoc domain vs the other four), the activations are extracted
once; then ``--splits`` times the contrast's items are split at random into two sides of the
real sizes (no condition difference at all), the selectivity map of that split is computed,
and its statistic (Moran's I, smoothness) is tested against the label null
(``spatial_null(..., null="labels")``, ``--draws`` draws) and, for comparison, the positions
null. The rate of p <= alpha is printed with its Clopper-Pearson 95 % interval, layer by layer
and over all layers, and the real contrast's p under both nulls is stated.

Run (CPU; a few minutes per model)::

    python bench/calibrate_label_null.py --model toponet_lm_demo.tau_1 \\
        --stimuli /work/shared/data/langloc/fedorenko2010_stimuli.csv --out lm.json
    python bench/calibrate_label_null.py --model toponet_demo.v2_tau_50 \\
        --stimuli /work/shared/data/floc --out vision.json

``--record`` merges the rates into toponeuro/analysis/topography/null_calibration.json (key
``"labels"``), the record the docs quote; ``--inc PATH`` (no measurement) writes the
reproduction page's label-null section (docs/reproduction_label_null.inc) from that record.
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path

import numpy as np
from _common import clopper_pearson

from toponeuro._io.output import write_text
from toponeuro.analysis import contrast_design, spatial_null
from toponeuro.analysis.topography._null_registry import null_method

ALPHA = 0.05
TARGET = (0.035, 0.065)  # 5 % +- 1.5


def load(model: str, stimuli: str, layers, batch_size: int):
    from toponeuro.features import extract
    from toponeuro.training import load_model

    net = load_model(model)
    card = net.model_card
    layers = list(layers or card.topo_layers)
    if card.modality == "language":
        from toponeuro.stimuli import load_language_localizer

        stim = load_language_localizer(stimuli)
        contrast = ("S", "N", "welch_t")  # the language job's map: raw Welch t
        acts = extract(net, stim, layers, token_pooling="mean", batch_size=batch_size,
                       progress=False)
    else:
        from toponeuro.reporting._kit.constants import DEFAULT_NUMBERS, FLOC_NONSCRAMBLED
        from toponeuro.stimuli import load_floc

        stim = load_floc(stimuli, categories=list(FLOC_NONSCRAMBLED), numbers=DEFAULT_NUMBERS)
        contrast = ("faces", "rest", "tdann_t")  # the vision job's faces map
        if not layers or layers == list(card.topo_layers):
            layers = list(card.topo_layers)[-3:]  # the vision job's default layers
        acts = extract(net, stim, layers, pooling="mean", batch_size=batch_size,
                       progress=False)
    return acts, layers, contrast


def split_labels(design_labels: np.ndarray, pool: np.ndarray, n_target: int, rng):
    """Labels with the pool's items split at random into 'A' (n_target) and 'B'."""
    out = np.array(["other"] * design_labels.size, dtype=object)
    idx = rng.permutation(np.flatnonzero(pool))
    out[idx[:n_target]] = "A"
    out[idx[n_target:]] = "B"
    return list(out)


RECORD = Path(__file__).resolve().parents[1] / "toponeuro/analysis/topography/null_calibration.json"


def _range(xs, fmt="{:.2f}"):
    lo, hi = min(xs), max(xs)
    return fmt.format(lo) if fmt.format(lo) == fmt.format(hi) else (
        f"{fmt.format(lo)}–{fmt.format(hi)}")


def write_inc(path: Path, record_path: Path = RECORD) -> None:
    """The reproduction page's label-null section, every number from the record."""
    rec = json.loads(Path(record_path).read_text())["labels"]
    L = ["Each claim of a *selective* topography (a domain's or the language map more clustered",
         "than chance) is tested here against the label-permutation null: the items' condition",
         "labels shuffled within the contrast, the map recomputed from the same activations",
         "(:doc:`metrics`, \"The label-permutation (contrast) null\"). The positions null asks",
         "only whether the map is organised on the sheet, which on a TopoLoss sheet every contrast",
         "is. Numbers from ``python bench/calibrate_label_null.py`` (999 draws per real contrast;",
         "random splits: 199 draws each).", "",
         ".. list-table::", "   :header-rows: 1", "   :widths: 26 18 16 20 20", "",
         "   * - model (contrast)", "     - statistic, value", "     - positions null p",
         "     - label null p (layers with p ≤ 0.05)", "     - random splits: label null p ≤ 0.05"]
    for model, r in rec.items():
        for stat in dict.fromkeys(x["statistic"] for x in r["real"]):
            rows = [x for x in r["real"] if x["statistic"] == stat]
            n_sig = sum(x["p_labels"] <= 0.05 for x in rows)
            summ = r.get("summary", {}).get(stat)
            cal = (f"{summ['labels_hits']} / {summ['tests']} = {summ['labels_rate']:.1%} "
                   f"[{summ['labels_ci95'][0]:.1%}, {summ['labels_ci95'][1]:.1%}]"
                   if summ else "not measured")
            L += [f"   * - ``{model}`` ({r['contrast'][0]} vs {r['contrast'][1]})",
                  f"     - {stat} {_range([x['value'] for x in rows])}",
                  f"     - {_range([x['p_positions'] for x in rows], '{:.3f}')}",
                  f"     - {_range([x['p_labels'] for x in rows], '{:.3f}')} ({n_sig} / "
                  f"{len(rows)})",
                  f"     - {cal}"]
    beat = [m for m, r in rec.items() if any(x["p_labels"] <= 0.05 for x in r["real"])]
    L += ["", "**Verdict**: " + (
        "no shipped model's contrast map is more clustered than contrasts of random splits "
        "of its items on its sheet in any layer measured: the clustering the positions null "
        "finds is the sheet's, shared by every contrast, not the selectivity's."
        if not beat else
        f"the label null is passed in some layer by {', '.join(beat)} (see the table; one "
        "layer in twenty passes at 0.05 by chance alone)."), ""]
    write_text(path, "\n".join(L))


def merge_record(record: dict, model: str, out: dict, *, seed: int, splits: int,
                 draws: int) -> dict:
    """Merge one run's measurements into ``record["labels"][model]``, cell by cell.

    A run measures some statistics on some layers: its real-contrast rows and its
    random-split cells replace the ones of the same (layer, statistic) and its summaries
    replace the same statistic's; everything else the record holds for the model stays. Each
    summary carries the run's seed, splits and draws. A rate whose 95 % interval lies below
    the target band is marked conservative in a note (a hand-written note is kept while the
    rate stays conservative); one above it, liberal.
    """
    entry = record.setdefault("labels", {}).setdefault(model, {})
    entry.update(contrast=out["contrast"], metric=out["metric"])
    entry["layers"] = list(dict.fromkeys([*entry.get("layers", []), *out["layers"]]))
    for key in ("real", "cells"):
        new = {(x["layer"], x["statistic"]) for x in out[key]}
        entry[key] = [x for x in entry.get(key, [])
                      if (x["layer"], x["statistic"]) not in new] + out[key]
        if not entry[key]:
            del entry[key]
    summary = entry.setdefault("summary", {})
    for stat, s in out["summary"].items():
        s = dict(s, seed=seed, splits=splits, draws=draws)
        lo, hi = s["labels_ci95"]
        old_note = summary.get(stat, {}).get("note", "")
        if hi < TARGET[0]:
            s["note"] = old_note if "conservative" in old_note else (
                f"conservative on this model: random splits pass the label null less often "
                f"than alpha (95 % interval [{lo:.1%}, {hi:.1%}] below {TARGET[0]:.1%})")
        elif lo > TARGET[1]:
            s["note"] = (f"liberal on this model: random splits pass the label null more "
                         f"often than alpha (95 % interval [{lo:.1%}, {hi:.1%}] above "
                         f"{TARGET[1]:.1%})")
        summary[stat] = s
    if not summary:
        del entry["summary"]
    return record


def main(argv=None):
    import sys

    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--inc"]:
        write_inc(Path(argv[1]), Path(argv[3]) if argv[2:3] == ["--record"] else RECORD)
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--stimuli", required=True)
    ap.add_argument("--layers", nargs="+")
    ap.add_argument("--splits", type=int, default=200)
    ap.add_argument("--draws", type=int, default=199)
    ap.add_argument("--real-draws", type=int, default=999)
    ap.add_argument("--statistics", nargs="+", default=["morans_i", "smoothness"])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--out", required=True)
    ap.add_argument("--record", metavar="PATH")
    args = ap.parse_args(argv)
    if Path(args.out).exists():
        ap.error(f"--out {args.out!r} already exists")
    null_method("labels")  # registered
    warnings.simplefilter("ignore")
    t0 = time.perf_counter()
    acts, layers, (target, against, metric) = load(args.model, args.stimuli, args.layers,
                                                   args.batch_size)
    t_extract = time.perf_counter() - t0
    cats = np.asarray(acts["category"].values).astype(str)
    ref = contrast_design(acts, target, against, layer=layers[0], metric=metric)
    pool = np.isin(cats, [*ref.attrs["target"].split("+"), *ref.attrs["against"].split("+")])
    n_target = ref.n_target
    print(f"{args.model}: {len(layers)} layers, {int(pool.sum())} items in the contrast "
          f"({target} {n_target} vs {against} {int(pool.sum()) - n_target}), extracted in "
          f"{t_extract:.0f} s", flush=True)
    rng = np.random.default_rng(args.seed)
    splits = [split_labels(cats, pool, n_target, rng) for _ in range(args.splits)]
    cells, real = [], []
    for li, layer in enumerate(layers):
        real_d = contrast_design(acts, target, against, layer=layer, metric=metric)
        for stat in args.statistics:
            t1 = time.perf_counter()
            lab = spatial_null(stat, real_d, null="labels", n_permutations=args.real_draws,
                               random_state=args.seed)
            pos = spatial_null(stat, real_d, null="positions", n_permutations=args.real_draws,
                               random_state=args.seed)
            t_real = time.perf_counter() - t1
            real.append({"layer": layer, "statistic": stat, "value": lab.statistic,
                         "p_labels": lab.p_value, "labels_null_mean": lab.null_mean,
                         "labels_null_std": lab.null_std, "p_positions": pos.p_value,
                         "draws": args.real_draws,
                         "seconds_labels_null": round(t_real / 2, 2)})
            hits_lab = hits_pos = 0
            t1 = time.perf_counter()
            if not args.splits:  # --splits 0: the real contrast only
                print(f"  {layer:38} {stat:10} real {lab.statistic:.3f}: label p "
                      f"{lab.p_value:.4f} (null {lab.null_mean:.3f} ± {lab.null_std:.3f}), "
                      f"positions p {pos.p_value:.4f}", flush=True)
                continue
            for s, lab_s in enumerate(splits):
                d = contrast_design(acts, "A", "B", layer=layer, metric=metric, labels=lab_s)
                seed = args.seed + 1 + s + 100_000 * li
                r_lab = spatial_null(stat, d, null="labels", n_permutations=args.draws,
                                     random_state=seed)
                r_pos = spatial_null(stat, d, null="positions", n_permutations=args.draws,
                                     random_state=seed)
                hits_lab += r_lab.p_value <= ALPHA
                hits_pos += r_pos.p_value <= ALPHA
            lo, hi = clopper_pearson(hits_lab, args.splits)
            cells.append({"layer": layer, "statistic": stat, "splits": args.splits,
                          "draws": args.draws, "labels_hits": int(hits_lab),
                          "labels_rate": hits_lab / args.splits, "labels_ci95": [lo, hi],
                          "positions_hits": int(hits_pos),
                          "positions_rate": hits_pos / args.splits,
                          "seconds": round(time.perf_counter() - t1, 1)})
            print(f"  {layer:38} {stat:10} label null {hits_lab:3d}/{args.splits} = "
                  f"{hits_lab / args.splits:.3f} [{lo:.3f}, {hi:.3f}]  positions null "
                  f"{hits_pos / args.splits:.3f} | real {lab.statistic:.3f}: label p "
                  f"{lab.p_value:.4f}, positions p {pos.p_value:.4f} "
                  f"({time.perf_counter() - t0:.0f} s)", flush=True)
    summary = {}
    for stat in args.statistics if args.splits else ():
        k = sum(c["labels_hits"] for c in cells if c["statistic"] == stat)
        n = sum(c["splits"] for c in cells if c["statistic"] == stat)
        kp = sum(c["positions_hits"] for c in cells if c["statistic"] == stat)
        lo, hi = clopper_pearson(k, n)
        summary[stat] = {"labels_hits": k, "tests": n, "labels_rate": k / n,
                         "labels_ci95": [lo, hi], "positions_rate": kp / n,
                         "within_target": TARGET[0] <= k / n <= TARGET[1]}
        print(f"{stat}: random splits p <= {ALPHA} under the label null in {k}/{n} = "
              f"{k / n:.4f} (Clopper-Pearson 95 % [{lo:.4f}, {hi:.4f}]); positions null "
              f"{kp / n:.4f}")
    out = {"model": args.model, "stimuli": args.stimuli, "contrast": [target, against],
           "metric": metric, "alpha": ALPHA, "target": list(TARGET), "layers": layers,
           "cells": cells, "real": real, "summary": summary,
           "seconds": round(time.perf_counter() - t0, 1), "extract_seconds": round(t_extract, 1)}
    write_text(args.out, json.dumps(out, indent=1))
    if args.record:
        path = Path(args.record)
        record = json.loads(path.read_text())
        merge_record(record, args.model, out, seed=args.seed, splits=args.splits,
                     draws=args.draws)
        write_text(path, json.dumps(record, indent=1) + "\n")  # whole or not at all

if __name__ == "__main__":
    main()
