"""Split-half reading of the language localizer: are the selected units a stable set, and how
do they respond to all four conditions (S, W, J, N) on items they were not selected on?

:func:`language_selectivity` picks units on every item; reporting those units' responses to
the same S and N items is circular (they were chosen for them). :func:`language_profile`
splits each condition's items in two (odd and even positions), selects on one half with
TopoLM's definitions, measures on the other, and reports how much the two halves' selections
overlap against chance (hypergeometric).
"""

from __future__ import annotations

import warnings

import numpy as np
import xarray as xr

from ..._util import dims as D
from ..._util.docs import fill_doc
from ..._util.params import ALPHA, N_PERMUTATIONS, SEED, Text, validate_params
from ..._util.stack import user_stacklevel
from ...exceptions import InvalidDataError, UndefinedValueWarning
from ...sheet import check_activations
from .._domains import LANGUAGE_AGAINST, LANGUAGE_TARGET
from ._label_null import contrast_design, contrast_topography
from ._selectivity import (
    LANGUAGE_SELECTION,
    _stimulus_labels,
    fdr_selection,
    language_selectivity,
)

__all__ = ["language_profile", "LANGUAGE_CONDITIONS", "language_topography"]

#: the Fedorenko et al. (2010) conditions, in the order of the language network's response
LANGUAGE_CONDITIONS = ("S", "W", "J", "N")


def _halves(cats: np.ndarray) -> np.ndarray:
    """0 for the 1st, 3rd, ... item of each condition, 1 for the 2nd, 4th, ..."""
    half = np.zeros(cats.size, dtype=int)
    for c in dict.fromkeys(cats.tolist()):
        idx = np.flatnonzero(cats == c)
        half[idx] = np.arange(idx.size) % 2
    return half


