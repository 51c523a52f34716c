"""Shared pieces of the sub-commands: the help formatter, the model and checkpoint options."""

from __future__ import annotations

import argparse
import sys

from ._checks import (
    one_line,
)


class _HelpFormatter(argparse.HelpFormatter):
    """Appends ``(default: X)`` to an option's help unless the help already says its default."""

    def _get_help_string(self, action):
        text = action.help or ""
        library_default = getattr(action, "library_default", None)
        if library_default is not None:  # read from the library only when help is shown
            value, source = library_default()
            value = f"{value:g}" if isinstance(value, float) else value
            return f"{text} (default: {value}, {source})" if source else (
                f"{text} (default: {value})")
        default = action.default
        if (
            "default" in text
            or default is None
            or default is False
            or default == argparse.SUPPRESS
            or action.required
            or not action.option_strings
            and action.nargs not in ("?", "*")
        ):
            return text
        if isinstance(default, (list, tuple)):
            default = " ".join(map(str, default))
        return f"{text} (default: {default})"


def _parser(sub, name, **kwargs):
    return sub.add_parser(name, formatter_class=_HelpFormatter, **kwargs)


def _warn(message: str) -> None:
    print(f"toponeuro: warning: {one_line(message)}", file=sys.stderr)


def _model_args(p, *, required: bool, positional: bool = False, default_help: str = "",
                need: str = "MODEL or --model is required"):
    """``--model NAME`` (and, where the command has one main argument, ``MODEL`` too).

    Returns the ``--model`` action (so a caller can attach a ``library_default``).
    """
    text = _declared_help("ModelSource", "name") + default_help
    if positional:
        text += f" ({need})"
        p.add_argument("model_pos", nargs="?", metavar="MODEL",
                       help=f"{text}; same as --model")
    return p.add_argument("--model", required=required and not positional,
                          help=text + ("; same as MODEL" if positional else ""))


def _declared_help(cls_name: str, name: str) -> str:
    """The help that field ``name`` of the settings class ``cls_name`` of
    :mod:`toponeuro.settings` declares: a flag that several commands add themselves
    (``--model``, ``--checkpoint``, ``--device`` ...) says what its field says, in one place."""
    from .. import settings as S

    return getattr(S, cls_name).__dataclass_fields__[name].metadata["help"]



def _add_no_progress(p) -> None:
    p.add_argument("--no-progress", action="store_true", help="hide progress bars")


def _add_checkpoint_args(p) -> None:
    """``--checkpoint`` and ``--trust-checkpoint``: local weights instead of the released ones
    (read by :func:`toponeuro.training.load_trained_model`, in every command alike)."""
    p.add_argument("--checkpoint", help=_declared_help("ModelSource", "checkpoint"))
    p.add_argument("--trust-checkpoint", action="store_true",
                   help=_declared_help("ModelSource", "trust_checkpoint"))


def _library_default(action, value_and_source) -> None:
    """Show a default that the library defines (read lazily: only when help is printed).

    The option itself defaults to ``None`` and is then not passed on, so the library's own
    default applies: the CLI cannot drift from it.
    """
    action.library_default = value_and_source


def _run_map_default(name: str):
    import inspect

    from ..reporting import run_map

    return inspect.signature(run_map).parameters[name].default


def _model_of(args, command: str):
    pos = getattr(args, "model_pos", None)
    if pos and args.model and pos != args.model:
        from ..exceptions import InvalidDataError

        raise InvalidDataError(
            f"toponeuro {command}: MODEL {pos!r} and --model {args.model!r} differ; give one."
        )
    return pos or args.model


# --- train -------------------------------------------------------------------------------------
