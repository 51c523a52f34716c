"""Speed of the spatial null: 1,000 permutations of SSIM and smoothness, 512 and 4,096 units.

Run: PYTHONPATH=. python bench/bench_null.py [--permutations N] [--naive N] [--small]
Prints, per sheet size and statistic, the time of toponeuro's vectorised null
(``spatial_null``), its cost per permutation, and beside it the cost per permutation of a naive
loop (scikit-image's ``structural_similarity`` on each shifted map; ``smoothness`` called once
per shuffled map), timed on a few permutations and shown per permutation.
"""

from __future__ import annotations

import argparse

import numpy as np
from _common import add_sizes, best_of, parse_sizes, peak_rss_mib
from scipy.ndimage import gaussian_filter

from toponeuro.analysis import smoothness, spatial_null

SHEETS = {512: (16, 32), 4096: (64, 64)}
SIZES = {"permutations": 1000, "naive": 20}
SMALL = {"permutations": 200, "naive": 5}


def _naive_ssim(a, b, n, rng):
    from skimage.metrics import structural_similarity

    rng_ = max(a.max(), b.max()) - min(a.min(), b.min())
    h, w = b.shape
    for _ in range(n):
        moved = np.roll(b, (rng.integers(h), rng.integers(w)), axis=(0, 1))
        if rng.random() < 0.5:
            moved = moved[::-1]
        structural_similarity(a, moved, data_range=rng_)


def _naive_smoothness(a, n, rng):
    flat = a.ravel()
    for _ in range(n):
        smoothness(rng.permutation(flat).reshape(a.shape), random_state=0)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_sizes(parser, SIZES, SMALL)
    args = parse_sizes(parser, SMALL, argv)
    n_perm, n_naive = args.permutations, args.naive
    rng = np.random.default_rng(0)
    print(f"spatial_null, {n_perm} permutations (naive loops timed on {n_naive})")
    print(f"{'units':>6} {'statistic':<11} {'toponeuro':>10} {'per perm':>10} "
          f"{'naive/perm':>11} {'speed-up':>9}")
    for n_units, shape in SHEETS.items():
        a = gaussian_filter(rng.standard_normal(shape), 2)
        b = gaussian_filter(rng.standard_normal(shape), 2)
        # TDANN's sampled smoothness of a large map costs ~0.1 s a draw: time 100 of them
        n_smooth = n_perm if n_units <= 1000 else max(10, n_perm // 10)
        runs = (
            ("ssim", n_perm,
             lambda a=a, b=b: spatial_null("ssim", a, b, n_permutations=n_perm, random_state=0),
             lambda a=a, b=b: _naive_ssim(a, b, n_naive, rng)),
            ("smoothness", n_smooth,
             lambda a=a, n=n_smooth: spatial_null("smoothness", a, n_permutations=n,
                                                  random_state=0),
             lambda a=a: _naive_smoothness(a, n_naive, rng)),
        )
        for name, n_done, fast, naive in runs:
            t_fast, res = best_of(fast)
            t_naive, _ = best_of(naive)
            per_fast, per_naive = t_fast / n_done, t_naive / n_naive
            print(f"{n_units:>6} {name:<11} {t_fast:>9.3f}s {per_fast * 1e3:>8.3f}ms "
                  f"{per_naive * 1e3:>9.3f}ms {per_naive / per_fast:>8.1f}x   "
                  f"(p={res.p_value:.3g})")
    print("smoothness of a map over 1,000 points uses TDANN's samples (20 x 500 points): "
          "each permutation costs 20 samples of 125k pairs (timed on a tenth of the draws; "
          "the time column is for those).")
    print(f"peak RSS {peak_rss_mib():.0f} MiB")


if __name__ == "__main__":
    main()
