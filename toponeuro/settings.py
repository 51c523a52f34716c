"""The jobs' parameters, declared once: small frozen settings objects (issue 44).

Values that travel together are one object, checked once where it is made (its fields
are declared with :func:`~toponeuro._util.frozen.validate_fields`, readable as its
``__toponeuro_params__``), passed whole through :func:`toponeuro.run_map` and
:func:`toponeuro.run_language_map` (inner calls trust it) and recorded whole in
``summary.json`` under ``"settings"``, with the same names as the fields here. The command
line builds its flags from the same declarations (each field's ``metadata``: its flag and
help), so one quantity has one name from the flag to the summary: ``--cortex-n-permutations``
-> ``CortexInput.n_permutations`` -> ``summary["settings"]["cortex"]["n_permutations"]``.

- :class:`NullSettings` (``null``): the spatial nulls' draws, significance level and seed;
- :class:`PatchRule` (``patches``): what a patch is, threshold and smallest size;
- :class:`CortexInput` (``cortex``): your maps (or the shipped ones), hemispheres,
  projection, patch rule and the spin test's draws;
- :class:`Extraction` (``extraction``): batch size and device;
- :class:`ModelSource` (``model``): the model's name, a checkpoint, unit positions;
- :class:`RulerRun` (``ruler``): the one-ruler comparison, its draws and
  :class:`RulerSettings`;
- :class:`LanguageUnits` (``units``): TopoLM's language-selective units;
- :class:`FlocStimuli` / :class:`LanguageStimuli` (``stimuli``): the job's items and which of
  them (the fLoc numbers; the verb - noun items).

A bad value raises the typed error of :mod:`toponeuro.exceptions` naming the field as the
job's parameter and the field, ``null.n_permutations``, ``cortex.min_vertices``.

Examples
--------
>>> from toponeuro.settings import NullSettings
>>> NullSettings(n_permutations=199, alpha=0.01)
NullSettings(n_permutations=199, alpha=0.01, random_state=0)
>>> NullSettings(n_permutations=-1)
Traceback (most recent call last):
...
toponeuro.exceptions.ParameterError: null.n_permutations=-1 is not a whole number in [0, 1000000]. 0 draws no null; 1000 is the usual choice.
"""

from __future__ import annotations

import dataclasses
import inspect
import numbers
import os
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from ._util.constraints import MAPPING, Names
from ._util.frozen import declared as _meta
from ._util.frozen import record_value, validate_fields
from ._util.frozen import set_checked as _set
from ._util.params import (
    ALPHA,
    COUNT,
    N_PERMUTATIONS,
    PROBABILITY,
    TOP_K,
    Boolean,
    InstanceOf,
    Interval,
    Options,
    PathLike,
    Text,
    declared_params,
    validate_params,
)
from .analysis import RulerSettings
from .exceptions import DeviceError, InputTypeError, UnknownNameError
from .features import TOKEN_POOLINGS
from .features import extract as _extract
from .stimuli import StimulusSet, floc_numbers

__all__ = [
    "NullSettings",
    "PatchRule",
    "CortexInput",
    "Extraction",
    "ModelSource",
    "RulerRun",
    "RulerSettings",
    "LanguageUnits",
    "FlocStimuli",
    "LanguageStimuli",
    "cortex_maps_kind",
    "settings_record",
]

#: the parameters of :func:`toponeuro.extract`, whose defaults :class:`Extraction` and
#: :class:`LanguageUnits` take
_EXTRACT = inspect.signature(_extract).parameters

#: TDANN's patch rule (``toponeuro.analysis.TDANN_PATCHES``), repeated here so that this
#: module's defaults read as numbers
_TDANN_THRESHOLD = 2.0
_TDANN_MIN_COUNT = 10


#: a seed: a whole number >= 0 (stored as an int), a numpy Generator, SeedSequence or
#: BitGenerator (kept as given) or None
_SEED = [Interval(numbers.Integral, 0, None, closed="left",
                  fix="None seeds from fresh entropy (not reproducible)."),
         InstanceOf((np.random.Generator, np.random.SeedSequence, np.random.BitGenerator),
                    "a numpy.random.Generator", example=lambda: np.random.default_rng(0)),
         None]


