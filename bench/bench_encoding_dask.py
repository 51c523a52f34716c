"""encoding_score's dask path: are the inner-CV decompositions shared across voxel chunks?

Problem (small on purpose): N stimuli x P features -> V voxels held as a dask array of
``--chunk`` voxels, ``encoding_score`` with a ``RidgeEncoder`` (alpha per voxel, ``--alphas``
alphas, inner ``--inner`` folds) and ``--outer`` outer folds, float64. The single-process path
(responses in memory) fits each outer fold's model once on all voxels, so it decomposes each
outer training set once; the dask path fits chunk by chunk.

Printed, all measured in this run:

1. The number of symmetric eigendecompositions (``_ridge_solver._eigh`` calls, counted) of the
   dask path on the synchronous scheduler and of the in-memory path. A deterministic count,
   unlike time on a shared machine.
2. CPU seconds (``time.process_time``, one BLAS thread) of each path, best of ``--repeat``.
3. The largest absolute difference between the dask path's scores and the in-memory path's.

No assertion on time: the numbers are for the changelog, the test is in
tests/analysis/encoding/test_encoding_scale.py.

Run: OMP_NUM_THREADS=1 python bench/bench_encoding_dask.py [--small]
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from _common import add_sizes, parse_sizes

SIZES = {"n": 500, "p": 256, "v": 4000, "chunk": 250, "alphas": 10, "inner": 5, "outer": 5,
         "repeat": 3}
SMALL = {"n": 200, "p": 32, "v": 1000, "chunk": 100, "repeat": 1}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_sizes(parser, SIZES, SMALL)
    args = parse_sizes(parser, SMALL, argv)

    import dask
    import dask.array as da

    from toponeuro.analysis import RidgeEncoder, encoding_score
    from toponeuro.analysis.encoding import _ridge_solver as rs

    rng = np.random.default_rng(0)
    X = rng.standard_normal((args.n, args.p))
    Y = X @ rng.standard_normal((args.p, args.v)) / np.sqrt(args.p)
    Y += rng.standard_normal(Y.shape)
    model = RidgeEncoder(alphas=np.logspace(-2, 6, args.alphas), cv=args.inner)
    Yd = da.from_array(Y, chunks=(args.n, args.chunk))

    calls = {"n": 0}
    real = rs._eigh

    def counted(*a, **k):
        calls["n"] += 1
        return real(*a, **k)

    rs._eigh = counted

    def run(responses):
        best, out, n = float("inf"), None, 0
        for _ in range(args.repeat):
            calls["n"] = 0
            t0 = time.process_time()
            out = encoding_score(X, responses, model=model, cv=args.outer)
            best = min(best, time.process_time() - t0)
            n = calls["n"]
        return best, out.values, n

    with dask.config.set(scheduler="synchronous"):
        t_dask, s_dask, n_dask = run(Yd)
    t_mem, s_mem, n_mem = run(Y)
    rs._eigh = real
    result = {
        "problem": {k: getattr(args, k) for k in SIZES if k != "repeat"},
        "n_chunks": len(Yd.chunks[1]),
        "eigendecompositions": {"dask": n_dask, "in_memory": n_mem},
        "cpu_seconds": {"dask": round(t_dask, 3), "in_memory": round(t_mem, 3)},
        "max_abs_difference": float(np.max(np.abs(s_dask - s_mem))),
    }
    print(json.dumps(result, indent=1))
    return result


if __name__ == "__main__":
    main()
