"""The main job's numbers, assembled once into tables, ``summary.json`` and ``results.nc``.

Nothing here computes a statistic: every value comes from the
:class:`~toponeuro.analysis.TopographyTable` of the model and of the cortex (and the
comparisons built from them), so the tables, figures and files all show the same numbers.
"""

from __future__ import annotations

import datetime as _dt
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import xarray as xr

from ..._util import dims as D
from ..._util.constraints import MAPPING, Names
from ..._util.params import InstanceOf, Text, validate_params
from ..._util.stack import user_stacklevel
from ..._version import __version__
from .._kit.constants import CORTEX_DOMAINS, MAP_DOMAINS
from .._kit.report import (
    ArrangementDrawsRecord,
    ArrangementRecord,
    CortexReport,
    CortexSourceRecord,
    MapHeadlineRecord,
    MapHemisphereRecord,
    MapLayerRecord,
    MapReport,
    MapStimuliRecord,
    PatchCentroidsRecord,
    SimilarityTestRecord,
    SmoothnessNullRecord,
)
from .._kit.report import jsonable as _jsonable
from .._kit.report import num as _num

__all__ = ["ReportData", "MapInputs", "assemble", "result_tables", "map_summary",
           "run_description", "layer_summary", "cortex_summary", "arrangement_summary",
           "headline_summary", "comparison_view", "cortex_description",
           "arrangement_p_text", "percent_of", "STATISTIC_NAMES", "headline_parts"]

_PAIRS = ("faces-bodies", "faces-places")


@dataclass
class ReportData:
    """Everything the report writer needs: the typed report, the tables and the topography
    results (internal; what :func:`~toponeuro.run_map` returns is a :class:`MapResult`)."""

    #: the run's :class:`~._kit.report.MapReport` (``summary.json`` is its ``to_summary()``)
    report: MapReport
    tables: dict
    dataset: xr.Dataset
    comparison: dict
    model_topo: object
    cortex_topo: object
    selectivity: xr.DataArray
    sheet_shapes: dict = field(default_factory=dict)
    #: ``(layer, hemisphere) ->`` :class:`~toponeuro.analysis.TopographyComparison`: every
    #: descriptor on both sides (the one ruler; the headline's source)
    ruler: dict = field(default_factory=dict)

    @property
    def summary(self) -> dict:
        """The content of ``summary.json`` (:meth:`MapReport.to_summary`)."""
        return self.report.to_summary()


def _model_table(model_topo, layers) -> pd.DataFrame:
    t = model_topo.table.rename(columns={"sheet": "layer", "name": "domain", "shape": "sheet",
                                         "max_value": "max_t"})
    return t[t["layer"].isin(layers)].reset_index(drop=True)


def _numbers(stim):
    if "number" not in stim.metadata:
        return "all"
    n = pd.to_numeric(stim.metadata["number"], errors="coerce").dropna()
    return [int(n.min()), int(n.max())] if len(n) else "all"


#: why the random-initialisation value stands beside each trained similarity
BASELINE_NOTE = (
    "the selectivity contrast (each domain against the other four) builds in an "
    "anti-correlation between any two domains' maps (about -0.25 for units whose category "
    "responses are unrelated), with or without training; the same network at random "
    "initialisation, measured the same way, shows how much of a similarity that alone gives"
)

#: what the report says when ``run_map(random_init_baseline=False)`` skipped the baseline
NO_BASELINE_NOTE = (
    "not computed (random_init_baseline=False; --no-random-init on the command line): the "
    "selectivity contrast (each domain against the other four) builds in an "
    "anti-correlation between any two domains' maps, with or without training, and without "
    "the same network measured at random initialisation nothing here tells how much of a "
    "similarity that alone gives"
)


