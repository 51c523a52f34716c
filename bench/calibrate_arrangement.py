"""False-positive rates of the arrangement comparison's two nulls (shift and spin).

``--side shift`` (default): independent smooth random maps on a 16 x 16 sheet
(Gaussian-filtered noise, sigma 2, wrapped) against a fixed planted layout of domain centres;
every trial is a true null, so the fraction with ``p_shift <= 0.05`` is the sheet-side test's
false-positive rate at 5 %.

``--side spin``: the sheet is the fixed planted layout and the cortex is independent random
smooth maps on one fsaverage5 hemisphere, one per domain: the stationary sphere field of
``bench/calibrate_nulls.py`` (``"uniform"``: white noise on an even lattice smoothed with a
Gaussian of ``--sigma-mm`` mm, read at the vertices of the sphere scaled to 100 mm radius).
They are read as the main job reads a hemisphere: a :class:`toponeuro.atlases.CortexMaps`
(folded-mesh geodesic distances between centres, sphere positions for the spin test) through
:func:`~toponeuro.analysis.topography_table`. Both sides are null, so the script counts
``p_spin <= 0.05`` (the cortex-side test's false-positive rate) and ``p_value <= 0.05`` (the
larger of ``p_shift`` and ``p_spin``: the comparison's decision). To keep it affordable every
trial passes the same ``random_state`` (``--spin-seed``), so the spin rotations are drawn and
matched to vertices once and served from the library's cache; the rotations are independent
of the maps, so each trial's p is still a valid spin-test p and the expected rate is
unchanged, but the trials share the Monte-Carlo error of one set of draws (the spread of the
rate is somewhat wider than the binomial).

With 3 domains (3 pairs of distances) the rank correlation takes only the values +-1 and
+-0.5, so no p can be small (docs/metrics.rst); the spin side is calibrated for 4 and 5.

    python bench/calibrate_arrangement.py --trials 300 --permutations 199
    python bench/calibrate_arrangement.py --side spin --trials 200 --domains 4 5
"""

from __future__ import annotations

import argparse
import dataclasses
import warnings

import numpy as np
from scipy.ndimage import gaussian_filter

from toponeuro.analysis import arrangement_comparison, topography_table

#: seed of every spin trial's draws (shared: the rotations come from the library's cache)
SPIN_SEED = 0

RR, CC = np.mgrid[:16, :16]
LAYOUT = {"faces": (3, 3), "bodies": (12, 4), "places": (8, 13), "characters": (2, 12),
          "objects": (13, 12)}


def _blob(r, c):
    return 5 * np.exp(-((RR - r) ** 2 + (CC - c) ** 2) / 6.0)


def spin_side(names, ref, trials, permutations, sigma_mm, hemi="left", seed=0):
    """``(p_spin, p_value)`` per trial: random smooth cortical maps against the layout."""
    from calibrate_nulls import SPHERE_MM, _sphere_smoother

    from toponeuro.atlases import CortexMaps, mesh_graph, vertex_coordinates

    sphere = vertex_coordinates("sphere", hemi)
    scaled = SPHERE_MM * (sphere - sphere.mean(0)) / np.linalg.norm(
        sphere - sphere.mean(0), axis=1).mean()
    smooth = _sphere_smoother(scaled, sigma_mm, "uniform")
    base = CortexMaps(hemi=hemi, positions=vertex_coordinates("flat", hemi)[:, :2],
                      adjacency=mesh_graph("inflated", hemi), sphere=sphere,
                      representation="values")
    rng = np.random.default_rng([seed, len(names), int(sigma_mm)])
    out = []
    for i in range(trials):
        maps = {d: smooth @ rng.standard_normal(smooth.shape[1]) for d in names}
        ct = topography_table({hemi: dataclasses.replace(base, maps=maps)}, pairs=[],
                              smooth_sigma=0.0, n_permutations=0, n_samples=2, random_state=i)
        r = arrangement_comparison(ref, "s", ct, hemi, n_permutations=permutations,
                                   cortex_permutations=permutations, random_state=SPIN_SEED)
        out.append((r["p_spin"], r["p_value"]))
        if (i + 1) % 20 == 0:
            print(f"  {len(names)} domains: {i + 1} trials", flush=True)
    return np.asarray(out)


def _rate(p, label):
    k, n = int(np.sum(p <= 0.05)), len(p)
    se = np.sqrt(k / n * (1 - k / n) / n)
    return f"{label} FPR at 0.05 = {k / n:.3f} ({k} of {n}, binomial SE {se:.3f})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--side", choices=["shift", "spin"], default="shift")
    ap.add_argument("--trials", type=int, default=300)
    ap.add_argument("--permutations", type=int, default=199)
    ap.add_argument("--domains", type=int, nargs="+", default=[3, 4, 5])
    ap.add_argument("--sigma-mm", type=float, default=10.0,
                    help="width of the spin side's cortical maps (mm)")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    if args.side == "spin":
        for n_dom in args.domains:
            names = list(LAYOUT)[:n_dom]
            ref = topography_table({"s": {n: _blob(*LAYOUT[n]) for n in names}}, pairs=[],
                                   n_permutations=0, n_samples=2, random_state=0)
            ps = spin_side(names, ref, args.trials, args.permutations, args.sigma_mm)
            print(f"{n_dom} domains, sigma {args.sigma_mm:g} mm, {args.permutations} draws: "
                  f"{_rate(ps[:, 0], 'p_spin')}; {_rate(ps[:, 1], 'p_value')}", flush=True)
        return
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
