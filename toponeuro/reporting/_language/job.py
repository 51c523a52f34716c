"""``toponeuro map --language``: a language model's language-selective topography beside the
cortex's language network.

:func:`run_language_map` reads as the data flow, one named public stage after the other, the
same shape as :func:`~toponeuro.run_map`: model (:func:`toponeuro.training.load_model`,
:func:`check_language_model`, :func:`language_layers`) -> the Fedorenko et al. (2010)
localizer items (:func:`load_language_stimuli`) -> activations (:func:`toponeuro.extract`,
:func:`check_sheet_layers`) -> TopoLM's language-selective units and their split-half profile
(:func:`language_units`) -> topography of each layer's map with its spatial null
(:func:`language_model_topography`) -> the cortex's language maps (:func:`language_cortex`) ->
numbers (:func:`~._language_results.assemble_language`) -> files
(:func:`~._language_writer.write_language_report`).

Like :mod:`._map` it draws (so it is an entry point: only :mod:`toponeuro.cli` imports it, and
``toponeuro.run_language_map`` reaches it through the lazy table of ``toponeuro/__init__.py``).
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import xarray as xr

from ..._util.docs import fill_doc
from ...analysis import TDANN_PATCHES, RulerSettings
from .._vision import writer as _writer
from .._kit.constants import DEFAULT_LANGUAGE_MODEL
from .._kit.early import check_job_params
from .fit import language_fits
from .results import (
    LanguageInputs,
    LanguageReport,
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
from .._vision.stages import _model_description, check_sheet_layers, read_cortex_inputs

__all__ = ["run_language_map", "LanguageMapResult", "DEFAULT_LANGUAGE_MODEL", "language_verdict"]


@dataclass
class LanguageMapResult:
    """What :func:`run_language_map` returns: the report's data and the files written.

    Parameters
    ----------
    report : LanguageReport
        Every number of the run, typed (:class:`~._language_results.LanguageReport`: the
        summary, tables, ``results.nc`` dataset, t map, threshold, profile and cortex).
    files : dict
        Name -> path of every file written.

    Attributes
    ----------
    summary : dict
        The report's ``summary`` (the content of ``summary.json``).
    selectivity : xarray.DataArray
        The ``("map", "unit")`` S vs N t map whose topography is measured.
    tables : dict
        ``"model"``, ``"profile"``, ``"cortex"``, ``"comparison"``.

    Examples
    --------
    >>> from types import SimpleNamespace as NS
    >>> res = LanguageMapResult(NS(summary={"job": "toponeuro map --language"},
    ...                            selectivity=None, tables={}))
    >>> res.summary["job"], res.files
    ('toponeuro map --language', {})
    """

    report: LanguageReport
    files: dict = field(default_factory=dict)

    @property
    def summary(self) -> dict:
        return self.report.summary

    @property
    def selectivity(self) -> xr.DataArray:
        return self.report.selectivity

    @property
    def tables(self) -> dict:
        return self.report.tables


def _check_numbers(*, min_units, alpha, n_permutations, random_state, q, top_k, smooth_fwhm,
                   batch_size, fit_permutations) -> int:
    """The job's numeric parameters, checked before any slow step; the fits' draws."""
    from ..._util.params import check_int, check_n_permutations, check_number, check_top_k
    from ...analysis import check_patch_params

    check_patch_params(min_units=min_units, alpha=alpha, n_permutations=n_permutations,
                       random_state=random_state)
    check_number(q, "q", lo=0, hi=1, lo_open=True, hi_open=True)
    check_top_k(top_k)
    if smooth_fwhm is not None:
        check_number(smooth_fwhm, "smooth_fwhm", lo=0, lo_open=True,
                     fix="smooth_fwhm=None leaves the activations unsmoothed.")
    check_int(batch_size, "batch_size", lo=1)
    return check_n_permutations(
        n_permutations if fit_permutations is None else fit_permutations, "fit_permutations")


def _inputs(checkpoint, stimuli, verb_noun, yours) -> list:
    """The user's files the job reads (the writer never replaces them)."""
    return [p for p in (checkpoint, stimuli, verb_noun) if isinstance(p, (str, os.PathLike))
            and str(p) not in ("langloc", "topolm")] + yours.files