def _pair_signature(topo, layer, pair, alpha, baseline: dict | None = None) -> dict | None:
    """One overlap test in plain words: :func:`~toponeuro.analysis.overlap_verdict`."""
    from ...analysis import overlap_verdict

    res = topo.similarities.get((layer, pair))
    if res is None:
        return None
    a, b = pair.split("-")
    v = overlap_verdict(res, alpha=alpha)
    text = v.sentence(a, b, "on this sheet")
    base = None if baseline is None else baseline.get((layer, pair))
    if baseline is None:  # skipped (random_init_baseline=False): said, not silently omitted
        text += "; at random initialisation: not computed"
    out = {"signature": pair, "significant": v.outcome in ("share territory", "avoid each other"),
           "outcome": v.outcome, "statistic": res.statistic, "null_mean": res.null_mean,
           "null_std": res.null_std, "p_value": v.p_value, "p_text": v.p_text,
           "alternative": v.alternative}
    if base is not None:
        v0 = overlap_verdict(base, alpha=alpha)
        detail = (v0.p_text if v0.p_text.startswith(v0.outcome)
                  else f"{v0.outcome}, {v0.p_text}")
        text += f"; at random initialisation {v0.statistic:.2f} ({detail})"
        if v0.outcome == v.outcome and out["significant"]:
            text += (" -- the same outcome as the untrained network, so the selectivity "
                     "contrast, not training, may produce it")
        out.update(random_init_statistic=v0.statistic, random_init_outcome=v0.outcome,
                   random_init_p_value=v0.p_value)
    out["text"] = text
    return out


