"""The null kernels issue 46 sped up, timed on planted maps at the jobs' sizes (CPU seconds).

Run it once per code version and compare (the numbers must match, the times drop)::

    PYTHONPATH=OLD_TREE python bench/bench_null_kernels.py --out old.npz
    PYTHONPATH=.        python bench/bench_null_kernels.py --out new.npz --against old.npz

* smoothness of a 32 x 48 sheet (1,536 units: the language demo's layers; sampled pairs,
  20 samples of 500) with 1,000 positions-null draws;
* the mesh patch smoother built for 7 maps on one 10,242-vertex sphere mesh, and applied to
  200 draws;
* 1,000 positions-null permutations of 10,242 points;
* 200 spin rotations matched to a 10,242-vertex sphere.
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def _sphere(n):
    from scipy import sparse
    from scipy.spatial import ConvexHull

    i = np.arange(n) + 0.5
    phi = np.arccos(1 - 2 * i / n)
    theta = np.pi * (1 + 5**0.5) * i
    pts = 100.0 * np.stack([np.cos(theta) * np.sin(phi), np.sin(theta) * np.sin(phi),
                            np.cos(phi)], 1)
    tri = ConvexHull(pts).simplices
    a = np.concatenate([tri[:, 0], tri[:, 1], tri[:, 2]])
    b = np.concatenate([tri[:, 1], tri[:, 2], tri[:, 0]])
    adj = sparse.coo_matrix((np.ones(a.size), (a, b)), shape=(n, n)).tocsr()
    return pts, ((adj + adj.T) > 0).astype(float)


def timed(name, f, res, times):
    t0, w0 = time.process_time(), time.perf_counter()
    out = f()
    times[name] = (time.process_time() - t0, time.perf_counter() - w0)
    res[name] = np.asarray(out)
    print(f"{name:28s} CPU {times[name][0]:7.2f} s  wall {times[name][1]:7.2f} s", flush=True)


def main(argv=None):
    from scipy.ndimage import gaussian_filter
    from scipy.spatial.transform import Rotation

    from toponeuro.analysis import as_topomap, smoothness
    from toponeuro.analysis.topography import _descriptors as desc
    from toponeuro.analysis.topography._null import _positions_indices
    from toponeuro.analysis.topography._spin import _rotated_indices

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True)
    p.add_argument("--against")
    args = p.parse_args(argv)
    print(f"load {open('/proc/loadavg').read().split()[:3]}")
    rng = np.random.default_rng(0)
    res, times = {}, {}
    sheet = gaussian_filter(rng.standard_normal((32, 48)), 2.5)
    timed("smoothness 32x48, 1000 draws",
          lambda: smoothness(sheet, n_permutations=1000, random_state=0)["null"].values,
          res, times)
    pts, adj = _sphere(10242)
    draws = rng.standard_normal((200, 10242))

    def smoothers():
        out = []
        for k in range(7):
            vals = rng.standard_normal(10242)
            vals[k * 100 : k * 100 + 300] = np.nan
            tm = as_topomap(vals, positions=pts, adjacency=adj)
            out.append(desc._surface_smoother(tm, 8.0)(draws[: 200 // 7]))
        return np.concatenate(out)

    timed("surface smoother, 7 maps", smoothers, res, times)
    timed("positions draws 1000x10242",
          lambda: _positions_indices(10242, 1000, np.random.default_rng(1)), res, times)
    tm = as_topomap(np.zeros(10242), positions=pts)
    rots = Rotation.random(200, random_state=np.random.default_rng(2)).as_matrix()
    timed("spin match 200 x 10242", lambda: _rotated_indices(tm, rots), res, times)
    np.savez(args.out, **{k.replace(" ", "_"): v for k, v in res.items()})
    if args.against:
        old = np.load(args.against)
        for k, v in res.items():
            same = np.array_equal(old[k.replace(" ", "_")], v, equal_nan=True)
            print(f"{k:28s} identical to --against: {same}")


if __name__ == "__main__":
    main()
