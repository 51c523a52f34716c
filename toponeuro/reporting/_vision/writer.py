"""Write a ``toponeuro map`` report: figures (from :mod:`toponeuro.plotting`), data files and
the HTML page (``templates/report.html``), all from one :class:`~.results.ReportData` whose
typed :class:`~.._kit.report.MapReport` every sentence reads its fields from."""

from __future__ import annotations

import html
import string
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd

from ..._util import dims as D
from ...analysis import CORTEX_MAP_KINDS, cortex_null_calibration, null_calibration
from .._kit.constants import CORTEX_DOMAINS, MAP_DOMAINS
from .._kit.files import html_table as _html_table
from .._kit.files import write_job_files
from .._kit.page import answer_first_page, figure_html
from .._kit.report import MapReport, RulerRowRecord
from .results import ReportData
from .words import (
    STATISTIC_NAMES,
    _arrangement_verdict,
    comparison_view,
    headline_parts,
    percent_of,
    training_images_note,
)

__all__ = ["write_report"]


def _n_samples(topo, layers) -> int:
    """Most smoothness samples behind any profile (1: no band to shade)."""
    n = 1
    for ly in layers:
        for d in MAP_DOMAINS:
            ds = topo.smoothness.get((ly, d))
            if ds is not None and "profiles" in ds and D.SAMPLE in ds["profiles"].dims:
                n = max(n, int(ds.sizes[D.SAMPLE]))
    return n


def _patch_mask(patches) -> np.ndarray:
    """The points in a map's patches: a (rows, cols) mask on a grid sheet, one per unit
    where the units sit at free positions."""
    if patches.map.grid_shape is None:
        return np.asarray(patches.labels) > 0
    return patches.label_grid() > 0


def _ruler_pick(rep: MapReport):
    """``(layer, hemisphere, domain)`` of the map pair the report draws side by side: the
    ruler headline's (a pair's first domain), else the deepest layer's first hemisphere's
    first compared domain; None without a comparison."""
    if rep.ruler is None:
        return None
    head, per = rep.ruler.headline, rep.ruler.comparisons
    if head.chosen:
        return head.layer, head.hemisphere, head.row.domain.split("-")[0].split("+")[0]
    deepest = [v for v in per.values() if v.layer == rep.layers[-1]] or list(per.values())
    for entry in deepest:
        for row in entry.rows:
            if row.domain and "-" not in row.domain and "+" not in row.domain:
                return entry.layer, entry.hemisphere, row.domain
    return None


def _ruler_figure(res: ReportData, atlas, cortex):
    """The model's map beside the cortex's (the ruler headline's domain), one colour logic:
    each map's threshold (the one the ruler's descriptors use on it) at the same colour."""
    from ...plotting import plot_model_cortex_maps
    from .ruler import cortex_region_mask, ruler_cortex_maps
    from .stages import CortexTopography

    pick = _ruler_pick(res.report)
    if pick is None or (pick[0], pick[1]) not in res.ruler or not cortex:
        return None
    layer, hemi, domain = pick
    side = ruler_cortex_maps(CortexTopography(atlas, {hemi: cortex[hemi]}, None),
                             res.ruler[layer, hemi].settings)
    if domain not in side.get(hemi, {}):
        return None
    ctm = side[hemi][domain]
    settings = res.ruler[layer, hemi].settings
    sel = res.selectivity.sel({D.DOMAIN: domain}).topo.select(layer)
    free = sel.topo.free_positions(layer)
    grid = None if free is not None else sel.topo.map(layer, reduce="mean").values
    binary = bool(np.isin(ctm.values[np.isfinite(ctm.values)], (0.0, 1.0)).all())
    cthr = settings.binary_threshold if binary else settings.threshold
    # the cortex drawn where the ruler measured it: its region (RulerSettings.cortex_region)
    region = cortex_region_mask(settings.cortex_region, cortex[hemi].mesh, hemi)
    keep = np.ones(ctm.values.size, bool) if region is None else region
    return plot_model_cortex_maps(
        np.asarray(sel.values, float) if free is not None else grid.ravel(), ctm.values[keep],
        threshold=float(settings.threshold), cortex_threshold=float(cthr),
        cortex_positions=np.asarray(cortex[hemi].positions)[keep], model_positions=free,
        model_grid_shape=None if free is not None else grid.shape,
        model_units=res.selectivity.topo.position_units or "sheet units",
        model_title=f"model · {layer} · {domain} (t)",
        cortex_title=f"cortex · {hemi} hemisphere · {domain}\n"
                     f"({'ROI, 0/1' if binary else 'your map'}; flat map; "
                     f"{_region_words(region)})",
        title="The headline's maps on one colour logic (each one's threshold one colour)")


