"""Variogram-matched surrogates: toponeuro's null='variogram' against BrainSMASH 0.11's ``Base``.

The same map (white noise smoothed with sigma 2 on a 16 x 32 sheet), the same definitions
(resample=True), 199 surrogates; wall time (best of ``--repeats``) and peak Python memory
(tracemalloc) of each, and their ratios. BrainSMASH is run with its default ``batch_size=1``
and with ``batch_size=100``.

Usage::

    python bench/bench_variogram.py [--repeats 3]
"""

import argparse
import time
import tracemalloc
import warnings

import numpy as np
from scipy.ndimage import gaussian_filter

from toponeuro.analysis.topography._variogram import SheetVariogram, grid_distances


def _run(fn, repeats):
    best = np.inf
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return best, peak / 2**20


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--draws", type=int, default=199)
    args = ap.parse_args(argv)
    from brainsmash.mapgen.base import Base

    warnings.simplefilter("ignore", DeprecationWarning)  # np.row_stack inside BrainSMASH
    shape = (16, 32)
    x = gaussian_filter(np.random.default_rng(0).standard_normal(shape), 2).ravel()
    ours = SheetVariogram(shape)
    theirs = Base(x, grid_distances(shape), seed=0, resample=True)
    rows = {
        "toponeuro": _run(lambda: ours.surrogates(x, args.draws, np.random.default_rng(0)),
                          args.repeats),
        "brainsmash batch_size=100": _run(lambda: theirs(args.draws, batch_size=100),
                                          args.repeats),
        "brainsmash batch_size=1": _run(lambda: theirs(args.draws, batch_size=1), 1),
    }
    t0, m0 = rows["toponeuro"]
    for name, (t, m) in rows.items():
        print(f"{name:26} {t:8.3f} s  peak {m:7.1f} MiB  time x{t / t0:6.1f}  "
              f"memory x{m / m0:5.2f}")


if __name__ == "__main__":
    main()
