"""The docs' landing page is written by docs/make_landing_figures.py from a real run (issue 34):
its captions name the run's headline layer and numbers, never a hard-coded layer, and the
report's first screen is composed from report.html's answer section."""

from __future__ import annotations

import base64
import importlib.util
import io
import json
import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"
LANDING = DOCS / "_static" / "landing"


@pytest.fixture(scope="module")
def script():
    spec = importlib.util.spec_from_file_location("make_landing_figures",
                                                  DOCS / "make_landing_figures.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _summary(layer="layer9.9.conv7"):
    arr = {"spearman": 0.5, "p_text": "p = 0.123 (one-sided)"}
    return {"headline": {"layer": layer, "rule": "the deepest mapped layer",
                         "arrangement": {"left": arr, "right": {**arr, "spearman": -1.0}}},
            "stimuli": {"n_stimuli": 240}, "model": {"name": "toponet_demo.v2_tau_50"},
            "seconds": 68.4, "toponeuro_version": "9.9", "created": "2030-01-01T00:00:00"}


def test_the_script_names_no_layer_of_its_own():
    src = (DOCS / "make_landing_figures.py").read_text(encoding="utf-8")
    assert not re.search(r"layer\d", src), "the layer must come from summary.json's headline"


def test_captions_follow_the_run(script):
    scores = {"TopoNet (τ = 50)": {"faces": 0.31, "bodies": 0.2, "places": 0.4},
              "control (τ = 0)": {"faces": 0.01, "bodies": 0.02, "places": 0.0}}
    text = " ".join(script.captions(_summary(), scores,
                                    "2 CPU cores (x86_64), load average 1.9").split())
    assert text.count("layer9.9.conv7") >= 4 and "layer4" not in text and "layer3" not in text
    for needed in ("faces 0.31 vs 0.01", "Spearman ρ = +0.50, p = 0.123 (one-sided)",
                   "Spearman ρ = -1.00", "68 s on 2 CPU cores (x86_64), load average 1.9",
                   "not a browser screenshot", "toponeuro 9.9 (2030-01-01)"):
        assert needed in text, needed


def test_the_first_screen_is_read_from_the_report(script, tmp_path):
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig = plt.figure(figsize=(2, 1))
    fig.savefig(buf, format="png")
    plt.close(fig)
    png = base64.b64encode(buf.getvalue()).decode()
    report = (f"<html><body><h1>Category-selective topography of <code>m.x</code></h1>"
              f'<section class="answer" id="answer"><div class="headline"><p><b>Model vs '
              f"cortex.</b> Do they?</p><ul><li><b>Left:</b> ρ = 0.5</li><li>Right</li></ul>"
              f'<p>The rule.</p></div><figure><img alt="a" src="data:image/png;base64,{png}">'
              f'</figure><p class="run"><b>Run:</b> m.x on 2 images.<br>Against atlas.</p>'
              f"</section><h2>Methods</h2></body></html>")
    answer = script.answer_section(report)
    assert answer["title"] == "Category-selective topography of m.x"
    assert [ln for ln in answer["headline"].split("\n") if ln] == [
        "Model vs cortex. Do they?", "• Left: ρ = 0.5", "• Right", "The rule."]
    assert answer["run"].split("\n") == ["Run: m.x on 2 images.", "Against atlas."]
    assert answer["figure"] == buf.getvalue()
    script.draw_report(answer, tmp_path / "r.png")
    assert plt.imread(tmp_path / "r.png").shape[1] == 880  # 11 in at 80 dpi
    with pytest.raises(SystemExit, match="answer section"):
        script.answer_section("<html><h1>t</h1><p>methods first</p></html>")


def test_the_committed_page_is_the_scripts_output():
    index = (DOCS / "index.rst").read_text(encoding="utf-8")
    assert ".. include:: landing_figures.inc" in index
    assert "_static/landing/" not in index  # figures only through the generated block
    inc = (DOCS / "landing_figures.inc").read_text(encoding="utf-8")
    meta = json.loads((LANDING / "landing.json").read_text(encoding="utf-8"))
    assert inc.startswith(".. This file is written by docs/make_landing_figures.py")
    layers = set(re.findall(r"``(layer[\w.]+)``", inc))
    assert layers == {meta["headline_layer"]}
    topo, ctrl = meta["smoothness"].values()
    for d, s in topo.items():
        assert f"{d} {s:.2f} vs {ctrl[d]:.2f}" in inc
    assert f"{meta['seconds']:.0f} s on {meta['machine']}" in " ".join(inc.split())
    for png in ("report.png", "sheets.png", "smoothness.png"):
        assert (LANDING / png).stat().st_size < 300_000, png