def _source(named: str) -> InstanceOf:
    """A stimuli source: its name (``named``), a path or a StimulusSet; what it holds is
    checked where it is read."""
    return InstanceOf((str, os.PathLike, StimulusSet),
                      f"{named}, a path or a toponeuro.stimuli.StimulusSet", example=named[1:-1])


# --- the spatial nulls ----------------------------------------------------------------------
@dataclass(frozen=True)
@validate_fields({"n_permutations": N_PERMUTATIONS, "alpha": ALPHA, "random_state": _SEED})
class NullSettings:
    """The spatial nulls of every model statistic: draws, significance level, seed.

    Parameters
    ----------
    n_permutations : int
        Draws of each null (0: none; p-values are then NaN).
    alpha : float
        Significance level of every verdict and claim, in (0, 1).
    random_state : int, numpy.random.Generator or None
        Seed of the sampling and of every null.

    Examples
    --------
    >>> NullSettings().n_permutations, NullSettings(alpha=0.01).alpha
    (1000, 0.01)
    """

    _name = "null"

    n_permutations: int = field(default=1000, metadata=_meta(
        "--n-permutations", "draws of every spatial null (smoothness, patches, map "
        "similarity); 0 skips the nulls", old_flags=("--permutations",)))
    alpha: float = field(default=0.05, metadata=_meta(
        "--alpha", "significance level of every verdict and claim"))
    random_state: object = field(default=0, metadata=_meta(
        "--random-state", "seed of the sampling and of every null", type=int,
        old_flags=("--seed",)))


# --- patches --------------------------------------------------------------------------------
@dataclass(frozen=True)
@validate_fields({"threshold": Interval(numbers.Real), "min_units": COUNT})
class PatchRule:
    """What a patch of the model's sheet is (TDANN's rule by default).

    Parameters
    ----------
    threshold : float
        Patches are connected units with ``t >= threshold`` after TDANN's smoothing
        (TDANN's 2). The fLoc map's: the language job refuses another value (its sheet's
        threshold is the Benjamini-Hochberg t).
    min_units : int
        Smallest patch, in units (TDANN: 10), at least 1.

    Examples
    --------
    >>> PatchRule(threshold=3).threshold
    3.0
    """

    _name = "patches"

    threshold: float = field(default=_TDANN_THRESHOLD, metadata=_meta(
        "--threshold", "patch threshold on the selectivity t, after TDANN's smoothing"))
    min_units: int = field(default=_TDANN_MIN_COUNT, metadata=_meta(
        "--min-units", "smallest model patch, in units"))


# --- the cortex side ------------------------------------------------------------------------
#: what a job's cortex maps may be (:class:`CortexInput`'s ``maps``)
CORTEX_MAPS = [None, MAPPING, PathLike(
    fix="None takes the shipped maps; a file's text form is 'faces=lh.gii:rh.gii'.")]


@validate_params({"maps": CORTEX_MAPS})
def cortex_maps_kind(maps) -> str:
    """What ``maps`` is: ``"atlas"`` (None: the job's shipped maps), ``"loaded"`` (what
    :func:`toponeuro.atlases.load_cortex_maps` returned: hemisphere -> CortexMaps) or
    ``"files"`` (anything :func:`~toponeuro.atlases.load_cortex_maps` reads: a mapping of
    domain -> files or arrays, or the text form ``"faces=lh.gii:rh.gii"``).

    The one place that tells the kinds apart (:class:`CortexInput` keeps the answer).

    Parameters
    ----------
    maps : None, mapping or str
        The ``maps`` of a :class:`CortexInput`.

    Returns
    -------
    str
        ``"atlas"``, ``"loaded"`` or ``"files"``.

    Raises
    ------
    InputTypeError
        ``maps`` is none of these.

    Examples
    --------
    >>> cortex_maps_kind(None), cortex_maps_kind("faces=f.nii.gz")
    ('atlas', 'files')
    """
    if maps is None:
        return "atlas"
    if isinstance(maps, Mapping) and maps:
        from .atlases import CortexMaps

        if all(isinstance(v, CortexMaps) for v in maps.values()):
            return "loaded"
    return "files"  # a path, its text form, or a mapping domain -> file(s)


