"""docs/reproduction_language.inc is prose written around measured numbers; every number it
quotes from docs/demo_language_results.json (the record bench/ship_topo_lm.py writes) must be
that record's, so the page cannot drift from the measurement."""

import json
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"


@pytest.fixture(scope="module")
def page_and_record():
    inc, rec = DOCS / "reproduction_language.inc", DOCS / "demo_language_results.json"
    if not (inc.exists() and rec.exists()):
        pytest.skip("the docs folder is not beside the tests (an installed package)")
    page = " ".join(inc.read_text(encoding="utf-8").split())
    return page, json.loads(rec.read_text(encoding="utf-8"))["models"]


def _pair(models, tau, key, fmt):
    names = (f"toponet_lm_demo.tau_{tau}", f"toponet_lm_demo.tau_{tau}_seed1")
    return " / ".join(fmt(models[n]["localizer"][key] if key in models[n]["localizer"]
                          else models[n]["task"][key]) for n in names)


def test_quoted_numbers_are_the_record(page_and_record):
    page, models = page_and_record

    def f3(x):
        return f"{x:.3f}"

    def f4(x):
        return f"{x:.4f}"

    def of6(x):
        return f"{x} / 6"

    smooth = (f"{_pair(models, 1, 'mean_smoothness', f3)} vs "
              f"{_pair(models, 0, 'mean_smoothness', f3)}")
    assert smooth in page, smooth
    dice = (f"Dice of the top-10 % S > N units {_pair(models, 1, 'split_half_dice', f3)} for "
            f"τ = 1, {_pair(models, 0, 'split_half_dice', f3)} for τ = 0")
    assert dice in page, dice
    cos = (f"cosine to the base {_pair(models, 1, 'heldout_cosine', f4)} (τ = 1) vs "
           f"{_pair(models, 0, 'heldout_cosine', f4)}")
    assert cos in page, cos
    t1 = [models[f"toponet_lm_demo.tau_1{s}"]["localizer"] for s in ("", "_seed1")]
    t0 = [models[f"toponet_lm_demo.tau_0{s}"]["localizer"] for s in ("", "_seed1")]
    assert all(m["n_layers_smooth_p05"] == 6 for m in t1)
    assert (f"in {of6(t0[0]['n_layers_smooth_p05'])} and "
            f"{of6(t0[1]['n_layers_smooth_p05'])} for the τ = 0 seeds") in page
    patches = " and ".join(of6(m["n_layers_with_significant_patch"]) for m in t1)
    assert f"{patches} layers for τ = 1" in page
    assert all(m["n_layers_with_significant_patch"] == 0 for m in t0)
    assert all(models[n]["task"]["heldout_retrieval_top1"] == 1.0 for n in models)
