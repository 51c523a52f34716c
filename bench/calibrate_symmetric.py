"""False-positive rates of a *symmetric* two-map sheet null, beside the default's, on the same pairs.

map_similarity's default null keeps the first map and moves the second (``null="shift"``:
shifts within the mirrored sheet). SSIM and Pearson are symmetric in the two maps, yet that p
is not: ``map_similarity(a, b)`` and ``map_similarity(b, a)`` draw different nulls. This script
measures the symmetric alternatives on pairs of independent smooth ``crop`` maps
(``bench/calibrate_nulls.py``'s maps: Gaussian-smoothed noise cropped from a larger field),
each pair tested both ways with 199 draws (``map_similarity(a, b)`` and ``map_similarity(b,
a)``, two-sided), and counts p <= 0.05 for:

``ab``
    the default: 199 draws moving ``b``;
``half``
    the symmetric null: the first 99 draws moving ``b`` and the first 100 moving ``a``,
    pooled (199 draws, so its exact level is 5 %, as ``ab``'s);
``pooled``
    all 398 draws pooled (its exact level is 4.5 %: 2 x 9 / 399, the p-values' grid);
``max``
    the larger of the two p-values (both tests must reject: conservative by construction).

The maps are drawn from their own seed stream (tag 77), so they are new pairs, not those of
``calibrate_nulls.py``. Usage::

    python bench/calibrate_symmetric.py SEED [N_PAIRS]     # writes sym_seed{SEED}.json

One seed (8 cells x 1,000 pairs) takes about 3 minutes on one core with one BLAS thread
(``OMP_NUM_THREADS=1``).
"""

from __future__ import annotations

import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from calibrate_nulls import smooth_map  # noqa: E402

from toponeuro.analysis import map_similarity, null_p_value  # noqa: E402


def cell(shape, sigma, seed, n_pairs, n_draws=199):
    """Rates of the four tests (module docs) for SSIM and Pearson on one cell."""
    rng = np.random.default_rng([seed, shape[0], shape[1], int(10 * sigma), 77])
    half = n_draws // 2
    hits = {}
    for _ in range(n_pairs):
        a, b = smooth_map(rng, shape, sigma, "crop"), smooth_map(rng, shape, sigma, "crop")
        for m in ("ssim", "pearson"):
            r1 = map_similarity(a, b, m, n_permutations=n_draws,
                                random_state=int(rng.integers(2**31)))
            r2 = map_similarity(b, a, m, n_permutations=n_draws,
                                random_state=int(rng.integers(2**31)))
            ps = {
                "ab": r1.p_value,
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
    argv = sys.argv[1:] if argv is None else argv
    seed = int(argv[0])
    n_pairs = int(argv[1]) if len(argv) > 1 else 1000
    warnings.simplefilter("ignore")
    out = []
    for shape in [(16, 16), (16, 32)]:
        for sigma in [1, 2, 3, 4]:
            t0 = time.time()
            row = {"shape": f"{shape[0]}x{shape[1]}", "sigma": sigma, "seed": seed,
                   **cell(shape, sigma, seed, n_pairs)}
            out.append(row)
            print(row, f"{time.time() - t0:.0f} s", flush=True)
    Path(f"sym_seed{seed}.json").write_text(json.dumps(out))


if __name__ == "__main__":
    main()
