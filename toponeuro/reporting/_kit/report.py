"""The one typed report model both jobs return and write (issue 44).

Each job's results builder fills a :class:`JobReport` (the vision job a :class:`MapReport`,
the language job a :class:`LanguageMapReport`); the writers and the terminal summary read its
fields, and ``summary.json`` is serialised from it in one place, :meth:`JobReport.to_summary`.
The common sections -- what was run (version, time, model, stimuli, layers, the patch rule,
the nulls' draws and alpha, the definitions), each layer's record, the cortex (its
hemispheres under a key of their own: :class:`CortexReport`), the headline, the settings,
the run's seconds and its files -- are fields of the base; each job adds its own sections as
typed fields.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

import numpy as np

from ...exceptions import InvalidDataError

__all__ = ["CortexReport", "JobReport", "MapReport", "LanguageMapReport", "ModelRecord",
           "MapStimuliRecord", "LanguageStimuliRecord", "jsonable", "num"]

#: a field whose ``None`` is left out of ``summary.json`` (a section the run did not make)
_OPTIONAL = {"optional": True}


def num(v):
    """A number as ``summary.json`` keeps it: None when not finite, an int when whole
    (and at least 1), else rounded to 4 decimals.

    Examples
    --------
    >>> num(3.0), num(0.123456), num(float("nan"))
    (3, 0.1235, None)
    """
    v = float(v)
    return None if not np.isfinite(v) else (int(v) if v.is_integer() and abs(v) >= 1 else round(v, 4))


def jsonable(obj):
    """``obj`` with JSON types only: str keys, lists for tuples, None for non-finite floats,
    anything else as its text.

    Examples
    --------
    >>> jsonable({1: (1.5, float("nan"), np.float32(2))})
    {'1': [1.5, None, 2.0]}
    """
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, (str, bool, int)) or obj is None:
        return obj
    if isinstance(obj, float | np.floating):
        return None if not np.isfinite(obj) else float(obj)
    return str(obj)


class _Record:
    """A typed record of a report's section: ``summary.json``'s entry is its fields."""

    #: the section's key in ``summary.json`` (for messages)
    _key = "section"

    def to_summary(self) -> dict:
        """The section's ``summary.json`` entry."""
        return _fields_dict(self)

    @classmethod
    def from_summary(cls, entry: dict):
        """The section back from its ``summary.json`` entry."""
        return _from_dict(cls, entry, f"summary[{cls._key!r}]")


@dataclass
class ModelRecord(_Record):
    """What model a job mapped (``summary["model"]``), both jobs alike.

    Examples
    --------
    >>> m = ModelRecord(name="m.v1", source="m.v1 (weights sha256 x)", tau=1.0,
    ...                 description=None, weights_sha256="x")
    >>> ModelRecord.from_summary(m.to_summary()) == m, m.name
    (True, 'm.v1')
    """

    _key = "model"

    #: the registered name
    name: str
    #: where its weights came from, in words
    source: str
    #: the TopoLoss strength of its card (None: no TopoLoss)
    tau: float | None
    #: the card's description
    description: str | None
    #: sha256 of the weights the activations were extracted with
    weights_sha256: str | None


@dataclass
class MapStimuliRecord(_Record):
    """The fLoc images the vision job showed (``summary["stimuli"]``).

    Examples
    --------
    >>> MapStimuliRecord(set="fLoc", source="s", n_stimuli=4, categories=["adult"],
    ...                  numbers=[97, 98], training_images=None).to_summary()["numbers"]
    [97, 98]
    """

    _key = "stimuli"

    set: str
    source: str
    n_stimuli: int
    categories: list
    #: the image numbers, ``[first, last]`` or ``"all"``
    numbers: object
    #: the model's training images and their overlap with these (None: unknown)
    training_images: dict | None


