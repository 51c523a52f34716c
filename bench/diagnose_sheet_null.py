"""Why a two-map sheet null is too narrow: its draws against truly independent maps.

For each pair of independent smooth maps ``a``, ``b`` (``bench/calibrate_nulls.py``'s
``crop`` maps: stationary, not periodic) the statistic of ``a`` against ``--draws`` *fresh*
independent maps is the exact null of that ``a``; each candidate null instead moves or
replaces ``b``. Per pair and candidate this prints, averaged over pairs: the shift of the
null's mean from the exact null's (in units of the exact null's sd), the ratio of the two
standard deviations, and the false-positive rate (two-sided p <= 0.05) of the observed
statistic. ``--maps wrap`` (periodic maps) gives the reference where the torus shift is
exact: its sd ratio is what an exact null shows (a null conditional on ``b`` is slightly
narrower than the spread over all maps).

Candidates (``null:scale``): the null's draws of ``b`` from toponeuro.analysis.topography._null
(``mirror`` shifts within the mirrored sheet, ``phase`` the mirrored sheet's Fourier phases at
random with the map's own values in their rank order, ``spectral`` DCT sign flips, ``torus``), SSIM on maps rescaled to [0, 1] by their own
min and max (``own``, as the observed map) or by ``b``'s (``keep``), and ``pearson``.

``gp`` (not among the defaults: slow) fits a stationary Gaussian process to ``b`` by maximum
likelihood (scikit-learn's ``GaussianProcessRegressor``: a constant times a Matérn kernel plus
white noise, ``nu`` in {0.5, 1.5, 2.5, inf} chosen by the marginal likelihood) and draws fresh
fields from it on the sheet (a parametric null, as the spatial-autoregressive surrogates of
Burt et al. 2018); ``gprbf`` keeps only ``nu = inf`` (the squared-exponential kernel, the
family of the ``crop`` maps). ``--maps box`` (noise smoothed by a box of side 2 sigma + 1) and
``--maps matern`` (noise filtered to a Matérn nu = 1.5 spectrum of length sigma), both cropped
as ``crop``, test a null on maps outside that family.

``hann``, ``mt1``, ``mt2``, ``mt3`` (not among the defaults) draw stationary fields on a
4h x 4w torus from a spectrum estimated without the mirror's kinks -- the periodogram of the
centred map tapered (a Hann window, or the mean over the first 1, 2, 3 sine tapers per axis:
1, 4, 9 tapers; Riedel & Sidorenko 1995) and zero-padded to 4h x 4w, which is never negative
-- and crop them to h x w.

``--roughness`` prints instead how much rougher each null's draws are than the map they
come from (mean squared difference of neighbours over the variance; 1 = as smooth).

Usage::

    python bench/diagnose_sheet_null.py --shapes 16x32 --sigmas 2 4 --pairs 400
    python bench/diagnose_sheet_null.py --roughness --pairs 200 --draws 50
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from scipy.ndimage import gaussian_filter, uniform_filter

from toponeuro.analysis import as_topomap, null_p_value
from toponeuro.analysis.topography._sheet_null import (
    _mirror_indices,
    _phase_values,
    _spectral_values,
    _torus_indices,
)
from toponeuro.analysis.topography._ssim import ssim_batch

CANDIDATES = ("mirror:keep", "mirror:own", "mirror:pearson", "phase:own", "phase:pearson",
              "spectral:own", "spectral:pearson", "torus:own", "torus:pearson")


def maps_of(rng, n, shape, sigma, kind):
    """``n`` independent smooth maps: ``crop`` (cropped from a larger field), ``wrap``, or
    ``box`` / ``matern`` (cropped, outside the Gaussian-kernel family; see the module docs)."""
    if kind == "wrap":
        return gaussian_filter(rng.standard_normal((n, *shape)), (0, sigma, sigma), mode="wrap")
    pad = int(np.ceil(4 * sigma)) + 1
    big = rng.standard_normal((n, shape[0] + 2 * pad, shape[1] + 2 * pad))
    if kind == "box":
        side = int(round(2 * sigma)) + 1
        out = uniform_filter(big, (1, side, side), mode="reflect")
    elif kind == "matern":  # amplitude (1 + (2 pi sigma f)^2)^(-5/4): 2-D Matérn, nu = 1.5
        fy = np.fft.fftfreq(big.shape[1])[:, None]
        fx = np.fft.fftfreq(big.shape[2])[None]
        gain = (1 + (2 * np.pi * sigma) ** 2 * (fy**2 + fx**2)) ** -1.25
        out = np.real(np.fft.ifft2(np.fft.fft2(big) * gain))
    else:
        out = gaussian_filter(big, (0, sigma, sigma), mode="reflect")
    return out[:, pad : pad + shape[0], pad : pad + shape[1]]


def gp_draws(b, n, rng, nus=(0.5, 1.5, 2.5, np.inf)):
    """``n`` fresh fields from a Gaussian process fitted to ``b`` (the ``gp`` candidate)."""
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import RBF, Matern, WhiteKernel
    from sklearn.gaussian_process.kernels import ConstantKernel as C

    h, w = b.shape
    yy, xx = np.mgrid[:h, :w]
    x = np.c_[yy.ravel(), xx.ravel()].astype(float)
    best = None
    for nu in nus:
        base = RBF(2.0, (0.1, 1e3)) if np.isinf(nu) else Matern(2.0, (0.1, 1e3), nu=nu)
        kernel = C(1.0, (1e-3, 1e3)) * base + WhiteKernel(1e-3, (1e-8, 1e1))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            gp = GaussianProcessRegressor(kernel, normalize_y=True, random_state=0)
            gp.fit(x, b.ravel())
        if best is None or gp.log_marginal_likelihood_value_ > best.log_marginal_likelihood_value_:
            best = gp
    val, vec = np.linalg.eigh(best.kernel_(x))
    root = vec * np.sqrt(np.clip(val, 0, None))
    return (root @ rng.standard_normal((h * w, n))).T.reshape(n, h, w)


def unit(x, ref=None):
    """Min-max rescaled to [0, 1] per map (by ``ref``'s min and max when given)."""
    src = x if ref is None else ref[None]
    lo = src.min(axis=(1, 2), keepdims=True)
    return (x - lo) / (src.max(axis=(1, 2), keepdims=True) - lo)


def statistic(a, bs, scale, ref=None):
    """SSIM (``own``/``keep`` scale) or Pearson of ``a`` against each map of ``bs``."""
    if scale == "pearson":
        x = (a - a.mean()).ravel()
        y = bs.reshape(len(bs), -1)
        y = y - y.mean(1, keepdims=True)
        return y @ x / np.sqrt((y * y).sum(1) * (x @ x))
    return ssim_batch(np.broadcast_to(unit(a[None]), bs.shape),
                      unit(bs, ref if scale == "keep" else None), data_range=1.0)


def taper_draws(b, n, rng, kind):
    """``n`` fields from ``b``'s tapered spectrum (the ``hann`` / ``mtK`` candidates)."""
    h, w = b.shape
    big = (4 * h, 4 * w)
    x = b - b.mean()

    def sine(m, k):
        i = np.arange(1, m + 1)
        return [np.sqrt(2 / (m + 1)) * np.sin(np.pi * j * i / (m + 1)) for j in range(1, k + 1)]

    if kind == "hann":
        tapers = [np.outer(np.hanning(h + 2)[1:-1], np.hanning(w + 2)[1:-1])]
    else:
        k = int(kind[2:])
        tapers = [np.outer(ty, tx) for ty in sine(h, k) for tx in sine(w, k)]
    spec = np.mean([np.abs(np.fft.fft2(t * x, big)) ** 2 / (t * t).sum() for t in tapers], 0)
    field = np.fft.ifft2(np.fft.fft2(rng.standard_normal((n, *big))) * np.sqrt(spec))
    return np.real(field)[:, :h, :w]


def draws_of(null, b, n, rng):
    h, w = b.shape
    if null in ("hann", "mt1", "mt2", "mt3"):
        return taper_draws(b, n, rng, null)
    if null in ("gp", "gprbf"):
        return gp_draws(b, n, rng, (np.inf,) if null == "gprbf" else (0.5, 1.5, 2.5, np.inf))
    if null in ("mirror", "torus"):
        idx = (_mirror_indices if null == "mirror" else _torus_indices)((h, w), n, rng)
        return b.ravel()[idx].reshape(n, h, w)
    fn = _phase_values if null == "phase" else _spectral_values
    return fn(as_topomap(b), n, rng).reshape(n, h, w)


def roughness(x):
    """Mean squared difference of neighbours over the variance, per map (both axes)."""
    x = x - x.mean(axis=(-2, -1), keepdims=True)
    d2 = (np.diff(x, axis=-1) ** 2).mean(axis=(-2, -1)) + (np.diff(x, axis=-2) ** 2).mean(
        axis=(-2, -1))
    return d2 / (x * x).mean(axis=(-2, -1))


def roughness_cell(shape, sigma, kind, n_maps, n_draws, nulls, seed=0):
    """Per null: mean over maps of (mean roughness of its draws) / (the map's roughness)."""
    rng = np.random.default_rng([seed, shape[0], shape[1], int(10 * sigma), 1])
    out = {null: [] for null in nulls}
    for b in maps_of(rng, n_maps, shape, sigma, kind):
        for null in nulls:
            out[null].append(roughness(draws_of(null, b, n_draws, rng)).mean() / roughness(b))
    return {null: float(np.mean(v)) for null, v in out.items()}


def cell(shape, sigma, kind, n_pairs, n_draws, candidates, seed=0):
    rng = np.random.default_rng([seed, shape[0], shape[1], int(10 * sigma), kind == "wrap"])
    acc = {c: [] for c in candidates}
    for _ in range(n_pairs):
        a, b = maps_of(rng, 2, shape, sigma, kind)
        fresh = maps_of(rng, n_draws, shape, sigma, kind)
        exact = {}
        for c in candidates:
            null, scale = c.split(":")
            ref_scale = "pearson" if scale == "pearson" else "own"
            if ref_scale not in exact:
                exact[ref_scale] = statistic(a, fresh, ref_scale)
            ex = exact[ref_scale]
            obs = statistic(a, b[None], ref_scale)[0]
            nul = statistic(a, draws_of(null, b, n_draws, rng), scale, ref=b)
            acc[c].append(((nul.mean() - ex.mean()) / ex.std(), nul.std() / ex.std(),
                           null_p_value(obs, nul, "two-sided") <= 0.05))
    return {c: np.mean(v, axis=0) for c, v in acc.items()}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shapes", nargs="+", default=["16x16", "16x32"])
    ap.add_argument("--sigmas", nargs="+", type=float, default=[1, 2, 3, 4])
    ap.add_argument("--maps", default="crop", choices=["crop", "wrap", "box", "matern"])
    ap.add_argument("--pairs", type=int, default=500)
    ap.add_argument("--draws", type=int, default=199)
    ap.add_argument("--candidates", nargs="+", default=list(CANDIDATES))
    ap.add_argument("--roughness", action="store_true",
                    help="only how much rougher each null's draws are than the map")
    args = ap.parse_args(argv)
    for shape in args.shapes:
        h, w = (int(x) for x in shape.split("x"))
        for sigma in args.sigmas:
            if args.roughness:
                nulls = sorted({c.split(":")[0] for c in args.candidates})
                r = roughness_cell((h, w), sigma, args.maps, args.pairs, args.draws, nulls)
                print(f"{args.maps} {shape} sigma {sigma:g} roughness of the draws / the map's "
                      f"({args.pairs} maps): "
                      + ", ".join(f"{k} {v:.3f}" for k, v in r.items()), flush=True)
                continue
            t0 = time.perf_counter()
            res = cell((h, w), sigma, args.maps, args.pairs, args.draws, args.candidates)
            print(f"{args.maps} {shape} sigma {sigma:g} ({args.pairs} pairs, "
                  f"{time.perf_counter() - t0:.0f} s)", flush=True)
            for c, (dmean, ratio, fpr) in res.items():
                print(f"  {c:18} mean shift {dmean:+.3f} sd   sd ratio {ratio:.3f}   "
                      f"false positives {100 * fpr:.1f} %", flush=True)


if __name__ == "__main__":
    main()
