"""The headline rule of both jobs on the one ruler: which model-vs-cortex row leads.

One rule, :data:`HEADLINE_RULE`, written once here and fixed before any result was seen;
the vision report and the language report print it beside their choice, and
:func:`choose_headline` applies it to the rows of the jobs' comparisons (each row a
descriptor measured on both sides, with its null on each side and a verdict "alike" /
"unlike" / "not testable"; :func:`toponeuro.analysis.compare_topography`). The vision job
passes ``(layer, hemisphere) -> comparison``, the language job ``(comparison,
hemisphere) -> comparison`` (TopoLM's verb - noun fit, S - N against the language map).
When no row is eligible the headline is :data:`NOT_TESTABLE`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..._util.constraints import MAPPING, Names
from ..._util.docs import fill_doc
from ..._util.params import ALPHA, validate_params

__all__ = ["HEADLINE_RULE", "NOT_TESTABLE", "HeadlineChoice", "choose_headline",
           "headline_eligible"]

#: the rule, in the words the reports and summary.json print (both jobs)
HEADLINE_RULE = (
    "One rule for both jobs, fixed before looking at results. Every comparison row (one "
    "descriptor of one domain or pair, in one comparison: a model layer or contrast against "
    "one cortical hemisphere) is a candidate; only those with a verdict (alike or unlike) "
    "whose null on BOTH sides has draws that can reach alpha are eligible. A test that "
    "cannot reach alpha (e.g. a rank correlation over three centre distances, a descriptor "
    "without a null, or too few draws) is never the headline; when no row is eligible the "
    "headline is 'not testable'. Among the eligible, the headline is the one with the most "
    "evidence: the smallest p-value of its weaker side (the larger of its model and cortex "
    "p-values), then the most draws on its weaker side, then the descriptor's place in the "
    "fixed order smoothness, clustering, selective fraction, patch count, patch size, "
    "domain similarity, arrangement, then the comparison's place in the job's fixed order "
    "(vision: the deeper layer first; language: TopoLM's verb - noun fit first, then S - N "
    "against the language map), then the hemisphere (left, then right)."
)

#: what the headline says when no row is eligible
NOT_TESTABLE = "not testable"

#: the order of the hemispheres that breaks the last ties
_HEMIS = ("left", "right")

#: the fixed order that breaks ties between descriptors
_ORDER = ("smoothness", "clustering", "selective_fraction", "patch_count", "patch_size",
          "domain_similarity", "arrangement")


@dataclass(frozen=True)
class HeadlineChoice:
    """The comparison :func:`choose_headline` picked.

    Attributes
    ----------
    layer : str
        The comparison's first key: the model layer (vision) or the comparison
        (language: ``"verb-noun"``, ``"language"``).
    hemisphere : str
        The cortex hemisphere.
    row : object
        The comparison row (``descriptor``, ``domain``, ``statistic``, ``model``,
        ``cortex``, ``verdict``, ``reason``).
    evidence : float
        The larger of the row's two p-values (smaller is more evidence).
    n_eligible, n_rows : int
        Rows that could be the headline, and rows in all.
    rule : str
        :data:`HEADLINE_RULE`.
    """

    layer: str
    hemisphere: str
    row: object
    evidence: float
    n_eligible: int
    n_rows: int
    rule: str = HEADLINE_RULE


def _side_ok(res, alpha: float) -> bool:
    from ...analysis import can_reject

    n = int(getattr(res, "n_permutations", 0) or 0)
    p = float(getattr(res, "p_value", np.nan))
    if n <= 0 or getattr(res, "null", "none") == "none" or not np.isfinite(p):
        return False
    return bool(can_reject(n, alpha, getattr(res, "alternative", "greater")))


def headline_eligible(row, alpha: float) -> bool:
    """Whether a comparison row may be the headline: a verdict, and on both sides a null
    whose draws can reach ``alpha``.

    Examples
    --------
    >>> from types import SimpleNamespace as NS
    >>> side = NS(n_permutations=999, null="positions", p_value=0.001, alternative="greater")
    >>> headline_eligible(NS(verdict="alike", model=side, cortex=side), 0.05)
    True
    >>> few = NS(n_permutations=3, null="positions", p_value=0.25, alternative="greater")
    >>> headline_eligible(NS(verdict="alike", model=side, cortex=few), 0.05)
    False
    """
    return row.verdict in ("alike", "unlike") and _side_ok(row.model, alpha) and _side_ok(
        row.cortex, alpha)


@validate_params(dict(comparisons=MAPPING, alpha=ALPHA, layers=[Names(), None]))
@fill_doc
def choose_headline(comparisons: Mapping, *, alpha: float = 0.05,
                    layers: Sequence[str] | None = None) -> HeadlineChoice | None:
    """The headline comparison by :data:`HEADLINE_RULE`; None when no row is eligible.

    Parameters
    ----------
    comparisons : mapping
        ``(layer, hemisphere) ->`` a comparison with ``rows`` (what
        :func:`toponeuro.analysis.compare_topography` returns).
    %(alpha)s
    layers : sequence of str, optional
        The order of the comparisons' first keys, least to most preferred on a tie: the
        layers shallow to deep (the deeper wins), or the language comparisons (the
        later wins); default the order of ``comparisons``.

    Returns
    -------
    HeadlineChoice or None
        The chosen row with its layer, hemisphere and evidence; None when no row is
        eligible.

    Examples
    --------
    >>> from types import SimpleNamespace as NS
    >>> def side(p, n=999):
    ...     return NS(n_permutations=n, null="positions", p_value=p, alternative="greater")
    >>> rows = [NS(descriptor="arrangement", verdict="alike", model=side(0.5, 3),
    ...            cortex=side(0.5, 3)),
    ...         NS(descriptor="clustering", verdict="unlike", model=side(0.001),
    ...            cortex=side(0.002))]
    >>> pick = choose_headline({("l4", "left"): NS(rows=rows)})
    >>> pick.row.descriptor, pick.evidence, pick.n_eligible
    ('clustering', 0.002, 1)
    """
    order = list(layers) if layers is not None else list(dict.fromkeys(k[0] for k in comparisons))
    seen = list(dict.fromkeys(k[1] for k in comparisons))
    hemis = [h for h in _HEMIS if h in seen] + [h for h in seen if h not in _HEMIS]
    cands, n_rows = [], 0
    for (layer, hemi), comp in comparisons.items():
        for row in comp.rows:
            n_rows += 1
            if not headline_eligible(row, alpha):
                continue
            ps = (float(row.model.p_value), float(row.cortex.p_value))
            draws = min(int(row.model.n_permutations), int(row.cortex.n_permutations))
            rank = _ORDER.index(row.descriptor) if row.descriptor in _ORDER else len(_ORDER)
            depth = order.index(layer) if layer in order else -1
            key = (max(ps), -draws, rank, -depth, hemis.index(hemi))
            cands.append((key, layer, hemi, row))
    if not cands:
        return None
    key, layer, hemi, row = min(cands, key=lambda c: c[0])
    return HeadlineChoice(layer=str(layer), hemisphere=str(hemi), row=row, evidence=key[0],
                          n_eligible=len(cands), n_rows=n_rows)
