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


def scan(finder, functions: dict | None = None) -> dict:
    """``{module: hits}`` of one rule's ``finder`` (a function of a module's source, and of
    ``only=`` function names) over the package: every writer module whole, and in the other
    modules of ``reporting/`` the functions ``functions`` names (``{module: names}``). The
    planted tests call the same ``finder`` on a string."""
    found = {}
    for path in writer_modules():
        if hits := finder(path.read_text(encoding="utf-8")):
            found[str(path.relative_to(ROOT))] = hits
    for rel, names in (functions or {}).items():
        if hits := finder((REPORTING / rel).read_text(encoding="utf-8"), only=names):
            found[f"reporting/{rel}"] = hits
    return found


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
    found = scan(summary_gets, WRITER_FUNCTIONS)
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
    found = scan(section_keys)
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


#: the report's fields that hold one typed record (issue 44): never read by key or ``.get``
RECORD_FIELDS = {"headline", "ruler", "source", "comparison", "verb_noun", "your_maps",
                 "patch_centroids", "n_permutations", "headline_row"}
#: the fields that map a name to a typed record (a layer, a hemisphere, a domain, a pair, a
#: comparison): their entries are read by field, never by key or ``.get``
ENTRY_MAPS = {"per_layer", "arrangement", "hemispheres", "smoothness_null",
              "map_similarity_null", "map_similarity_random_init", "smoothness_label_null",
              "patches_label_null", "fits"}
#: the functions outside the writer modules that read the report (its public views)
READER_FUNCTIONS = {"_vision/words.py": {"comparison_view", "headline_parts",
                                           "_arrangement_verdict", "training_images_note"},
                    "_language/results.py": {"format_language_summary", "cortex_lines",
                                             "_count_of"}}


def _is_field(node, names) -> bool:
    return isinstance(node, ast.Attribute) and node.attr in names


def _an_entry(node) -> bool:
    """``x.per_layer[key]``, ``c.map_similarity_null[pair]``: one record of an entry map."""
    return isinstance(node, ast.Subscript) and _is_field(node.value, ENTRY_MAPS)


#: the fields that list typed records (your maps' similarities, a comparison's rows)
RECORD_LISTS = {"similarity", "rows"}


def _loop_record(it, target, maps: set) -> str | None:
    """The name a loop binds to typed records (``for h, c in rep.cortex.hemispheres.items()``,
    ``for r in x.fits.values()``, ``for r in yours.similarity``; ``maps``: the names that
    alias an entry map), else None."""
    def a_map(node):
        return _is_field(node, ENTRY_MAPS) or (isinstance(node, ast.Name) and node.id in maps)

    if _is_field(it, RECORD_LISTS):
        return target.id if isinstance(target, ast.Name) else None
    if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute)
            and it.func.attr in ("items", "values") and a_map(it.func.value)):
        return None
    if it.func.attr == "items" and isinstance(target, ast.Tuple) and len(target.elts) == 2:
        target = target.elts[1]
    return target.id if isinstance(target, ast.Name) else None


def _bindings(node: ast.Assign):
    """``(name, value)`` of each name an assignment binds: ``a = x`` and, element by element,
    ``a, b = x, y``."""
    for target in node.targets:
        if isinstance(target, ast.Name):
            yield target.id, node.value
        elif isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple) \
                and len(target.elts) == len(node.value.elts):
            for t, v in zip(target.elts, node.value.elts):
                if isinstance(t, ast.Name):
                    yield t.id, v


def _aliases(scope) -> tuple[set, set]:
    """The names a function binds to a record (``yours = rep.cortex.your_maps``) and to an
    entry map (``nulls = r.smoothness_null``), also through a tuple
    (``yours, nulls = rep.cortex.your_maps, r.smoothness_null``)."""
    records, maps = set(), set()
    for node in ast.walk(scope):
        if isinstance(node, ast.Assign):
            for name, value in _bindings(node):
                if _is_field(value, RECORD_FIELDS):
                    records.add(name)
                elif _is_field(value, ENTRY_MAPS):
                    maps.add(name)
    return records, maps


def _loops(scope, maps: set):
    """``(name, where)`` for every loop or comprehension over typed records: the name it
    binds, and the nodes where that name is one of them."""
    for node in ast.walk(scope):
        if isinstance(node, ast.For):
            if (name := _loop_record(node.iter, node.target, maps)) is not None:
                yield name, node.body
        elif isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            for gen in node.generators:
                if (name := _loop_record(gen.iter, gen.target, maps)) is not None:
                    parts = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
                    yield name, parts + list(gen.ifs)


