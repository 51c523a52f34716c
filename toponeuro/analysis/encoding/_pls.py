"""Partial least squares encoding (PLS2), as Brain-Score's neural predictivity uses."""

from __future__ import annotations

import warnings

import numpy as np

from ..._util.docs import fill_doc
from ..._util.params import COUNT, NON_NEGATIVE, Options
from ..._util.stack import user_stacklevel
from ...exceptions import InvalidDataError, UnknownNameError
from .._validate import EstimatorMixin, LinearPredictorMixin, check_finite, paired_matrices

__all__ = ["PLSEncoder"]


class PLSEncoder(LinearPredictorMixin, EstimatorMixin):
    """Partial least squares regression (PLS2), as Brain-Score's neural predictivity uses.

    Same model as ``sklearn.cross_decomposition.PLSRegression(n_components, scale=False)``:
    components are extracted one by one from the deflated feature and target matrices, each
    weight vector being the leading left singular vector of ``X_k.T @ Y_k``.

    Parameters
    ----------
    n_components : int
        Number of PLS components (default 25).
    algorithm : {"nipals", "svd"}
        ``"nipals"`` (default) runs scikit-learn's power iteration with the same start,
        ``tol`` and ``max_iter``, so results equal ``PLSRegression``'s (and Brain-Score's);
        ``"svd"`` computes the singular vector exactly.
    max_iter : int
        Most NIPALS iterations per component.
    tol : float
        NIPALS stops when the squared change of the weights falls below ``tol``.

    Attributes
    ----------
    coef_ : ndarray (n_targets, n_features)
    intercept_ : ndarray (n_targets,)
    x_weights_, x_loadings_, y_loadings_ : ndarray

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((50, 8))
    >>> Y = X[:, :2] @ np.array([[1.0, 0.5], [-1.0, 2.0]])
    >>> pls = PLSEncoder(n_components=2).fit(X, Y)
    >>> pls.coef_.shape, pls.predict(X).shape
    ((2, 8), (50, 2))
    """

    def __init__(
        self, n_components: int = 25, algorithm: str = "nipals", max_iter: int = 500,
        tol: float = 1e-6,
    ):
        self.n_components = n_components
        self.algorithm = algorithm
        self.max_iter = max_iter
        self.tol = tol

    #: checked when a fit starts (scikit-learn's way); n_components's upper bound,
    #: min(n_samples - 1, n_features), is the data's and is checked with them
    _parameter_constraints = {
        "n_components": COUNT, "max_iter": COUNT, "tol": NON_NEGATIVE,
        "algorithm": Options(("nipals", "svd"), error=UnknownNameError)}

    @fill_doc
    def fit(self, X, y):
        """Fit the PLS model; returns ``self``.

        Parameters
        ----------
        %(fit_xy)s

        Returns
        -------
        PLSEncoder
            ``self``, fitted.
        """
        self._validate_params()
        X, Y, _ = paired_matrices(X, y, ("features", "targets"))
        self._y_1d = np.ndim(y) == 1
        X = np.asarray(X, dtype=np.float64)
        Y = np.asarray(Y, dtype=np.float64)
        check_finite(X, "features")
        check_finite(Y, "targets")
        n, p = X.shape
        k = int(self.n_components)
        if not 1 <= k <= min(n - 1, p):
            raise InvalidDataError(
                f"n_components must be between 1 and min(n_samples - 1, n_features) = "
                f"{min(n - 1, p)}; got {self.n_components}. Lower n_components."
            )
        mx, my = X.mean(0), Y.mean(0)
        Xk, Yc = X - mx, Y - my
        eps = np.finfo(np.float64).eps
        W = np.zeros((p, k))
        Pl = np.zeros((p, k))
        Q = np.zeros((Y.shape[1], k))
        for i in range(k):
            Yc[:, np.all(np.abs(Yc) < 10 * eps, axis=0)] = 0.0
            if self.algorithm == "nipals":
                w = self._nipals(Xk, Yc, eps)
                if w is None:
                    warnings.warn(f"PLS: the residual targets are constant after {i} "
                                  "components.", stacklevel=user_stacklevel())
                    W, Pl, Q = W[:, :i], Pl[:, :i], Q[:, :i]
                    break
            else:
                w = self._leading_vector(Xk.T @ Yc)
            big = np.argmax(np.abs(w))
            w *= np.sign(w[big]) or 1.0
            t = Xk @ w
            tt = t @ t
            if tt < np.finfo(float).eps:
                warnings.warn(f"PLS: X is exhausted after {i} components.", stacklevel=user_stacklevel())
                W, Pl, Q = W[:, :i], Pl[:, :i], Q[:, :i]
                break
            pl = Xk.T @ t / tt
            Xk = Xk - np.outer(t, pl)
            q = Yc.T @ t / tt
            Yc = Yc - np.outer(t, q)
            W[:, i], Pl[:, i], Q[:, i] = w, pl, q
        rot = W @ np.linalg.pinv(Pl.T @ W)
        coef = rot @ Q.T  # (p, V)
        self.x_weights_, self.x_loadings_, self.y_loadings_ = W, Pl, Q
        self.x_rotations_ = rot
        self.coef_ = coef.T
        self.intercept_ = my - mx @ coef
        self.n_features_in_ = p
        return self

    def _nipals(self, X, Y, eps):
        """scikit-learn's power iteration for the first X weight vector (mode A)."""
        nonzero = np.flatnonzero(np.any(np.abs(Y) > eps, axis=0))
        if not len(nonzero):
            return None
        y_score = Y[:, nonzero[0]]
        w_old = 100
        for _ in range(int(self.max_iter)):
            w = X.T @ y_score / (y_score @ y_score)
            w /= np.sqrt(w @ w) + eps
            x_score = X @ w
            yw = Y.T @ x_score / (x_score @ x_score)
            y_score = Y @ yw / (yw @ yw + eps)
            diff = w - w_old
            if diff @ diff < self.tol or Y.shape[1] == 1:
                break
            w_old = w
        return w

    def _leading_vector(self, C):
        """Leading left singular vector of ``C`` (p, V) by power iteration on the small Gram."""
        p, v = C.shape
        G = C @ C.T if p <= v else C.T @ C
        if min(G.shape) <= 600:
            _, vecs = np.linalg.eigh(G)
            u = vecs[:, -1]
        else:
            u = G[:, np.argmax(np.diag(G))].copy()
            u /= np.linalg.norm(u)
            for _ in range(self.max_iter):
                u2 = G @ u
                u2 /= np.linalg.norm(u2)
                if np.linalg.norm(u2 - u) < 1e-12:
                    u = u2
                    break
                u = u2
        if p > v:
            u = C @ u
            u /= np.linalg.norm(u)
        return u

    _separable = False
