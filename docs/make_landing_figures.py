"""Make the docs' landing page figures and captions from a real run of the current code.

    python docs/make_landing_figures.py --floc /path/to/floc               # runs toponeuro map
    python docs/make_landing_figures.py --floc DIR --run toponeuro-map     # reuses that run

Everything the landing page shows comes from here, never by hand:

1. the run: :func:`toponeuro.run_map` with its defaults on fLoc images 97-120 (held out from
   the demo TopoNets' training), unless ``--run`` names an output folder of a ``toponeuro map``
   made by this toponeuro version (its ``summary.json`` says which);
2. ``report.png``: the report's first screen (its answer section: title, headline, figure and
   what was run), composed with matplotlib from ``report.html`` (no browser is needed or used);
3. ``sheets.png`` and ``smoothness.png``: domain selectivity of the demo TopoNet (τ = 50) and of
   its control (τ = 0) on the run's headline layer (``summary.json`` ``headline.layer``);
4. ``docs/landing_figures.inc`` (included by ``docs/index.rst``): the three figures with captions
   written from the numbers (layer, scores, the run's time and machine), and
   ``docs/_static/landing/landing.json`` with what was run.
"""

from __future__ import annotations

import argparse
import base64
import html
import io
import json
import os
import platform
import re
import tempfile
import textwrap
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import toponeuro  # noqa: E402
from toponeuro.analysis import domain_selectivity, smoothness  # noqa: E402
from toponeuro.plotting import plot_distance_profile, plot_sheet_map  # noqa: E402
from toponeuro.stimuli import FLOC_CATEGORIES, load_floc  # noqa: E402

DOCS = Path(__file__).resolve().parent
OUT = DOCS / "_static" / "landing"
INC = DOCS / "landing_figures.inc"
NUMBERS = "97-120"
MODELS = {"TopoNet (τ = 50)": "toponet_demo.v2_tau_50", "control (τ = 0)": "toponet_demo.v2_tau_0"}
DOMAINS = ("faces", "bodies", "places")


def _machine() -> str:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (f"{os.cpu_count()} CPU cores ({platform.machine()}), load average {load:.1f} at "
            "its start")


def get_run(floc: str, run: str | None, machine: str | None) -> tuple[Path, dict, str]:
    """The map output to show (made now, or ``run`` when it is this version's) and the machine."""
    if run is not None:
        out = Path(run)
        summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
        if machine is None:
            raise SystemExit("--run needs --machine: the cores and load average it ran at")
        if summary.get("toponeuro_version") != toponeuro.__version__:
            raise SystemExit(f"{out} was made by toponeuro {summary.get('toponeuro_version')}, "
                             f"this is {toponeuro.__version__}: run without --run")
        return out, summary, machine
    machine = machine or _machine()
    out = Path(tempfile.mkdtemp(prefix="landing-")) / "toponeuro-map"
    toponeuro.run_map(stimuli=floc, numbers=NUMBERS, out_dir=out, progress=False, verbose=False)
    return out, json.loads((out / "summary.json").read_text(encoding="utf-8")), machine


def _text(fragment: str) -> str:
    """Plain text of an HTML fragment: list items as bullets, paragraphs as lines."""
    fragment = re.sub(r"<li>", "\n• ", fragment)
    fragment = re.sub(r"</p>|</li>|</ul>|<br\s*/?>", "\n", fragment)
    return html.unescape(re.sub(r"<[^>]+>", "", fragment)).strip()


def answer_section(report: str) -> dict:
    """The report's first screen, read from its HTML: title, headline, figure, run lines."""
    title = re.search(r"<h1>(.*?)</h1>", report, re.S)
    section = re.search(r'<section class="answer"[^>]*>(.*?)</section>', report, re.S)
    if title is None or section is None:
        raise SystemExit("report.html has no <h1> or answer section: the report's skeleton "
                         "changed; update answer_section()")
    body = section.group(1)
    head = re.search(r'<div class="headline">(.*?)</div>', body, re.S)
    img = re.search(r'<img[^>]*src="data:image/png;base64,([^"]+)"', body)
    run = re.search(r'<p class="run">(.*?)</p>', body, re.S)
    return {"title": _text(title.group(1)), "headline": _text(head.group(1)) if head else "",
            "figure": base64.b64decode(img.group(1)) if img else None,
            "run": _text(run.group(1)) if run else ""}


