"""BrainResponses: the one constructor, the validator, and invalid-voxel handling."""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Mapping, Sequence

import numpy as np
import xarray as xr

from .._util import dims as D
from .._util.constraints import DataArrayWith
from .._util.docs import fill_doc
from .._util.params import Boolean, Interval, Text, check_random_state, validate_params
from .._util.stack import user_stacklevel
from .._version import __version__
from ..atlases import hemi_name
from ..exceptions import (
    AlignmentError,
    CoordinateError,
    DimensionError,
    InputTypeError,
    InvalidDataError,
)

__all__ = [
    "make_brain_responses",
    "check_responses",
    "invalid_voxels",
    "handle_invalid",
    "average_repetitions",
    "zscore_within",
]

def _repetition_index(ids: np.ndarray) -> np.ndarray:
    """0 for the first occurrence of each id, 1 for the second, ..."""
    seen: dict[str, int] = {}
    out = np.empty(len(ids), dtype=np.int64)
    for i, s in enumerate(ids):
        out[i] = seen.get(s, 0)
        seen[s] = out[i] + 1
    return out


@validate_params({"n_stimuli": [Interval(numbers.Integral, 1, None, closed="left"), None],
                  "n_voxels": [Interval(numbers.Integral, 1, None, closed="left"), None]})
@fill_doc
def make_brain_responses(
    data: np.ndarray | None = None,
    stimulus_ids: Sequence[str] | None = None,
    *,
    subject: str | Sequence[str] = "sub-01",
    roi: str | Sequence[str] | None = None,
    xyz: np.ndarray | None = None,
    hemi: Sequence[str] | None = None,
    vertex: Sequence[int] | None = None,
    categories: Sequence[str] | None = None,
    stimulus_coords: Mapping[str, Sequence] | None = None,
    voxel_coords: Mapping[str, Sequence] | None = None,
    n_stimuli: int | None = None,
    n_voxels: int | None = None,
    random_state=None,
    attrs: Mapping | None = None,
) -> xr.DataArray:
    """Build a BrainResponses DataArray; the single constructor every loader uses.

    Parameters
    ----------
    data : array (n_stimuli, n_voxels), optional
        Responses; Gaussian noise of shape ``(n_stimuli, n_voxels)`` when omitted.
    stimulus_ids : sequence of str, optional
        One id per row (default ``"stim-0000"``...). Ids may repeat when rows are repeated
        trials: a ``repetition`` coord (0, 1, ... per id, in row order) is then added.
    subject : str or sequence of str
        Subject of every voxel (or one per voxel).
    roi : str or sequence of str, optional
        ROI name of every voxel (or one per voxel); ``""`` when not given.
    xyz : array (n_voxels, 3), optional
        Voxel centres in mm (volume data).
    hemi, vertex : sequences, optional
        Hemisphere (``"left"``/``"right"``, ``"lh"``/``"rh"`` accepted) and vertex index
        (surface data). Give either ``xyz`` or ``hemi`` and ``vertex``.
    categories : sequence of str, optional
        A ``category`` per stimulus row.
    stimulus_coords, voxel_coords : mapping, optional
        Extra coords along each dim (e.g. ``session``, ``ncsnr``).
    n_stimuli, n_voxels : int, optional
        The shape of the Gaussian noise drawn when ``data`` is omitted.
    %(random_state)s
    attrs : mapping, optional
        Stored on the result; the toponeuro version is added.

    Returns
    -------
    xarray.DataArray
        Dims ``("stimulus", "voxel")``, float32.

    Examples
    --------
    >>> r = make_brain_responses(n_stimuli=4, n_voxels=3, random_state=0,
    ...                          xyz=[[0, 0, 0], [2, 0, 0], [4, 0, 0]], roi="FFA")
    >>> r.dims, r.sizes["voxel"], r.roi.values.tolist()
    (('stimulus', 'voxel'), 3, ['FFA', 'FFA', 'FFA'])
    >>> rep = make_brain_responses(np.zeros((3, 1)), ["a", "b", "a"], hemi=["lh"], vertex=[7])
    >>> rep.repetition.values.tolist(), rep.hemi.values.tolist()
    ([0, 0, 1], ['left'])
    """
    if data is None:
        if n_stimuli is None or n_voxels is None:
            raise DimensionError("Give data, or n_stimuli and n_voxels for random responses.")
        rng = check_random_state(random_state)
        data = rng.standard_normal((int(n_stimuli), int(n_voxels)))
    data = np.asarray(data)
    if data.ndim != 2:
        raise DimensionError(
            f"Responses must be a 2-D array (n_stimuli, n_voxels); got shape {data.shape}."
        )
    if not np.issubdtype(data.dtype, np.floating):
        data = data.astype(np.float32)
    n, v = data.shape
    ids = np.asarray(
        stimulus_ids if stimulus_ids is not None else [f"stim-{i:04d}" for i in range(n)]
    ).astype(str)
    if ids.shape != (n,):
        raise DimensionError(
            f"Got {len(ids)} stimulus ids for {n} response rows; give one id per row (the "
            "order of the beta maps)."
        )
    coords: dict = {D.STIMULUS_ID: (D.STIMULUS, ids)}
    if len(np.unique(ids)) != n:
        coords[D.REPETITION] = (D.STIMULUS, _repetition_index(ids))
    if categories is not None:
        cats = np.asarray(categories).astype(str)
        if cats.shape != (n,):
            raise DimensionError(f"Got {len(cats)} categories for {n} response rows.")
        coords[D.CATEGORY] = (D.STIMULUS, cats)

    def per_voxel(value, name, dtype=str):
        if value is None:
            return None
        arr = np.asarray(value)
        if arr.ndim == 0:
            arr = np.full(v, arr.item())
        if arr.shape != (v,):
            raise DimensionError(f"{name}: expected {v} values (one per voxel); got {arr.shape}.")
        return arr.astype(dtype)

    coords[D.SUBJECT] = (D.VOXEL, per_voxel(subject, "subject"))
    coords[D.ROI] = (D.VOXEL, per_voxel("" if roi is None else roi, "roi"))
    if xyz is not None:
        if hemi is not None or vertex is not None:
            raise CoordinateError("Give either xyz (volume) or hemi and vertex (surface), not both.")
        xyz = np.asarray(xyz, dtype=float)
        if xyz.shape != (v, 3):
            raise DimensionError(f"xyz must have shape ({v}, 3); got {xyz.shape}.")
        for k, name in enumerate((D.X, D.Y, D.Z)):
            coords[name] = (D.VOXEL, xyz[:, k])
    elif hemi is not None or vertex is not None:
        if hemi is None or vertex is None:
            raise CoordinateError("Surface responses need both hemi and vertex.")
        coords[D.HEMI] = (D.VOXEL, np.array([hemi_name(h) for h in per_voxel(hemi, "hemi")]))
        coords[D.VERTEX] = (D.VOXEL, per_voxel(vertex, "vertex", np.int64))
    for name, values in (stimulus_coords or {}).items():
        coords[name] = (D.STIMULUS, np.asarray(values))
    for name, values in (voxel_coords or {}).items():
        coords[name] = (D.VOXEL, per_voxel(values, name, np.asarray(values).dtype))
    out = xr.DataArray(data, dims=D.RESPONSE_DIMS, coords=coords)
    out.attrs.update(dict(attrs or {}))
    out.attrs[D.ATTR_VERSION] = __version__
    return out


