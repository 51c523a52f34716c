"""Converters between toponeuro's labelled arrays and rsatoolbox's Dataset / RDMs."""

from __future__ import annotations

import numpy as np
import xarray as xr

from ..._util import dims as D
from ..._util.constraints import DataArrayWith, HasAttributes
from ..._util.params import Text, validate_params
from ...exceptions import AlignmentError, DimensionError, MissingDependencyError
from ._rsa import as_condensed, rdm_stimulus_ids, rsatoolbox_rdm_list
from ._rsa_compare import _looks_square, _rdm_stack

__all__ = [
    "to_rsatoolbox_dataset",
    "from_rsatoolbox_dataset",
    "to_rsatoolbox_rdms",
    "from_rsatoolbox_rdms",
]


def _rsatoolbox():
    try:
        import rsatoolbox
    except ImportError as err:  # pragma: no cover - core dependency
        raise MissingDependencyError("The rsatoolbox converters need rsatoolbox: pip install rsatoolbox") from err
    return rsatoolbox


@validate_params(dict(data=DataArrayWith((D.STIMULUS,))))
def to_rsatoolbox_dataset(data):
    """An rsatoolbox ``Dataset`` from Activations / BrainResponses (coords become descriptors).

    Parameters
    ----------
    data : xarray.DataArray
        Activations or BrainResponses (dims ``("stimulus", <unit or voxel>)``).

    Returns
    -------
    rsatoolbox.data.Dataset
        The values, with the stimulus coords as observation descriptors and the unit / voxel
        coords as channel descriptors.

    Examples
    --------
    >>> from toponeuro import make_activations
    >>> ds = to_rsatoolbox_dataset(make_activations({"a": 4}, n_stimuli=3, random_state=0))
    >>> ds.n_obs, ds.n_channel, ds.obs_descriptors["stimulus_id"][0]
    (3, 4, 'stim-0000')
    """
    rt = _rsatoolbox()
    if not isinstance(data, xr.DataArray) or data.ndim != 2 or data.dims[0] != D.STIMULUS:
        raise DimensionError(
            "to_rsatoolbox_dataset needs a DataArray with dims ('stimulus', <unit or voxel>)."
        )
    ch_dim = data.dims[1]
    obs = {k: np.asarray(v.values) for k, v in data.coords.items() if v.dims == (D.STIMULUS,)}
    chan = {k: np.asarray(v.values) for k, v in data.coords.items() if v.dims == (ch_dim,)}
    desc = {k: v for k, v in data.attrs.items() if np.isscalar(v)}
    desc["channel_dim"] = ch_dim
    return rt.data.Dataset(np.asarray(data.values), descriptors=desc, obs_descriptors=obs,
                           channel_descriptors=chan)


#: what from_rsatoolbox_dataset reads of an rsatoolbox Dataset (duck-typed: rsatoolbox is
#: optional, and not imported to check a value)
RSATOOLBOX_DATASET = HasAttributes(
    ("measurements", "descriptors", "obs_descriptors", "channel_descriptors"),
    "an rsatoolbox Dataset",
    fix="Pass an rsatoolbox.data.Dataset (to_rsatoolbox_dataset builds one).")


@validate_params({"ds": RSATOOLBOX_DATASET})
def from_rsatoolbox_dataset(ds) -> xr.DataArray:
    """A DataArray ``("stimulus", <channel dim>)`` from an rsatoolbox ``Dataset``.

    Parameters
    ----------
    ds : rsatoolbox.data.Dataset
        The dataset; its observation descriptors become stimulus coords and its channel
        descriptors unit (or voxel) coords.

    Returns
    -------
    xarray.DataArray
        The measurements, labelled.

    Examples
    --------
    >>> from toponeuro import make_activations
    >>> acts = make_activations({"a": 4}, n_stimuli=3, random_state=0)
    >>> back = from_rsatoolbox_dataset(to_rsatoolbox_dataset(acts))
    >>> bool((back == acts).all()), back.dims
    (True, ('stimulus', 'unit'))
    """
    desc = dict(ds.descriptors or {})
    ch_dim = desc.pop("channel_dim", D.UNIT)
    coords = {k: (D.STIMULUS, np.asarray(v)) for k, v in ds.obs_descriptors.items()}
    coords.update({k: (ch_dim, np.asarray(v)) for k, v in ds.channel_descriptors.items()})
    return xr.DataArray(np.asarray(ds.measurements), dims=(D.STIMULUS, ch_dim), coords=coords,
                        attrs=desc)