def draw_report(answer: dict, path: Path) -> None:
    """Compose the first screen: title, headline paragraphs, the figure, what was run.

    Each block is placed below the last one's drawn extent (measured by the renderer)."""
    wrap = 150
    head = "\n".join(textwrap.fill(line, wrap) for line in answer["headline"].split("\n") if line)
    run = "\n".join(textwrap.fill(line, wrap) for line in answer["run"].split("\n") if line)
    img = plt.imread(io.BytesIO(answer["figure"]), format="png") if answer["figure"] else None
    width, fig_h = 11.0, (4.6 if img is not None else 0.0)
    fig = plt.figure(figsize=(width, 12), dpi=80)
    renderer = fig.canvas.get_renderer()
    y = 0.25  # inches from the top, to the top of the next block
    blocks = [(answer["title"], {"fontsize": 15, "weight": "bold"}),
              (head, {"fontsize": 9, "linespacing": 1.35, "bbox": {
                  "facecolor": "#eef4fb", "edgecolor": "#9ab", "boxstyle": "round,pad=0.6"}})]
    placed = []
    for text, kw in blocks:
        t = fig.text(0.2 / width, 0, text, va="top", **kw)
        placed.append((t, y))
        y += t.get_window_extent(renderer).height / fig.dpi + 0.3
    fig_top = y
    y += fig_h + 0.15
    t = fig.text(0.2 / width, 0, run, va="top", fontsize=8.5, color="#333", linespacing=1.3)
    placed.append((t, y))
    y += t.get_window_extent(renderer).height / fig.dpi + 0.25
    fig.set_size_inches(width, y)
    for t, top in placed:
        t.set_y(1 - top / y)
    if img is not None:
        aspect = img.shape[1] / img.shape[0]
        w = min(fig_h * aspect, width - 0.4)
        ax = fig.add_axes(((width - w) / 2 / width, 1 - (fig_top + fig_h) / y, w / width,
                           fig_h / y))
        ax.imshow(img)
        ax.set_axis_off()
    fig.savefig(path, dpi=80)
    plt.close(fig)


def draw_sheets(floc: str, layer: str) -> dict:
    """sheets.png and smoothness.png on ``layer``; returns each model's smoothness scores."""
    stim = load_floc(floc, categories=[c for c in FLOC_CATEGORIES if c != "scrambled"],
                     numbers=NUMBERS)
    sels = {}
    for label, name in MODELS.items():
        net = toponeuro.models.create_model(name, pretrained=True)
        acts = toponeuro.extract(net, stim, [layer], pooling="mean", progress=False)
        sels[label] = domain_selectivity(acts).sel(domain=list(DOMAINS))
    fig, axes = plt.subplots(2, len(DOMAINS), figsize=(7.6, 3.2), layout="constrained")
    for i, (label, sel) in enumerate(sels.items()):
        for j, d in enumerate(DOMAINS):
            plot_sheet_map(sel.sel(domain=d), layer, ax=axes[i, j], vmin=-6, vmax=6,
                           colorbar_label="t")
            axes[i, j].set_title(f"{label}: {d}", fontsize=9)
            axes[i, j].set_xlabel("")
            axes[i, j].set_ylabel("")
    for extra in fig.axes[len(DOMAINS) * 2:]:
        extra.remove()  # one colour bar per panel is drawn by plot_sheet_map; keep one
    fig.colorbar(axes[0, 0].get_images()[0], ax=axes, shrink=0.8,
                 label="selectivity t (same scale)")
    fig.suptitle(f"Domain selectivity on the {layer} sheet, held-out fLoc images 97–120",
                 fontsize=10)
    fig.savefig(OUT / "sheets.png", dpi=110)
    plt.close(fig)
    scores = {}
    fig, axes = plt.subplots(1, 2, figsize=(7.6, 2.8), layout="constrained", sharey=True)
    for ax, (label, sel) in zip(axes, sels.items()):
        res = {d: smoothness(sel.sel(domain=d), layer=layer, n_permutations=0, random_state=0)
               for d in DOMAINS}
        scores[label] = {d: round(float(r["score"]), 2) for d, r in res.items()}
        plot_distance_profile(res, ax=ax, ylabel="mean |Δ t|",
                              title=f"{label}\nsmoothness: "
                              + ", ".join(f"{d} {s:.2f}" for d, s in scores[label].items()))
        ax.title.set_fontsize(9)
    fig.savefig(OUT / "smoothness.png", dpi=110)
    plt.close(fig)
    return scores


