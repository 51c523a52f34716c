"""Write a ``toponeuro map`` report: figures (from :mod:`toponeuro.plotting`), data files and
the HTML page (``templates/report.html``), all from one :class:`~._results.ReportData`."""

from __future__ import annotations

import base64
import html
import json
import string
import time
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd

from .. import _dims as D
from ._constants import CORTEX_DOMAINS, MAP_DOMAINS
from ._results import ReportData, comparison_view, training_images_note

__all__ = ["write_report"]


def _savefig(fig, path: Path) -> Path:
    import matplotlib.pyplot as plt

    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)
    return path


def _figures(out: Path, res: ReportData, atlas) -> dict:
    from .._optional import optional_import
    from ..plotting import (
        plot_arrangement,
        plot_comparison,
        plot_distance_profile,
        plot_sheet_map,
        plot_surface_map,
    )

    plt = optional_import("matplotlib.pyplot", "plot", "toponeuro.plotting")
    layers, thr = res.summary["layers"], res.summary["patch_threshold_t"]
    topo, hemis = res.model_topo, res.cortex_topo.sheets
    files = {}
    fig = plot_sheet_map(res.selectivity, layers, facet=D.DOMAIN, outline=thr,
                         colorbar_label="selectivity t (domain vs the other four)",
                         title="Domain selectivity on the model's cortical sheets")
    files["sheet_maps.png"] = _savefig(fig, out / "sheet_maps.png")
    fig, axes = plt.subplots(1, len(layers), figsize=(4.4 * len(layers), 3.4), squeeze=False)
    for ax, layer in zip(axes[0], layers):
        plot_distance_profile({d: topo.smoothness[layer, d] for d in MAP_DOMAINS}, ax=ax,
                              title=f"{layer}", ylabel="mean |Δ t|")
    for ax in axes[0][:-1]:
        ax.get_legend().remove()
    axes[0][-1].legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=8, frameon=False)
    fig.suptitle("How much selectivity differs between units, by distance on the sheet",
                 fontsize=10)
    fig.tight_layout()
    files["smoothness_profiles.png"] = _savefig(fig, out / "smoothness_profiles.png")
    lab = np.zeros(len(atlas.data), dtype=int)
    for i, d in enumerate(CORTEX_DOMAINS, start=1):
        lab[atlas.mask(domain=d)] = i
    fig = plot_surface_map(lab, labels=dict(enumerate(CORTEX_DOMAINS, 1)),
                           title="visfAtlas category-selective ROIs on fsaverage5 "
                           "(inflated, ventral view)")
    files["cortex_rois.png"] = _savefig(fig, out / "cortex_rois.png")
    last = layers[-1]
    for h in hemis:
        t = res.comparison[last, h]
        fig = plot_arrangement(
            t.attrs["model_centroids"], t.attrs["cortex_centroids"],
            sheet_shape=res.sheet_shapes[last],
            spearman=t.loc[("arrangement_spearman", "centroids"), "model_vs_cortex"],
            procrustes=t.loc[("arrangement_procrustes", "centroids"), "model_vs_cortex"],
            model_label=f"model sheet · {last}",
            cortex_label=f"cortex · {h} hemisphere (flat map)",
        )
        files[f"arrangement_{h}.png"] = _savefig(fig, out / f"arrangement_{h}.png")
    fig = plot_comparison(comparison_view(res.comparison, last, hemis),
                          title="Model sheet vs cortex (visfAtlas has no object ROI: '–')")
    files["comparison.png"] = _savefig(fig, out / "comparison.png")
    return files


def _html_table(df: pd.DataFrame) -> str:
    return df.to_html(index=False, float_format=lambda v: f"{v:.3f}", border=0,
                      classes="tbl", na_rep="–")


def _img(files: dict, name: str, alt: str) -> str:
    if name not in files:
        return ""
    data = base64.b64encode(Path(files[name]).read_bytes()).decode("ascii")
    esc = html.escape
    return (f'<figure><img alt="{esc(alt)}" src="data:image/png;base64,{data}"><figcaption>'
            f'{esc(alt)} (<a href="{esc(name)}">{esc(name)}</a>)</figcaption></figure>')