@dataclass
class LanguageStimuliRecord(_Record):
    """The localizer items the language job read (``summary["stimuli"]``).

    Examples
    --------
    >>> LanguageStimuliRecord(set="localizer", source="s", n_stimuli=2,
    ...                       conditions={"S": 1, "N": 1}).conditions["S"]
    1
    """

    _key = "stimuli"

    set: str
    source: str
    n_stimuli: int
    #: condition -> its number of items
    conditions: dict


@dataclass
class CortexReport(_Record):
    """The cortex side of a report: what the maps are, their nulls, and each hemisphere's
    numbers under ``hemispheres`` (never mixed with the keys that describe the maps).

    Examples
    --------
    >>> c = CortexReport(atlas="visfAtlas", nulls="spin test", hemispheres={"left": {}})
    >>> c.to_summary()
    {'atlas': 'visfAtlas', 'nulls': 'spin test', 'hemispheres': {'left': {}}}
    >>> CortexReport.from_summary(c.to_summary()) == c
    True
    """

    #: the maps in words (the atlas, or your own maps)
    atlas: str
    #: the nulls drawn on the cortex, in words
    nulls: str
    #: hemisphere -> its numbers (the job's own record)
    hemispheres: dict = field(default_factory=dict)
    #: what the maps were made from (the vision job: the atlas's or your files' record)
    source: dict | None = field(default=None, metadata=_OPTIONAL)
    #: the cortex null's measured false-positive rates on the maps' mesh (vision job)
    null_calibration: dict | None = field(default=None, metadata=_OPTIONAL)
    #: your own maps beside the parcels (language job)
    your_maps: dict | None = field(default=None, metadata=_OPTIONAL)

    _key = "cortex"


@dataclass(kw_only=True)
class JobReport:
    """What every job reports (the common sections); a job's report adds its own.

    Read its fields, never a dict with defaults: a section the run did not make is
    ``None`` (and left out of ``summary.json``), a number the run did not get is ``None``.

    Examples
    --------
    >>> model = ModelRecord(name="m", source="m", tau=None, description=None,
    ...                     weights_sha256=None)
    >>> rep = JobReport(toponeuro_version="0.5", created="2026-01-01T00:00:00+00:00",
    ...                 model=model, stimuli={"n_stimuli": 4}, layers=["l"],
    ...                 patch_min_units=10, alpha=0.05, definitions={}, per_layer={"l": {}},
    ...                 cortex=CortexReport(atlas="a", nulls="n"), headline="h",
    ...                 settings={"null": {"n_permutations": 9}})
    >>> s = rep.to_summary()
    >>> s["cortex"]["hemispheres"], s["settings"], s["seconds"]
    ({}, {'null': {'n_permutations': 9}}, None)
    >>> JobReport.from_summary(s) == rep, rep.setting("null.n_permutations")
    (True, 9)
    """

    toponeuro_version: str
    created: str
    model: ModelRecord
    #: the job's stimuli record (:class:`MapStimuliRecord`, :class:`LanguageStimuliRecord`)
    stimuli: object
    layers: list
    patch_min_units: int
    alpha: float
    definitions: dict
    #: layer -> its record (the job's own numbers and sentences)
    per_layer: dict
    cortex: CortexReport
    #: the answer the page and the terminal lead with (the vision job: a record; the
    #: language job: a sentence)
    headline: object
    #: the run's settings, recorded whole (filled by the job; None: not recorded), by the
    #: settings objects' names (:func:`toponeuro.settings.settings_record`): the one place
    #: of the nulls' draws, the patch threshold, ... (read them with :meth:`setting`)
    settings: dict | None = field(default=None, metadata=_OPTIONAL)
    #: seconds the run took (set by the writer; None before it)
    seconds: float | None = None
    #: file name -> its name in the output folder (set by the writer)
    files: dict = field(default_factory=dict)

    def setting(self, name: str):
        """A recorded setting by its one name, ``"parameter.field"`` (``"null.n_permutations"``,
        ``"cortex.n_permutations"``, ``"patches.threshold"``): the name of the settings
        field, of the job's messages and of ``summary.json``'s ``settings`` block."""
        param, _, name_ = name.partition(".")
        try:
            return self.settings[param][name_]
        except (TypeError, KeyError):
            raise InvalidDataError(
                f"This report records no setting {name!r} (its settings: "
                f"{sorted(self.settings or {})}). Fix: make the report with the job's settings "
                "record (toponeuro.settings.settings_record), as run_map and "
                "run_language_map do.") from None

    #: the typed record of this job's ``stimuli`` (None: kept as given)
    _stimuli_record = None

    def __post_init__(self):
        # a section given as its summary.json entry becomes its typed record
        if isinstance(self.model, dict):
            self.model = ModelRecord.from_summary(self.model)
        if isinstance(self.stimuli, dict) and self._stimuli_record is not None:
            self.stimuli = self._stimuli_record.from_summary(self.stimuli)
        if isinstance(self.cortex, dict):
            self.cortex = CortexReport.from_summary(self.cortex)

    @property
    def hemispheres(self) -> list:
        """The cortex's hemispheres, in the order they were measured."""
        return list(self.cortex.hemispheres)

    def to_summary(self) -> dict:
        """``summary.json``: every field, JSON types only (the one serialisation)."""
        return jsonable(_fields_dict(self))

    @classmethod
    def from_summary(cls, summary: dict):
        """The report back from a ``summary.json`` content (its keys are the fields)."""
        return _from_dict(cls, summary, "summary")


