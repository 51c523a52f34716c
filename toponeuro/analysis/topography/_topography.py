"""Topography metrics on a model's sheet or on the cortex: smoothness, patches, map similarity.

Every metric reads its input with :func:`as_topomap`, so the same call works on a per-unit
selectivity map (plus ``layer``), a ``(row, col)`` sheet map, or values on cortical vertices
with ``positions`` (and ``distance`` / ``adjacency`` where needed).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from numbers import Integral, Real

import numpy as np
import xarray as xr

from ..._util import dims as D
from ..._util.params import (
    N_PERMUTATIONS,
    SEED,
    Interval,
    Options,
    check_int,
    check_number,
    check_random_state,
    validate_params,
)
from ..._util.stack import user_stacklevel
from ..._util.typing import RandomState
from ...exceptions import (
    CoordinateError,
    DimensionError,
    InvalidDataError,
    ToponeuroWarning,
    UndefinedValueWarning,
    UnknownNameError,
    close_matches,
)
from ._geometry import _check_geometry, _check_sheet, _fill, _map_of
from ._null import NullResult, run_null
from ._null_registry import register_statistic
from ._pvalues import ALTERNATIVE
from ._similarity import SIMILARITY_METHODS, _corr_factory, _ssim_factory
from ._smoothness_kernel import (
    _bin_edges,
    _binned,
    _pair_distances,
    _samples,
    _SmoothnessKernel,
)
from ._topomap import TopoMap

__all__ = [
    "SIMILARITY_METHODS",
    "SMOOTHNESS_METHODS",
    "smoothness",
    "correlation_profile",
    "map_similarity",
]

# --------------------------------------------------------------------------- smoothness


def _profile_dataset(profiles, counts, edges, name, attrs) -> xr.Dataset:
    centers = 0.5 * (edges[:-1] + edges[1:])
    profiles = np.asarray(profiles)
    return xr.Dataset(
        {
            "profiles": ((D.SAMPLE, D.DISTANCE), profiles),
            "profile": ((D.DISTANCE,), np.nanmean(profiles, axis=0)),
            "pair_counts": ((D.DISTANCE,), np.asarray(counts).sum(0)),
        },
        coords={
            D.DISTANCE: centers,
            "bin_lo": (D.DISTANCE, edges[:-1]),
            "bin_hi": (D.DISTANCE, edges[1:]),
        },
        attrs={"map": name, **attrs},
    )


#: where the smoothness score comes from
TDANN_REFERENCE = (
    "Margalit et al. (2024) A unifying framework for functional organization in early and "
    "higher ventral visual cortex. Neuron 112(14), 2435-2451; code: neuroailab/TDANN, "
    "spacetorch/utils/spatial_utils.py (smoothness) and spacetorch/maps/it_map.py "
    "(category_smoothness)"
)
#: what was found of the TopoNets paper's own smoothness definition
TOPONETS_SMOOTHNESS_NOTE = (
    "The TopoNets paper (Deb, Deb & Murty, ICLR 2025; arXiv 2501.16396) reports a "
    "'smoothness' whose values exceed 1; its defining formula was not in the sources read for "
    "toponeuro (project page toponets.github.io, murtylab/topoloss, toponets/toponets), so it "
    "is not implemented. The score here is TDANN's, which cannot exceed 1; do not compare it "
    "with the TopoNets figures."
)
SMOOTHNESS_METHODS = ("tdann",)
#: sample_size=None uses every point once up to this many points, else samples of 500
_ALL_PAIRS_MAX = 1000
def _check_sampling(n_samples, sample_size, n_bins, max_distance):
    """The point-sampling and binning parameters of smoothness and correlation_profile."""
    n_samples = check_int(n_samples, "n_samples", lo=1)
    if sample_size is not None:
        sample_size = check_int(
            sample_size, "sample_size", lo=3,
            fix="Two points make one pair, one distance bin: no profile to score.",
        )
    n_bins = check_int(
        n_bins, "n_bins", lo=2,
        fix="With one bin the first bin is the maximum, so the score is 0 by construction.",
    )
    if max_distance is not None:
        max_distance = check_number(max_distance, "max_distance", lo=0, lo_open=True)
    return n_samples, sample_size, n_bins, max_distance


#: the point-sampling and binning parameters of smoothness and correlation_profile, declared
_SAMPLING = {
    "n_samples": Interval(Integral, 1, None, closed="left"),
    "sample_size": [Interval(Integral, 3, None, closed="left", fix=(
        "Two points make one pair, one distance bin: no profile to score.")), None],
    "n_bins": Interval(Integral, 2, None, closed="left", fix=(
        "With one bin the first bin is the maximum, so the score is 0 by construction.")),
    "max_distance": [Interval(Real, 0, None, closed="neither"), None],
    "random_state": SEED,
}


def _smoothness_setup(tm, n_samples, sample_size, n_bins, max_distance, rng):
    n_samples, sample_size, n_bins, max_distance = _check_sampling(
        n_samples, sample_size, n_bins, max_distance
    )
    if sample_size is None:
        sample_size = int(tm.finite.sum()) if tm.finite.sum() <= _ALL_PAIRS_MAX else 500
    kernel = _SmoothnessKernel(tm, tm.finite, n_samples, sample_size, n_bins, max_distance, rng)
    attrs = {
        "method": "tdann",
        "formula": "(max - first bin) / max of mean |v_i - v_j| in distance bins",
        "n_samples": int(len(kernel.samples)),
        "sample_size": int(sample_size),
        "n_bins": int(len(kernel.edges) - 1),
        "max_distance": float(kernel.edges[-1]),
        "reference": TDANN_REFERENCE,
        "toponets_definition": TOPONETS_SMOOTHNESS_NOTE,
    }
    return kernel, attrs


def _check_values(tm: TopoMap, what: str) -> None:
    """An all-NaN (or nearly empty) map is bad input, not an undefined value."""
    n_ok = int(tm.finite.sum())
    if n_ok < 3:
        raise InvalidDataError(
            f"{tm.name or 'The map'} has {n_ok} of {tm.n} points with a finite value; {what} "
            "needs at least 3. Check the map (an all-NaN map usually means the selectivity "
            "of a category absent from the stimuli, or units that never respond)."
        )


def _smoothness_undefined(tm: TopoMap, attrs: dict) -> str:
    """Why TDANN's score is undefined for this map ("" when it is defined)."""
    if attrs["n_bins"] < 2:
        return (f"its points span only one distance bin (max_distance "
                f"{attrs['max_distance']:.3g}, bins at least 1.5 point spacings wide), so "
                "neighbours cannot be compared with distant points; sheets need at least 6 x 6 "
                "units (or pass a larger max_distance).")
    v = tm.values[tm.finite]
    if np.ptp(v) == 0:
        return "the map is constant (no differences between points)."
    return ""


