"""Model sheet vs cortex: how alike two arrangements of regions are, and map-pair similarity.

The side-by-side table of a model sheet and the cortex is built from their topography tables
(:func:`toponeuro.analysis.topography_table`, then
:func:`toponeuro.analysis.compare_tables`): one implementation, used by ``toponeuro map``
and the tutorials alike.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from scipy.spatial import procrustes
from scipy.spatial.distance import pdist

from ..._io import null_cache as _null_cache
from ..._util.constraints import MAPPING, ArrayLike
from ..._util.docs import fill_doc
from ..._util.params import N_PERMUTATIONS, SEED, Options, validate_params
from ..._util.typing import RandomState
from ...exceptions import InvalidDataError, UnknownNameError
from ._null import NullResult
from ._patches import Patches
from ._topography import map_similarity

__all__ = [
    "DEFAULT_PAIRS",
    "patch_centroid",
    "arrangement_similarity",
    "pair_similarity",
]

#: map pairs whose similarity the TopoNets paper reports (faces-bodies high, faces-places low)
DEFAULT_PAIRS = (("faces", "bodies"), ("faces", "places"))
_CENTROIDS = ("largest", "all")


@validate_params({"how": Options(_CENTROIDS, error=UnknownNameError)})
def patch_centroid(patches: Patches, how: str = "largest") -> np.ndarray:
    """One centroid for a map's patches: the largest patch's, or that of all patch points.

    Parameters
    ----------
    patches : Patches
        A map's patches (:func:`find_patches`).
    how : {"largest", "all"}
        The centroid of the largest patch (default), or the mean position of every point
        in a patch.

    Returns
    -------
    numpy.ndarray
        The centroid's coordinates, one per position dimension; NaNs when the map has no
        patch.

    Examples
    --------
    >>> from toponeuro.analysis import find_patches
    >>> rr, cc = np.mgrid[:20, :20]
    >>> p = find_patches(np.exp(-((rr - 5) ** 2 + (cc - 12) ** 2) / 8.0), threshold=0.5)
    >>> patch_centroid(p).round(1).tolist()
    [5.0, 12.0]
    """
    d = patches.map.positions.shape[1]
    if patches.n_patches == 0:
        return np.full(d, np.nan)
    if how == "largest":
        return patches.centroids[0]
    return patches.map.positions[patches.labels > 0].mean(0)


@validate_params(dict(centroids_a=[MAPPING, ArrayLike(ndim=2)],
                      centroids_b=[MAPPING, ArrayLike(ndim=2)]))
def arrangement_similarity(centroids_a, centroids_b) -> dict:
    """How alike two arrangements of the same regions are (sheet vs cortex).

    Compares the pairwise distances between region centroids: Spearman rank correlation of
    the two sets of distances, and the Procrustes disparity (``scipy.spatial.procrustes``:
    0 when one arrangement is a translated, scaled, rotated or mirrored copy of the other,
    up to 1). A 2-D sheet and 3-D cortical coordinates are compared by padding with zeros.

    Parameters
    ----------
    centroids_a, centroids_b : array (n_regions, d) or mapping name -> coordinates
        Mappings are matched by name (none in common: ``n_regions`` 0, NaN statistics);
        regions with NaN coordinates in either are left out.

    Returns
    -------
    dict
        ``spearman``, ``spearman_p``, ``procrustes`` (disparity), ``n_regions`` and
        ``regions`` (the names used, for mappings).

    Examples
    --------
    >>> sheet = np.array([[0.0, 0], [10, 0], [0, 5], [8, 9]])
    >>> rot = np.array([[0.0, -1], [1, 0]])
    >>> res = arrangement_similarity(sheet, 3 * sheet @ rot + 7)
    >>> round(res["spearman"], 6), round(res["procrustes"], 6)
    (1.0, 0.0)
    """
    names = None
    if isinstance(centroids_a, Mapping) or isinstance(centroids_b, Mapping):
        if not (isinstance(centroids_a, Mapping) and isinstance(centroids_b, Mapping)):
            raise InvalidDataError("Give both centroid sets as mappings, or both as arrays.")
        names = [k for k in centroids_a if k in centroids_b]
        a, b = (np.array([np.asarray(c[k], float) for k in names]).reshape(len(names), -1)
                if names else np.zeros((0, 2)) for c in (centroids_a, centroids_b))
    else:
        a, b = np.asarray(centroids_a, float), np.asarray(centroids_b, float)
        if a.ndim != 2 or b.ndim != 2 or a.shape[0] != b.shape[0]:
            raise InvalidDataError(
                f"Centroid arrays must be (n_regions, d) with the same n_regions; got "
                f"{a.shape} and {b.shape}."
            )
    ok = np.isfinite(a).all(1) & np.isfinite(b).all(1) if a.size and b.size else np.zeros(0, bool)
    a, b = a[ok], b[ok]
    used = [n for n, k in zip(names, ok) if k] if names is not None else None
    out = {"spearman": np.nan, "spearman_p": np.nan, "procrustes": np.nan, "n_regions": len(a)}
    if used is not None:
        out["regions"] = used
    if len(a) < 3:
        return out
    da, db = pdist(a), pdist(b)
    if np.ptp(da) > 0 and np.ptp(db) > 0:
        from scipy.stats import spearmanr  # on first use: scipy.stats is a heavy import

        res = spearmanr(da, db)
        out["spearman"], out["spearman_p"] = float(res.statistic), float(res.pvalue)
    dim = max(a.shape[1], b.shape[1])
    a = np.pad(a, ((0, 0), (0, dim - a.shape[1])))
    b = np.pad(b, ((0, 0), (0, dim - b.shape[1])))
    if np.ptp(a, axis=0).any() and np.ptp(b, axis=0).any():
        out["procrustes"] = float(procrustes(a, b)[2])
    return out


@validate_params({"n_permutations": N_PERMUTATIONS, "random_state": SEED})
@fill_doc
def pair_similarity(tm_a, tm_b, *, n_permutations=1000, random_state: RandomState = None):
    """SSIM on a sheet, Pearson on a mesh, with the shift null where it can be drawn.

    On a mesh the shift null is the spin test, which needs sphere coordinates; for other
    positions (flat maps) the statistic comes without a null, and ``attrs["null_note"]`` says
    why. :func:`topography_table` and the main job's random-initialisation baseline measure
    every map pair with it.

    Parameters
    ----------
    tm_a : TopoMap
        The first map (:func:`as_topomap`); a sheet is compared by SSIM.
    tm_b : TopoMap
        The second map, on the same points as ``tm_a``.
    %(n_permutations)s
    %(random_state)s

    Returns
    -------
    NullResult
        The statistic with its null (``attrs["method"]`` names the statistic).

    Examples
    --------
    >>> from toponeuro.analysis import as_topomap
    >>> rr, cc = np.mgrid[:12, :12]
    >>> a = as_topomap(np.exp(-((rr - 3) ** 2 + (cc - 4) ** 2) / 6.0))
    >>> res = pair_similarity(a, a, n_permutations=0)
    >>> res.attrs["method"], round(float(res.statistic), 3)
    ('ssim', 1.0)
    """
    method = "ssim" if tm_a.grid_shape is not None else "pearson"

    def compute():
        try:
            return map_similarity(tm_a, tm_b, method, n_permutations=n_permutations,
                                  random_state=random_state)
        except InvalidDataError as err:
            if method == "ssim" or not n_permutations:
                raise
            res = map_similarity(tm_a, tm_b, method, n_permutations=0)
            res.attrs["null_note"] = f"no spin test: {err}"
            return res

    if method == "ssim" or not n_permutations:
        return compute()
    return _null_cache.cached_result("pair-similarity", [tm_a, tm_b], {
        "method": method, "n_permutations": int(n_permutations)}, random_state, compute, NullResult)
