"""The report writers read the typed report's fields, never the summary dict with a default
(issue 44): no ``summary.get(`` / ``s.get(`` (nor ``s["cortex"].get(``, ``res.summary.get(``)
in the modules that write a job's page or print its terminal summary. A planted violation is
caught."""

from __future__ import annotations

import ast
from pathlib import Path

from _parsed import parse  # tests/house: the package parsed once per process

import toponeuro

ROOT = Path(toponeuro.__file__).parent
REPORTING = ROOT / "reporting"

#: the names a summary dict goes by in the writers before 0.5
SUMMARY_NAMES = {"summary", "s"}
#: functions outside the writer modules that write what the user reads (terminal summaries)
WRITER_FUNCTIONS = {"_language/results.py": {"format_language_summary", "cortex_lines"}}


def writer_modules() -> list[Path]:
    """Every module of reporting/ that writes a page or a terminal summary."""
    found = [p for p in REPORTING.rglob("*.py") if p.name in ("writer.py", "terminal.py")]
    return sorted(found + [REPORTING / "_kit" / "page.py", REPORTING / "_kit" / "files.py"])


def _root(node):
    """The name a chain of attributes, subscripts and calls starts from, and whether it
    passes through an attribute ``summary`` (``res.summary.get``)."""
    via_summary = False
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        if isinstance(node, ast.Attribute) and node.attr == "summary":
            via_summary = True
        node = node.func if isinstance(node, ast.Call) else node.value
    return (node.id if isinstance(node, ast.Name) else None), via_summary


def summary_gets(source: str, only: set | None = None) -> list[str]:
    """``line: text`` of every ``.get(`` on a summary dict in ``source`` (in the functions
    ``only`` names, when given)."""
    tree = parse(source)
    scopes = ([n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name in only]
              if only is not None else [tree])
    out = []
    for scope in scopes:
        for node in ast.walk(scope):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "get"):
                name, via_summary = _root(node.func.value)
                if via_summary or name in SUMMARY_NAMES:
                    out.append(f"{node.lineno}: {ast.unparse(node)}")
    return out


def test_writers_read_fields_never_summary_get():
    found = {}
    for path in writer_modules():
        hits = summary_gets(path.read_text(encoding="utf-8"))
        if hits:
            found[str(path.relative_to(ROOT))] = hits
    for rel, names in WRITER_FUNCTIONS.items():
        hits = summary_gets((REPORTING / rel).read_text(encoding="utf-8"), only=names)
        if hits:
            found[f"reporting/{rel}"] = hits
    assert not found, (
        "the report writers read the typed report's fields (toponeuro/reporting/_kit/"
        f"report.py), never the summary dict with a default: {found}")


def test_the_rule_sees_every_writer_of_both_jobs():
    names = {str(p.relative_to(REPORTING)) for p in writer_modules()}
    assert {"_vision/writer.py", "_vision/terminal.py", "_language/writer.py",
            "_kit/page.py"} <= names


def test_a_planted_summary_get_is_caught():
    planted = '''
def _html(res, files):
    s = res.summary
    alpha = s.get("alpha", 0.05)
    hemis = s["cortex"].get("source", {})
    n = res.summary.get("n_permutations", 0)
    rep = res.report
    return rep.alpha, files.get("report.html")
'''
    hits = summary_gets(planted)
    assert [h.split(":")[0] for h in hits] == ["4", "5", "6"], hits
    assert summary_gets(planted, only={"other"}) == []
    # the code as it was before 0.5 (the vision writer) is caught
    old = 'def f(res):\n    return min(res.summary.get("n_permutations", 0), 1)\n'
    assert summary_gets(old)


#: the report's sections that are typed records (issue 44): read by field, never by key
TYPED_SECTIONS = {"per_layer", "arrangement", "headline", "ruler"}


def section_keys(source: str) -> list[str]:
    """``line: text`` of every string key read from a typed section of the report:
    ``rep.headline["layer"]``, ``rep.ruler["headline"]``, ``rep.per_layer[ly]["sheet"]``,
    ``rep.arrangement[key]["p_text"]`` (a section's own entries, ``rep.per_layer[ly]``, are
    keyed by layer, which is fine)."""
    out = []
    for node in ast.walk(parse(source)):
        if not (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant)
                and isinstance(node.slice.value, str)):
            continue
        inner = node.value
        if isinstance(inner, ast.Subscript) and isinstance(inner.value, ast.Attribute) \
                and inner.value.attr in ("per_layer", "arrangement"):
            out.append(f"{node.lineno}: {ast.unparse(node)}")
        elif isinstance(inner, ast.Attribute) and inner.attr in ("headline", "ruler"):
            out.append(f"{node.lineno}: {ast.unparse(node)}")
    return out


def test_writers_read_the_typed_sections_by_field():
    found = {}
    for path in writer_modules():
        hits = section_keys(path.read_text(encoding="utf-8"))
        if hits:
            found[str(path.relative_to(ROOT))] = hits
    assert not found, (
        f"the writers read the report's typed sections ({sorted(TYPED_SECTIONS)}) by field "
        f"(toponeuro/reporting/_kit/report.py's records), never by key: {found}")


def test_a_planted_section_key_is_caught():
    planted = '''
def _html(rep):
    head = rep.headline["layer"]
    chosen = rep.ruler["headline"]["chosen"]
    sims = rep.per_layer[head]["map_similarity"]
    p = rep.arrangement[f"{head}|left"]["p_text"]
    return rep.per_layer[head].sheet, rep.headline.layer, sims, p, chosen
'''
    hits = section_keys(planted)
    assert sorted(h.split(":")[0] for h in hits) == ["3", "4", "5", "6"], hits
