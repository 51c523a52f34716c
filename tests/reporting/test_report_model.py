"""One typed report model for both jobs (issue 44): summary.json is its ``to_summary()``,
read back by ``from_summary()`` unchanged; the cortex's hemispheres sit under their own key;
both jobs return the one result shape."""

from __future__ import annotations

import copy
import dataclasses
import json

import pytest

from toponeuro.exceptions import InvalidDataError
from toponeuro.reporting import LanguageMapResult, MapResult
from toponeuro.reporting._kit.entries import (
    FitRecord,
    FitRowRecord,
    LabelNullRecord,
    SmoothnessNullRecord,
    VerbNounLayerRecord,
)
from toponeuro.reporting._kit.report import (
    ComparisonRecord,
    CortexReport,
    CortexSourceRecord,
    JobReport,
    LanguageMapReport,
    MapHemisphereRecord,
    MapReport,
    ParcelsRecord,
    RulerComparisonRecord,
    RulerRowRecord,
    SimilarityTestRecord,
    VerbNounRecord,
    YourMapsRecord,
)
from toponeuro.reporting._kit.result import JobResult

_COMMON = dict(toponeuro_version="0.5.0", created="2026-12-07T00:00:00+00:00",
               model={"name": "m", "source": "m (weights sha256 x)", "tau": 1.0,
                      "description": None, "weights_sha256": "x"},
               layers=["l"], definitions={"smoothness": "d"},
               settings={"null": {"n_permutations": 9, "alpha": 0.05},
                         "patches": {"threshold": 2.0, "min_units": 10},
                         "cortex": {"n_permutations": 19}})


#: a label null's entry as this version writes it (no setting repeated)
_LABEL_NULL = dict(layer="l", statistic="smoothness", value=0.2, p_positions_null=0.01,
                   p_label_null=0.3, label_null_mean=0.1, label_null_std=0.05,
                   organised={"n_permutations": 9}, selective={"n_permutations": 9})


def _language_report(**kw):
    from test_summary_schema import _language_summary

    from toponeuro.reporting._language.report import fits_summary

    s = _language_summary()
    s.pop("job")
    # 0.5's layer record: the verdicts of both nulls and the counts of the headline
    s["per_layer"]["l"].update(organised="o", label_null=dict(_LABEL_NULL),
                               n_units_with_data=64, n_language_units=5)
    s["cortex"] = CortexReport.from_summary(s["cortex"])
    return LanguageMapReport(**{**s, "headline": "On l, ...", "comparison": fits_summary({}),
                                "language_units": "u", **kw})


_MAP_LAYER = {"sheet": "8x8", "smoothness": {"faces": 0.1},
              "smoothness_null": {"faces": {"mean": 0.0, "std": 0.1, "p_value": 0.5}},
              "n_patches": {"faces": 0}, "n_patches_found": {"faces": 1},
              "selective_fraction": {"faces": 0.1}, "map_similarity": {"faces-bodies": 0.2},
              "map_similarity_null": {}, "effective_dimensionality": 3.0, "signatures": ["a"]}


def _map_report(**kw):
    hemi = {"n_regions": 4, "smoothness": {"faces": 0.5}, "n_patches": {"faces": 1},
            "map_similarity": {"faces-bodies": 0.1}, "map_similarity_null": {}}
    return MapReport(**_COMMON, stimuli={"set": "fLoc", "source": "s", "n_stimuli": 4,
                                         "categories": ["adult"], "numbers": "all",
                                         "training_images": None},
                     per_layer={"l": _MAP_LAYER},
                     cortex=CortexReport(atlas="visfAtlas", nulls="spin", source={},
                                         null_calibration={"mesh": "fsaverage5"},
                                         hemispheres={"left": hemi, "right": dict(hemi)}),
                     headline={"layer": "l", "rule": "r", "arrangement": {}},
                     pooling="mean", selectivity="tdann_t", p_values="p",
                     random_init_baseline=False, random_init_note="not computed",
                     arrangement={},
                     ruler={"comparisons": {}, "headline": {"chosen": False, "rule": "r",
                                                            "n_eligible": 0, "n_rows": 0}},
                     **kw)


