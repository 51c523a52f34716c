"""``toponeuro map``: a model's category-selective topography next to the cortex's.

One function, :func:`run_map`, reads as the data flow: model -> stimuli -> activations ->
selectivity -> topography (model and cortex, each map measured once) -> report. Everything
it calls is public API of the stages; assembling the numbers into tables and files lives in
:mod:`._results`, drawing and writing in :mod:`._writer`.

This module orchestrates plotting too, so by the house rule (nothing imports ``plotting``
except entry points) it is an entry point itself: only :mod:`toponeuro.cli` imports it, and
``toponeuro.run_map`` reaches it through the lazy table of ``toponeuro/__init__.py``.
"""

from __future__ import annotations

import os
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import xarray as xr

from .. import _dims as D
from .._deprecate import renamed_parameter
from ..analysis import TDANN_PATCHES
from ..exceptions import DownloadError, SheetError, TrainingImagesWarning, UnknownNameError
from . import _results, _writer
from ._constants import (
    CORTEX_DOMAINS,
    DEFAULT_MAP_MODEL,
    DEFAULT_NUMBERS,
    FLOC_NONSCRAMBLED,
    MAP_DOMAINS,
)

__all__ = ["run_map", "MapResult", "DEFAULT_MAP_MODEL", "MAP_DOMAINS", "CORTEX_DOMAINS"]

_HINT = (
    "toponeuro map needs the fLoc localizer images. Offline, point it at a local copy: "
    "`toponeuro map --stimuli /path/to/floc` (a folder with one sub-folder per category, "
    "e.g. floc/adult/adult-1.jpg), or put the copy at $TOPONEURO_DATA/floc."
)


@dataclass
class MapResult:
    """What :func:`run_map` returns (and writes to ``out_dir``).

    Attributes
    ----------
    summary : dict
        The content of ``summary.json``.
    selectivity : xarray.DataArray
        Domain selectivity maps, dims ``("domain", "unit")`` with unit coords.
    tables : dict of pandas.DataFrame
        ``"model"`` (per layer and domain), ``"similarity"`` (per layer and pair),
        ``"cortex"`` (per hemisphere and domain), ``"comparison"`` (model vs cortex, per
        layer and hemisphere).
    files : dict
        Name -> path of every file written.

    Examples
    --------
    >>> res = MapResult(summary={"model": {"name": "toponet_demo.v2_tau_50"}}, selectivity=None)
    >>> res.tables, res.files
    ({}, {})
    """

    summary: dict
    selectivity: xr.DataArray
    tables: dict = field(default_factory=dict)
    files: dict = field(default_factory=dict)


def _load_model(model: str, checkpoint, trust_checkpoint: bool = False):
    """``(module, description)`` of a registered name or a checkpoint file."""
    from ..models import create_model, model_card
    from ..training import load_trained_model

    if checkpoint is not None:
        net = load_trained_model(checkpoint, model=model, trust_checkpoint=trust_checkpoint)
        what = net.model_card.description or f"as {model}"
        return net, f"{checkpoint} ({what}, sha256 {net.weights_sha256})"
    try:
        card = model_card(model)
    except UnknownNameError as err:
        raise UnknownNameError(
            f"{err} Use --model NAME (toponeuro.models.list_models()) or --checkpoint FILE."
        ) from None
    net = create_model(model, pretrained=card.has_weights)
    return net, f"{model} (weights sha256 {net.weights_sha256})"


def _load_stimuli(stimuli, numbers, progress: bool):
    """``(StimulusSet, source)``: a given set, a local fLoc folder, or the fLoc images."""
    from ..stimuli import StimulusSet, load_floc, local_floc_copy

    if isinstance(stimuli, StimulusSet):
        return stimuli, f"StimulusSet {stimuli.name!r}"
    if stimuli in (None, "floc"):
        path = local_floc_copy()
        source = f"local copy {path}" if path is not None else "pinned download (VPNL/fLoc)"
        numbers = DEFAULT_NUMBERS if numbers is None else numbers
    else:
        path, source = Path(stimuli), f"local copy {stimuli}"
        if not path.is_dir():
            raise FileNotFoundError(f"--stimuli {stimuli!r} is neither 'floc' nor a folder. {_HINT}")
    if isinstance(numbers, str):  # "all" or a range "97-120"
        first, _, last = numbers.partition("-")
        numbers = None if numbers == "all" else list(range(int(first), int(last or first) + 1))
    try:
        stim = load_floc(path, categories=list(FLOC_NONSCRAMBLED), numbers=numbers,
                         progress=progress)
    except DownloadError as err:
        raise DownloadError(f"{_HINT}\n(download failed: {err})") from err
    return stim, source


