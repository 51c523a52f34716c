"""Encoding at NSD size: a streamed ridge fit from a store, timed against its flop bound.

Problem (the issue's): N=10,000 stimuli x P=2,048 features -> V=100,000 float32 voxels,
10 alphas, 5-fold cross-validation, alpha per voxel. The responses (4 GB) are written once to
a netCDF store and opened lazily in chunks of ``--chunk`` voxels; ``RidgeEncoder.fit``
streams them chunk by chunk (``weights=None``: per-voxel scores and alphas, no coefficients).

Printed, all measured in this run:

1. The **flop bound**: the operations the fit cannot avoid -- per fold one eigendecomposition
   (the Gram/kernel product, ``10/3 k^3`` for ``eigh``, the products that form ``U`` and the
   test side), the ``U.T @ Ytr`` products and the validation products (the predictions of
   every alpha for every held-out stimulus) -- divided by the machine's *achieved* GEMM rate,
   measured right before (and after) the fit with numpy products of the sizes the fit uses
   (float32 for the products, float64 for the eigendecompositions), and by a nominal peak
   (``--peak-gflops``; default cores x 32 float32 flop/cycle x the CPU clock). The fit's time
   divided by the bound is the ratio (target <= 1.5 against the achieved rate).
2. Peak RSS of the fitting process (target <= 8 GB), beside the size of the responses.
3. The same chunked fit on a ``dask.distributed`` ``LocalCluster`` of 2 worker *processes*
   over the first ``--v-dask`` voxels of the store: time, and equality with the
   single-process fit of the same voxels.
4. The same problem at V = ``--v-memory`` in memory beside himalaya's ``RidgeCV`` (same
   folds, same scoring): times, ratio, share of voxels with the same alpha.

Each step runs in its own child process, so each peak RSS is that step's own.

Run: python bench/bench_encoding_scale.py [--small] [--skip himalaya dask] [--keep-store DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time

import numpy as np
from _common import add_sizes, parse_sizes, peak_rss_mib, run_child, size_argv

from toponeuro._io.output import remove_tree

SIZES = {"n": 10000, "p": 2048, "v": 100000, "alphas": 10, "folds": 5, "chunk": 5000,
         "v_memory": 20000, "v_dask": 10000}
SMALL = {"n": 1500, "p": 256, "v": 12000, "chunk": 3000, "v_memory": 6000, "v_dask": 6000}


# ----------------------------------------------------------------------------- data
def write_store(path, n, p, v, chunk, seed=0):
    """Features (n x p) and responses (n x v) float32, written chunk by chunk of voxels."""
    import h5netcdf

    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p), dtype=np.float32)
    np.save(path + ".X.npy", X)
    with h5netcdf.File(path, "w") as f:
        f.dimensions = {"stimulus": n, "voxel": v}
        # HDF5 chunks of whole columns whose width divides the read chunk (<= 8 MB each)
        limit = max(1, (8 << 20) // (4 * n))
        width = max(d for d in range(1, min(chunk, limit) + 1) if chunk % d == 0)
        var = f.create_variable("betas", ("stimulus", "voxel"), "f4", chunks=(n, min(width, v)))
        f.create_variable("stimulus_id", ("stimulus",), data=np.arange(n))
        for s in range(0, v, chunk):
            c = min(chunk, v - s)
            W = rng.standard_normal((p, c), dtype=np.float32)
            W *= rng.random(c, dtype=np.float32) * 2 / p**0.5
            Y = X @ W
            Y += rng.standard_normal((n, c), dtype=np.float32)
            var[:, s : s + c] = Y
    return X


def open_lazy(path, chunk, v=None):
    import xarray as xr

    da = xr.open_dataset(path, engine="h5netcdf", chunks={"voxel": chunk})["betas"]
    return da if v is None else da.isel(voxel=slice(0, v))


# ----------------------------------------------------------------------------- flop bound
def flop_count(n, p, folds, n_alphas, v):
    """Unavoidable operations of a per-fold CV ridge fit: ``{part: (flops, dtype)}``."""
    out = {"decomposition f32": 0.0, "decomposition f64 (eigh)": 0.0, "U'Y": 0.0,
           "validation": 0.0}
    dual = p > min(len(tr) for tr, _ in folds)
    if dual:
        out["decomposition f32"] += 2.0 * n * n * p  # the full kernel, formed once
    for tr, te in folds:
        m, t = len(tr), len(te)
        k = min(p, m)
        if dual:
            out["decomposition f32"] += 2.0 * t * m * k  # test side K_te,tr @ Q
        else:
            out["decomposition f32"] += 2.0 * m * p * p + 2.0 * m * p * k + 2.0 * t * p * k
        out["decomposition f64 (eigh)"] += 10.0 / 3.0 * k**3
        out["U'Y"] += 2.0 * k * m * v
        out["validation"] += 2.0 * n_alphas * t * k * v
    return out


def gemm_rate(m, k, n, dtype, repeat=3):
    """Achieved GFLOP/s of an (m x k) @ (k x n) product, best of ``repeat``: per second of
    wall-clock time and per second of this process's CPU time."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((k, n)).astype(dtype)
    a @ b
    wall = cpu = float("inf")
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        a @ b
        wall = min(wall, time.perf_counter() - t0)
        cpu = min(cpu, time.process_time() - c0)
    return 2.0 * m * k * n / wall / 1e9, 2.0 * m * k * n / cpu / 1e9


