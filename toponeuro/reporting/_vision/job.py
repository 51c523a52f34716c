"""``toponeuro map``: a model's category-selective topography next to the cortex's.

One function, :func:`run_map`, reads as the data flow: model -> stimuli -> activations ->
selectivity -> topography (model and cortex, each map measured once) -> report. Every call
in it is a public stage (:func:`toponeuro.training.load_model`, :func:`toponeuro.extract`,
the named stages of :mod:`._stages`); assembling the numbers into tables and files lives in
:mod:`._results`, drawing and writing in :mod:`._writer`.

This module orchestrates plotting too, so by the house rule (nothing imports ``plotting``
except entry points) it is an entry point itself: only :mod:`toponeuro.cli` imports it, and
``toponeuro.run_map`` reaches it through the lazy table of ``toponeuro/__init__.py``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import xarray as xr

from ..._util.docs import fill_doc
from ..._util.params import check_int, check_n_permutations
from ...analysis import TDANN_PATCHES, check_patch_params
from . import results as _results
from . import writer as _writer
from .._kit.constants import CORTEX_DOMAINS, DEFAULT_MAP_MODEL, MAP_DOMAINS
from .._kit.early import check_job_params
from .ruler import ruler_comparisons
from .stages import (
    _model_description,
    _warn_training_overlap,
    check_sheet_layers,
    compare_model_cortex,
    cortex_topography,
    load_map_stimuli,
    map_layers,
    model_topography,
    random_init_similarities,
    read_cortex_inputs,
    training_images,
)
from .terminal import format_summary

__all__ = ["run_map", "MapResult", "DEFAULT_MAP_MODEL", "MAP_DOMAINS", "CORTEX_DOMAINS"]

@dataclass
class MapResult:
    """What :func:`run_map` returns (and writes to ``out_dir``).

    Parameters
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
    comparison : dict
        ``(layer, hemisphere) ->`` the model-vs-cortex table of
        :func:`~toponeuro.analysis.compare_tables` (what
        :func:`~toponeuro.reporting.comparison_view` shows).
    ruler : dict
        ``(layer, hemisphere) ->`` :class:`~toponeuro.analysis.TopographyComparison`: every
        descriptor on both sides (:func:`~toponeuro.reporting.ruler_comparisons`).

    Examples
    --------
    >>> res = MapResult(summary={"model": {"name": "toponet_demo.v2_tau_50"}}, selectivity=None)
    >>> res.tables, res.files, res.comparison, res.ruler
    ({}, {}, {}, {})
    """

    summary: dict
    selectivity: xr.DataArray
    tables: dict = field(default_factory=dict)
    files: dict = field(default_factory=dict)
    comparison: dict = field(default_factory=dict)
    ruler: dict = field(default_factory=dict)


def _check_numbers(threshold, min_units, alpha, n_permutations, random_state, batch_size,
                   ruler_permutations) -> None:
    """The job's numeric parameters, checked before any slow step."""
    check_patch_params(threshold, min_units, alpha=alpha, n_permutations=n_permutations,
                       random_state=random_state)
    check_int(batch_size, "batch_size", lo=1)
    check_n_permutations(ruler_permutations, "ruler_permutations")