def _training_images(net, stim) -> dict | None:
    """Which fLoc images the model was trained on (its recipe's ``data``), and how many of
    ``stim`` are among them; ``None`` when no recipe says (e.g. the paper's ImageNet models).

    The recipe is the checkpoint's own (``net.recipe``) or the shipped one its card names.
    """
    from ..exceptions import RecipeError
    from ..training import load_recipe

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
    if train and train["n_overlap"]:
        lo, hi = train["numbers"]
        fix = (f"pass numbers='{train['held_out'][0]}-{train['held_out'][1]}'"
               if train["held_out"] else f"choose numbers outside {lo}-{hi}")
        warnings.warn(TrainingImagesWarning(
            f"{train['n_overlap']} of the {n_stimuli} stimuli are images the model was trained "
            f"on (recipe {train['recipe']}: fLoc images {lo}-{hi}); what is measured on them "
            f"is not held-out. For held-out images only, {fix}."), stacklevel=4)


@renamed_parameter("out", "out_dir")
def run_map(
    model: str = DEFAULT_MAP_MODEL,
    *,
    checkpoint: str | os.PathLike | None = None,
    trust_checkpoint: bool = False,
    stimuli="floc",
    numbers: Sequence[int] | str | None = None,
    layers: Sequence[str] | None = None,
    out_dir: str | os.PathLike = "toponeuro-map",
    threshold: float = TDANN_PATCHES["threshold"],
    min_units: int = TDANN_PATCHES["min_count"],
    cortex_min_vertices: int = 10,
    n_permutations: int = 1000,
    cortex_permutations: int = 1000,
    alpha: float = 0.05,
    hemispheres: Sequence[str] = ("left", "right"),
    batch_size: int = 64,
    device: str = "cpu",
    random_state: int = 0,
    progress: bool = True,
    verbose: bool = True,
) -> MapResult:
    """Map a model's category-selective topography and compare it with the cortex.

    Extracts the activations of ``layers`` (spatially averaged, one unit per channel, laid
    on each layer's cortical sheet) for the fLoc images, computes the five domain
    selectivity maps (t, each domain against the other four), their smoothness, patches
    (``t >= threshold``) and map similarities, the effective dimensionality of each layer,
    and compares the sheet with the visfAtlas domain ROIs on fsaverage5 (flat-map
    coordinates). Writes ``report.html``, PNG figures, ``results.nc``, ``summary.json`` and
    ``comparison.csv`` into ``out_dir``.

    Parameters
    ----------
    model : str
        Registered model name (default the shipped demo TopoNet
        :data:`DEFAULT_MAP_MODEL`); with ``checkpoint``, the architecture of a plain state
        dict.
    checkpoint : path-like, optional
        A checkpoint written by ``toponeuro train`` (rebuilt from its recipe by
        :func:`toponeuro.training.load_trained_model`) or a plain state dict for ``model``.
    trust_checkpoint : bool
        Also read a checkpoint that pickles arbitrary objects (runs its code; see
        :func:`~toponeuro.training.load_trained_model`).
    stimuli : "floc", path-like or StimulusSet
        ``"floc"``: ``$TOPONEURO_DATA/floc`` if it exists, else the pinned download; a local
        fLoc folder; or a :class:`~toponeuro.stimuli.StimulusSet` with fLoc categories.
    numbers : sequence of int, str or None
        fLoc image numbers per category. ``None``: for ``"floc"`` the held-out images
        97-120 of the demo TopoNets, for a folder every image in it; ``"all"``: every image;
        a range as text: ``"97-120"``. When the model's recipe (its card's ``recipe``, or
        the checkpoint's) names the fLoc images it was trained on and some of the stimuli
        are among them, a :class:`~toponeuro.exceptions.TrainingImagesWarning` says so, and
        so do the summary (``stimuli.training_images``) and the report.
    layers : list of str, optional
        Default: the last three TopoLoss layers of the model card (the last convolutions).
    out_dir : path-like
        Output folder (created). Was ``out`` (deprecated, one release).
    threshold : float
        Patches are connected units with ``t >= threshold`` after TDANN's smoothing
        (default TDANN's t >= 2; see :func:`toponeuro.analysis.find_patches`).
    min_units : int
        Smallest model patch (units, TDANN: 10); ``cortex_min_vertices`` for the cortex.
    n_permutations : int
        Draws of the spatial null of every model statistic (smoothness, patches, map
        similarity); only patches significant at ``alpha`` are reported.
    cortex_permutations : int
        Draws of the spin-test null of the cortical map similarities (do two domains' ROIs
        overlap more than rotated copies would?). The ROIs' smoothness and patches get no
        null: they are the atlas's fixed binary regions, smooth and patchy by construction,
        so a null says nothing about them (their p-values are NaN, shown as "–").
    alpha : float
        Significance level of patches.
    hemispheres : sequence of {"left", "right"}
        Cortical hemispheres compared.
    batch_size, device : extraction settings.
    random_state : int
        Seed of the smoothness sampling.
    progress, verbose : bool
        Progress bars; print the summary table.

    Returns
    -------
    MapResult

    Raises
    ------
    UnknownNameError
        Unknown model or layer, or domain categories absent from the stimuli.
    SheetError
        A layer with too few units for a sheet.
    DownloadError
        The fLoc images cannot be downloaded (the message says how to use ``--stimuli``).

    Examples
    --------
    >>> import toponeuro
    >>> res = toponeuro.run_map(stimuli="/path/to/floc", out_dir="map-out")  # doctest: +SKIP
    >>> res.summary["per_layer"]["layer4.0.conv2"]["smoothness"]["faces"]  # doctest: +SKIP
    0.05
    """
    from tqdm.auto import tqdm

    from ..analysis import (
        MIN_SHEET_UNITS,
        compare_tables,
        domain_selectivity,
        effective_dimensionality,
        topography_table,
    )
    from ..atlases import cortex_maps, load_visfatlas
    from ..features import extract

    t0 = time.perf_counter()
    steps = tqdm(total=6, desc="toponeuro map", disable=not progress, unit="step")

    steps.set_postfix_str("model")
    net, model_desc = _load_model(model, checkpoint, trust_checkpoint)
    card = net.model_card
    if layers is None:
        if not card.topo_layers:
            raise UnknownNameError(f"{card.name!r} names no TopoLoss layers; pass --layers.")
        layers = list(card.topo_layers[-3:])
    layers = [layers] if isinstance(layers, str) else list(layers)
    steps.update()

    steps.set_postfix_str("stimuli")
    stim, stim_source = _load_stimuli(stimuli, numbers, progress)
    train = _training_images(net, stim)
    _warn_training_overlap(train, len(stim))
    steps.update()

    steps.set_postfix_str("activations")
    acts = extract(net, stim, layers, pooling="mean", batch_size=batch_size, device=device,
                   progress=progress)
    for layer in layers:
        h, w = acts.topo.sheet_shape(layer)
        if h * w < MIN_SHEET_UNITS or h < 2 or w < 2:
            raise SheetError(
                f"Layer {layer!r} has {h * w} units ({h} x {w} sheet); a selectivity map needs "
                f"at least {MIN_SHEET_UNITS} units on a sheet at least 2 x 2. Pick wider layers "
                "with --layers (e.g. the last convolutions)."
            )
    steps.update()

    steps.set_postfix_str("topography")
    sel = domain_selectivity(acts, list(MAP_DOMAINS))
    model_topo = topography_table(sel, layers=layers, threshold=threshold, min_units=min_units,
                                  n_permutations=n_permutations, alpha=alpha,
                                  random_state=random_state)
    dims = {ly: float(effective_dimensionality(
        acts.topo.select(ly).transpose(D.STIMULUS, D.UNIT).values)) for ly in layers}
    steps.update()

    steps.set_postfix_str("cortex")
    atlas = load_visfatlas("fsaverage5")
    cortex = cortex_maps(atlas, CORTEX_DOMAINS, hemispheres=hemispheres)
    cortex_topo = topography_table(cortex, threshold=0.5, min_units=cortex_min_vertices,
                                   smooth_sigma=0.0, n_permutations=0,
                                   similarity_permutations=cortex_permutations, alpha=alpha,
                                   random_state=random_state)
    comparison = {(ly, h): compare_tables(model_topo, ly, cortex_topo, h)
                  for ly in layers for h in cortex}
    steps.update()

    steps.set_postfix_str("report")
    res = _results.assemble(
        card=card, model_desc=model_desc, stim=stim, stim_source=stim_source, acts=acts,
        sel=sel, layers=layers, model_topo=model_topo, cortex_topo=cortex_topo, dims=dims,
        comparison=comparison, threshold=threshold, min_units=min_units, alpha=alpha,
        training_images=train,
    )
    files = _writer.write_report(Path(out_dir), res, atlas=atlas, t0=t0)
    steps.update()
    steps.close()
    if verbose:
        print(_results.format_summary(res.summary))
        print(f"\nReport: {files['report.html']}")
    return MapResult(summary=res.summary, selectivity=sel, tables=res.tables,
                     files={k: str(v) for k, v in files.items()})