#: the cortical hemispheres a job compares (:class:`CortexInput`'s ``hemispheres``)
_HEMISPHERES = ("left", "right")


@dataclass(frozen=True)
@validate_fields({
    "hemispheres": [Options(_HEMISPHERES, error=UnknownNameError),
                    Names(empty=False, options=_HEMISPHERES, error=UnknownNameError,
                          fix="None (the default) compares both."), None],
    "vol_to_surf": [InstanceOf(Mapping, "a mapping of nilearn vol_to_surf keyword arguments",
                               example={}, fix="E.g. {'radius': 2}; None: radius 3 mm, linear "
                               "interpolation."), None],
    "threshold": [Interval(numbers.Real, fix="None (the default) takes patches.threshold."),
                  None],
    "min_vertices": COUNT,
    "n_permutations": N_PERMUTATIONS,
    "maps": CORTEX_MAPS,
})
class CortexInput:
    """The cortex side of a job: your maps (or the shipped ones) and how they are measured.

    Parameters
    ----------
    maps : mapping, str or None
        Your own cortical maps (domain -> an MNI NIfTI, a CIFTI-2 ``.dscalar.nii``, a
        ``(left, right)`` pair of GIFTI or MGH files, arrays or nibabel images, or the text
        form ``"faces=lh.gii:rh.gii,bodies=b.nii.gz"``; see
        :func:`toponeuro.atlases.load_cortex_maps`), what that function returned, or None:
        the job's shipped maps (the visfAtlas ROIs; the language parcels).
    hemispheres : sequence of {"left", "right"}, optional
        Hemispheres compared (default: both for the shipped maps, those your maps cover).
    vol_to_surf : mapping, optional
        Keyword arguments of nilearn's ``vol_to_surf`` for NIfTI maps (default radius 3 mm,
        linear interpolation).
    threshold : float, optional
        Patch threshold of your maps, in their units (default: the job's ``patches.threshold``).
    min_vertices : int
        Smallest cortex patch, in vertices (at least 1).
    n_permutations : int
        Rotations of the spin test of every cortical statistic (map similarity, the
        arrangement's cortex side); 0 skips it.

    Attributes
    ----------
    kind : {"atlas", "files", "loaded"}
        What ``maps`` is (:func:`cortex_maps_kind`), told once here.

    Examples
    --------
    >>> CortexInput().kind, CortexInput(maps="faces=faces.nii.gz").kind
    ('atlas', 'files')
    >>> CortexInput(min_vertices=0)
    Traceback (most recent call last):
    ...
    toponeuro.exceptions.ParameterError: cortex.min_vertices=0 is not a whole number >= 1.
    """

    _name = "cortex"

    maps: object = field(default=None, metadata=_meta(
        "--cortex-maps", "your own cortical maps in place of the shipped ones: "
        "faces=lh.faces.gii:rh.faces.gii (GIFTI or MGH per hemisphere on fsaverage5, "
        "fsaverage or fs_LR 32k, left first), faces=faces.dscalar.nii (CIFTI-2, fs_LR), "
        "faces=lh.faces.mgh (one hemisphere) or faces=faces_mni.nii.gz (an MNI volume, "
        "projected with nilearn's vol_to_surf), comma-separated per domain; quote a path "
        "holding ':' or ',' (default: the visfAtlas ROIs; with --language the language "
        "parcels of Wolna et al., 2025)", metavar="NAME=PATH,...",
        language_help="your own language maps: language=lh.gii:rh.gii (GIFTI or MGH per "
        "hemisphere on fsaverage5, fsaverage or fs_LR 32k, left first), "
        "verbs=verbs.dscalar.nii (CIFTI-2, fs_LR), verbs=lh.verbs.func.gii (one hemisphere), "
        "language=sn_mni.nii.gz (an MNI volume) or verbs=group-level-contrast.nc (TopoLM's "
        "netCDF, read by toponeuro.atlases.read_netcdf_map; a bare PATH.nc is taken as "
        "verbs=PATH.nc); a map named language replaces the shipped parcels and is compared "
        "with the model's S - N map, a map named verbs is compared with the model's verb - "
        "noun map (default: TopoLM's group contrast), any other name joins them; "
        "comma-separated (default: the language parcels of Wolna et al., 2025)"))
    hemispheres: tuple | None = field(default=None, metadata=_meta(
        "--hemispheres", "cortical hemispheres compared (default: both; with --cortex-maps "
        "those the maps cover); the report says which", nargs="+",
        choices=("left", "right")))
    vol_to_surf: Mapping | None = field(default=None, metadata=_meta(
        "--vol-to-surf", "vol_to_surf parameters for NIfTI --cortex-maps, e.g. "
        "'{\"radius\": 2}' (default: radius 3 mm, linear interpolation; recorded in "
        "summary.json)", metavar="JSON", json=True))
    threshold: float | None = field(default=None, metadata=_meta(
        "--cortex-threshold", "patch threshold of --cortex-maps, in their units (default: "
        "--threshold)", language_help="region threshold of --cortex-maps, in their units "
        "(default: 2, TDANN's t threshold)"))
    min_vertices: int = field(default=10, metadata=_meta(
        "--cortex-min-vertices", "smallest cortex patch, in vertices"))
    n_permutations: int = field(default=1000, metadata=_meta(
        "--cortex-n-permutations", "draws of the spin test of every cortical statistic (map "
        "similarity, the arrangement's cortex side); 0 skips it",
        old_flags=("--cortex-permutations",)))
    kind: str = field(init=False, repr=False, compare=False, metadata=_meta(
        None, "what maps is (derived)"))

    def __post_init__(self):
        # canonical forms, not constraints: one hemisphere's name is a tuple of it; the kind
        # is derived from the (declared) maps
        if isinstance(self.hemispheres, str):
            _set(self, "hemispheres", (self.hemispheres,))
        _set(self, "kind", cortex_maps_kind(self.maps))


