"""``toponeuro prepare``: a job's cortex side, drawn once, before its first run.

The cortex side of ``toponeuro map`` -- the spin tests of the cortex maps (the shipped
visfAtlas on fsaverage5 by default), the spin draws of their arrangement and every cortex
descriptor of the one ruler with its null -- depends on the maps, the mesh, the settings and
the seed, never on the model (each side draws from its own stream). The job keeps it in the
null cache (:mod:`toponeuro._io.null_cache`), so only its first run pays for it;
:func:`prepare` pays for it at install instead, by running the job's own stages
(``_MapJob``'s or ``_LanguageJob``'s ``cortex`` and ``compare``, the code the job runs) with
the same settings and keeping what they draw. The model side is computed as the job
computes it, without its own nulls (drawn from the model's stream, they are not needed):
the vision job's default model on a few synthetic images of the ten fLoc categories (no fLoc
images are needed), the language job's on its localizer and verb - noun items. No output
folder is written.
"""

from __future__ import annotations

import dataclasses
import time

from .._util.params import Boolean, Options, validate_params
from ..settings import CortexInput, Extraction, NullSettings, PatchRule, RulerRun
from ._kit.job import settings_param
from ._kit.settings import job_settings

__all__ = ["prepare"]

#: synthetic images per fLoc category of the vision job's stand-in model side
_N_PER_CATEGORY = 3


@validate_params(dict(job=Options(("map", "language")), verbose=[Boolean(), Options((0, 1))],
                     cortex=settings_param(CortexInput), null=settings_param(NullSettings),
                     ruler=settings_param(RulerRun)))
def prepare(job: str = "map", *, stimuli=None, cortex: CortexInput = CortexInput(),
            null: NullSettings = NullSettings(), ruler: RulerRun = RulerRun(),
            verbose: int = 1) -> dict:
    """Fill the null cache with a job's cortex side, so that its first run is a warm run.

    Draws what :func:`~toponeuro.reporting.run_map` (``job="map"``) or
    :func:`~toponeuro.reporting.run_language_map` (``job="language"``) draws on the cortex,
    with the same ``cortex``, ``null`` and ``ruler`` settings (the job's defaults unless
    given: for the map the visfAtlas domain maps on fsaverage5, 1,000 spin draws, 199 draws
    of each ruler descriptor, seed 0), through the job's own cortex and compare stages, and
    keeps it in the null cache (``$TOPONEURO_NULL_CACHE``, else ``nulls/`` in the cache
    root). A later run of the job with those settings reads it instead of drawing it: the
    cortex side does not depend on the model (for the map: any model on the fLoc images,
    whose five domains it compares). Entries already there are verified and kept; a second
    call draws nothing.

    Parameters
    ----------
    job : {"map", "language"}
        The vision job (``toponeuro map``) or the language job (``toponeuro map
        --language``).
    stimuli : LanguageStimuli or path-like, optional
        The language job's localizer and verb - noun items, as for
        :func:`~toponeuro.reporting.run_language_map` (default ``"langloc"`` and TopoLM's
        items; their cortex map comes with them). Refused for ``job="map"``
        (:class:`~toponeuro.exceptions.ParameterError`): its cortex side needs no images.
    cortex : CortexInput
        The cortex maps and their spin draws, as for the job (default: the shipped atlas or
        parcels; a lab's own maps are prepared the same way).
    null : NullSettings
        Its ``random_state`` and ``alpha`` (the seed the job will use); for the language
        job also its ``n_permutations`` (the ruler's draws default to them). The model
        side's own nulls are not drawn here.
    ruler : RulerRun
        The ruler's draws and descriptor settings, as for the job (default: 199 draws for
        the map, ``null.n_permutations`` for the language job).
    verbose : int
        0: silent; 1: one line saying what was drawn and what was already there.

    Returns
    -------
    dict
        ``{"drawn": {kind: n}, "already": {kind: n}, "seconds": s}``: the cache entries
        computed and those read (already there, verified), per kind
        (:func:`toponeuro._io.null_cache.cache_counts`).

    Examples
    --------
    >>> import toponeuro
    >>> info = toponeuro.prepare()  # doctest: +SKIP
    prepared the cortex side of `toponeuro map`: 47 entries drawn, 0 already there (40 s)
    >>> toponeuro.prepare(verbose=0)["drawn"]  # doctest: +SKIP
    {}
    """
    from .._io.null_cache import cache_counts

    if job == "map" and stimuli is not None:
        from ..exceptions import ParameterError

        raise ParameterError(
            "stimuli= is the language job's (its localizer and verb - noun items); the map's "
            "cortex side needs no images. Pass job='language', or leave stimuli out.")
    t0 = time.perf_counter()
    before = cache_counts()
    stages = _language_stages(stimuli, cortex, null, ruler) if job == "language" else \
        _map_stages(cortex, null, ruler)
    for stage in ("model", "stimuli", "maps", "topography", "cortex", "compare"):
        getattr(stages, stage)()
    after = cache_counts()
    out = {"drawn": _delta(before, after, "miss"), "already": _delta(before, after, "hit"),
           "seconds": round(time.perf_counter() - t0, 1)}
    if verbose:
        command = "toponeuro map" + (" --language" if job == "language" else "")
        print(f"prepared the cortex side of `{command}`: {sum(out['drawn'].values())} entries "
              f"drawn, {sum(out['already'].values())} already there ({out['seconds']:.0f} s)")
    return out


