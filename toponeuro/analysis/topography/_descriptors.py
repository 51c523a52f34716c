"""The topography descriptors of the one ruler: one function each, any geometry.

Contract (read by the jobs; keep it stable -- extend, don't rename):

* A *map* is anything :func:`as_topomap` reads (a :class:`TopoMap` is best: a grid sheet,
  units at free positions, or a mesh with ``faces``/``adjacency`` and a ``sphere``).
* Every descriptor function takes one map (similarity: two; arrangement: a mapping of named
  maps), a :class:`RulerSettings` (parameters declared once, in units of the map's
  **extent**, so the model's sheet and the cortex are measured with the same numbers),
  ``n_permutations`` and ``random_state``, and returns a :class:`DescriptorResult`: the
  value, its null p on its own geometry (``null`` names it, ``"none"`` where the geometry
  has no null for it), the number of draws, the statistic's name and its source.
* :data:`DESCRIPTORS` lists the descriptor names in the order reports show them;
  :data:`BINARY_DESCRIPTORS` those a binary map (an ROI) defines.
* :func:`descriptor_value` computes any one-map descriptor without its null (what the
  bootstrap over stimuli repeats); :func:`bootstrap_maps` resamples stimuli.

Definitions (docs/one_ruler.rst gives the sources):

``smoothness``
    TDANN's smoothness score (Margalit et al. 2024): ``(max - first bin) / max`` of the mean
    ``|v_i - v_j|`` in distance bins from 0 to ``max_distance`` x extent; null: positions.
``clustering``
    Moran's I with the geometry's one neighbour rule (TopoLM, Rathi et al. 2025), row-
    standardised; null: positions (esda's ``p_sim``).
``selective_fraction``
    Area fraction of the points with data whose value reaches ``threshold`` (binary maps:
    0.5). Position-free, so it has no spatial null.
``patch_count`` / ``patch_size``
    TDANN's patches with every length in extent units: smoothed with a Gaussian of
    ``smooth_sigma`` x extent, thresholded, connected along the geometry's neighbours, kept
    with an area between ``min_patch_area`` and ``max_patch_area`` x extent^2; the count,
    and the mean patch area / extent^2. Null: positions (two-sided for the count).
``domain_similarity``
    Pearson r across the points with data in both maps (one statistic on every geometry;
    SSIM on a sheet in ``detail["ssim"]``, TopoNets). Null: the shift (sheet: mirrored
    shift; mesh: spin test on its sphere); free positions: none. The shift moves each map
    in turn with the same moves (half the draws each), so ``n`` draws use
    ``n - n // 2`` distinct moves (``detail["distinct_moves"]``).
``arrangement``
    The distances between domain centres (of the top 10% of each map, the point nearest
    their weighted mean in the map's 2-D parametrisation: grid, free positions, a mesh's
    sphere), along the map's own distance, divided by the extent; its value is their mean,
    ``detail["distances"]`` the vector, compared pair by pair (:func:`ruler_verdict`).
"""

from __future__ import annotations

import hashlib
import math
import warnings
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from numbers import Integral, Real

import numpy as np
import xarray as xr

from ..._util import dims as D
from ..._util.constraints import MAPPING
from ..._util.docs import fill_doc
from ..._util.frozen import validate_fields
from ..._util.params import (
    COUNT,
    N_PERMUTATIONS,
    NON_NEGATIVE,
    NON_NEGATIVE_INT,
    NUMBER,
    P_VALUE,
    POSITIVE,
    SEED,
    InstanceOf,
    Interval,
    Options,
    Text,
    check_random_state,
    validate_params,
)
from ..._util.typing import RandomState
from ...exceptions import InvalidDataError, UnknownNameError, close_matches
from ._autocorr import morans_i
from ._forked import forked_map, n_workers
from ._geometry import as_topomap
from ._null import run_null
from ._patches import TDANN_PATCHES, _label, _smoother
from ._tables import ARRANGEMENT_TOP
from ._topography import map_similarity, smoothness
from ._topomap import TopoMap

__all__ = ["BINARY_DESCRIPTORS", "DESCRIPTORS", "DescriptorResult", "RulerSettings",
           "bootstrap_maps", "describe", "descriptor_value", "is_binary", "TDANN_REF",
           "TOPOLM_REF", "TOPONETS_REF"]

