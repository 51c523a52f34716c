"""``toponeuro map --language``: a language model's language-selective topography beside the
cortex's language network.

:func:`run_language_map` checks its parameters and runs :class:`_LanguageJob`, the language
job's stages filled into the one job skeleton of both jobs (:func:`~.._kit.job.run_job`), the
same as :func:`~toponeuro.run_map`'s: model (:func:`toponeuro.models.load_model`,
:func:`check_language_model`, :func:`language_layers`) -> the Fedorenko et al. (2010)
localizer items (:func:`load_language_stimuli`) -> activations (:func:`toponeuro.extract`,
:func:`check_sheet_layers`) -> TopoLM's language-selective units and their split-half profile
(:func:`language_units`) -> topography of each layer's map with its spatial null
(:func:`language_model_topography`) -> the cortex's language maps (:func:`language_cortex`) ->
numbers (:func:`~.results.assemble_language`, the typed :class:`~.._kit.report.LanguageMapReport`)
-> files (:func:`~.writer.write_language_report`).

Like :mod:`._map` it draws (so it is an entry point: only :mod:`toponeuro.cli` imports it, and
``toponeuro.run_language_map`` reaches it through the lazy table of ``toponeuro/__init__.py``).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from dataclasses import dataclass, field

import xarray as xr

from ..._util.constraints import MAPPING, STIMULUS_SET
from ..._util.docs import fill_doc
from ..._util.frozen import validate_fields
from ..._util.params import NUMBER, InstanceOf, PathLike, validate_params
from ...settings import (
    CortexInput,
    Extraction,
    LanguageStimuli,
    LanguageUnits,
    ModelSource,
    NullSettings,
    PatchRule,
    RulerRun,
)
from .._kit.constants import DEFAULT_LANGUAGE_MODEL
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
from .._kit.stages import check_sheet_layers, model_description, read_cortex_inputs
from .fit import language_fits
from .results import (
    LanguageInputs,
    assemble_language,
    format_language_summary,
    language_verdict,  # noqa: F401 - re-exported
)
from .stages import (
    check_language_model,
    language_cortex,
    language_layers,
    language_model_topography,
    language_units,
    load_language_stimuli,
)
from .verbs import bare_netcdf, contrast_boot, verb_noun_inputs, verb_noun_maps
from .writer import write_language_report

__all__ = ["run_language_map", "LanguageMapResult", "DEFAULT_LANGUAGE_MODEL", "language_verdict"]


@dataclass(kw_only=True)
@validate_fields({"fits": MAPPING, "threshold": NUMBER,
                 "profile": [InstanceOf(xr.Dataset, "an xarray.Dataset", example=xr.Dataset), None]})
class LanguageMapResult(JobResult):
    """What :func:`run_language_map` returns: the one result shape of both jobs
    (:class:`~toponeuro.reporting.MapResult` alike), and the language job's own.

    Parameters
    ----------
    report : LanguageMapReport
        Every number and sentence of the run, typed; ``summary.json`` is
        ``report.to_summary()`` (also :attr:`summary`).
    selectivity : xarray.DataArray
        The ``("map", "unit")`` S vs N t map whose topography is measured.
    tables : dict
        ``"model"``, ``"profile"``, ``"cortex"``, ``"comparison"``.
    files : dict
        Name -> path of every file written.
    out_dir : str, optional
        The output folder.
    timings : dict
        Stage of the job skeleton -> the seconds it took.
    fits : dict
        Key -> :class:`~toponeuro.reporting.LanguageFit` (the model-vs-cortex comparisons).
    threshold : float
        The patch threshold (smallest t passing Benjamini-Hochberg; NaN: none passes).
    profile : xarray.Dataset
        The split-half condition profile.
    cortex : object
        The :class:`~toponeuro.reporting.LanguageCortex` drawn beside the sheets.

    Attributes
    ----------
    summary : dict
        The content of ``summary.json``.

    Examples
    --------
    >>> res = run_language_map(stimuli="langloc.csv", out_dir="out")  # doctest: +SKIP
    >>> res.report.headline == res.summary["headline"]  # doctest: +SKIP
    True
    >>> sorted(set(LanguageMapResult.__dataclass_fields__)
    ...        - set(JobResult.__dataclass_fields__))
    ['cortex', 'fits', 'profile', 'threshold']
    """

    fits: dict = field(default_factory=dict)
    threshold: float = float("nan")
    profile: xr.Dataset | None = None
    cortex: object = None


def _refuse_map_settings(src: ModelSource, patches: PatchRule) -> None:
    """The fLoc map's settings, refused (never ignored) by the language job."""
    from ...exceptions import InvalidDataError

    if src.unit_positions is not None or src.position_units is not None:
        raise InvalidDataError(
            "model.unit_positions and model.position_units belong to the fLoc map; a language "
            "model's units lie on its sheets. Leave them None.")
    if patches.threshold != PatchRule().threshold:
        raise InvalidDataError(
            f"patches.threshold={patches.threshold:g} belongs to the fLoc map: the language "
            "job's patch threshold on the sheet is the smallest t that passes "
            "Benjamini-Hochberg. Leave it at its default; the region threshold of your "
            "cortex maps is cortex.threshold.")