# --- extraction and the model ---------------------------------------------------------------
@dataclass(frozen=True)
@validate_fields({"batch_size": COUNT})
class Extraction:
    """How the activations are computed (:func:`toponeuro.extract`).

    Parameters
    ----------
    batch_size : int
        The extraction batch: stimuli per forward pass, at least 1 (it sets the memory and
        the speed, not the activations). Default: :func:`toponeuro.extract`'s, 64.
    device : str
        ``"cpu"``, ``"cuda"``, ``"cuda:N"`` or ``"mps"`` (checked against the hardware).
        Default: :func:`toponeuro.extract`'s, ``"cpu"``.

    Examples
    --------
    >>> Extraction(batch_size=8)
    Extraction(batch_size=8, device='cpu')
    """

    _name = "extraction"

    # the defaults are toponeuro.extract's own, declared once there
    batch_size: int = field(default=_EXTRACT["batch_size"].default, metadata=_meta(
        "--batch-size", "the extraction batch: stimuli per forward pass (it sets the memory "
        "and the speed, not the activations)", metavar="N"))
    device: str = field(default=_EXTRACT["device"].default, metadata=_meta(
        "--device", "cpu, cuda or cuda:N"))

    def __post_init__(self):
        from ._util.device import check_device

        # the device is checked against this machine's hardware (torch is imported only off
        # the cpu), which no field constraint does; a torch.device is stored as its name
        try:  # "cpu", the default made at import time, is always there: no torch to import
            if not (isinstance(self.device, str) and self.device == "cpu"):
                check_device(self.device)
        except DeviceError as err:
            raise DeviceError(str(err).replace("device=", "extraction.device=")) from None
        _set(self, "device", str(self.device))


