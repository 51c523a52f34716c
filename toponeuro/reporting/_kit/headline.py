"""The vision job's headline rule on the one ruler: which model-vs-cortex comparison leads.

The rule is fixed here, in one function (:func:`choose_headline`), before any result is
seen, and the report prints :data:`HEADLINE_RULE` beside the choice. It reads only the rows
of the per-(layer, hemisphere) comparisons (each row a descriptor measured on both sides,
with its null on each side and a verdict "alike" / "unlike" / "not testable";
:func:`toponeuro.analysis.compare_topography`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..._util.docs import fill_doc

__all__ = ["HEADLINE_RULE", "HeadlineChoice", "choose_headline", "headline_eligible"]

#: the rule, in the words the report and summary.json print
HEADLINE_RULE = (
    "Of every (layer, hemisphere, descriptor) comparison, only those with a verdict (alike or "
    "unlike) whose null on BOTH sides has draws that can reach alpha are eligible; a test that "
    "cannot reach alpha (e.g. a rank correlation over three centre distances, or too few "
    "draws) is never the headline. Among the eligible, the headline is the one with the most "
    "evidence: the smallest p-value of its weaker side (the larger of its model and cortex "
    "p-values), then the most draws on its weaker side, then the descriptor's place in the "
    "fixed order smoothness, clustering, selective fraction, patch count, patch size, domain "
    "similarity, arrangement, then the deeper layer, then the hemisphere order given."
)

#: the fixed order that breaks ties between descriptors
_ORDER = ("smoothness", "clustering", "selective_fraction", "patch_count", "patch_size",
          "domain_similarity", "arrangement")


@dataclass(frozen=True)
class HeadlineChoice:
    """The comparison :func:`choose_headline` picked.

    Attributes
    ----------
    layer, hemisphere : str
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
        Layer order, shallow to deep (default: the order of ``comparisons``).

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
    hemis = list(dict.fromkeys(k[1] for k in comparisons))
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
