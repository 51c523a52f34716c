"""The one implementation of R², Pearson's r and rank (Spearman) correlation.

Every analysis that scores predictions or correlates two sets of values calls these kernels
(encoding scores, split-half reliability, RDM comparison, map similarity with its
nulls, where units without a value are left out: ``omit_nan=True``). The module sits
beside ``_dims.py`` rather than in ``analysis/`` because ``brain`` (an earlier stage, which
must not import ``analysis``) needs Pearson's r for split-half reliability. They work along
the sample axis ``-2`` of ``(..., n_samples, n_targets)`` arrays (one score per target,
broadcasting over leading axes) and on plain vectors (one score). They use only operators
numpy arrays and torch tensors share, so the encoding kernels call them on either backend.

Undefined values (a target without variance) are NaN, never 0; the public function that
calls a kernel decides whether to warn.
"""

from __future__ import annotations

import numpy as np

__all__ = ["pearson_r", "r2_score", "rankdata", "spearman_r"]


def _columns(x):
    return x[:, None] if x.ndim == 1 else x


def _centred(x):
    return x - x.mean(-2)[..., None, :]


def _errstate():
    return np.errstate(invalid="ignore", divide="ignore")


def _scalar_if_vectors(out, y, p):
    if y.ndim == 1 and p.ndim == 1:
        return float(out[0])
    return out


def pearson_r(y, p, *, omit_nan: bool = False):
    """Pearson's r between ``y`` and ``p`` along the sample axis, per target.

    Parameters
    ----------
    y, p : array or tensor
        ``(n_samples,)`` vectors, or ``(..., n_samples, n_targets)`` (broadcast).
    omit_nan : bool
        Leave out, per target, the samples where either value is NaN (numpy arrays only;
        maps with units that have no value). Then r is NaN with fewer than 3 samples left,
        a variance below ``1e-24`` of the larger sum of squares counts as none, and r is
        clipped to [-1, 1].

    Returns
    -------
    float or array
        A float for two vectors, else one r per target; NaN where either has no variance.

    Examples
    --------
    >>> import numpy as np
    >>> pearson_r(np.array([1.0, 2.0, 3.0]), np.array([2.0, 4.0, 7.0]))  # doctest: +ELLIPSIS
    0.99339...
    >>> pearson_r(np.array([[1.0, 1.0], [2.0, 1.0]]), np.array([[0.0, 3.0], [5.0, 4.0]]))
    array([ 1., nan])
    >>> pearson_r(np.array([1.0, 2.0, np.nan, 3.0]), np.array([2.0, 4.0, 0.0, 7.0]), omit_nan=True)
    ... # doctest: +ELLIPSIS
    0.99339...
    """
    if omit_nan:
        return _scalar_if_vectors(_pearson_omit_nan(_columns(y), _columns(p)), y, p)
    yc, pc = _centred(_columns(y)), _centred(_columns(p))
    with _errstate():
        out = (yc * pc).sum(-2) / ((yc**2).sum(-2) * (pc**2).sum(-2)) ** 0.5
    return _scalar_if_vectors(out, y, p)


def _pearson_omit_nan(y: np.ndarray, p: np.ndarray) -> np.ndarray:
    y, p = np.broadcast_arrays(np.asarray(y, dtype=float), np.asarray(p, dtype=float))
    ok = np.isfinite(y) & np.isfinite(p)
    n = ok.sum(-2)
    with _errstate():
        if ok.all():  # the same numbers without masking
            yc = y - y.sum(-2)[..., None, :] / n[..., None, :]
            pc = p - p.sum(-2)[..., None, :] / n[..., None, :]
        else:
            yc = np.where(ok, y - np.where(ok, y, 0.0).sum(-2)[..., None, :] / n[..., None, :],
                          0.0)
            pc = np.where(ok, p - np.where(ok, p, 0.0).sum(-2)[..., None, :] / n[..., None, :],
                          0.0)
        syy, spp = (yc * yc).sum(-2), (pc * pc).sum(-2)
        tiny = 1e-24 * np.maximum(1.0, np.maximum(syy, spp))
        r = (yc * pc).sum(-2) / np.sqrt(syy * spp)
    r = np.where((syy <= tiny) | (spp <= tiny) | (n < 3), np.nan, r)
    return np.clip(r, -1.0, 1.0)


def r2_score(y, p):
    """Coefficient of determination ``1 - SS_res / SS_tot`` of predictions ``p`` of ``y``.

    As :func:`sklearn.metrics.r2_score` with ``multioutput="raw_values"``, except that a
    target without variance gives NaN (scikit-learn gives 0 or 1).

    Parameters
    ----------
    y : array or tensor
        Observed, ``(n_samples,)`` or ``(n_samples, n_targets)``.
    p : array or tensor
        Predicted, ``y``'s shape or ``(..., n_samples, n_targets)`` (broadcast).

    Examples
    --------
    >>> import numpy as np
    >>> r2_score(np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.0, 4.0]))
    0.5
    """
    sst = (_centred(_columns(y)) ** 2).sum(-2)
    with _errstate():
        sst = sst / (sst != 0)  # 0 -> NaN (0 / False), on numpy and torch alike
        out = 1.0 - ((_columns(y) - _columns(p)) ** 2).sum(-2) / sst
    return _scalar_if_vectors(out, y, p)


def rankdata(v, axis: int = -1) -> np.ndarray:
    """Average ranks (1-based; ties share their mean rank) along ``axis``, as
    :func:`scipy.stats.rankdata` with ``nan_policy="omit"``: NaNs keep NaN and the other
    values are ranked among themselves.

    Examples
    --------
    >>> rankdata([10.0, 30.0, 20.0, 20.0]).tolist()
    [1.0, 4.0, 2.5, 2.5]
    >>> rankdata([[3.0, np.nan, 1.0], [2.0, 2.0, 5.0]]).tolist()
    [[2.0, nan, 1.0], [1.5, 1.5, 3.0]]
    """
    v = np.moveaxis(np.asarray(v, dtype=float), axis, -1)
    shape, n = v.shape, v.shape[-1]
    x = v.reshape(-1, n)
    order = np.argsort(x, axis=1, kind="stable")  # NaNs last, so the rest rank 1..k
    sv = np.take_along_axis(x, order, 1)
    new = np.ones(x.shape, dtype=bool)
    np.not_equal(sv[:, 1:], sv[:, :-1], out=new[:, 1:])  # NaN != NaN: each its own group
    new = new.ravel()
    starts = np.flatnonzero(new)
    ends = np.append(starts[1:], new.size) - 1  # last index of each tie group
    mean_rank = (starts % n + ends % n + 2) / 2.0
    ranks = np.empty(x.shape)
    np.put_along_axis(ranks, order, mean_rank[np.cumsum(new) - 1].reshape(x.shape), 1)
    ranks[np.isnan(x)] = np.nan
    return np.moveaxis(ranks.reshape(shape), -1, axis)


def spearman_r(a, b) -> float:
    """Spearman's rank correlation of two vectors: Pearson's r of their average ranks.

    Examples
    --------
    >>> spearman_r([1.0, 2.0, 3.0, 4.0], [1.0, 4.0, 9.0, 16.0])
    1.0
    """
    return pearson_r(rankdata(a), rankdata(b))
