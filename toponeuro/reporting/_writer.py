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
from ..analysis import null_calibration
from ._constants import CORTEX_DOMAINS, MAP_DOMAINS
from ._results import ReportData, arrangement_p_text, comparison_view, training_images_note

__all__ = ["write_report", "output_folder", "OutputFolder"]


def _savefig(fig, path: Path) -> Path:
    import matplotlib.pyplot as plt

    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)
    return path


def _n_samples(topo, layers) -> int:
    """Most smoothness samples behind any profile (1: no band to shade)."""
    n = 1
    for ly in layers:
        for d in MAP_DOMAINS:
            ds = topo.smoothness.get((ly, d))
            if ds is not None and "profiles" in ds and D.SAMPLE in ds["profiles"].dims:
                n = max(n, int(ds.sizes[D.SAMPLE]))
    return n


def _figures(out: Path, res: ReportData, atlas, cortex=None) -> dict:
    from .._optional import optional_import
    from ..atlases import vertex_coordinates
    from ..plotting import (
        plot_arrangement_by_layer,
        plot_distance_profile,
        plot_domain_arrangement,
        plot_sheet_map,
        plot_surface_map,
    )

    plt = optional_import("matplotlib.pyplot", "plot", "toponeuro.plotting")
    layers, thr = res.summary["layers"], res.summary["patch_threshold_t"]
    topo, hemis = res.model_topo, res.cortex_topo.sheets
    files = {}
    fig = plot_sheet_map(res.selectivity, layers, facet=D.DOMAIN, outline=thr, scale="layer",
                         robust=99, colorbar_label="selectivity t (domain vs the other four)",
                         title="Domain selectivity on the model's cortical sheets")
    files["sheet_maps.png"] = _savefig(fig, out / "sheet_maps.png")
    fig, axes = plt.subplots(1, len(layers), figsize=(4.4 * len(layers), 3.4), squeeze=False,
                             layout="constrained")
    for ax, layer in zip(axes[0], layers):
        plot_distance_profile({d: topo.smoothness[layer, d] for d in MAP_DOMAINS}, ax=ax,
                              title=f"{layer}", ylabel="mean |Δ t|")
    for ax in axes[0][:-1]:
        ax.get_legend().remove()
    axes[0][-1].legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=8, frameon=False)
    fig.suptitle("How much selectivity differs between units, by distance on the sheet",
                 fontsize=10)
    files["smoothness_profiles.png"] = _savefig(fig, out / "smoothness_profiles.png")
    if atlas is not None:
        lab = np.zeros(len(atlas.data), dtype=int)
        for i, d in enumerate(CORTEX_DOMAINS, start=1):
            lab[atlas.mask(domain=d)] = i
        fig = plot_surface_map(lab, labels=dict(enumerate(CORTEX_DOMAINS, 1)),
                               title="visfAtlas category-selective ROIs on fsaverage5 "
                               "(inflated, ventral view)")
        files["cortex_rois.png"] = _savefig(fig, out / "cortex_rois.png")
    elif cortex:
        first = next(iter(next(iter(cortex.values())).maps))
        both = [cortex[h].maps.get(first, np.full(10242, np.nan)) for h in ("left", "right")
                if h in cortex]
        if len(both) == 2:
            fig = plot_surface_map(np.concatenate(both), colorbar_label=first,
                                   title=f"Your {first} map on fsaverage5 (inflated, ventral "
                                   "view)")
            files["cortex_rois.png"] = _savefig(fig, out / "cortex_rois.png")
    head = res.summary["headline"]["layer"]
    for h in hemis:
        if (head, h) not in res.comparison:
            continue
        arr = res.comparison[head, h].attrs["arrangement"]
        fig = plot_domain_arrangement(
            arr, sheet_shape=res.sheet_shapes[head],
            cortex_positions=vertex_coordinates("flat", h)[:, :2],
            model_label=f"sheet · {head}",
            cortex_label=f"cortex · {h} hemisphere (flat map)",
        )
        files[f"arrangement_{h}.png"] = _savefig(fig, out / f"arrangement_{h}.png")
    fig = plot_arrangement_by_layer(
        {k: t.attrs["arrangement"] for k, t in res.comparison.items()},
        alpha=res.summary.get("alpha", 0.05), headline=head)
    files["comparison.png"] = _savefig(fig, out / "comparison.png")
    return files


