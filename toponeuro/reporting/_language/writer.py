"""Write a ``toponeuro map --language`` report from one :class:`~._language_results.LanguageReport`:
figures (from :mod:`toponeuro.plotting`), data files and the page (``templates/skeleton.html``,
the page both reports share: answer first, then what was run, then the detail).

Like :mod:`._writer` it draws, so only the entry point :mod:`._language` imports it.
"""

from __future__ import annotations

import html
from pathlib import Path

import numpy as np

from ..._util import dims as D
from ...analysis import format_p
from .._kit.files import html_table, write_job_files
from .._kit.headline import HEADLINE_RULE
from .._kit.page import DetailBlock, answer_first_page, figure_html
from .._kit.report import LanguageMapReport
from .fit import FIT_HEMISPHERE_RULE, FIT_LAYER_RULE, short_layer
from .results import LanguageReport, _count, _fmt
from .stages import LANGUAGE_MAP

__all__ = ["write_language_report", "language_headline", "headline_rules", "fit_figure",
           "profile_comment",
           "short_layer"]


def language_headline(report: LanguageMapReport) -> str:
    """The report's first sentence: ``report.headline``, one sentence that answers both
    questions -- is the headline layer's S - N map organised on the sheet (positions null),
    and more than random contrasts of its items would be (label null) -- and gives the
    comparison row with the cortex :data:`~toponeuro.reporting.HEADLINE_RULE` picks
    (:func:`~._language_report.headline_text`).

    Examples
    --------
    >>> from types import SimpleNamespace as NS
    >>> language_headline(NS(headline="On layer.5, the S - N map is organised ..."))
    'On layer.5, the S - N map is organised ...'
    """
    return report.headline


def headline_rules() -> str:
    """The rules behind the headline, fixed in code before any result was seen (printed
    under it).

    Examples
    --------
    >>> headline_rules()[:34]
    'The layer is the deepest mapped la'
    """
    return (f"The layer is {FIT_LAYER_RULE}; the hemispheres are {FIT_HEMISPHERE_RULE}. "
            f"The headline row: {HEADLINE_RULE}")


def fit_figure(fit) -> str:
    """The file name of a comparison's figure: the model's map beside the cortex's.

    Examples
    --------
    >>> from types import SimpleNamespace as NS
    >>> fit_figure(NS(key="verb-noun", hemisphere="left"))
    'model_vs_cortex_verb-noun_left.png'
    """
    return f"model_vs_cortex_{fit.key}_{fit.hemisphere}.png"


def profile_comment(profile) -> str:
    """What the deepest layer's condition profile shows beside the brain's S > W ≈ J > N.

    Examples
    --------
    >>> import xarray as xr
    >>> r = xr.DataArray([[1.0, 0.9, 0.2, 0.0]], dims=("layer", "condition"),
    ...                  coords={"layer": ["h"], "condition": list("SWJN")})
    >>> profile_comment(xr.Dataset({"response": r, "sem": 0.05 + 0 * r}))[:48]
    'On h the top-k units respond S +1.00, W +0.90, J'
    """
    ly = str(profile["response"][D.LAYER].values[-1])
    resp = profile["response"].sel({D.LAYER: ly}).to_series()
    if not np.isfinite(resp.to_numpy(dtype=float)).all():
        return f"On {ly} the profile is undefined (a half of the items selected no unit)."
    sem = profile["sem"].sel({D.LAYER: ly}).to_series()
    ranked = " > ".join(resp.sort_values(ascending=False).index.astype(str))
    vals = ", ".join(f"{c} {v:+.2f}" for c, v in resp.items())
    text = f"On {ly} the top-k units respond {vals} (z; ranked {ranked})."
    if {"W", "J"} <= set(resp.index):
        d = float(resp["W"] - resp["J"])
        err = float(np.hypot(sem["W"], sem["J"]))
        if abs(d) <= 2 * err:
            text += (f" W and J are within two standard errors of each other "
                     f"(W − J = {d:+.2f} ± {err:.2f}), as in the brain.")
        else:
            text += (f" Unlike the brain, where W ≈ J, word lists and Jabberwocky differ here "
                     f"(W − J = {d:+.2f} ± {err:.2f}): "
                     + ("the units respond more to real words without syntax than to "
                        "syntax without real words." if d > 0 else
                        "the units respond more to syntax without real words than to real "
                        "words without syntax."))
    return text


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in str(name))


