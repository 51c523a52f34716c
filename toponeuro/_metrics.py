"""The one implementation of R², Pearson's r and rank (Spearman) correlation.

Every analysis that scores predictions or correlates two sets of values calls these kernels
(encoding scores, split-half reliability, RDM comparison, map similarity). The module sits
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


def pearson_r(y, p):
    """Pearson's r between ``y`` and ``p`` along the sample axis, per target.

    Parameters
    ----------
    y, p : array or tensor
        ``(n_samples,)`` vectors, or ``(..., n_samples, n_targets)`` (broadcast).

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
    """
    yc, pc = _centred(_columns(y)), _centred(_columns(p))
    with _errstate():
        out = (yc * pc).sum(-2) / ((yc**2).sum(-2) * (pc**2).sum(-2)) ** 0.5
    return _scalar_if_vectors(out, y, p)


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


def rankdata(v) -> np.ndarray:
    """Average ranks (1-based; ties share their mean rank), as :func:`scipy.stats.rankdata`.

    Examples
    --------
    >>> rankdata([10.0, 30.0, 20.0, 20.0]).tolist()
    [1.0, 4.0, 2.5, 2.5]
    """
    v = np.asarray(v)
    order = np.argsort(v, kind="stable")
    sv = v[order]
    new = np.empty(len(v) + 1, dtype=bool)
    new[0] = True
    np.not_equal(sv[1:], sv[:-1], out=new[1:-1])
    new[-1] = True
    bounds = np.flatnonzero(new)
    group = np.cumsum(new[:-1]) - 1
    mean_rank = (bounds[:-1] + bounds[1:] + 1) / 2.0
    ranks = np.empty(len(v))
    ranks[order] = mean_rank[group]
    return ranks


def spearman_r(a, b) -> float:
    """Spearman's rank correlation of two vectors: Pearson's r of their average ranks.

    Examples
    --------
    >>> spearman_r([1.0, 2.0, 3.0, 4.0], [1.0, 4.0, 9.0, 16.0])
    1.0
    """
    return pearson_r(rankdata(a), rankdata(b))
