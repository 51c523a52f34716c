"""Encoding speed: toponeuro RidgeEncoder vs himalaya RidgeCV and scikit-learn RidgeCV.

Problem (the issue's): N=3,000 stimuli x P=2,048 features -> V=20,000 targets, 10 alphas,
alpha per target. toponeuro and himalaya run 5-fold cross-validation on identical folds with
the same scoring (R^2) on the numpy backend, float32. scikit-learn's
``RidgeCV(alpha_per_target=True)`` only supports its efficient leave-one-out (it refuses
``cv=`` with ``alpha_per_target``), so it runs that. Running it on 20,000 targets takes too
long on a shared 2-core machine, so it is timed on ``--sklearn-targets`` targets (default
2,000) and on half as many, and its time extrapolated to V along the line through both
(fixed cost of the decomposition + a cost per target).

Each library runs in its own subprocess so peak memory (ru_maxrss) is its own; the baseline
(data in memory) is reported separately. Prints times, ratios (>1 means toponeuro is faster)
and the agreement of the chosen alphas with himalaya's.

Run: python bench/bench_encoding.py [--small] [--n 3000 --p 2048 --v 20000]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import tempfile
import time

import numpy as np
from _common import add_sizes, parse_sizes, peak_rss_mib, run_child, size_argv

SIZES = {"n": 3000, "p": 2048, "v": 20000, "folds": 5, "sklearn_targets": 2000}
SMALL = {"n": 1000, "p": 512, "v": 5000, "sklearn_targets": 1000}


def make_data(n, p, v, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p), dtype=np.float32)
    W = rng.standard_normal((p, v), dtype=np.float32) * (rng.random(v, dtype=np.float32) / p**0.5)
    Y = X @ W
    Y += rng.standard_normal((n, v), dtype=np.float32)
    return X, Y


def child(args):
    X, Y = make_data(args.n, args.p, args.v if args.lib != "sklearn" else args.sklearn_targets)
    base = peak_rss_mib()
    alphas = np.logspace(-2, 6, 10)
    from sklearn.model_selection import KFold

    folds = KFold(args.folds)
    c0 = cpu_seconds()
    t0 = time.perf_counter()
    if args.lib == "toponeuro":
        from toponeuro.analysis import RidgeEncoder

        est = RidgeEncoder(alphas=alphas, cv=folds).fit(X, Y)
        best = est.best_alphas_
    elif args.lib == "himalaya":
        from himalaya.backend import set_backend
        from himalaya.ridge import RidgeCV
        from himalaya.scoring import r2_score

        set_backend("numpy")
        est = RidgeCV(alphas=alphas, cv=folds, fit_intercept=True,
                      solver_params={"score_func": r2_score}).fit(X, Y)
        best = np.asarray(est.best_alphas_)
    else:
        from sklearn.linear_model import RidgeCV

        est = RidgeCV(alphas=alphas, alpha_per_target=True).fit(X, Y)
        best = np.asarray(est.alpha_)
    dt = time.perf_counter() - t0
    cpu = cpu_seconds() - c0
    np.save(args.out, best)
    print(json.dumps({"time": dt, "cpu": cpu, "peak_mb": peak_rss_mib(), "base_mb": base}))


def cpu_seconds():
    """User + system CPU seconds of this process (all its threads) so far."""
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


def run(lib, args, out):
    return run_child(__file__, "--child", lib, "--out", out, *size_argv(args, SIZES))


def main():
    ap = argparse.ArgumentParser()
    add_sizes(ap, SIZES, SMALL)
    ap.add_argument("--skip", nargs="*", default=[], help="libraries to skip")
    ap.add_argument("--child", default=None)
    ap.add_argument("--out", default=None)
    args = parse_sizes(ap, SMALL)
    if args.child:
        args.lib = args.child
        return child(args)
    print(f"load (uptime): {os.getloadavg()}")
    print(f"N={args.n} P={args.p} V={args.v} alphas=10 folds={args.folds} float32 numpy, "
          f"threads={os.environ.get('OMP_NUM_THREADS', 'default')}")
    results, best = {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        for lib in ("toponeuro", "himalaya", "sklearn"):
            if lib in args.skip:
                continue
            out = os.path.join(tmp, f"{lib}.npy")
            if lib == "sklearn":
                full = args.sklearn_targets
                args.sklearn_targets = full // 2
                half = run(lib, args, out)
                args.sklearn_targets = full
                print(f"{'sklearn':10s} {half['time']:8.2f} s   on {full // 2} targets", flush=True)
            results[lib] = run(lib, args, out)
            best[lib] = np.load(out)
            r = results[lib]
            what = f" on {args.sklearn_targets} targets" if lib == "sklearn" else ""
            print(f"{lib:10s} {r['time']:8.2f} s wall {r['cpu']:8.2f} s CPU{what}   "
                  f"peak RSS {r['peak_mb']:7.0f} MB "
                  f"(data alone {r['base_mb']:.0f} MB)", flush=True)
    ours = results["toponeuro"]["time"]
    if "himalaya" in results:
        agree = np.mean(np.isclose(best["toponeuro"], best["himalaya"], rtol=1e-6))
        h, t = results["himalaya"], results["toponeuro"]
        print(f"vs himalaya RidgeCV: {h['time'] / ours:.2f}x wall, {h['cpu'] / t['cpu']:.2f}x CPU "
              f"(target >= 1.0x), peak RSS {t['peak_mb']:.0f} vs {h['peak_mb']:.0f} MB; "
              f"same alpha chosen for {100 * agree:.2f}% of targets")
    if "sklearn" in results:
        t1, v1 = results["sklearn"]["time"], args.sklearn_targets
        t0, v0 = half["time"], args.sklearn_targets // 2
        slope = max((t1 - t0) / (v1 - v0), 0.0)
        scaled = t1 + slope * (args.v - v1)
        print(f"vs sklearn RidgeCV(alpha_per_target), extrapolated from {v0} and {v1} targets "
              f"to {scaled:.1f} s at V={args.v}: {scaled / ours:.2f}x (target >= 5x)")
    print(f"load (uptime): {os.getloadavg()}")


if __name__ == "__main__":
    main()