class Progress:
    """A dask callback that appends one line per finished chunk to a log file."""

    def __init__(self, path, n_chunks):
        from dask.callbacks import Callback

        self.path, self.n, self.done = path, n_chunks, 0
        self.t0, self.c0 = time.perf_counter(), time.process_time()
        outer = self

        class _CB(Callback):
            def _posttask(self, key, result, dsk, state, worker_id):
                if isinstance(result, dict) and "best" in result:
                    outer.done += 1
                    with open(outer.path, "a") as f:
                        f.write(f"chunk {outer.done}/{outer.n}: wall "
                                f"{time.perf_counter() - outer.t0:.0f} s, cpu "
                                f"{time.process_time() - outer.c0:.0f} s\n")

        self.callback = _CB()


def nominal_peak_gflops():
    """cores x 32 float32 flop/cycle (two 256-bit FMA pipes) x the clock in /proc/cpuinfo."""
    mhz = None
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.lower().startswith("cpu mhz"):
                    mhz = float(line.split(":")[1])
                    break
    except OSError:
        pass
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return cores * 32 * (mhz or 3000.0) / 1e3, cores, mhz


# ----------------------------------------------------------------------------- children
def _folds(args):
    from toponeuro.analysis import make_folds

    return make_folds(args.folds, args.n)


def child_stream(args):
    """The streamed fit over the whole store, with GEMM rates measured before and after."""
    import dask

    from toponeuro.analysis import RidgeEncoder

    X = np.load(args.store + ".X.npy")
    folds = _folds(args)
    k = min(args.p, len(folds[0][0]))
    n_te = len(folds[0][1])
    shape = (args.alphas * n_te, k, min(args.chunk, 2000))
    before32 = gemm_rate(*shape, np.float32)
    m64 = max(k, 1024)  # eigh's share is small; time a product large enough to measure
    before64 = gemm_rate(m64, m64, m64, np.float64)
    alphas = np.logspace(-2, 6, args.alphas)
    lazy = open_lazy(args.store, args.chunk)
    base = peak_rss_mib()
    progress = Progress(args.store + ".progress.log", len(lazy.data.chunks[1]))
    with dask.config.set(scheduler="synchronous"), progress.callback:  # BLAS uses the cores
        t0, c0 = time.perf_counter(), time.process_time()
        est = RidgeEncoder(alphas=alphas, cv=folds, weights=None).fit(X, lazy)
        dt, cpu = time.perf_counter() - t0, time.process_time() - c0
    after32 = gemm_rate(*shape, np.float32)
    after64 = gemm_rate(m64, m64, m64, np.float64)
    np.save(args.out + ".best.npy", est.best_alphas_)
    np.save(args.out + ".scores.npy", est.cv_scores_)
    print(json.dumps({"time": dt, "cpu": cpu, "peak_mb": peak_rss_mib(), "base_mb": base,
                      "solver": est.cv_solver_, "gemm32": [before32[0], after32[0]],
                      "gemm64": [before64[0], after64[0]],
                      "gemm32_cpu": [before32[1], after32[1]],
                      "gemm64_cpu": [before64[1], after64[1]], "gemm_shape": shape}))


