"""A job's settings as a whole: what :func:`~toponeuro.reporting.run_map` and
:func:`~toponeuro.reporting.run_language_map` (and :func:`~toponeuro.reporting.prepare`) make
of their arguments.

The settings objects themselves, each checked when it is made, are declared in
:mod:`toponeuro.settings`; the jobs' declarations (``JOB_PARAMS``, :mod:`.job`) check at the
call that each argument is its settings object. Here they become one set: the model and the
stimuli as their settings objects, the 0.4 keywords applied (each with a FutureWarning), the
fields a job fills in (``ruler.n_permutations``, ``cortex.threshold``) filled in, and their
record for ``summary.json``.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Mapping

import numpy as np

from ..._util.params import Boolean, check_int, check_param
from ..._util.stack import user_stacklevel
from ...exceptions import InputTypeError
from ...settings import (
    OLD_KEYWORDS,
    FlocStimuli,
    LanguageStimuli,
    ModelSource,
    settings_record,
)

__all__ = ["job_settings", "apply_old_keywords", "verbose_level", "stimuli_spec",
           "model_source"]


def stimuli_spec(stimuli, cls):
    """``stimuli`` (a source, or the job's stimuli settings) as ``cls``."""
    if isinstance(stimuli, cls):
        return stimuli
    if isinstance(stimuli, FlocStimuli | LanguageStimuli):
        raise InputTypeError(
            f"stimuli must be a toponeuro.settings.{cls.__name__} (or its source); got a "
            f"{type(stimuli).__name__}, the other job's.")
    return cls(source=cls.source if stimuli is None else stimuli)


def verbose_level(verbose, progress=None) -> int:
    """``verbose`` (0 silent, 1 the summary, 2 the summary and progress bars; ``True``: 2,
    ``False``: 0) as an int, with the 0.4 ``progress=False`` capping it at 1."""
    if isinstance(verbose, bool | np.bool_):
        level = 2 if verbose else 0
    else:
        level = check_int(verbose, "verbose", lo=0, hi=2,
                          fix="0: silent; 1: the summary; 2: the summary and progress bars.")
    if progress is not None and not check_param(progress, "progress", Boolean()):
        level = min(level, 1)
    return level



def apply_old_keywords(job: str, old: Mapping, current: dict) -> dict:
    """``current`` (parameter -> settings object) with the 0.4 keywords of ``old`` applied.

    Each old keyword warns (FutureWarning, naming its replacement) and replaces its field;
    ``progress=False`` caps ``verbose`` at 1 (the summary, no progress bars); a keyword the
    job never had is Python's own TypeError.
    """
    if not old:
        return current
    out = dict(current)
    changes: dict[str, dict] = {}
    for key, value in old.items():
        target = OLD_KEYWORDS.get(key)
        param, _, name = (target or "").partition(".")
        if target is None or param not in out:
            raise InputTypeError(f"{job}() got an unexpected keyword argument {key!r}")
        if not name:  # progress= -> verbose=
            warnings.warn(
                f"{job}({key}=...) is deprecated since toponeuro 0.5 and will be removed in "
                f"0.6; use {param}= (0: silent; 1: the summary, no progress bars; 2, the "
                "default: the summary and progress bars).", FutureWarning,
                stacklevel=user_stacklevel())
            out[param] = verbose_level(out[param], value)
            continue
        cls = type(out[param])
        warnings.warn(
            f"{job}({key}=...) is deprecated since toponeuro 0.5 and will be removed in 0.6; "
            f"use {param}={cls.__name__}({name}=...) (toponeuro.settings.{cls.__name__}).",
            FutureWarning, stacklevel=user_stacklevel())  # the caller of run_map / run_language_map
        changes.setdefault(param, {})[name] = value
    for param, fields_ in changes.items():
        out[param] = dataclasses.replace(out[param], **fields_)
    return out


def job_settings(job: str, model, default_model: str, old_keywords: Mapping, *,
                  ruler_draws: int | None, stimuli=None, verbose=2, **settings) -> dict:
    """A job's settings objects: ``model``, ``stimuli`` (its :class:`FlocStimuli` or
    :class:`LanguageStimuli`), those given in ``settings`` in their order, ``verbose`` (a level,
    :func:`verbose_level`), then their ``record`` (:func:`settings_record` of ``model`` and
    ``settings``): the 0.4 keywords applied and the job's
    defaults of the fields left None filled in (``ruler.n_permutations``: ``ruler_draws``,
    None: ``null.n_permutations``; ``cortex.threshold``: ``patches.threshold``; the language
    job's ``ruler.descriptors.cortex_region``: None, the whole hemisphere it compares)."""
    cls = LanguageStimuli if "units" in settings else FlocStimuli
    given = apply_old_keywords(job, old_keywords, {
        "model": model_source(model, default_model), "stimuli": stimuli_spec(stimuli, cls),
        **settings, "verbose": verbose_level(verbose)})
    if given["ruler"].n_permutations is None:
        draws = given["null"].n_permutations if ruler_draws is None else ruler_draws
        given["ruler"] = dataclasses.replace(given["ruler"], n_permutations=draws)
    if given["cortex"].threshold is None:
        given["cortex"] = dataclasses.replace(given["cortex"],
                                              threshold=given["patches"].threshold)
    if cls is LanguageStimuli and given["ruler"].descriptors.cortex_region is not None:
        # the language job compares whole hemispheres: record the region it runs on
        ruler = given["ruler"]
        given["ruler"] = dataclasses.replace(
            ruler, descriptors=dataclasses.replace(ruler.descriptors, cortex_region=None))
    recorded = {k: v for k, v in given.items() if k not in ("stimuli", "verbose")}
    return {**given, "record": settings_record(**recorded)}


def model_source(model, default: str) -> ModelSource:
    """``model`` (a name or a :class:`ModelSource`) as a :class:`ModelSource`."""
    if isinstance(model, ModelSource):
        return model
    return ModelSource(default if model is None else model)
