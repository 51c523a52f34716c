"""The syntax trees of the sources the house rules read, parsed once per test process.

Each rule walks every module of the package (about 190 files, half a second to parse); the
rules share these trees instead of parsing the package once each (issue 46). A tree is
keyed by its source text, so a file planted or edited by a test is parsed afresh. Read the
trees; never edit them.
"""

from __future__ import annotations

import ast
from functools import cache


@cache
def parse(source: str) -> ast.Module:
    """``ast.parse(source)``, once per distinct ``source`` in this process."""
    return ast.parse(source)