def _figures(out: Path, rep: LanguageReport) -> dict:
    from ...plotting import (
        plot_condition_profile,
        plot_cortex_map,
        plot_language_sheets,
        plot_model_cortex_maps,
        plot_surface_map,
    )
    from ...plotting import save_figure as _savefig

    report, files = rep.report, {}
    layers, thr = report.layers, rep.threshold
    fig = plot_language_sheets(
        rep.selectivity.sel(map=LANGUAGE_MAP), layers, threshold=thr, ncols=3,
        title=("S vs N t on the model's sheets (outlined: units whose t passes "
               f"Benjamini-Hochberg, t ≥ {thr:.2f})") if np.isfinite(thr) else
        "S vs N t on the model's sheets (no unit passes Benjamini-Hochberg)")
    files["sheet_maps.png"] = _savefig(fig, out / "sheet_maps.png")
    cortex = rep.cortex
    if cortex.atlas is not None:
        lab = cortex.atlas.mask(domain=LANGUAGE_MAP).astype(int)
        fig = plot_surface_map(lab, labels={1: "language parcels"}, view="lateral",
                               title="Language parcels (Wolna et al., 2025) on fsaverage5 "
                                     "(inflated, lateral view)")
        files["cortex_parcels.png"] = _savefig(fig, out / "cortex_parcels.png")
    for hemi, cm in cortex.user_maps.items():  # a lab's maps, always drawn, on their mesh
        for name, vals in cm.maps.items():
            fname = f"cortex_{_safe(name)}_{hemi}.png"
            fig = plot_cortex_map(np.asarray(vals, float), mesh=cm.mesh, hemi=hemi,
                                  threshold=report.setting("cortex.threshold"),
                                  colorbar_label=name,
                                  title=f"Your map {name!r}, {hemi} hemisphere ({cm.mesh})")
            files[fname] = _savefig(fig, out / fname)
    fig = plot_condition_profile(
        rep.profile, layer_names=[short_layer(ly) for ly in layers],
        title="Language units (top-k, selected on the other half of the items)")
    files["condition_profile.png"] = _savefig(fig, out / "condition_profile.png")
    for f in rep.fits.values():
        model = (rep.verb_noun.tmap if f.key == "verb-noun"
                 else rep.selectivity.sel(map=LANGUAGE_MAP))
        what = "verb - noun" if f.key == "verb-noun" else "S - N"
        fig = plot_model_cortex_maps(
            model.topo.map(f.layer), f.cortex_values, mesh=f.mesh, hemi=f.hemisphere,
            threshold=2.0, colorbar_label="t",
            model_title=f"model: {what} t on {short_layer(f.layer)}",
            cortex_title=f"cortex: {f.cortex_name} ({f.mesh}, {f.hemisphere})",
            title=f"{f.title} (one colour logic; |t| < 2 uncoloured)")
        fname = fit_figure(f)
        files[fname] = _savefig(fig, out / fname)
    return files


