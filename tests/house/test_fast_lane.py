"""The fast lane (``pytest -m "not slow"``) covers every module of the package (static, via ast).

A module is covered when the fast lane runs some of its code by name: it has a doctest (the
doctests are collected with ``--doctest-modules`` and none is marked slow), or a test file with
at least one test that is not marked slow imports it (``import toponeuro.x.y``,
``from toponeuro.x.y import f``, ``from toponeuro.x import y`` or a relative import from a
test helper). Marking a module's last fast test slow fails here, naming the module.
"""

from __future__ import annotations

import ast
from pathlib import Path

import toponeuro

ROOT = Path(toponeuro.__file__).parent
TESTS = Path(__file__).resolve().parents[1]

#: modules the fast lane runs without naming them in an import, and where
INDIRECT = {
    "toponeuro.__main__": "tests/cli/test_cli.py runs `python -m toponeuro`",
    "toponeuro._util.typing": "type aliases only, imported by every module that annotates",
    "toponeuro._version": "toponeuro.__version__ (tests/house/test_deprecations.py)",
    "toponeuro.analysis.topography._similarity": "map_similarity (tests/reporting/test_report_summary.py)",
    "toponeuro.brainscore._plugin_nanogpt": "imported as a copied plugin file in "
                                           "tests/brainscore/test_brainscore_export.py",
    "toponeuro.brainscore._runner": "a script for the Brain-Score env; its errors are read "
                                    "in tests/cli/test_cli_errors.py",
    "toponeuro.cli._brainscore": "toponeuro.cli.main (tests/cli/test_cli.py)",
    "toponeuro.cli._common": "toponeuro.cli.main (tests/cli/test_cli.py)",
    "toponeuro.cli._registry": "toponeuro.cli.main (tests/cli/test_cli.py)",
    "toponeuro.cli._prepare": "toponeuro.cli.main (tests/reporting/test_prepare.py)",
    "toponeuro.models._blocks": "every TopoNet model built in tests/models/",
}


def _modules(root: Path = ROOT) -> dict[str, Path]:
    mods = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        mods[".".join(parts)] = path
    return mods


def _is_slow(decorators) -> bool:
    """``@pytest.mark.slow`` (or ``@mark.slow``) among the decorators."""
    for dec in decorators:
        node = dec.func if isinstance(dec, ast.Call) else dec
        if isinstance(node, ast.Attribute) and node.attr == "slow":
            return True
    return False


def _module_is_slow(tree: ast.Module) -> bool:
    """``pytestmark = pytest.mark.slow`` (or a list holding it) at module level."""
    for node in tree.body:
        if (isinstance(node, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets)):
            values = node.value.elts if isinstance(node.value, (ast.List, ast.Tuple)) else [node.value]
            if _is_slow(values):
                return True
    return False


def has_fast_test(tree: ast.Module) -> bool:
    """Whether a test file has a test function (or a method of a ``Test`` class) not marked
    slow."""
    if _module_is_slow(tree):
        return False
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            if not _is_slow(node.decorator_list):
                return True
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            if _is_slow(node.decorator_list):
                continue
            if any(isinstance(f, ast.FunctionDef) and f.name.startswith("test")
                   and not _is_slow(f.decorator_list) for f in node.body):
                return True
    return False


def imported_modules(tree: ast.Module, known: set[str]) -> set[str]:
    """The toponeuro modules a file imports by name (anywhere in it, also inside functions)."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                name = alias.name
                while name:  # import toponeuro.a.b names toponeuro.a.b (and runs its packages)
                    if name in known:
                        found.add(name)
                    name = name.rpartition(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            if node.module in known:
                found.add(node.module)
            found |= {f"{node.module}.{a.name}" for a in node.names
                      if f"{node.module}.{a.name}" in known}
    return found


def has_doctest(path: Path) -> bool:
    """Whether a module's source holds a doctest example."""
    return any(line.lstrip().startswith(">>> ")
               for line in path.read_text(encoding="utf-8").splitlines())


def uncovered(root: Path = ROOT, tests: Path = TESTS) -> list[str]:
    """The modules of ``root`` that no fast test runs by name."""
    mods = _modules(root)
    covered = {m for m, p in mods.items() if has_doctest(p)}
    for path in sorted(tests.rglob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if has_fast_test(tree):
            covered |= imported_modules(tree, set(mods))
    return sorted(set(mods) - covered)


def test_the_checks_see_slow_marks_and_imports():
    fast = ast.parse("import pytest\n@pytest.mark.slow\ndef test_a(): pass\ndef test_b(): pass\n")
    slow = ast.parse("import pytest\n@pytest.mark.slow\ndef test_a(): pass\n")
    marked = ast.parse("import pytest\npytestmark = [pytest.mark.slow]\ndef test_a(): pass\n")
    assert has_fast_test(fast)
    assert not has_fast_test(slow)
    assert not has_fast_test(marked)
    tree = ast.parse("from toponeuro.analysis import rsa\nimport toponeuro.sheet\n"
                     "def f():\n    from toponeuro.reporting._vision.job import run_map\n")
    known = {"toponeuro", "toponeuro.analysis", "toponeuro.analysis.rsa", "toponeuro.sheet",
             "toponeuro.reporting", "toponeuro.reporting._vision.job"}
    assert imported_modules(tree, known) == {"toponeuro", "toponeuro.analysis",
                                             "toponeuro.analysis.rsa", "toponeuro.sheet",
                                             "toponeuro.reporting._vision.job"}


def test_a_module_whose_only_test_is_slow_is_found(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text('"""A package.\n\n>>> 1\n1\n"""\n')
    (pkg / "lonely.py").write_text("X = 1\n")
    (pkg / "tested.py").write_text("X = 1\n")
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "test_lonely.py").write_text(
        "import pytest\nfrom pkg.lonely import X\n@pytest.mark.slow\ndef test_x(): pass\n")
    (tests / "test_tested.py").write_text("from pkg import tested\ndef test_x(): pass\n")
    assert uncovered(pkg, tests) == ["pkg.lonely"]


def test_the_fast_lane_covers_every_module():
    missing = sorted(set(uncovered()) - set(INDIRECT))
    assert not missing, (
        f"no test outside the slow lane runs these modules by name: {missing}. Expected every "
        "module of toponeuro to have a doctest or a fast test that imports it; fix: add a "
        "small test (or a doctest) for it that is not marked @pytest.mark.slow")


def test_the_list_of_indirectly_run_modules_is_current():
    """Each INDIRECT entry is a module that no fast test imports by name (else it is not
    needed there)."""
    assert set(INDIRECT) <= set(_modules()), sorted(set(INDIRECT) - set(_modules()))
    named = set(INDIRECT) - set(uncovered())
    assert not named, f"{sorted(named)} are now imported by a fast test: remove them from INDIRECT"
