"""The language job's verb - noun stage: TopoLM's fMRI fit on the model's sheets.

TopoLM (Rathi et al., 2025) compares the topography of its models' verb - noun contrast with
that of a human group contrast (22 participants, fs_LR 32k; Hauptman et al., 2024) computed
from the same items (Elli, Lane & Bedny, 2019). This module gives the model's side --
:func:`load_verb_noun_stimuli` (the items), :func:`language_verb_noun` (each layer's
verb - noun Welch t map on its sheet, with Moran's I against the positions null and the label
null, as the S - N map gets them) -- and the cortex's: :func:`verb_noun_cortex` (a lab's
verb - noun map, or TopoLM's own, on its mesh). Both sides are then measured by one ruler
(:func:`toponeuro.analysis.compare_topography`) in :mod:`._language_fit`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np
import xarray as xr

from ..._util import dims as D
from ..._util.constraints import MAPPING, STIMULUS_SET, DataArrayWith, Names, TorchModule
from ..._util.docs import fill_doc
from ..._util.frozen import validate_fields
from ..._util.params import (
    ALPHA,
    COUNT,
    N_PERMUTATIONS,
    NON_NEGATIVE_INT,
    SEED,
    Boolean,
    InstanceOf,
    Options,
    PathLike,
    Text,
    validate_params,
)
from ...exceptions import DownloadError, InvalidDataError, MissingFileError
from ...features import TOKEN_POOLINGS

__all__ = ["VERB_NOUN_MAP", "VERB_NOUN_CORTEX", "load_verb_noun_stimuli", "VerbNoun",
           "language_verb_noun", "verb_noun_cortex", "verb_noun_inputs", "verb_noun_maps",
           "bare_netcdf", "contrast_boot"]

#: the name of the model's verb - noun map (a sheet map, like the S - N "language" map)
VERB_NOUN_MAP = "verb-noun"

#: the name of the cortex map that is the verb - noun contrast (``cortex_maps={"verbs": ...}``;
#: without one, TopoLM's group contrast)
VERB_NOUN_CORTEX = "verbs"

_HINT = (
    "The verb - noun comparison needs TopoLM's verb and noun items (Elli et al., 2019). "
    "Offline, point stimuli.verb_noun= at a local copy of elli_stimuli.csv (columns run, "
    "block, class, category, pair), put the pinned file at "
    "$TOPONEURO_DATA/langloc/elli_stimuli.csv (docs/data.rst), or pass stimuli.verb_noun=None "
    "to leave the comparison out."
)


@validate_params(dict(verb_noun=[PathLike(), STIMULUS_SET]))
@fill_doc
def load_verb_noun_stimuli(verb_noun="topolm"):
    """The verb and noun items and where they come from: ``(StimulusSet, source)``.

    Parameters
    ----------
    verb_noun : "topolm", path-like or StimulusSet
        ``"topolm"``: the pinned ``elli_stimuli.csv`` of TopoLM (cached, sha256-checked,
        :func:`toponeuro.stimuli.load_verb_noun_items`); a local copy of it; or a
        StimulusSet whose categories are ``"verb"`` and ``"noun"`` (returned as it is).

    Returns
    -------
    stimuli : StimulusSet
        The verb and noun items (``category``: ``"verb"`` / ``"noun"``).
    %(stimuli_source)s

    Raises
    ------
    MissingFileError
        ``verb_noun`` is neither ``"topolm"`` nor a file.
    %(pinned_csv_download)s
    InvalidDataError
        A StimulusSet without both a ``verb`` and a ``noun`` category.

    Examples
    --------
    >>> from toponeuro.stimuli import StimulusSet
    >>> s = StimulusSet(["a", "b", "c", "d"], ["to run to go", "the dog the cat", "to sit to be",
    ...                 "the sun the sea"], "text", categories=["verb", "noun"] * 2, name="vn")
    >>> load_verb_noun_stimuli(s)[1]
    "StimulusSet 'vn'"
    """
    from ...stimuli import StimulusSet, load_verb_noun_items

    if isinstance(verb_noun, StimulusSet):
        cats = set(np.asarray(verb_noun.categories, dtype=str))
        if not {"verb", "noun"} <= cats:
            raise InvalidDataError(
                f"verb_noun: the StimulusSet {verb_noun.name!r} has categories "
                f"{sorted(cats)}; the verb - noun contrast needs items of 'verb' and 'noun'.")
        return verb_noun, f"StimulusSet {verb_noun.name!r}"
    if isinstance(verb_noun, str) and verb_noun == "topolm":
        try:
            return (load_verb_noun_items(),
                    "pinned copy (epflneuroailab/topolm eval/stimuli/elli_stimuli.csv), "
                    "sha256-checked")
        except DownloadError as err:
            raise DownloadError(f"{_HINT}\n(download failed: {err})") from err
    if not isinstance(verb_noun, (str, os.PathLike)) or not Path(verb_noun).is_file():
        raise MissingFileError(
            f"verb_noun={verb_noun!r} is neither 'topolm' nor a csv file. {_HINT}")
    return load_verb_noun_items(verb_noun), f"local copy {Path(verb_noun)}"


@validate_fields({
    "source": Text(empty=True), "tmap": InstanceOf(xr.DataArray, "an xarray.DataArray",
                                         example=lambda: xr.DataArray(0.0)),
    "contrast": MAPPING, "n_units": MAPPING,
    "boot": [InstanceOf(list, "a list", example=list), None]})
class VerbNoun(NamedTuple):
    """The model's verb - noun maps (:func:`language_verb_noun`).

    Parameters
    ----------
    items : StimulusSet
        The items (:func:`load_verb_noun_stimuli`).
    source : str
        Where they come from.
    tmap : xarray.DataArray
        The unsmoothed Welch t of verb vs noun per unit, dims ``("unit",)`` (all layers).
    contrast : dict
        Layer -> :class:`~toponeuro.analysis.ContrastTopography` of Moran's I (positions
        null and label null, as the S - N map's).
    n_units : dict
        Layer -> the number of units with a defined t (the denominator of its counts).
    boot : list, optional
        The deepest layer's t map recomputed from resampled items (the model side's
        interval in the comparison with the cortex), or None.

    Examples
    --------
    >>> VerbNoun(None, "", xr.DataArray(0.0), {}, {}).contrast
    {}
    """

    #: the items (:func:`load_verb_noun_stimuli`)
    items: object
    #: where they come from
    source: str
    #: the unsmoothed Welch t of verb vs noun per unit, dims ``("unit",)`` (all layers)
    tmap: xr.DataArray
    #: layer -> :class:`~toponeuro.analysis.ContrastTopography` of Moran's I (positions
    #: null and label null, as the S - N map's)
    contrast: dict
    #: layer -> the number of units with a defined t (the denominator of its counts)
    n_units: dict
    #: the deepest layer's t map recomputed from items resampled within verb and noun
    #: (:func:`~toponeuro.reporting.contrast_boot`; None: not asked)
    boot: list | None = None


@fill_doc
@validate_params(dict(acts=DataArrayWith((D.STIMULUS, D.UNIT)), layers=Names(empty=False),
                      source=Text(empty=True), n_permutations=N_PERMUTATIONS, alpha=ALPHA,
                      random_state=SEED, n_boot=NON_NEGATIVE_INT),
                 prefer_skip_nested_validation=False)  # acts: language_selectivity checks more
def language_verb_noun(acts: xr.DataArray, layers: Sequence[str], *, items=None, source="",
                       n_permutations: int = 1000, alpha: float = 0.05,
                       random_state=0, n_boot: int = 0) -> VerbNoun:
    """Each layer's verb - noun t map on its sheet, with Moran's I against both nulls.

    The map is the Welch t of the verb items against the noun items per unit, on the
    unsmoothed activations (TopoLM's smoothing of the activations would make any map smooth,
    as for the S - N map; :func:`toponeuro.analysis.language_selectivity` with
    ``target="verb"``, ``against="noun"``, ``smooth_fwhm=None``). Moran's I is tested twice
    (:func:`toponeuro.analysis.contrast_topography`, as
    :func:`toponeuro.analysis.language_topography` tests the S - N map): the positions null
    ("organised on the sheet") and the label null (verb and noun labels shuffled across the
    items, the map recomputed: "more clustered than contrasts of random splits of the
    items").

    Parameters
    ----------
    acts : xarray.DataArray
        Activations of the verb and noun items (``category`` ``"verb"`` / ``"noun"``).
    layers : sequence of str
        The layers measured.
    items : StimulusSet, optional
        The items, kept for the report.
    source : str
        Where the items come from, kept for the report.
    %(n_permutations)s
        Here: of both nulls.
    %(alpha)s
    %(random_state)s
    n_boot : int
        Resamples of the items behind the deepest layer's bootstrap maps (``boot``;
        ``RulerSettings.n_boot`` in the job); 0, none.

    Returns
    -------
    VerbNoun
        The t map and each layer's Moran's I against both nulls.

    Examples
    --------
    >>> from toponeuro import make_activations
    >>> acts = make_activations({"h": 64}, 40, categories=["verb", "noun"] * 20,
    ...                         random_state=0)
    >>> vn = language_verb_noun(acts, ["h"], n_permutations=19)
    >>> vn.tmap.sizes["unit"], vn.contrast["h"].labels.attrs["null"], vn.n_units["h"]
    (64, 'labels', 64)
    """
    from ...analysis import language_selectivity, language_topography

    raw = language_selectivity(acts, "verb", "noun", smooth_fwhm=None)
    # the S - N stage's one function (language_model_topography), for this contrast
    both = language_topography(acts, layers, target="verb", against="noun",
                               n_permutations=n_permutations, alpha=alpha,
                               random_state=random_state, statistics=("morans_i",),
                               what="verb - noun selectivity")
    contrast = {ly: both[ly]["tests"]["morans_i"] for ly in layers}
    unit_layer = np.asarray(raw[D.LAYER].values).astype(str)
    t = np.asarray(raw["t"].values, dtype=float)
    n_units = {ly: int(np.isfinite(t[unit_layer == ly]).sum()) for ly in layers}
    tmap = raw["t"].assign_attrs(contrast="verb - noun", statistic="Welch t",
                                 smoothing="none")
    boot = None
    if n_boot:
        boot = contrast_boot(acts, list(layers)[-1], "verb", "noun", n_boot=n_boot,
                             random_state=random_state)
    return VerbNoun(items, source, tmap, contrast, n_units, boot)


@validate_params(dict(cortex_maps=[MAPPING, None], cache_dir=[PathLike(), None]))
@fill_doc
def verb_noun_cortex(cortex_maps=None, *, cache_dir=None):
    """The cortex's verb - noun map: ``(hemisphere -> CortexMaps, source)``.

    Your map named :data:`VERB_NOUN_CORTEX` (``"verbs"``) among ``cortex_maps`` (what
    :func:`toponeuro.atlases.load_cortex_maps` returned), else TopoLM's group contrast
    (:func:`toponeuro.brain.load_topolm_contrast`: the pinned file, left hemisphere of
    fs_LR 32k; offline, the cache). Only the hemispheres that hold it are returned.

    Parameters
    ----------
    cortex_maps : dict, optional
        Hemisphere -> CortexMaps, as :func:`toponeuro.atlases.load_cortex_maps` returns.
    %(cache_dir)s

    Returns
    -------
    maps : dict
        Hemisphere -> :class:`~toponeuro.atlases.CortexMaps` holding the ``verbs`` map.
    source : str
        Where the map comes from, in words.

    Raises
    ------
    DownloadError
        No ``verbs`` map and TopoLM's contrast can be neither found nor downloaded (the
        message says how to give a copy).

    Examples
    --------
    >>> import numpy as np
    >>> from toponeuro.atlases import load_cortex_maps
    >>> maps = load_cortex_maps({"verbs": {"left": np.linspace(-3, 3, 10242)}})
    >>> cm, source = verb_noun_cortex(maps)
    >>> sorted(cm), source
    (['left'], "your map 'verbs' (from cortex.maps)")
    """
    from ...atlases import load_cortex_maps
    from ...brain import load_topolm_contrast

    mine = {h: c for h, c in (cortex_maps or {}).items() if VERB_NOUN_CORTEX in c.maps}
    if mine:
        return mine, f"your map {VERB_NOUN_CORTEX!r} (from cortex.maps)"
    try:
        t = load_topolm_contrast(cache_dir=cache_dir)
    except DownloadError as err:
        raise DownloadError(
            "The verb - noun comparison needs a cortex map: TopoLM's group contrast "
            "(group-level-contrast.nc), which could not be found or downloaded. Give it as "
            "cortex.maps={'verbs': 'group-level-contrast.nc'} (a file of any format those maps "
            "take), or pass stimuli.verb_noun=None to leave the comparison out."
            f"\n(download failed: {err})") from err
    maps = load_cortex_maps({VERB_NOUN_CORTEX: t}, hemispheres=["left"])
    return maps, ("TopoLM's group verb - noun contrast (Rathi et al., 2025; 22 participants, "
                  "fs_LR 32k left), pinned copy, sha256-checked")


def bare_netcdf(cortex_maps):
    """``cortex_maps`` with a bare netCDF path (``"contrast.nc"``, no ``NAME=``) named
    :data:`VERB_NOUN_CORTEX`: the ``.nc`` TopoLM ships is its verb - noun contrast, read by
    :func:`toponeuro.atlases.read_netcdf_map`. Anything else is returned as it is.

    Parameters
    ----------
    cortex_maps : mapping, str, path-like or None
        The ``cortex_maps`` argument as given.

    Returns
    -------
    mapping, str, path-like or None
        ``{"verbs": path}`` for a bare ``.nc`` path, else ``cortex_maps`` unchanged.

    Examples
    --------
    >>> bare_netcdf("group-level-contrast.nc")
    {'verbs': 'group-level-contrast.nc'}
    >>> bare_netcdf("verbs=lh.gii:rh.gii")
    'verbs=lh.gii:rh.gii'
    """
    if isinstance(cortex_maps, (str, os.PathLike)):
        text = os.fspath(cortex_maps)
        if text.lower().endswith(".nc") and "=" not in text and "," not in text:
            return {VERB_NOUN_CORTEX: text}
    return cortex_maps


@validate_params(dict(verb_noun=[PathLike(), STIMULUS_SET, None]))
def verb_noun_inputs(verb_noun, cortex_maps=None):
    """The verb - noun stage's inputs: ``((items, source), (hemisphere -> CortexMaps,
    source))``, or ``(None, None)`` with ``verb_noun=None`` (the comparison left out).

    :func:`load_verb_noun_stimuli` and :func:`verb_noun_cortex`, read before any
    extraction, so a missing file fails at once.

    Parameters
    ----------
    verb_noun : "topolm", path-like, StimulusSet or None
        The items, as :func:`load_verb_noun_stimuli` reads them (None: the comparison left
        out).
    cortex_maps : dict, optional
        Hemisphere -> CortexMaps (:func:`toponeuro.atlases.load_cortex_maps`), searched
        for a ``verbs`` map.

    Returns
    -------
    items : tuple or None
        ``(StimulusSet, source)`` of :func:`load_verb_noun_stimuli`.
    cortex : tuple or None
        ``(hemisphere -> CortexMaps, source)`` of :func:`verb_noun_cortex`.

    Examples
    --------
    >>> verb_noun_inputs(None)
    (None, None)
    """
    if verb_noun is None:
        return None, None
    return load_verb_noun_stimuli(verb_noun), verb_noun_cortex(cortex_maps)


@fill_doc
@validate_params(dict(net=[TorchModule(), None],
                      items=[InstanceOf(tuple, "a (StimulusSet, source) pair", example=()), None],
                      layers=Names(empty=False), token_pooling=Options(TOKEN_POOLINGS),
                      batch_size=COUNT, progress=Boolean(), n_permutations=N_PERMUTATIONS,
                      alpha=ALPHA, random_state=SEED, n_boot=NON_NEGATIVE_INT),
                 prefer_skip_nested_validation=False)  # device and the items: extract's checks
def verb_noun_maps(net, items, layers: Sequence[str], *, token_pooling: str = "mean",
                   batch_size: int = 64, device: str = "cpu", progress: bool = False,
                   n_permutations: int = 1000, alpha: float = 0.05,
                   random_state=0, n_boot: int = 0) -> VerbNoun | None:
    """The model's verb - noun maps: the items' activations
    (:func:`toponeuro.extract`, as the localizer's) and :func:`language_verb_noun`; None
    when ``items`` is None (``(items, source)`` of :func:`verb_noun_inputs`, or None).

    Parameters
    ----------
    net : torch.nn.Module
        The language model.
    items : tuple or None
        ``(StimulusSet, source)`` of :func:`verb_noun_inputs`, or None.
    layers : sequence of str
        The layers measured.
    token_pooling : {"mean", "first", "last"}
        How a layer's token activations become one vector per item.
    batch_size : int
        Items per forward pass (:func:`toponeuro.extract`).
    %(device)s
    %(progress)s
        Here: default ``False``.
    %(n_permutations)s
        Here: of both nulls.
    %(alpha)s
    %(random_state)s
    n_boot : int
        As :func:`language_verb_noun` (0: no bootstrap maps).

    Returns
    -------
    VerbNoun or None
        The model's verb - noun maps, or None without ``items``.

    Examples
    --------
    >>> verb_noun_maps(None, None, ["h"]) is None
    True
    """
    if items is None:
        return None
    from ...features import extract

    stim, source = items
    acts = extract(net, stim, list(layers), token_pooling=token_pooling,
                   batch_size=batch_size, device=device, progress=progress)
    return language_verb_noun(acts, layers, items=stim, source=source,
                              n_permutations=n_permutations, alpha=alpha,
                              random_state=random_state, n_boot=n_boot)


@fill_doc
@validate_params(dict(activations=DataArrayWith((D.STIMULUS, D.UNIT)), layer=Text(),
                      target=Text(), against=Text(), n_boot=NON_NEGATIVE_INT,
                      random_state=SEED))
def contrast_boot(activations, layer: str, target="S", against="N", *, n_boot: int = 50,
                  random_state=0) -> list:
    """A contrast's t map on ``layer``, recomputed from items resampled within each
    condition (:func:`toponeuro.analysis.bootstrap_maps`): the model side's uncertainty
    over stimuli in the language job's comparisons.

    The map is computed as the job computes it: the unsmoothed Welch t of ``target``
    against ``against`` per unit (:func:`toponeuro.analysis.language_selectivity`,
    ``smooth_fwhm=None``).

    Parameters
    ----------
    %(activations)s
    layer : str
        The layer whose map is resampled.
    target, against : str
        The contrast's conditions (S vs N; verb vs noun).
    n_boot : int
        Resamples (``RulerSettings.n_boot``).
    %(random_state)s

    Returns
    -------
    list of xarray.DataArray or None
        ``n_boot`` t maps of ``layer``'s units, dims ``("unit",)``; None when ``n_boot`` is 0
        (no interval).

    Examples
    --------
    >>> from toponeuro import make_activations
    >>> acts = make_activations({"h": 64}, 40, categories=["S", "W", "J", "N"] * 10,
    ...                         random_state=0)
    >>> boot = contrast_boot(acts, "h", n_boot=3)
    >>> len(boot), boot[0].sizes["unit"]
    (3, 64)
    """
    from ...analysis import bootstrap_maps, language_selectivity

    if not n_boot:
        return None
    sub = activations.topo.select(layer)
    return bootstrap_maps(
        sub, lambda a: language_selectivity(a, target, against, smooth_fwhm=None)["t"],
        n_boot=n_boot, random_state=random_state)