@validate_params({"unique_ids": Boolean()})
def check_responses(da: xr.DataArray, *, unique_ids: bool = False) -> xr.DataArray:
    """Validate a BrainResponses DataArray and return it unchanged.

    Parameters
    ----------
    da : xarray.DataArray
        BrainResponses (:func:`make_brain_responses` builds one).
    unique_ids : bool
        Also require every stimulus id once (repetitions averaged).

    Returns
    -------
    xarray.DataArray
        ``da`` itself, unchanged.

    Raises
    ------
    DimensionError
        dims are not ``("stimulus", "voxel")``.
    CoordinateError
        ``stimulus_id``, ``subject`` or ``roi`` is missing, or neither ``x, y, z`` nor
        ``hemi, vertex`` locate the voxels.
    AlignmentError
        ``unique_ids=True`` and some stimulus ids repeat.

    Examples
    --------
    >>> r = make_brain_responses(n_stimuli=2, n_voxels=2, xyz=np.zeros((2, 3)))
    >>> check_responses(r) is r
    True
    >>> check_responses(r.T)
    Traceback (most recent call last):
    ...
    toponeuro.exceptions.DimensionError: BrainResponses must have dims ('stimulus', 'voxel'); got ('voxel', 'stimulus'). Call .transpose('stimulus', 'voxel').
    """
    if not isinstance(da, xr.DataArray):
        raise InputTypeError(f"BrainResponses must be an xarray.DataArray; got {type(da).__name__}.")
    if tuple(da.dims) != D.RESPONSE_DIMS:
        fix = (
            "Call .transpose('stimulus', 'voxel')."
            if set(da.dims) == set(D.RESPONSE_DIMS)
            else "Build it with toponeuro.brain.make_brain_responses."
        )
        raise DimensionError(
            f"BrainResponses must have dims {D.RESPONSE_DIMS}; got {tuple(da.dims)}. {fix}"
        )
    for name in (D.STIMULUS_ID, D.SUBJECT, D.ROI):
        if name not in da.coords:
            raise CoordinateError(
                f"BrainResponses lack the {name!r} coord; build them with make_brain_responses."
            )
    volume = all(c in da.coords for c in (D.X, D.Y, D.Z))
    surface = all(c in da.coords for c in (D.HEMI, D.VERTEX))
    if not (volume or surface):
        raise CoordinateError(
            "BrainResponses need voxel coords x, y, z (mm) or hemi, vertex to locate voxels."
        )
    if unique_ids:
        ids = da[D.STIMULUS_ID].values
        if len(np.unique(ids)) != len(ids):
            raise AlignmentError(
                "Stimulus ids repeat (repeated trials); average them first with "
                "toponeuro.brain.average_repetitions(responses)."
            )
    return da