TDANN_REF = "TDANN (Margalit et al. 2024, Neuron 112(14), 2435-2451)"
TOPOLM_REF = "TopoLM (Rathi et al. 2025, ICLR)"
TOPONETS_REF = "TopoNets (Deb, Deb & Murty 2025, ICLR)"

#: every descriptor, in the order the comparison table shows them
DESCRIPTORS = ("smoothness", "clustering", "selective_fraction", "patch_count", "patch_size",
               "domain_similarity", "arrangement")
#: the descriptors a binary map (an ROI) defines: smoothness of a drawn border is left out
BINARY_DESCRIPTORS = ("clustering", "selective_fraction", "patch_count", "patch_size",
                      "domain_similarity", "arrangement")
#: the regions :attr:`RulerSettings.cortex_region` names (None: the whole hemisphere)
CORTEX_REGIONS = ("votc", None)
#: one-map descriptors (the bootstrap over stimuli repeats these)
ONE_MAP = ("smoothness", "clustering", "selective_fraction", "patch_count", "patch_size")


#: a threshold of the values: any finite number
_THRESHOLD = Interval(Real, None, None)
#: an area, x extent^2
_AREA = Interval(Real, 0, 1, closed="both")


@dataclass(frozen=True)
@validate_fields({
    "max_distance": POSITIVE, "n_bins": Interval(Integral, 2, None, closed="left"),
    "n_samples": COUNT, "sample_size": Interval(Integral, 3, None, closed="left"),
    "threshold": _THRESHOLD, "binary_threshold": _THRESHOLD, "smooth_sigma": NON_NEGATIVE,
    "min_patch_area": _AREA, "max_patch_area": _AREA, "n_boot": NON_NEGATIVE_INT,
    "cortex_region": [Options([r for r in CORTEX_REGIONS if r is not None],
                              error=UnknownNameError,
                              fix="Use 'votc' (occipito-temporal cortex) or None (the whole "
                                  "hemisphere)."), None],
})
class RulerSettings:
    """The descriptors' parameters, declared once; lengths in units of the map's extent.

    The fields are declared (``__toponeuro_params__``) and stored in their canonical type
    (``n_bins=10.0`` is kept as ``10``, ``threshold=2`` as ``2.0``; the defaults already
    are, so ``summary.json``'s ``settings.ruler.descriptors`` is unchanged). A bad value
    raises the typed error naming the field as you typed it, ``n_bins=1 is not a whole
    number >= 2``: the object is passed under two names (``settings=`` of the analysis
    functions, ``RulerRun(descriptors=)`` of the jobs), and toponeuro itself makes only
    ``RulerSettings()``. ``min_patch_area > max_patch_area`` raises
    :class:`~toponeuro.exceptions.InvalidDataError`.

    Parameters
    ----------
    max_distance : float
        Largest distance of the smoothness profile, x extent (0.5).
    n_bins : int
        Distance bins of the smoothness profile (10).
    n_samples : int
        TDANN's point samples for maps of more than 1,000 points (20).
    sample_size : int
        Points in each of those samples (500).
    threshold : float
        A point is selective where its value reaches it (TDANN's t >= 2).
    binary_threshold : float
        The same for a binary map (0.5).
    smooth_sigma : float
        Patch smoothing, x extent: TDANN's 2.4 mm on its 70 mm sheet.
    min_patch_area : float
        Smallest patch area kept, x extent^2: TDANN's 100 of 4,900 mm^2.
    max_patch_area : float
        Largest patch area kept, x extent^2: TDANN's 4,500 of 4,900 mm^2.
    n_boot : int
        Bootstrap resamples of the stimuli (within each category) behind the model side's
        95% interval of every one-map descriptor and domain similarity, in the jobs'
        ruler stages (:func:`bootstrap_maps`); 0 skips it. Default 50, chosen so the stage
        takes seconds per layer on a demo sheet; a 2.5-97.5 percentile interval of 50
        resamples is coarse: raise it (e.g. 1,000) for a paper's intervals.
    cortex_region : {"votc", None}
        The part of a hemisphere the vision job measures the cortex side over (the model's
        sheet stands for high-level visual cortex, not a whole hemisphere). ``"votc"``
        (default): ventral and lateral occipito-temporal cortex as the visfAtlas
        (Rosenke et al. 2021) marks it -- every fsaverage5 vertex within 10 mm, along the
        folded surface, of one of the atlas's category-selective ROIs of that hemisphere
        (faces, bodies, characters, places; not hMT+ or V1-V3), 10 mm being the job's
        proximity scale (``cortex_maps(scale_mm=10)``). Fixed from the atlas, before any
        comparison was run. Maps on another mesh (fs_LR 32k) have no such region and are
        measured whole, said in the comparison. ``None``: the whole hemisphere (the 0.5
        pre-release behaviour). The language job compares whole hemispheres.

    Examples
    --------
    >>> RulerSettings().smooth_sigma == 2.4 / 70
    True
    """

    max_distance: float = 0.5
    n_bins: int = 10
    n_samples: int = 20
    sample_size: int = 500
    threshold: float = TDANN_PATCHES["threshold"]
    binary_threshold: float = 0.5
    smooth_sigma: float = TDANN_PATCHES["sigma_mm"] / TDANN_PATCHES["sheet_mm"]
    min_patch_area: float = TDANN_PATCHES["min_area_mm2"] / TDANN_PATCHES["sheet_mm"] ** 2
    max_patch_area: float = TDANN_PATCHES["max_area_mm2"] / TDANN_PATCHES["sheet_mm"] ** 2
    n_boot: int = 50
    cortex_region: str | None = "votc"

    def __post_init__(self):
        # a rule across two fields (the declared checks of each ran before)
        if self.min_patch_area > self.max_patch_area:
            raise InvalidDataError(
                f"min_patch_area ({self.min_patch_area:g}) exceeds max_patch_area "
                f"({self.max_patch_area:g}); no patch could be kept."
            )


