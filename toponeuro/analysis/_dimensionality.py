"""Dimensionality of representations: effective dimensionality and participation ratio.

The participation ratio ``(tr C)^2 / tr(C^2)`` of a covariance ``C`` is biased when ``C`` is
estimated from few samples (the plain estimate falls as samples shrink). The bias-corrected
estimator replaces numerator and denominator by unbiased U-statistics over distinct samples
(Chen, Zhang & Zhong 2010 for ``tr(C^2)``; the same construction for ``(tr C)^2``). Both are
translation invariant, so they are computed on centred data; every sum over distinct index
tuples is reduced to traces of the Gram matrix, so the cost is one ``n x n`` or ``p x p``
product.
"""

from __future__ import annotations

import numpy as np

from ..exceptions import InvalidDataError
from ._validate import as_matrix, check_finite

__all__ = ["effective_dimensionality", "participation_ratio", "trace_moments"]


def _centred(data, need):
    X = np.asarray(as_matrix(data, "data"), dtype=np.float64)
    check_finite(X, "data")
    if X.shape[0] < need:
        raise InvalidDataError(
            f"Need at least {need} samples (stimuli); got {X.shape[0]}."
        )
    return X - X.mean(0)


def _frob2_gram(X):
    """``||X X'||_F^2`` via the smaller Gram matrix."""
    n, p = X.shape
    G = X @ X.T if n <= p else X.T @ X
    return float((G * G).sum())


def trace_moments(data, bias_corrected: bool = True) -> tuple[float, float]:
    """Estimates of ``(tr C)^2`` and ``tr(C^2)`` of the covariance of the rows of ``data``.

    With ``bias_corrected`` they are unbiased (sums over distinct samples); otherwise they
    are those of the sample covariance (``n - 1`` normalisation).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((4000, 3)) * [1.0, 1.0, 2.0]
    >>> [round(v, 1) for v in trace_moments(X)]  # true values 36 and 18
    [35.7, 17.8]
    """
    X = _centred(data, 4 if bias_corrected else 2)
    n = X.shape[0]
    d = (X * X).sum(1)  # K_ii
    sum_d, sum_d2 = d.sum(), (d * d).sum()
    frob = _frob2_gram(X)
    if not bias_corrected:
        return sum_d**2 / (n - 1) ** 2, frob / (n - 1) ** 2
    # centred data: row sums of K without its diagonal are r_i = -d_i, and the sum of
    # off-diagonal entries is T0 = -sum(d)
    s2 = frob - sum_d2  # sum_{i!=j} K_ij^2
    r2 = sum_d2  # sum_i r_i^2
    t0 = -sum_d
    p3 = r2 - s2  # sum over distinct i,j,k of K_ij K_jk
    q4 = t0**2 - 4 * r2 + 2 * s2  # sum over distinct i,j,k,l of K_ij K_kl
    dd = sum_d**2 - sum_d2  # sum_{i!=j} d_i d_j
    dk = float((d * (t0 + 2 * d)).sum())  # sum over distinct i,j,k of d_i K_jk
    n2, n3, n4 = n * (n - 1), n * (n - 1) * (n - 2), n * (n - 1) * (n - 2) * (n - 3)
    tr_c_sq = dd / n2 - 2 * dk / n3 + q4 / n4
    tr_c2 = s2 / n2 - 2 * p3 / n3 + q4 / n4
    return float(tr_c_sq), float(tr_c2)


def effective_dimensionality(data) -> float:
    """``(sum lambda)^2 / sum lambda^2`` of the sample covariance eigenvalues.

    Parameters
    ----------
    data : Activations, BrainResponses or array (n_stimuli, n_features)
        Use ``acts.topo.select(layer)`` for one layer.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> round(effective_dimensionality(rng.standard_normal((5000, 10))), 1)
    10.0
    """
    num, den = trace_moments(data, bias_corrected=False)
    if den <= 0:
        raise InvalidDataError("The data have zero variance; the dimensionality is undefined.")
    return float(num / den)


def participation_ratio(data, bias_corrected: bool = True) -> float:
    """Participation ratio ``(tr C)^2 / tr(C^2)``, bias-corrected by default.

    The corrected estimate divides unbiased estimates of numerator and denominator, so it
    stays near the population value when there are few stimuli, where the plain estimate
    (``bias_corrected=False``, equal to :func:`effective_dimensionality`) falls.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((30, 50))  # true dimensionality 50
    >>> round(participation_ratio(X, bias_corrected=False)), round(participation_ratio(X))
    (17, 46)
    """
    num, den = trace_moments(data, bias_corrected)
    if den <= 0:
        raise InvalidDataError(
            "The estimate of tr(C^2) is not positive (too few samples or no variance); use "
            "more stimuli or bias_corrected=False."
        )
    return float(num / den)