def _signatures(topo, layer: str, alpha: float, baseline: dict | None = None,
                contrast: dict | None = None) -> list[dict]:
    """Each topographic signature of one sheet in plain words, with its null (smoothness: the
    positions null, "organised on the sheet", then the label null, "selective")."""
    from ...analysis import can_reject, format_p, organisation_claim, too_few_draws_text

    out = [x for pair in _PAIRS
           if (x := _pair_signature(topo, layer, pair, alpha, baseline)) is not None]
    n_perm = int(topo.attrs.get("n_permutations", 0))
    for d in MAP_DOMAINS:
        r = topo.row(layer, d)
        c = organisation_claim(topo.smoothness_null(layer, d), alpha, what=f"the {d} map")
        out.append({"signature": f"smoothness {d}", "significant": c.significant,
                    "statistic": c.statistic, "null_mean": c.null_mean,
                    "null_std": c.null_std, "p_value": c.p_value,
                    "p_text": format_p(c.p_value, c.n_permutations, "one-sided"),
                    "alternative": "greater", "null": "positions", "outcome": c.outcome,
                    "text": c.text})
        if contrast and (layer, d) in contrast:
            c = contrast[layer, d].selective
            out.append({"signature": f"selective smoothness {d}", "significant": c.significant,
                        "statistic": c.statistic, "null_mean": c.null_mean,
                        "null_std": c.null_std, "p_value": c.p_value, "alternative": "greater",
                        "null": "labels", "outcome": c.outcome, "text": c.text})
        pt = topo.patches[layer, d]
        n_sig, n_all = r["n_significant_patches"], int(r["n_patches"])
        if np.isfinite(n_sig) and not can_reject(n_perm, alpha):
            text = (f"{d}: {n_all} patch{'es' if n_all != 1 else ''} found, "
                    f"{too_few_draws_text(n_perm, alpha)} (family-wise, against its values "
                    "scattered at random)")
        elif np.isfinite(n_sig):
            best = (f"; the largest has {int(pt.table['n_units'].iloc[0])} units, "
                    f"{format_p(float(pt.table['p_value'].iloc[0]), n_perm, 'family-wise')}"
                    if pt.n_patches else "")
            text = (f"{d}: {int(n_sig)} significant patch{'es' if n_sig != 1 else ''} "
                    f"(of {n_all} found, family-wise p ≤ {alpha:g} against its values "
                    f"scattered at random){best}")
        else:
            text = f"{d}: {n_all} patches (no null drawn)"
        out.append({"signature": f"patches {d}", "significant": bool(n_sig > 0),
                    "statistic": n_sig, "null_mean": np.nan, "null_std": np.nan,
                    "p_value": float(pt.table["p_value"].min()) if pt.n_patches else np.nan,
                    "text": text})
        if contrast and (layer, d, "patch_units") in contrast:
            c = contrast[layer, d, "patch_units"].selective
            out.append({"signature": f"selective patches {d}", "significant": c.significant,
                        "statistic": c.statistic, "null_mean": c.null_mean,
                        "null_std": c.null_std, "p_value": c.p_value, "alternative": "greater",
                        "null": "labels", "outcome": c.outcome, "text": c.text})
    return out


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
    'your own maps (faces, bodies) on fsaverage5, left hemisphere only, surface maps; bodies: their values as they are (NaN: no data); faces: the regions mFus-faces of a label file, 1 inside and 0 elsewhere'
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
        return (f"your own maps ({', '.join(files)}) on {src.on_mesh}"
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


@dataclass(frozen=True)
class MapInputs:
    """What one ``toponeuro map`` run was given: the model, the stimuli and the settings
    (the "what was run" of its summary; see :func:`assemble`)."""

    #: the model's :class:`~toponeuro.models.ModelCard`
    card: object
    #: where the weights came from, in words
    model_desc: str
    #: the :class:`~toponeuro.stimuli.StimulusSet` shown to the model
    stimuli: object
    #: where the stimuli came from, in words
    stimuli_source: str
    #: the mapped layers, in network order (the last is the headline layer)
    layers: tuple
    #: the significance level of the verdicts (``null.alpha``)
    alpha: float = 0.05
    #: :func:`~toponeuro.reporting.training_images`'s record (None: unknown)
    training_images: dict | None = None


def assemble(inputs: MapInputs, acts, model, cortex, comparison: dict,
             random_init: dict | None = None, ruler: dict | None = None,
             settings: dict | None = None) -> ReportData:
    """Tables, summary and dataset of one ``toponeuro map`` run (see :func:`run_map`).

    ``model`` and ``cortex`` are the :class:`~toponeuro.reporting.ModelTopography` and
    :class:`~toponeuro.reporting.CortexTopography` stages' results, ``comparison`` that of
    :func:`~toponeuro.reporting.compare_model_cortex`. ``random_init``: ``(layer, pair)`` ->
    the map similarity of the model at random initialisation
    (:func:`~toponeuro.reporting.random_init_similarities`), shown beside the trained one
    (see ``BASELINE_NOTE``). ``ruler``: ``(layer, hemisphere) ->`` the one-ruler comparison
    (:func:`~toponeuro.reporting.ruler_comparisons`), whose rows make ``tables["ruler"]``
    and ``summary["ruler"]`` (with the headline its fixed rule chose). ``settings``: the
    run's settings objects as :func:`toponeuro.settings.settings_record` records them, kept
    whole as ``summary["settings"]``.
    """
    from .ruler import ruler_summary, ruler_table

    layers = list(inputs.layers)
    ruler = ruler or {}
    tables = result_tables(model.topography, cortex.topography, comparison, layers)
    tables["ruler"] = ruler_table(ruler)
    report = map_summary(inputs, acts, model, cortex.topography, cortex_source(cortex.maps),
                         comparison, random_init)
    report.ruler = ruler_summary(ruler, layers, inputs.alpha)
    report.settings = settings
    shapes = {ly: acts.topo.sheet_shape(ly) for ly in layers}
    return ReportData(report=report, tables=tables,
                     dataset=_dataset(acts, model.selectivity, tables["model"],
                                      model.topography, model.dimensionality, layers),
                     comparison=comparison, model_topo=model.topography,
                     cortex_topo=cortex.topography, selectivity=model.selectivity,
                     sheet_shapes=shapes, ruler=ruler)


def cortex_source(maps: dict) -> dict:
    """What the cortex maps were made from (:attr:`~toponeuro.atlases.CortexMaps.source` of
    the first hemisphere's; ``{}`` without maps)."""
    return next(iter(maps.values())).source if maps else {}


def result_tables(model_topo, cortex_topo, comparison: dict, layers) -> dict:
    """The report's four tables: the model's topography (``layers`` only), its map
    similarities, the cortex's topography and every (layer, hemisphere) comparison."""
    comp_rows = []
    for (layer, h), t in comparison.items():
        t = t.reset_index()
        t.insert(0, "hemisphere", h)
        t.insert(0, "layer", layer)
        comp_rows.append(t)
    return {"model": _model_table(model_topo, layers),
            "similarity": model_topo.similarity.rename(columns={"sheet": "layer"}),
            "cortex": cortex_topo.table.rename(columns={"sheet": "hemisphere", "name": "domain"}),
            "comparison": pd.concat(comp_rows, ignore_index=True)}


def map_summary(inputs: MapInputs, acts, model, cortex_topo, source: dict, comparison: dict,
                random_init: dict | None = None) -> MapReport:
    """The typed report of one run (``summary.json`` is its ``to_summary()``): what was
    run, then each layer, the cortex, the arrangement of every (layer, hemisphere) and the
    headline."""
    layers = list(inputs.layers)
    draws = {"shift": int(model.topography.attrs.get("n_permutations", 0)),
             "spin": int(cortex_topo.attrs.get("similarity_permutations", 0))}
    arrangement = {f"{layer}|{h}": arrangement_summary(t, draws)
                   for (layer, h), t in comparison.items()}
    return MapReport(
        **run_description(inputs, acts, model, baseline=random_init is not None),
        per_layer={layer: layer_summary(model.topography, layer, model.dimensionality[layer],
                                        inputs.alpha, random_init,
                                        getattr(model, "contrast", None))
                   for layer in layers},
        cortex=cortex_summary(cortex_topo, source, inputs.alpha),
        arrangement=arrangement,
        headline=headline_summary(layers[-1], cortex_topo.sheets, arrangement),
    )


def run_description(inputs: MapInputs, acts, model, *, baseline: bool = False) -> dict:
    """The summary's "what was run": version, time, model, stimuli, layers and settings."""
    card, stim, sel = inputs.card, inputs.stimuli, model.selectivity
    return {
        "toponeuro_version": __version__,
        "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "model": {
            "name": card.name,
            "source": inputs.model_desc,
            "tau": card.tau,
            "description": card.description,
            "weights_sha256": str(acts.attrs.get(D.ATTR_WEIGHTS_SHA256, "")),
        },
        "stimuli": {
            "set": "fLoc (Stigliani et al., 2015)",
            "source": inputs.stimuli_source,
            "n_stimuli": len(stim),
            "categories": list(dict.fromkeys(np.asarray(stim.categories, str).tolist())),
            "numbers": _numbers(stim),
            "training_images": inputs.training_images,
        },
        "layers": list(inputs.layers),
        "pooling": "mean over feature-map positions (one unit per channel)",
        "selectivity": str(sel.attrs.get("method", "t, each domain vs the other four domains")),
        "p_values": ("map similarity: two-sided (more or less alike than chance; verdict "
                     "'share territory' / 'avoid each other' at p <= alpha, else 'no evidence "
                     "either way'; no null: 'not tested'); smoothness and patches: one-sided "
                     "(more organised than chance); smoothness_null: positions null (is the "
                     "map organised on the sheet?); smoothness_label_null and patches_label_null: "
                     "label null (is the domain's map smoother, or are more units in its patches, "
                     "than for random splits of the images on this sheet? the "
                     "selective-topography claims; one-sided)"),
        "random_init_baseline": baseline,
        "random_init_note": BASELINE_NOTE if baseline else NO_BASELINE_NOTE,
        "definitions": _jsonable(model.topography.attrs["definitions"]),
    }