def _region_words(mask) -> str:
    """The cortex side's extent in words: the region's vertices, or the whole hemisphere
    (no region, or a mesh the region is not defined on)."""
    return "whole hemisphere" if mask is None else "occipito-temporal region"


def _figures(out: Path, res: ReportData, atlas, cortex=None) -> dict:
    from ..._io.meshes import MESH_SIZES
    from ...atlases import vertex_coordinates
    from ...plotting import (
        plot_arrangement_by_layer,
        plot_distance_profiles,
        plot_domain_arrangement,
        plot_sheet_map,
        plot_surface_map,
    )
    from ...plotting import save_figure as _savefig

    rep = res.report
    layers = rep.layers
    topo, hemis = res.model_topo, res.cortex_topo.sheets
    files = {}
    # the outlines are the patches the tables count (significant, after TDANN's smoothing)
    # (per unit where the units sit at free positions: their map's points are the units)
    outlines = {(d, ly): _patch_mask(topo.patches[ly, d]) for ly in layers
                for d in MAP_DOMAINS if (ly, d) in topo.patches}
    fig = plot_sheet_map(res.selectivity, layers, facet=D.DOMAIN, outline=outlines,
                         outline_label="outlined: the significant patches counted in the tables",
                         scale="layer", robust=99,
                         colorbar_label="selectivity t (domain vs the other four)",
                         title="Domain selectivity on the model's cortical sheets")
    files["sheet_maps.png"] = _savefig(fig, out / "sheet_maps.png")
    fig = plot_distance_profiles(
        {layer: {d: topo.smoothness[layer, d] for d in MAP_DOMAINS} for layer in layers},
        ylabel="mean |Δ t|",
        title="How much selectivity differs between units, by distance on the sheet")
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
        mesh = next(iter(cortex.values())).mesh
        n = MESH_SIZES[mesh]
        both = [cortex[h].maps.get(first, np.full(n, np.nan)) for h in ("left", "right")
                if h in cortex]
        if len(both) == 2 and mesh == "fsaverage5":  # plot_surface_map draws fsaverage5
            fig = plot_surface_map(np.concatenate(both), colorbar_label=first,
                                   title=f"Your {first} map on fsaverage5 (inflated, ventral "
                                   "view)")
            files["cortex_rois.png"] = _savefig(fig, out / "cortex_rois.png")
    fig = _ruler_figure(res, atlas, cortex)
    if fig is not None:
        files["model_and_cortex.png"] = _savefig(fig, out / "model_and_cortex.png")
    head = rep.headline.layer
    for h in hemis:
        if (head, h) not in res.comparison:
            continue
        arr = res.comparison[head, h].attrs["arrangement"]
        free = res.selectivity.topo.free_positions(head)
        fig = plot_domain_arrangement(
            arr, sheet_shape=res.sheet_shapes[head] if free is None else None,
            model_positions=free,
            p_text=(rep.arrangement[f"{head}|{h}"].p_text
                    if f"{head}|{h}" in rep.arrangement else None),
            cortex_positions=(cortex[h].positions[:, :2] if cortex and h in cortex
                              and cortex[h].surface == "flat"
                              else vertex_coordinates("flat", h)[:, :2]),
            model_label=f"sheet · {head}",
            cortex_label=f"cortex · {h} hemisphere (flat map)",
        )
        files[f"arrangement_{h}.png"] = _savefig(fig, out / f"arrangement_{h}.png")
    fig = plot_arrangement_by_layer(
        {k: t.attrs["arrangement"] for k, t in res.comparison.items()},
        alpha=rep.setting('null.alpha'), headline=head,
        n_permutations=min(rep.setting("null.n_permutations"),
                           rep.setting("cortex.n_permutations")) or None)
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


