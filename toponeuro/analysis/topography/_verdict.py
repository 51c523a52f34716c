"""What a map similarity and its null let one say: :func:`overlap_verdict`.

One test per pair of maps, one p, three outcomes (and "not tested" without a null):

- **share territory** -- the maps are more alike than the null's unrelated maps of the same
  smoothness (two-sided p <= alpha, the upper tail the smaller);
- **avoid each other** -- less alike than the null's (two-sided p <= alpha, the lower tail);
- **no evidence either way** -- two-sided p > alpha.

The p is the two-sided permutation p-value of :func:`null_p_value` (twice the smaller tail,
Phipson & Smyth 2010 counts), the same number that :func:`map_similarity`
reports as ``p_value`` by default, so a sentence, a table and a file that show it agree. Why
two-sided: the two claims are two tails of one question ("are these maps related in space?"),
and picking the tail after seeing the statistic would be two tests at alpha each.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..._params import check_number
from ...exceptions import InvalidDataError
from ._null import NullResult, format_p, null_p_value

__all__ = ["OVERLAP_OUTCOMES", "OverlapVerdict", "overlap_verdict"]

#: the outcomes :func:`overlap_verdict` can reach
OVERLAP_OUTCOMES = ("share territory", "avoid each other", "no evidence either way",
                    "not tested")

#: how a statistic is named in a sentence
_LABELS = {"ssim": "SSIM", "pearson": "Pearson r", "spearman": "Spearman rho"}

#: the alternative behind every verdict
VERDICT_ALTERNATIVE = "two-sided"


@dataclass(frozen=True)
class OverlapVerdict:
    """The outcome of one overlap test (from :func:`overlap_verdict`).

    Attributes
    ----------
    outcome : str
        One of :data:`OVERLAP_OUTCOMES`.
    statistic : float
        The similarity (SSIM on a sheet, Pearson on a mesh, ...).
    p_value : float
        Two-sided permutation p-value (NaN when not tested).
    n_permutations : int
        Null draws (0: not tested).
    null_mean, null_std : float
        Mean and standard deviation of the null draws (NaN without them).
    method : str
        Name of the statistic (``"ssim"``).
    null_method : str or None
        The null (``"spectral"``, ``"spin"``, ...).
    alpha : float
        Level of the test.
    alternative : str
        ``"two-sided"``.

    Examples
    --------
    >>> v = overlap_verdict(0.6, np.linspace(-0.3, 0.3, 1000), method="ssim")
    >>> v.outcome, v.p_text
    ('share territory', 'p < 0.002 (two-sided, 1,000 draws)')
    >>> v.sentence("faces", "bodies")
    'faces and bodies share territory on this sheet: SSIM 0.60 (null 0.00 ± 0.17), p < 0.002 (two-sided, 1,000 draws)'
    """

    outcome: str
    statistic: float
    p_value: float
    n_permutations: int
    null_mean: float
    null_std: float
    method: str = "similarity"
    null_method: str | None = None
    alpha: float = 0.05
    alternative: str = VERDICT_ALTERNATIVE

    @property
    def p_text(self) -> str:
        """The p-value in words (``"p = 0.012 (two-sided)"``, ``"p < 0.001 (two-sided, 1,000
        draws)"``, ``"not tested"``)."""
        return format_p(self.p_value, self.n_permutations, self.alternative)

    def _numbers(self) -> str:
        stat = f"{_LABELS.get(self.method, self.method)} {self.statistic:.2f}"
        if self.outcome == "not tested":
            return f"{stat}, not tested ({self._why_not_tested()})"
        return f"{stat} (null {self.null_mean:.2f} ± {self.null_std:.2f}), {self.p_text}"

    def _why_not_tested(self) -> str:
        return ("no null drawn" if np.isfinite(self.statistic)
                else "the similarity is undefined, e.g. a constant map")

    def sentence(self, a: str, b: str, where: str = "on this sheet") -> str:
        """The verdict in plain words, with the numbers it follows from.

        Examples
        --------
        >>> overlap_verdict(0.01, np.zeros(0)).sentence("faces", "places")
        'faces and places: overlap not tested on this sheet (no null): similarity 0.01, not tested (no null drawn)'
        >>> overlap_verdict(float("nan"), np.zeros(99)).sentence("faces", "places")
        'faces and places: overlap not tested on this sheet (undefined similarity): similarity nan, not tested (the similarity is undefined, e.g. a constant map)'
        """
        if self.outcome == "share territory":
            head = f"{a} and {b} share territory {where}"
        elif self.outcome == "avoid each other":
            head = f"{a} and {b} avoid each other {where}"
        elif self.outcome == "no evidence either way":
            head = f"no evidence that {a} and {b} share territory or avoid each other {where}"
        else:
            why = "no null" if np.isfinite(self.statistic) else "undefined similarity"
            head = f"{a} and {b}: overlap not tested {where} ({why})"
        return f"{head}: {self._numbers()}"

    def to_dict(self) -> dict:
        """JSON-ready fields (NaN as None)."""
        def num(v):
            return None if v is None or not np.isfinite(v) else float(v)

        return {"outcome": self.outcome, "statistic": num(self.statistic),
                "p_value": num(self.p_value), "p_text": self.p_text,
                "alternative": self.alternative, "n_permutations": int(self.n_permutations),
                "null_mean": num(self.null_mean), "null_std": num(self.null_std),
                "method": self.method, "null": self.null_method, "alpha": float(self.alpha)}


