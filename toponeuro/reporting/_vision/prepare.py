"""``toponeuro prepare``: the vision job's cortex side, drawn once, before the first run.

The cortex side of ``toponeuro map`` -- the spin tests of the cortex maps (the shipped
visfAtlas on fsaverage5 by default), the spin draws of their arrangement and every cortex
descriptor of the one ruler with its null -- depends on the maps, the mesh, the settings and
the seed, never on the model (each side draws from its own stream). The job keeps it in the
null cache (:mod:`toponeuro._io.null_cache`), so only its first run pays for it;
:func:`prepare` pays for it at install instead: it runs the job's own stages
(:class:`~toponeuro.reporting._vision.job._MapJob`'s ``cortex`` and ``compare``, the code
:func:`~toponeuro.reporting.run_map` runs) with the same settings, on a stand-in model side
(the job's default model on a few synthetic images of the ten fLoc categories, its own nulls
not drawn), and keeps what they draw. No fLoc images are needed, no output folder
is written.
"""

from __future__ import annotations

import dataclasses
import time

from ..._util.docs import fill_doc
from ...settings import (
    CortexInput,
    Extraction,
    NullSettings,
    PatchRule,
    RulerRun,
    _job_settings,
)

__all__ = ["prepare"]

#: synthetic images per fLoc category of the stand-in model side (enough for a t map)
_N_PER_CATEGORY = 3


@fill_doc
def prepare(*, cortex: CortexInput = CortexInput(), null: NullSettings = NullSettings(),
            ruler: RulerRun = RulerRun(n_permutations=199), verbose: int = 1) -> dict:
    """Fill the null cache with the vision job's cortex side, so its first run is a warm run.

    Draws what :func:`~toponeuro.reporting.run_map` draws on the cortex with the same
    ``cortex``, ``null`` and ``ruler`` settings (the job's defaults unless given: the
    visfAtlas domain maps on fsaverage5, 1,000 spin draws, 199 draws of each ruler
    descriptor, seed 0) -- through the job's own cortex and compare stages -- and keeps them
    in the null cache (``$TOPONEURO_NULL_CACHE``, else ``nulls/`` in the cache root). A later
    ``toponeuro map`` with those settings, of any model on the fLoc images (the five domains),
    reads them instead of drawing them. Entries already there are verified and kept; running
    it twice draws nothing the second time.

    Parameters
    ----------
    cortex : CortexInput
        The cortex maps and their spin draws, as for :func:`~toponeuro.reporting.run_map`
        (default: the shipped visfAtlas; a lab's own maps are prepared the same way).
    null : NullSettings
        Its ``random_state`` and ``alpha`` (the seed the job will use); the model side's
        draws are not made here.
    ruler : RulerRun
        The ruler's draws and descriptor settings, as for the job (default 199 draws).
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
    prepared the cortex side of `toponeuro map`: 32 entries drawn, 0 already there (41 s)
    >>> toponeuro.prepare(verbose=0)["drawn"]  # doctest: +SKIP
    {}
    """
    from ..._io.null_cache import cache_counts
    from ...stimuli import FLOC_CATEGORIES, make_stimulus_set
    from .._kit.constants import DEFAULT_MAP_MODEL
    from .job import _MapJob

    t0 = time.perf_counter()
    # the job's own settings, its defaults filled in as run_map fills them
    src, _, null, patches, cortex, ruler, extraction, verbose, settings = _job_settings(
        "run_map", DEFAULT_MAP_MODEL, DEFAULT_MAP_MODEL, {}, ruler_draws=199, stimuli="floc",
        verbose=verbose, null=null, patches=PatchRule(), cortex=cortex, ruler=ruler,
        extraction=Extraction()).values()
    # the model side is a stand-in: its own nulls (drawn from the model's stream) are not
    # needed for the cortex's, which depend on the cortex maps, settings and seed alone
    job = _MapJob(src, None, None, null=dataclasses.replace(null, n_permutations=0),
                  patches=patches, cortex=cortex, ruler=ruler, extraction=extraction,
                  random_init_baseline=False, settings=settings, verbose=0)
    before = cache_counts()
    job.model()
    job.stim = make_stimulus_set(_N_PER_CATEGORY, [c for c in FLOC_CATEGORIES
                                                   if c != "scrambled"])
    job.maps()
    job.topography()
    job.cortex()
    job.compare()
    after = cache_counts()
    out = {"drawn": _delta(before, after, "miss"), "already": _delta(before, after, "hit"),
           "seconds": round(time.perf_counter() - t0, 1)}
    if verbose:
        print(f"prepared the cortex side of `toponeuro map`: {sum(out['drawn'].values())} "
              f"entries drawn, {sum(out['already'].values())} already there "
              f"({out['seconds']:.0f} s)")
    return out


def _delta(before: dict, after: dict, what: str) -> dict:
    """``{kind: n}`` of the ``what`` counts that grew from ``before`` to ``after``."""
    out = {}
    for kind, n in after.items():
        d = n[what] - before.get(kind, {}).get(what, 0)
        if d:
            out[kind] = d
    return out
