"""Sphinx configuration for toponeuro's documentation.

The API page is generated from each public module's ``__all__`` at build time, so every
public object gets an autosummary entry without a hand-kept list. Tutorials in
``../tutorials`` are executed by sphinx-gallery during the build.
"""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))  # _tutorial_order (the gallery's sort key)
os.environ.setdefault("TOPONEURO_PROGRESS", "0")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import toponeuro  # noqa: E402

project = "toponeuro"
author = "toponeuro developers"
copyright = "2026, toponeuro developers"
release = version = toponeuro.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
]
templates_path = ["_templates"]
exclude_patterns = ["_build", "generated/*.examples"]
html_theme = "pydata_sphinx_theme"
html_static_path = ["_static"]
html_title = f"toponeuro {version}"
html_theme_options = {"navigation_with_keys": False}

autosummary_generate = True
autodoc_default_options = {"members": True, "inherited-members": False}
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_validation_checks: set = set()
suppress_warnings = ["autosummary.import_cycle"]

# Public modules documented on the API page, in data-flow order. A module that is not part of
# this checkout yet is skipped.
API_MODULES = [
    ("toponeuro", "Top level: the cortical sheet"),
    ("toponeuro.topoloss", "TopoLoss"),
    ("toponeuro.training", "Training small TopoNets"),
    ("toponeuro.models", "Models"),
    ("toponeuro.stimuli", "Stimuli"),
    ("toponeuro.features", "Feature extraction"),
    ("toponeuro.brain", "Brain data"),
    ("toponeuro.atlases", "Cortical atlases"),
    ("toponeuro.analysis", "Analysis"),
    ("toponeuro.plotting", "Plotting"),
    ("toponeuro.settings", "The jobs' settings"),
    ("toponeuro.reporting", "The main job (toponeuro map)"),
    ("toponeuro.brainscore", "Brain-Score"),
    ("toponeuro.tutorial", "Tutorial data"),
    ("toponeuro.exceptions", "Errors"),
]


def _write_api_page() -> None:
    lines = [
        "API reference",
        "=============",
        "",
        "Every public object, grouped by stage of the data flow. Generated from each module's",
        "``__all__``.",
        "",
    ]
    seen: set[int] = set()  # an object re-exported by several modules is documented once
    for modname, title in API_MODULES:
        try:
            mod = importlib.import_module(modname)
        except ImportError:
            continue
        names = []
        for n in getattr(mod, "__all__", []):
            obj = getattr(mod, n, None)
            if n.startswith("_") or n == "exceptions" or obj is None or id(obj) in seen:
                continue
            if not isinstance(obj, (str, int, float, tuple, dict, frozenset)):
                seen.add(id(obj))
            names.append(n)
        if modname == "toponeuro":
            names = [n for n in names if n in vars(mod)]
        if not names:
            continue
        lines += [title, "-" * len(title), "", f".. currentmodule:: {modname}", ""]
        lines += [".. autosummary::", "   :toctree: generated/", ""]
        lines += [f"   {n}" for n in names]
        lines.append("")
    (HERE / "api.rst").write_text("\n".join(lines))


_write_api_page()


def _data_signature() -> str:
    """Which real data the tutorials can read now: the fLoc copy, the language localizer.

    sphinx-gallery re-executes a tutorial only when its source changes (an MD5 cache), so a
    build after ``TOPONEURO_DATA`` changed would keep pages made on other data (e.g. synthetic
    stand-ins). When this signature differs from the last build's, every tutorial runs again.
    """
    root = Path(os.environ.get("TOPONEURO_DATA") or Path.home() / ".cache" / "toponeuro")
    floc = root / "floc"
    parts = [f"data={root}", f"floc={floc.resolve() if floc.exists() else 'none'}",
             f"langloc={(root / 'langloc' / 'fedorenko_stimuli.csv').is_file()}"]
    return "|".join(parts)


_SIGNATURE_FILE = HERE / "auto_tutorials" / ".data_signature"
_signature = _data_signature()
_stale = (not _SIGNATURE_FILE.is_file()
          or _SIGNATURE_FILE.read_text(encoding="utf-8") != _signature)
if _stale:
    _SIGNATURE_FILE.parent.mkdir(parents=True, exist_ok=True)
    _SIGNATURE_FILE.write_text(_signature, encoding="utf-8")

def _prepare_gallery() -> list[dict]:
    """Fill the null cache (``$TOPONEURO_NULL_CACHE``, else ``$TOPONEURO_DATA/nulls``: the
    folder every tutorial's job reads) with the cortex side of the three tutorials that run
    a job, with their settings: ``plot_quickstart.py`` (``run_map``, 200 draws of each null),
    ``plot_language_map.py`` (``run_language_map``, 200 draws) and
    ``plot_fslr_language_map.py`` (TopoLM's fs_LR map as a cortex map, 99 draws). Each
    tutorial then reads its cortex side instead of drawing it; their numbers are the same.

    Run when ``TOPONEURO_DOCS_PREPARE=1``: ``toponeuro.prepare`` computes the model side
    too: it moves time out of the tutorials' pages but never shortens the build (on an
    empty cache it adds the model sides; on a kept cache the tutorials read their cortex
    side anyway), so it is off by default (docs/changelog.rst, 0.5.0, "Lighter imports").
    """
    from toponeuro.settings import CortexInput, NullSettings
    from toponeuro.tutorial import tutorial_topolm_contrast

    verbs = tutorial_topolm_contrast()  # the tutorial's map (or its offline stand-in)
    return [
        toponeuro.prepare("map", cortex=CortexInput(n_permutations=200),
                          null=NullSettings(n_permutations=200), verbose=0),
        toponeuro.prepare("language", null=NullSettings(n_permutations=200), verbose=0),
        toponeuro.prepare("language", cortex=CortexInput(maps={"verbs": verbs}, threshold=2.0),
                          null=NullSettings(n_permutations=99), verbose=0),
    ]


def _prepare_if_asked(environ=os.environ) -> list[dict] | None:
    """:func:`_prepare_gallery` when ``TOPONEURO_DOCS_PREPARE`` is ``"1"`` in ``environ``,
    else nothing (off by default; ``tests/docs/test_docs_conf.py``)."""
    if environ.get("TOPONEURO_DOCS_PREPARE") == "1":
        return _prepare_gallery()
    return None


_prepare_if_asked()

sphinx_gallery_conf = {
    "examples_dirs": ["../tutorials"],
    "gallery_dirs": ["auto_tutorials"],
    "filename_pattern": r"/plot_",
    "abort_on_example_error": True,
    "only_warn_on_example_error": False,
    "remove_config_comments": True,
    "within_subsection_order": "_tutorial_order.QuickstartFirst",
    "matplotlib_animations": False,
    "show_memory": False,
    "plot_gallery": "True",
    "download_all_examples": False,
    # re-run every tutorial when the data they can read changed (see _data_signature);
    # force it by hand with `rm -rf docs/auto_tutorials`
    "run_stale_examples": _stale,
}