@pytest.mark.parametrize("make", [_map_report, _language_report])
def test_summary_round_trips_through_the_typed_report(make):
    rep = make()
    rep.seconds, rep.files = 1.5, {"summary.json": "summary.json"}
    s = rep.to_summary()
    assert json.loads(json.dumps(s)) == s  # JSON types only
    back = type(rep).from_summary(s)
    assert back == rep and back.to_summary() == s
    # the hemispheres under their own key, the keys that describe the maps beside them
    assert set(s["cortex"]["hemispheres"]) == set(rep.hemispheres)
    assert not set(s["cortex"]) & {"left", "right"}


def test_optional_sections_are_left_out_and_settings_are_recorded_whole():
    rep = _language_report(settings=None)
    s = rep.to_summary()
    assert "verb_noun" not in s and "settings" not in s and "your_maps" not in s["cortex"]
    assert s["job"] == "toponeuro map --language"
    rep.settings = {"null": {"n_permutations": 9, "alpha": 0.05}}
    rep.verb_noun = VerbNounRecord(items={}, map="t", per_layer={})
    s = rep.to_summary()
    assert s["settings"] == {"null": {"n_permutations": 9, "alpha": 0.05}}
    assert s["verb_noun"] == {"items": {}, "map": "t", "per_layer": {}}
    assert LanguageMapReport.from_summary(s) == rep


_SIM_TEST = {"method": "pearson", "value": 0.3, "mean": 0.0, "std": 0.1, "p_value": 0.02,
             "alternative": "two-sided", "p_text": "p = 0.020", "verdict": "share territory",
             "null": "spin", "n_permutations": 99, "n_moves": 50, "n_effective": 80.0}


def test_the_entries_inside_the_sections_are_typed_records():
    """Each domain's null, each similarity test, each hemisphere, the maps' source, the
    arrangement's draws and centroids, the language job's comparison and verb - noun maps:
    records read by field (issue 44); summary.json's entries read back into the same."""
    hemi = {"n_regions": 4, "smoothness": {"faces": 0.5}, "n_patches": {"faces": 1},
            "map_similarity": {"faces-bodies": 0.3},
            "map_similarity_null": {"faces-bodies": _SIM_TEST}}
    layer = {**_MAP_LAYER, "map_similarity_null": {"faces-bodies": _SIM_TEST},
             "smoothness_label_null": {"faces": {
                 "layer": "l", "statistic": "smoothness", "value": 0.2,
                 "p_positions_null": 0.01, "p_label_null": 0.3, "label_null_mean": 0.1,
                 "label_null_std": 0.05, "organised": {}, "selective": {}}}}
    source = {"maps": {"faces": {"left": {"surface": "f.gii"}}}, "representation": "values",
              "mesh": "fs_LR_32k", "hemispheres": ["left"]}
    s = _map_report().to_summary()
    s["per_layer"]["l"] = layer
    s["cortex"]["hemispheres"] = {"left": hemi}
    s["cortex"]["source"] = source
    rep = MapReport.from_summary(s)
    r = rep.per_layer["l"]
    assert isinstance(r.smoothness_null["faces"], SmoothnessNullRecord)
    assert r.smoothness_null["faces"].p_value == 0.5
    assert isinstance(r.map_similarity_null["faces-bodies"], SimilarityTestRecord)
    assert isinstance(r.smoothness_label_null["faces"], LabelNullRecord)
    assert r.smoothness_label_null["faces"].p_label_null == 0.3
    h = rep.cortex.hemispheres["left"]
    assert isinstance(h, MapHemisphereRecord) and h.map_similarity_null["faces-bodies"].n_moves == 50
    assert isinstance(rep.cortex.source, CortexSourceRecord)
    assert rep.cortex.source.user_maps and rep.cortex.source.on_mesh == "fs_LR_32k"
    out = rep.to_summary()
    assert out["cortex"]["source"] == source and out["per_layer"]["l"] == layer
    assert list(out["cortex"]["source"]) == list(source)  # the keys in the file's order
    assert out["cortex"]["hemispheres"]["left"] == hemi
    assert MapReport.from_summary(out) == rep
    # the atlas's source: the mesh not recorded is fsaverage5's
    atlas = CortexSourceRecord.from_summary({"atlas": "visfAtlas", "representation": "proximity",
                                             "hemispheres": ["left", "right"], "scale_mm": 10.0,
                                             "distance": "geodesic"})
    assert atlas.on_mesh == "fsaverage5" and not atlas.user_maps and "mesh" not in atlas.to_summary()
    # a similarity test without its verdict is refused by name
    bad = {**hemi, "map_similarity_null": {"faces-bodies": {"value": 0.3}}}
    with pytest.raises(InvalidDataError, match=r"lacks a field of SimilarityTestRecord"):
        MapReport.from_summary({**s, "cortex": {**s["cortex"], "hemispheres": {"left": bad}}})
    # the language job: the parcels' hemispheres, the comparison and the verb - noun maps
    lang = _language_report()
    assert isinstance(lang.cortex.hemispheres["left"], ParcelsRecord)
    assert isinstance(lang.comparison, ComparisonRecord) and lang.comparison.fits == {}
    fit = {"title": "t", "comparison": "language", "layer": "l", "hemisphere": "left",
           "cortex_map": "language", "cortex_source": "s", "model_geometry": {},
           "cortex_geometry": {}, "counts": {"alike": 1}, "left_out": {},
           "rows": [{"descriptor": "smoothness", "statistic": "s", "model": {}, "cortex": {},
                     "verdict": "alike", "reason": "r"}]}
    vn = {"items": {"n_stimuli": 2}, "map": "t", "per_layer": {"l": {
        "n_units_with_data": 64, "morans_i": 0.1, "verdict": "v", "organised": "o",
        "label_null": {}}}}
    ls = {**lang.to_summary(), "verb_noun": vn}
    ls["comparison"] = {**ls["comparison"], "fits": {"language|left": fit}}
    lang = LanguageMapReport.from_summary(ls)
    assert isinstance(lang.comparison.fits["language|left"], FitRecord)
    assert isinstance(lang.comparison.fits["language|left"].rows[0], FitRowRecord)
    assert isinstance(lang.verb_noun, VerbNounRecord)
    assert isinstance(lang.verb_noun.per_layer["l"], VerbNounLayerRecord)
    assert lang.to_summary()["comparison"]["fits"]["language|left"] == fit
    assert lang.to_summary()["verb_noun"] == vn


