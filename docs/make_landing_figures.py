"""Make the figures of the docs' landing page (docs/_static/landing/), from real runs.

    python docs/make_landing_figures.py --floc /path/to/floc --report toponeuro-map/report.html

1. ``sheets.png``: domain selectivity on the demo TopoNet's sheet (τ = 50) and its control
   (τ = 0), fLoc images 97-120 (held out from their training), one layer.
2. ``smoothness.png``: the smoothness profiles of both (TDANN's score in the titles).
3. ``report.png``: a screenshot of a ``toponeuro map`` report (headless Chromium), if given.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import toponeuro  # noqa: E402
from toponeuro.analysis import domain_selectivity, smoothness  # noqa: E402
from toponeuro.plotting import plot_distance_profile, plot_sheet_map  # noqa: E402
from toponeuro.stimuli import FLOC_CATEGORIES, load_floc  # noqa: E402

OUT = Path(__file__).resolve().parent / "_static" / "landing"
MODELS = {"TopoNet (τ = 50)": "toponet_demo.v2_tau_50", "control (τ = 0)": "toponet_demo.v2_tau_0"}
LAYER = "layer3.0.conv2"
DOMAINS = ("faces", "bodies", "places")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--floc", required=True, help="local fLoc folder (stimuli/ of VPNL/fLoc)")
    ap.add_argument("--report", help="a toponeuro map report.html to screenshot")
    args = ap.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    stim = load_floc(args.floc, categories=[c for c in FLOC_CATEGORIES if c != "scrambled"],
                     numbers="97-120")
    sels = {}
    for label, name in MODELS.items():
        net = toponeuro.models.create_model(name, pretrained=True)
        acts = toponeuro.extract(net, stim, [LAYER], pooling="mean")
        sels[label] = domain_selectivity(acts).sel(domain=list(DOMAINS))
    fig, axes = plt.subplots(2, len(DOMAINS), figsize=(7.6, 3.2), layout="constrained")
    for i, (label, sel) in enumerate(sels.items()):
        for j, d in enumerate(DOMAINS):
            plot_sheet_map(sel.sel(domain=d), LAYER, ax=axes[i, j], vmin=-6, vmax=6,
                           colorbar_label="t")
            axes[i, j].set_title(f"{label}: {d}", fontsize=9)
            axes[i, j].set_xlabel("")
            axes[i, j].set_ylabel("")
    for extra in fig.axes[len(DOMAINS) * 2:]:
        extra.remove()  # one colour bar per panel is drawn by plot_sheet_map; keep the last
    fig.colorbar(axes[0, 0].get_images()[0], ax=axes, shrink=0.8,
                 label="selectivity t (same scale)")
    fig.suptitle(f"Domain selectivity on the {LAYER} sheet, held-out fLoc images 97–120",
                 fontsize=10)
    fig.savefig(OUT / "sheets.png", dpi=110)
    plt.close(fig)
    fig, axes = plt.subplots(1, 2, figsize=(7.6, 2.8), layout="constrained", sharey=True)
    for ax, (label, sel) in zip(axes, sels.items()):
        res = {d: smoothness(sel.sel(domain=d), layer=LAYER, n_permutations=0, random_state=0)
               for d in DOMAINS}
        plot_distance_profile(res, ax=ax, ylabel="mean |Δ t|",
                              title=f"{label}\nsmoothness: "
                              + ", ".join(f"{d} {float(r['score']):.2f}" for d, r in res.items()))
        ax.title.set_fontsize(9)
    fig.savefig(OUT / "smoothness.png", dpi=110)
    plt.close(fig)
    if args.report:
        browser = shutil.which("chromium") or shutil.which("chromium-browser")
        if browser is None:
            raise SystemExit("no chromium on PATH for the report screenshot")
        subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                        "--hide-scrollbars", f"--screenshot={OUT / 'report.png'}",
                        "--window-size=1200,1500", Path(args.report).resolve().as_uri()],
                       check=True, capture_output=True, timeout=120)


if __name__ == "__main__":
    main()
