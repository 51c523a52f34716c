"""NSD's images (Allen et al., 2022): ``nsd_stimuli.hdf5`` read lazily, image by image, as a
:class:`~toponeuro.stimuli.StimulusSet` whose ids are NSD's 73k indices."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from .._util.constraints import ArrayLike
from .._util.params import PathLike, Text, validate_params
from ..exceptions import (
    DimensionError,
    InvalidDataError,
    MissingFileError,
    OutOfRangeError,
    UnreadableFileError,
)
from ._set import StimulusSet

__all__ = ["load_nsd_stimuli", "NSDImageReader"]


class NSDImageReader:
    """Read image ``i`` of NSD's ``nsd_stimuli.hdf5`` (dataset ``imgBrick``) on demand.

    The file is opened on first use and re-opened after pickling (e.g. in a DataLoader
    worker).

    Parameters
    ----------
    hdf5_path : str or Path
        NSD's ``nsd_stimuli.hdf5``.
    key : str
        The dataset of the images in the file.

    Examples
    --------
    >>> import tempfile, pathlib, h5py
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "nsd_stimuli.hdf5"
    >>> with h5py.File(p, "w") as f:
    ...     _ = f.create_dataset("imgBrick", data=np.zeros((2, 8, 8, 3), np.uint8))
    >>> NSDImageReader(p)(1).shape
    (8, 8, 3)
    """

    @validate_params(dict(hdf5_path=PathLike(), key=Text()))
    def __init__(self, hdf5_path: str | os.PathLike, key: str = "imgBrick"):
        self.hdf5_path = str(hdf5_path)
        self.key = key
        self._ds = None

    def __getstate__(self):
        return {"hdf5_path": self.hdf5_path, "key": self.key, "_ds": None}

    def _dataset(self):
        if self._ds is None:
            import h5py

            self._ds = h5py.File(self.hdf5_path, "r")[self.key]
        return self._ds

    def __call__(self, index) -> np.ndarray:
        return np.asarray(self._dataset()[int(index)])


def _nsd_indices(indices) -> np.ndarray:
    """``indices=`` as 0-based int positions; text (an id) and non-integral numbers refused."""
    raw = np.asarray([indices] if np.isscalar(indices) else list(indices))
    if raw.size and raw.dtype.kind not in "iuf":
        raise InvalidDataError(
            f"indices= must be 0-based imgBrick positions (integers); got {raw.dtype.kind!r} "
            f"values such as {raw.ravel()[0]!r}. For ids 'nsd-00042' pass the number, 42."
        )
    if raw.dtype.kind == "f" and not np.all(np.isfinite(raw) & (raw == np.round(raw))):
        bad = raw[~(np.isfinite(raw) & (raw == np.round(raw)))]
        raise InvalidDataError(
            f"indices= must be whole numbers (0-based imgBrick positions); got {bad[:3].tolist()}."
        )
    return raw.astype(np.int64).ravel()


@validate_params(dict(hdf5_path=PathLike(), indices=[ArrayLike(ndim=1), None], key=Text()))
def load_nsd_stimuli(
    hdf5_path: str | os.PathLike,
    indices: Iterable[int] | None = None,
    *,
    key: str = "imgBrick",
) -> StimulusSet:
    """NSD images, read lazily from ``nsd_stimuli.hdf5`` (``imgBrick``, 73k x 425 x 425 x 3).

    Parameters
    ----------
    hdf5_path : str or Path
        NSD's ``nsd_stimuli.hdf5`` (dataset ``imgBrick``).
    indices : iterable of int, optional
        0-based positions in ``imgBrick`` (= NSD's 1-based "73k id" minus one); default all.
    key : str
        Name of the image dataset.

    Returns
    -------
    StimulusSet
        Ids ``"nsd-<index:05d>"`` (0-based, matching :func:`toponeuro.brain.load_nsd_betas`);
        metadata ``nsd_index`` (0-based) and ``nsd_73k_id`` (1-based).

    Examples
    --------
    >>> import tempfile, pathlib, h5py, numpy as np
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "nsd_stimuli.hdf5"
    >>> with h5py.File(p, "w") as f:
    ...     _ = f.create_dataset("imgBrick", data=np.zeros((3, 5, 5, 3), np.uint8))
    >>> s = load_nsd_stimuli(p, [2, 0])
    >>> s.ids.tolist(), s.get(0).size
    (['nsd-00002', 'nsd-00000'], (5, 5))
    """
    import h5py

    path = Path(hdf5_path)
    if not path.is_file():
        raise MissingFileError(
            f"NSD stimulus file {path} does not exist; pass the path of nsd_stimuli.hdf5."
        )
    try:
        with h5py.File(path, "r") as f:
            if key not in f:
                raise InvalidDataError(
                    f"{path} has no dataset {key!r} (has {list(f.keys())}); pass key=."
                )
            shape = f[key].shape
    except OSError as err:
        raise UnreadableFileError(
            f"{path} is not a readable HDF5 file ({err}); pass the path of NSD's "
            "nsd_stimuli.hdf5 (download it again if it is truncated)."
        ) from err
    if len(shape) != 4 or shape[-1] != 3:
        raise DimensionError(
            f"{path}:{key} has shape {shape}; expected (n_images, height, width, 3) like "
            "NSD's imgBrick (73000, 425, 425, 3)."
        )
    idx = np.arange(shape[0]) if indices is None else _nsd_indices(indices)
    if idx.size and (idx.min() < 0 or idx.max() >= shape[0]):
        raise OutOfRangeError(
            f"NSD indices must be in 0..{shape[0] - 1} (0-based imgBrick positions); got "
            f"{int(idx.min())}..{int(idx.max())}. Subtract 1 from 1-based 73k ids."
        )
    meta = pd.DataFrame({"nsd_index": idx, "nsd_73k_id": idx + 1})
    return StimulusSet(
        [f"nsd-{i:05d}" for i in idx],
        [int(i) for i in idx],
        "image",
        metadata=meta,
        name="nsd",
        loader=NSDImageReader(path, key),
    )