@dataclass(frozen=True)
@validate_fields({
    "name": Text(error=InputTypeError, fix="Give a registered model name (see "
                 "toponeuro.models.list_models())."),
    "checkpoint": [InstanceOf((str, os.PathLike), "a path (a str or a pathlib.Path)",
                              example="weights.pt"), None],
    "trust_checkpoint": Boolean(),
    "unit_positions": [InstanceOf(Mapping, "a mapping layer -> positions (an array or a path)",
                                  example={}), None],
    "position_units": [Options(("mm", "sheet"), error=UnknownNameError,
                               fix="None (the default) takes the model card's, else mm."),
                       None],
})
class ModelSource:
    """Which model and weights a job maps.

    Parameters
    ----------
    name : str
        Registered model name (``toponeuro models``); with ``checkpoint``, the architecture
        of a plain state dict.
    checkpoint : path-like, optional
        A checkpoint written by ``toponeuro train`` or a plain state dict for ``name``.
    trust_checkpoint : bool
        Allow checkpoints that pickle arbitrary objects (runs their code).
    unit_positions : mapping, optional
        Free positions of the units of some layers (TDANN-style): ``{layer: (n_units, 2)
        array, or a path to a .npy / .csv}`` (vision job only; default the card's).
    position_units : {"mm", "sheet"}, optional
        Unit of ``unit_positions`` (default the card's, else ``"mm"``).

    Examples
    --------
    >>> ModelSource("toponet_demo.v2_tau_50").checkpoint is None
    True
    """

    _name = "model"

    name: str = field(default="toponet_demo.v2_tau_50", metadata=_meta(
        "--model", "registered model name arch.tag (see `toponeuro models`)"))
    checkpoint: object = field(default=None, metadata=_meta(
        "--checkpoint", "a checkpoint from `toponeuro train`, or a state dict for --model "
        "(default: the model's released weights)"))
    trust_checkpoint: bool = field(default=False, metadata=_meta(
        "--trust-checkpoint", "allow checkpoints that pickle arbitrary objects (runs their "
        "code)", action="store_true"))
    unit_positions: Mapping | None = field(default=None, metadata=_meta(
        "--unit-positions", "free positions of the units of a layer (TDANN-style): a .npy "
        "array (n_units, 2) or a .csv with columns unit, x, y, per layer (default: the model "
        "card's, if any); every statistic of that layer then measures distances between them",
        nargs="+", metavar="LAYER=PATH"))
    position_units: str | None = field(default=None, metadata=_meta(
        "--position-units", "unit of --unit-positions (default: the card's, else mm)",
        choices=("mm", "sheet")))


# --- the one-ruler comparison ---------------------------------------------------------------
@dataclass(frozen=True)
@validate_fields({"n_permutations": [N_PERMUTATIONS, None],
                  "descriptors": InstanceOf(RulerSettings, "a toponeuro.settings.RulerSettings",
                                            example=RulerSettings)})
class RulerRun:
    """The one-ruler model-vs-cortex comparison (:func:`toponeuro.analysis.compare_topography`).

    Parameters
    ----------
    n_permutations : int or None
        Draws of each side's null of every descriptor (0: no nulls; each row is then judged
        by the values and their tolerance alone). None: the job's default (the map job: 199;
        the language job: ``null.n_permutations``).
    descriptors : RulerSettings
        The descriptors' own parameters (:class:`RulerSettings`; Python only).

    Examples
    --------
    >>> RulerRun(n_permutations=99).descriptors == RulerSettings()
    True
    """

    _name = "ruler"

    n_permutations: int | None = field(default=None, metadata=_meta(
        "--ruler-n-permutations", "draws of each side's null in the model-vs-cortex "
        "comparison of every descriptor (default: the map job 199; with --language "
        "--n-permutations)", old_flags=("--fit-permutations",)))
    descriptors: RulerSettings = field(default_factory=RulerSettings, metadata=_meta(
        None, "the descriptors' parameters (Python only: a RulerSettings)"))


