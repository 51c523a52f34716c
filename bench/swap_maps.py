"""Does swapping the two maps change map_similarity's p? One-sided null against the default.

Before this release the default two-map null kept the first map and moved the second, so
``map_similarity(a, b)`` and ``map_similarity(b, a)`` drew different nulls. This script draws
``--pairs`` pairs of related smooth 16 x 16 maps (``b`` = independent ``crop`` map + 0.7 ``a``,
so the p-values spread over (0, 1]), tests each both ways with the same random state and
1,000 draws, and counts the pairs whose p (and verdict, :func:`overlap_verdict`) differ:

* one-sided: ``spatial_null(method, a, b, symmetric=False)`` -- the earlier default;
* default: ``map_similarity(a, b)`` -- each map moved in turn, the same moves.

Usage::

    python bench/swap_maps.py [--pairs 200]
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from calibrate_nulls import smooth_map  # noqa: E402

from toponeuro.analysis import map_similarity, overlap_verdict, spatial_null  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pairs", type=int, default=200)
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    rng = np.random.default_rng(2026)
    out = {m: {"p differs": 0, "verdict differs": 0, "largest difference": 0.0,
               "p differs (default)": 0} for m in ("ssim", "pearson")}
    for i in range(args.pairs):
        a = smooth_map(rng, (16, 16), 2, "crop")
        b = smooth_map(rng, (16, 16), 2, "crop") + 0.7 * a
        for m, row in out.items():
            kw = {"n_permutations": 1000, "random_state": i, "alternative": "two-sided",
                  "symmetric": False}
            p1, p2 = spatial_null(m, a, b, **kw), spatial_null(m, b, a, **kw)
            row["p differs"] += p1.p_value != p2.p_value
            row["verdict differs"] += overlap_verdict(p1).outcome != overlap_verdict(p2).outcome
            row["largest difference"] = max(row["largest difference"],
                                            abs(p1.p_value - p2.p_value))
            q1 = map_similarity(a, b, m, random_state=i)
            q2 = map_similarity(b, a, m, random_state=i)
            row["p differs (default)"] += q1.p_value != q2.p_value
    for m, row in out.items():
        print(f"{m:8} of {args.pairs} pairs -- one-sided: p differs in {row['p differs']} "
              f"(by up to {row['largest difference']:.3f}), verdict in "
              f"{row['verdict differs']}; default: p differs in {row['p differs (default)']}")


if __name__ == "__main__":
    main()
