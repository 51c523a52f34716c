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

The spin test (``--spin``) is calibrated the same way on the fsaverage5 sphere (the 10,242
vertices of one hemisphere, scaled to a radius of 100 mm), Pearson with the spin null and the
verdict on it. Maps (``--spin-maps``), each white noise smoothed with a Gaussian of width
``sigma`` mm (chord distance):

``uniform`` (the calibration)
    The noise on an evenly spread point set (a Fibonacci lattice, spacing sigma / 3, so its
    density is the same everywhere), the smoothed field read at the vertices: a stationary
    isotropic random field -- its distribution does not change under a rotation, the
    condition under which the spin test is exact.
``mesh``
    The noise on the vertices themselves, each row of the kernel normalised to sum 1 (the
    first calibration's maps). The icosahedral vertices are not evenly spread on the sphere
    (nearest-neighbour spacing 3.45-4.13 mm), so the variance follows the vertex density
    (coefficient of variation 8 % / 5 % / 1 % at 5 / 10 / 20 mm), alike in both maps of a
    pair: mildly non-stationary.
``envelope``
    ``uniform`` times a fixed amplitude ``ratio ** (x / 200 mm)`` (``--envelope-ratio``,
    default 4: 4 times larger at one end of the sphere than at the other), the same in both
    maps: non-stationary, as maps whose amplitude differs between regions (a stress test).

``--hemis both`` spins both hemispheres together (positions of both, ``mesh="fsaverage5"``:
the right turns by the left's rotation mirrored) on *bilateral* maps: one field, the right
hemisphere its mirror image (``mesh`` maps are skipped there).

Cost: a spin draw is a rotation plus a nearest-vertex search over the whole sphere. The pairs
of a cell fall into ``--rotation-sets`` blocks (default 10: 100 pairs each for 1,000 pairs);
the pairs of a block pass the same ``random_state`` to ``map_similarity``, so their rotations
are drawn and matched once and served from the library's cache. The rotations are
independent of the maps, so every pair's p is still a valid spin-test p and the expected
false-positive rate is unchanged; the pairs of a block share the Monte-Carlo error of one set
of draws, which widens the spread of a cell's rate beyond the binomial (with 199 draws and
10 sets, the standard error of a cell of 1,000 pairs is about 0.85 points rather than 0.69).

Usage::

    python bench/calibrate_nulls.py                      # full table (1,000 pairs, 199 draws)
    python bench/calibrate_nulls.py --small              # quick check (100 pairs, 99 draws)
    python bench/calibrate_nulls.py --spin-only          # the spin test on fsaverage5

Writes a JSON file (``--out``), prints an rst table for docs/metrics.rst, and with ``--record
toponeuro/analysis/topography/null_calibration.json`` updates the record the report quotes
(:func:`toponeuro.analysis.null_calibration`).
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path

import numpy as np
from _common import clopper_pearson
from scipy.ndimage import gaussian_filter

from toponeuro._io.output import atomic_file
from toponeuro.analysis import map_similarity, overlap_verdict

ALPHA = 0.05
TARGET = (0.035, 0.065)
#: radius of the sphere the spin test's maps are drawn on (mm)
SPHERE_MM = 100.0
#: map generators of the spin calibration (see the module docs)
SPIN_MAPS = ("uniform", "mesh", "envelope")
#: the spin calibration's surfaces: one hemisphere's sphere, or both spun together
HEMIS = ("left", "right", "both")
#: the meshes whose spheres the spin test is calibrated on (toponeuro._io.meshes.MESHES)
SPIN_MESHES = ("fsaverage5", "fs_LR_32k")


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


def _fibonacci_sphere(n):
    """``n`` nearly evenly spread unit vectors (the Fibonacci lattice)."""
    i = np.arange(n) + 0.5
    polar, azimuth = np.arccos(1 - 2 * i / n), np.pi * (1 + 5**0.5) * i
    return np.c_[np.cos(azimuth) * np.sin(polar), np.sin(azimuth) * np.sin(polar), np.cos(polar)]


def _sphere_smoother(pos, sigma_mm, spin_maps, envelope_ratio=4.0):
    """Sparse ``(n_vertices, n_sources)`` Gaussian smoothing of white noise (see module docs)."""
    from scipy.sparse import csr_matrix, diags
    from scipy.spatial import cKDTree

    if spin_maps == "mesh":  # the noise on the vertices, each row normalised to sum 1
        src = pos
    else:  # the noise on an evenly spread lattice, spacing sigma / 3
        n_src = int(np.ceil(4 * np.pi * SPHERE_MM**2 / (sigma_mm / 3) ** 2))
        src = SPHERE_MM * _fibonacci_sphere(n_src)
    cutoff = (3 if spin_maps == "mesh" else 4) * sigma_mm
    pairs = cKDTree(pos).sparse_distance_matrix(cKDTree(src), cutoff, output_type="coo_matrix")
    w = np.exp(-0.5 * (pairs.data / sigma_mm) ** 2)
    k = csr_matrix((w, (pairs.row, pairs.col)), shape=(len(pos), len(src)))
    if spin_maps == "mesh":  # as in the first calibration (a sparse matrix drops the diagonal)
        k = k + diags(np.ones(len(pos)))
        k = diags(1.0 / np.asarray(k.sum(1)).ravel()) @ k
    if spin_maps == "envelope":
        k = diags(envelope_ratio ** (pos[:, 0] / (2 * SPHERE_MM))) @ k
    return k.tocsr()


def spin_cell(hemi, sigma_mm, n_pairs, n_draws, spin_maps="uniform", rotation_sets=10,
              seed=0, envelope_ratio=4.0, mesh="fsaverage5", medial_wall=False):
    """False-positive rates of Pearson with the spin test on one hemisphere of ``mesh``
    (``"fsaverage5"`` or ``"fs_LR_32k"``; ``medial_wall``: both maps NaN on the mesh's
    medial wall, as a user's fs_LR maps arrive).

    The pairs fall into ``rotation_sets`` consecutive blocks; the pairs of a block share one
    ``random_state``, hence one set of rotations (drawn and matched to vertices once, then
    served from the library's cache).
    """
    from scipy.sparse import vstack

    from toponeuro._io.meshes import medial_wall as wall_of
    from toponeuro.atlases import vertex_coordinates

    def sphere(h):
        pos = vertex_coordinates("sphere", h, mesh=mesh)
        return SPHERE_MM * (pos - pos.mean(0)) / np.linalg.norm(pos - pos.mean(0), axis=1).mean()

    if hemi == "both":  # one field, the right its mirror image: a bilateral map
        left, right = sphere("left"), sphere("right")
        pos = np.vstack([left, right])
        smooth = vstack([_sphere_smoother(left, sigma_mm, spin_maps, envelope_ratio),
                         _sphere_smoother(right * [-1, 1, 1], sigma_mm, spin_maps,
                                          envelope_ratio)]).tocsr()
    else:
        pos = sphere(hemi)
        smooth = _sphere_smoother(pos, sigma_mm, spin_maps, envelope_ratio)
    wall = None
    if medial_wall:
        wall = np.concatenate([wall_of(mesh, h) for h in
                               (("left", "right") if hemi == "both" else (hemi,))])
    # fsaverage5 keeps the seeds of its recorded cells; another mesh draws its own maps
    rng = np.random.default_rng([seed, int(sigma_mm), HEMIS.index(hemi),
                                 SPIN_MAPS.index(spin_maps)]
                                + ([] if mesh == "fsaverage5" else [SPIN_MESHES.index(mesh)]))
    states = rng.integers(2**31, size=max(1, rotation_sets))
    hits = {"pearson": 0, "verdict": 0, "share": 0, "avoid": 0}
    for i in range(n_pairs):
        a = smooth @ rng.standard_normal(smooth.shape[1])
        b = smooth @ rng.standard_normal(smooth.shape[1])
        if wall is not None:  # no data there, as the map reader leaves it
            a[wall] = b[wall] = np.nan
        res = map_similarity(a, b, "pearson", n_permutations=n_draws,
                             random_state=int(states[i * len(states) // n_pairs]),
                             geometry={"positions": pos, "mesh": mesh})
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
        wall = ", medial wall NaN" if r.get("medial_wall") else ""
        lines += [f"   * - {r['maps']}", f"     - {r.get('mesh', 'fsaverage5')} {r['hemi']}{wall}",
                  f"     - {r['sigma']:g} mm", "     - spin", "     - --",
                  f"     - {100 * r['pearson']:.1f} %{_flag(r['pearson'])}",
                  f"     - {100 * r['verdict']:.1f} %{_flag(r['verdict'])} "
                  f"({100 * r['share']:.1f} / {100 * r['avoid']:.1f})"]
    return "\n".join(lines)


#: the record's name of each spin map generator
_RECORD_SPIN_MAPS = {"uniform": "stationary", "mesh": "mesh", "envelope": "envelope"}


def update_record(path: Path, rows, spin_rows, pairs: int, draws: int,
                  rotation_sets: int | None = None) -> None:
    """Merge measured cells into a ``null_calibration.json`` record (same keys: replaced)."""
    record = json.loads(path.read_text())
    sheet_key = ("maps", "shape", "sigma", "null", "seed")
    spin_key = ("maps", "hemi", "sigma_mm", "seed", "envelope_ratio", "mesh", "medial_wall")
    for r in rows:
        cell = {"maps": r["maps"], "shape": r["shape"], "sigma": float(r["sigma"]),
                "null": "shift" if r["null"] == "default" else r["null"],
                "seed": r.get("seed", 0), "ssim": round(r["ssim"], 4),
                "pearson": round(r["pearson"], 4), "pairs": pairs, "draws": draws}
        record["sheet"] = [c for c in record["sheet"]
                           if tuple(c.get(k) for k in sheet_key)
                           != tuple(cell[k] for k in sheet_key)] + [cell]
    for r in spin_rows:
        cell = {"maps": _RECORD_SPIN_MAPS[r["maps"]], "hemi": r["hemi"],
                "sigma_mm": int(r["sigma"]) if float(r["sigma"]).is_integer() else r["sigma"],
                "pearson": round(r["pearson"], 4), "seed": r["seed"],
                "pairs": pairs, "draws": draws}
        if r["maps"] == "envelope":
            cell["envelope_ratio"] = float(r["envelope_ratio"])
        if r.get("mesh", "fsaverage5") != "fsaverage5":  # fsaverage5 cells carry no mesh key
            cell["mesh"] = r["mesh"]
            hits = int(round(r["pearson"] * pairs))
            cell["hits"] = hits
            cell["ci95"] = [round(x, 4) for x in clopper_pearson(hits, pairs)]
        if r.get("medial_wall"):
            cell["medial_wall"] = True
        if "seconds" in r:
            cell["seconds"] = r["seconds"]
        if rotation_sets is not None:
            cell["rotation_sets"] = rotation_sets
        record["spin"] = [c for c in record["spin"]
                          if tuple(c.get(k) for k in spin_key)
                          != tuple(cell.get(k) for k in spin_key)] + [cell]
    with atomic_file(path) as tmp:  # whole or not at all
        tmp.write_text(json.dumps(record, indent=1) + "\n")


def sheet_nulls(names) -> list:
    """``names`` with ``"all"`` expanded to every registered null that moves the second of
    two maps on a sheet (the registry, ``NULL_METHODS``; a null registered by a new module is
    calibrated without editing this bench)."""
    from toponeuro.analysis.topography._null_registry import NULL_METHODS, null_method

    out = []
    for name in names:
        if name == "all":
            out += [n for n in NULL_METHODS
                    if "sheet" in null_method(n).geometries and null_method(n).min_maps == 2
                    and null_method(n).alias_of is None and n not in out]
        elif name == "default":
            out.append(name)
        else:
            null_method(name)  # a typed error with the close matches for an unknown name
            out.append(name)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pairs", type=int, default=1000)
    ap.add_argument("--draws", type=int, default=199)
    ap.add_argument("--shapes", nargs="+", default=["16x16", "16x32"])
    ap.add_argument("--sigmas", nargs="+", type=float, default=[1, 2, 3, 4])
    ap.add_argument("--nulls", nargs="+", default=["default"],
                    help="default (map_similarity's), 'all' (every registered null that "
                    "moves a second map on a sheet: NULL_METHODS), or names from NULL_METHODS")
    ap.add_argument("--maps", nargs="+", default=["crop", "reflect"])
    ap.add_argument("--spin", action="store_true", help="also the spin test on fsaverage5")
    ap.add_argument("--spin-only", action="store_true")
    ap.add_argument("--spin-sigmas", nargs="+", type=float, default=[5, 10, 20])
    ap.add_argument("--spin-maps", nargs="+", default=list(SPIN_MAPS), choices=SPIN_MAPS)
    ap.add_argument("--hemis", nargs="+", default=list(HEMIS), choices=HEMIS)
    ap.add_argument("--spin-mesh", default="fsaverage5", choices=SPIN_MESHES,
                    help="the mesh whose sphere the spin cells rotate")
    ap.add_argument("--medial-wall", action="store_true",
                    help="spin cells: both maps NaN on the mesh's medial wall (fs_LR 32k: the "
                    "vertices outside HCP's cortex grayordinates), as a user's maps arrive")
    ap.add_argument("--rotation-sets", type=int, default=10,
                    help="sets of spin rotations per cell, each shared by a block of pairs")
    ap.add_argument("--seed", type=int, default=0, help="seed of the sheet cells' maps")
    ap.add_argument("--spin-seed", type=int, default=0, help="seed of the spin cells' maps")
    ap.add_argument("--envelope-ratio", type=float, default=4.0,
                    help="envelope maps: amplitude at one end of the sphere over the other")
    ap.add_argument("--small", action="store_true",
                    help="quick check: 100 pairs, 99 draws, 16x16, sigma 2")
    ap.add_argument("--out", default="calibrate_nulls.json")
    ap.add_argument("--record", metavar="PATH",
                    help="also write the measured cells into this record (the package's is "
                    "toponeuro/analysis/topography/null_calibration.json, which the report quotes): "
                    "cells with the same keys are replaced, others kept")
    args = ap.parse_args(argv)
    if Path(args.out).exists():
        ap.error(f"--out {args.out!r} already exists; pass a new path or move it away")
    if args.small:
        args.pairs, args.draws, args.shapes, args.sigmas = 100, 99, ["16x16"], [2.0]
    args.nulls = sheet_nulls(args.nulls)
    warnings.simplefilter("ignore")
    rows, spin_rows, t0 = [], [], time.perf_counter()
    if not args.spin_only:
        for maps in args.maps:
            for shape in args.shapes:
                h, w = (int(x) for x in shape.split("x"))
                for sigma in args.sigmas:
                    for null in args.nulls:
                        r = sheet_cell((h, w), sigma, null, maps, args.pairs, args.draws,
                                       seed=args.seed)
                        rows.append({"maps": maps, "shape": shape, "sigma": sigma, "null": null,
                                     "seed": args.seed, **r})
                        print(f"{maps:8} {shape:6} sigma {sigma:g} {null:7} SSIM "
                              f"{r['ssim']:.3f} Pearson {r['pearson']:.3f} verdict "
                              f"{r['verdict']:.3f} ({time.perf_counter() - t0:.0f} s)",
                              flush=True)
    if args.spin or args.spin_only:
        for spin_maps in args.spin_maps:
            for hemi in args.hemis:
                if hemi == "both" and spin_maps == "mesh":
                    continue  # the vertex-noise generator is not mirror-symmetric
                for sigma in args.spin_sigmas:
                    t_cell = time.perf_counter()
                    r = spin_cell(hemi, sigma, args.pairs, args.draws, spin_maps,
                                  args.rotation_sets, args.spin_seed, args.envelope_ratio,
                                  mesh=args.spin_mesh, medial_wall=args.medial_wall)
                    spin_rows.append({"maps": spin_maps, "hemi": hemi, "sigma": sigma,
                                      "seed": args.spin_seed, "mesh": args.spin_mesh,
                                      "medial_wall": args.medial_wall,
                                      "seconds": round(time.perf_counter() - t_cell, 1),
                                      "envelope_ratio": args.envelope_ratio, **r})
                    print(f"spin {args.spin_mesh} {spin_maps:8} {hemi:5} sigma {sigma:g} mm Pearson "
                          f"{r['pearson']:.3f} verdict {r['verdict']:.3f} "
                          f"({time.perf_counter() - t0:.0f} s)", flush=True)
    out = {"pairs": args.pairs, "draws": args.draws, "alpha": ALPHA, "target": TARGET,
           "rotation_sets": args.rotation_sets,
           "sheet": rows, "spin": spin_rows, "seconds": round(time.perf_counter() - t0, 1)}
    with atomic_file(args.out) as tmp:  # whole or not at all
        tmp.write_text(json.dumps(out, indent=1))
    if args.record:
        update_record(Path(args.record), rows, spin_rows, args.pairs, args.draws,
                      args.rotation_sets if spin_rows else None)
    print()
    print(rst_table(rows, spin_rows))


if __name__ == "__main__":
    main()