def _map_stages(cortex, null, ruler):
    """The vision job, made as :func:`~toponeuro.reporting.run_map` makes it (its settings
    filled in the same way), its stimuli a few synthetic images of the fLoc categories."""
    from ..stimuli import FLOC_CATEGORIES, make_stimulus_set
    from ._kit.constants import DEFAULT_MAP_MODEL
    from ._vision.job import _MapJob

    src, _, null, patches, cortex, ruler, extraction, _, settings = job_settings(
        "run_map", DEFAULT_MAP_MODEL, DEFAULT_MAP_MODEL, {}, ruler_draws=199, stimuli="floc",
        verbose=0, null=null, patches=PatchRule(), cortex=cortex, ruler=ruler,
        extraction=Extraction()).values()

    class _StandIn(_MapJob):
        def stimuli(self) -> None:  # the cortex side does not depend on the images
            self.stim = make_stimulus_set(_N_PER_CATEGORY, [c for c in FLOC_CATEGORIES
                                                           if c != "scrambled"])

    # the ruler's draws are filled in above: only the model side's own nulls are left out
    return _StandIn(src, None, None, null=dataclasses.replace(null, n_permutations=0),
                    patches=patches, cortex=cortex, ruler=ruler, extraction=extraction,
                    random_init_baseline=False, settings=settings, verbose=0)


def _language_stages(stimuli, cortex, null, ruler):
    """The language job, made as :func:`~toponeuro.reporting.run_language_map` makes it."""
    from ..settings import LanguageUnits
    from ._kit.constants import DEFAULT_LANGUAGE_MODEL
    from ._language.job import _LanguageJob

    src, stim, null, patches, units, cortex, ruler, extraction, _, settings = job_settings(
        "run_language_map", DEFAULT_LANGUAGE_MODEL, DEFAULT_LANGUAGE_MODEL, {},
        ruler_draws=None, stimuli="langloc" if stimuli is None else stimuli, verbose=0,
        null=null, patches=PatchRule(), units=LanguageUnits(), cortex=cortex, ruler=ruler,
        extraction=Extraction()).values()
    return _LanguageJob(src, stim, None, null=dataclasses.replace(null, n_permutations=0),
                        patches=patches, units=units, cortex=cortex, ruler=ruler,
                        extraction=extraction, settings=settings, verbose=0)


def _delta(before: dict, after: dict, what: str) -> dict:
    """``{kind: n}`` of the ``what`` counts that grew from ``before`` to ``after``."""
    out = {}
    for kind, n in after.items():
        d = n[what] - before.get(kind, {}).get(what, 0)
        if d:
            out[kind] = d
    return out
