"""Permutation p-values and how they are worded: :func:`null_p_value`, its floor
(:func:`floor_p`, :func:`can_reject`), :func:`format_p`, and the calibration record the report
quotes (:func:`null_calibration`).

p-values follow Phipson & Smyth (2010): the observed map counts as one draw of the null, so p is
never 0 (``_null.py``'s module docs give the tails).
"""

from __future__ import annotations

import json
from numbers import Integral, Real

import numpy as np

from ..._util.docs import fill_doc
from ..._util.params import ALPHA, Interval, Options, Text, validate_params
from ...exceptions import UnknownNameError

__all__ = ["ALTERNATIVES", "P_VALUE_REFERENCE", "null_p_value", "null_calibration", "format_p",
           "floor_p", "can_reject", "effective_draws", "cortex_null_calibration",
           "CORTEX_MAP_KINDS"]

#: the tails a permutation p-value can take (as ``scipy.stats.permutation_test``)
ALTERNATIVES = ("greater", "less", "two-sided")
#: the declared ``alternative`` of a test against a null
ALTERNATIVE = Options(ALTERNATIVES, error=UnknownNameError)
#: a count of draws, possibly effective (fractional)
_DRAWS = Interval(Real, 0, None, closed="left")


#: relative tolerance of ``null >= statistic`` (ties count)
_TOL = 1e-9

P_VALUE_REFERENCE = (
    "Phipson & Smyth (2010) Permutation p-values should never be zero. Stat Appl Genet Mol "
    "Biol 9(1):39"
)


@validate_params({"alternative": ALTERNATIVE})
@fill_doc
def null_p_value(statistic: float, null, alternative: str = "greater") -> float:
    """Permutation p-value of ``statistic`` against its null draws (Phipson & Smyth 2010).

    ``"greater"``: ``(1 + #{null >= statistic - tol}) / (1 + n)``; ``"less"``: ``(1 +
    #{null <= statistic + tol}) / (1 + n)``; ``"two-sided"``: twice the smaller of these, at
    most 1 (equal tails, as ``scipy.stats.permutation_test``). ``n`` counts the finite draws;
    ``tol`` is ``1e-9 * max(1, |statistic|)`` so ties count. NaN when the statistic is NaN or
    there is no finite draw. The smallest p is ``1 / (1 + n)`` (two-sided ``2 / (1 + n)``).

    Parameters
    ----------
    statistic : float
        The observed value.
    null : array-like
        The statistic on each null draw (non-finite draws are left out).
    %(test_tail)s

    Returns
    -------
    float
        The p-value in ``(0, 1]``, or NaN.

    Examples
    --------
    >>> null_p_value(2.0, [0.0, 1.0, 2.0, 3.0])
    0.6
    >>> null_p_value(-3.0, [0.0, 1.0, -1.0, 0.5], "two-sided")
    0.4
    """
    null = np.asarray(null, dtype=float).ravel()
    fin = null[np.isfinite(null)]
    if not np.isfinite(statistic) or fin.size == 0:
        return float("nan")
    stat = float(statistic)
    tol = _TOL * max(1.0, abs(stat))
    greater = (1 + np.count_nonzero(fin >= stat - tol)) / (1 + fin.size)
    less = (1 + np.count_nonzero(fin <= stat + tol)) / (1 + fin.size)
    if alternative == "greater":
        return float(greater)
    if alternative == "less":
        return float(less)
    return float(min(1.0, 2 * min(greater, less)))


