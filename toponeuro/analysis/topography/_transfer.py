"""Localise on one stimulus set, test on another: does a localizer's selection generalise?

"Units selective for faces on set A: do they prefer faces on set B?" The units are picked
by a contrast on A (:func:`selectivity`, e.g. fLoc faces against the other domains), and
their preference is measured on B alone (e.g. the 92 images' human faces against the rest),
so the two are independent: no stimulus is used both to pick and to test (shared stimulus
ids are refused). The question the null answers: is the preference of *these* units for B's
target larger than for random relabellings of B's stimuli (B's labels shuffled, the units
fixed)?
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from numbers import Integral

import numpy as np
import xarray as xr

from ..._util import dims as D
from ..._util.constraints import NDARRAY
from ..._util.docs import fill_doc
from ..._util.frozen import validate_fields
from ..._util.params import (
    MAX_PERMUTATIONS,
    N_PERMUTATIONS,
    NON_NEGATIVE_INT,
    NUMBER,
    P_VALUE,
    SEED,
    TOP_K,
    Interval,
    Options,
    Text,
    check_random_state,
    validate_params,
)
from ..._util.stack import user_stacklevel
from ..._util.typing import RandomState
from ...exceptions import (
    AlignmentError,
    InvalidDataError,
    UndefinedValueWarning,
    UnknownNameError,
    close_matches,
)
from ...sheet import check_activations
from ._null import ALTERNATIVE, null_p_value
from ._selectivity import (
    DEFAULT_SELECTIVITY,
    SELECTIVITY_METRICS,
    _contrast_names,
    _label,
    _stimulus_labels,
    _top_k,
    contrast_masks,
    selectivity,
)

__all__ = ["localizer_transfer", "TransferResult"]

_REFERENCE = ("Independent localizer (Kanwisher, McDermott & Chun 1997; Kriegeskorte, "
              "Simmons, Bellgowan & Baker 2009 on circular analysis); Cohen's d with pooled SD; "
              "permutation p of Phipson & Smyth (2010)")


@dataclass(frozen=True)
@validate_fields({
    "statistic": NUMBER, "p_value": P_VALUE, "null_mean": NUMBER, "null_std": NUMBER,
    "n_permutations": N_PERMUTATIONS, "alternative": ALTERNATIVE,
    "n_units": NON_NEGATIVE_INT, "units": NDARRAY, "n_target": NON_NEGATIVE_INT,
    "n_against": NON_NEGATIVE_INT, "localizer": Text(), "test": Text(), "method": Text(),
    "reference": Text(empty=True)})
class TransferResult:
    """The preference on set B of units picked on set A (see :func:`localizer_transfer`).

    Parameters
    ----------
    statistic : float
        Cohen's d (pooled SD) of the selected units' mean response (each unit z-scored over
        B's contrast stimuli), B's target against B's against stimuli.
    p_value : float
        Permutation p (B's labels shuffled among its contrast stimuli), the rule of
        :func:`null_p_value`; its floor is ``1 / (1 + n_permutations)``.
    null_mean : float
        Mean of the null's d.
    null_std : float
        Standard deviation of the null's d.
    n_permutations : int
        Relabellings of B drawn.
    alternative : str
        The tail of ``p_value``.
    n_units : int
        Units selected on A.
    units : numpy.ndarray
        Their positions along the ``unit`` dim.
    n_target : int
        B's target stimuli.
    n_against : int
        B's against stimuli.
    localizer : str
        A's contrast, ``"target > against"``.
    test : str
        B's contrast, ``"target > against"``.
    method : str
        The statistic's name (``"cohen_d"``).
    reference : str
        Where the method comes from.

    Examples
    --------
    >>> r = TransferResult(1.2, 0.001, 0.0, 0.3, 999, "greater", 10, np.arange(10), 12, 40,
    ...                    "faces > rest", "face > rest")
    >>> r.statistic, r.method
    (1.2, 'cohen_d')
    """

    statistic: float
    p_value: float
    null_mean: float
    null_std: float
    n_permutations: int
    alternative: str
    n_units: int
    units: np.ndarray
    n_target: int
    n_against: int
    localizer: str
    test: str
    method: str = "cohen_d"
    reference: str = _REFERENCE


def _cohen_d(score, t, a):
    x, y = score[t], score[a]
    nx, ny = x.size, y.size
    pooled = ((nx - 1) * x.var(ddof=1) + (ny - 1) * y.var(ddof=1)) / (nx + ny - 2)
    if not pooled > 0:
        return np.nan
    return float((x.mean() - y.mean()) / np.sqrt(pooled))


def _same_units(a: xr.DataArray, b: xr.DataArray):
    if a.sizes[D.UNIT] != b.sizes[D.UNIT]:
        raise AlignmentError(
            f"The localizer activations have {a.sizes[D.UNIT]} units and the test activations "
            f"{b.sizes[D.UNIT]}; extract both from the same model and layers."
        )
    for c in (D.LAYER, D.CHANNEL, D.ROW, D.COL):
        if c in a.coords and c in b.coords and not np.array_equal(a[c].values, b[c].values):
            raise AlignmentError(
                f"The localizer and test activations differ in their unit coord {c!r}; "
                "extract both from the same model and layers, in the same unit order."
            )


def _coord_labels(acts: xr.DataArray, labels, param: str, which: str):
    """``labels`` as given, or the values of the stimulus coord it names."""
    if not isinstance(labels, str):
        return labels
    coords = [c for c in acts.coords if acts[c].dims == (D.STIMULUS,)]
    if labels not in coords:
        raise UnknownNameError(
            f"{param}={labels!r} names no stimulus coord of the {which} activations (they "
            f"have {coords}); {close_matches(labels, coords)}. Pass one label per stimulus, "
            "or assign the coord first (acts.assign_coords(stimuli.coords()))."
        )
    return acts[labels].values


@validate_params({
    "metric": Options(SELECTIVITY_METRICS, error=UnknownNameError),
    "top_k": TOP_K,
    "n_permutations": Interval(Integral, 1, MAX_PERMUTATIONS, closed="both",
                               fix="1000 is the usual choice."),
    "alternative": ALTERNATIVE,
    "random_state": SEED,
})
@fill_doc
def localizer_transfer(
    localizer: xr.DataArray,
    test: xr.DataArray,
    target,
    test_target,
    *,
    against="rest",
    test_against="rest",
    labels=None,
    test_labels=None,
    metric: str = DEFAULT_SELECTIVITY,
    top_k=0.1,
    n_permutations: int = 1000,
    alternative: str = "greater",
    random_state: RandomState = None,
) -> TransferResult:
    """Pick units by a contrast on one stimulus set; test their preference on another.

    Parameters
    ----------
    localizer : Activations
        Set A, which picks the units (e.g. fLoc).
    test : Activations
        Set B, the same model's units (same unit coords), other stimuli (e.g. the 92 images).
    target : str or sequence of str
        A's target, as for :func:`selectivity` (fLoc domain names expand).
    test_target : str or sequence of str
        B's target: values of ``test_labels`` (B's categories by default), e.g.
        ``"human face"``.
    against : str or sequence of str
        A's against side, as for :func:`selectivity` (default ``"rest"``).
    test_against : str or sequence of str
        B's against side, values of ``test_labels`` (default ``"rest"``: every other value).
    labels, test_labels : sequence or str, optional
        One label per stimulus of A / B, or the name of a stimulus coord (e.g. ``"face"``
        from :func:`~toponeuro.stimuli.load_stimulus_table`); default the ``category``
        coord. Values are compared as text (``1`` is ``"1"``).
    metric : str
        A's selectivity metric (:func:`selectivity`).
    top_k : int or float
        Units kept per layer: a count, or a fraction in (0, 1] of the layer's units, highest
        A-selectivity first (default 0.1: the top tenth).
    %(n_permutations)s
        Here: relabellings of B.
    alternative : {"greater", "less", "two-sided"}
        ``"greater"``: the units prefer B's target.
    %(random_state)s

    Returns
    -------
    TransferResult
        Cohen's d of the selected units on B with its permutation p.

    Raises
    ------
    AlignmentError
        A and B share stimulus ids (the test would not be independent), or differ in units.
    UnknownNameError, InvalidDataError
        As :func:`selectivity`, for either contrast.

    Notes
    -----
    The statistic is Cohen's d of the stimulus-wise population response: each selected
    unit is z-scored over B's contrast stimuli (so no unit dominates by its scale), the
    units are averaged per stimulus, and d compares B's target and against stimuli with
    the pooled standard deviation. The null keeps the units and shuffles B's labels among
    B's contrast stimuli; d is recomputed for each. A small p says the selected units
    respond more to B's target than to random stimulus groups of the same sizes; it does
    not say that they are the units B alone would pick, nor that the preference is
    specific to the target (test other contrasts of B for that).

    Examples
    --------
    >>> from toponeuro import make_activations
    >>> rng = np.random.default_rng(0)
    >>> face_units = np.zeros(20); face_units[:4] = 1.0   # 4 of 20 units prefer faces
    >>> cats_a = ["faces", "objects"] * 20
    >>> xa = rng.standard_normal((40, 20)) + np.outer(np.array(cats_a) == "faces", face_units)
    >>> cats_b = ["face", "body", "place", "object"] * 10
    >>> xb = rng.standard_normal((40, 20)) + np.outer(np.array(cats_b) == "face", face_units)
    >>> a = make_activations({"fc": xa}, categories=cats_a)
    >>> b = make_activations({"fc": xb}, categories=cats_b,
    ...                      stimulus_ids=[f"b{i}" for i in range(40)])
    >>> r = localizer_transfer(a, b, "faces", "face", top_k=4, n_permutations=199,
    ...                        random_state=0)
    >>> sorted(r.units.tolist()), bool(r.statistic > 1), r.p_value
    ([0, 1, 2, 3], True, 0.005)
    """
    check_activations(localizer)
    check_activations(test)
    _same_units(localizer, test)
    ids_a = set(np.asarray(localizer[D.STIMULUS_ID].values).astype(str)) \
        if D.STIMULUS_ID in localizer.coords else set()
    ids_b = set(np.asarray(test[D.STIMULUS_ID].values).astype(str)) \
        if D.STIMULUS_ID in test.coords else set()
    shared = sorted(ids_a & ids_b)
    if shared:
        raise AlignmentError(
            f"The localizer and test sets share {len(shared)} stimulus ids (e.g. "
            f"{shared[:3]}); a stimulus used to pick the units and to test them makes the "
            "test circular. Test on other stimuli (or split one set with StimulusSet.split)."
        )
    labels = _coord_labels(localizer, labels, "labels", "localizer")
    sel = selectivity(localizer, target, against, metric=metric, labels=labels)
    layers = np.asarray(localizer[D.LAYER].values) if D.LAYER in localizer.coords else \
        np.zeros(localizer.sizes[D.UNIT])
    groups = [np.flatnonzero(layers == v) for v in dict.fromkeys(layers.tolist())]
    keep = _top_k(np.asarray(sel.values, dtype=float), top_k, groups)
    units = np.flatnonzero(keep)
    if units.size == 0:
        n_finite = int(np.isfinite(np.asarray(sel.values, dtype=float)).sum())
        raise InvalidDataError(
            f"No unit was selected on the localizer set (top_k={top_k!r}; {n_finite} of "
            f"{sel.size} units have a finite selectivity), so none can be tested. Pass a "
            "larger top_k (a count, or a fraction that keeps at least one unit per layer), "
            "and check that the localizer activations vary across stimuli."
        )
    test_labels = _coord_labels(test, test_labels, "test_labels", "test")
    cats_b = _stimulus_labels(test, None if test_labels is None
                              else np.asarray(test_labels).astype(str))
    t_mask, a_mask, tgt, agn = contrast_masks(
        cats_b, _contrast_names(test_target, "test_target"),
        _contrast_names(test_against, "test_against"), domains={})
    inside = t_mask | a_mask
    x = test.transpose(D.STIMULUS, D.UNIT).values[:, units][inside].astype(float)
    sd = x.std(0, ddof=1)
    good = np.isfinite(x).all(0) & (sd > 0)
    if not good.any():
        raise InvalidDataError(
            "Every selected unit is constant (or not finite) over the test set's contrast "
            "stimuli; the preference is undefined. Check the test activations, or select "
            "more units with a larger top_k."
        )
    if not good.all():
        warnings.warn(
            f"{int((~good).sum())} of the {good.size} units selected on the localizer set are "
            "constant or not finite over the test set's contrast stimuli and are left out of "
            "the statistic.", UndefinedValueWarning, stacklevel=user_stacklevel(),
        )
    z = (x[:, good] - x[:, good].mean(0)) / sd[good]
    score = z.mean(1)
    t_in = t_mask[inside]
    stat = _cohen_d(score, t_in, ~t_in)
    if not np.isfinite(stat):
        warnings.warn(
            "Cohen's d of the selected units on the test set is undefined (their mean "
            "response is constant within both groups, or a group has fewer than 2 stimuli); "
            "statistic and p_value are NaN.", UndefinedValueWarning, stacklevel=user_stacklevel(),
        )
    rng = check_random_state(random_state)
    null = np.empty(n_permutations)
    for k in range(n_permutations):
        perm = rng.permutation(t_in)
        null[k] = _cohen_d(score, perm, ~perm)
    return TransferResult(
        statistic=stat,
        p_value=null_p_value(stat, null, alternative),
        null_mean=float(np.nanmean(null)),
        null_std=float(np.nanstd(null)),
        n_permutations=n_permutations,
        alternative=alternative,
        n_units=int(units.size),
        units=units,
        n_target=int(t_mask.sum()),
        n_against=int(a_mask.sum()),
        localizer=f"{_label(sel.attrs['target'])} > {_label(sel.attrs['against'])}",
        test=f"{_label(tgt)} > {_label(agn)}",
    )
