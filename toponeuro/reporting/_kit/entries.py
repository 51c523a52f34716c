"""The typed entries inside the report's sections (issue 44): a domain's null, a map
similarity's test, a hemisphere's numbers, what the cortex maps were made from, the
arrangement's draws and patch centroids. The writers read their fields, never a dict with a
default; ``summary.json`` holds exactly their fields (:mod:`.record`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .record import _OPTIONAL, _as_each, _Record, _refuse_moved, _typed

__all__ = ["SmoothnessNullRecord", "SimilarityTestRecord", "LabelNullRecord",
           "MapHemisphereRecord", "ParcelsRecord", "CortexSourceRecord",
           "PatchCentroidsRecord", "ArrangementDrawsRecord", "YourMapsRecord", "YourSimilarityRecord",
           "FitRowRecord", "ComparisonRowsRecord", "HeadlineChoiceRecord",
           "FitRecord", "FitHeadlineRecord", "ComparisonRecord", "VerbNounLayerRecord",
           "VerbNounRecord", "label_null_entry", "definitions_entry"]

#: the keys a statistic's record repeated from the run's settings -> the setting that records
#: them once (``settings.null``): left out of ``summary.json``, refused in an older one
NULL_SETTINGS = {"n_permutations": "null.n_permutations", "alpha": "null.alpha"}
#: a claim's (:class:`~toponeuro.analysis.TopographyClaim`) level is the run's; its
#: ``n_permutations`` stays: the finite draws its p rests on (fewer than asked when a draw's
#: statistic is undefined), the count its sentence gives
CLAIM_SETTINGS = {"alpha": "null.alpha"}


def label_null_entry(contrast, *, claims: bool = True) -> dict:
    """The ``summary.json`` entry of a statistic against both nulls: ``contrast.to_dict()``
    (a :class:`~toponeuro.analysis.ContrastTopography`) without the draws and the level,
    which the run's ``settings.null`` records once (the claims' level too: their
    :data:`CLAIM_SETTINGS`); ``claims=False`` leaves out the organised and selective claims
    (the verb - noun map's, said in words beside it).

    Examples
    --------
    >>> from types import SimpleNamespace as NS
    >>> ct = NS(to_dict=lambda: {"value": 0.2, "n_permutations": 99, "alpha": 0.05,
    ...                          "organised": {"n_permutations": 99, "alpha": 0.05},
    ...                          "selective": {}})
    >>> label_null_entry(ct)
    {'value': 0.2, 'organised': {'n_permutations': 99}, 'selective': {}}
    >>> label_null_entry(ct, claims=False)
    {'value': 0.2}
    """
    drop = tuple(NULL_SETTINGS) + (() if claims else ("organised", "selective"))
    out = {k: v for k, v in contrast.to_dict().items() if k not in drop}
    for claim in ("organised", "selective") if claims else ():
        out[claim] = {k: v for k, v in out[claim].items() if k not in CLAIM_SETTINGS}
    return out


def definitions_entry(definitions: dict) -> dict:
    """The ``summary.json`` entry of the statistics' definitions (a topography table's
    ``attrs["definitions"]``: each statistic's attrs): each without the draws and the level
    it was run at, which the run's ``settings.null`` records once (:data:`NULL_SETTINGS`).

    Examples
    --------
    >>> definitions_entry({"patches": {"method": "tdann", "n_permutations": 9, "alpha": 0.05}})
    {'patches': {'method': 'tdann'}}
    """
    return {name: {k: v for k, v in d.items() if k not in NULL_SETTINGS}
            for name, d in definitions.items()}


def check_definitions(definitions: dict) -> None:
    """Refuse the definitions of an older ``summary.json`` that repeat the null's settings
    (:data:`NULL_SETTINGS`), naming where each lives now.

    Examples
    --------
    >>> check_definitions({"patches": {"method": "tdann"}})  # this version's: accepted
    """
    for name, d in definitions.items():
        if isinstance(d, dict):
            _refuse_moved(d, NULL_SETTINGS, f"summary['definitions'][{name!r}]")


@dataclass(frozen=True, kw_only=True)
class SmoothnessNullRecord(_Record):
    """A domain's smoothness against the positions null
    (``summary["per_layer"][layer]["smoothness_null"][domain]``).

    Examples
    --------
    >>> r = SmoothnessNullRecord(mean=0.01, std=0.02, p_value=0.05)
    >>> r.to_summary(), SmoothnessNullRecord.from_summary(r.to_summary()) == r
    ({'mean': 0.01, 'std': 0.02, 'p_value': 0.05}, True)
    """

    _key = "smoothness_null"

    #: the null's mean and standard deviation (None: not drawn)
    mean: float | None
    std: float | None
    #: one-sided p (None: not drawn)
    p_value: float | None


@dataclass(frozen=True, kw_only=True)
class SimilarityTestRecord(_Record):
    """One map similarity and its two-sided test (``map_similarity_null[pair]`` of a layer
    or a hemisphere, ``map_similarity_random_init[pair]``): the statistic, its null, the p
    and the verdict in words (:func:`~toponeuro.analysis.overlap_verdict`).

    Examples
    --------
    >>> t = SimilarityTestRecord(method="ssim", value=-0.4, mean=-0.2, std=0.1, p_value=0.04,
    ...                          alternative="two-sided", p_text="p = 0.040",
    ...                          verdict="avoid each other", null="shift", n_permutations=99,
    ...                          n_moves=None, n_effective=None)
    >>> t.verdict, SimilarityTestRecord.from_summary(t.to_summary()) == t
    ('avoid each other', True)
    """

    _key = "map_similarity_null"

    #: the statistic (``"ssim"``, ``"pearson"``, ...) and its value
    method: str
    value: float | None
    #: the null's mean and standard deviation
    mean: float | None
    std: float | None
    p_value: float | None
    alternative: str
    #: the p in words (:func:`~toponeuro.analysis.format_p`)
    p_text: str
    #: "share territory", "avoid each other", "no evidence either way", "too few draws" or
    #: "not tested"
    verdict: str
    #: the null's name
    null: str | None
    n_permutations: int
    #: the distinct moves and the effective draws of a spin test (None: not a spin test)
    n_moves: int | None
    n_effective: float | None


@dataclass(frozen=True, kw_only=True)
class LabelNullRecord(_Record):
    """A domain's statistic against both nulls, the selective claim's
    (``smoothness_label_null[domain]``, ``patches_label_null[domain]``;
    :func:`label_null_entry` of a :class:`~toponeuro.analysis.ContrastTopography`). Its
    draws and level are the run's ``settings.null.n_permutations`` and ``settings.null.alpha``
    (``report.setting(...)``), recorded there once.

    Examples
    --------
    >>> r = LabelNullRecord(layer="l", statistic="smoothness", value=0.2, p_positions_null=0.01,
    ...                     p_label_null=0.3, label_null_mean=0.1, label_null_std=0.05,
    ...                     organised={}, selective={})
    >>> r.p_label_null, LabelNullRecord.from_summary(r.to_summary()) == r
    (0.3, True)
    """

    _key = "label_null"
    _moved = NULL_SETTINGS

    layer: str
    statistic: str
    value: float | None
    p_positions_null: float | None
    p_label_null: float | None
    label_null_mean: float | None
    label_null_std: float | None
    #: the organised (positions null) and selective (label null) claims' records (their
    #: level is ``settings.null.alpha``; their ``n_permutations`` the finite draws)
    organised: dict
    selective: dict

    def __post_init__(self):
        for claim in ("organised", "selective"):
            _refuse_moved(getattr(self, claim), CLAIM_SETTINGS,
                          f"summary's label null [{claim!r}] ({self.layer}, {self.statistic})")


@dataclass(frozen=True, kw_only=True)
class MapHemisphereRecord(_Record):
    """One hemisphere of the vision job's cortex
    (``summary["cortex"]["hemispheres"][hemisphere]``): its domains' smoothness and patches
    (no null) and the map similarities with their spin tests.

    Examples
    --------
    >>> h = MapHemisphereRecord(n_regions=2, smoothness={"faces": 0.3}, n_patches={"faces": 2},
    ...                         map_similarity={"faces-bodies": 0.1}, map_similarity_null={})
    >>> h.n_regions, MapHemisphereRecord.from_summary(h.to_summary()) == h
    (2, True)
    """

    _key = "cortex"

    n_regions: int
    #: domain -> its map's smoothness, its number of patches
    smoothness: dict
    n_patches: dict
    #: pair -> the maps' similarity (None: undefined), and its test
    #: (:class:`SimilarityTestRecord`; a pair without a test is absent)
    map_similarity: dict
    map_similarity_null: dict = _typed(SimilarityTestRecord, "each")


@dataclass(frozen=True, kw_only=True)
class ParcelsRecord(_Record):
    """One hemisphere of a language map on the cortex, the parcels' or your map's
    (``summary["cortex"]["hemispheres"][hemisphere]``,
    ``summary["cortex"]["your_maps"]["maps"][name][hemisphere]``): its extent and regions,
    counted over the vertices with data.

    Examples
    --------
    >>> p = ParcelsRecord(n_vertices=10242, n_with_data=9000, n_marked=900,
    ...                   parcel_fraction=0.1, n_regions=3, largest_region_vertices=400,
    ...                   largest_region_fraction=0.0444)
    >>> p.n_marked, ParcelsRecord.from_summary(p.to_summary()) == p
    (900, True)
    """

    _key = "cortex"

    #: the hemisphere's mesh size, and its vertices with data (the fractions' denominator)
    n_vertices: int
    n_with_data: int | None
    #: the vertices in the map (at or above its threshold) and their fraction
    n_marked: int | None
    parcel_fraction: float | None
    n_regions: int | None
    largest_region_vertices: int | None
    largest_region_fraction: float | None


@dataclass(frozen=True, kw_only=True)
class CortexSourceRecord(_Record):
    """What the vision job's cortex maps were made from (``summary["cortex"]["source"]``;
    :attr:`toponeuro.atlases.CortexMaps.source`): the atlas's record, or your files'. A field
    the maps do not have is None and left out of ``summary.json``.

    Examples
    --------
    >>> s = CortexSourceRecord(atlas="visfAtlas", representation="binary",
    ...                        hemispheres=["left", "right"])
    >>> s.to_summary(), s.on_mesh, s.user_maps
    ({'atlas': 'visfAtlas', 'representation': 'binary', 'hemispheres': ['left', 'right']}, 'fsaverage5', False)
    """

    _key = "cortex"

    #: the atlas (None: your own maps)
    atlas: str | None = field(default=None, metadata=_OPTIONAL)
    #: your maps' files, domain -> hemisphere -> file record (None: the atlas)
    maps: dict | None = field(default=None, metadata=_OPTIONAL)
    #: ``"binary"``, ``"proximity"`` or ``"values"`` (your maps)
    representation: str | None = field(default=None, metadata=_OPTIONAL)
    #: your maps' mesh (None: the atlas's, fsaverage5)
    mesh: str | None = field(default=None, metadata=_OPTIONAL)
    hemispheres: list | None = field(default=None, metadata=_OPTIONAL)
    #: the proximity maps' length scale (mm) and distance
    scale_mm: float | None = field(default=None, metadata=_OPTIONAL)
    distance: str | None = field(default=None, metadata=_OPTIONAL)
    #: your maps' mesh geometry, vertices without data, constant maps left out, and the
    #: projection of volumes (None: none)
    geometry: object = field(default=None, metadata=_OPTIONAL)
    no_data_vertices: dict | None = field(default=None, metadata=_OPTIONAL)
    left_out_constant: dict | None = field(default=None, metadata=_OPTIONAL)
    vol_to_surf: dict | None = field(default=None, metadata=_OPTIONAL)

    @property
    def on_mesh(self) -> str:
        """The mesh the maps are on (the atlas is on fsaverage5)."""
        return self.mesh if self.mesh is not None else "fsaverage5"

    @property
    def user_maps(self) -> bool:
        """Whether the maps are your own (their values), not the atlas's ROIs."""
        return self.representation == "values"


