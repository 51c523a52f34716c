"""Dimension and coordinate names come from ``toponeuro/_util/dims.py`` only: no string literal
naming a dimension where xarray reads one (``dims=`` / ``dim=`` arguments, ``.coords[...]``,
``.transpose`` / ``.stack`` / ``.squeeze`` / ``.rename`` / ``.swap_dims`` arguments)."""

from __future__ import annotations

import ast
from pathlib import Path

from _parsed import parse  # tests/house: the package parsed once per process

from toponeuro._util import dims as D

PKG = Path(__file__).resolve().parents[2] / "toponeuro"
NAMES = {v for k, v in vars(D).items() if k.isupper() and isinstance(v, str)
         and not k.startswith("ATTR_")}
_DIM_METHODS = {"transpose", "stack", "unstack", "squeeze", "swap_dims", "expand_dims",
                "drop_dims", "drop_vars", "rename"}  # (pandas set_index: table columns, not dims)


def _literals(node) -> list[str]:
    """The string constants of ``node`` (a constant, or a tuple / list / dict of them)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [x for e in node.elts for x in _literals(e)]
    if isinstance(node, ast.Dict):
        return [x for k in node.keys if k is not None for x in _literals(k)]
    return []


def _offences(tree: ast.AST) -> list[tuple[int, str]]:
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            for kw in node.keywords:
                if kw.arg in ("dim", "dims"):
                    out += [(node.lineno, s) for s in _literals(kw.value) if s in NAMES]
            if isinstance(node.func, ast.Attribute) and node.func.attr in _DIM_METHODS:
                for a in node.args:
                    out += [(node.lineno, s) for s in _literals(a) if s in NAMES]
        if (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute)
                and node.value.attr in ("coords", "sizes", "indexes", "xindexes")):
            out += [(node.lineno, s) for s in _literals(node.slice) if s in NAMES]
        if isinstance(node, ast.Compare) and any(
                isinstance(x, ast.Attribute) and x.attr == "dims"
                or isinstance(x, ast.Call) and isinstance(x.func, ast.Name)
                and x.func.id in ("set", "tuple") and x.args
                and isinstance(x.args[0], ast.Attribute) and x.args[0].attr == "dims"
                for x in [node.left, *node.comparators]):
            for x in [node.left, *node.comparators]:
                out += [(node.lineno, s) for s in _literals(x) if s in NAMES]
    return out


def test_the_check_finds_a_literal_dimension():
    tree = ast.parse("import xarray as xr\nxr.DataArray(x, dims=('stimulus', 'unit'))\n"
                     "a.coords['layer']\na.transpose('unit', ...)\nset(a.dims) == {'row', 'col'}\n")
    assert sorted(s for _, s in _offences(tree)) == ["col", "layer", "row", "stimulus",
                                                      "unit", "unit"]


def test_no_dimension_name_is_written_as_a_literal():
    found = []
    for path in sorted(PKG.rglob("*.py")):
        if path.relative_to(PKG).as_posix() == "_util/dims.py":
            continue
        for line, name in _offences(parse(path.read_text("utf-8"))):
            found.append(f"{path.relative_to(PKG)}:{line}: {name!r}")
    assert not found, ("use the constant from toponeuro/_util/dims.py (``from .._util import dims "
                       "as D``; D.STIMULUS ...) instead of:\n" + "\n".join(found))
