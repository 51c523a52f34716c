"""Speed of selectivity (vs scipy.stats) and of smoothness / patches on a cortical-size map.

Run: PYTHONPATH=. python bench/bench_selectivity_topography.py [--units N] [--sheet N]
[--vertices N] [--small]
Prints times, the ratio to scipy.stats.ttest_ind, and peak memory (tracemalloc and RSS).
"""

from __future__ import annotations

import argparse
import tracemalloc

import numpy as np
from _common import add_sizes, best_of, parse_sizes, peak_rss_mib
from scipy import stats
from scipy.ndimage import gaussian_filter

from toponeuro import make_activations
from toponeuro.analysis import find_patches, selectivity, smoothness
from toponeuro.analysis._domains import FLOC_DOMAINS

SIZES = {"units": 16384, "sheet": 128, "vertices": 20484}  # fsaverage5, both hemispheres
SMALL = {"units": 2048, "sheet": 64, "vertices": 2562}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_sizes(parser, SIZES, SMALL)
    args = parse_sizes(parser, SMALL, argv)
    rng = np.random.default_rng(0)
    cats = np.repeat([c for p in FLOC_DOMAINS.values() for c in p] + ["scrambled"], 24)
    n_units = args.units
    acts = make_activations(
        {"layer4": rng.standard_normal((cats.size, n_units)).astype(np.float32)},
        categories=cats,
    )
    x = acts.values
    a, b = x[np.isin(cats, ["adult", "child"])], x[~np.isin(cats, ["adult", "child", "scrambled"])]
    for metric, kw in (("t", {}), ("welch_t", {"equal_var": False})):
        t_ours, _ = best_of(lambda m=metric: selectivity(acts, "faces", metric=m), repeat=3)
        t_ref, _ = best_of(lambda kw=kw: stats.ttest_ind(a, b, **kw), repeat=3)
        print(
            f"selectivity {metric:8s} {cats.size} stim x {n_units} units: {t_ours * 1e3:7.1f} ms"
            f" | scipy.stats.ttest_ind {t_ref * 1e3:7.1f} ms | ratio {t_ours / t_ref:5.2f}"
        )

    sheet = gaussian_filter(rng.standard_normal((args.sheet, args.sheet)), 3)
    t_s, _ = best_of(lambda: smoothness(sheet, random_state=0), repeat=3)
    t_p, _ = best_of(lambda: find_patches(sheet, 0.05, smooth_sigma=1.0), repeat=3)
    print(
        f"{args.sheet} x {args.sheet} sheet: smoothness (20 x 500) {t_s * 1e3:.1f} ms, find_patches {t_p * 1e3:.1f} ms"
    )

    n = args.vertices
    pos = rng.normal(size=(n, 3))
    pos = 70 * pos / np.linalg.norm(pos, axis=1, keepdims=True)
    vals = np.sin(pos[:, 0] / 10) + np.cos(pos[:, 1] / 15)
    tracemalloc.start()
    t_m, res = best_of(lambda: smoothness(vals, geometry={"positions": pos}, random_state=0), repeat=1)
    t_mp, pat = best_of(
        lambda: find_patches(vals, 1.2, geometry={"positions": pos, "adjacency": 3.0},
                             smooth_sigma=3.0), repeat=1
    )
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    print(
        f"{n} vertices: smoothness {t_m * 1e3:.1f} ms (score {float(res['score']):.3f}), "
        f"find_patches with smoothing {t_mp * 1e3:.1f} ms ({pat.n_patches} patches); "
        f"peak traced memory {peak:.1f} MiB; peak RSS {peak_rss_mib():.0f} MiB"
    )


if __name__ == "__main__":
    main()
