"""False-positive rates of toponeuro's map-similarity nulls on independent smooth maps.

For each sheet shape, smoothness and null, ``--pairs`` pairs of *independent* smooth maps are
drawn and compared with :func:`toponeuro.analysis.map_similarity` (SSIM and Pearson, each with
its two-sided p) and :func:`toponeuro.analysis.overlap_verdict` (the report's decision, on the
SSIM result). Independent maps share no territory, so the fraction with p <= 0.05 -- the
false-positive rate -- should be 5 %; the target is [3.5 %, 6.5 %] in every cell.

Maps (``--maps``):

``crop``
    White noise smoothed with a Gaussian of ``sigma`` (sheet units) over a field 4 sigma
    larger on every side (reflect boundary there), cropped to the sheet: stationary and not
    periodic, as a real sheet's maps.
``reflect``
    White noise smoothed in place with reflecting boundaries (``mode="reflect"``).
``constant``
    Smoothed in place with zero padding (the variance falls towards the edges): a stress test.

The spin test (``--spin``) is calibrated the same way on the fsaverage5 sphere of each
hemisphere (white noise on the 10,242 vertices smoothed with a Gaussian of geodesic width
``sigma`` mm on the 100 mm sphere), Pearson with the spin null.

Usage::

    python bench/calibrate_nulls.py                      # full table (1,000 pairs, 199 draws)
    python bench/calibrate_nulls.py --small              # quick check (100 pairs, 99 draws)
    python bench/calibrate_nulls.py --spin --pairs 200   # the spin test on fsaverage5

Writes a JSON file (``--out``) and prints an rst table for docs/metrics.rst.
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path

import numpy as np
from scipy.ndimage import gaussian_filter

from toponeuro.analysis import map_similarity, overlap_verdict

ALPHA = 0.05
TARGET = (0.035, 0.065)


def smooth_map(rng, shape, sigma, maps):
    """One independent smooth map (see the module docs)."""
    if maps == "crop":
        pad = int(np.ceil(4 * sigma)) + 1
        big = rng.standard_normal((shape[0] + 2 * pad, shape[1] + 2 * pad))
        return gaussian_filter(big, sigma, mode="reflect")[pad:pad + shape[0], pad:pad + shape[1]]
    return gaussian_filter(rng.standard_normal(shape), sigma, mode=maps)


def sheet_cell(shape, sigma, null, maps, n_pairs, n_draws, seed=0):
    """False-positive rates of one (shape, sigma, null, maps) cell (``null="default"``:
    map_similarity's own default)."""
    rng = np.random.default_rng([seed, shape[0], shape[1], int(10 * sigma)])
    hits = {"ssim": 0, "pearson": 0, "verdict": 0, "share": 0, "avoid": 0}
    for _ in range(n_pairs):
        a, b = smooth_map(rng, shape, sigma, maps), smooth_map(rng, shape, sigma, maps)
        for method in ("ssim", "pearson"):
            res = map_similarity(a, b, method, null=None if null == "default" else null,
                                 n_permutations=n_draws,
                                 random_state=int(rng.integers(2**31)))
            hits[method] += res.p_value <= ALPHA
            if method == "ssim":
                v = overlap_verdict(res, alpha=ALPHA).outcome
                hits["verdict"] += v in ("share territory", "avoid each other")
                hits["share"] += v == "share territory"
                hits["avoid"] += v == "avoid each other"
    return {k: v / n_pairs for k, v in hits.items()}


def _sphere_smoother(pos, sigma_mm):
    """Sparse row-normalised Gaussian smoothing on the sphere (geodesic ~ chord distance)."""
    from scipy.sparse import csr_matrix
    from scipy.spatial import cKDTree

    tree = cKDTree(pos)
    pairs = tree.sparse_distance_matrix(tree, 3 * sigma_mm, output_type="coo_matrix")
    w = np.exp(-0.5 * (pairs.data / sigma_mm) ** 2)
    k = csr_matrix((w, (pairs.row, pairs.col)), shape=(len(pos), len(pos)))
    k = k + csr_matrix((np.ones(len(pos)), (np.arange(len(pos)), np.arange(len(pos)))),
                       shape=k.shape)
    return k.multiply(1.0 / np.asarray(k.sum(1))).tocsr()


def spin_cell(hemi, sigma_mm, n_pairs, n_draws, seed=0):
    """False-positive rate of Pearson with the spin test on one fsaverage5 hemisphere."""
    from toponeuro.atlases import vertex_coordinates

    pos = vertex_coordinates("sphere", hemi)
    pos = 100 * (pos - pos.mean(0)) / np.linalg.norm(pos - pos.mean(0), axis=1).mean()
    smooth = _sphere_smoother(pos, sigma_mm)
    rng = np.random.default_rng([seed, int(sigma_mm), hemi == "right"])
    hits = {"pearson": 0, "verdict": 0, "share": 0, "avoid": 0}
    for _ in range(n_pairs):
        a = smooth @ rng.standard_normal(len(pos))
        b = smooth @ rng.standard_normal(len(pos))
        res = map_similarity(a, b, "pearson", n_permutations=n_draws,
                             random_state=int(rng.integers(2**31)),
                             geometry={"positions": pos})
        v = overlap_verdict(res, alpha=ALPHA).outcome
        hits["pearson"] += res.p_value <= ALPHA
        hits["verdict"] += v != "no evidence either way"
        hits["share"] += v == "share territory"
        hits["avoid"] += v == "avoid each other"
    return {k: v / n_pairs for k, v in hits.items()}


def _flag(x):
    return "" if TARGET[0] <= x <= TARGET[1] else " *"


def rst_table(rows, spin_rows) -> str:
    lines = [".. list-table::", "   :header-rows: 1", "",
             "   * - maps", "     - sheet", "     - sigma", "     - null",
             "     - SSIM", "     - Pearson", "     - verdict (share / avoid)"]
    for r in rows:
        lines += [f"   * - {r['maps']}", f"     - {r['shape']}", f"     - {r['sigma']:g}",
                  f"     - {r['null']}",
                  f"     - {100 * r['ssim']:.1f} %{_flag(r['ssim'])}",
                  f"     - {100 * r['pearson']:.1f} %{_flag(r['pearson'])}",
                  f"     - {100 * r['verdict']:.1f} %{_flag(r['verdict'])} "
                  f"({100 * r['share']:.1f} / {100 * r['avoid']:.1f})"]
    for r in spin_rows:
        lines += [f"   * - fsaverage5 {r['hemi']}", "     - sphere",
                  f"     - {r['sigma']:g} mm", "     - spin", "     - --",
                  f"     - {100 * r['pearson']:.1f} %{_flag(r['pearson'])}",
                  f"     - {100 * r['verdict']:.1f} %{_flag(r['verdict'])} "
                  f"({100 * r['share']:.1f} / {100 * r['avoid']:.1f})"]
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pairs", type=int, default=1000)
    ap.add_argument("--draws", type=int, default=199)
    ap.add_argument("--shapes", nargs="+", default=["16x16", "16x32"])
    ap.add_argument("--sigmas", nargs="+", type=float, default=[1, 2, 3, 4])
    ap.add_argument("--nulls", nargs="+", default=["default"],
                    help="default (map_similarity's), phase, shift, spectral, torus")
    ap.add_argument("--maps", nargs="+", default=["crop", "reflect"])
    ap.add_argument("--spin", action="store_true", help="also the spin test on fsaverage5")
    ap.add_argument("--spin-only", action="store_true")
    ap.add_argument("--spin-sigmas", nargs="+", type=float, default=[5, 10, 20])
    ap.add_argument("--small", action="store_true",
                    help="quick check: 100 pairs, 99 draws, 16x16, sigma 2")
    ap.add_argument("--out", default="calibrate_nulls.json")
    args = ap.parse_args(argv)
    if args.small:
        args.pairs, args.draws, args.shapes, args.sigmas = 100, 99, ["16x16"], [2.0]
    warnings.simplefilter("ignore")
    rows, spin_rows, t0 = [], [], time.perf_counter()
    if not args.spin_only:
        for maps in args.maps:
            for shape in args.shapes:
                h, w = (int(x) for x in shape.split("x"))
                for sigma in args.sigmas:
                    for null in args.nulls:
                        r = sheet_cell((h, w), sigma, null, maps, args.pairs, args.draws)
                        rows.append({"maps": maps, "shape": shape, "sigma": sigma, "null": null,
                                     **r})
                        print(f"{maps:8} {shape:6} sigma {sigma:g} {null:7} SSIM "
                              f"{r['ssim']:.3f} Pearson {r['pearson']:.3f} verdict "
                              f"{r['verdict']:.3f} ({time.perf_counter() - t0:.0f} s)",
                              flush=True)
    if args.spin or args.spin_only:
        for hemi in ("left", "right"):
            for sigma in args.spin_sigmas:
                r = spin_cell(hemi, sigma, args.pairs, args.draws)
                spin_rows.append({"hemi": hemi, "sigma": sigma, **r})
                print(f"spin {hemi:5} sigma {sigma:g} mm Pearson {r['pearson']:.3f} verdict "
                      f"{r['verdict']:.3f} ({time.perf_counter() - t0:.0f} s)", flush=True)
    out = {"pairs": args.pairs, "draws": args.draws, "alpha": ALPHA, "target": TARGET,
           "sheet": rows, "spin": spin_rows, "seconds": round(time.perf_counter() - t0, 1)}
    Path(args.out).write_text(json.dumps(out, indent=1))
    print()
    print(rst_table(rows, spin_rows))


if __name__ == "__main__":
    main()