@dataclass(kw_only=True)
class MapReport(JobReport):
    """``toponeuro map``'s report: the common sections and the vision job's own.

    Examples
    --------
    >>> sorted(f for f in MapReport.__dataclass_fields__ if f not in
    ...        JobReport.__dataclass_fields__)  # doctest: +NORMALIZE_WHITESPACE
    ['arrangement', 'p_values', 'pooling', 'random_init_baseline', 'random_init_note', 'ruler',
     'selectivity']
    """

    _stimuli_record = MapStimuliRecord

    pooling: str
    selectivity: str
    p_values: str
    random_init_baseline: bool
    random_init_note: str
    #: ``"layer|hemisphere"`` -> the arrangement of the domain centres
    arrangement: dict
    #: the one-ruler comparisons and their headline (:func:`~toponeuro.reporting.ruler_summary`)
    ruler: dict = field(default_factory=dict)


@dataclass(kw_only=True)
class LanguageMapReport(JobReport):
    """``toponeuro map --language``'s report: the common sections and the language job's own.

    Examples
    --------
    >>> LanguageMapReport.__dataclass_fields__["job"].default
    'toponeuro map --language'
    """

    _stimuli_record = LanguageStimuliRecord

    job: str = "toponeuro map --language"
    #: the sheet's patch threshold found by the run: the smallest t that passes
    #: Benjamini-Hochberg (None: none passes); a result, not the setting ``patches.threshold``
    patch_threshold_t: float | None
    token_pooling: str
    selection: dict
    topography_map: str
    language_units: str
    #: the model-vs-cortex comparisons (the fits) and their rules
    comparison: dict
    #: the verb - noun maps (None: no verb - noun items were given)
    verb_noun: dict | None = field(default=None, metadata=_OPTIONAL)


def _fields_dict(obj) -> dict:
    out = {}
    for f in fields(obj):
        v = getattr(obj, f.name)
        if v is None and f.metadata.get("optional"):
            continue
        out[f.name] = v.to_summary() if isinstance(v, _Record) else v
    return out


def _from_dict(cls, entry: dict, where: str):
    names = {f.name for f in fields(cls)}
    unknown = sorted(set(entry) - names)
    if unknown:
        raise InvalidDataError(
            f"{where} has keys that {cls.__name__} does not know: {unknown}; expected only "
            f"{sorted(names)}. Fix: read a summary.json written by this toponeuro version "
            "(0.5 moved the cortex's hemispheres under cortex['hemispheres']).")
    try:
        return cls(**entry)
    except TypeError as err:  # a missing field
        raise InvalidDataError(
            f"{where} lacks a field of {cls.__name__}: {err}. Fix: pass the whole "
            "summary.json content.") from None
