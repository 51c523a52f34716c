"""Sweep memory: 8 layers x 20 regions from stores, peak RSS against the largest single pair.

Activations (8 layers) and responses (20 regions) are written to netCDF files and opened
lazily (dask chunks), as a feature store and a subject's betas would be. ``sweep`` then
reads one layer and one region at a time. Each run is a child process so its peak RSS is its
own:

* the full sweep, 8 layers x 20 regions (RSA, then encoding on smaller sizes);
* the largest single (layer, region) pair alone, same inputs, same code;
* for reference, the bytes of all activations plus all responses (what holding everything
  at once would take before any RDM or fit).

Also times the full sweep and checks (RSA) that a sweep killed half-way and restarted with
``results=`` returns the same table while scoring only the missing pairs.

Run: python bench/bench_sweep.py [--small]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time

import numpy as np
from _common import add_sizes, parse_sizes, peak_rss_mib, run_child, size_argv

SIZES = {"n": 1000, "units": 2048, "voxels": 500, "layers": 8, "regions": 20,
         "enc_n": 300, "enc_units": 128, "enc_voxels": 50}
SMALL = {"n": 300, "units": 512, "voxels": 200, "enc_n": 120, "enc_units": 64,
         "enc_voxels": 20}


def write_inputs(folder, n, units, voxels, layers, regions, tag):
    import xarray as xr

    from toponeuro import make_activations

    rng = np.random.default_rng(0)
    shared = rng.standard_normal((n, 16)).astype(np.float32)
    acts = make_activations(
        {f"layer{i}": (shared @ rng.standard_normal((16, units)).astype(np.float32)
                       * (i + 1) / layers + rng.standard_normal((n, units), dtype=np.float32))
         for i in range(layers)}, random_state=0)
    apath = os.path.join(folder, f"acts_{tag}.nc")
    acts.astype(np.float32).to_netcdf(apath, engine="h5netcdf")
    del acts
    Y = np.concatenate([shared @ rng.standard_normal((16, voxels)).astype(np.float32)
                        + rng.standard_normal((n, voxels), dtype=np.float32)
                        for _ in range(regions)], axis=1)
    resp = xr.DataArray(Y, dims=("stimulus", "voxel"), coords={
        "stimulus_id": ("stimulus", [f"stim-{i:04d}" for i in range(n)]),
        "roi": ("voxel", np.repeat([f"roi{r:02d}" for r in range(regions)], voxels))})
    rpath = os.path.join(folder, f"resp_{tag}.nc")
    resp.to_netcdf(rpath, engine="h5netcdf")
    return apath, rpath


def child(args):
    import xarray as xr

    from toponeuro.analysis import RidgeEncoder, sweep

    acts = xr.open_dataarray(args.acts, engine="h5netcdf", chunks={"unit": args.chunk_units})
    resp = xr.open_dataarray(args.resp, engine="h5netcdf", chunks={"voxel": args.chunk_voxels})
    layers = None
    if args.pair:  # the largest pair: the last layer (all layers are equal) and one region
        layers = [acts.topo.layers[-1]]
        resp = resp.isel(voxel=np.flatnonzero(resp.roi.values == resp.roi.values[-1]))
    kw = {}
    if args.method == "encoding":
        kw = {"encoder": RidgeEncoder(alphas=np.logspace(-1, 4, 6), cv=3), "cv": 3}
    base = peak_rss_mib()
    t0 = time.perf_counter()
    table = sweep({"net": acts}, layers, resp, method=args.method, progress=False,
                  results=args.results or None, **kw)
    dt = time.perf_counter() - t0
    print(json.dumps({"time": dt, "peak_mb": peak_rss_mib(), "base_mb": base,
                      "rows": len(table), "scores": table.score.round(12).tolist()}))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_sizes(ap, SIZES, SMALL)
    for name in ("child", "acts", "resp", "method", "results"):
        ap.add_argument("--" + name, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--methods", nargs="*", default=["rsa", "encoding"],
                    choices=["rsa", "encoding"])
    ap.add_argument("--no-resume", action="store_true", help="skip the kill-and-resume check")
    ap.add_argument("--pair", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--chunk-units", type=int, default=1024, help=argparse.SUPPRESS)
    ap.add_argument("--chunk-voxels", type=int, default=1000, help=argparse.SUPPRESS)
    args = parse_sizes(ap, SMALL)
    if args.child:
        return child(args)
    with tempfile.TemporaryDirectory(prefix="toponeuro_sweep_bench_") as tmp:
        for method, (n, u, v) in {"rsa": (args.n, args.units, args.voxels),
                                  "encoding": (args.enc_n, args.enc_units,
                                               args.enc_voxels)}.items():
            if method not in args.methods:
                continue
            apath, rpath = write_inputs(tmp, n, u, v, args.layers, args.regions, method)
            common = ["--child", "1", "--acts", apath, "--resp", rpath, "--method", method,
                      "--chunk-units", str(u), "--chunk-voxels", str(v),
                      *size_argv(args, SIZES)]
            full = run_child(__file__, *common)
            pair = run_child(__file__, *common, "--pair")
            everything = 4 * n * (args.layers * u + args.regions * v) / 2**20
            print(f"{method}: {args.layers} layers x {args.regions} regions (N={n}, {u} units per "
                  f"layer, {v} voxels per region): {full['time']:.1f} s, peak RSS "
                  f"{full['peak_mb']:.0f} MB; largest single pair alone {pair['peak_mb']:.0f} MB "
                  f"(ratio {full['peak_mb'] / pair['peak_mb']:.2f}; imports alone "
                  f"{pair['base_mb']:.0f} MB); all inputs at once would be {everything:.0f} MB",
                  flush=True)
            if method != "rsa" or args.no_resume:
                continue
            # a run that was killed half-way: a complete results file cut back to its first
            # half (header + half the rows), then the sweep started again with it
            res = os.path.join(tmp, f"{method}.jsonl")
            run_child(__file__, *common, "--results", res)
            with open(res) as f:
                lines = f.readlines()
            with open(res, "w") as f:
                f.writelines(lines[: 1 + (len(lines) - 1) // 2])
            resumed = run_child(__file__, *common, "--results", res)
            print(f"  resumed after {(len(lines) - 1) // 2} of {len(lines) - 1} pairs: "
                  f"{resumed['time']:.1f} s (full run {full['time']:.1f} s); same table: "
                  f"{resumed['scores'] == full['scores']}", flush=True)


if __name__ == "__main__":
    main()
