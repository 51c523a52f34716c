"""The package's import graph: no circle among toponeuro's modules (static, via ast).

Every ``import`` counts, also those inside functions: a lazy import hides a circle from the
interpreter, not from the reader. Importing a submodule implies importing its package; that
implicit edge is not counted (it is the same for every module).
"""

from __future__ import annotations

import ast
from pathlib import Path

from _parsed import parse  # tests/house: the package parsed once per process

import toponeuro

ROOT = Path(toponeuro.__file__).parent


def _modules(root: Path) -> dict[str, tuple[Path, bool]]:
    mods = {}
    for path in root.rglob("*.py"):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        mods[".".join(parts[:-1] if is_pkg else parts)] = (path, is_pkg)
    return mods


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """module -> the toponeuro modules it imports (``from pkg import mod`` points at mod)."""
    mods = _modules(root)
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for mod, (path, is_pkg) in mods.items():
        package = mod if is_pkg else mod.rpartition(".")[0]
        for node in ast.walk(parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                graph[mod] |= {a.name for a in node.names if a.name in mods}
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                for alias in node.names:
                    if f"{target}.{alias.name}" in mods:
                        graph[mod].add(f"{target}.{alias.name}")
                    elif target in mods:
                        graph[mod].add(target)
        graph[mod].discard(mod)
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    m = stack.pop()
                    on_stack.discard(m)
                    comp.append(m)
                    if m == node:
                        break
                if len(comp) > 1:
                    cycles.append(sorted(comp))
    return cycles


def test_the_detector_finds_a_planted_circle(tmp_path):
    pkg = tmp_path / "toyneuro"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("from ._a import f\n")
    (pkg / "sub" / "_a.py").write_text("def f():\n    from ._b import g\n    return g\n")
    (pkg / "sub" / "_b.py").write_text("from ._c import h\n")
    (pkg / "sub" / "_c.py").write_text("from . import _a\nfrom .. import sub\n")
    graph = import_graph(pkg)
    assert graph["toyneuro.sub._c"] == {"toyneuro.sub._a", "toyneuro.sub"}
    assert import_cycles(graph) == [
        ["toyneuro.sub", "toyneuro.sub._a", "toyneuro.sub._b", "toyneuro.sub._c"]
    ]
    (pkg / "sub" / "_c.py").write_text("import numpy\n")
    assert import_cycles(import_graph(pkg)) == []


def test_no_import_circle_in_toponeuro():
    graph = import_graph()
    assert "toponeuro.models._registry" in graph and len(graph) > 50
    assert import_cycles(graph) == []


def test_the_model_registry_imports_no_builder():
    assert not graph_reaches("toponeuro.models._registry", "toponeuro.models._vision")
    assert not graph_reaches("toponeuro.models._registry", "toponeuro.models._nanogpt")


def graph_reaches(src: str, dst: str, graph: dict[str, set[str]] | None = None) -> bool:
    graph = graph or import_graph()
    seen, todo = set(), [src]
    while todo:
        m = todo.pop()
        if m == dst:
            return True
        if m not in seen:
            seen.add(m)
            todo.extend(graph.get(m, ()))
    return False


def test_no_module_over_800_lines():
    # STYLE.md: split a file before ~800 lines
    long = {
        str(p.relative_to(ROOT.parent)): n
        for p in ROOT.rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > 800
    }
    assert not long, f"split these modules (lines): {long}"
