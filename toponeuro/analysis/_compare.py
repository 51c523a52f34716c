"""Model sheet vs cortex: the same topography metrics side by side, and the arrangement test."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy.spatial import procrustes
from scipy.spatial.distance import pdist
from scipy.stats import spearmanr

from .._params import check_n_permutations, check_random_state
from .._typing import RandomState
from ..exceptions import InvalidDataError, UnknownNameError, close_matches
from ._geometry import as_topomap
from ._patches import TDANN_PATCHES, Patches, find_patches
from ._ssim import SSIM_REFERENCE
from ._topography import TDANN_REFERENCE, map_similarity, smoothness

__all__ = [
    "DEFAULT_PAIRS",
    "patch_centroid",
    "arrangement_similarity",
    "compare_topography",
]

#: map pairs whose similarity the TopoNets paper reports (faces-bodies high, faces-places low)
DEFAULT_PAIRS = (("faces", "bodies"), ("faces", "places"))
_CENTROIDS = ("largest", "all")


def patch_centroid(patches: Patches, how: str = "largest") -> np.ndarray:
    """One centroid for a map's patches: the largest patch's, or that of all patch points.

    Returns NaNs when the map has no patch.

    Examples
    --------
    >>> rr, cc = np.mgrid[:20, :20]
    >>> p = find_patches(np.exp(-((rr - 5) ** 2 + (cc - 12) ** 2) / 8.0), threshold=0.5)
    >>> patch_centroid(p).round(1).tolist()
    [5.0, 12.0]
    """
    if how not in _CENTROIDS:
        raise UnknownNameError(f"Unknown centroid {how!r}; {close_matches(how, _CENTROIDS)}")
    d = patches.map.positions.shape[1]
    if patches.n_patches == 0:
        return np.full(d, np.nan)
    if how == "largest":
        return patches.centroids[0]
    return patches.map.positions[patches.labels > 0].mean(0)


def arrangement_similarity(centroids_a, centroids_b) -> dict:
    """How alike two arrangements of the same regions are (sheet vs cortex).

    Compares the pairwise distances between region centroids: Spearman rank correlation of
    the two sets of distances, and the Procrustes disparity (``scipy.spatial.procrustes``:
    0 when one arrangement is a translated, scaled, rotated or mirrored copy of the other,
    up to 1). A 2-D sheet and 3-D cortical coordinates are compared by padding with zeros.

    Parameters
    ----------
    centroids_a, centroids_b : array (n_regions, d) or mapping name -> coordinates
        Mappings are matched by name; regions with NaN coordinates in either are left out.

    Returns
    -------
    dict
        ``spearman``, ``spearman_p``, ``procrustes`` (disparity), ``n_regions`` and
        ``regions`` (the names used, for mappings).

    Examples
    --------
    >>> sheet = np.array([[0.0, 0], [10, 0], [0, 5], [8, 9]])
    >>> rot = np.array([[0.0, -1], [1, 0]])
    >>> res = arrangement_similarity(sheet, 3 * sheet @ rot + 7)
    >>> round(res["spearman"], 6), round(res["procrustes"], 6)
    (1.0, 0.0)
    """
    names = None
    if isinstance(centroids_a, Mapping) or isinstance(centroids_b, Mapping):
        if not (isinstance(centroids_a, Mapping) and isinstance(centroids_b, Mapping)):
            raise InvalidDataError("Give both centroid sets as mappings, or both as arrays.")
        names = [k for k in centroids_a if k in centroids_b]
        a = np.array([np.asarray(centroids_a[k], float) for k in names]).reshape(len(names), -1)
        b = np.array([np.asarray(centroids_b[k], float) for k in names]).reshape(len(names), -1)
    else:
        a, b = np.asarray(centroids_a, float), np.asarray(centroids_b, float)
        if a.ndim != 2 or b.ndim != 2 or a.shape[0] != b.shape[0]:
            raise InvalidDataError(
                f"Centroid arrays must be (n_regions, d) with the same n_regions; got "
                f"{a.shape} and {b.shape}."
            )
    ok = np.isfinite(a).all(1) & np.isfinite(b).all(1) if a.size and b.size else np.zeros(0, bool)
    a, b = a[ok], b[ok]
    used = [n for n, k in zip(names, ok) if k] if names is not None else None
    out = {"spearman": np.nan, "spearman_p": np.nan, "procrustes": np.nan, "n_regions": len(a)}
    if used is not None:
        out["regions"] = used
    if len(a) < 3:
        return out
    da, db = pdist(a), pdist(b)
    if np.ptp(da) > 0 and np.ptp(db) > 0:
        res = spearmanr(da, db)
        out["spearman"], out["spearman_p"] = float(res.statistic), float(res.pvalue)
    dim = max(a.shape[1], b.shape[1])
    a = np.pad(a, ((0, 0), (0, dim - a.shape[1])))
    b = np.pad(b, ((0, 0), (0, dim - b.shape[1])))
    if np.ptp(a, axis=0).any() and np.ptp(b, axis=0).any():
        out["procrustes"] = float(procrustes(a, b)[2])
    return out


def pair_similarity(tm_a, tm_b, *, n_permutations=1000, random_state: RandomState = None):
    """SSIM on a sheet, Pearson on a mesh, with the shift null where it can be drawn.

    On a mesh the shift null is the spin test, which needs sphere coordinates; for other
    positions (flat maps) the statistic comes without a null, and ``attrs["null_note"]`` says
    why.
    """
    method = "ssim" if tm_a.grid_shape is not None else "pearson"
    try:
        return map_similarity(tm_a, tm_b, method, n_permutations=n_permutations,
                              random_state=random_state)
    except InvalidDataError as err:
        if method == "ssim" or not n_permutations:
            raise
        res = map_similarity(tm_a, tm_b, method, n_permutations=0)
        res.attrs["null_note"] = f"no spin test: {err}"
        return res


def _side(maps, geometry, patch_kw, pairs, centroid, smooth_kw, null_kw):
    tms = {k: as_topomap(v, **geometry) for k, v in maps.items()}
    rows, cents, patches = {}, {}, {}
    with_null = null_kw["n_permutations"] > 0
    for name, tm in tms.items():
        p = find_patches(tm, **patch_kw, **null_kw)
        # with a null, only significant patches place a domain (as topography_table does)
        kept = p.significant if with_null else p
        patches[name] = kept
        cents[name] = patch_centroid(kept, centroid)
        fr = kept.table["fraction"]
        sm = smoothness(tm, **smooth_kw, **null_kw)
        rows[("smoothness", name)] = float(sm["score"])
        if with_null:
            rows[("smoothness_p", name)] = float(sm["p_value"])
        rows[("n_patches", name)] = p.n_patches
        if with_null:
            rows[("n_significant_patches", name)] = p.significant.n_patches
        rows[("mean_patch_fraction", name)] = float(fr.mean()) if len(fr) else 0.0
        rows[("total_patch_fraction", name)] = float(fr.sum())
    for a, b in pairs:
        if a in tms and b in tms:
            sim = pair_similarity(tms[a], tms[b], **null_kw)
            rows[("map_similarity", f"{a}-{b}")] = sim.statistic
            if with_null:
                rows[("map_similarity_p", f"{a}-{b}")] = sim.p_value
    return rows, cents, patches


def compare_topography(
    model_maps: Mapping,
    cortex_maps: Mapping,
    *,
    layer: str | None = None,
    cortex_geometry: Mapping | None = None,
    threshold: float = TDANN_PATCHES["threshold"],
    cortex_threshold: float | None = None,
    min_units: int = TDANN_PATCHES["min_count"],
    cortex_min_units: int | None = None,
    smooth_sigma="tdann",
    cortex_smooth_sigma=None,
    pairs: Sequence[tuple[str, str]] = DEFAULT_PAIRS,
    centroid: str = "largest",
    n_samples: int = 20,
    sample_size: int | None = None,
    n_permutations: int = 0,
    random_state: RandomState = None,
) -> pd.DataFrame:
    """Side-by-side topography of a model sheet and the cortex.

    For every named map (e.g. the five fLoc domains) on each side: smoothness (TDANN's score),
    number of patches (TDANN's procedure, :func:`find_patches`), patch size relative to the
    sheet / cortex; the similarity of map pairs (faces–bodies, faces–places: SSIM on a sheet,
    Pearson on a mesh, where SSIM has no standard definition); and how alike the arrangement of
    the regions is (pairwise distances between patch centroids on the sheet vs between ROI
    centroids on the cortex, by Spearman rank correlation and Procrustes disparity). With
    ``n_permutations`` every per-map statistic gets its spatial null (:func:`spatial_null`):
    rows ``smoothness_p``, ``n_significant_patches`` and ``map_similarity_p``, and then only
    the significant patches (p <= 0.05, :func:`find_patches`' default) give the centroids,
    the patch fractions and the returned patches, as in :func:`topography_table`
    (``n_patches`` still counts all patches found).

    Parameters
    ----------
    model_maps : mapping name -> map
        Sheet maps (per-unit selectivity maps, ``(row, col)`` maps or :class:`TopoMap`).
    cortex_maps : mapping name -> map
        Cortical maps with the same names (t maps, or binary ROI maps with
        ``cortex_threshold=0.5``): :class:`TopoMap` or 1-D values with ``cortex_geometry``.
    layer : str, optional
        Layer of per-unit model maps that hold several layers.
    cortex_geometry : mapping, optional
        Keyword arguments of :func:`as_topomap` for the cortical maps: ``positions`` (flat
        2-D or inflated 3-D vertex coordinates), ``adjacency`` (mesh edges, needed for
        patches), ``distance``, ``mesh``.
    threshold, cortex_threshold : float
        Patch thresholds (TDANN's t >= 2; cortex default: the model's).
    min_units, cortex_min_units : int
        Smallest patch (points; TDANN's 10); cortex default: the model's.
    smooth_sigma, cortex_smooth_sigma : float or "tdann"
        Smoothing before patch detection (see :func:`find_patches`; cortex default: the
        model's).
    pairs : sequence of (name, name)
        Map pairs whose similarity is reported.
    centroid : {"largest", "all"}
        Region centroid: the largest patch's, or that of all patch points.
    n_samples, sample_size : int
        Smoothness sampling (see :func:`smoothness`).
    n_permutations : int
        Draws of each statistic's spatial null (0: none). Costly for the smoothness of large
        cortical maps (random samples of 500 vertices, every draw).
    random_state : int or None
        Seed of the smoothness sampling and the nulls.

    Returns
    -------
    pandas.DataFrame
        Index ``(metric, item)``; columns ``model``, ``cortex`` (per-map metrics) and
        ``model_vs_cortex`` (arrangement rows: ``arrangement_spearman``,
        ``arrangement_procrustes``, ``arrangement_n_regions``). ``.attrs`` holds the centroids
        (``model_centroids``, ``cortex_centroids``), the regions used and ``definitions``
        (method, parameters and reference of every metric, and the null).

    Examples
    --------
    >>> rr, cc = np.mgrid[:20, :30]
    >>> blob = lambda r, c: 5 * np.exp(-((rr - r) ** 2 + (cc - c) ** 2) / 8.0)
    >>> sheet = {"faces": blob(4, 5), "bodies": blob(15, 8), "places": blob(10, 25)}
    >>> table = compare_topography(sheet, sheet, random_state=0)
    >>> float(table.loc[("arrangement_procrustes", "centroids"), "model_vs_cortex"]) < 1e-9
    True
    """
    if not model_maps or not cortex_maps:
        raise InvalidDataError("Give at least one model map and one cortical map.")
    if centroid not in _CENTROIDS:
        raise UnknownNameError(
            f"Unknown centroid {centroid!r}; {close_matches(centroid, _CENTROIDS)}"
        )
    common = [k for k in model_maps if k in cortex_maps]
    if not common:
        raise UnknownNameError(
            f"No map name is on both sides: model {list(model_maps)}, cortex "
            f"{list(cortex_maps)}. Name the cortical ROIs like the model's maps (e.g. 'faces')."
        )
    smooth_kw = dict(n_samples=n_samples, sample_size=sample_size)
    null_kw = dict(n_permutations=check_n_permutations(n_permutations),
                   random_state=random_state)
    check_random_state(random_state)
    model_patch = dict(threshold=threshold, min_units=min_units, smooth_sigma=smooth_sigma)
    cortex_patch = dict(
        threshold=threshold if cortex_threshold is None else cortex_threshold,
        min_units=min_units if cortex_min_units is None else cortex_min_units,
        smooth_sigma=smooth_sigma if cortex_smooth_sigma is None else cortex_smooth_sigma,
    )
    m_rows, m_cent, m_patches = _side(
        model_maps, {"layer": layer}, model_patch, pairs, centroid, smooth_kw, null_kw
    )
    c_rows, c_cent, c_patches = _side(
        cortex_maps, dict(cortex_geometry or {}), cortex_patch, pairs, centroid, smooth_kw,
        null_kw,
    )
    keys = list(dict.fromkeys([*m_rows, *c_rows]))
    table = pd.DataFrame(
        {
            "model": [m_rows.get(k, np.nan) for k in keys],
            "cortex": [c_rows.get(k, np.nan) for k in keys],
            "model_vs_cortex": np.nan,
        },
        index=pd.MultiIndex.from_tuples(keys, names=["metric", "item"]),
    )
    arr = arrangement_similarity({k: m_cent[k] for k in common}, {k: c_cent[k] for k in common})
    extra = pd.DataFrame(
        {
            "model": np.nan,
            "cortex": np.nan,
            "model_vs_cortex": [arr["spearman"], arr["procrustes"], arr["n_regions"]],
        },
        index=pd.MultiIndex.from_tuples(
            [
                ("arrangement_spearman", "centroids"),
                ("arrangement_procrustes", "centroids"),
                ("arrangement_n_regions", "centroids"),
            ],
            names=["metric", "item"],
        ),
    )
    table = pd.concat([table, extra])
    table.attrs = {
        "model_centroids": {k: v.tolist() for k, v in m_cent.items()},
        "cortex_centroids": {k: v.tolist() for k, v in c_cent.items()},
        "arrangement_regions": list(arr.get("regions", [])),
        "definitions": {
            "smoothness": {"method": "tdann", "reference": TDANN_REFERENCE},
            "patches": {
                "model": _patch_attrs(m_patches),
                "cortex": _patch_attrs(c_patches),
            },
            "map_similarity": {
                "model": "ssim (sheet)", "cortex": "ssim (sheet) or pearson (mesh)",
                "reference": SSIM_REFERENCE,
            },
            "null": {
                "n_permutations": int(n_permutations),
                "maps": "positions (smoothness, patches)",
                "pairs": "shift: shifts within the mirrored sheet, spin test on a mesh; two-sided p",
            },
        },
    }
    return table


def _patch_attrs(patches: Mapping[str, Patches]) -> dict:
    first = next(iter(patches.values()), None)
    if first is None:
        return {}
    return {k: v for k, v in first.attrs.items() if k not in ("n_permutations",)}
