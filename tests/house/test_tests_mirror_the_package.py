"""``tests/`` mirrors the package (issue 44): the tests of ``toponeuro/x/y`` live in
``tests/x/y/``.

Every test file sits in a folder named after a package or a module of ``toponeuro`` (the tests
of ``toponeuro/settings.py`` in ``tests/settings/``, of ``toponeuro/_io/`` in ``tests/_io/``),
or in ``tests/house/`` (the house rules) or ``tests/docs/`` (the docs, README and tutorials);
none at the root of ``tests/``. The names of the test files are unique, since every test folder
is on ``sys.path`` (``tests/conftest.py``) and a test imports another folder's helpers by name.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import toponeuro

PACKAGE = Path(toponeuro.__file__).parent
TESTS = Path(__file__).resolve().parents[1]

#: folders of ``tests/`` that hold checks of the whole project rather than one module
OWN_FOLDERS = ("house", "docs")


def misplaced(tests: Path = TESTS, package: Path = PACKAGE) -> list[str]:
    """The test files of ``tests`` whose folder mirrors no package or module of ``package``."""
    bad = []
    for path in sorted(tests.rglob("test_*.py")):
        parts = path.relative_to(tests).parts[:-1]
        if not parts:
            bad.append(path.relative_to(tests).as_posix())
            continue
        if parts[0] in OWN_FOLDERS:
            continue
        target = package.joinpath(*parts)
        if not (target.is_dir() or target.with_suffix(".py").is_file()):
            bad.append(path.relative_to(tests).as_posix())
    return bad


def duplicate_names(tests: Path = TESTS) -> list[str]:
    """The file names that more than one test file of ``tests`` has."""
    counts = Counter(p.name for p in tests.rglob("test_*.py"))
    return sorted(name for name, n in counts.items() if n > 1)


def test_the_rule_finds_planted_misplaced_and_duplicate_files(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "settings.py").write_text("X = 1\n")
    tests = tmp_path / "tests"
    for rel in ("sub/test_a.py", "settings/test_b.py", "house/test_c.py", "docs/test_d.py",
                "test_root.py", "gone/test_e.py", "sub/deeper/test_f.py", "house/test_a.py"):
        (tests / rel).parent.mkdir(parents=True, exist_ok=True)
        (tests / rel).write_text("def test_x(): pass\n")
    assert misplaced(tests, pkg) == ["gone/test_e.py", "sub/deeper/test_f.py", "test_root.py"]
    assert duplicate_names(tests) == ["test_a.py"]


def test_every_test_file_sits_in_the_folder_of_its_module():
    bad = misplaced()
    assert not bad, (
        f"these test files sit in no folder mirroring a module of toponeuro: {bad}. Expected "
        "the tests of toponeuro/x/y (y a package or y.py) in tests/x/y/, the house rules in "
        "tests/house/, the docs' checks in tests/docs/; fix: git mv the file to the folder of "
        "the module it tests")


def test_test_file_names_are_unique():
    dup = duplicate_names()
    assert not dup, (
        f"these test file names are used twice: {dup}. Expected unique names (every test "
        "folder is on sys.path, tests/conftest.py); fix: rename one after what it tests")
