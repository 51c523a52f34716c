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

import numbers
import warnings
from dataclasses import dataclass
from numbers import Real

import numpy as np

from ..._util.docs import fill_doc
from ..._util.frozen import validate_fields
from ..._util.params import (
    ALPHA,
    N_PERMUTATIONS,
    NON_NEGATIVE_INT,
    NUMBER,
    P_VALUE,
    Interval,
    Options,
    Text,
    validate_params,
)
from ..._util.stack import user_stacklevel
from ...exceptions import InputTypeError, InvalidDataError, ToponeuroWarning
from ._null import NullResult, can_reject, floor_p, format_p, null_p_value
from ._pvalues import ALTERNATIVE

__all__ = ["OVERLAP_OUTCOMES", "OverlapVerdict", "overlap_verdict", "CLAIM_OUTCOMES",
           "TopographyClaim", "organisation_claim", "contrast_claim", "too_few_draws_text"]

#: the outcomes :func:`overlap_verdict` can reach
OVERLAP_OUTCOMES = ("share territory", "avoid each other", "no evidence either way",
                    "too few draws", "not tested")

#: how a statistic is named in a sentence
_LABELS = {"ssim": "SSIM", "pearson": "Pearson r", "spearman": "Spearman rho"}
#: statistics that count (patches, units): written as integers
_COUNTS = ("n_patches", "patch_units")

#: the alternative behind every verdict
VERDICT_ALTERNATIVE = "two-sided"


def _json_number(v) -> float | None:
    """A record's number for JSON: a float, None where it is None, NaN or infinite."""
    return None if v is None or not np.isfinite(v) else float(v)


@dataclass(frozen=True)
@validate_fields({
    "outcome": Text(), "statistic": NUMBER, "p_value": P_VALUE,
    "n_permutations": N_PERMUTATIONS, "null_mean": NUMBER, "null_std": NUMBER})
class _TestOutcome:
    """The fields every test's outcome carries: what it reached, the number, its null."""

    outcome: str
    statistic: float
    p_value: float
    n_permutations: int
    null_mean: float
    null_std: float


@fill_doc
@dataclass(frozen=True)
@validate_fields({
    "outcome": Options(OVERLAP_OUTCOMES), "method": Text(), "null_method": [Text(), None],
    "alpha": ALPHA, "alternative": ALTERNATIVE,
    "n_effective": [Interval(Real, 0, None, closed="left"), None],
    "n_moves": [NON_NEGATIVE_INT, None]})