@validate_params(dict(da=DataArrayWith((D.STIMULUS, D.VOXEL))))
def invalid_voxels(da: xr.DataArray) -> np.ndarray:
    """Boolean mask of voxels with any NaN/inf or a constant response across stimuli.

    With a single stimulus only NaN/inf count (one map has no variance to judge).

    Parameters
    ----------
    da : xarray.DataArray
        Responses with dims ``("stimulus", "voxel")``.

    Returns
    -------
    numpy.ndarray
        Boolean, one per voxel: True where the voxel is invalid.

    Examples
    --------
    >>> r = make_brain_responses(np.array([[1.0, 2, np.nan], [1, 3, 0]]), xyz=np.zeros((3, 3)))
    >>> invalid_voxels(r).tolist()
    [True, False, True]
    """
    x = np.asarray(da.transpose(D.STIMULUS, D.VOXEL).values)
    bad = ~np.isfinite(x).all(axis=0)
    if x.shape[0] < 2:  # a single map has no across-stimulus variance to judge
        return bad
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN voxels: counted in bad
        const = np.nanmax(x, axis=0) == np.nanmin(x, axis=0)
    return bad | const


def _where(da: xr.DataArray, mask: np.ndarray, k: int = 5) -> str:
    idx = np.flatnonzero(mask)[:k]
    parts = []
    for i in idx:
        vox = da.isel({D.VOXEL: int(i)})
        if D.X in da.coords:
            loc = f"xyz=({float(vox[D.X]):g}, {float(vox[D.Y]):g}, {float(vox[D.Z]):g})"
        elif D.HEMI in da.coords:
            loc = f"{vox[D.HEMI].item()} vertex {int(vox[D.VERTEX])}"
        else:
            loc = f"voxel {int(i)}"
        roi = str(vox[D.ROI].item()) if D.ROI in da.coords else ""
        parts.append(loc + (f" in {roi!r}" if roi else ""))
    return "; ".join(parts)


@validate_params({"drop_invalid": Boolean(), "what": Text()})
def handle_invalid(da: xr.DataArray, drop_invalid: bool, what: str = "responses") -> xr.DataArray:
    """Raise on NaN/constant voxels, or drop them (with a warning) when asked to.

    Parameters
    ----------
    da : xarray.DataArray
        Responses with dims ``("stimulus", "voxel")``.
    drop_invalid : bool
        Drop the invalid voxels (warning how many) instead of raising.
    what : str
        What ``da`` is, in the messages.

    Returns
    -------
    xarray.DataArray
        ``da``, or without the invalid voxels when they were dropped (``attrs``
        ``n_invalid_dropped`` says how many).

    Raises
    ------
    InvalidDataError
        Some voxels are invalid (:func:`invalid_voxels`) and ``drop_invalid`` is False.

    Examples
    --------
    >>> import warnings
    >>> r = make_brain_responses(np.array([[1.0, 2.0], [1.0, 3.0]]), xyz=np.zeros((2, 3)))
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     kept = handle_invalid(r, drop_invalid=True)
    >>> kept.sizes["voxel"], kept.attrs["n_invalid_dropped"]
    (1, 1)
    """
    bad = invalid_voxels(da)
    if not bad.any():
        return da
    n_bad = int(bad.sum())
    nan = ~np.isfinite(np.asarray(da.values)).all(axis=0)
    msg = (
        f"{n_bad} of {bad.size} voxels in the {what} are unusable ({int(nan.sum())} with NaN/inf, "
        f"{int((bad & ~nan).sum())} constant across stimuli), e.g. {_where(da, bad)}"
    )
    if not drop_invalid:
        raise InvalidDataError(
            msg + ". Pass drop_invalid=True to exclude them, or a tighter mask / ROI."
        )
    warnings.warn(msg + "; excluded (drop_invalid=True).", stacklevel=user_stacklevel())
    out = da.isel({D.VOXEL: np.flatnonzero(~bad)})
    out.attrs["n_invalid_dropped"] = n_bad
    return out