def _img(files: dict, name: str, alt: str) -> str:
    return figure_html(files.get(name), alt, name)


#: the selectivity statistics in words (the summary keeps the method's id)
_SELECTIVITY_WORDS = {
    "tdann_t": "TDANN's t (Welch-type, population variances; Margalit et al., 2024) of each "
               "domain's images against the other four domains'",
    "t": "Student t of each domain's images against the other four domains'",
    "welch_t": "Welch t of each domain's images against the other four domains'",
    "dprime": "d′ of each domain's images against the other four domains'",
}


def _units(sheet: str) -> int:
    """Units on a sheet written ``"16x16"``."""
    h, _, w = str(sheet).partition("x")
    return int(h) * int(w) if w else 0


def _model_table_html(res: ReportData, thr: float) -> str:
    """The model's per layer and domain numbers, each column naming its statistic, every p
    written by format_p, counts as integers and fractions as percentages of the units."""
    from ...analysis import format_p

    n = res.report.setting("null.n_permutations")
    rows = []
    for r in res.tables["model"].itertuples():
        units = _units(r.sheet)
        n_sig = r.n_significant_patches
        rows.append({
            "layer": r.layer, "domain": r.domain, "sheet (units)": f"{r.sheet} ({units:,})",
            "smoothness (TDANN)": f"{r.smoothness:.3f}",
            "its null: mean ± s.d.": (f"{r.smoothness_null_mean:.3f} ± "
                                      f"{r.smoothness_null_std:.3f}"
                                      if np.isfinite(r.smoothness_null_mean) else "no null"),
            "smoothness p (one-sided; units' values scattered)": format_p(r.smoothness_p, n),
            "patches found": f"{int(r.n_patches)}",
            "significant patches (counted, outlined)": ("–" if not np.isfinite(n_sig)
                                                        else f"{int(n_sig)}"),
            "largest significant patch": f"{int(r.largest_patch_units)} units",
            "significant patch area": percent_of(r.total_patch_fraction, units),
            f"units with t ≥ {thr:g} (unsmoothed)": percent_of(r.selective_fraction, units),
            "largest t": f"{r.max_t:.2f}",
        })
    return _html_table(pd.DataFrame(rows))


def _dims_table_html(rep: MapReport) -> str:
    """Map similarity (its statistic named, its test in words) and dimensionality per layer."""
    rows = []
    for ly, r in rep.per_layer.items():
        row = {"layer": ly, "effective dimensionality": f"{r.effective_dimensionality:.1f}"}
        base = (r.map_similarity_random_init if rep.random_init_baseline
                and r.map_similarity_random_init is not None else {})
        for pair, v in r.map_similarity_null.items():
            name, stat = pair.replace("-", "–"), STATISTIC_NAMES.get(v.method, v.method)
            row[f"{name} {stat}"] = f"{v.value:+.2f}"
            row[f"{name} test (two-sided, sheet maps shifted)"] = (
                f"{v.verdict}, {v.p_text}" if v.verdict != "not tested" else "not tested")
            if pair in base:
                b = base[pair]
                row[f"{name} {stat} at random initialisation"] = (
                    f"{b.value:+.2f} ({b.verdict}, {b.p_text})")
        rows.append(row)
    return _html_table(pd.DataFrame(rows))


