"""The ``toponeuro`` command line. Thin: it parses arguments and calls the public API.

Each sub-command is a pair ``_add_<name>(subparsers)`` / ``_run_<name>(args)`` registered in
:data:`COMMANDS`; heavy imports happen inside ``_run_*``.

Conventions (tested in ``tests/cli/test_cli.py``): every option has help text and ``--help``
shows its default; one flag means one thing in every sub-command (``--model``, ``--stimuli``,
``--out``, ``--device``, ``--layers``), lists are space-separated; a typed toponeuro error
prints its message (with the library's parameter names turned into the flags that set them)
on one stderr line (:func:`~toponeuro.cli._checks.one_line`) and exits 1, never a
traceback; a bare ``toponeuro`` prints the help and exits 2.
"""

from __future__ import annotations

import argparse
import sys
import warnings

from .._version import __version__
from ._checks import _flags, cli_message, one_line

__all__ = ["main", "build_parser", "cli_message", "COMMANDS"]

from ._brainscore import _add_brainscore, _run_brainscore
from ._common import _HelpFormatter
from ._map import _add_map, _run_map
from ._prepare import _add_prepare, _run_prepare
from ._registry import _add_layers, _add_models, _run_layers, _run_models
from ._train import _add_extract, _add_train, _run_extract, _run_train

#: sub-command name -> (add parser, run)
COMMANDS = {
    "train": (_add_train, _run_train),
    "extract": (_add_extract, _run_extract),
    "map": (_add_map, _run_map),
    "models": (_add_models, _run_models),
    "layers": (_add_layers, _run_layers),
    "brainscore": (_add_brainscore, _run_brainscore),
    "prepare": (_add_prepare, _run_prepare),
}


def build_parser() -> argparse.ArgumentParser:
    """The ``toponeuro`` argument parser, one sub-parser per entry of :data:`COMMANDS`, with
    every flag (those ``train`` builds from :mod:`toponeuro.training`'s declarations too).

    Returns
    -------
    argparse.ArgumentParser
        The parser :func:`main` uses.

    Examples
    --------
    >>> args = build_parser().parse_args(["map", "--images", "97-99", "--layers", "fc"])
    >>> args.command, args.images, args.layers, args.stimuli  # stimuli: the job's default
    ('map', [97, 98, 99], ['fc'], None)
    """
    parser = _build_parser()
    for sub in _subparsers(parser):  # the flags a sub-parser adds when it runs: at once here
        if hasattr(sub, "complete"):
            sub.complete()
    return parser


def _build_parser() -> argparse.ArgumentParser:
    """:func:`build_parser` as :func:`main` uses it: a sub-parser whose flags need a heavy
    import (``train``'s, from :mod:`toponeuro.training`) adds them when it runs."""
    parser = argparse.ArgumentParser(
        prog="toponeuro",
        description="Compare topographic neural networks (TopoNets) with the human brain.",
        formatter_class=_HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"toponeuro {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for add, _ in COMMANDS.values():
        add(sub)
    return parser


def _subparsers(parser):
    """Every sub-parser of ``parser``, nested ones included."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield sub
                yield from _subparsers(sub)


def main(argv: list[str] | None = None) -> int:
    """Run ``toponeuro`` with ``argv`` (default ``sys.argv[1:]``) and return the exit status.

    0: done; 1: a typed error (its message, with flags for parameter names, on stderr; no
    traceback); 2: a usage error, or no command (the help goes to stderr); 130: interrupted.

    Examples
    --------
    >>> main(["layers", "toponet_demo.v2_tau_0", "--topo"])  # doctest: +ELLIPSIS
    layer           type            output_shape  n_units  sheet_shape  topo
    layer1.0.conv1  Conv2d          32x16x16           32  4x8          yes
    ...
    0
    >>> main(["extract", "--model", "toponet_demo.v2_tau_0", "--stimuli", "absent/", "--out", "a.nc"])
    1
    """
    parser = _build_parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv:
        parser.print_help(sys.stderr)
        return 2
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    from ..exceptions import ToponeuroError

    try:
        with warnings.catch_warnings():  # toponeuro's warnings on one line, in flags
            warnings.showwarning = _one_line_warnings(_flags(parser, args.command))
            return COMMANDS[args.command][1](args)
    except (ToponeuroError, OSError) as err:  # the message names the fix: no traceback
        command = args.command
        if getattr(args, "brainscore_command", None):
            command += f" {args.brainscore_command}"
        message = cli_message(one_line(str(err)), _flags(parser, args.command))
        print(f"toponeuro {command}: error: {message}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"toponeuro {args.command}: interrupted", file=sys.stderr)
        return 130


def _one_line_warnings(flags: dict):
    """A ``warnings.showwarning`` that writes toponeuro's warnings as ``toponeuro: warning:
    MESSAGE`` (parameter names as flags, no file and line); others as Python does."""
    from ..exceptions import ToponeuroWarning

    shown = warnings.showwarning

    def show(message, category, filename, lineno, file=None, line=None):
        if not issubclass(category, ToponeuroWarning):
            return shown(message, category, filename, lineno, file, line)
        print(f"toponeuro: warning: {cli_message(one_line(str(message)), flags)}",
              file=sys.stderr if file is None else file)

    return show


if __name__ == "__main__":
    sys.exit(main())
