"""Flags built from the declarations of the settings objects, and parsed back into them.

The settings objects are those of :mod:`toponeuro.settings` (``map``) and of
:mod:`toponeuro.training` (``train``: :class:`~toponeuro.training.TrainSchedule`,
:class:`~toponeuro.training.TrainRecords`).

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

__all__ = ["add_settings_args", "settings_from_args", "settings_flags", "settings_classes",
           "given_settings", "none_given", "none_words", "old_keyword_fields",
           "add_param_args", "given_params", "param_help"]


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


def _type_of(cls, f):
    """How a field's flag reads its text: a number where the class declares the field a
    number (:func:`~toponeuro._util.frozen.validate_fields`) or its annotation or default
    says so; the object checks the value."""
    from .._util.params import Interval, declared_params

    meta = f.metadata
    if "type" in meta:
        return meta["type"]
    if isinstance(f.default, bool):
        return None
    if any(isinstance(c, Interval) for c in declared_params(cls).get(f.name, ())):
        return _number
    if isinstance(f.default, int | float) or f.type in ("int", "float", "float | None",
                                                         "int | None"):
        return _number
    return str


def _public_module(cls) -> str:
    """Where ``cls`` is documented: its module up to the first private part
    (``toponeuro.training._settings`` -> ``toponeuro.training``)."""
    parts = cls.__module__.split(".")
    return ".".join(parts[:next((i for i, x in enumerate(parts) if x.startswith("_")),
                                len(parts))])


def _shown(f) -> str:
    """A field's default as ``--help`` writes it (``None``: what the field says it means)."""
    d = f.default
    if d is None:
        return f"None ({f.metadata['none']})" if "none" in f.metadata else "None"
    return f"{d:g}" if isinstance(d, float) else str(d)


def _with_none(base, f):
    """``base``, or the field ``f``'s command-line word for None (``cli_none``) as it is: a
    field whose None is a choice (``--log-every none``) takes it besides its values, and
    takes a recipe's word for None as the same (``recipe_none``: ``--log-every 0`` as
    ``log_every = 0`` in a recipe, :func:`~toponeuro._util.frozen.recipe_value`)."""
    from .._util.frozen import recipe_value

    word = f.metadata["cli_none"]

    def parse(text: str):
        if text.strip().lower() == word:
            return word
        value = text if base is None else base(text)
        return word if recipe_value(f, value) is None else value

    return parse


def _none_help(f) -> str:
    """What ``--help`` adds for a field's word for None (and the recipe's words, that the
    flag takes too): ``"; none or 0: no step log"``, ``", or all (also 0)"``."""
    meta = f.metadata
    word = meta["cli_none"]
    also = [str(w) for w in meta.get("recipe_none", ()) if str(w).lower() != word]
    means = meta.get("none", word)
    if means != word:
        return f"; {' or '.join([word, *also])}: {means}"
    return f", or {word}" + (f" (also {' or '.join(also)})" if also else "")


def _signature_default(where: str, name: str):
    """The default of parameter ``name`` of the public function ``where``
    (``"toponeuro.extract"``), read when ``--help`` is shown."""
    import importlib
    import inspect

    module, _, attr = where.rpartition(".")
    func = getattr(importlib.import_module(module), attr)
    return inspect.signature(func).parameters[name].default


