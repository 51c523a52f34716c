"""The stages of the language job, each a named function :func:`~toponeuro.run_language_map`
calls in order, as :func:`~toponeuro.run_map` calls those of :mod:`._stages`.

model (:func:`toponeuro.models.load_model`, :func:`check_language_model`) -> layers
(:func:`language_layers`) -> items (:func:`load_language_stimuli`) -> activations
(:func:`toponeuro.extract`, :func:`~toponeuro.reporting.check_sheet_layers`) -> the
language-selective units (:func:`language_units`) -> their maps' topography
(:func:`language_model_topography`) -> the cortex's language maps (:func:`language_cortex`).
Messages name parameters (``layers=``, ``stimuli=``, ``cortex_maps=``); the command line
rewrites them as its flags.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np
import xarray as xr

from ..._io.null_cache import use_null_cache
from ..._util import dims as D
from ..._util.constraints import MAPPING, STIMULUS_SET, DataArrayWith, HasAttributes, Names
from ..._util.docs import fill_doc
from ..._util.frozen import validate_fields
from ..._util.params import (
    ALPHA,
    COUNT,
    N_PERMUTATIONS,
    NUMBER,
    SEED,
    InstanceOf,
    Interval,
    PathLike,
    Text,
    declared_params,
    validate_params,
)
from ...analysis import TDANN_PATCHES, language_selectivity
from ...exceptions import DownloadError, InvalidDataError, MissingFileError, ParameterError
from .._kit.stages import map_layers

__all__ = [
    "LANGUAGE_MAP",
    "check_language_model",
    "language_layers",
    "load_language_stimuli",
    "LanguageUnits",
    "language_units",
    "LanguageTopography",
    "language_model_topography",
    "LanguageCortex",
    "language_cortex",
]

#: the language units' selection, as :func:`~toponeuro.analysis.language_selectivity`
#: declares it (one declaration of TopoLM's q, top_k and smoothing)
_SELECTION = declared_params(language_selectivity)

#: the name of the language map (S vs N) on the sheets and of the parcels on the cortex
LANGUAGE_MAP = "language"

_HINT = (
    "The language map needs the Fedorenko et al. (2010) localizer items. Offline, point "
    "stimuli= at a local copy of the csv (columns sentence, condition), e.g. "
    "stimuli='/path/to/fedorenko2010_stimuli.csv', or put the pinned file at "
    "$TOPONEURO_DATA/langloc/fedorenko_stimuli.csv (docs/data.rst)."
)


@validate_params(dict(card=HasAttributes(("name", "modality"), "a ModelCard (toponeuro.models.model_card)")))
def check_language_model(card) -> None:
    """Raise :class:`~toponeuro.exceptions.ParameterError` unless ``card`` is a language model.

    Parameters
    ----------
    card : ModelCard
        The model's card (``net.model_card``).

    Examples
    --------
    >>> from toponeuro.models import model_card
    >>> check_language_model(model_card("toponet_lm_demo.tau_1"))
    >>> check_language_model(model_card("toponet_demo.v2_tau_50"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    toponeuro.exceptions.ParameterError: model 'toponet_demo.v2_tau_50' is a vision model; ...
    """
    if card.modality != "language":
        raise ParameterError(
            f"model {card.name!r} is a {card.modality} model; the language job needs a "
            "language model (toponeuro.models.list_models(modality='language')). For a vision "
            "model use run_map (toponeuro map without --language)."
        )


@validate_params(dict(card=HasAttributes(("name", "topo_layers"), "a ModelCard (toponeuro.models.model_card)"),
                      layers=[Text(), Names(), None]))
def language_layers(card, layers: str | Sequence[str] | None = None) -> list[str]:
    """The layers the language job measures: ``layers`` as a list, default every TopoLoss
    layer of the card (TopoLM's sheets are all its MLP layers; :func:`map_layers` keeps the
    vision job's last three).

    Parameters
    ----------
    card : ModelCard
        The model's card (``net.model_card``).
    layers : str or sequence of str, optional
        The layers to measure (default every TopoLoss layer of the card).

    Returns
    -------
    list of str
        The layer names, in order.

    Examples
    --------
    >>> from toponeuro.models import model_card
    >>> len(language_layers(model_card("toponet_lm_demo.tau_1")))
    6
    >>> language_layers(model_card("toponet_lm_demo.tau_1"), "encoder.layer.5.intermediate.dense")
    ['encoder.layer.5.intermediate.dense']
    """
    if layers is None and card.topo_layers:
        return list(card.topo_layers)
    return map_layers(card, layers)  # the one reader of layers= (and its error without any)


@validate_params(dict(stimuli=[PathLike(), STIMULUS_SET, None]))
@fill_doc
def load_language_stimuli(stimuli="langloc"):
    """The localizer items and where they come from: ``(StimulusSet, source)``.

    Parameters
    ----------
    stimuli : "langloc", path-like or StimulusSet
        ``"langloc"`` (or None): the pinned csv (cached, sha256-checked); a local csv with
        columns ``sentence``, ``condition``; or a StimulusSet (returned as it is).

    Returns
    -------
    stimuli : StimulusSet
        The localizer items (``category``: their condition).
    %(stimuli_source)s

    Raises
    ------
    MissingFileError
        ``stimuli`` is neither ``"langloc"`` nor a file.
    %(pinned_csv_download)s

    Examples
    --------
    >>> from toponeuro.stimuli import StimulusSet
    >>> s = StimulusSet(["s0", "s1"], ["a b", "c d"], "text", categories=["S", "N"], name="two")
    >>> load_language_stimuli(s)[1]
    "StimulusSet 'two'"
    """
    from ...stimuli import StimulusSet, load_language_localizer

    if isinstance(stimuli, StimulusSet):
        return stimuli, f"StimulusSet {stimuli.name!r}"
    if stimuli in (None, "langloc"):
        try:
            return load_language_localizer(), "pinned copy (epflneuroailab/topolm), sha256-checked"
        except DownloadError as err:
            raise DownloadError(f"{_HINT}\n(download failed: {err})") from err
    path = Path(stimuli)
    if not path.is_file():
        raise MissingFileError(f"stimuli {str(stimuli)!r} is neither 'langloc' nor a csv file. "
                               f"{_HINT}")
    return load_language_localizer(path), f"local copy {path}"


#: an xarray.Dataset a stage's record holds
_DATASET = InstanceOf(xr.Dataset, "an xarray.Dataset", example=xr.Dataset)


@validate_fields({"topolm": _DATASET, "profile": _DATASET, "raw": _DATASET, "threshold": NUMBER,
                 "selection": MAPPING})
class LanguageUnits(NamedTuple):
    """The language-selective units of :func:`language_units`.

    Parameters
    ----------
    topolm : xarray.Dataset
        TopoLM's selection (smoothed activations): ``t``, ``q``, ``fdr_mask``, ``topk_mask``.
    profile : xarray.Dataset
        The split-half condition profile of the top-k units
        (:func:`~toponeuro.analysis.language_profile`).
    raw : xarray.Dataset
        The same selection on the unsmoothed activations: the map whose topography is
        measured.
    threshold : float
        The smallest unsmoothed t that passes Benjamini-Hochberg (NaN: no unit passes).
    selection : dict
        :func:`~toponeuro.analysis.fdr_selection` of the unsmoothed map (an empty one is a
        result: ``text`` says "no language-selective units at q = 0.05").

    Examples
    --------
    >>> empty = xr.Dataset()
    >>> LanguageUnits(empty, empty, empty, float("nan"), {"empty": True}).threshold
    nan
    """

    #: TopoLM's selection (smoothed activations): ``t``, ``q``, ``fdr_mask``, ``topk_mask``
    topolm: xr.Dataset
    #: the split-half condition profile of the top-k units (:func:`~toponeuro.analysis.language_profile`)
    profile: xr.Dataset
    #: the same selection on the unsmoothed activations: the map whose topography is measured
    raw: xr.Dataset
    #: the smallest unsmoothed t that passes Benjamini-Hochberg (NaN: no unit passes)
    threshold: float
    #: :func:`~toponeuro.analysis.fdr_selection` of the unsmoothed map (an empty one is a
    #: result: ``text`` says "no language-selective units at q = 0.05")
    selection: dict

    @property
    def tmap(self) -> xr.DataArray:
        """The unsmoothed S vs N t map, dims ``("unit",)`` with the unit coords."""
        return self.raw["t"]

    @property
    def n_selected(self) -> int:
        """Units of the unsmoothed map that pass Benjamini-Hochberg."""
        return int(np.asarray(self.raw["fdr_mask"].values).sum())


@validate_params(dict(acts=DataArrayWith((D.STIMULUS, D.UNIT)),
                      **{k: _SELECTION[k] for k in ("q", "top_k", "smooth_fwhm")}))
def language_units(acts: xr.DataArray, *, q: float = 0.05, top_k: float | int = 0.1,
                   smooth_fwhm: float | None = 2.0) -> LanguageUnits:
    """TopoLM's language-selective units, their split-half profile and the unsmoothed map.

    :func:`~toponeuro.analysis.language_selectivity` on TopoLM's smoothed activations (the
    selection the paper reports), :func:`~toponeuro.analysis.language_profile` (selected on
    half the items, measured on the other half) and the same t map without smoothing, with
    the smallest t passing Benjamini-Hochberg at ``q`` on it (the patch threshold; NaN when
    no unit passes, an empty selection that the job reports as such).

    Parameters
    ----------
    acts : xarray.DataArray
        Activations of the localizer items (condition in the ``category`` coord).
    q : float
        Benjamini-Hochberg false-discovery rate (0.05).
    top_k : float or int
        Units selected, as in :func:`~toponeuro.analysis.language_selectivity` (TopoLM's
        0.1).
    smooth_fwhm : float or None
        FWHM (unit spacings) of TopoLM's sheet smoothing before the selection (2.0;
        ``None``: the raw activations).

    Returns
    -------
    LanguageUnits
        The selection, its split-half profile, the unsmoothed map and its threshold.

    Examples
    --------
    >>> from toponeuro import make_activations
    >>> acts = make_activations({"h": 64}, 40, categories=["S", "W", "J", "N"] * 10,
    ...                         random_state=0)
    >>> res = language_units(acts, smooth_fwhm=None)
    >>> res.tmap.sizes["unit"], res.n_selected, res.threshold
    (64, 0, nan)
    """
    from ...analysis import fdr_selection, language_profile, language_selectivity

    topolm = language_selectivity(acts, q=q, top_k=top_k, smooth_fwhm=smooth_fwhm)
    profile = language_profile(acts, q=q, top_k=top_k, smooth_fwhm=smooth_fwhm)
    raw = language_selectivity(acts, q=q, top_k=top_k, smooth_fwhm=None)
    sel = fdr_selection(raw)
    threshold = float("nan") if sel["empty"] else float(sel["threshold"])
    return LanguageUnits(topolm, profile, raw, threshold, sel)


@validate_fields({"morans": MAPPING, "contrast": MAPPING})
class LanguageTopography(NamedTuple):
    """The topography of each layer's language map (:func:`language_model_topography`).

    Parameters
    ----------
    table : TopographyTable
        Smoothness and patches of each layer's map, with their positions null.
    morans : dict
        Layer -> Moran's I of its map with its positions null (the "organised" question).
    contrast : dict
        Layer -> :class:`~toponeuro.analysis.ContrastTopography` of Moran's I: the same map
        against the positions null and the label null (S and N labels shuffled across the
        items, the map recomputed), the "selective" question the headline answers.

    Examples
    --------
    >>> LanguageTopography(None, {}, {}).morans
    {}
    """

    #: smoothness and patches of each layer's map, with their positions null
    table: object
    #: layer -> Moran's I of its map with its positions null (the "organised" question)
    morans: dict
    #: layer -> :class:`~toponeuro.analysis.ContrastTopography` of Moran's I: the same map
    #: against the positions null and the label null (S and N labels shuffled across the
    #: items, the map recomputed), the "selective" question the headline answers
    contrast: dict


@fill_doc
@validate_params(dict(acts=DataArrayWith((D.STIMULUS, D.UNIT)), layers=Names(empty=False),
                      min_units=COUNT, n_permutations=N_PERMUTATIONS, alpha=ALPHA,
                      random_state=SEED))
def language_model_topography(acts: xr.DataArray, units: LanguageUnits, layers: Sequence[str],
                              *, min_units: int = TDANN_PATCHES["min_count"],
                              n_permutations: int = 1000, alpha: float = 0.05,
                              random_state=0) -> LanguageTopography:
    """Moran's I, smoothness and patches of each layer's unsmoothed S vs N map, with nulls.

    Two questions, each with its own null (:func:`toponeuro.analysis.language_topography`):
    is the map *organised* on the sheet (positions null: its values scattered over the
    sheet; nearly always so on a topographic sheet), and is the *contrast* more clustered
    than contrasts of random splits of the same items (label null: the S and N labels
    shuffled, the t map recomputed from the same activations) -- the claim a selective
    topography rests on. Patches are at :attr:`LanguageUnits.threshold`; with an empty
    selection there is no patch threshold (``topography_table(threshold=None)``: no patches),
    and smoothness and Moran's I, which need none, are measured as usual.

    Parameters
    ----------
    acts : xarray.DataArray
        Activations of the localizer items (condition in the ``category`` coord).
    units : LanguageUnits
        The selection of :func:`language_units` on the same activations.
    layers : sequence of str
        The layers measured.
    min_units : int
        Smallest patch in units (TDANN's 10).
    %(n_permutations)s
        Here: each null of each statistic.
    %(alpha)s
    %(random_state)s

    Returns
    -------
    LanguageTopography
        The topography table, Moran's I and both nulls of each layer's map.

    Examples
    --------
    >>> from toponeuro import make_activations
    >>> acts = make_activations({"h": 64}, 40, categories=["S", "W", "J", "N"] * 10,
    ...                         random_state=0)
    >>> units = language_units(acts, smooth_fwhm=None)
    >>> res = language_model_topography(acts, units, ["h"], n_permutations=19)
    >>> int(res.table.row("h", "language")["n_patches"]), res.contrast["h"].selective.claim
    (0, 'selective')
    >>> res.contrast["h"].labels.attrs["null"]
    'labels'
    """
    from ...analysis import language_topography, topography_table

    tmap = units.tmap.expand_dims(map=[LANGUAGE_MAP])
    table = topography_table(tmap, layers=layers, threshold=units.selection["threshold"],
                             min_units=min_units, pairs=(), n_permutations=n_permutations,
                             alpha=alpha, random_state=random_state)
    both = language_topography(acts, layers, q=float(units.raw.attrs["q_level"]),
                               n_permutations=n_permutations, alpha=alpha,
                               random_state=random_state, statistics=("morans_i",))
    contrast = {ly: both[ly]["tests"]["morans_i"] for ly in layers}
    morans = {ly: c.positions for ly, c in contrast.items()}
    return LanguageTopography(table, morans, contrast)


@validate_fields({"maps": MAPPING, "user_maps": MAPPING, "source": MAPPING})
class LanguageCortex(NamedTuple):
    """The cortex's language maps (:func:`language_cortex`).

    Parameters
    ----------
    atlas : object
        The language parcels (None when your own ``language`` map replaces them).
    maps : dict
        Hemisphere -> the parcels (or your ``language`` map) as
        :class:`~toponeuro.atlases.CortexMaps`.
    topography : TopographyTable or None
        Extent and regions of the parcels (fixed binary regions: no null).
    user_maps : dict
        Hemisphere -> your own maps (:func:`~toponeuro.atlases.load_cortex_maps`), ``{}``
        without them.
    user_topography : TopographyTable or None
        Your own maps' topography table (patches at ``threshold``, spin null of their
        similarities), or None without ``cortex_maps``.
    source : dict
        Where your maps come from (files, projection), ``{}`` without them.

    Examples
    --------
    >>> LanguageCortex(None, {}, None, {}, None, {}).source
    {}
    """

    #: the language parcels (None when your own ``language`` map replaces them)
    atlas: object
    #: hemisphere -> the parcels (or your ``language`` map) as :class:`~toponeuro.atlases.CortexMaps`
    maps: dict
    #: extent and regions of the parcels (fixed binary regions: no null)
    topography: object
    #: hemisphere -> your own maps (:func:`~toponeuro.atlases.load_cortex_maps`), ``{}`` without
    user_maps: dict
    #: your own maps' topography table (patches at ``threshold``, spin null of their
    #: similarities), or None without ``cortex_maps``
    user_topography: object
    #: where your maps come from (files, projection), ``{}`` without them
    source: dict


@validate_params(dict(hemispheres=[Names(empty=False), None],
                      threshold=[Interval(numbers.Real), None], min_vertices=COUNT,
                      similarity_permutations=N_PERMUTATIONS, alpha=ALPHA, random_state=SEED))
@fill_doc
def language_cortex(hemispheres: Sequence[str] | None = None, *, cortex_maps=None,
                    vol_to_surf=None, threshold: float | None = None, min_vertices: int = 10,
                    similarity_permutations: int = 1000, alpha: float = 0.05,
                    random_state=0) -> LanguageCortex:
    """The language parcels on fsaverage5 and, with ``cortex_maps``, your own language maps.

    Without ``cortex_maps``: the symmetrical language parcels (Wolna et al., 2025), a 0/1 map
    per hemisphere; their regions are the parcels themselves (threshold 0.5, no smoothing)
    and get no null. ``cortex_maps`` (name -> file(s), read by
    :func:`toponeuro.atlases.load_cortex_maps` with its checks, as in
    :func:`~toponeuro.reporting.cortex_topography`) adds your maps: a map named
    ``"language"`` (e.g. your lab's S - N contrast) *replaces* the parcels, any other name
    (``verbs``, TopoLM's verb - noun contrast) *joins* them. Your maps may lie on another
    mesh than the parcels (fs_LR 32k, fsaverage5): each map is measured on its own mesh and
    nothing is compared across meshes. Your maps' regions are at ``threshold`` in their
    units, and the similarity of every two of them gets the spin test with
    ``similarity_permutations`` rotations. ``cortex_maps`` may be what
    :func:`~toponeuro.atlases.load_cortex_maps` returned (hemisphere -> CortexMaps), as
    :func:`~toponeuro.reporting.run_language_map` passes it, having read and checked the
    files before the model runs.

    Parameters
    ----------
    hemispheres : sequence of {"left", "right"}, optional
        Default both for the parcels, and those your maps cover.
    cortex_maps : mapping or str, optional
        Your own maps (name -> file(s)), or what :func:`~toponeuro.atlases.load_cortex_maps`
        returned (hemisphere -> CortexMaps).
    %(vol_to_surf)s
    threshold : float, optional
        Region threshold of your own maps, in their units (required with ``cortex_maps``).
    min_vertices : int
        Smallest region, in vertices.
    similarity_permutations : int
        Rotations of the spin test between your maps (0: none).
    %(alpha)s
    %(random_state)s

    Returns
    -------
    LanguageCortex
        The parcels (unless replaced), your maps and their topography tables.

    Raises
    ------
    InvalidDataError
        ``cortex_maps`` without ``threshold``.

    Examples
    --------
    >>> res = language_cortex(["left"], similarity_permutations=0)
    >>> sorted(res.maps), res.user_topography is None
    (['left'], True)
    """
    from ...analysis import topography_table
    from ...atlases import cortex_maps as atlas_maps
    from ...atlases import load_cortex_maps, load_language_parcels
    from ...settings import cortex_maps_kind

    user, user_topo, source = {}, None, {}
    if cortex_maps is not None:
        if threshold is None:
            raise InvalidDataError(
                "Your own cortex maps need a patch threshold= in their units (e.g. 2 for t "
                "maps); got cortex_maps without threshold.")
        user = cortex_maps if cortex_maps_kind(cortex_maps) == "loaded" else load_cortex_maps(
            cortex_maps, hemispheres=hemispheres, vol_to_surf=vol_to_surf)
        source = next(iter(user.values())).source if user else {}
        pairs = _pairs(user)
        with use_null_cache():  # your maps' spin draws: once per maps, mesh and seed
            user_topo = topography_table(
                user, threshold=float(threshold), min_units=min_vertices, smooth_sigma=0.0,
                pairs=pairs, n_permutations=0, similarity_permutations=similarity_permutations,
                alpha=alpha, random_state=random_state)
    replaced = any(LANGUAGE_MAP in m.maps for m in user.values())
    if replaced:
        return LanguageCortex(None, {}, None, user, user_topo, source)
    atlas = load_language_parcels("fsaverage5")
    maps = atlas_maps(atlas, [LANGUAGE_MAP], hemispheres=hemispheres or ("left", "right"))
    topo = topography_table(maps, threshold=0.5, min_units=min_vertices, smooth_sigma=0.0,
                            pairs=(), n_permutations=0, alpha=alpha, random_state=random_state)
    return LanguageCortex(atlas, maps, topo, user, user_topo, source)


def _pairs(user: dict) -> tuple:
    names = sorted({n for m in user.values() for n in m.maps})
    return tuple((a, b) for i, a in enumerate(names) for b in names[i + 1:])


def _n_vertices(maps: dict) -> dict:
    """Hemisphere -> the number of vertices of its first map (for the extent columns)."""
    return {h: int(np.asarray(next(iter(c.maps.values()))).size) for h, c in maps.items()}

