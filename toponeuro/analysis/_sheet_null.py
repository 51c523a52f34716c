"""Surrogates of a map on a model's sheet, for :func:`toponeuro.analysis.spatial_null`.

Each returns ``(n_draws, h*w)``: gather indices into the map (``_torus_indices``,
``_mirror_indices``) or surrogate values (``_spectral_values``, ``_phase_values``,
``_variogram_values``). What each null is, and its measured calibration, is in the
docstring of ``_null.py`` and in docs/metrics.rst.
"""

from __future__ import annotations

import numpy as np

from ..exceptions import InvalidDataError
from ._geometry import TopoMap


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
    ext = np.block([[x, x[:, ::-1]], [x[::-1], x[::-1, ::-1]]])
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
    ranks = np.argsort(np.argsort(field.reshape(n_draws, -1)[:, fin], axis=1), axis=1)
    out = np.full((n_draws, h * w), np.nan)
    out[:, fin] = np.sort(v.ravel()[fin])[ranks]
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