class _nan_kernel:  # noqa: N801 -- stands in for a _SmoothnessKernel
    """A smoothness kernel whose score is NaN (undefined), keeping the bins and samples."""

    def __init__(self, kernel):
        self._k = kernel
        self.samples, self.edges = kernel.samples, kernel.edges

    def profiles(self, values):
        return self._k.profiles(values)

    def __call__(self, values):
        return np.full(np.atleast_2d(values).shape[0], np.nan)

    def score_profiles(self, profiles):
        return np.full(len(profiles), np.nan)


@validate_params(dict(_SAMPLING, n_permutations=N_PERMUTATIONS))
@_fill
def smoothness(
    data,
    *,
    method: str = "tdann",
    n_samples: int = 20,
    sample_size: int | None = None,
    n_bins: int = 10,
    max_distance: float | None = None,
    n_permutations: int = 0,
    null: str = "positions",
    random_state: RandomState = None,
    layer: str | None = None,
    geometry: Mapping | None = None,
) -> xr.Dataset:
    """Smoothness of a map: how much less neighbours differ than distant points (TDANN).

    TDANN's score (Margalit et al. 2024; ``spacetorch.utils.spatial_utils.smoothness``): for
    each sample of points, the absolute difference ``|v_i - v_j|`` of every pair is averaged
    in distance bins (0 to ``max_distance``) and the sample's score is
    ``(max - first bin) / max`` of that profile. A smooth map (neighbours alike) scores near
    1; a map with no spatial structure near 0; the score cannot exceed 1.

    The TopoNets paper reports a "smoothness" above 1 -- a different definition, not
    implemented here because its formula could not be found (see ``attrs["toponets_definition"]``
    and the "Metrics and their definitions" page).

    Parameters
    ----------
    data : map
        See :func:`as_topomap`.
    method : {"tdann"}
        The definition (the only one implemented).
    n_samples : int
        Random samples of points when the map has more than 1,000 points.
    sample_size : int, optional
        Points per sample, at least 3; default every point once for maps of at most 1,000
        points (no sampling noise), else 500 (TDANN's sample size).
    n_bins : int
        Distance bins, at least 2 (with one, the first bin is the maximum and the score 0 by
        construction); at most, fewer when bins would be narrower than 1.5 point spacings,
        so the first bin always holds the nearest neighbours.
    max_distance : float, optional
        Largest distance binned; default half the diagonal of the points' bounding box.
    %(n_permutations)s
        At most ``MAX_PERMUTATIONS`` (10**6; see :func:`spatial_null`). The samples and
        bins stay fixed, so the null varies the map only.
    null : {"positions"}
        ``"positions"``: the map's values scattered over its points at random.
    %(random_state)s
    %(geometry)s

    Returns
    -------
    xarray.Dataset
        ``score`` (mean over samples; NaN with an
        :class:`~toponeuro.exceptions.UndefinedValueWarning` where TDANN's score is
        undefined: a constant map, or points spanning fewer than 2 distance bins -- sheets
        smaller than 6 x 6), ``scores`` (per sample), ``profile`` (mean
        ``|difference|`` per distance bin), ``profiles`` (per sample), ``pair_counts``; coord
        ``distance`` = bin centres (sheet: unit spacings; mesh: the units of positions).
        ``null_mean``, ``null_std``, ``p_value``, ``z`` (NaN without a null) and ``null``
        (the draws, dim ``permutation``). ``attrs``: ``method``, ``formula``, parameters,
        ``reference``, ``null``, ``n_permutations``.

    Raises
    ------
    InvalidDataError
        Fewer than 3 points with a finite value (e.g. an all-NaN map).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> from scipy.ndimage import gaussian_filter
    >>> smooth = gaussian_filter(rng.standard_normal((32, 32)), 3)
    >>> res = smoothness(smooth, n_permutations=199, random_state=0)
    >>> float(res["score"]) > 0.5, float(res["p_value"]), res["profile"].dims
    (True, 0.005, ('distance',))
    """
    if method not in SMOOTHNESS_METHODS:
        hint = (
            " The TopoNets paper's definition is not implemented: " + TOPONETS_SMOOTHNESS_NOTE
            if method.lower().startswith("topo")
            else ""
        )
        raise UnknownNameError(
            f"Unknown smoothness method {method!r}; "
            f"{close_matches(method, SMOOTHNESS_METHODS)}{hint}"
        )
    if null != "positions":
        raise UnknownNameError(
            f"smoothness of one map takes null='positions'; got {null!r}. (A shift of one map "
            "keeps its smoothness by design, so it is no null for it.)"
        )
    rng = check_random_state(random_state)
    tm = _map_of(data, layer, geometry)
    _check_values(tm, "smoothness")
    kernel, attrs = _smoothness_setup(tm, n_samples, sample_size, n_bins, max_distance, rng)
    undefined = _smoothness_undefined(tm, attrs)
    if undefined:
        warnings.warn(f"{tm.name or 'The map'}: smoothness is undefined (NaN): {undefined}",
                      UndefinedValueWarning, stacklevel=user_stacklevel())
        kernel = _nan_kernel(kernel)
        n_permutations = 0
    profiles = kernel.profiles(tm.values[None, :])[0]
    counts = [c for (_, _, _, c) in kernel.samples]
    scores = kernel.scores(profiles) if not undefined else np.full(len(counts), np.nan)
    # the observed map's score from its profiles, not profiled a second time
    res = run_null(kernel, [tm], null, n_permutations, rng, attrs,
                   observed=float(kernel.score_profiles(profiles[None])[0]))
    ds = _profile_dataset(profiles, counts, kernel.edges, tm.name, res.attrs)
    ds["scores"] = ((D.SAMPLE,), np.asarray(scores))
    ds["score"] = res.statistic
    ds["null"] = ((D.PERMUTATION,), res.null)
    for key in ("null_mean", "null_std", "p_value", "z"):
        ds[key] = getattr(res, key)
    return ds