@dataclass(frozen=True, kw_only=True)
class PatchCentroidsRecord(_Record):
    """The arrangement of the patch centroids (``arrangement[key]["patch_centroids"]``).

    Examples
    --------
    >>> PatchCentroidsRecord(spearman=None, n_regions=0).to_summary()
    {'spearman': None, 'n_regions': 0}
    """

    _key = "arrangement"

    spearman: float | None
    n_regions: int


@dataclass(frozen=True, kw_only=True)
class ArrangementDrawsRecord(_Record):
    """The draws of the arrangement's two nulls (``arrangement[key]["n_permutations"]``):
    the sheet maps shifted, the cortex maps spun.

    Examples
    --------
    >>> ArrangementDrawsRecord(shift=99, spin=19).to_summary()
    {'shift': 99, 'spin': 19}
    """

    _key = "arrangement"

    shift: int
    spin: int


@dataclass(frozen=True, kw_only=True)
class YourSimilarityRecord(_Record):
    """Two of your language maps against each other on one hemisphere
    (``summary["cortex"]["your_maps"]["similarity"]``): the similarity, its spin null and
    verdict, and the draws as they really are.

    Examples
    --------
    >>> r = YourSimilarityRecord(hemisphere="left", pair="a-b", method="pearson", value=0.3,
    ...                          null_mean=0.0, null_std=0.1, p_value=0.02, null="spin",
    ...                          verdict="share territory", p_text="p = 0.020",
    ...                          n_permutations=99, n_moves=50, n_effective=80.0)
    >>> YourSimilarityRecord.from_summary(r.to_summary()) == r
    True
    """

    _key = "your_maps"

    hemisphere: str
    pair: str
    method: str
    value: float | None
    null_mean: float | None
    null_std: float | None
    p_value: float | None
    null: str | None
    verdict: str
    #: the p in words, the draws, the distinct rotations and the effective draws
    p_text: str
    n_permutations: int
    n_moves: int | None
    n_effective: float | None


