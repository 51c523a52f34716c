"""IAAFT surrogates of a sheet map: toponeuro's batched ``null="iaaft"`` against a per-draw loop.

No maintained Python library makes 2-D IAAFT surrogates (R's SpatialVx ``surrogater2d`` and
Julia's TimeseriesSurrogates do; nothing on PyPI for images), so the peer here is the
textbook algorithm of Schreiber & Schmitz (1996) written one surrogate at a time, as the
published implementations are: the same mirrored sheet, iterated until the rank order stops
changing (at most ``--max-iter``). Beside both, the cost of the same test with the mirrored
shift (the default sheet null) and the AAFT null (``null="phase"``).

Per sheet: wall time of ``map_similarity(a, b, "ssim", null=...)`` with ``--draws`` draws
(best of ``--repeats``), peak Python memory (tracemalloc), the iterations IAAFT used, and the
peer's time for ``--peer-draws`` surrogates scaled to ``--draws``.

Usage::

    python bench/bench_iaaft.py [--draws 999] [--repeats 3] [--small]
"""

from __future__ import annotations

import argparse
import time
import tracemalloc

import numpy as np
from scipy.ndimage import gaussian_filter

from toponeuro.analysis import map_similarity
from toponeuro.analysis.topography._sheet_null import _mirrored, iaaft_surrogates

SHEETS = ((16, 16), (16, 32), (32, 32), (64, 64))


def _timed(fn, repeats):
    best = np.inf
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return best, peak, out


def peer_iaaft(x, rng, max_iter=1000):
    """One IAAFT surrogate of ``x`` on its mirrored sheet (iterated until the ranks settle)
    and the iterations it took."""
    h, w = x.shape
    ext = _mirrored(x)
    amp = np.abs(np.fft.rfft2(ext))
    target = np.sort(ext.ravel())
    s = rng.permutation(ext.ravel()).reshape(ext.shape)
    prev, n_iter = None, 0
    while n_iter < max_iter:
        n_iter += 1
        spec = np.fft.rfft2(s)
        field = np.fft.irfft2(amp * np.exp(1j * np.angle(spec)), s=ext.shape)
        order = np.argsort(field.ravel())
        s = np.empty(ext.size)
        s[order] = target
        s = s.reshape(ext.shape)
        if prev is not None and np.array_equal(order, prev):
            break
        prev = order
    corner = s[:h, :w].ravel()
    out = np.empty(corner.size)
    out[np.argsort(corner)] = np.sort(x.ravel())
    return out.reshape(h, w), n_iter


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--draws", type=int, default=999)
    ap.add_argument("--peer-draws", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--max-iter", type=int, default=1000)
    ap.add_argument("--small", action="store_true", help="16x16 and 16x32, 199 draws")
    args = ap.parse_args(argv)
    sheets = SHEETS[:2] if args.small else SHEETS
    if args.small:
        args.draws, args.peer_draws, args.repeats = 199, 5, 1
    rng = np.random.default_rng(0)
    print(f"SSIM with a sheet null, {args.draws} draws; peer: per-draw IAAFT timed on "
          f"{args.peer_draws} surrogates, scaled to {args.draws}")
    print(f"{'sheet':>7} {'null':>7} {'seconds':>9} {'peak MiB':>9} {'iterations':>11}")
    for shape in sheets:
        a = gaussian_filter(rng.standard_normal(shape), 2)
        b = gaussian_filter(rng.standard_normal(shape), 2)
        tag = f"{shape[0]}x{shape[1]}"
        for null in ("shift", "phase", "iaaft"):
            t, peak, _ = _timed(lambda null=null, a=a, b=b: map_similarity(
                a, b, "ssim", null=null, n_permutations=args.draws, random_state=0),
                args.repeats)
            print(f"{tag:>7} {null:>7} {t:9.3f} {peak:9.1f}", flush=True)
        t, peak, (_, iters) = _timed(
            lambda b=b: iaaft_surrogates(b, args.draws, np.random.default_rng(0)), args.repeats)
        print(f"{tag:>7} {'ours':>7} {t:9.3f} {peak:9.1f} {iters:>11}  (surrogates only)",
              flush=True)
        t0 = time.perf_counter()
        peer_rng = np.random.default_rng(1)
        peer_iters = [peer_iaaft(b, peer_rng, args.max_iter)[1] for _ in range(args.peer_draws)]
        t_peer = (time.perf_counter() - t0) * args.draws / args.peer_draws
        print(f"{tag:>7} {'peer':>7} {t_peer:9.3f} {'':>9} {np.mean(peer_iters):11.0f}  "
              f"(surrogates only; ours {t_peer / t:.0f}x faster)", flush=True)


if __name__ == "__main__":
    main()