#: one naming convention for every column shown: words, as in the report's text
_COLUMN_NAMES = {
    "layer": "layer", "domain": "domain", "hemisphere": "hemisphere", "sheet": "sheet",
    "shape": "sheet", "smoothness": "smoothness", "smoothness_null_mean": "smoothness null mean",
    "smoothness_null_std": "smoothness null s.d.", "smoothness_p": "smoothness p",
    "n_patches": "patches found", "n_significant_patches": "significant patches",
    "largest_patch_units": "largest significant patch (units)",
    "mean_patch_fraction": "mean patch area (fraction)",
    "total_patch_fraction": "patch area (fraction)", "max_t": "max t", "max_value": "max value",
    "pair": "pair", "method": "method", "value": "value", "null_mean": "null mean",
    "null_std": "null s.d.", "p_value": "p", "null": "null", "metric": "metric",
    "item": "item", "model": "model", "cortex": "cortex", "model_vs_cortex": "model vs cortex",
}
_METRIC_NAMES = {
    "map_similarity": "map similarity", "map_similarity_p": "map similarity p",
    "domain_arrangement": "arrangement of domain centres",
    "arrangement_spearman": "patch-centroid arrangement: Spearman ρ",
    "arrangement_procrustes": "patch-centroid arrangement: Procrustes disparity",
    "arrangement_n_regions": "patch-centroid arrangement: domains with a patch on both sides",
    "spearman": "Spearman ρ", "p_value": "p (one-sided; the larger of the two below)",
    "p_shift": "p (sheet maps shifted)",
    "p_spin": "p (cortex maps spun)", "n_domains": "domains compared", "centroids": "–",
}


def _words(df: pd.DataFrame, thr: float | None = None) -> pd.DataFrame:
    names = dict(_COLUMN_NAMES)
    if thr is not None:
        names["selective_fraction"] = f"fraction of units with t ≥ {thr:g}"
    out = df.rename(columns=lambda c: names.get(c, str(c).replace("_", " ")))
    for col in ("metric", "item"):
        if col in out:
            out[col] = [_METRIC_NAMES.get(v, _COLUMN_NAMES.get(v, str(v).replace("_", " ")))
                        for v in out[col]]
    return out


def _html_table(df: pd.DataFrame, index: bool = False) -> str:
    table = df.to_html(index=index, float_format=lambda v: f"{v:.3f}", border=0,
                       classes="tbl", na_rep="–")
    return f'<div class="scroll">{table}</div>'



def _img(files: dict, name: str, alt: str) -> str:
    if name not in files:
        return ""
    data = base64.b64encode(Path(files[name]).read_bytes()).decode("ascii")
    esc = html.escape
    return (f'<figure><img alt="{esc(alt)}" src="data:image/png;base64,{data}"><figcaption>'
            f'{esc(alt)} (<a href="{esc(name)}">{esc(name)}</a>)</figcaption></figure>')