def child_memory(args):
    """toponeuro or himalaya on the first v_memory voxels, in memory (with the refit)."""
    X = np.load(args.store + ".X.npy")
    Y = np.ascontiguousarray(open_lazy(args.store, args.chunk, args.v_memory).values)
    from sklearn.model_selection import KFold

    alphas = np.logspace(-2, 6, args.alphas)
    folds = KFold(args.folds)
    base = peak_rss_mib()
    t0 = time.perf_counter()
    if args.child == "toponeuro":
        from toponeuro.analysis import RidgeEncoder

        best = RidgeEncoder(alphas=alphas, cv=folds).fit(X, Y).best_alphas_
    else:
        import warnings

        from himalaya.backend import set_backend
        from himalaya.ridge import RidgeCV
        from himalaya.scoring import r2_score

        set_backend("numpy")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = RidgeCV(alphas=alphas, cv=folds, fit_intercept=True,
                          solver_params={"score_func": r2_score}).fit(X, Y)
        best = np.asarray(est.best_alphas_)
    dt = time.perf_counter() - t0
    np.save(args.out + f".{args.child}.npy", best)
    print(json.dumps({"time": dt, "peak_mb": peak_rss_mib(), "base_mb": base}))


def _worker_peak_mib():
    from _common import peak_rss_mib as peak

    return peak()


def child_dask(args):
    """The chunked fit on a LocalCluster of 2 worker processes (1 thread each)."""
    from distributed import Client, LocalCluster

    from toponeuro.analysis import RidgeEncoder

    X = np.load(args.store + ".X.npy")
    folds = _folds(args)
    alphas = np.logspace(-2, 6, args.alphas)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        client.run(sys.path.insert, 0, os.path.dirname(os.path.abspath(__file__)))
        lazy = open_lazy(args.store, args.chunk, args.v_dask)
        t0 = time.perf_counter()
        est = RidgeEncoder(alphas=alphas, cv=folds, weights=None).fit(X, lazy)
        dt = time.perf_counter() - t0
        workers = client.run(_worker_peak_mib)
    np.save(args.out + ".dask_best.npy", est.best_alphas_)
    np.save(args.out + ".dask_scores.npy", est.cv_scores_)
    print(json.dumps({"time": dt, "peak_mb": peak_rss_mib(),
                      "worker_peak_mb": sorted(workers.values())}))


CHILDREN = {"stream": child_stream, "toponeuro": child_memory, "himalaya": child_memory,
            "dask": child_dask}