# --- the language job's units ---------------------------------------------------------------
@dataclass(frozen=True)
@validate_fields({
    "top_k": TOP_K,
    "q": PROBABILITY,
    "smooth_fwhm": [Interval(numbers.Real, 0, None, closed="neither",
                             fix="units.smooth_fwhm=None leaves the activations unsmoothed."),
                    None],
    "token_pooling": Options(TOKEN_POOLINGS, error=UnknownNameError),
})
class LanguageUnits:
    """TopoLM's language-selective units (:func:`toponeuro.analysis.language_selectivity`).

    Parameters
    ----------
    top_k : int or float
        The units kept over all layers: an int >= 1 is a count, a float in (0, 1] a fraction.
    q : float
        Benjamini-Hochberg false discovery rate, in (0, 1).
    smooth_fwhm : float or None
        FWHM of the activations' smoothing on the sheet (None: unsmoothed).
    token_pooling : str
        How a stimulus's tokens become one activation (``toponeuro.features.TOKEN_POOLINGS``).

    Examples
    --------
    >>> LanguageUnits(top_k=5).top_k
    5
    """

    _name = "units"

    top_k: float = field(default=0.1, metadata=_meta(
        "--top-k", "language-selective units kept over all layers: a count (5) or a "
        "fraction (0.1)", type=lambda s: int(s) if s.strip().isdigit() else float(s)))
    q: float = field(default=0.05, metadata=_meta(
        "--q", "Benjamini-Hochberg false discovery rate of the S vs N t test"))
    smooth_fwhm: float | None = field(default=2.0, metadata=_meta(
        "--smooth-fwhm", "FWHM of the activations' smoothing on the sheet", none="unsmoothed",
        cli_none="none"))
    # toponeuro extract takes this flag too
    token_pooling: str = field(default=_EXTRACT["token_pooling"].default, metadata=_meta(
        "--token-pooling", "pooling over a transformer layer's tokens (texts: their real "
        "tokens; a ViT: mean averages the patch tokens, first is the class token)",
        choices=TOKEN_POOLINGS))


# --- the stimuli ----------------------------------------------------------------------------
@dataclass(frozen=True)
@validate_fields({"source": _source('"floc"'),
                  "numbers": declared_params(floc_numbers)["numbers"]})
class FlocStimuli:
    """The fLoc images :func:`toponeuro.run_map` shows the model: where, and which numbers.

    ``run_map(stimuli="floc")`` is ``run_map(stimuli=FlocStimuli())``; the numbers travel
    with the images they choose.

    Parameters
    ----------
    source : "floc", path-like or StimulusSet
        ``"floc"``: ``$TOPONEURO_DATA/floc`` if it exists, else the pinned download; a local
        fLoc folder; or a :class:`~toponeuro.stimuli.StimulusSet` with fLoc categories.
    numbers : sequence of int, str or None
        The fLoc image numbers per category (read by :func:`toponeuro.stimuli.floc_numbers`).
        None: for ``"floc"`` the demo TopoNets' held-out images 97-120, for a folder every
        image in it; ``"all"``: every image; a range as text: ``"97-120"``.

    Examples
    --------
    >>> FlocStimuli(numbers="97-98").numbers
    '97-98'
    """

    _name = "stimuli"

    # the command line adds --stimuli (both jobs') and --images (read by floc_numbers) itself,
    # with this help
    source: object = field(default="floc", metadata=_meta(
        "--stimuli", "floc ($TOPONEURO_DATA/floc; images it lacks are downloaded into it) or "
        "a local fLoc folder with one sub-folder per category", cli_adds=True))
    numbers: object = field(default=None, metadata=_meta(
        "--images", "fLoc image numbers of each category, a range like 97-120 or all "
        "(default: with --stimuli floc 97-120, the images held out from the demo TopoNets' "
        "training; with --stimuli DIR every image in DIR, and the report says which of them "
        "the model was trained on)", cli_adds=True))

    def __post_init__(self):
        # what the numbers hold (a range's text, numbers >= 1) is read by floc_numbers, their
        # one reader; the declaration checks only their kind
        if self.numbers is not None:
            floc_numbers(self.numbers)


