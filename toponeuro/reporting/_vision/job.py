"""``toponeuro map``: a model's category-selective topography next to the cortex's.

:func:`run_map` checks its parameters and runs :class:`_MapJob`, the vision job's stages
filled into the one job skeleton of both jobs (:func:`~.._kit.job.run_job`): model
(:func:`toponeuro.models.load_model`) -> stimuli -> maps (activations) -> topography
(selectivity, each map measured once) -> cortex -> compare -> write. Every call in a stage
is a public stage (:func:`toponeuro.extract`, the named stages of :mod:`.stages`); assembling the numbers into tables and the typed
report (:class:`~.._kit.report.MapReport`) lives in :mod:`.results`, drawing and writing in
:mod:`.writer`, the end-of-job files in :mod:`.._kit.files`.

This module orchestrates plotting too, so by the house rule (nothing imports ``plotting``
except entry points) it is an entry point itself: only :mod:`toponeuro.cli` imports it, and
``toponeuro.run_map`` reaches it through the lazy table of ``toponeuro/__init__.py``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..._util.constraints import MAPPING, STIMULUS_SET
from ..._util.docs import fill_doc
from ..._util.frozen import validate_fields
from ..._util.params import Boolean, PathLike, validate_params
from ...settings import (
    CortexInput,
    Extraction,
    FlocStimuli,
    ModelSource,
    NullSettings,
    PatchRule,
    RulerRun,
)
from .._kit.constants import CORTEX_DOMAINS, DEFAULT_MAP_MODEL, MAP_DOMAINS
from .._kit.early import check_job_params
from .._kit.job import (
    JOB_PARAMS,
    JobStages,
    cortex_stage_keywords,
    load_job_model,
    run_job,
    settings_param,
)
from .._kit.result import JobResult
from .._kit.settings import job_settings
from . import results as _results
from . import writer as _writer
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


@dataclass(kw_only=True)
@validate_fields({"comparison": MAPPING, "ruler": MAPPING})
class MapResult(JobResult):
    """What :func:`run_map` returns (and writes to ``out_dir``): the one result shape of both
    jobs (:class:`~toponeuro.reporting.LanguageMapResult` alike), and the vision job's own.

    Parameters
    ----------
    report : MapReport
        Every number and sentence of the run, typed; ``summary.json`` is
        ``report.to_summary()`` (also :attr:`summary`).
    selectivity : xarray.DataArray
        Domain selectivity maps, dims ``("domain", "unit")`` with unit coords.
    tables : dict of pandas.DataFrame
        ``"model"`` (per layer and domain), ``"similarity"`` (per layer and pair),
        ``"cortex"`` (per hemisphere and domain), ``"comparison"`` (model vs cortex, per
        layer and hemisphere).
    files : dict
        Name -> path of every file written.
    out_dir : str, optional
        The output folder.
    timings : dict
        Stage of the job skeleton -> the seconds it took.
    comparison : dict
        ``(layer, hemisphere) ->`` the model-vs-cortex table of
        :func:`~toponeuro.analysis.compare_tables` (what
        :func:`~toponeuro.reporting.comparison_view` shows).
    ruler : dict
        ``(layer, hemisphere) ->`` :class:`~toponeuro.analysis.TopographyComparison`: every
        descriptor on both sides (:func:`~toponeuro.reporting.ruler_comparisons`).

    Attributes
    ----------
    summary : dict
        The content of ``summary.json``.

    Examples
    --------
    ``res`` is what :func:`run_map` returned:

    >>> res = run_map(stimuli="/path/to/floc", out_dir="map-out")  # doctest: +SKIP
    >>> res.report.setting("null.alpha") == res.summary["settings"]["null"]["alpha"]  # doctest: +SKIP
    True
    >>> sorted(MapResult.__dataclass_fields__)  # doctest: +NORMALIZE_WHITESPACE
    ['comparison', 'files', 'out_dir', 'report', 'ruler', 'selectivity', 'tables', 'timings']
    """

    comparison: dict = field(default_factory=dict)
    ruler: dict = field(default_factory=dict)


@fill_doc
@validate_params(dict(JOB_PARAMS,
                      stimuli=[PathLike(), STIMULUS_SET, settings_param(FlocStimuli), None],
                      random_init_baseline=Boolean()),
                 prefer_skip_nested_validation=False)  # the 0.4 keywords: checked as they apply
def run_map(
    model: str | ModelSource = DEFAULT_MAP_MODEL,
    *,
    stimuli: str | os.PathLike | FlocStimuli = "floc",
    layers: Sequence[str] | None = None,
    out_dir: str | os.PathLike = "toponeuro-map",
    overwrite: bool = False,
    null: NullSettings = NullSettings(),
    patches: PatchRule = PatchRule(),
    cortex: CortexInput = CortexInput(),
    ruler: RulerRun = RulerRun(n_permutations=199),
    extraction: Extraction = Extraction(),
    random_init_baseline: bool = True,
    verbose: int = 2,
    **old_keywords,
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
    model : str or ModelSource
        Registered model name (default the shipped demo TopoNet
        :data:`DEFAULT_MAP_MODEL`), or a :class:`~toponeuro.settings.ModelSource`: the name
        with a checkpoint (written by ``toponeuro train``, rebuilt from its recipe by
        :func:`toponeuro.training.load_trained_model`, or a plain state dict for the name),
        ``trust_checkpoint`` and free ``unit_positions`` of some layers (TDANN-style models;
        default the card's: every statistic of those layers then measures distances between
        these positions, and their maps are drawn as scatters).
    stimuli : "floc", path-like, StimulusSet or FlocStimuli
        ``"floc"``: ``$TOPONEURO_DATA/floc`` if it exists, else the pinned download; a local
        fLoc folder; or a :class:`~toponeuro.stimuli.StimulusSet` with fLoc categories. To
        choose the images, a :class:`~toponeuro.settings.FlocStimuli`:
        ``FlocStimuli("floc", numbers="97-120")`` (its ``numbers``: the fLoc image numbers
        per category; ``None``, the default: for ``"floc"`` the held-out images 97-120 of
        the demo TopoNets, for a folder every image in it; ``"all"``: every image; 0.4's
        ``numbers=`` keyword sets it, with a FutureWarning). When the model's recipe (its
        card's ``recipe``, or the checkpoint's) names the fLoc images it was trained on and
        some of the stimuli are among them, a
        :class:`~toponeuro.exceptions.TrainingImagesWarning` says so, and so do the summary
        (``stimuli.training_images``) and the report.
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
    null : NullSettings
        The spatial null of every model statistic (smoothness, patches, map similarity):
        its draws, the significance level of the patches and of every verdict and claim,
        and the seed of the smoothness sampling and of every null
        (:class:`~toponeuro.settings.NullSettings`; only patches significant at ``alpha``
        are reported).
    patches : PatchRule
        Patches are connected units with ``t >= threshold`` after TDANN's smoothing, of at
        least ``min_units`` units (:class:`~toponeuro.settings.PatchRule`, default TDANN's
        t >= 2 and 10 units; see :func:`toponeuro.analysis.find_patches`).
    cortex : CortexInput
        The cortex side (:class:`~toponeuro.settings.CortexInput`): the visfAtlas domain
        ROIs on fsaverage5 (each as its geodesic proximity) or your own ``maps`` (read by
        :func:`toponeuro.atlases.load_cortex_maps` and checked before the model runs; their
        files and projection are recorded in ``summary.json`` under ``cortex.source``), the
        ``hemispheres`` compared (the summary's ``cortex.source.hemispheres`` says which),
        ``vol_to_surf`` for MNI volumes, the patch ``threshold`` of your maps (default
        ``patches.threshold``), ``min_vertices`` and the spin test's ``n_permutations``
        (do two domains' ROIs overlap more than rotated copies would?). The ROIs'
        smoothness and patches get no null: they are the atlas's fixed binary regions.
    ruler : RulerRun
        The one-ruler comparison (:func:`toponeuro.analysis.compare_topography`: every
        descriptor on the sheet and on the cortex, the report's headline):
        ``n_permutations`` draws of each side's null (default 199: its smallest p, 0.005,
        reaches any usual ``alpha``; each draw recomputes TDANN's smoothing and patches of
        every domain map on the 10,242-vertex cortex; 0 skips the nulls and no row can be
        the headline) and the descriptors' :class:`~toponeuro.settings.RulerSettings`.
    extraction : Extraction
        Batch size and device of the extraction (:func:`toponeuro.extract`).
    random_init_baseline : bool
        Also measure the map similarities of the same architecture at random
        initialisation (:func:`random_init_similarities`) and show them beside the trained
        ones: the selectivity contrast (each domain against the other four) builds in an
        anti-correlation between domains' maps, so a trained value alone can mislead. It
        costs a second extraction and its nulls; ``False`` (``--no-random-init``) skips it,
        and the report, the sentences and ``summary.json`` (``random_init_baseline``,
        ``random_init_note``) then say that it was not computed.
    %(verbose_job)s
    **old_keywords
        The 0.4 keywords (``n_permutations=``, ``numbers=``, ``cortex_maps=``,
        ``checkpoint=``, ``progress=`` ...), until
        0.6: each warns (FutureWarning) and sets the settings field that replaced it
        (``toponeuro.settings.OLD_KEYWORDS``). The whole settings are recorded in
        ``summary.json`` under ``settings``, by the fields' names.

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
    >>> from toponeuro.settings import NullSettings
    >>> res = toponeuro.run_map(stimuli="/path/to/floc", out_dir="map-out",
    ...                         null=NullSettings(n_permutations=199))  # doctest: +SKIP
    >>> res.summary["per_layer"]["layer4.0.conv2"]["smoothness"]["faces"]  # doctest: +SKIP
    0.05
    >>> from toponeuro.settings import FlocStimuli
    >>> res = toponeuro.run_map(stimuli=FlocStimuli("/path/to/floc", numbers="97-120"),
    ...                         verbose=1)  # doctest: +SKIP
    >>> list(res.timings)  # doctest: +SKIP
    ['model', 'stimuli', 'maps', 'topography', 'cortex', 'compare', 'write']
    """
    # every parameter checked before the first (slow) step (each settings object, when made)
    src, stim, null, patches, cortex, ruler, extraction, verbose, settings = job_settings(
        "run_map", model, DEFAULT_MAP_MODEL, old_keywords, ruler_draws=199, stimuli=stimuli,
        verbose=verbose, null=null, patches=patches, cortex=cortex, ruler=ruler,
        extraction=extraction).values()
    check_job_params(model=src.name, checkpoint=src.checkpoint, stimuli=stim.source,
                     numbers=stim.numbers)
    job = _MapJob(src, stim, layers, null=null, patches=patches, cortex=cortex, ruler=ruler,
                  extraction=extraction, random_init_baseline=random_init_baseline,
                  settings=settings, verbose=verbose)
    return run_job(job, out_dir=out_dir, overwrite=overwrite, verbose=verbose,
                   inputs=(src.checkpoint, stim.source, job.yours.files,
                           src.unit_positions or {}))