class OverlapVerdict(_TestOutcome):
    """The outcome of one overlap test (from :func:`overlap_verdict`).

    Parameters
    ----------
    outcome : str
        One of :data:`OVERLAP_OUTCOMES`.
    statistic : float
        The similarity (SSIM on a sheet, Pearson on a mesh, ...).
    p_value : float
        Two-sided permutation p-value (NaN when not tested).
    %(null_draws)s
    method : str
        Name of the statistic (``"ssim"``).
    null_method : str or None
        The null (``"spectral"``, ``"spin"``, ...).
    alpha : float
        Level of the test.
    alternative : str
        ``"two-sided"``.
    n_effective : float or None
        Effective draws where one move served two (the symmetric two-map null; the floor of
        ``p_value`` and whether it can reach ``alpha`` follow it); None: every draw its own.
    n_moves : int or None
        Distinct moves behind the draws (None: one per draw).

    Examples
    --------
    >>> v = overlap_verdict(0.6, np.linspace(-0.3, 0.3, 1000), method="ssim")
    >>> v.outcome, v.p_text
    ('share territory', 'p < 0.002 (two-sided, 1,000 draws)')
    >>> v.sentence("faces", "bodies")
    'faces and bodies share territory on this sheet: SSIM 0.60 (null 0.00 ± 0.17), p < 0.002 (two-sided, 1,000 draws)'
    """

    method: str = "similarity"
    null_method: str | None = None
    alpha: float = 0.05
    alternative: str = VERDICT_ALTERNATIVE
    n_effective: float | None = None
    n_moves: int | None = None

    @property
    def p_text(self) -> str:
        """The p-value in words (``"p = 0.012 (two-sided)"``, ``"p < 0.001 (two-sided, 1,000
        draws)"``, ``"not tested"``; draws that cannot reach ``alpha``: "too few draws ...").
        """
        if self.outcome == "too few draws":
            return too_few_draws_text(self.n_permutations, self.alpha, self.alternative,
                                      self.n_effective)
        return format_p(self.p_value, self.n_permutations, self.alternative,
                        n_effective=self.n_effective, n_moves=self.n_moves)

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

        Parameters
        ----------
        a, b : str
            Names of the two maps.
        where : str
            Where they are compared (default ``"on this sheet"``).

        Returns
        -------
        str
            One sentence.

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
        elif self.outcome == "too few draws":
            few = too_few_draws_text(self.n_permutations, self.alpha, self.alternative,
                                     self.n_effective)
            return f"{a} and {b}: {few} {where}"
        else:
            why = "no null" if np.isfinite(self.statistic) else "undefined similarity"
            head = f"{a} and {b}: overlap not tested {where} ({why})"
        return f"{head}: {self._numbers()}"

    def to_dict(self) -> dict:
        """JSON-ready fields (NaN as None).

        Returns
        -------
        dict
            JSON-ready fields.
        """
        num = _json_number
        return {"outcome": self.outcome, "statistic": num(self.statistic),
                "p_value": num(self.p_value), "p_text": self.p_text,
                "alternative": self.alternative, "n_permutations": int(self.n_permutations),
                "null_mean": num(self.null_mean), "null_std": num(self.null_std),
                "method": self.method, "null": self.null_method, "alpha": float(self.alpha),
                "n_moves": None if self.n_moves is None else int(self.n_moves),
                "n_effective": None if self.n_effective is None else float(self.n_effective)}


@validate_params({"alpha": ALPHA})
@fill_doc
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
    %(alpha)s
        Here: of the two-sided test.
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
    if isinstance(statistic, NullResult):
        res = statistic
        draws = res.null
        stat = res.statistic
        method = method or str(res.attrs.get("method", "similarity"))
        null_method = res.null_method
        shared = "n_effective" in res.attrs  # moves that served two draws
    else:
        shared = False
        if isinstance(statistic, str | bytes | bool | np.bool_) or not isinstance(
                statistic, numbers.Real | np.ndarray) or np.size(statistic) != 1:
            raise InputTypeError(
                f"overlap_verdict: statistic must be a NullResult (from map_similarity) or the "
                f"observed value as a number; got {type(statistic).__name__} "
                f"{statistic!r:.40}.")
        stat = float(np.asarray(statistic).reshape(()))
        try:
            draws = np.zeros(0) if null is None else np.asarray(null, dtype=float)
        except (TypeError, ValueError):
            draws = None
        if draws is None or draws.ndim > 1 or isinstance(null, str | bytes):
            raise InputTypeError(
                f"overlap_verdict: null must be the null draws, a 1-D array of numbers; got "
                f"{type(null).__name__} {null!r:.40}.")
        draws = draws.ravel()
        method = method or "similarity"
        null_method = None
    fin = draws[np.isfinite(draws)]
    if fin.size == 0 or not np.isfinite(stat):
        return OverlapVerdict("not tested", stat, float("nan"), 0, float("nan"),
                              float("nan"), method, None, float(alpha))
    p = null_p_value(stat, fin, VERDICT_ALTERNATIVE)
    n_eff, n_moves = float(fin.size), None
    if shared:  # the floor and reach of the draws' effective number
        n_eff = res.n_effective * fin.size / max(1, res.n_permutations)
        n_moves = res.n_moves
        p = max(p, floor_p(n_eff, VERDICT_ALTERNATIVE))
    if not can_reject(n_eff, alpha, VERDICT_ALTERNATIVE):
        warnings.warn(too_few_draws_text(fin.size, alpha, VERDICT_ALTERNATIVE,
                                         n_eff if shared else None),
                      ToponeuroWarning, stacklevel=user_stacklevel())
        outcome = "too few draws"
    elif p <= alpha:
        upper = null_p_value(stat, fin, "greater") <= null_p_value(stat, fin, "less")
        outcome = "share territory" if upper else "avoid each other"
    else:
        outcome = "no evidence either way"
    sd = float(fin.std(ddof=1)) if fin.size > 1 else float("nan")
    return OverlapVerdict(outcome, stat, p, int(fin.size), float(fin.mean()), sd, method,
                          null_method, float(alpha), n_effective=n_eff if shared else None,
                          n_moves=n_moves)