@validate_params({"da": DataArrayWith(D.RESPONSE_DIMS, fix=(
    "Build the responses with make_brain_responses (or pass a stimulus x voxel array)."))})
def average_repetitions(da: xr.DataArray) -> xr.DataArray:
    """Average repeated trials of each stimulus (order of first appearance kept).

    Adds a ``n_repetitions`` stimulus coord; voxel coords and attrs are kept. Only the dims
    and the ``stimulus_id`` coord are required (any stimulus x voxel array, e.g. a
    Brain-Score assembly read back, can be averaged).

    Parameters
    ----------
    da : xarray.DataArray
        Responses with dims ``("stimulus", "voxel")`` and a ``stimulus_id`` coord.

    Returns
    -------
    xarray.DataArray
        One row per stimulus id, with ``n_repetitions``.

    Examples
    --------
    >>> r = make_brain_responses(np.array([[1.0], [5.0], [3.0]]), ["a", "b", "a"],
    ...                          xyz=np.zeros((1, 3)))
    >>> m = average_repetitions(r)
    >>> m.stimulus_id.values.tolist(), m.values[:, 0].tolist(), m.n_repetitions.values.tolist()
    (['a', 'b'], [2.0, 5.0], [2, 1])
    """
    if tuple(da.dims) != D.RESPONSE_DIMS:
        check_responses(da)  # the dims in another order (or more): its error says which
    if D.STIMULUS_ID not in da.coords:
        raise CoordinateError(
            "The responses lack the 'stimulus_id' coord naming each row's stimulus; build "
            "them with make_brain_responses."
        )
    ids = np.asarray(da[D.STIMULUS_ID].values).astype(str)
    uniq, first, inverse, counts = np.unique(
        ids, return_index=True, return_inverse=True, return_counts=True
    )
    order = np.argsort(first)
    x = np.asarray(da.values, dtype=np.float64)
    sums = np.zeros((len(uniq), x.shape[1]))
    np.add.at(sums, inverse, x)
    means = (sums / counts[:, None])[order].astype(da.dtype)
    stim_coords = {
        name: c.values[first[order]]
        for name, c in da.coords.items()
        if c.dims == (D.STIMULUS,) and name not in (D.STIMULUS_ID, D.REPETITION)
        and np.array_equal(c.values[first][inverse], c.values)
    }
    out = xr.DataArray(
        means,
        dims=D.RESPONSE_DIMS,
        coords={
            D.STIMULUS_ID: (D.STIMULUS, uniq[order]),
            "n_repetitions": (D.STIMULUS, counts[order]),
            **{k: (D.STIMULUS, v) for k, v in stim_coords.items()},
            **{k: c for k, c in da.coords.items() if c.dims == (D.VOXEL,)},
        },
        attrs=dict(da.attrs),
    )
    return out


@validate_params({"by": Text()})
def zscore_within(da: xr.DataArray, by: str = "session") -> xr.DataArray:
    """Z-score each voxel across the rows sharing the same ``by`` coord (e.g. session).

    Constant voxels become 0 rather than NaN.

    Parameters
    ----------
    da : xarray.DataArray
        Responses with dims ``("stimulus", "voxel")``.
    by : str
        A stimulus coord; rows sharing its value are z-scored together.

    Returns
    -------
    xarray.DataArray
        ``da``'s shape, coords and dtype, z-scored.

    Examples
    --------
    >>> import numpy as np
    >>> r = make_brain_responses(np.array([[1.0], [3.0], [10.0], [30.0]]),
    ...                          stimulus_ids=["a", "b", "a", "b"], xyz=np.zeros((1, 3)),
    ...                          stimulus_coords={"session": [1, 1, 2, 2]})
    >>> zscore_within(r).values.ravel().tolist()
    [-1.0, 1.0, -1.0, 1.0]
    """
    check_responses(da)
    if by not in da.coords:
        raise CoordinateError(f"No {by!r} stimulus coord to z-score within.")
    x = np.asarray(da.values, dtype=np.float64).copy()
    groups = np.asarray(da[by].values)
    for g in np.unique(groups):
        rows = groups == g
        mu = x[rows].mean(0)
        sd = x[rows].std(0)
        x[rows] = (x[rows] - mu) / np.where(sd > 0, sd, 1.0)
    return da.copy(data=x.astype(da.dtype))
