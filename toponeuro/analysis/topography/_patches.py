"""Category-selective patches as TDANN finds them, each with a cluster-level p-value.

TDANN's procedure (neuroailab/TDANN, ``spacetorch/maps/it_map.py``, ``ITMap.find_patches``):
Gaussian smoothing of the selectivity map (sigma 2.4 mm on its 70 mm ventral temporal
sheet, ``spacetorch/constants.py`` ``VTC_SIZE``), threshold (t >= 2), connected
components, kept when their area lies within 100 and 4,500 mm^2 and they hold at least 10
units. toponeuro scales the millimetres to a model sheet by the sheet's side: sigma = 2.4 / 70
of the side of the square of the sheet's area (sqrt(h * w) unit spacings), areas as fractions
of the sheet (100 / 4,900 and 4,500 / 4,900). TDANN measures a patch's area by the concave
hull of its units; here it is the number of units.

TDANN reports no significance. Each patch here gets a family-wise p-value from the spatial
null, as in fMRI cluster inference (Nichols & Holmes 2002): the map's values are scattered over
its units at random (``null="positions"``), smoothed and thresholded the same way, and the
largest cluster statistic of each draw (cluster mass, the sum of ``value - threshold`` over
its units, or its size) forms the null a patch is compared with.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from numbers import Integral, Real

import numpy as np
import pandas as pd
from scipy import ndimage, sparse
from scipy.sparse import csgraph
from scipy.spatial import cKDTree

from ..._util.constraints import MAPPING, NDARRAY
from ..._util.frozen import validate_fields
from ..._util.params import (
    ALPHA,
    N_PERMUTATIONS,
    NUMBER,
    SEED,
    InstanceOf,
    Interval,
    Options,
    Text,
    check_random_state,
    validate_params,
)
from ..._util.typing import RandomState
from ...exceptions import InvalidDataError, ParameterError, UnknownNameError
from ._geometry import _fill, _map_of
from ._null import null_p_value
from ._null_registry import register_statistic
from ._topography import _check_values
from ._topomap import TopoMap

__all__ = ["Patches", "find_patches", "check_patch_params", "TDANN_PATCHES", "PATCH_STATISTICS"]

#: TDANN's patch parameters (spacetorch/maps/it_map.py, ITMap.find_patches defaults)
TDANN_PATCHES = {
    "threshold": 2.0,
    "sigma_mm": 2.4,
    "sheet_mm": 70.0,
    "min_area_mm2": 100.0,
    "max_area_mm2": 4500.0,
    "min_count": 10,
}
TDANN_PATCH_REFERENCE = (
    "Margalit et al. (2024) Neuron 112(14), 2435-2451; neuroailab/TDANN "
    "spacetorch/maps/it_map.py ITMap.find_patches (threshold 2, sigma 2.4 mm, 100-4500 mm^2, "
    "at least 10 units; 70 mm sheet, spacetorch/constants.py)"
)
CLUSTER_REFERENCE = (
    "Nichols & Holmes (2002) Nonparametric permutation tests for functional neuroimaging. "
    "Hum Brain Mapp 15(1), 1-25 (max-cluster null, family-wise)"
)
#: cluster statistic of the patch null
PATCH_STATISTICS = ("mass", "size")
_SHEET_AREA = TDANN_PATCHES["sheet_mm"] ** 2


@dataclass(frozen=True, eq=False)
@validate_fields({
    "table": InstanceOf(pd.DataFrame, "a pandas.DataFrame", example=pd.DataFrame),
    "labels": NDARRAY, "smoothed": NDARRAY,
    "map": InstanceOf(TopoMap, "a TopoMap", example=lambda: TopoMap(np.zeros(1), np.zeros((1, 2)))),
    "threshold": NUMBER, "null": NDARRAY, "alpha": ALPHA, "attrs": MAPPING})
class Patches:
    """Connected patches of a thresholded map (from :func:`find_patches`).

    Parameters
    ----------
    table : pandas.DataFrame
        One row per patch, largest first: ``patch`` (label), ``n_units`` (points),
        ``fraction`` (of the map's points with values), the centroid (``row``/``col`` on a
        sheet, ``x``/``y``[/``z``] on a mesh), ``peak`` value, ``peak_index``, ``mean``,
        ``mass`` (sum of ``value - threshold``) and ``p_value`` (family-wise, NaN without a
        null).
    labels : numpy.ndarray
        Patch label of every point (0 = outside), same order as ``map.values``.
    smoothed : numpy.ndarray
        The (smoothed) values that were thresholded.
    map : TopoMap
        The map the patches were found on.
    threshold : float
        The level the smoothed values were thresholded at.
    null : numpy.ndarray
        Largest cluster statistic of each null draw (empty without a null).
    alpha : float
        Level of :attr:`significant`.
    attrs : dict
        ``method``, parameters (sigma, areas, statistic, null), ``reference``.

    Examples
    --------
    >>> rr, cc = np.mgrid[:20, :20]
    >>> p = find_patches(np.exp(-((rr - 5) ** 2 + (cc - 12) ** 2) / 8.0), threshold=0.5)
    >>> isinstance(p, Patches), p.n_patches, p.labels.shape == p.smoothed.shape
    (True, 1, True)
    """

    table: pd.DataFrame
    labels: np.ndarray
    smoothed: np.ndarray
    map: TopoMap
    threshold: float
    null: np.ndarray = field(default_factory=lambda: np.zeros(0))
    alpha: float = 0.05
    attrs: dict = field(default_factory=dict)

    @property
    def n_patches(self) -> int:
        """Number of patches."""
        return len(self.table)

    @property
    def centroids(self) -> np.ndarray:
        """``(n_patches, d)`` centroid coordinates, largest patch first."""
        cols = (
            ["row", "col"]
            if self.map.kind == "sheet"
            else ["x", "y", "z"][: self.map.positions.shape[1]]
        )
        return self.table[cols].to_numpy(dtype=float)

    @property
    def significant(self) -> Patches:
        """The patches with ``p_value <= alpha`` (labels of the others set to 0).

        Raises
        ------
        InvalidDataError
            No null was drawn (``n_permutations=0``).
        """
        if not self.null.size:
            raise InvalidDataError(
                "These patches have no null, so none is significant or not; call "
                "find_patches(..., n_permutations=1000)."
            )
        keep = self.table["p_value"].to_numpy(float) <= self.alpha
        kept = self.table.loc[keep].reset_index(drop=True)
        labels = np.where(np.isin(self.labels, kept["patch"].to_numpy()), self.labels, 0)
        return replace(self, table=kept, labels=labels)

    def label_grid(self) -> np.ndarray:
        """Patch labels on the sheet grid (sheets only).

        Returns
        -------
        numpy.ndarray
            ``grid_shape`` integer labels (0: no patch).
        """
        return self.map.grid(self.labels)


# --------------------------------------------------------------------------- kernels


def _tdann_sigma(tm: TopoMap) -> float:
    if tm.grid_shape is not None:
        h, w = tm.grid_shape
        return TDANN_PATCHES["sigma_mm"] / TDANN_PATCHES["sheet_mm"] * float(np.sqrt(h * w))
    return TDANN_PATCHES["sigma_mm"]  # a mesh in mm


def _smoother(tm: TopoMap, sigma: float):
    """``f(values (B, n)) -> (B, n)``: NaN-aware Gaussian smoothing (weighted mean)."""
    ok = tm.finite
    if not sigma:
        return lambda v: np.where(ok, v, np.nan)
    if tm.grid_shape is not None:
        h, w = tm.grid_shape
        den = ndimage.gaussian_filter(ok.astype(float).reshape(h, w), sigma, mode="constant")
        den = np.where(den > 0, den, np.nan).ravel()

        def f(v):
            num = ndimage.gaussian_filter(
                np.where(ok, v, 0.0).reshape(-1, h, w), (0, sigma, sigma), mode="constant"
            )
            out = num.reshape(v.shape[0], -1) / den
            return np.where(ok, out, np.nan)

        return f
    tree = cKDTree(tm.positions)
    pairs = tree.sparse_distance_matrix(tree, 3.0 * sigma, output_type="coo_matrix")
    # sparse_distance_matrix leaves the zero self-distances out; add the diagonal back
    rows = np.concatenate([pairs.row, np.arange(tm.n)])
    cols = np.concatenate([pairs.col, np.arange(tm.n)])
    d = np.concatenate([pairs.data, np.zeros(tm.n)])
    wts = np.exp(-0.5 * (d / sigma) ** 2) * ok[cols]
    kern = sparse.csr_matrix((wts, (rows, cols)), shape=(tm.n, tm.n))
    den = np.asarray(kern.sum(1)).ravel()
    den = np.where(den > 0, den, np.nan)

    def g(v):
        out = (kern @ np.where(ok, v, 0.0).T).T / den
        return np.where(ok, out, np.nan)

    return g


def _label(above: np.ndarray, tm: TopoMap, connectivity: int) -> np.ndarray:
    """Connected components of each row of ``above`` (B, n); labels unique over the batch."""
    b = above.shape[0]
    if tm.grid_shape is not None and tm.adjacency is None:
        plane = ndimage.generate_binary_structure(2, connectivity)
        struct = np.zeros((3, 3, 3), dtype=bool)
        struct[1] = plane  # no connection across the batch axis
        lab, _ = ndimage.label(above.reshape(b, *tm.grid_shape), structure=struct)
        return lab.reshape(b, -1)
    adj = tm._adjacency()
    out = np.zeros(above.shape, dtype=np.int64)
    offset = 0
    for i in range(b):
        idx = np.flatnonzero(above[i])
        if idx.size:
            n_comp, comp = csgraph.connected_components(adj[idx][:, idx], directed=False)
            out[i, idx] = comp + 1 + offset
            offset += n_comp
    return out


def _cluster_stats(sm, labels, threshold, min_n, max_n, statistic):
    """Per label: size, mass, kept (size rules), statistic; index 0 = background."""
    flat = labels.ravel()
    n_lab = int(flat.max()) + 1 if flat.size else 1
    size = np.bincount(flat, minlength=n_lab)
    excess = np.where(flat > 0, np.nan_to_num(sm.ravel() - threshold, nan=0.0), 0.0)
    mass = np.bincount(flat, weights=excess, minlength=n_lab)
    kept = (size >= min_n) & (size <= max_n)
    kept[0] = False
    stat = mass if statistic == "mass" else size.astype(float)
    return size, mass, kept, stat


def _max_per_draw(sm, labels, threshold, min_n, max_n, statistic) -> np.ndarray:
    b = labels.shape[0]
    _, _, kept, stat = _cluster_stats(sm, labels, threshold, min_n, max_n, statistic)
    owner = np.zeros(kept.size, dtype=np.int64)
    rows = np.repeat(np.arange(b), labels.shape[1])
    owner[labels.ravel()] = rows  # every label lives in one draw
    out = np.zeros(b)
    np.maximum.at(out, owner[kept], stat[kept])
    return out


def _sizes(tm, n_total, min_units, min_fraction, max_fraction):
    min_n = max(int(min_units), int(np.ceil(min_fraction * n_total)))
    max_n = int(np.floor(max_fraction * n_total)) if max_fraction < 1 else n_total
    return min_n, max_n


# --------------------------------------------------------------------------- find_patches


_TDANN = Options(("tdann",), error=UnknownNameError)
_FRACTION = [Interval(Real, 0, 1, closed="both"), _TDANN]
#: the declared parameters of the patch rule (find_patches, check_patch_params)
PATCH_PARAMS = {
    "threshold": Interval(Real),
    "min_units": Interval(Integral, 1, None, closed="left"),
    "smooth_sigma": [Interval(Real, 0, None, closed="left", fix="0 turns smoothing off."),
                     _TDANN],
    "min_fraction": _FRACTION,
    "max_fraction": _FRACTION,
    "connectivity": Options((1, 2)),
    "n_permutations": N_PERMUTATIONS,
    "statistic": Options(PATCH_STATISTICS, error=UnknownNameError),
    "alpha": ALPHA,
    "random_state": SEED,
}


@validate_params(PATCH_PARAMS)
@_fill
def check_patch_params(threshold=TDANN_PATCHES["threshold"], min_units=TDANN_PATCHES["min_count"],
                       smooth_sigma="tdann", *, min_fraction="tdann", max_fraction="tdann",
                       connectivity=1, n_permutations=1000, statistic="mass", alpha=0.05,
                       random_state=None) -> dict:
    """The parameters of :func:`find_patches`, checked (before any map is read).

    Callers that pass them on later (``topography_table``, ``run_map``) call this first, so
    a bad value is refused at once, in the parameter's name, with its valid range.

    Parameters
    ----------
    threshold : float
        As :func:`find_patches` (TDANN's ``t >= 2``).
    min_units : int
        As :func:`find_patches`, at least 1 (TDANN: 10).
    smooth_sigma : float or "tdann"
        As :func:`find_patches`, at least 0.
    min_fraction : float or "tdann"
        As :func:`find_patches`, in [0, 1].
    max_fraction : float or "tdann"
        As :func:`find_patches`, in [0, 1] and at least ``min_fraction``.
    connectivity : {1, 2}
        As :func:`find_patches`.
    %(n_permutations)s
    statistic : {"mass", "size"}
        As :func:`find_patches`.
    %(alpha)s
    %(random_state)s

    Returns
    -------
    dict
        The checked values by name (all but ``random_state``), as :func:`find_patches`
        uses them.

    Examples
    --------
    >>> check_patch_params(threshold=3.0)["threshold"]
    3.0
    >>> check_patch_params(alpha=1)
    Traceback (most recent call last):
    ...
    toponeuro.exceptions.ParameterError: alpha=1 is not a finite number in (0, 1). 0.05 is the usual choice.
    """
    # each value is declared (PATCH_PARAMS); only their order is checked here
    _check_fraction_order(min_fraction, max_fraction)
    return {"threshold": threshold, "min_units": min_units, "smooth_sigma": smooth_sigma,
            "min_fraction": min_fraction, "max_fraction": max_fraction,
            "connectivity": connectivity, "n_permutations": n_permutations,
            "statistic": statistic, "alpha": alpha}


def _check_fraction_order(min_fraction, max_fraction):
    if not isinstance(min_fraction, str) and not isinstance(max_fraction, str) and (
        min_fraction > max_fraction
    ):
        raise ParameterError(
            f"min_fraction must not exceed max_fraction; got min_fraction={min_fraction:g} > "
            f"max_fraction={max_fraction:g} (no patch could have a size between them)."
        )


@validate_params(dict(PATCH_PARAMS, layer=[Text(), None]))
@_fill
def find_patches(
    data,
    threshold: float = TDANN_PATCHES["threshold"],
    min_units: int = TDANN_PATCHES["min_count"],
    smooth_sigma="tdann",
    *,
    min_fraction="tdann",
    max_fraction="tdann",
    connectivity: int = 1,
    n_permutations: int = 1000,
    statistic: str = "mass",
    alpha: float = 0.05,
    random_state: RandomState = None,
    layer: str | None = None,
    geometry: Mapping | None = None,
) -> Patches:
    """Patches where the smoothed map reaches ``threshold`` (TDANN), each with a p-value.

    Parameters
    ----------
    data : map
        See :func:`as_topomap`. On a mesh an ``adjacency`` (neighbour graph) is needed.
    threshold : float
        Points with value ``>= threshold`` (after smoothing) form patches; TDANN's ``t >= 2``
        by default (``0.5`` for a binary ROI map).
    min_units : int
        Patches with fewer points are dropped (TDANN: 10).
    smooth_sigma : float or "tdann"
        Gaussian smoothing before thresholding (sheet: unit spacings; mesh: units of
        ``positions``, Euclidean kernel); NaN points are ignored by the kernel. ``"tdann"``:
        2.4 mm on TDANN's 70 mm sheet, i.e. ``2.4 / 70 * sqrt(h * w)`` unit spacings (mesh:
        2.4, positions in mm). 0 turns smoothing off.
    min_fraction, max_fraction : float or "tdann"
        Smallest and largest patch as a fraction of the map's points, in [0, 1] with
        ``min_fraction <= max_fraction``. ``"tdann"``: 100 and
        4,500 mm^2 of the 4,900 mm^2 sheet (2.0 %% and 91.8 %%; on a mesh 0 and 1).
    connectivity : {1, 2}
        On a sheet: 1 = edge neighbours (4), 2 = edge and corner neighbours (8).
    %(n_permutations)s
        Here: the positions null's draws.
    statistic : {"mass", "size"}
        Cluster statistic compared with the null's largest cluster of each draw.
    %(alpha)s
        Here: the level of :attr:`Patches.significant`.
    %(random_state)s
    %(geometry)s

    Returns
    -------
    Patches
        ``.table`` (area, centroid, peak, mass, p-value per patch), ``.labels``,
        ``.significant``, ``.null``, ``.attrs``.

    Examples
    --------
    >>> rr, cc = np.mgrid[:30, :40]
    >>> blob = 6 * np.exp(-((rr - 10) ** 2 + (cc - 25) ** 2) / (2 * 3.0**2))
    >>> p = find_patches(blob, random_state=0)
    >>> p.n_patches, p.centroids.round(1).tolist(), round(float(p.table["p_value"][0]), 4)
    (1, [[10.0, 25.0]], 0.001)
    """
    p = check_patch_params(threshold, min_units, smooth_sigma, min_fraction=min_fraction,
                           max_fraction=max_fraction, connectivity=connectivity,
                           n_permutations=n_permutations, statistic=statistic, alpha=alpha,
                           random_state=random_state)
    threshold, min_units, n_permutations, alpha = (p["threshold"], p["min_units"],
                                                   p["n_permutations"], p["alpha"])
    tm = _map_of(data, layer, geometry)
    _check_values(tm, "finding patches")  # no values: no patches is no finding
    sigma, min_fraction, max_fraction, min_n, max_n = _rules_on(
        tm, smooth_sigma, min_fraction, max_fraction, min_units)
    n_total = int(tm.finite.sum())
    smooth = _smoother(tm, sigma)

    sm = smooth(tm.values[None, :])
    lab = _label(np.nan_to_num(sm, nan=-np.inf) >= threshold, tm, connectivity)
    size, mass, kept, stat = _cluster_stats(sm, lab, threshold, min_n, max_n, statistic)
    sm, lab = sm[0], lab[0]

    rng = check_random_state(random_state)
    null = _patch_null(tm, smooth, threshold, connectivity, min_n, max_n, statistic,
                       int(n_permutations), rng)

    pos_cols = ["row", "col"] if tm.kind == "sheet" else ["x", "y", "z"][: tm.positions.shape[1]]
    order = [k for k in np.argsort(-size, kind="stable") if kept[k]]
    rows, labels_out = [], np.zeros(tm.n, dtype=int)
    for new, k in enumerate(order, start=1):
        members = np.flatnonzero(lab == k)
        labels_out[members] = new
        vals = sm[members]
        peak_i = members[int(np.nanargmax(vals))]
        rows.append(
            {
                "patch": new,
                "n_units": members.size,
                "fraction": members.size / max(n_total, 1),
                **dict(zip(pos_cols, tm.positions[members].mean(0).tolist())),
                "peak": float(sm[peak_i]),
                "peak_index": int(peak_i),
                "mean": float(np.nanmean(vals)),
                "mass": float(mass[k]),
                "p_value": null_p_value(stat[k], null) if null.size else np.nan,
            }
        )
    cols = ["patch", "n_units", "fraction", *pos_cols, "peak", "peak_index", "mean", "mass",
            "p_value"]
    attrs = {
        "method": "tdann" if smooth_sigma == "tdann" else "threshold",
        "threshold": float(threshold),
        "smooth_sigma": float(sigma),
        "min_units": int(min_n),
        "max_units": int(max_n),
        "min_fraction": float(min_fraction),
        "max_fraction": float(max_fraction),
        "connectivity": int(connectivity),
        "area": "number of units (TDANN: concave-hull area in mm^2)",
        "statistic": statistic,
        "null": "positions" if null.size else "none",
        "n_permutations": int(null.size),
        "alpha": float(alpha),
        "reference": TDANN_PATCH_REFERENCE,
        "null_reference": CLUSTER_REFERENCE,
    }
    return Patches(
        table=pd.DataFrame(rows, columns=cols),
        labels=labels_out,
        smoothed=sm,
        map=tm,
        threshold=float(threshold),
        null=null,
        alpha=float(alpha),
        attrs=attrs,
    )



def _rules_on(tm, smooth_sigma, min_fraction, max_fraction, min_units):
    """The patch rules resolved on one map: ``(sigma, min_fraction, max_fraction, min_n,
    max_n)``, ``"tdann"`` meaning TDANN's values (areas in mm² on a sheet; none on a mesh)."""
    sigma = _tdann_sigma(tm) if isinstance(smooth_sigma, str) else float(smooth_sigma)
    on_sheet = tm.grid_shape is not None
    lo = TDANN_PATCHES["min_area_mm2"] / _SHEET_AREA if on_sheet else 0.0
    hi = TDANN_PATCHES["max_area_mm2"] / _SHEET_AREA if on_sheet else 1.0
    lo = lo if min_fraction == "tdann" else float(min_fraction)
    hi = hi if max_fraction == "tdann" else float(max_fraction)
    _check_fraction_order(lo, hi)
    min_n, max_n = _sizes(tm, int(tm.finite.sum()), min_units, lo, hi)
    return sigma, lo, hi, min_n, max_n