# --------------------------------------------------------------------------- one map's claims

#: the outcomes of :func:`organisation_claim` and :func:`contrast_claim`
CLAIM_OUTCOMES = ("beyond chance", "not beyond chance", "too few draws", "not tested")

#: how a statistic is named in a claim
def _value_text(method: str, value: float) -> str:
    """A statistic's value as its sentence writes it: counts as integers, others to 2 d.p."""
    if method in _COUNTS and np.isfinite(value):
        return f"{value:,.0f}"
    return f"{value:.2f}"


_CLAIM_LABELS = {"morans_i": "Moran's I", "smoothness": "smoothness", "tdann": "smoothness",
                 "n_patches": "patches",
                 "patch_units": "units in patches",
                 "sign_clustering": "clustering of the positive units (Moran's I of value > 0)",
                 **_LABELS}


@validate_params({"n_permutations": N_PERMUTATIONS, "alpha": ALPHA, "alternative": ALTERNATIVE,
                  "n_effective": [Interval(Real, 0, None, closed="left"), None]})
@fill_doc
def too_few_draws_text(n_permutations: int, alpha: float, alternative: str = "greater",
                       n_effective: float | None = None) -> str:
    """The words for a test whose draws cannot reach ``alpha`` (never a negative finding);
    ``n_effective``: the draws' effective number where moves served two draws.

    Parameters
    ----------
    %(n_permutations)s
    %(alpha)s
    %(test_tail)s
    n_effective : float, optional
        The draws' effective number where moves served two draws (:func:`effective_draws`);
        the floor is taken at it.

    Returns
    -------
    str
        The sentence, with the draws and the smallest p they can give.

    Examples
    --------
    >>> too_few_draws_text(9, 0.05)
    'too few draws to test at α = 0.05 (9 draws: the smallest p they can give is 0.1)'
    >>> too_few_draws_text(40, 0.05, "two-sided", n_effective=26.7)
    'too few draws to test at α = 0.05 (40 draws, ≈ 27 effective: the smallest p they can give is 0.072)'
    """
    n = int(n_permutations)
    eff = "" if n_effective is None else f", ≈ {n_effective:,.0f} effective"
    n_floor = n if n_effective is None else n_effective
    return (f"too few draws to test at α = {alpha:g} ({n:,} draw{'s' if n != 1 else ''}{eff}: "
            f"the smallest p they can give is {floor_p(n_floor, alternative):.2g})")


@fill_doc
@dataclass(frozen=True)
@validate_fields({
    "outcome": Options(CLAIM_OUTCOMES), "claim": Text(), "method": Text(),
    "null_method": [Text(), None], "alpha": ALPHA, "text": Text(empty=True)})