def test_the_sections_the_writers_read_are_typed_records():
    """model, stimuli and cortex are records with fields (a dict given becomes one), and
    summary.json holds exactly their fields."""
    from toponeuro.reporting._kit.report import (
        LanguageStimuliRecord,
        MapStimuliRecord,
        ModelRecord,
    )

    for rep, stim in ((_map_report(), MapStimuliRecord),
                      (_language_report(), LanguageStimuliRecord)):
        assert isinstance(rep.model, ModelRecord) and rep.model.name == "m"
        assert isinstance(rep.stimuli, stim) and isinstance(rep.cortex, CortexReport)
        s = rep.to_summary()
        assert s["model"] == _COMMON["model"]
        assert type(rep).from_summary(s).stimuli == rep.stimuli
    with pytest.raises(InvalidDataError, match=r"summary\['stimuli'\] lacks a field"):
        MapReport.from_summary({**_map_report().to_summary(), "stimuli": {"n_stimuli": 4}})


def test_the_layers_headline_arrangement_and_ruler_are_typed_records():
    """per_layer, headline, arrangement and ruler are records read by field (issue 44): a
    summary.json entry given becomes one, and serialises to the same entry."""
    from toponeuro.reporting._kit.report import (
        ArrangementRecord,
        LanguageLayerRecord,
        MapHeadlineRecord,
        MapLayerRecord,
        RulerHeadlineRecord,
        RulerRecord,
    )

    arr = {"spearman": 0.5, "p_value": 0.3, "p_shift": 0.3, "p_spin": 0.1,
           "null_shift_mean": 0.0, "null_spin_mean": 0.0, "n_domains": 3, "n_pairs": 3,
           "domains": ["faces", "bodies", "places"], "pairs": [], "model_distances": [],
           "cortex_distances_mm": [], "patch_centroids": {"spearman": None, "n_regions": 0},
           "p_text": "p = 0.300"}
    rep = _map_report()
    rep = MapReport.from_summary({**rep.to_summary(), "arrangement": {"l|left": arr},
                                  "headline": {"layer": "l", "rule": "r",
                                               "arrangement": {"left": arr}}})
    assert isinstance(rep.per_layer["l"], MapLayerRecord) and rep.per_layer["l"].sheet == "8x8"
    assert isinstance(rep.arrangement["l|left"], ArrangementRecord)
    assert isinstance(rep.headline, MapHeadlineRecord)
    assert rep.headline.arrangement["left"] == rep.arrangement["l|left"]
    assert isinstance(rep.ruler, RulerRecord)
    assert isinstance(rep.ruler.headline, RulerHeadlineRecord) and not rep.ruler.headline.chosen
    s = rep.to_summary()
    assert s["arrangement"]["l|left"] == arr and s["headline"]["arrangement"]["left"] == arr
    assert s["ruler"]["headline"] == {"chosen": False, "rule": "r", "n_eligible": 0,
                                      "n_rows": 0}
    assert "smoothness_label_null" not in s["per_layer"]["l"]  # not drawn: not written
    # the arrangement's draws: the settings', recorded once (issue 44)
    assert (rep.arrangement_draws.shift, rep.arrangement_draws.spin) == (9, 19)
    lang = _language_report()
    assert isinstance(lang.per_layer["l"], LanguageLayerRecord)
    assert lang.per_layer["l"].n_language_units == 5
    with pytest.raises(InvalidDataError, match=r"summary\['per_layer'\] lacks a field"):
        MapReport.from_summary({**_map_report().to_summary(),
                                "per_layer": {"l": {"signatures": ["a"]}}})