def _cortex_table_html(res: ReportData) -> str:
    """The cortex maps' own smoothness and patches (no null), each a percentage of vertices."""
    rows = []
    for r in res.tables["cortex"].itertuples():
        n = int(r.n_points)  # the vertices with data: the fractions' denominator (issue 45)
        rows.append({"hemisphere": r.hemisphere, "domain": r.domain,
                     "smoothness (TDANN; no null)": f"{r.smoothness:.2f}",
                     "patches (connected regions; no null)": f"{int(r.n_patches)}",
                     "patch area": percent_of(r.total_patch_fraction, n, "vertices with data")})
    return _html_table(pd.DataFrame(rows))


def _user_maps(rep: MapReport) -> bool:
    """Whether the cortex maps are the user's (their values), not the atlas's ROIs."""
    return rep.cortex.source.user_maps


def _cortex_alone_text(rep: MapReport) -> str:
    """Why the cortex's smoothness and patches stand here, not beside the model's."""
    source = rep.cortex.source
    if _user_maps(rep):
        return ("The smoothness and patches of your maps, as they are: no null was drawn for "
                "them on the cortex (the spin test is drawn for their map similarities and "
                "arrangement only), so they stand here and not beside the model's values, "
                "which each carry their own null.")
    # the atlas's proximity maps' scale (binary ROIs record none: roi_proximity's 10 mm)
    scale = 10 if source.scale_mm is None else source.scale_mm
    return (f"The smoothness and patches of the atlas's maps. Each map is the proximity "
            f"exp(−d / {scale:g} mm) to an ROI of the atlas (d the distance along the mesh): "
            "a map made of distances to a region is smooth by construction, and its patches "
            "are the ROIs themselves. No null can test them (a spin test keeps the smoothness "
            "it rotates; scattering the values makes any region look clustered), and they say "
            "nothing about how the cortex's selectivity varies; so they are shown here on "
            "their own, not beside the model's smoothness, which is a statistic of selectivity "
            "t maps with its own null.")


def _what_was_run(rep: MapReport) -> list[str]:
    """What was run, in two lines (no hash, no internal names: those are in the methods)."""
    esc = html.escape
    m, st, layers = rep.model, rep.stimuli, rep.layers
    src = str(m.source)
    weights = ("its released weights" if src.startswith(str(m.name))
               else f"weights from {src.split(' (')[0]}")
    numbers = st.numbers
    images = ("all images" if numbers == "all"
              else f"images {numbers[0]}–{numbers[1]} of each of {len(st.categories)} "
                   "categories")
    train = st.training_images
    held = ("" if not train else ", held out from training" if not train["n_overlap"]
            else f", {train['n_overlap']} of them training images")
    n_perm, n_spin = rep.setting("null.n_permutations"), rep.setting("cortex.n_permutations")
    tau = "no TopoLoss" if m.tau is None else f"τ = {float(m.tau):g}"
    cortex = ("your own cortex maps" if _user_maps(rep) else "the visfAtlas ROIs on fsaverage5")
    return [
        f"<b>Run:</b> <code>{esc(m.name)}</code> ({tau}, {esc(weights)}) "
        f"on {st.n_stimuli:,} fLoc images ({esc(images)}{held}); layers "
        f"{esc(', '.join(layers))}.",
        f"<b>Against</b> {cortex}; nulls of {n_perm:,} draws on the sheet and {n_spin:,} "
        f"rotations on the cortex; toponeuro {esc(rep.toponeuro_version)}, "
        f"{esc(rep.created)}, {rep.seconds} s.",
    ]


