"""Surrogates of a map on a model's sheet, for :func:`toponeuro.analysis.spatial_null`.

Each returns ``(n_draws, h*w)``: gather indices into the map (``_torus_indices``,
``_mirror_indices``) or surrogate values (``_spectral_values``, ``_phase_values``,
``_iaaft_values``, ``_variogram_values``). What each null is, and its measured calibration,
is in the docstring of ``_null.py`` and in docs/metrics.rst.
"""

from __future__ import annotations

import numpy as np

from ...exceptions import InvalidDataError
from ._null_registry import each_but_first, register_null
from ._topomap import TopoMap

SPECTRAL_REFERENCE = (
    "Moran spectral randomisation (Wagner & Dray 2015, Methods Ecol Evol 6, 1169-1178; "
    "Vos de Wael et al. 2020, Commun Biol 3, 103) in the DCT-II basis of the sheet grid: "
    "random signs of the map's cosine coefficients (its mean kept)"
)
MIRROR_REFERENCE = (
    "shifts within the sheet mirrored into a 2h x 2w torus (even reflection, as the "
    "symmetric boundary of a discrete cosine transform), cropped to h x w; chosen by its "
    "false-positive rate on independent smooth non-periodic maps (bench/calibrate_nulls.py)"
)
VARIOGRAM_REFERENCE = (
    "variogram-matched surrogates (Burt et al. 2020, NeuroImage 220, 117038; BrainSMASH's "
    "definitions): the second map's values permuted, smoothed back to its variogram and "
    "given its own values in rank order"
)
PHASE_REFERENCE = (
    "amplitude-adjusted Fourier phase randomisation (AAFT; Theiler et al. 1992, Physica D 58, "
    "77-94) of the sheet mirrored into a 2h x 2w torus (even reflection, as the symmetric "
    "boundary of a discrete cosine transform), cropped to h x w: every amplitude kept, the "
    "phases uniform at random, then the map's own values in the rank order of that field"
)
IAAFT_REFERENCE = (
    "iterated amplitude-adjusted Fourier transform surrogates (IAAFT; Schreiber & Schmitz "
    "1996, Phys Rev Lett 77, 635-638) of the sheet mirrored into a 2h x 2w torus, cropped to "
    "h x w: the mirrored map's Fourier amplitudes and its values, alternately, until the "
    "amplitude misfit stops falling, then the map's own values in rank order"
)


def _torus_indices(shape, n_draws: int, rng) -> np.ndarray:
    """``(n_draws, h*w)`` gather indices: circular shift on the torus plus random flips."""
    h, w = shape
    rr = np.arange(h)
    cc = np.arange(w)
    dr = rng.integers(0, h, n_draws)[:, None]
    dc = rng.integers(0, w, n_draws)[:, None]
    fr = rng.random(n_draws)[:, None] < 0.5
    fc = rng.random(n_draws)[:, None] < 0.5
    rows = (rr[None, :] + dr) % h
    rows = np.where(fr, h - 1 - rows, rows)
    cols = (cc[None, :] + dc) % w
    cols = np.where(fc, w - 1 - cols, cols)
    return (rows[:, :, None] * w + cols[:, None, :]).reshape(n_draws, h * w)


def _mirror_indices(shape, n_draws: int, rng) -> np.ndarray:
    """``(n_draws, h*w)`` gather indices: a shift within the sheet mirrored to 2h x 2w."""
    h, w = shape
    rows = (np.arange(h)[None, :] + rng.integers(0, 2 * h, n_draws)[:, None]) % (2 * h)
    rows = np.where(rows < h, rows, 2 * h - 1 - rows)
    cols = (np.arange(w)[None, :] + rng.integers(0, 2 * w, n_draws)[:, None]) % (2 * w)
    cols = np.where(cols < w, cols, 2 * w - 1 - cols)
    return (rows[:, :, None] * w + cols[:, None, :]).reshape(n_draws, h * w)


def _spectral_values(tm: TopoMap, n_draws: int, rng) -> np.ndarray:
    """``(n_draws, h*w)`` surrogates: the map's DCT-II coefficients with random signs.

    Missing units are filled with the map's mean for the transform and stay missing.
    """
    from scipy.fft import dctn, idctn

    h, w = tm.grid_shape
    v = tm.values.reshape(h, w)
    bad = ~np.isfinite(v)
    coef = dctn(np.where(bad, np.nanmean(v), v), norm="ortho")
    signs = rng.integers(0, 2, size=(n_draws, h, w)) * 2.0 - 1.0
    signs[:, 0, 0] = 1.0  # the mean stays
    out = idctn(coef[None] * signs, norm="ortho", axes=(1, 2))
    out[:, bad] = np.nan
    return out.reshape(n_draws, h * w)