#: the per-layer table's columns, in words
_COLUMNS = {
    "layer": "layer", "sheet": "sheet", "n_units": "units",
    "n_fdr_topolm": "units passing BH (TopoLM)", "n_topk_topolm": "top-k units (TopoLM)",
    "max_t": "max t", "morans_i": "Moran's I", "morans_i_expected": "Moran's I expected",
    "morans_i_null_mean": "Moran's I null mean", "morans_i_null_std": "Moran's I null s.d.",
    "morans_i_p": "Moran's I p", "smoothness": "smoothness",
    "smoothness_null_mean": "smoothness null mean", "smoothness_null_std": "smoothness null s.d.",
    "smoothness_p": "smoothness p", "n_patches": "patches found",
    "n_significant_patches": "significant patches",
    "largest_patch_units": "largest significant patch (units)",
    "selective_fraction": "language-selective units (t ≥ the BH threshold, of the units "
                          "with data)",
    "split_half_overlap": "split-half Dice", "split_half_chance": "split-half Dice by chance",
    "split_half_p": "split-half p (hypergeometric)", "hemisphere": "hemisphere", "map": "map",
    "n_vertices": "vertices (mesh)", "n_with_data": "vertices with data",
    "n_marked": "vertices in the map's regions",
    "parcel_fraction": "vertices in the map's regions (of those with data)",
    "n_regions": "regions", "largest_region_vertices": "largest region (vertices)",
    "largest_region_fraction": "largest region (share of the vertices with data)",
}


def _model_view(rep: LanguageReport, n_permutations: int):
    t = rep.tables["model"].copy()
    for col in ("morans_i_p", "smoothness_p"):
        t[col] = [format_p(p, n_permutations) if np.isfinite(p) else "–" for p in t[col]]
    t["split_half_p"] = [f"{p:.2g}" for p in t["split_half_p"]]
    t["selective_fraction"] = [_count(k, n) for k, n in zip(t["n_language_units"],
                                                          t["n_units_with_data"])]
    t = t.drop(columns=["n_language_units", "n_units_with_data"])
    for col in ("n_patches", "n_significant_patches", "largest_patch_units"):
        t[col] = [f"{int(v)}" if np.isfinite(v) else "–" for v in t[col]]
    return t.rename(columns=_COLUMNS)


def _cortex_view(rep: LanguageReport):
    t = rep.tables["cortex"].copy()
    if not len(t):
        return t
    t["parcel_fraction"] = [_count(k, n, "with data")
                            for k, n in zip(t["n_marked"], t["n_with_data"])]
    t = t.drop(columns="n_marked")
    t["largest_region_fraction"] = [f"{f:.1%}" for f in t["largest_region_fraction"]]
    return t.rename(columns=_COLUMNS)


def _profile_view(rep: LanguageReport):
    t = rep.tables["profile"]
    return t.rename(columns=lambda c: c.replace(" sem", " s.e.m."))


def _cortex_similarity(report: LanguageMapReport, esc) -> str:
    yours = report.cortex.your_maps
    if not yours or not yours.similarity:
        return ""
    items = "".join(
        f"<li>{esc(r.pair)} ({esc(r.hemisphere)}): Pearson r {r.value:+.2f}, spin "
        f"null {r.null_mean:+.2f} ± {r.null_std:.2f}, "
        f"{esc(r.p_text)}"
        f" — {esc(str(r.verdict))}</li>" for r in yours.similarity)
    return f"<p>Your maps against each other (spin-test null):</p><ul>{items}</ul>"


