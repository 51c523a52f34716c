"""A fresh Python interpreter, for the tests that check what a command imports (torch,
scipy.stats, the extras) or that run ``python -m toponeuro``: importable from every test
(``from _fresh import run_python``), since every test folder is on ``sys.path``."""

from __future__ import annotations

import subprocess
import sys


def run_python(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    """``python *args`` with this interpreter (``"-c", code`` or ``"-m", "toponeuro", ...``),
    its output captured as text."""
    return subprocess.run([sys.executable, *args], capture_output=True, text=True,
                          timeout=timeout)


def imported_by(*args: str, timeout: float = 300) -> tuple[subprocess.CompletedProcess, set[str]]:
    """:func:`run_python` under ``-X importtime``, and the names of the modules it imported
    (read off the import-time lines Python writes to stderr, which stay in ``.stderr``)."""
    done = run_python("-X", "importtime", *args, timeout=timeout)
    modules = {line.rpartition("|")[2].strip() for line in done.stderr.splitlines()
               if line.startswith("import time:") and "|" in line}
    return done, modules - {"imported package"}  # the header line's column name