def layer_summary(model_topo, layer: str, dimensionality: float, alpha: float = 0.05,
                  random_init: dict | None = None,
                  contrast: dict | None = None) -> MapLayerRecord:
    """One layer's record (:class:`~._kit.report.MapLayerRecord`): each domain's smoothness
    (with its null), patches, selective fraction, the map similarities with their tests, the
    dimensionality and the sentences."""
    t = _model_table(model_topo, [layer]).set_index("domain")
    sim = model_topo.similarity
    out = {
        "sheet": t["sheet"].iloc[0],
        "smoothness": {d: round(float(t.loc[d, "smoothness"]), 4) for d in MAP_DOMAINS},
        "smoothness_null": {d: SmoothnessNullRecord(mean=_num(t.loc[d, "smoothness_null_mean"]),
                                                    std=_num(t.loc[d, "smoothness_null_std"]),
                                                    p_value=_num(t.loc[d, "smoothness_p"]))
                            for d in MAP_DOMAINS},
        "n_patches": {d: int(t.loc[d, "n_significant_patches"])
                      if np.isfinite(t.loc[d, "n_significant_patches"])
                      else int(t.loc[d, "n_patches"]) for d in MAP_DOMAINS},
        "n_patches_found": {d: int(t.loc[d, "n_patches"]) for d in MAP_DOMAINS},
        "selective_fraction": {d: round(float(t.loc[d, "selective_fraction"]), 4)
                               for d in MAP_DOMAINS},
        "map_similarity": {p: round(model_topo.similarity_of(layer, p), 4) for p in _PAIRS},
        "map_similarity_null": {
            r.pair: _similarity_entry(model_topo.similarities[layer, r.pair], alpha)
            for r in sim[sim.sheet == layer].itertuples()},
        "effective_dimensionality": round(float(dimensionality), 3),
        "signatures": [x["text"] for x in _signatures(model_topo, layer, alpha, random_init,
                                                      contrast)],
    }
    if contrast:  # both p-values of each map's smoothness and patch count, by their null
        out["smoothness_label_null"] = {
            d: contrast[layer, d].to_dict() for d in MAP_DOMAINS if (layer, d) in contrast}
        patches = {d: contrast[layer, d, "patch_units"].to_dict() for d in MAP_DOMAINS
                   if (layer, d, "patch_units") in contrast}
        if patches:
            out["patches_label_null"] = patches
    if random_init is not None:
        out["map_similarity_random_init"] = {
            p: _similarity_entry(random_init[layer, p], alpha)
            for p in _PAIRS if (layer, p) in random_init}
    return MapLayerRecord(**out)