def _html(res: ReportData, files: dict) -> str:
    esc = html.escape
    rep = res.report
    m, st, layers = rep.model, rep.stimuli, rep.layers
    thr, min_units = rep.setting("patches.threshold"), rep.setting("patches.min_units")
    hemis = res.cortex_topo.sheets
    comp_parts = []
    for (layer, h), t in res.comparison.items():
        t = t[~t.index.get_level_values("metric").isin(
            ("smoothness", "smoothness_p", "n_patches", "n_significant_patches",
             "mean_patch_fraction", "total_patch_fraction"))]
        tt = _words(t.reset_index())
        comp_parts.append(f"<h4>{esc(layer)} vs the {esc(h)} hemisphere</h4>" + _html_table(tt))
    numbers = st.numbers
    train = st.training_images
    notes = (
        '<div class="note">This model is a <b>small demonstration TopoNet</b> shipped with '
        "toponeuro: a 4-stage ResNet trained on CPU on fLoc images (the v2 models by "
        "instance discrimination, each image its own class; the superseded first models on the "
        "localizer's ten categories). It is <b>not</b> one of the TopoNets paper's ImageNet "
        "models; load those with <code>model=</code> (<code>--model</code> on the command line).</div>"
        if str(m.name).startswith("toponet_demo.") else ""
    )
    if train:
        notes += (f'<div class="note"><b>Training images:</b> '
                  f"{esc(training_images_note(st))}.</div>")
    if rep.random_init_baseline:
        baseline_text = (
            "Beside each value stands the same measurement of the network at random "
            "initialisation: the selectivity contrast (each domain against the other four) "
            "builds in an anti-correlation between domains' maps, so a verdict the untrained "
            "network shares says nothing about training.")
    else:
        baseline_text = f"<b>Random-initialisation baseline:</b> {esc(rep.random_init_note)}."
        notes += f'<div class="note">{baseline_text}</div>'
    head = rep.headline
    n_smp = _n_samples(res.model_topo, layers)
    shade = (f" (shaded: ±1 s.d. over {n_smp} samples of units)" if n_smp > 1 else
             " (one sample: every unit of the sheet, so there is no spread to shade)")
    user_maps = _user_maps(rep)
    mesh = rep.cortex.source.on_mesh
    cortex_heading = (f"The cortex maps on their own: your maps on {mesh}" if user_maps
                      else "The cortex maps on their own: visfAtlas ROIs on fsaverage5")
    n_perm = rep.setting("null.n_permutations")
    sel_words = _SELECTIVITY_WORDS.get(str(rep.selectivity), str(rep.selectivity))
    detail = string.Template(
        (resources.files("toponeuro.reporting") / "templates" / "report.html").read_text("utf-8")
    ).substitute(
        version=esc(rep.toponeuro_version), created=esc(rep.created), seconds=rep.seconds,
        model_source=esc(str(m.source)), tau=esc(str(m.tau)),
        model_description=esc(m.description or ""),
        n_stimuli=st.n_stimuli, n_categories=len(st.categories),
        images=("all images" if numbers == "all"
                else f"images {numbers[0]}–{numbers[1]} of each category"),
        stimuli_source=esc(st.source), layers=esc(", ".join(layers)),
        pooling=esc(rep.pooling), selectivity=esc(sel_words), min_units=min_units,
        threshold=f"{thr:g}", atlas=esc(rep.cortex.atlas), nulls_text=esc(
            f"sheet: {n_perm:,} draws ({rep.p_values}); cortex: {rep.cortex.nulls}."),
        baseline_text=baseline_text, **_calibration_texts(mesh),
        model_table=_model_table_html(res, thr), dims_table=_dims_table_html(rep),
        n_permutations_text=f"{n_perm:,}", alpha=f"{rep.setting('null.alpha'):g}",
        signatures="".join(
            f"<details><summary>{esc(ly)}: every statistic in words</summary><ul>"
            + "".join(f"<li>{esc(t)}</li>" for t in r.signatures) + "</ul></details>"
            for ly, r in rep.per_layer.items()),
        fig_sheet_maps=_img(files, "sheet_maps.png",
                            "Domain selectivity (t) on each layer's sheet, one colour scale per "
                            "layer (its 99th percentile of |t|; stronger units in the end "
                            "colours); black outlines: the significant patches the tables "
                            f"count ({min_units} or more connected units with t ≥ {thr:g} "
                            "after TDANN's smoothing, family-wise p ≤ "
                            f"{rep.setting('null.alpha'):g})"),
        fig_smoothness_profiles=_img(files, "smoothness_profiles.png",
                                     "Mean absolute difference in t between units, by distance "
                                     "on the sheet" + shade),
        cortex_heading=cortex_heading,
        fig_cortex_rois=_img(files, "cortex_rois.png",
                             "Your first map on the inflated fsaverage5 surface, ventral view"
                             if user_maps else
                             "Face-, body-, place- and character-selective ROIs of the "
                             "visfAtlas (maximum-probability labels), ventral view of the "
                             "inflated fsaverage5 surface"),
        cortex_alone_text=esc(_cortex_alone_text(rep)), cortex_table=_cortex_table_html(res),
        cortex_similarity=esc(_cortex_similarity_text(rep)),
        comparison_view=_html_table(comparison_view(res.comparison, head.layer, hemis, rep),
                                    index=True),
        fig_arrangements="".join(
            _img(files, f"arrangement_{h}.png",
                 f"Domain centres of {head.layer} (left), of the {h} hemisphere's maps "
                 "(middle, on the flat map), and each pair's centre distance on the sheet "
                 "against that on the cortex (right)")
            for h in hemis),
        comparison_tables="".join(comp_parts),
        png_links=", ".join(f'<a href="{esc(k)}">{esc(k)}</a>' for k in files
                            if k.endswith(".png")),
    )
    parts = headline_parts(rep.headline, rep.setting('null.alpha'), rep.arrangement_draws)
    answers = "".join(f"<li><b>{esc(h.capitalize())} hemisphere:</b> {esc(t)}</li>"
                      for h, t in parts["answers"].items())
    headline = (_ruler_headline_html(rep)
                + "<p><b>Extra (0.4's headline, kept): the arrangement of domain centres.</b> "
                f"{esc(parts['question'])}</p><ul>{answers}</ul>"
                f"<p>{esc(parts['rule'])}</p>")
    if "model_and_cortex.png" in files:
        figure = _img(files, "model_and_cortex.png",
                      "The headline's maps side by side: the model's selectivity t on its sheet "
                      "and the cortex's map on its flat map, each divided by the threshold the "
                      "ruler's descriptors use on it (t 2; 0.5 for a 0/1 ROI), one colour scale; "
                      "outlined: the selective points")
        figure += _img(files, "comparison.png", "Spearman ρ of the domain-centre distances "
                       "(0.4's headline, an extra row) for every layer and hemisphere")
    else:
        figure = _img(files, "comparison.png",
                  "The headline's number for every mapped layer and hemisphere: Spearman ρ "
                  "between the domain-centre distances on the sheet and on the cortex; filled "
                  f"markers beat both nulls at p ≤ {rep.setting('null.alpha'):g}, open ones do not; "
                  "grey bars: the sheet-shift null's mean ± s.d.")
    return answer_first_page(
        title=f"toponeuro map — {m.name}",
        heading=f"Category-selective topography of <code>{esc(m.name)}</code>",
        headline=headline, figure=figure, what_was_run=_what_was_run(rep), notes=notes,
        detail=detail)


