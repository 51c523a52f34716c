"""The one writer: every file, folder, store, checkpoint and download toponeuro writes goes
through here (``tests/house/test_one_writer.py`` fails on a rename, replace or ``rmtree`` anywhere
else in the package).

What it guarantees (``docs/outputs.rst``):

* **Atomic files** (:func:`atomic_file`, :func:`write_text`, :func:`write_bytes`,
  :func:`save_torch`): written to a temporary file with a random name made by
  :mod:`tempfile` (``O_CREAT | O_EXCL``, so never through a link planted there) in the target's
  folder, and renamed into place when complete; a reader sees the old file or the new, never
  half. A symbolic link at the target is replaced by the new file (its target is never
  written).
* **Atomic folders** (:func:`toponeuro._io.folder.output_folder`): a job's folder is built as a random hidden
  sibling and moved into place when complete, with a manifest
  (``.toponeuro-output.json``) of the files toponeuro wrote, each with its sha256.
  ``overwrite=True`` replaces a folder only when every entry in it is in its manifest and
  unchanged (or, for a 0.2 folder, one of the known names 0.2 wrote; a 0.3 manifest has no
  hashes, its names are enough); a folder that also holds anything else, or a file edited
  or replaced by a link since, is refused, naming those entries, and nothing is deleted. An input (checkpoint, stimuli, cortex maps, store) inside
  the output folder is refused before any work. A symbolic link given as the folder is
  written through: its target folder is the output and the link is kept.
* **Locks** (:class:`PathLock`): a small hidden file beside the output, opened with
  ``O_NOFOLLOW`` (a link planted there is refused, its target untouched) and created with
  ``O_CREAT | O_EXCL``, locked with ``flock``, recording pid, host and start time, and removed
  when the run ends. A lock file left by a killed run is recognised (its holder is gone, the
  kernel released the lock), reported with a :class:`~toponeuro.exceptions.StaleLockWarning`
  and taken over.
* **Moves and removals** (:func:`move`, :func:`remove_tree`): the only renames and tree
  removals in the package; clean-up globs built from a user's name are escaped
  (:func:`glob.escape`).
* **Output checks** (:func:`check_output_file`, :func:`check_not_an_input`): an output that is
  a folder, an input (or inside an input folder, or holding an input), another format, or a
  file toponeuro did not write is refused.
"""

from __future__ import annotations

import contextlib
import datetime
import errno
import glob
import hashlib
import json
import os
import socket
import stat
import tempfile
import warnings
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from .._util.stack import user_stacklevel
from ..exceptions import (
    OutputExistsError,
    OutputLockedError,
    OutputPathError,
    StaleLockWarning,
    UnsafeLinkError,
)

__all__ = [
    "check_output_file",
    "check_not_an_input",
    "atomic_file",
    "write_text",
    "write_bytes",
    "save_torch",
    "move",
    "remove_tree",
    "PathLock",
    "is_toponeuro_netcdf",
    "read_json",
    "inside",
    "lock_path",
    "refuse_link",
]

#: suffixes of the netCDF-4 / HDF5 files toponeuro writes
NETCDF_SUFFIXES = (".nc", ".nc4", ".h5", ".hdf5")

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NAME_MAX = 255  # bytes of one file name on Linux, macOS and Windows file systems


# --- names toponeuro chooses ------------------------------------------------------------------
def _hidden_stem(name: str, room: int = 40) -> str:
    """``.<name>`` for a hidden sibling, shortened (with a digest of the whole name) so that
    ``room`` more bytes still fit in one file name."""
    stem = f".{name}"
    if len(stem.encode()) + room <= _NAME_MAX:
        return stem
    digest = hashlib.sha256(name.encode()).hexdigest()[:12]
    keep = stem.encode()[: _NAME_MAX - room - 14].decode(errors="ignore")
    return f"{keep}~{digest}"


def _sibling_glob(final: Path, tag: str) -> list[Path]:
    """The hidden siblings ``.<name>.<tag>-*`` of ``final`` (the user's name escaped)."""
    pattern = glob.escape(_hidden_stem(final.name)) + f".{tag}-*"
    return sorted(Path(p) for p in glob.glob(os.path.join(glob.escape(str(final.parent)),
                                                           pattern)))


