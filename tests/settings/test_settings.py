"""The jobs' settings objects (issue 44): checked once, one name from the flag to summary.json."""

from __future__ import annotations

import argparse
import dataclasses
import json
import re

import numpy as np
import pytest

from toponeuro import settings as S
from toponeuro.exceptions import InputTypeError, ParameterError, UnknownNameError

ALL = (S.NullSettings, S.PatchRule, S.CortexInput, S.Extraction, S.ModelSource, S.RulerRun,
       S.LanguageUnits, S.FlocStimuli, S.LanguageStimuli)


@pytest.mark.parametrize("cls, kwargs, error, name", [
    (S.NullSettings, {"n_permutations": -1}, ParameterError, "null.n_permutations=-1"),
    (S.NullSettings, {"n_permutations": 2.5}, ParameterError, "null.n_permutations=2.5"),
    (S.NullSettings, {"n_permutations": "10"}, InputTypeError, "null.n_permutations='10'"),
    (S.NullSettings, {"alpha": 1.0}, ParameterError, "null.alpha=1"),
    (S.NullSettings, {"alpha": float("nan")}, ParameterError, "null.alpha=nan"),
    (S.NullSettings, {"random_state": -3}, ParameterError, "null.random_state=-3"),
    (S.NullSettings, {"random_state": "x"}, InputTypeError, "null.random_state='x'"),
    (S.PatchRule, {"threshold": float("inf")}, ParameterError, "patches.threshold=inf"),
    (S.PatchRule, {"min_units": 0}, ParameterError, "patches.min_units=0"),
    (S.CortexInput, {"min_vertices": 0}, ParameterError, "cortex.min_vertices=0"),
    (S.CortexInput, {"n_permutations": -5}, ParameterError, "cortex.n_permutations=-5"),
    (S.CortexInput, {"threshold": "2"}, InputTypeError, "cortex.threshold='2'"),
    (S.CortexInput, {"hemispheres": ["lft"]}, UnknownNameError, "cortex.hemispheres="),
    (S.CortexInput, {"maps": 3}, InputTypeError, "cortex.maps"),
    (S.CortexInput, {"vol_to_surf": "radius"}, InputTypeError, "cortex.vol_to_surf"),
    (S.Extraction, {"batch_size": 0}, ParameterError, "extraction.batch_size=0"),
    (S.Extraction, {"device": "gpu"}, Exception, "extraction.device='gpu'"),
    (S.ModelSource, {"name": 3}, InputTypeError, "model.name"),
    (S.ModelSource, {"trust_checkpoint": "yes"}, InputTypeError, "model.trust_checkpoint"),
    (S.ModelSource, {"position_units": "cm"}, UnknownNameError, "model.position_units='cm'"),
    (S.RulerRun, {"n_permutations": -1}, ParameterError, "ruler.n_permutations=-1"),
    (S.RulerRun, {"descriptors": {}}, InputTypeError, "ruler.descriptors"),
    (S.LanguageUnits, {"top_k": 0}, ParameterError, "units.top_k=0"),
    (S.LanguageUnits, {"q": 0}, ParameterError, "units.q=0"),
    (S.LanguageUnits, {"smooth_fwhm": -1.0}, ParameterError, "units.smooth_fwhm=-1"),
    (S.LanguageUnits, {"token_pooling": "meen"}, UnknownNameError, "units.token_pooling"),
])
def test_a_bad_value_is_refused_naming_the_field(cls, kwargs, error, name):
    with pytest.raises(error) as info:
        cls(**kwargs)
    assert name in str(info.value)


#: the fields a settings object checks in its __post_init__, not by a declaration, and why
CHECKED_BY_HAND = {"Extraction.device": "checked against this machine's hardware"}


def test_every_field_is_declared_but_those_checked_by_hand():
    """One way to declare a field (validate_fields): every field a job's settings object
    takes is declared, readable as its ``__toponeuro_params__``, but those listed."""
    from toponeuro._util.params import declared_params

    for cls in ALL:
        declared = set(declared_params(cls))
        for f in dataclasses.fields(cls):
            if f.init:
                assert (f.name in declared) != (f"{cls.__name__}.{f.name}" in CHECKED_BY_HAND), (
                    cls.__name__, f.name)


@pytest.mark.parametrize("cls, kwargs, error, name", [
    (S.CortexInput, {"hemispheres": 3}, InputTypeError, "cortex.hemispheres=3"),  # was a TypeError
    (S.CortexInput, {"hemispheres": []}, UnknownNameError, "cortex.hemispheres=[]"),
    (S.ModelSource, {"name": ""}, InputTypeError, "model.name=''"),
    (S.ModelSource, {"checkpoint": 3}, InputTypeError, "model.checkpoint=3"),
    (S.ModelSource, {"unit_positions": [1]}, InputTypeError, "model.unit_positions=[1]"),
    (S.FlocStimuli, {"numbers": 3}, InputTypeError, "stimuli.numbers=3"),
])
def test_the_declarations_name_the_field_and_keep_the_error_type(cls, kwargs, error, name):
    with pytest.raises(error) as info:
        cls(**kwargs)
    assert str(info.value).startswith(name)