@fill_doc
def run_language_map(
    model: str = DEFAULT_LANGUAGE_MODEL,
    *,
    checkpoint: str | os.PathLike | None = None,
    trust_checkpoint: bool = False,
    stimuli="langloc",
    layers: Sequence[str] | None = None,
    out_dir: str | os.PathLike = "toponeuro-language-map",
    overwrite: bool = False,
    top_k: float | int = 0.1,
    q: float = 0.05,
    smooth_fwhm: float | None = 2.0,
    token_pooling: str = "mean",
    min_units: int = TDANN_PATCHES["min_count"],
    cortex_min_vertices: int = 10,
    n_permutations: int = 1000,
    alpha: float = 0.05,
    hemispheres: Sequence[str] | None = None,
    cortex_maps=None,
    vol_to_surf=None,
    cortex_threshold: float | None = None,
    cortex_permutations: int = 1000,
    verb_noun="topolm",
    fit_permutations: int | None = None,
    batch_size: int = 64,
    device: str = "cpu",
    random_state: int = 0,
    progress: bool = True,
    verbose: bool = True,
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
    model : str
        Registered language model (default :data:`DEFAULT_LANGUAGE_MODEL`); with
        ``checkpoint``, the architecture of a plain state dict.
    checkpoint : path-like, optional
        A checkpoint, as in :func:`~toponeuro.reporting.run_map`.
    %(trust_checkpoint)s
    stimuli : "langloc", path-like or StimulusSet
        ``"langloc"``: the pinned localizer csv (cached, sha256-checked; downloaded once);
        a local csv with columns ``sentence``, ``condition``; or a StimulusSet whose
        categories are the conditions.
    layers : list of str, optional
        Default: every TopoLoss layer of the model card.
    out_dir : path-like
        Output folder: written aside and moved into place when complete (an interrupted run
        leaves an earlier output as it was; see the map's ``out_dir``).
    overwrite : bool
        Replace an earlier toponeuro output in ``out_dir`` (a folder toponeuro did not write
        is never replaced).
    top_k : float or int
        Units selected over all layers: a count, or a fraction of the units (TopoLM's 0.1;
        see :func:`~toponeuro.analysis.language_selectivity`).
    q : float
        Benjamini-Hochberg false-discovery rate of the selection (0.05).
    smooth_fwhm : float or None
        FWHM (unit spacings) of TopoLM's sheet smoothing before the selection (2.0;
        ``None``: the raw activations).
    token_pooling : {"mean", "first", "last"}
        How a layer's token activations become one vector per item.
    min_units : int
        Smallest patch on the sheet (units).
    cortex_min_vertices : int
        Smallest region on the cortex (vertices).
    %(n_permutations)s
        Here: the draws of every spatial null.
    %(alpha)s
    hemispheres : sequence of {"left", "right"}, optional
        Default: both for the parcels; for ``cortex_maps``, those the maps cover.
    cortex_maps : mapping or str, optional
        Your lab's own language maps, read and checked by
        :func:`toponeuro.atlases.load_cortex_maps` as in :func:`~toponeuro.reporting.run_map`
        (name -> an MNI NIfTI, a CIFTI-2 ``.dscalar.nii``, a ``(left, right)`` pair of
        surface files on fsaverage5/6, fsaverage or fs_LR 32k, one hemisphere's file, arrays,
        or the text form ``"language=lh.gii:rh.gii"``), read and checked before the model
        runs: a map named ``language`` (e.g. your S - N contrast) replaces the shipped
        parcels, any other name (``verbs``: TopoLM's verb - noun contrast on fs_LR) joins
        them, each measured on its own mesh. Recorded in ``summary.json`` under
        ``cortex.your_maps``.
    %(vol_to_surf)s
    cortex_threshold : float, optional
        Region threshold of ``cortex_maps``, in their units (default TDANN's t >= 2).
    cortex_permutations : int
        Rotations of the spin-test null of the similarity of every two of your maps.
    verb_noun : "topolm", path-like, StimulusSet or None
        The verb and noun items of TopoLM's fMRI fit (Elli et al., 2019;
        :func:`~toponeuro.reporting.load_verb_noun_stimuli`): ``"topolm"`` the pinned
        ``elli_stimuli.csv`` (cached, sha256-checked), a local copy, or a StimulusSet of
        ``verb`` / ``noun`` items; None leaves the verb - noun map and its comparison out.
        The cortex's verb - noun map is your ``cortex_maps`` map named ``verbs`` (a bare
        ``PATH.nc`` is read as ``verbs=PATH.nc``), else TopoLM's group contrast (pinned).
    fit_permutations : int, optional
        Null draws of every descriptor of the model-vs-cortex comparisons, on each side
        (default ``n_permutations``; the cortex side of a 32k-vertex mesh is the slow part).
    batch_size : int
        Stimuli per forward pass of the extraction (:func:`toponeuro.extract`).
    %(device)s
    %(random_state)s
        Here: the seed of every null.
    %(progress)s
    verbose : bool
        Print the summary.

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
    """
    from tqdm.auto import tqdm

    from ...features import extract
    from ...training import load_model

    # every parameter checked before the first (slow) step, so a bad one fails at once
    check_job_params(flags={"overwrite": overwrite, "trust_checkpoint": trust_checkpoint,
                            "progress": progress, "verbose": verbose},
                     model=model, device=device, checkpoint=checkpoint, stimuli=stimuli,
                     stimuli_name="langloc", stimuli_kind="file", token_pooling=token_pooling,
                     layers=layers)
    fit_permutations = _check_numbers(
        min_units=min_units, alpha=alpha, n_permutations=n_permutations,
        random_state=random_state, q=q, top_k=top_k, smooth_fwhm=smooth_fwhm,
        batch_size=batch_size, fit_permutations=fit_permutations)
    cortex_maps = bare_netcdf(cortex_maps)
    yours = read_cortex_inputs(cortex_maps, hemispheres=hemispheres, vol_to_surf=vol_to_surf,
                               cortex_min_vertices=cortex_min_vertices,
                               cortex_permutations=cortex_permutations,
                               cortex_threshold=cortex_threshold)
    cortex_threshold = TDANN_PATCHES["threshold"] if cortex_threshold is None else cortex_threshold
    with _writer.output_folder(out_dir, overwrite=overwrite, kind="language-map",
                               inputs=_inputs(checkpoint, stimuli, verb_noun, yours)) as folder:
        t0 = time.perf_counter()
        steps = tqdm(total=7, desc="toponeuro map --language", disable=not progress,
                     unit="step")
        try:  # an error closes the bar first, so its message gets a line of its own
            steps.set_postfix_str("model")
            net = load_model(model, checkpoint=checkpoint, trust_checkpoint=trust_checkpoint)
            check_language_model(net.model_card)
            layers = language_layers(net.model_card, layers)
            steps.update()

            steps.set_postfix_str("stimuli")
            stim, stim_source = load_language_stimuli(stimuli)
            vn_items, vn_cortex = verb_noun_inputs(verb_noun, yours.maps)  # None: left out
            steps.update()

            steps.set_postfix_str("activations")
            acts = extract(net, stim, layers, token_pooling=token_pooling,
                           batch_size=batch_size, device=device, progress=progress)
            check_sheet_layers(acts, layers)
            steps.update()

            steps.set_postfix_str("selectivity")
            units = language_units(acts, q=q, top_k=top_k, smooth_fwhm=smooth_fwhm)
            steps.update()

            steps.set_postfix_str("topography")
            topo = language_model_topography(acts, units, layers, min_units=min_units,
                                             n_permutations=n_permutations, alpha=alpha,
                                             random_state=random_state)
            # the one ruler's parameters (n_boot among them); whole hemispheres: the language
            # network is not confined to one region the way a visual sheet's cortex is
            ruler = RulerSettings(cortex_region=None)
            vn = verb_noun_maps(net, vn_items, layers, token_pooling=token_pooling,
                                batch_size=batch_size, device=device, progress=progress,
                                n_permutations=n_permutations, alpha=alpha,
                                random_state=random_state, n_boot=ruler.n_boot)
            steps.update()

            steps.set_postfix_str("cortex")
            cortex = language_cortex(hemispheres, cortex_maps=yours.maps,
                                     vol_to_surf=vol_to_surf, threshold=cortex_threshold,
                                     min_vertices=cortex_min_vertices,
                                     similarity_permutations=cortex_permutations,
                                     alpha=alpha, random_state=random_state)
            sn_boot = (contrast_boot(acts, layers[-1], n_boot=ruler.n_boot,
                                     random_state=random_state) if ruler.n_boot else None)
            fits = language_fits(layers[-1], sn_map=units.tmap, cortex=cortex, verb_noun=vn,
                                 verb_noun_cortex=vn_cortex, n_permutations=fit_permutations,
                                 alpha=alpha, random_state=random_state, settings=ruler,
                                 sn_boot=sn_boot,
                                 verb_noun_boot=None if vn is None else vn.boot)
            steps.update()

            steps.set_postfix_str("report")
            setup = LanguageInputs(
                card=net.model_card, model_desc=_model_description(net, model, checkpoint),
                stimuli=stim, stimuli_source=stim_source, layers=tuple(layers),
                token_pooling=token_pooling, min_units=min_units, alpha=alpha,
                n_permutations=n_permutations, q=q,
                cortex_threshold=cortex_threshold if yours.maps is not None else None)
            report = assemble_language(setup, acts, units, topo, cortex, verb_noun=vn,
                                       fits=fits, fit_permutations=fit_permutations)
            files = write_language_report(folder.path, report, t0=t0)
            steps.update()
        finally:
            steps.close()
    files = folder.final_paths(files)
    if verbose:
        print(format_language_summary(report.summary))
        print(f"\nReport: {files['report.html']}")
    return LanguageMapResult(report, files={k: str(v) for k, v in files.items()})