@dataclass(frozen=True)
@validate_fields({
    "descriptor": Text(), "statistic": Text(), "value": NUMBER, "p_value": P_VALUE,
    "n_permutations": N_PERMUTATIONS, "null": Text(), "alternative": Text(),
    "geometry": Text(empty=True), "extent": NUMBER, "extent_mm": NUMBER,
    "reference": Text(empty=True), "domain": Text(empty=True),
    "interval": [InstanceOf(tuple, "a (low, high) tuple", example=(0.0, 1.0)), None],
    "n_boot": NON_NEGATIVE_INT, "detail": MAPPING})
class DescriptorResult:
    """One descriptor of one map (or map pair, or set of domains) with its null.

    Parameters
    ----------
    descriptor : str
        A name of :data:`DESCRIPTORS`.
    statistic : str
        The statistic's name ("TDANN smoothness score", "Moran's I", ...).
    value : float
        NaN where undefined (``detail["undefined"]`` says why).
    p_value : float
        The null's p on the map's own geometry; NaN without a null.
    n_permutations : int
        Null draws (0: no null).
    null : str
        The null drawn (``"positions"``, ``"mirror"``, ``"spin"``) or ``"none"``.
    alternative : str
        The tail of ``p_value``.
    geometry : str
        ``"sheet"``, ``"free"`` or ``"mesh"``.
    extent : float
        The map's extent (position units).
    extent_mm : float
        The map's extent in mm (NaN without a scale).
    reference : str
        Where the descriptor comes from.
    domain : str
        The domain (map name) or pair it describes ("" for a single unnamed map).
    interval : tuple of float or None
        Bootstrap interval over stimuli (model side), ``(lo, hi)``.
    n_boot : int
        Bootstrap maps behind ``interval``.
    detail : dict
        Profiles, SSIM, centre distances, parameters.

    Examples
    --------
    >>> r = describe(np.random.default_rng(0).standard_normal((12, 12)), ["clustering"],
    ...              n_permutations=99, random_state=0)[0]
    >>> r.descriptor, r.null, r.p_value > 0.05
    ('clustering', 'positions', True)
    """

    descriptor: str
    statistic: str
    value: float
    p_value: float = float("nan")
    n_permutations: int = 0
    null: str = "none"
    alternative: str = "greater"
    geometry: str = ""
    extent: float = float("nan")
    extent_mm: float = float("nan")
    reference: str = ""
    domain: str = ""
    interval: tuple | None = None
    n_boot: int = 0
    detail: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        """The numbers as a flat JSON-ready dict (``detail`` left out).

        Returns
        -------
        dict
            The fields, ``interval`` as ``interval_lo`` and ``interval_hi``.
        """
        lo, hi = self.interval if self.interval is not None else (math.nan, math.nan)
        return {"descriptor": self.descriptor, "domain": self.domain,
                "statistic": self.statistic, "value": self.value, "p_value": self.p_value,
                "n_permutations": self.n_permutations, "null": self.null,
                "alternative": self.alternative, "geometry": self.geometry,
                "extent": self.extent, "extent_mm": self.extent_mm, "interval_lo": lo,
                "interval_hi": hi, "n_boot": self.n_boot, "reference": self.reference}