def test_settings_are_frozen_and_canonical():
    null = S.NullSettings(n_permutations=10.0, alpha=np.float64(0.01), random_state=np.int64(4))
    assert (type(null.n_permutations), type(null.alpha), type(null.random_state)) == (
        int, float, int)
    with pytest.raises(dataclasses.FrozenInstanceError):
        null.alpha = 0.5
    assert S.CortexInput(hemispheres="left").hemispheres == ("left",)
    assert S.CortexInput(hemispheres=["right", "left"]).hemispheres == ("right", "left")
    assert S.NullSettings(random_state=3.0).random_state == 3  # a whole float, as before
    rng = np.random.default_rng(0)
    assert S.NullSettings(random_state=rng).random_state is rng


def test_hemispheres_given_as_a_numpy_array_are_a_tuple_of_names():
    """A 1-D array of names (``df.hemi.unique()``) is a list of names, as before the fields
    were declared: stored as a tuple of str (before the fix: an ndarray kept, or an untyped
    ValueError from ``array in options``)."""
    for given, stored in [(np.array(["left", "right"]), ("left", "right")),
                          (np.array(["right"]), ("right",))]:
        got = S.CortexInput(hemispheres=given).hemispheres
        assert got == stored and all(type(h) is str for h in got), got
    with pytest.raises(UnknownNameError, match=r"^cortex\.hemispheres=.*did you mean 'left'"):
        S.CortexInput(hemispheres=np.array(["lft"]))
    with pytest.raises(UnknownNameError, match=r"^cortex\.hemispheres="):
        S.CortexInput(hemispheres=np.array([], dtype=str))
    with pytest.raises(InputTypeError, match=r"^cortex\.hemispheres="):
        S.CortexInput(hemispheres=np.array("left"))  # 0-d: not a list of names


def test_the_cortex_maps_kind_is_told_once_and_kept():
    assert S.CortexInput().kind == "atlas"
    assert S.CortexInput(maps="faces=f.nii.gz").kind == "files"
    assert S.CortexInput(maps={"faces": ("l.gii", "r.gii")}).kind == "files"
    from toponeuro.atlases import CortexMaps

    fake = object.__new__(CortexMaps)
    assert S.CortexInput(maps={"left": fake}).kind == "loaded"
    # replace() tells it again from the new maps
    assert dataclasses.replace(S.CortexInput(maps="a=b.nii.gz"), maps=None).kind == "atlas"


def test_every_field_declares_help_and_a_flag_or_why_not():
    for cls in ALL:
        for f in dataclasses.fields(cls):
            assert f.metadata.get("help"), (cls.__name__, f.name)
            assert "flag" in f.metadata, (cls.__name__, f.name)


def test_settings_record_is_json_with_the_field_names(tmp_path):
    rec = S.settings_record(
        null=S.NullSettings(n_permutations=9, random_state=np.random.default_rng(0)),
        cortex=S.CortexInput(maps={"faces": tmp_path / "f.nii.gz",
                                   "bodies": {"left": np.zeros(4)}}),
        ruler=S.RulerRun(n_permutations=5))
    json.dumps(rec)
    assert rec["null"] == {"n_permutations": 9, "alpha": 0.05, "random_state": "<Generator>"}
    assert rec["cortex"]["maps"] == {"faces": str(tmp_path / "f.nii.gz"),
                                     "bodies": {"left": "<array 4>"}}
    assert rec["cortex"]["kind"] == "files"
    assert rec["ruler"]["descriptors"]["n_bins"] == S.RulerSettings().n_bins
    for name, cls in (("null", S.NullSettings), ("ruler", S.RulerRun)):
        assert set(rec[name]) == {f.name for f in dataclasses.fields(cls) if f.init}


def test_ruler_settings_is_the_analysis_one():
    from toponeuro.analysis.topography._descriptors import RulerSettings

    assert S.RulerSettings is RulerSettings


def test_every_old_keyword_names_a_field():
    fields = {f"{cls._name}.{f.name}" for cls in ALL for f in dataclasses.fields(cls)}
    assert set(S.OLD_KEYWORDS.values()) - {"verbose"} <= fields  # progress= -> verbose=


def test_the_jobs_take_the_settings_objects():
    import inspect

    from toponeuro.reporting import run_language_map, run_map

    for job, most in ((run_map, 12), (run_language_map, 12)):
        params = [p for p in inspect.signature(job).parameters.values()
                  if p.kind is not p.VAR_KEYWORD]
        assert len(params) <= most
    with pytest.raises(InputTypeError, match=r"null=1000 is not a NullSettings \(toponeuro.settings\)"):
        run_map(null=1000, out_dir="never-written")


# --- the command line's flags come from the declarations ------------------------------------
def _map_parser():
    from toponeuro.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices["map"]