def _methods(rep: LanguageReport, top_k_text: str, esc) -> str:
    s = rep.report
    m, st, sel = s.model, s.stimuli, s.selection
    return (
        "<ul>"
        f"<li><b>Model:</b> {esc(str(m.source))}. &tau; = {esc(str(m.tau))}. "
        f"{esc(m.description or '')}</li>"
        f"<li><b>Stimuli:</b> {st.n_stimuli} items of the language localizer (Fedorenko et "
        f"al., 2010): {esc(', '.join(f'{k} {v}' for k, v in st.conditions.items()))} (S "
        "sentences, W word lists, J Jabberwocky, N nonword lists; "
        f"{esc(st.source)}).</li>"
        f"<li><b>Layers:</b> {esc(', '.join(s.layers))}; tokens pooled by "
        f"{esc(s.setting('units.token_pooling'))}.</li>"
        "<li><b>Language-selective units, as TopoLM defines them</b> "
        f"({esc(str(sel['reference']))}): activations smoothed on the sheet (Gaussian, FWHM "
        f"{s.setting('units.smooth_fwhm')} units), Welch t of S vs N, two-sided p, "
        f"Benjamini-Hochberg at q = {s.setting('units.q')} over the units of all layers, and the top {top_k_text} of the "
        "units over all layers.</li>"
        "<li><b>Topography:</b> measured on the S vs N t map of the <i>unsmoothed</i> "
        "activations. Smoothing the activations first (as TopoLM does to select units) makes "
        "every map smooth, even that of a network whose units have no order, so a null that "
        "scatters the units' values would be miscalibrated there. Moran's I (each unit's four "
        "grid neighbours, row-standardised weights: esda's default), smoothness (TDANN) and "
        f"patches ({s.setting('patches.min_units')} or more connected units with t &ge; "
        f"{_fmt(rep.threshold)}, the smallest t passing Benjamini-Hochberg on this map, after "
        f"TDANN's smoothing), each against {s.setting('null.n_permutations'):,} draws of the units' values "
        "scattered at random.</li>"
        f"<li><b>Cortex:</b> {esc(s.cortex.atlas)}.</li>"
        f"<li>Made by <code>toponeuro map --language</code> (toponeuro "
        f"{esc(s.toponeuro_version)}) on {esc(s.created)} in {s.seconds} s; weights "
        f"sha256 <code>{esc(str(m.weights_sha256))}</code>.</li></ul>")


def _comparison_html(rep: LanguageReport, fig, esc) -> str:
    """The model-vs-cortex section: the rules, the maps side by side, one table."""
    if not rep.fits:
        return ("<p>No comparison with the cortex was made (no cortex map shares a side with "
                "the model's maps, or verb_noun=None).</p>")
    figs = "".join(fig(fit_figure(f), f"{f.title}: the model's map and the "
                       "cortex's, on one colour logic") for f in rep.fits.values())
    sources = "".join(f"<li>{esc(f.title)}: {esc(f.cortex_source)} ({esc(f.hemisphere)} "
                      f"hemisphere on {esc(f.mesh)})</li>"
                      for f in rep.fits.values())
    return (f"<p>Every descriptor is computed by one function on both sides, with the same "
            f"parameters (lengths in units of each map's extent), each against its null on "
            f"its own geometry ({rep.report.setting('ruler.n_permutations'):,} draws a side); one rule gives "
            f"the verdict (alike / unlike / not testable: toponeuro.analysis.ruler_verdict). "
            f"{esc(headline_rules())}</p>"
            f"<ul>{sources}</ul>{figs}"
            + rep.tables["comparison"].to_html(border=0, classes="tbl", index=False))


