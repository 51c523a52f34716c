"""Flags built from the declarations of :mod:`toponeuro.settings`, and parsed back into them.

Each field of a settings object declares its flag and help (``dataclasses.field(metadata=)``);
:func:`add_settings_args` adds one option per field (its ``dest`` is ``"param.field"``, the
name the library's messages use, so :func:`~toponeuro.cli._checks.cli_message` rewrites them
as the flag) and the 0.4 flags as hidden aliases that warn; :func:`settings_from_args` builds
the settings object from what was given (a flag left out: the object's own default). The
values are checked by the settings object itself: what Python accepts, the command line
accepts, and it refuses the rest with the same message, in flags.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys

__all__ = ["add_settings_args", "settings_from_args", "settings_flags", "given_settings"]


def _number(text: str):
    """An int where the text is one, else a float (the settings object checks the value)."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None


class _OldFlag(argparse.Action):
    """A 0.4 flag kept for one release: sets the new flag's value and says its new name."""

    def __init__(self, option_strings, dest, new_flag: str = "", **kwargs):
        self.new_flag = new_flag
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"toponeuro: warning: {option_string} is deprecated since toponeuro 0.5 and will "
              f"be removed in 0.6; use {self.new_flag}.", file=sys.stderr)
        setattr(namespace, self.dest, values)


def _declared(cls, *, all_flags: bool = False):
    """The fields of ``cls`` that have a flag (``all_flags=False``: not those the command adds
    itself, ``cli_adds``)."""
    return [f for f in dataclasses.fields(cls) if f.init and f.metadata.get("flag")
            and (all_flags or not f.metadata.get("cli_adds"))]


def _type_of(f):
    meta = f.metadata
    if "type" in meta:
        return meta["type"]
    if isinstance(f.default, bool):
        return None
    if isinstance(f.default, int | float) or f.type in ("int", "float", "float | None",
                                                         "int | None"):
        return _number
    return str


def add_settings_args(p, cls, *, skip=(), language: bool = False, prefix: str = "") -> dict:
    """One option per declared field of the settings class ``cls`` (not those in ``skip``).

    Parameters
    ----------
    p : argparse.ArgumentParser
        The parser.
    cls : type
        A settings class of :mod:`toponeuro.settings`.
    skip : sequence of str
        Fields whose flag the command adds itself.
    language : bool
        Use a field's ``language_help`` where it declares one (``map --language --help``).
    prefix : str
        Put before each help text (``"with --language: "``).

    Returns
    -------
    dict
        Field name -> the argparse action added.
    """
    actions = {}
    for f in _declared(cls):
        if f.name in skip:
            continue
        meta = f.metadata
        dest = f"{cls._name}.{f.name}"
        text = meta.get("language_help", meta["help"]) if language else meta["help"]
        kw = {"dest": dest, "default": None, "help": prefix + text}
        if meta.get("action"):
            kw["action"] = meta["action"]
        else:
            kw["type"] = _type_of(f)
            kw["metavar"] = meta.get("metavar", f.name.upper())
            for key in ("nargs", "choices"):
                if key in meta:
                    kw[key] = meta[key]
            if "choices" in meta:
                kw.pop("metavar")
        action = p.add_argument(meta["flag"], **kw)
        if f.default is not None and f.default is not dataclasses.MISSING and not meta.get(
                "action"):
            # the library's default, read when help is shown (cli._common._HelpFormatter)
            action.library_default = lambda d=f.default, n=f.name: (
                d, f"toponeuro.settings.{cls.__name__}().{n}")
        for old in meta.get("old_flags", ()):
            old_kw = {k: v for k, v in kw.items() if k not in ("help", "action")}
            p.add_argument(old, action=_OldFlag, new_flag=meta["flag"], help=argparse.SUPPRESS,
                           **old_kw)
        actions[f.name] = action
    return actions


def given_settings(args, cls) -> dict:
    """``field -> value`` of the flags of ``cls`` given on the command line."""
    return {f.name: getattr(args, f"{cls._name}.{f.name}")
            for f in _declared(cls)
            if getattr(args, f"{cls._name}.{f.name}", None) is not None}


def settings_from_args(args, cls, **values):
    """The settings object of the flags given (``values`` override them: parsed forms)."""
    given = given_settings(args, cls)
    given.update({k: v for k, v in values.items() if v is not None})
    if "hemispheres" in given and isinstance(given["hemispheres"], list):
        given["hemispheres"] = tuple(given["hemispheres"])
    return cls(**given)


def settings_flags() -> dict[str, str]:
    """``"param.field" -> flag`` for every declared field of :mod:`toponeuro.settings`."""
    from .. import settings as S

    out = {}
    for cls in (S.NullSettings, S.PatchRule, S.CortexInput, S.Extraction, S.ModelSource,
                S.RulerRun, S.LanguageUnits, S.FlocStimuli, S.LanguageStimuli):
        for f in _declared(cls, all_flags=True):
            out[f"{cls._name}.{f.name}"] = f.metadata["flag"]
    return out
