"""The main job's numbers, assembled once into tables, ``summary.json`` and ``results.nc``.

Nothing here computes a statistic: every value comes from the
:class:`~toponeuro.analysis.TopographyTable` of the model and of the cortex (and the
comparisons built from them), so the tables, figures and files all show the same numbers.
What the page and the terminal say from the report is in :mod:`.words`.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import xarray as xr

from ..._util import dims as D
from ..._version import __version__
from .._kit.constants import CORTEX_DOMAINS, MAP_DOMAINS, MAP_PAIRS
from .._kit.entries import definitions_entry, label_null_entry
from .._kit.report import (
    ArrangementDrawsRecord,
    ArrangementRecord,
    CortexReport,
    MapHeadlineRecord,
    MapHemisphereRecord,
    MapLayerRecord,
    MapReport,
    PatchCentroidsRecord,
    SimilarityTestRecord,
    SmoothnessNullRecord,
)
from .._kit.report import jsonable as _jsonable
from .._kit.report import num as _num
from .words import _source_record, arrangement_p_text, cortex_description

__all__ = ["ReportData", "MapInputs", "assemble", "result_tables", "map_summary",
           "run_description", "layer_summary", "cortex_summary", "arrangement_summary",
           "headline_summary"]


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

    out = [x for pair in MAP_PAIRS
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
        "definitions": _jsonable(definitions_entry(model.topography.attrs["definitions"])),
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
        "map_similarity": {p: round(model_topo.similarity_of(layer, p), 4) for p in MAP_PAIRS},
        "map_similarity_null": {
            r.pair: _similarity_entry(model_topo.similarities[layer, r.pair], alpha)
            for r in sim[sim.sheet == layer].itertuples()},
        "effective_dimensionality": round(float(dimensionality), 3),
        "signatures": [x["text"] for x in _signatures(model_topo, layer, alpha, random_init,
                                                      contrast)],
    }
    if contrast:  # both p-values of each map's smoothness and patch count, by their null
        out["smoothness_label_null"] = {
            d: label_null_entry(contrast[layer, d]) for d in MAP_DOMAINS
            if (layer, d) in contrast}
        patches = {d: label_null_entry(contrast[layer, d, "patch_units"]) for d in MAP_DOMAINS
                   if (layer, d, "patch_units") in contrast}
        if patches:
            out["patches_label_null"] = patches
    if random_init is not None:
        out["map_similarity_random_init"] = {
            p: _similarity_entry(random_init[layer, p], alpha)
            for p in MAP_PAIRS if (layer, p) in random_init}
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
            map_similarity={p: _num(cortex_topo.similarity_of(h, p)) for p in MAP_PAIRS
                            if all(x in present for x in p.split("-"))},
            map_similarity_null={
                r.pair: _similarity_entry(cortex_topo.similarities[h, r.pair], alpha)
                for r in csim[csim.sheet == h].itertuples() if r.pair in MAP_PAIRS},
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
    spin nulls' draws (``{"shift": n, "spin": m}``; the settings record them), used for the
    p's text (``p_text``, :func:`arrangement_p_text`)."""
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
    return ArrangementRecord(**out, p_text=arrangement_p_text(
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
    sims = np.array([[model_topo.similarity_of(ly, p) for p in MAP_PAIRS] for ly in layers])
    ds["map_similarity"] = (("sheet_layer", "pair"), sims)
    for key, attr in (("null_mean", "null_mean"), ("null_std", "null_std"), ("p", "p_value")):
        vals = [[getattr(model_topo.similarities[ly, p], attr) if (ly, p) in
                 model_topo.similarities else np.nan for p in MAP_PAIRS] for ly in layers]
        ds[f"map_similarity_{key}"] = (("sheet_layer", "pair"), np.asarray(vals, float))
    ds = ds.assign_coords(pair=np.asarray(MAP_PAIRS, dtype=str))
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
