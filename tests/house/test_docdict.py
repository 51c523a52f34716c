"""Parameter docs are written once: a parameter that has a shared entry in ``_docs.DOCDICT``
(``n_permutations``, ``alpha``, ``random_state``, ...) is documented through it
(``%(name)s``), not by hand, in every public function's ``Parameters`` section."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from _parsed import parse  # tests/house: the package parsed once per process

from toponeuro._util.docs import DOCDICT

PKG = Path(__file__).resolve().parents[2] / "toponeuro"

#: entries whose key is the parameter they document (the others describe e.g. ``path`` of a
#: folder reader, a name too general to require everywhere)
SHARED = {k: v.split(" : ", 1)[0] for k, v in DOCDICT.items() if v.split(" : ", 1)[0] == k}

#: hand-written on purpose: the parameter means something else there
ALLOWED = {
    # the draws only decide how floor p-values are spelled; no null is drawn
    ("plotting/_compare.py", "plot_arrangement_by_layer", "n_permutations"),
    # prints a line per epoch (or logged step), not a tqdm bar
    ("training/_recipes.py", "run_recipe", "progress"),
    # replaces the recipe's device (None keeps it), and is `toponeuro train --device`'s help
    ("training/_recipes.py", "run_recipe", "device"),
    # a legacy RandomState, to reproduce rsatoolbox's draws
    ("analysis/rsa/_rsa_inference.py", "compare_rdm_models", "random_state"),
}


def _parameters(doc: str) -> list[str]:
    """The names documented in a numpydoc ``Parameters`` section, as written."""
    lines = doc.expandtabs().splitlines()
    names, inside = [], False
    for i, line in enumerate(lines):
        if line.strip() == "Parameters" and i + 1 < len(lines) and set(lines[i + 1].strip()) == {"-"}:
            inside = True
            continue
        if inside and i + 1 < len(lines) and lines[i + 1].strip() and \
                set(lines[i + 1].strip()) == {"-"} and line.strip():
            break  # the next section
        m = re.match(r"^\s{0,8}(\w+)\s*:\s", line) if inside else None
        if m and len(line) - len(line.lstrip()) <= 8:
            names.append(m.group(1))
    return names


def _hand_written():
    found = []
    for path in sorted(PKG.rglob("*.py")):
        tree = parse(path.read_text("utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            if node.name.startswith("_"):
                continue
            doc = ast.get_docstring(node, clean=True) or ""
            for name in _parameters(doc):
                rel = str(path.relative_to(PKG))
                if name in SHARED.values() and (rel, node.name, name) not in ALLOWED:
                    found.append(f"{rel}::{node.name}: {name}")
    return found


def test_the_shared_entries_are_found():
    assert {"n_permutations", "alpha", "random_state"} <= set(SHARED)


def test_the_check_sees_a_hand_written_parameter():
    doc = "Do it.\n\nParameters\n----------\nn_permutations : int\n    Draws.\n\nReturns\n-------\nx\n"
    assert _parameters(doc) == ["n_permutations"]


def test_shared_parameters_are_documented_through_the_docdict():
    found = _hand_written()
    assert not found, (
        "these public functions write a shared parameter's doc by hand; use %(name)s from "
        "toponeuro/_util/docs.py DOCDICT (and @fill_doc):\n" + "\n".join(found))


def test_no_public_docstring_is_left_unfilled():
    """A ``%(name)s`` placeholder in a function without ``@fill_doc`` reaches the user as is
    (0.4: ``plot_arrangement`` showed ``%(figure)s``)."""
    import importlib
    import pkgutil

    import toponeuro

    left = set()
    for info in pkgutil.walk_packages(toponeuro.__path__, "toponeuro."):
        if info.name.startswith("toponeuro.brainscore._plugin"):
            continue
        try:
            mod = importlib.import_module(info.name)
        except ImportError:  # an optional extra that is not installed
            continue
        for name, obj in vars(mod).items():
            doc = getattr(obj, "__doc__", None) if callable(obj) else None
            if doc and "%(" in doc and name != "fill_doc":
                left.add(f"{getattr(obj, '__module__', info.name)}.{name}")
    assert not left, "add @fill_doc to: " + ", ".join(sorted(left))