def _fmt(v, digits=3) -> str:
    return "–" if v is None else f"{v:.{digits}g}"


def _side_text(row: RulerRowRecord, side: str) -> str:
    """One side of a ruler row in words: its value (the model's with its 95 % interval over
    stimulus resamples), its p, null and draws."""
    if side == "model":
        value, p, null, draws = row.model, row.model_p, row.model_null, row.model_draws
        lo, hi = row.model_lo, row.model_hi
    else:
        value, p, null, draws = row.cortex, row.cortex_p, row.cortex_null, row.cortex_draws
        lo = hi = None  # the cortex has one map: no interval
    value = _fmt(value)
    if lo is not None and hi is not None:  # the model's 95% interval over stimuli
        value += (f" [{_fmt(lo)}, {_fmt(hi)}; 95% over {row.model_boot} "
                  "stimulus resamples]")
    if p is None or null == "none":
        return f"{value} (no null)"
    return f"{value} (p = {_fmt(p, 2)}, {null} null, {draws:,} draws)"


def _ruler_headline_html(rep: MapReport) -> str:
    """The answer first: the ruler's headline row in words, the counts of each verdict, what
    was left out, the rule that chose the row, and the one table of its layer and
    hemisphere (one row per descriptor; the 0.4 arrangement and SSIM as extra rows)."""
    esc = html.escape
    if rep.ruler is None:
        return ""
    head, per = rep.ruler.headline, rep.ruler.comparisons
    if head.chosen:
        key, row = f"{head.layer}|{head.hemisphere}", head.row
        text = (f"<p><b>Model vs cortex, on one ruler.</b> Is {esc(head.layer)}'s "
                f"topography like the {esc(head.hemisphere)} hemisphere's? The comparison "
                f"with the most evidence: <b>{esc(row.descriptor.replace('_', ' '))}</b> "
                f"of {esc(row.domain)} ({esc(row.statistic)}): model "
                f"{esc(_side_text(row, 'model'))}, cortex {esc(_side_text(row, 'cortex'))} "
                f"&rarr; <b>{esc(row.verdict)}</b> ({esc(row.reason)}).</p>")
    else:
        key = f"{rep.layers[-1]}|" + (next(iter(per.values())).hemisphere if per else "")
        text = ("<p><b>Model vs cortex, on one ruler: not testable.</b> No comparison can be "
                f"the headline: none of the {head.n_rows} rows has a verdict with "
                "nulls on both sides that can reach alpha (give more draws: "
                "ruler.n_permutations).</p>")
    entry = per[key] if key in per else None
    counts = "; ".join(
        f"{esc(v.layer)} vs {esc(v.hemisphere)}: "
        + ", ".join(f"{n} {esc(k)}" for k, n in v.counts.items())
        for v in per.values())
    if counts:
        text += f"<p>Verdicts of every layer and hemisphere: {counts}.</p>"
    if entry and entry.left_out:
        text += ("<p>Left out: " + "; ".join(f"{esc(k.replace('_', ' '))} ({esc(v)})"
                                             for k, v in entry.left_out.items()) + ".</p>")
    text += f"<p><i>Headline rule (fixed before any result):</i> {esc(head.rule)}</p>"
    if entry:
        rows = [{"descriptor": r.descriptor.replace("_", " "), "domain": r.domain,
                 "statistic": r.statistic, "model": _side_text(r, "model"),
                 "cortex": _side_text(r, "cortex"), "verdict": r.verdict}
                for r in entry.rows]
        rows += _extra_rows(rep, entry.layer, entry.hemisphere)
        text += (f"<h4>{esc(entry.layer)} vs the {esc(entry.hemisphere)} hemisphere, "
                 "one row per descriptor</h4>" + _html_table(pd.DataFrame(rows)))
    return text