def refuse_link(path: Path, what: str) -> None:
    """Refuse a symbolic link at ``path``, a name toponeuro chose (``what`` says which).

    Examples
    --------
    >>> d = Path(tempfile.mkdtemp())
    >>> (d / "x.lock").symlink_to(d / "elsewhere")
    >>> refuse_link(d / "x.lock", "a lock file")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    toponeuro.exceptions.UnsafeLinkError: ... is a symbolic link (to ...); toponeuro never writes through a link at a name it chose, so its target was not touched. Remove the link (rm ...) and rerun.
    """
    if path.is_symlink():
        raise UnsafeLinkError(
            f"{path} ({what}) is a symbolic link (to {os.readlink(path)}); toponeuro never "
            "writes through a link at a name it chose, so its target was not touched. Remove "
            f"the link (rm {path}) and rerun."
        )


# --- paths ------------------------------------------------------------------------------------
def link_target(path: Path, param: str) -> Path:
    """The file or folder the symbolic link ``path`` points to (resolved); a link to nowhere
    or a loop of links (a link to itself) raises :class:`OutputPathError` naming ``param``.

    Examples
    --------
    >>> d = Path(tempfile.mkdtemp())
    >>> (d / "loop").symlink_to(d / "loop")
    >>> link_target(d / "loop", "out")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    toponeuro.exceptions.OutputPathError: out=.../loop is a symbolic link that leads back to itself (a loop of links, via .../loop); remove the link (rm .../loop) or give another path.
    """
    try:
        target = path.resolve(strict=True)
    except (RuntimeError, OSError) as err:  # RuntimeError: a loop (Python < 3.13)
        loop = isinstance(err, RuntimeError) or getattr(err, "errno", None) == errno.ELOOP
        if loop:
            raise OutputPathError(
                f"{param}={path} is a symbolic link that leads back to itself (a loop of "
                f"links, via {os.readlink(path)}); remove the link (rm {path}) or give another "
                "path."
            ) from None
        raise OutputPathError(
            f"{param}={path} is a symbolic link to {os.readlink(path)}, which does not exist; "
            "give the target path itself, or create what it points to."
        ) from None
    return target


def check_writable(path: Path, param: str) -> None:
    """Refuse at once an output ``path`` this user cannot write (a read-only folder or file
    system): the folder itself when it exists, else the nearest existing folder above it,
    where it would be created. Checked before a job runs, not when it saves at the end.

    Examples
    --------
    >>> check_writable(Path(tempfile.mkdtemp()) / "new" / "out", "out_dir")  # writable
    """
    path = Path(os.path.abspath(path))
    where = next((p for p in (path, *path.parents) if p.exists()), None)
    if where is None:
        return
    if where == path and not path.is_dir():
        where = path.parent
    if os.access(where, os.W_OK | os.X_OK):
        return
    place = "" if where == path else f" ({where}, where it would be written)"
    raise OutputPathError(
        f"{param}={path}{place} is not writable by this user (its permissions, or a "
        "read-only file system), so the results could not be saved; give a folder you can "
        f"write, or make it writable (chmod u+w {where})."
    )


def inside(path: Path, folder: Path) -> bool:
    """``path`` is ``folder`` or lies inside it (both resolved; symlinks followed).

    Examples
    --------
    >>> inside(Path("/a/b/c.nc"), Path("/a")), inside(Path("/a2/c.nc"), Path("/a"))
    (True, False)
    """
    p, f = Path(path).resolve(), Path(folder).resolve()
    return p == f or f in p.parents


def _input_paths(inputs) -> list[Path]:
    """The paths among ``inputs`` (nested lists, tuples and mappings' values walked; anything
    else, and ``"floc"`` (a download), skipped)."""
    out = []
    if isinstance(inputs, (str, os.PathLike)):
        if str(inputs) not in ("floc", ""):
            out.append(Path(inputs))
    elif isinstance(inputs, Mapping):
        for v in inputs.values():
            out += _input_paths(v)
    elif isinstance(inputs, (list, tuple, set, frozenset)):
        for v in inputs:
            out += _input_paths(v)
    return out


def read_json(path):
    """The JSON value in the file at ``path``, or None when it is not one toponeuro can read
    (missing, unreadable, not UTF-8, not JSON): how the ``is_ours`` checks look at a file.

    Examples
    --------
    >>> p = Path(tempfile.mkdtemp()) / "a.json"
    >>> _ = p.write_text('{"format": "x"}')
    >>> read_json(p), read_json(p.with_name("none.json"))
    ({'format': 'x'}, None)
    """
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        return None


