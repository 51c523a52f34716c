"""The boundary of every file reader: one rule for files that would run code when read, and
one typed error for a file that cannot be read as its format.

- :func:`refuse_pickle`: a Python pickle runs the code it names when it is loaded, so toponeuro
  unpickles a data file only when its caller says the file is trusted (``trust_pickle=True``;
  checkpoints have ``trust_checkpoint=True``, read by ``toponeuro.models.load_torch_file``).
  Every reader that could unpickle (rsatoolbox's ``.pkl`` reader, ``numpy.load`` with
  ``allow_pickle``, ``pandas.read_pickle``) asks this function first.
- :func:`read_file`: ``read(path)`` with the failures of the parsing library (nibabel's
  ``ImageFileError``, ``EOFError``, zlib/gzip errors, ``struct.error``, expat, h5py's
  ``OSError`` ...) turned into :class:`~toponeuro.exceptions.UnreadableFileError`, which names
  the file, the format expected and the fix. A missing file raises ``MissingFileError`` and an
  empty file is refused before the library sees it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from ..exceptions import MissingFileError, ToponeuroError, UnreadableFileError, UntrustedFileError

__all__ = ["refuse_pickle", "read_file", "check_input_file", "load_numpy", "load_nibabel",
           "load_netcdf"]

_NPY_MAGIC, _ZIP_MAGIC = b"\x93NUMPY", b"PK\x03\x04"

T = TypeVar("T")


def refuse_pickle(path, trust: bool, *, reader: str, param: str = "trust_pickle") -> None:
    """Raise :class:`UntrustedFileError` unless ``trust``: ``path`` is a pickle (reading it
    runs code) and ``reader`` would unpickle it.

    Examples
    --------
    >>> refuse_pickle("rdms.pkl", True, reader="load_rdms")  # trusted: nothing to say
    >>> try:
    ...     refuse_pickle("rdms.pkl", False, reader="load_rdms")
    ... except ValueError as err:
    ...     print(type(err).__name__, "trust_pickle=True" in str(err))
    UntrustedFileError True
    """
    if trust is True:
        return
    if trust is not False:
        from ..exceptions import InputTypeError

        raise InputTypeError(f"{param} must be True or False; got {trust!r}.")
    raise UntrustedFileError(
        f"{reader}: {os.fspath(path)} is a Python pickle; reading it runs any code the file "
        f"names, so it is not read by default. If you trust where the file came from, pass "
        f"{param}=True; otherwise ask for the data in a format that holds no code (.npy, "
        ".npz, .mat, .hdf5)."
    )


def _named(path: Path, kind: str, what: str | None, where: str | None) -> str:
    """How a message names the file: ``"The RDM file '/x.npy'"``, or with the parameter that
    gave it first (``"cortex_maps: the 'faces' volume '/x.nii.gz'"``; the command line shows
    the parameter as its flag)."""
    name = f"{what or kind + ' file'} {str(path)!r}"
    return f"{where}: the {name}" if where else f"The {name}"


def check_input_file(path, *, kind: str, fix: str, what: str | None = None,
                     where: str | None = None) -> Path:
    """``path`` as a Path when it is an existing, non-empty file; else a typed error.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "empty.nii.gz"
    >>> _ = p.write_bytes(b"")
    >>> try:
    ...     check_input_file(p, kind="NIfTI image", fix="re-export it")
    ... except ValueError as err:
    ...     print(type(err).__name__, "is empty" in str(err))
    UnreadableFileError True
    """
    path = Path(os.fspath(path)).expanduser()
    name = _named(path, kind, what, where)
    if not path.is_file():
        raise MissingFileError(f"{name} does not exist; pass an existing {kind} file.")
    if path.stat().st_size == 0:
        raise UnreadableFileError(
            f"{name} is empty (0 bytes); expected a {kind} file. It was probably cut off "
            f"while copied or downloaded: {fix}."
        )
    return path


def read_file(path, read: Callable[[Path], T], *, kind: str, fix: str,
              what: str | None = None, where: str | None = None) -> T:
    """``read(path)`` at the boundary: a missing, empty or unparsable file raises a typed error.

    ``read`` may raise toponeuro's own errors (they pass unchanged); any other exception from
    the parsing library becomes :class:`UnreadableFileError` naming the file, ``kind`` (the
    format expected) and ``fix``.

    Examples
    --------
    >>> import tempfile, pathlib, numpy as np
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.npy"
    >>> _ = p.write_text("not numpy")
    >>> try:
    ...     read_file(p, np.load, kind="NumPy .npy", fix="save it with np.save")
    ... except ValueError as err:
    ...     print(type(err).__name__, "a.npy" in str(err))
    UnreadableFileError True
    """
    path = check_input_file(path, kind=kind, fix=fix, what=what, where=where)
    try:
        return read(path)
    except ToponeuroError:
        raise
    except (MemoryError, RecursionError):
        raise
    except Exception as err:  # noqa: BLE001 - parsers fail in many ways (EOFError, zlib.error,
        # struct.error, ExpatError, ImageFileError, OSError, ValueError ...): all mean "not
        # a readable file of this kind"
        first = (str(err).strip().splitlines() or [""])[0][:200]
        raise UnreadableFileError(
            f"{_named(path, kind, what, where)} could not be read as a {kind} file "
            f"({type(err).__name__}{': ' + first if first else ''}); it is truncated, corrupt "
            f"or another kind of file under this name. {fix[0].upper() + fix[1:]}."
        ) from err


def load_numpy(path, *, what: str, fix: str):
    """``numpy.load(path, allow_pickle=False)`` at the boundary: the one reader of ``.npy`` /
    ``.npz`` input files.

    A file that is neither a ``.npy`` nor a ``.npz`` (``numpy.load`` would hand it to
    ``pickle``) is refused by its first bytes, and an array of Python objects (which needs
    pickle) is refused too; never unpickled. Other failures raise
    :class:`UnreadableFileError`.

    Examples
    --------
    >>> import tempfile, pathlib, numpy as np
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> np.save(d / "a.npy", np.eye(2))
    >>> load_numpy(d / "a.npy", what="RDM file", fix="save it with np.save").tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    >>> _ = (d / "b.npy").write_text("x,y")
    >>> try:
    ...     load_numpy(d / "b.npy", what="RDM file", fix="save it with np.save")
    ... except ValueError as err:
    ...     print(type(err).__name__, "not a NumPy" in str(err))
    UnreadableFileError True
    """
    import numpy as np

    path = check_input_file(path, kind="NumPy .npy/.npz", fix=fix, what=what)
    with open(path, "rb") as f:
        head = f.read(6)
    if not (head.startswith(_NPY_MAGIC) or head.startswith(_ZIP_MAGIC)):
        raise UnreadableFileError(
            f"The {what} {str(path)!r} is not a NumPy .npy/.npz file (it starts with "
            f"{head!r}, not NumPy's or zip's signature); toponeuro never unpickles it. "
            f"{fix[0].upper() + fix[1:]}."
        )

    def read(p):
        try:
            return np.load(p, allow_pickle=False)
        except ValueError as err:
            if "allow_pickle" not in str(err):
                raise
            raise UnreadableFileError(  # an object array needs pickle: never allowed here
                f"The {what} {str(p)!r} holds Python objects (an array of dtype object, "
                f"which only pickle can read); expected a numeric array. {fix[0].upper() + fix[1:]}."
            ) from err

    return read_file(path, read, kind="NumPy .npy/.npz", fix=fix, what=what)


def load_nibabel(path, *, kind: str, fix: str, what: str | None = None,
                 where: str | None = None):
    """``(image, data)`` of a nibabel file, the voxel or vertex data read now (nibabel reads
    lazily, so a truncated ``.nii.gz`` fails only when its data are touched): any failure is
    an :class:`UnreadableFileError` naming the file, ``kind`` and ``fix``.

    Examples
    --------
    >>> import tempfile, pathlib, numpy as np, nibabel as nib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "map.nii.gz"
    >>> nib.save(nib.Nifti1Image(np.ones((2, 2, 2), np.float32), np.eye(4)), p)
    >>> img, data = load_nibabel(p, kind="NIfTI", fix="re-export it")
    >>> data.shape
    (2, 2, 2)
    >>> _ = p.write_bytes(p.read_bytes()[:60])  # cut off
    >>> try:
    ...     load_nibabel(p, kind="NIfTI", fix="re-export it")
    ... except ValueError as err:
    ...     print(type(err).__name__)
    UnreadableFileError
    """
    import nibabel as nib
    import numpy as np

    def read(p):
        img = nib.load(str(p))
        return img, np.asarray(img.dataobj)

    return read_file(path, read, kind=kind, fix=fix, what=what, where=where)


def load_netcdf(path, *, what: str, fix: str):
    """The netCDF/HDF5 file at ``path`` as an in-memory ``xarray.Dataset`` (the file closed
    again); an unreadable file raises :class:`UnreadableFileError`.

    Examples
    --------
    >>> import tempfile, pathlib, xarray as xr
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "c.nc"
    >>> xr.Dataset({"t": ("v", [1.0, 2.0])}).to_netcdf(p)
    >>> load_netcdf(p, what="contrast", fix="download it again")["t"].values.tolist()
    [1.0, 2.0]
    """
    import xarray as xr

    def read(p):
        with xr.open_dataset(p) as ds:
            return ds.load()

    return read_file(path, read, kind="netCDF (.nc)", fix=fix, what=what)