@validate_params(dict(tm=InstanceOf(TopoMap, "a TopoMap (toponeuro.analysis.as_topomap)")))
def is_binary(tm: TopoMap) -> bool:
    """Whether a map's values (with data) are all 0 or 1 (an ROI).

    Parameters
    ----------
    tm : TopoMap
        The map (:func:`as_topomap` makes one).

    Returns
    -------
    bool
        ``True`` where every value with data is 0 or 1 (and there is at least one).

    Examples
    --------
    >>> is_binary(as_topomap(np.eye(5))), is_binary(as_topomap(np.eye(5) * 2))
    (True, False)
    """
    v = tm.values[tm.finite]
    return bool(v.size) and bool(np.isin(v, (0.0, 1.0)).all())


def _base(tm: TopoMap, descriptor, statistic, reference, domain) -> dict:
    return {"descriptor": descriptor, "statistic": statistic, "geometry": tm.geometry,
            "extent": tm.extent, "extent_mm": tm.extent_mm, "reference": reference,
            "domain": domain}


def _threshold(tm, s: RulerSettings) -> float:
    return s.binary_threshold if is_binary(tm) else s.threshold


# --------------------------------------------------------------------------- one map


def _smoothness(tm, s, n_permutations, rng, domain=""):
    ext = tm.extent
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        ds = smoothness(tm, n_samples=s.n_samples,
                        sample_size=s.sample_size if tm.finite.sum() > 1000 else None,
                        n_bins=s.n_bins, max_distance=s.max_distance * ext,
                        n_permutations=n_permutations, random_state=rng)
    dist = ds["distance"].values / ext
    detail = {"profile": ds["profile"].values.tolist(), "distance_extent": dist.tolist(),
              "n_bins": int(ds.attrs["n_bins"])}
    if tm.scale_mm is not None:
        detail["distance_mm"] = (ds["distance"].values * tm.scale_mm).tolist()
    return DescriptorResult(
        **_base(tm, "smoothness", "TDANN smoothness score", TDANN_REF, domain),
        value=float(ds["score"]), p_value=float(ds["p_value"]),
        n_permutations=int(ds.attrs["n_permutations"]),
        null=str(ds.attrs["null"]), alternative="greater", detail=detail)


def _clustering(tm, s, n_permutations, rng, domain=""):
    weights = "rook" if tm.geometry == "sheet" else "graph"
    res = morans_i(tm, weights=weights, n_permutations=n_permutations, random_state=rng)
    return DescriptorResult(
        **_base(tm, "clustering", "Moran's I", TOPOLM_REF, domain),
        value=res.statistic, p_value=res.p_value, n_permutations=res.n_permutations,
        null=res.attrs["null"], alternative="greater",
        detail={"weights": weights, "expected": res.attrs["expected"]})


def _selective_fraction(tm, s, n_permutations, rng, domain=""):
    thr = _threshold(tm, s)
    area = tm.point_areas()
    fin = tm.finite
    frac = float(area[fin & (np.nan_to_num(tm.values, nan=-np.inf) >= thr)].sum()
                 / area[fin].sum())
    return DescriptorResult(
        **_base(tm, "selective_fraction", f"area fraction with value >= {thr:g}", TDANN_REF,
                domain),
        value=frac, detail={"threshold": thr, "n_points": int(fin.sum()),
                            "no_null": "a fraction is position-free: no spatial null"})


#: geodesic neighbourhood weights (a CSR matrix) of the last few (mesh, sigma): every map on
#: a hemisphere shares its mesh, so the shortest paths are searched once per mesh, not per map
_GEODESIC_CACHE: OrderedDict = OrderedDict()
_GEODESIC_CACHE_BYTES = 256 * 2**20


