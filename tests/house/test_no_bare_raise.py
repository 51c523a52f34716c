"""Every error toponeuro raises is a toponeuro exception (issue 19).

The types in :mod:`toponeuro.exceptions` also subclass the builtins, so ``except ValueError``
keeps working, while the CLI's handler (which catches ``ToponeuroError``) shows each one as a
one-line message instead of a traceback. This test parses every module of ``toponeuro/`` and
fails on any ``raise`` of a builtin exception type, except the cases listed below with why.
"""

from __future__ import annotations

import ast
import builtins
from pathlib import Path

import pytest
from _parsed import parse  # tests/house: the package parsed once per process

import toponeuro
from toponeuro.exceptions import ToponeuroError

ROOT = Path(toponeuro.__file__).parent

BUILTIN_ERRORS = {
    name for name, obj in vars(builtins).items()
    if isinstance(obj, type) and issubclass(obj, BaseException)
}

#: files run where toponeuro is not installed (a Brain-Score plugin and its scoring runner,
#: in Brain-Score's own environment), so they cannot import toponeuro.exceptions
STANDALONE = {
    "brainscore/_plugin_arch.py",
    "brainscore/_plugin_nanogpt.py",
    "brainscore/_runner.py",
    "models/_standalone.py",
}

#: (file, function): builtin raises the Python protocol requires
ALLOWED = {
    ("__init__.py", "__getattr__"): "AttributeError",  # module __getattr__ (PEP 562)
    ("analysis/__init__.py", "__getattr__"): "AttributeError",
    ("_util/deprecate.py", "__getattr__"): "AttributeError",  # the removed names' PEP 562 hook
}


def _raised_name(node: ast.Raise) -> str | None:
    exc = node.exc
    if exc is None:  # a bare `raise`: re-raises the exception being handled
        return None
    func = exc.func if isinstance(exc, ast.Call) else exc
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _is_abstract(fn) -> bool:
    return any(
        (isinstance(d, ast.Name) and d.id == "abstractmethod")
        or (isinstance(d, ast.Attribute) and d.attr == "abstractmethod")
        for d in fn.decorator_list
    )


def bare_raises(source: str, rel: str) -> list[str]:
    """``file:line: Name`` for every raise of a builtin exception type in ``source``."""
    tree = parse(source)
    found = []

    def visit(node, func=None):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                visit(child, child)
                continue
            if isinstance(child, ast.Raise):
                name = _raised_name(child)
                if name in BUILTIN_ERRORS:
                    fname = func.name if func is not None else None
                    allowed = ALLOWED.get((rel, fname)) == name or (
                        name == "NotImplementedError" and func is not None and _is_abstract(func)
                    )
                    if not allowed:
                        found.append(f"{rel}:{child.lineno}: raise {name}")
            visit(child, func)

    visit(tree)
    return found


def test_no_builtin_exception_is_raised_bare():
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel in STANDALONE:
            continue
        found += bare_raises(path.read_text(encoding="utf-8"), rel)
    assert not found, (
        "raise a type from toponeuro.exceptions (each also subclasses the builtin callers "
        "catch) instead of:\n" + "\n".join(found)
    )


def test_the_rule_sees_what_it_should():
    src = '''
import abc
def f(x):
    raise ValueError("bad")
def g():
    try:
        pass
    except KeyError:
        raise
class A(abc.ABC):
    @abc.abstractmethod
    def h(self):
        raise NotImplementedError
def k():
    raise NotImplementedError("not abstract")
def __getattr__(name):
    raise AttributeError(name)
def m(err):
    raise err
'''
    assert bare_raises(src, "x.py") == [
        "x.py:4: raise ValueError",
        "x.py:15: raise NotImplementedError",
        "x.py:17: raise AttributeError",  # allowed only in the modules listed
    ]


def test_the_standalone_files_import_no_toponeuro():
    for rel in STANDALONE:
        tree = parse((ROOT / rel).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                # _plugin_arch inlines toponeuro.models._standalone when exported
                assert not node.module.startswith("toponeuro") or node.module == (
                    "toponeuro.models._standalone"
                ), (rel, node.module)


@pytest.mark.parametrize("name", [
    "MissingDependencyError", "ExternalCommandError", "InternalError", "ParameterError",
    "InputTypeError",
])
def test_new_types_are_toponeuro_errors_and_builtins(name):
    from toponeuro import exceptions

    cls = getattr(exceptions, name)
    assert issubclass(cls, ToponeuroError)
    assert any(b in BUILTIN_ERRORS and b != "Exception" for b in (c.__name__ for c in cls.__mro__))