@validate_params(LANGUAGE_SELECTION)
@fill_doc
def language_profile(
    activations: xr.DataArray,
    target=LANGUAGE_TARGET,
    against=LANGUAGE_AGAINST,
    *,
    conditions=None,
    top_k: float | int = 0.1,
    q: float = 0.05,
    smooth_fwhm: float | None = 2.0,
    alternative: str = "two-sided",
    scope: str = "all",
    labels=None,
) -> xr.Dataset:
    """Cross-validated condition profile and split-half stability of the language units.

    Each condition's items are split by position (odd / even). On each half,
    :func:`language_selectivity` (TopoLM's definitions: sheet smoothing, Welch t,
    two-sided, BH, top-k over ``scope``) selects the ``topk_mask`` units; their responses are
    then read on the *other* half's items, so no item both selects and measures. A response
    is the unit's activation z-scored over all stimuli, averaged over the layer's selected
    units; each item is measured once (by the units of the half it is not in).

    Parameters
    ----------
    %(activations)s
        Here: the localizer items' (the condition in the ``category`` coord or ``labels``).
    target, against : str or sequence of str
        The contrast, as in :func:`language_selectivity` (default S vs N).
    conditions : sequence of str, optional
        Conditions profiled (default those of :data:`LANGUAGE_CONDITIONS` present, then any
        other label, in order of appearance).
    top_k : float or int
        Units selected on each half, as in :func:`language_selectivity` (TopoLM's 0.1).
    q : float
        Benjamini-Hochberg false-discovery rate (0.05).
    smooth_fwhm : float or None
        FWHM (unit spacings) of the sheet smoothing before the t-test (TopoLM's 2.0;
        ``None``: the raw activations).
    alternative : {"two-sided", "greater", "less"}
        Alternative of the t-tests' p-values (TopoLM: two-sided).
    scope : {"all", "layer"}
        The FDR family and the top-k pool: all layers at once (TopoLM) or each layer.
    labels : sequence of str, optional
        One condition per stimulus (default the ``category`` coord).

    Returns
    -------
    xarray.Dataset
        Over ``("layer", "condition")``: ``response`` (mean z-scored activation of the
        units selected on the other half), ``sem`` (over items) and ``n_items``. Over
        ``layer``: ``n_selected_odd``, ``n_selected_even``, ``n_units``, ``overlap``
        (Dice coefficient of the two halves' selections), ``overlap_chance`` (its
        expectation for independent selections of the same sizes), ``overlap_p``
        (hypergeometric P(shared >= observed)). ``attrs``: the selection's parameters.

    Warns
    -----
    UndefinedValueWarning
        A layer where a half selects no unit (its responses and overlap are NaN).

    Examples
    --------
    >>> from toponeuro import make_activations
    >>> acts = make_activations({"h": 64}, n_stimuli=80, categories=["S", "W", "J", "N"] * 20,
    ...                         random_state=0)
    >>> x = acts.values.copy(); s = acts["category"].values == "S"
    >>> x[s, :8] += 2.0  # eight planted language units
    >>> prof = language_profile(acts.copy(data=x), top_k=8, smooth_fwhm=None)
    >>> float(prof["overlap"].sel(layer="h")), prof["condition"].values.tolist()
    (1.0, ['S', 'W', 'J', 'N'])
    >>> bool(prof["response"].sel(layer="h", condition="S") > 1)
    True
    """
    check_activations(activations)
    cats = np.asarray(_stimulus_labels(activations, labels)).astype(str)
    if conditions is None:
        present = list(dict.fromkeys(cats.tolist()))
        conditions = [c for c in LANGUAGE_CONDITIONS if c in present]
        conditions += [c for c in present if c not in conditions]
    conditions = [str(c) for c in conditions]
    missing = [c for c in conditions if c not in set(cats)]
    if missing:
        raise InvalidDataError(
            f"conditions {missing} have no stimuli; the labels are {sorted(set(cats))}."
        )
    half = _halves(cats)
    acts = activations.transpose(D.STIMULUS, D.UNIT)
    x = np.asarray(acts.values, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        z = (x - x.mean(0)) / x.std(0)
    z[:, ~np.isfinite(z).all(0)] = np.nan  # constant units carry no response
    kw = dict(q=q, top_k=top_k, smooth_fwhm=smooth_fwhm, alternative=alternative, scope=scope)
    masks = []
    for h in (0, 1):
        keep = half == h
        sel = language_selectivity(acts.isel({D.STIMULUS: keep}), target, against,
                                   labels=cats[keep], **kw)
        masks.append(np.asarray(sel["topk_mask"].values, bool))
    unit_layer = np.asarray(acts[D.LAYER].values).astype(str)
    layers = list(dict.fromkeys(unit_layer.tolist()))
    resp = np.full((len(layers), len(conditions)), np.nan)
    sem = np.full_like(resp, np.nan)
    n_items = np.zeros(resp.shape, dtype=int)
    sizes = np.zeros((len(layers), 2), dtype=int)
    n_units = np.zeros(len(layers), dtype=int)
    dice, chance, pval = (np.full(len(layers), np.nan) for _ in range(3))
    from scipy import stats  # on first use: scipy.stats is a heavy import

    for i, ly in enumerate(layers):
        in_layer = unit_layer == ly
        n_units[i] = int(in_layer.sum())
        m = [mk & in_layer for mk in masks]
        sizes[i] = [int(mk.sum()) for mk in m]
        if not sizes[i].all():
            warnings.warn(UndefinedValueWarning(
                f"Layer {ly!r}: a half of the items selects {sizes[i].min()} units "
                f"(odd {sizes[i][0]}, even {sizes[i][1]}); its profile and overlap are NaN. "
                "Use scope='layer' for a top-k in every layer, or a larger top_k."),
                stacklevel=user_stacklevel())
            continue
        item = np.empty(cats.size)
        for h in (0, 1):  # items of half h measured by the units selected on the other half
            rows = half == h
            item[rows] = np.nanmean(z[np.ix_(rows, m[1 - h])], axis=1)
        for j, c in enumerate(conditions):
            v = item[cats == c]
            n_items[i, j] = v.size
            resp[i, j] = v.mean()
            sem[i, j] = v.std(ddof=1) / np.sqrt(v.size) if v.size > 1 else np.nan
        a, b = sizes[i]
        shared = int((m[0] & m[1]).sum())
        dice[i] = 2 * shared / (a + b)
        chance[i] = 2 * a * b / (n_units[i] * (a + b))
        pval[i] = float(stats.hypergeom.sf(shared - 1, n_units[i], a, b))
    return xr.Dataset(
        {
            "response": ((D.LAYER, "condition"), resp),
            "sem": ((D.LAYER, "condition"), sem),
            "n_items": ((D.LAYER, "condition"), n_items),
            "n_selected_odd": (D.LAYER, sizes[:, 0]),
            "n_selected_even": (D.LAYER, sizes[:, 1]),
            "n_units": (D.LAYER, n_units),
            "overlap": (D.LAYER, dice),
            "overlap_chance": (D.LAYER, chance),
            "overlap_p": (D.LAYER, pval),
        },
        coords={D.LAYER: layers, "condition": conditions},
        attrs={"method": "split-half (odd/even items of each condition), TopoLM selection",
               "response": "activation z-scored over all stimuli, mean over selected units",
               "overlap": "Dice coefficient; chance and p: hypergeometric",
               **{k: ("none" if v is None else v) for k, v in kw.items()}},
    )


@validate_params({"q": LANGUAGE_SELECTION["q"], "n_permutations": N_PERMUTATIONS,
                  "alpha": ALPHA, "random_state": SEED, "where": Text(empty=True)})
@fill_doc
def language_topography(
    activations: xr.DataArray,
    layers=None,
    *,
    target=LANGUAGE_TARGET,
    against=LANGUAGE_AGAINST,
    labels=None,
    q: float = 0.05,
    n_permutations: int = 1000,
    alpha: float = 0.05,
    random_state=0,
    statistics=("morans_i",),
    where: str = "on this sheet",
    what: str = "language selectivity",
) -> dict:
    """The language map's topography, each claim from its own null, layer by layer.

    The map is the language job's: the raw Welch t of sentences vs nonword lists per unit
    (:func:`language_selectivity` with ``smooth_fwhm=None``). Each statistic (Moran's I by
    default; also ``"smoothness"``, ``"n_patches"``, ``"sign_clustering"``: how clustered the
    S > N units are, whatever their fraction) is tested against

    - the **positions null**: "the language map is organised on the sheet" (nearly always
      true on a topographic sheet: neighbouring units respond alike to everything), and
    - the **label null**: "language selectivity is more clustered than contrasts of random
      splits of its items on this sheet" -- the S and N items' labels shuffled, the t map
      recomputed from the same activations; the *selective-topography* claim rests on this.

    An empty FDR selection is a result: ``selection["text"]`` says "no language-selective
    units at q = 0.05" and ``selection["threshold"]`` is None (``topography_table(...,
    threshold=None)``: no patches); Moran's I and smoothness are still defined.

    Parameters
    ----------
    %(activations)s
        Here: the localizer items'.
    layers : str or sequence of str, optional
        Default every layer of the activations.
    target, against : str or sequence of str
        The contrast (default S vs N), as in :func:`language_selectivity`.
    labels : sequence of str, optional
        One condition per stimulus (default the ``category`` coord).
    q : float
        Benjamini-Hochberg level of the selection (over all layers, TopoLM's).
    %(n_permutations)s
        Both nulls draw the same count from the same seed.
    %(alpha)s
    %(random_state)s
    statistics : sequence of str
        Registered one-map statistics; the first gives ``headline``.
    where : str
        For the sentences.
    what : str
        The map, for the sentences (the verb - noun stage: ``"verb - noun selectivity"``).

    Returns
    -------
    dict
        ``layer -> {"selection": fdr_selection(...) of that layer, "tests": {statistic:
        ContrastTopography}, "headline": the first statistic's label-null sentence,
        "organised": its positions-null sentence}``; every ``ContrastTopography`` has
        ``to_dict()`` for summary.json (``p_positions_null``, ``p_label_null``, both claims).

    Examples
    --------
    >>> from toponeuro import make_activations
    >>> acts = make_activations({"h": 64}, n_stimuli=40, categories=["S", "N"] * 20,
    ...                         random_state=0)
    >>> res = language_topography(acts, n_permutations=19)
    >>> res["h"]["selection"]["text"]
    'no language-selective units at q = 0.05'
    >>> res["h"]["tests"]["morans_i"].selective.outcome
    'not beyond chance'
    """
    check_activations(activations)
    all_layers = list(dict.fromkeys(np.asarray(activations[D.LAYER].values).astype(str)))
    layers = all_layers if layers is None else [layers] if isinstance(layers, str) else list(
        layers)
    raw = language_selectivity(activations, target, against, q=q, labels=labels,
                               smooth_fwhm=None)
    out = {}
    for ly in layers:
        sel = fdr_selection(raw, layer=ly)
        design = contrast_design(activations, target, against, layer=ly, metric="welch_t",
                                 labels=labels)  # built once for every statistic
        tests = {stat: contrast_topography(
            design, statistic=stat, n_permutations=n_permutations, alpha=alpha,
            random_state=random_state, what=what, where=where)
            for stat in statistics}
        first = tests[statistics[0]]
        out[ly] = {"selection": sel, "tests": tests, "headline": first.selective.text,
                   "organised": first.organised.text}
    return out