def cortex_summary(cortex_topo, source: dict | None, alpha: float = 0.05) -> CortexReport:
    """The report's cortex: what the maps are, their nulls, and each hemisphere's numbers
    (under ``hemispheres``)."""
    per_hemisphere = {}
    csim = cortex_topo.similarity
    for h in cortex_topo.sheets:
        present = [d for d in CORTEX_DOMAINS if d in cortex_topo.names(h)]
        per_hemisphere[h] = MapHemisphereRecord(
            n_regions=len(present),
            smoothness={d: _num(cortex_topo.row(h, d)["smoothness"]) for d in present},
            n_patches={d: _num(cortex_topo.row(h, d)["n_patches"]) for d in present},
            map_similarity={p: _num(cortex_topo.similarity_of(h, p)) for p in _PAIRS
                            if all(x in present for x in p.split("-"))},
            map_similarity_null={
                r.pair: _similarity_entry(cortex_topo.similarities[h, r.pair], alpha)
                for r in csim[csim.sheet == h].itertuples() if r.pair in _PAIRS},
        )
    n_spin = cortex_topo.attrs["similarity_permutations"]
    from ...analysis import cortex_null_calibration

    src = _source_record(source)
    return CortexReport(
        atlas=cortex_description(src),
        source=src,
        null_calibration=cortex_null_calibration(src.on_mesh),
        nulls=(f"map similarity: spin test, {n_spin} draws of {n_spin - n_spin // 2} "
                  "rotations of the sphere (each rotation moves one map, then the other; "
                  "effective draws per pair: map_similarity_null's n_effective); "
                  + ("smoothness and patches: none drawn (they describe the given maps; "
                     "the spin test is drawn for their similarities and arrangement)"
                     if src.user_maps else
                     "smoothness and patches: none (the atlas's fixed ROIs are smooth "
                     "and patchy by construction, so a null says nothing about them)")
                  + f"; arrangement: spin test, {n_spin} independent rotations of each "
                  "domain's map"),
        hemispheres=per_hemisphere,
    )