def test_a_chosen_ruler_headline_writes_its_row_beside_where_it_stands():
    from toponeuro.reporting._kit.report import RulerHeadlineRecord, RulerRowRecord

    row = RulerRowRecord(descriptor="smoothness", domain="faces", statistic="s", model=0.1,
                         model_p=0.01, model_null="shift", model_draws=99, model_lo=None,
                         model_hi=None, model_boot=0, cortex=0.2, cortex_p=0.02,
                         cortex_null="spin", cortex_draws=99, verdict="alike", reason="r",
                         reference=None)
    head = RulerHeadlineRecord(chosen=True, rule="r", layer="l", hemisphere="left",
                               evidence=2.0, n_eligible=1, n_rows=1, row=row)
    s = head.to_summary()
    assert list(s)[:7] == ["chosen", "rule", "layer", "hemisphere", "evidence", "n_eligible",
                           "n_rows"]
    assert s["descriptor"] == "smoothness" and s["model_lo"] is None  # a None kept, not dropped
    assert RulerHeadlineRecord.from_summary(s) == head


def test_a_quantity_is_read_by_its_one_name():
    """The draws, alpha, the patch rule: the settings block's names, nowhere else (0.5)."""
    rep = _map_report()
    assert rep.setting("null.n_permutations") == 9
    assert rep.setting("cortex.n_permutations") == 19
    assert (rep.setting("null.alpha"), rep.setting("patches.min_units")) == (0.05, 10)
    assert not {"n_permutations", "patch_threshold_t", "cortex_permutations", "alpha",
                "patch_min_units"} & set(rep.to_summary())
    assert not {"alpha", "patch_min_units", "token_pooling"} & set(
        _language_report().to_summary())
    with pytest.raises(InvalidDataError, match="records no setting 'ruler.n_permutations'"):
        rep.setting("ruler.n_permutations")
    with pytest.raises(InvalidDataError, match="records no setting"):
        _language_report(settings=None).setting("null.n_permutations")


def test_a_0_4_summary_with_hemispheres_beside_the_atlas_is_refused_by_name():
    s = _map_report().to_summary()
    old = copy.deepcopy(s)
    old["cortex"].update(old["cortex"].pop("hemispheres"))  # 0.4's layout
    with pytest.raises(InvalidDataError, match=r"\['left', 'right'\].*cortex\['hemispheres'\]"):
        MapReport.from_summary(old)
    with pytest.raises(InvalidDataError, match="lacks a field of MapReport"):
        MapReport.from_summary({k: v for k, v in s.items() if k != "pooling"})
    # a summary.json that still repeats a setting at its top: refused, naming where it lives
    with pytest.raises(InvalidDataError, match=r"\['alpha', 'patch_min_units'\].*under settings"):
        MapReport.from_summary({**s, "alpha": 0.05, "patch_min_units": 10})