def _extra_rows(rep: MapReport, layer: str, hemi: str) -> list:
    """The 0.4 rows kept beside the ruler's: the arrangement's Spearman over the centre
    distances (with both nulls) and the model's SSIM per pair (TopoNets' statistic, sheet
    only, so no cortex value and no verdict)."""
    rows = []
    arr = rep.arrangement[f"{layer}|{hemi}"] if f"{layer}|{hemi}" in rep.arrangement else None
    if arr:
        p = arr.p_value
        rows.append({"descriptor": "arrangement (0.4, extra)", "domain": "+".join(
            arr.domains), "statistic": "Spearman ρ of centre distances",
            "model": f"ρ = {_fmt(arr.spearman)} over {arr.n_pairs} "
                     "distances", "cortex": f"p = {_fmt(p, 2)} (shift and spin nulls)",
            "verdict": _arrangement_verdict(arr, float(rep.setting('null.alpha')),
                                            rep.arrangement_draws)})
    sims = rep.per_layer[layer].map_similarity if layer in rep.per_layer else {}
    for pair, v in sims.items():
        rows.append({"descriptor": "domain similarity (extra)", "domain": pair,
                     "statistic": "SSIM on the sheet (TopoNets)", "model": _fmt(v),
                     "cortex": "– (SSIM needs a grid)", "verdict": "not a comparison"})
    return rows


