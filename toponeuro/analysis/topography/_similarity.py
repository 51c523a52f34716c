"""The two-map similarity statistics of :func:`map_similarity`: SSIM and correlations.

Each factory takes the two maps and returns a batched kernel ``f(a (B, n), b (B, n)) -> (B,)``
and its attrs (see :func:`toponeuro.analysis._null.run_null`). All three statistics are
symmetric in the two maps, which the default two-map null uses (``kernel.symmetric``): half
its draws move the second map, half the first, so swapping the maps gives the same p.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..._util.metrics import pearson_r, rankdata
from ..._util.params import check_int
from ...exceptions import InvalidDataError, ParameterError
from ._ssim import (
    SSIM_REFERENCE,
    default_win_size,
    ssim_batch,
    ssim_fixed_kernel,
    ssim_shift_kernel,
)

SIMILARITY_METHODS = ("ssim", "pearson", "spearman")
_SIM_REFERENCES = {
    "pearson": "Pearson correlation across units: position-free (shuffling every unit's "
    "position alike leaves it unchanged)",
    "spearman": "Spearman rank correlation across units: position-free (shuffling every "
    "unit's position alike leaves it unchanged)",
}
#: what the TopoNets project page says about its map similarity
TOPONETS_SSIM_NOTE = (
    "toponets.github.io reports face-body (0.79) and face-scene (-0.41) map similarity of a "
    "ResNet-18 as 'structural similarity' without stating window or data_range, and its code "
    "(toponets/toponets) does not include the analysis. A negative face-scene value means its "
    "SSIM scores a map against its negative below zero; SSIM of zero-centred signed maps does "
    "not (a map and its negative score positive where local means have opposite signs), SSIM "
    "of maps put on a common non-negative scale, as images are, does. So each map is min-max "
    "rescaled to [0, 1] and SSIM uses data_range 1, with scikit-image's 7 x 7 uniform window."
)
#: how SSIM puts each map on an image scale
SSIM_SCALE = ("each map min-max rescaled to [0, 1] over its units, data_range 1 (each null "
              "draw too, as the observed map)")


def _two_maps(tms, name):
    if len(tms) != 2:
        raise InvalidDataError(f"The {name} statistic compares two maps; got {len(tms)}.")


def _corr_factory(tms, *, method="pearson", rng=None):
    _two_maps(tms, method)
    def kernel(a, b):  # (draws, n) rows; units without a value in either map left out
        a, b = np.broadcast_arrays(np.atleast_2d(a), np.atleast_2d(b))
        if method == "spearman":
            ok = np.isfinite(a) & np.isfinite(b)
            a, b = rankdata(np.where(ok, a, np.nan)), rankdata(np.where(ok, b, np.nan))
        return pearson_r(a.T, b.T, omit_nan=True)
    kernel.symmetric = True  # f(a, b) == f(b, a): the default null moves each map in turn
    return kernel, {"method": method, "reference": _SIM_REFERENCES[method]}


def _check_win_size(win_size, shape) -> int:
    """SSIM's window: odd, at least 3 and at most the sheet's smaller side (scikit-image)."""
    side = int(min(shape))
    rule = (f"an odd whole number from 3 to the sheet's smaller side ({side}) (scikit-image's "
            "rule; its default is 7)")
    k = check_int(win_size, "win_size", fix=f"win_size must be {rule}.")
    if k < 3 or k % 2 == 0 or k > side:
        raise ParameterError(f"win_size={k} is not {rule}.")
    return k


def _ssim_factory(tms, *, win_size=None, data_range=None, k1=0.01, k2=0.03, rng=None):
    _two_maps(tms, "ssim")
    shape = tms[0].grid_shape
    if shape is None:
        raise InvalidDataError(
            "SSIM compares maps window by window on a regular grid; a cortical mesh has no "
            "standard window (vertex neighbourhoods differ in size and shape), so toponeuro "
            "does not define it there. Use method='pearson' (its spin-test null, "
            "n_permutations=..., says whether the maps share territory), or resample both "
            "maps onto a flat regular grid first."
        )
    win = default_win_size(shape) if win_size is None else _check_win_size(win_size, shape)
    rescale = data_range is None
    if rescale:
        data_range, rule = 1.0, SSIM_SCALE
    else:
        data_range, rule = float(data_range), "given: the maps as they are (not rescaled)"
    h, w = shape

    def unit(v):  # each map (row) min-max rescaled over its units: null draws as observed
        with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN row: NaN
            lo = np.nanmin(v, axis=-1, keepdims=True)
            return (v - lo) / (np.nanmax(v, axis=-1, keepdims=True) - lo)

    def kernel(a, b):
        if rescale:
            a, b = unit(a), unit(b)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # NaN rows: said by the caller
            return ssim_batch(a.reshape(-1, h, w), b.reshape(-1, h, w), win_size=win,
                              data_range=data_range, k1=k1, k2=k2)

    ga, gb = tms[0].values[None], tms[1].values[None]
    if rescale:
        ga, gb = unit(ga), unit(gb)
    ga, gb = ga.reshape(h, w), gb.reshape(h, w)
    if data_range > 0 and np.isfinite(ga).any() and np.isfinite(gb).any():
        # torus null: a moved map holds the same values (so the same scale), and only the
        # cross term moves (see ssim_shift_kernel)
        kernel.shifted = ssim_shift_kernel(ga, gb, win_size=win, data_range=data_range,
                                           k1=k1, k2=k2)
    kernel.symmetric = True  # SSIM(a, b) == SSIM(b, a): the default null moves each in turn

    def mover(g):  # f(draws of the other map) with ``g`` fixed: its window means once
        fixed = ssim_fixed_kernel(g, win_size=win, data_range=data_range, k1=k1, k2=k2)
        if fixed is None or not data_range > 0:
            return None

        def moved(v):
            if rescale:
                v = unit(v)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                return fixed(v.reshape(-1, h, w))

        return moved

    if (moved := mover(ga)) is not None:
        kernel.moved = moved  # the first map stays, the second moves
    if (moved_first := mover(gb)) is not None:
        kernel.moved_first = moved_first  # the second map stays, the first moves

    attrs = {
        "method": "ssim",
        "win_size": win,
        "data_range": data_range,
        "data_range_rule": rule,
        "gaussian_weights": False,
        "use_sample_covariance": True,
        "K1": k1,
        "K2": k2,
        "reference": SSIM_REFERENCE,
        "toponets_parameters": TOPONETS_SSIM_NOTE,
    }
    return kernel, attrs