def is_toponeuro_netcdf(path) -> bool:
    """The file is a netCDF-4 / HDF5 file with a ``toponeuro_version`` attribute (written by
    toponeuro: activations, results, an activation store).

    Examples
    --------
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
    follow_links: bool = True,
) -> Path:
    """Check that ``path`` may be written; return the path to write.

    A symbolic link at ``path`` is written through: the returned path is the link's target
    (the link is kept), and the target is checked like any other file.

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
    what : str
        The format written, for messages.
    follow_links : bool
        Write through a symbolic link at ``path`` (default); False refuses any link there
        (:class:`OutputExistsError`), for writers that promise never to write through one.

    Raises
    ------
    OutputPathError
        A folder where a file is needed (or a file where a folder is), another format's
        suffix, one of the inputs, or a link to nowhere.
    OutputExistsError
        The file exists and ``overwrite`` is False, or it is not toponeuro's.

    Examples
    --------
    >>> folder = Path(tempfile.mkdtemp())
    >>> check_output_file(folder / "acts.nc", param="out").name
    'acts.nc'
    >>> check_output_file(folder / "acts.jpg", param="out")
    Traceback (most recent call last):
    ...
    toponeuro.exceptions.OutputPathError: out=... has the suffix '.jpg' of another format; a netCDF file is written: give a path ending in '.nc'.
    """
    path = Path(path)
    if path.is_symlink() and not follow_links:
        raise OutputExistsError(
            f"{param}={path} is a symbolic link (to {os.readlink(path)}); a {what} is never "
            "written through a link, so its target was not touched. Give the target's path "
            f"itself, or remove the link (rm {path})."
        )
    if path.is_symlink():  # written through: the link's target is the output
        path = link_target(path, param)
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
    check_writable(path.parent, param)
    if path.exists():
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
    """Refuse an output ``path`` that is one of ``inputs``, inside an input folder, or a
    folder holding an input (which replacing it would delete).

    ``inputs`` may nest lists, tuples and mappings (a cortex-map mapping's files);
    ``"floc"``, anything that is not a path and paths that do not exist (no file to protect;
    the stage that reads them reports them missing, a more useful message) are skipped.

    Examples
    --------
    >>> data = Path(tempfile.mkdtemp())
    >>> (data / "imgs").mkdir()
    >>> check_not_an_input(data / "imgs" / "out.nc", param="out", inputs=[data / "imgs"])
    Traceback (most recent call last):
    ...
    toponeuro.exceptions.OutputPathError: out=.../imgs/out.nc is inside the input folder .../imgs; write outputs elsewhere (they would be read as inputs, or replace them).
    >>> (data / "map").mkdir()
    >>> _ = (data / "map" / "ckpt.pt").write_bytes(b"")
    >>> check_not_an_input(data / "map", param="out_dir", inputs=[data / "map" / "ckpt.pt"])
    Traceback (most recent call last):
    ...
    toponeuro.exceptions.OutputPathError: out_dir=.../map holds the input .../map/ckpt.pt; replacing the folder would delete it. Move the input out of the folder, or give another out_dir.
    >>> check_not_an_input(data / "map", param="out_dir", inputs=[data / "map" / "missing.pt"])
    """
    for link in (Path(path), *Path(path).parents):  # a loop of links fails here, typed
        if link.is_symlink():
            link_target(link, param)
    for src in _input_paths(list(inputs)):
        if not src.exists():
            continue
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
        if inside(src, path):  # an input inside the output (folder)
            raise OutputPathError(
                f"{param}={path} holds the input {src}; replacing the folder would delete it. "
                f"Move the input out of the folder, or give another {param}."
            )


# --- files ------------------------------------------------------------------------------------
def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_file(path):
    """Yield a new temporary file's path beside ``path`` (a random name from
    :func:`tempfile.mkstemp`, created with ``O_EXCL``); rename it to ``path`` when the block
    ends without error (else delete it): readers see the old file or the new, never half.

    A symbolic link at ``path`` is replaced by the file, its target left untouched (pass the
    resolved path to write through a link, as :func:`check_output_file` does).

    Examples
    --------
    >>> p = Path(tempfile.mkdtemp()) / "a.txt"
    >>> with atomic_file(p) as tmp:
    ...     _ = tmp.write_text("new")
    >>> p.read_text(), sorted(x.name for x in p.parent.iterdir())
    ('new', ['a.txt'])
    """
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=_hidden_stem(path.name) + ".", suffix=".partial",
                               dir=path.parent)
    os.close(fd)
    tmp = Path(tmp)
    try:
        yield tmp
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; a plain open would not
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


def write_bytes(path, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically (:func:`atomic_file`); the path.

    Examples
    --------
    >>> p = write_bytes(Path(tempfile.mkdtemp()) / "a.bin", b"ab")
    >>> p.read_bytes()
    b'ab'
    """
    with atomic_file(path) as tmp:
        tmp.write_bytes(data)
    return Path(path)


