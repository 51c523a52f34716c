"""The topography table: every map's metrics computed once, per sheet (layer) and name.

:func:`topography_table` is what ``toponeuro map`` and the demo-model benchmark report; the
model-vs-cortex comparison (:func:`compare_tables`) reuses its results instead of computing
them again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from numbers import Real

import numpy as np
import pandas as pd
import xarray as xr

from ..._io import null_cache as _null_cache
from ..._util import dims as D
from ..._util.constraints import MAPPING
from ..._util.docs import fill_doc
from ..._util.frozen import validate_fields
from ..._util.params import N_PERMUTATIONS, SEED, InstanceOf, Interval, validate_params
from ..._util.stack import user_stacklevel
from ..._util.typing import RandomState
from ...exceptions import InvalidDataError, UnknownNameError, close_matches
from ._compare import (
    DEFAULT_PAIRS,
    pair_similarity,
    patch_centroid,
)
from ._geometry import as_topomap
from ._null import NullResult
from ._patches import PATCH_PARAMS, TDANN_PATCHES, check_patch_params, find_patches
from ._topography import _SAMPLING, smoothness
from ._verdict import overlap_verdict

__all__ = [
    "ARRANGEMENT_REFERENCE",
    "TopographyTable",
    "arrangement_comparison",
    "domain_centres",
    "topography_table",
]

#: fraction of a map's points (its highest values) whose weighted centre is the domain centre
ARRANGEMENT_TOP = 0.1

ARRANGEMENT_REFERENCE = (
    "Margalit et al. (2024) A unifying framework for functional organization in early and "
    "higher ventral visual cortex (TDANN), Neuron 112(14), 2435-2451; Deb et al. (2025) "
    "TopoNets, ICLR. Domain centres from every domain's map (top 10% of its points, weighted "
    "by how far they exceed the 90th percentile); the sheet's centre distances are "
    "rank-correlated with the cortex's geodesic centre distances across domain pairs"
)


#: the declared ``top``: the fraction of each map's points that make its centre
_TOP = Interval(Real, 0, 1, closed="right", fix=(
    "top is the fraction of each map's points that make its centre; TDANN-style selective "
    "units are the strongest ~10%: top=0.1."))

#: a table of a TopographyTable
_FRAME = InstanceOf(pd.DataFrame, "a pandas.DataFrame", example=pd.DataFrame)



@dataclass(eq=False)
@validate_fields({
    "table": _FRAME, "similarity": _FRAME, "smoothness": MAPPING, "patches": MAPPING,
    "similarities": MAPPING, "maps": MAPPING, "attrs": MAPPING})
class TopographyTable:
    """The metrics of named maps on one or more sheets, each computed once.

    Parameters
    ----------
    table : pandas.DataFrame
        One row per ``(sheet, name)``: ``sheet`` (layer or hemisphere), ``name`` (domain),
        ``shape`` (``"16x16"`` or ``"10242 points"``), ``smoothness``, ``n_patches``,
        ``largest_patch_units``, ``mean_patch_fraction``, ``total_patch_fraction``,
        ``selective_fraction`` (points with value >= threshold), ``max_value``, ``n_points``
        (the points *with data*: the denominator of every fraction here; a mesh's medial
        wall or a NaN unit is not counted) and ``n_selective`` (points with data at or above
        the threshold: ``selective_fraction * n_points``).
    similarity : pandas.DataFrame
        One row per ``(sheet, pair)``: ``sheet``, ``pair`` (``"faces-bodies"``), ``value``
        (:func:`map_similarity`: SSIM on a sheet, Pearson on a mesh), its two-sided
        ``p_value`` (``alternative``; spectral null on a sheet, spin test on a sphere mesh, NaN
        on other meshes) and ``verdict`` (:func:`overlap_verdict` at ``alpha``: "share
        territory", "avoid each other", "no evidence either way" or "not tested").
    smoothness : dict
        ``(sheet, name)`` -> the :func:`smoothness` Dataset (score, distance profile).
    patches : dict
        ``(sheet, name)`` -> the :class:`Patches` reported (the significant ones when a null
        was drawn, each with its ``p_value``).
    similarities : dict
        ``(sheet, pair)`` -> the :func:`map_similarity` result (a :class:`NullResult` with
        its null draws).
    maps : dict
        ``(sheet, name)`` -> ``{"metrics": TopoMap, "null": TopoMap, "distance": TopoMap}``:
        the map on the geometry of its metrics, of its shift/spin null, and of its distances
        (on the cortex: geodesic along the folded mesh; on a sheet all three are the sheet),
        for :func:`arrangement_comparison`.
    attrs : dict
        Parameters used (``threshold``, ``min_units``, ``smooth_sigma``, ...).

    Examples
    --------
    >>> from toponeuro import make_activations
    >>> acts = make_activations({"fc": 64}, n_stimuli=3, random_state=0)
    >>> maps = xr.concat([acts.mean("stimulus"), acts.std("stimulus")], "domain")
    >>> res = topography_table(maps.assign_coords(domain=["a", "b"]), pairs=[("a", "b")],
    ...                        n_permutations=0, random_state=0)
    >>> res.table[["sheet", "name", "shape"]].values.tolist()
    [['fc', 'a', '8x8'], ['fc', 'b', '8x8']]
    >>> bool(res.row("fc", "a")["smoothness"] == float(res.smoothness["fc", "a"]["score"]))
    True
    """

    table: pd.DataFrame
    similarity: pd.DataFrame
    smoothness: dict = field(default_factory=dict)
    patches: dict = field(default_factory=dict)
    similarities: dict = field(default_factory=dict)
    maps: dict = field(default_factory=dict)
    attrs: dict = field(default_factory=dict)

    @property
    def sheets(self) -> list[str]:
        """Sheets (layers, hemispheres) in table order."""
        return list(dict.fromkeys(self.table["sheet"]))

    @fill_doc
    def names(self, sheet: str) -> list[str]:
        """Map names present on ``sheet``.

        Parameters
        ----------
        %(table_sheet)s

        Returns
        -------
        list of str
            The names of the maps on ``sheet``.
        """
        return self.table.loc[self.table["sheet"] == sheet, "name"].tolist()

    @fill_doc
    def row(self, sheet: str, name: str) -> pd.Series:
        """The table row of one map.

        Parameters
        ----------
        %(table_sheet)s
        %(table_map_name)s

        Returns
        -------
        pandas.Series
            The row.
        """
        hit = self.table[(self.table["sheet"] == sheet) & (self.table["name"] == name)]
        if hit.empty:
            raise UnknownNameError(
                f"No map {name!r} on sheet {sheet!r}; sheets {self.sheets}, names on it "
                f"{self.names(sheet) if sheet in self.sheets else []}."
            )
        return hit.iloc[0]

    @fill_doc
    def smoothness_null(self, sheet: str, name: str) -> NullResult:
        """The smoothness of one map with its positions null, as a :class:`NullResult`.

        The table's score and its null draws (``smoothness[sheet, name]``), so the claim
        every positions-null test has (:func:`organisation_claim`) words it; its ``p_value``
        is the table's ``smoothness_p``.

        Parameters
        ----------
        %(table_sheet)s
        %(table_map_name)s

        Returns
        -------
        NullResult
            The smoothness score and its null draws.

        Examples
        --------
        >>> rr, cc = np.mgrid[:16, :16]
        >>> blob = np.exp(-((rr - 5) ** 2 + (cc - 9) ** 2) / 10.0)
        >>> t = topography_table({"s": {"blob": blob}}, threshold=0.5, min_units=3,
        ...                      n_permutations=19, random_state=0)
        >>> r = t.smoothness_null("s", "blob")
        >>> r.null.size, bool(r.p_value == t.row("s", "blob")["smoothness_p"]), r.attrs["method"]
        (19, True, 'tdann')
        """
        self.row(sheet, name)  # a typed error naming what there is
        sm = self.smoothness[sheet, name]
        attrs = dict(sm.attrs)
        return NullResult.from_null(float(sm["score"]), sm["null"].values,
                                    attrs.get("null"), attrs,
                                    alternative=attrs.get("alternative", "greater"))

    @fill_doc
    def similarity_of(self, sheet: str, pair: str) -> float:
        """The map similarity of ``pair`` (``"faces-bodies"``) on ``sheet`` (NaN if absent).

        Parameters
        ----------
        %(table_sheet)s
        pair : str
            Two map names joined by ``-`` (``"faces-bodies"``).

        Returns
        -------
        float
            The similarity (NaN if absent).
        """
        s = self.similarity
        hit = s[(s["sheet"] == sheet) & (s["pair"] == pair)]
        return float(hit["value"].iloc[0]) if len(hit) else float("nan")

    @fill_doc
    def centroids(self, sheet: str, how: str = "largest") -> dict:
        """Name -> centroid of its largest patch (or of all patch points) on ``sheet``.

        Parameters
        ----------
        %(table_sheet)s
        how : {"largest", "all"}
            The centroid of the largest patch, or of all patch points.

        Returns
        -------
        dict
            Map name -> centroid (position units).
        """
        return {n: patch_centroid(self.patches[sheet, n], how) for n in self.names(sheet)}


def _sheets(maps, layers):
    """``[(sheet, {name: map}, geometry, similarity geometry, distance geometry)]``.

    The similarity geometry (``None``: the same) differs for cortical maps: their spin-test
    null needs sphere coordinates (``CortexMaps.spin_geometry``); so does the distance
    geometry (geodesic along the folded mesh, ``CortexMaps.geodesic_geometry``).
    """
    if isinstance(maps, xr.DataArray):
        if D.UNIT not in maps.dims or maps.ndim != 2:
            raise InvalidDataError(
                f"A DataArray of maps needs dims (name, 'unit'), e.g. domain_selectivity's "
                f"('domain', 'unit'); got {maps.dims}."
            )
        dim = next(d for d in maps.dims if d != D.UNIT)
        found = [str(v) for v in dict.fromkeys(np.asarray(maps[D.LAYER].values).astype(str))]
        layers = found if layers is None else [layers] if isinstance(layers, str) else list(layers)
        for ly in layers:
            if ly not in found:
                raise UnknownNameError(f"No layer {ly!r} in the maps; {close_matches(ly, found)}")
        names = [str(v) for v in maps[dim].values]
        return [(ly, {n: maps.sel({dim: n}) for n in names}, {"layer": ly}, None, None)
                for ly in layers]
    if not isinstance(maps, Mapping) or not maps:
        raise InvalidDataError(
            "Give the maps as a (name, unit) DataArray (e.g. domain_selectivity's), or a "
            "mapping sheet -> {name: map} (or sheet -> CortexMaps)."
        )
    out = []
    for sheet, side in maps.items():
        if hasattr(side, "maps") and hasattr(side, "geometry"):  # atlases.CortexMaps
            spin = dict(getattr(side, "spin_geometry", side.geometry))
            dist = getattr(side, "geodesic_geometry", None)
            out.append((str(sheet), dict(side.maps), dict(side.geometry), spin,
                        None if dist is None else dict(dist)))
        elif isinstance(side, Mapping):
            out.append((str(sheet), dict(side), {}, None, None))
        else:
            raise InvalidDataError(
                f"maps[{sheet!r}] must be a mapping name -> map or a CortexMaps; got "
                f"{type(side).__name__}."
            )
    return out


def _row(sheet, name, tm, sm, vals) -> dict:
    return {"sheet": sheet, "name": name,
            "shape": ("x".join(map(str, tm.grid_shape)) if tm.grid_shape is not None
                      else f"{tm.n} points"),
            "smoothness": float(sm["score"]), "smoothness_null_mean": float(sm["null_mean"]),
            "smoothness_null_std": float(sm["null_std"]), "smoothness_p": float(sm["p_value"]),
            "n_points": int(vals.size)}


#: the patch columns of a map without a threshold (``threshold=None``: an empty selection)
_NO_PATCHES = {"n_patches": 0, "n_significant_patches": np.nan, "largest_patch_units": 0,
               "mean_patch_fraction": np.nan, "total_patch_fraction": 0.0,
               "selective_fraction": 0.0, "n_selective": 0}


def _patch_columns(p) -> dict:
    frac = p.table["fraction"]
    return {
        "largest_patch_units": int(p.table["n_units"].iloc[0]) if p.n_patches else 0,
        "mean_patch_fraction": float(frac.mean()) if len(frac) else 0.0,
        "total_patch_fraction": float(frac.sum()),
    }


@validate_params({
    "threshold": [PATCH_PARAMS["threshold"], None],
    **{k: PATCH_PARAMS[k] for k in ("min_units", "smooth_sigma", "n_permutations", "alpha",
                                    "random_state")},
    "n_samples": _SAMPLING["n_samples"],
    "sample_size": _SAMPLING["sample_size"],
    "similarity_permutations": [N_PERMUTATIONS, None],
})
@fill_doc
def topography_table(
    maps,
    *,
    layers: str | Sequence[str] | None = None,
    threshold: float | None = TDANN_PATCHES["threshold"],
    min_units: int = TDANN_PATCHES["min_count"],
    smooth_sigma="tdann",
    pairs: Sequence[tuple[str, str]] = DEFAULT_PAIRS,
    n_samples: int = 20,
    sample_size: int | None = None,
    n_permutations: int = 1000,
    similarity_permutations: int | None = None,
    alpha: float = 0.05,
    random_state: RandomState = None,
) -> TopographyTable:
    """Smoothness, patches and map similarity of every map on every sheet, each once, with nulls.

    The per-layer x domain table of a model (or per-hemisphere x domain of the cortex):
    :func:`smoothness` (TDANN's score), :func:`find_patches` (TDANN's procedure) and, for
    each of ``pairs``, :func:`map_similarity` (SSIM on a sheet grid; Pearson across points on
    a mesh, where SSIM has no standard definition), called once per map with its spatial null
    (:func:`spatial_null`: units' positions shuffled for smoothness and patches, one map moved
    as a whole for similarity). Their full results are kept so tables, figures and files
    can all reuse them.

    Parameters
    ----------
    maps : xarray.DataArray or mapping
        A ``(name, "unit")`` DataArray of per-unit maps over one or more layers (e.g.
        :func:`domain_selectivity`), whose sheets are the layers; or a mapping sheet ->
        ``{name: map}`` (any map :func:`as_topomap` reads) or sheet ->
        :class:`toponeuro.atlases.CortexMaps` (its geometry comes along).
    layers : str or list of str, optional
        Layers of a DataArray to measure (default all, in unit order).
    threshold : float or None
        Patch detection threshold (see :func:`find_patches`; TDANN's t >= 2 by default;
        ``threshold=0.5, smooth_sigma=0`` for 0/1 ROI maps). ``selective_fraction`` counts
        the points at or above it (unsmoothed). ``None``: no patches (an empty selection
        has no threshold, e.g. :func:`fdr_selection` with no unit passing): 0 patches,
        their p NaN.
    min_units : int
        Smallest patch kept, in points (see :func:`find_patches`; TDANN's 10).
    smooth_sigma : float or "tdann"
        Smoothing before thresholding (see :func:`find_patches`; default scaled from
        TDANN's 2.4 mm).
    pairs : sequence of (name, name)
        Map pairs whose similarity is reported (pairs with a name absent from a sheet are
        skipped on it).
    n_samples, sample_size : int
        Smoothness sampling (see :func:`smoothness`).
    %(n_permutations)s
        Here: each statistic's spatial null (0: every patch kept).
    similarity_permutations : int, optional
        Draws of the map-similarity null alone (default ``n_permutations``): e.g. a spin
        test of atlas ROIs' overlap while their smoothness and patches, fixed binary regions,
        get none.
    %(alpha)s
        Here: a patch counts as significant, and the overlap verdicts are drawn, at it.
    %(random_state)s

    Returns
    -------
    TopographyTable
        ``table`` columns also hold ``smoothness_null_mean``, ``smoothness_null_std``,
        ``smoothness_p``, ``n_significant_patches``; the patch sizes and centroids are those
        of the significant patches (of all patches without a null). ``similarity`` holds
        ``method``, ``null_mean``, ``null_std``, ``p_value``, ``alternative``, ``verdict``.
        ``attrs["definitions"]`` says
        which definition each statistic follows and where it comes from.

    Examples
    --------
    >>> rr, cc = np.mgrid[:20, :20]
    >>> blob = 5 * np.exp(-((rr - 6) ** 2 + (cc - 12) ** 2) / 8.0)
    >>> res = topography_table({"sheet": {"faces": blob, "bodies": blob.T}},
    ...                        n_permutations=99, random_state=0)
    >>> row = res.row("sheet", "faces")
    >>> int(row["n_significant_patches"]), float(row["smoothness_p"])
    (1, 0.01)
    >>> res.similarity[["pair", "method"]].values.tolist()
    [['faces-bodies', 'ssim']]
    """
    no_patches = threshold is None  # an empty selection: no threshold, so no patches
    checked = check_patch_params(TDANN_PATCHES["threshold"] if no_patches else threshold,
                                 min_units, smooth_sigma, alpha=alpha,
                                 n_permutations=n_permutations, random_state=random_state)
    n_permutations = checked["n_permutations"]
    sides = _sheets(maps, layers)
    null_kw = {"n_permutations": int(n_permutations), "random_state": random_state}
    n_sim = int(n_permutations if similarity_permutations is None else similarity_permutations)
    sim_kw = {**null_kw, "n_permutations": n_sim}
    with_null = n_permutations > 0
    rows, sims, smooth, patches, results, defs, kept_maps = [], [], {}, {}, {}, {}, {}
    for sheet, named, geom, sim_geom, dist_geom in sides:
        tms = {n: as_topomap(m, **geom, name=f"{sheet} {n}") for n, m in named.items()}
        null_tms = tms if sim_geom is None else {
            n: as_topomap(named[n], **sim_geom, name=f"{sheet} {n}") for n in named}
        dist_tms = tms if dist_geom is None else {
            n: as_topomap(named[n], **dist_geom, name=f"{sheet} {n}") for n in named}
        for name, tm in tms.items():
            kept_maps[sheet, name] = {"metrics": tm, "null": null_tms[name],
                                      "distance": dist_tms[name]}
            sm = smoothness(tm, n_samples=n_samples, sample_size=sample_size, **null_kw)
            vals = tm.values[tm.finite]
            smooth[sheet, name] = sm
            defs.setdefault("smoothness", dict(sm.attrs))
            if no_patches:
                rows.append(_row(sheet, name, tm, sm, vals) | _NO_PATCHES | {
                    "max_value": float(vals.max()) if vals.size else np.nan})
                continue
            p = find_patches(tm, threshold, min_units, smooth_sigma, alpha=alpha, **null_kw)
            kept = p.significant if with_null else p
            patches[sheet, name] = kept
            defs.setdefault("patches", dict(p.attrs))
            rows.append({
                **_row(sheet, name, tm, sm, vals),
                "n_patches": int(p.n_patches),
                "n_significant_patches": int(kept.n_patches) if with_null else np.nan,
                **_patch_columns(kept),
                "selective_fraction": float(np.mean(vals >= threshold)) if vals.size else np.nan,
                "n_selective": int(np.sum(vals >= threshold)),
                "max_value": float(vals.max()) if vals.size else np.nan,
            })
        for a, b in pairs:
            if a in tms and b in tms:
                r = pair_similarity(null_tms[a], null_tms[b], **sim_kw)
                method = r.attrs["method"]
                results[sheet, f"{a}-{b}"] = r
                defs.setdefault(f"similarity_{method}", dict(r.attrs))
                sims.append({"sheet": sheet, "pair": f"{a}-{b}", "method": method,
                             "value": float(r.statistic), "null_mean": r.null_mean,
                             "null_std": r.null_std, "p_value": r.p_value,
                             "alternative": r.alternative, "null": r.null_method,
                             "verdict": overlap_verdict(r, alpha=alpha).outcome})
    attrs = {"threshold": float("nan") if no_patches else float(threshold),
             "min_units": int(min_units),
             "smooth_sigma": smooth_sigma, "n_samples": int(n_samples),
             "n_permutations": int(n_permutations), "similarity_permutations": n_sim,
             "alpha": float(alpha),
             "definitions": defs}
    return TopographyTable(
        table=pd.DataFrame(rows),
        similarity=pd.DataFrame(sims, columns=["sheet", "pair", "method", "value", "null_mean",
                                               "null_std", "p_value", "alternative", "null",
                                               "verdict"]),
        smoothness=smooth, patches=patches, similarities=results, maps=kept_maps,
        attrs=attrs,
    )



# --------------------------------------------------------------------------- arrangement


def _centre_weights(vals: np.ndarray, top: float) -> np.ndarray:
    """``(b, n)`` weights of each point in its map's centre: the top ``top`` fraction of the
    finite values, weighted by how far each exceeds the cut (ties at the cut weigh 0; a map
    whose selected points all tie weighs them alike); all-zero rows for maps with no value."""
    fin = np.isfinite(vals)
    v = np.where(fin, vals, -np.inf)
    n_fin = fin.sum(1)
    k = np.maximum(1, np.ceil(top * n_fin).astype(int))
    srt = -np.sort(-v, axis=1)
    cut = srt[np.arange(len(v)), np.minimum(k, v.shape[1]) - 1]
    sel = (v >= cut[:, None]) & fin
    w = np.where(sel, v - np.where(np.isfinite(cut), cut, 0.0)[:, None], 0.0)
    flat = w.sum(1) <= 0
    w[flat] = sel[flat]
    w[n_fin == 0] = 0.0
    return w


def _centres_of(vals: np.ndarray, tm, top: float):
    """Domain centres of ``(b, n)`` value rows on ``tm``'s points.

    A sheet: ``(b, d)`` coordinates (the weighted mean position). A mesh: ``(b,)`` vertex
    indices (the selected vertex nearest the weighted mean of their positions), since a
    mean of folded-surface coordinates lies off the cortex. NaN / -1 where undefined.
    """
    w = _centre_weights(vals, top)
    tot = w.sum(1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = (w @ tm.positions) / tot[:, None]
    if tm.grid_shape is not None:
        return mean
    d2 = ((tm.positions[None, :, :] - mean[:, None, :]) ** 2).sum(-1)
    d2 = np.where(w > 0, d2, np.inf)
    idx = np.argmin(d2, axis=1)
    idx[~(tot > 0)] = -1
    return idx


def _pair_distances(centres: list, tm) -> np.ndarray:
    """``(b, n_pairs)`` distances between the centres of each pair of domains (row-major
    upper triangle), Euclidean on a sheet, along ``tm``'s distance (geodesic) on a mesh."""
    m = len(centres)
    pairs = [(i, j) for i in range(m) for j in range(i + 1, m)]
    if tm.grid_shape is not None:
        return np.stack([np.linalg.norm(centres[i] - centres[j], axis=1) for i, j in pairs], 1)
    memo = tm._cache.setdefault("centre_distances", {})
    idx = np.stack(centres, 1)  # (b, m) vertices
    need = {int(v) for v in np.unique(idx) if v >= 0}
    missing = sorted(need - set(memo))
    for start in range(0, len(missing), 256):
        src = missing[start:start + 256]
        rows = tm.distances_from(src)
        for s_, row in zip(src, rows):
            memo[s_] = row.astype(np.float32)
    out = np.full((len(idx), len(pairs)), np.nan)
    for k, (i, j) in enumerate(pairs):
        for r in range(len(idx)):
            a, b = idx[r, i], idx[r, j]
            if a >= 0 and b >= 0:
                out[r, k] = memo[int(a)][int(b)]
    return out


def _rank_correlation(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Spearman correlation of each row of ``x`` (b, p) with ``y`` (p,) (NaN if undefined)."""
    from scipy.stats import rankdata

    bad = ~np.isfinite(x).all(1)
    rx = rankdata(np.where(np.isfinite(x), x, 0.0), axis=1)
    ry = rankdata(y)
    rx = rx - rx.mean(1, keepdims=True)
    ry = ry - ry.mean()
    den = np.sqrt((rx ** 2).sum(1) * (ry ** 2).sum())
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = (rx @ ry) / den
    rho[bad | ~(den > 0)] = np.nan
    return rho


@validate_params({"top": _TOP})
def domain_centres(maps: Mapping, *, top: float = ARRANGEMENT_TOP) -> dict:
    """Each domain's centre on its sheet or mesh, from its whole map.

    The centre of a map is the mean position of its ``top`` fraction of points with the
    highest values, each weighted by how far it exceeds the cut (the ``1 - top`` quantile);
    on a mesh, the selected vertex nearest that mean (so the centre lies on the cortex).
    Every map with a finite value has one, whatever its patches.

    Parameters
    ----------
    maps : mapping name -> TopoMap
        Maps on one sheet or mesh (e.g. ``TopographyTable.maps[sheet, name]["distance"]``).
    top : float
        Fraction of points in ``(0, 1]`` (default 0.1).

    Returns
    -------
    dict
        Name -> ``(d,)`` coordinates on a sheet, or the centre's vertex index on a mesh.

    Examples
    --------
    >>> from toponeuro.analysis import as_topomap
    >>> rr, cc = np.mgrid[:20, :20]
    >>> m = as_topomap(np.exp(-((rr - 5) ** 2 + (cc - 12) ** 2) / 8.0))
    >>> domain_centres({"faces": m})["faces"].round(1).tolist()
    [5.0, 12.0]
    """
    out = {}
    for name, tm in maps.items():
        c = _centres_of(tm.values[None, :], tm, top)[0]
        out[name] = c if tm.grid_shape is not None else int(c)
    return out


def _centre_value(c):
    """A centre as JSON-able data: a vertex index (mesh) or a coordinate list (sheet)."""
    return c.tolist() if np.ndim(c) else int(c)


@validate_params({"top": _TOP, "n_permutations": [N_PERMUTATIONS, None],
                  "cortex_permutations": [N_PERMUTATIONS, None], "random_state": SEED})
@fill_doc
def arrangement_comparison(
    model: TopographyTable,
    model_sheet: str,
    cortex: TopographyTable,
    cortex_sheet: str,
    *,
    top: float = ARRANGEMENT_TOP,
    n_permutations: int | None = None,
    cortex_permutations: int | None = None,
    random_state: RandomState = None,
) -> dict:
    """Are the domains arranged on the sheet as on the cortex? Rank correlation of centre
    distances, with a null on each side.

    Every domain present on both sides takes part, whether or not it has a significant
    patch: its centre is that of its whole map (:func:`domain_centres`). The statistic is
    the Spearman correlation, across domain pairs, between the distances of the two centres
    on the sheet (Euclidean, in units) and on the cortex (geodesic along the folded mesh,
    mm). Two nulls, each keeping one side fixed:

    - ``p_shift``: every sheet map but the first moved as a whole (:func:`spatial_null`'s
      ``"shift"``: a random shift of the mirrored sheet); the cortex distances stay.
    - ``p_spin``: every cortical map but the first rotated on the sphere (spin test); the
      sheet distances stay.

    ``p_value`` is the larger of the two: the sheet's arrangement counts as the cortex's
    only when it beats both nulls.

    Parameters
    ----------
    model : TopographyTable
        The model's table, from :func:`topography_table` (its ``maps`` carry the sheet's
        geometry).
    model_sheet : str
        The model layer compared.
    cortex : TopographyTable
        The cortex's table, from :func:`topography_table` (its ``maps`` carry the mesh's
        geometry).
    cortex_sheet : str
        The hemisphere compared.
    top : float
        Fraction of each map's points that make its centre.
    %(n_permutations)s
        Here: draws of the shift null (default ``None``: the model table's
        ``n_permutations``; 0: none, p-values NaN).
    cortex_permutations : int, optional
        Draws of the spin null (default the cortex table's ``similarity_permutations``;
        0: none, p-values NaN).
    %(random_state)s

    Returns
    -------
    dict
        ``spearman``, ``p_value``, ``p_shift``, ``p_spin``, ``null_shift_mean``,
        ``null_spin_mean`` (and ``_std``), ``n_domains``, ``n_pairs``, ``domains``, ``model_centres``
        and ``cortex_centres`` (coordinates on a sheet, vertex indices on a mesh),
        ``model_distances``,
        ``cortex_distances`` (per pair, in ``pairs`` order), ``pairs``, ``top`` and
        ``reference``. With fewer than 3 shared domains (under 3 pairs) every number is NaN
        and an :class:`~toponeuro.exceptions.UndefinedValueWarning` says why.

    Examples
    --------
    >>> rr, cc = np.mgrid[:20, :30]
    >>> blob = lambda r, c: 5 * np.exp(-((rr - r) ** 2 + (cc - c) ** 2) / 8.0)
    >>> sheet = {"faces": blob(4, 5), "bodies": blob(15, 8), "places": blob(10, 25),
    ...          "words": blob(3, 20)}
    >>> t = topography_table({"s": sheet}, n_permutations=0, random_state=0)
    >>> res = arrangement_comparison(t, "s", t, "s", n_permutations=199, cortex_permutations=0,
    ...                              random_state=0)
    >>> round(res["spearman"], 6), res["n_pairs"], res["p_shift"] < 0.05
    (1.0, 6, True)
    """
    import warnings

    from ...exceptions import UndefinedValueWarning
    from ._null import NullResult, spatial_null

    for res, sheet in ((model, model_sheet), (cortex, cortex_sheet)):
        if sheet not in res.sheets:
            raise UnknownNameError(f"No sheet {sheet!r}; {close_matches(sheet, res.sheets)}")
    n_shift = int(model.attrs.get("n_permutations", 0) if n_permutations is None
                  else n_permutations)
    n_spin = int(cortex.attrs.get("similarity_permutations", 0) if cortex_permutations is None
                 else cortex_permutations)
    names = [n for n in model.names(model_sheet) if n in cortex.names(cortex_sheet)]
    flat = [n for n in names if any(  # a constant map has no centre: left out, not centred
        np.ptp(np.nan_to_num(v := res.maps[sh, n]["distance"].values, nan=np.nanmin(v))) == 0
        for res, sh in ((model, model_sheet), (cortex, cortex_sheet)))]
    if flat:
        warnings.warn(UndefinedValueWarning(
            f"The arrangement of {model_sheet!r} vs {cortex_sheet!r} leaves out {flat}: a "
            "constant map has no centre (it would sit at the sheet's middle and enter rho). "
            "Check that map's input."), stacklevel=user_stacklevel())
        names = [n for n in names if n not in flat]
    pairs = [f"{a}-{b}" for i, a in enumerate(names) for b in names[i + 1:]]
    out = {"spearman": np.nan, "p_value": np.nan, "p_shift": np.nan, "p_spin": np.nan,
           "null_shift_mean": np.nan, "null_spin_mean": np.nan, "null_shift_std": np.nan,
           "null_spin_std": np.nan, "n_domains": len(names),
           "n_pairs": len(pairs), "domains": names, "pairs": pairs, "top": top,
           "model_centres": {}, "cortex_centres": {}, "model_distances": [],
           "cortex_distances": [], "reference": ARRANGEMENT_REFERENCE}
    if len(names) < 3:
        warnings.warn(UndefinedValueWarning(
            f"The arrangement of {model_sheet!r} vs {cortex_sheet!r} needs 3 or more domains "
            f"mapped on both (3 pairs of distances); they share {len(names)} ({names}). It is "
            "NaN. Give maps of more domains (e.g. cortex_maps=...)."), stacklevel=user_stacklevel())
        return out
    m_dist = [model.maps[model_sheet, n]["distance"] for n in names]
    c_dist = [cortex.maps[cortex_sheet, n]["distance"] for n in names]
    m_vals = np.stack([tm.values for tm in m_dist])
    c_vals = np.stack([tm.values for tm in c_dist])
    m_cent = [_centres_of(v[None, :], m_dist[0], top) for v in m_vals]
    c_cent = [_centres_of(v[None, :], c_dist[0], top) for v in c_vals]
    dm = _pair_distances(m_cent, m_dist[0])[0]
    dc = _pair_distances(c_cent, c_dist[0])[0]
    rho = float(_rank_correlation(dm[None, :], dc)[0])
    out.update(spearman=rho, model_distances=dm.tolist(), cortex_distances=dc.tolist(),
               model_centres={n: _centre_value(c[0]) for n, c in zip(names, m_cent)},
               cortex_centres={n: _centre_value(c[0]) for n, c in zip(names, c_cent)})
    if not np.isfinite(rho):
        warnings.warn(UndefinedValueWarning(
            f"The arrangement of {model_sheet!r} vs {cortex_sheet!r} is undefined (NaN): the "
            "centre distances on one side are all equal (or a map has no finite value)."),
            stacklevel=user_stacklevel())
        return out

    def on_sheet(*maps):
        # one draw ((n,) or a grid) or a batch ((b, n) / (b, h, w)) of each map
        cents = [_centres_of(x.reshape(-1, m_dist[0].n), m_dist[0], top) for x in maps]
        return _rank_correlation(_pair_distances(cents, m_dist[0]), dc)

    drawn: list = []  # the cortex's centre distances of every spin draw, in order

    def on_cortex(*maps):
        # one draw ((n,) or a grid) or a batch ((b, n) / (b, h, w)) of each map
        cents = [_centres_of(x.reshape(-1, c_dist[0].n), c_dist[0], top) for x in maps]
        dist = _pair_distances(cents, c_dist[0])
        drawn.append(dist)
        return _rank_correlation(dist, dm)

    if n_shift:
        m_null = [model.maps[model_sheet, n]["null"] for n in names]
        # a grid sheet's maps shift (mirrored); units at free positions have no shift, so
        # their positions are permuted (the same permutation for every domain's map)
        null = "shift" if m_null[0].grid_shape is not None else "positions"
        with warnings.catch_warnings():  # its note is about overlap (SSIM); here the
            # centres move with the permuted positions, which is the question asked
            warnings.filterwarnings("ignore", message="null='positions' moves every map")
            r = spatial_null(on_sheet, *m_null, null=null, n_permutations=n_shift,
                             alternative="greater", vectorized=True,
                             random_state=random_state)
        out["model_null"] = null
        out.update(p_shift=r.p_value, null_shift_mean=r.null_mean, null_shift_std=r.null_std)
    if n_spin:
        # The spin draws depend on the cortex alone: with a fixed seed every layer compared
        # with this hemisphere gets the same rotations, so they are drawn once (by
        # spatial_null) and each further layer's rho is scored against the same draws.
        key = ("arrangement_spin", tuple(names), top, n_spin, random_state)
        memo = c_dist[0]._cache if isinstance(random_state, (int, np.integer)) else {}
        if key not in memo:
            spun = [cortex.maps[cortex_sheet, n]["null"] for n in names]

            def spin():
                r = spatial_null(on_cortex, *spun, null="shift", n_permutations=n_spin,
                                 alternative="greater", vectorized=True,
                                 random_state=random_state)
                # drawn[0]: the observed
                return {"draws": np.concatenate(drawn[1:])}, {"method": r.null_method}

            # and on disk (the cortex step's null cache): the same maps, mesh and seed
            arrays, meta = _null_cache.cached(
                "arrangement-spin", _null_cache.arrangement_parts(spun, c_dist[0], top, n_spin,
                                                                  random_state), spin)
            memo[key] = (arrays["draws"], meta["method"])
        draws, method = memo[key]
        r = NullResult.from_null(rho, _rank_correlation(draws, dm), method,
                                 alternative="greater")
        out.update(p_spin=r.p_value, null_spin_mean=r.null_mean, null_spin_std=r.null_std,
                   spin_null=method)
    ps = [p for p, n in ((out["p_shift"], n_shift), (out["p_spin"], n_spin)) if n]
    out["p_value"] = float(max(ps)) if ps and np.isfinite(ps).all() else np.nan
    return out