def _geodesic_weights(tm: TopoMap, sigma: float):
    """CSR ``exp(-d**2 / 2 sigma**2)`` of every pair within 3 sigma along the mesh edges (its
    entries in row-major order); the same for every map on the same mesh (it ignores the
    values). Read-only: the caller copies it."""
    from scipy import sparse

    from ._places import edge_lengths

    graph = edge_lengths(tm.neighbours(), tm.positions)
    h = hashlib.sha256(np.ascontiguousarray(tm.positions, dtype=float).tobytes())
    for part in (graph.indptr, graph.indices, graph.data):
        h.update(np.ascontiguousarray(part).tobytes())
    key = (h.hexdigest(), float(sigma))
    hit = _GEODESIC_CACHE.get(key)
    if hit is not None:
        _GEODESIC_CACHE.move_to_end(key)
        return hit
    from ..._io import null_cache

    arrays, _ = null_cache.cached("geodesic-weights", {"graph": key[0], "sigma": key[1]},
                                  lambda: (dict(zip(("data", "indices", "indptr"), _within(
                                      graph, tm.positions, 3.0 * sigma, sigma))), {}))
    out = sparse.csr_matrix((arrays["data"], arrays["indices"], arrays["indptr"]),
                            shape=(tm.n, tm.n))
    _GEODESIC_CACHE[key] = out
    while len(_GEODESIC_CACHE) > 1 and sum(
            m.data.nbytes + m.indices.nbytes + m.indptr.nbytes
            for m in _GEODESIC_CACHE.values()) > _GEODESIC_CACHE_BYTES:
        _GEODESIC_CACHE.popitem(last=False)
    return out


#: sources searched together: a batch's box of candidate points stays small
_BATCH = 128


def _within(graph, positions, limit: float, sigma: float):
    """CSR ``(data, indices, indptr)`` of ``exp(-d**2 / 2 sigma**2)`` over every pair within
    ``limit`` along ``graph`` (columns ascending within a row): the shortest paths from
    each point, each batch of nearby points searched on the part of the graph that can
    hold a path of length ``limit`` -- the points within ``limit`` of the batch's box along
    every axis (a path never leaves the ball of its length around its start; the margin
    covers rounding). The same numbers as searching the whole graph: a point's distance is
    the least over its neighbours nearer the source, all inside that part, summed along the
    same path."""
    n = positions.shape[0]
    pos = np.asarray(positions, dtype=float)
    reach = float(limit) * (1 + 1e-6) + 1e-9
    # sources ordered by a grid of cells `reach` wide, so a batch lies in a few cells
    width = reach if np.isfinite(reach) and reach > 0 else 1.0
    cell = np.floor((pos - pos.min(0)) / width).astype(np.int64)
    order = np.lexsort(cell.T[::-1])
    counts = np.zeros(n, dtype=np.int64)
    batches = [order[lo:lo + _BATCH] for lo in range(0, n, _BATCH)]
    # each batch's search is its own: many run in forked workers (scipy's holds the GIL)
    parts = list(forked_map(_within_batch, batches, (graph, pos, reach, limit, sigma),
                            workers=n_workers(n)))
    for src, _, _, cnt in parts:
        counts[src] = cnt
    nnz = int(counts.sum())
    idx_dtype = np.int32 if max(nnz, n) < 2**31 else np.int64  # as scipy's coo -> csr
    indptr = np.zeros(n + 1, dtype=idx_dtype)
    np.cumsum(counts, out=indptr[1:])
    indices = np.empty(nnz, dtype=idx_dtype)
    data = np.empty(nnz)
    while parts:  # each batch's rows into their places, row by row, columns in order
        src, cols, wts, _ = parts.pop(0)
        cnt = counts[src]
        start = np.cumsum(cnt) - cnt
        dest = np.repeat(indptr[src] - start, cnt) + np.arange(cols.size)
        indices[dest] = cols
        data[dest] = wts
    return data, indices, indptr


def _within_batch(graph, pos, reach: float, limit: float, sigma: float, src):
    """:func:`_within` from the sources ``src``: ``(src, columns, weights, counts per
    source)``, searched on the part of ``graph`` within ``reach`` of their box."""
    from scipy.sparse import csgraph

    box_lo, box_hi = pos[src].min(0) - reach, pos[src].max(0) + reach
    part = np.flatnonzero(((pos >= box_lo) & (pos <= box_hi)).all(1))
    sub = graph[part][:, part]
    # the graph is symmetric: its directed search relaxes each edge once, same minima
    dd = csgraph.dijkstra(sub, directed=True, indices=np.searchsorted(part, src), limit=limit)
    rr, cc = np.nonzero(np.isfinite(dd))
    return (src, part[cc], np.exp(-0.5 * (dd[rr, cc] / sigma) ** 2),
            np.bincount(rr, minlength=src.size))