def write_text(path, text: str, encoding: str = "utf-8") -> Path:
    """Write ``text`` to ``path`` atomically (:func:`atomic_file`); the path.

    Examples
    --------
    >>> p = write_text(Path(tempfile.mkdtemp()) / "a.json", "{}")
    >>> p.read_text()
    '{}'
    """
    return write_bytes(path, text.encode(encoding))


def save_torch(obj, path) -> Path:
    """``torch.save(obj)`` to ``path`` atomically (a kill mid-save leaves the previous file).

    Examples
    --------
    >>> import torch
    >>> p = save_torch({"a": torch.ones(2)}, Path(tempfile.mkdtemp()) / "w.pt")
    >>> torch.load(p)["a"].tolist()
    [1.0, 1.0]
    """
    import torch

    with atomic_file(path) as tmp:
        torch.save(obj, tmp)
    return Path(path)


def move(src, dst) -> Path:
    """Rename ``src`` to ``dst`` (one file system; replaces a file at ``dst``); ``dst``.

    Examples
    --------
    >>> d = Path(tempfile.mkdtemp())
    >>> _ = (d / "a").write_text("x")
    >>> move(d / "a", d / "b").read_text()
    'x'
    """
    os.replace(src, dst)
    return Path(dst)


def remove_tree(path) -> None:
    """Remove the folder ``path`` and everything in it (links inside are removed, never
    followed); a link at ``path`` itself is refused. Missing: nothing to do.

    Examples
    --------
    >>> d = Path(tempfile.mkdtemp()) / "x"
    >>> (d / "y").mkdir(parents=True)
    >>> remove_tree(d); d.exists()
    False
    """
    import shutil

    path = Path(path)
    refuse_link(path, "a folder to remove")
    if path.is_dir():
        shutil.rmtree(path, ignore_errors=True)


# --- locks ------------------------------------------------------------------------------------
def lock_path(final) -> Path:
    """The lock file guarding ``final``: ``.<name>.lock`` beside it (shortened for long names).

    Examples
    --------
    >>> lock_path(Path("/runs/map")).as_posix()
    '/runs/.map.lock'
    """
    final = Path(final)
    return final.parent / f"{_hidden_stem(final.name, room=8)}.lock"


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


def _holder(text: str) -> dict:
    try:
        data = json.loads(text)
        return data if isinstance(data, dict) else {}
    except (json.JSONDecodeError, ValueError):
        return {}


def _describe(holder: dict, text: str) -> str:
    if holder.get("pid") is not None:
        return (f"pid {holder['pid']} on {holder.get('host', '?')}, since "
                f"{holder.get('since', '?')}")
    return text.strip() or "unknown"