class TopographyClaim(_TestOutcome):
    """One claim about one map, from one statistic and one null (see :func:`contrast_claim`).

    Parameters
    ----------
    outcome : str
        One of :data:`CLAIM_OUTCOMES`.
    statistic : float
        The statistic's observed value.
    p_value : float
        Its permutation p-value (NaN when not tested).
    %(null_draws)s
    claim : {"organised", "selective"}
        ``"organised"``: the map is organised on the sheet (positions or shift null);
        ``"selective"``: the contrast is more clustered than contrasts of random splits of
        its items on the sheet (label null).
    method : str
        The statistic (``"morans_i"``, ``"smoothness"``, ``"n_patches"``, ...).
    null_method : str or None
        The null drawn (``"positions"``, ``"labels"``, ...).
    alpha : float
        Level of the test.
    text : str
        The sentence, with the numbers it follows from.

    Examples
    --------
    >>> c = contrast_claim(NullResult.from_null(0.3, np.zeros(99), "labels",
    ...                    {"method": "morans_i"}), what="faces")
    >>> c.outcome, c.text
    ('beyond chance', "faces is more clustered than contrasts of random splits of its items on this sheet: Moran's I 0.30 (label null 0.00 ± 0.00), p ≤ 0.01 (one-sided, 99 draws)")
    """

    claim: str
    method: str
    null_method: str | None
    alpha: float
    text: str

    @property
    def significant(self) -> bool:
        """True only for "beyond chance"."""
        return self.outcome == "beyond chance"

    def to_dict(self) -> dict:
        """JSON-ready fields (NaN as None), keyed so that the two claims sit side by side.

        Returns
        -------
        dict
            JSON-ready fields.
        """
        num = _json_number
        return {"claim": self.claim, "outcome": self.outcome, "significant": self.significant,
                "statistic": num(self.statistic), "method": self.method,
                "null": self.null_method, "p_value": num(self.p_value),
                "n_permutations": int(self.n_permutations), "null_mean": num(self.null_mean),
                "null_std": num(self.null_std), "alpha": float(self.alpha), "text": self.text}


def _check_claim(fn, result, alpha, what, where) -> float:
    """The types of a claim's inputs, checked before anything reads them."""
    if not isinstance(result, NullResult):
        raise InputTypeError(
            f"{fn}: result must be a NullResult (from spatial_null or a map metric such as "
            f"morans_i(..., n_permutations=999)); got {type(result).__name__} "
            f"{result!r:.40}. Pass the test's result, not its p-value or statistic."
        )
    return float(alpha)  # declared: checked where the claim was asked for



def _claim(kind, result, alpha, what, where, yes, no, null_name):
    if not isinstance(result, NullResult):
        raise InvalidDataError(
            f"A claim reads a NullResult (from spatial_null or a map metric); got "
            f"{type(result).__name__}."
        )
    if result.alternative != "greater":
        raise InvalidDataError(
            f"These claims read a one-sided ('greater') test; got alternative="
            f"{result.alternative!r}. Two maps' similarity: overlap_verdict."
        )
    method = str(result.attrs.get("method", "statistic"))
    label = _CLAIM_LABELS.get(method, method)
    n = result.n_permutations
    fin = result.null[np.isfinite(result.null)]
    stat, p = float(result.statistic), float(result.p_value)
    fields = dict(claim=kind, statistic=stat, p_value=p, n_permutations=int(fin.size),
                  null_mean=result.null_mean, null_std=result.null_std, method=method,
                  null_method=result.null_method, alpha=float(alpha))
    if not n or fin.size == 0 or not np.isfinite(stat):
        why = "no null drawn" if np.isfinite(stat) else "the statistic is undefined"
        return TopographyClaim(outcome="not tested", text=(
            f"{what}: not tested {where} ({why}): {label} {_value_text(method, stat)}"),
            **fields)
    if not can_reject(fin.size, alpha, "greater"):
        warnings.warn(f"{what}: {too_few_draws_text(fin.size, alpha)}; ask for at least "
                      f"{int(np.ceil(1 / alpha)) - 1} draws.", ToponeuroWarning, stacklevel=user_stacklevel())
        return TopographyClaim(outcome="too few draws", text=(
            f"{what}: {too_few_draws_text(fin.size, alpha)} against the {null_name} {where}: "
            f"{label} {_value_text(method, stat)}"),
            **fields)
    ok = p <= alpha
    numbers = (f"{label} {_value_text(method, stat)} ({null_name} {result.null_mean:.2f} ± "
               f"{result.null_std:.2f}), {format_p(p, fin.size, 'one-sided')}")
    return TopographyClaim(outcome="beyond chance" if ok else "not beyond chance",
                           text=f"{what} {yes if ok else no} {where}: {numbers}", **fields)


