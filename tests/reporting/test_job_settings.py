"""A job's settings as a whole (``toponeuro/reporting/_kit/settings.py``): the 0.4 keywords
applied, the job's defaults filled in, one verbose level."""

from __future__ import annotations

import warnings

import pytest

from toponeuro import settings as S
from toponeuro.exceptions import InputTypeError, ParameterError
from toponeuro.reporting._kit.settings import apply_old_keywords, job_settings, verbose_level


def test_old_keywords_warn_and_set_their_field():
    given = {"null": S.NullSettings(alpha=0.01), "cortex": S.CortexInput()}
    with pytest.warns(FutureWarning) as record:
        out = apply_old_keywords("run_map", {"n_permutations": 9,
                                                "cortex_permutations": 7}, given)
    assert [str(w.message).split(";")[1] for w in record] == [
        " use null=NullSettings(n_permutations=...) (toponeuro.settings.NullSettings).",
        " use cortex=CortexInput(n_permutations=...) (toponeuro.settings.CortexInput)."]
    assert out["null"] == S.NullSettings(n_permutations=9, alpha=0.01)
    assert out["cortex"].n_permutations == 7
    with pytest.raises(TypeError, match="unexpected keyword argument 'permutations'"):
        apply_old_keywords("run_map", {"permutations": 9}, given)
    with pytest.raises(TypeError, match="'top_k'"):  # a keyword of the other job
        apply_old_keywords("run_map", {"top_k": 9}, given)
    with pytest.raises(ParameterError, match="null.n_permutations=-1"), \
            pytest.warns(FutureWarning):
        apply_old_keywords("run_map", {"n_permutations": -1}, given)


def test_old_keywords_give_the_same_settings_as_the_new_form():
    """The job runs on what job_settings returns: the same objects, the same run."""
    old = {"n_permutations": 9, "alpha": 0.1, "random_state": 3, "threshold": 1.5,
           "min_units": 4, "cortex_permutations": 7, "cortex_min_vertices": 5,
           "hemispheres": ["left"], "ruler_permutations": 5, "batch_size": 8,
           "checkpoint": "w.pt", "position_units": "mm"}
    defaults = {"null": S.NullSettings(), "patches": S.PatchRule(), "cortex": S.CortexInput(),
                "ruler": S.RulerRun(n_permutations=199), "extraction": S.Extraction()}
    with pytest.warns(FutureWarning):
        via_old = job_settings("run_map", "m.v1", "x", old, ruler_draws=199, **defaults)
    new = job_settings(
        "run_map", S.ModelSource("m.v1", checkpoint="w.pt", position_units="mm"), "x", {},
        ruler_draws=199, null=S.NullSettings(n_permutations=9, alpha=0.1, random_state=3),
        patches=S.PatchRule(threshold=1.5, min_units=4),
        cortex=S.CortexInput(n_permutations=7, min_vertices=5, hemispheres=("left",)),
        ruler=S.RulerRun(n_permutations=5), extraction=S.Extraction(batch_size=8))
    assert via_old == new
    assert new["cortex"].threshold == 1.5  # the job's default: patches.threshold
    assert new["record"]["cortex"]["threshold"] == 1.5


@pytest.mark.parametrize("job, cls, old, field, value", [
    ("run_map", S.FlocStimuli, "numbers", "numbers", "97-98"),
    ("run_language_map", S.LanguageStimuli, "verb_noun", "verb_noun", None),
])
def test_the_stimuli_keywords_travel_with_the_stimuli(job, cls, old, field, value):
    """0.4's numbers= / verb_noun= set the stimuli settings' field (FutureWarning)."""
    defaults = {"null": S.NullSettings(), "patches": S.PatchRule(), "cortex": S.CortexInput(),
                "ruler": S.RulerRun(), "extraction": S.Extraction()}
    if cls is S.LanguageStimuli:
        defaults["units"] = S.LanguageUnits()
    with pytest.warns(FutureWarning, match=f"use stimuli={cls.__name__}\\({field}=...\\)"):
        via_old = job_settings(job, "m.v1", "x", {old: value}, ruler_draws=None,
                                  stimuli="here", **defaults)
    assert via_old["stimuli"] == cls("here", **{field: value})
    new = job_settings(job, "m.v1", "x", {}, ruler_draws=None,
                          stimuli=cls("here", **{field: value}), **defaults)
    assert via_old == new and "stimuli" not in new["record"]  # the summary: unchanged


@pytest.mark.parametrize("verbose, progress, level", [
    (2, None, 2), (True, None, 2), (False, None, 0), (1, None, 1), (0, None, 0),
    (True, False, 1), (2, False, 1), (0, True, 0), (2, True, 2)])
def test_verbose_is_one_level(verbose, progress, level):
    """progress= and verbose= of 0.4 are one scikit-learn-like level."""
    old = {} if progress is None else {"progress": progress}
    defaults = {"null": S.NullSettings(), "patches": S.PatchRule(), "cortex": S.CortexInput(),
                "ruler": S.RulerRun(), "extraction": S.Extraction()}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = job_settings("run_map", "m.v1", "x", old, ruler_draws=199, verbose=verbose,
                              **defaults)
    assert got["verbose"] == level
    assert any("use verbose=" in str(w.message) for w in caught) == bool(old)


@pytest.mark.parametrize("bad, err", [(3, ParameterError), ("yes", InputTypeError),
                                      (-1, ParameterError)])
def test_a_bad_verbose_names_it(bad, err):
    with pytest.raises(err, match="verbose"):
        verbose_level(bad)


@pytest.mark.parametrize("call", ["run_map", "run_language_map", "prepare"])
def test_a_settings_parameter_of_another_kind_is_refused_at_the_call(call, tmp_path):
    """Each settings parameter is checked once, by the job's declaration, before anything
    else (also with an old keyword that would change it): job_settings does not check again."""
    import toponeuro.reporting as R

    kwargs = {} if call == "prepare" else {"out_dir": tmp_path / "o"}
    with pytest.raises(InputTypeError, match=r"^null=5 is not a NullSettings"):
        getattr(R, call)(null=5, **kwargs)
    with pytest.raises(InputTypeError, match=r"^cortex=\{\} is not a CortexInput"):
        getattr(R, call)(cortex={}, **kwargs)
    if call != "prepare":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            with pytest.raises(InputTypeError, match=r"^null=5 is not a NullSettings"):
                getattr(R, call)(null=5, n_permutations=9, **kwargs)
    assert not (tmp_path / "o").exists()


def test_the_language_job_records_the_whole_hemisphere_it_compares():
    """The language job's ruler runs on whole hemispheres: its record says so (not the
    vision job's default region, 'votc'); the vision job keeps its region."""
    defaults = {"null": S.NullSettings(), "patches": S.PatchRule(), "cortex": S.CortexInput(),
                "ruler": S.RulerRun(), "extraction": S.Extraction()}
    vision = job_settings("run_map", "m.v1", "x", {}, ruler_draws=None, **defaults)
    assert vision["ruler"].descriptors.cortex_region == "votc"
    assert vision["record"]["ruler"]["descriptors"]["cortex_region"] == "votc"
    lang = job_settings("run_language_map", "m.v1", "x", {}, ruler_draws=None,
                        units=S.LanguageUnits(), **defaults)
    assert lang["ruler"].descriptors.cortex_region is None
    assert lang["record"]["ruler"]["descriptors"]["cortex_region"] is None