def arrangement_summary(table: pd.DataFrame, draws: dict | None = None) -> ArrangementRecord:
    """One (layer, hemisphere) comparison's domain arrangement (its ``arrangement`` attrs)
    and the patch-centroid arrangement of its table, JSON-ready
    (:class:`~._kit.report.ArrangementRecord`); ``draws``: the shift and
    spin nulls' draws (``{"shift": n, "spin": m}``), recorded as ``n_permutations`` and used
    for the p's text (``p_text``, :func:`arrangement_p_text`)."""
    a = table.attrs.get("arrangement", {})
    out = {
        "spearman": _num(a.get("spearman", np.nan)),
        "p_value": _num(a.get("p_value", np.nan)),
        "p_shift": _num(a.get("p_shift", np.nan)),
        "p_spin": _num(a.get("p_spin", np.nan)),
        "null_shift_mean": _num(a.get("null_shift_mean", np.nan)),
        "null_spin_mean": _num(a.get("null_spin_mean", np.nan)),
        "n_domains": int(a.get("n_domains", 0)),
        "n_pairs": int(a.get("n_pairs", 0)),
        "domains": list(a.get("domains", [])),
        "pairs": list(a.get("pairs", [])),
        "model_distances": [_num(v) for v in a.get("model_distances", [])],
        "cortex_distances_mm": [_num(v) for v in a.get("cortex_distances", [])],
        "patch_centroids": PatchCentroidsRecord(
            spearman=_num(table.loc[("arrangement_spearman", "centroids"), "model_vs_cortex"]),
            n_regions=int(table.loc[("arrangement_n_regions", "centroids"), "model_vs_cortex"]),
        ),
    }
    drawn = (None if draws is None else
             ArrangementDrawsRecord(shift=int(draws["shift"]), spin=int(draws["spin"])))
    return ArrangementRecord(**out, n_permutations=drawn, p_text=arrangement_p_text(
        out["p_value"], out["p_shift"], out["p_spin"], drawn))


def headline_summary(layer: str, hemispheres, arrangement: dict) -> MapHeadlineRecord:
    """The headline: ``layer`` (the deepest mapped one, a rule fixed in advance) and its
    arrangement against each hemisphere (``arrangement`` keyed ``"layer|hemisphere"``)."""
    return MapHeadlineRecord(
        layer=layer,
        rule=("the deepest mapped layer (the last of the layers), as TDANN and TopoNets "
              "compare their last convolutional layers with ventral temporal cortex"),
        arrangement={h: arrangement[f"{layer}|{h}"] for h in hemispheres
                     if f"{layer}|{h}" in arrangement},
    )


def _arrangement_verdict(a: ArrangementRecord, alpha: float) -> str:
    """The words for one arrangement test: a match, no evidence, or (draws that cannot reach
    ``alpha``, or no test) no finding at all."""
    from ...analysis import can_reject, too_few_draws_text

    p = a.p_value
    if p is None or not np.isfinite(p):
        return "not tested"
    if p <= alpha:
        return "the arrangement matches beyond both nulls"
    n = a.n_permutations
    draws = [] if n is None else [n.shift, n.spin]
    if draws and not can_reject(min(draws), alpha):  # p is the larger of the two nulls' p
        return too_few_draws_text(min(draws), alpha)
    return "not distinguishable from chance arrangements"


