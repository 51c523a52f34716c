"""What a training recipe may contain: every known key, and the values each accepts.

:func:`validate_recipe` (an image recipe) and :func:`validate_language_recipe` (a
``language_distillation`` recipe) run when a recipe is loaded and again before it is built
(after ``--epochs`` / ``--seed`` overrides), so a typo (``epochz``) or an unusable value
(``tau = -5``, ``nan``, ``epochs = 0``) stops the run with a
:class:`~toponeuro.exceptions.RecipeError` that names the key and the fix, instead of
training with a default. Both read their schema (:data:`RECIPE_SCHEMA`,
:data:`LANGUAGE_RECIPE_SCHEMA`) the same way. An image recipe's ``[train]`` keys are the
fields of :class:`~toponeuro.training.TrainSchedule` and
:class:`~toponeuro.training.TrainRecords`, checked by their declarations (``log_every = 0``
is their word for None: no step log). A new recipe key is added here, with its check.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import re

from .._util.constraints import MAPPING
from .._util.frozen import recipe_value
from .._util.params import Text, check_param, declared_params, validate_params, without_none
from ..exceptions import (
    InputTypeError,
    ParameterError,
    RecipeError,
    UnknownNameError,
    close_matches,
)
from ._settings import TrainRecords, TrainSchedule

__all__ = ["validate_recipe", "validate_language_recipe", "RECIPE_SCHEMA",
           "LANGUAGE_RECIPE_SCHEMA", "LANGUAGE_KIND"]

#: the ``kind`` of a language recipe (fine-tuning a language model; an image recipe has no
#: ``kind``)
LANGUAGE_KIND = "language_distillation"


def _whole(v):
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def _real(v):
    return isinstance(v, numbers.Real) and not isinstance(v, bool) and math.isfinite(v)


def _int(lo=None):
    def check(v):
        if not _whole(v) or (lo is not None and v < lo):
            return f"a whole number{'' if lo is None else f' >= {lo}'}"
    return check


def _num(lo=None, hi=None, lo_open=False, hi_open=False):
    def check(v):
        ok = _real(v)
        if ok and lo is not None:
            ok = v > lo if lo_open else v >= lo
        if ok and hi is not None:
            ok = v < hi if hi_open else v <= hi
        if not ok:
            parts = []
            if lo is not None:
                parts.append(f"{'>' if lo_open else '>='} {lo}")
            if hi is not None:
                parts.append(f"{'<' if hi_open else '<='} {hi}")
            return "a finite number" + (" " + " and ".join(parts) if parts else "")
    return check


def _str(v):
    if not isinstance(v, str):
        return "a string"


def _name(v):
    # a name, not a path: run_recipe writes to runs/<name>
    if not (isinstance(v, str) and re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", v)
            and ".." not in v):
        return ("a name of letters, digits, '.', '_' and '-' (no '/', '\\' or '..': it "
                "names the folder runs/<name>)")


def _bool(v):
    if not isinstance(v, bool):
        return "true or false"


def _strings(v):
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        return "a list of strings"


def _ints(v):
    if not isinstance(v, list) or not v or not all(_whole(x) and x > 0 for x in v):
        return "a non-empty list of positive whole numbers"


def _range(v):
    if not (isinstance(v, list) and len(v) == 2 and all(_whole(x) for x in v) and 1 <= v[0] <= v[1]):
        return "a [first, last] pair of image numbers (1 <= first <= last)"


def _pair(lo, hi):
    def check(v):
        if not (isinstance(v, list) and len(v) == 2 and all(_real(x) for x in v)
                and lo <= v[0] <= v[1] <= hi):
            return f"a [low, high] pair with {lo} <= low <= high <= {hi}"
    return check


def _layers(v):
    if v != "topo" and _strings(v) is not None:
        return "'topo' (the architecture's default layers) or a list of layer names"


def _choice(*options):
    def check(v):
        if v not in options:
            return f"one of {list(options)}"
    return check


def _path(v):
    if not isinstance(v, str) or not v:
        return "a folder path, or 'floc' for the fLoc images"


def _text(v):
    if not isinstance(v, str) or not v:
        return "a non-empty string"


def _globs(v):
    if not v or _strings(v) is not None:
        return "a non-empty list of parameter-name globs"


def _declared(cls, f: dataclasses.Field):
    """The check of the ``[train]`` key of the settings field ``f`` of ``cls``: the
    constraints ``cls`` declares for it (:func:`~toponeuro._util.frozen.validate_fields`) but
    None, which is the recipe's word for it (``recipe_none``), never a TOML value."""
    spec = without_none(declared_params(cls)[f.name])
    words = f.metadata.get("recipe_none", ())

    def check(v):
        if recipe_value(f, v) is None:
            return None
        try:
            check_param(v, f.name, spec)
        except (ParameterError, InputTypeError, UnknownNameError):
            want = " or ".join(c.describe() for c in spec)
            if words:
                want += f", or {' / '.join(map(repr, words))} for {f.metadata['none']}"
            return want
    return check