def add_settings_args(p, cls, *, skip=(), only=None, language: bool = False, prefix: str = "",
                      first: str = "", defaults_of: str = "") -> dict:
    """One option per declared field of the settings class ``cls`` (not those in ``skip``).

    Parameters
    ----------
    p : argparse.ArgumentParser
        The parser.
    cls : type
        A settings class of :mod:`toponeuro.settings`.
    skip : sequence of str
        Fields whose flag the command adds itself.
    only : sequence of str, optional
        Only these fields (a command that takes some of a class's fields).
    language : bool
        Use a field's ``language_help`` where it declares one (``map --language --help``).
    prefix : str
        Put before each help text (``"with --language: "``).
    first : str
        What applies before the library's default when the flag is left out, for ``--help``
        (``"the recipe's train.{name}"``; ``{name}``: the field).
    defaults_of : str
        The public function whose keyword of the field's name applies when the flag is left
        out (``"toponeuro.extract"``: ``extract``'s ``batch_size=64``); ``--help`` shows
        that default.

    Returns
    -------
    dict
        Field name -> the argparse action added.
    """
    actions = {}
    for f in _declared(cls, all_flags=only is not None):
        if f.name in skip or (only is not None and f.name not in only):
            continue
        meta = f.metadata
        dest = f"{cls._name}.{f.name}"
        text = meta.get("language_help", meta["help"]) if language else meta["help"]
        word = meta.get("cli_none")
        if word and word not in meta.get("choices", ()):  # "; none: unsmoothed", ", or all"
            text += _none_help(f)
        kw = {"dest": dest, "default": None, "help": prefix + text}
        if meta.get("action"):
            kw["action"] = meta["action"]
        else:
            kw["type"] = _type_of(cls, f)
            if word:  # a choice's type gives the word for a recipe's ("none": "constant")
                kw["type"] = _with_none(kw["type"], f)
            kw["metavar"] = meta.get("metavar", f.name.upper())
            for key in ("nargs", "choices"):
                if key in meta:
                    kw[key] = meta[key]
            if "choices" in meta:
                kw.pop("metavar")
        action = p.add_argument(meta["flag"], **kw)
        source = f"{_public_module(cls)}.{cls.__name__}().{f.name}"
        if defaults_of and not meta.get("action"):
            action.library_default = lambda w=defaults_of, n=f.name: (
                _signature_default(w, n), w)
        elif first and not meta.get("action"):
            # what applies first (the recipe's key), then the library's default
            text = f"{first.format(name=f.name)}, else {source} = {_shown(f)}"
            action.library_default = lambda t=text: (t, "")
        elif f.default is not None and f.default is not dataclasses.MISSING and not meta.get(
                "action"):
            # the library's default, read when help is shown (cli._common._HelpFormatter)
            action.library_default = lambda d=f.default, s=source: (d, s)
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


def none_given(cls, values: dict) -> dict:
    """``values`` (field -> what its flag gave) with a field's command-line word for None
    (``cli_none``: ``--log-every none``, ``--smooth-fwhm none``) as None."""
    fields = cls.__dataclass_fields__
    return {k: None if v is not None and v == fields[k].metadata.get("cli_none") else v
            for k, v in values.items()}


def param_help(func, name: str) -> str:
    """The entry of parameter ``name`` in the numpydoc ``Parameters`` section of ``func``'s
    docstring, as one line of plain text (``--help``'s): markup dropped, the first letter
    small.

    Examples
    --------
    >>> def f(n=None):
    ...     '''Do.
    ...
    ...     Parameters
    ...     ----------
    ...     n : int, optional
    ...         How many ``things`` (see :func:`~toponeuro.extract`).
    ...     '''
    >>> param_help(f, "n")
    'how many things (see extract)'
    """
    import inspect
    import re

    lines = (inspect.getdoc(func) or "").splitlines()
    start = next((i + 2 for i, line in enumerate(lines[:-1]) if line.strip() == "Parameters"
                  and set(lines[i + 1].strip()) == {"-"}), None)
    entry: list[str] = []
    for line in lines[start or len(lines):]:
        if not line.strip() or line.startswith(" "):
            if entry:
                entry.append(line.strip())
            continue
        if entry or set(line.strip()) == {"-"}:  # the next parameter, or section
            break
        if name in [n.strip() for n in line.split(" : ")[0].split(",")]:
            entry.append("")
    text = " ".join(" ".join(entry).split())
    if not text:
        from ..exceptions import InternalError

        raise InternalError(f"{func.__qualname__}'s docstring has no entry for {name!r}.")
    text = re.sub(r":\w+:`~?(?:[\w.]*\.)?([^`]+)`", r"\1", text).replace("``", "")
    text = text.removesuffix(".")  # --help adds "(default: ...)"
    return text[0].lower() + text[1:] if text[1:2].islower() else text


def _param_kind(spec):
    """An argparse type and metavar for a parameter's declared constraints."""
    from .._util.params import Interval, PathLike

    for c in spec if isinstance(spec, list | tuple) else [spec]:
        if isinstance(c, Interval):
            return (int, "N") if c.integral else (float, "X")
        if isinstance(c, PathLike):
            return str, "PATH"
    return str, None