@validate_params({"alpha": ALPHA, "what": Text(empty=True), "where": Text(empty=True)})
@fill_doc
def organisation_claim(result: NullResult, alpha: float = 0.05, *, what: str = "the map",
                       where: str = "on this sheet") -> TopographyClaim:
    """"The map is organised on the sheet": a statistic against its positions / shift null.

    This says the *map* is more organised (clustered, smooth, patchy) than its own values
    scattered over the sheet. On a topographic sheet nearly every map is, contrasts of random
    splits included, so it is no claim about selectivity (that is :func:`contrast_claim`).

    Parameters
    ----------
    result : NullResult
        One-sided (``"greater"``) result of a spatial null (not ``"labels"``).
    %(alpha)s
    what, where : str
        The map's name and place, for the sentence.

    Returns
    -------
    TopographyClaim
        ``claim="organised"``; ``outcome`` "beyond chance", "not beyond chance", "too few
        draws" (the draws cannot reach ``alpha``: warned, never a negative finding) or "not
        tested".

    Examples
    --------
    >>> from toponeuro.analysis import morans_i
    >>> rr, cc = np.mgrid[:16, :16]
    >>> blob = np.exp(-((rr - 5) ** 2 + (cc - 9) ** 2) / 10.0)
    >>> organisation_claim(morans_i(blob, n_permutations=99, random_state=0)).text
    "the map is organised on this sheet: Moran's I 0.94 (positions null 0.00 ± 0.04), p ≤ 0.01 (one-sided, 99 draws)"
    >>> import warnings; warnings.simplefilter("ignore")
    >>> organisation_claim(morans_i(blob, n_permutations=9, random_state=0)).outcome
    'too few draws'
    """
    alpha = _check_claim("organisation_claim", result, alpha, what, where)
    if result.null_method == "labels":
        raise InvalidDataError(
            "organisation_claim reads a positions or shift null; this result's null is "
            "'labels' (random splits of the items): use contrast_claim."
        )
    null_name = f"{result.null_method} null" if result.null_method else "null"
    return _claim("organised", result, alpha, what, where, "is organised",
                  "is not organised beyond its values scattered at random", null_name)


@validate_params({"alpha": ALPHA, "what": Text(empty=True), "where": Text(empty=True)})
@fill_doc
def contrast_claim(result: NullResult, alpha: float = 0.05, *, what: str = "the contrast",
                   where: str = "on this sheet") -> TopographyClaim:
    """"The contrast is more clustered than contrasts of random splits": the label null.

    The claim a *selective* topography needs: the contrast's map (Moran's I, smoothness,
    patches) beats the maps of the same items split at random, recomputed from the same
    activations on the same sheet (``spatial_null(..., null="labels")``).

    Parameters
    ----------
    result : NullResult
        One-sided (``"greater"``) result whose null is ``"labels"``.
    %(alpha)s
    what, where : str
        The contrast's name ("language selectivity", "faces") and place.

    Returns
    -------
    TopographyClaim
        ``claim="selective"``; outcomes as :func:`organisation_claim`.

    Examples
    --------
    >>> r = NullResult.from_null(0.1, np.linspace(0, 0.2, 99), "labels", {"method": "morans_i"})
    >>> contrast_claim(r, what="language selectivity").text
    "language selectivity is not more clustered than contrasts of random splits of its items on this sheet: Moran's I 0.10 (label null 0.10 ± 0.06), p = 0.510 (one-sided)"
    """
    alpha = _check_claim("contrast_claim", result, alpha, what, where)
    if result.n_permutations and result.null_method != "labels":
        raise InvalidDataError(
            f"contrast_claim reads the label null (null='labels'); this result's null is "
            f"{result.null_method!r}, which asks whether the map is organised on the sheet: "
            "use organisation_claim, or redraw with spatial_null(..., null='labels')."
        )
    return _claim("selective", result, alpha, what, where,
                  "is more clustered than contrasts of random splits of its items",
                  "is not more clustered than contrasts of random splits of its items",
                  "label null")
