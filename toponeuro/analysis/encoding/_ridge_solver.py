"""Ridge solver internals: decompositions, cross-validated scores, refits, chunked targets.

Two ways to score every alpha by k-fold cross-validation, both exact:

* **per fold** (himalaya's): one symmetric eigendecomposition of each training set -- of the
  feature Gram ``Xtr.T @ Xtr`` when there are fewer features than training samples (primal),
  else of the kernel ``Xtr @ Xtr.T`` (dual) -- then, per chunk of targets, the products
  ``U.T @ Ytr`` and the validation products ``(Xte V D_alpha) @ (U.T Ytr)`` for all alphas as
  one matrix product. In the dual form every fold's kernel is a block of the full kernel
  ``X @ X.T``, formed once, so a wide layer (P = 25,088) costs N x N, not P x P.
* **deletion**: one decomposition of the full design; the held-out residuals of every fold
  follow from the full-data fit by the group-deletion identity ``e_g = (I - H_gg)^-1 r_g``.

``cv_solver="auto"`` picks whichever needs fewer floating-point operations for the problem's
shape and number of targets (:func:`_solver_flops`); the decompositions are computed once per
process and shared by every chunk of targets (:class:`_Design`), also on dask workers, where
the design is scattered once.
"""

from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path

import numpy as np

from ..._io.output import atomic_file
from ..._util.metrics import pearson_r, r2_score
from ...exceptions import InvalidDataError, OutputPathError, UnknownNameError, close_matches
from .._backend import get_backend
from .._validate import check_finite

SCORINGS = ("r2", "pearson", "neg_mse")
CV_SOLVERS = ("auto", "deletion", "per_fold")

#: bytes of predictions held at once per batch of targets
_MEM_BUDGET = 256 * 2**20
#: largest coefficient matrix (n_features x n_targets) ``weights="memory"`` holds in memory
WEIGHTS_BUDGET = 4 * 2**30
#: bytes of coefficients computed at once when they are written to a store
_WEIGHTS_CHUNK = 256 * 2**20


# ----------------------------------------------------------------------------- kernels
def _score(B, Yte, P, scoring):
    """Per-target scores of predictions ``P`` (..., n_test, n_targets)."""
    if scoring == "r2":
        return r2_score(Yte, P)
    if scoring == "pearson":
        return pearson_r(Yte, P)
    if scoring == "neg_mse":
        return -((Yte - P) ** 2).mean(-2)
    raise UnknownNameError(f"Unknown scoring {scoring!r}; {close_matches(scoring, SCORINGS)}")


