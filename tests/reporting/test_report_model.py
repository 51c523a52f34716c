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
from toponeuro.reporting._kit.report import (
    CortexReport,
    JobReport,
    LanguageMapReport,
    MapReport,
)
from toponeuro.reporting._kit.result import JobResult

_COMMON = dict(toponeuro_version="0.5.0", created="2026-12-07T00:00:00+00:00",
               model={"name": "m", "source": "m (weights sha256 x)", "tau": 1.0,
                      "description": None, "weights_sha256": "x"},
               layers=["l"], patch_min_units=10, alpha=0.05, definitions={"smoothness": "d"},
               settings={"null": {"n_permutations": 9}, "patches": {"threshold": 2.0},
                         "cortex": {"n_permutations": 19}})


def _language_report(**kw):
    from test_summary_schema import _language_summary

    from toponeuro.reporting._language.report import fits_summary

    s = _language_summary()
    s.pop("job")
    s["cortex"] = CortexReport.from_summary(s["cortex"])
    return LanguageMapReport(**{**s, "headline": "On l, ...", "comparison": fits_summary({}, 9),
                                "language_units": "u", **kw})


def _map_report(**kw):
    hemi = {"n_regions": 4, "smoothness": {"faces": 0.5}, "n_patches": {"faces": 1},
            "map_similarity": {"faces-bodies": 0.1}, "map_similarity_null": {}}
    return MapReport(**_COMMON, stimuli={"set": "fLoc", "source": "s", "n_stimuli": 4,
                                         "categories": ["adult"], "numbers": "all",
                                         "training_images": None},
                     per_layer={"l": {"signatures": ["a"]}},
                     cortex=CortexReport(atlas="visfAtlas", nulls="spin", source={},
                                         null_calibration={"mesh": "fsaverage5"},
                                         hemispheres={"left": hemi, "right": dict(hemi)}),
                     headline={"layer": "l", "rule": "r", "arrangement": {}},
                     pooling="mean", selectivity="tdann_t", p_values="p",
                     random_init_baseline=False, random_init_note="not computed",
                     arrangement={},
                     ruler={"comparisons": {}, "headline": {"chosen": False}}, **kw)


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
    rep.verb_noun = {"per_layer": {}}
    s = rep.to_summary()
    assert s["settings"] == {"null": {"n_permutations": 9, "alpha": 0.05}}
    assert s["verb_noun"] == {"per_layer": {}}
    assert LanguageMapReport.from_summary(s) == rep


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


def test_a_quantity_is_read_by_its_one_name():
    """The draws, the patch threshold: the settings block's names, nowhere else (0.5)."""
    rep = _map_report()
    assert rep.setting("null.n_permutations") == 9
    assert rep.setting("cortex.n_permutations") == 19
    assert not {"n_permutations", "patch_threshold_t", "cortex_permutations"} & set(
        rep.to_summary())
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


def test_the_schemas_take_the_typed_report_and_refuse_the_0_4_cortex():
    jsonschema = pytest.importorskip("jsonschema")
    from toponeuro.reporting import summary_schema
    from toponeuro.reporting._kit.constants import DEFAULT_LANGUAGE_MODEL
    from toponeuro.settings import (
        CortexInput,
        Extraction,
        LanguageUnits,
        NullSettings,
        PatchRule,
        RulerRun,
        _job_settings,
    )

    record = _job_settings("run_language_map", None, DEFAULT_LANGUAGE_MODEL, {},
                           ruler_draws=None, null=NullSettings(), patches=PatchRule(),
                           units=LanguageUnits(), cortex=CortexInput(), ruler=RulerRun(),
                           extraction=Extraction())["record"]
    s = _language_report(settings=record).to_summary()
    v = jsonschema.Draft202012Validator(summary_schema("language"))
    assert [e.message for e in v.iter_errors(s)] == []
    old = copy.deepcopy(s)
    old["cortex"].update(old["cortex"].pop("hemispheres"))
    assert list(v.iter_errors(old))  # 'left' beside 'atlas' is no longer a cortex key


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