def _reads(node, a_record) -> bool:
    keyed = (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant)
             and isinstance(node.slice.value, str) and a_record(node.value))
    got = (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
           and node.func.attr == "get" and a_record(node.func.value))
    return keyed or got


def entry_reads(source: str, only: set | None = None) -> list[str]:
    """``line: text`` of every read of a typed record by key or ``.get``:
    ``rep.cortex.source.get("mesh", ...)``, ``rep.comparison["fits"]``,
    ``r.smoothness_null[d]["p_value"]``, the same through a name bound to them
    (``yours = rep.cortex.your_maps``; ``yours["similarity"]``), and ``c["map_similarity"]``
    inside a loop of ``c`` over ``rep.cortex.hemispheres.items()`` (in every function, or in
    those ``only`` names)."""
    tree = parse(source)
    scopes = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.Lambda))
              and (only is None or getattr(n, "name", None) in only)]
    if only is None:
        scopes.append(tree)
    out = set()
    for scope in scopes:
        records, maps = _aliases(scope) if scope is not tree else (set(), set())

        def a_record(v, records=records, maps=maps):
            return (_is_field(v, RECORD_FIELDS) or _an_entry(v)
                    or (isinstance(v, ast.Name) and v.id in records)
                    or (isinstance(v, ast.Subscript) and isinstance(v.value, ast.Name)
                        and v.value.id in maps))

        for node in ast.walk(scope):
            if _reads(node, a_record):
                out.add(f"{node.lineno}: {ast.unparse(node)}")
        for name, where in _loops(scope, maps):
            for part in where:
                for node in ast.walk(part):
                    if _reads(node, lambda v, n=name: isinstance(v, ast.Name) and v.id == n):
                        out.add(f"{node.lineno}: {ast.unparse(node)}")
    return sorted(out, key=lambda h: int(h.split(":")[0]))


def test_readers_read_the_entries_by_field():
    found = scan(entry_reads, READER_FUNCTIONS)
    assert not found, (
        "the report's readers read its records' entries by field (toponeuro/reporting/_kit/"
        f"entries.py), never by key or .get with a default: {found}")


def test_the_entry_rule_sees_its_readers():
    for rel, names in READER_FUNCTIONS.items():
        tree = ast.parse((REPORTING / rel).read_text(encoding="utf-8"))
        defined = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
        assert names <= defined, (rel, names - defined)


def test_a_planted_entry_read_is_caught():
    planted = '''
def _html(rep, ly, d):
    mesh = rep.cortex.source.get("mesh", "fsaverage5")
    for h, c in rep.cortex.hemispheres.items():
        sims = c["map_similarity_null"]
    p = rep.per_layer[ly].smoothness_null[d]["p_value"]
    vn = rep.verb_noun["per_layer"]
    n = rep.comparison["n_permutations"]
    v = [t["verdict"] for t in rep.per_layer[ly].map_similarity_null.values()]
    fine = (rep.cortex.source.on_mesh, rep.per_layer[ly].smoothness_null[d].p_value,
            rep.comparison.fits, STATISTIC_NAMES.get(v, "r"), files.get("report.html"),
            res.comparison[ly, "left"].attrs["arrangement"])
    yours = rep.cortex.your_maps
    nulls = rep.per_layer[ly].smoothness_null
    q = [r["p_text"] for r in yours["similarity"]] + [nulls[d]["p_value"]]
    q += [r.p_text for r in yours.similarity if r["verdict"]]
    return mesh, sims, p, vn, n, v, fine, q
'''
    hits = entry_reads(planted)
    assert [h.split(":")[0] for h in hits] == ["3", "5", "6", "7", "8", "9", "15", "15",
                                               "16"], hits
    assert "15: yours['similarity']" in hits and "15: nulls[d]['p_value']" in hits
    assert entry_reads(planted, only={"other"}) == []
    # the vision writer as it was before (issue 44's second step) is caught
    old = ('def _user_maps(rep):\n'
           '    return rep.cortex.source.get("representation") == "values"\n')
    assert entry_reads(old)


def test_a_record_bound_through_a_tuple_is_followed():
    planted = '''
def _html(rep, ly, d):
    yours, nulls = rep.cortex.your_maps, rep.per_layer[ly].smoothness_null
    q = [r["p_text"] for r in yours["similarity"]] + [nulls[d]["p_value"]]
    m, n = rep.model, 3
    return q, m["name"], yours.similarity, nulls[d].p_value
'''
    hits = entry_reads(planted)
    assert sorted(hits) == ["4: nulls[d]['p_value']", "4: yours['similarity']"], hits
