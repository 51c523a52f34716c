"""The topography table: every map's metrics computed once, per sheet (layer) and name.

:func:`topography_table` is what ``toponeuro map`` and the demo-model benchmark report; the
model-vs-cortex comparison (:func:`compare_tables`) reuses its results instead of computing
them again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import xarray as xr

from .. import _dims as D
from .._docs import fill_doc
from .._typing import RandomState
from ..exceptions import InvalidDataError, UnknownNameError, close_matches
from ._compare import (
    _CENTROIDS,
    DEFAULT_PAIRS,
    arrangement_similarity,
    pair_similarity,
    patch_centroid,
)
from ._geometry import as_topomap
from ._patches import TDANN_PATCHES, find_patches
from ._topography import smoothness

__all__ = ["TopographyTable", "topography_table", "compare_tables"]


@dataclass(eq=False)
class TopographyTable:
    """The metrics of named maps on one or more sheets, each computed once.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per ``(sheet, name)``: ``sheet`` (layer or hemisphere), ``name`` (domain),
        ``shape`` (``"16x16"`` or ``"10242 points"``), ``smoothness``, ``n_patches``,
        ``largest_patch_units``, ``mean_patch_fraction``, ``total_patch_fraction``,
        ``selective_fraction`` (points with value >= threshold) and ``max_value``.
    similarity : pandas.DataFrame
        One row per ``(sheet, pair)``: ``sheet``, ``pair`` (``"faces-bodies"``), ``value``
        (:func:`map_similarity`: SSIM on a sheet, Pearson on a mesh) and its ``p_value``
        (shift null; spin test on a sphere mesh, NaN on other meshes).
    smoothness : dict
        ``(sheet, name)`` -> the :func:`smoothness` Dataset (score, distance profile).
    patches : dict
        ``(sheet, name)`` -> the :class:`Patches` reported (the significant ones when a null
        was drawn, each with its ``p_value``).
    similarities : dict
        ``(sheet, pair)`` -> the :func:`map_similarity` result (a :class:`NullResult` with
        its null draws).
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
    attrs: dict = field(default_factory=dict)

    @property
    def sheets(self) -> list[str]:
        """Sheets (layers, hemispheres) in table order."""
        return list(dict.fromkeys(self.table["sheet"]))

    def names(self, sheet: str) -> list[str]:
        """Map names present on ``sheet``."""
        return self.table.loc[self.table["sheet"] == sheet, "name"].tolist()

    def row(self, sheet: str, name: str) -> pd.Series:
        """The table row of one map."""
        hit = self.table[(self.table["sheet"] == sheet) & (self.table["name"] == name)]
        if hit.empty:
            raise UnknownNameError(
                f"No map {name!r} on sheet {sheet!r}; sheets {self.sheets}, names on it "
                f"{self.names(sheet) if sheet in self.sheets else []}."
            )
        return hit.iloc[0]

    def similarity_of(self, sheet: str, pair: str) -> float:
        """The map similarity of ``pair`` (``"faces-bodies"``) on ``sheet`` (NaN if absent)."""
        s = self.similarity
        hit = s[(s["sheet"] == sheet) & (s["pair"] == pair)]
        return float(hit["value"].iloc[0]) if len(hit) else float("nan")

    def centroids(self, sheet: str, how: str = "largest") -> dict:
        """Name -> centroid of its largest patch (or of all patch points) on ``sheet``."""
        return {n: patch_centroid(self.patches[sheet, n], how) for n in self.names(sheet)}