class PathLock:
    """An exclusive, non-blocking lock on ``lock_file``, held until :meth:`release`.

    The file is created with ``O_CREAT | O_EXCL | O_NOFOLLOW`` (an existing one opened with
    ``O_NOFOLLOW``: a symbolic link there is refused and its target never opened), records
    the holder (pid, host, start time) and is removed by :meth:`release`. A lock file whose
    holder is gone (a killed run: the kernel released its lock) is taken over with a
    :class:`~toponeuro.exceptions.StaleLockWarning` naming that run.

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
    >>> lock_file = Path(tempfile.mkdtemp()) / "x.lock"
    >>> a = PathLock(lock_file, "output folder x", "wait")
    >>> a.acquire()
    >>> try:
    ...     PathLock(lock_file, "output folder x", "wait").acquire()
    ... except OutputLockedError as err:
    ...     print(str(err)[:50])
    The output folder x is being written by another pr
    >>> a.release(); lock_file.exists()
    False
    """

    def __init__(self, lock_file, what: str, fix: str, error: type = OutputLockedError):
        self.path = Path(lock_file)
        self.what, self.fix, self.error = what, fix, error
        self._fd = None
        #: the holder recorded in a lock file left by a killed run (``None``: none found)
        self.stale: dict | None = None

    def _open(self) -> tuple[int, bool]:
        flags = os.O_RDWR | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
        try:
            return os.open(self.path, flags | os.O_CREAT | os.O_EXCL, 0o644), True
        except FileExistsError:
            pass
        except OSError as err:
            raise OutputPathError(
                f"Cannot create the lock file {self.path} of the {self.what} ({err}); write "
                "somewhere you have write access."
            ) from err
        try:
            fd = os.open(self.path, flags | os.O_NONBLOCK)
        except FileNotFoundError:  # removed by its holder in between: try again
            return self._open()
        except OSError as err:
            if err.errno == errno.ELOOP or self.path.is_symlink():
                refuse_link(self.path, f"the lock file of the {self.what}")
            raise OutputPathError(
                f"Cannot open the lock file {self.path} of the {self.what} ({err}); remove it "
                "if no toponeuro run is writing there, or write elsewhere."
            ) from err
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise OutputPathError(
                f"{self.path} (the lock file of the {self.what}) is not a regular file; "
                "toponeuro does not touch it. Remove it and rerun."
            )
        return fd, False

    def _held(self, fd: int, err: Exception) -> Exception:
        try:
            text = os.pread(fd, 4096, 0).decode(errors="replace")
        except OSError:
            text = ""
        os.close(fd)
        holder = _holder(text)
        owner = _describe(holder, text)
        msg = (f"The {self.what} is being written by another process ({owner}). {self.fix} "
               "The lock is released as soon as that process exits.")
        pid = holder.get("pid")
        if (isinstance(pid, int) and holder.get("host") == socket.gethostname()
                and not _pid_alive(pid)):
            msg = (f"The {self.what} is locked ({self.path}), but the run that took the lock "
                   f"({owner}) is no longer running: a process it started still holds it. "
                   f"End that process (`fuser {self.path}` names it), then rerun.")
        return self.error(msg)

    def acquire(self) -> None:
        for _ in range(10):
            fd, created = self._open()
            try:
                _try_lock(fd)
            except _HELD as err:
                raise self._held(fd, err) from err
            except OSError as err:  # a file system without locks (some network mounts)
                warnings.warn(
                    f"Cannot lock the {self.what} ({err}); make sure only one process writes it "
                    "at a time.",
                    stacklevel=user_stacklevel(),
                )
            try:  # the file we locked is still the one at the path (not removed meanwhile)
                same = os.stat(self.path, follow_symlinks=False).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)
        else:  # pragma: no cover - another process keeps replacing the file
            raise self.error(f"The lock file {self.path} of the {self.what} keeps changing; "
                             f"{self.fix}")
        if not created:
            text = os.pread(fd, 4096, 0).decode(errors="replace")
            if text.strip():
                self.stale = _holder(text) or {"text": text.strip()}
                warnings.warn(
                    f"A lock left by a killed run ({_describe(self.stale, text)}) was found at "
                    f"{self.path} and taken over: that run ended without finishing. Its "
                    f"unfinished files are not used; check the {self.what} when this run ends.",
                    StaleLockWarning,
                    stacklevel=user_stacklevel(),
                )
        info = {"pid": os.getpid(), "host": socket.gethostname(),
                "since": datetime.datetime.now().isoformat(timespec="seconds"),
                "what": self.what}
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(info).encode(), 0)
        self._fd = fd

    def release(self) -> None:
        """Remove the lock file and release the lock (nothing to do when not held)."""
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        try:
            with contextlib.suppress(OSError):
                if os.stat(self.path, follow_symlinks=False).st_ino == os.fstat(fd).st_ino:
                    os.unlink(self.path)  # while still locked: no one can take it in between
            with contextlib.suppress(OSError):  # never locked (see acquire)
                _unlock(fd)
        finally:
            os.close(fd)

    def __enter__(self):
        self.acquire()
        return self

    def __exit__(self, *exc):
        self.release()


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