def overlap_verdict(statistic, null=None, *, alpha: float = 0.05,
                    method: str | None = None) -> OverlapVerdict:
    """Share territory, avoid each other, or no evidence either way: one test, one p.

    Parameters
    ----------
    statistic : NullResult or float
        A :func:`map_similarity` (or :func:`spatial_null`) result, whose null draws are used,
        or the observed similarity with ``null``.
    null : array, optional
        The null draws when ``statistic`` is a number (none or empty: "not tested").
    alpha : float
        Level of the two-sided test, in (0, 1).
    method : str, optional
        Name of the statistic for the sentence (default the result's ``attrs["method"]``).

    Returns
    -------
    OverlapVerdict
        ``outcome`` (one of :data:`OVERLAP_OUTCOMES`), the two-sided ``p_value`` -- equal
        to a two-sided result's own ``p_value`` -- and :meth:`~OverlapVerdict.sentence`.

    Raises
    ------
    InvalidDataError
        ``alpha`` outside (0, 1).

    Examples
    --------
    Planted maps: the same blob, a blob and its negative, and an unrelated map.

    >>> from toponeuro.analysis import map_similarity
    >>> rr, cc = np.mgrid[:16, :16]
    >>> blob = np.exp(-((rr - 5) ** 2 + (cc - 9) ** 2) / 10.0)
    >>> rng = np.random.default_rng(0)
    >>> noisy = lambda m: m + 0.05 * rng.standard_normal(m.shape)
    >>> same = map_similarity(noisy(blob), noisy(blob), n_permutations=199, random_state=0)
    >>> apart = map_similarity(noisy(blob), noisy(-blob), n_permutations=199, random_state=0)
    >>> overlap_verdict(same).outcome, overlap_verdict(apart).outcome
    ('share territory', 'avoid each other')
    >>> overlap_verdict(same).p_value == same.p_value
    True
    """
    if isinstance(alpha, str):  # a number is needed: '0.05' < p would fail deep inside
        check_number(alpha, "alpha", fix="Give a number, e.g. alpha=0.05.")
    if not 0 < float(alpha) < 1:
        raise InvalidDataError(f"alpha must lie in (0, 1); got {alpha}.")
    alpha = float(alpha)
    if isinstance(statistic, NullResult):
        res = statistic
        draws = res.null
        stat = res.statistic
        method = method or str(res.attrs.get("method", "similarity"))
        null_method = res.null_method
    else:
        stat = float(statistic)
        draws = np.zeros(0) if null is None else np.asarray(null, dtype=float).ravel()
        method = method or "similarity"
        null_method = None
    fin = draws[np.isfinite(draws)]
    if fin.size == 0 or not np.isfinite(stat):
        return OverlapVerdict("not tested", stat, float("nan"), 0, float("nan"),
                              float("nan"), method, None, float(alpha))
    p = null_p_value(stat, fin, VERDICT_ALTERNATIVE)
    if p <= alpha:
        upper = null_p_value(stat, fin, "greater") <= null_p_value(stat, fin, "less")
        outcome = "share territory" if upper else "avoid each other"
    else:
        outcome = "no evidence either way"
    sd = float(fin.std(ddof=1)) if fin.size > 1 else float("nan")
    return OverlapVerdict(outcome, stat, p, int(fin.size), float(fin.mean()), sd, method,
                          null_method, float(alpha))