def _mirrored(x: np.ndarray) -> np.ndarray:
    """The h x w sheet beside its mirror images: a 2h x 2w torus with no seam of edges."""
    return np.block([[x, x[:, ::-1]], [x[::-1], x[::-1, ::-1]]])


def _rank_fill(field: np.ndarray, sorted_values: np.ndarray) -> np.ndarray:
    """``sorted_values`` placed in the rank order of each row of ``field``."""
    order = np.argsort(field, axis=1)
    out = np.empty(field.shape)
    np.put_along_axis(out, order, np.broadcast_to(sorted_values, field.shape), axis=1)
    return out


def _phase_values(tm: TopoMap, n_draws: int, rng) -> np.ndarray:
    """``(n_draws, h*w)`` surrogates: the sheet mirrored to 2h x 2w with random Fourier phases.

    The map, mirrored into a 2h x 2w torus (no seam joins opposite edges), keeps the
    amplitude of every Fourier component and takes random phases (Theiler et al. 1992); the
    result is stationary on that torus, so its h x w corner is a field of the map's spectrum
    with no seam, as a fresh map cropped from a larger field. The surrogate then takes the
    map's own values in the rank order of that field (amplitude adjustment, Theiler et al.'s
    AAFT), so a sparse map (a patch on a flat background) stays sparse. Missing units are
    filled with the map's mean for the transform and stay missing.
    """
    h, w = tm.grid_shape
    v = tm.values.reshape(h, w)
    bad = ~np.isfinite(v)
    x = np.where(bad, np.nanmean(v), v)
    ext = _mirrored(x)
    mean = ext.mean()
    amp = np.fft.rfft2(ext - mean)
    # uniform random phases (a circular Gaussian over its modulus), Hermitian as a real
    # map's transform must be: the columns 0 and w of the half spectrum pair row k with row
    # 2h - k, and their rows 0 and h are real (+1 or -1)
    z = rng.standard_normal((n_draws, 2 * h, w + 1, 2)).view(np.complex128)[..., 0]
    z /= np.abs(z)
    for c in (0, w):
        z[:, h + 1 :, c] = np.conj(z[:, h - 1 : 0 : -1, c])
        z[:, [0, h], c] = np.where(z[:, [0, h], c].real < 0, -1.0, 1.0)
    field = np.fft.irfft2(amp[None] * z, s=(2 * h, 2 * w), axes=(1, 2))[:, :h, :w]
    # amplitude adjustment: the map's own values, in the rank order of the random field
    fin = ~bad.ravel()
    out = np.full((n_draws, h * w), np.nan)
    out[:, fin] = _rank_fill(field.reshape(n_draws, -1)[:, fin], np.sort(v.ravel()[fin]))
    return out


#: IAAFT stops when one more iteration lowers the spectral misfit by less than this fraction
IAAFT_RTOL = 0.01
#: ... or after this many iterations
IAAFT_MAX_ITER = 100


def _iaaft_corner(x: np.ndarray, n_draws: int, rng, rtol: float,
                  max_iter: int) -> tuple[np.ndarray, int]:
    """The h x w corners ``(n_draws, h*w)`` of IAAFT draws on the mirrored sheet, and the
    iterations used (:func:`iaaft_surrogates`; the corner still holds mirrored values)."""
    h, w = x.shape
    ext = _mirrored(x)
    amp = np.abs(np.fft.rfft2(ext))
    scale = np.sqrt(np.mean(amp**2))
    target = np.sort(ext.ravel())
    s = _rank_fill(rng.standard_normal((n_draws, 4 * h * w)), target)
    misfit = np.inf
    n_iter = 0
    while n_iter < max_iter:
        spec = np.fft.rfft2(s.reshape(n_draws, 2 * h, 2 * w))
        mod = np.abs(spec)
        new = float(np.sqrt(np.mean((mod - amp) ** 2))) / scale if scale > 0 else 0.0
        if new >= (1.0 - rtol) * misfit:  # (misfit 0, a constant map: stops)
            break
        misfit = new
        # the map's amplitudes with each draw's phases (phase 0 where a draw has no power)
        phase = np.divide(spec, mod, out=np.ones_like(spec), where=mod > 0)
        field = np.fft.irfft2(amp * phase, s=(2 * h, 2 * w)).reshape(n_draws, -1)
        s = _rank_fill(field, target)
        n_iter += 1
    return s.reshape(n_draws, 2 * h, 2 * w)[:, :h, :w].reshape(n_draws, -1), n_iter


