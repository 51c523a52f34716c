"""On-disk streaming store of activations (netCDF-4 / HDF5 via h5netcdf), chunked by stimuli.

One file per cache key. Rows are written batch by batch and a per-stimulus ``done`` flag is set
only after the rows are flushed, so a run killed at any point resumes by recomputing only the
stimuli whose flag is not set: nothing is lost and nothing is duplicated (rows have fixed
places). Memory stays bounded by one batch.

Safety:

* **one writer**: a store is locked (``fcntl.flock`` on ``<file>.lock``, released by the
  kernel when the process ends, even on SIGKILL) for as long as it is open; a second process
  gets :class:`~toponeuro.exceptions.StoreLockedError` naming the writer (pid, host, start
  time) and never touches the file. A file held open by another program is not touched either.
* **checksums**: each row's float32 bytes get a CRC-32 (variable ``row_crc32``) written with
  its ``done`` flag; finished rows are verified on resume and on the final read, and a
  mismatch raises :class:`~toponeuro.exceptions.StoreCorruptError` naming the rows.
* **only its own files**: a store file carries ``toponeuro_format = "activation-store"``
  and its format version (``store_format``). Anything else at a ``store=`` path (a user's
  netCDF, an image ...) is refused with :class:`~toponeuro.exceptions.OutputExistsError`,
  never deleted, with or without ``resume``; a path with another format's suffix is refused
  before anything is written. A store of toponeuro's made with other settings is replaced
  only with ``overwrite=True`` (``resume=False`` starts a store of the same settings over).
* **nothing deleted blindly**: a store file toponeuro was writing (its ``.lock`` file is
  beside it) that cannot be opened at all is moved to ``<file>.corrupt`` (with a warning),
  not deleted, before the rows are computed again.
"""

from __future__ import annotations

import hashlib
import json
import warnings
import zlib
from pathlib import Path

import numpy as np

from .._io.output import NETCDF_SUFFIXES, PathLock, atomic_file, move, refuse_link
from .._util import dims as D
from .._util.params import COUNT, Boolean, Text, validate_params
from .._util.stack import user_stacklevel
from .._version import __version__
from ..exceptions import OutputExistsError, OutputPathError, StoreCorruptError, StoreLockedError

__all__ = ["cache_key", "ActivationStore"]

_DATA = "activations"
_DONE = "done"
_CRC = "row_crc32"
_FORMAT = 2  # 2: rows carry CRC-32 checksums
#: the ``toponeuro_format`` attribute that marks a file as an activation store
STORE_FORMAT_NAME = "activation-store"
_UNIT_INT_COORDS = (D.CHANNEL, D.ROW, D.COL, D.Y, D.X)
_CHUNK_BYTES = 4 << 20


@validate_params(dict(weights_sha256=Text(empty=True), content_hash=Text(empty=True),
                      preprocessing=Text(empty=True), version=Text()))
