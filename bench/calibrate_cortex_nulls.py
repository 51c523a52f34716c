"""False-positive rates of the cortex's default two-map null (the spin test) on three kinds of
independent random maps, per mesh and hemisphere (issue 47).

Every pair is two *independent* maps, compared with :func:`toponeuro.analysis.map_similarity`
(Pearson, its default null on a mesh -- the spin test, symmetric: each map moved in half the
draws -- two-sided p). Independent maps share nothing, so p <= 0.05 should happen in 5 % of
pairs; each cell reports the hits, the rate and its exact (Clopper-Pearson) 95 % interval.

Map kinds (``--kinds``), each white noise smoothed at a width drawn per pair from the kind's
list (so a cell covers a range of smoothness, as users' maps do):

``sphere``
    Smooth *on the sphere*: the noise on an evenly spread point set on the mesh's sphere
    (scaled to a radius of 100 mm), a Gaussian of width sigma (chord distance, 5, 10, 20 mm)
    read at the vertices -- stationary on the sphere, the spin test's own assumption.
``midthickness``
    Diffused *along the midthickness*: the noise on the vertices, then a random walk on the
    midthickness mesh (each step moves ``1/2`` of a vertex's value to the mean of its
    neighbours) for ``2 sigma^2 / (edge^2 / 2)`` steps, so the kernel's width is about sigma
    (4, 8, 16 mm) along the folded surface.
``volume``
    Smooth *in the volume*, then read on the midthickness (a volume result or atlas projected
    to the surface; fs_LR's surfaces are in MNI space, fsaverage's in MNI305): white noise on
    a 4 mm grid (3 mm in the first fs_LR left cell), a 3-D Gaussian of width sigma (12, 16, 20 mm), read at the midthickness
    vertices by trilinear interpolation. Both hemispheres read the same volume.

fs_LR 32k maps have no data (NaN) on the medial wall, as a user's CIFTI maps arrive;
fsaverage5 defines none. ``both`` spins the two hemispheres together (the right by the left's
rotation mirrored) on the maps of both.

Cost: the pairs of a cell fall into 10 blocks that share one ``random_state`` (rotations drawn
and matched once, then served from the library's cache; every pair's p is still a valid spin
p). 100 pairs a cell: an interval about +-4.5 points wide at 5 % -- honest, not tight.

Usage::

    nice -n 10 python bench/calibrate_cortex_nulls.py --out bench/cortex_nulls.json
    python bench/calibrate_cortex_nulls.py --record \
        toponeuro/analysis/topography/null_calibration.json   # record + docs table
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from _common import clopper_pearson

from toponeuro._io.output import atomic_file
from toponeuro.analysis import map_similarity

ALPHA = 0.05
SPHERE_MM = 100.0
KINDS = {"sphere": (5.0, 10.0, 20.0), "midthickness": (4.0, 8.0, 16.0),
         "volume": (12.0, 16.0, 20.0)}
HEMIS = ("left", "right", "both")
MESHES = ("fs_LR_32k", "fsaverage5")
VOXEL_MM = 4.0


def _sphere(mesh, h):
    from toponeuro._io.meshes import mesh_surface

    pos = mesh_surface(mesh, "sphere", h)[0]
    c = pos - pos.mean(0)
    return SPHERE_MM * c / np.linalg.norm(c, axis=1).mean()


def _midthickness(mesh, h):
    from toponeuro._io.meshes import mesh_surface

    if mesh == "fsaverage5":  # nilearn ships pial and white: their mean
        pial, tri = mesh_surface(mesh, "pial", h)
        return (pial + mesh_surface(mesh, "white", h)[0]) / 2, tri
    return mesh_surface(mesh, "midthickness", h)


def _fibonacci_sphere(n):
    i = np.arange(n) + 0.5
    polar, azimuth = np.arccos(1 - 2 * i / n), np.pi * (1 + 5**0.5) * i
    return np.c_[np.cos(azimuth) * np.sin(polar), np.sin(azimuth) * np.sin(polar), np.cos(polar)]


def sphere_smoother(pos, sigma):
    """Sparse (vertices, sources): Gaussian of width sigma of noise on an even lattice."""
    from scipy.sparse import csr_matrix
    from scipy.spatial import cKDTree

    n_src = int(np.ceil(4 * np.pi * SPHERE_MM**2 / (sigma / 3) ** 2))
    src = SPHERE_MM * _fibonacci_sphere(n_src)
    d = cKDTree(pos).sparse_distance_matrix(cKDTree(src), 4 * sigma, output_type="coo_matrix")
    w = np.exp(-0.5 * (d.data / sigma) ** 2)
    return csr_matrix((w, (d.row, d.col)), shape=(len(pos), len(src)))


def walk_operator(xyz, tri):
    """The random walk's step ``x -> x/2 + mean(neighbours)/2`` and the mean edge length."""
    from scipy.sparse import coo_matrix, diags

    e = np.vstack([tri[:, [0, 1]], tri[:, [1, 2]], tri[:, [2, 0]]])
    e = np.unique(np.sort(e, axis=1), axis=0)
    n = len(xyz)
    a = coo_matrix((np.ones(2 * len(e)), (np.r_[e[:, 0], e[:, 1]], np.r_[e[:, 1], e[:, 0]])),
                   shape=(n, n)).tocsr()
    a.data[:] = 1.0
    step = 0.5 * diags(np.ones(n)) + 0.5 * diags(1.0 / np.asarray(a.sum(1)).ravel()) @ a
    edge = float(np.linalg.norm(xyz[e[:, 0]] - xyz[e[:, 1]], axis=1).mean())
    return step.tocsr(), edge