def _pct_range(rates) -> str:
    lo, hi = min(rates), max(rates)
    return f"{100 * lo:.1f}&ndash;{100 * hi:.1f} %"


def _calibration_texts(mesh: str = "fsaverage5") -> dict:
    """The report's calibration numbers, from the one record of them (null_calibration); the
    cortex null's for the mesh the cortex maps are on."""
    cal = null_calibration()
    sheet = [c["ssim"] for c in cal["sheet"] if c["maps"] == "crop" and c["null"] == "shift"]
    fs5 = [c for c in cal["spin"] if c.get("mesh", "fsaverage5") == "fsaverage5"]  # the text's
    envelope = [c for c in fs5 if c["maps"] == "envelope"]
    ratios = [c["envelope_ratio"] for c in envelope]
    return {
        "ssim_fpr_mean": f"{100 * sum(sheet) / len(sheet):.1f} %",
        "ssim_fpr_range": _pct_range(sheet),
        "spin_calibration_text": html.escape(spin_calibration_text(mesh)),
        "spin_envelope_range": (f"{_pct_range([c['pearson'] for c in envelope])} for a "
                                f"{min(ratios):g}- to {max(ratios):g}-fold range"),
    }


def spin_calibration_text(mesh: str) -> str:
    """The cortex null's measured false-positive rates on ``mesh``, per kind of map, in words,
    and whether it holds its level on volume-projected maps (the record's pooled cells)."""
    cal = cortex_null_calibration(mesh)
    lo_t, hi_t = cal["target"]
    kinds = cal["kinds"]
    if not kinds:
        return (f"The cortex's null ({cal['null']} test) has no measured false-positive rate on "
                f"{mesh} maps yet (Metrics page, \u201cCortex nulls by mesh and kind of "
                "map\u201d).")
    parts = [f"{100 * c['rate']:.1f} % ({100 * c['ci95'][0]:.1f}\u2013{100 * c['ci95'][1]:.1f} %, "
             f"{c['hits']} of {c['pairs']} pairs) on maps {CORTEX_MAP_KINDS[k]}"
             for k, c in kinds.items()]
    text = (f"On {mesh}, the cortex's null (the {cal['null']} test, which answered every cortex "
            f"similarity here) reaches p \u2264 {cal['alpha']:g} on independent random maps in "
            + "; ".join(parts) + f" (target {100 * lo_t:.1f}\u2013{100 * hi_t:.1f} %).")
    vol = kinds.get("volume")
    if vol is not None and not vol["holds_level"]:
        text += (f" It does not hold its level on maps smoothed in the volume (a volume result "
                 f"or atlas projected to the surface): {100 * vol['rate']:.1f} % of independent "
                 "pairs reach p \u2264 0.05, so read a cortex p near 0.05 as weaker than it "
                 "looks.")
    elif vol is not None and vol["ci95"][1] > hi_t:
        text += (f" On maps smoothed in the volume its interval reaches {100 * vol['ci95'][1]:.1f} "
                 "%, so it may be liberal there; read a cortex p near 0.05 as weaker than it "
                 "looks.")
    return text


def _cortex_similarity_text(rep: MapReport) -> str:
    """What the cortex maps used here show for the two pairs the guide names."""
    out = []
    for h, c in rep.cortex.hemispheres.items():
        for pair, v in c.map_similarity.items():
            if v is None:
                continue
            test = c.map_similarity_null[pair] if pair in c.map_similarity_null else None
            how = "not tested" if test is None else f"{test.verdict}, spin test {test.p_text}"
            out.append(f"{pair.replace('-', '–')} Pearson r = {v:+.2f} ({h}: {how})")
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
    if "ruler" in res.tables:
        res.tables["ruler"].to_csv(out / "comparison_ruler.csv", index=False)
        files["comparison_ruler.csv"] = out / "comparison_ruler.csv"
    return write_job_files(out, files, dataset=res.dataset, report=res.report,
                           page=lambda f: _html(res, f), t0=t0)
