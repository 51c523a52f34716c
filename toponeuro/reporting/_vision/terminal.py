"""The summary ``toponeuro map`` prints in the terminal, from the typed report alone (or a
``summary.json`` content, read back into it)."""

from __future__ import annotations

import numpy as np

from ..._util.constraints import MAPPING
from ..._util.params import InstanceOf, validate_params
from .._kit.constants import MAP_DOMAINS
from .._kit.report import MapReport, RulerRecord
from .words import STATISTIC_NAMES, headline_parts, training_images_note

__all__ = ["format_summary"]


@validate_params(dict(report=[InstanceOf(MapReport), MAPPING]))
def format_summary(report: MapReport | dict) -> str:
    """The summary table ``toponeuro map`` prints (plain text).

    Every number names its statistic, every p is written by
    :func:`~toponeuro.analysis.format_p` (a floor as ``p < 0.001 (1,000 draws)``), and the
    cortex's smoothness stands on a line of its own, not beside the model's.

    Parameters
    ----------
    report : MapReport or dict
        The run's typed report (``MapResult.report``), or its ``summary.json`` content
        (``MapResult.summary``).

    Returns
    -------
    str
        The summary table, one line per row.

    Examples
    --------
    >>> from toponeuro.reporting import run_map
    >>> res = run_map(stimuli="/path/to/floc")  # doctest: +SKIP
    >>> print(format_summary(res.report))  # doctest: +SKIP
    toponeuro map — toponet_demo.v2_tau_50 on 240 fLoc images (patches: t >= 3)
    """
    from ...analysis import format_p

    rep = report if isinstance(report, MapReport) else MapReport.from_summary(report)
    n_perm = rep.setting("null.n_permutations")
    lines = [
        f"toponeuro map — {rep.model.name} on {rep.stimuli.n_stimuli} fLoc "
        f"images (patches: t ≥ {rep.setting('patches.threshold'):g} after smoothing, significant "
        f"at family-wise p ≤ {rep.setting('null.alpha'):g}; nulls: {n_perm:,} draws)",
    ]
    note = training_images_note(rep.stimuli)
    if note:
        lines.append(note)
    for layer, r in rep.per_layer.items():
        lines += ["", f"{layer} ({r.sheet.replace('x', '×')} sheet; effective "
                  f"dimensionality {r.effective_dimensionality:.1f})",
                  f"  {'domain':<12}{'smoothness (TDANN)':<20}{'its p (one-sided)':<26}"
                  "significant patches"]
        nulls = r.smoothness_null
        by_labels = {"smoothness": r.smoothness_label_null or {},
                     "patches": r.patches_label_null or {}}
        if any(by_labels.values()):
            lines[-1] += "   label null (the selective claim), one-sided"
        for d in MAP_DOMAINS:
            sm = r.smoothness[d]
            p = nulls[d].p_value
            label_p = ", ".join(
                f"{what} " + format_p(np.nan if lab[d].p_label_null is None
                                      else lab[d].p_label_null, n_perm)
                for what, lab in by_labels.items() if d in lab)
            lines.append(
                f"  {d:<12}{'n/a' if sm is None else f'{sm:.3f}':<20}"
                f"{format_p(np.nan if p is None else p, n_perm):<26}"
                f"{r.n_patches[d]} of {r.n_patches_found[d]} found"
                + (f"   {label_p}" if label_p else ""))
        for text in r.signatures[:2]:
            lines.append(f"  {text}")
    lines.append("")
    for h, c in rep.cortex.hemispheres.items():
        tests = c.map_similarity_null
        sims = "; ".join(
            f"{p.replace('-', '–')} {STATISTIC_NAMES.get(tests[p].method, 'r')}"
            f" {v:+.2f} ({tests[p].verdict}, spin test {tests[p].p_text})"
            if p in tests else f"{p.replace('-', '–')} {v:+.2f}"
            for p, v in c.map_similarity.items() if v is not None)
        lines.append(f"cortex {h} hemisphere: map similarity {sims}")
    for h, c in rep.cortex.hemispheres.items():
        lines.append(
            f"cortex {h} hemisphere on its own (no null; not comparable with the sheet's, see "
            "the report): smoothness " + ", ".join(f"{d} {v:.2f}" for d, v in
                                                 c.smoothness.items() if v is not None)
            + "; patches " + ", ".join(f"{d} {v}" for d, v in c.n_patches.items()))
    head = rep.headline.layer
    for key, a in rep.arrangement.items():
        layer, h = key.split("|")
        rho = "n/a" if a.spearman is None else f"{a.spearman:+.2f}"
        n_dom = a.n_domains
        lines.append(
            f"arrangement {layer} vs {h} cortex: Spearman ρ {rho} over {a.n_pairs} "
            f"pair{'s' if a.n_pairs != 1 else ''} of {n_dom} domain{'s' if n_dom != 1 else ''}"
            f", {a.p_text}"
            + ("  <- headline layer" if layer == head else ""))
    if rep.headline.arrangement:
        parts = headline_parts(rep.headline, rep.setting('null.alpha'), rep.arrangement_draws)
        lines += ["", "Extra (0.4's headline): " + parts["question"]]
        lines += [f"  {h} hemisphere: {t}" for h, t in parts["answers"].items()]
        lines.append(parts["rule"])
    lines += _ruler_lines(rep.ruler)
    return "\n".join(lines)


def _ruler_lines(ruler: RulerRecord | None) -> list:
    """The one-ruler headline, last so it is what the terminal ends on."""
    if ruler is None:
        return []
    head = ruler.headline
    out = ["", "Model vs cortex on one ruler (every descriptor on both sides; "
           + "; ".join(f"{v.layer} vs {v.hemisphere}: " + ", ".join(
               f"{n} {k}" for k, n in v.counts.items()) for v in
               ruler.comparisons.values()) + ")"]
    if head.chosen:
        row = head.row

        def side(value, p, null):
            return (f"{value:.3g}" if value is not None else "n/a") + (
                f" (p = {p:.2g}, {null} null)" if p is not None else "")
        out.append(f"  headline: {head.layer} vs {head.hemisphere} hemisphere, "
                   f"{row.descriptor.replace('_', ' ')} of {row.domain} "
                   f"({row.statistic}): model {side(row.model, row.model_p, row.model_null)}, "
                   f"cortex {side(row.cortex, row.cortex_p, row.cortex_null)} "
                   f"-> {row.verdict}")
    else:
        out.append("  headline: not testable -- no comparison has nulls on both sides that "
                   "can reach alpha")
    out.append("  rule: " + head.rule)
    return out