def cache_key(
    *,
    weights_sha256: str,
    stimulus_ids,
    content_hash: str,
    layers,
    pooling,
    token_pooling,
    preprocessing: str,
    version: str = __version__,
) -> str:
    """The sha256 over everything that determines the activations.

    Any change in the weights, the stimuli (ids or content), the layers, the pooling, the
    preprocessing or the toponeuro version gives another key, so a stale store is never read.

    Parameters
    ----------
    weights_sha256 : str
        Digest of the model's weights.
    stimulus_ids : sequence of str
        The stimuli, in order.
    content_hash : str
        Digest of the stimuli's content (images or texts).
    layers : sequence of str
        The layers read.
    pooling, token_pooling : str or None
        The spatial and token pooling of :func:`extract`.
    preprocessing : str
        A description of the input preprocessing.
    version : str
        The toponeuro version.

    Returns
    -------
    str
        A 64-character hex digest.

    Examples
    --------
    >>> k1 = cache_key(weights_sha256="a", stimulus_ids=["s1"], content_hash="c",
    ...                layers=["fc"], pooling="mean", token_pooling="mean", preprocessing="p")
    >>> k2 = cache_key(weights_sha256="a", stimulus_ids=["s1"], content_hash="c",
    ...                layers=["fc"], pooling="max", token_pooling="mean", preprocessing="p")
    >>> len(k1), k1 == k2
    (64, False)
    """
    ids_hash = hashlib.sha256("\x00".join(map(str, stimulus_ids)).encode()).hexdigest()
    payload = {
        "weights_sha256": weights_sha256,
        "stimulus_ids": ids_hash,
        "content_hash": content_hash,
        "layers": list(layers),
        "pooling": pooling,
        "token_pooling": token_pooling,
        "preprocessing": preprocessing,
        "toponeuro_version": version,
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def _store_path(store, key: str) -> Path:
    p = Path(store)
    for parent in (p, *p.parents):
        if parent.exists() and not parent.is_dir() and parent != p:
            raise OutputPathError(
                f"store={store}: {parent} is a file, but a folder is needed there; pass a "
                "store= folder or a .nc path in a folder."
            )
    if p.is_dir() or p.suffix == "":
        p.mkdir(parents=True, exist_ok=True)
        file = p / f"activations-{key[:16]}.nc"
        refuse_link(file, "a store file toponeuro names")  # never written through
        return file
    if p.is_symlink():  # a store path the user gave as a link is written through
        p = p.resolve()
    if p.suffix.lower() not in NETCDF_SUFFIXES:
        raise OutputPathError(
            f"store={store} has the suffix {p.suffix!r} of another format; an activation "
            "store is a netCDF file: pass a folder (one file per setting) or a path ending in "
            "'.nc'."
        )
    p.parent.mkdir(parents=True, exist_ok=True)
    return p


def _is_store(f) -> bool:
    """The open netCDF file ``f`` is an activation store toponeuro wrote (format 2 stores of
    0.2 carry ``store_format`` and ``cache_key`` but not yet ``toponeuro_format``)."""
    attrs = f.attrs
    if "toponeuro_format" in attrs:
        return attrs["toponeuro_format"] == STORE_FORMAT_NAME
    return "store_format" in attrs and "cache_key" in attrs and _DONE in f.variables


def _put_strings(f, name, dim, values) -> None:
    import h5py

    v = f.create_variable(name, (dim,), dtype=h5py.string_dtype("utf-8"))
    v[:] = np.asarray(values).astype(str).astype(object)


def _get_strings(f, name) -> np.ndarray:
    vals = np.asarray(f.variables[name][:], dtype=object)
    return np.array([x.decode("utf-8") if isinstance(x, bytes) else str(x) for x in vals])


def row_crc32(rows: np.ndarray) -> np.ndarray:
    """CRC-32 of each row's float32 bytes (what the store records per stimulus).

    Examples
    --------
    >>> import numpy as np
    >>> row_crc32(np.zeros((2, 3), np.float32)).tolist()
    [2077607535, 2077607535]
    """
    rows = np.ascontiguousarray(rows, dtype=np.float32)
    return np.array([zlib.crc32(r.tobytes()) for r in rows], dtype=np.int64)


def _in_use(err: BaseException) -> bool:
    # HDF5 refuses to open a file another program holds open for writing
    text = str(err).lower()
    return "unable to lock" in text or "resource temporarily unavailable" in text


class ActivationStore:
    """Rows of activations for ``n_stimuli`` stimuli in one netCDF file.

    Parameters
    ----------
    store : path-like
        A folder (the file is named after the cache key, so different settings never share a
        file) or a ``.nc`` file path. A file there that is not an activation store is refused,
        never replaced; a store made with other settings is replaced only with ``overwrite``.
    key : str
        Cache key (:func:`cache_key`).
    stimulus_ids : array
        The stimuli, one row each, in order.
    categories : array or None
        Their categories.
    attrs : dict
        Written to the file (model, weights sha256, pooling ...).
    resume : bool
        Keep finished rows of an existing file with the same key (their checksums are
        verified first); ``False`` starts that store over.
    batch_size : int
        Rows per chunk of the file (a batch of :func:`extract` rewrites only its own
        chunks) and per block when checksums are verified.
    overwrite : bool
        Replace a store toponeuro made with other settings (cache key, stimulus count or an
        older format) at an explicit ``.nc`` path.

    Raises
    ------
    StoreLockedError
        Another process is writing the same file.
    OutputExistsError
        The file is not an activation store (never replaced), or one made with other settings
        and ``overwrite`` is False.
    OutputPathError
        A path with another format's suffix, or a file where a folder is needed.
    StoreCorruptError
        Finished rows do not match their checksums.

    Examples
    --------
    >>> import tempfile
    >>> st = ActivationStore(tempfile.mkdtemp(), "k" * 64, ["a", "b"], None, {"model": "demo"})
    >>> st.write(0, np.ones((2, 3)), {"layer": np.array(["fc"] * 3)})
    >>> data, info = st.read()
    >>> data.shape, st.done().tolist(), info["layer"].tolist()
    ((2, 3), [True, True], ['fc', 'fc', 'fc'])
    >>> st.close()
    """

    @validate_params(dict(key=Text(), resume=Boolean(), batch_size=COUNT, overwrite=Boolean()))
    def __init__(self, store, key, stimulus_ids, categories, attrs, *, resume=True,
                 batch_size=64, overwrite=False):
        import h5netcdf

        self._h5netcdf = h5netcdf
        self.path = _store_path(store, key)
        self.overwrite = bool(overwrite)
        self.key = key
        self.ids = np.asarray(stimulus_ids).astype(str)
        self.categories = None if categories is None else np.asarray(categories).astype(str)
        self.attrs = dict(attrs)
        self.batch_size = int(batch_size)
        self._f = None
        self._lock = PathLock(
            self.path.with_name(self.path.name + ".lock"),
            f"activation store {self.path}",
            "Wait for it to finish (then rerun: its rows are reused), or pass another store= "
            "path.",
            StoreLockedError,
        )
        # a .lock beside the file: toponeuro was writing this store (see _open)
        self._was_writing = self._lock.path.exists()
        self._lock.acquire()
        try:
            self._open(resume)
        except BaseException:
            self.close()
            raise

    def _open(self, resume: bool) -> None:
        if self.path.exists() or self.path.is_symlink():
            reason = self._stale_reason(resume)
            if reason is not None:
                if reason != "resume=False":
                    warnings.warn(
                        f"Replacing the activation store {self.path} (overwrite=True): {reason}.",
                        stacklevel=user_stacklevel(),
                    )
                self.path.unlink()
        if self.path.exists():
            self._f = self._h5netcdf.File(self.path, "a")
            self.verify(np.flatnonzero(self.done()))

    def _stale_reason(self, resume: bool) -> str | None:
        """Why the existing file is to be replaced (``None``: resume it); refuses a file that
        is not toponeuro's, and another setting's store without ``overwrite``."""
        try:
            with self._h5netcdf.File(self.path, "r") as f:
                if not _is_store(f):
                    raise OutputExistsError(
                        f"store={self.path} is a file that toponeuro did not write as an "
                        "activation store (it has no toponeuro_format attribute), so it is "
                        "never replaced, not even with resume=False or overwrite=True. Pass "
                        "another store= path (a folder keeps one file per setting)."
                    )
                if f.attrs.get("cache_key") != self.key:
                    reason = "it was made with other settings (cache key differs)"
                elif f.dimensions[D.STIMULUS].size != len(self.ids):
                    reason = "its stimulus count differs"
                elif int(f.attrs.get("store_format", 1)) < _FORMAT:
                    reason = "it was written by an older toponeuro without row checksums"
                else:
                    return None if resume else "resume=False"
        except (OSError, KeyError, ValueError) as err:
            if isinstance(err, OutputExistsError):
                raise
            if _in_use(err):
                raise StoreLockedError(
                    f"The activation store {self.path} is open in another program "
                    f"({err}); close it there, or pass another store= path."
                ) from err
            return self._unreadable(err)
        if not self.overwrite:
            raise OutputExistsError(
                f"The activation store {self.path} exists but {reason}; its rows are not "
                "these. Pass overwrite=True to replace it, or another store= path (a folder "
                "keeps one store file per setting, so none replaces another)."
            )
        return reason

    def _unreadable(self, err) -> None:
        if not self._was_writing:
            raise OutputExistsError(
                f"store={self.path} cannot be read as an activation store ({err}) and "
                "toponeuro has no record of writing it, so it is never replaced. Move it away "
                "or pass another store= path."
            ) from err
        bad = self.path.with_name(self.path.name + ".corrupt")
        refuse_link(bad, "where an unreadable store is moved")
        move(self.path, bad)
        warnings.warn(
            f"The activation store {self.path} cannot be read ({err}); a run was probably "
            f"killed mid-write. It was moved to {bad} and its rows are computed again.",
            stacklevel=user_stacklevel(),
        )
        return None

    # -- state ------------------------------------------------------------------------------
    def done(self) -> np.ndarray:
        """Boolean per stimulus: its row is written.

        Returns
        -------
        numpy.ndarray
            ``(n_stimuli,)`` booleans.
        """
        if self._f is None:
            return np.zeros(len(self.ids), dtype=bool)
        return np.asarray(self._f.variables[_DONE][:]).astype(bool)

    def _create(self, unit_info: dict[str, np.ndarray]) -> None:
        n, u = len(self.ids), len(unit_info[D.LAYER])
        with atomic_file(self.path) as tmp:
            self._create_file(tmp, n, u, unit_info)
        self._f = self._h5netcdf.File(self.path, "a")

    def _create_file(self, tmp, n: int, u: int, unit_info: dict[str, np.ndarray]) -> None:
        f = self._h5netcdf.File(tmp, "w")
        try:
            f.dimensions = {D.STIMULUS: n, D.UNIT: u}
            # one chunk per batch (or less, for very wide layers): a batch rewrites only its
            # own chunks, so the cost per batch does not grow with the number of stimuli
            rows = int(max(1, min(n, self.batch_size, _CHUNK_BYTES // max(1, 4 * u))))
            v = f.create_variable(
                _DATA, (D.STIMULUS, D.UNIT), "f4", chunks=(rows, u), fillvalue=np.nan
            )
            coords = [D.STIMULUS_ID, D.LAYER, *[c for c in _UNIT_INT_COORDS if c in unit_info]]
            if self.categories is not None:
                coords.append(D.CATEGORY)
            v.attrs["coordinates"] = " ".join(coords)
            flag_chunks = (min(n, max(rows, 4096)),)
            f.create_variable(_DONE, (D.STIMULUS,), "i1", chunks=flag_chunks, fillvalue=0)
            f.variables[_DONE][:] = np.zeros(n, dtype="i1")
            f.create_variable(_CRC, (D.STIMULUS,), "i8", chunks=flag_chunks, fillvalue=-1)
            f.variables[_CRC][:] = np.full(n, -1, dtype="i8")
            _put_strings(f, D.STIMULUS_ID, D.STIMULUS, self.ids)
            if self.categories is not None:
                _put_strings(f, D.CATEGORY, D.STIMULUS, self.categories)
            _put_strings(f, D.LAYER, D.UNIT, unit_info[D.LAYER])
            for c in _UNIT_INT_COORDS:
                if c in unit_info:
                    f.create_variable(c, (D.UNIT,), data=np.asarray(unit_info[c], dtype="i8"))
            f.attrs["toponeuro_format"] = STORE_FORMAT_NAME
            f.attrs["store_format"] = _FORMAT
            f.attrs["cache_key"] = self.key
            f.attrs[D.ATTR_VERSION] = __version__
            for k, val in self.attrs.items():
                f.attrs[k] = val if isinstance(val, (int, float)) else str(val)
        finally:
            f.close()

    def write(self, start: int, data: np.ndarray, unit_info: dict[str, np.ndarray]) -> None:
        """Write rows ``start : start + len(data)`` and mark them done (after a flush).

        Parameters
        ----------
        start : int
            Index of the first row written.
        data : numpy.ndarray
            ``(n_rows, n_units)`` activations.
        unit_info : dict
            Unit coordinate name -> ``(n_units,)`` values (written with the first rows).
        """
        if self._f is None:
            self._create(unit_info)
        stop = start + len(data)
        data = np.asarray(data, dtype=np.float32)
        self._f.variables[_DATA][start:stop, :] = data
        self._sync()  # the rows reach the file before their checksums and flags say so
        self._f.variables[_CRC][start:stop] = row_crc32(data)
        self._f.variables[_DONE][start:stop] = np.ones(stop - start, dtype="i1")
        self._sync()

    def _sync(self) -> None:
        # h5netcdf's flush() leaves HDF5's caches alone; flush the HDF5 file itself so a
        # killed process (SIGKILL) leaves every flagged row on disk
        self._f.flush()
        self._f._h5file.flush()

    def _corrupt(self, rows, detail: str) -> StoreCorruptError:
        ids = [str(self.ids[r]) for r in rows[:5]]
        more = f" and {len(rows) - 5} more" if len(rows) > 5 else ""
        return StoreCorruptError(
            f"The activation store {self.path} is corrupt: {detail} (rows {list(rows[:5])}"
            f"{more}, stimuli {ids}{more}). Its bytes changed after they were written (disk or "
            "copy error, or another program). Nothing was returned from it; move the file "
            "away (or pass resume=False) to compute the activations again."
        )

    def verify(self, rows=None) -> None:
        """Check finished rows (default: all) against their recorded CRC-32 checksums.

        Raises :class:`StoreCorruptError` naming the rows whose bytes changed.

        Parameters
        ----------
        rows : array of int, optional
            The rows to check (default all).
        """
        n = len(self.ids)
        rows = np.arange(n) if rows is None else np.asarray(rows, dtype=np.int64)
        if self._f is None or rows.size == 0:
            return
        try:
            crc = np.asarray(self._f.variables[_CRC][:])
            step = max(1, int(self.batch_size))
            bad = []
            for start in range(0, n, step):  # memory bounded by one batch of rows
                sel = rows[(rows >= start) & (rows < start + step)]
                if sel.size:
                    block = np.asarray(self._f.variables[_DATA][start : sel[-1] + 1, :])
                    got = row_crc32(block[sel - start])
                    bad.extend(sel[got != crc[sel]].tolist())
        except (OSError, KeyError, ValueError, RuntimeError) as err:
            raise self._corrupt(rows, f"its rows cannot be read ({err})") from err
        if bad:
            raise self._corrupt(np.asarray(bad), "rows do not match their CRC-32 checksums")

    def read(self) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """All rows and the unit coords (every row must be done), verified by checksum.

        Returns
        -------
        data : numpy.ndarray
            ``(n_stimuli, n_units)`` float32 rows.
        unit_info : dict
            Unit coordinate name -> ``(n_units,)`` values.
        """
        f = self._f
        try:
            data = np.asarray(f.variables[_DATA][:])
            crc = np.asarray(f.variables[_CRC][:])
        except (OSError, KeyError, ValueError, RuntimeError) as err:
            raise self._corrupt(np.arange(len(self.ids)), f"it cannot be read ({err})") from err
        bad = np.flatnonzero(row_crc32(data) != crc)
        if bad.size:
            raise self._corrupt(bad, "rows do not match their CRC-32 checksums")
        info = {D.LAYER: _get_strings(f, D.LAYER)}
        for c in _UNIT_INT_COORDS:
            if c in f.variables:
                info[c] = np.asarray(f.variables[c][:])
        return data, info

    def close(self) -> None:
        """Close the file and release the lock."""
        try:
            if self._f is not None:
                self._f.close()
                self._f = None
        finally:
            self._lock.release()
