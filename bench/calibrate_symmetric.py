"""False-positive rates of two-map sheet nulls that move one map, the other, or each in turn.

SSIM and Pearson are symmetric in the two maps. Before this release map_similarity's default
null kept the first map and moved the second (shifts within the mirrored sheet), so
``map_similarity(a, b)`` and ``map_similarity(b, a)`` drew different nulls and could give
different p. This script tests pairs of independent smooth ``crop`` maps
(``bench/calibrate_nulls.py``'s maps: Gaussian-smoothed noise cropped from a larger field)
each way, ``--draws`` draws per test (two-sided), and counts p <= 0.05 for:

``ab``
    the one-sided null, ``b`` moves (``spatial_null(..., symmetric=False)``; the default of
    earlier releases);
``default``
    map_similarity's default now: the same moves shift ``b`` in half the draws and ``a`` in
    the other half (``symmetric=True``), so swapping the maps gives the same p;
``half``
    the first half of ``ab``'s draws pooled with the first half of the ``a``-moving test's
    draws (independent moves for the two halves; the first symmetric candidate measured);
``pooled``
    all draws of both one-sided tests pooled (with 199 draws each its exact level is 4.5 %:
    the p-values' grid);
``max``
    the larger of the two one-sided p-values (both must reject: conservative by construction).

The maps are drawn from their own seed stream (tag 77), so they are new pairs, not those of
``calibrate_nulls.py``; with ``--official`` they are exactly ``calibrate_nulls.py``'s pairs of
that seed (``--maps crop`` or ``reflect``) and each test's ``b``-moving draws use the same
random state as there, so ``ab`` reproduces the records of earlier releases, with the
``a``-moving draws from a separate stream. ``default`` uses the ``ab`` test's random state.
Usage::

    python bench/calibrate_symmetric.py SEED [--pairs 1000] [--draws 1000]
    python bench/calibrate_symmetric.py SEED --official [--maps reflect --shapes 16x16 --pairs 300]

The output (``--out``; default ``sym_seed{SEED}.json``, ``sym_official_{MAPS}_seed{SEED}.json``
with ``--official``, ``_draws{N}`` added for other than 199 draws) is written whole (a
temporary sibling renamed into place); an existing file is refused, never replaced.

Cost, measured before the ``default`` column was added (it adds a third test per pair): one
seed (8 cells x 1,000 pairs) took about 3 minutes with 199 draws and 11 minutes with 1,000 on
one core with one BLAS thread (``OMP_NUM_THREADS=1``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from calibrate_nulls import smooth_map  # noqa: E402

from toponeuro._io.output import atomic_file  # noqa: E402
from toponeuro.analysis import map_similarity, null_p_value, spatial_null  # noqa: E402


def cell(shape, sigma, seed, n_pairs, n_draws=199, official=False, maps="crop"):
    """Rates of the five tests (module docs) for SSIM and Pearson on one cell."""
    key = [seed, shape[0], shape[1], int(10 * sigma)]
    rng = np.random.default_rng(key if official else key + [77])
    other = np.random.default_rng(key + [78]) if official else rng  # the a-moving draws
    half = n_draws // 2
    hits = {}
    for _ in range(n_pairs):
        a, b = smooth_map(rng, shape, sigma, maps), smooth_map(rng, shape, sigma, maps)
        for m in ("ssim", "pearson"):
            s1, s2 = int(rng.integers(2**31)), int(other.integers(2**31))
            kw = {"n_permutations": n_draws, "alternative": "two-sided", "symmetric": False}
            r1 = spatial_null(m, a, b, random_state=s1, **kw)  # b moves
            r2 = spatial_null(m, b, a, random_state=s2, **kw)  # a moves
            ps = {
                "ab": r1.p_value,
                "default": map_similarity(a, b, m, n_permutations=n_draws,
                                          random_state=s1).p_value,
                "max": max(r1.p_value, r2.p_value),
                "pooled": null_p_value(r1.statistic, np.r_[r1.null, r2.null], "two-sided"),
                "half": null_p_value(r1.statistic, np.r_[r1.null[:half],
                                                         r2.null[: n_draws - half]],
                                     "two-sided"),
            }
            for k, p in ps.items():
                hits[f"{m}_{k}"] = hits.get(f"{m}_{k}", 0) + (p <= 0.05)
    return {k: v / n_pairs for k, v in hits.items()}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("seed", type=int)
    ap.add_argument("--pairs", type=int, default=1000)
    ap.add_argument("--official", action="store_true",
                    help="calibrate_nulls.py's own pairs of this seed")
    ap.add_argument("--maps", default="crop", choices=["crop", "reflect"])
    ap.add_argument("--shapes", nargs="+", default=["16x16", "16x32"])
    ap.add_argument("--draws", type=int, default=199,
                    help="draws per test (map_similarity's default is 1,000)")
    ap.add_argument("--out", default=None, help="output JSON (an existing file is refused)")
    args = ap.parse_args(argv)
    tag = f"{'official_' + args.maps + '_' if args.official else ''}seed{args.seed}"
    if args.draws != 199:
        tag += f"_draws{args.draws}"
    out_path = Path(args.out or f"sym_{tag}.json")
    if out_path.exists():
        ap.error(f"--out {str(out_path)!r} already exists; pass a new path or move it away")
    warnings.simplefilter("ignore")
    out = []
    for shape in args.shapes:
        h, w = (int(x) for x in shape.split("x"))
        for sigma in [1, 2, 3, 4]:
            t0 = time.time()
            row = {"shape": shape, "sigma": sigma, "seed": args.seed, "maps": args.maps,
                   "official": args.official, "draws": args.draws,
                   **cell((h, w), sigma, args.seed, args.pairs, args.draws,
                          official=args.official, maps=args.maps)}
            out.append(row)
            print(row, f"{time.time() - t0:.0f} s", flush=True)
    with atomic_file(out_path) as tmp:
        tmp.write_text(json.dumps(out))


if __name__ == "__main__":
    main()
