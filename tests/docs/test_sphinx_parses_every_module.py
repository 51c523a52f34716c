"""Sphinx's own source parser reads every module (the API pages need it).

Sphinx re-renders the decorators it meets; a dict display with ``**`` unpacking there
(``@validate_params({**BASE, "x": X})``) made it fail on five modules, which broke the docs
build with ``-W`` (``failed to import Patches.map``). Write ``dict(BASE, x=X)`` instead.
"""

from __future__ import annotations

import pkgutil

import pytest

import toponeuro


@pytest.mark.slow  # Sphinx's parser over every module (~2.2 s); the docs build parses them too
def test_sphinx_parses_every_module():
    pycode = pytest.importorskip("sphinx.pycode")
    bad = []
    for mod in pkgutil.walk_packages(toponeuro.__path__, "toponeuro."):
        try:
            pycode.ModuleAnalyzer.for_module(mod.name).analyze()
        except Exception as exc:  # noqa: BLE001 - report every module that fails
            bad.append(f"{mod.name}: {exc}")
    assert not bad, "\n".join(bad)


def test_the_planted_dict_unpacking_is_caught(tmp_path, monkeypatch):
    pycode = pytest.importorskip("sphinx.pycode")
    src = ("BASE = {}\n\n\ndef deco(d):\n    return lambda f: f\n\n\nclass C:\n"
           "    @deco({**BASE, 'x': 1})\n    def m(self):\n        pass\n")
    with pytest.raises(Exception, match="zip"):
        pycode.ModuleAnalyzer.for_string(src, "planted").analyze()