def _surface_smoother(tm: TopoMap, sigma: float):
    """NaN-aware Gaussian smoothing of a mesh map along its surface: weights
    ``exp(-d**2 / 2 sigma**2)`` of the shortest-path distance ``d`` along the mesh edges
    (edge length = Euclidean length), up to 3 sigma. Straight-line distances would mix the
    two banks of a sulcus, which lie close in space but far apart on the cortex."""
    cached = tm._cache.get(("surface_smoother", sigma))
    if cached is not None:
        return cached
    ok = tm.finite
    # the mesh's weights, those of points without a value zeroed (kept as entries: the same
    # matrix, entry for entry, as building it from this map's own search); the maps of one
    # mesh share its index arrays, so each holds 8 bytes per entry, not 12
    from scipy import sparse

    base = _geodesic_weights(tm, sigma)
    kern = sparse.csr_matrix((base.data * ok[base.indices], base.indices, base.indptr),
                             shape=base.shape, copy=False)
    den = np.asarray(kern.sum(1)).ravel()
    den = np.where(den > 0, den, np.nan)

    def smooth(v):
        out = (kern @ np.where(ok, v, 0.0).T).T / den
        return np.where(ok, out, np.nan)

    tm._cache[("surface_smoother", sigma)] = smooth
    return smooth


def _patch_kernel(tm, s):
    """``f(values (B, n)) -> (count (B,), mean area / extent^2 (B,))`` under the settings."""
    thr = _threshold(tm, s)
    ext = tm.extent
    sigma = s.smooth_sigma * ext
    smooth = (_surface_smoother(tm, sigma) if tm.geometry == "mesh" and sigma > 0
              else _smoother(tm, sigma))
    area = tm.point_areas()
    total = float(area[tm.finite].sum())
    lo, hi = s.min_patch_area * total, s.max_patch_area * total

    def kernel(values):
        sm = smooth(values)
        lab = _label(np.nan_to_num(sm, nan=-np.inf) >= thr, tm, 1)
        flat = lab.ravel()
        n_lab = int(flat.max()) + 1 if flat.size else 1
        lab_area = np.bincount(flat, weights=np.tile(area, values.shape[0]), minlength=n_lab)
        kept = (lab_area >= lo) & (lab_area <= hi)
        kept[0] = False
        owner = np.zeros(n_lab, dtype=np.int64)
        owner[flat] = np.repeat(np.arange(values.shape[0]), lab.shape[1])
        count = np.bincount(owner[kept], minlength=values.shape[0]).astype(float)
        summed = np.bincount(owner[kept], weights=lab_area[kept], minlength=values.shape[0])
        with np.errstate(invalid="ignore", divide="ignore"):
            size = np.where(count > 0, summed / np.maximum(count, 1) / total, np.nan)
        return count, size

    params = {"threshold": thr, "smooth_sigma": s.smooth_sigma * ext,
              "min_area": lo, "max_area": hi}
    return kernel, params


def _patches(tm, s, n_permutations, rng, what, domain=""):
    kernel, params = _patch_kernel(tm, s)
    k = 0 if what == "count" else 1

    def stat(values):
        return kernel(values)[k]

    alternative = "two-sided" if what == "count" else "greater"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        res = run_null(stat, [tm], "positions", n_permutations, rng, {}, alternative)
    name = ("number of patches" if what == "count" else "mean patch area / extent^2")
    return DescriptorResult(
        **_base(tm, f"patch_{what}", name, TDANN_REF, domain),
        value=res.statistic, p_value=res.p_value, n_permutations=res.n_permutations,
        null=res.attrs["null"], alternative=alternative,
        detail={**params, "null_mean": res.null_mean})


_ONE_MAP_FUNCS: dict[str, Callable] = {
    "smoothness": _smoothness,
    "clustering": _clustering,
    "selective_fraction": _selective_fraction,
    "patch_count": lambda tm, s, n, rng, domain="": _patches(tm, s, n, rng, "count", domain),
    "patch_size": lambda tm, s, n, rng, domain="": _patches(tm, s, n, rng, "size", domain),
}


# --------------------------------------------------------------------------- domains