@dataclass(frozen=True, kw_only=True)
class YourMapsRecord(_Record):
    """Your own language maps beside the parcels (``summary["cortex"]["your_maps"]``): what
    they were made from, their mesh, each map's hemispheres (:class:`ParcelsRecord`) and
    their similarities with their spin tests. Their threshold is the run's
    ``settings.cortex.threshold`` (``report.setting("cortex.threshold")``), recorded there once.

    Examples
    --------
    >>> y = YourMapsRecord(source={}, mesh="fsaverage5", maps={}, similarity=[])
    >>> y.mesh, YourMapsRecord.from_summary(y.to_summary()) == y
    ('fsaverage5', True)
    """

    _key = "your_maps"
    _moved = {"threshold": "cortex.threshold"}

    source: dict
    mesh: str
    #: map name -> hemisphere -> :class:`ParcelsRecord`
    maps: dict
    #: one :class:`YourSimilarityRecord` per (hemisphere, pair)
    similarity: list = _typed(YourSimilarityRecord, "list")

    def __post_init__(self):
        super().__post_init__()
        object.__setattr__(self, "maps", {name: _as_each(ParcelsRecord, per)
                                          for name, per in self.maps.items()})


@dataclass(frozen=True, kw_only=True)
class FitRowRecord(_Record):
    """One descriptor of one model-vs-cortex comparison of the language job
    (``summary["comparison"]["fits"][key]["rows"]``): each side's value with its null
    (:class:`~toponeuro.analysis.DescriptorResult`'s ``to_dict``), the verdict and why.

    Examples
    --------
    >>> r = FitRowRecord(descriptor="smoothness", statistic="s", model={}, cortex={},
    ...                  verdict="alike", reason="r")
    >>> FitRowRecord.from_summary(r.to_summary()) == r
    True
    """

    _key = "comparison"

    descriptor: str
    statistic: str
    model: dict
    cortex: dict
    verdict: str
    reason: str


