"""RDMs from outside toponeuro: give a plain matrix, an rsatoolbox ``RDMs`` or a file its stimuli.

A plain 92 x 92 array from a ``.mat`` file has no stimulus ids, so toponeuro could only
compare it with a model's RDM position by position, and a model extracted in another order
(category folders sorted by name, say) would be paired with the wrong stimuli without a word.
:func:`labelled_rdm` attaches the ids once; :func:`load_rdms` reads the usual file formats
(``.npy``/``.npz``, MATLAB ``.mat`` arrays and the RSA toolbox's struct arrays with an ``RDM``
field, rsatoolbox's own hdf5/pickle) and labels every RDM in them. The result is what
:func:`~toponeuro.analysis.rdm` returns: a condensed ``DataArray`` with its ids in
``attrs["stimulus_id"]``, so every comparison joins it by id.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import xarray as xr

from ..._io.reading import load_numpy, read_file, refuse_pickle
from ..._util import dims as D
from ..._util.docs import fill_doc
from ..._util.params import Boolean, Text, validate_params
from ...exceptions import (
    AlignmentError,
    DimensionError,
    InputTypeError,
    InvalidDataError,
    MissingFileError,
    UnknownNameError,
    UnreadableFileError,
    close_matches,
)
from ._rsa import _frame_rdm, _labelled, as_condensed, n_from_condensed, rdm_stimulus_ids
from ._rsa_convert import _rsatoolbox, from_rsatoolbox_rdms

__all__ = ["labelled_rdm", "load_rdms", "RDM_FILE_SUFFIXES"]

#: file suffixes :func:`load_rdms` reads
RDM_FILE_SUFFIXES = (".npy", ".npz", ".mat", ".hdf5", ".h5", ".pkl")


def _ids(stimulus_ids, n: int, what: str) -> np.ndarray:
    if isinstance(stimulus_ids, str):
        raise InputTypeError(
            f"stimulus_ids must list one id per stimulus ({n}); got the string "
            f"{stimulus_ids!r}. Pass a list, e.g. stimulus_set.ids."
        )
    ids = getattr(stimulus_ids, "ids", stimulus_ids)  # a StimulusSet gives its ids
    ids = np.asarray(ids).astype(str).ravel()
    if ids.shape[0] != n:
        raise DimensionError(
            f"The {what} describes {n} stimuli but stimulus_ids lists {ids.shape[0]}; give "
            "one id per row of the RDM, in the order of its rows."
        )
    u, c = np.unique(ids, return_counts=True)
    if (c > 1).any():
        raise AlignmentError(
            f"stimulus_ids repeat ({u[c > 1][:5].tolist()}); an RDM's rows are distinct "
            "stimuli, so give each its own id."
        )
    return ids


@validate_params({"metric": [Text(), None], "what": Text()})
def labelled_rdm(matrix, stimulus_ids=None, *, metric: str | None = None,
                 what: str = "RDM", **attrs) -> xr.DataArray:
    """One RDM with its stimulus ids: the condensed, labelled form :func:`rdm` returns.

    Parameters
    ----------
    matrix : array-like, xarray.DataArray or rsatoolbox RDMs
        A square symmetric matrix with a zero diagonal, or its condensed upper triangle (the
        order of ``scipy.spatial.distance.squareform``); a DataArray (an RDM from
        :func:`rdm`, whose ids are kept); a square pandas DataFrame (its index gives the
        ids, its columns are joined to it); or an rsatoolbox ``RDMs`` holding one RDM (its
        ``stimulus_id`` pattern descriptor, when present, gives the ids).
    stimulus_ids : sequence of str or StimulusSet, optional
        The stimulus of each row, in row order (a StimulusSet gives its ``ids``). Needed
        unless ``matrix`` already carries ids; given for a matrix that carries other ids,
        :class:`~toponeuro.exceptions.AlignmentError`.
    metric : str, optional
        The dissimilarity the matrix holds (``attrs["metric"]``), e.g. ``"correlation"``.
    what : str
        The RDM's name in error messages.
    **attrs
        More attrs to record (e.g. ``subject="BE"``, ``session=1``).

    Returns
    -------
    xarray.DataArray
        Dim ``"pair"``, ``attrs["stimulus_id"]``, ``attrs["metric"]`` (``None`` when not
        given), ``attrs["n_stimuli"]`` and the ``attrs`` given.

    Raises
    ------
    DimensionError
        Not an RDM's shape, or not one id per row.
    InvalidDataError
        A square matrix that is not symmetric or has a non-zero diagonal.

    Examples
    --------
    >>> m = [[0.0, 0.2, 0.9], [0.2, 0.0, 0.8], [0.9, 0.8, 0.0]]
    >>> r = labelled_rdm(m, ["face", "hand", "house"], metric="correlation", subject="s1")
    >>> r.dims, r.attrs["stimulus_id"].tolist(), r.values.tolist(), r.attrs["subject"]
    (('pair',), ['face', 'hand', 'house'], [0.2, 0.9, 0.8], 's1')

    A labelled RDM is matched to another by id, whatever the row order:

    >>> from toponeuro.analysis import compare_rdms
    >>> flipped = labelled_rdm([[0.0, 0.8, 0.9], [0.8, 0.0, 0.2], [0.9, 0.2, 0.0]],
    ...                        ["house", "hand", "face"])
    >>> compare_rdms(r, flipped, "pearson")
    1.0
    """
    have = None
    if hasattr(matrix, "get_vectors") and hasattr(matrix, "pattern_descriptors"):
        if matrix.n_rdm != 1:
            raise DimensionError(
                f"The rsatoolbox RDMs holds {matrix.n_rdm} RDMs; labelled_rdm makes one. Use "
                "toponeuro.analysis.from_rsatoolbox_rdms(rdms, stimulus_ids=...) for all."
            )
        vec = np.asarray(matrix.get_vectors(), dtype=np.float64)[0]
        pat = dict(matrix.pattern_descriptors or {})
        if D.STIMULUS_ID in pat:
            have = np.asarray(pat[D.STIMULUS_ID]).astype(str)
        metric = metric if metric is not None else matrix.dissimilarity_measure
    else:
        if type(matrix).__module__.startswith("pandas") and getattr(matrix, "ndim", 0) == 2:
            matrix = _frame_rdm(matrix, what)  # its index (and columns) are the ids
        have = rdm_stimulus_ids(matrix, what)
        if isinstance(matrix, xr.DataArray):
            metric = metric if metric is not None else matrix.attrs.get("metric")
            attrs = {**{k: v for k, v in matrix.attrs.items()
                        if k not in (D.STIMULUS_ID, "metric", "n_stimuli")}, **attrs}
        vec = as_condensed(matrix, what)
    n = n_from_condensed(vec.shape[0])
    if stimulus_ids is None:
        if have is None:
            raise InvalidDataError(
                f"The {what} carries no stimulus ids and none were given; pass "
                "stimulus_ids=[...] (one per row, in row order), e.g. the ids of the "
                "StimulusSet the RDM was measured on."
            )
        ids = _ids(have, n, what)
    else:
        ids = _ids(stimulus_ids, n, what)
        if have is not None and not np.array_equal(have, ids):
            raise AlignmentError(
                f"The {what} already carries stimulus ids ({have[:3].tolist()}...) that differ "
                f"from the stimulus_ids given ({ids[:3].tolist()}...). Leave stimulus_ids out "
                "to keep its own, or pass np.asarray(rdm) to relabel a plain copy."
            )
    out = _labelled(np.asarray(vec, dtype=np.float64), None, ids, metric, square=False)
    for k, v in attrs.items():
        out.attrs[k] = v
    return out


# ----------------------------------------------------------------------------- files
def _stack_of(arr, what):
    """A list of plain RDMs from an array: (n, n), (n_pairs,), (k, n, n) or (k, n_pairs)."""
    arr = np.asarray(arr)
    if arr.dtype.kind not in "fiub":
        raise InvalidDataError(
            f"The {what} holds {'Python objects' if arr.dtype == object else 'text'} "
            f"(dtype {arr.dtype}), not numbers; expected a numeric RDM or stack of RDMs. "
            "Pass key= naming the variable that holds the RDMs."
        )
    arr = np.squeeze(arr.astype(np.float64)) if arr.ndim > 3 else arr.astype(np.float64)
    if arr.ndim == 2 and 1 in arr.shape and arr.shape[0] != arr.shape[1]:
        arr = arr.ravel()  # MATLAB saves a vector as (1, n) or (n, 1): one condensed RDM
    if arr.ndim == 1 or (arr.ndim == 2 and arr.shape[0] == arr.shape[1]):
        return [arr]
    if arr.ndim == 2:
        return list(arr)  # rows are condensed RDMs
    if arr.ndim == 3 and arr.shape[1] == arr.shape[2]:
        return list(arr)
    if arr.ndim == 3 and arr.shape[0] == arr.shape[1]:  # MATLAB (n, n, k)
        return [arr[:, :, k] for k in range(arr.shape[2])]
    raise DimensionError(
        f"The {what} has shape {arr.shape}; expected an RDM (n, n) or (n_pairs,), or a stack "
        "(k, n, n), (n, n, k) or (k, n_pairs)."
    )


def _mat_text(v) -> str | None:
    v = np.asarray(v)
    if v.dtype.kind in "US" and v.size:
        return str(v.ravel()[0])
    return None


def _name_descriptors(name: str) -> dict:
    """Descriptors in an RSA-toolbox RDM name: ``"hIT | BE | Session: 1"`` -> region,
    subject and session (the toolbox's ``'<region> | <subject> | Session: <n>'``); other
    ``"key: value"`` parts become ``key`` -> value.

    Examples
    --------
    >>> _name_descriptors("hIT | BE | Session: 1")
    {'session': '1', 'region': 'hIT', 'subject': 'BE'}
    >>> _name_descriptors("just a name")
    {}
    """
    parts = [p.strip() for p in str(name).split("|")]
    if len(parts) < 2:
        return {}
    out, free = {}, []
    for p in parts:
        k, sep, v = p.partition(":")
        if sep and k.strip() and v.strip():
            out[k.strip().lower().replace(" ", "_")] = v.strip()
        else:
            free.append(p)
    if len(free) == 2 and all(free):  # the RSA toolbox's '<region> | <subject> | ...'
        out["region"], out["subject"] = free
    return out


def _from_struct(arr, what):
    """RDMs and descriptors of a MATLAB struct array with an ``RDM`` field (RSA toolbox)."""
    fields = arr.dtype.names
    if "RDM" not in fields:
        raise InvalidDataError(
            f"The {what} is a MATLAB struct array with fields {list(fields)} but no 'RDM'; "
            "pass key= naming a numeric variable, or a struct with an 'RDM' field."
        )
    out = []
    for index in np.ndindex(arr.shape):  # C order: for (1, 4, 2) subjects, then sessions
        e = arr[index]
        desc = {"index_in_file": tuple(int(i) for i in index)}
        for f in fields:
            if f != "RDM":
                text = _mat_text(e[f])
                if text is not None:
                    desc[f] = text
        if "name" in desc:  # e.g. 'hIT | BE | Session: 1': subject and session in the name
            for k, v in _name_descriptors(desc["name"]).items():
                desc.setdefault(k, v)
        where = f"{what}, entry {desc['index_in_file']}"
        ms = _stack_of(e["RDM"], where)
        if len(ms) != 1:
            raise DimensionError(
                f"The 'RDM' field of {where} holds {len(ms)} RDMs; expected one RDM per "
                "entry of the struct array (a square matrix or its upper triangle)."
            )
        out.append((ms[0], desc))
    return out


def _read_mat(path: Path, key):
    import scipy.io

    def read(p):
        try:
            return scipy.io.loadmat(p)
        except NotImplementedError as err:  # v7.3 files are hdf5
            raise InvalidDataError(
                f"{p} could not be read as a MATLAB file ({err}); save it with "
                "save(..., '-v7') or export the RDMs to .npy."
            ) from err

    content = read_file(path, read, kind="MATLAB", what="RDM file",
                        fix="save it again with save(..., '-v7') or export the RDMs to .npy")
    names = [k for k in content if not k.startswith("__")]
    if key is None:
        numeric = [k for k in names if isinstance(content[k], np.ndarray)
                   and (content[k].dtype.names or content[k].dtype.kind in "fiu")]
        if not numeric:
            raise InvalidDataError(
                f"{path} holds no numeric variable or struct array of RDMs (its variables: "
                f"{names}); save the RDMs as a numeric (n, n) / (n, n, k) array or a struct "
                "array with an 'RDM' field."
            )
        if len(numeric) > 1:
            raise InvalidDataError(
                f"{path} holds the variables {names}; pass key= naming the one with the RDMs."
            )
        key = numeric[0]
    if key not in content:
        raise UnknownNameError(f"{path} has no variable {key!r}; {close_matches(key, names)}")
    arr = content[key]
    what = f"variable {key!r} of {path.name}"
    if arr.dtype.names:
        return _from_struct(arr, what)
    return [(m, {}) for m in _stack_of(arr, what)]


def _read_rsatoolbox(path: Path, trust_pickle: bool):
    kind = "pkl" if path.suffix.lower() == ".pkl" else "hdf5"
    if kind == "pkl":  # rsatoolbox's reader is pickle.load: refused before the file is opened
        refuse_pickle(path, trust_pickle, reader="load_rdms")
    rt = _rsatoolbox()
    return read_file(path, lambda p: rt.rdm.load_rdm(str(p), file_type=kind),
                     kind=f"rsatoolbox {kind}", what="RDM file",
                     fix=f"give a file written by rsatoolbox's RDMs.save(path, "
                         f"file_type={kind!r}), or export the RDMs to .npy or .mat")


def _npy(path: Path):
    return load_numpy(path, what="RDM file",
                      fix="save the RDMs again with np.save(path, np.asarray(rdms, dtype=float))")


def _with_ids(rdms: list[xr.DataArray], what: str) -> list[xr.DataArray]:
    """``rdms`` when each carries stimulus ids; else the error that asks for them."""
    if any(D.STIMULUS_ID not in r.attrs for r in rdms):
        raise InvalidDataError(
            f"{what} holds RDMs without a 'stimulus_id' pattern descriptor and no "
            "stimulus_ids were given; pass stimulus_ids=[...] (one per pattern, in pattern "
            "order), e.g. the ids of the StimulusSet they were measured on."
        )
    return rdms


@validate_params({"key": [Text(), None], "metric": [Text(), None], "trust_pickle": Boolean()})
@fill_doc
def load_rdms(path, stimulus_ids=None, *, key: str | None = None,
              metric: str | None = None, trust_pickle: bool = False) -> list[xr.DataArray]:
    """Every RDM in a file (or an rsatoolbox ``RDMs``), each labelled with its stimulus ids.

    Parameters
    ----------
    path : str, Path or rsatoolbox RDMs
        ``.npy`` (one RDM (n, n) or (n_pairs,), or a stack (k, n, n) / (k, n_pairs));
        ``.npz`` (the array ``key``, or the only one); ``.mat`` (read with
        ``scipy.io.loadmat``: a numeric variable shaped as for ``.npy`` or MATLAB's
        (n, n, k), or a struct array with an ``RDM`` field as the RSA toolbox saves them,
        e.g. ``92_brainRDMs.mat``, whose text fields such as ``name`` go into each RDM's
        attrs, and a name in the RSA toolbox's form ``'hIT | BE | Session: 1'`` gives
        ``region``, ``subject`` and ``session`` attrs, so
        ``rdm_noise_ceiling(rdms, subjects="subject")`` groups the sessions);
        ``.hdf5``/``.h5``/``.pkl`` saved by rsatoolbox's ``RDMs.save`` (a ``.pkl``
        only with ``trust_pickle=True``). An rsatoolbox ``RDMs`` object is read the same way.
    stimulus_ids : sequence of str or StimulusSet, optional
        The stimulus of each row, shared by every RDM in the file. Required unless the file
        carries them (an rsatoolbox RDMs with a ``stimulus_id`` pattern descriptor).
    key : str, optional
        The variable (``.mat``) or array (``.npz``) holding the RDMs, when there are several.
    metric : str, optional
        The dissimilarity the RDMs hold (rsatoolbox files bring their own).
    %(trust_pickle)s

    Returns
    -------
    list of xarray.DataArray
        One labelled condensed RDM per RDM in the file, in file order (MATLAB struct arrays
        in C order of their indices: for ``RDMs`` of shape (1, 4, 2), subject 1 session 1,
        subject 1 session 2, ...), each with ``attrs["source"]`` (the file name) and any
        descriptors the file holds (``name``, ``index_in_file``; rsatoolbox's RDM
        descriptors).

    Raises
    ------
    MissingFileError
        No such file.
    UnknownNameError
        A suffix or ``key`` that is not known.
    UntrustedFileError
        A ``.pkl`` file without ``trust_pickle=True`` (nothing in it has run).
    UnreadableFileError
        An empty, truncated or corrupt file, or another kind of file under the suffix.
    InvalidDataError
        No ids given for a file without them, or contents that are not RDMs.

    Examples
    --------
    >>> import tempfile, pathlib, scipy.io
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> m = np.array([[0.0, 0.2, 0.9], [0.2, 0.0, 0.8], [0.9, 0.8, 0.0]])
    >>> scipy.io.savemat(d / "rdms.mat", {"RDMs": np.stack([m, 2 * m], axis=2)})
    >>> rs = load_rdms(d / "rdms.mat", ["face", "hand", "house"])
    >>> len(rs), rs[1].values.tolist(), rs[0].attrs["stimulus_id"].tolist()
    (2, [0.4, 1.8, 1.6], ['face', 'hand', 'house'])
    >>> np.save(d / "one.npy", m)
    >>> load_rdms(d / "one.npy", ["a", "b", "c"])[0].attrs["source"]
    'one.npy'
    """
    if hasattr(path, "get_vectors") and hasattr(path, "pattern_descriptors"):
        return _with_ids(from_rsatoolbox_rdms(path, stimulus_ids=stimulus_ids, metric=metric),
                         "The rsatoolbox RDMs")
    if not isinstance(path, str | os.PathLike):
        raise InputTypeError(
            f"load_rdms reads a file path or an rsatoolbox RDMs; got {type(path).__name__}. "
            "For an array use toponeuro.analysis.labelled_rdm(matrix, stimulus_ids)."
        )
    path = Path(path)
    if not path.is_file():
        raise MissingFileError(f"RDM file {path} does not exist; pass an existing file.")
    suffix = path.suffix.lower()
    if suffix not in RDM_FILE_SUFFIXES:
        raise UnknownNameError(
            f"Cannot read RDMs from a {suffix or 'suffix-less'} file ({path.name}); expected "
            f"one of {RDM_FILE_SUFFIXES}."
        )
    if suffix in (".hdf5", ".h5", ".pkl"):
        out = _with_ids(from_rsatoolbox_rdms(_read_rsatoolbox(path, trust_pickle),
                                             stimulus_ids=stimulus_ids, metric=metric),
                        path.name)
        for r in out:
            r.attrs["source"] = path.name
        return out
    if suffix == ".mat":
        entries = _read_mat(path, key)
    elif suffix == ".npy":
        entries = [(m, {}) for m in _stack_of(_npy(path), path.name)]
    else:
        archive = load_numpy(path, what="RDM file", fix="save the RDMs again with "
                             "np.savez(path, rdms=np.asarray(rdms, dtype=float))")
        if not hasattr(archive, "files"):  # np.load read a .npy under the name
            raise UnreadableFileError(
                f"The RDM file {path} is a single .npy array saved under the name .npz; "
                "rename it to .npy."
            )
        with archive as z:
            names = list(z.files)
            if key is None and len(names) != 1:
                raise InvalidDataError(
                    f"{path} holds the arrays {names}; pass key= naming the one with the RDMs."
                )
            key = names[0] if key is None else key
            if key not in names:
                raise UnknownNameError(f"{path} has no array {key!r}; {close_matches(key, names)}")
            try:
                arr = z[key]
            except ValueError as err:
                if "allow_pickle" not in str(err):
                    raise UnreadableFileError(
                        f"Array {key!r} of the RDM file {path} could not be read ({err}); "
                        "the file is truncated or corrupt. Save the RDMs again."
                    ) from err
                raise InvalidDataError(  # an object array needs pickle
                    f"Array {key!r} of {path} holds Python objects ({err}); expected a "
                    "numeric array of RDMs."
                ) from err
            except Exception as err:  # noqa: BLE001 - a cut member: zlib, zipfile, EOF errors
                raise UnreadableFileError(
                    f"Array {key!r} of the RDM file {path} could not be read "
                    f"({type(err).__name__}: {err}); the file is truncated or corrupt. Save "
                    "the RDMs again."
                ) from err
            entries = [(m, {}) for m in _stack_of(arr, f"array {key!r} of {path.name}")]
    if stimulus_ids is None:
        raise InvalidDataError(
            f"{path.name} holds RDMs without stimulus ids; pass stimulus_ids=[...] (one per "
            "row, in row order), e.g. the ids of the StimulusSet they were measured on."
        )
    return [labelled_rdm(m, stimulus_ids, metric=metric, what=f"RDM {k} of {path.name}",
                         source=path.name, **desc)
            for k, (m, desc) in enumerate(entries)]
