"""The tutorials use public API only, and no cell ends in an expression whose repr would be
printed under it (``<Figure size ...>``, ``<matplotlib.legend.Legend ...>``)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

TUTORIALS = sorted((Path(__file__).resolve().parents[2] / "tutorials").glob("plot_*.py"))
_QUIET = {"print", "plt.show", "data_note", "show"}  # calls whose value is None or wanted


@pytest.mark.parametrize("path", TUTORIALS, ids=lambda p: p.name)
def test_tutorial_imports_no_private_module(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        mods = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
        for mod in mods:
            if mod.startswith("toponeuro"):
                assert not any(part.startswith("_") for part in mod.split(".")), (path.name, mod)


@pytest.mark.parametrize("path", TUTORIALS, ids=lambda p: p.name)
def test_tutorial_cells_do_not_end_in_clutter(path):
    src = path.read_text(encoding="utf-8")
    lines = src.splitlines()
    starts = [i + 1 for i, line in enumerate(lines) if line.startswith("# %%")]
    body = ast.parse(src).body
    for a, b in zip([0, *starts], [*starts, len(lines) + 1]):
        cell = [s for s in body if a <= s.lineno < b]
        if not cell or not isinstance(cell[-1], ast.Expr):
            continue
        value = cell[-1].value
        if isinstance(value, ast.Constant):
            continue
        if isinstance(value, ast.Call) and ast.unparse(value.func) in _QUIET:
            continue
        if isinstance(value, ast.Call) and ast.unparse(value.func).endswith(
                ("tight_layout", ".close")):
            continue  # return None
        pytest.fail(f"{path.name}:{cell[-1].lineno}: the cell ends in "
                    f"`{ast.unparse(value)[:60]}`, whose repr would be printed; end it with "
                    "plt.show() or assign the value")
