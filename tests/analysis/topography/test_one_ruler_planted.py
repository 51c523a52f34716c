"""Planted truths of the one ruler (issue 43).

* A sheet that IS the cortex: nilearn's fsaverage5 sulcal depth and thickness (real maps),
  flattened through the flat map and resampled onto a grid, against the same maps on the
  mesh: alike on every descriptor; the sheet's values shuffled: unlike on smoothness,
  clustering and domain similarity; a sheet made from a different cortical map
  (curvature in place of sulcal depth): in between.
* Across geometries: the same smooth field sampled on a grid and at free (TDANN-style)
  unit positions: alike.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from toponeuro.analysis import (
    RulerSettings,
    as_topomap,
    compare_topography,
    flat_sheet,
    mesh_topomap,
)

DESCRIPTORS = ["smoothness", "clustering", "selective_fraction", "patch_count", "patch_size",
               "domain_similarity"]


def _zscore(v):
    return (v - np.nanmean(v)) / np.nanstd(v)


@pytest.fixture(scope="module")
def fsaverage5_maps():
    nilearn = pytest.importorskip("nilearn")
    from nilearn import datasets, surface

    from toponeuro._io.meshes import mesh_surface

    fs = datasets.fetch_surf_fsaverage("fsaverage5")
    _, faces = mesh_surface("fsaverage5", "flat", "left")
    on_flat = np.zeros(10242, bool)
    on_flat[np.unique(faces)] = True  # the medial wall and cuts: no data on either side
    raw = {k: _zscore(np.where(on_flat, surface.load_surf_data(fs[f"{k}_left"]), np.nan))
           for k in ("sulc", "thick", "curv")}
    del nilearn
    cortex = {k: mesh_topomap(raw[k], "fsaverage5", "left", geodesic=True, name=k)
              for k in ("sulc", "thick")}
    sheets = {k: flat_sheet(v, "fsaverage5", "left", name=k) for k, v in raw.items()}
    return cortex, sheets


def _shuffled(tm, seed):
    v = tm.values.copy()
    ok = np.isfinite(v)
    v[ok] = np.random.default_rng(seed).permutation(v[ok])
    return replace(tm, values=v, _cache={})


SETTINGS = RulerSettings(threshold=1.0, n_samples=5)


@pytest.mark.slow
def test_a_sheet_that_is_the_cortex_is_alike_its_shuffle_not(fsaverage5_maps):
    cortex, sheets = fsaverage5_maps
    same = compare_topography({k: sheets[k] for k in cortex}, cortex, descriptors=DESCRIPTORS,
                              n_permutations=39, random_state=0, settings=SETTINGS)
    frame = same.to_frame()
    assert (frame["verdict"] == "alike").all(), frame[["descriptor", "domain", "model",
                                                      "cortex", "verdict", "reason"]]
    assert same.model_geometry == "sheet" and same.cortex_geometry == "mesh"
    assert set(frame.loc[frame["descriptor"] == "domain_similarity", "cortex_null"]) == {"spin"}

    shuffled = {k: _shuffled(sheets[k], i) for i, k in enumerate(cortex)}
    shuf = compare_topography(shuffled, cortex, descriptors=DESCRIPTORS, n_permutations=39,
                              random_state=0, settings=SETTINGS)
    v = {(r.descriptor, r.domain): r.verdict for r in shuf.rows}
    for dom in cortex:
        assert v["smoothness", dom] == "unlike" and v["clustering", dom] == "unlike"
    assert v["domain_similarity", "sulc-thick"] == "unlike"

    # a sheet from a different cortical map (curvature where sulcal depth was): in between
    diff = compare_topography({"sulc": sheets["curv"], "thick": sheets["thick"]}, cortex,
                              descriptors=DESCRIPTORS, n_permutations=39, random_state=0,
                              settings=SETTINGS)
    n_alike = [res.counts()["alike"] for res in (shuf, diff, same)]
    assert n_alike[0] < n_alike[1] < n_alike[2], n_alike


def _field(xy):
    """Three smooth domains on a 30 x 30 mm patch (a known map at any position)."""
    centres = {"faces": (8, 9), "bodies": (20, 11), "places": (14, 24)}
    return {k: 4 * np.exp(-((xy[:, 0] - cx) ** 2 + (xy[:, 1] - cy) ** 2) / (2 * 4.0**2))
            for k, (cx, cy) in centres.items()}


def test_free_positions_and_a_grid_of_the_same_field_are_alike():
    rr, cc = np.mgrid[:30, :30]
    grid_xy = np.stack([rr.ravel(), cc.ravel()], 1).astype(float)
    grid = {k: as_topomap(v.reshape(30, 30), mm_per_unit=1.0)
            for k, v in _field(grid_xy).items()}
    free_xy = np.random.default_rng(0).uniform(0, 29, (700, 2))
    free = {k: as_topomap(v, positions=free_xy, units="mm") for k, v in _field(free_xy).items()}
    res = compare_topography(free, grid, n_permutations=99, random_state=0)
    frame = res.to_frame()
    one_map = frame[frame["descriptor"].isin(["smoothness", "clustering", "selective_fraction",
                                              "patch_count", "patch_size"])]
    assert (one_map["verdict"] == "alike").all(), one_map
    assert frame.loc[frame["descriptor"] == "arrangement", "verdict"].item() == "alike"
    # free positions have no shift null: their similarity cannot be tested against a grid's
    sim = frame[frame["descriptor"] == "domain_similarity"]
    assert (sim["verdict"] == "not testable").all() and (sim["model_null"] == "none").all()
    assert res.model_geometry == "free"


TOPOLM = (__import__("pathlib").Path(__file__).resolve().parents[3] / ".." / "shared" / "data"
          / "topolm" / "group-level-contrast.nc")


@pytest.mark.slow
@pytest.mark.skipif(not TOPOLM.exists(), reason="../shared/data/topolm is not here")
def test_topolm_contrast_as_a_sheet_is_alike_its_shuffle_not():
    import xarray as xr

    t = xr.open_dataset(TOPOLM)["t_values"].values
    cortex = mesh_topomap(t, "fs_LR_32k", "left", geodesic=True, name="verb-noun")
    sheet = flat_sheet(t, "fs_LR_32k", "left", name="verb-noun")
    settings = RulerSettings(n_samples=5)
    kept = ["smoothness", "clustering", "selective_fraction", "patch_count"]
    once = compare_topography(sheet, cortex, descriptors=kept, n_permutations=39,
                              random_state=0, settings=settings)
    assert {r.verdict for r in once.rows} == {"alike"}, once.to_frame()
    # the right denominator: t >= 2 over the vertices with data (about 16 %, not of 32,492)
    frac = {r.descriptor: r for r in once.rows}["selective_fraction"].cortex.value
    assert 0.15 < frac < 0.18
    cortex_res = [r.cortex for r in once.rows]
    shuf = compare_topography(_shuffled(sheet, 0), cortex, descriptors=kept,
                              n_permutations=39, random_state=0, settings=settings,
                              cortex_results=cortex_res)
    v = {r.descriptor: r.verdict for r in shuf.rows}
    assert v["smoothness"] == v["clustering"] == v["patch_count"] == "unlike"


@pytest.mark.slow
def test_domain_blobs_keep_their_arrangement_on_the_flat_sheet():
    from toponeuro._io.meshes import mesh_surface

    _, faces = mesh_surface("fsaverage5", "flat", "left")
    on = np.zeros(10242, bool)
    on[np.unique(faces)] = True
    base = mesh_topomap(np.where(on, 0.0, np.nan), "fsaverage5", "left")
    seeds = np.random.default_rng(0).choice(np.flatnonzero(on), 3, replace=False)
    d = base.distances_from(seeds)  # geodesic, mm
    maps = {f"d{i}": np.where(on, 4 * np.exp(-d[i] ** 2 / (2 * 15.0**2)), np.nan)
            for i in range(3)}
    cortex = {k: mesh_topomap(v, "fsaverage5", "left", name=k) for k, v in maps.items()}
    sheet = {k: flat_sheet(v, "fsaverage5", "left", name=k) for k, v in maps.items()}
    row = compare_topography(sheet, cortex, descriptors=["arrangement"],
                             n_permutations=0).rows[0]
    assert row.verdict == "alike", row.reason
    # and a shuffled assignment of the sheet's domains is not
    swapped = {"d0": sheet["d2"], "d1": sheet["d0"], "d2": sheet["d1"]}
    assert compare_topography(swapped, cortex, descriptors=["arrangement"],
                              n_permutations=0).rows[0].verdict == "unlike"