class Maker:
    """Draws independent maps of one kind on one mesh and hemisphere set."""

    def __init__(self, mesh, hemis, kind):
        self.kind, self.hemis = kind, hemis
        self.sizes = []
        if kind == "sphere":
            self.ops = {s: [sphere_smoother(_sphere(mesh, h) * ([-1, 1, 1] if h == "right"
                                                                 else 1), s) for h in hemis]
                        for s in KINDS[kind]}
        elif kind == "midthickness":
            self.ops = [walk_operator(*_midthickness(mesh, h)) for h in hemis]
        else:
            xyz = [_midthickness(mesh, h)[0] for h in hemis]
            allx = np.vstack(xyz)
            pad = 3 * max(KINDS[kind])
            lo = allx.min(0) - pad
            shape = np.ceil((allx.max(0) + pad - lo) / VOXEL_MM).astype(int) + 1
            self.grid = (lo, shape)
            self.coords = [((x - lo) / VOXEL_MM).T for x in xyz]

    def draw(self, rng, sigma):
        if self.kind == "sphere":
            return np.concatenate([k @ rng.standard_normal(k.shape[1])
                                   for k in self.ops[sigma]])
        if self.kind == "midthickness":
            out = []
            for step, edge in self.ops:
                x = rng.standard_normal(step.shape[0])
                for _ in range(int(round(2 * sigma**2 / (edge**2 / 2)))):
                    x = step @ x
                out.append(x)
            return np.concatenate(out)
        from scipy.ndimage import gaussian_filter, map_coordinates

        lo, shape = self.grid
        vol = gaussian_filter(rng.standard_normal(tuple(shape)), sigma / VOXEL_MM,
                              mode="reflect", truncate=3.0)
        return np.concatenate([map_coordinates(vol, c, order=1) for c in self.coords])