#: section -> key -> check (returns what was expected, or None when the value is fine)
RECIPE_SCHEMA = {
    "": {"name": _name, "description": _str, "seed": _int(0), "device": _str,
         "model": None, "data": None, "train": None, "topoloss": None},
    "model": {"arch": _str, "num_classes": _int(1), "widths": _ints, "blurpool": _bool},
    "data": {
        "kind": _choice("synthetic", "image_folder", "floc_instances"),
        "path": _path, "categories": _strings, "numbers": _range, "val_numbers": _range,
        "image_size": _int(8), "grayscale": _bool, "augment": _bool,
        # synthetic gratings
        "seed": _int(0), "n_classes": _int(2), "n_per_class": _int(1), "val_per_class": _int(0),
        # instance discrimination (floc_instances)
        "decode_size": _int(8), "repeats": _int(1), "scale": _pair(0.0, 1.0),
        "ratio": _pair(0.01, 100.0), "rotation": _num(0, 180), "flip": _bool,
        "jitter": _num(0, 1), "val_views": _int(0), "val_seed": _int(0),
    },
    # the settings objects' fields, checked by their declarations
    "train": {f.name: _declared(cls, f) for cls in (TrainSchedule, TrainRecords)
              for f in dataclasses.fields(cls)},
    "topoloss": {
        "layers": _layers, "factor_h": _num(1), "factor_w": _num(1), "tau": _num(0),
        "interpolation": _choice("bilinear", "bicubic", "nearest", "nearest-exact", "area"),
        "target": _choice("weight", "bias", "input"), "schedule": None,
    },
    "topoloss.schedule": {
        "kind": _choice("constant", "linear_warmup", "cosine_decay"),
        "warmup_steps": _int(0), "total_steps": _int(0), "final": _num(0, 1),
    },
}

#: a ``language_distillation`` recipe's schema, read as :data:`RECIPE_SCHEMA`
LANGUAGE_RECIPE_SCHEMA = {
    "": {"name": _text, "kind": _choice(LANGUAGE_KIND), "description": _str, "seed": _int(),
         "device": _str, "model": None, "data": None, "train": None, "topoloss": None},
    "model": {"base": _text, "train": _globs},
    "data": {"kind": _choice("wordnet", "synthetic"), "path": _str, "min_words": _int(1),
             "n_sentences": _int(1), "heldout_every": _int(2), "heldout_size": _int(1),
             "max_length": _int(4)},
    "train": {"steps": _int(1), "batch_size": _int(1), "lr": _num(0, lo_open=True),
              "weight_decay": _num(0), "lr_schedule": _choice("cosine", "constant"),
              "warmup_steps": _int(0), "log_every": _int(1), "eval_every": _int(1),
              "threads": _int(1)},
    "topoloss": {"layers": _layers, "factor_h": _num(1), "factor_w": _num(1), "tau": _num(0),
                 "schedule": None},
}
#: the keys a language recipe must have, by section
_LANGUAGE_REQUIRED = {"": ("name", "kind", "seed", "model", "data", "train", "topoloss"),
                      "model": ("base", "train"), "data": ("kind",), "train": ("steps",)}

_HINTS = {
    "topoloss.tau": " (0 computes TopoLoss without optimising it; a negative tau would reward "
                    "rough maps)",
    "train.epochs": " (or pass epochs=N with N >= 1)",
}