def test_the_schemas_take_the_typed_report_and_refuse_the_0_4_cortex():
    jsonschema = pytest.importorskip("jsonschema")
    from toponeuro.reporting import summary_schema
    from toponeuro.reporting._kit.constants import DEFAULT_LANGUAGE_MODEL
    from toponeuro.reporting._kit.settings import job_settings
    from toponeuro.settings import (
        CortexInput,
        Extraction,
        LanguageUnits,
        NullSettings,
        PatchRule,
        RulerRun,
    )

    record = job_settings("run_language_map", None, DEFAULT_LANGUAGE_MODEL, {},
                           ruler_draws=None, null=NullSettings(), patches=PatchRule(),
                           units=LanguageUnits(), cortex=CortexInput(), ruler=RulerRun(),
                           extraction=Extraction())["record"]
    s = _language_report(settings=record).to_summary()
    v = jsonschema.Draft202012Validator(summary_schema("language"))
    assert [e.message for e in v.iter_errors(s)] == []
    old = copy.deepcopy(s)
    old["cortex"].update(old["cortex"].pop("hemispheres"))
    assert list(v.iter_errors(old))  # 'left' beside 'atlas' is no longer a cortex key
    # a setting repeated inside a section: the schema refuses it too (issue 44)
    for where, repeated in ((("selection",), {"q_level": 0.05}),
                            (("definitions", "patches"), {"n_permutations": 9}),
                            (("per_layer", "l", "label_null", "selective"), {"alpha": 0.05})):
        old = copy.deepcopy(s)
        node = old
        for key in where:
            node = node.setdefault(key, {})
        node.update(repeated)
        assert list(v.iter_errors(old)), where


def test_both_jobs_return_the_one_result_shape():
    common = {f.name for f in dataclasses.fields(JobResult)}
    assert common == {"report", "selectivity", "tables", "files", "out_dir", "timings"}
    for cls in (MapResult, LanguageMapResult):
        assert issubclass(cls, JobResult)
        assert common <= {f.name for f in dataclasses.fields(cls)}
        assert isinstance(cls.summary, property)
    rep = _map_report()
    res = MapResult(report=rep, selectivity=None)
    assert res.summary == rep.to_summary() and res.comparison == {} and res.ruler == {}
    lang = LanguageMapResult(report=_language_report(), selectivity=None)
    assert lang.summary["job"] == "toponeuro map --language" and lang.fits == {}
    assert isinstance(res.report, JobReport) and isinstance(lang.report, JobReport)


_COMPARISON = dict(layer="l", hemisphere="left", rows=[], left_out={}, counts={},
                   model_geometry={}, cortex_geometry={})


@pytest.mark.parametrize(("record", "entry", "repeated", "message"), [
    (LabelNullRecord, _LABEL_NULL, {"n_permutations": 9, "alpha": 0.05},
     r"'n_permutations' \(now settings.null.n_permutations.*'alpha' \(now settings.null.alpha"),
    (LabelNullRecord, {**_LABEL_NULL, "selective": {"n_permutations": 9, "alpha": 0.05}}, {},
     r"\['selective'\].*'alpha' \(now settings.null.alpha; read it with "
     r"report.setting\('null.alpha'\)"),
    (VerbNounRecord, dict(items={}, map="t", per_layer={}), {"alpha": 0.05}, "does not know"),
    (ComparisonRecord, dict(layer_rule="l", hemisphere_rule="h", headline_rule="r",
                            headline=None, headline_row=None, fits={}), {"n_permutations": 9},
     "does not know"),
    (RulerComparisonRecord, _COMPARISON, {"n_boot": 50, "cortex_region": "votc"},
     r"'cortex_region' \(now settings.ruler.descriptors.cortex_region.*'n_boot' \(now "
     r"settings.ruler.descriptors.n_boot"),
    (YourMapsRecord, dict(source={}, mesh="fsaverage5", maps={}, similarity=[]),
     {"threshold": 2.0}, r"'threshold' \(now settings.cortex.threshold"),
])
def test_sections_do_not_repeat_the_settings(record, entry, repeated, message):
    """One name per quantity (issue 44): the null's draws and level, the ruler's draws,
    resamples and region, your maps' threshold are recorded once, under settings; a section
    that repeats one is an older summary, refused naming where the value lives now."""
    if not repeated:  # the repeat is nested: the entry itself is the older one
        with pytest.raises(InvalidDataError, match=message):
            record.from_summary(entry)
        return
    assert record.from_summary(entry).to_summary() == entry
    with pytest.raises(InvalidDataError, match=message):
        record.from_summary({**entry, **repeated})