def _similarity(ta, tb, s, n_permutations, rng, domain=""):
    if ta.n != tb.n:
        raise InvalidDataError(f"Domain maps {domain!r} do not cover the same points.")
    geo = ta.geometry
    n_perm = n_permutations
    note = ""
    a, b = ta, tb
    if geo == "free":
        n_perm, note = 0, "free positions: no shift null (a rotation of free points is not defined)"
    elif geo == "mesh":
        if ta.has_sphere:
            a, b = ta.on_sphere(), tb.on_sphere()
        else:
            n_perm, note = 0, "mesh without sphere coordinates: no spin test"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        res = map_similarity(a, b, "pearson", n_permutations=n_perm, random_state=rng)
    detail = {"note": note} if note else {}
    detail["null_mean"] = res.null_mean
    if "moves" in res.attrs:  # a symmetric two-map null: one move serves both maps
        detail["distinct_moves"] = res.n_permutations - res.n_permutations // 2
    if geo == "sheet":
        detail["ssim"] = float(map_similarity(ta, tb, "ssim", n_permutations=0))
    return DescriptorResult(
        **_base(ta, "domain_similarity", "Pearson r across points", TOPONETS_REF, domain),
        value=res.statistic, p_value=res.p_value, n_permutations=res.n_permutations,
        null=res.attrs["null"], alternative="two-sided", detail=detail)


def _centre_point(tm: TopoMap) -> int:
    """A domain's centre, one rule on every geometry: of the top tenth of its points
    (:func:`domain_centres`' weights), the point nearest their weighted mean position in the
    map's 2-D parametrisation -- the sheet's grid, the free positions, a mesh's sphere (a
    mean of folded-surface coordinates lies off the cortex) -- so it always lies on the
    map. -1 for a map without values."""
    from ._tables import _centre_weights

    w = _centre_weights(tm.values[None, :], ARRANGEMENT_TOP)[0]
    if not w.sum() > 0:
        return -1
    pos = tm.sphere if tm.sphere is not None else tm.positions
    mean = (w @ pos) / w.sum()
    d2 = np.where(w > 0, ((pos - mean) ** 2).sum(1), np.inf)
    return int(np.argmin(d2))


def _arrangement(maps: Mapping, s, n_permutations, rng, domain=""):
    names = list(maps)
    tms = [maps[k] for k in names]
    first = tms[0]
    centres = [_centre_point(tm) for tm in tms]
    pairs = [(i, j) for i in range(len(names)) for j in range(i + 1, len(names))]
    ext = first.extent
    dist = np.full(len(pairs), np.nan)
    for k, (i, j) in enumerate(pairs):
        if centres[i] >= 0 and centres[j] >= 0:
            dist[k] = first.distances_from([centres[i]], [centres[j]])[0, 0]
    dist = dist / ext
    value = float(np.mean(dist)) if dist.size else float("nan")
    return DescriptorResult(
        **_base(first, "arrangement", "mean distance between domain centres / extent",
                TDANN_REF, domain or "+".join(names)),
        value=value,
        detail={"pairs": [f"{names[i]}-{names[j]}" for i, j in pairs],
                "distances": dist.tolist(), "domains": names})


# --------------------------------------------------------------------------- public


def _as_maps(data) -> dict[str, TopoMap]:
    if isinstance(data, Mapping):
        return {str(k): as_topomap(v, name=str(k)) for k, v in data.items()}
    return {"": as_topomap(data)}  # one map: domain "" (as compare_topography names it)