class _MapJob(JobStages):
    """:func:`run_map`'s stages, filled into the one job skeleton (:func:`run_job`)."""

    title, kind = "toponeuro map", "map"

    def __init__(self, src: ModelSource, stim: FlocStimuli, layers, *, null: NullSettings,
                 patches: PatchRule, cortex: CortexInput, ruler: RulerRun,
                 extraction: Extraction, random_init_baseline: bool, settings: dict,
                 verbose: int) -> None:
        super().__init__()
        self.src, self.spec, self.layers = src, stim, layers
        self.null, self.patches, self.cortex_input, self.ruler = null, patches, cortex, ruler
        self.random_init_baseline, self.settings = random_init_baseline, settings
        self.progress = verbose >= 2
        self.yours = read_cortex_inputs(cortex, domains=MAP_DOMAINS)  # checked before the model
        self.fwd = {"batch_size": extraction.batch_size, "device": extraction.device,  # extract()'s
                    "unit_positions": src.unit_positions, "position_units": src.position_units}

    def model(self) -> None:
        self.net = load_job_model(self.src)
        self.layers = map_layers(self.net.model_card, self.layers)

    def stimuli(self) -> None:
        self.stim, self.stim_source = load_map_stimuli(self.spec.source, self.spec.numbers,
                                                       progress=self.progress)
        self.train = training_images(self.net, self.stim)
        _warn_training_overlap(self.train, len(self.stim))

    def maps(self) -> None:
        from ...features import extract

        self.acts = extract(self.net, self.stim, self.layers, pooling="mean",
                            progress=self.progress, **self.fwd)
        check_sheet_layers(self.acts, self.layers)

    def topography(self) -> None:
        null, patches = self.null, self.patches
        self.model_side = model_topography(
            self.acts, self.layers, threshold=patches.threshold, min_units=patches.min_units,
            n_permutations=null.n_permutations, alpha=null.alpha,
            random_state=null.random_state)
        self.random_init = None
        if self.random_init_baseline:
            self.random_init = random_init_similarities(
                self.net, self.stim, self.layers, n_permutations=null.n_permutations,
                random_state=null.random_state, progress=False, **self.fwd)

    def cortex(self) -> None:
        self.cortex_side = cortex_topography(
            **cortex_stage_keywords(self.cortex_input, self.null, self.yours.maps))

    def compare(self) -> None:
        null, side = self.null, self.cortex_side
        self.comparison = compare_model_cortex(
            self.model_side.topography, side.topography, self.layers, list(side.maps),
            random_state=null.random_state, n_permutations=null.n_permutations,
            cortex_permutations=self.cortex_input.n_permutations)
        self.rulers = ruler_comparisons(
            self.model_side.selectivity, self.layers, side,
            n_permutations=self.ruler.n_permutations, alpha=null.alpha,
            random_state=null.random_state, settings=self.ruler.descriptors,
            activations=self.acts)

    def write(self) -> None:
        inputs = _results.MapInputs(
            card=self.net.model_card,
            model_desc=_model_description(self.net, self.src.name, self.src.checkpoint),
            stimuli=self.stim, stimuli_source=self.stim_source, layers=tuple(self.layers),
            alpha=self.null.alpha, training_images=self.train)
        self.res = _results.assemble(inputs, self.acts, self.model_side, self.cortex_side,
                                     self.comparison, random_init=self.random_init,
                                     ruler=self.rulers, settings=self.settings)
        self.files = _writer.write_report(self.out, self.res, atlas=self.cortex_side.atlas,
                                          t0=self.t0, cortex=self.cortex_side.maps)

    def summary_text(self) -> str:
        return format_summary(self.res.report)

    def result(self, files: dict, out_dir: str) -> MapResult:
        res = self.res
        return MapResult(report=res.report, selectivity=res.selectivity, tables=res.tables,
                         files=files, out_dir=out_dir, comparison=self.comparison,
                         ruler=self.rulers)