def render_page(template: str, *, title: str, **fields) -> str:
    """A report page: ``templates/<template>`` filled with ``fields``, its ``$page_head``
    the head every report page shares (``templates/head.html``: the title and the style)."""
    def read(name: str) -> string.Template:
        return string.Template(
            (resources.files(__package__) / "templates" / name).read_text(encoding="utf-8"))

    head = read("head.html").substitute(title=title).rstrip("\n")
    return read(template).substitute(page_head=head, **fields)


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
          **{f"{p.replace('-', '–')} p (two-sided)": v["p_value"]
             for p, v in r.get("map_similarity_null", {}).items()},
          **{f"{p.replace('-', '–')} verdict": v.get("verdict")
             for p, v in r.get("map_similarity_null", {}).items()}}
         for ly, r in s["per_layer"].items()]
    )
    comp_parts = []
    for (layer, h), t in res.comparison.items():
        tt = _words(t.reset_index())
        comp_parts.append(f"<h3>{esc(layer)} vs the {esc(h)} hemisphere</h3>" + _html_table(tt))
    model_table = _words(res.tables["model"], thr)
    numbers = st["numbers"]
    train = st.get("training_images")
    demo_note = (
        '<div class="note">This model is a <b>small demonstration TopoNet</b> shipped with '
        "toponeuro: a 4-stage ResNet trained on CPU on fLoc images (the v2 models by "
        "instance discrimination, each image its own class; the superseded first models on the "
        "localizer's ten categories). It is <b>not</b> one of the TopoNets paper's ImageNet "
        "models; load those with <code>model=</code> (<code>--model</code> on the command line).</div>"
        if str(m["name"]).startswith("toponet_demo.") else ""
    )
    if train:
        demo_note += (f'<div class="note"><b>Training images:</b> '
                      f"{esc(training_images_note(st))}.</div>")
    if s.get("random_init_baseline", True):
        baseline_text = (
            "Beside each value stands the same measurement of the network at random "
            "initialisation: the selectivity contrast (each domain against the other four) "
            "builds in an anti-correlation between domains' maps, so a verdict the untrained "
            "network shares says nothing about training.")
    else:
        baseline_text = f"<b>Random-initialisation baseline:</b> {esc(s['random_init_note'])}."
        demo_note += f'<div class="note">{baseline_text}</div>'
    head = s["headline"]
    headline = _headline(s, esc)
    n_smp = _n_samples(res.model_topo, layers)
    shade = (f" (shaded: ±1 s.d. over {n_smp} samples of units)" if n_smp > 1 else
             " (one sample: every unit of the sheet, so there is no spread to shade)")
    user_maps = s["cortex"].get("source", {}).get("representation") == "values"
    return render_page(
        "report.html", title=f"toponeuro map — {esc(m['name'])}", model_name=esc(m["name"]), version=esc(s["toponeuro_version"]),
        created=esc(s["created"]), seconds=s["seconds"], model_source=esc(str(m["source"])),
        tau=esc(str(m["tau"])), model_description=esc(m["description"] or ""),
        n_stimuli=st["n_stimuli"], n_categories=len(st["categories"]),
        images=("all images" if numbers == "all"
                else f"images {numbers[0]}–{numbers[1]} of each category"),
        stimuli_source=esc(st["source"]), layers=esc(", ".join(layers)),
        pooling=esc(s["pooling"]), selectivity=esc(s["selectivity"]), min_units=min_units,
        threshold=f"{thr:g}", atlas=esc(s["cortex"]["atlas"]), demo_note=demo_note,
        headline=headline, baseline_text=baseline_text, **_calibration_texts(),
        model_table=_html_table(model_table), dims_table=_html_table(dims),
        n_permutations=s.get("n_permutations", 0), alpha=f"{s.get('alpha', 0.05):g}",
        signatures="".join(
            f"<h3>{esc(ly)}</h3><ul>"
            + "".join(f"<li>{esc(t)}</li>" for t in r.get("signatures", [])) + "</ul>"
            for ly, r in s["per_layer"].items()),
        fig_sheet_maps=_img(files, "sheet_maps.png",
                            f"Domain selectivity (t) on each layer's sheet, one colour scale per "
                            f"layer (its 99th percentile of |t|; stronger units in the end "
                            f"colours); black outlines: units with t > {thr:g} before smoothing "
                            "(the patches counted are the significant ones listed above)"),
        fig_smoothness_profiles=_img(files, "smoothness_profiles.png",
                                     "Mean absolute difference in t between units, by distance "
                                     "on the sheet" + shade),
        cortex_heading=("The cortex: your maps on fsaverage5" if user_maps else
                        "The cortex: visfAtlas ROIs on fsaverage5"),
        fig_cortex_rois=_img(files, "cortex_rois.png",
                             "Your first map on the inflated fsaverage5 surface, ventral view"
                             if user_maps else
                             "Face-, body-, place- and character-selective ROIs of the "
                             "visfAtlas (maximum-probability labels), ventral view of the "
                             "inflated fsaverage5 surface"),
        cortex_similarity=esc(_cortex_similarity_text(s)),
        comparison_view=_html_table(comparison_view(res.comparison, head["layer"], hemis),
                                    index=True),
        fig_comparison=_img(files, "comparison.png",
                            "Spearman ρ of the domain arrangement for every mapped layer and "
                            "hemisphere; filled markers beat both nulls at p ≤ "
                            f"{s.get('alpha', 0.05):g}; grey bars: the sheet-shift null's "
                            "mean ± s.d."),
        fig_arrangements="".join(
            _img(files, f"arrangement_{h}.png",
                 f"Domain centres of {head['layer']} (left), of the {h} hemisphere's maps "
                 "(middle, on the flat map), and each pair's centre distance on the sheet "
                 "against that on the cortex (right)")
            for h in hemis),
        comparison_tables="".join(comp_parts),
        png_links=", ".join(f'<a href="{esc(k)}">{esc(k)}</a>' for k in files
                            if k.endswith(".png")),
    )


