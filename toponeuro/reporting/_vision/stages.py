"""The stages of the main job, each a named function that :func:`~toponeuro.run_map` calls in order.

the cortex's inputs, read and checked before any slow step (:func:`read_cortex_inputs`, shared
with the language job) -> model (:func:`toponeuro.models.load_model`) -> layers (:func:`map_layers`) -> stimuli
(:func:`load_map_stimuli`, :func:`training_images`) -> activations
(:func:`toponeuro.extract`, :func:`check_sheet_layers`) -> the model's topography
(:func:`model_topography`) -> the cortex's (:func:`cortex_topography`) -> their comparison
(:func:`compare_model_cortex`). Messages name parameters (``layers=``, ``stimuli=``); the
command line rewrites them as its flags.
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd
import xarray as xr

from ..._io.null_cache import use_null_cache
from ..._util import dims as D
from ..._util.constraints import MAPPING, STIMULUS_SET, DataArrayWith, Names, TorchModule
from ..._util.docs import fill_doc
from ..._util.frozen import validate_fields
from ..._util.params import (
    ALPHA,
    COUNT,
    N_PERMUTATIONS,
    SEED,
    Boolean,
    InstanceOf,
    Interval,
    Options,
    PathLike,
    check_random_state,
    validate_params,
)
from ..._util.stack import user_stacklevel
from ...analysis import TDANN_PATCHES
from ...exceptions import (
    DownloadError,
    MissingFileError,
    TrainingImagesWarning,
    UnknownNameError,
)
from .._kit.constants import CORTEX_DOMAINS, DEFAULT_NUMBERS, FLOC_NONSCRAMBLED, MAP_DOMAINS
from .._kit.stages import (  # noqa: F401 - the stages both jobs share, public here
    CortexInputs,
    check_sheet_layers,
    map_layers,
    read_cortex_inputs,
)
from .._kit.stages import model_description as _model_description  # noqa: F401

__all__ = [
    "CortexInputs",
    "read_cortex_inputs",
    "map_layers",
    "load_map_stimuli",
    "training_images",
    "check_sheet_layers",
    "ModelTopography",
    "model_topography",
    "CortexTopography",
    "cortex_topography",
    "compare_model_cortex",
    "random_init_similarities",
]

_HINT = (
    "The map needs the fLoc localizer images (Stigliani et al., 2015), and they could not be "
    "downloaded. With a local copy (the stimuli/ folder of https://github.com/VPNL/fLoc, one "
    "sub-folder per category, e.g. stimuli/adult/adult-97.jpg), map the images the demo "
    "TopoNets never saw: stimuli='/path/to/floc', numbers='97-120'; or put that folder at "
    "$TOPONEURO_DATA/floc."
)


@validate_params(dict(stimuli=[PathLike(), STIMULUS_SET, None], progress=Boolean()))
@fill_doc
def load_map_stimuli(stimuli="floc", numbers=None, *, progress: bool = False):
    """The map's fLoc stimuli (the ten non-scrambled categories) and where they come from.

    Parameters
    ----------
    stimuli : "floc", path-like or StimulusSet
        ``"floc"`` (or None): ``$TOPONEURO_DATA/floc`` if it exists, else the pinned
        download; a local fLoc folder; or a given :class:`~toponeuro.stimuli.StimulusSet`
        (returned as it is, ``numbers`` ignored).
    numbers : sequence of int, str or None
        The fLoc image numbers (read by :func:`toponeuro.stimuli.floc_numbers`). ``None``:
        for ``"floc"`` the demo TopoNets' held-out images 97-120, for a folder every image.
    %(progress)s
        Here: of the download (default ``False``).

    Returns
    -------
    (StimulusSet, str)
        The stimuli and a description of their source.

    Raises
    ------
    FileNotFoundError
        ``stimuli`` is neither ``"floc"`` nor a folder.
    DownloadError
        The fLoc images cannot be downloaded (the message says how to use a local copy).

    Examples
    --------
    >>> from toponeuro.stimuli import make_image_folder
    >>> cats = ("adult", "child", "body", "limb", "corridor", "house", "word", "number",
    ...         "car", "instrument")
    >>> d = make_image_folder(categories=cats, numbers=(97, 98), suffix=".jpg")
    >>> stim, source = load_map_stimuli(d, "98")
    >>> len(stim), source.startswith("local copy")
    (10, True)
    """
    from ...stimuli import StimulusSet, load_floc, local_floc_copy

    if isinstance(stimuli, StimulusSet):
        return stimuli, f"StimulusSet {stimuli.name!r}"
    if stimuli in (None, "floc"):
        path = local_floc_copy()
        source = f"local copy {path}" if path is not None else "pinned download (VPNL/fLoc)"
        numbers = DEFAULT_NUMBERS if numbers is None else numbers
    else:
        path, source = Path(stimuli), f"local copy {stimuli}"
        if not path.is_dir():
            raise MissingFileError(f"stimuli={str(stimuli)!r} is neither 'floc' nor a folder. "
                                    f"{_HINT}")
        _check_floc_categories(load_floc(path), stimuli)
    try:
        stim = load_floc(path, categories=list(FLOC_NONSCRAMBLED), numbers=numbers,
                         progress=progress)
    except DownloadError as err:
        raise DownloadError(f"{_HINT}\n(the download failed: {err})") from err
    return stim, source


def _check_floc_categories(found, stimuli) -> None:
    """A local fLoc folder must hold the ten categories the map contrasts."""
    from ...exceptions import InvalidDataError

    present = set(np.asarray(found.categories, str).tolist())
    if not present.issuperset(FLOC_NONSCRAMBLED):
        raise InvalidDataError(
            f"stimuli={str(stimuli)!r} has no images of the fLoc categories "
            f"{[c for c in FLOC_NONSCRAMBLED if c not in present]} (it has {sorted(present)}); "
            "the map contrasts all ten fLoc categories but scrambled: give a folder with "
            "images of each."
        )


@validate_params(dict(net=TorchModule(), stim=STIMULUS_SET))
def training_images(net, stim) -> dict | None:
    """Which fLoc images the model was trained on (its recipe's ``data``), and how many of
    ``stim`` are among them; ``None`` when no recipe says (e.g. the paper's ImageNet models).

    The recipe is the checkpoint's own (``net.recipe``) or the shipped one its card names.

    Parameters
    ----------
    net : torch.nn.Module
        A model with ``model_card`` (and, from a training checkpoint, ``recipe``).
    stim : StimulusSet
        The fLoc stimuli (with a ``number`` metadata column).

    Returns
    -------
    dict or None
        ``recipe``, ``numbers`` (first, last), ``categories``, ``n_overlap`` and
        ``held_out`` (the recipe's validation numbers, if any).

    Examples
    --------
    >>> from toponeuro.models import create_model
    >>> from toponeuro.stimuli import load_floc, make_image_folder
    >>> net = create_model("toponet_demo.v2_tau_50", pretrained=False)
    >>> stim = load_floc(make_image_folder(categories=("adult",), numbers=(1, 97)))
    >>> t = training_images(net, stim)
    >>> t["numbers"], t["n_overlap"], t["held_out"]
    ([1, 96], 1, [97, 120])
    """
    from ...exceptions import RecipeError
    from ...training import load_recipe

    recipe = getattr(net, "recipe", None)
    if not isinstance(recipe, dict) and net.model_card.recipe:
        try:
            recipe = load_recipe(net.model_card.recipe)
        except (UnknownNameError, RecipeError):
            recipe = None
    data = recipe.get("data", {}) if isinstance(recipe, dict) else {}
    if not data.get("numbers") or "number" not in stim.metadata:
        return None
    lo, hi = (int(x) for x in data["numbers"])
    cats = data.get("categories")
    number = pd.to_numeric(stim.metadata["number"], errors="coerce").to_numpy()
    inside = (number >= lo) & (number <= hi)
    if cats:
        inside &= np.isin(np.asarray(stim.categories, str), [str(c) for c in cats])
    held = data.get("val_numbers")
    if not held and (DEFAULT_NUMBERS[0] > hi or DEFAULT_NUMBERS[-1] < lo):
        held = (DEFAULT_NUMBERS[0], DEFAULT_NUMBERS[-1])
    return {"recipe": recipe.get("name"), "numbers": [lo, hi],
            "categories": list(cats) if cats else "all", "n_overlap": int(inside.sum()),
            "held_out": [int(x) for x in held] if held else None}


def _warn_training_overlap(train: dict | None, n_stimuli: int) -> None:
    """A :class:`~toponeuro.exceptions.TrainingImagesWarning` when some stimuli are
    training images (``train`` from :func:`training_images`), naming ``numbers=`` to use."""
    if train and train["n_overlap"]:
        lo, hi = train["numbers"]
        fix = (f"pass numbers='{train['held_out'][0]}-{train['held_out'][1]}'"
               if train["held_out"] else f"choose numbers outside {lo}-{hi}")
        warnings.warn(TrainingImagesWarning(
            f"{train['n_overlap']} of the {n_stimuli} stimuli are images the model was trained "
            f"on (recipe {train['recipe']}: fLoc images {lo}-{hi}); what is measured on them "
            f"is not held-out. For held-out images only, {fix}."), stacklevel=user_stacklevel())


@validate_fields({"selectivity": InstanceOf(xr.DataArray, "an xarray.DataArray",
                                        example=lambda: xr.DataArray(0.0)),
                 "dimensionality": MAPPING, "contrast": MAPPING})
class ModelTopography(NamedTuple):
    """The model's side of the map (:func:`model_topography`).

    Parameters
    ----------
    selectivity : xarray.DataArray
        Domain selectivity maps, dims ``("domain", "unit")``.
    topography : TopographyTable
        Smoothness, patches and map similarity of every map on every layer, with nulls.
    dimensionality : dict
        Effective dimensionality of each layer's activations.
    contrast : dict
        ``(layer, domain) -> ContrastTopography``: each map's smoothness against the
        positions null and the label null; ``(layer, domain, "patch_units")``: the units in
        its patches, against both (default empty).

    Examples
    --------
    >>> ModelTopography(selectivity=xr.DataArray(0.0), topography=None,
    ...                 dimensionality={"fc": 3.0})[2]
    {'fc': 3.0}
    """

    #: domain selectivity maps, dims ``("domain", "unit")``
    selectivity: xr.DataArray
    #: smoothness, patches and map similarity of every map on every layer, with nulls
    topography: object
    #: effective dimensionality of each layer's activations
    dimensionality: dict
    #: ``(layer, domain) -> ContrastTopography``: each map's smoothness against the positions
    #: null and the label null (domain vs the rest shuffled across images, map recomputed);
    #: ``(layer, domain, "patch_units")``: the units in its patches (the table's rules), both
    contrast: dict = {}


@validate_params(dict(acts=DataArrayWith((D.STIMULUS, D.UNIT)), layers=Names(empty=False),
                      threshold=Interval(numbers.Real), min_units=COUNT,
                      n_permutations=N_PERMUTATIONS, alpha=ALPHA, random_state=SEED,
                      label_permutations=[N_PERMUTATIONS, None]))
@fill_doc
def model_topography(acts: xr.DataArray, layers: Sequence[str], *,
                     threshold: float = TDANN_PATCHES["threshold"],
                     min_units: int = TDANN_PATCHES["min_count"], n_permutations: int = 1000,
                     alpha: float = 0.05, random_state=0,
                     label_permutations: int | None = None) -> ModelTopography:
    """Selectivity maps of :data:`MAP_DOMAINS` on each layer, their topography table (each
    statistic once, with its spatial null) and each layer's effective dimensionality.

    Parameters
    ----------
    acts : xarray.DataArray
        Activations with fLoc categories (e.g. from :func:`toponeuro.extract`).
    layers : sequence of str
        The layers measured (each must hold a sheet).
    threshold : float
        Patch threshold, as for :func:`toponeuro.analysis.topography_table` (TDANN's 2).
    min_units : int
        Smallest patch in units, as for :func:`toponeuro.analysis.topography_table`.
    %(n_permutations)s
    %(alpha)s
    %(random_state)s
    label_permutations : int, optional
        Draws of the label null of each map's smoothness and of the units in its patches
        (the domain's images and the rest's labels shuffled, the map recomputed:
        :func:`toponeuro.analysis.contrast_topography`; patches found by the table's rules,
        ``threshold`` and ``min_units``); default ``n_permutations``; 0 skips it. The
        "selective topography" claims rest on it.

    Returns
    -------
    ModelTopography
        Selectivity maps, their topography table and each layer's dimensionality.

    Examples
    --------
    >>> from toponeuro import make_activations
    >>> from toponeuro.stimuli import FLOC_CATEGORIES
    >>> cats = [c for c in FLOC_CATEGORIES if c != "scrambled"] * 2
    >>> acts = make_activations({"conv": 64}, 20, categories=cats, random_state=0)
    >>> res = model_topography(acts, ["conv"], n_permutations=0)
    >>> res.selectivity.sizes["domain"], sorted(res.dimensionality)
    (5, ['conv'])
    """
    from ...analysis import (
        contrast_design,
        contrast_topography,
        domain_selectivity,
        effective_dimensionality,
        topography_table,
    )

    sel = domain_selectivity(acts, list(MAP_DOMAINS))
    maps = sel
    if sel.topo.position_units is not None:  # units at free positions: each layer's own
        maps = {ly: {str(d): sel.sel({D.DOMAIN: d}).topo.select(ly)  # geometry (grid or free)
                     for d in sel[D.DOMAIN].values} for ly in layers}
    topo = topography_table(maps, layers=layers, threshold=threshold, min_units=min_units,
                            n_permutations=n_permutations, alpha=alpha,
                            random_state=random_state)
    dims = {ly: float(effective_dimensionality(
        acts.topo.select(ly).transpose(D.STIMULUS, D.UNIT).values)) for ly in layers}
    n_label = n_permutations if label_permutations is None else label_permutations
    contrast = {}
    for ly in layers if n_label else ():
        for d in MAP_DOMAINS:
            design = contrast_design(acts, d, "rest", layer=ly)  # one design, two statistics
            kw = dict(n_permutations=n_label, alpha=alpha, random_state=random_state,
                      what=f"the {d} map")
            contrast[ly, d] = contrast_topography(design, statistic="smoothness", **kw)
            contrast[ly, d, "patch_units"] = contrast_topography(
                design, statistic="patch_units", threshold=threshold, min_units=min_units, **kw)
    return ModelTopography(sel, topo, dims, contrast)


@validate_fields({"maps": MAPPING})
class CortexTopography(NamedTuple):
    """The cortex's side of the map (:func:`cortex_topography`).

    Parameters
    ----------
    atlas : object
        The surface atlas the ROIs come from (None for your own maps).
    maps : dict
        Hemisphere -> the domains' maps on it (:class:`~toponeuro.atlases.CortexMaps`).
    topography : TopographyTable
        Smoothness, patches and map similarity (spin-test null) of every map.

    Examples
    --------
    >>> CortexTopography(atlas=None, maps={}, topography=None).maps
    {}
    """

    #: the surface atlas the ROIs come from (None for your own maps)
    atlas: object
    #: hemisphere -> the domains' maps on it (:class:`~toponeuro.atlases.CortexMaps`)
    maps: dict
    #: smoothness, patches and map similarity (spin-test null) of every map
    topography: object


@validate_params(dict(hemispheres=[Names(empty=False), None],
                      # the atlas's representations (toponeuro.atlases.cortex_maps)
                      representation=Options(("binary", "proximity"), error=UnknownNameError),
                      threshold=[Interval(numbers.Real), None], min_vertices=COUNT,
                      similarity_permutations=N_PERMUTATIONS, alpha=ALPHA, random_state=SEED))
@fill_doc
def cortex_topography(hemispheres: Sequence[str] | None = ("left", "right"), *,
                      cortex_maps=None, vol_to_surf=None, representation: str = "proximity",
                      threshold: float | None = None, min_vertices: int = 10,
                      similarity_permutations: int = 1000, alpha: float = 0.05,
                      random_state=0) -> CortexTopography:
    """The cortex's domain maps on fsaverage5's flat map, and their topography table.

    Without ``cortex_maps``: the visfAtlas domain ROIs (:data:`CORTEX_DOMAINS`), each as a
    continuous map (``representation="proximity"``, the default: its geodesic proximity
    ``exp(-d / 10 mm)``, 1 inside the ROI; see :func:`toponeuro.atlases.cortex_maps`) or as
    0/1 (``"binary"``). Their patches are the ROIs themselves (threshold 1, resp. 0.5, no
    smoothing) and get no null (fixed regions, smooth and patchy by construction).

    With ``cortex_maps`` (domain -> file(s), see :func:`toponeuro.atlases.load_cortex_maps`):
    your own maps in place of the atlas, patches at ``threshold``. Map similarities get the
    spin test with ``similarity_permutations`` rotations either way.

    Parameters
    ----------
    hemispheres : sequence of {"left", "right"}, optional
        None: both for the atlas, those your maps cover for ``cortex_maps``.
    cortex_maps : mapping or str, optional
        Your own maps (``{"faces": "faces.nii.gz"}``, ``"faces=lh.gii:rh.gii"``), or what
        :func:`toponeuro.atlases.load_cortex_maps` returned (hemisphere -> CortexMaps).
    %(vol_to_surf)s
    representation : {"proximity", "binary"}
        How atlas ROIs become maps.
    threshold : float, optional
        Patch threshold of your own maps (required with ``cortex_maps``; atlas ROIs use 1
        or 0.5).
    min_vertices : int
        Smallest patch, in vertices.
    similarity_permutations : int
        Rotations of the spin-test null of the map similarities (0: none).
    %(alpha)s
    %(random_state)s

    Returns
    -------
    CortexTopography
        The atlas (None for your maps), the maps per hemisphere and their topography table.

    Examples
    --------
    >>> res = cortex_topography(["left"], similarity_permutations=0)
    >>> sorted(res.maps), sorted(set(res.topography.table["name"]))
    (['left'], ['bodies', 'characters', 'faces', 'places'])
    >>> res.maps["left"].representation
    'proximity'
    """
    from ...analysis import topography_table
    from ...atlases import cortex_maps as atlas_maps
    from ...atlases import load_cortex_maps, load_visfatlas
    from ...exceptions import InvalidDataError
    from ...settings import cortex_maps_kind

    kind = cortex_maps_kind(cortex_maps)
    if kind != "atlas":
        if threshold is None:
            raise InvalidDataError(
                "Your own cortex maps need a patch threshold= in their units (e.g. 2 for t "
                "maps, TDANN's threshold)."
            )
        atlas = None
        maps = cortex_maps if kind == "loaded" else load_cortex_maps(
            cortex_maps, hemispheres=hemispheres, vol_to_surf=vol_to_surf)
        thr = float(threshold)
        _check_roi_threshold(maps, thr)
    else:
        atlas = load_visfatlas("fsaverage5")
        maps = atlas_maps(atlas, CORTEX_DOMAINS, hemispheres=hemispheres or ("left", "right"),
                          representation=representation)
        thr = 1.0 if representation == "proximity" else 0.5
    with use_null_cache():  # the spin draws of these maps: once per maps, mesh and seed
        topo = topography_table(maps, threshold=thr, min_units=min_vertices, smooth_sigma=0.0,
                                n_permutations=0, similarity_permutations=similarity_permutations,
                                alpha=alpha, random_state=random_state)
    return CortexTopography(atlas, maps, topo)


def _check_roi_threshold(maps, thr: float) -> None:
    """A 0/1 map (an ROI, the regions of a label file) has patches only at a threshold in
    (0, 1]: above 1 none, at or below 0 all of cortex -- a wrong answer, so an error."""
    from ...exceptions import InvalidDataError

    if 0 < thr <= 1:
        return
    for h, cm in maps.items():
        for name, vals in cm.maps.items():
            fin = np.asarray(vals, dtype=float)
            fin = fin[np.isfinite(fin)]
            if fin.size and np.isin(fin, (0.0, 1.0)).all():
                raise InvalidDataError(
                    f"cortex_maps[{name!r}] ({h} hemisphere) is a 0/1 map (an ROI, or regions "
                    f"of a label file), so at the patch threshold {thr:g} it has "
                    f"{'no patch' if thr > 1 else 'one patch, the whole cortex'}. Give a "
                    "threshold in (0, 1] for 0/1 maps: cortex.threshold=0.5 (and your value "
                    "maps as 0/1 ROIs too, or the ROIs as value maps, since one threshold "
                    "serves every map)."
                )


@fill_doc
@validate_params(dict(layers=Names(empty=False), hemispheres=Names(empty=False),
                      random_state=SEED, n_permutations=[N_PERMUTATIONS, None],
                      cortex_permutations=[N_PERMUTATIONS, None]))
def compare_model_cortex(model_topo, cortex_topo, layers: Sequence[str],
                         hemispheres: Sequence[str], *, random_state=0,
                         n_permutations: int | None = None,
                         cortex_permutations: int | None = None) -> dict:
    """``{(layer, hemisphere): table}``: :func:`toponeuro.analysis.compare_tables` of each
    model layer against each cortical hemisphere, with the arrangement of the domain
    centres and its shift and spin nulls.

    Parameters
    ----------
    model_topo : TopographyTable
        The model's table (``ModelTopography.topography``).
    cortex_topo : TopographyTable
        The cortex's table (``CortexTopography.topography``).
    layers : sequence of str
        The model layers compared.
    hemispheres : sequence of str
        The hemispheres compared.
    %(random_state)s
    %(n_permutations)s
        Here: draws of the arrangement's shift null (the job passes
        ``null.n_permutations``; None: as many as the model table's nulls had).
    cortex_permutations : int, optional
        Draws of its spin null (the job passes ``cortex.n_permutations``; None: as many as
        the cortex table's spin test had).

    Returns
    -------
    dict
        ``(layer, hemisphere)`` -> the :func:`toponeuro.analysis.compare_tables` table.

    Examples
    --------
    >>> import toponeuro.stimuli
    >>> ten = [c for c in toponeuro.stimuli.FLOC_CATEGORIES if c != "scrambled"]
    >>> acts = toponeuro.make_activations({"v1": 64, "v2": 81}, 30, random_state=1,
    ...                                   categories=ten * 3)
    >>> sheet = model_topography(acts, ["v1", "v2"], n_permutations=0).topography
    >>> rois = cortex_topography(["left"], similarity_permutations=0).topography
    >>> out = compare_model_cortex(sheet, rois, ["v1", "v2"], ["left"])
    >>> sorted(out), out["v1", "left"].attrs["arrangement"]["n_domains"]
    ([('v1', 'left'), ('v2', 'left')], 4)
    """
    from ...analysis import compare_tables

    with use_null_cache():  # the cortex maps' spin draws: once per maps, mesh and seed
        return {(ly, h): compare_tables(model_topo, ly, cortex_topo, h, random_state=random_state,
                                        n_permutations=n_permutations,
                                        cortex_permutations=cortex_permutations)
                for ly in layers for h in hemispheres}


@fill_doc
@validate_params(dict(net=TorchModule(), stimuli=STIMULUS_SET, layers=Names(empty=False),
                      n_permutations=N_PERMUTATIONS, random_state=SEED, batch_size=COUNT,
                      progress=Boolean()),
                 prefer_skip_nested_validation=False)  # device, the positions: extract's checks
def random_init_similarities(net, stimuli, layers: Sequence[str], *, n_permutations: int = 1000,
                             random_state=0, batch_size: int = 64, device: str = "cpu",
                             progress: bool = False, unit_positions=None,
                             position_units: str | None = None) -> dict:
    """The map similarities of ``net``'s architecture at random initialisation.

    Every layer's parameters are re-drawn by its own ``reset_parameters`` (PyTorch's default
    initialisation, seeded with ``random_state``) on a copy of ``net``; the same
    activations, selectivity contrast and map similarities (with their nulls) as the trained
    model follow. The selectivity contrast (each domain against the other four) builds in an
    anti-correlation between any two domains' maps, so a trained similarity means something
    only beside this value.

    Parameters
    ----------
    net : torch.nn.Module
        The trained network (left unchanged).
    stimuli : StimulusSet
        The stimuli the trained model's maps came from.
    layers : sequence of str
        The layers measured.
    %(n_permutations)s
    %(random_state)s
    batch_size : int
        Stimuli per forward pass (:func:`toponeuro.extract`).
    %(device)s
    %(progress)s
        Here: default ``False``.
    unit_positions : mapping, optional
        Free positions of the units of some layers, as for :func:`toponeuro.extract`.
    position_units : {"mm", "sheet"}, optional
        Unit of ``unit_positions``, as for :func:`toponeuro.extract`.

    Returns
    -------
    dict
        ``(layer, "faces-bodies")`` -> :class:`~toponeuro.analysis.NullResult`, for the
        pairs of :data:`toponeuro.analysis.DEFAULT_PAIRS`.

    Examples
    --------
    >>> from toponeuro.reporting import random_init_similarities
    >>> sims = random_init_similarities(net, stim, ["layer4.0.conv2"])  # doctest: +SKIP
    >>> float(sims["layer4.0.conv2", "faces-bodies"]) < 0  # doctest: +SKIP
    True
    """
    import copy

    import torch

    from ...analysis import DEFAULT_PAIRS, domain_selectivity, map_similarity
    from ...features import extract

    fresh = copy.deepcopy(net)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(int(check_random_state(random_state).integers(2**31)))
        for module in fresh.modules():
            if hasattr(module, "reset_parameters"):
                module.reset_parameters()
    acts = extract(fresh, stimuli, list(layers), pooling="mean", batch_size=batch_size,
                   device=device, progress=progress, unit_positions=unit_positions,
                   position_units=position_units)
    sel = domain_selectivity(acts, list(MAP_DOMAINS))
    out = {}
    for ly in layers:
        for a, b in DEFAULT_PAIRS:
            if a in sel[D.DOMAIN].values and b in sel[D.DOMAIN].values:
                out[ly, f"{a}-{b}"] = map_similarity(
                    sel.sel({D.DOMAIN: a}), sel.sel({D.DOMAIN: b}), "ssim", layer=ly,
                    n_permutations=n_permutations, random_state=random_state)
    return out