@validate_params(_SAMPLING)
@_fill
def correlation_profile(
    responses,
    *,
    n_samples: int = 20,
    sample_size: int = 500,
    n_bins: int = 10,
    max_distance: float | None = None,
    random_state: RandomState = None,
    layer: str | None = None,
    geometry: Mapping | None = None,
) -> xr.Dataset:
    """Correlation of unit (or vertex) responses as a function of their distance.

    Pearson correlation across stimuli of every sampled pair, averaged in distance bins. On a
    topographic sheet nearby units respond alike, so the profile falls with distance.

    Parameters
    ----------
    responses : xarray.DataArray or array (n_stimuli, n_points)
        Activations (dims ``("stimulus", "unit")``, pick ``layer``) or responses on mesh
        vertices with ``geometry``.
    n_samples : int
        Random samples of points when there are more than 1,000 (as in :func:`smoothness`).
    sample_size : int
        Points per sample (500; as in :func:`smoothness`).
    n_bins : int
        Distance bins, at least 2 (as in :func:`smoothness`).
    max_distance : float, optional
        Largest distance binned (as in :func:`smoothness`; default half the diagonal of the
        points' bounding box).
    %(random_state)s
    %(geometry)s

    Returns
    -------
    xarray.Dataset
        ``profile`` (mean r per bin), ``profiles`` (per sample), ``pair_counts``; coord
        ``distance``.

    Examples
    --------
    >>> from toponeuro import make_activations
    >>> acts = make_activations({"fc": 64}, n_stimuli=30, random_state=0)
    >>> prof = correlation_profile(acts, random_state=0)
    >>> prof["distance"].values.round(2).tolist()  # an 8 x 8 sheet: 3 bins up to 4.95
    [0.82, 2.47, 4.12]
    """
    if isinstance(responses, xr.DataArray) and D.UNIT in responses.dims:
        from ...sheet import check_activations

        check_activations(responses)
        layers = responses.topo.layers
        if layer is None and len(layers) > 1:
            raise CoordinateError(f"These activations hold layers {layers}; pass layer=...")
        sub = responses.topo.select(layer or layers[0])
        h, w = sub.topo.sheet_shape(layer or layers[0])
        _check_sheet(h, w, f"Layer {layer or layers[0]!r}")
        x = np.asarray(sub.transpose(D.STIMULUS, D.UNIT).values, dtype=float)
        tm = TopoMap(
            values=np.zeros(x.shape[1]),
            positions=sub.topo.positions(layer or layers[0]),
            name=str(layer or layers[0]),
        )
    else:
        x = np.asarray(responses, dtype=float)
        if x.ndim != 2:
            raise DimensionError(f"responses must be (n_stimuli, n_points); got shape {x.shape}.")
        tm = _map_of(np.zeros(x.shape[1]), geometry=geometry)
    rng = check_random_state(random_state)
    edges = _bin_edges(tm, n_bins, max_distance)
    good = x.std(0) > 0
    profiles, counts = [], []
    for idx in _samples(tm, good, n_samples, sample_size, rng):
        r = np.corrcoef(x[:, idx], rowvar=False)
        prof, cnt = _binned(_pair_distances(tm, idx), r[np.triu_indices(idx.size, k=1)], edges)
        profiles.append(prof)
        counts.append(cnt)
    attrs = {
        "method": "pearson r of unit responses across stimuli, mean per distance bin",
        "n_bins": int(len(edges) - 1),
        "max_distance": float(edges[-1]),
        "reference": "TDANN (Margalit et al. 2024) response correlation vs cortical distance; "
        "neuroailab/TDANN spacetorch/utils/spatial_utils.py agg_by_distance",
    }
    return _profile_dataset(profiles, counts, edges, tm.name, attrs)