def _sheets(maps, layers):
    """``[(sheet, {name: map}, geometry, similarity geometry)]`` of the accepted inputs.

    The similarity geometry (``None``: the same) differs for cortical maps: their spin-test
    null needs sphere coordinates (``CortexMaps.spin_geometry``).
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
        return [(ly, {n: maps.sel({dim: n}) for n in names}, {"layer": ly}, None)
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
            out.append((str(sheet), dict(side.maps), dict(side.geometry), spin))
        elif isinstance(side, Mapping):
            out.append((str(sheet), dict(side), {}, None))
        else:
            raise InvalidDataError(
                f"maps[{sheet!r}] must be a mapping name -> map or a CortexMaps; got "
                f"{type(side).__name__}."
            )
    return out


def _patch_columns(p) -> dict:
    frac = p.table["fraction"]
    return {
        "largest_patch_units": int(p.table["n_units"].iloc[0]) if p.n_patches else 0,
        "mean_patch_fraction": float(frac.mean()) if len(frac) else 0.0,
        "total_patch_fraction": float(frac.sum()),
    }


@fill_doc
def topography_table(
    maps,
    *,
    layers: str | Sequence[str] | None = None,
    threshold: float = TDANN_PATCHES["threshold"],
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
    threshold, min_units, smooth_sigma :
        Patch detection (see :func:`find_patches`; TDANN's t >= 2, 10 units, sigma scaled
        from 2.4 mm by default; ``threshold=0.5, smooth_sigma=0`` for 0/1 ROI maps).
        ``selective_fraction`` counts the points at or above ``threshold`` (unsmoothed).
    pairs : sequence of (name, name)
        Map pairs whose similarity is reported (pairs with a name absent from a sheet are
        skipped on it).
    n_samples, sample_size : int
        Smoothness sampling (see :func:`smoothness`).
    n_permutations : int
        Draws of each statistic's spatial null (0: none; p-values NaN, every patch kept).
    similarity_permutations : int, optional
        Draws of the map-similarity null alone (default ``n_permutations``): e.g. a spin
        test of atlas ROIs' overlap while their smoothness and patches, fixed binary regions,
        get none.
    alpha : float
        Level at which a patch counts as significant.
    %(random_state)s

    Returns
    -------
    TopographyTable
        ``table`` columns also hold ``smoothness_null_mean``, ``smoothness_null_std``,
        ``smoothness_p``, ``n_significant_patches``; the patch sizes and centroids are those
        of the significant patches (of all patches without a null). ``similarity`` holds
        ``method``, ``null_mean``, ``null_std``, ``p_value``. ``attrs["definitions"]`` says
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
    sides = _sheets(maps, layers)
    null_kw = {"n_permutations": int(n_permutations), "random_state": random_state}
    n_sim = int(n_permutations if similarity_permutations is None else similarity_permutations)
    sim_kw = {**null_kw, "n_permutations": n_sim}
    with_null = n_permutations > 0
    rows, sims, smooth, patches, results, defs = [], [], {}, {}, {}, {}
    for sheet, named, geom, sim_geom in sides:
        tms = {n: as_topomap(m, **geom, name=f"{sheet} {n}") for n, m in named.items()}
        for name, tm in tms.items():
            sm = smoothness(tm, n_samples=n_samples, sample_size=sample_size, **null_kw)
            p = find_patches(tm, threshold, min_units, smooth_sigma, alpha=alpha, **null_kw)
            kept = p.significant if with_null else p
            smooth[sheet, name], patches[sheet, name] = sm, kept
            defs.setdefault("smoothness", dict(sm.attrs))
            defs.setdefault("patches", dict(p.attrs))
            vals = tm.values[tm.finite]
            rows.append({
                "sheet": sheet,
                "name": name,
                "shape": ("x".join(map(str, tm.grid_shape)) if tm.grid_shape is not None
                          else f"{tm.n} points"),
                "smoothness": float(sm["score"]),
                "smoothness_null_mean": float(sm["null_mean"]),
                "smoothness_null_std": float(sm["null_std"]),
                "smoothness_p": float(sm["p_value"]),
                "n_patches": int(p.n_patches),
                "n_significant_patches": int(kept.n_patches) if with_null else np.nan,
                **_patch_columns(kept),
                "selective_fraction": float(np.mean(vals >= threshold)) if vals.size else np.nan,
                "max_value": float(vals.max()) if vals.size else np.nan,
            })
        for a, b in pairs:
            if a in tms and b in tms:
                ta, tb = ((tms[a], tms[b]) if sim_geom is None else
                          (as_topomap(named[x], **sim_geom, name=f"{sheet} {x}") for x in (a, b)))
                r = pair_similarity(ta, tb, **sim_kw)
                method = r.attrs["method"]
                results[sheet, f"{a}-{b}"] = r
                defs.setdefault(f"similarity_{method}", dict(r.attrs))
                sims.append({"sheet": sheet, "pair": f"{a}-{b}", "method": method,
                             "value": float(r.statistic), "null_mean": r.null_mean,
                             "null_std": r.null_std, "p_value": r.p_value,
                             "null": r.null_method})
    attrs = {"threshold": float(threshold), "min_units": int(min_units),
             "smooth_sigma": smooth_sigma, "n_samples": int(n_samples),
             "n_permutations": int(n_permutations), "similarity_permutations": n_sim,
             "alpha": float(alpha),
             "definitions": defs}
    return TopographyTable(
        table=pd.DataFrame(rows),
        similarity=pd.DataFrame(sims, columns=["sheet", "pair", "method", "value", "null_mean",
                                               "null_std", "p_value", "null"]),
        smoothness=smooth, patches=patches, similarities=results, attrs=attrs,
    )


def compare_tables(
    model: TopographyTable,
    model_sheet: str,
    cortex: TopographyTable,
    cortex_sheet: str,
    *,
    centroid: str = "largest",
) -> pd.DataFrame:
    """One sheet of a model beside one of the cortex, from their already computed tables.

    The one model-vs-cortex table (``toponeuro map`` and the tutorials build it so):
    index ``(metric, item)``, columns ``model``, ``cortex`` (``smoothness``,
    ``smoothness_p``, ``n_patches``, ``n_significant_patches``, ``mean_patch_fraction``,
    ``total_patch_fraction`` per name -- fractions of the significant patches when a null
    was drawn; ``map_similarity``, ``map_similarity_p`` per pair) and ``model_vs_cortex`` (``arrangement_spearman``,
    ``arrangement_procrustes``, ``arrangement_n_regions``: :func:`arrangement_similarity`
    of the centroids of the names present on both sides). ``.attrs`` holds the centroids
    and the regions used.

    Parameters
    ----------
    model, cortex : TopographyTable
    model_sheet, cortex_sheet : str
        The layer and the hemisphere compared.
    centroid : {"largest", "all"}
        A region's centroid: its largest patch's, or that of all its patch points.

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> rr, cc = np.mgrid[:20, :30]
    >>> blob = lambda r, c: 5 * np.exp(-((rr - r) ** 2 + (cc - c) ** 2) / 8.0)
    >>> sheet = {"faces": blob(4, 5), "bodies": blob(15, 8), "places": blob(10, 25)}
    >>> t = topography_table({"s": sheet}, threshold=3.0, min_units=3, smooth_sigma=0,
    ...                      n_permutations=0, random_state=0)
    >>> out = compare_tables(t, "s", t, "s")
    >>> float(out.loc[("arrangement_procrustes", "centroids"), "model_vs_cortex"]) < 1e-9
    True
    """
    if centroid not in _CENTROIDS:
        raise UnknownNameError(f"Unknown centroid {centroid!r}; "
                               f"{close_matches(centroid, _CENTROIDS)}")
    metrics = ("smoothness", "smoothness_p", "n_patches", "n_significant_patches",
               "mean_patch_fraction", "total_patch_fraction")
    sides = []
    for res, sheet in ((model, model_sheet), (cortex, cortex_sheet)):
        if sheet not in res.sheets:
            raise UnknownNameError(f"No sheet {sheet!r}; {close_matches(sheet, res.sheets)}")
        t = res.table[res.table["sheet"] == sheet].set_index("name")
        rows = {(m, n): float(t.loc[n, m]) for n in t.index for m in metrics}
        s = res.similarity[res.similarity["sheet"] == sheet]
        for pair, v, pv in zip(s["pair"], s["value"], s["p_value"]):
            rows[("map_similarity", pair)] = float(v)
            rows[("map_similarity_p", pair)] = float(pv)
        sides.append(rows)
    keys = list(dict.fromkeys([*sides[0], *sides[1]]))
    m_cent = model.centroids(model_sheet, centroid)
    c_cent = cortex.centroids(cortex_sheet, centroid)
    common = [n for n in m_cent if n in c_cent]
    arr = arrangement_similarity({n: m_cent[n] for n in common}, {n: c_cent[n] for n in common})
    arr_keys = [("arrangement_spearman", "centroids"), ("arrangement_procrustes", "centroids"),
                ("arrangement_n_regions", "centroids")]
    table = pd.DataFrame(
        {
            "model": [sides[0].get(k, np.nan) for k in keys] + [np.nan] * 3,
            "cortex": [sides[1].get(k, np.nan) for k in keys] + [np.nan] * 3,
            "model_vs_cortex": [np.nan] * len(keys)
            + [arr["spearman"], arr["procrustes"], arr["n_regions"]],
        },
        index=pd.MultiIndex.from_tuples(keys + arr_keys, names=["metric", "item"]),
    )
    table.attrs = {
        "model_centroids": {k: v.tolist() for k, v in m_cent.items()},
        "cortex_centroids": {k: v.tolist() for k, v in c_cent.items()},
        "arrangement_regions": list(arr.get("regions", [])),
    }
    return table