@fill_doc
def run_map(
    model: str = DEFAULT_MAP_MODEL,
    *,
    checkpoint: str | os.PathLike | None = None,
    trust_checkpoint: bool = False,
    stimuli="floc",
    numbers: Sequence[int] | str | None = None,
    layers: Sequence[str] | None = None,
    out_dir: str | os.PathLike = "toponeuro-map",
    overwrite: bool = False,
    threshold: float = TDANN_PATCHES["threshold"],
    min_units: int = TDANN_PATCHES["min_count"],
    cortex_min_vertices: int = 10,
    n_permutations: int = 1000,
    cortex_permutations: int = 1000,
    alpha: float = 0.05,
    hemispheres: Sequence[str] | None = None,
    cortex_maps=None,
    vol_to_surf=None,
    cortex_threshold: float | None = None,
    batch_size: int = 64,
    device: str = "cpu",
    random_state: int = 0,
    random_init_baseline: bool = True,
    unit_positions=None,
    position_units: str | None = None,
    ruler_permutations: int = 199,
    progress: bool = True,
    verbose: bool = True,
) -> MapResult:
    """Map a model's category-selective topography and compare it with the cortex.

    Extracts the activations of ``layers`` (spatially averaged, one unit per channel, laid
    on each layer's cortical sheet) for the fLoc images, computes the five domain
    selectivity maps (t, each domain against the other four), their smoothness, patches
    (``t >= threshold``) and map similarities, the effective dimensionality of each layer,
    and compares the sheet with the cortex: the visfAtlas domain ROIs on fsaverage5 (each
    as a continuous map, its geodesic proximity) or your own maps (``cortex_maps``). The
    model-vs-cortex comparison is the one ruler: every descriptor computed on both sides by
    :func:`toponeuro.analysis.compare_topography` for every layer and hemisphere (the atlas's
    ROIs as 0/1, so the descriptors a binary map does not define are left out and listed),
    each with its own null and a verdict; the report's headline is the comparison with the
    most evidence by the fixed rule of :func:`toponeuro.reporting.choose_headline`. The 0.4
    number, the arrangement of the domain centres
    (:func:`toponeuro.analysis.arrangement_comparison`, shift and spin nulls), stays as an
    extra row. Writes ``report.html``, PNG figures, ``results.nc``, ``summary.json``,
    ``comparison.csv`` and ``comparison_ruler.csv`` into ``out_dir``.

    Parameters
    ----------
    model : str
        Registered model name (default the shipped demo TopoNet
        :data:`DEFAULT_MAP_MODEL`); with ``checkpoint``, the architecture of a plain state
        dict.
    checkpoint : path-like, optional
        A checkpoint written by ``toponeuro train`` (rebuilt from its recipe by
        :func:`toponeuro.training.load_trained_model`) or a plain state dict for ``model``.
    %(trust_checkpoint)s
    stimuli : "floc", path-like or StimulusSet
        ``"floc"``: ``$TOPONEURO_DATA/floc`` if it exists, else the pinned download; a local
        fLoc folder; or a :class:`~toponeuro.stimuli.StimulusSet` with fLoc categories.
    numbers : sequence of int, str or None
        The fLoc image numbers per category. ``None``: for ``"floc"`` the held-out images
        97-120 of the demo TopoNets, for a folder every image in it; ``"all"``: every image;
        a range as text: ``"97-120"``. When the model's recipe (its card's ``recipe``, or
        the checkpoint's) names the fLoc images it was trained on and some of the stimuli
        are among them, a :class:`~toponeuro.exceptions.TrainingImagesWarning` says so, and
        so do the summary (``stimuli.training_images``) and the report.
    layers : list of str, optional
        Default: the last three TopoLoss layers of the model card (the last convolutions).
    out_dir : path-like
        Output folder (created; ``out=`` of 0.1 was removed in 0.3.0). Written as a hidden
        sibling folder and moved into place when complete: an interrupted run (Ctrl-C, an
        error) leaves an earlier output as it was and no half folder. A second run into the
        same folder while one is writing it gets
        :class:`~toponeuro.exceptions.OutputLockedError`. It may not be inside the
        ``stimuli`` folder.
    overwrite : bool
        Replace an earlier toponeuro output in ``out_dir`` (without it such a folder is
        refused before anything is computed). A non-empty folder toponeuro did not write is
        never replaced.
    threshold : float
        Patches are connected units with ``t >= threshold`` after TDANN's smoothing
        (default TDANN's t >= 2; see :func:`toponeuro.analysis.find_patches`).
    min_units : int
        Smallest model patch (units, TDANN: 10).
    cortex_min_vertices : int
        Smallest cortex patch (vertices).
    %(n_permutations)s
        Here: the spatial null of every model statistic (smoothness, patches, map
        similarity); only patches significant at ``alpha`` are reported.
    cortex_permutations : int
        Draws of the spin-test null of the cortical map similarities (do two domains' ROIs
        overlap more than rotated copies would?). The ROIs' smoothness and patches get no
        null: they are the atlas's fixed binary regions, smooth and patchy by construction,
        so a null says nothing about them (their p-values are NaN, shown as "–").
    %(alpha)s
        Here: of the patches and of every verdict and claim.
    hemispheres : sequence of {"left", "right"}, optional
        Cortical hemispheres compared (default: both for the atlas; for ``cortex_maps``,
        those the maps cover). The summary's ``cortex.source.hemispheres`` says which.
    cortex_maps : mapping or str, optional
        Your own cortical maps in place of the visfAtlas: domain -> an MNI NIfTI, a CIFTI-2
        ``.dscalar.nii``, a ``(left, right)`` pair of GIFTI or MGH files (fsaverage5/6,
        fsaverage or fs_LR 32k), arrays or nibabel images, or the text form
        ``"faces=lh.gii:rh.gii,bodies=b.nii.gz"``
        (:func:`toponeuro.atlases.load_cortex_maps`; read and checked before the model
        runs; the files and projection parameters are recorded in ``summary.json`` under
        ``cortex.source``).
    %(vol_to_surf)s
    cortex_threshold : float, optional
        Patch threshold of ``cortex_maps`` (default ``threshold``).
    batch_size : int
        Stimuli per forward pass of the extraction (:func:`toponeuro.extract`).
    %(device)s
    %(random_state)s
        Here: the seed of the smoothness sampling and of every null.
    random_init_baseline : bool
        Also measure the map similarities of the same architecture at random
        initialisation (:func:`random_init_similarities`) and show them beside the trained
        ones: the selectivity contrast (each domain against the other four) builds in an
        anti-correlation between domains' maps, so a trained value alone can mislead. It
        costs a second extraction and its nulls; ``False`` (``--no-random-init``) skips it,
        and the report, the sentences and ``summary.json`` (``random_init_baseline``,
        ``random_init_note``) then say that it was not computed.
    unit_positions : mapping, optional
        Free positions of the units of some layers (TDANN-style models): ``{layer:
        (n_units, 2) array of (x, y), or a path to a .npy file of one or a .csv/.tsv with
        columns unit, x, y}`` (one unit per channel: the activations are spatially averaged;
        see :func:`toponeuro.read_unit_positions`). Every statistic of those layers then
        measures distances between these positions, and their maps are drawn as scatters.
        Default: the model card's ``unit_positions``, if any.
    position_units : {"mm", "sheet"}, optional
        Unit of ``unit_positions`` (default the card's, else ``"mm"``).
    ruler_permutations : int
        Draws of each side's null in the one-ruler comparison
        (:func:`toponeuro.analysis.compare_topography`: every descriptor on the sheet and on
        the cortex, the report's headline). Default 199: its smallest p, 0.005, reaches any
        usual ``alpha``, and each draw recomputes TDANN's smoothing and patches of every
        domain map on the 10,242-vertex cortex (about 0.04 s per map and draw); 0 skips the
        nulls (each row is then judged by the values and their tolerance alone, and none
        can be the headline).
    %(progress)s
    verbose : bool
        Print the summary table.

    Returns
    -------
    MapResult
        The summary, selectivity maps, tables, comparisons and the files written.

    Raises
    ------
    UnknownNameError
        Unknown model or layer, or domain categories absent from the stimuli.
    SheetError
        A layer with too few units for a sheet.
    DownloadError
        The fLoc images cannot be downloaded (the message says how to pass a local copy as
        ``stimuli``).
    OutputExistsError
        ``out_dir`` holds an earlier output and ``overwrite`` is False, or files toponeuro
        did not write.
    OutputLockedError
        Another run is writing ``out_dir``.

    Examples
    --------
    >>> import toponeuro
    >>> res = toponeuro.run_map(stimuli="/path/to/floc", out_dir="map-out")  # doctest: +SKIP
    >>> res.summary["per_layer"]["layer4.0.conv2"]["smoothness"]["faces"]  # doctest: +SKIP
    0.05
    """
    from tqdm.auto import tqdm

    from ...features import extract
    from ...training import load_model

    # every parameter checked before the first (slow) step, so a bad one fails at once
    check_job_params(flags={"overwrite": overwrite, "trust_checkpoint": trust_checkpoint,
                            "random_init_baseline": random_init_baseline,
                            "progress": progress, "verbose": verbose},
                     model=model, device=device, checkpoint=checkpoint, stimuli=stimuli,
                     numbers=numbers, layers=layers)
    _check_numbers(threshold, min_units, alpha, n_permutations, random_state, batch_size,
                   ruler_permutations)
    yours = read_cortex_inputs(cortex_maps, hemispheres=hemispheres, vol_to_surf=vol_to_surf,
                               domains=MAP_DOMAINS, cortex_min_vertices=cortex_min_vertices,
                               cortex_permutations=cortex_permutations,
                               cortex_threshold=cortex_threshold)
    cortex_threshold = threshold if cortex_threshold is None else cortex_threshold
    with _writer.output_folder(out_dir, overwrite=overwrite, kind="map",
                               inputs=(checkpoint, stimuli, yours.files,
                                       unit_positions or {})) as folder:
        t0 = time.perf_counter()
        steps = tqdm(total=6, desc="toponeuro map", disable=not progress, unit="step")
        try:  # an error closes the bar first, so its message gets a line of its own
            steps.set_postfix_str("model")
            net = load_model(model, checkpoint=checkpoint, trust_checkpoint=trust_checkpoint)
            layers = map_layers(net.model_card, layers)
            steps.update()

            steps.set_postfix_str("stimuli")
            stim, stim_source = load_map_stimuli(stimuli, numbers, progress=progress)
            train = training_images(net, stim)
            _warn_training_overlap(train, len(stim))
            steps.update()

            steps.set_postfix_str("activations")
            acts = extract(net, stim, layers, pooling="mean", batch_size=batch_size,
                           device=device, progress=progress, unit_positions=unit_positions,
                           position_units=position_units)
            check_sheet_layers(acts, layers)
            steps.update()

            steps.set_postfix_str("topography")
            model_side = model_topography(acts, layers, threshold=threshold,
                                          min_units=min_units, n_permutations=n_permutations,
                                          alpha=alpha, random_state=random_state)
            random_init = None
            if random_init_baseline:
                random_init = random_init_similarities(
                    net, stim, layers, n_permutations=n_permutations,
                    random_state=random_state, batch_size=batch_size, device=device,
                    progress=False, unit_positions=unit_positions,
                    position_units=position_units)
            steps.update()

            steps.set_postfix_str("cortex")
            cortex = cortex_topography(
                hemispheres, cortex_maps=yours.maps, vol_to_surf=vol_to_surf,
                threshold=cortex_threshold, min_vertices=cortex_min_vertices,
                similarity_permutations=cortex_permutations, alpha=alpha,
                random_state=random_state)
            comparison = compare_model_cortex(model_side.topography, cortex.topography, layers,
                                              list(cortex.maps), random_state=random_state)
            ruler = ruler_comparisons(model_side.selectivity, layers, cortex,
                                      n_permutations=ruler_permutations, alpha=alpha,
                                      random_state=random_state, activations=acts)
            steps.update()

            steps.set_postfix_str("report")
            inputs = _results.MapInputs(
                card=net.model_card, model_desc=_model_description(net, model, checkpoint),
                stimuli=stim, stimuli_source=stim_source, layers=tuple(layers),
                threshold=threshold, min_units=min_units, alpha=alpha,
                training_images=train)
            res = _results.assemble(inputs, acts, model_side, cortex, comparison,
                                    random_init=random_init, ruler=ruler)
            files = _writer.write_report(folder.path, res, atlas=cortex.atlas, t0=t0,
                                         cortex=cortex.maps)
            steps.update()
        finally:
            steps.close()
    files = folder.final_paths(files)
    if verbose:
        print(format_summary(res.summary))
        print(f"\nReport: {files['report.html']}")
    return MapResult(summary=res.summary, selectivity=res.selectivity, tables=res.tables,
                     files={k: str(v) for k, v in files.items()}, comparison=comparison,
                     ruler=ruler)
