"""Align labelled arrays on their stimuli by id: an exact join, never a silent drop."""

from __future__ import annotations

import numpy as np
import xarray as xr

from ..exceptions import AlignmentError, CoordinateError
from . import dims as D

__all__ = ["stimulus_ids", "align_stimuli", "as_labelled", "pandas_ids", "ID_COLUMNS"]

#: column (or index) names read as the stimulus ids of a table
ID_COLUMNS = (D.STIMULUS_ID, D.STIMULUS)


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


def pandas_ids(index):
    """The labels of a pandas index, or ``None`` for pandas' default row numbers.

    Examples
    --------
    >>> import pandas as pd
    >>> pandas_ids(pd.Index(["b", "a"])).tolist(), pandas_ids(pd.RangeIndex(2))
    (['b', 'a'], None)
    """
    import pandas as pd

    if isinstance(index, pd.RangeIndex) and index.name is None:
        return None  # 0..n-1 made by pandas: positions, not labels
    return np.asarray(index).astype(str)


def as_labelled(data, what: str = "data", dim: str = D.UNIT):
    """``data`` as a DataArray that carries its stimulus ids, wherever it holds them.

    Ids are read from (first that applies): a DataArray's ``stimulus_id`` coord, or its
    ``stimulus`` dim coordinate; a pandas DataFrame's ``stimulus_id`` (or ``stimulus``)
    column, or its index unless that is pandas' default ``0..n-1``; a Series' index (the
    same rule). Anything else (numpy, torch, dask, a DataFrame with a default index) is
    returned unchanged: a plain array, paired by position. A DataFrame becomes
    ``(stimulus, dim)`` with its column names as the ``dim`` coord.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"v1": [1.0, 2.0]}, index=["img-b", "img-a"])
    >>> da = as_labelled(df, "responses", "voxel")
    >>> da.dims, da.stimulus_id.values.tolist(), da.voxel.values.tolist()
    (('stimulus', 'voxel'), ['img-b', 'img-a'], ['v1'])
    >>> as_labelled(np.zeros((2, 3))).shape  # plain: unchanged
    (2, 3)
    """
    if isinstance(data, xr.DataArray):
        if (D.STIMULUS_ID not in data.coords and D.STIMULUS in data.dims
                and D.STIMULUS in data.coords):  # ids as the dim coordinate
            ids = np.asarray(data[D.STIMULUS].values).astype(str)
            data = data.drop_vars(D.STIMULUS).assign_coords(
                {D.STIMULUS_ID: (D.STIMULUS, ids)})
        return data
    mod = type(data).__module__
    if not mod.startswith("pandas"):
        return data
    import pandas as pd

    if isinstance(data, pd.Series):
        ids = pandas_ids(data.index)
        if ids is None:
            return data.to_numpy()
        return xr.DataArray(data.to_numpy()[:, None], dims=(D.STIMULUS, dim),
                            coords={D.STIMULUS_ID: (D.STIMULUS, ids)},
                            name=None if data.name is None else str(data.name))
    if not isinstance(data, pd.DataFrame):
        return data
    cols = [c for c in ID_COLUMNS if c in data.columns]
    if cols:
        ids = np.asarray(data[cols[0]]).astype(str)
        data = data.drop(columns=cols)
    else:
        ids = pandas_ids(data.index)
        if ids is None:
            return data.to_numpy()
    nonnum = [c for c in data.columns if not pd.api.types.is_numeric_dtype(data[c])]
    if nonnum:
        from ..exceptions import InvalidDataError

        raise InvalidDataError(
            f"The {what} (a DataFrame) hold non-numeric columns {nonnum[:5]}; expected one "
            f"numeric column per {dim} and the stimulus ids in the index or a "
            f"{D.STIMULUS_ID!r} column. Drop or move those columns (df.set_index(...))."
        )
    return xr.DataArray(data.to_numpy(), dims=(D.STIMULUS, dim),
                        coords={D.STIMULUS_ID: (D.STIMULUS, ids),
                                dim: np.asarray(data.columns).astype(str)})
