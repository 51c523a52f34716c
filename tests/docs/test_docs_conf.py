"""``docs/conf.py``'s opt-in preparation of the gallery (``TOPONEURO_DOCS_PREPARE=1``).

Importing ``docs/conf.py`` writes the API page and the gallery's data signature (and imports
every public module), so its two functions are compiled from its source alone, with a
stand-in ``toponeuro.prepare`` that records what the build would prepare.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path
from types import SimpleNamespace

import pytest

CONF = Path(__file__).resolve().parents[2] / "docs" / "conf.py"
FUNCTIONS = ("_prepare_gallery", "_prepare_if_asked")


@pytest.fixture
def conf(monkeypatch):
    """conf.py's two functions, with ``toponeuro.prepare`` recording its calls and the
    tutorial's TopoLM contrast a stand-in (the real one may download)."""
    import toponeuro.tutorial

    tree = ast.parse(CONF.read_text(encoding="utf-8"))
    defs = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in FUNCTIONS]
    assert sorted(d.name for d in defs) == sorted(FUNCTIONS)
    calls = []

    def prepare(job, **kwargs):
        calls.append((job, kwargs))
        return {"job": job}

    monkeypatch.setattr(toponeuro.tutorial, "tutorial_topolm_contrast", lambda: "verbs.nc")
    namespace = {"os": os, "toponeuro": SimpleNamespace(prepare=prepare)}
    exec(compile(ast.Module(body=defs, type_ignores=[]), str(CONF), "exec"), namespace)
    return SimpleNamespace(calls=calls, **{name: namespace[name] for name in FUNCTIONS})


def test_conf_prepares_only_when_asked(conf):
    for environ in ({}, {"TOPONEURO_DOCS_PREPARE": "0"}, {"TOPONEURO_DOCS_PREPARE": "yes"}):
        assert conf._prepare_if_asked(environ) is None
    assert conf.calls == []
    assert conf._prepare_if_asked({"TOPONEURO_DOCS_PREPARE": "1"}) == [
        {"job": "map"}, {"job": "language"}, {"job": "language"}]
    assert len(conf.calls) == 3


def test_conf_prepares_the_tutorials_jobs_with_their_settings(conf):
    """The three tutorials that run a job: quickstart (map, 200 draws of each null),
    the language map (200 draws) and TopoLM's fs_LR map as a cortex map (99 draws)."""
    conf._prepare_gallery()
    (job1, quick), (job2, language), (job3, fslr) = conf.calls
    assert (job1, job2, job3) == ("map", "language", "language")
    assert quick["cortex"].n_permutations == quick["null"].n_permutations == 200
    assert "cortex" not in language and language["null"].n_permutations == 200
    assert fslr["cortex"].maps == {"verbs": "verbs.nc"} and fslr["cortex"].threshold == 2.0
    assert fslr["null"].n_permutations == 99
    assert {kwargs["verbose"] for _, kwargs in conf.calls} == {0}


def test_conf_calls_the_decision_when_sphinx_reads_it():
    """The module's own statement runs the decision (not _prepare_gallery unconditionally)."""
    tree = ast.parse(CONF.read_text(encoding="utf-8"))
    called = [n.value.func.id for n in tree.body if isinstance(n, ast.Expr)
              and isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Name)]
    assert "_prepare_if_asked" in called and "_prepare_gallery" not in called
