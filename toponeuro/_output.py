"""Writes that cannot destroy: output-path checks, atomic file writes and one-writer locks.

Every toponeuro command that writes goes through here:

* :func:`check_output_file` refuses an output path that is a folder, one of the inputs (or
  inside an input folder), has another format's suffix, or already holds a file, unless that
  file is toponeuro's own and ``overwrite=True``. A file toponeuro did not write is never
  replaced.
* :func:`atomic_file` writes to a hidden sibling and renames it into place when complete, so
  an interrupted write leaves the previous file intact.
* :class:`PathLock` is an exclusive lock on a small ``.lock`` file (``fcntl.flock``, released
  by the kernel when the process ends, even on SIGKILL); a second writer gets a typed error
  naming the first (pid, host, start time).

The output-folder version (temporary sibling folder + rename + manifest) is
:func:`toponeuro.reporting._writer.output_folder`.
"""

from __future__ import annotations

import contextlib
import datetime
import os
import socket
import warnings
from collections.abc import Callable, Iterable
from pathlib import Path

from .exceptions import OutputExistsError, OutputLockedError, OutputPathError

__all__ = ["check_output_file", "atomic_file", "PathLock", "is_toponeuro_netcdf", "inside"]

#: suffixes of the netCDF-4 / HDF5 files toponeuro writes
NETCDF_SUFFIXES = (".nc", ".nc4", ".h5", ".hdf5")


def inside(path: Path, folder: Path) -> bool:
    """``path`` is ``folder`` or lies inside it (both resolved; symlinks followed).

    Examples
    --------
    >>> inside(Path("/a/b/c.nc"), Path("/a")), inside(Path("/a2/c.nc"), Path("/a"))
    (True, False)
    """
    p, f = Path(path).resolve(), Path(folder).resolve()
    return p == f or f in p.parents


def is_toponeuro_netcdf(path) -> bool:
    """The file is a netCDF-4 / HDF5 file with a ``toponeuro_version`` attribute (written by
    toponeuro: activations, results, an activation store).

    Examples
    --------
    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "x.nc"
    >>> _ = p.write_text("not netCDF")
    >>> is_toponeuro_netcdf(p)
    False
    """
    try:
        import h5py

        marks = ("toponeuro_version", "toponeuro_format")
        with h5py.File(path, "r") as f:  # a DataArray's attrs are its variable's
            return any(m in attrs for attrs in (f.attrs, *(v.attrs for v in f.values()))
                       for m in marks)
    except (OSError, ValueError, ImportError):
        return False


def check_output_file(
    path,
    *,
    param: str,
    suffixes: Iterable[str] = NETCDF_SUFFIXES,
    inputs: Iterable = (),
    overwrite: bool = False,
    is_ours: Callable[[Path], bool] = is_toponeuro_netcdf,
    what: str = "netCDF file",
) -> Path:
    """Check that ``path`` may be written; return it as a ``Path``.

    Parameters
    ----------
    path : path-like
    param : str
        The parameter that named the path (for messages: ``out``, ``store`` ...).
    suffixes : iterable of str
        Suffixes of the format written; a path with another suffix is refused (no suffix is
        fine).
    inputs : iterable of path-like
        Files and folders read by the same command: the output may be none of them, nor
        inside an input folder (anything that is not a path, and ``"floc"``, is skipped).
    overwrite : bool
        Replace an existing file that toponeuro wrote (``is_ours``); without it any existing
        file is refused.
    is_ours : callable
        ``is_ours(path) -> bool``: the existing file was written by toponeuro.

    Raises
    ------
    OutputPathError
        A folder where a file is needed (or a file where a folder is), another format's
        suffix, or one of the inputs.
    OutputExistsError
        The file exists and ``overwrite`` is False, or it is not toponeuro's.

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> check_output_file(folder / "acts.nc", param="out").name
    'acts.nc'
    >>> check_output_file(folder / "acts.jpg", param="out")
    Traceback (most recent call last):
    ...
    toponeuro.exceptions.OutputPathError: out=... has the suffix '.jpg' of another format; a netCDF file is written: give a path ending in '.nc'.
    """
    path = Path(path)
    suffixes = tuple(s.lower() for s in suffixes)
    if path.is_dir():
        raise OutputPathError(
            f"{param}={path} is a folder; give a file path (e.g. {path / ('acts' + suffixes[0])})."
        )
    for p in path.parents:
        if p.exists() and not p.is_dir():
            raise OutputPathError(
                f"{param}={path}: {p} is a file, but a folder is needed there; give another "
                "path."
            )
    if path.suffix and suffixes and path.suffix.lower() not in suffixes:
        raise OutputPathError(
            f"{param}={path} has the suffix {path.suffix!r} of another format; a {what} is "
            f"written: give a path ending in {suffixes[0]!r}."
        )
    check_not_an_input(path, param=param, inputs=inputs)
    if path.exists() or path.is_symlink():
        if not is_ours(path):
            raise OutputExistsError(
                f"{param}={path} already exists and was not written by toponeuro, so it is "
                "never replaced (not even with overwrite=True); move it away or give another "
                "path."
            )
        if not overwrite:
            raise OutputExistsError(
                f"{param}={path} already exists (a {what} written by toponeuro); pass "
                "overwrite=True to replace it, or give another path."
            )
    return path