def _inputs(checkpoint, stimuli, verb_noun, yours) -> list:
    """The user's files the job reads (the writer never replaces them)."""
    return [p for p in (checkpoint, stimuli, verb_noun) if isinstance(p, (str, os.PathLike))
            and str(p) not in ("langloc", "topolm")] + yours.files


@fill_doc
@validate_params(dict(JOB_PARAMS,
                      stimuli=[PathLike(), STIMULUS_SET, settings_param(LanguageStimuli), None],
                      units=settings_param(LanguageUnits)),
                 prefer_skip_nested_validation=False)  # the 0.4 keywords: checked as they apply
def run_language_map(
    model: str | ModelSource = DEFAULT_LANGUAGE_MODEL,
    *,
    stimuli: str | os.PathLike | LanguageStimuli = "langloc",
    layers: Sequence[str] | None = None,
    out_dir: str | os.PathLike = "toponeuro-language-map",
    overwrite: bool = False,
    null: NullSettings = NullSettings(),
    patches: PatchRule = PatchRule(),
    units: LanguageUnits = LanguageUnits(),
    cortex: CortexInput = CortexInput(),
    ruler: RulerRun = RulerRun(),
    extraction: Extraction = Extraction(),
    verbose: int = 2,
    **old_keywords,
) -> LanguageMapResult:
    """Map a language model's language-selective topography and set it beside the cortex's.

    1. **Localizer.** The Fedorenko et al. (2010) items (160 each of S sentences, W word
       lists, J Jabberwocky, N nonword lists), read by each of ``layers`` (tokens pooled by
       ``token_pooling``), laid on the layer's sheet.
    2. **Language-selective units, as TopoLM defines them**
       (:func:`~toponeuro.analysis.language_selectivity`): activations smoothed on the sheet
       (FWHM ``smooth_fwhm``), Welch t of S vs N, two-sided p, Benjamini-Hochberg at ``q``
       over the units of all layers, and the ``top_k`` units over all layers. Their response
       to all four conditions and their split-half stability
       (:func:`~toponeuro.analysis.language_profile`: selected on odd items, measured on
       even ones and vice versa).
    3. **Topography with its spatial null**, per layer, of the S vs N t map of the
       *unsmoothed* activations: TopoLM's smoothing of the activations makes any map smooth,
       so a null that scatters the units' values would call even a non-topographic model
       "clustered"; the unsmoothed map is where the positions null is calibrated. Moran's I
       (rook neighbours, row-standardised; :func:`~toponeuro.analysis.morans_i`),
       smoothness (TDANN) and patches (TDANN's procedure; threshold: the smallest t that
       passes Benjamini-Hochberg at ``q`` on that map), each with ``n_permutations`` draws.
       The positions-null sentences ("is organised on this sheet" or not: the map against
       its own values scattered, never a claim about selectivity) come from
       :func:`language_verdict`, one test and one p each.
    4. **Cortex.** The language parcels (Wolna et al., 2025; S > N in 706 participants) on
       fsaverage5, both hemispheres (or your own maps, ``cortex_maps``), drawn beside the
       sheets, with a model-vs-cortex table
       that says which rows are comparable and which are not. The parcels' own Moran's I
       and smoothness are not reported: no null can test them (a spin test rotates the map
       whole and keeps its autocorrelation; scattering its values makes any contiguous
       parcel "cluster"), and a number without a null would invite a comparison it cannot
       support. Their extent and regions are reported, as descriptions.

    Writes ``report.html``, PNG figures, ``results.nc`` and ``summary.json`` into
    ``out_dir``.

    Parameters
    ----------
    model : str or ModelSource
        Registered language model (default :data:`DEFAULT_LANGUAGE_MODEL`), or a
        :class:`~toponeuro.settings.ModelSource` with a checkpoint (as in
        :func:`~toponeuro.reporting.run_map`; with a plain state dict, the name is its
        architecture) and ``trust_checkpoint``.
    stimuli : "langloc", path-like, StimulusSet or LanguageStimuli
        ``"langloc"``: the pinned localizer csv (cached, sha256-checked; downloaded once);
        a local csv with columns ``sentence``, ``condition``; or a StimulusSet whose
        categories are the conditions. With the verb - noun items of TopoLM's fMRI fit, a
        :class:`~toponeuro.settings.LanguageStimuli`: ``LanguageStimuli("langloc",
        verb_noun="topolm")`` (its ``verb_noun``: the items of Elli et al., 2019,
        :func:`~toponeuro.reporting.load_verb_noun_stimuli`: ``"topolm"``, the default, the
        pinned ``elli_stimuli.csv`` (cached, sha256-checked), a local copy, or a
        StimulusSet of ``verb`` / ``noun`` items; None leaves the verb - noun map and its
        comparison out; 0.4's ``verb_noun=`` keyword sets it, with a FutureWarning). The
        cortex's verb - noun map is your ``cortex.maps`` map named ``verbs`` (a bare
        ``PATH.nc`` is read as ``verbs=PATH.nc``), else TopoLM's group contrast (pinned).
    layers : list of str, optional
        Default: every TopoLoss layer of the model card.
    out_dir : path-like
        Output folder: written aside and moved into place when complete (an interrupted run
        leaves an earlier output as it was; see the map's ``out_dir``).
    overwrite : bool
        Replace an earlier toponeuro output in ``out_dir`` (a folder toponeuro did not write
        is never replaced).
    null : NullSettings
        The draws of every spatial null, the significance level and the seed of every null
        (:class:`~toponeuro.settings.NullSettings`).
    patches : PatchRule
        ``min_units``: smallest patch on the sheet (units). ``threshold`` stays at its
        default (another value is refused): the sheet's patch threshold is the smallest t
        that passes Benjamini-Hochberg.
    units : LanguageUnits
        TopoLM's selection (:class:`~toponeuro.settings.LanguageUnits`): ``top_k`` units
        over all layers (a count, or a fraction: TopoLM's 0.1), Benjamini-Hochberg ``q``
        (0.05), ``smooth_fwhm`` (unit spacings) of the sheet smoothing before the selection
        (2.0; None: the raw activations) and ``token_pooling`` (how a layer's token
        activations become one vector per item).
    cortex : CortexInput
        The cortex side (:class:`~toponeuro.settings.CortexInput`): your lab's own language
        ``maps``, read and checked by :func:`toponeuro.atlases.load_cortex_maps` as in
        :func:`~toponeuro.reporting.run_map` before the model runs (a map named
        ``language``, e.g. your S - N contrast, replaces the shipped parcels; any other name
        (``verbs``: TopoLM's verb - noun contrast on fs_LR) joins them, each measured on its
        own mesh; recorded in ``summary.json`` under ``cortex.your_maps``), the
        ``hemispheres`` (default: both for the parcels, those your maps cover),
        ``vol_to_surf``, their region ``threshold`` (default TDANN's t >= 2),
        ``min_vertices`` and the spin test's ``n_permutations``.
    ruler : RulerRun
        ``n_permutations``: null draws of every descriptor of the model-vs-cortex
        comparisons, on each side (default None: ``null.n_permutations``; the cortex side of
        a 32k-vertex mesh is the slow part).
    extraction : Extraction
        Batch size and device of the extraction (:func:`toponeuro.extract`).
    %(verbose_job)s
    **old_keywords
        The 0.4 keywords (``n_permutations=``, ``top_k=``, ``verb_noun=``, ``cortex_maps=``,
        ``progress=`` ...), until 0.6:
        each warns (FutureWarning) and sets the settings field that replaced it
        (``toponeuro.settings.OLD_KEYWORDS``). The whole settings are recorded in
        ``summary.json`` under ``settings``, by the fields' names.

    Returns
    -------
    LanguageMapResult
        ``selectivity`` is the ``("map", "unit")`` t map whose topography is measured;
        ``tables``: ``"model"``, ``"profile"``, ``"cortex"``, ``"comparison"``.

    Raises
    ------
    ParameterError
        A vision model.
    UnknownNameError
        Unknown model or layer.
    DownloadError
        The localizer csv can be neither found nor downloaded (the message says how to use
        ``stimuli``).

    Examples
    --------
    >>> import toponeuro
    >>> res = toponeuro.run_language_map(out_dir="lang-map")  # doctest: +SKIP
    >>> layer = res.summary["per_layer"]["encoder.layer.5.intermediate.dense"]  # doctest: +SKIP
    >>> layer["verdict"]  # doctest: +SKIP
    "language selectivity is not more clustered than contrasts of random splits of its items on this sheet: Moran's I 0.14 ..."
    >>> layer["organised"]  # doctest: +SKIP
    "language selectivity is organised on this sheet: Moran's I 0.14 (positions null -0.00 ± 0.02) ..."
    >>> from toponeuro.settings import LanguageStimuli
    >>> res = toponeuro.run_language_map(stimuli=LanguageStimuli("langloc", verb_noun=None),
    ...                                  verbose=0)  # doctest: +SKIP
    """
    # every parameter checked before the first (slow) step (each settings object, when made)
    src, stim, null, patches, units, cortex, ruler, extraction, verbose, settings = job_settings(
        "run_language_map", model, DEFAULT_LANGUAGE_MODEL, old_keywords, ruler_draws=None,
        stimuli=stimuli, verbose=verbose, null=null, patches=patches, units=units,
        cortex=cortex, ruler=ruler, extraction=extraction).values()
    check_job_params(model=src.name, checkpoint=src.checkpoint, stimuli=stim.source,
                     stimuli_name="langloc", stimuli_kind="file")
    _refuse_map_settings(src, patches)
    job = _LanguageJob(src, stim, layers, null=null, patches=patches, units=units,
                       cortex=cortex, ruler=ruler, extraction=extraction, settings=settings,
                       verbose=verbose)
    return run_job(job, out_dir=out_dir, overwrite=overwrite, verbose=verbose,
                   inputs=_inputs(src.checkpoint, stim.source, stim.verb_noun, job.yours))


