"""The language report's model-vs-cortex part, as numbers and words: the verb - noun block
of ``summary.json``, the comparisons (:class:`~._language_fit.LanguageFit`) as one table and
as JSON, and the one-sentence headline.

Nothing here computes a statistic: every value comes from :mod:`._language_verbs` and
:mod:`._language_fit`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._kit.entries import label_null_entry
from .._kit.headline import HEADLINE_RULE, NOT_TESTABLE
from .fit import FIT_HEMISPHERE_RULE, FIT_LAYER_RULE, answer_both, headline_fit, short_layer

__all__ = ["verb_noun_summary", "fits_summary", "fits_table", "headline_text",
           "descriptor_cell"]


def _num(v):
    v = float(v)
    return None if not np.isfinite(v) else v


def verb_noun_summary(vn) -> dict:
    """The ``verb_noun`` block of ``summary.json``: the items, the map, and each layer's
    Moran's I against the positions null and the label null."""
    from ...stimuli import VERB_NOUN_REFERENCE

    cats = pd.Series(np.asarray(vn.items.categories, dtype=str)) if vn.items is not None else (
        pd.Series([], dtype=str))
    return {
        "items": {"set": "verb and noun two-word phrases (Elli, Lane & Bedny, 2019), as TopoLM "
                         "distributes them", "source": vn.source,
                  "n_stimuli": int(cats.size),
                  "classes": {str(k): int(v) for k, v in cats.value_counts(sort=False).items()},
                  "reference": VERB_NOUN_REFERENCE},
        "map": "Welch t of the verb items vs the noun items per unit, unsmoothed activations",
        "per_layer": {ly: {"n_units_with_data": int(vn.n_units[ly]),
                           "morans_i": _num(ct.positions.statistic),
                           "verdict": ct.selective.text, "organised": ct.organised.text,
                           "label_null": label_null_entry(ct, claims=False)}
                      for ly, ct in vn.contrast.items()},
    }


def _side(res) -> dict:
    d = res.to_dict()
    return {k: (_num(v) if isinstance(v, float) else v) for k, v in d.items()}


def fits_summary(fits: dict, alpha: float = 0.05) -> dict:
    """The ``comparison`` block of ``summary.json``: the rules, the headline row (chosen by
    :data:`~toponeuro.reporting.HEADLINE_RULE`, the one rule of both jobs) and every
    comparison's rows (model with its interval over stimuli, cortex, verdict, reason)."""
    chosen = headline_fit(fits, alpha)
    head = None
    if chosen is not None:
        fit, pick = chosen
        key = next(k for k, f in fits.items() if f is fit)
        r = pick.row
        head = {"fit": key, "descriptor": r.descriptor, "domain": r.domain,
                "statistic": r.statistic, "verdict": r.verdict, "reason": r.reason,
                "evidence": _num(pick.evidence), "n_eligible": int(pick.n_eligible),
                "n_rows": int(pick.n_rows)}
    out = {"layer_rule": FIT_LAYER_RULE, "hemisphere_rule": FIT_HEMISPHERE_RULE,
           "headline_rule": HEADLINE_RULE,
           "headline": None if chosen is None else head["fit"], "headline_row": head,
           "fits": {}}
    for key, f in fits.items():
        comp = f.comparison
        out["fits"][key] = {
            "title": f.title, "comparison": f.key, "layer": f.layer,
            "hemisphere": f.hemisphere, "cortex_map": f.cortex_name,
            "cortex_source": f.cortex_source,
            "model_geometry": comp.model_geometry, "cortex_geometry": comp.cortex_geometry,
            "counts": comp.counts(), "left_out": dict(comp.left_out),
            "rows": [{"descriptor": r.descriptor, "statistic": r.statistic,
                      "model": _side(r.model), "cortex": _side(r.cortex),
                      "verdict": r.verdict, "reason": r.reason} for r in comp.rows],
        }
    return out


