"""The label-permutation (contrast) null: ``spatial_null(..., null="labels")``.

The positions and shift nulls ask whether a *map* is organised on the sheet. On a
topographic sheet nearly every map is -- neighbouring units respond alike to everything --
so a selectivity map passing them says the sheet is topographic, not that the *contrast* is.
The label null asks the second question: the condition labels are shuffled across the items
of the design (sentences vs nonword lists: the S and N items; a fLoc domain vs the rest:
the images of both sides), the selectivity map is recomputed from the same activations, and
the statistic (Moran's I, smoothness, patch count or area, similarity to another map) is
recomputed on each recomputed map. A small p says the contrast's map is more clustered (or
smoother, or more patchy) than the maps of random splits of the same items on this sheet.

Batched: the activations are read once; each chunk of draws is a ``(n_draws, n_items)``
0/1 matrix ``W`` of target items, and ``W @ X``, ``W @ X**2`` give every draw's two means
and variances at once, hence every draw's t (Welch, Student, TDANN's) or d' map.
:func:`contrast_design` builds the design that ``spatial_null`` draws from; the p-value rule,
seeding and :class:`NullResult` are ``spatial_null``'s.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Sequence
from numbers import Real

import numpy as np
import xarray as xr
from scipy import sparse

from ..._util import dims as D
from ..._util.constraints import ArrayLike
from ..._util.docs import fill_doc
from ..._util.params import (
    ALPHA,
    N_PERMUTATIONS,
    SEED,
    InstanceOf,
    Interval,
    Options,
    Text,
    validate_params,
)
from ...exceptions import InvalidDataError, UnknownNameError, close_matches
from ...sheet import check_activations
from ._geometry import _check_sheet, _grid_map, as_topomap
from ._null import NullResult, spatial_null
from ._null_registry import register_null
from ._selectivity import (
    SELECTIVITY_METRIC,
    SELECTIVITY_METRICS,
    SELECTIVITY_REFERENCES,
    _contrast_names,
    _label,
    _smooth_on_sheet,
    _stimulus_labels,
    contrast_masks,
)
from ._topomap import TopoMap
from ._verdict import TopographyClaim, _json_number, contrast_claim, organisation_claim

#: label-null maps a design keeps for a second statistic on the same draws (bytes)
_SURROGATE_BYTES = 64 * 2**20

__all__ = ["ContrastDesign", "contrast_design", "LABEL_NULL_REFERENCE", "ContrastTopography",
           "contrast_topography"]

LABEL_NULL_REFERENCE = (
    "label permutation (Nichols & Holmes 2002, Hum Brain Mapp 15, 1-25; Good 2005, "
    "Permutation, Parametric and Bootstrap Tests of Hypotheses): the items' condition labels "
    "shuffled within the contrast's items (sizes kept), the selectivity map recomputed from "
    "the same activations"
)

#: the question a small p of the label null answers
LABEL_QUESTION = "the contrast is more clustered than contrasts of random splits on this sheet"


class ContrastDesign:
    """A selectivity map with the activations and labels it was computed from.

    Pass it to :func:`spatial_null` (and its statistics) as a map: ``null="labels"`` then
    recomputes the map from the same activations with the labels shuffled; any other null
    treats it as its observed map. Made by :func:`contrast_design`.

    Parameters
    ----------
    x : array-like
        ``(n_items, n_units)`` activations of the contrast's items (kept centred per unit,
        as attribute ``x``).
    is_target : array-like of bool
        ``(n_items,)`` True for the target side (at least 2 items on each side).
    metric : str
        The selectivity metric (``SELECTIVITY_METRICS``).
    rows : array-like of int
        ``(n_units,)`` sheet row of each unit.
    cols : array-like of int
        ``(n_units,)`` sheet column of each unit; with ``rows`` they give the sheet
        ``grid_shape`` ``(h, w)`` (``point`` maps each unit to its grid point).
    name : str
        Label of the map in messages (default ``"contrast"``).
    attrs : dict, optional
        Contrast, layer, metric and reference.
    positions : array (n_units, 2), optional
        Free positions of the units (TDANN-style): each unit is its own point and
        ``grid_shape`` is None.
    units : {"mm", "sheet"}, optional
        Units of ``positions``.

    Examples
    --------
    >>> from toponeuro import make_activations
    >>> acts = make_activations({"h": 64}, n_stimuli=40, categories=["S", "N"] * 20,
    ...                         random_state=0)
    >>> d = contrast_design(acts, "S", "N", metric="welch_t")
    >>> d.map().shape, d.n_target, d.attrs["against"]
    ((8, 8), 20, 'N')
    """

    @validate_params(dict(x=ArrayLike(ndim=2), is_target=ArrayLike(ndim=1),
                          metric=Options(SELECTIVITY_METRICS, error=UnknownNameError), name=Text()))
    def __init__(self, x, is_target, metric, rows, cols, name="contrast", attrs=None,
                 positions=None, units=None):
        x = np.asarray(x, dtype=np.float64)
        self.is_target = np.asarray(is_target, dtype=bool)
        if x.ndim != 2 or x.shape[0] != self.is_target.size:
            raise InvalidDataError(
                f"x must be (n_items, n_units) with one label per item; got x {x.shape} and "
                f"{self.is_target.size} labels."
            )
        if metric not in SELECTIVITY_METRICS:
            raise UnknownNameError(
                f"Unknown selectivity metric {metric!r}; "
                f"{close_matches(metric, SELECTIVITY_METRICS)}"
            )
        self.n_target = int(self.is_target.sum())
        self.n_against = int(self.is_target.size - self.n_target)
        if min(self.n_target, self.n_against) < 2:
            raise InvalidDataError(
                f"A label null needs at least 2 items per side; got {self.n_target} target "
                f"and {self.n_against} against."
            )
        # centring per unit changes no mean difference or variance, and keeps the sums of
        # squares below from cancelling
        self.x = x - np.nanmean(x, axis=0)
        self.x2 = self.x**2
        self.sum_x, self.sum_x2 = self.x.sum(0), self.x2.sum(0)
        self.metric = metric
        rows, cols = np.asarray(rows, int), np.asarray(cols, int)
        # units at free positions (TDANN-style): each unit is a point of the map
        self.positions = None if positions is None else np.asarray(positions, dtype=float)
        self.units = units
        if self.positions is not None:
            self.grid_shape = None
            point, n_pts = np.arange(rows.size), rows.size
        else:
            self.grid_shape = (int(rows.max()) + 1, int(cols.max()) + 1)
            _check_sheet(*self.grid_shape, name)
            point = rows * self.grid_shape[1] + cols
            n_pts = self.grid_shape[0] * self.grid_shape[1]
        # units -> grid points (the mean of the units at a point, as as_topomap)
        self._avg = sparse.csr_matrix((np.ones(point.size), (np.arange(point.size), point)),
                                      shape=(point.size, n_pts))
        self.name = name
        self.attrs = dict(attrs or {})

    # ------------------------------------------------------------------ maps
    def unit_maps(self, target: np.ndarray) -> np.ndarray:
        """``(B, n_units)`` selectivity of each row of the ``(B, n_items)`` target mask.

        Parameters
        ----------
        target : numpy.ndarray
            ``(B, n_items)`` boolean masks of the target items.

        Returns
        -------
        numpy.ndarray
            ``(B, n_units)`` selectivity (the design's ``metric``).
        """
        w = np.asarray(target, dtype=np.float64)
        nt = w.sum(1, keepdims=True)
        na = w.shape[1] - nt
        st, st2 = w @ self.x, w @ self.x2
        sa, sa2 = self.sum_x - st, self.sum_x2 - st2
        mt, ma = st / nt, sa / na
        # sums of squares about each side's mean
        sst = np.maximum(st2 - nt * mt**2, 0.0)
        ssa = np.maximum(sa2 - na * ma**2, 0.0)
        diff = mt - ma
        with np.errstate(divide="ignore", invalid="ignore"):
            if self.metric == "welch_t":
                out = diff / np.sqrt(sst / (nt - 1) / nt + ssa / (na - 1) / na)
            elif self.metric == "tdann_t":
                out = diff / np.sqrt(sst / nt / nt + ssa / na / na)
            elif self.metric == "t":
                pooled = (sst + ssa) / (nt + na - 2)
                out = diff / np.sqrt(pooled * (1.0 / nt + 1.0 / na))
            else:  # dprime
                out = diff / np.sqrt((sst / (nt - 1) + ssa / (na - 1)) / 2.0)
        out[~np.isfinite(out)] = np.nan  # no variance on either side: undefined
        return out

    def point_maps(self, target: np.ndarray) -> np.ndarray:
        """``(B, h*w)`` maps on the grid (NaN where no unit has a value).

        Parameters
        ----------
        target : numpy.ndarray
            ``(B, n_items)`` boolean masks of the target items.

        Returns
        -------
        numpy.ndarray
            ``(B, h*w)`` maps (``(B, n_units)`` at free positions).
        """
        u = self.unit_maps(target)
        ok = np.isfinite(u)
        num = (self._avg.T @ np.where(ok, u, 0.0).T).T
        cnt = (self._avg.T @ ok.T.astype(float)).T
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(cnt > 0, num / np.maximum(cnt, 1), np.nan)

    def map(self) -> np.ndarray:
        """The observed map, ``(h, w)`` (``(n_units,)`` at free positions).

        Returns
        -------
        numpy.ndarray
            The map of the observed labels.
        """
        out = self.point_maps(self.is_target[None, :])[0]
        return out if self.grid_shape is None else out.reshape(self.grid_shape)

    def random_targets(self, n_draws: int, rng) -> np.ndarray:
        """``(n_draws, n_items)`` masks: a uniformly random ``n_target`` of the items each.

        Parameters
        ----------
        n_draws : int
            Number of masks.
        rng : numpy.random.Generator
            Source of the draws.

        Returns
        -------
        numpy.ndarray
            ``(n_draws, n_items)`` boolean masks.
        """
        pick = np.argsort(rng.random((n_draws, self.is_target.size)), axis=1)[:, : self.n_target]
        out = np.zeros((n_draws, self.is_target.size), dtype=bool)
        np.put_along_axis(out, pick, True, axis=1)
        return out

    def surrogates(self, n_draws: int, rng) -> np.ndarray:
        """``(n_draws, h*w)`` maps of random splits of the items (the label null's draws).

        Kept on the design (up to :data:`_SURROGATE_BYTES`), keyed by the generator's state:
        a second statistic tested on the same design with the same seed (smoothness, then
        patch units) reads the same maps instead of recomputing them, and the generator is
        left where drawing would have left it.

        Parameters
        ----------
        n_draws : int
            Number of random splits.
        rng : numpy.random.Generator
            Source of the draws (left where drawing leaves it).

        Returns
        -------
        numpy.ndarray
            ``(n_draws, h*w)`` maps.
        """
        state = json.dumps(rng.bit_generator.state, sort_keys=True, default=str)
        memo = self.__dict__.setdefault("_surrogates", {})
        hit = memo.get((int(n_draws), state))
        if hit is not None:
            maps, rng.bit_generator.state = hit
            return maps
        maps = self.point_maps(self.random_targets(n_draws, rng))
        if sum(m.nbytes for m, _ in memo.values()) + maps.nbytes <= _SURROGATE_BYTES:
            maps.setflags(write=False)
            memo[int(n_draws), state] = (maps, rng.bit_generator.state)
        return maps

    def to_topomap(self, layer=None, geometry=None) -> TopoMap:
        """The observed map as the :class:`TopoMap` ``spatial_null`` reads (carrying this
        design, so ``null="labels"`` can redraw it).

        Parameters
        ----------
        layer : str, optional
            Unused; kept for the signature every map converter shares.
        geometry : dict, optional
            Unused; the design's own positions are used.

        Returns
        -------
        TopoMap
            The observed map, carrying this design.
        """
        if self.grid_shape is None:
            tm = as_topomap(self.map(), positions=self.positions, units=self.units,
                            name=self.name)
        else:
            tm = _grid_map(self.map(), self.name)
        tm._cache["label_design"] = self
        return tm

    def __repr__(self) -> str:
        return (f"ContrastDesign({self.attrs.get('target')!r} vs {self.attrs.get('against')!r}, "
                f"{self.n_target}+{self.n_against} items, {self.metric}, "
                + (f"{self.positions.shape[0]} units at free positions)"
                   if self.grid_shape is None else
                   f"sheet {self.grid_shape[0]} x {self.grid_shape[1]})"))


_FWHM = [Interval(Real, 0, None, closed="neither"), None]


@validate_params({"layer": [Text(), None], "metric": SELECTIVITY_METRIC, "smooth_fwhm": _FWHM})
@fill_doc
def contrast_design(
    activations: xr.DataArray,
    target,
    against="rest",
    *,
    layer: str | None = None,
    metric: str = "tdann_t",
    labels: Sequence[str] | None = None,
    smooth_fwhm: float | None = None,
    domains=None,
) -> ContrastDesign:
    """The contrast ``target`` vs ``against`` on one layer's sheet, ready for the label null.

    The map is :func:`selectivity` (``metric``) of the items of ``target`` over those of
    ``against`` (items of other conditions are left out of the design); ``spatial_null(stat,
    design, null="labels")`` shuffles which of those items are "target" (the sides' sizes
    kept) and recomputes the map from the same activations for every draw.

    Parameters
    ----------
    %(activations)s
    target, against : str or sequence of str
        As :func:`selectivity` (categories or fLoc domains; ``"rest"``: every other category
        but scrambled). Language: ``"S"``, ``"N"``.
    layer : str, optional
        The sheet (needed when the activations hold several layers).
    metric : {"tdann_t", "t", "welch_t", "dprime"}
        The selectivity (:data:`SELECTIVITY_METRICS`); the language localizer's is
        ``"welch_t"``.
    labels : sequence of str, optional
        One condition per stimulus (default the ``category`` coord).
    smooth_fwhm : float, optional
        Smooth the activations on the sheet first (TopoLM's FWHM 2 units); a linear map of
        the activations, applied once, before any draw.
    domains : dict, optional
        Domain table for ``target``/``against`` names (default fLoc's).

    Returns
    -------
    ContrastDesign
        The contrast's items, labels and sheet, whose :meth:`ContrastDesign.map` is the
        observed selectivity map.

    Examples
    --------
    >>> from toponeuro import make_activations
    >>> from toponeuro.analysis import morans_i, spatial_null
    >>> acts = make_activations({"h": 256}, n_stimuli=40, categories=["S", "N"] * 20,
    ...                         random_state=0)
    >>> d = contrast_design(acts, "S", "N", metric="welch_t")
    >>> res = spatial_null("morans_i", d, null="labels", n_permutations=99, random_state=0)
    >>> res.attrs["null"], res.n_permutations, bool(res.p_value > 0.05)
    ('labels', 99, True)
    """
    check_activations(activations)
    layers = activations.topo.layers
    if layer is None:
        if len(layers) > 1:
            raise InvalidDataError(
                f"These activations hold layers {layers}; pass layer= (one sheet per design)."
            )
        layer = layers[0]
    cats = _stimulus_labels(activations, labels)
    t_mask, a_mask, tgt, agn = contrast_masks(cats, _contrast_names(target, "target"),
                                              _contrast_names(against, "against"), domains)
    sub = activations.topo.select(layer)
    x = np.asarray(sub.transpose(D.STIMULUS, D.UNIT).values, dtype=np.float64)
    if smooth_fwhm is not None and sub.topo.free_positions(layer) is not None:
        raise InvalidDataError(
            f"smooth_fwhm smooths on the grid sheet, but the units of layer {layer!r} sit at "
            "free positions; pass smooth_fwhm=None (or smooth the activations yourself).")
    if smooth_fwhm is not None:
        x = _smooth_on_sheet(sub, x, smooth_fwhm)
    pool = t_mask | a_mask
    attrs = {"target": _label(tgt), "against": _label(agn), "layer": str(layer),
             "metric": metric, "metric_reference": SELECTIVITY_REFERENCES.get(metric, ""),
             "n_target": int(t_mask.sum()), "n_against": int(a_mask.sum()),
             "smooth_fwhm": float("nan") if smooth_fwhm is None else float(smooth_fwhm)}
    free = sub.topo.free_positions(layer)  # TDANN-style units: their own positions
    return ContrastDesign(x[pool], t_mask[pool], metric, sub[D.ROW].values, sub[D.COL].values,
                          name=f"{_label(tgt)}>{_label(agn)}[{layer}]", attrs=attrs,
                          positions=free, units=sub.topo.position_units)


def _labels_draw(tms, n_draws: int, rng) -> list:
    """Every map that carries a :class:`ContrastDesign` is recomputed from random splits."""
    out = [("values", tm._cache["label_design"].surrogates(n_draws, rng))
           if "label_design" in tm._cache else None for tm in tms]
    if all(o is None for o in out):
        raise InvalidDataError(
            "null='labels' recomputes a contrast map from its activations, so it needs a map "
            "made by contrast_design(activations, target, against, layer=...); these maps are "
            "plain values. Pass the design in place of the map, or use null='positions'."
        )
    return out


# the labels are redrawn, not the places: any geometry a design's map lives on (a grid
# sheet, or units at free positions, which the null registry files with the meshes)
register_null("labels", _labels_draw, reference=LABEL_NULL_REFERENCE, min_maps=1,
              geometries=("sheet", "mesh"), question=LABEL_QUESTION)


#: one null's result (a field of a ContrastTopography)
_NULL_RESULT = InstanceOf(NullResult, "a NullResult",
                          example=lambda: NullResult(0.1, np.zeros(3), 0.5, 0.0))
#: one claim (a field of a ContrastTopography)
_CLAIM = InstanceOf(TopographyClaim, "a TopographyClaim", example=lambda: TopographyClaim(
    "not tested", 0.1, float("nan"), 0, float("nan"), float("nan"), "organised", "morans_i",
    None, 0.05, "not tested"))


class ContrastTopography:
    """One contrast map's statistic against both nulls, and the two claims they support.

    From :func:`contrast_topography`. ``positions`` answers "is this map organised on the
    sheet?" (:func:`organisation_claim`); ``labels`` answers "is the contrast more clustered
    than contrasts of random splits of its items on this sheet?" (:func:`contrast_claim`),
    the claim a *selective* topography rests on.

    Parameters
    ----------
    layer : str
        The sheet the contrast map lies on.
    statistic : str
        The statistic tested (``"morans_i"`` ...).
    positions : NullResult
        The statistic against the positions null.
    labels : NullResult
        The statistic against the label null.
    organised : TopographyClaim
        The claim the positions null supports (the map is organised on the sheet).
    selective : TopographyClaim
        The claim the label null supports (a selective topography).
    alpha : float
        The significance level of both claims.

    Examples
    --------
    >>> from toponeuro import make_activations
    >>> two = make_activations({"h": 36}, n_stimuli=12, categories=list("ab") * 6)
    >>> ct = contrast_topography(two, "a", "b", metric="welch_t", n_permutations=19)
    >>> sorted(ct.to_dict())[:3], ct.selective.claim, ct.to_dict()["n_permutations"]
    (['alpha', 'label_null_mean', 'label_null_std'], 'selective', 19)
    """

    @validate_params({"layer": Text(), "statistic": Text(), "positions": _NULL_RESULT,
                      "labels": _NULL_RESULT, "organised": _CLAIM, "selective": _CLAIM,
                      "alpha": ALPHA})
    def __init__(self, layer, statistic, positions, labels, organised, selective, alpha):
        self.layer, self.statistic = layer, statistic
        self.positions, self.labels = positions, labels
        self.organised, self.selective = organised, selective
        self.alpha = alpha

    def to_dict(self) -> dict:
        """JSON-ready: the statistic, both p-values by their null's name, both claims.

        Returns
        -------
        dict
            JSON-ready fields (NaN as None).
        """
        num = _json_number
        return {"layer": self.layer, "statistic": self.statistic,
                "value": num(self.positions.statistic),
                "p_positions_null": num(self.positions.p_value),
                "p_label_null": num(self.labels.p_value),
                "label_null_mean": num(self.labels.null_mean),
                "label_null_std": num(self.labels.null_std),
                "n_permutations": int(self.labels.n_permutations), "alpha": float(self.alpha),
                "organised": self.organised.to_dict(), "selective": self.selective.to_dict()}

    def __repr__(self) -> str:
        return (f"ContrastTopography({self.layer!r}, {self.statistic}: positions p "
                f"{self.positions.p_value:.3g}, label p {self.labels.p_value:.3g})")


@validate_params({
    "layer": [Text(), None], "statistic": Text(), "metric": SELECTIVITY_METRIC,
    "smooth_fwhm": _FWHM, "n_permutations": N_PERMUTATIONS, "alpha": ALPHA,
    "random_state": SEED, "what": [Text(empty=True), None], "where": Text(empty=True),
}, prefer_skip_nested_validation=False)  # statistic_kwargs go to the statistic
@fill_doc
def contrast_topography(activations: xr.DataArray | ContrastDesign, target=None, against="rest", *,
                        layer: str | None = None, statistic: str = "morans_i",
                        metric: str = "tdann_t", labels=None, smooth_fwhm=None,
                        n_permutations: int = 1000, alpha: float = 0.05, random_state=0,
                        what: str | None = None, where: str = "on this sheet",
                        **statistic_kwargs) -> ContrastTopography:
    """A contrast map's statistic against the positions null and the label null, with claims.

    The map is :func:`contrast_design`'s (``metric`` of ``target`` over ``against`` on
    ``layer``'s sheet); the statistic (``"morans_i"``, ``"smoothness"``, ``"n_patches"``,
    ``"patch_units"``, ``"sign_clustering"``: the clustering of the units where the contrast is
    positive, e.g. TopoLM's S > N units) is tested twice with the same ``n_permutations`` and seed:
    ``null="positions"`` (the map organised on the sheet) and ``null="labels"`` (the contrast
    more clustered than random splits of its items). Draws that cannot reach ``alpha`` give
    "too few draws", never a negative claim.

    Parameters
    ----------
    %(activations)s
        Or a :class:`ContrastDesign` (and none of ``target``, ``against``, ``layer``,
        ``metric``, ``labels``, ``smooth_fwhm``) to test several statistics on one design,
        built once.
    target, against : str or sequence of str, optional
        As :func:`contrast_design`; ``target`` is needed with activations.
    layer : str, optional
        As :func:`contrast_design`.
    statistic : str
        A registered statistic of one map (default ``"morans_i"``).
    metric : {"tdann_t", "t", "welch_t", "dprime"}
        As :func:`contrast_design`.
    labels : sequence of str, optional
        As :func:`contrast_design`.
    smooth_fwhm : float, optional
        As :func:`contrast_design`.
    %(n_permutations)s
        Each null draws this many.
    %(alpha)s
    %(random_state)s
        Both nulls start from it.
    what, where : str
        Names for the sentences (default "<target> selectivity", "on this sheet").
    **statistic_kwargs
        Parameters of the statistic (e.g. ``threshold`` for patches).

    Returns
    -------
    ContrastTopography
        The statistic against both nulls, with the two claims.

    Examples
    --------
    >>> from toponeuro import make_activations
    >>> acts = make_activations({"h": 64}, n_stimuli=20, categories=["S", "N"] * 10,
    ...                         random_state=0)
    >>> ct = contrast_topography(acts, "S", "N", metric="welch_t", n_permutations=19,
    ...                          random_state=0, what="language selectivity")
    >>> ct.selective.outcome
    'not beyond chance'
    >>> d = contrast_design(acts, "S", "N", metric="welch_t")  # one design, two statistics
    >>> [contrast_topography(d, statistic=s, n_permutations=19).statistic
    ...  for s in ("morans_i", "smoothness")]
    ['morans_i', 'smoothness']
    """
    if isinstance(activations, ContrastDesign):
        given = _not_default(contrast_topography, target=target, against=against, layer=layer,
                             metric=metric, labels=labels, smooth_fwhm=smooth_fwhm)
        if given:
            raise InvalidDataError(
                f"contrast_topography got a ContrastDesign and {given}; the design "
                "already fixes its contrast, layer, metric and smoothing. Pass the design "
                "alone, or the activations with target= and the rest."
            )
        design = activations
    elif target is None:
        raise InvalidDataError(
            "contrast_topography needs target= (the condition or domain the map contrasts), "
            "or a ContrastDesign in place of the activations."
        )
    else:
        design = contrast_design(activations, target, against, layer=layer, metric=metric,
                                 labels=labels, smooth_fwhm=smooth_fwhm)
    what = what or f"{design.attrs['target']} selectivity"
    kw = dict(n_permutations=n_permutations, **statistic_kwargs)

    def test(null):
        extra = {}
        if statistic == "smoothness" and "rng" not in kw:  # its sample of unit pairs: the
            extra["rng"] = np.random.default_rng(random_state)  # same in both tests
        return spatial_null(statistic, design, null=null, random_state=random_state, **kw,
                            **extra)

    return _topography(design, statistic, test("positions"), test("labels"), alpha, what,
                       where)


def _not_default(func, **given) -> list[str]:
    """The names among ``given`` whose value is not ``func``'s default (its signature's, the
    one place the defaults are written)."""
    params = inspect.signature(func).parameters
    return sorted(k for k, v in given.items()
                  if not (v is params[k].default
                          or (isinstance(v, str) and v == params[k].default)))


def _topography(design, statistic, pos, lab, alpha, what, where) -> ContrastTopography:
    return ContrastTopography(design.attrs["layer"], statistic, pos, lab,
                              organisation_claim(pos, alpha, what=what, where=where),
                              contrast_claim(lab, alpha, what=what, where=where), alpha)