@dataclass(frozen=True, kw_only=True)
class ComparisonRowsRecord(_Record):
    """One model-vs-cortex comparison on the one ruler, both jobs alike: the layer and the
    hemisphere, the rows (one per descriptor, of the job's row record ``_row_record``:
    :class:`FitRowRecord`, :class:`~toponeuro.reporting._kit.report.RulerRowRecord`), the
    descriptors left out and why, the verdicts' counts and both sides' geometries. The
    draws, resamples and region of the ruler are the run's ``settings.ruler``, recorded there
    once; each row records the draws it got.

    Examples
    --------
    >>> c = ComparisonRowsRecord(layer="l", hemisphere="left", rows=[], left_out={},
    ...                          counts={"alike": 1}, model_geometry={}, cortex_geometry={})
    >>> c.counts, ComparisonRowsRecord.from_summary(c.to_summary()) == c
    ({'alike': 1}, True)
    """

    #: the record of each row (None: rows kept as given)
    _row_record = None

    layer: str
    hemisphere: str
    #: one ``_row_record`` per descriptor (and domain)
    rows: list = _typed("_row_record", "list")
    #: descriptor -> why it was left out
    left_out: dict
    #: verdict -> its count
    counts: dict
    model_geometry: object
    cortex_geometry: object


@dataclass(frozen=True, kw_only=True)
class FitRecord(ComparisonRowsRecord):
    """One model-vs-cortex comparison of the language job
    (``summary["comparison"]["fits"][key]``): a :class:`ComparisonRowsRecord` of
    :class:`FitRowRecord` rows, with its title and the maps compared.

    Examples
    --------
    >>> f = FitRecord(title="t", comparison="language", layer="l", hemisphere="left",
    ...               cortex_map="language", cortex_source="s", model_geometry={},
    ...               cortex_geometry={}, counts={"alike": 1}, left_out={}, rows=[])
    >>> f.counts, FitRecord.from_summary(f.to_summary()) == f
    ({'alike': 1}, True)
    """

    _key = "comparison"
    _row_record = FitRowRecord

    title: str
    #: the comparison's key (``"language"``, ``"verb-noun"``)
    comparison: str
    cortex_map: str
    cortex_source: str