def check_not_an_input(path, *, param: str, inputs: Iterable = ()) -> None:
    """Refuse an output ``path`` that is one of ``inputs`` or inside an input folder.

    Examples
    --------
    >>> check_not_an_input("/data/imgs/out.nc", param="out", inputs=["/data/imgs"])
    Traceback (most recent call last):
    ...
    toponeuro.exceptions.OutputPathError: out=/data/imgs/out.nc is inside the input folder /data/imgs; write outputs elsewhere (they would be read as inputs, or replace them).
    """
    for src in inputs:
        if not isinstance(src, (str, os.PathLike)) or str(src) == "floc":  # "floc": a download
            continue
        src = Path(src)
        if Path(path).resolve() == src.resolve():
            raise OutputPathError(
                f"{param}={path} is one of the inputs ({src}); give another path, so the input "
                "is not overwritten."
            )
        if inside(path, src):  # inside an input folder
            raise OutputPathError(
                f"{param}={path} is inside the input folder {src}; write outputs elsewhere "
                "(they would be read as inputs, or replace them)."
            )


@contextlib.contextmanager
def atomic_file(path):
    """Yield a hidden temporary sibling of ``path``; rename it to ``path`` when the block
    ends without error (else delete it): readers see the old file or the new, never half.

    Examples
    --------
    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "a.txt"
    >>> with atomic_file(p) as tmp:
    ...     _ = tmp.write_text("new")
    >>> p.read_text(), sorted(x.name for x in p.parent.iterdir())
    ('new', ['a.txt'])
    """
    path = Path(path)
    tmp = path.with_name(f".{path.name}.partial-{os.getpid()}")
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


class PathLock:
    """An exclusive, non-blocking lock on ``lock_file``, held until :meth:`release`.

    Parameters
    ----------
    lock_file : path-like
        The small file that is locked (created; it records the holder).
    what : str
        What is protected, for messages ("activation store /x/a.nc", "output folder /x").
    fix : str
        How to proceed when another process holds it.
    error : type
        The error raised then (an :class:`~toponeuro.exceptions.OutputLockedError`).

    Examples
    --------
    >>> import tempfile
    >>> lock_file = Path(tempfile.mkdtemp()) / "x.lock"
    >>> a = PathLock(lock_file, "output folder x", "wait")
    >>> a.acquire()
    >>> try:
    ...     PathLock(lock_file, "output folder x", "wait").acquire()
    ... except OutputLockedError as err:
    ...     print(str(err)[:50])
    The output folder x is being written by another pr
    >>> a.release()
    """

    def __init__(self, lock_file, what: str, fix: str, error: type = OutputLockedError):
        self.path = Path(lock_file)
        self.what, self.fix, self.error = what, fix, error
        self._fd = None

    def acquire(self) -> None:
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as err:
            raise OutputPathError(
                f"Cannot create the lock file {self.path} of the {self.what} ({err}); write "
                "somewhere you have write access."
            ) from err
        try:
            _try_lock(fd)
        except _HELD as err:
            os.close(fd)
            try:
                owner = self.path.read_text().strip() or "unknown"
            except OSError:
                owner = "unknown"
            raise self.error(
                f"The {self.what} is being written by another process ({owner}). {self.fix} "
                "The lock is released as soon as that process exits."
            ) from err
        except OSError as err:  # a file system without locks (some network mounts)
            warnings.warn(
                f"Cannot lock the {self.what} ({err}); make sure only one process writes it at "
                "a time.",
                stacklevel=4,
            )
        info = (
            f"pid {os.getpid()} on {socket.gethostname()}, since "
            f"{datetime.datetime.now().isoformat(timespec='seconds')}"
        )
        os.ftruncate(fd, 0)
        os.write(fd, info.encode())
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            try:
                os.ftruncate(self._fd, 0)
                _unlock(self._fd)
            except OSError:  # never locked (see acquire); closing releases it anyway
                pass
            finally:
                os.close(self._fd)
                self._fd = None


try:
    import fcntl

    _HELD = BlockingIOError  # EWOULDBLOCK: another open file description holds the lock

    def _try_lock(fd):
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)

    def _unlock(fd):
        fcntl.flock(fd, fcntl.LOCK_UN)

except ImportError:  # pragma: no cover - Windows
    import msvcrt

    _HELD = OSError

    def _try_lock(fd):
        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)

    def _unlock(fd):
        os.lseek(fd, 0, 0)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
