"""Encoding models: ridge (one eigendecomposition shared over every alpha and target) and PLS.

The ridge solution for all alphas comes from one symmetric eigendecomposition: of the feature
Gram ``X.T @ X`` when there are fewer features than samples (primal form), else of the kernel
``X @ X.T`` (dual form). For k-fold cross-validation the decomposition of the full design is
enough: the held-out residuals of each fold follow from the full-data fit by the
group-deletion identity ``e_g = (I - H_gg)^-1 r_g``. Scores of every alpha for a chunk of
targets are then a few matrix products.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable

import numpy as np
import xarray as xr

from .._docs import fill_doc
from .._metrics import pearson_r, r2_score
from .._params import check_random_state
from .._typing import RandomState
from ..exceptions import (
    AlignmentError,
    ImplausibleValueWarning,
    InvalidDataError,
    UndefinedValueWarning,
    UnitsError,
    UnknownNameError,
    close_matches,
)
from ._backend import get_backend
from ._pls import PLSEncoder
from ._validate import (
    EstimatorMixin,
    LinearPredictorMixin,
    _is_dask,
    check_finite,
    paired_matrices,
    voxel_template,
)

__all__ = ["RidgeEncoder", "PLSEncoder", "encoding_score", "make_folds", "ENCODING_MODELS"]

_MEM_BUDGET = 256 * 2**20  # bytes of predictions held at once per chunk of targets


# ----------------------------------------------------------------------------- folds
def make_folds(
    cv, n_samples: int, random_state: RandomState = None, *, shuffle: bool = True
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Train/test index pairs from an int (k-fold), a splitter with ``split`` or pairs.

    An int gives k-fold splits of the sizes ``sklearn.model_selection.KFold`` makes, over
    the stimuli **shuffled** with a fixed seed (``random_state``; ``None`` means 0, so results
    are reproducible). Why shuffled: stimulus sets usually come sorted by category
    (``load_floc``, most fMRI designs), and contiguous folds then hold out whole categories,
    so every test fold asks the model to extrapolate to a category it never saw; on fLoc
    order this drops the median voxel r from about 0.35 to 0.12. Pass ``shuffle=False`` (or
    ``cv=KFold(k)``) for contiguous folds, or a grouped splitter (``GroupKFold``) when
    held-out groups are the point.

    Examples
    --------
    >>> [te.tolist() for _, te in make_folds(3, 7, shuffle=False)]
    [[0, 1, 2], [3, 4], [5, 6]]
    >>> sorted(np.concatenate([te for _, te in make_folds(3, 7)]).tolist()) == list(range(7))
    True
    """
    n = int(n_samples)
    if isinstance(cv, (bool, np.bool_)) or (
        isinstance(cv, (float, np.floating)) and not float(cv).is_integer()
    ):
        raise InvalidDataError(
            f"cv must be a whole number of folds (e.g. cv=5), a splitter or (train, test) "
            f"pairs; got cv={cv!r}."
        )
    if isinstance(cv, (float, np.floating)):
        cv = int(cv)
    if isinstance(cv, (int, np.integer)):
        k = int(cv)
        if k < 2:
            raise InvalidDataError(f"cv must be at least 2 folds; got cv={cv}.")
        if n < k or n - -(-n // k) < 2:
            raise InvalidDataError(
                f"Too few stimuli for {k}-fold cross-validation: got {n}, need at least "
                f"{max(k, 3)} (each training set needs 2 or more). Use fewer folds (cv=...) or "
                "more stimuli."
            )
        order = np.arange(n)
        if shuffle:
            check_random_state(0 if random_state is None else random_state).shuffle(order)
        tests = np.array_split(order, k)
        return [(np.sort(np.setdiff1d(order, te, assume_unique=True)), np.sort(te))
                for te in tests]
    if hasattr(cv, "split"):
        pairs = list(cv.split(np.zeros((n, 1))))
    elif isinstance(cv, Iterable):
        pairs = list(cv)
    else:
        raise InvalidDataError(
            f"cv must be an int, a splitter with .split(X) or (train, test) pairs; got {cv!r}."
        )
    out = []
    for tr, te in pairs:
        tr, te = np.asarray(tr), np.asarray(te)
        if len(tr) < 2 or len(te) < 1:
            raise InvalidDataError(
                f"A fold has {len(tr)} training and {len(te)} test stimuli; each needs at least "
                "2 and 1. Use fewer folds or more stimuli."
            )
        out.append((tr, te))
    if not out:
        raise InvalidDataError("cv produced no folds.")
    return out


# ----------------------------------------------------------------------------- kernels
def _decompose(B, Xtr):
    """Eigendecomposition shared by all alphas: ``(form, w, V, right)``.

    ``pred_alpha(Xte) = test_side * 1/(w + alpha) @ right @ Ytr`` where the test side is
    ``Xte @ V`` (primal) or ``Xte @ Xtr.T @ Q`` (dual). The Gram matrix is formed in the
    data's precision and diagonalised in float64; the products stay in the data's precision.
    """
    n, p = Xtr.shape
    dtype = B.dtype_of(Xtr)
    gram = Xtr.T @ Xtr if p <= n else Xtr @ Xtr.T
    w, V = B.eigh(B.asarray(gram, dtype=B.float64()))
    w = B.clip_min(w, 0.0)
    V = B.asarray(V, dtype=dtype)
    if p <= n:
        return "primal", w, V, V.T @ Xtr.T
    return "dual", w, V, V.T


def _test_side(B, form, V, Xtr, Xte):
    if form == "primal":
        return Xte @ V
    return (Xte @ Xtr.T) @ V


def _score(B, Yte, P, scoring):
    """Per-target scores of predictions ``P`` (..., n_test, n_targets)."""
    if scoring == "r2":
        return r2_score(Yte, P)
    if scoring == "pearson":
        return pearson_r(Yte, P)
    if scoring == "neg_mse":
        return -((Yte - P) ** 2).mean(-2)
    raise UnknownNameError(f"Unknown scoring {scoring!r}; {close_matches(scoring, SCORINGS)}")


SCORINGS = ("r2", "pearson", "neg_mse")
CV_SOLVERS = ("auto", "deletion", "per_fold")


def _n_batch(n_targets, per_target_bytes, n_targets_batch):
    if n_targets_batch:
        return int(n_targets_batch)
    return int(max(1, min(n_targets, _MEM_BUDGET // max(1, per_target_bytes))))


def _ridge_cv_scores(B, X, Y, alphas, folds, fit_intercept, scoring, n_targets_batch):
    """Mean over folds of per-target scores for every alpha: ``(n_alphas, n_targets)``."""
    n_a = len(alphas)
    dtype = X.dtype
    n_t = Y.shape[1]
    total = None
    a = B.asarray(alphas, dtype=B.float64())
    for tr, te in folds:
        itr, ite = B.index(tr), B.index(te)
        Xtr, Xte = X[itr], X[ite]
        if fit_intercept:
            mx = Xtr.mean(0)
            Xtr, Xte = Xtr - mx, Xte - mx
        form, w, V, right = _decompose(B, Xtr)
        left = _test_side(B, form, V, Xtr, Xte)  # (n_te, k)
        k, n_tr, n_te = w.shape[0], len(tr), len(te)
        inv = B.asarray(1.0 / (w[None, :] + a[:, None]), dtype=dtype)  # (n_a, k)
        stacked_left = (left[None, :, :] * inv[:, None, :]).reshape(n_a * n_te, k)
        # cost of (stacked_left @ right) @ Y vs stacked_left @ (right @ Y)
        via_samples = n_a * n_te * n_tr <= k * n_tr + n_a * n_te * k
        if via_samples:
            M = B.asarray(stacked_left @ right, dtype=dtype)  # (n_a*n_te, n_tr)
        else:
            Lk = B.asarray(stacked_left, dtype=dtype)
            Rk = B.asarray(right, dtype=dtype)
        itemsize = np.dtype(B.to_numpy(X[:1, :1]).dtype).itemsize
        batch = _n_batch(n_t, 2 * n_a * n_te * itemsize, n_targets_batch)
        fold_scores = B.zeros((n_a, n_t), dtype=B.float64())
        for s in range(0, n_t, batch):
            Ytr, Yte = Y[itr, s : s + batch], Y[ite, s : s + batch]
            if fit_intercept:
                my = Ytr.mean(0)
                Ytr, Yte = Ytr - my, Yte - my
            P = M @ Ytr if via_samples else Lk @ (Rk @ Ytr)
            P = P.reshape(n_a, n_te, -1)
            fold_scores[:, s : s + batch] = B.asarray(_score(B, Yte, P, scoring), B.float64())
        total = fold_scores if total is None else total + fold_scores
    return total / len(folds)


def _is_partition(folds, n):
    """True when the test sets partition the samples and each train set is the rest."""
    tests = np.concatenate([np.asarray(te) for _, te in folds])
    if len(tests) != n or not np.array_equal(np.sort(tests), np.arange(n)):
        return False
    return all(len(tr) + len(te) == n and not np.intersect1d(tr, te).size for tr, te in folds)


def _global_decomposition(B, X, fit_intercept):
    """One decomposition of the (centred) full design, shared by CV and refit."""
    mx = X.mean(0) if fit_intercept else None
    Xc = X - mx if fit_intercept else X
    form, w, V, right = _decompose(B, Xc)
    if form == "primal":
        L = Xc @ V  # (n, p): full-data hat matrix is L diag(1/(w+a)) L'
    else:
        L = V * B.sqrt(B.asarray(w, dtype=B.dtype_of(V)))[None, :]  # Q sqrt(w)
    return {"form": form, "w": w, "V": V, "right": right, "L": L, "Xc": Xc, "mx": mx}


def _deletion_cv_scores(B, dec, Y, alphas, folds, fit_intercept, scoring, n_targets_batch):
    """K-fold CV scores without refitting per fold.

    For penalised least squares with a fixed penalty, the residuals of a held-out group
    ``g`` under the model fitted without it are ``(I - H_gg)^-1 r_g``, where ``H`` is the
    full-data hat matrix and ``r`` the full-data residuals (the unpenalised intercept adds
    ``1/n`` to ``H``). So one decomposition serves every fold, alpha and target; only small
    ``n_g x n_g`` inverses are computed per fold and alpha.
    """
    L, w = dec["L"], dec["w"]
    dtype = B.dtype_of(L)
    f64 = B.float64()
    n, _ = L.shape
    n_a, n_t = len(alphas), Y.shape[1]
    D = 1.0 / (w[None, :] + B.asarray(alphas, dtype=f64)[:, None])  # (n_a, k)
    ops = []
    for _, te in folds:
        ite = B.index(te)
        Lg = B.asarray(L[ite], dtype=f64)
        ng = len(te)
        Ms, Ns = [], []
        for ia in range(n_a):
            LD = Lg * D[ia][None, :]
            H = LD @ Lg.T + (1.0 / n if fit_intercept else 0.0)
            M = B.inv(B.eye(ng, f64) - H)
            Ms.append(M)
            Ns.append(M @ LD)
        ops.append((ite, ng, B.asarray(B.concatenate(Ms), dtype), B.asarray(B.concatenate(Ns), dtype)))
    itemsize = np.dtype(B.to_numpy(L[:1, :1]).dtype).itemsize
    batch = _n_batch(n_t, 3 * n_a * max(ng for _, ng, _, _ in ops) * itemsize, n_targets_batch)
    total = B.zeros((n_a, n_t), dtype=f64)
    for s in range(0, n_t, batch):
        Yc = Y[:, s : s + batch]
        if fit_intercept:
            Yc = Yc - Yc.mean(0)
        Z = L.T @ Yc
        for ite, ng, Mst, Nst in ops:
            Yg = Yc[ite]
            E = (Mst @ Yg - Nst @ Z).reshape(n_a, ng, -1)  # held-out residuals
            total[:, s : s + batch] += B.asarray(_score(B, Yg, Yg - E, scoring), f64)
    return total / len(folds)


def _ridge_refit(B, X, Y, alphas, best_idx, fit_intercept, n_targets_batch, dec=None):
    """Coefficients ``(n_features, n_targets)`` and intercepts refit on all samples."""
    dtype = X.dtype
    if dec is None:
        dec = _global_decomposition(B, X, fit_intercept)
    form, w, V, right, Xc, mx = (dec[k] for k in ("form", "w", "V", "right", "Xc", "mx"))
    if fit_intercept:
        my = Y.mean(0)
        Yc = Y - my
    else:
        Yc = Y
    p, n_t = X.shape[1], Y.shape[1]
    coef = B.zeros((p, n_t), dtype=dtype)
    best_idx = B.to_numpy(best_idx)
    step = _n_batch(n_t, 2 * (p + X.shape[0]) * 8, n_targets_batch)
    for ia in np.unique(best_idx):
        cols = np.flatnonzero(best_idx == ia)
        d = B.asarray(1.0 / (w + float(alphas[ia])), dtype=dtype)
        for s in range(0, len(cols), step):
            c = B.index(cols[s : s + step])
            sol = V @ (d[:, None] * (right @ Yc[:, c]))
            coef[:, c] = Xc.T @ sol if form == "dual" else sol
    intercept = (my - mx @ coef) if fit_intercept else B.zeros((n_t,), dtype=dtype)
    return coef, intercept


# ----------------------------------------------------------------------------- estimators
@fill_doc
class RidgeEncoder(LinearPredictorMixin, EstimatorMixin):
    """Ridge regression with cross-validated alpha, per target or shared.

    One symmetric eigendecomposition (primal ``X.T X`` or dual ``X X.T``, whichever is
    smaller) serves every alpha and every target. With k-fold splits a single decomposition of
    the full design gives every fold's held-out residuals exactly (group-deletion identity, see
    ``cv_solver``); other splitters decompose each training set. The predictions of all alphas
    for a chunk of targets are then matrix products, and targets are processed in chunks so
    memory stays bounded.
    When ``y`` is a dask array chunked over targets, each chunk is fitted as one task on the
    active dask scheduler (a ``dask.distributed`` client if one is running).

    Parameters
    ----------
    alphas : array-like
        Regularisation strengths to try (default ``np.logspace(-2, 6, 10)``).
    cv : int, splitter or list of (train, test)
        Folds used to pick alpha: an int is k-fold over shuffled stimuli (fixed seed
        ``random_state``, 0 when ``None``; see :func:`make_folds` for why).
    alpha_per_target : bool
        Choose the best alpha per target (default) or one alpha for all targets (highest mean
        score over targets, as ``sklearn.linear_model.RidgeCV`` with ``cv`` does).
    fit_intercept : bool
        Centre features and targets on each training set.
    scoring : {"r2", "pearson", "neg_mse"}
        Per-target score averaged over folds to pick alpha.
    backend : {"numpy", "torch"}
    %(device)s
    n_targets_batch : int or None
        Targets processed together; ``None`` sizes chunks to ~256 MB of predictions.
    cv_solver : {"auto", "deletion", "per_fold"}
        ``"per_fold"`` decomposes each training set; ``"deletion"`` decomposes the full
        design once and obtains every fold's held-out residuals exactly as
        ``(I - H_gg)^-1 r_g`` (group-deletion identity of penalised least squares), which
        needs k-fold style folds; ``"auto"`` (default) uses it whenever the folds allow.
    %(random_state)s

    Attributes
    ----------
    coef_ : ndarray (n_targets, n_features)
    intercept_ : ndarray (n_targets,)
    best_alphas_ : ndarray (n_targets,)
    cv_scores_ : ndarray (n_alphas, n_targets)
        Mean cross-validated score of every alpha for every target.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((60, 5))
    >>> Y = X @ rng.standard_normal((5, 3))
    >>> enc = RidgeEncoder(alphas=[1e-3, 1.0, 1e3], cv=3).fit(X, Y)
    >>> enc.best_alphas_.tolist()
    [0.001, 0.001, 0.001]
    >>> round(enc.score(X, Y), 4)
    1.0
    """

    def __init__(
        self,
        alphas=None,
        cv=5,
        alpha_per_target: bool = True,
        fit_intercept: bool = True,
        scoring: str = "r2",
        backend: str = "numpy",
        device: str = "cpu",
        n_targets_batch: int | None = None,
        cv_solver: str = "auto",
        random_state: RandomState = None,
    ):
        self.cv_solver = cv_solver
        self.alphas = alphas
        self.cv = cv
        self.alpha_per_target = alpha_per_target
        self.fit_intercept = fit_intercept
        self.scoring = scoring
        self.backend = backend
        self.device = device
        self.n_targets_batch = n_targets_batch
        self.random_state = random_state

    def _alphas(self):
        alphas = np.logspace(-2, 6, 10) if self.alphas is None else self.alphas
        alphas = np.atleast_1d(np.asarray(alphas, dtype=float))
        if alphas.ndim != 1 or len(alphas) == 0 or np.any(alphas < 0) or not np.all(
            np.isfinite(alphas)
        ):
            raise InvalidDataError(f"alphas must be non-negative finite numbers; got {alphas}.")
        if self.alpha_per_target and len(alphas) == 1:
            raise InvalidDataError(
                f"alpha_per_target=True needs several alphas to choose from; got only "
                f"{alphas.tolist()}. Pass a grid (e.g. alphas=np.logspace(-2, 6, 10)) or set "
                "alpha_per_target=False."
            )
        if self.scoring not in SCORINGS:
            raise UnknownNameError(
                f"Unknown scoring {self.scoring!r}; {close_matches(self.scoring, SCORINGS)}"
            )
        return alphas

    def fit(self, X, y):
        """Pick alpha by cross-validation, then refit on all samples. Returns ``self``."""
        alphas = self._alphas()
        X, Y, _ = paired_matrices(X, y, ("features", "targets"))
        self._y_1d = np.ndim(y) == 1
        X = np.asarray(X)
        if not np.issubdtype(X.dtype, np.floating):
            X = X.astype(np.float64)
        check_finite(X, "features")
        folds = make_folds(self.cv, X.shape[0], self.random_state)
        if _is_dask(Y):
            self._fit_dask(X, Y, alphas, folds)
        else:
            check_finite(Y, "targets")
            res = _fit_block(self.get_params(), alphas, folds, X, np.asarray(Y), None)
            self.cv_scores_, best, self.coef_, self.intercept_ = res
            if not self.alpha_per_target:
                best = np.full(Y.shape[1], best)
            self._set_best(alphas, best)
        self.n_features_in_ = X.shape[1]
        return self

    def _set_best(self, alphas, best):
        self.best_index_ = np.asarray(best)
        self.best_alphas_ = alphas[self.best_index_]
        if not self.alpha_per_target:
            self.alpha_ = float(self.best_alphas_[0])

    def _fit_dask(self, X, Y, alphas, folds):
        import dask

        Y = Y.rechunk({0: -1})
        blocks = Y.to_delayed().ravel()
        params = self.get_params()
        fit = dask.delayed(_fit_block, pure=True)
        if self.alpha_per_target:
            parts = dask.compute(*[fit(params, alphas, folds, X, b, None) for b in blocks])
            best = np.concatenate([np.atleast_1d(p[1]) for p in parts])
        else:  # the shared alpha needs every target's scores first
            score = dask.delayed(_block_scores, pure=True)
            tables = dask.compute(*[score(params, alphas, folds, X, b) for b in blocks])
            ia = int(np.argmax(np.concatenate(tables, axis=1).mean(1)))
            parts = dask.compute(*[fit(params, alphas, folds, X, b, ia) for b in blocks])
            best = np.full(Y.shape[1], ia)
        self.cv_scores_ = np.concatenate([p[0] for p in parts], axis=1)
        self.coef_ = np.concatenate([p[2] for p in parts], axis=0)
        self.intercept_ = np.concatenate([p[3] for p in parts])
        self._set_best(alphas, best)

    @property
    def _separable(self):
        return bool(self.alpha_per_target)


def _block_scores(params, alphas, folds, X, Y):
    B = get_backend(params["backend"], params["device"])
    check_finite(Y, "targets")
    Xb, Yb = B.asarray(X), B.asarray(np.asarray(Y), dtype=X.dtype)
    return B.to_numpy(_cv_scores(params, B, Xb, Yb, alphas, folds)[0])


def _cv_scores(params, B, Xb, Yb, alphas, folds, with_scores=True):
    """``(scores (n_alphas, n_targets) or None, decomposition of the full design)``."""
    fi, scoring, nb = params["fit_intercept"], params["scoring"], params["n_targets_batch"]
    solver = params["cv_solver"]
    if solver not in CV_SOLVERS:
        raise UnknownNameError(f"Unknown cv_solver {solver!r}; {close_matches(solver, CV_SOLVERS)}")
    n = Xb.shape[0]
    partition = _is_partition(folds, n)
    if solver == "deletion" and not partition:
        raise InvalidDataError(
            "cv_solver='deletion' needs folds whose test sets partition the stimuli (k-fold); "
            "use cv_solver='per_fold' for other splitters."
        )
    dec = _global_decomposition(B, Xb, fi)
    if not with_scores:
        return None, dec
    if solver != "per_fold" and partition:
        return _deletion_cv_scores(B, dec, Yb, alphas, folds, fi, scoring, nb), dec
    return _ridge_cv_scores(B, Xb, Yb, alphas, folds, fi, scoring, nb), dec


def _fit_block(params, alphas, folds, X, Y, fixed_index):
    """CV scores, best alpha index(es), coef (n_targets, p) and intercept for targets ``Y``."""
    B = get_backend(params["backend"], params["device"])
    check_finite(Y, "targets")
    Y = np.asarray(Y)
    if Y.dtype != X.dtype:
        Y = Y.astype(np.result_type(X.dtype, np.float32))
        X = X.astype(Y.dtype)
    Xb, Yb = B.asarray(X), B.asarray(Y)
    need = len(alphas) > 1 or fixed_index is None
    scores, dec = _cv_scores(params, B, Xb, Yb, alphas, folds, with_scores=need)
    if need:
        scores_np = B.to_numpy(scores)
    else:
        scores_np = np.full((1, Y.shape[1]), np.nan)
    if fixed_index is not None:
        best = np.full(Y.shape[1], fixed_index)
        best_ret = best
    elif params["alpha_per_target"]:
        best = np.argmax(np.nan_to_num(scores_np, nan=-np.inf), axis=0)
        best_ret = best
    else:
        best_ret = int(np.argmax(np.nan_to_num(scores_np.mean(1), nan=-np.inf)))
        best = np.full(Y.shape[1], best_ret)
    coef, intercept = _ridge_refit(B, Xb, Yb, alphas, best, params["fit_intercept"],
                                   params["n_targets_batch"], dec)
    return scores_np, best_ret, B.to_numpy(coef).T.copy(), B.to_numpy(intercept)


ENCODING_MODELS = {"ridge": RidgeEncoder, "pls": PLSEncoder}


# ----------------------------------------------------------------------------- scoring
def _metric(Y, P, metric):
    return pearson_r(Y, P) if metric == "pearson" else r2_score(Y, P)


def _clone(model):
    if hasattr(model, "_clone"):
        return model._clone()
    if hasattr(model, "get_params"):
        return type(model)(**model.get_params())
    raise TypeError(
        f"model must be 'ridge', 'pls' or an estimator with get_params/fit/predict; got "
        f"{type(model).__name__}."
    )


def _cv_predict_score(model, X, Y, folds, metric):
    check_finite(Y, "responses")
    Y = np.asarray(Y)
    out = np.zeros(Y.shape[1])
    for tr, te in folds:
        est = _clone(model).fit(X[tr], Y[tr])
        P = np.atleast_2d(est.predict(X[te]).T).T
        out += _metric(Y[te], P, metric)
    return out / len(folds)


def encoding_score(
    features,
    responses,
    model="ridge",
    cv=5,
    metric: str = "pearson",
    ceiling=None,
    random_state: RandomState = None,
) -> xr.DataArray:
    """Cross-validated encoding score of every voxel: how well features predict responses.

    For each outer fold the model is fitted on the training stimuli (a :class:`RidgeEncoder`
    picks its alpha by an inner cross-validation on those stimuli only) and scored on the
    held-out ones; the per-voxel score is the mean over folds. Stimuli are aligned by
    ``stimulus_id`` (exact join). Dask-backed responses chunked over voxels are fitted chunk
    by chunk on the active dask scheduler when the model treats targets independently (ridge
    with ``alpha_per_target=True``); other models load the responses into memory.

    Parameters
    ----------
    features : Activations or array (n_stimuli, n_features)
    responses : BrainResponses or array (n_stimuli, n_voxels)
        Any DataArray with dims ``("stimulus", <voxel dim>)``; its voxel coords are kept.
    model : {"ridge", "pls"} or estimator
        An estimator with ``fit``/``predict``/``get_params`` (cloned for each fold).
    cv : int, splitter or list of (train, test)
        An int is k-fold over the stimuli shuffled with a fixed seed (``random_state``, 0
        when ``None``): sorted stimulus sets (``load_floc``) would otherwise hold out whole
        categories per fold (see :func:`make_folds`). Pass ``KFold(k)`` for contiguous folds.
    metric : {"pearson", "r2"}
    ceiling : float, array or DataArray, optional
        Per-voxel noise ceiling **in the units of** ``metric``, in (0, 1]: r for
        ``"pearson"``, R² (fraction of variance) for ``"r2"``; the scores are divided by it.
        A ceiling in percent of variance (NSD's, :func:`toponeuro.brain.voxel_noise_ceiling`)
        or one labelled with other units (``attrs["units"]``) raises
        :class:`~toponeuro.exceptions.UnitsError` naming the conversion
        (``nc / 100`` for ``"r2"``, ``np.sqrt(nc / 100)`` for ``"pearson"``). Voxels whose
        ceiling is 0 or NaN get NaN (with a warning). A DataArray ceiling is matched to the
        responses' voxels by the voxel coords both carry (reordered to match, or
        :class:`~toponeuro.exceptions.AlignmentError` when voxels are missing).
    %(random_state)s

    Returns
    -------
    xarray.DataArray
        Dims ``("voxel",)`` with the responses' voxel coords; attrs ``metric``, ``model``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((80, 6))
    >>> Y = X @ rng.standard_normal((6, 4)) + 0.1 * rng.standard_normal((80, 4))
    >>> s = encoding_score(X, Y, model=RidgeEncoder(alphas=[0.1, 10.0], cv=3), cv=4)
    >>> s.dims, bool((s > 0.95).all())
    (('voxel',), True)
    """
    if metric not in ("pearson", "r2"):
        raise UnknownNameError(
            f"Unknown metric {metric!r}; {close_matches(metric, ['pearson', 'r2'])}"
        )
    if isinstance(model, str):
        if model not in ENCODING_MODELS:
            raise UnknownNameError(
                f"Unknown encoding model {model!r}; {close_matches(model, ENCODING_MODELS)}"
            )
        model = ENCODING_MODELS[model]()
    X, Y, resp = paired_matrices(features, responses, ("features", "responses"))
    X = np.asarray(X)
    if not np.issubdtype(X.dtype, np.floating):
        X = X.astype(np.float64)
    check_finite(X, "features")
    folds = make_folds(cv, X.shape[0], random_state)
    _check_inner_cv(model, folds, X.shape[0], cv)
    if ceiling is not None:  # checked before fitting
        c = _check_ceiling(_align_ceiling(ceiling, resp), metric, Y.shape[1])
    else:
        c = None
    if _is_dask(Y) and getattr(model, "_separable", False):
        import dask

        Y = Y.rechunk({0: -1})
        task = dask.delayed(_cv_predict_score, pure=True)
        parts = dask.compute(*[task(model, X, b, folds, metric) for b in Y.to_delayed().ravel()])
        scores = np.concatenate(parts)
    else:
        scores = _cv_predict_score(model, X, np.asarray(Y), folds, metric)
    dim, coords = voxel_template(resp, scores.shape[0])
    out = xr.DataArray(scores, dims=(dim,), coords=coords,
                       attrs={"metric": metric, "model": type(model).__name__})
    if c is not None:
        with np.errstate(divide="ignore", invalid="ignore"):
            normalised = np.where(c > 0, scores / np.where(c > 0, c, 1.0), np.nan)
        _check_normalised(normalised, metric)
        out = out.copy(data=normalised)
        out.attrs.update(metric=metric, model=type(model).__name__, ceiling_normalised=True)
    return out


def _check_inner_cv(model, folds, n_stimuli, cv):
    """An estimator's own cross-validation (RidgeEncoder's alpha search) runs on each outer
    training fold; refuse at once, in the numbers the caller passed, when it cannot."""
    inner = getattr(model, "cv", None)
    if not isinstance(inner, int | np.integer) or isinstance(inner, bool):
        return
    smallest = min(len(tr) for tr, _ in folds)
    try:
        make_folds(inner, smallest, shuffle=False)
    except InvalidDataError:
        outer = f"cv={cv}" if isinstance(cv, int | np.integer) else "the outer folds"
        raise InvalidDataError(
            f"encoding_score got {n_stimuli} stimuli; {outer} leaves {smallest} training "
            f"stimuli in the smallest outer fold, and the {type(model).__name__}'s inner "
            f"cross-validation (its cv={int(inner)}) chooses alpha on those, which needs at "
            f"least {max(int(inner), 3)}. Use fewer outer folds (cv=...), a smaller inner cv "
            f"({type(model).__name__}(cv=...)), or more stimuli."
        ) from None


def _check_normalised(normalised, metric):
    """Warn when the typical voxel beats its noise ceiling: the ceiling is then too small
    (another unit, another data set), and the normalised scores mean nothing."""
    finite = normalised[np.isfinite(normalised)]
    if finite.size and float(np.median(finite)) > 1:
        warnings.warn(
            f"The median ceiling-normalised score is {float(np.median(finite)):.3g} > 1: most "
            f"voxels ({int((finite > 1).sum())} of {finite.size}) score above their noise "
            "ceiling, which is the best score their noise allows, so the ceiling is implausibly "
            f"small. Rule: warn when the median normalised score exceeds 1. Check that the "
            f"ceiling is in the units of metric={metric!r} ("
            + ("r, e.g. np.sqrt of an explained fraction" if metric == "pearson"
               else "R², a fraction of variance")
            + ") and computed from the same responses.",
            ImplausibleValueWarning, stacklevel=3,
        )


#: ``attrs["units"]`` a ceiling may carry, and the metric each one fits
_CEILING_UNITS = {
    "percent variance": None, "percent": None, "%": None,
    "r": "pearson", "pearson r": "pearson", "correlation": "pearson",
    "r2": "r2", "fraction variance": "r2", "fraction of variance": "r2",
}


def _conversion(metric):
    return ("pass np.sqrt(nc / 100) (r = the square root of the explained fraction)"
            if metric == "pearson" else "pass nc / 100 (the explained fraction)")


def _align_ceiling(ceiling, responses):
    """A labelled ceiling in the responses' voxel order, matched on the voxel coords both
    carry (e.g. ``x``/``y``/``z``, ``vertex``/``hemi``); unlabelled ones stay as given."""
    if not (isinstance(ceiling, xr.DataArray) and isinstance(responses, xr.DataArray)):
        return ceiling
    dim = responses.dims[1]
    if ceiling.dims != (dim,):
        if ceiling.ndim == 1 and ceiling.dims[0] in responses.dims:
            raise AlignmentError(
                f"The ceiling runs along {ceiling.dims[0]!r} but the responses' voxels along "
                f"{dim!r}; compute it from the same responses."
            )
        return ceiling
    keys = sorted(k for k, v in responses.coords.items()
                  if v.dims == (dim,) and k in ceiling.coords and ceiling[k].dims == (dim,))
    if not keys:
        return ceiling

    def labels(da):
        return list(zip(*(da[k].values.tolist() for k in keys), strict=True))

    want, have = labels(responses), labels(ceiling)
    if want == have:
        return ceiling
    where = {lab: i for i, lab in enumerate(have)}
    missing = [lab for lab in want if lab not in where]
    if missing or len(where) != len(have) or len(set(want)) != len(want):
        raise AlignmentError(
            f"The ceiling's voxels do not match the responses' by {keys}: {len(missing)} of "
            f"{len(want)} response voxels have no ceiling (e.g. {missing[:1]}), or the labels "
            "repeat. Compute the ceiling from the same responses (or select the same voxels)."
        )
    return ceiling.isel({dim: [where[lab] for lab in want]})


def _check_ceiling(ceiling, metric, n_voxels):
    units = ceiling.attrs.get("units") if isinstance(ceiling, xr.DataArray) else None
    c = np.asarray(ceiling.values if isinstance(ceiling, xr.DataArray) else ceiling, dtype=float)
    if c.ndim and c.shape != (n_voxels,):
        raise InvalidDataError(
            f"ceiling must be a scalar or one value per voxel ({n_voxels}); got shape "
            f"{c.shape}."
        )
    want = "r" if metric == "pearson" else "R² (fraction of variance)"
    if units is not None:
        key = str(units).strip().lower()
        if key in _CEILING_UNITS and _CEILING_UNITS[key] is None:
            raise UnitsError(
                f"The ceiling is in {units!r} but encoding_score(metric={metric!r}) needs it in "
                f"{want}, between 0 and 1; {_conversion(metric)}."
            )
        if key in _CEILING_UNITS and _CEILING_UNITS[key] != metric:
            fix = "square it (c**2)" if metric == "r2" else "take its square root (np.sqrt(c))"
            raise UnitsError(
                f"The ceiling is in {units!r} but encoding_score(metric={metric!r}) needs it in "
                f"{want}; {fix}."
            )
    finite = c[np.isfinite(c)]
    if finite.size and finite.max() > 1:
        raise UnitsError(
            f"ceiling values reach {finite.max():.4g}, but a ceiling of {want} lies in (0, 1]; "
            f"this looks like a percentage of variance (NSD's noise ceiling): "
            f"{_conversion(metric)}."
        )
    if finite.size and finite.min() < 0:
        raise InvalidDataError(
            f"ceiling values must be >= 0 ({want}); got a minimum of {finite.min():.4g}. "
            "Clip negative reliability estimates to 0 (they give NaN) or drop those voxels."
        )
    n_undef = int(np.sum(~(c > 0)))
    if n_undef:
        warnings.warn(
            f"{n_undef} voxels have a ceiling of 0 or NaN; their normalised score is undefined "
            "(NaN).", UndefinedValueWarning, stacklevel=3,
        )
    return c


encoding_score = fill_doc(encoding_score)