def null_calibration() -> dict:
    """The measured false-positive rates of the similarity nulls, as the docs and report show.

    ``bench/calibrate_nulls.py`` draws pairs of independent smooth maps and counts two-sided
    p <= ``alpha`` (docs: "Calibration of the similarity nulls"); this is its record, the one
    source of the rates that the report quotes and docs/metrics.rst tabulates.

    Returns
    -------
    dict
        ``alpha``, ``target`` (the acceptable range); ``sheet``: one dict per cell (``maps``
        "crop"/"reflect", ``shape``, ``sigma`` in sheet units, ``null``, ``ssim``,
        ``pearson`` rates; the verdict's rate is SSIM's); ``spin``: one per cell
        of a sphere (``maps`` "stationary"/"mesh"/"envelope", ``hemi``, ``sigma_mm``,
        ``pearson``, ``seed``; envelope cells their ``envelope_ratio``; fsaverage5 cells
        have no ``mesh`` key, the others name it, e.g. ``"fs_LR_32k"``, with
        ``medial_wall`` when both maps had no data there, ``hits`` and the exact binomial
        ``ci95``); ``cortex``: one per mesh, kind of map (``sphere``, ``midthickness``,
        ``volume``: :data:`CORTEX_MAP_KINDS`) and hemisphere set, with its ``null``,
        ``pearson`` rate, ``hits``, ``ci95`` and ``sigma_mm`` list
        (``bench/calibrate_cortex_nulls.py --record``; pooled by
        :func:`cortex_null_calibration`); every cell its ``pairs`` and ``draws``. A fresh
        copy; ``bench/calibrate_nulls.py --record`` writes it.

    Examples
    --------
    >>> cal = null_calibration()
    >>> cells = [c for c in cal["sheet"] if c["maps"] == "crop" and c["null"] == "shift"]
    >>> len(cells), sorted({c["seed"] for c in cells}), cal["alpha"]  # two sets of maps
    (16, [0, 1], 0.05)
    """
    from importlib import resources

    text = resources.files(__package__).joinpath("null_calibration.json").read_text()
    return json.loads(text)


#: the cortex map kinds of the calibration (``null_calibration()["cortex"]``), in words
CORTEX_MAP_KINDS = {"sphere": "smooth on the sphere",
                    "midthickness": "diffused along the midthickness",
                    "volume": "smoothed in the volume and read on the midthickness"}


@validate_params({"mesh": Text()})
def cortex_null_calibration(mesh: str = "fsaverage5") -> dict:
    """The cortex null's measured false-positive rate on ``mesh``, per kind of map.

    Pools the record's cortex cells (``null_calibration()["cortex"]``, written by
    ``bench/calibrate_cortex_nulls.py``) of one mesh over its hemisphere sets (left, right,
    both spun together): independent random maps of each kind, Pearson with the cortex's
    default null, two-sided p <= ``alpha``.

    Parameters
    ----------
    mesh : str
        The template mesh whose cells are pooled (default ``"fsaverage5"``).

    Returns
    -------
    dict
        ``mesh``, ``null`` (the default null the rates are of: ``"spin"``), ``alpha``,
        ``target`` and ``kinds``: per measured map kind (:data:`CORTEX_MAP_KINDS`) its
        ``rate``, ``hits``, ``pairs``, exact 95 % ``ci95``, ``hemis`` and ``holds_level``
        (the rate within ``target``, 5 % +- 1.5). Kinds not measured on the mesh are absent.

    Examples
    --------
    >>> cal = cortex_null_calibration("fs_LR_32k")
    >>> cal["null"], cal["target"], "volume" in cal["kinds"]
    ('spin', [0.035, 0.065], True)
    """
    from scipy import stats

    rec = null_calibration()
    cells = [c for c in rec.get("cortex", []) if c["mesh"] == mesh]
    kinds = {}
    for kind in CORTEX_MAP_KINDS:
        mine = [c for c in cells if c["maps"] == kind]
        if not mine:
            continue
        k, n = sum(c["hits"] for c in mine), sum(c["pairs"] for c in mine)
        ci = stats.binomtest(k, n).proportion_ci(0.95, method="exact")
        kinds[kind] = {"rate": k / n, "hits": k, "pairs": n,
                       "ci95": [round(float(ci.low), 4), round(float(ci.high), 4)],
                       "hemis": [c["hemi"] for c in mine],
                       "holds_level": rec["target"][0] <= k / n <= rec["target"][1]}
    nulls = sorted({c["null"] for c in cells}) or ["spin"]
    return {"mesh": mesh, "null": nulls[0], "alpha": rec["alpha"], "target": rec["target"],
            "kinds": kinds}