@validate_params({"metric": [Text(), None]})
def to_rsatoolbox_rdms(rdms, metric: str | None = None, stimulus_ids=None):
    """The rsatoolbox ``RDMs`` of one RDM or a stack (condensed or square).

    A labelled RDM from :func:`~toponeuro.analysis.rdm` brings its stimulus ids (as the
    ``stimulus_id`` pattern descriptor) and metric; a list of labelled RDMs is aligned by id
    to the first.

    Parameters
    ----------
    rdms : array-like, xarray.DataArray or list of them
        One RDM or several (condensed or square).
    metric : str, optional
        The dissimilarity measure, when the RDMs do not carry one.
    stimulus_ids : sequence of str, optional
        One per pattern, for RDMs without ids.

    Returns
    -------
    rsatoolbox.rdm.RDMs
        The RDMs, with the ``stimulus_id`` pattern descriptor when ids are known.

    Examples
    --------
    >>> r = to_rsatoolbox_rdms([1.0, 2.0, 3.0], metric="correlation")
    >>> r.n_rdm, r.n_cond
    (1, 3)
    """
    rt = _rsatoolbox()
    one = isinstance(rdms, xr.DataArray) and (rdms.ndim == 1 or _looks_square(rdms.values))
    if one:
        V, ids = as_condensed(rdms)[None], rdm_stimulus_ids(rdms)
        metric = metric if metric is not None else rdms.attrs.get("metric")
    elif isinstance(rdms, xr.DataArray) or (
        isinstance(rdms, (list, tuple)) and rdms and isinstance(rdms[0], xr.DataArray)
    ):  # a stack or list of labelled RDMs: each joined by its own ids
        V, ids = _rdm_stack(rdms)
        first = rdms if isinstance(rdms, xr.DataArray) else rdms[0]
        metric = metric if metric is not None else first.attrs.get("metric")
    else:
        arr = np.asarray(rdms.values if isinstance(rdms, xr.DataArray) else rdms,
                         dtype=np.float64)
        ids = None
        V = as_condensed(arr)[None] if arr.ndim == 1 or _looks_square(arr) else _rdm_stack(arr)[0]
    if stimulus_ids is None:
        stimulus_ids = ids
    pat = None
    if stimulus_ids is not None:
        pat = {D.STIMULUS_ID: np.asarray(stimulus_ids)}
    return rt.rdm.RDMs(V, dissimilarity_measure=metric, pattern_descriptors=pat)


@validate_params({"metric": [Text(), None]})
def from_rsatoolbox_rdms(rdms, stimulus_ids=None, *, metric: str | None = None
                         ) -> list[xr.DataArray]:
    """Labelled condensed RDMs, one per RDM of an rsatoolbox ``RDMs`` (same entry order).

    Each is what :func:`~toponeuro.analysis.rdm` returns: dim ``"pair"``, the stimulus ids in
    ``attrs["stimulus_id"]`` (from the ``stimulus_id`` pattern descriptor, as
    :func:`to_rsatoolbox_rdms` writes it; without one the RDM carries no ids and, like a
    plain array, is compared entry by entry in its own order) and
    ``attrs["metric"]`` (the dissimilarity measure). The RDM descriptors (e.g. a subject per
    RDM) go into each RDM's attrs. ``np.asarray`` of the list is the ``(n_rdm, n_pairs)``
    array.

    ``stimulus_ids`` (one per pattern, in pattern order) labels RDMs that carry no
    ``stimulus_id`` descriptor (see :func:`~toponeuro.analysis.labelled_rdm`); ``metric``
    replaces a missing dissimilarity measure.

    Parameters
    ----------
    rdms : rsatoolbox.rdm.RDMs
        The RDMs.
    stimulus_ids : sequence of str, optional
        One per pattern, for RDMs without a ``stimulus_id`` descriptor.
    metric : str, optional
        The dissimilarity measure, when the RDMs do not name one.

    Returns
    -------
    list of xarray.DataArray
        One labelled condensed RDM per RDM.

    Examples
    --------
    >>> back = from_rsatoolbox_rdms(to_rsatoolbox_rdms([1.0, 2.0, 3.0], "euclidean",
    ...                                                stimulus_ids=["a", "b", "c"]))
    >>> back[0].dims, back[0].attrs["stimulus_id"].tolist(), back[0].attrs["metric"]
    (('pair',), ['a', 'b', 'c'], 'euclidean')
    >>> np.asarray(back).tolist()
    [[1.0, 2.0, 3.0]]
    """
    ids = dict(rdms.pattern_descriptors or {}).get(D.STIMULUS_ID)
    if stimulus_ids is not None:
        given = np.asarray(getattr(stimulus_ids, "ids", stimulus_ids)).astype(str).ravel()
        if given.shape[0] != rdms.n_cond or len(set(given.tolist())) != given.shape[0]:
            raise DimensionError(
                f"The rsatoolbox RDMs describe {rdms.n_cond} patterns; stimulus_ids must list "
                f"{rdms.n_cond} distinct ids, in pattern order (got {given.shape[0]})."
            )
        if ids is not None and not np.array_equal(np.asarray(ids).astype(str), given):
            raise AlignmentError(
                "The rsatoolbox RDMs carry a 'stimulus_id' pattern descriptor that differs "
                "from the stimulus_ids given; leave stimulus_ids out to keep theirs."
            )
        ids = given
    return rsatoolbox_rdm_list(rdms, ids, metric)
