"""Moran's I: the spatial autocorrelation of one map, on a model sheet or a cortical mesh.

TopoLM (Rathi et al., 2025) reports Moran's I of its language-selectivity maps. The
maintained implementation is PySAL's ``esda.Moran``; :func:`morans_i` computes the same
statistic with the sheet's (or mesh's) own neighbour graph as the weights, and its p-value
from the one spatial null every toponeuro statistic shares (:func:`spatial_null`, the units'
positions shuffled: esda's ``p_sim`` permutation null). ``tests/analysis/topography/test_autocorr.py`` shows the
parity with ``esda.Moran`` on ``libpysal.weights.lat2W`` weights.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping

import numpy as np
from scipy import sparse

from ..._util.params import N_PERMUTATIONS, SEED, Options, check_random_state, validate_params
from ..._util.stack import user_stacklevel
from ..._util.typing import RandomState
from ...exceptions import (
    InvalidDataError,
    ToponeuroWarning,
    UndefinedValueWarning,
    UnknownNameError,
)
from ._geometry import _fill
from ._null import NullResult, as_null_map, run_null
from ._null_registry import register_statistic
from ._topomap import TopoMap

__all__ = ["MORAN_WEIGHTS", "MORAN_REFERENCE", "SIGN_CLUSTERING_REFERENCE", "moran_weights",
           "morans_i"]

#: neighbour graphs of :func:`moran_weights` on a sheet ("graph": the map's own adjacency)
MORAN_WEIGHTS = ("rook", "queen", "graph")
_TRANSFORMS = ("r", "b")
#: the declared neighbours and weights of Moran's I
_WEIGHTS = {"weights": Options(MORAN_WEIGHTS, error=UnknownNameError),
            "transform": Options(_TRANSFORMS, error=UnknownNameError)}

MORAN_REFERENCE = (
    "Moran (1950) Notes on continuous stochastic phenomena. Biometrika 37, 17-23; as "
    "esda.Moran (PySAL; Rey & Anselin 2007), row-standardised weights by default"
)


def _lattice(shape, queen: bool) -> sparse.csr_matrix:
    h, w = shape
    idx = np.arange(h * w).reshape(h, w)
    pairs = [(idx[:, :-1], idx[:, 1:]), (idx[:-1, :], idx[1:, :])]
    if queen:
        pairs += [(idx[:-1, :-1], idx[1:, 1:]), (idx[:-1, 1:], idx[1:, :-1])]
    a = np.concatenate([p[0].ravel() for p in pairs])
    b = np.concatenate([p[1].ravel() for p in pairs])
    m = sparse.coo_matrix((np.ones(a.size), (a, b)), shape=(h * w, h * w)).tocsr()
    return m + m.T


@validate_params(_WEIGHTS)
def moran_weights(tm: TopoMap, weights: str = "rook", transform: str = "r") -> sparse.csr_matrix:
    """The spatial weights of Moran's I on a map's points, over its points with a value.

    Parameters
    ----------
    tm : TopoMap
        The map and its geometry (:func:`as_topomap`).
    weights : {"rook", "queen", "graph"}
        On a sheet: the 4 (rook) or 8 (queen) grid neighbours of each unit
        (``libpysal.weights.lat2W``); ``"graph"``: the map's own neighbour graph (on a mesh,
        its edges: the only choice there; on a sheet the same as rook). Binary: a mesh's
        edge lengths are not used.
    transform : {"r", "b"}
        ``"r"``: each row divided by its number of neighbours (esda's default); ``"b"``:
        binary 0/1.

    Returns
    -------
    scipy.sparse.csr_matrix
        ``(m, m)`` over the ``m`` points with a finite value (``tm.finite``); the links to
        points without a value are dropped before the rows are standardised.

    Examples
    --------
    >>> from toponeuro.analysis import as_topomap
    >>> w = moran_weights(as_topomap(np.zeros((4, 5))), "rook", "b")
    >>> w.shape, int(w.sum())
    ((20, 20), 62)
    """
    if weights in ("rook", "queen"):
        if tm.grid_shape is None:
            where = ("free unit positions: use weights='graph' (their Delaunay edges)"
                     if tm.kind == "free" else "a mesh: use weights='graph' (the mesh's edges)")
            raise InvalidDataError(
                f"weights={weights!r} are grid neighbours; {tm.name or 'this map'} lives on "
                f"{where}."
            )
        w = _lattice(tm.grid_shape, queen=weights == "queen")
    else:
        w = tm._adjacency()
        w = (w != 0).astype(float).tocsr()
        w.setdiag(0)
        w.eliminate_zeros()
    keep = np.flatnonzero(tm.finite)
    w = w[keep][:, keep].tocsr()
    if transform == "r":
        deg = np.asarray(w.sum(axis=1)).ravel()
        w = sparse.diags(np.where(deg > 0, 1.0 / np.maximum(deg, 1e-300), 0.0)) @ w
    return w.tocsr()


def _moran_factory(tms, *, weights="rook", transform="r", rng=None):
    """Batched Moran's I of one map: ``f(values (B, n)) -> (B,)``."""
    if len(tms) != 1:
        raise InvalidDataError(f"Moran's I is a statistic of one map; got {len(tms)}.")
    tm = tms[0]
    w = moran_weights(tm, weights, transform)
    keep = np.flatnonzero(tm.finite)
    m, s0 = keep.size, float(w.sum())
    if m < 3 or s0 == 0:
        raise InvalidDataError(
            f"Moran's I needs at least 3 points with a value and at least one pair of "
            f"neighbours among them; {tm.name or 'the map'} has {m} points, weight sum {s0:g}."
        )
    if np.ptp(tm.values[keep]) == 0:
        warnings.warn(
            f"Moran's I is undefined (NaN): {tm.name or 'the map'} is constant over its {m} "
            "points (no deviation from the mean to correlate), so its p-value is NaN too. "
            "Check the map (e.g. a selectivity map of units that never respond).",
            UndefinedValueWarning, stacklevel=user_stacklevel())

    def kernel(values):
        z = values[:, keep]
        z = z - z.mean(axis=1, keepdims=True)
        lag = np.asarray(w @ z.T).T  # the spatial lag W z of every draw
        num = np.einsum("bi,bi->b", z, lag)
        den = np.einsum("bi,bi->b", z, z)
        with np.errstate(invalid="ignore", divide="ignore"):
            return (m / s0) * num / den

    attrs = {"method": "morans_i", "weights": weights, "transform": transform,
             "expected": -1.0 / (m - 1), "n_points": int(m), "reference": MORAN_REFERENCE}
    return kernel, attrs


register_statistic("morans_i", _moran_factory)

SIGN_CLUSTERING_REFERENCE = (
    "Moran's I (Moran 1950; esda.Moran) of the binary map 1[value > 0]: with binary weights "
    "a standardised join count of the positive points (Cliff & Ord 1981, Spatial Processes; "
    "esda.Join_Counts); the clustering of TopoLM's S > N units (Rathi et al. 2025)"
)


def _sign_factory(tms, *, weights="rook", transform="r", rng=None):
    """Batched clustering of the positive points: Moran's I of ``1[value > 0]``.

    The fraction of positive points may change from draw to draw (under the label null it
    does); Moran's I of the indicator is centred on each draw's own fraction, so it measures
    how clustered the positive points are, not how many there are. A draw with every point
    on one side (no positive point, or no other) has no clustering: NaN.
    """
    with warnings.catch_warnings():  # a constant map is one-sided: said below
        warnings.simplefilter("ignore", UndefinedValueWarning)
        kernel, attrs = _moran_factory(tms, weights=weights, transform=transform)

    def sign_kernel(values):
        return kernel((values > 0).astype(float))

    keep = tms[0].finite
    fraction = float(np.mean(tms[0].values[keep] > 0))
    if fraction in (0.0, 1.0):
        warnings.warn(
            f"sign_clustering: {'every point' if fraction else 'no point'} of "
            f"{tms[0].name or 'the map'} is positive, so the clustering of the positive points "
            "is undefined (NaN). Test the map itself (e.g. 'morans_i').",
            ToponeuroWarning, stacklevel=user_stacklevel())
    attrs = {**attrs, "method": "sign_clustering", "reference": SIGN_CLUSTERING_REFERENCE,
             "fraction_positive": fraction}
    return sign_kernel, attrs


register_statistic("sign_clustering", _sign_factory)


@validate_params(dict(_WEIGHTS, n_permutations=N_PERMUTATIONS, random_state=SEED))
@_fill
def morans_i(
    data,
    *,
    weights: str = "rook",
    transform: str = "r",
    n_permutations: int = 999,
    random_state: RandomState = None,
    layer: str | None = None,
    geometry: Mapping | None = None,
    null: str = "positions",
) -> NullResult:
    """Moran's I of a map with its spatial null: whether neighbouring units have similar values.

    ``I = (n / S0) * sum_ij w_ij z_i z_j / sum_i z_i**2`` with ``z`` the map minus its mean
    over the ``n`` points with a value and ``S0`` the sum of the weights (Moran 1950; PySAL's
    ``esda.Moran``, whose default row-standardised weights are used here). Under no spatial
    structure its expectation is ``-1 / (n - 1)``; 1 is perfectly smooth, negative a
    checkerboard. The null shuffles the points' positions (esda's ``p_sim``); the p-value is
    one-sided, "more clustered than the same values scattered at random".

    Parameters
    ----------
    data : map
        One map (a per-unit map with ``layer=``, a 2-D sheet, or mesh values with
        ``geometry=``; see :func:`as_topomap`). Points without a value (NaN) are left out.
    weights : {"rook", "queen", "graph"}
        Neighbours (see :func:`moran_weights`; a mesh takes ``"graph"``).
    transform : {"r", "b"}
        Row-standardised (esda's default) or binary weights.
    %(n_permutations)s
    %(random_state)s
    %(geometry)s
    null : {"positions", "labels"}
        ``"positions"`` (esda's ``p_sim``): is the map organised on the sheet?
        ``"labels"`` (``data`` a :func:`contrast_design`): is the contrast more clustered
        than contrasts of random splits of its items on this sheet?

    Returns
    -------
    NullResult
        ``statistic`` (I), ``null``, ``p_value``; ``attrs`` with ``expected`` (-1/(n-1)),
        ``weights``, ``transform``, ``n_points``, ``null`` and ``reference``.

    Examples
    --------
    >>> rr, cc = np.mgrid[:16, :16]
    >>> blob = np.exp(-((rr - 5) ** 2 + (cc - 9) ** 2) / 10.0)
    >>> res = morans_i(blob, n_permutations=199, random_state=0)
    >>> round(res.statistic, 3), res.p_value, res.attrs["null"]
    (0.935, 0.005, 'positions')
    >>> noise = np.random.default_rng(0).standard_normal((16, 16))
    >>> bool(morans_i(noise, n_permutations=199, random_state=0).p_value > 0.05)
    True
    """
    tm = as_null_map(data, layer, geometry)
    kernel, attrs = _moran_factory([tm], weights=weights, transform=transform)
    return run_null(kernel, [tm], null, n_permutations,
                    check_random_state(random_state), attrs, alternative="greater")