# ----------------------------------------------------------------------------- main
def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_sizes(ap, SIZES, SMALL)
    ap.add_argument("--skip", nargs="*", default=[], choices=["himalaya", "dask"])
    ap.add_argument("--keep-store", default=None,
                    help="folder for the store (kept, and reused when it matches the sizes)")
    ap.add_argument("--peak-gflops", type=float, default=None,
                    help="nominal float32 peak of this machine (default: cores x 32 x clock)")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--store", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--out", default=None, help=argparse.SUPPRESS)
    args = parse_sizes(ap, SMALL)
    if args.child:
        return CHILDREN[args.child](args)

    threads = os.environ.get("OPENBLAS_NUM_THREADS", os.environ.get("OMP_NUM_THREADS",
                                                                    "default"))
    print(f"N={args.n} P={args.p} V={args.v} float32, {args.alphas} alphas, {args.folds} folds, "
          f"chunks of {args.chunk} voxels, BLAS threads={threads}", flush=True)
    tmp = tempfile.mkdtemp(prefix="toponeuro_scale_")
    folder = args.keep_store or tmp
    os.makedirs(folder, exist_ok=True)
    store = os.path.join(folder, f"betas_n{args.n}_p{args.p}_v{args.v}.nc")
    out = os.path.join(tmp, "result")
    try:
        if not (os.path.exists(store) and os.path.exists(store + ".X.npy")):
            t0 = time.perf_counter()
            write_store(store, args.n, args.p, args.v, args.chunk)
            print(f"store: {os.path.getsize(store) / 2**30:.2f} GiB written in "
                  f"{time.perf_counter() - t0:.0f} s ({store})", flush=True)
        else:
            print(f"store: reusing {store}", flush=True)
        base = ["--store", store, "--out", out, *size_argv(args, SIZES)]
        print(f"progress of the streamed fit: {store}.progress.log", flush=True)
        r = run_child(__file__, "--child", "stream", *base)
        folds = _folds(args)
        flops = flop_count(args.n, args.p, folds, args.alphas, args.v)
        rate32, rate64 = min(r["gemm32"]), min(r["gemm64"])
        fast32, fast64 = max(r["gemm32"]), max(r["gemm64"])
        peak, cores, mhz = nominal_peak_gflops()
        if args.peak_gflops:
            peak = args.peak_gflops
        f32 = sum(v for kname, v in flops.items() if "f64" not in kname)
        f64 = flops["decomposition f64 (eigh)"]
        bound = f32 / (rate32 * 1e9) + f64 / (rate64 * 1e9)
        bound_fast = f32 / (fast32 * 1e9) + f64 / (fast64 * 1e9)
        bound_peak = f32 / (peak * 1e9) + f64 / (peak / 2 * 1e9)
        print(f"\nstreamed fit ({r['solver']} solver, weights=None): {r['time']:.1f} s, "
              f"peak RSS {r['peak_mb']:.0f} MB (target <= 8000 MB; the responses are "
              f"{4 * args.n * args.v / 2**20:.0f} MB)")
        print("flop count: " + ", ".join(f"{kname} {v / 1e12:.2f} TF" for kname, v in flops.items())
              + f"; total {(f32 + f64) / 1e12:.2f} TF")
        print(f"achieved GEMM rate (this run, {r['gemm_shape']} float32; {args.p}^3 float64), "
              f"before / after the fit: {r['gemm32'][0]:.0f} / {r['gemm32'][1]:.0f} GFLOP/s f32, "
              f"{r['gemm64'][0]:.0f} / {r['gemm64'][1]:.0f} GFLOP/s f64")
        print(f"bound at the slower achieved rate {bound:.1f} s -> ratio "
              f"{r['time'] / bound:.2f}x (target <= 1.5x); at the faster "
              f"{bound_fast:.1f} s -> {r['time'] / bound_fast:.2f}x")
        print(f"bound at the nominal peak {peak:.0f} GFLOP/s f32 ({cores} cores x 32 flop/cycle x "
              f"{mhz or 3000:.0f} MHz; f64 at half) {bound_peak:.1f} s -> ratio "
              f"{r['time'] / bound_peak:.2f}x", flush=True)
        c32, c64 = max(r["gemm32_cpu"]), max(r["gemm64_cpu"])
        bound_cpu = f32 / (c32 * 1e9) + f64 / (c64 * 1e9)
        print(f"per second of CPU time (robust to other jobs on a shared machine when BLAS runs "
              f"one thread): GEMM {r['gemm32_cpu'][0]:.0f} / {r['gemm32_cpu'][1]:.0f} GFLOP/cpu-s "
              f"f32; the fit used {r['cpu']:.0f} cpu-s against a bound of {bound_cpu:.0f} cpu-s "
              f"-> ratio {r['cpu'] / bound_cpu:.2f}x", flush=True)

        if "dask" not in args.skip:
            d = run_child(__file__, "--child", "dask", *base)
            v = args.v_dask
            single_best = np.load(out + ".best.npy")[:v]
            single_scores = np.load(out + ".scores.npy")[:, :v]
            same = np.mean(np.load(out + ".dask_best.npy") == single_best)
            diff = np.nanmax(np.abs(np.load(out + ".dask_scores.npy") - single_scores))
            print(f"\ndask.distributed LocalCluster (2 worker processes x 1 thread), first {v} "
                  f"voxels: {d['time']:.1f} s (single process, same voxels, about "
                  f"{r['time'] * v / args.v:.1f} s); same alpha for {100 * same:.2f}% of voxels, "
                  f"max |cv score difference| {diff:.1e}; peak RSS client {d['peak_mb']:.0f} MB, "
                  f"workers {', '.join(f'{m:.0f}' for m in d['worker_peak_mb'])} MB", flush=True)
        if "himalaya" not in args.skip:
            res = {}
            for lib in ("toponeuro", "himalaya"):
                res[lib] = run_child(__file__, "--child", lib, *base)
            same = np.mean(np.isclose(np.load(out + ".toponeuro.npy"),
                                      np.load(out + ".himalaya.npy"), rtol=1e-6))
            t, h = res["toponeuro"], res["himalaya"]
            print(f"\nin memory, V={args.v_memory} (refit included, KFold({args.folds})): "
                  f"toponeuro {t['time']:.1f} s (peak {t['peak_mb']:.0f} MB), himalaya "
                  f"{h['time']:.1f} s (peak {h['peak_mb']:.0f} MB): {h['time'] / t['time']:.2f}x; "
                  f"same alpha for {100 * same:.2f}% of voxels", flush=True)
    finally:
        remove_tree(tmp)


if __name__ == "__main__":
    main()
