"""RSA speed and memory: toponeuro vs rsatoolbox 0.3.2.

1. Correlation RDM of N=2,000 stimuli x P=10,000 features (float64), then its Spearman
   comparison with a model RDM, in both libraries on identical data; prints times, the ratio
   (>1 means toponeuro is faster) and the largest difference between the results.
2. Peak memory (peak RSS of a subprocess each) of a float32 correlation RDM with P=512:
   at N=5,000 for both libraries, and at N=20,000 for toponeuro (condensed float32) and for
   rsatoolbox in a subprocess whose address space is capped (``--cap-gb``, default 4):
   rsatoolbox builds full N x N float64 matrices (3.2 GB each at N=20,000).

Run: python bench/bench_rsa.py [--small] [--skip-big]
"""

from __future__ import annotations

import argparse
import json
import resource
import time

import numpy as np
from _common import add_sizes, best_of, parse_sizes, peak_rss_mib, run_child

SIZES = {"n": 2000, "p": 10000, "repeats": 1, "big_n": 20000, "big_p": 512, "cap_gb": 4.0,
         "mid_n": 5000}
SMALL = {"n": 1000, "p": 2000, "mid_n": 2000, "big_n": 8000}


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
        best, val = best_of(fn, repeats)
        out[name] = (best, val)
        print(f"{name:10s} {best:8.2f} s  (best of {repeats})  rho={val:.10f}", flush=True)
    # the RDMs themselves
    ref = rt.rdm.calc_rdm(rt.data.Dataset(X[:300]), method="correlation").get_vectors()[0]
    diff = np.abs(rdm(X[:300]) - ref).max()
    print(f"speed-up {out['rsatoolbox'][0] / out['toponeuro'][0]:.1f}x (target >= 10x); "
          f"|rho diff| = {abs(out['rsatoolbox'][1] - out['toponeuro'][1]):.2e}; "
          f"max |RDM diff| on 300 stimuli = {diff:.2e}")


def big_child(lib, n, p, cap_gb):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((n, p), dtype=np.float32)
    base = peak_rss_mib()
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
    print(json.dumps({"time": time.perf_counter() - t0, "peak_mb": peak_rss_mib(), "base_mb": base,
                      "info": info}))


def big(n, p, cap_gb):
    for lib in ("toponeuro", "rsatoolbox"):
        try:
            r = run_child(__file__, "--big-child", lib, "--big-n", str(n), "--big-p", str(p),
                          "--cap-gb", str(cap_gb))
        except RuntimeError as err:
            print(f"{lib:10s} N={n}: crashed: {str(err)[-300:]}")
            continue
        cap = f" under a {cap_gb} GB address-space cap" if lib == "rsatoolbox" and cap_gb else ""
        print(f"{lib:10s} N={n} P={p}: {r['time']:7.1f} s, peak RSS {r['peak_mb']:7.0f} MB "
              f"(data alone {r['base_mb']:.0f} MB){cap}: {r['info']}", flush=True)


def main():
    ap = argparse.ArgumentParser()
    add_sizes(ap, SIZES, SMALL)
    ap.add_argument("--skip-big", action="store_true")
    ap.add_argument("--skip-speed", action="store_true")
    ap.add_argument("--big-child", default=None)
    args = parse_sizes(ap, SMALL)
    if args.big_child:
        return big_child(args.big_child, args.big_n, args.big_p, args.cap_gb)
    # memory first, from a small parent (peak_rss_mib falls back to ru_maxrss, which Linux
    # keeps across exec)
    if not args.skip_big:
        big(args.mid_n, args.big_p, 0)
        big(args.big_n, args.big_p, args.cap_gb)
    if not args.skip_speed:
        print(f"correlation RDM + Spearman: N={args.n} x P={args.p}, float64")
        speed(args.n, args.p, args.repeats)


if __name__ == "__main__":
    main()
