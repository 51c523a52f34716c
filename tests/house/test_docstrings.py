"""numpydoc validation of every public object (scikit-learn's ``test_docstrings.py``).

Every name in the ``__all__`` of the package and of each sub-package is validated with
:func:`numpydoc.validate.validate`; the checks in :data:`IGNORED` are skipped, each for the
reason given beside it. :data:`TO_FIX` lists the objects whose docstrings still fail, with
the checks they fail: an object may not fail any other check, and an entry that no longer
fails must be removed (the list only shrinks).
"""

from __future__ import annotations

import importlib
import inspect

import pytest

numpydoc_validate = pytest.importorskip("numpydoc.validate")

import toponeuro  # noqa: E402

PACKAGES = ["toponeuro", "toponeuro.sheet", "toponeuro.exceptions", "toponeuro.tutorial",
            "toponeuro.reporting", *(f"toponeuro.{p}" for p in toponeuro._SUBPACKAGES)]

#: numpydoc checks not applied, and why
IGNORED = {
    "SA01",  # "See Also" is optional: cross-references are written in the text
    "ES01",  # an extended summary is optional: a one-line summary can say it all
    "SS05",  # flags any summary whose first word ends in "s": our noun-phrase summaries
             # ("Names of the tensors ...", "The network a checkpoint holds") are house style
    "SS06",  # a summary is one sentence, which may wrap at the 100-column line length
}

#: checks not applied to exception and warning classes: they are raised, not called; their
#: docstring says when (the messages are tested in tests/_io/test_bad_input.py and
#: tests/analysis/test_bad_input_analysis.py)
IGNORED_FOR_EXCEPTIONS = {"EX01", "PR01"}

#: qualified name -> the checks it still fails (only shrinks; see the module docstring).
#: Empty: every public object passes. Keep it so; a new object's docstring is fixed, not
#: listed here.
TO_FIX: dict[str, set[str]] = {}


def public_objects() -> dict[str, str]:
    """qualified name of the definition -> one public import path, for every callable in an
    ``__all__`` (a name re-exported by several packages is validated once)."""
    found = {}
    for pkg in PACKAGES:
        module = importlib.import_module(pkg)
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if inspect.ismodule(obj) or not callable(obj):
                continue
            qual = f"{obj.__module__}.{getattr(obj, '__qualname__', name)}"
            found.setdefault(qual, f"{pkg}.{name}")
    return found


def failures(path: str, obj) -> set[str]:
    """The numpydoc checks ``path`` fails, less the ignored ones."""
    ignored = IGNORED | (
        IGNORED_FOR_EXCEPTIONS if inspect.isclass(obj) and issubclass(obj, BaseException)
        else set()
    )
    return {code for code, _ in numpydoc_validate.validate(path)["errors"]} - ignored


OBJECTS = public_objects()


def _resolve(path: str):
    module, _, name = path.rpartition(".")
    return getattr(importlib.import_module(module), name)


def test_every_package_is_covered():
    assert len(OBJECTS) > 300  # every sub-package's __all__, re-exports once


@pytest.mark.parametrize("qual", sorted(OBJECTS))
def test_docstring(qual):
    path = OBJECTS[qual]
    obj = _resolve(path)
    got = failures(path, obj)
    allowed = TO_FIX.get(qual, set())
    new = got - allowed
    if new:
        messages = [f"{c}: {m}" for c, m in numpydoc_validate.validate(path)["errors"]
                    if c in new]
        pytest.fail(f"{path} ({qual}) fails numpydoc checks:\n" + "\n".join(messages))
    assert not allowed - got, f"{qual} no longer fails {sorted(allowed - got)}: remove them from TO_FIX"


def _planted(x, y):
    """do things"""
    return x + y


def test_the_validation_finds_a_planted_bad_docstring():
    # no Parameters, no Returns, no capital letter, no period, no Examples
    assert {"PR01", "RT01", "SS02", "SS03", "EX01"} <= failures(f"{__name__}._planted", _planted)
    assert "SA01" not in failures(f"{__name__}._planted", _planted)  # ignored
