"""docs/cli.rst matches ``--help`` (issue 34): every flag of every sub-command's parser is
named in that command's section, and the page names no flag the parser lacks."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from toponeuro.cli import build_parser

CLI_RST = Path(__file__).resolve().parents[2] / "docs" / "cli.rst"
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")


def parser_flags(parser=None, name: str = "") -> dict[str, set[str]]:
    """``{"map": {"--model", ...}, "brainscore export": {...}, "": {"--version"}}``."""
    parser = parser or build_parser()
    out = {name: {o for a in parser._actions for o in a.option_strings  # hidden: 0.4 aliases
                  if o.startswith("--") and o != "--help" and a.help != argparse.SUPPRESS}}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub, sub_parser in action.choices.items():
                out.update(parser_flags(sub_parser, f"{name} {sub}".strip()))
    return out


def doc_sections(text: str) -> dict[str, str]:
    """Text per command: the intro ('') and each definition-list entry, by the commands its
    term names (``toponeuro map``, ``--checkpoint`` ... (``extract`` and ``map``))."""
    sections: dict[str, str] = {"": text.split("\nCommands\n")[0]}
    entries = re.split(r"\n(?=``)", text.split("\nCommands\n", 1)[1].split("\nConventions\n")[0])
    for entry in entries:
        term, _, body = entry.partition("\n")
        names = re.findall(r"``toponeuro ((?:brainscore )?\w+)", term)
        if "brainscore" in term and "``score``" in term:
            names.append("brainscore score")
        names += re.findall(r"\(``(\w+)`` and ``(\w+)``\)", term)[0] if " and ``" in term else []
        for name in names:
            sections[name] = sections.get(name, "") + entry
    return sections


def test_every_flag_of_each_command_is_in_its_section():
    sections = doc_sections(CLI_RST.read_text(encoding="utf-8"))
    missing = {}
    for command, flags in parser_flags().items():
        named = set(FLAG.findall(sections.get(command, "")))
        if flags - named:
            missing[command or "toponeuro"] = sorted(flags - named)
    assert not missing, f"flags of --help that docs/cli.rst does not name: {missing}"


def test_the_page_names_no_flag_the_parser_lacks():
    known = set().union(*parser_flags().values()) | {"--help"}
    named = set(FLAG.findall(CLI_RST.read_text(encoding="utf-8")))
    assert not named - known, f"docs/cli.rst names flags no parser has: {sorted(named - known)}"


def test_the_check_sees_a_planted_difference():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers()
    sub.add_parser("map").add_argument("--only-in-parser")
    flags = parser_flags(parser)
    sections = doc_sections("intro\nCommands\n--------\n\n``toponeuro map``\n    uses --other\n"
                            "\nConventions\n-----------\n")
    assert flags["map"] - set(FLAG.findall(sections["map"])) == {"--only-in-parser"}
