"""numpydoc validation of every public object (scikit-learn's ``test_docstrings.py``).

Every name in the ``__all__`` of the package and of each sub-package, and every public
method and property of a public class, is validated with
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

#: checks not applied to methods and properties: a class's Examples section (validated with
#: the class) shows its methods in use, as scikit-learn's estimators do
IGNORED_FOR_METHODS = {"EX01"}

#: qualified name -> the checks it still fails (only shrinks; see the module docstring). A
#: new object's docstring is fixed, not listed here.
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
            if inspect.isclass(obj) and not issubclass(obj, BaseException):
                for method, path in public_methods(obj).items():
                    found.setdefault(f"{qual}.{method}", f"{pkg}.{name}.{path}")
    return found


def public_methods(cls) -> dict[str, str]:
    """name -> name, for the public methods and properties ``cls`` defines itself in toponeuro
    (inherited ones are validated with the class that defines them)."""
    out = {}
    for name, attr in vars(cls).items():
        if name.startswith("_"):
            continue
        func = attr.__func__ if isinstance(attr, staticmethod | classmethod) else attr
        func = func.fget if isinstance(func, property) else func
        if inspect.isfunction(func) and func.__module__.startswith("toponeuro"):
            out[name] = name
    return out


def _is_method(path: str) -> bool:
    owner = path.rpartition(".")[0]
    module, _, name = owner.rpartition(".")
    if not module:  # toponeuro.<name>: a package's own name
        return False
    try:
        return inspect.isclass(getattr(importlib.import_module(module), name))
    except (ImportError, AttributeError):
        return False


def failures(path: str, obj) -> set[str]:
    """The numpydoc checks ``path`` fails, less the ignored ones."""
    ignored = IGNORED | (
        IGNORED_FOR_EXCEPTIONS if inspect.isclass(obj) and issubclass(obj, BaseException)
        else set()
    ) | (IGNORED_FOR_METHODS if _is_method(path) else set())
    return {code for code, _ in numpydoc_validate.validate(path)["errors"]} - ignored


OBJECTS = public_objects()


def _resolve(path: str):
    module, _, name = path.rpartition(".")
    if _is_method(path):
        owner, _, name = path.rpartition(".")
        module, _, cls = owner.rpartition(".")
        return inspect.getattr_static(getattr(importlib.import_module(module), cls), name)
    return getattr(importlib.import_module(module), name)


def test_every_package_is_covered():
    assert len(OBJECTS) > 400  # every sub-package's __all__, re-exports once, and methods
    assert "toponeuro.stimuli._set.StimulusSet.select" in OBJECTS  # a method
    assert "toponeuro.analysis.topography._topomap.TopoMap.n" in OBJECTS  # a property


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
