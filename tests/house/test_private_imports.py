"""Private modules stay private to their sub-package (static, via ast).

A module of one sub-package (``toponeuro.features``) may import another's public names
(``from ..models import GPT``), never its private modules or names
(``from ..models._nanogpt import GPT``, ``from ..models import _registry``,
``from ..models import _torch_load``). The root package's own private modules
(``toponeuro._util.dims``, ``_fetch``, ``_docs`` ...) are the shared internals of every sub-package.
Every ``import`` counts, also those inside functions.
"""

from __future__ import annotations

import ast
from pathlib import Path

from _parsed import parse  # tests/house: the package parsed once per process

import toponeuro

ROOT = Path(toponeuro.__file__).parent


def _private(part: str) -> bool:
    return part.startswith("_") and not part.startswith("__")


def _module_name(path: Path, root: Path) -> tuple[str, bool]:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    is_pkg = parts[-1] == "__init__"
    return ".".join(parts[:-1] if is_pkg else parts), is_pkg


#: internal packages every sub-package may import from
KITS = {"toponeuro._io", "toponeuro._util"}

#: the only private modules allowed at the package root
ROOT_PRIVATE = {"_version"}


def _subpackage(module: str, modules: set[str]) -> str:
    """``toponeuro.models`` for ``toponeuro.models._registry``; the root for its modules."""
    parts = module.split(".")
    if len(parts) > 1 and ".".join(parts[:2]) in modules and _is_package(parts[:2], modules):
        return ".".join(parts[:2])
    return parts[0]


def _is_package(parts, modules) -> bool:
    prefix = ".".join(parts) + "."
    return any(m.startswith(prefix) for m in modules)


#: the one exception: this file is copied into every exported Brain-Score plugin, and the
#: exporter inlines the torch-only module it imports (``models._standalone``) in place of the
#: import line, so the plugin needs neither toponeuro nor its public ``models`` package
ALLOWED = {"toponeuro.brainscore._plugin_arch": {"toponeuro.models._standalone"}}


def _imported(node, package: str) -> list[tuple[str, str | None]]:
    """``(module, name)`` pairs an import statement reads (name None for ``import m``)."""
    if isinstance(node, ast.Import):
        return [(alias.name, None) for alias in node.names]
    if not isinstance(node, ast.ImportFrom):
        return []
    parts = package.split(".")
    base = parts[: len(parts) + 1 - node.level] if node.level else []
    module = ".".join([*base, node.module] if node.module else base)
    return [(module, alias.name) for alias in node.names]


def private_imports(root: Path = ROOT) -> list[str]:
    """``"importer: target"`` for every import of another sub-package's private part."""
    found = {}
    for path in root.rglob("*.py"):
        found[path] = _module_name(path, root)
    modules = {m for m, _ in found.values()}
    bad = []
    for path, (mod, is_pkg) in sorted(found.items()):
        package = mod if is_pkg else mod.rpartition(".")[0]
        own = _subpackage(mod, modules)
        for node in ast.walk(parse(path.read_text(encoding="utf-8"))):
            for target, name in _imported(node, package):
                if not target.startswith(root.name):
                    continue
                if _subpackage(target, modules) in (own, root.name, *KITS):
                    continue  # the same sub-package, the root, or a kit
                if target in ALLOWED.get(mod, ()):
                    continue
                if any(_private(p) for p in target.split(".")[1:] + [name or ""]):
                    bad.append(f"{mod}: from {target} import {name}" if name
                               else f"{mod}: import {target}")
    return bad


def test_the_rule_finds_planted_private_imports(tmp_path):
    pkg = tmp_path / "toyneuro"
    for sub in ("a", "b"):
        (pkg / sub).mkdir(parents=True)
        (pkg / sub / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "_dims.py").write_text("X = 1\n")
    (pkg / "a" / "_impl.py").write_text("def f():\n    pass\n\ndef _g():\n    pass\n")
    (pkg / "a" / "_own.py").write_text("from ._impl import _g\nfrom .._dims import X\n")
    (pkg / "b" / "_use.py").write_text(
        "from ..a import f\n"  # public: fine
        "from ..a._impl import f\n"  # a private module of another sub-package
        "from ..a import _impl\n"  # the same, as a name
        "def h():\n    from toyneuro.a import _g\n"  # a private name, inside a function
    )
    assert private_imports(pkg) == [
        "toyneuro.b._use: from toyneuro.a._impl import f",
        "toyneuro.b._use: from toyneuro.a import _impl",
        "toyneuro.b._use: from toyneuro.a import _g",
    ]
    (pkg / "b" / "_use.py").write_text("from ..a import f\nfrom .._dims import X\n")
    assert private_imports(pkg) == []


def test_no_sub_package_imports_another_ones_private_modules():
    bad = private_imports()
    assert not bad, "import these through the package's public names:\n" + "\n".join(bad)


def test_the_root_holds_kits_not_private_modules():
    """Shared private helpers live in a kit (:data:`KITS`), not loose at the root."""
    loose = {p.stem for p in ROOT.glob("_*.py") if not p.name.startswith("__")}
    assert loose <= ROOT_PRIVATE, sorted(loose - ROOT_PRIVATE)
    assert all((ROOT / k.split(".", 1)[1] / "__init__.py").exists() for k in KITS)