# --------------------------------------------------------------------------- registry


def _smoothness_factory(tms, *, n_samples=20, sample_size=None, n_bins=10, max_distance=None,
                        rng=None):
    if len(tms) != 1:
        raise InvalidDataError(f"smoothness is a statistic of one map; got {len(tms)}.")
    rng = check_random_state(rng, "random_state")
    return _smoothness_setup(tms[0], n_samples, sample_size, n_bins, max_distance, rng)


#: named statistics of :func:`spatial_null`: factory(maps, **params) -> (kernel, attrs)
_STATISTIC_FACTORIES = {
    "ssim": _ssim_factory,
    "pearson": lambda tms, rng=None: _corr_factory(tms, method="pearson"),
    "spearman": lambda tms, rng=None: _corr_factory(tms, method="spearman"),
    "smoothness": _smoothness_factory,
}
for _name, _factory in _STATISTIC_FACTORIES.items():
    register_statistic(_name, _factory)


@validate_params({
    "method": Options(SIMILARITY_METHODS, error=UnknownNameError),
    "n_permutations": N_PERMUTATIONS,
    "alternative": ALTERNATIVE,
    "random_state": SEED,
})
@_fill
def map_similarity(
    map_a,
    map_b,
    method: str = "ssim",
    *,
    n_permutations: int = 1000,
    null: str | None = None,
    alternative: str = "two-sided",
    win_size: int | None = None,
    data_range: float | None = None,
    random_state: RandomState = None,
    layer: str | None = None,
    geometry: Mapping | None = None,
) -> NullResult:
    """Similarity of two maps on the same sheet, with its spatial null.

    ``"ssim"`` (default): structural similarity (Wang et al. 2004) of the two maps on the
    sheet grid, each map first put on an image's scale -- min-max rescaled to [0, 1] over its
    units -- so that overlap means overlap: a map scores 1 against itself and below 0 against
    its negative (as TopoNets' face-scene -0.41 implies). The number equals
    ``skimage.metrics.structural_similarity(a01, b01, win_size=7, data_range=1)`` on the
    rescaled maps ``a01``, ``b01``; default window scikit-image's 7 x 7 (smaller sheets: the
    largest odd size that fits). A given ``data_range`` compares the maps as they are instead
    (then a map and its negative can score above 0). ``"pearson"`` and ``"spearman"``
    correlate the maps across units and are position-free: shuffling every unit's position
    alike leaves them unchanged. :func:`overlap_verdict` turns the result into words.

    Parameters
    ----------
    map_a, map_b : map
        Two maps on the same sheet or mesh (see :func:`as_topomap`); per-unit maps with
        several layers need ``layer``. 1-D arrays without positions are compared element-wise
        (correlations only).
    method : {"ssim", "pearson", "spearman"}
    %(n_permutations)s
    null : str, optional
        Default ``"shift"`` (sheet: shifts within the mirrored sheet; mesh: the spin test):
        half the draws move ``map_b``, the same moves shift ``map_a`` in the other half, so
        swapping the maps gives the same null and p (with an even ``n_permutations``).
        Others (``map_b`` moves), and ``"positions"`` (no null for overlap; warns):
        :func:`spatial_null`.
    alternative : {"two-sided", "greater", "less"}
        The tail of ``p_value``: two-sided (default) tests "more *or* less alike than
        chance", the one test behind the three outcomes of :func:`overlap_verdict`.
    win_size, data_range : optional
        SSIM's window (odd) and data range (default: the rescaled maps, data range 1).
    %(random_state)s
    %(geometry)s

    Returns
    -------
    NullResult
        ``statistic``, ``p_value``, ``z``, ``null``; acts as a float. ``attrs``: ``method``,
        the parameters, ``reference``, ``null``, ``n_permutations``, and with the default
        null ``moves`` (each map in turn).

    Raises
    ------
    DimensionError
        The maps have different shapes or unit positions.
    InvalidDataError
        SSIM on a cortical mesh (no standard window there; use ``"pearson"``).

    Examples
    --------
    >>> a = np.arange(20.0).reshape(4, 5)
    >>> float(map_similarity(a, -a, "pearson", n_permutations=0))
    -1.0
    >>> round(float(map_similarity(a, a, n_permutations=0)), 6)
    1.0
    >>> float(map_similarity(a, -a, n_permutations=0)) < 0
    True
    """
    rng = check_random_state(random_state)

    geo = _check_geometry(geometry)

    def _tm(m):
        if isinstance(m, np.ndarray | list | tuple) and np.ndim(m) == 1 and "positions" not in geo:
            v = np.asarray(m, dtype=float)
            return TopoMap(values=v, positions=np.arange(v.size, dtype=float)[:, None],
                           kind="vector")
        return _map_of(m, layer, geo)

    ta, tb = _tm(map_a), _tm(map_b)
    if ta.n != tb.n or ta.grid_shape != tb.grid_shape:
        raise DimensionError(
            f"Maps to compare must cover the same units; got {ta.grid_shape or ta.n} and "
            f"{tb.grid_shape or tb.n}. Compute both from the same layer (or resample one map "
            "onto the other's mesh)."
        )
    ok = np.isfinite(ta.values) & np.isfinite(tb.values)
    if ok.sum() < 3:
        raise InvalidDataError("Fewer than 3 units have values in both maps.")
    not_tested = None
    if ta.kind == "vector" and (method == "ssim" or n_permutations):
        if method == "ssim":
            raise InvalidDataError(
                "SSIM needs the maps on a sheet: pass (row, col) maps or per-unit maps, not "
                "bare 1-D arrays (or use method='pearson')."
            )
        if n_permutations:  # 1-D values without positions cannot carry a spatial null
            warnings.warn(
                f"map_similarity: n_permutations={n_permutations} asked for a spatial null, but "
                "these maps are bare 1-D arrays without positions, so no null can be drawn and "
                "the similarity is not tested. Pass sheet maps (h, w), per-unit maps with a "
                "layer, or geometry={'positions': ...}.", ToponeuroWarning, stacklevel=user_stacklevel())
            not_tested = "1-D maps without positions: no spatial null"
        n_permutations = 0
    params = {"win_size": win_size, "data_range": data_range} if method == "ssim" else {}
    kernel, attrs = _STATISTIC_FACTORIES[method]([ta, tb], **params)
    if not_tested:
        attrs = {**attrs, "not_tested": not_tested}
    null = null or "shift"
    flat = [name for name, t in (("map_a", ta), ("map_b", tb)) if np.ptp(t.values[ok]) == 0]
    if flat:
        warnings.warn(
            f"map_similarity is undefined (NaN): {' and '.join(flat)} "
            f"{'is' if len(flat) == 1 else 'are'} constant over the units both maps cover.",
            UndefinedValueWarning, stacklevel=user_stacklevel(),
        )
        n_permutations = 0
    elif method == "ssim" and not np.isfinite(kernel(ta.values[None], tb.values[None])[0]):
        n_missing = int((~ok).sum())
        warnings.warn(
            f"map_similarity is undefined (NaN): SSIM averages {attrs['win_size']} x "
            f"{attrs['win_size']} windows of the sheet with a value at every unit in both "
            f"maps, and the {n_missing} units without one leave no such window. Use "
            "method='pearson' (it leaves those units out), or a smaller win_size.",
            UndefinedValueWarning, stacklevel=user_stacklevel(),
        )
        n_permutations = 0
    return run_null(kernel, [ta, tb], null, n_permutations, rng, attrs, alternative)

