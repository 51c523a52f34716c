"""RSA speed and memory: toponeuro vs rsatoolbox 0.3.2.

1. Correlation RDM of N=2,000 stimuli x P=10,000 features (float64), then its Spearman
   comparison with a model RDM, in both libraries on identical data; prints times, the ratio
   (>1 means toponeuro is faster) and the largest difference between the results.
2. Peak memory (ru_maxrss of a subprocess each) of a float32 correlation RDM with P=512:
   at N=5,000 for both libraries, and at N=20,000 for toponeuro (condensed float32) and for
   rsatoolbox in a subprocess whose address space is capped (``--cap-gb``, default 4):
   rsatoolbox builds full N x N float64 matrices (3.2 GB each at N=20,000).

Run: python bench/bench_rsa.py [--small] [--skip-big]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

import numpy as np


def rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def speed(n, p, repeats):
    import rsatoolbox as rt

    from toponeuro.analysis import compare_rdms, rdm

    rng = np.random.default_rng(0)
    X = rng.standard_normal((n, p))
    model = rng.random(n * (n - 1) // 2)

    def ours():
        return compare_rdms(rdm(X, "correlation"), model, "spearman")

    def theirs():
        r = rt.rdm.calc_rdm(rt.data.Dataset(X), method="correlation")
        return rt.rdm.compare(r, rt.rdm.RDMs(model[None]), method="spearman")[0, 0]

    out = {}
    for name, fn in (("toponeuro", ours), ("rsatoolbox", theirs)):
        times = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            val = fn()
            times.append(time.perf_counter() - t0)
        out[name] = (min(times), val)
        print(f"{name:10s} {min(times):8.2f} s  (best of {repeats})  rho={val:.10f}", flush=True)
    # the RDMs themselves
    ref = rt.rdm.calc_rdm(rt.data.Dataset(X[:300]), method="correlation").get_vectors()[0]
    diff = np.abs(rdm(X[:300]) - ref).max()
    print(f"speed-up {out['rsatoolbox'][0] / out['toponeuro'][0]:.1f}x (target >= 10x); "
          f"|rho diff| = {abs(out['rsatoolbox'][1] - out['toponeuro'][1]):.2e}; "
          f"max |RDM diff| on 300 stimuli = {diff:.2e}")


def big_child(lib, n, p, cap_gb):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((n, p), dtype=np.float32)
    base = rss_mb()
    t0 = time.perf_counter()
    try:
        if lib == "toponeuro":
            from toponeuro.analysis import rdm

            r = rdm(X, "correlation")
            info = f"condensed {r.dtype} {r.nbytes / 2**30:.2f} GiB"
        else:
            if cap_gb:
                lim = int(cap_gb * 2**30)
                resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
            import rsatoolbox as rt

            r = rt.rdm.calc_rdm(rt.data.Dataset(X.astype(np.float64)), method="correlation")
            info = "ok"
    except MemoryError as err:
        info = f"MemoryError: {err}"[:200]
    print(json.dumps({"time": time.perf_counter() - t0, "peak_mb": rss_mb(), "base_mb": base,
                      "info": info}))


def big(n, p, cap_gb):
    for lib in ("toponeuro", "rsatoolbox"):
        cmd = [sys.executable, __file__, "--big-child", lib, "--big-n", str(n), "--big-p", str(p),
               "--cap-gb", str(cap_gb)]
        res = subprocess.run(cmd, capture_output=True, text=True, check=False)
        lines = res.stdout.strip().splitlines()
        if not lines:
            print(f"{lib:10s} N={n}: crashed (rc={res.returncode}) {res.stderr[-300:]}")
            continue
        r = json.loads(lines[-1])
        cap = f" under a {cap_gb} GB address-space cap" if lib == "rsatoolbox" and cap_gb else ""
        print(f"{lib:10s} N={n} P={p}: {r['time']:7.1f} s, peak RSS {r['peak_mb']:7.0f} MB "
              f"(data alone {r['base_mb']:.0f} MB){cap}: {r['info']}", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--p", type=int, default=10000)
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--big-n", type=int, default=20000)
    ap.add_argument("--big-p", type=int, default=512)
    ap.add_argument("--cap-gb", type=float, default=4.0)
    ap.add_argument("--mid-n", type=int, default=5000)
    ap.add_argument("--small", action="store_true", help="N=1000 x P=2000, big N=8000")
    ap.add_argument("--skip-big", action="store_true")
    ap.add_argument("--skip-speed", action="store_true")
    ap.add_argument("--big-child", default=None)
    args = ap.parse_args()
    if args.big_child:
        return big_child(args.big_child, args.big_n, args.big_p, args.cap_gb)
    if args.small:
        args.n, args.p, args.mid_n, args.big_n = 1000, 2000, 2000, 8000
    # memory first: Linux keeps ru_maxrss across exec, so children must start from a small
    # parent
    if not args.skip_big:
        big(args.mid_n, args.big_p, 0)
        big(args.big_n, args.big_p, args.cap_gb)
    if not args.skip_speed:
        print(f"correlation RDM + Spearman: N={args.n} x P={args.p}, float64")
        speed(args.n, args.p, args.repeats)


if __name__ == "__main__":
    main()
