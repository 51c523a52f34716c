"""Structural similarity (Wang et al. 2004) of sheet maps, batched over permutations.

The same number as ``skimage.metrics.structural_similarity(a, b, win_size=7,
data_range=R)`` (its defaults: uniform 7 x 7 window, sample covariance, K1 = 0.01,
K2 = 0.03, mean over the windows that lie wholly inside the map). scikit-image filters the
whole image and then crops ``(win_size - 1) / 2`` cells at each border, which leaves exactly
the windows inside the map; so the window means are computed here from cumulative sums over
those windows only, for a whole batch of maps at once.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..exceptions import InvalidDataError

__all__ = ["SSIM_REFERENCE", "ssim_batch", "default_win_size"]

#: cells per batch of maps (a few MB of float64 temporaries)
_CACHE_CELLS = 65_536

SSIM_REFERENCE = (
    "Wang, Bovik, Sheikh & Simoncelli (2004) Image quality assessment: from error visibility "
    "to structural similarity. IEEE Trans Image Process 13(4), 600-612; as "
    "skimage.metrics.structural_similarity (uniform window, sample covariance)"
)


def default_win_size(shape) -> int:
    """scikit-image's 7, or the largest odd size that fits a smaller sheet (at least 3)."""
    side = int(min(shape))
    win = min(7, side if side % 2 else side - 1)
    if win < 3:
        raise InvalidDataError(
            f"SSIM needs a sheet at least 3 x 3 for its smallest window; got {tuple(shape)}. "
            "Use method='pearson' for such a small layer."
        )
    return win


def _box_sums(x: np.ndarray, k: int) -> np.ndarray:
    """Sums over every k x k window lying inside the map: (B, h, w) -> (B, h-k+1, w-k+1)."""
    b, h, w = x.shape
    c = np.zeros((b, h + 1, w + 1), dtype=np.float64)
    np.cumsum(x, axis=1, out=c[:, 1:, 1:])
    np.cumsum(c[:, 1:, 1:], axis=2, out=c[:, 1:, 1:])
    return c[:, k:, k:] - c[:, :-k, k:] - c[:, k:, :-k] + c[:, :-k, :-k]


def ssim_batch(
    a: np.ndarray,
    b: np.ndarray,
    *,
    win_size: int = 7,
    data_range: float,
    k1: float = 0.01,
    k2: float = 0.03,
) -> np.ndarray:
    """Mean SSIM of each pair of maps ``a[i]``, ``b[i]`` (both ``(B, h, w)``) -> ``(B,)``.

    Windows that hold a NaN in either map are left out of the mean; a pair with no complete
    window gets NaN (with a warning).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> a = rng.random((1, 16, 16))
    >>> float(ssim_batch(a, a, data_range=1.0)[0])
    1.0
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.ndim == 2:
        a, b = a[None], b[None]
    k = int(win_size)
    if k < 3 or k % 2 == 0 or k > min(a.shape[1:]):
        raise InvalidDataError(
            f"win_size must be odd, at least 3 and at most the sheet's smaller side "
            f"{min(a.shape[1:])}; got {win_size}."
        )
    if not data_range > 0:
        raise InvalidDataError(
            f"SSIM needs a positive data_range; got {data_range} (both maps are constant)."
        )
    step = max(1, _CACHE_CELLS // (a.shape[1] * a.shape[2]))
    if a.shape[0] > step:  # cache-sized batches: the box sums are memory-bound
        return np.concatenate(
            [
                ssim_batch(a[i : i + step], b[i : i + step], win_size=k, data_range=data_range,
                           k1=k1, k2=k2)
                for i in range(0, a.shape[0], step)
            ]
        )
    bad = ~(np.isfinite(a) & np.isfinite(b))
    has_nan = bool(bad.any())
    if has_nan:
        a = np.where(bad, 0.0, a)
        b = np.where(bad, 0.0, b)
    npix = k * k
    ux = _box_sums(a, k) / npix
    uy = _box_sums(b, k) / npix
    uxx = _box_sums(a * a, k) / npix
    uyy = _box_sums(b * b, k) / npix
    uxy = _box_sums(a * b, k) / npix
    cov_norm = npix / (npix - 1.0)
    vx = cov_norm * (uxx - ux * ux)
    vy = cov_norm * (uyy - uy * uy)
    vxy = cov_norm * (uxy - ux * uy)
    c1 = (k1 * data_range) ** 2
    c2 = (k2 * data_range) ** 2
    s = ((2 * ux * uy + c1) * (2 * vxy + c2)) / ((ux * ux + uy * uy + c1) * (vx + vy + c2))
    if not has_nan:
        return s.mean(axis=(1, 2))
    ok = _box_sums(bad.astype(np.float64), k) < 0.5
    n_ok = ok.sum(axis=(1, 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(ok, s, 0.0).sum(axis=(1, 2)) / n_ok
    if (n_ok == 0).any():
        warnings.warn(
            "SSIM is undefined (NaN) where no complete window without missing units exists.",
            RuntimeWarning,
            stacklevel=2,
        )
        out = np.where(n_ok == 0, np.nan, out)
    return out