def _pct_range(rates) -> str:
    lo, hi = min(rates), max(rates)
    return f"{100 * lo:.1f}&ndash;{100 * hi:.1f} %"


def _calibration_texts() -> dict:
    """The report's calibration numbers, from the one record of them (null_calibration)."""
    cal = null_calibration()
    sheet = [c["ssim"] for c in cal["sheet"] if c["maps"] == "crop" and c["null"] == "shift"]
    stationary = [c["pearson"] for c in cal["spin"] if c["maps"] == "stationary"]
    envelope = [c for c in cal["spin"] if c["maps"] == "envelope"]
    ratios = [c["envelope_ratio"] for c in envelope]
    return {
        "ssim_fpr_mean": f"{100 * sum(sheet) / len(sheet):.1f} %",
        "ssim_fpr_range": _pct_range(sheet),
        "spin_fpr_range": _pct_range(stationary),
        "spin_envelope_range": (f"{_pct_range([c['pearson'] for c in envelope])} for a "
                                f"{min(ratios):g}- to {max(ratios):g}-fold range"),
    }


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _headline(s: dict, esc) -> str:
    """The model-vs-cortex number of the headline layer, per hemisphere, in one paragraph."""
    head = s["headline"]
    parts = []
    for h, a in head["arrangement"].items():
        if a["spearman"] is None:
            parts.append(f"the {h} hemisphere: undefined ({_plural(a['n_domains'], 'domain')} "
                         "mapped on both sides; 3 are needed)")
            continue
        beat = (a["p_value"] is not None and a["p_value"] <= s.get("alpha", 0.05))
        parts.append(
            f"the {h} hemisphere: Spearman ρ = {a['spearman']:+.2f} over "
            f"{_plural(a['n_pairs'], 'pair')} of {_plural(a['n_domains'], 'domain')} "
            f"({arrangement_p_text(a)}): "
            + ("the arrangement matches beyond both nulls" if beat else
               "not distinguishable from chance arrangements"))
    return (f"<p><b>Model vs cortex.</b> Do the five domains sit on the sheet of "
            f"<code>{esc(head['layer'])}</code> in the same relative positions as on the "
            f"cortex? Rank correlation of the distances between domain centres, on "
            f"{'; on '.join(esc(p) for p in parts)}.</p><p>This headline layer is chosen by a "
            f"rule fixed before looking at the results: {esc(head['rule'])}. Every mapped "
            "layer is in the table and the figure below.</p>")


def _cortex_similarity_text(s: dict) -> str:
    """What the cortex maps used here show for the two pairs the guide names."""
    out = []
    for h, c in s["cortex"].items():
        if h in ("atlas", "nulls", "source"):
            continue
        for pair, v in c.get("map_similarity", {}).items():
            if v is None:
                continue
            test = c.get("map_similarity_null", {}).get(pair, {})
            how = (f"{test['verdict']}, spin test {test['p_text']}" if "verdict" in test
                   else "not tested")
            out.append(f"{pair.replace('-', '–')} r = {v:+.2f} ({h}: {how})")
    if not out:
        return "The cortex maps used here do not cover these pairs."
    return "On the cortex maps used here: " + "; ".join(out) + "."


def write_report(out: Path, res: ReportData, *, atlas, t0: float | None = None,
                 cortex=None) -> dict:
    """Write every output of a ``toponeuro map`` run into ``out``; name -> path.

    ``atlas`` draws the ROI figure; with ``atlas=None`` and ``cortex`` (the user's
    :class:`~toponeuro.atlases.CortexMaps`) the first of the user's maps is drawn instead.
    """
    out.mkdir(parents=True, exist_ok=True)
    files = _figures(out, res, atlas, cortex)
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


# --- the output folder: one implementation, the writer's (toponeuro/_output_folder.py) -----
from .._output_folder import MANIFEST, OutputFolder, output_folder  # noqa: E402, F401