def _figure(png: str, alt: str, caption: str) -> str:
    body = textwrap.fill(" ".join(caption.split()), 96, initial_indent="   ",
                         subsequent_indent="   ", break_on_hyphens=False)
    return f".. figure:: _static/landing/{png}\n   :width: 100%\n   :alt: {alt}\n\n{body}\n"


def captions(summary: dict, scores: dict, machine: str) -> str:
    """The landing page's figures block (rst), every number from the run."""
    head = summary["headline"]
    layer = head["layer"]
    topo, ctrl = scores.values()
    score_text = "; ".join(f"{d} {topo[d]:.2f} vs {ctrl[d]:.2f}" for d in DOMAINS)
    rho = "; ".join(f"{h} hemisphere Spearman ρ = {a['spearman']:+.2f}, {a['p_text']}"
                    for h, a in head["arrangement"].items())
    n = summary["stimuli"]["n_stimuli"]
    blocks = [
        ".. This file is written by docs/make_landing_figures.py from a real run; do not edit.\n",
        _figure("sheets.png", f"Face, body and place selectivity on the {layer} sheet of the "
                "demo TopoNet and of its control", f"""
            Domain selectivity (t, each domain against the other four) on the ``{layer}``
            sheet, the headline layer of the report below (the rule: {head['rule']}), of the
            demo TopoNet (TopoLoss τ = 50, top) and of its control trained without TopoLoss
            (τ = 0, bottom), for the held-out fLoc images 97-120
            (:func:`toponeuro.analysis.domain_selectivity`,
            :func:`toponeuro.plotting.plot_sheet_map`)."""),
        _figure("smoothness.png", f"Smoothness profiles of the TopoNet and the control on "
                f"{layer}", f"""
            How much two units' selectivity differs by their distance on the ``{layer}`` sheet,
            and TDANN's smoothness score of each map in the titles (higher is smoother;
            TopoNet vs control: {score_text}) (:func:`toponeuro.analysis.smoothness`,
            :func:`toponeuro.plotting.plot_distance_profile`)."""),
        _figure("report.png", "The first screen of a toponeuro map report", f"""
            The first screen of the main job's report (``toponeuro map``:
            ``{summary['model']['name']}`` on {n} fLoc images; the job took
            {summary['seconds']:.0f} s on {machine}): the question for ``{layer}``, {rho}; the
            figure that shows it and what was run. Methods and per-layer detail follow below
            it in the report (:doc:`auto_tutorials/plot_quickstart` walks through it). Drawn
            with matplotlib from the report's answer section (the title, headline, figure and
            run lines of ``report.html``), not a browser screenshot."""),
        f"The figures and captions are written by ``python docs/make_landing_figures.py "
        f"--floc DIR`` from a\nrun of toponeuro {summary['toponeuro_version']} "
        f"({summary['created'][:10]}), not drawn by hand.\n",
    ]
    return "\n".join(blocks)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--floc", required=True, help="local fLoc folder (stimuli/ of VPNL/fLoc)")
    ap.add_argument("--run", help="a `toponeuro map` output folder of this toponeuro version to "
                    "show instead of running one")
    ap.add_argument("--machine", help="with --run: the machine it ran on, e.g. '2 CPU cores "
                    "(x86_64), load average 2.3 at its start' (measured here otherwise)")
    args = ap.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    out, summary, machine = get_run(args.floc, args.run, args.machine)
    draw_report(answer_section((out / "report.html").read_text(encoding="utf-8")),
                OUT / "report.png")
    scores = draw_sheets(args.floc, summary["headline"]["layer"])
    INC.write_text(captions(summary, scores, machine), encoding="utf-8")
    (OUT / "landing.json").write_text(json.dumps({
        "toponeuro_version": summary["toponeuro_version"], "created": summary["created"],
        "model": summary["model"]["name"], "headline_layer": summary["headline"]["layer"],
        "n_stimuli": summary["stimuli"]["n_stimuli"], "seconds": summary["seconds"],
        "machine": machine, "smoothness": scores}, indent=1, ensure_ascii=False) + "\n",
        encoding="utf-8")
    print(f"wrote {OUT}/{{report,sheets,smoothness}}.png, landing.json and {INC}")


if __name__ == "__main__":
    main()
