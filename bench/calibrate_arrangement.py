"""False-positive rate of the arrangement comparison's sheet-side (shift) null.

Independent smooth random maps on a 16 x 16 sheet (Gaussian-filtered noise, sigma 2, wrapped)
against a fixed planted layout of domain centres; every trial is a true null, so the fraction
with ``p_shift <= 0.05`` is the test's false-positive rate at 5 %.

    python bench/calibrate_arrangement.py --trials 300 --permutations 199
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
from scipy.ndimage import gaussian_filter

from toponeuro.analysis import arrangement_comparison, topography_table

RR, CC = np.mgrid[:16, :16]
LAYOUT = {"faces": (3, 3), "bodies": (12, 4), "places": (8, 13), "characters": (2, 12),
          "objects": (13, 12)}


def _blob(r, c):
    return 5 * np.exp(-((RR - r) ** 2 + (CC - c) ** 2) / 6.0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=300)
    ap.add_argument("--permutations", type=int, default=199)
    ap.add_argument("--domains", type=int, nargs="+", default=[3, 4, 5])
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    rng = np.random.default_rng(123)
    for n_dom in args.domains:
        names = list(LAYOUT)[:n_dom]
        ref = topography_table({"s": {n: _blob(*LAYOUT[n]) for n in names}}, pairs=[],
                               n_permutations=0, n_samples=2, random_state=0)
        ps = []
        for i in range(args.trials):
            maps = {d: gaussian_filter(rng.standard_normal((16, 16)), 2, mode="wrap")
                    for d in names}
            t = topography_table({"s": maps}, pairs=[], n_permutations=0, n_samples=2,
                                 random_state=i)
            r = arrangement_comparison(t, "s", ref, "s", n_permutations=args.permutations,
                                       cortex_permutations=0, random_state=i)
            ps.append(r["p_shift"])
        ps = np.asarray(ps)
        print(f"{n_dom} domains: FPR at 0.05 = {np.mean(ps <= 0.05):.3f} "
              f"({int(np.sum(ps <= 0.05))} of {len(ps)})", flush=True)


if __name__ == "__main__":
    main()