def _html(rep: LanguageReport, files: dict) -> str:
    esc = html.escape
    s = rep.report
    m, st = s.model, s.stimuli
    verdicts = "".join(
        f"<h4>{esc(ly)} ({esc(r.sheet)})</h4><ul>"
        + "".join(f"<li>{esc(t)}</li>" for t in r.signatures) + "</ul>"
        for ly, r in s.per_layer.items())
    vn = s.verb_noun.per_layer if s.verb_noun is not None else {}
    if vn:
        verdicts += ("<h4>verb - noun (TopoLM's fMRI-fit items, Elli et al., 2019)</h4><ul>"
                     + "".join(f"<li>{esc(ly)}: {esc(r.verdict)}; {esc(r.organised)}</li>"
                               for ly, r in vn.items()) + "</ul>")
    verdicts = (f"<p>A claim is made only when its own test's p-value (one-sided, against its "
                f"spatial null) is at or below {s.setting('null.alpha'):g}; otherwise the sentence says the "
                f"opposite was not shown.</p>{verdicts}")
    notes = "" if m.tau else (
        '<div class="note">This model has no TopoLoss (&tau; unset or 0): a non-topographic '
        "baseline. Its sheets are its units in their index order.</div>")
    top_k = s.setting("units.top_k")
    top_k_text = (f"{top_k:.0%}".replace("%", " %") if isinstance(top_k, float) and top_k < 1
                  else f"{top_k}")
    conds = esc(", ".join(f"{k} {v}" for k, v in st.conditions.items()))
    run = [f"<code>{esc(m.name)}</code> (&tau; = {esc(str(m.tau))}) on the "
           f"{st.n_stimuli} items of the Fedorenko et al. (2010) localizer ({conds}), "
           f"{len(s.layers)} layers; toponeuro {esc(s.toponeuro_version)} in "
           f"{s.seconds} s.",
           f"Units selected by TopoLM's S vs N test (BH q = {s.setting('units.q')}, top "
           f"{top_k_text}); topography on the unsmoothed t map, {s.setting('null.n_permutations'):,} draws "
           f"of each null; cortex: {esc(s.cortex.atlas)}."]

    def fig(name, caption):
        return figure_html(files.get(name), caption, name)

    profile = (
        "<p>Responses of the top-k units of each layer, selected on the odd items of each "
        "condition and read on the even ones, and vice versa, so no item both selects and "
        "measures. The language network's response in the brain is S &gt; W &asymp; J &gt; N "
        f"(Fedorenko et al., 2010). {esc(profile_comment(rep.profile))}</p>"
        + fig("condition_profile.png", "Mean response (z) of the top-k language units to "
              "each condition, on the items they were not selected on (error bars: s.e.m. "
              "over items)")
        + html_table(_profile_view(rep)))
    yours = "".join(fig(k, f"Your map {k.removeprefix('cortex_').removesuffix('.png')}, "
                           "on its own mesh (inflated, lateral view)")
                    for k in files if k.startswith("cortex_") and k != "cortex_parcels.png")
    cortex = (
        fig("cortex_parcels.png", "The cortex's language map on the inflated fsaverage5 "
            "surface (lateral views)")
        + yours
        + html_table(_cortex_view(rep))
        + "<p>Counts and fractions are over the vertices with data (a map's medial wall "
        "and NaN vertices are not cortex it measured).</p>"
        + _cortex_similarity(s, esc))
    comparison = _comparison_html(rep, fig, esc)
    files_text = ("<p><code>results.nc</code> (every unit's t, p, q and the TopoLM masks; "
                  "per-layer metrics and the condition profile), <code>summary.json</code>, "
                  "and the figures: "
                  + ", ".join(f'<a href="{esc(k)}">{esc(k)}</a>' for k in files
                              if k.endswith(".png")) + ".</p>")
    detail = [
        DetailBlock("What each layer's sheet shows, with its nulls", verdicts, folded=False),
        DetailBlock("Per layer", html_table(_model_view(rep, s.setting('null.n_permutations'))),
                    folded=False),
        DetailBlock("The four conditions (held-out items)", profile, folded=False),
        DetailBlock("The cortex", cortex, folded=False),
        DetailBlock("Model vs cortex", comparison, folded=False),
        DetailBlock("Methods", _methods(rep, top_k_text, esc)),
        DetailBlock("Files", files_text),
    ]
    return answer_first_page(
        title=f"toponeuro map --language — {m.name}",
        heading=f"Language-selective topography of <code>{esc(m.name)}</code>",
        headline=(f'<p class="headline"><b>{esc(language_headline(s))}</b></p>'
                  f'<p class="rule">{esc(headline_rules())}</p>'),
        figure=fig("sheet_maps.png", "S vs N t on each layer's sheet"),
        what_was_run=run, notes=notes, detail=detail)


def write_language_report(out: Path, rep: LanguageReport, *, t0: float | None = None) -> dict:
    """Write every output of a ``toponeuro map --language`` run into ``out``; name -> path
    (figures, then the files every job ends with: :func:`~.._kit.files.write_job_files`, as
    the vision job's ``write_report``)."""
    out.mkdir(parents=True, exist_ok=True)
    files = _figures(out, rep)
    return write_job_files(out, files, dataset=rep.dataset, report=rep.report,
                           page=lambda f: _html(rep, f), t0=t0)
