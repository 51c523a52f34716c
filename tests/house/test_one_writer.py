"""Every rename, replace and tree removal in toponeuro goes through the one writer (issue 33).

``toponeuro/_io/output.py`` and ``toponeuro/_io/folder.py`` write atomically (random
temporary names from :mod:`tempfile`, links never followed, locks removed when a run ends);
a hand-rolled ``os.replace(tmp, path)`` elsewhere reintroduces fixed temporary names and
symlink-following writes. This test parses every module and fails on ``os.replace``,
``os.rename``, ``os.renames``, ``shutil.rmtree``, ``shutil.move`` and ``Path.rename`` /
``Path.replace`` (a one-argument ``.rename(x)`` / ``.replace(x)`` call whose argument is not a
literal, a dict or a keyword: pandas' and xarray's renames take those) outside the writer.
"""

from __future__ import annotations

import ast
from pathlib import Path

from _parsed import parse  # tests/house: the package parsed once per process

import toponeuro

ROOT = Path(toponeuro.__file__).parent

#: the writer itself
WRITER = {"_io/output.py", "_io/folder.py"}

#: files run where toponeuro is not installed (in Brain-Score's own environment), which
#: cannot import the writer (as in tests/house/test_no_bare_raise.py)
STANDALONE = {"brainscore/_plugin_arch.py", "brainscore/_plugin_nanogpt.py",
              "brainscore/_runner.py", "models/_standalone.py"}

_FORBIDDEN = {("os", "replace"), ("os", "rename"), ("os", "renames"), ("shutil", "rmtree"),
              ("shutil", "move")}


def _is_path_move(call: ast.Call) -> bool:
    """``x.rename(y)`` / ``x.replace(y)``: one positional argument that is a name, attribute,
    call or f-string (a path), no keywords."""
    if not isinstance(call.func, ast.Attribute) or call.func.attr not in ("rename", "replace"):
        return False
    if call.keywords or len(call.args) != 1:
        return False
    return not isinstance(call.args[0], ast.Constant | ast.Dict | ast.Lambda | ast.DictComp)


def hand_rolled_moves(source: str, rel: str) -> list[str]:
    """``file:line: call`` for every rename / replace / rmtree in ``source``."""
    found = []
    for node in ast.walk(parse(source)):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and (
                (f.value.id, f.attr) in _FORBIDDEN):
            found.append(f"{rel}:{node.lineno}: {f.value.id}.{f.attr}")
        elif _is_path_move(node):
            found.append(f"{rel}:{node.lineno}: .{f.attr}(...)")
    return found


def test_the_planted_violations_are_found():
    planted = (
        "import os, shutil\n"
        "os.replace(tmp, path)\n"
        "shutil.rmtree(folder)\n"
        "tmp.rename(path)\n"
        "Path(tmp).replace(target)\n"
        "df.rename(columns={'a': 'b'})\n"  # pandas: not a move
        "s.replace('a', 'b')\n"  # str.replace: not a move
        "da.rename('noise_ceiling')\n"  # xarray: not a move
    )
    assert [x.split(": ")[1] for x in hand_rolled_moves(planted, "x.py")] == [
        "os.replace", "shutil.rmtree", ".rename(...)", ".replace(...)"]


def test_no_hand_rolled_rename_replace_or_rmtree_outside_the_writer():
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel in WRITER or rel in STANDALONE:
            continue
        found += hand_rolled_moves(path.read_text(encoding="utf-8"), rel)
    assert not found, (
        "Write through toponeuro._io.output (atomic_file, write_text, save_torch, move, "
        "remove_tree) or toponeuro._io.folder.output_folder, not by hand:\n"
        + "\n".join(found)
    )


def test_the_bench_scripts_write_through_the_writer_too():
    """The calibration benches write the records the docs quote (``null_calibration.json``);
    a fixed ``.tmp`` name renamed by hand there follows a link at that name."""
    bench = ROOT.parent / "bench"
    if not bench.is_dir():  # an installed copy, without the repository's bench/
        import pytest

        pytest.skip("bench/ is not beside this toponeuro (not a repository checkout)")
    found = []
    for path in sorted(bench.glob("*.py")):
        found += hand_rolled_moves(path.read_text(encoding="utf-8"), f"bench/{path.name}")
    assert not found, "Write through toponeuro._io.output (atomic_file, write_text):\n" + "\n".join(found)


# --- plain open() for writing -------------------------------------------------------------------
#: ``open(path, "w" / "a" / "x")`` outside the writer and outside ``with atomic_file(...)``:
#: ``file:function`` -> why it is allowed. Anything else writes in place (half a file on a
#: kill, through a link planted at the name): use write_text / atomic_file instead.
OPEN_FOR_WRITING = {
    "_io/fetch.py:_download": "fills the temporary file that atomic_file made in fetch_url",
    "analysis/encoding/_sweep.py:__init__": "appends to a sweep's own results log, checked "
    "as its own before (never rewritten)",
}


def _is_write_open(call: ast.Call) -> bool:
    f = call.func
    if not (isinstance(f, ast.Name) and f.id == "open"
            or isinstance(f, ast.Attribute) and f.attr == "open"
            and isinstance(f.value, ast.Name) and f.value.id in ("io", "os", "builtins")):
        return False
    mode = call.args[1] if len(call.args) > 1 else next(
        (k.value for k in call.keywords if k.arg == "mode"), None)
    return isinstance(mode, ast.Constant) and isinstance(mode.value, str) and any(
        c in mode.value for c in "wax+")


def plain_writes(source: str, rel: str) -> list[str]:
    """``file:function:line`` for every ``open(..., write mode)`` in ``source`` that is not
    inside a ``with`` statement that holds ``atomic_file(...)``."""
    tree = parse(source)
    guarded = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.With) and any(
                isinstance(i.context_expr, ast.Call) and getattr(
                    i.context_expr.func, "id", getattr(i.context_expr.func, "attr", None))
                == "atomic_file" for i in node.items):
            guarded |= {id(n) for n in ast.walk(node)}
    found = []

    def visit(node, func):
        for child in ast.iter_child_nodes(node):
            name = child.name if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) else func
            if (isinstance(child, ast.Call) and _is_write_open(child)
                    and id(child) not in guarded):
                found.append(f"{rel}:{func}:{child.lineno}")
            visit(child, name)

    visit(tree, "<module>")
    return found


def test_the_planted_plain_writes_are_found():
    planted = (
        "def save(self, path):\n"
        "    with open(path, 'w') as f:\n"
        "        f.write('x')\n"
        "    open(path, mode='wb')\n"
        "    open(path)\n"  # reading: fine
        "    with atomic_file(path) as tmp, open(tmp, 'w') as f:\n"  # the writer's temp: fine
        "        pass\n"
        "    with atomic_file(path) as tmp:\n"
        "        with open(tmp, 'a') as f:\n"
        "            pass\n"
    )
    assert plain_writes(planted, "x.py") == ["x.py:save:2", "x.py:save:4"]


def test_no_plain_open_for_writing_outside_the_writer():
    found, allowed = [], set()
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel in WRITER or rel in STANDALONE:
            continue
        for f in plain_writes(path.read_text(encoding="utf-8"), rel):
            where = f.rsplit(":", 1)[0]
            (allowed.add(where) if where in OPEN_FOR_WRITING else found.append(f))
    assert allowed == set(OPEN_FOR_WRITING), "stale OPEN_FOR_WRITING entries"
    assert not found, (
        "Write through toponeuro._io.output (write_text, atomic_file), not open(path, 'w'):\n"
        + "\n".join(found)
    )
