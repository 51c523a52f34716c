"""The one typed report model both jobs return and write (issue 44).

Each job's results builder fills a :class:`JobReport` (the vision job a :class:`MapReport`,
the language job a :class:`LanguageMapReport`); the writers and the terminal summary read its
fields, and ``summary.json`` is serialised from it in one place, :meth:`JobReport.to_summary`.
The common sections -- what was run (version, time, model, stimuli, layers, the
definitions), each layer's record, the cortex (its
hemispheres under a key of their own: :class:`CortexReport`), the headline, the settings,
the run's seconds and its files -- are fields of the base; each job adds its own sections as
typed fields.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

from ...exceptions import InvalidDataError
from .entries import (
    ArrangementDrawsRecord,
    ComparisonRecord,
    ComparisonRowsRecord,
    CortexSourceRecord,
    HeadlineChoiceRecord,
    LabelNullRecord,
    MapHemisphereRecord,
    ParcelsRecord,
    PatchCentroidsRecord,
    SimilarityTestRecord,
    SmoothnessNullRecord,
    VerbNounRecord,
    YourMapsRecord,
    check_definitions,
)
from .record import (
    _OPTIONAL,
    _as,
    _as_each,
    _fields_dict,
    _from_dict,
    _Record,
    _refuse_moved,
    _type_fields,
    _typed,
    jsonable,
    num,
)

__all__ = ["CortexReport", "JobReport", "MapReport", "LanguageMapReport", "ModelRecord",
           "MapStimuliRecord", "LanguageStimuliRecord", "MapLayerRecord", "LanguageLayerRecord",
           "ArrangementRecord", "MapHeadlineRecord", "RulerRowRecord", "RulerComparisonRecord",
           "RulerHeadlineRecord", "RulerRecord", "jsonable", "num", "SmoothnessNullRecord",
           "SimilarityTestRecord", "LabelNullRecord", "MapHemisphereRecord", "ParcelsRecord",
           "CortexSourceRecord", "PatchCentroidsRecord", "ArrangementDrawsRecord",
           "YourMapsRecord", "ComparisonRecord", "VerbNounRecord"]

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
    #: hemisphere -> its numbers, the job's record (:class:`MapHemisphereRecord`,
    #: :class:`ParcelsRecord`; the job's report makes them records)
    hemispheres: dict = field(default_factory=dict)
    #: what the maps were made from (the vision job: :class:`CortexSourceRecord`)
    source: CortexSourceRecord | None = _typed(CortexSourceRecord, optional=True, default=None)
    #: the cortex null's measured false-positive rates on the maps' mesh (vision job;
    #: :func:`~toponeuro.analysis.cortex_null_calibration`'s record)
    null_calibration: dict | None = field(default=None, metadata=_OPTIONAL)
    #: your own maps beside the parcels (language job: :class:`YourMapsRecord`)
    your_maps: YourMapsRecord | None = _typed(YourMapsRecord, optional=True, default=None)

    _key = "cortex"


@dataclass(frozen=True, kw_only=True)
class MapLayerRecord(_Record):
    """One layer of the vision job (``summary["per_layer"][layer]``): each domain's
    smoothness and its null, patches, selective fraction, the map similarities and their
    tests, the dimensionality and the sentences.

    Examples
    --------
    >>> r = MapLayerRecord(sheet="8x8", smoothness={"faces": 0.1}, smoothness_null={},
    ...                    n_patches={}, n_patches_found={}, selective_fraction={},
    ...                    map_similarity={}, map_similarity_null={},
    ...                    effective_dimensionality=3.2, signatures=["a"])
    >>> "patches_label_null" in r.to_summary(), MapLayerRecord.from_summary(r.to_summary()) == r
    (False, True)
    """

    _key = "per_layer"

    #: the sheet's shape, ``"rowsxcols"``
    sheet: str
    #: domain -> smoothness (TDANN's), and its positions null (``mean``, ``std``, ``p_value``)
    smoothness: dict
    smoothness_null: dict = _typed(SmoothnessNullRecord, "each")
    #: domain -> significant patches (all found when no null was drawn), and all found
    n_patches: dict
    n_patches_found: dict
    selective_fraction: dict
    #: pair -> the sheet's map similarity, and its test's entry
    map_similarity: dict
    map_similarity_null: dict = _typed(SimilarityTestRecord, "each")
    effective_dimensionality: float
    #: every statistic of the layer in words
    signatures: list
    #: domain -> the label null of its smoothness, of its patch units (None: not drawn)
    smoothness_label_null: dict | None = _typed(LabelNullRecord, "each", optional=True,
                                                default=None)
    patches_label_null: dict | None = _typed(LabelNullRecord, "each", optional=True,
                                             default=None)
    #: pair -> the similarity test at random initialisation (None: baseline not computed)
    map_similarity_random_init: dict | None = _typed(SimilarityTestRecord, "each",
                                                     optional=True, default=None)


@dataclass(frozen=True, kw_only=True)
class LanguageLayerRecord(_Record):
    """One layer of the language job (``summary["per_layer"][layer]``): the S - N map's
    verdicts and sentences, its table row's numbers and the condition profile.

    Examples
    --------
    >>> names = [f.name for f in fields(LanguageLayerRecord)]
    >>> names[:4], "n_language_units" in names
    (['sheet', 'verdict', 'organised', 'label_null'], True)
    """

    _key = "per_layer"

    sheet: str
    #: the selective claim (label null) and the organised claim (positions null), in words
    verdict: str
    organised: str
    #: the S - N map against both nulls (:class:`LabelNullRecord`)
    label_null: LabelNullRecord = _typed(LabelNullRecord)
    signatures: list
    #: claim -> its verdict record (``morans_i``, ``smoothness``)
    claims: dict
    n_units: int
    n_fdr_topolm: int
    n_topk_topolm: int
    max_t: float | None
    morans_i: float | None
    morans_i_expected: float | None
    morans_i_null_mean: float | None
    morans_i_null_std: float | None
    morans_i_p: float | None
    smoothness: float | None
    smoothness_null_mean: float | None
    smoothness_null_std: float | None
    smoothness_p: float | None
    n_patches: int | None
    n_significant_patches: int | None
    largest_patch_units: int | None
    selective_fraction: float | None
    n_units_with_data: int
    n_language_units: int
    split_half_overlap: float | None
    split_half_chance: float | None
    split_half_p: float | None
    #: condition -> its mean response and s.e.m.
    profile: dict


@dataclass(frozen=True, kw_only=True)
class ArrangementRecord(_Record):
    """The arrangement of the domain centres of one (layer, hemisphere)
    (``summary["arrangement"]["layer|hemisphere"]``): Spearman ρ of the centre distances,
    sheet vs cortex, its two nulls' p (``p_value`` the larger), and the patch centroids'.

    Examples
    --------
    >>> a = ArrangementRecord(spearman=None, p_value=None, p_shift=None, p_spin=None,
    ...                       null_shift_mean=None, null_spin_mean=None, n_domains=2,
    ...                       n_pairs=1, domains=["faces", "places"], pairs=[],
    ...                       model_distances=[], cortex_distances_mm=[],
    ...                       patch_centroids={"spearman": None, "n_regions": 0},
    ...                       p_text="not tested")
    >>> a.n_domains, "n_permutations" in a.to_summary()
    (2, False)

    Its nulls' draws are the run's ``settings.null.n_permutations`` (the sheet maps shifted)
    and ``settings.cortex.n_permutations`` (the cortex maps spun), recorded there once
    (:attr:`MapReport.arrangement_draws`).
    """

    _key = "arrangement"
    _moved = {"n_permutations": ("null.n_permutations", "cortex.n_permutations")}

    spearman: float | None
    p_value: float | None
    p_shift: float | None
    p_spin: float | None
    null_shift_mean: float | None
    null_spin_mean: float | None
    n_domains: int
    n_pairs: int
    domains: list
    pairs: list
    model_distances: list
    cortex_distances_mm: list
    #: the patch centroids' arrangement (:class:`PatchCentroidsRecord`)
    patch_centroids: PatchCentroidsRecord = _typed(PatchCentroidsRecord)
    #: the test's p in words (:func:`~toponeuro.reporting._vision.words.arrangement_p_text`)
    p_text: str


@dataclass(frozen=True, kw_only=True)
class MapHeadlineRecord(_Record):
    """The vision job's arrangement headline (``summary["headline"]``): the layer a fixed
    rule chose and its arrangement against each hemisphere.

    Examples
    --------
    >>> MapHeadlineRecord(layer="l4", rule="the deepest", arrangement={}).to_summary()
    {'layer': 'l4', 'rule': 'the deepest', 'arrangement': {}}
    """

    _key = "headline"

    layer: str
    rule: str
    #: hemisphere -> :class:`ArrangementRecord`
    arrangement: dict = _typed(ArrangementRecord, "each")


@dataclass(frozen=True, kw_only=True)
class RulerRowRecord(_Record):
    """One descriptor compared on one ruler (a row of ``summary["ruler"]``): the model's
    value, null and interval, the cortex's, and the verdict.

    Examples
    --------
    >>> r = RulerRowRecord(descriptor="smoothness", domain="faces", statistic="s", model=0.1,
    ...                    model_p=0.01, model_null="shift", model_draws=99, model_lo=None,
    ...                    model_hi=None, model_boot=0, cortex=0.2, cortex_p=0.02,
    ...                    cortex_null="spin", cortex_draws=99, verdict="alike", reason="r",
    ...                    reference="TDANN")
    >>> RulerRowRecord.from_summary(r.to_summary()) == r
    True
    """

    _key = "ruler"

    descriptor: str
    domain: str
    statistic: str
    model: float | None
    model_p: float | None
    model_null: str
    model_draws: int
    #: the model's 95 % interval over stimulus resamples (None: none drawn)
    model_lo: float | None
    model_hi: float | None
    model_boot: int
    cortex: float | None
    cortex_p: float | None
    cortex_null: str
    cortex_draws: int
    verdict: str
    reason: str
    reference: str | None


@dataclass(frozen=True, kw_only=True)
class RulerComparisonRecord(ComparisonRowsRecord):
    """One (layer, hemisphere) on one ruler (``summary["ruler"]["comparisons"][key]``): a
    :class:`~toponeuro.reporting._kit.entries.ComparisonRowsRecord` of
    :class:`RulerRowRecord` rows. Its region and resamples are the run's
    ``settings.ruler.descriptors.cortex_region`` and ``.n_boot``, recorded there once.

    Examples
    --------
    >>> c = RulerComparisonRecord(layer="l", hemisphere="left", rows=[], left_out={},
    ...                           counts={}, model_geometry={}, cortex_geometry={})
    >>> RulerComparisonRecord.from_summary(c.to_summary()) == c
    True
    """

    _key = "ruler"
    _row_record = RulerRowRecord
    _moved = {"cortex_region": "ruler.descriptors.cortex_region",
              "n_boot": "ruler.descriptors.n_boot"}


@dataclass(frozen=True, kw_only=True)
class RulerHeadlineRecord(HeadlineChoiceRecord):
    """The ruler's headline (``summary["ruler"]["headline"]``): the row the fixed rule
    chose (``row``; None when none is eligible: "not testable"), where it stands and why.
    ``summary.json`` writes the chosen row's fields beside ``layer`` and ``hemisphere``.

    Examples
    --------
    >>> h = RulerHeadlineRecord(chosen=False, rule="r", n_eligible=0, n_rows=3)
    >>> h.to_summary()
    {'chosen': False, 'rule': 'r', 'n_eligible': 0, 'n_rows': 3}
    >>> RulerHeadlineRecord.from_summary(h.to_summary()) == h
    True
    """

    _key = "ruler"

    chosen: bool
    #: the rule, fixed before any result (:data:`~toponeuro.reporting.HEADLINE_RULE`)
    rule: str
    layer: str | None = None
    hemisphere: str | None = None
    #: the chosen :class:`RulerRowRecord`
    row: RulerRowRecord | None = None

    def to_summary(self) -> dict:
        out = {"chosen": self.chosen, "rule": self.rule}
        if self.chosen:
            out.update(layer=self.layer, hemisphere=self.hemisphere, evidence=self.evidence)
        out.update(n_eligible=self.n_eligible, n_rows=self.n_rows)
        if self.chosen:
            out.update(self.row.to_summary())
        return out

    @classmethod
    def from_summary(cls, entry: dict):
        row_keys = {f.name for f in fields(RulerRowRecord)}
        own = {k: v for k, v in entry.items() if k not in row_keys}
        row = {k: v for k, v in entry.items() if k in row_keys}
        if own.get("chosen"):
            own["row"] = RulerRowRecord.from_summary(row)
        return _from_dict(cls, own, "summary['ruler']['headline']")


@dataclass(frozen=True, kw_only=True)
class RulerRecord(_Record):
    """The one-ruler comparisons and their headline (``summary["ruler"]``,
    :func:`~toponeuro.reporting.ruler_summary`).

    Examples
    --------
    >>> r = RulerRecord(comparisons={}, headline=RulerHeadlineRecord(
    ...     chosen=False, rule="r", n_eligible=0, n_rows=0))
    >>> RulerRecord.from_summary(r.to_summary()) == r, r.headline.chosen
    (True, False)
    """

    _key = "ruler"

    #: ``"layer|hemisphere"`` -> :class:`RulerComparisonRecord`
    comparisons: dict = _typed(RulerComparisonRecord, "each")
    headline: RulerHeadlineRecord = _typed(RulerHeadlineRecord)


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
    ...                 definitions={}, per_layer={"l": {}},
    ...                 cortex=CortexReport(atlas="a", nulls="n"), headline="h",
    ...                 settings={"null": {"n_permutations": 9, "alpha": 0.05}})
    >>> s = rep.to_summary()
    >>> s["cortex"]["hemispheres"], s["settings"], s["seconds"]
    ({}, {'null': {'n_permutations': 9, 'alpha': 0.05}}, None)
    >>> JobReport.from_summary(s) == rep, rep.setting("null.alpha"), "alpha" in s
    (True, 0.05, False)
    """

    toponeuro_version: str
    created: str
    model: ModelRecord
    #: the job's stimuli record (:class:`MapStimuliRecord`, :class:`LanguageStimuliRecord`)
    stimuli: object
    layers: list
    definitions: dict
    #: layer -> its record (the job's own numbers and sentences: :class:`MapLayerRecord`,
    #: :class:`LanguageLayerRecord`)
    per_layer: dict
    cortex: CortexReport
    #: the answer the page and the terminal lead with (the vision job: a
    #: :class:`MapHeadlineRecord`; the language job: a sentence)
    headline: object
    #: the run's settings, recorded whole (filled by the job; None: not recorded), by the
    #: settings objects' names (:func:`toponeuro.settings.settings_record`): the one place
    #: of the nulls' draws and alpha, the patch rule, ... (read them with :meth:`setting`)
    settings: dict | None = field(default=None, metadata=_OPTIONAL)
    #: seconds the run took (set by the writer; None before it)
    seconds: float | None = None
    #: file name -> its name in the output folder (set by the writer)
    files: dict = field(default_factory=dict)

    def setting(self, name: str):
        """A recorded setting by its one name, ``"parameter.field"`` (``"null.n_permutations"``,
        ``"null.alpha"``, ``"cortex.n_permutations"``, ``"patches.threshold"``,
        ``"patches.min_units"``, ``"units.token_pooling"``, ``"ruler.descriptors.n_boot"``):
        the name of the settings field, of the job's messages and of ``summary.json``'s
        ``settings`` block."""
        try:
            value = self.settings
            for part in name.split("."):
                value = value[part]
            return value
        except (TypeError, KeyError):
            raise InvalidDataError(
                f"This report records no setting {name!r} (its settings: "
                f"{sorted(self.settings or {})}). Fix: make the report with the job's settings "
                "record (toponeuro.settings.settings_record), as run_map and "
                "run_language_map do.") from None

    #: the typed records of this job's ``stimuli``, ``per_layer`` entries and ``headline``
    #: (None: kept as given)
    _stimuli_record = None
    _layer_record = None
    _headline_record = None
    #: the typed record of each of the cortex's hemispheres (None: kept as given)
    _hemisphere_record = None

    def __post_init__(self):
        # a section given as its summary.json entry becomes its typed record
        if isinstance(self.model, dict):
            self.model = ModelRecord.from_summary(self.model)
        if isinstance(self.stimuli, dict) and self._stimuli_record is not None:
            self.stimuli = self._stimuli_record.from_summary(self.stimuli)
        if isinstance(self.cortex, dict):
            self.cortex = CortexReport.from_summary(self.cortex)
        if self._hemisphere_record is not None:
            self.cortex.hemispheres = _as_each(self._hemisphere_record, self.cortex.hemispheres)
        if self._layer_record is not None:
            self.per_layer = _as_each(self._layer_record, self.per_layer)
        if self._headline_record is not None:
            self.headline = _as(self._headline_record, self.headline)
        check_definitions(self.definitions)
        _type_fields(self)  # the job's own sections

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
    _layer_record = MapLayerRecord
    _headline_record = MapHeadlineRecord
    _hemisphere_record = MapHemisphereRecord

    pooling: str
    selectivity: str
    p_values: str
    random_init_baseline: bool
    random_init_note: str
    #: ``"layer|hemisphere"`` -> the arrangement of the domain centres
    #: (:class:`ArrangementRecord`)
    arrangement: dict = _typed(ArrangementRecord, "each")
    #: the one-ruler comparisons and their headline (:func:`~toponeuro.reporting.ruler_summary`;
    #: None: not measured)
    ruler: RulerRecord | None = _typed(RulerRecord, optional=True, default=None)

    @property
    def arrangement_draws(self) -> ArrangementDrawsRecord:
        """The arrangement's two nulls' draws, from the settings that record them once: the
        sheet maps shifted ``settings.null.n_permutations`` times, the cortex maps spun
        ``settings.cortex.n_permutations`` times."""
        return ArrangementDrawsRecord(shift=int(self.setting("null.n_permutations")),
                                      spin=int(self.setting("cortex.n_permutations")))


