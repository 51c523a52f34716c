"""Structural similarity (Wang et al. 2004) of sheet maps, batched over permutations.

The same number as ``skimage.metrics.structural_similarity(a, b, win_size=7,
data_range=R)`` (its defaults: uniform 7 x 7 window, sample covariance, K1 = 0.01,
K2 = 0.03, mean over the windows that lie wholly inside the map). Like scikit-image, the
window means come from ``scipy.ndimage.uniform_filter`` and the ``(win_size - 1) / 2`` cells
at each border are cropped, which leaves exactly the windows inside the map; here one filter
call covers a whole batch of (permuted) maps.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..._util.stack import user_stacklevel
from ...exceptions import InvalidDataError

__all__ = ["SSIM_REFERENCE", "ssim_batch", "ssim_fixed_kernel", "default_win_size"]

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


def _box_means(x: np.ndarray, k: int) -> np.ndarray:
    """Means over every k x k window lying inside the map: (B, h, w) -> (B, h-k+1, w-k+1).

    ``scipy.ndimage.uniform_filter`` over the two map axes (as scikit-image filters), then the
    border where windows would leave the map is cropped.
    """
    from scipy import ndimage

    pad = (k - 1) // 2
    out = ndimage.uniform_filter(x, size=(1, k, k))
    return out[:, pad : x.shape[1] - pad, pad : x.shape[2] - pad]


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
    c1 = (k1 * data_range) ** 2
    c2 = (k2 * data_range) ** 2
    s = _ssim_windows(_box_means(a, k), _box_means(a * a, k), b, a * b, k, c1, c2)
    if not has_nan:
        return s.mean(axis=(1, 2))
    npix = k * k
    ok = _box_means(bad.astype(np.float64), k) < 0.5 / npix
    n_ok = ok.sum(axis=(1, 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(ok, s, 0.0).sum(axis=(1, 2)) / n_ok
    if (n_ok == 0).any():
        warnings.warn(
            "SSIM is undefined (NaN) where no complete window without missing units exists.",
            RuntimeWarning,
            stacklevel=user_stacklevel(),
        )
        out = np.where(n_ok == 0, np.nan, out)
    return out


def _ssim_windows(ux, uxx, b, ab, k, c1, c2, uy=None, uyy=None):
    """SSIM of every window from the window means of ``a``, ``a**2``, ``b``, ``b**2``, ``a*b``.

    ``ux``, ``uxx`` may be one map's (broadcast over the batch); ``uy``, ``uyy`` are
    computed from ``b`` unless given.
    """
    npix = k * k
    if uy is None:
        uy = _box_means(b, k)
        uyy = _box_means(b * b, k)
    uxy = _box_means(ab, k)
    cov_norm = npix / (npix - 1.0)
    vx = cov_norm * (uxx - ux * ux)
    vy = cov_norm * (uyy - uy * uy)
    vxy = cov_norm * (uxy - ux * uy)
    return ((2 * ux * uy + c1) * (2 * vxy + c2)) / ((ux * ux + uy * uy + c1) * (vx + vy + c2))


def ssim_fixed_kernel(a: np.ndarray, *, win_size: int, data_range: float,
                      k1: float = 0.01, k2: float = 0.03):
    """``f(b (B, h, w)) -> (B,)``: SSIM of the map ``a`` with each map of a batch.

    The same numbers as ``ssim_batch(a repeated B times, b)``; the window means of ``a``
    and ``a**2`` are computed once instead of once per draw. Returns None when ``a`` has a
    missing unit; a batch with missing units goes through :func:`ssim_batch`.
    """
    a = np.asarray(a, dtype=np.float64)
    if not np.isfinite(a).all():
        return None
    k = int(win_size)
    h, w = a.shape
    ux = _box_means(a[None], k)
    uxx = _box_means(a[None] * a[None], k)
    c1 = (k1 * data_range) ** 2
    c2 = (k2 * data_range) ** 2
    step = max(1, _CACHE_CELLS // (h * w))

    def f(b: np.ndarray) -> np.ndarray:
        b = np.asarray(b, dtype=np.float64).reshape(-1, h, w)
        if not np.isfinite(b).all():
            return ssim_batch(np.broadcast_to(a, b.shape), b, win_size=k,
                              data_range=data_range, k1=k1, k2=k2)
        return np.concatenate([
            _ssim_windows(ux, uxx, bb, a[None] * bb, k, c1, c2).mean(axis=(1, 2))
            for bb in (b[i : i + step] for i in range(0, b.shape[0], step))
        ])

    return f


def ssim_shift_kernel(a: np.ndarray, b: np.ndarray, *, win_size: int, data_range: float,
                      k1: float = 0.01, k2: float = 0.03):
    """``f(idx (B, h*w)) -> (B,)``: SSIM of ``a`` with torus-shifted/flipped copies of ``b``.

    A torus shift or flip maps every square window onto a window of the torus, so the window
    means of ``b`` and ``b**2`` of each moved copy are those of ``b`` on its torus
    (``mode="wrap"``), gathered; those of ``a`` do not move. Only the cross term needs a
    filter per draw: one window filter instead of five. Returns None when a map has a
    missing unit (the general kernel handles those).
    """
    from scipy import ndimage

    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        return None
    k = int(win_size)
    h, w = a.shape
    pad = (k - 1) // 2
    crop = (slice(pad, h - pad), slice(pad, w - pad))
    ux = ndimage.uniform_filter(a, k)[crop]
    uxx = ndimage.uniform_filter(a * a, k)[crop]
    uy_t = ndimage.uniform_filter(b, k, mode="wrap").ravel()
    uyy_t = ndimage.uniform_filter(b * b, k, mode="wrap").ravel()
    flat_b = b.ravel()
    c1 = (k1 * data_range) ** 2
    c2 = (k2 * data_range) ** 2
    step = max(1, _CACHE_CELLS // (h * w))

    def f(idx: np.ndarray) -> np.ndarray:
        out = []
        for lo in range(0, idx.shape[0], step):
            ix = idx[lo : lo + step]
            bb = flat_b[ix].reshape(-1, h, w)
            uy = uy_t[ix].reshape(-1, h, w)[:, crop[0], crop[1]]
            uyy = uyy_t[ix].reshape(-1, h, w)[:, crop[0], crop[1]]
            s = _ssim_windows(ux, uxx, bb, a[None] * bb, k, c1, c2, uy=uy, uyy=uyy)
            out.append(s.mean(axis=(1, 2)))
        return np.concatenate(out)

    return f
