"""Model vs cortex on one ruler: :func:`compare_topography` and its verdict rule.

Contract (read by the jobs; keep it stable -- extend, don't rename):

``compare_topography(model, cortex, *, descriptors=None, n_permutations=1000, alpha=0.05,
random_state=None, settings=None, model_boot=None) -> TopographyComparison``

* ``model`` / ``cortex``: one map each (any geometry :func:`as_topomap` reads; a
  :class:`TopoMap` is best), or mappings name -> map of the same domains (matched by
  name). Every descriptor of :mod:`_descriptors` is computed on both sides by the same
  function with the same :class:`RulerSettings` (lengths in units of each map's extent).
* ``model_boot``: maps recomputed from resampled stimuli (:func:`bootstrap_maps`), same
  structure as ``model``; they give the model's 95% interval of every one-map descriptor
  and of the domain similarities.
* The result, :class:`TopographyComparison`, holds one :class:`ComparisonRow` per
  descriptor (and domain): statistic, model value (interval, null p), cortex value (null p),
  ``verdict`` in :data:`VERDICTS` and its ``reason``; ``left_out`` names the descriptors a
  binary cortex map (an ROI) does not define; ``.to_frame()`` is the table.
* The verdict comes from :func:`ruler_verdict` alone (module docs of it; docs/one_ruler.rst).
* A job comparing many model layers with one cortical map: build the cortex once
  (:func:`mesh_topomap`: positions, faces, sphere, geodesic distances), describe it once
  (:func:`describe`, same ``settings`` and ``n_permutations``) and pass
  ``cortex_results=`` to every call.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..._util.constraints import MAPPING
from ..._util.docs import fill_doc
from ..._util.frozen import validate_fields
from ..._util.params import (
    ALPHA,
    N_PERMUTATIONS,
    SEED,
    InstanceOf,
    Options,
    Text,
    check_random_state,
    validate_params,
)
from ..._util.typing import RandomState
from ...exceptions import InvalidDataError, UnknownNameError, close_matches
from ._descriptors import (
    _ONE_MAP_FUNCS,
    BINARY_DESCRIPTORS,
    DESCRIPTORS,
    ONE_MAP,
    DescriptorResult,
    RulerSettings,
    _arrangement,
    _as_maps,
    _similarity,
    _with_interval,
    is_binary,
)
from ._null import can_reject

__all__ = ["VERDICTS", "TOLERANCES", "ComparisonRow", "TopographyComparison",
           "compare_topography", "ruler_verdict"]

#: the three outcomes of a comparison row
VERDICTS = ("alike", "unlike", "not testable")

#: how far apart two values may lie and still be "alike" (a region of practical equivalence,
#: on each descriptor's own extent-normalised scale), fixed before any result was seen:
#: absolute margins for bounded statistics; ``patch_count`` a quarter of the larger count,
#: at least one patch
TOLERANCES = {
    "smoothness": 0.1,  # TDANN score, in [0, 1]
    "clustering": 0.1,  # Moran's I, in [-1, 1]
    "selective_fraction": 0.05,  # area fraction, in [0, 1]
    "patch_count": ("relative", 0.25, 1.0),
    "patch_size": 0.05,  # area / extent^2, in [0, 1]
    "domain_similarity": 0.15,  # Pearson r, in [-1, 1]
    "arrangement": 0.1,  # each centre distance / extent
}

#: a descriptor measured on one side (a field of a ComparisonRow)
_DESCRIBED = InstanceOf(DescriptorResult, "a DescriptorResult",
                        example=lambda: DescriptorResult("smoothness", "slope", 0.5))



@dataclass(frozen=True)
@validate_fields({
    "descriptor": Text(), "domain": Text(empty=True), "statistic": Text(),
    "model": _DESCRIBED, "cortex": _DESCRIBED, "verdict": Options(VERDICTS),
    "reason": Text(empty=True)})
class ComparisonRow:
    """One descriptor (of one domain or pair) measured on both sides, with its verdict.

    Parameters
    ----------
    descriptor : str
        A name of :data:`DESCRIPTORS`.
    domain : str
        The domain (map name) or pair of domains the row describes ("" for single maps).
    statistic : str
        The statistic's name ("Moran's I", ...).
    model : DescriptorResult
        The descriptor on the model's map.
    cortex : DescriptorResult
        The descriptor on the cortex's map.
    verdict : str
        One of :data:`VERDICTS`.
    reason : str
        Why, in words (from :func:`ruler_verdict`).

    Examples
    --------
    >>> res = compare_topography(np.eye(8) * 3, np.eye(8) * 3,
    ...                          descriptors=["selective_fraction"], n_permutations=0)
    >>> row = res.rows[0]
    >>> row.descriptor, row.model.value, row.verdict
    ('selective_fraction', 0.125, 'alike')
    """

    descriptor: str
    domain: str
    statistic: str
    model: DescriptorResult
    cortex: DescriptorResult
    verdict: str
    reason: str


@dataclass(frozen=True)
@validate_fields({
    "rows": InstanceOf(tuple, "a tuple of ComparisonRow", example=()), "alpha": ALPHA,
    "n_permutations": N_PERMUTATIONS, "left_out": MAPPING,
    "settings": InstanceOf(RulerSettings, "a RulerSettings", example=RulerSettings),
    "model_geometry": Text(empty=True), "cortex_geometry": Text(empty=True)})
class TopographyComparison:
    """Model vs cortex, one row per descriptor (from :func:`compare_topography`).

    Parameters
    ----------
    rows : tuple of ComparisonRow
        One row per descriptor and domain (or pair), in :data:`DESCRIPTORS` order.
    alpha : float
        The significance level of every null verdict.
    n_permutations : int
        Null draws on each side.
    left_out : dict
        Descriptor -> why it was not computed (a binary cortex map, too few domains).
    settings : RulerSettings
        The descriptors' parameters, the same on both sides.
    model_geometry : str
        The model map's geometry (``"sheet"``, ``"free"`` or ``"mesh"``).
    cortex_geometry : str
        The cortex map's geometry.

    Examples
    --------
    >>> rr, cc = np.mgrid[:20, :20]
    >>> blob = 4 * np.exp(-((rr - 8) ** 2 + (cc - 12) ** 2) / 18.0)
    >>> res = compare_topography(blob, blob, descriptors=["smoothness"], n_permutations=99,
    ...                          random_state=0)
    >>> res.rows[0].verdict, list(res.to_frame().columns[:3])
    ('alike', ['descriptor', 'domain', 'statistic'])
    """

    rows: tuple
    alpha: float
    n_permutations: int
    left_out: dict = field(default_factory=dict)
    settings: RulerSettings = field(default_factory=RulerSettings)
    model_geometry: str = ""
    cortex_geometry: str = ""

    @property
    def verdicts(self) -> dict:
        """``{(descriptor, domain): verdict}``."""
        return {(r.descriptor, r.domain): r.verdict for r in self.rows}

    def counts(self) -> dict:
        """How many rows came out each way: ``{"alike": k, "unlike": m, "not testable": j}``.

        Returns
        -------
        dict
            Verdict -> number of rows.
        """
        return {v: sum(r.verdict == v for r in self.rows) for v in VERDICTS}

    def to_dict(self) -> dict:
        """JSON-ready: ``alpha``, ``n_permutations``, geometries, ``left_out``, the verdict
        ``counts`` and one dict per row (the model's and the cortex's numbers side by side).

        Returns
        -------
        dict
            JSON-ready fields.

        Examples
        --------
        >>> res = compare_topography(np.eye(8) * 3, np.eye(8) * 3,
        ...                          descriptors=["selective_fraction"], n_permutations=0)
        >>> d = res.to_dict()
        >>> d["counts"], d["rows"][0]["verdict"], d["rows"][0]["model"]["value"]
        ({'alike': 1, 'unlike': 0, 'not testable': 0}, 'alike', 0.125)
        """
        return {
            "alpha": self.alpha, "n_permutations": self.n_permutations,
            "model_geometry": self.model_geometry, "cortex_geometry": self.cortex_geometry,
            "left_out": dict(self.left_out), "counts": self.counts(),
            "rows": [{"descriptor": r.descriptor, "domain": r.domain,
                      "statistic": r.statistic, "verdict": r.verdict, "reason": r.reason,
                      "model": r.model.to_dict(), "cortex": r.cortex.to_dict()}
                     for r in self.rows],
        }

    def to_frame(self) -> pd.DataFrame:
        """One row per descriptor: model and cortex value, interval, p, draws, verdict.

        Returns
        -------
        pandas.DataFrame
            One row per descriptor.
        """
        recs = []
        for r in self.rows:
            m, c = r.model, r.cortex
            lo, hi = m.interval if m.interval is not None else (np.nan, np.nan)
            recs.append({
                "descriptor": r.descriptor, "domain": r.domain, "statistic": r.statistic,
                "model": m.value, "model_lo": lo, "model_hi": hi, "model_p": m.p_value,
                "model_null": m.null, "model_draws": m.n_permutations,
                "cortex": c.value, "cortex_p": c.p_value, "cortex_null": c.null,
                "cortex_draws": c.n_permutations, "verdict": r.verdict, "reason": r.reason,
                "reference": m.reference,
            })
        return pd.DataFrame(recs)


def _tolerance(descriptor: str, m: np.ndarray, c: np.ndarray) -> np.ndarray:
    tol = TOLERANCES[descriptor]
    if isinstance(tol, tuple):  # ("relative", fraction, floor)
        return np.maximum(tol[2], tol[1] * np.maximum(np.abs(m), np.abs(c)))
    return np.full(np.shape(m), float(tol))


def _side(res: DescriptorResult, alpha: float) -> tuple[bool, int]:
    """``(has a null, its verdict)``: -1 significantly below the null, +1 above, 0 neither."""
    if res.n_permutations == 0 or res.null == "none" or not np.isfinite(res.p_value):
        return False, 0
    if res.p_value > alpha:
        return True, 0
    if res.alternative == "two-sided":
        centre = res.detail.get("null_mean", np.nan)
        if not np.isfinite(centre):
            centre = 0.0
        return True, 1 if res.value >= centre else -1
    return True, 1 if res.alternative == "greater" else -1


@validate_params({"alpha": ALPHA})
@fill_doc
def ruler_verdict(model: DescriptorResult, cortex: DescriptorResult, *,
                  alpha: float = 0.05) -> tuple[str, str]:
    """The one rule: is the model's descriptor like the cortex's? ``(verdict, reason)``.

    1. **not testable** when either value is undefined (NaN); when one side has a null for
       the descriptor and the other none (their null verdicts cannot be compared); or when
       either side's draws cannot reach ``alpha`` (:func:`can_reject`).
    2. **unlike** when both sides have a null and their verdicts differ (significant on one
       side only, or in opposite directions): one map is organised in this respect, the
       other is not.
    3. Otherwise the descriptor's tolerance (:data:`TOLERANCES`, on the extent-normalised
       scale) sets a band of practical equivalence around the cortex's value, as in
       equivalence testing (two one-sided tests: Schuirmann 1987; a region of practical
       equivalence: Kruschke 2018). With the model's bootstrap interval over stimuli:
       **alike** when the whole interval lies inside the band, **unlike** when it lies wholly
       outside, **not testable** when it straddles an edge (the stimuli do not pin the
       model's value down enough to say either; a wide interval never makes "alike").
       Without an interval, the model's value decides: inside the band **alike**, outside
       **unlike**. A vector (the arrangement's centre distances) is alike when every
       component is, unlike when any is.

    The rule reads only the numbers of the two results; the tolerances were fixed before
    any comparison was run and are not tuned to results.

    Parameters
    ----------
    model : DescriptorResult
        The descriptor on the model's map (its ``interval``, if any, widens the range).
    cortex : DescriptorResult
        The same descriptor on the cortex's map.
    %(alpha)s

    Returns
    -------
    verdict : str
        ``"alike"``, ``"unlike"`` or ``"not testable"`` (:data:`VERDICTS`).
    reason : str
        Why, in words.

    Examples
    --------
    >>> a = DescriptorResult("clustering", "Moran's I", 0.80, 0.001, 999, "positions")
    >>> b = DescriptorResult("clustering", "Moran's I", 0.85, 0.001, 999, "positions")
    >>> ruler_verdict(a, b)[0], ruler_verdict(a, b.__class__("clustering", "I", 0.02, 0.4,
    ...                                                       999, "positions"))[0]
    ('alike', 'unlike')
    """
    name = model.descriptor
    if name not in TOLERANCES:
        raise UnknownNameError(f"No tolerance for {name!r}; {close_matches(name, TOLERANCES)}")
    if not (np.isfinite(model.value) and np.isfinite(cortex.value)):
        side = "model" if not np.isfinite(model.value) else "cortex"
        why = (model if side == "model" else cortex).detail.get("undefined", "")
        return "not testable", f"undefined on the {side} side{': ' + why if why else ''}"
    has_m, v_m = _side(model, alpha)
    has_c, v_c = _side(cortex, alpha)
    if has_m != has_c:
        side = "model" if not has_m else "cortex"
        return "not testable", f"no null on the {side} side, so the null verdicts cannot be compared"
    if has_m:
        for side, res in (("model", model), ("cortex", cortex)):
            if not can_reject(res.n_permutations, alpha, res.alternative):
                return "not testable", (f"{res.n_permutations} draws on the {side} side cannot "
                                        f"reach alpha = {alpha:g} ({res.alternative})")
        if v_m != v_c:
            words = {1: "above its null", -1: "below its null", 0: "not different from its null"}
            return "unlike", f"model {words[v_m]}, cortex {words[v_c]}"
    if name == "arrangement":
        m = np.asarray(model.detail.get("distances", []), float)
        c = np.asarray(cortex.detail.get("distances", []), float)
        if m.shape != c.shape or not m.size:
            return "not testable", "the two sides do not have the same domain pairs"
        lo = hi = m
    else:
        m, c = np.asarray([model.value]), np.asarray([cortex.value])
        lo, hi = ((np.asarray([model.interval[0]]), np.asarray([model.interval[1]]))
                  if model.interval is not None else (m, m))
    tol = _tolerance(name, m, c)
    span = "95% interval over stimuli" if model.interval is not None else "value"
    within = (lo >= c - tol) & (hi <= c + tol)  # the model's range inside the band
    apart = (hi < c - tol) | (lo > c + tol)  # wholly outside it
    if within.all():
        return "alike", (f"the model's {span} lies within the cortex's value "
                         f"+/- tolerance {float(tol.max()):.3g}")
    if apart.any():
        gap = float(np.max(np.maximum(lo - (c + tol), (c - tol) - hi)))
        return "unlike", (f"the model's {span} lies {gap:.3g} outside the cortex's value "
                          f"+/- tolerance {float(tol.max()):.3g}")
    return "not testable", (f"the model's {span} straddles the edge of the cortex's value "
                            f"+/- tolerance {float(tol.max()):.3g}: neither within nor apart "
                            "(more stimuli would narrow it)")


def _pair_maps(model, cortex):
    mm, cm = _as_maps(model), _as_maps(cortex)
    if isinstance(model, Mapping) != isinstance(cortex, Mapping):
        raise InvalidDataError(
            "Give model and cortex alike: one map each, or a mapping of named domain maps each."
        )
    if isinstance(model, Mapping):
        common = [k for k in mm if k in cm]
        if not common:
            raise UnknownNameError(
                f"The model's domains {list(mm)} and the cortex's {list(cm)} share no name; "
                "name the same domains on both sides."
            )
        mm, cm = {k: mm[k] for k in common}, {k: cm[k] for k in common}
    else:
        mm, cm = {"": next(iter(mm.values()))}, {"": next(iter(cm.values()))}
    return mm, cm


def _cached_cortex(name, dom, maps, s, n_permutations, rng, compute) -> DescriptorResult:
    """The cortex side's ``compute()`` of one descriptor, kept on disk inside
    :func:`~toponeuro._io.null_cache.use_null_cache` (the jobs' ruler stages enter it): keyed
    by the cortex maps' content (values, mesh, faces, sphere), the descriptor, domain,
    settings, draws and the generator's state before the step; the state after is restored
    on a read, so every later draw is the same as computing it. A second run of a job
    computes none of the cortex's descriptors and nulls (no geodesic search on the mesh)."""
    from dataclasses import asdict

    from ..._io import null_cache

    group = list(maps.values()) if isinstance(maps, Mapping) else list(maps)
    digests = [null_cache.mesh_digest(tm) for tm in group]
    parts = None if None in digests else {
        "descriptor": name, "domain": dom, "maps": digests,
        "names": list(maps) if isinstance(maps, Mapping) else [],
        "settings": null_cache.jsonable(asdict(s)), "n_permutations": int(n_permutations)}
    return _result_of(null_cache.cached_with_rng(
        "ruler-cortex", parts, rng, lambda: asdict(compute())))


def _result_of(d: dict) -> DescriptorResult:
    """A :class:`DescriptorResult` from its JSON form (``interval`` a tuple again)."""
    d = dict(d)
    if d.get("interval") is not None:
        d["interval"] = tuple(d["interval"])
    return DescriptorResult(**d)


def _boot_values(boots, descriptor, s, domain, pair=None, *, rng):
    """The descriptor's value on each bootstrap map (no null; ``rng`` for what it samples,
    e.g. smoothness's point pairs on a large sheet, so that the interval is seeded too)."""
    vals = []
    for b in boots:
        if pair is not None:
            vals.append(_similarity(b[pair[0]], b[pair[1]], s, 0, rng).value)
        else:
            vals.append(_ONE_MAP_FUNCS[descriptor](b[domain], s, 0, rng).value)
    return vals


@validate_params({"n_permutations": N_PERMUTATIONS, "alpha": ALPHA, "random_state": SEED})
@fill_doc
def compare_topography(
    model,
    cortex,
    *,
    descriptors: Sequence[str] | None = None,
    n_permutations: int = 1000,
    alpha: float = 0.05,
    random_state: RandomState = None,
    settings: RulerSettings | None = None,
    model_boot: Sequence | None = None,
    cortex_results: Sequence[DescriptorResult] | None = None,
    model_results: Sequence[DescriptorResult] | None = None,
) -> TopographyComparison:
    """Compare a model's topography with the cortex's, descriptor by descriptor.

    Parameters
    ----------
    model, cortex : map or mapping name -> map
        One map each (a :class:`TopoMap` of any geometry, or what :func:`as_topomap` reads),
        or named domain maps each (matched by name).
    descriptors : sequence of str, optional
        Names of :data:`DESCRIPTORS`; default all (those a binary cortex map does not
        define are left out and named in ``left_out``).
    %(n_permutations)s
        Drawn on each side.
    %(alpha)s
    %(random_state)s
    settings : RulerSettings, optional
        The descriptors' parameters (extent units), the same on both sides.
    model_boot : sequence, optional
        Model maps recomputed from resampled stimuli (:func:`bootstrap_maps`), structured
        like ``model``: the model's 95%% intervals.
    cortex_results : sequence of DescriptorResult, optional
        The cortex's descriptors computed once (:func:`describe` of ``cortex`` with the same
        ``settings``), reused instead of recomputed -- for many model layers against one
        cortex. Matched by descriptor and domain; those missing are computed.
    model_results : sequence of DescriptorResult, optional
        The model's side of an earlier comparison of the same model maps with the same
        ``descriptors``, ``n_permutations``, integer ``random_state``, ``settings`` and
        ``model_boot`` (``[row.model for row in earlier.rows]``), reused instead of
        recomputed -- for one model against several cortices (the two hemispheres). Used
        only when it holds exactly the descriptors and domains this comparison measures, in
        its order (the same draws, then); otherwise every model descriptor is computed.

    Returns
    -------
    TopographyComparison
        One row per descriptor with both sides' values, nulls and the verdict.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> from scipy.ndimage import gaussian_filter
    >>> cortex = gaussian_filter(rng.standard_normal((24, 24)), 3)
    >>> shuffled = rng.permutation(cortex.ravel()).reshape(24, 24)
    >>> res = compare_topography(shuffled, cortex, descriptors=["clustering"],
    ...                          n_permutations=199, random_state=0)
    >>> res.rows[0].verdict
    'unlike'
    """
    s = settings or RulerSettings()
    if not isinstance(s, RulerSettings):
        raise InvalidDataError(f"settings must be a RulerSettings; got {type(s).__name__}.")
    # Each side draws from its own stream, and the model's bootstrap from a third, all
    # spawned from ``random_state``: the cortex's draws do not depend on the model (how many
    # draws it took, which layer came first), so they are the same -- and read from the
    # null cache -- for every model compared with the same cortex and seed.
    rng, cortex_rng, boot_rng = check_random_state(random_state).spawn(3)
    names = list(DESCRIPTORS if descriptors is None else descriptors)
    for n in names:
        if n not in DESCRIPTORS:
            raise UnknownNameError(f"Unknown descriptor {n!r}; {close_matches(n, DESCRIPTORS)}")
    mm, cm = _pair_maps(model, cortex)
    boots = None
    if model_boot is not None:
        boots = [_pair_maps(b, cortex)[0] if isinstance(b, Mapping) == isinstance(model, Mapping)
                 else None for b in model_boot]
        if any(b is None for b in boots):
            raise InvalidDataError("model_boot maps must be structured like model.")
    left_out = {}
    if any(is_binary(tm) for tm in cm.values()):
        for n in names:
            if n not in BINARY_DESCRIPTORS:
                left_out[n] = ("the cortex map is binary (an ROI): its smoothness measures how "
                               "the border was drawn, not a graded map")
        names = [n for n in names if n in BINARY_DESCRIPTORS]
    keys = list(mm)
    if "domain_similarity" in names and len(keys) < 2:
        left_out["domain_similarity"] = "needs two or more domains"
    if "arrangement" in names and len(keys) < 3:
        left_out["arrangement"] = "needs three or more domains"
    rows = []
    done = {(r.descriptor, r.domain): r for r in (cortex_results or ())}

    def cortex_side(name, dom, maps, func, *args):
        if (name, dom) in done:
            return done[name, dom]
        return _cached_cortex(name, dom, maps, s, n_permutations, cortex_rng,
                              lambda: func(*args))

    def add(name, domain, m, c):
        verdict, reason = ruler_verdict(m, c, alpha=alpha)
        rows.append(ComparisonRow(name, domain, m.statistic, m, c, verdict, reason))

    # (descriptor, domain, its function's maps on each side, the cortex's maps as the null
    # cache keys them, the bootstrap's domain and pair), in the order the model's stream
    # draws them
    plan = []
    for name in names:
        if name in ONE_MAP:
            plan += [(name, dom, (mm[dom],), (cm[dom],), [cm[dom]], (dom, None))
                     for dom in keys]
        elif name == "domain_similarity" and len(keys) >= 2:
            plan += [(name, f"{a}-{b}", (mm[a], mm[b]), (cm[a], cm[b]), [cm[a], cm[b]],
                      (None, (a, b))) for i, a in enumerate(keys) for b in keys[i + 1:]]
        elif name == "arrangement" and len(keys) >= 3:
            plan.append((name, "+".join(keys), (mm,), (cm,), cm, None))
    reuse = model_results is not None and [
        (r.descriptor, r.domain) for r in model_results] == [p[:2] for p in plan]
    for k, (name, dom, margs, cargs, keyed, boot) in enumerate(plan):
        func = (_ONE_MAP_FUNCS[name] if name in ONE_MAP else
                _similarity if name == "domain_similarity" else _arrangement)
        tail = () if name == "arrangement" else (dom,)
        # each side draws from its own stream (the model's, the cortex's, the bootstrap's)
        if reuse:
            m = model_results[k]
        else:
            m = func(*margs, s, n_permutations, rng, *tail)
            if boots and boot is not None:
                m = _with_interval(m, _boot_values(boots, name, s, *boot, rng=boot_rng))
        add(name, dom, m, cortex_side(name, dom, keyed, func, *cargs, s, n_permutations,
                                      cortex_rng, *tail))
    first_m, first_c = next(iter(mm.values())), next(iter(cm.values()))
    return TopographyComparison(rows=tuple(rows), alpha=float(alpha),
                                n_permutations=n_permutations, left_out=left_out, settings=s,
                                model_geometry=first_m.geometry,
                                cortex_geometry=first_c.geometry)