def _n_batch(n_targets, per_target_bytes, n_targets_batch):
    if n_targets_batch:
        return int(n_targets_batch)
    return int(max(1, min(n_targets, _MEM_BUDGET // max(1, per_target_bytes))))


def _eigh(B, gram, dtype):
    """Eigenpairs of a symmetric matrix formed in the data's precision, diagonalised in
    float64 (eigenvalues clipped at 0), eigenvectors back in the data's precision."""
    w, V = B.eigh(B.asarray(gram, dtype=B.float64()))
    return B.clip_min(w, 0.0), B.asarray(V, dtype=dtype)


def _shrinkage(B, w, a, dtype):
    """``1 / (w + a)`` for eigenvalues ``w`` and alphas ``a`` (broadcast), with the
    pseudo-inverse's rule where ``w + a`` is numerically zero (alpha = 0 on a rank-deficient
    design, P > N): 0 there, so alpha = 0 is the minimum-norm least-squares fit, as
    :func:`numpy.linalg.lstsq` and scikit-learn's ``Ridge(alpha=0)`` give, never NaN.
    The cut-off is of lstsq's kind: ``max(w) * 4k * eps`` (float64, ``k`` eigenvalues)."""
    denom = w + a
    tol = float(B.to_numpy(w).max(initial=0.0)) * max(w.shape[-1], 1) * 4 * np.finfo(float).eps
    tol = max(tol, np.finfo(float).tiny)
    return B.asarray((denom > tol) / B.clip_min(denom, tol), dtype=dtype)


def _centre_kernel(Krows, row_means, col_means, grand):
    """``(x_i - m) . (x_j - m)`` from ``K_ij = x_i . x_j`` and the training mean ``m``."""
    return Krows - row_means[:, None] - col_means[None, :] + grand


def _form(p, n_rows, form=None):
    """``"primal"`` when there are no more features than rows (himalaya's rule), else dual."""
    return form or ("primal" if p <= n_rows else "dual")


def _fold_plan(B, X, K, tr, te, fit_intercept, form=None):
    """One fold's decomposition: ``pred_alpha = left diag(1/(w + alpha)) right Ytr``."""
    itr, ite = B.index(tr), B.index(te)
    dtype = B.dtype_of(X)
    if _form(X.shape[1], len(tr), form) == "primal":  # eigh of the p x p Gram
        Xtr, Xte = X[itr], X[ite]
        if fit_intercept:
            mx = Xtr.mean(0)
            Xtr, Xte = Xtr - mx, Xte - mx
        w, V = _eigh(B, Xtr.T @ Xtr, dtype)
        left, right = Xte @ V, (Xtr @ V).T
    else:  # dual: eigh of the training block of the full kernel
        Ktr, Kte = K[itr][:, itr], K[ite][:, itr]
        if fit_intercept:
            r = Ktr.mean(0)
            g = r.mean()
            Ktr = _centre_kernel(Ktr, r, r, g)
            Kte = _centre_kernel(Kte, Kte.mean(1), r, g)
        w, Q = _eigh(B, Ktr, dtype)
        left, right = Kte @ Q, Q.T
    return {"itr": itr, "ite": ite, "w": w, "left": left, "right": right}


def _global_decomposition(B, X, K, fit_intercept, form=None):
    """One decomposition of the (centred) full design, shared by the deletion CV and refit."""
    mx = X.mean(0) if fit_intercept else None
    Xc = X - mx if fit_intercept else X
    dtype = B.dtype_of(X)
    if _form(X.shape[1], X.shape[0], form) == "primal":
        w, V = _eigh(B, Xc.T @ Xc, dtype)
        form, right = "primal", (Xc @ V).T
        L = Xc @ V  # (n, p): the full-data hat matrix is L diag(1/(w+a)) L'
    else:
        w, V = _eigh(B, K, dtype)  # K is already the centred kernel Xc Xc'
        form, right = "dual", V.T
        L = V * B.sqrt(B.asarray(w, dtype=dtype))[None, :]  # Q sqrt(w)
    return {"form": form, "w": w, "V": V, "right": right, "L": L, "Xc": Xc, "mx": mx}


def _per_fold_scores(B, plan, Y, alphas, fit_intercept, scoring, n_targets_batch):
    """Mean over folds of per-target scores for every alpha: ``(n_alphas, n_targets)``."""
    n_a, n_t = len(alphas), Y.shape[1]
    dtype = B.dtype_of(Y)
    a = B.asarray(alphas, dtype=B.float64())
    itemsize = np.dtype(B.to_numpy(Y[:1, :1]).dtype).itemsize
    total = B.zeros((n_a, n_t), dtype=B.float64())
    for f in plan:
        w, left, right, itr, ite = f["w"], f["left"], f["right"], f["itr"], f["ite"]
        k, n_tr, n_te = w.shape[0], right.shape[1], left.shape[0]
        inv = _shrinkage(B, w[None, :], a[:, None], dtype)  # (n_a, k)
        stacked = (left[None, :, :] * inv[:, None, :]).reshape(n_a * n_te, k)
        # per target: (stacked @ right) @ Y costs n_a*n_te*n_tr, stacked @ (right @ Y) k*n_tr
        # + n_a*n_te*k
        via_samples = n_a * n_te * n_tr <= k * n_tr + n_a * n_te * k
        M = stacked @ right if via_samples else None  # (n_a*n_te, n_tr)
        batch = _n_batch(n_t, 2 * n_a * n_te * itemsize, n_targets_batch)
        for s in range(0, n_t, batch):
            Ytr, Yte = Y[itr, s : s + batch], Y[ite, s : s + batch]
            if fit_intercept:
                my = Ytr.mean(0)
                Ytr, Yte = Ytr - my, Yte - my
            P = M @ Ytr if via_samples else stacked @ (right @ Ytr)
            P = P.reshape(n_a, n_te, -1)
            total[:, s : s + batch] += B.asarray(_score(B, Yte, P, scoring), B.float64())
    return total / len(plan)


def _deletion_ops(B, dec, alphas, folds, fit_intercept):
    """Per fold: ``(test index, n_test, stacked (I - H_gg)^-1, stacked (I - H_gg)^-1 L_g D)``."""
    L, w = dec["L"], dec["w"]
    dtype, f64 = B.dtype_of(L), B.float64()
    n = L.shape[0]
    D = _shrinkage(B, w[None, :], B.asarray(alphas, dtype=f64)[:, None], f64)  # (n_a, k)
    ops = []
    for _, te in folds:
        ite = B.index(te)
        Lg = B.asarray(L[ite], dtype=f64)
        ng = len(te)
        Ms, Ns = [], []
        for ia in range(len(alphas)):
            LD = Lg * D[ia][None, :]
            H = LD @ Lg.T + (1.0 / n if fit_intercept else 0.0)
            M = B.inv(B.eye(ng, f64) - H)
            Ms.append(M)
            Ns.append(M @ LD)
        ops.append((ite, ng, B.asarray(B.concatenate(Ms), dtype), B.asarray(B.concatenate(Ns), dtype)))
    return ops


def _deletion_scores(B, dec, ops, Y, n_alphas, fit_intercept, scoring, n_targets_batch):
    """K-fold CV scores without refitting per fold.

    For penalised least squares with a fixed penalty, the residuals of a held-out group
    ``g`` under the model fitted without it are ``(I - H_gg)^-1 r_g``, where ``H`` is the
    full-data hat matrix and ``r`` the full-data residuals (the unpenalised intercept adds
    ``1/n`` to ``H``). So one decomposition serves every fold, alpha and target; only small
    ``n_g x n_g`` inverses are computed per fold and alpha (once, in :func:`_deletion_ops`).
    """
    L = dec["L"]
    f64 = B.float64()
    n_t = Y.shape[1]
    itemsize = np.dtype(B.to_numpy(L[:1, :1]).dtype).itemsize
    batch = _n_batch(n_t, 3 * n_alphas * max(ng for _, ng, _, _ in ops) * itemsize,
                     n_targets_batch)
    total = B.zeros((n_alphas, n_t), dtype=f64)
    for s in range(0, n_t, batch):
        Yc = Y[:, s : s + batch]
        if fit_intercept:
            Yc = Yc - Yc.mean(0)
        Z = L.T @ Yc
        for ite, ng, Mst, Nst in ops:
            Yg = Yc[ite]
            E = (Mst @ Yg - Nst @ Z).reshape(n_alphas, ng, -1)  # held-out residuals
            total[:, s : s + batch] += B.asarray(_score(B, Yg, Yg - E, scoring), f64)
    return total / len(ops)


def _held_out_operator(B, dec, alphas, tr, te, fit_intercept):
    """Fold ``(tr, te)``'s held-out predictions of every alpha as one operator on the training
    targets: ``(n_alphas * n_test, n_train)``, block ``a`` being ``(I - H_gg)^-1 H_g,tr``.

    It is the deletion identity written as an operator: the held-out residuals
    ``(I - H_gg)^-1 (y_g - H_g. y)`` give the predictions ``(I - H_gg)^-1 H_g,tr y_tr``,
    which equal the fold's refit ``X_te (X_tr' X_tr + alpha I)^-1 X_tr' y_tr`` (with the
    training means when ``fit_intercept``; the unpenalised intercept adds ``1/n`` to ``H``).
    The hat rows ``H_g. = L_g D_alpha L'`` come from the full design's decomposition, so no
    fold is decomposed; the small ``n_test x n_test`` systems are solved in float64.
    """
    L, w = dec["L"], dec["w"]
    dtype, f64 = B.dtype_of(L), B.float64()
    n = L.shape[0]
    itr, ite = B.index(tr), B.index(te)
    n_a, g, m = len(alphas), len(te), len(tr)
    D = _shrinkage(B, w[None, :], B.asarray(alphas, dtype=f64)[:, None], dtype)  # (n_a, k)
    Lg = L[ite]
    stacked = (Lg[None, :, :] * D[:, None, :]).reshape(n_a * g, -1)
    H_gg = B.asarray(stacked @ Lg.T, dtype=f64)  # (n_a * g, g)
    H_gt = stacked @ L[itr].T  # (n_a * g, n_train), the data's precision
    del stacked
    c = 1.0 / n if fit_intercept else 0.0
    eye = B.eye(g, f64)
    op = B.zeros((n_a * g, m), dtype=dtype)
    for ia in range(n_a):
        rows = slice(ia * g, (ia + 1) * g)
        op[rows] = B.asarray(B.solve(eye - H_gg[rows] - c, B.asarray(H_gt[rows], dtype=f64) + c),
                             dtype=dtype)
    return itr, ite, op


def _operator_scores(B, dec, folds, Y, alphas, fit_intercept, scoring, n_targets_batch):
    """K-fold CV scores ``(n_alphas, n_targets)`` from one decomposition of the full design,
    one held-out operator per fold (:func:`_held_out_operator`), built once per call and
    applied to every batch of targets: per target ``n_alphas * n_test * n_train`` per fold,
    as the per-fold solver's cheapest path, without decomposing any training set."""
    n_a, n_t = len(alphas), Y.shape[1]
    f64 = B.float64()
    itemsize = np.dtype(B.to_numpy(Y[:1, :1]).dtype).itemsize
    my = Y.mean(0) if fit_intercept else None  # the operators reproduce constants: any centre
    total = B.zeros((n_a, n_t), dtype=f64)
    for tr, te in folds:
        itr, ite, op = _held_out_operator(B, dec, alphas, tr, te, fit_intercept)
        g = len(te)
        batch = _n_batch(n_t, 2 * n_a * g * itemsize, n_targets_batch)
        for s in range(0, n_t, batch):
            Ytr, Yte = Y[itr, s : s + batch], Y[ite, s : s + batch]
            if fit_intercept:
                Ytr, Yte = Ytr - my[s : s + batch], Yte - my[s : s + batch]
            P = (op @ Ytr).reshape(n_a, g, -1)
            total[:, s : s + batch] += B.asarray(_score(B, Yte, P, scoring), f64)
            del P
        del op
    return total / len(folds)


def _ridge_refit(B, dec, Y, alphas, best_idx, fit_intercept, n_targets_batch):
    """Coefficients ``(n_features, n_targets)`` and intercepts refit on all samples."""
    form, w, V, right, Xc, mx = (dec[k] for k in ("form", "w", "V", "right", "Xc", "mx"))
    dtype = B.dtype_of(Xc)
    if fit_intercept:
        my = Y.mean(0)
        Yc = Y - my
    else:
        Yc = Y
    n, p = Xc.shape
    n_t = Y.shape[1]
    coef = B.zeros((p, n_t), dtype=dtype)
    best_idx = np.asarray(B.to_numpy(best_idx))
    step = _n_batch(n_t, 2 * (p + n) * 8, n_targets_batch)
    for ia in np.unique(best_idx):
        cols = np.flatnonzero(best_idx == ia)
        d = _shrinkage(B, w, float(alphas[ia]), dtype)
        for s in range(0, len(cols), step):
            c = B.index(cols[s : s + step])
            sol = V @ (d[:, None] * (right @ Yc[:, c]))
            coef[:, c] = Xc.T @ sol if form == "dual" else sol
    intercept = (my - mx @ coef) if fit_intercept else B.zeros((n_t,), dtype=dtype)
    return coef, intercept


# ----------------------------------------------------------------------------- cost model
#: a float64 symmetric eigendecomposition (LAPACK syevd, numpy's ``eigh``) of a k x k matrix
#: takes as long as about this many times k^3 float32 matrix-product flops: measured on 2 shared
#: cores with OpenBLAS, k = 2,048 (its tridiagonal reduction runs at matrix-vector speed)
_EIGH_K3 = 40.0


def _deletion_flops(n, k, folds, n_alphas):
    """``{form: (fixed, per_target)}`` flops of the deletion solver's two forms, given the
    full design's decomposition (rank ``k``): ``"residual"`` (held-out residuals
    ``M y_g - N L'y``, :func:`_deletion_scores`) and ``"operator"`` (one held-out operator
    per fold, :func:`_operator_scores`)."""
    res_fixed, res_target = 0.0, 2.0 * n * k
    op_fixed, op_target = 0.0, 0.0
    for tr, te in folds:
        g, m = len(te), len(tr)
        res_fixed += n_alphas * (4.0 * g * g * k + g**3)
        res_target += 2.0 * n_alphas * g * (g + k)
        op_fixed += n_alphas * (2.0 * g * k * n + 2.0 * g * g * m + 2.0 / 3.0 * g**3)
        op_target += 2.0 * n_alphas * g * m
    return {"residual": (res_fixed, res_target), "operator": (op_fixed, op_target)}


def _deletion_form(n, p, folds, n_alphas, n_targets):
    """The deletion solver's cheaper form for ``n_targets`` targets."""
    costs = _deletion_flops(n, min(n, p), folds, n_alphas)
    return min(costs, key=lambda f: costs[f][0] + n_targets * costs[f][1])


def _solver_flops(n, p, folds, n_alphas, n_targets, need_global=True):
    """Floating-point operations of the two exact CV solvers: ``{"per_fold": f, "deletion": f}``.

    Counts matrix products (2 m n k for an m x k times k x n product) and ``_EIGH_K3 k^3``
    per symmetric eigendecomposition (its measured time in matrix-product flops); element-wise
    work and scoring are left out. ``need_global``: the full-design decomposition is needed
    anyway (for the refit), so it is free for the deletion solver. The deletion solver counts
    its cheaper form (:func:`_deletion_form`).
    """
    def decomposition(m):
        k = min(p, m)
        gram = 2.0 * m * p * p if p <= m else 0.0  # the dual kernel is formed once, below
        return gram + _EIGH_K3 * k**3 + 2.0 * m * p * k

    n_tr = [len(tr) for tr, _ in folds]
    kernel = 2.0 * n * n * p if p > min(n_tr) or p > n else 0.0
    per_fold = kernel + (decomposition(n) if need_global else 0.0)
    for (tr, te) in folds:
        k, m, t = min(p, len(tr)), len(tr), len(te)
        per_target = min(2.0 * k * m + 2.0 * n_alphas * t * k, 2.0 * n_alphas * t * m)
        per_fold += decomposition(m) + 2.0 * t * p * k + n_targets * per_target
    fixed, per_target = _deletion_flops(n, min(p, n), folds, n_alphas)[
        _deletion_form(n, p, folds, n_alphas, n_targets)]
    deletion = kernel + decomposition(n) + fixed
    deletion += n_targets * per_target
    return {"per_fold": per_fold, "deletion": deletion}


def _is_partition(folds, n):
    """True when the test sets partition the samples and each train set is the rest."""
    tests = np.concatenate([np.asarray(te) for _, te in folds])
    if len(tests) != n or not np.array_equal(np.sort(tests), np.arange(n)):
        return False
    return all(len(tr) + len(te) == n and not np.intersect1d(tr, te).size for tr, te in folds)


def _choose_solver(solver, folds, n, p, n_alphas, n_targets, need_global, zero_alpha=False):
    if solver not in CV_SOLVERS:
        raise UnknownNameError(f"Unknown cv_solver {solver!r}; {close_matches(solver, CV_SOLVERS)}")
    partition = _is_partition(folds, n)
    if solver == "deletion" and not partition:
        raise InvalidDataError(
            "cv_solver='deletion' needs folds whose test sets partition the stimuli (k-fold); "
            "use cv_solver='per_fold' for other splitters."
        )
    if solver != "auto":
        return solver
    if not partition or zero_alpha:  # alpha = 0: the deletion identity needs I - H invertible
        return "per_fold"
    cost = _solver_flops(n, p, folds, n_alphas, n_targets, need_global)
    return "deletion" if cost["deletion"] <= cost["per_fold"] else "per_fold"


# ----------------------------------------------------------------------------- the design
class _Design:
    """Features, folds and options shared by every chunk of targets of one fit.

    The decompositions (fold plans, the full-design decomposition, the deletion operators)
    are computed on first use, once per process, and shared by the chunks that process fits
    (a lock keeps two threads from computing them twice). Pickling drops them, so a design
    scattered to dask workers (``client.scatter(design, broadcast=True)``) travels as the
    features and folds only, and each worker decomposes once.
    """

    def __init__(self, X, folds, alphas, params, n_targets, need_global, form=None):
        if np.asarray(X).dtype.itemsize < 4:  # float16: X'X overflows (65504) -> float32
            X = np.asarray(X).astype(np.float32)
        self.X = X
        self.form = form  # None: by shape; "primal"/"dual" forces one (tests)
        self.folds = folds
        self.alphas = np.asarray(alphas, dtype=float)
        self.params = {k: params[k] for k in
                       ("fit_intercept", "scoring", "backend", "device", "n_targets_batch")}
        self.solver = _choose_solver(params["cv_solver"], folds, X.shape[0], X.shape[1],
                                     len(self.alphas), n_targets, need_global,
                                     zero_alpha=bool((self.alphas == 0).any()))
        n, p = X.shape
        self.deletion_form = _deletion_form(n, p, folds, len(self.alphas), n_targets)
        self._lock = threading.RLock()
        self._cache = {}

    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("_lock")
        state["_cache"] = {}
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._lock = threading.RLock()

    def __dask_tokenize__(self):
        return ("toponeuro._Design", id(self))

    @property
    def backend(self):
        return get_backend(self.params["backend"], self.params["device"])

    def _get(self, name, build):
        with self._lock:
            if name not in self._cache:
                self._cache[name] = build()
            return self._cache[name]

    def _Xb(self):
        return self._get("X", lambda: self.backend.asarray(self.X))

    def _kernel(self):
        def build():
            X = self._Xb()
            Xg = X - X.mean(0) if self.params["fit_intercept"] else X
            return Xg @ Xg.T  # a wide layer costs n x n: each fold's kernel is a block of it

        return self._get("K", build)

    def _needs_kernel(self, n_rows):
        return _form(self.X.shape[1], n_rows, self.form) == "dual"

    def plan(self):
        B, fi = self.backend, self.params["fit_intercept"]

        def build():
            X = self._Xb()
            dual = any(self._needs_kernel(len(tr)) for tr, _ in self.folds)
            K = self._kernel() if dual else None
            return [_fold_plan(B, X, K, tr, te, fi, self.form) for tr, te in self.folds]

        return self._get("plan", build)

    def global_decomposition(self):
        B, fi = self.backend, self.params["fit_intercept"]

        def build():
            X = self._Xb()
            K = self._kernel() if self._needs_kernel(X.shape[0]) else None
            return _global_decomposition(B, X, K, fi, self.form)

        return self._get("global", build)

    def deletion_ops(self):
        return self._get("ops", lambda: _deletion_ops(
            self.backend, self.global_decomposition(), self.alphas, self.folds,
            self.params["fit_intercept"]))

    def cv_scores(self, Yb):
        B, p = self.backend, self.params
        if self.solver == "deletion" and self.deletion_form == "operator":
            return _operator_scores(B, self.global_decomposition(), self.folds, Yb, self.alphas,
                                    p["fit_intercept"], p["scoring"], p["n_targets_batch"])
        if self.solver == "deletion":
            return _deletion_scores(B, self.global_decomposition(), self.deletion_ops(), Yb,
                                    len(self.alphas), p["fit_intercept"], p["scoring"],
                                    p["n_targets_batch"])
        return _per_fold_scores(B, self.plan(), Yb, self.alphas, p["fit_intercept"],
                                p["scoring"], p["n_targets_batch"])

    def refit(self, Yb, best):
        return _ridge_refit(self.backend, self.global_decomposition(), Yb, self.alphas, best,
                            self.params["fit_intercept"], self.params["n_targets_batch"])


def _fit_chunk(design: _Design, Y, fixed_index, scores: bool, coef: bool, per_target: bool):
    """Fit one chunk of targets: ``{"scores", "best", "coef" (n_targets, p), "intercept"}``.

    ``fixed_index`` gives the alpha (index) to refit with; otherwise the best alpha per target
    (``per_target``) or the best mean score over the chunk's targets.
    """
    B = design.backend
    check_finite(Y, "targets")
    Y = np.asarray(Y)
    if Y.dtype != design.X.dtype:
        Y = Y.astype(design.X.dtype)
    Yb = B.asarray(Y)
    out = {"n": Y.shape[1]}
    if scores:
        s = np.asarray(B.to_numpy(design.cv_scores(Yb)))
        out["scores"] = s
    if fixed_index is not None:
        best = np.full(Y.shape[1], int(fixed_index))
    else:
        filled = np.nan_to_num(out["scores"], nan=-np.inf)
        best = np.argmax(filled, axis=0) if per_target else np.full(
            Y.shape[1], int(np.argmax(np.nan_to_num(out["scores"].mean(1), nan=-np.inf))))
    out["best"] = best
    if coef:
        c, b = design.refit(Yb, best)
        out["coef"] = np.asarray(B.to_numpy(c)).T.copy()
        out["intercept"] = np.asarray(B.to_numpy(b))
    return out


# ----------------------------------------------------------------------------- chunk driver
def _distributed_client():
    """The active ``dask.distributed`` client, or None."""
    try:
        from distributed import get_client
    except ImportError:
        return None
    try:
        return get_client()
    except ValueError:
        return None


def _local_parallelism():
    import dask

    sched = dask.config.get("scheduler", None)
    if sched in ("sync", "synchronous", "single-threaded"):
        return 1
    return int(dask.config.get("num_workers", None) or os.cpu_count() or 1)


def map_chunks(design: _Design, blocks, kwargs: dict, on_result, fn=None) -> None:
    """Run :func:`_fit_chunk` (or ``fn(design, block, **kwargs)``) on every block of targets;
    ``on_result(i, result)`` in any order.

    Blocks that are numpy arrays run here, one after another. Dask blocks (delayed) run on
    the active ``dask.distributed`` client when there is one -- the design is scattered to
    every worker once (``client.scatter(..., broadcast=True)``) and at most two chunks per
    worker thread are in flight, so results never pile up -- else on the local dask
    scheduler, a window of chunks at a time. Only dask blocks import dask (the ``dask`` extra):
    in-memory targets need no more than the core install.
    """
    fn = fn or _fit_chunk
    if not blocks:
        return
    if not hasattr(blocks[0], "dask") and not hasattr(blocks[0], "__dask_graph__"):
        for i, b in enumerate(blocks):
            on_result(i, fn(design, b, **kwargs))
        return
    import dask

    task = dask.delayed(fn, pure=True)
    client = _distributed_client()
    if client is None:
        step = max(1, _local_parallelism())
        for s in range(0, len(blocks), step):
            parts = dask.compute(*[task(design, b, **kwargs) for b in blocks[s : s + step]])
            for i, part in enumerate(parts, start=s):
                on_result(i, part)
        return
    from distributed import as_completed

    shared = client.scatter(design, broadcast=True, hash=False)
    try:
        threads = sum(w.get("nthreads", 1) for w in client.scheduler_info()["workers"].values())
        limit = max(2, 2 * threads)
        pending = iter(enumerate(blocks))
        futures = {}

        def submit():
            try:
                i, b = next(pending)
            except StopIteration:
                return
            fut = client.compute(task(shared, b, **kwargs))
            futures[fut.key] = i
            queue.add(fut)

        queue = as_completed()
        for _ in range(limit):
            submit()
        for fut in queue:
            on_result(futures.pop(fut.key), fut.result())
            fut.release()
            submit()
    finally:
        client.cancel(shared)


def scatter_once(obj):
    """``obj`` sent to every worker of the active ``dask.distributed`` client (a future that
    tasks can take as an argument), or ``obj`` itself when there is no client."""
    client = _distributed_client()
    if client is None:
        return obj
    return client.scatter(obj, broadcast=True, hash=False)


# ----------------------------------------------------------------------------- weights store
class WeightsWriter:
    """Coefficients written to a netCDF-4 store (h5netcdf) chunk by chunk of targets.

    The file is built under a random temporary name beside ``path`` (the writer's
    :func:`~toponeuro._io.output.atomic_file`: never through a link planted there) and renamed
    into place when complete, so a killed fit leaves no half-written store at ``path``; an
    existing ``path`` (or a link there) is never overwritten.
    Variables: ``coef`` ``(target, feature)``, ``intercept``, ``best_alpha`` and
    ``best_score`` ``(target,)``, ``cv_scores`` ``(alpha, target)`` and ``alpha``.
    """

    def __init__(self, path, n_targets, n_features, dtype, alphas):
        import h5netcdf

        self.path = Path(path)
        if self.path.exists() or self.path.is_symlink():
            raise OutputPathError(
                f"weights={str(path)!r} already exists; toponeuro never overwrites a file. "
                "Pass a new path, or move the old store away first."
            )
        if not self.path.parent.is_dir():
            raise OutputPathError(
                f"weights={str(path)!r}: the folder {str(self.path.parent)!r} does not exist; "
                "create it first or pass a path in an existing folder."
            )
        self._file = atomic_file(self.path)
        self.tmp = self._file.__enter__()
        self.f = h5netcdf.File(self.tmp, "w")
        self.f.dimensions = {"target": n_targets, "feature": n_features, "alpha": len(alphas)}
        rows = int(max(1, min(n_targets, (4 << 20) // max(1, 4 * n_features))))
        self.f.create_variable("coef", ("target", "feature"), np.dtype(dtype).str,
                               chunks=(rows, n_features), fillvalue=np.nan)
        self.f.create_variable("intercept", ("target",), np.dtype(dtype).str, fillvalue=np.nan)
        self.f.create_variable("alpha", ("alpha",), data=np.asarray(alphas, dtype=float))
        self.f.attrs["description"] = ("ridge coefficients written by toponeuro RidgeEncoder "
                                       "(coef[target] predicts target = X @ coef + intercept)")

    def write(self, start, coef, intercept):
        stop = start + coef.shape[0]
        self.f.variables["coef"][start:stop] = coef
        self.f.variables["intercept"][start:stop] = intercept

    def finish(self, best_alphas, best_scores, cv_scores):
        f = self.f
        f.create_variable("best_alpha", ("target",), data=np.asarray(best_alphas, dtype=float))
        f.create_variable("best_score", ("target",), data=np.asarray(best_scores, dtype=float))
        f.create_variable("cv_scores", ("alpha", "target"), data=np.asarray(cv_scores, float))
        f.close()
        self._file.__exit__(None, None, None)  # renamed into place

    def abort(self):
        try:
            self.f.close()
        finally:
            err = RuntimeError("fit aborted")
            with contextlib.suppress(RuntimeError):
                self._file.__exit__(RuntimeError, err, None)  # removes the temporary file
