"""Every public function and class has a numpydoc Examples section (which runs as a doctest).

Public means listed in the ``__all__`` of ``toponeuro`` or one of its sub-packages. pytest runs
the Examples themselves (``--doctest-modules`` on ``toponeuro/``); this test makes sure none
is missing, so a new public callable cannot land without one.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re

import toponeuro

_EXAMPLES = re.compile(r"^\s*Examples\n\s*-{8,}\s*$", re.MULTILINE)


def public_modules() -> list[str]:
    names = ["toponeuro"]
    for info in pkgutil.iter_modules(toponeuro.__path__, "toponeuro."):
        if not info.name.rsplit(".", 1)[-1].startswith("_"):
            names.append(info.name)
    return names


def public_callables() -> dict[str, object]:
    out = {}
    for mod_name in public_modules():
        if mod_name == "toponeuro.cli":
            continue  # the command line, documented by --help (tests/test_cli*)
        mod = importlib.import_module(mod_name)
        for name in getattr(mod, "__all__", ()):
            obj = getattr(mod, name)
            if inspect.isclass(obj) and issubclass(obj, BaseException | Warning):
                continue  # types to catch; toponeuro.exceptions shows them in one Example
            if inspect.isfunction(obj) or inspect.isclass(obj):
                key = f"{obj.__module__}.{obj.__qualname__}"
                out.setdefault(key, obj)
    return out


def has_examples(obj) -> bool:
    return bool(_EXAMPLES.search(inspect.getdoc(obj) or ""))


def test_the_check_sees_a_missing_section():
    def documented():
        """Do a thing.

        Examples
        --------
        >>> documented()
        """

    def undocumented():
        """Do a thing, no example."""

    assert has_examples(documented) and not has_examples(undocumented)
    assert len(public_callables()) > 100


def test_every_public_callable_has_an_examples_section():
    missing = sorted(k for k, obj in public_callables().items() if not has_examples(obj))
    assert not missing, f"{len(missing)} public callables lack an Examples section: {missing}"
