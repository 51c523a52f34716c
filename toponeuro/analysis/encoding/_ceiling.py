"""The noise ceiling of :func:`~toponeuro.analysis.encoding_score`: its units checked
against the metric, its voxels aligned with the responses', and the normalised scores'
plausibility (split from ``_encoding.py``, at the module size limit).

Examples
--------
>>> _check_ceiling(np.array([0.5, 0.8]), "pearson", 2).tolist()
[0.5, 0.8]
>>> _check_ceiling(np.array([50.0, 80.0]), "pearson", 2)
Traceback (most recent call last):
...
toponeuro.exceptions.UnitsError: ceiling values reach 80, but a ceiling of r lies in (0, 1]; this looks like a percentage of variance (NSD's noise ceiling): pass np.sqrt(nc / 100) (r = the square root of the explained fraction).
"""

from __future__ import annotations

import warnings

import numpy as np
import xarray as xr

from ..._util.stack import user_stacklevel
from ...exceptions import (
    AlignmentError,
    ImplausibleValueWarning,
    InvalidDataError,
    UndefinedValueWarning,
    UnitsError,
)


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
            ImplausibleValueWarning, stacklevel=user_stacklevel(),
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
            "(NaN).", UndefinedValueWarning, stacklevel=user_stacklevel(),
        )
    return c