def cell(mesh, hemi, kind, n_pairs, n_draws, seed=0, blocks=10):
    from toponeuro._io.meshes import medial_wall

    hemis = ("left", "right") if hemi == "both" else (hemi,)
    pos = np.vstack([_sphere(mesh, h) for h in hemis])
    walls = [medial_wall(mesh, h) for h in hemis]
    wall = None if walls[0] is None else np.concatenate(walls)
    maker = Maker(mesh, hemis, kind)
    rng = np.random.default_rng([seed, MESHES.index(mesh), HEMIS.index(hemi),
                                 list(KINDS).index(kind)])
    states = rng.integers(2**31, size=blocks)
    sigmas = KINDS[kind]
    hits, rho = 0, []
    t0 = time.time()
    for i in range(n_pairs):
        s = sigmas[i % len(sigmas)]
        a, b = maker.draw(rng, s), maker.draw(rng, s)
        if wall is not None:
            a[wall] = b[wall] = np.nan
        res = map_similarity(a, b, "pearson", n_permutations=n_draws,
                             random_state=int(states[i * blocks // n_pairs]),
                             geometry={"positions": pos, "mesh": mesh})
        hits += res.p_value <= ALPHA
        if "n_effective" in res.attrs:
            rho.append(res.attrs.get("paired_correlation", np.nan))
    lo, hi = clopper_pearson(hits, n_pairs)
    out = {"mesh": mesh, "maps": kind, "hemi": hemi, "sigma_mm": list(sigmas),
           "null": "spin", "pearson": round(hits / n_pairs, 4), "hits": int(hits),
           "pairs": n_pairs, "draws": n_draws, "ci95": [round(lo, 4), round(hi, 4)],
           "medial_wall": wall is not None,
           **({"voxel_mm": VOXEL_MM} if kind == "volume" else {}), "rotation_sets": blocks, "seed": seed,
           "seconds": round(time.time() - t0, 1)}
    if rho:
        out["paired_correlation_median"] = round(float(np.nanmedian(rho)), 3)
    return out


KIND_LABELS = {"sphere": "smooth on the sphere", "midthickness": "diffused along the midthickness",
               "volume": "smooth in the volume, read on the midthickness"}


def _pct(x):
    return f"{100 * x:.1f} %"


def cell_text(c):
    lo, hi = c["ci95"]
    grid = f", {c['voxel_mm']:g} mm grid" if c.get("voxel_mm", VOXEL_MM) != VOXEL_MM else ""
    seed = f", maps seed {c['seed']}" if c.get("seed", 0) else ""
    return (f"{_pct(c['pearson'])} ({100 * lo:.1f}--{100 * hi:.1f}), {c['hits']} of "
            f"{c['pairs']}{grid}{seed}")


def rst_table(rows) -> str:
    """The docs' table: one row per mesh and map kind, one column per hemisphere set."""
    out = [".. list-table::", "   :header-rows: 1", "", "   * - mesh", "     - maps",
           "     - left", "     - right", "     - both, spun together"]
    for mesh in MESHES:
        for kind in KINDS:
            mine = [c for c in rows if c["mesh"] == mesh and c["maps"] == kind]
            if not mine:
                continue
            out += [f"   * - {mesh}", f"     - {KIND_LABELS[kind]}"]
            out += [f"     - {'; '.join(cell_text(c) for c in mine if c['hemi'] == h)}"
                    if any(c["hemi"] == h for c in mine) else "     - not measured"
                    for h in HEMIS]
    return "\n".join(out)


def pooled_lines(mesh_names=MESHES) -> list:
    """One line per mesh and kind: the cells pooled as the report quotes them."""
    from toponeuro.analysis import CORTEX_MAP_KINDS, cortex_null_calibration

    out = []
    for mesh in mesh_names:
        cal = cortex_null_calibration(mesh)
        for kind, c in cal["kinds"].items():
            lo, hi = c["ci95"]
            verdict = "holds its level" if c["holds_level"] else "does not hold its level"
            out.append(f"- {mesh}, {CORTEX_MAP_KINDS[kind]}: {_pct(c['rate'])} "
                       f"({100 * lo:.1f}--{100 * hi:.1f}, {c['hits']} of {c['pairs']} pairs, "
                       f"{', '.join(c['hemis'])}): the {cal['null']} test {verdict}")
    return out


def update_docs(path: Path, rows):
    """Put the table and the pooled rates between the docs' markers."""
    text = path.read_text(encoding="utf-8")
    start, end = ".. cortex-nulls-table-start\n", ".. cortex-nulls-table-end"
    i, j = text.index(start) + len(start), text.index(end)
    block = ("\n" + rst_table(rows) + "\n\nPooled over the hemisphere sets (the report quotes "
             "these for the maps' mesh; target 3.5--6.5 %):\n\n" + "\n".join(pooled_lines())
             + "\n\n")
    with atomic_file(path) as tmp:
        tmp.write_text(text[:i] + block + text[j:], encoding="utf-8")


def update_record(path: Path, rows):
    """Put the cells in the record the report quotes (``null_calibration()["cortex"]``)."""
    rec = json.loads(path.read_text())
    keep = ("mesh", "maps", "hemi", "null", "sigma_mm", "pearson", "hits", "pairs", "draws",
            "ci95", "medial_wall", "rotation_sets", "seed", "voxel_mm")
    rec["cortex"] = [{k: c[k] for k in keep if k in c} for c in rows]
    with atomic_file(path) as tmp:
        tmp.write_text(json.dumps(rec, indent=1, ensure_ascii=False) + "\n")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--meshes", nargs="+", default=list(MESHES))
    ap.add_argument("--kinds", nargs="+", default=list(KINDS))
    ap.add_argument("--hemis", nargs="+", default=list(HEMIS))
    ap.add_argument("--pairs", type=int, default=100)
    ap.add_argument("--draws", type=int, default=199)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=Path("bench/cortex_nulls.json"))
    ap.add_argument("--record", type=Path, default=None,
                    help="only write --out's cells into this record (null_calibration.json) "
                         "and print the docs' table")
    args = ap.parse_args(argv)
    rows = json.loads(args.out.read_text())["cells"] if args.out.exists() else []
    if args.record is not None:
        update_record(args.record, rows)
        docs = Path(__file__).resolve().parents[1] / "docs" / "metrics.rst"
        update_docs(docs, rows)
        print(rst_table(rows))
        return
    done = {(r["mesh"], r["maps"], r["hemi"], r["seed"]) for r in rows}
    for mesh in args.meshes:
        for kind in args.kinds:
            for hemi in args.hemis:
                if (mesh, kind, hemi, args.seed) in done:
                    continue
                r = cell(mesh, hemi, kind, args.pairs, args.draws, args.seed)
                print(json.dumps(r), flush=True)
                rows.append(r)
                with atomic_file(args.out) as tmp:
                    tmp.write_text(json.dumps({"alpha": ALPHA, "cells": rows}, indent=1))


if __name__ == "__main__":
    main()