def _check_recipe(label: str, recipe: dict, schema: dict, required=None,
                  layout: str = "") -> None:
    """Check every section of ``recipe`` that ``schema`` names (a missing or non-table
    section is skipped: its parent's check refuses a non-table), the ``required`` keys
    first."""
    for section, spec in schema.items():
        table = recipe
        for part in section.split(".") if section else ():
            table = table.get(part) if isinstance(table, dict) else None
        if not isinstance(table, dict):
            continue
        for key in (required or {}).get(section, ()):
            if key not in table:
                full = f"{section}.{key}" if section else key
                raise RecipeError(f"Recipe {label}: {full} is required (see {layout} for the "
                                  "layout).")
        _check_section(label, section, table, spec)


def _check_section(recipe_name, section, table, spec):
    where = f"[{section}]" if section else "the top level"
    for key, value in table.items():
        full = f"{section}.{key}" if section else key
        if key not in spec:
            raise RecipeError(
                f"Recipe {recipe_name}: unknown key {full!r} in {where}; "
                f"{close_matches(key, spec)} Known keys there: {sorted(spec)}."
            )
        check = spec[key]
        if check is None:  # a sub-table
            if not isinstance(value, dict):
                raise RecipeError(
                    f"Recipe {recipe_name}: {full!r} must be a table ([{full}]); got {value!r}."
                )
            continue
        expected = check(value)
        if expected is not None:
            raise RecipeError(
                f"Recipe {recipe_name}: {full} must be {expected}; got {value!r}"
                f"{_HINTS.get(full, '')}. Fix the value in the recipe file."
            )


@validate_params(dict(name=[Text(), None]))
def validate_recipe(recipe: dict, name=None) -> dict:
    """Check every key and value of a recipe; return it unchanged.

    Parameters
    ----------
    recipe : dict
        A parsed recipe (see ``toponeuro/training/recipes/demo-smoke.toml``).
    name : str, optional
        How to call the recipe in messages (default: its ``name``).

    Returns
    -------
    dict
        ``recipe``, unchanged.

    Raises
    ------
    RecipeError
        For an unknown key (listing the close matches) or an unusable value.

    Examples
    --------
    >>> from toponeuro.training import load_recipe
    >>> r = load_recipe("demo-smoke")
    >>> r["train"]["epochz"] = 3
    >>> validate_recipe(r)
    Traceback (most recent call last):
    ...
    toponeuro.exceptions.RecipeError: Recipe 'demo-smoke': unknown key 'train.epochz' in [train]; did you mean 'epochs'? Known keys there: ['batch_size', 'epochs', 'keep_checkpoints', 'log_every', 'lr', 'lr_schedule', 'momentum', 'weight_decay'].
    """
    if not isinstance(recipe, dict):
        raise RecipeError(f"A recipe is a table (dict); got {type(recipe).__name__}.")
    label = repr(name if name is not None else recipe.get("name", "<unnamed>"))
    _check_recipe(label, recipe, RECIPE_SCHEMA)
    return recipe


@validate_params(dict(recipe=MAPPING, source=Text()))
def validate_language_recipe(recipe: dict, source: str = "recipe") -> dict:
    """Check every key and value of a ``language_distillation`` recipe; return it.

    Parameters
    ----------
    recipe : dict
        A parsed recipe with ``kind = "language_distillation"``.
    source : str
        Where it comes from (a file or name), named in messages.

    Returns
    -------
    dict
        The same ``recipe`` object (nothing filled in).

    Raises
    ------
    RecipeError
        A required key (``train.steps`` ...) is missing, or a key is unknown or its value
        unusable: worded as :func:`validate_recipe`'s, naming the key.

    Examples
    --------
    >>> r = validate_language_recipe({"name": "x", "kind": "language_distillation", "seed": 0,
    ...     "model": {"base": "minilm.l6_v2", "train": ["*.intermediate.dense.*"]},
    ...     "data": {"kind": "synthetic"}, "train": {"steps": 2}, "topoloss": {"tau": 1.0}})
    >>> r["train"]["steps"]
    2
    >>> validate_language_recipe({**r, "train": {"steps": 0}})
    Traceback (most recent call last):
    ...
    toponeuro.exceptions.RecipeError: Recipe 'recipe': train.steps must be a whole number >= 1; got 0. Fix the value in the recipe file.
    """
    _check_recipe(repr(source), recipe, LANGUAGE_RECIPE_SCHEMA, _LANGUAGE_REQUIRED,
                  layout="toponeuro/training/recipes/lm-smoke.toml")
    return recipe
