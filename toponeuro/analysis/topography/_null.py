"""One spatial null for every topography statistic: :func:`spatial_null` and :class:`NullResult`.

The nulls are registered like the statistics (:func:`register_null`, ``_null_registry.py``):
a new null is one module and one call, and ``NULL_METHODS`` lists what is registered. Besides
the spatial nulls below, ``"labels"`` (``_label_null.py``) recomputes a contrast map from its
activations with the condition labels shuffled (:func:`contrast_design`).

One map and two maps ask different questions, so they get different nulls:

``"positions"`` (default for one map)
    One random permutation of the points' positions per draw, applied to every map alike. For
    one map it asks "is this map more organised than its values scattered at random?". For two
    maps it keeps each point's pair of values, so it is *no* null for whether two maps share
    territory (independent smooth maps pass it far more often than 5 %); it warns there. It
    shows that a position-free statistic (Pearson across units) is not topographic.
``"shift"`` (default for two or more maps)
    Every map but the first moves as a whole, keeping its own smoothness and values but
    losing any correspondence with the first: "do these maps share territory beyond what
    unrelated maps of this smoothness would?" On a model sheet: a random circular shift
    within the sheet *mirrored* into a 2h x 2w torus (no seam joins opposite edges), cropped
    back to h x w (4hw distinct draws); on a cortical mesh: a random rotation of the sphere,
    the *spin test* (Alexander-Bloch et al. 2018, NeuroImage 178, 540-551), both hemispheres
    of a named mesh together, the right by the left's rotation mirrored. A statistic
    symmetric in two maps (``kernel.symmetric``: SSIM, Pearson, Spearman) has half its draws
    move the second map and the same moves shift the first in the other half, so swapping
    the maps gives the same draws and p. Each move then serves two correlated draws, so the
    result reports ``n_moves`` and ``n_effective`` draws (:func:`effective_draws`), and the
    p floor follows ``n_effective``. False-positive rates on independent smooth maps
    (docs, "Calibration of the similarity nulls"; record: :func:`null_calibration`): SSIM
    5.19 % (cells 4.3-5.6 %) and Pearson 4.31 % (3.9-4.9 %) at alpha 0.05 on 16 x 16 and
    16 x 32 sheets (sigma 1-4, 1,000 draws, ten sets of 1,000 pairs); the spin test 4.2-7.7 %
    on stationary fsaverage5 maps (5.7 % over the eleven 5 mm cells, 4.8 % at 10-20 mm), but
    7.6-13.6 % on maps whose amplitude differs across the sphere alike in both (it assumes
    stationarity), and liberal on maps smoothed in the volume and read on the midthickness
    (:func:`cortex_null_calibration`, per mesh and kind of map).
``"phase"``
    Sheets only: amplitude-adjusted Fourier surrogates (AAFT, Theiler et al. 1992) of the
    sheet mirrored into a 2h x 2w torus: the torus keeps the amplitude of every Fourier
    component and takes random phases, and the surrogate takes the map's own values in the
    rank order of that field's h x w corner (which has no seam). Up to 7.0 % false positives
    for SSIM and 8.0 % for Pearson (on maps smoothed with reflecting borders); without the
    amplitude adjustment SSIM was calibrated (4.7-6.4 %) but two displaced noise-free blobs
    came out alike (its surrogates of a sparse map are not sparse).
``"iaaft"``
    Sheets only: iterated amplitude-adjusted Fourier surrogates (IAAFT, Schreiber & Schmitz
    1996) of the sheet mirrored into a 2h x 2w torus: the mirrored map's amplitudes and its
    values, alternately, until the amplitude misfit stops falling (``_sheet_null``), then the
    h x w corner with the map's own values in rank order; a sparse map stays sparse. On the
    default's calibration pairs it is no better calibrated than the mirrored shift (the
    docs give both, cell by cell) and costs 75-360 times more, so it is not the default.
``"variogram"``
    Sheets only: variogram-matched surrogates (Burt et al. 2020; BrainSMASH's definitions,
    ``toponeuro/analysis/_variogram.py``): the map's values permuted, smoothed back to its
    variogram and put back in rank order, so a sparse map stays sparse. Far too liberal on
    smooth sheet maps (SSIM 7.8-16.6 %, Pearson 4.9-9.0 % false positives in the three cells
    measured): the fit adds white noise the map does not have; it warns. Up to 2,048 units.
``"spectral"``
    Sheets only: Moran spectral randomisation in the sheet's cosine (DCT-II) basis -- the
    Moran eigenvectors of the grid (Wagner & Dray 2015; Vos de Wael et al. 2020): the map's
    coefficients get random signs, which keeps its power at every spatial frequency. Exact
    for maps smoothed with reflecting borders; too narrow (up to 8.5 % false positives) for
    stationary maps cropped from a larger field.
``"torus"``
    Sheets only: a random circular shift on the sheet's torus with a random flip of each
    axis. Exact for periodic maps; on non-periodic maps the wrap joins opposite edges and the
    null is too narrow (false-positive rate up to 20 % at alpha 0.05 for Pearson).

p-values (Phipson & Smyth 2010: the observed map counts as one draw of the null, so p is
never 0; a relative tolerance ``tol`` makes exact ties count as "at least as extreme"):
``"greater"`` ``(1 + #{null >= statistic - tol}) / (1 + n)``; ``"less"`` the mirror image;
``"two-sided"`` twice the smaller of the two, at most 1 (equal tails, as
``scipy.stats.permutation_test``: a skewed null, as SSIM's often is, is not folded onto
itself).
Each statistic's test has one alternative, named in ``NullResult.alternative``.
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from ..._util.constraints import MAPPING, NDARRAY
from ..._util.frozen import validate_fields
from ..._util.params import (
    N_PERMUTATIONS,
    P_VALUE,
    SEED,
    Boolean,
    InstanceOf,
    Text,
    check_n_permutations,
    check_random_state,
    validate_params,
)
from ..._util.params import (
    Callable as CallableParam,
)
from ..._util.stack import user_stacklevel
from ..._util.typing import RandomState
from ...exceptions import (
    DimensionError,
    InvalidDataError,
    ToponeuroWarning,
    UnknownNameError,
    close_matches,
)
from ._geometry import _fill, _map_of
from ._null_registry import (
    _STATISTIC_FACTORIES,
    NULL_METHODS,
    checked_draw,
    each_but_first,
    null_method,
    one_number,
    register_null,
    unregister_null,
)
from ._pvalues import (
    _TOL,
    ALTERNATIVE,
    ALTERNATIVES,
    CORTEX_MAP_KINDS,
    P_VALUE_REFERENCE,  # noqa: F401  (name kept here)
    can_reject,
    cortex_null_calibration,
    effective_draws,
    floor_p,
    format_p,
    null_calibration,
    null_p_value,
)
from ._sheet_null import (  # noqa: F401  (registers the sheet nulls; names kept here)
    IAAFT_REFERENCE,
    MIRROR_REFERENCE,
    PHASE_REFERENCE,
    SPECTRAL_REFERENCE,
    VARIOGRAM_REFERENCE,
)
from ._spin import (  # noqa: F401  (names kept here)
    _MIRROR,
    _SPIN_CACHE,
    _SPIN_CACHE_BYTES,
    SPIN_REFERENCE,
    _sphere_units,
    _spin_indices,
)
from ._topomap import TopoMap

__all__ = ["NULL_METHODS", "ALTERNATIVES", "NullResult", "spatial_null", "null_p_value",
           "null_calibration", "register_null", "unregister_null", "each_but_first", "format_p",
           "floor_p", "can_reject", "effective_draws", "cortex_null_calibration",
           "CORTEX_MAP_KINDS"]

#: permutations drawn at once (memory: chunk x points x maps floats)
_CHUNK_VALUES = 4_000_000


#: a statistic or z a result holds: any number (NaN where undefined; a user's statistic
#: may be infinite)
_ANY_NUMBER = InstanceOf(numbers.Real, "a number", example=0.0)


@dataclass(frozen=True, eq=False)
@validate_fields({
    "statistic": _ANY_NUMBER, "null": NDARRAY, "p_value": P_VALUE, "z": _ANY_NUMBER,
    "null_method": [Text(), None], "attrs": MAPPING, "alternative": ALTERNATIVE})
class NullResult:
    """A statistic with its spatial null (from :func:`spatial_null` and the map metrics).

    Behaves as the number it reports where a float is expected (``float(r)``,
    ``f"{r:.2f}"``, comparisons), so code written for a float keeps working.

    Parameters
    ----------
    statistic : float
        The observed value.
    null : numpy.ndarray
        The statistic on each permuted draw (empty when no null was asked for).
    p_value : float
        The permutation p-value of ``alternative`` (module docs); NaN without a null.
    z : float
        ``(statistic - null_mean) / null_std``; NaN without a null or when the null is constant.
    null_method : str or None
        ``"positions"``, ``"mirror"`` (sheet, the default two-map null), ``"variogram"``,
        ``"phase"``, ``"spectral"``, ``"torus"`` or ``"spin"`` (mesh).
    attrs : dict
        ``method`` (the statistic's definition), its parameters and ``reference``; where one
        move served two draws (the symmetric two-map null), ``n_moves``, ``n_effective`` and
        ``paired_correlation`` (:attr:`n_moves`, :attr:`n_effective`).
    alternative : {"greater", "less", "two-sided"}
        The tail ``p_value`` counts: ``"greater"`` for one map's organisation (smoothness),
        ``"two-sided"`` for two maps' similarity (more *or* less alike than chance).

    Examples
    --------
    >>> r = NullResult.from_null(0.8, np.linspace(-0.5, 0.5, 99), "shift", {"method": "ssim"})
    >>> round(r.p_value, 2), f"{r:.1f}", r > 0.5
    (0.01, '0.8', True)
    """

    statistic: float
    null: np.ndarray
    p_value: float
    z: float
    null_method: str | None = None
    attrs: dict = field(default_factory=dict)
    alternative: str = "greater"

    @classmethod
    def from_null(cls, statistic, null, null_method=None, attrs=None,
                  alternative: str = "greater") -> NullResult:
        """Build the result from the observed value and the null draws.

        Parameters
        ----------
        statistic : float
            The observed value.
        null : array-like
            The null draws.
        null_method : str, optional
            Name of the null.
        attrs : dict, optional
            Extra fields (``n_effective``, ``n_moves`` ...) kept in ``attrs``.
        alternative : {"greater", "less", "two-sided"}
            The tail of the test.

        Returns
        -------
        NullResult
            The p-value, z and null moments of ``statistic`` against ``null``.
        """
        null = np.asarray(null, dtype=float).ravel()
        stat = float(statistic)
        p = null_p_value(stat, null, alternative)
        n_eff = (attrs or {}).get("n_effective")
        if n_eff is not None and np.isfinite(p):  # the floor of the draws' real number
            n_fin = np.count_nonzero(np.isfinite(null))
            p = max(p, floor_p(float(n_eff) * n_fin / max(1, null.size), alternative))
        fin = null[np.isfinite(null)]
        z = np.nan
        if fin.size > 1 and np.isfinite(stat):
            sd = float(fin.std(ddof=1))
            if sd > _TOL * max(1.0, abs(stat)):
                z = (stat - float(fin.mean())) / sd
        return cls(
            statistic=stat,
            null=null,
            p_value=p,
            z=float(z),
            null_method=null_method if null.size else None,
            attrs=dict(attrs or {}),
            alternative=alternative,
        )

    @property
    def n_permutations(self) -> int:
        """Number of null draws."""
        return int(self.null.size)

    @property
    def n_moves(self) -> int:
        """Distinct moves (rotations, shifts, ...) behind the draws: ``n_permutations``, or
        half of it where each move served two draws (the symmetric two-map null).
        """
        return int(self.attrs.get("n_moves", self.n_permutations))

    @property
    def n_effective(self) -> float:
        """Effective number of draws (:func:`effective_draws`): ``n_permutations`` where every
        draw had its own move; the p floor and :func:`can_reject` use it.
        """
        return float(self.attrs.get("n_effective", self.n_permutations))

    @property
    def null_mean(self) -> float:
        """Mean of the finite null draws (NaN without a null)."""
        fin = self.null[np.isfinite(self.null)]
        return float(fin.mean()) if fin.size else float("nan")

    @property
    def null_std(self) -> float:
        """Standard deviation (ddof=1) of the finite null draws (NaN with fewer than 2)."""
        fin = self.null[np.isfinite(self.null)]
        return float(fin.std(ddof=1)) if fin.size > 1 else float("nan")

    def to_dict(self) -> dict:
        """The numbers and attrs as a plain dict (JSON-ready), without the null draws.

        Returns
        -------
        dict
            The numbers and attrs.
        """
        return {
            "statistic": self.statistic,
            "p_value": self.p_value,
            "alternative": self.alternative,
            "z": self.z,
            "null_mean": self.null_mean,
            "null_std": self.null_std,
            "n_permutations": self.n_permutations,
            "null": self.null_method,
            **self.attrs,
        }

    def __float__(self) -> float:
        return self.statistic

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self.statistic, dtype=dtype)

    def __format__(self, spec: str) -> str:
        return format(self.statistic, spec)

    def __round__(self, ndigits=None):
        return round(self.statistic, ndigits)

    def __lt__(self, other):
        return self.statistic < float(other)

    def __le__(self, other):
        return self.statistic <= float(other)

    def __gt__(self, other):
        return self.statistic > float(other)

    def __ge__(self, other):
        return self.statistic >= float(other)

    def __repr__(self) -> str:
        method = self.attrs.get("method", "statistic")
        if not self.null.size:
            return f"NullResult({method}={self.statistic:.4g}, no null)"
        return (
            f"NullResult({method}={self.statistic:.4g}, p={self.p_value:.4g}, z={self.z:.3g}, "
            f"null={self.null_method!r} x {self.n_permutations})"
        )



def as_null_map(data, layer=None, geometry=None) -> TopoMap:
    """The :class:`TopoMap` of a map, or of a design that redraws it (``to_topomap``: a
    :class:`ContrastDesign`, whose map the label null recomputes)."""
    if hasattr(data, "to_topomap"):
        return data.to_topomap(layer, geometry)
    return _map_of(data, layer, geometry)


def _check_same_points(tms: list[TopoMap]):
    first = tms[0]
    for tm in tms[1:]:
        if tm.n != first.n or tm.grid_shape != first.grid_shape:
            raise DimensionError(
                f"Maps under one null must cover the same points; got "
                f"{first.grid_shape or first.n} and {tm.grid_shape or tm.n}. Compute them from "
                "the same layer (or resample one map onto the other's mesh)."
            )


def _positions_indices(n_points: int, n_draws: int, rng) -> np.ndarray:
    """``(n_draws, n_points)``: a random permutation of the points per draw."""
    return np.argsort(rng.random((n_draws, n_points)), axis=1)



def _positions_draw(tms, n_draws: int, rng) -> list:
    """The units with values trade places, every map alike; points without a value stay."""
    fin = np.flatnonzero(np.logical_and.reduce([tm.finite for tm in tms]))
    idx = np.tile(np.arange(tms[0].n), (n_draws, 1))
    idx[:, fin] = fin[_positions_indices(fin.size, n_draws, rng)]
    return [idx] * len(tms)


def _positions_warning(tms):
    return _POSITIONS_TWO_MAPS_NOTE if len(tms) > 1 else None


def _geometry_of(tms) -> str:
    return "sheet" if tms[0].grid_shape is not None else "mesh"


def _null_kind(tms, null: str) -> str:
    """What a null name draws on these maps: ``shift`` is mirror on a sheet, spin on a mesh."""
    return null_method(null).resolve(_geometry_of(tms)).name


# --------------------------------------------------------------------------- statistics


def _batched(statistic: Callable, tms: list[TopoMap], vectorized: bool | None) -> Callable:
    """Wrap a user statistic ``f(*maps)`` into the batched kernel ``(B, n) -> (B,)``.

    ``vectorized=None``: the first call (the observed maps, a batch of one) decides -- a
    callable that returns one value per map of the batch is batched from then on; one that
    fails on a batch, or returns a bare number, is called once per draw.
    """
    shape = tms[0].grid_shape
    mode = {"vectorized": vectorized}

    def one_by_one(maps, n):
        return np.array([one_number(statistic(*[m[i] for m in maps]), statistic)
                         for i in range(n)])

    def f(*vals):
        maps = [v.reshape(v.shape[0], *shape) if shape is not None else v for v in vals]
        n = vals[0].shape[0]
        if mode["vectorized"] is None:
            try:
                out = np.asarray(statistic(*maps), dtype=float)
                mode["vectorized"] = out.shape == (n,)
            except (ValueError, TypeError, IndexError):  # it takes one map per argument
                mode["vectorized"] = False
        if not mode["vectorized"]:  # one call per draw, each with maps shaped like the sheet
            return one_by_one(maps, n)
        out = np.asarray(statistic(*maps), dtype=float)
        if out.shape != (n,):
            raise DimensionError(
                f"A vectorized statistic must return one value per map in the batch, shape "
                f"({n},); {getattr(statistic, '__name__', 'it')} returned shape {out.shape}. "
                "Pass vectorized=False to have it called once per draw."
            )
        return out

    return f


# Named statistics: ``name -> factory(tms, **kwargs) -> (kernel, attrs)``. The topography module
# registers its statistics here (``register_statistic``), so this module imports none of them.
def _builtin(name: str, tms: list[TopoMap], kwargs: dict):
    """Batched kernel ``f(*values (B, n)) -> (B,)`` and its attrs for a named statistic."""
    if name not in _STATISTIC_FACTORIES:
        raise UnknownNameError(
            f"Unknown statistic {name!r}; {close_matches(name, _STATISTIC_FACTORIES)} "
            "(or pass a callable)."
        )
    return _STATISTIC_FACTORIES[name](tms, **kwargs)


#: measured false-positive rate of the positions null for two maps (docs: calibration)
_POSITIONS_TWO_MAPS_NOTE = (
    "null='positions' moves every map alike, so it keeps each unit's pair of values: it asks "
    "whether the maps' correspondence is spatially organised, not whether they share "
    "territory beyond chance (for SSIM of independent smooth maps it gives p < 0.05 in about "
    "a quarter of pairs). Use null='shift' for whether two maps overlap."
)


register_null("positions", _positions_draw, geometries=("sheet", "mesh"), min_maps=1,
              warning=_positions_warning,
              question="the map is organised on the sheet: more than its own values scattered")
register_null("spin", each_but_first(lambda first, tm, n, rng: _spin_indices(first, n, rng)),
              reference=SPIN_REFERENCE, geometries=("mesh",),
              question="the maps share territory beyond rotated copies on the sphere")
register_null("shift", alias_of={"sheet": "mirror", "mesh": "spin"},
              question="the maps share territory beyond unrelated maps of this smoothness")



def run_null(kernel, tms, null, n_permutations, rng, attrs,
             alternative: str = "greater", observed: float | None = None) -> NullResult:
    """Observed value and null of a batched ``kernel`` over the maps ``tms`` (``observed``:
    the kernel's value of the maps themselves when the caller has it already)."""
    entry = null_method(null).resolve(_geometry_of(tms))
    if alternative not in ALTERNATIVES:
        raise UnknownNameError(
            f"Unknown alternative {alternative!r}; {close_matches(alternative, ALTERNATIVES)}"
        )
    n_permutations = check_n_permutations(n_permutations)
    if len(tms) < entry.min_maps:
        raise InvalidDataError(
            f"null={null!r} moves every map but the first, so it needs two or more maps; for "
            "one map use null='positions' (or null='labels' for a contrast map)."
        )
    note = entry.warning(tms) if callable(entry.warning) else entry.warning
    if note and n_permutations:
        warnings.warn(note, ToponeuroWarning, stacklevel=user_stacklevel())
    values = [tm.values[None, :] for tm in tms]
    if observed is None:
        observed = float(np.asarray(kernel(*values)).ravel()[0])
    draws = []
    chunk = max(1, min(n_permutations, _CHUNK_VALUES // max(1, tms[0].n * len(tms))))
    # a symmetric statistic of two maps: the first half of the moves shifts the second map,
    # the same moves shift the first map for the other half (swapping the maps: same draws)
    n_first = n_permutations // 2 if (null == "shift" and len(tms) == 2
                                      and getattr(kernel, "symmetric", False)) else 0
    done, n_second = 0, n_permutations - n_first
    paired = ([], [])  # the draws of the moves that served twice: first moved, second moved
    while done < n_second:
        b = min(chunk, n_second - done)
        idx = checked_draw(entry, tms, b, rng)
        if (k := min(b, n_first - done)) > 0:  # the first map moves, the second stays
            mf, moved_a = getattr(kernel, "moved_first", None), tms[0].values[idx[1][:k]]
            draws.append(np.asarray(mf(moved_a) if mf is not None else kernel(
                moved_a, tms[1].values[None, :].repeat(k, 0)), dtype=float).ravel())
            paired[0].append(draws[-1])
        shifted = getattr(kernel, "shifted", None)
        moved = getattr(kernel, "moved", None)  # f(second map's draws), the first map fixed
        if null == "torus" and len(tms) == 2 and shifted is not None:
            draws.append(np.asarray(shifted(idx[1]), dtype=float).ravel())
        elif moved is not None and len(tms) == 2 and idx[0] is None:
            vals = idx[1][1] if isinstance(idx[1], tuple) else tms[1].values[idx[1]]
            draws.append(np.asarray(moved(vals), dtype=float).ravel())
        else:
            batch = [tm.values[None, :].repeat(b, 0) if ix is None
                     else ix[1] if isinstance(ix, tuple) else tm.values[ix]
                     for tm, ix in zip(tms, idx)]
            draws.append(np.asarray(kernel(*batch), dtype=float).ravel())
        if k > 0:
            paired[1].append(draws[-1][:k])
        done += b
    null_vals = np.concatenate(draws) if draws else np.zeros(0)
    n_bad = int(np.count_nonzero(~np.isfinite(null_vals)))
    if n_bad:
        warnings.warn(
            f"{n_bad} of {null_vals.size} null draws gave an undefined statistic (NaN); the "
            "p-value counts the finite draws only.",
            RuntimeWarning,
            stacklevel=user_stacklevel(),
        )
    out_attrs = {
        **attrs,
        "null": entry.name if n_permutations else "none",
        "n_permutations": n_permutations,
        "alternative": alternative,
    }
    if n_first:
        out_attrs["moves"] = "each map in turn (the same moves), half the draws each"
        n_eff, rho = effective_draws(np.concatenate(paired[0]), np.concatenate(paired[1]),
                                     n_second - n_first)
        out_attrs.update(n_moves=int(n_second), n_effective=round(n_eff, 1),
                         paired_correlation=round(rho, 3))
    reference = entry.reference
    if n_permutations and reference:
        out_attrs["null_reference"] = reference
    return NullResult.from_null(observed, null_vals, out_attrs["null"], out_attrs,
                                alternative=alternative)


@validate_params({
    "statistic": [Text(), CallableParam()],
    "null": [Text(), None],
    "n_permutations": N_PERMUTATIONS,
    "alternative": [ALTERNATIVE, None],
    "vectorized": [Boolean(), None],
    "symmetric": [Boolean(), None],
    "random_state": SEED,
}, prefer_skip_nested_validation=False)  # the statistic is the caller's: its calls check
@_fill
def spatial_null(
    statistic,
    *maps,
    null: str | None = None,
    n_permutations: int = 1000,
    alternative: str | None = None,
    vectorized: bool | None = None,
    symmetric: bool | None = None,
    random_state: RandomState = None,
    layer: str | None = None,
    geometry: Mapping | None = None,
    **statistic_kwargs,
) -> NullResult:
    """A statistic of one or more maps with its spatial null.

    Parameters
    ----------
    statistic : str or callable
        ``"ssim"``, ``"pearson"``, ``"spearman"`` (two maps), ``"smoothness"`` (one map;
        TDANN's score, see :func:`smoothness`), ``"morans_i"`` (:func:`morans_i`),
        ``"sign_clustering"`` (Moran's I of ``1[map > 0]``: how clustered the positive points
        are, whatever their fraction; NaN with a warning when all are on one side),
        ``"n_patches"``, ``"patch_units"`` (:func:`find_patches`' rules), or a callable
        ``f(*maps) -> float`` that receives each map shaped like the sheet (``(h, w)``; mesh:
        ``(n,)``), e.g. :func:`map_similarity` itself (see ``vectorized``).
    *maps : map
        One or more maps on the same sheet or mesh (see :func:`as_topomap`).
    null : str, optional
        ``"positions"``, ``"shift"``, ``"iaaft"``, ``"variogram"``, ``"phase"``,
        ``"spectral"``, ``"torus"``, ``"mirror"``, ``"spin"`` (mesh), ``"labels"`` (a
        :func:`contrast_design` in place of the first map: its labels shuffled, the map
        recomputed) or any null added with :func:`register_null` (``NULL_METHODS``). Default
        ``"positions"`` for one map, ``"shift"`` for two or more (module docs).
    %(n_permutations)s
    alternative : {"greater", "less", "two-sided"}, optional
        The tail of ``p_value``; default ``"greater"`` ("larger than chance"; the statistic of
        an arrangement or of one map's organisation). :func:`map_similarity` tests two maps'
        similarity two-sided (more *or* less alike than chance).
    vectorized : bool, optional
        As ``scipy.stats.permutation_test``: ``False`` calls a callable ``statistic`` once per
        draw with maps shaped like the sheet; ``True`` passes a batch of draws at once,
        ``(b, h, w)`` (mesh: ``(b, n)``), and expects ``(b,)``. Default: ``True`` when the
        callable has an ``axis`` parameter; otherwise the first call decides (a callable that
        returns ``(1,)`` for a batch of one is batched, one that fails on it or returns a bare
        number is called once per draw).
    symmetric : bool, optional
        Two maps and ``f(a, b) == f(b, a)``: the ``"shift"`` null then moves the second map in
        half its draws and the first, by the same moves, in the other half, so swapping the
        maps gives the same draws (and p, for an even ``n_permutations``). Default: True for
        ``"ssim"``, ``"pearson"``, ``"spearman"``; False for a callable (the first map stays).
    %(random_state)s
    %(geometry)s
    **statistic_kwargs
        Parameters of a named statistic (e.g. ``win_size``, ``data_range`` for SSIM).

    Returns
    -------
    NullResult
        ``statistic``, ``null``, ``p_value``, ``z``; ``attrs`` name the statistic, its
        parameters, the null and the references.

    Examples
    --------
    >>> from scipy.ndimage import gaussian_filter
    >>> rng = np.random.default_rng(0)
    >>> a = gaussian_filter(rng.standard_normal((32, 32)), 2, mode="wrap")
    >>> res = spatial_null("ssim", a, a + 0.1 * rng.standard_normal(a.shape), random_state=0)
    >>> res.attrs["null"], res.p_value < 0.01
    ('mirror', True)
    >>> res.alternative
    'greater'

    Any function of two maps, called once per draw:

    >>> from functools import partial
    >>> from toponeuro.analysis import map_similarity
    >>> sim = partial(map_similarity, method="pearson", n_permutations=0)
    >>> spatial_null(sim, a, a, n_permutations=19, random_state=0).p_value
    0.05
    """
    if not maps:
        raise InvalidDataError("Give at least one map.")
    rng = check_random_state(random_state)
    tms = [as_null_map(m, layer, geometry) for m in maps]
    _check_same_points(tms)
    if null is None:
        null = "positions" if len(tms) == 1 else "shift"
    if alternative is None:
        alternative = "greater"
    if isinstance(statistic, str):
        kernel, attrs = _builtin(statistic, tms, statistic_kwargs)
    elif callable(statistic):
        if statistic_kwargs:
            raise InvalidDataError(
                f"Keyword arguments {sorted(statistic_kwargs)} are for named statistics; bind "
                "them into your callable (functools.partial)."
            )
        if vectorized is None:
            import inspect

            try:
                vectorized = "axis" in inspect.signature(statistic).parameters or None
            except (TypeError, ValueError):
                vectorized = None
        kernel = _batched(statistic, tms, vectorized)
        name = getattr(statistic, "__name__", None) or getattr(
            getattr(statistic, "func", None), "__name__", "callable")
        attrs = {"method": name, "reference": "user",
                 "vectorized": "auto" if vectorized is None else bool(vectorized)}
    else:
        raise InvalidDataError(
            f"statistic must be a name or a callable; got {type(statistic).__name__}."
        )
    if symmetric is not None:
        kernel.symmetric = bool(symmetric)
    return run_null(kernel, tms, null, n_permutations, rng, attrs, alternative)