def headline_parts(headline: MapHeadlineRecord, alpha: float) -> dict:
    """The headline in plain words: ``question``, one ``answer`` per hemisphere and the
    ``rule`` that chose the layer (the report's first screen and the terminal print it).

    Counts what is compared on each hemisphere (the domains with a map on both sides, and
    their pairs of centres) and says what a three-domain ρ can show. ``headline`` is the
    report's (:attr:`MapReport.headline`, a :class:`~._kit.report.MapHeadlineRecord`),
    ``alpha`` its level.

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
                + _arrangement_verdict(a, alpha) + ".")
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


def _similarity_entry(res, alpha) -> SimilarityTestRecord:
    """summary.json's record of one map similarity: its one test, in numbers and words."""
    from ...analysis import overlap_verdict

    v = overlap_verdict(res, alpha=alpha)
    return SimilarityTestRecord(
        method=str(res.attrs.get("method", "")), value=_num(res.statistic),
        mean=_num(res.null_mean), std=_num(res.null_std), p_value=_num(v.p_value),
        alternative=v.alternative, p_text=v.p_text, verdict=v.outcome, null=res.null_method,
        n_permutations=v.n_permutations, n_moves=v.n_moves, n_effective=v.n_effective)


def _dataset(acts, sel, model_table, model_topo, dims, layers) -> xr.Dataset:
    unit_coords = {c: (D.UNIT, np.asarray(sel[c].values)) for c in D.UNIT_COORDS}
    unit_coords[D.LAYER] = (D.UNIT, np.asarray(sel[D.LAYER].values).astype(str))
    ds = xr.Dataset(
        {"selectivity": ((D.DOMAIN, D.UNIT), np.asarray(sel.values, np.float64))},
        coords={D.DOMAIN: list(sel[D.DOMAIN].values.astype(str)), **unit_coords},
    )
    piv = model_table.set_index(["layer", "domain"])
    for var in ("smoothness", "smoothness_null_mean", "smoothness_null_std", "smoothness_p",
                "n_patches", "n_significant_patches", "selective_fraction",
                "largest_patch_units"):
        arr = np.array([[piv.loc[(layer, d), var] for d in MAP_DOMAINS] for layer in layers])
        ds[var] = (("sheet_layer", D.DOMAIN), arr.astype(float))
    ds = ds.assign_coords(sheet_layer=np.asarray(layers, dtype=str))
    sims = np.array([[model_topo.similarity_of(ly, p) for p in _PAIRS] for ly in layers])
    ds["map_similarity"] = (("sheet_layer", "pair"), sims)
    for key, attr in (("null_mean", "null_mean"), ("null_std", "null_std"), ("p", "p_value")):
        vals = [[getattr(model_topo.similarities[ly, p], attr) if (ly, p) in
                 model_topo.similarities else np.nan for p in _PAIRS] for ly in layers]
        ds[f"map_similarity_{key}"] = (("sheet_layer", "pair"), np.asarray(vals, float))
    ds = ds.assign_coords(pair=np.asarray(_PAIRS, dtype=str))
    ds["effective_dimensionality"] = (("sheet_layer",), np.array([dims[ly] for ly in layers]))
    for ly in layers:  # sheets differ in size, so each layer has its own distance bins
        key = ly.replace(".", "_")
        dist = model_topo.smoothness[ly, MAP_DOMAINS[0]][D.DISTANCE].values
        prof = np.array([model_topo.smoothness[ly, d]["profile"].values for d in MAP_DOMAINS])
        ds[f"smoothness_profile_{key}"] = ((D.DOMAIN, f"distance_{key}"), prof)
        ds = ds.assign_coords({f"distance_{key}": dist})
        ds[f"smoothness_profile_{key}"].attrs["layer"] = ly
    attrs = {k: (str(v) if not isinstance(v, (int, float)) else v) for k, v in acts.attrs.items()}
    ds.attrs.update(attrs)
    ds.attrs["description"] = "toponeuro map: domain selectivity (t) maps and topography metrics"
    return ds


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
    for pair in _PAIRS:
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