def descriptor_cell(res) -> str:
    """A descriptor's value with its null (and interval) in words.

    Examples
    --------
    >>> from types import SimpleNamespace as NS
    >>> descriptor_cell(NS(value=0.95, p_value=0.001, n_permutations=999, null="positions",
    ...                    interval=None))
    '0.95 (positions null p ≤ 0.001)'
    >>> descriptor_cell(NS(value=0.23, p_value=float("nan"), n_permutations=0, null="none",
    ...                    interval=(0.2, 0.3)))
    '0.23 [0.20, 0.30] (no null)'
    """
    from .fit import _short_p

    if not np.isfinite(res.value):
        return "undefined"
    v = f"{res.value:.2f}" if abs(res.value) < 100 else f"{res.value:,.0f}"
    if res.interval is not None:
        v += f" [{res.interval[0]:.2f}, {res.interval[1]:.2f}]"
    if res.null == "none" or not res.n_permutations:
        return f"{v} (no null)"
    return f"{v} ({res.null} null {_short_p(res)})"


def fits_table(fits: dict) -> pd.DataFrame:
    """One table of every comparison, one row per descriptor: its statistic, the model's
    value and the cortex's (each with its null), the verdict and why; descriptors left out
    (a binary cortex map, too few maps) as rows saying why.

    Examples
    --------
    >>> fits_table({}).columns.tolist()
    ['comparison', 'descriptor', 'statistic', 'model', 'cortex', 'verdict']
    """
    rows = []
    for f in fits.values():
        comp = f.comparison
        for r in comp.rows:
            rows.append({"comparison": f.title, "descriptor": r.descriptor.replace("_", " "),
                         "statistic": r.statistic, "model": descriptor_cell(r.model),
                         "cortex": descriptor_cell(r.cortex),
                         "verdict": f"{r.verdict} ({r.reason})"})
        for name, why in comp.left_out.items():
            rows.append({"comparison": f.title, "descriptor": name.replace("_", " "),
                         "statistic": "–",
                         "model": "–", "cortex": "–", "verdict": f"left out ({why})"})
    return pd.DataFrame(rows, columns=["comparison", "descriptor", "statistic", "model",
                                       "cortex", "verdict"])


def _fit_clause(chosen) -> str:
    """The headline row against the cortex, in words (or "not testable")."""
    if chosen is None:
        return (f"against the cortex the answer is {NOT_TESTABLE}: no descriptor's null "
                "reaches alpha on both sides")
    fit, pick = chosen
    r = pick.row
    what = ("its verb - noun map against the cortex's verb - noun contrast"
            if fit.key == "verb-noun" else "its S - N map against the cortex's language map")
    return (f"against the cortex, the row with the most evidence (the fixed headline rule) "
            f"is {r.descriptor.replace('_', ' ')} of {what} ({fit.hemisphere} hemisphere): "
            f"{r.verdict}, {r.statistic} model {descriptor_cell(r.model)}, cortex "
            f"{descriptor_cell(r.cortex)}")


def headline_text(report, sn_contrast, fits: dict, alpha: float = 0.05) -> str:
    """The report's one-sentence answer: the headline layer's S - N map against the positions
    null and the label null (:func:`~._language_fit.answer_both`), its language-selective
    units (one count, one definition: the report's ``per_layer`` record,
    :class:`~toponeuro.reporting._kit.report.LanguageLayerRecord`, the count the layer
    table shows), and the comparison row with the cortex that the one headline rule of both jobs
    picks (:data:`~toponeuro.reporting.HEADLINE_RULE`; "not testable" when no row can
    reach alpha).

    Examples
    --------
    >>> from types import SimpleNamespace as NS
    >>> o = NS(outcome="beyond chance", statistic=0.14, p_value=0.001, n_permutations=999)
    >>> s = NS(outcome="not beyond chance", statistic=0.14, p_value=0.4, n_permutations=999)
    >>> rep = NS(per_layer={"encoder.layer.5.intermediate.dense": NS(
    ...     n_language_units=770, n_units_with_data=1536)})
    >>> text = headline_text(rep, NS(organised=o, selective=s), {})
    >>> text[:60]
    'On layer.5 (770 of 1,536 units language-selective), the S - '
    >>> text.endswith("the answer is not testable: no descriptor's null reaches alpha on both sides.")
    True
    """
    layer, r = list(report.per_layer.items())[-1]
    n, of = r.n_language_units, r.n_units_with_data
    count = (f" ({n:,} of {of:,} units language-selective)" if of and n is not None else "")
    both = answer_both(sn_contrast.organised, sn_contrast.selective, "the S - N map")
    tail = _fit_clause(headline_fit(fits, alpha))
    return f"On {short_layer(layer)}{count}, {both}; {tail}."