@dataclass(frozen=True)
@validate_fields({"source": _source('"langloc"'), "verb_noun": [_source('"topolm"'), None]})
class LanguageStimuli:
    """The items :func:`toponeuro.run_language_map` reads: the localizer's and the verb - noun
    fit's.

    ``run_language_map(stimuli="langloc")`` is ``run_language_map(stimuli=LanguageStimuli())``.

    Parameters
    ----------
    source : "langloc", path-like or StimulusSet
        ``"langloc"``: the pinned Fedorenko et al. (2010) localizer csv (cached,
        sha256-checked); a local csv with columns ``sentence``, ``condition``; or a
        StimulusSet whose categories are the conditions.
    verb_noun : "topolm", path-like, StimulusSet or None
        The verb and noun items of TopoLM's fMRI fit (Elli et al., 2019;
        :func:`~toponeuro.reporting.load_verb_noun_stimuli`): ``"topolm"`` the pinned
        ``elli_stimuli.csv``, a local copy, or a StimulusSet of ``verb`` / ``noun`` items;
        None leaves the verb - noun map and its comparison out.

    Examples
    --------
    >>> LanguageStimuli(verb_noun=None).source
    'langloc'
    """

    _name = "stimuli"

    # the command line adds --stimuli (both jobs') and --verb-noun (none: None) itself, with
    # this help
    source: object = field(default="langloc", metadata=_meta(
        "--stimuli", "langloc ($TOPONEURO_DATA/langloc, the pinned localizer csv, cached) or a "
        "local csv with columns sentence, condition", cli_adds=True))
    verb_noun: object = field(default="topolm", metadata=_meta(
        "--verb-noun", "the verb and noun items of TopoLM's fMRI fit (Elli et al., 2019): "
        "topolm (the pinned elli_stimuli.csv, cached), a local copy, or none to leave the verb "
        "- noun map and its comparison with the cortex out; the cortex side is --cortex-maps "
        "verbs=..., else TopoLM's group contrast", metavar="topolm|CSV|none", cli_none="none",
        cli_adds=True))


# --- the summary's record -------------------------------------------------------------------
def _cortex_maps_json(cortex: CortexInput):
    if cortex.kind == "loaded":
        return sorted({str(f) for c in cortex.maps.values() for f in c.files}) or "<maps>"
    return record_value(cortex.maps)


def settings_record(**settings) -> dict:
    """The settings objects as ``summary.json`` records them: ``{parameter: {field: value}}``.

    Same names as the fields; paths as text; the cortex maps as their files (loaded maps) or
    as given; arrays as ``"<array shape>"``; a numpy Generator seed as ``"<Generator>"``.

    Parameters
    ----------
    **settings
        Parameter name -> settings object (``null=NullSettings(), ...``).

    Returns
    -------
    dict
        JSON-able, one record per parameter.

    Examples
    --------
    >>> settings_record(null=NullSettings(n_permutations=9))
    {'null': {'n_permutations': 9, 'alpha': 0.05, 'random_state': 0}}
    """
    out = {}
    for name, obj in settings.items():
        rec = {}
        for f in dataclasses.fields(obj):
            if not f.init:
                continue
            value = getattr(obj, f.name)
            rec[f.name] = (_cortex_maps_json(obj) if isinstance(obj, CortexInput)
                           and f.name == "maps" else record_value(value))
        if isinstance(obj, CortexInput):
            rec["kind"] = obj.kind
        out[name] = rec
    return out


# --- the 0.4 keywords, for one release --------------------------------------------------------
#: a 0.4 keyword of ``run_map`` / ``run_language_map`` -> the settings field that replaced it
#: (``parameter.field``); the jobs accept them until 0.6 with a FutureWarning
OLD_KEYWORDS = {
    "checkpoint": "model.checkpoint",
    "trust_checkpoint": "model.trust_checkpoint",
    "unit_positions": "model.unit_positions",
    "position_units": "model.position_units",
    "threshold": "patches.threshold",
    "min_units": "patches.min_units",
    "n_permutations": "null.n_permutations",
    "alpha": "null.alpha",
    "random_state": "null.random_state",
    "hemispheres": "cortex.hemispheres",
    "cortex_maps": "cortex.maps",
    "vol_to_surf": "cortex.vol_to_surf",
    "cortex_threshold": "cortex.threshold",
    "cortex_min_vertices": "cortex.min_vertices",
    "cortex_permutations": "cortex.n_permutations",
    "batch_size": "extraction.batch_size",
    "device": "extraction.device",
    "ruler_permutations": "ruler.n_permutations",
    "fit_permutations": "ruler.n_permutations",
    "top_k": "units.top_k",
    "q": "units.q",
    "smooth_fwhm": "units.smooth_fwhm",
    "token_pooling": "units.token_pooling",
    "numbers": "stimuli.numbers",
    "verb_noun": "stimuli.verb_noun",
    "progress": "verbose",
}
