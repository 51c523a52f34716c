"""The main job's report in words: what the page and the terminal say from the typed report.

:mod:`.results` builds the report (:class:`~.._kit.report.MapReport`) from what the stages
computed; the functions here only read it (and the comparison tables) and write it out as
sentences and tables: the headline's question and answers, the side-by-side view of the
sheet and the cortex, each test's p and the cortex maps' description. None computes a
statistic.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ..._util.constraints import MAPPING, Names
from ..._util.params import InstanceOf, Text, validate_params
from ..._util.stack import user_stacklevel
from .._kit.constants import MAP_DOMAINS, MAP_PAIRS
from .._kit.report import (
    ArrangementDrawsRecord,
    ArrangementRecord,
    CortexSourceRecord,
    MapHeadlineRecord,
    MapReport,
    MapStimuliRecord,
    SimilarityTestRecord,
)
from .._kit.report import jsonable as _jsonable

__all__ = ["comparison_view", "cortex_description", "arrangement_p_text", "percent_of",
           "STATISTIC_NAMES", "headline_parts", "training_images_note"]


def cortex_description(source: CortexSourceRecord | dict | None) -> str:
    """One line on what the cortex maps are (atlas and representation, or the user's files),
    from their source record (or :attr:`~toponeuro.atlases.CortexMaps.source`'s dict).

    Examples
    --------
    >>> cortex_description({"atlas": "visfAtlas", "representation": "binary"})
    'visfAtlas (Rosenke et al., 2021) on fsaverage5: its ROIs as 0/1 maps'
    >>> cortex_description({"representation": "values", "hemispheres": ["left"], "maps": {
    ...     "faces": {"left": {"surface": "lh.v.label.gii", "regions": ["mFus-faces"]}},
    ...     "bodies": {"left": {"surface": "lh.bodies.func.gii"}}}})
    'your own maps (from cortex.maps: faces, bodies) on fsaverage5, left hemisphere only, surface maps; bodies: their values as they are (NaN: no data); faces: the regions mFus-faces of a label file, 1 inside and 0 elsewhere'
    """
    src = _source_record(source)
    hemis = src.hemispheres if src.hemispheres is not None else ["left", "right"]
    side = "" if len(hemis) == 2 else f", {hemis[0]} hemisphere only"
    if src.user_maps:
        files = src.maps or {}
        how = ("MNI volumes projected with nilearn's vol_to_surf "
               f"({', '.join(f'{k}={v}' for k, v in src.vol_to_surf.items() if k != 'meshes')})"
               if src.vol_to_surf else "surface maps")
        rois = {d: sorted({r for rec in ([f] if "regions" in f else f.values())
                           if isinstance(rec, dict) for r in rec.get("regions", [])})
                for d, f in files.items()}
        rois = {d: r for d, r in rois.items() if r}
        values = [d for d in files if d not in rois]
        said = ([f"{', '.join(values)}: their values as they are (NaN: no data)"] if values
                else []) + [f"{d}: the regions {' + '.join(r)} of a label file, 1 inside and 0 "
                            "elsewhere" for d, r in rois.items()]
        return (f"your own maps (from cortex.maps: {', '.join(files)}) on {src.on_mesh}"
                f"{side}, {how}; {'; '.join(said)}")
    head = "visfAtlas (Rosenke et al., 2021) on fsaverage5" + side
    if src.representation == "proximity":
        return (f"{head}: each ROI as a continuous map, its geodesic proximity "
                f"exp(-d / {src.scale_mm:g} mm), d the distance along the pial "
                "mesh to the ROI (1 inside; the atlas is a maximum-probability map, whose 0/1 "
                "ROIs never overlap)")
    return f"{head}: its ROIs as 0/1 maps"


def _source_record(source) -> CortexSourceRecord:
    """``source`` (:attr:`~toponeuro.atlases.CortexMaps.source`; None: no maps) as a record."""
    return source if isinstance(source, CortexSourceRecord) else CortexSourceRecord.from_summary(
        _jsonable(source or {}))


def _arrangement_verdict(a: ArrangementRecord, alpha: float,
                         draws: ArrangementDrawsRecord | None = None) -> str:
    """The words for one arrangement test: a match, no evidence, or (draws that cannot reach
    ``alpha``, or no test) no finding at all; ``draws``: its nulls' draws
    (:attr:`~._kit.report.MapReport.arrangement_draws`; None: unknown)."""
    from ...analysis import can_reject, too_few_draws_text

    p = a.p_value
    if p is None or not np.isfinite(p):
        return "not tested"
    if p <= alpha:
        return "the arrangement matches beyond both nulls"
    drawn = [] if draws is None else [draws.shift, draws.spin]
    if drawn and not can_reject(min(drawn), alpha):  # p is the larger of the two nulls' p
        return too_few_draws_text(min(drawn), alpha)
    return "not distinguishable from chance arrangements"


def headline_parts(headline: MapHeadlineRecord, alpha: float,
                   draws: ArrangementDrawsRecord | None = None) -> dict:
    """The headline in plain words: ``question``, one ``answer`` per hemisphere and the
    ``rule`` that chose the layer (the report's first screen and the terminal print it).

    Counts what is compared on each hemisphere (the domains with a map on both sides, and
    their pairs of centres) and says what a three-domain ρ can show. ``headline`` is the
    report's (:attr:`MapReport.headline`, a :class:`~._kit.report.MapHeadlineRecord`),
    ``alpha`` its level, ``draws`` its arrangement's nulls' draws
    (:attr:`MapReport.arrangement_draws`; None: unknown).

    Examples
    --------
    >>> a = ArrangementRecord(
    ...     spearman=0.5, p_value=0.57, p_shift=0.57, p_spin=0.2, null_shift_mean=0.0,
    ...     null_spin_mean=0.0, n_domains=3, n_pairs=3, domains=["faces", "bodies", "places"],
    ...     pairs=[], model_distances=[], cortex_distances_mm=[],
    ...     patch_centroids={"spearman": None, "n_regions": 0},
    ...     p_text="p = 0.570 (one-sided)")
    >>> head = MapHeadlineRecord(layer="l4", rule="the deepest layer", arrangement={"right": a})
    >>> parts = headline_parts(head, alpha=0.05)
    >>> "3 on the right hemisphere" in parts["question"]
    True
    >>> print(parts["answers"]["right"])  # doctest: +NORMALIZE_WHITESPACE
    Spearman ρ = +0.50 between the 3 centre distances on the sheet and on the cortex, p =
    0.570 (one-sided): not distinguishable from chance arrangements. With 3 distances ρ can
    only be −1, −0.5, +0.5 or +1: it says whether the three are ranked alike, and if they
    were ranked at random ρ = +1 would come up 1 time in 6.
    """
    head = headline
    counts, answers = [], {}
    for h, a in head.arrangement.items():
        n, doms = int(a.n_domains), list(a.domains)
        left_out = [d for d in MAP_DOMAINS if d not in doms]
        counts.append(f"{n} on the {h} hemisphere ({', '.join(doms) or 'none'}"
                      + (f"; no cortex map of {' or '.join(left_out)}" if left_out else "")
                      + ")")
        if a.spearman is None:
            answers[h] = (f"undefined: {n} domain{'s' if n != 1 else ''} mapped on both sides, "
                          "and a rank correlation of centre distances needs 3")
            continue
        text = (f"Spearman ρ = {a.spearman:+.2f} between the {a.n_pairs} centre "
                f"distances on the sheet and on the cortex, {a.p_text}: "
                + _arrangement_verdict(a, alpha, draws) + ".")
        if a.n_pairs == 3:
            text += (" With 3 distances ρ can only be −1, −0.5, +0.5 or +1: it says whether "
                     "the three are ranked alike, and if they were ranked at random ρ = +1 "
                     "would come up 1 time in 6.")
        answers[h] = text
    question = (f"Do the domains sit on the sheet of {head.layer} in the same relative "
                "positions as on the cortex? Compared are the domains with a map on both "
                "sides: " + "; ".join(counts) + ".")
    rule = (f"The headline layer {head.layer} is chosen by a rule fixed before looking at "
            f"the results: {head.rule}. Every mapped layer is in the figure.")
    return {"question": question, "answers": answers, "rule": rule}


#: how each map-similarity method is named wherever a value is shown
STATISTIC_NAMES = {"ssim": "SSIM", "pearson": "Pearson r", "spearman": "Spearman ρ",
                   "morans_i": "Moran's I"}


def _signed(name: str, v) -> str:
    return "–" if v is None or not np.isfinite(v) else f"{name} {v:+.2f}"


def _test_text(entry: SimilarityTestRecord | None, null: str) -> str:
    """A similarity test's verdict and p (its ``p_text``), naming its null."""
    if entry is None or entry.verdict == "not tested":
        return "–" if entry is None else "not tested"
    return f"{entry.verdict}; {null}, {entry.p_text}"


@validate_params(dict(comparison=MAPPING, layer=Text(), hemispheres=Names(empty=False),
                      report=[InstanceOf(MapReport, "a MapReport"), MAPPING, None]))
def comparison_view(comparison: dict, layer: str, hemispheres: Sequence[str],
                    report: MapReport | None = None) -> pd.DataFrame:
    """One readable table of what can be set side by side: the model's layer and each
    cortical hemisphere, rows ``what · pair``, every cell naming its statistic.

    Only numbers that mean the same on both sides stand here: each side's map similarity
    under its own statistic (the sheet's SSIM, the mesh's Pearson r: every cell says which)
    and, with ``report``, the verdict of each side's own test; then the arrangement of the
    domain centres, the one number that compares the two. The smoothness and patches are
    not here: on the atlas's ROI proximity maps they are fixed by construction and have no
    null, so the cortex's values do not compare with the sheet's (the report shows them in
    a place of their own, saying why).

    Parameters
    ----------
    comparison : dict
        ``(layer, hemisphere) ->`` :func:`~toponeuro.analysis.compare_tables` table.
    layer : str
        The model layer shown.
    hemispheres : sequence of str
        The cortical hemispheres shown beside it, in this order.
    report : MapReport, optional
        The run's typed report (``MapResult.report``): names each side's statistic
        (without it, SSIM on the sheet and Pearson r on the cortex:
        :func:`~toponeuro.analysis.topography_table`'s choices) and adds each test's verdict
        and p, written by :func:`~toponeuro.analysis.format_p`. A ``summary.json`` content
        (a dict, 0.4's) is read into the report, with a FutureWarning, until 0.6.

    Returns
    -------
    pandas.DataFrame
        One column for the model's layer and one per hemisphere; rows ``what · pair``,
        each cell a number with its statistic's name (or a verdict).

    Examples
    --------
    ``res`` is the :class:`~toponeuro.reporting.MapResult` that
    :func:`~toponeuro.reporting.run_map` returns:

    >>> view = comparison_view(res.comparison, "layer4.0.conv2", ["left", "right"],
    ...                        res.report)  # doctest: +SKIP
    >>> view.columns.tolist()  # doctest: +SKIP
    ['model · layer4.0.conv2', 'cortex · left hemisphere', 'cortex · right hemisphere']
    >>> view.iloc[0].tolist()  # doctest: +SKIP
    ['SSIM -0.45', 'Pearson r +0.41', 'Pearson r +0.52']
    """
    if isinstance(report, Mapping):
        warnings.warn("comparison_view(report=<a summary dict>) is deprecated since toponeuro "
                      "0.5 and will be refused in 0.6; pass the typed report, MapResult.report "
                      "(a summary.json: MapReport.from_summary(summary)).", FutureWarning,
                      stacklevel=user_stacklevel())
        report = MapReport.from_summary(report)
    first, tested = comparison[layer, hemispheres[0]], report is not None
    model_sims = report.per_layer[layer].map_similarity_null if tested else {}
    cortex = report.cortex.hemispheres if tested else {}

    def val(t, key, col):
        return float(t.loc[key, col]) if key in t.index else np.nan

    def method(entry: SimilarityTestRecord | None, default):
        return default if entry is None else STATISTIC_NAMES.get(entry.method, default)

    def test_of(tests: dict, pair: str) -> SimilarityTestRecord | None:  # None: not tested
        return tests[pair] if pair in tests else None

    rows, index = [], []
    for pair in MAP_PAIRS:
        name = pair.replace("-", "–")
        c_entries = [test_of(cortex[h].map_similarity_null, pair) if h in cortex else None
                     for h in hemispheres]
        index.append(f"map similarity · {name}")
        rows.append([_signed(method(test_of(model_sims, pair), "SSIM"),
                             val(first, ("map_similarity", pair), "model"))]
                    + [_signed(method(e, "Pearson r"),
                               val(comparison[layer, h], ("map_similarity", pair), "cortex"))
                       for h, e in zip(hemispheres, c_entries)])
        if tested:
            index.append(f"map similarity test · {name} (two-sided, each side its own null)")
            rows.append([_test_text(test_of(model_sims, pair), "sheet maps shifted")]
                        + [_test_text(e, "spin test") for e in c_entries])
    arr = [report.arrangement[f"{layer}|{h}"]
           if tested and f"{layer}|{h}" in report.arrangement else None for h in hemispheres]

    def arr_item(h, a: ArrangementRecord | None, item):
        if a is not None:
            return getattr(a, item)
        v = val(comparison[layer, h], ("domain_arrangement", item), "model_vs_cortex")
        return None if not np.isfinite(v) else v

    index.append("arrangement · Spearman ρ of the centre distances, sheet vs cortex")
    rows.append(["see each hemisphere"]
                + [_signed("ρ", arr_item(h, a, "spearman")) for h, a in zip(hemispheres, arr)])
    index.append("arrangement · domains compared (pairs of centres)")
    counts = []
    for h, a in zip(hemispheres, arr):
        n = arr_item(h, a, "n_domains")
        counts.append("–" if n is None else f"{int(n)} ({int(n) * (int(n) - 1) // 2} pairs)")
    rows.append([f"{len(MAP_DOMAINS)} domain maps on the sheet"] + counts)
    if tested:
        index.append("arrangement · test (one-sided)")
        rows.append(["–"] + [a.p_text if a else "–" for a in arr])
    cols = [f"model · {layer}"] + [f"cortex · {h} hemisphere" for h in hemispheres]
    return pd.DataFrame(rows, index=index, columns=cols)


def percent_of(fraction, total: int, what: str = "units") -> str:
    """A fraction as a percentage with its denominator: ``"19.5 % of 256 units"``.

    Examples
    --------
    >>> percent_of(0.1953, 256), percent_of(float("nan"), 256)
    ('19.5 % of 256 units', '–')
    """
    if fraction is None or not np.isfinite(fraction):
        return "–"
    return f"{100 * float(fraction):.1f} % of {int(total):,} {what}"


def training_images_note(stimuli: MapStimuliRecord) -> str:
    """One line on the stimuli that the model was trained on ("" when none or unknown)."""
    train = stimuli.training_images
    if not train:
        return ""
    lo, hi = train["numbers"]
    where = f"recipe {train['recipe']} trained on fLoc images {lo}-{hi}"
    if not train["n_overlap"]:
        return f"held-out: none of the stimuli are training images ({where})"
    return (f"WARNING: {train['n_overlap']} of the {stimuli.n_stimuli} stimuli are training "
            f"images ({where}); these numbers are not held-out")


def arrangement_p_text(p_value: float | None, p_shift: float | None, p_spin: float | None,
                       draws: ArrangementDrawsRecord | None = None) -> str:
    """The arrangement test's one p, with the two nulls it is the larger of, each written
    by :func:`~toponeuro.analysis.format_p` (a floor as ``p < 0.001 (1,000 draws)``).

    The test (:func:`toponeuro.analysis.arrangement_comparison`) is one-sided (the sheet's
    arrangement more like the cortex's than chance) and its ``p_value`` is the larger of the
    sheet-shift and spin p: the arrangement beats chance only if it beats both. ``draws``:
    the two nulls' draws (:class:`~._kit.entries.ArrangementDrawsRecord`); without them the
    draws are unknown and the p's are written as numbers.

    Examples
    --------
    >>> draws = ArrangementDrawsRecord(shift=1000, spin=1000)
    >>> arrangement_p_text(0.31, 0.31, 0.3, draws)
    'p = 0.310 (one-sided, the larger of two nulls: sheet maps shifted p = 0.310, cortex maps spun p = 0.300)'
    >>> arrangement_p_text(1 / 1001, 1 / 1001, 1 / 1001, draws)
    'p < 0.001 (one-sided, the larger of two nulls: sheet maps shifted p < 0.001 (1,000 draws), cortex maps spun p < 0.001 (1,000 draws))'
    >>> arrangement_p_text(None, None, None)
    'not tested'
    """
    from ...analysis import format_p

    if p_value is None or not np.isfinite(p_value):
        return "not tested"
    unknown = 10**9  # draws not recorded: no floor can be written, the p's are numbers
    n_shift, n_spin = (unknown, unknown) if draws is None else (draws.shift, draws.spin)

    def one(p, k):
        return "not drawn" if p is None or not k else format_p(p, k)

    head = format_p(p_value, min([k for k in (n_shift, n_spin) if k] or [unknown]))
    head = head.split(" (")[0]
    return (f"{head} (one-sided, the larger of two nulls: sheet maps shifted "
            f"{one(p_shift, n_shift)}, cortex maps spun {one(p_spin, n_spin)})")