def _ceil_sig(x: float, digits: int = 1) -> float:
    """``x`` rounded *up* to ``digits`` significant digits (0.001998 -> 0.002)."""
    if not x > 0:
        return x
    e = int(np.floor(np.log10(x))) - digits + 1
    v = np.ceil(round(x / 10.0**e, 9)) * 10.0**e
    return float(round(v, max(0, -e)))


@validate_params({
    "n_permutations": _DRAWS,
    "n_effective": [_DRAWS, None],
    "n_moves": [Interval(Integral, 0, None, closed="left"), None],
})
@fill_doc
def format_p(p: float, n_permutations: int, alternative: str | None = None, *,
             n_effective: float | None = None, n_moves: int | None = None) -> str:
    """A p-value in words: ``"p = 0.012"``, or at its floor ``"p < 0.001 (1,000 draws)"``.

    At the floor (no draw as extreme as the statistic: ``p = 1 / (1 + n)``, two-sided
    ``2 / (1 + n)``) the text gives the bound and the draws: the floor rounded up to one
    significant digit, after ``≤`` when that is the floor itself (999 draws). Reports write
    every p with it, so a floor reads one way everywhere. ``alternative`` names the tail; no
    null: ``"not tested"``. Draws that share their moves (the symmetric two-map null:
    ``n_moves`` distinct moves, ``n_effective`` effective draws, :func:`effective_draws`)
    have their floor at ``n_effective`` and say so.

    Parameters
    ----------
    p : float
        The p-value (NaN or ``None``: not tested).
    %(n_permutations)s
    alternative : str, optional
        The tail, as written in the text (``"one-sided"``, ``"two-sided"`` ...); a name
        starting with ``"two-sided"`` doubles the floor. Default: no tail written.
    n_effective : float, optional
        Effective number of draws where moves serve two draws (:func:`effective_draws`);
        the floor is taken at it (default ``n_permutations``).
    n_moves : int, optional
        Distinct moves behind the draws, written beside them when fewer than the draws.

    Returns
    -------
    str
        ``"p = ..."``, the bound at the floor with its draws, or ``"not tested"``.

    Examples
    --------
    >>> format_p(1 / 1001, 1000, "one-sided"), format_p(2 / 1001, 1000, "two-sided")
    ('p < 0.001 (one-sided, 1,000 draws)', 'p < 0.002 (two-sided, 1,000 draws)')
    >>> format_p(1 / 1000, 999), format_p(0.0123, 1000, "two-sided"), format_p(np.nan, 0)
    ('p ≤ 0.001 (999 draws)', 'p = 0.012 (two-sided)', 'not tested')
    >>> format_p(2 / 668, 1000, "two-sided", n_effective=667.0, n_moves=500)
    'p < 0.003 (two-sided, 1,000 draws of 500 moves, ≈ 667 effective)'
    """
    n = int(n_permutations)
    if not n or p is None or not np.isfinite(p):
        return "not tested"
    tail = f"{alternative}, " if alternative else ""
    n_eff = float(n if n_effective is None else min(n_effective, n))
    floor = floor_p(n_eff, alternative or "greater")
    if p <= floor + 1e-12:
        bound = _ceil_sig(floor, 1)
        sign = "≤" if abs(bound - floor) <= 1e-9 * floor else "<"
        draws = f"{n:,} draws"
        if n_moves is not None and int(n_moves) < n:
            draws += f" of {int(n_moves):,} moves, ≈ {n_eff:,.0f} effective"
        return f"p {sign} {bound:g} ({tail}{draws})"
    return f"p = {p:.3f}" + (f" ({alternative})" if alternative else "")