class _LanguageJob(JobStages):
    """:func:`run_language_map`'s stages, filled into the one job skeleton (:func:`run_job`)."""

    title, kind = "toponeuro map --language", "language-map"

    def __init__(self, src: ModelSource, stim: LanguageStimuli, layers, *,
                 null: NullSettings, patches: PatchRule, units: LanguageUnits,
                 cortex: CortexInput, ruler: RulerRun, extraction: Extraction, settings: dict,
                 verbose: int) -> None:
        super().__init__()
        self.src, self.spec, self.layers = src, stim, layers
        self.null, self.patches, self.units = null, patches, units
        self.cortex_input, self.ruler, self.settings = cortex, ruler, settings
        self.progress = verbose >= 2
        # checked before the model
        self.yours = read_cortex_inputs(dataclasses.replace(cortex, maps=bare_netcdf(cortex.maps)))
        self.fwd = {"batch_size": extraction.batch_size, "device": extraction.device}  # extract()'s
        # the ruler on whole hemispheres (job_settings set cortex_region=None)
        self.rs = ruler.descriptors

    def model(self) -> None:
        self.net = load_job_model(self.src)
        check_language_model(self.net.model_card)
        self.layers = language_layers(self.net.model_card, self.layers)

    def stimuli(self) -> None:
        self.stim, self.stim_source = load_language_stimuli(self.spec.source)
        # None: left out
        self.vn_items, self.vn_cortex = verb_noun_inputs(self.spec.verb_noun, self.yours.maps)

    def maps(self) -> None:
        from ...features import extract

        units = self.units
        self.acts = extract(self.net, self.stim, self.layers, token_pooling=units.token_pooling,
                            progress=self.progress, **self.fwd)
        check_sheet_layers(self.acts, self.layers)
        self.selected = language_units(self.acts, q=units.q, top_k=units.top_k,
                                       smooth_fwhm=units.smooth_fwhm)

    def topography(self) -> None:
        null = self.null
        self.topo = language_model_topography(
            self.acts, self.selected, self.layers, min_units=self.patches.min_units,
            n_permutations=null.n_permutations, alpha=null.alpha, random_state=null.random_state)
        self.vn = verb_noun_maps(self.net, self.vn_items, self.layers,
                                 token_pooling=self.units.token_pooling, progress=self.progress,
                                 n_permutations=null.n_permutations, alpha=null.alpha,
                                 random_state=null.random_state, n_boot=self.rs.n_boot,
                                 **self.fwd)

    def cortex(self) -> None:
        self.cortex_side = language_cortex(
            **cortex_stage_keywords(self.cortex_input, self.null, self.yours.maps))

    def compare(self) -> None:
        null, vn, last = self.null, self.vn, self.layers[-1]
        sn_boot = contrast_boot(self.acts, last, n_boot=self.rs.n_boot,
                                random_state=null.random_state)
        self.fits = language_fits(last, sn_map=self.selected.tmap, cortex=self.cortex_side,
                                  verb_noun=vn, verb_noun_cortex=self.vn_cortex,
                                  n_permutations=self.ruler.n_permutations, alpha=null.alpha,
                                  random_state=null.random_state, settings=self.rs,
                                  sn_boot=sn_boot, verb_noun_boot=None if vn is None else vn.boot)

    def write(self) -> None:
        src, units, cortex = self.src, self.units, self.cortex_input
        setup = LanguageInputs(
            card=self.net.model_card,
            model_desc=model_description(self.net, src.name, src.checkpoint),
            stimuli=self.stim, stimuli_source=self.stim_source, layers=tuple(self.layers),
            alpha=self.null.alpha, n_permutations=self.null.n_permutations, q=units.q,
            cortex_threshold=cortex.threshold if self.yours.maps is not None else None)
        self.data = assemble_language(setup, self.acts, self.selected, self.topo,
                                      self.cortex_side, verb_noun=self.vn, fits=self.fits,
                                      settings=self.settings)
        self.files = write_language_report(self.out, self.data, t0=self.t0)

    def summary_text(self) -> str:
        return format_language_summary(self.data.report)

    def result(self, files: dict, out_dir: str) -> LanguageMapResult:
        data = self.data
        return LanguageMapResult(report=data.report, selectivity=data.selectivity,
                                 tables=data.tables, files=files, out_dir=out_dir,
                                 fits=data.fits, threshold=data.threshold,
                                 profile=data.profile, cortex=data.cortex)