@dataclass(frozen=True, kw_only=True)
class HeadlineChoiceRecord(_Record):
    """What the one headline rule weighed, both jobs alike: the rows it could choose
    (``n_eligible``) among all (``n_rows``), and the chosen row's evidence (None: none
    chosen).

    Examples
    --------
    >>> HeadlineChoiceRecord(n_eligible=0, n_rows=3).to_summary()
    {'evidence': None, 'n_eligible': 0, 'n_rows': 3}
    """

    evidence: float | None = None
    n_eligible: int
    n_rows: int


@dataclass(frozen=True, kw_only=True)
class FitHeadlineRecord(HeadlineChoiceRecord):
    """The comparison row the one headline rule chose (``summary["comparison"]
    ["headline_row"]``): its comparison (``fit``), descriptor, verdict and evidence.

    Examples
    --------
    >>> h = FitHeadlineRecord(fit="language|left", descriptor="smoothness", domain="language",
    ...                       statistic="s", verdict="alike", reason="r", evidence=0.9,
    ...                       n_eligible=2, n_rows=5)
    >>> FitHeadlineRecord.from_summary(h.to_summary()) == h
    True
    """

    _key = "comparison"

    fit: str
    descriptor: str
    domain: str
    statistic: str
    verdict: str
    reason: str


@dataclass(frozen=True, kw_only=True)
class ComparisonRecord(_Record):
    """The language job's model-vs-cortex comparisons (``summary["comparison"]``): the
    rules, the headline (None: no row is eligible) and each comparison
    (:class:`FitRecord`). The draws of each descriptor's null, a side, are the run's
    ``settings.ruler.n_permutations`` (``report.setting("ruler.n_permutations")``); each
    row records the draws it got (:class:`FitRowRecord`).

    Examples
    --------
    >>> c = ComparisonRecord(layer_rule="l", hemisphere_rule="h", headline_rule="r",
    ...                      headline=None, headline_row=None, fits={})
    >>> c.to_summary()["headline_row"], ComparisonRecord.from_summary(c.to_summary()) == c
    (None, True)
    """

    _key = "comparison"

    layer_rule: str
    hemisphere_rule: str
    headline_rule: str
    #: the chosen comparison's key and row (None: none eligible)
    headline: str | None
    headline_row: FitHeadlineRecord | None = _typed(FitHeadlineRecord)
    #: ``"comparison|hemisphere"`` -> :class:`FitRecord`
    fits: dict = _typed(FitRecord, "each")


@dataclass(frozen=True, kw_only=True)
class VerbNounLayerRecord(_Record):
    """One layer's verb - noun map (``summary["verb_noun"]["per_layer"][layer]``): its
    Moran's I, the selective and organised claims in words, and the label null's record.

    Examples
    --------
    >>> r = VerbNounLayerRecord(n_units_with_data=64, morans_i=0.1, verdict="v",
    ...                         organised="o", label_null={})
    >>> VerbNounLayerRecord.from_summary(r.to_summary()) == r
    True
    """

    _key = "verb_noun"

    n_units_with_data: int
    morans_i: float | None
    verdict: str
    organised: str
    label_null: dict


@dataclass(frozen=True, kw_only=True)
class VerbNounRecord(_Record):
    """The language job's verb - noun maps (``summary["verb_noun"]``): the items, the map and
    each layer (:class:`VerbNounLayerRecord`); the level of its claims is the run's
    ``settings.null.alpha`` (``report.setting("null.alpha")``).

    Examples
    --------
    >>> v = VerbNounRecord(items={"n_stimuli": 0}, map="t", per_layer={})
    >>> VerbNounRecord.from_summary(v.to_summary()) == v
    True
    """

    _key = "verb_noun"

    items: dict
    map: str
    per_layer: dict = _typed(VerbNounLayerRecord, "each")