def iaaft_surrogates(x: np.ndarray, n_draws: int, rng, *, rtol: float = IAAFT_RTOL,
                     max_iter: int = IAAFT_MAX_ITER) -> tuple[np.ndarray, int]:
    """``(n_draws, h, w)`` IAAFT surrogates of an ``h x w`` map, and the iterations used.

    Iterated amplitude-adjusted Fourier transform surrogates (Schreiber & Schmitz 1996, Phys
    Rev Lett 77, 635) on the sheet mirrored into a 2h x 2w torus: starting from white noise,
    each iteration gives every draw the mirrored map's Fourier amplitudes (keeping the draw's
    phases), then the mirrored map's values in the resulting rank order. The iterations stop
    when one more lowers the mean relative amplitude misfit by less than ``rtol`` of itself
    (or after ``max_iter``); the last step is the rank step, so every draw holds exactly the
    mirrored map's values. The h x w corner of each draw is then given the map's own values
    in its rank order. The amplitude adjustment keeps a sparse map sparse; the iterations
    take away part of the roughness a single adjustment (AAFT) adds, not the roughness the
    mirrored sheet's edges put in its spectrum (measured in docs/metrics.rst).
    """
    corner, n_iter = _iaaft_corner(x, n_draws, rng, rtol, max_iter)
    return _rank_fill(corner, np.sort(x.ravel())).reshape(n_draws, *x.shape), n_iter


def _iaaft_values(tm: TopoMap, n_draws: int, rng) -> np.ndarray:
    """``(n_draws, h*w)`` IAAFT surrogates (:func:`iaaft_surrogates`).

    Missing units are filled with the map's mean for the transform and stay missing; the
    surrogate's units with values take the map's own values in rank order.
    """
    h, w = tm.grid_shape
    v = tm.values.reshape(h, w)
    bad = ~np.isfinite(v)
    corner, _ = _iaaft_corner(np.where(bad, np.nanmean(v), v), n_draws, rng, IAAFT_RTOL,
                              IAAFT_MAX_ITER)
    fin = ~bad.ravel()
    out = np.full((n_draws, h * w), np.nan)
    out[:, fin] = _rank_fill(corner[:, fin], np.sort(v.ravel()[fin]))
    return out


def _variogram_values(tm: TopoMap, n_draws: int, rng) -> np.ndarray:
    """``(n_draws, h*w)`` variogram-matched surrogates (:mod:`._variogram`).

    Missing units are filled with the map's mean for the smoothing and stay missing.
    """
    from ._variogram import MAX_UNITS, sheet_variogram

    if tm.n > MAX_UNITS:
        raise InvalidDataError(
            f"null='variogram' keeps dense {tm.n} x {tm.n} smoothing weights, too large above "
            f"{MAX_UNITS} units; use null='shift' (the mirrored shift) on this sheet."
        )
    v = tm.values
    bad = ~np.isfinite(v)
    out = sheet_variogram(tm.grid_shape).surrogates(np.where(bad, np.nanmean(v), v),
                                                   n_draws, rng)
    out[:, bad] = np.nan
    return out


# --------------------------------------------------------------------------- registry
#: measured false-positive rates of the variogram null on sheets (docs: calibration)
_VARIOGRAM_NOTE = (
    "null='variogram' (BrainSMASH-style surrogates) is liberal on smooth sheet maps: its fit "
    "adds short-range noise the map does not have, and independent maps came out different "
    "from chance in 7.8-16.6 % of pairs for SSIM and 4.9-9.0 % for Pearson at alpha 0.05 "
    "(docs: 'Calibration of the similarity nulls'). Use null='shift' (the mirrored shift)."
)
_OVERLAP = "the maps share territory beyond unrelated maps of this smoothness"
register_null("torus", each_but_first(lambda first, tm, n, rng: _torus_indices(
    first.grid_shape, n, rng)), geometries=("sheet",), question=_OVERLAP)
register_null("mirror", each_but_first(lambda first, tm, n, rng: _mirror_indices(
    first.grid_shape, n, rng)), reference=MIRROR_REFERENCE, geometries=("sheet",),
    question=_OVERLAP)
for _name, _values, _ref, _warn in (
        ("spectral", _spectral_values, SPECTRAL_REFERENCE, None),
        ("phase", _phase_values, PHASE_REFERENCE, None),
        ("iaaft", _iaaft_values, IAAFT_REFERENCE, None),
        ("variogram", _variogram_values, VARIOGRAM_REFERENCE, _VARIOGRAM_NOTE)):
    register_null(_name, each_but_first(
        lambda first, tm, n, rng, f=_values: ("values", f(tm, n, rng))),
        reference=_ref, geometries=("sheet",), warning=_warn, question=_OVERLAP)