def test_every_settings_field_has_its_flag_in_the_map_command():
    from toponeuro.cli._map import _language_parser

    # the fLoc map's own fields, which `map --language --help` leaves out (and refuses)
    map_only = {"patches.threshold", "model.unit_positions", "model.position_units",
                "stimuli.numbers"}
    for parser, language in ((_map_parser(), False), (_language_parser(), True)):
        options = {o: a for a in parser._actions for o in a.option_strings}
        for cls in ALL:
            for f in dataclasses.fields(cls):
                flag = f.metadata.get("flag")
                if flag is None or (language and f"{cls._name}.{f.name}" in map_only):
                    continue
                assert flag in options, (cls.__name__, f.name, flag)
                if f.metadata.get("old_flags"):  # the 0.4 flags: hidden, same destination
                    for old in f.metadata["old_flags"]:
                        assert options[old].dest == options[flag].dest


def test_flags_parse_back_into_the_same_settings():
    from toponeuro.cli._map import _job_settings

    args = _map_parser().parse_args([
        "--n-permutations", "9", "--alpha", "0.1", "--random-state", "3", "--threshold", "1.5",
        "--min-units", "4", "--cortex-n-permutations", "7", "--cortex-min-vertices", "5",
        "--hemispheres", "left", "--ruler-n-permutations", "5", "--batch-size", "8"])
    got = _job_settings(args, language=False)
    assert got["null"] == S.NullSettings(n_permutations=9, alpha=0.1, random_state=3)
    assert got["patches"] == S.PatchRule(threshold=1.5, min_units=4)
    assert got["cortex"] == S.CortexInput(n_permutations=7, min_vertices=5,
                                          hemispheres=("left",))
    assert got["ruler"] == S.RulerRun(n_permutations=5)
    assert got["extraction"] == S.Extraction(batch_size=8)
    # nothing given: each object's own defaults
    bare = _job_settings(_map_parser().parse_args([]), language=False)
    assert bare["null"] == S.NullSettings() and bare["cortex"] == S.CortexInput()


def test_old_flags_still_work_and_say_their_new_name(capsys):
    from toponeuro.cli._map import _job_settings

    args = _map_parser().parse_args(["--permutations", "9", "--seed", "2",
                                     "--cortex-permutations", "7"])
    got = _job_settings(args, language=False)
    assert got["null"] == S.NullSettings(n_permutations=9, random_state=2)
    assert got["cortex"].n_permutations == 7
    err = capsys.readouterr().err
    assert "--permutations is deprecated" in err and "use --n-permutations" in err
    assert "use --random-state" in err and "use --cortex-n-permutations" in err
    assert "--permutations" not in _map_parser().format_help()


def test_a_bad_flag_value_is_the_settings_message_in_flags(capsys):
    from toponeuro.cli import main

    rc = main(["map", "--n-permutations", "-2", "--out", "never-written"])
    err = capsys.readouterr().err
    assert rc != 0 and "--n-permutations -2 is not a whole number" in err
    rc = main(["map", "--cortex-min-vertices", "0", "--out", "never-written"])
    assert "--cortex-min-vertices 0 is not a whole number >= 1" in capsys.readouterr().err


@pytest.mark.parametrize("job", ["map", "language"])
def test_the_settings_record_validates_against_each_jobs_schema(job):
    jsonschema = pytest.importorskip("jsonschema")
    from toponeuro.reporting import summary_schema

    schema = summary_schema(job)["properties"]["settings"]
    objs = {"model": S.ModelSource("m.v1", checkpoint="w.pt"), "null": S.NullSettings(),
            "patches": S.PatchRule(), "cortex": S.CortexInput(maps="faces=f.nii.gz"),
            "ruler": S.RulerRun(n_permutations=5), "extraction": S.Extraction()}
    if job == "language":
        objs["units"] = S.LanguageUnits()
    jsonschema.validate(S.settings_record(**objs), schema)
    with pytest.raises(jsonschema.ValidationError):  # the schema can fail: a field renamed
        bad = S.settings_record(**objs)
        bad["null"]["permutations"] = bad["null"].pop("n_permutations")
        jsonschema.validate(bad, schema)


def test_model_source_default_is_the_map_jobs_default_model():
    from toponeuro.reporting import DEFAULT_MAP_MODEL

    assert S.ModelSource().name == DEFAULT_MAP_MODEL


@pytest.mark.parametrize(("cls", "kw", "name"), [
    ("FlocStimuli", {"source": 3}, "stimuli.source"),
    ("LanguageStimuli", {"source": ["a"]}, "stimuli.source"),
    ("LanguageStimuli", {"verb_noun": 1.5}, "stimuli.verb_noun"),
])
def test_stimuli_settings_refuse_a_source_of_the_wrong_kind(cls, kw, name):
    import toponeuro.settings as S
    from toponeuro.exceptions import InputTypeError

    with pytest.raises(InputTypeError, match=rf"^{re.escape(name)}=.* is not \".*\", a path "
                       r"or a toponeuro.stimuli.StimulusSet \(got a "):
        getattr(S, cls)(**kw)
    assert getattr(S, cls)().source in ("floc", "langloc")  # the defaults pass