def add_param_args(p, func, flags: dict[str, str], *, first: str = "") -> dict:
    """One option per parameter of the public function ``func`` named in ``flags``
    (parameter -> flag), built from the parameter's declaration: its type from the
    constraints ``func`` declares (:func:`~toponeuro._util.params.validate_params`), its help
    from ``func``'s docstring (:func:`param_help`), its default from ``func``'s signature
    (``None``: ``first``, what applies when the flag is left out). The option's ``dest`` is
    the parameter, so a library message naming it names the flag.

    Parameters
    ----------
    p : argparse.ArgumentParser or argument group
        Where to add the options.
    func : callable
        A public function with declared parameters (``toponeuro.training.run_recipe``).
    flags : dict
        Parameter -> flag.
    first : str
        The default ``--help`` shows for a parameter whose default is None.

    Returns
    -------
    dict
        Parameter -> the argparse action added.
    """
    import inspect

    from .._util.params import declared_params

    declared, signature = declared_params(func), inspect.signature(func).parameters
    actions = {}
    for name, flag in flags.items():
        kind, metavar = _param_kind(declared[name])
        action = p.add_argument(flag, dest=name, type=kind, default=None,
                                metavar=metavar or name.upper(), help=param_help(func, name))
        action.declared_by = func  # not a settings field's: a function's parameter
        default = signature[name].default
        action.library_default = (lambda t=first: (t, "")) if default is None else (
            lambda d=default: (d, ""))
        actions[name] = action
    return actions


def given_params(args, func, names) -> dict:
    """``parameter -> value`` of the options :func:`add_param_args` added for ``func`` that
    were given, each checked by the parameter's declaration (a message names the
    parameter, which the command line writes as its flag)."""
    from .._util.params import check_param, declared_params, without_none

    # a flag given is never None: its message leaves None out
    return {name: check_param(getattr(args, name), name, without_none(declared_params(func)[name]))
            for name in names if getattr(args, name, None) is not None}


def settings_from_args(args, cls, **values):
    """The settings object of the flags given (``values`` override them: parsed forms)."""
    given = none_given(cls, given_settings(args, cls))
    given.update({k: v for k, v in values.items() if v is not None})
    if "hemispheres" in given and isinstance(given["hemispheres"], list):
        given["hemispheres"] = tuple(given["hemispheres"])
    return cls(**given)


def settings_classes() -> tuple:
    """Every settings class whose fields declare flags: the jobs' and ``train``'s."""
    from .. import settings as S
    from ..training import TrainData, TrainRecords, TrainSchedule

    return (S.NullSettings, S.PatchRule, S.CortexInput, S.Extraction, S.ModelSource,
            S.RulerRun, S.LanguageUnits, S.FlocStimuli, S.LanguageStimuli, TrainSchedule,
            TrainData, TrainRecords)


def _every_declared():
    """``("param.field", field)`` of every field with a flag of the settings classes."""
    for cls in settings_classes():
        for f in _declared(cls, all_flags=True):
            yield f"{cls._name}.{f.name}", f


def settings_flags() -> dict[str, str]:
    """``"param.field" -> flag`` for every declared field of the settings classes
    (:func:`settings_classes`): ``"null.n_permutations"``, ``"schedule.lr"`` ...

    Examples
    --------
    >>> flags = settings_flags()
    >>> flags["cortex.n_permutations"], flags["schedule.lr"], flags["records.log_every"]
    ('--cortex-n-permutations', '--lr', '--log-every')
    """
    return {key: f.metadata["flag"] for key, f in _every_declared()}


def none_words() -> dict[str, str]:
    """The command line's word for None of every field whose None a flag can choose
    (``cli_none``), by ``"param.field"`` and by flag: ``"records.log_every" -> "none"``,
    ``"--keep-checkpoints" -> "all"``.

    Examples
    --------
    >>> words = none_words()
    >>> words["records.log_every"], words["--keep-checkpoints"], words["--verb-noun"]
    ('none', 'all', 'none')
    """
    out = {}
    for key, f in _every_declared():
        if "cli_none" in f.metadata:
            out[key] = out[f.metadata["flag"]] = f.metadata["cli_none"]
    return out


def old_keyword_fields() -> tuple[dict[str, str], ...]:
    """The 0.4 keywords of the library's entries -> the settings field that replaced them
    (``"cortex_threshold" -> "cortex.threshold"``; ``train``'s ``"epochs" ->
    "schedule.epochs"``), one mapping per entry."""
    from ..settings import OLD_KEYWORDS
    from ..training import OLD_TRAIN_KEYWORDS

    return OLD_KEYWORDS, OLD_TRAIN_KEYWORDS
