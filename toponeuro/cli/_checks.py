"""Checks and message wording shared by the sub-commands of :mod:`toponeuro.cli`.

Every check raises a typed toponeuro error whose message names the flag, what arrived and
the fix; :func:`cli_message` rewrites the library's ``name=value`` parameters in a message
as the flags that set them.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path


# --- checks shared by the sub-commands ------------------------------------------------------
def _input_path(text, flag: str, what: str) -> Path:
    from ..exceptions import MissingFileError

    path = Path(text)
    if not path.exists():
        raise MissingFileError(f"{flag} {text}: no such file or folder; give {what}.")
    return path


def _out_folder(text, flag: str = "--out") -> Path:
    from ..exceptions import OutputPathError

    path = Path(text)
    for p in (path, *path.parents):
        if p.exists() and not p.is_dir():
            raise OutputPathError(
                f"{flag} {text}: {p} is a file, but a folder is needed there; give a folder "
                "path (it is created if missing)."
            )
    return path


def _out_file(text, flag: str = "--out") -> Path:
    from ..exceptions import OutputPathError

    path = Path(text)
    if path.is_dir():
        raise OutputPathError(f"{flag} {text} is a folder; give a file path (e.g. acts.nc).")
    _out_folder(path.parent, flag)
    return path


def _device(text):
    from .._util.device import check_device

    return str(check_device(text)) if text is not None else None


def _positive(value, flag: str, error=None):
    if value is not None and value < 1:
        from ..exceptions import InvalidDataError

        raise (error or InvalidDataError)(f"{flag} must be at least 1; got {value}.")
    return value


def _json_arg(text, flag: str, *, allow_inline: bool = True,
              example: str = '{"IT": "layer4.1.conv2"}'):
    """A JSON object from a file or (``allow_inline``) the text itself."""
    import json

    from ..exceptions import InvalidDataError, MissingFileError

    if text is None:
        return None
    path = Path(text)
    inline = allow_inline and not path.is_file() and text.lstrip()[:1] in "{["
    if not inline and not path.is_file():
        what = "a JSON file" + (" or a JSON object" if allow_inline else "")
        raise MissingFileError(f"{flag} {text}: no such file; give {what}.")
    source = "the text given" if inline else str(path)
    try:
        value = json.loads(text if inline else path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise InvalidDataError(
            f"{flag}: {source} is not valid JSON ({err}); give an object such as '{example}'."
        ) from None
    if not isinstance(value, dict):
        raise InvalidDataError(
            f"{flag}: {source} holds a JSON {type(value).__name__}; expected an object "
            "(name -> value)."
        )
    return value


# --- messages: the library's parameter names -> the flags that set them ----------------------
#: library parameter names whose flag is not their own name with dashes
_FLAG_OF = {
    "numbers": "--images",
    "random_state": "--seed",
    "n_permutations": "--n-permutations",
    "out_dir": "--out",
    "data_path": "--data",
    "make_zip": "--zip",
    "region_layer_map": "--region-layer-map",
    "weights_url": "--weights-url",
    "trust_checkpoint": "--trust-checkpoint",
    "category_from": "--category-from",
    "stimulus_ids": "--ids",
}


#: flags that take one value (a range, not a list): a list stays written as a list
_ONE_VALUE = ("--images",)

#: Python idioms in library messages -> the command that does the same
_PHRASES = {
    "[n for n, _ in model.named_modules()]": "`toponeuro layers MODEL`",
    "model.named_modules()": "`toponeuro layers MODEL`",
    "toponeuro.models.list_models()": "`toponeuro models`",
    "list_models()": "`toponeuro models`",
}


def _flags(parser: argparse.ArgumentParser, command: str) -> dict[str, str]:
    """Parameter name -> flag for one sub-command (nested actions included)."""
    flags = {}
    stack = [parser]
    while stack:
        p = stack.pop()
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                chosen = action.choices.get(command)
                if chosen is not None:
                    stack.append(chosen)
                elif p is not parser:
                    stack.extend(action.choices.values())
            elif action.option_strings and action.dest not in ("help", "version"):
                long = [o for o in action.option_strings if o.startswith("--")]
                if long and action.help is not argparse.SUPPRESS:
                    flags[action.dest] = long[0]
    return flags


_PARAM = re.compile(
    r"(?<![\w.-])([a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)?)=(True\b|'[^']*'|\"[^\"]*\"|\[[^\]]*\]|\([^)]*\)|"
    r"\{(?:[^{}]|\{[^{}]*\})*\}|[\w.:/<>-]+)?"
)

#: flags that take ``NAME=VALUE`` items, comma-separated: a dict is written in that form
_NAME_VALUE = ("--cortex-maps",)

#: ``name: ...``: a message about one parameter, named before a colon (the atlases'
#: ``cortex_maps: 'faces' has ...``). Only names with an underscore (never an English word)
#: followed by a space, and only those a flag sets, are rewritten.
_PARAM_COLON = re.compile(
    r"(?<![\w.-])([a-z][a-z0-9]*(?:(?:_[a-z0-9]+)+|\.[a-z][a-z0-9_]*)):(?=\s)")


def _flag_of(name: str, flags: dict[str, str]) -> str | None:
    """The flag that sets parameter ``name`` (``"null.n_permutations"``: a settings field)."""
    if name in flags:
        return flags[name]
    if name in _FLAG_OF:
        return _FLAG_OF[name]
    from ._settings import old_keyword_fields, settings_flags

    if "." in name:
        return settings_flags().get(name)
    # a library message in a 0.4 name (cortex_threshold=, train's epochs=): the flag of its
    # settings field, where this command has that flag
    for old in old_keyword_fields():
        flag = settings_flags().get(old.get(name, ""))
        if flag is not None and flag in flags.values():
            return flag
    return None


def _none_word(name: str, flag: str) -> str | None:
    """The command line's word for ``name=None`` (``records.log_every``: ``none``), declared
    by the settings field of that name or flag (``cli_none``); None: the flag cannot choose
    None (leaving it out is its None)."""
    from ._settings import none_words

    words = none_words()
    return words.get(name) or words.get(flag)


def one_line(message: str) -> str:
    r"""``message`` on one line: the command line prints one stderr line per error.

    A message of two lines (a download error's hint and its cause) is joined; a longer one
    (a program's error output copied into an
    :class:`~toponeuro.exceptions.ExternalCommandError`) keeps its first line and its last
    (where a traceback names the error) and says how many lines it leaves out. Nothing is
    lost: the exception keeps the whole text for Python callers, and a message that copies
    a program's output names the file holding all of it.

    Examples
    --------
    >>> one_line("The map needs the fLoc images.\n(the download failed: timed out)")
    'The map needs the fLoc images. (the download failed: timed out)'
    >>> one_line("Scoring failed; all of it is in err.txt:\nTraceback\n  File x\nValueError: y")
    'Scoring failed; all of it is in err.txt: [2 more lines] ValueError: y'
    """
    lines = [ln.strip() for ln in message.splitlines() if ln.strip()]
    if len(lines) <= 2:
        return " ".join(lines)
    n = len(lines) - 2
    return f"{lines[0]} [{n} more line{'' if n == 1 else 's'}] {lines[-1]}"


def _dict_value(text: str, flag: str) -> str:
    """A dict written in a message (``{'verbs': 'c.nc'}``) as the flag takes it: ``NAME=VALUE``
    items for the flags of :data:`_NAME_VALUE`, else JSON in single quotes (as the shell
    needs it); a text that is no literal dict stays as it is."""
    import ast
    import json

    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return text
    if not isinstance(value, dict):
        return text
    if flag in _NAME_VALUE and all(isinstance(v, str | int | float) for v in value.values()):
        return ",".join(f"{k}={v}" for k, v in value.items())
    try:
        return f"'{json.dumps(value)}'"
    except (TypeError, ValueError):
        return text


def cli_message(message: str, flags: dict[str, str]) -> str:
    """``message`` with ``name=value`` of library parameters written as ``--flag value``
    (and ``name:`` opening a message about one parameter as ``--flag:``); ``name=None`` as
    the flag's word for None (``--log-every none``, declared by the settings field,
    ``cli_none``), or the flag left out where that is its None.

    Examples
    --------
    >>> cli_message("pass trust_checkpoint=True, or categories=['faces', 'places'].",
    ...             {"trust_checkpoint": "--trust-checkpoint", "categories": "--categories"})
    'pass --trust-checkpoint, or --categories faces places.'
    >>> cli_message("cortex_maps: 'faces' is constant", {"cortex_maps": "--cortex-maps"})
    "--cortex-maps: 'faces' is constant"
    >>> cli_message("give cortex_maps={'verbs': 'contrast.nc'}", {"cortex_maps": "--cortex-maps"})
    'give --cortex-maps verbs=contrast.nc'
    >>> print(cli_message("vol_to_surf={'radius': 2}", {"vol_to_surf": "--vol-to-surf"}))
    --vol-to-surf '{"radius": 2}'

    ``name=None`` is the flag's word for None where it has one, else the flag left out:

    >>> cli_message("records.log_every=None logs no steps.", {})
    '--log-every none logs no steps.'
    >>> cli_message("or pass verb_noun=None.", {"verb_noun": "--verb-noun"})
    'or pass --verb-noun none.'
    >>> cli_message("cortex.threshold=None uses the patch threshold", {})
    '--cortex-threshold left out uses the patch threshold'
    """

    def swap(m):
        name, value = m.group(1), m.group(2)
        flag = _flag_of(name, flags)
        if flag is None:
            return m.group(0)
        if value is not None and value.rstrip(".:") == "None":  # the flag's word for None
            word, end = _none_word(name, flag), value[4:]  # (a sentence's full stop stays)
            return f"{flag} {word}{end}" if word else f"{flag} left out{end}"
        if value in (None, "", "True"):
            # a value this rewrite does not know stays, after a space (never glued to the flag)
            rest = m.string[m.end():m.end() + 1]
            return flag if not rest or rest.isspace() or rest in ",.;:)]}" else f"{flag} "
        if value[:1] == "{" and value[-1:] == "}":
            return f"{flag} {_dict_value(value, flag)}"
        if value[:1] in "'\"" and value[-1:] == value[:1]:
            value = value[1:-1]
        elif value[:1] == "[" and value[-1:] == "]" and flag not in _ONE_VALUE:
            # a list: the flag's space-separated form
            value = " ".join(v.strip().strip("'\"") for v in value[1:-1].split(",") if v.strip())
        return f"{flag} {value}"

    def swap_colon(m):
        flag = _flag_of(m.group(1), flags)
        return f"{flag}:" if flag else m.group(0)

    for phrase, command in _PHRASES.items():
        message = message.replace(phrase, command)
    return _PARAM_COLON.sub(swap_colon, _PARAM.sub(swap, message))