def test_the_definitions_and_the_selection_do_not_repeat_the_settings():
    """The statistics' definitions carry their method, not the draws or level they were run
    at; the language job's selection not TopoLM's q, top_k or smoothing (issue 44)."""
    from toponeuro.reporting._kit.entries import definitions_entry

    defs = {"patches": {"method": "tdann", "n_permutations": 9, "alpha": 0.05, "null": "p"}}
    assert definitions_entry(defs) == {"patches": {"method": "tdann", "null": "p"}}
    s = {**_map_report().to_summary(), "definitions": definitions_entry(defs)}
    assert MapReport.from_summary(s).definitions == s["definitions"]
    with pytest.raises(InvalidDataError, match=r"\['definitions'\]\['patches'\].*"
                                               r"'n_permutations' \(now settings.null"):
        MapReport.from_summary({**s, "definitions": defs})
    lang = _language_report(selection={"method": "topolm"}).to_summary()
    with pytest.raises(InvalidDataError, match=r"selection.*'q_level' \(now settings.units.q"):
        LanguageMapReport.from_summary({**lang, "selection": {"q_level": 0.05}})


def test_one_comparison_record_serves_both_jobs():
    """D1: the language job's comparisons and the vision ruler's are one record with their
    own row type; their summary.json entries keep their keys."""
    from toponeuro.reporting._kit.entries import ComparisonRowsRecord

    assert issubclass(FitRecord, ComparisonRowsRecord)
    assert issubclass(RulerComparisonRecord, ComparisonRowsRecord)
    row = dict(descriptor="smoothness", domain="faces", statistic="s", model=0.1, model_p=0.01,
               model_null="shift", model_draws=99, model_lo=None, model_hi=None, model_boot=0,
               cortex=0.2, cortex_p=0.02, cortex_null="spin", cortex_draws=99,
               verdict="alike", reason="r", reference=None)
    ruler = RulerComparisonRecord.from_summary({**_COMPARISON, "rows": [row]})
    assert isinstance(ruler.rows[0], RulerRowRecord) and set(ruler.to_summary()) == set(
        _COMPARISON)
    fit = FitRecord.from_summary({**_COMPARISON, "title": "t", "comparison": "language",
                                  "cortex_map": "language", "cortex_source": "s",
                                  "rows": [dict(descriptor="smoothness", statistic="s",
                                                model={}, cortex={}, verdict="alike",
                                                reason="r")]})
    assert isinstance(fit.rows[0], FitRowRecord) and fit.to_summary()["rows"][0]["reason"] == "r"


def test_label_null_entry_leaves_the_settings_out():
    from toponeuro.analysis import contrast_topography
    from toponeuro.reporting._kit.entries import label_null_entry
    from toponeuro.sheet import make_activations

    acts = make_activations({"h": 64}, 20, categories=["a", "b"] * 10, random_state=0)
    ct = contrast_topography(acts, "a", "b", metric="welch_t", n_permutations=9)
    entry = label_null_entry(ct)
    assert "n_permutations" not in entry and "alpha" not in entry
    assert {"organised", "selective"} <= set(entry)
    assert LabelNullRecord.from_summary(entry).p_label_null == entry["p_label_null"]
    assert set(label_null_entry(ct, claims=False)) == set(entry) - {"organised", "selective"}
