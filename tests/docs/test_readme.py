"""README.md's code runs as written: every python block is executed, every ``toponeuro``
command in a bash block parses with the real command line (flags and sub-commands exist)."""

from __future__ import annotations

import re
import shlex
import textwrap
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"
_BLOCK = re.compile(r"^([ \t]*)```(python|bash)\n(.*?)^\1```", re.MULTILINE | re.DOTALL)


def _blocks(lang: str) -> list[str]:
    text = README.read_text(encoding="utf-8")
    return [textwrap.dedent(m.group(3)) for m in _BLOCK.finditer(text) if m.group(2) == lang]


def test_readme_has_code_blocks():
    assert len(_blocks("python")) >= 2 and len(_blocks("bash")) >= 3


@pytest.mark.parametrize("index", range(len(_blocks("python"))))
def test_readme_python_block_runs(index):
    code = _blocks("python")[index]
    exec(compile(code, f"README.md python block {index + 1}", "exec"), {"__name__": "__readme__"})


def _toponeuro_commands() -> list[list[str]]:
    out = []
    for block in _blocks("bash"):
        for line in block.splitlines():
            line = line.split("  #")[0]
            for part in re.split(r"&&|;", line):
                words = shlex.split(part.strip()) if part.strip() else []
                if words and words[0] == "toponeuro":
                    out.append(words[1:])
    return out


def test_readme_toponeuro_commands_parse():
    from toponeuro.cli import build_parser

    commands = _toponeuro_commands()
    assert any(c[:1] == ["map"] and "--images" in c for c in commands)
    parser = build_parser()
    for argv in commands:
        try:
            parser.parse_args(argv)
        except SystemExit as err:  # argparse's way of refusing
            pytest.fail(f"README command `toponeuro {' '.join(argv)}` does not parse ({err})")