@dataclass(kw_only=True)
class LanguageMapReport(JobReport):
    """``toponeuro map --language``'s report: the common sections and the language job's own.

    Examples
    --------
    >>> LanguageMapReport.__dataclass_fields__["job"].default
    'toponeuro map --language'
    """

    _stimuli_record = LanguageStimuliRecord
    _layer_record = LanguageLayerRecord
    _hemisphere_record = ParcelsRecord

    job: str = "toponeuro map --language"
    #: the sheet's patch threshold found by the run: the smallest t that passes
    #: Benjamini-Hochberg (None: none passes); a result, not the setting ``patches.threshold``
    patch_threshold_t: float | None
    selection: dict
    topography_map: str
    language_units: str
    #: the model-vs-cortex comparisons (the fits) and their rules (:class:`ComparisonRecord`)
    comparison: ComparisonRecord = _typed(ComparisonRecord)
    #: the verb - noun maps (:class:`VerbNounRecord`; None: no verb - noun items were given)
    verb_noun: VerbNounRecord | None = _typed(VerbNounRecord, optional=True, default=None)

    #: the selection's keys an older ``summary.json`` repeated -> the settings that record them
    _selection_moved = {"q_level": "units.q", "top_k": "units.top_k",
                        "smooth_fwhm": "units.smooth_fwhm"}

    def __post_init__(self):
        super().__post_init__()
        _refuse_moved(self.selection, self._selection_moved, "summary['selection']")