def _patch_factory(tms, *, threshold=TDANN_PATCHES["threshold"],
                   min_units=TDANN_PATCHES["min_count"], smooth_sigma="tdann",
                   min_fraction="tdann", max_fraction="tdann", connectivity=1, what="count",
                   rng=None):
    """Batched patch statistic of one map (:func:`find_patches`' rules): ``what="count"``
    the number of patches, ``"units"`` the units in them (their area), per draw."""
    if len(tms) != 1:
        raise InvalidDataError(f"Patch statistics are of one map; got {len(tms)}.")
    p = check_patch_params(threshold, min_units, smooth_sigma, min_fraction=min_fraction,
                           max_fraction=max_fraction, connectivity=connectivity)
    tm = tms[0]
    _check_values(tm, "a patch statistic")
    sigma, _, _, min_n, max_n = _rules_on(tm, smooth_sigma, min_fraction, max_fraction,
                                          p["min_units"])
    smooth = _smoother(tm, sigma)
    thr = p["threshold"]

    def kernel(values):
        sm = smooth(values)
        lab = _label(np.nan_to_num(sm, nan=-np.inf) >= thr, tm, connectivity)
        size, _, kept, _ = _cluster_stats(sm, lab, thr, min_n, max_n, "size")
        owner = np.zeros(kept.size, dtype=np.int64)
        owner[lab.ravel()] = np.repeat(np.arange(values.shape[0]), lab.shape[1])
        weight = np.ones(kept.size) if what == "count" else size.astype(float)
        return np.bincount(owner[kept], weights=weight[kept], minlength=values.shape[0])

    attrs = {"method": "n_patches" if what == "count" else "patch_units",
             "threshold": float(thr), "smooth_sigma": float(sigma), "min_units": int(min_n),
             "max_units": int(max_n), "connectivity": int(connectivity),
             "reference": TDANN_PATCH_REFERENCE}
    return kernel, attrs


register_statistic("n_patches", _patch_factory)
register_statistic("patch_units", lambda tms, **kw: _patch_factory(tms, what="units", **kw))


def _patch_null(tm, smooth, threshold, connectivity, min_n, max_n, statistic, n, rng):
    """Largest cluster statistic of ``n`` positions-null draws (0 where a draw has none)."""
    if n <= 0:
        return np.zeros(0)
    fin = np.flatnonzero(tm.finite)
    vals = tm.values[fin]
    out = []
    chunk = max(1, min(n, 2_000_000 // max(tm.n, 1)))
    for lo in range(0, n, chunk):
        b = min(chunk, n - lo)
        perm = np.argsort(rng.random((b, fin.size)), axis=1)
        batch = np.full((b, tm.n), np.nan)
        batch[:, fin] = vals[perm]
        sm = smooth(batch)
        lab = _label(np.nan_to_num(sm, nan=-np.inf) >= threshold, tm, connectivity)
        out.append(_max_per_draw(sm, lab, threshold, min_n, max_n, statistic))
    return np.concatenate(out)
