"""The vision job's model-vs-cortex comparison on the one ruler (issue 43).

For every mapped layer and cortical hemisphere, every descriptor is computed on both sides
by :func:`toponeuro.analysis.compare_topography` (one function per descriptor, the same
parameters on both sides; each side's null on its own geometry): the model's domain
selectivity maps on the layer's sheet (grid, or units at free positions) against the
cortex's maps of the same domains. The visfAtlas gives binary ROIs: only the descriptors a
binary map defines are compared and the others are listed as left out; a lab's continuous
``cortex_maps`` get all of them. The headline is chosen by the rule of
:mod:`._headline_rule`, fixed in advance.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import numpy as np
import xarray as xr

from ..._util import dims as D
from ..._util.constraints import MAPPING, DataArrayWith, Names
from ..._util.docs import fill_doc
from ..._util.params import (
    ALPHA,
    COUNT,
    N_PERMUTATIONS,
    SEED,
    InstanceOf,
    Options,
    Text,
    validate_params,
)
from ...analysis import RulerSettings
from .._kit.constants import CORTEX_DOMAINS, MAP_DOMAINS
from .._kit.headline import HEADLINE_RULE, choose_headline
from .._kit.report import RulerComparisonRecord, RulerHeadlineRecord, RulerRecord, RulerRowRecord

__all__ = ["ruler_cortex_maps", "ruler_comparisons", "ruler_summary", "ruler_table",
           "model_selectivity_boot", "cortex_region_mask", "REGION_MM"]


#: the ruler's settings object, as the job makes it (checked when it was made)
_SETTINGS = InstanceOf(RulerSettings, "a RulerSettings", example=RulerSettings)

#: the geodesic reach of :attr:`RulerSettings.cortex_region` ``"votc"`` around the
#: visfAtlas's category ROIs, in mm (the job's proximity scale)
REGION_MM = 10.0


@validate_params(dict(region=[Options(("votc",)), None], mesh=Text(),
                      hemi=Options(("left", "right"))))
def cortex_region_mask(region, mesh: str, hemi: str) -> np.ndarray | None:
    """The vertices of ``region`` on one hemisphere (:attr:`RulerSettings.cortex_region`).

    Parameters
    ----------
    region : {"votc", None}
        ``"votc"``: every vertex within :data:`REGION_MM` mm (geodesic, folded surface) of
        a visfAtlas category ROI (faces, bodies, characters, places) of the hemisphere;
        None: the whole hemisphere.
    mesh : str
        The maps' mesh; the region is defined on fsaverage5 only.
    hemi : {"left", "right"}
        The hemisphere.

    Returns
    -------
    numpy.ndarray of bool or None
        The region's vertices; None for the whole hemisphere (``region=None``, or a mesh
        the region is not defined on).

    Examples
    --------
    >>> m = cortex_region_mask("votc", "fsaverage5", "left")
    >>> m.shape, 500 < int(m.sum()) < 5000
    ((10242,), True)
    >>> cortex_region_mask(None, "fsaverage5", "left") is None
    True
    """
    if region is None or mesh != "fsaverage5":
        return None
    from ...atlases import cortex_maps as atlas_maps
    from ...atlases import load_visfatlas, roi_proximity

    cm = atlas_maps(load_visfatlas("fsaverage5"), CORTEX_DOMAINS, hemispheres=[hemi],
                    representation="binary")[hemi]
    rois = np.zeros(len(next(iter(cm.maps.values()))), dtype=bool)
    for v in cm.maps.values():
        rois |= np.asarray(v, float) > 0.5
    return roi_proximity(rois, hemi, scale_mm=REGION_MM) >= np.exp(-1.0)


@validate_params(dict(settings=[_SETTINGS, None]))
def ruler_cortex_maps(cortex, settings=None) -> dict:
    """``hemisphere -> {domain: TopoMap}``: the cortex side of the ruler.

    The atlas's ROIs are taken as they are, 0/1 (the job's proximity representation is a
    display choice, not the atlas's data); a lab's maps as given. Each map is put on its
    template mesh by :func:`toponeuro.analysis.mesh_topomap` -- the function any lab's
    mesh map goes through: folded-surface positions in mm, geodesic neighbours and
    distances along the mesh, its sphere for the spin test -- and measured over
    ``settings.cortex_region`` (the vertices outside it have no data).

    Parameters
    ----------
    cortex : CortexTopography
        What :func:`~toponeuro.reporting.cortex_topography` returned.
    settings : RulerSettings, optional
        Its ``cortex_region`` (default ``RulerSettings()``: ``"votc"``).

    Returns
    -------
    dict
        ``hemisphere -> {domain: TopoMap}``, each map on its own mesh.

    Examples
    --------
    >>> from toponeuro.reporting import cortex_topography
    >>> side = ruler_cortex_maps(cortex_topography(["left"], similarity_permutations=0))
    >>> sorted(side["left"]), side["left"]["faces"].geometry
    (['bodies', 'characters', 'faces', 'places'], 'mesh')
    """
    from ...analysis import RulerSettings, mesh_topomap
    from ...atlases import cortex_maps as atlas_maps

    settings = settings or RulerSettings()
    maps = cortex.maps
    if cortex.atlas is not None:
        maps = atlas_maps(cortex.atlas, CORTEX_DOMAINS, hemispheres=list(cortex.maps),
                          representation="binary")
    out = {}
    for hemi, cm in maps.items():
        mesh = getattr(cm, "mesh", None) or "fsaverage5"
        keep = cortex_region_mask(settings.cortex_region, mesh, hemi)
        out[hemi] = {}
        for d, v in cm.maps.items():
            v = np.asarray(v, float)
            if keep is not None:
                v = np.where(keep, v, np.nan)
            out[hemi][d] = mesh_topomap(v, mesh, hemi, name=f"{hemi} {d}")
    return out


def _model_maps(selectivity: xr.DataArray, layer: str, domains) -> dict:
    from ...analysis import as_topomap

    return {d: as_topomap(selectivity.sel({D.DOMAIN: d}).topo.select(layer),
                          name=f"{layer} {d}") for d in domains}


@validate_params(dict(selectivity=DataArrayWith((D.DOMAIN, D.UNIT)), layers=Names(empty=False),
                      n_permutations=N_PERMUTATIONS, alpha=ALPHA, random_state=SEED,
                      activations=[DataArrayWith((D.STIMULUS, D.UNIT)), None],
                      settings=[_SETTINGS, None]))
@fill_doc
def ruler_comparisons(selectivity: xr.DataArray, layers: Sequence[str], cortex, *,
                      n_permutations: int = 1000, alpha: float = 0.05,
                      random_state=0, activations: xr.DataArray | None = None,
                      settings=None) -> dict:
    """``{(layer, hemisphere): TopographyComparison}``: every descriptor on both sides.

    Parameters
    ----------
    selectivity : xarray.DataArray
        The model's domain selectivity maps, dims ``("domain", "unit")``.
    layers : sequence of str
        The model layers compared.
    cortex : CortexTopography
        The cortex's side (:func:`~toponeuro.reporting.cortex_topography`).
    %(n_permutations)s
        Here: as for :func:`toponeuro.analysis.compare_topography` (the same draws on each
        side).
    %(alpha)s
    %(random_state)s
    %(activations)s
        Optional here: those ``selectivity`` was computed from. With them the model
        side's values get a 95%% interval over stimuli (``settings.n_boot`` resamples of
        the stimuli within each category, the selectivity maps recomputed,
        :func:`model_selectivity_boot`); without them, no interval.
    settings : RulerSettings, optional
        The descriptors' parameters and ``n_boot`` (default ``RulerSettings()``).

    Returns
    -------
    dict
        ``(layer, hemisphere)`` -> :class:`~toponeuro.analysis.TopographyComparison`.

    Examples
    --------
    >>> import toponeuro
    >>> from toponeuro.reporting import cortex_topography, model_topography
    >>> from toponeuro.stimuli import FLOC_CATEGORIES
    >>> ten = [c for c in FLOC_CATEGORIES if c != "scrambled"]
    >>> acts = toponeuro.make_activations({"v1": 64}, 30, random_state=1, categories=ten * 3)
    >>> sel = model_topography(acts, ["v1"], n_permutations=0).selectivity
    >>> out = ruler_comparisons(sel, ["v1"], cortex_topography(["left"],
    ...                         similarity_permutations=0), n_permutations=0)
    >>> sorted(out["v1", "left"].left_out)
    ['smoothness']
    """
    from ..._io.null_cache import use_null_cache
    from ...analysis import RulerSettings

    settings = settings or RulerSettings()
    side = ruler_cortex_maps(cortex, settings)
    with use_null_cache():  # the cortex side: once per maps, mesh, settings and seed
        return _comparisons(selectivity, layers, side, settings, n_permutations, alpha,
                            random_state, activations)


def _comparisons(selectivity, layers, side, settings, n_permutations, alpha, random_state,
                 activations) -> dict:
    """:func:`ruler_comparisons` on the cortex maps ``side`` (inside the null cache)."""
    from ...analysis import compare_topography

    out, done = {}, {}
    have = set(map(str, selectivity[D.DOMAIN].values))
    for layer in layers:
        boot = None
        if activations is not None and settings.n_boot:
            doms = sorted({d for cmaps in side.values() for d in cmaps if d in have})
            boot = model_selectivity_boot(activations, layer, doms, n_boot=settings.n_boot,
                                          random_state=random_state)
        model_done = None
        for hemi, cmaps in side.items():
            domains = [d for d in cmaps if d in have]
            out[layer, hemi] = compare_topography(
                _model_maps(selectivity, layer, domains), {d: cmaps[d] for d in domains},
                n_permutations=n_permutations, alpha=alpha, random_state=random_state,
                cortex_results=done.get(hemi), model_results=model_done, settings=settings,
                model_boot=None if boot is None else [{d: b[d] for d in domains}
                                                       for b in boot])
            # the cortex's descriptors do not depend on the layer: computed once per hemisphere
            done.setdefault(hemi, [r.cortex for r in out[layer, hemi].rows])
            # nor the model's on the hemisphere: the layer's maps, settings, draws and integer
            # seed are the same, so the next hemisphere reuses them where it measures the same
            # descriptors and domains in the same order (compare_topography checks that)
            if isinstance(random_state, numbers.Integral):
                model_done = [r.model for r in out[layer, hemi].rows]
    return out


@validate_params(dict(activations=DataArrayWith((D.STIMULUS, D.UNIT)), layer=Text(),
                      domains=Names(), n_boot=COUNT, random_state=SEED))
@fill_doc
def model_selectivity_boot(activations: xr.DataArray, layer: str, domains: Sequence[str], *,
                           n_boot: int = 50, random_state=0) -> list:
    """The model's domain selectivity maps on ``layer``, recomputed from resampled stimuli.

    The stimuli are drawn with replacement within each category (each category keeps its
    count; :func:`toponeuro.analysis.bootstrap_maps`) and the maps recomputed as the job
    computes them (:func:`toponeuro.analysis.domain_selectivity`, TDANN's t of each domain
    against the other four). What the ruler's model-side intervals come from.

    Parameters
    ----------
    %(activations)s
    layer : str
        The layer whose maps are resampled.
    domains : sequence of str
        The domains wanted.
    n_boot : int
        Resamples (``RulerSettings.n_boot``).
    %(random_state)s

    Returns
    -------
    list of dict
        ``n_boot`` mappings ``domain -> TopoMap``, each on the layer's sheet.

    Examples
    --------
    >>> import toponeuro
    >>> from toponeuro.stimuli import FLOC_CATEGORIES
    >>> ten = [c for c in FLOC_CATEGORIES if c != "scrambled"]
    >>> acts = toponeuro.make_activations({"v1": 64}, 30, random_state=1, categories=ten * 3)
    >>> boot = model_selectivity_boot(acts, "v1", ["faces", "places"], n_boot=2)
    >>> len(boot), sorted(boot[0]), boot[0]["faces"].geometry
    (2, ['faces', 'places'], 'sheet')
    """
    from ...analysis import as_topomap, bootstrap_maps, domain_selectivity

    sub = activations.topo.select(layer)

    def make(a):
        sel = domain_selectivity(a, list(MAP_DOMAINS))
        return {d: as_topomap(sel.sel({D.DOMAIN: d}), name=f"{layer} {d}") for d in domains}

    return bootstrap_maps(sub, make, n_boot=n_boot, random_state=random_state)


def _num(v):
    v = float(v)
    return round(v, 6) if np.isfinite(v) else None


def _row_entry(row) -> RulerRowRecord:
    m, c = row.model, row.cortex
    return RulerRowRecord(**{"descriptor": row.descriptor, "domain": row.domain, "statistic": row.statistic,
            "model": _num(m.value), "model_p": _num(m.p_value), "model_null": m.null,
            "model_draws": int(m.n_permutations),
            "model_lo": _num(m.interval[0]) if m.interval is not None else None,
            "model_hi": _num(m.interval[1]) if m.interval is not None else None,
            "model_boot": int(m.n_boot),
            "cortex": _num(c.value), "cortex_p": _num(c.p_value), "cortex_null": c.null,
            "cortex_draws": int(c.n_permutations), "verdict": row.verdict,
            "reason": row.reason, "reference": m.reference})


@validate_params(dict(comparisons=MAPPING, layers=Names(), alpha=ALPHA))
@fill_doc
def ruler_summary(comparisons: dict, layers: Sequence[str], alpha: float) -> RulerRecord:
    """The summary's ``ruler`` section: each (layer, hemisphere)'s rows, what was left out
    and why, the counts of each verdict, and the headline chosen by the fixed rule.

    Parameters
    ----------
    comparisons : dict
        ``(layer, hemisphere)`` -> comparison, as :func:`ruler_comparisons` returns.
    layers : sequence of str
        Layer order, shallow to deep (for the headline rule).
    %(alpha)s

    Returns
    -------
    RulerRecord
        ``comparisons`` (``"layer|hemisphere"`` -> its
        :class:`~toponeuro.reporting._kit.report.RulerComparisonRecord`: rows, ``left_out``,
        ``counts``, geometries) and ``headline`` (a
        :class:`~toponeuro.reporting._kit.report.RulerHeadlineRecord`: ``chosen``, ``rule``
        and the chosen row).

    Examples
    --------
    >>> ruler_summary({}, ["l4"], 0.05).headline.chosen
    False
    """
    per = {}
    for (layer, hemi), comp in comparisons.items():
        per[f"{layer}|{hemi}"] = RulerComparisonRecord(
            layer=layer, hemisphere=hemi, rows=[_row_entry(r) for r in comp.rows],
            left_out=dict(comp.left_out), counts=comp.counts(),
            model_geometry=comp.model_geometry, cortex_geometry=comp.cortex_geometry)
    pick = choose_headline(comparisons, alpha=alpha, layers=list(layers))
    if pick is not None:
        head = RulerHeadlineRecord(
            chosen=True, rule=HEADLINE_RULE, layer=pick.layer, hemisphere=pick.hemisphere,
            evidence=_num(pick.evidence), n_eligible=pick.n_eligible, n_rows=pick.n_rows,
            row=_row_entry(pick.row))
    else:
        head = RulerHeadlineRecord(chosen=False, rule=HEADLINE_RULE, n_eligible=0,
                                   n_rows=sum(len(c.rows) for c in comparisons.values()))
    return RulerRecord(comparisons=per, headline=head)


@validate_params(dict(comparisons=MAPPING))
def ruler_table(comparisons: dict):
    """Every (layer, hemisphere)'s rows as one table (``comparison_ruler.csv``): layer,
    hemisphere, then :meth:`~toponeuro.analysis.TopographyComparison.to_frame`'s columns.

    Parameters
    ----------
    comparisons : dict
        ``(layer, hemisphere)`` -> comparison, as :func:`ruler_comparisons` returns.

    Returns
    -------
    pandas.DataFrame
        One row per descriptor, domain, layer and hemisphere.

    Examples
    --------
    >>> ruler_table({}).columns[:2].tolist()
    ['layer', 'hemisphere']
    """
    import pandas as pd

    frames = []
    for (layer, hemi), comp in comparisons.items():
        f = comp.to_frame()
        f.insert(0, "hemisphere", hemi)
        f.insert(0, "layer", layer)
        frames.append(f)
    if not frames:
        return pd.DataFrame(columns=["layer", "hemisphere", "descriptor", "domain",
                                     "statistic", "model", "cortex", "verdict"])
    return pd.concat(frames, ignore_index=True)