def _html(res: ReportData, files: dict) -> str:
    esc = html.escape
    s = res.summary
    m, st, layers = s["model"], s["stimuli"], s["layers"]
    thr, min_units = s["patch_threshold_t"], s["patch_min_units"]
    hemis = res.cortex_topo.sheets
    dims = pd.DataFrame(
        [{"layer": ly, "effective dimensionality": r["effective_dimensionality"],
          **{f"{p.replace('-', '–')} {v['method']}": r["map_similarity"].get(p)
             for p, v in r.get("map_similarity_null", {}).items()},
          **{f"{p.replace('-', '–')} p": v["p_value"]
             for p, v in r.get("map_similarity_null", {}).items()}}
         for ly, r in s["per_layer"].items()]
    )
    comp_parts = []
    for (layer, h), t in res.comparison.items():
        tt = t.reset_index()
        tt.columns = ["metric", "item", "model", "cortex", "model vs cortex"]
        comp_parts.append(f"<h3>{esc(layer)} vs the {esc(h)} hemisphere</h3>" + _html_table(tt))
    model_table = res.tables["model"].rename(columns={
        "n_patches": "patches", "selective_fraction": f"fraction of units with t ≥ {thr:g}",
        "largest_patch_units": "largest significant patch (units)", "max_t": "max t",
        "n_significant_patches": "significant patches", "smoothness_p": "smoothness p",
        "smoothness_null_mean": "smoothness null mean",
        "smoothness_null_std": "smoothness null s.d."})
    numbers = st["numbers"]
    train = st.get("training_images")
    demo_note = (
        '<div class="note">This model is a <b>small demonstration TopoNet</b> shipped with '
        "toponeuro: a 4-stage ResNet trained on CPU on fLoc images (the v2 models by "
        "instance discrimination, each image its own class; the superseded first models on the "
        "localizer's ten categories). It is <b>not</b> one of the TopoNets paper's ImageNet "
        "models; use <code>--model</code> for those.</div>"
        if str(m["name"]).startswith("toponet_demo.") else ""
    )
    if train:
        demo_note += (f'<div class="note"><b>Training images:</b> '
                      f"{esc(training_images_note(st))}.</div>")
    template = string.Template(
        (resources.files(__package__) / "templates" / "report.html").read_text(encoding="utf-8")
    )
    return template.substitute(
        model_name=esc(m["name"]), version=esc(s["toponeuro_version"]),
        created=esc(s["created"]), seconds=s["seconds"], model_source=esc(str(m["source"])),
        tau=esc(str(m["tau"])), model_description=esc(m["description"] or ""),
        n_stimuli=st["n_stimuli"], n_categories=len(st["categories"]),
        images=("all images" if numbers == "all"
                else f"images {numbers[0]}–{numbers[1]} of each category"),
        stimuli_source=esc(st["source"]), layers=esc(", ".join(layers)),
        pooling=esc(s["pooling"]), selectivity=esc(s["selectivity"]), min_units=min_units,
        threshold=f"{thr:g}", atlas=esc(s["cortex"]["atlas"]), demo_note=demo_note,
        model_table=_html_table(model_table), dims_table=_html_table(dims),
        n_permutations=s.get("n_permutations", 0), alpha=f"{s.get('alpha', 0.05):g}",
        signatures="".join(
            f"<h3>{esc(ly)}</h3><ul>"
            + "".join(f"<li>{esc(t)}</li>" for t in r.get("signatures", [])) + "</ul>"
            for ly, r in s["per_layer"].items()),
        fig_sheet_maps=_img(files, "sheet_maps.png",
                            f"Domain selectivity (t) on each layer sheet; black outlines: units "
                            f"with t >= {thr:g} (before smoothing; the patches counted are the "
                            "significant ones listed above)"),
        fig_smoothness_profiles=_img(files, "smoothness_profiles.png",
                                     "Mean absolute difference in t between units, by distance "
                                     "on the sheet (shaded: ±1 s.d. over samples)"),
        fig_cortex_rois=_img(files, "cortex_rois.png",
                             "Face-, body-, place- and character-selective ROIs of the "
                             "visfAtlas, ventral view of the inflated fsaverage5 surface"),
        comparison_view=comparison_view(res.comparison, layers[-1], hemis).to_html(
            border=0, classes="tbl"),
        fig_arrangements="".join(
            _img(files, f"arrangement_{h}.png",
                 f"Arrangement of the domains: {layers[-1]} vs the {h} hemisphere")
            for h in hemis),
        comparison_tables="".join(comp_parts),
        png_links=", ".join(f'<a href="{esc(k)}">{esc(k)}</a>' for k in files
                            if k.endswith(".png")),
    )


def write_report(out: Path, res: ReportData, *, atlas, t0: float | None = None) -> dict:
    """Write every output of a ``toponeuro map`` run into ``out``; name -> path."""
    out.mkdir(parents=True, exist_ok=True)
    files = _figures(out, res, atlas)
    res.tables["comparison"].to_csv(out / "comparison.csv", index=False)
    files["comparison.csv"] = out / "comparison.csv"
    res.dataset.to_netcdf(out / "results.nc", engine="h5netcdf")
    files["results.nc"] = out / "results.nc"
    files["summary.json"] = out / "summary.json"
    files["report.html"] = out / "report.html"
    summary = res.summary
    summary["seconds"] = round(time.perf_counter() - t0, 1) if t0 is not None else None
    summary["files"] = {k: Path(v).name for k, v in files.items()}
    (out / "report.html").write_text(_html(res, files), encoding="utf-8")
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    return files