@validate_params({"n_unpaired": Interval(Integral, 0, None, closed="left")})
def effective_draws(first_moved, second_moved, n_unpaired: int = 0) -> tuple[float, float]:
    """Effective number of null draws when each move serves two draws, and their correlation.

    The symmetric two-map null moves the first map in half its draws and the second map,
    *by the same moves*, in the other half: draw ``i`` of ``first_moved`` and draw ``i`` of
    ``second_moved`` share one move and are correlated (about 0.4-0.6 for Pearson on real
    cortical maps; 1 for a map against itself). The mean of ``m`` such pairs, each pair's
    values correlated ``rho``, has the variance of ``2 m / (1 + rho)`` independent draws;
    with ``n_unpaired`` draws whose move served once,

    ``n_effective = n_unpaired + 2 m / (1 + rho)``,

    between ``m + n_unpaired`` (the distinct moves, ``rho = 1``) and ``2 m + n_unpaired``
    (``rho = 0``). ``rho`` is the Pearson correlation of the paired values, clipped to
    ``[0, 1]`` (1 when it is undefined, e.g. a constant null: the safe side). For a tail
    count the correlation of the tail indicators matters, which is below the values' for
    jointly normal draws, so this ``n_effective`` errs small (a conservative floor).

    Parameters
    ----------
    first_moved : array-like
        The statistic on the draws that moved the first map, one per move.
    second_moved : array-like
        The statistic on the draws that moved the second map by the same moves, in order.
    n_unpaired : int
        Further draws whose move served once (default 0).

    Returns
    -------
    n_effective : float
        The effective number of independent draws.
    rho : float
        The correlation of the paired values, in ``[0, 1]``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> x = rng.standard_normal(500)
    >>> effective_draws(x, x)  # the same values twice: 500 distinct draws
    (500.0, 1.0)
    >>> n, rho = effective_draws(x, rng.standard_normal(500))
    >>> 950 < n <= 1000, rho < 0.1
    (True, True)
    """
    f = np.asarray(first_moved, dtype=float).ravel()
    s = np.asarray(second_moved, dtype=float).ravel()
    m = f.size
    ok = np.isfinite(f) & np.isfinite(s)
    rho = 1.0
    if ok.sum() > 2 and f[ok].std() > 0 and s[ok].std() > 0:
        rho = float(np.clip(np.corrcoef(f[ok], s[ok])[0, 1], 0.0, 1.0))
    return float(n_unpaired + 2 * m / (1 + rho)), rho


@validate_params({"n_permutations": _DRAWS})
@fill_doc
def floor_p(n_permutations: float, alternative: str = "greater") -> float:
    """The smallest p-value ``n_permutations`` draws can give: ``1 / (1 + n)`` (two-sided
    ``2 / (1 + n)``, at most 1); 1 without draws. ``n`` may be an effective, fractional
    count (:func:`effective_draws`).

    Parameters
    ----------
    %(n_permutations)s
    alternative : {"greater", "less", "two-sided"}
        The tail of the test; a name starting with
        ``"two-sided"`` doubles the floor (default ``"greater"``).

    Returns
    -------
    float
        The floor p-value, in ``(0, 1]``.

    Examples
    --------
    >>> floor_p(19), floor_p(19, "two-sided"), floor_p(0), round(floor_p(499.0, "two-sided"), 5)
    (0.05, 0.1, 1.0, 0.004)
    """
    n = float(n_permutations)
    k = 2.0 if str(alternative).startswith("two-sided") else 1.0
    return float(min(1.0, k / (1 + n))) if n > 0 else 1.0


@validate_params({"n_permutations": _DRAWS, "alpha": ALPHA})
@fill_doc
def can_reject(n_permutations: float, alpha: float, alternative: str = "greater") -> bool:
    """Whether ``n_permutations`` draws can give ``p <= alpha`` at all (9 draws cannot reach
    0.05; 19 can one-sided, not two-sided); pass the effective count where moves serve two
    draws (:func:`effective_draws`: 38 draws of 19 moves cannot reach 0.05 two-sided).

    Parameters
    ----------
    %(n_permutations)s
    %(alpha)s
    %(test_tail)s

    Returns
    -------
    bool
        ``True`` where the floor p-value (:func:`floor_p`) is at most ``alpha``.

    Examples
    --------
    >>> can_reject(9, 0.05), can_reject(19, 0.05), can_reject(19, 0.05, "two-sided")
    (False, True, False)
    """
    return floor_p(n_permutations, alternative) <= float(alpha) + 1e-12
