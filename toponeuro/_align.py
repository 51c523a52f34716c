"""Align labelled arrays on their stimuli by id: an exact join, never a silent drop."""

from __future__ import annotations

import numpy as np
import xarray as xr

from . import _dims as D
from .exceptions import AlignmentError, CoordinateError

__all__ = ["stimulus_ids", "align_stimuli"]


def stimulus_ids(da: xr.DataArray, what: str = "array") -> np.ndarray:
    """The ``stimulus_id`` values of ``da`` (checked unique)."""
    if D.STIMULUS not in da.dims:
        raise CoordinateError(f"The {what} has no 'stimulus' dim (dims {tuple(da.dims)}).")
    if D.STIMULUS_ID not in da.coords:
        raise CoordinateError(
            f"The {what} has no 'stimulus_id' coord; assign one with "
            "da.assign_coords(stimulus_id=('stimulus', ids))."
        )
    ids = np.asarray(da[D.STIMULUS_ID].values).astype(str)
    if len(np.unique(ids)) != len(ids):
        u, c = np.unique(ids, return_counts=True)
        raise AlignmentError(
            f"The {what} repeats stimulus ids {u[c > 1][:5].tolist()}; average the repeats "
            "(e.g. da.groupby('stimulus_id').mean()) or give each a unique id."
        )
    return ids


def align_stimuli(*arrays: xr.DataArray, names: tuple[str, ...] | None = None):
    """Reorder ``arrays[1:]`` to the stimulus order of ``arrays[0]``.

    The join is exact: every array must hold the same set of stimulus ids. Otherwise
    :class:`AlignmentError` reports how many ids are missing on each side (and a few examples),
    so nothing is dropped silently.

    Examples
    --------
    >>> import xarray as xr
    >>> a = xr.DataArray([1, 2], dims="stimulus", coords={"stimulus_id": ("stimulus", ["x", "y"])})
    >>> b = xr.DataArray([20, 10], dims="stimulus", coords={"stimulus_id": ("stimulus", ["y", "x"])})
    >>> [v.values.tolist() for v in align_stimuli(a, b)]
    [[1, 2], [10, 20]]
    """
    names = names or tuple(f"array {i}" for i in range(len(arrays)))
    ref = stimulus_ids(arrays[0], names[0])
    out = [arrays[0]]
    for arr, name in zip(arrays[1:], names[1:]):
        ids = stimulus_ids(arr, name)
        if len(ids) == len(ref) and np.array_equal(ids, ref):
            out.append(arr)
            continue
        missing = np.setdiff1d(ref, ids)
        extra = np.setdiff1d(ids, ref)
        if len(missing) or len(extra):
            raise AlignmentError(
                f"{names[0]} and {name} do not hold the same stimuli: {len(missing)} ids only "
                f"in {names[0]} (e.g. {missing[:3].tolist()}), {len(extra)} only in {name} "
                f"(e.g. {extra[:3].tolist()}). Select the common stimuli explicitly with "
                ".sel / .isel before comparing."
            )
        pos = {s: i for i, s in enumerate(ids)}
        out.append(arr.isel({D.STIMULUS: [pos[s] for s in ref]}))
    return tuple(out)