@validate_params({"n_permutations": N_PERMUTATIONS, "random_state": SEED})
@fill_doc
def describe(
    data,
    descriptors=None,
    *,
    settings: RulerSettings | None = None,
    n_permutations: int = 1000,
    random_state: RandomState = None,
) -> list[DescriptorResult]:
    """The descriptors of one map or of named domain maps, each with its null.

    Parameters
    ----------
    data : map or mapping name -> map
        One map (any geometry, see :func:`as_topomap`) or named maps on one geometry (the
        domains: one-map descriptors per domain, similarity per pair, one arrangement).
    descriptors : sequence of str, optional
        Names of :data:`DESCRIPTORS` (default all that apply: pairs need two domains, an
        arrangement three).
    settings : RulerSettings, optional
        The descriptors' parameters (default ``RulerSettings()``).
    %(n_permutations)s
    %(random_state)s

    Returns
    -------
    list of DescriptorResult
        One result per descriptor and domain (or pair of domains), in the order asked.

    Examples
    --------
    >>> rr, cc = np.mgrid[:24, :24]
    >>> blob = 4 * np.exp(-((rr - 8) ** 2 + (cc - 14) ** 2) / 20.0)
    >>> res = describe(blob, ["smoothness", "patch_count"], n_permutations=0)
    >>> [(r.descriptor, round(r.value, 2)) for r in res]
    [('smoothness', 0.86), ('patch_count', 1.0)]
    """
    s = settings or RulerSettings()
    rng = check_random_state(random_state)
    maps = _as_maps(data)
    names = list(DESCRIPTORS if descriptors is None else descriptors)
    for n in names:
        if n not in DESCRIPTORS:
            raise UnknownNameError(f"Unknown descriptor {n!r}; {close_matches(n, DESCRIPTORS)}")
    out = []
    for name in names:
        if name in ONE_MAP:
            for dom, tm in maps.items():
                out.append(_ONE_MAP_FUNCS[name](tm, s, n_permutations, rng, dom))
        elif name == "domain_similarity":
            keys = list(maps)
            for i in range(len(keys)):
                for j in range(i + 1, len(keys)):
                    out.append(_similarity(maps[keys[i]], maps[keys[j]], s, n_permutations,
                                           rng, f"{keys[i]}-{keys[j]}"))
        elif name == "arrangement" and len(maps) >= 3:
            out.append(_arrangement(maps, s, n_permutations, rng))
    return out


@validate_params({"random_state": SEED})
@fill_doc
def descriptor_value(tm, descriptor: str, settings: RulerSettings | None = None,
                     random_state: RandomState = None) -> float:
    """A one-map descriptor's value without its null (what a bootstrap repeats).

    Parameters
    ----------
    tm : map
        One map of any geometry (anything :func:`as_topomap` reads).
    descriptor : str
        A one-map descriptor: ``"smoothness"``, ``"clustering"``,
        ``"selective_fraction"``, ``"patch_count"`` or ``"patch_size"``.
    settings : RulerSettings, optional
        The descriptors' parameters (default ``RulerSettings()``).
    %(random_state)s

    Returns
    -------
    float
        The descriptor's value (NaN where it is undefined).

    Examples
    --------
    >>> descriptor_value(np.eye(16) * 3, "selective_fraction")
    0.0625
    """
    if descriptor not in ONE_MAP:
        raise UnknownNameError(
            f"descriptor_value takes a one-map descriptor; {close_matches(descriptor, ONE_MAP)}"
        )
    tm = as_topomap(tm)
    rng = check_random_state(random_state)
    return _ONE_MAP_FUNCS[descriptor](tm, settings or RulerSettings(), 0, rng).value


@validate_params({"n_boot": Interval(Integral, 1, None, closed="left"), "random_state": SEED},
                 prefer_skip_nested_validation=False)  # make_map is the caller's
@fill_doc
def bootstrap_maps(activations: xr.DataArray, make_map: Callable, *, n_boot: int = 100,
                   random_state: RandomState = None) -> list:
    """Maps recomputed from stimuli resampled with replacement (within each category).

    Parameters
    ----------
    %(activations)s
        A ``category`` coord keeps each category's count in every resample.
    make_map : callable
        ``make_map(activations) -> map`` (or mapping of named maps), as for the real map.
    n_boot : int
        Bootstrap maps.
    %(random_state)s

    Returns
    -------
    list
        ``n_boot`` maps, each what ``make_map`` returns.

    Examples
    --------
    >>> from toponeuro import make_activations
    >>> acts = make_activations({"fc": 64}, n_stimuli=10, random_state=0)
    >>> maps = bootstrap_maps(acts, lambda a: a.mean("stimulus"), n_boot=3, random_state=0)
    >>> len(maps), maps[0].sizes["unit"]
    (3, 64)
    """
    rng = check_random_state(random_state)
    n = activations.sizes[D.STIMULUS]
    groups = ([np.flatnonzero(activations[D.CATEGORY].values == c)
               for c in np.unique(activations[D.CATEGORY].values)]
              if D.CATEGORY in activations.coords else [np.arange(n)])
    out = []
    for _ in range(n_boot):
        idx = np.concatenate([rng.choice(g, size=g.size, replace=True) for g in groups])
        out.append(make_map(activations.isel({D.STIMULUS: idx})))
    return out


def _with_interval(res: DescriptorResult, values) -> DescriptorResult:
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if not v.size:
        return replace(res, n_boot=0)
    lo, hi = np.percentile(v, [2.5, 97.5])
    return replace(res, interval=(float(lo), float(hi)), n_boot=int(v.size))
