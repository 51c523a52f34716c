"""Output folders, the folder half of the one writer (:mod:`toponeuro._io.output`): built as a
random hidden sibling, moved into place when complete, with a manifest of what toponeuro wrote
so that ``overwrite=True`` replaces only that (see :func:`output_folder`)."""

from __future__ import annotations

import contextlib
import datetime
import fnmatch
import json
import os
import tempfile
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from .._util.stack import user_stacklevel
from ..exceptions import OutputExistsError, OutputPathError, first_few
from .fetch import sha256sum
from .output import (
    PathLock,
    _hidden_stem,
    _sibling_glob,
    _umask,
    check_not_an_input,
    check_writable,
    link_target,
    lock_path,
    move,
    read_json,
    remove_tree,
    write_text,
)

__all__ = ["output_folder", "OutputFolder", "folder_target", "MANIFEST", "LEGACY_MAP_FILES"]

#: the file that marks a folder as a toponeuro job's output (and lists what it wrote)
MANIFEST = ".toponeuro-output.json"
_FOLDER_FORMAT = "toponeuro.output-folder"

#: what ``toponeuro map`` 0.2 wrote (before manifests): the only names of such a folder that
#: ``overwrite=True`` replaces
LEGACY_MAP_FILES = ("report.html", "summary.json", "results.nc", "comparison.csv",
                    "comparison.png", "sheet_maps.png", "smoothness_profiles.png",
                    "cortex_rois.png", "arrangement_*.png")


# --- output folders ---------------------------------------------------------------------------
@dataclass
class OutputFolder:
    """Where a job writes (:attr:`path`, a hidden sibling of :attr:`final`) until
    :func:`output_folder` moves it into place.

    Examples
    --------
    >>> f = OutputFolder(final=Path("map"), path=Path(".map.partial-1"))
    >>> f.final_paths({"report.html": Path(".map.partial-1/report.html")})
    {'report.html': PosixPath('map/report.html')}
    """

    final: Path
    path: Path

    def final_paths(self, files: dict) -> dict:
        """``files`` (name -> path inside :attr:`path`) as paths inside :attr:`final`."""
        return {k: self.final / Path(v).relative_to(self.path) for k, v in files.items()}


def folder_target(path, param: str = "out_dir") -> Path:
    """The folder an output named ``path`` is written to: absolute, ``.`` and ``..`` resolved,
    and a symbolic link written through (its target; the link is kept).

    Raises
    ------
    OutputPathError
        ``path`` is the root of the file system, a link to nowhere, or a file.

    Examples
    --------
    >>> folder_target("/")
    Traceback (most recent call last):
    ...
    toponeuro.exceptions.OutputPathError: out_dir=/ is the root of the file system; give a folder below it (it is created if missing).
    """
    given = Path(path)
    final = Path(os.path.abspath(given))
    if final.is_symlink():
        final = link_target(final, param)
    if final == final.parent:
        raise OutputPathError(
            f"{param}={given} is the root of the file system; give a folder below it (it is "
            "created if missing)."
        )
    if final.exists() and not final.is_dir():
        raise OutputPathError(
            f"{param}={given} is a file, but a folder is needed; give a folder path (it is "
            "created if missing)."
        )
    for p in final.parents:
        if p.exists() and not p.is_dir():
            raise OutputPathError(f"{param}={given}: {p} is a file, but a folder is needed there.")
    return final


def _read_manifest(folder: Path) -> dict | None:
    p = folder / MANIFEST
    if p.is_symlink():
        return None
    data = read_json(p)
    return data if isinstance(data, dict) and data.get("format") == _FOLDER_FORMAT else None


def _is_legacy_output(folder: Path) -> bool:
    """A ``toponeuro map`` folder of 0.2 (before manifests): report.html and a summary.json
    written by toponeuro."""
    summary = read_json(folder / "summary.json")
    return (folder / "report.html").is_file() and isinstance(summary, dict) and (
        "toponeuro_version" in summary)


def _ours(name: str, manifest: dict | None, legacy: Iterable[str]) -> bool:
    if manifest is not None:
        return name == MANIFEST or name in set(manifest.get("files") or ())
    return any(fnmatch.fnmatchcase(name, pat) for pat in legacy)


def _tree(folder: Path, under: str = ""):
    """``(relative name, path)`` of every entry below ``folder``, sub-folders walked (links
    and their targets never followed)."""
    for p in sorted(folder.iterdir()):
        name = f"{under}{p.name}"
        yield name, p
        if p.is_dir() and not p.is_symlink():
            yield from _tree(p, f"{name}/")


def _file_hashes(folder: Path) -> dict:
    """relative name -> sha256 of each plain file in ``folder`` and its sub-folders (what
    the manifest records)."""
    return {name: sha256sum(p) for name, p in _tree(folder)
            if name != MANIFEST and p.is_file() and not p.is_symlink()}


def _changed(final: Path, manifest: dict | None) -> list[str]:
    """The manifest's files that are no longer what toponeuro wrote: edited, or replaced by a
    link or a folder, and files or links added inside its sub-folders (manifests before 0.4
    record no content: nothing is known changed)."""
    hashes = (manifest or {}).get("sha256")
    if not isinstance(hashes, dict):
        return []
    changed = []
    for name, digest in hashes.items():
        p = final / name
        if not (p.exists() or p.is_symlink()):
            continue
        if p.is_symlink() or not p.is_file() or sha256sum(p) != digest:
            changed.append(name)
    for top in manifest.get("files") or ():  # the rest were sub-folders
        p = final / top
        if top == MANIFEST or top in hashes or not (p.exists() or p.is_symlink()):
            continue
        if p.is_symlink() or not p.is_dir():
            changed.append(top)
            continue
        changed += [name for name, q in _tree(p, f"{top}/")
                    if name not in hashes and (q.is_symlink() or not q.is_dir())]
    return sorted(set(changed))


def _check_replaceable(final: Path, overwrite: bool, param: str, *,
                       legacy: Callable[[Path], Iterable[str] | None]) -> None:
    """Refuse ``final`` unless it is new, empty, or toponeuro's output replaceable with
    ``overwrite``: every entry listed in its manifest (or one of a legacy folder's names)."""
    if not final.exists():
        return
    entries = sorted(p.name for p in final.iterdir())
    if not entries:
        return
    manifest = _read_manifest(final)
    known = () if manifest is not None else legacy(final)
    if manifest is None and known is None:
        shown = first_few(entries)
        raise OutputExistsError(
            f"{param}={final} holds files toponeuro did not write ({shown}); it is never "
            "replaced, not even with overwrite=True. Give a new or empty folder."
        )
    foreign = [e for e in entries if not _ours(e, manifest, known)]
    if foreign:
        shown = first_few(foreign)
        raise OutputExistsError(
            f"{param}={final} holds an earlier toponeuro output and also files toponeuro did "
            f"not write ({shown}); nothing there is deleted, not even with overwrite=True. "
            f"Move those files out of the folder, or give another {param}."
        )
    changed = _changed(final, manifest)
    if changed:
        shown = first_few(changed)
        raise OutputExistsError(
            f"{param}={final} holds an earlier toponeuro output in which {shown} "
            f"{'was' if len(changed) == 1 else 'were'} changed since toponeuro wrote "
            f"{'it' if len(changed) == 1 else 'them'}; nothing there is deleted, not even with "
            f"overwrite=True. Copy what you need out of the folder and remove it, or give "
            f"another {param}."
        )
    if not overwrite:
        what = (f"the output of an earlier `toponeuro {manifest.get('kind')}` run (created "
                f"{manifest.get('created')})" if manifest else "an earlier toponeuro output")
        raise OutputExistsError(
            f"{param}={final} holds {what}; pass overwrite=True to replace it when this run is "
            "complete, or give another folder."
        )


def _legacy_map(folder: Path) -> tuple[str, ...] | None:
    return LEGACY_MAP_FILES if _is_legacy_output(folder) else None


def _tidy_siblings(final: Path) -> None:
    """Remove the partial folders of killed runs (marked by their manifest) and bring back a
    finished output a kill left set aside while it was being replaced."""
    for p in _sibling_glob(final, "partial"):
        if p.is_dir() and not p.is_symlink() and _read_manifest(p) is not None:
            remove_tree(p)
    olds = [p for p in _sibling_glob(final, "old")
            if p.is_dir() and not p.is_symlink() and _read_manifest(p) is not None]
    olds.sort(key=lambda p: p.stat().st_mtime)
    if olds and not final.exists():
        move(olds[-1], final)
        warnings.warn(f"Restored {final} from {olds[-1].name}: a run was killed while "
                      "replacing it.", stacklevel=user_stacklevel())
        olds = olds[:-1]
    for p in olds:
        remove_tree(p)


def _write_manifest(folder: Path, kind: str, complete: bool) -> None:
    from .._version import __version__

    record = {
        "format": _FOLDER_FORMAT, "format_version": 1, "kind": kind, "complete": complete,
        "toponeuro_version": __version__,
        "created": datetime.datetime.now().isoformat(timespec="seconds"),
        "files": sorted(p.name for p in folder.iterdir() if p.name != MANIFEST),
    }
    if complete:  # what overwrite=True may replace: these files, unchanged
        record["sha256"] = _file_hashes(folder)
    write_text(folder / MANIFEST, json.dumps(record, indent=2))


def _move_into_place(tmp: Path, final: Path) -> None:
    if not final.exists():
        move(tmp, final)
        return
    if not any(final.iterdir()):  # an empty folder (`--out .`, a mount point) is kept and
        # the files move into it, the manifest first: a kill leaves a folder marked as ours
        move(tmp / MANIFEST, final / MANIFEST)
        for p in sorted(tmp.iterdir()):
            move(p, final / p.name)
        return
    old = Path(tempfile.mkdtemp(prefix=_hidden_stem(final.name) + ".old-", dir=final.parent))
    move(final, old)  # a folder replaces an empty folder
    try:
        move(tmp, final)
    except BaseException:
        move(old, final)
        raise
    remove_tree(old)


@contextlib.contextmanager
def output_folder(path, *, overwrite: bool = False, kind: str = "map", inputs=(),
                  param: str = "out_dir",
                  legacy: Callable[[Path], Iterable[str] | None] = _legacy_map):
    """Write a job's output folder so that it is complete or untouched, never half.

    Checks ``path`` and locks it against a second writer at once (before the job spends
    minutes computing), yields an :class:`OutputFolder` whose :attr:`~OutputFolder.path` is
    a new hidden sibling folder (a random name), and when the block ends without error moves
    that folder to ``path``. An exception or Ctrl-C inside the block removes the sibling and
    leaves ``path`` as it was. The folder gets a manifest (``.toponeuro-output.json``: kind,
    toponeuro version, time, files and their sha256) that marks it as toponeuro's and lists what it wrote. The
    lock file is removed when the block ends.

    Parameters
    ----------
    path : path-like
        The output folder. A symbolic link is written through (its target is the output
        folder; the link is kept).
    overwrite : bool
        Replace an earlier toponeuro output at ``path``: only when everything in it is listed
        in its manifest and still as toponeuro wrote it (the manifest's sha256; for a folder
        of 0.2, the known names ``legacy`` gives); a folder that also holds other files, or
        a file edited or replaced by a link since, is refused, naming them.
    kind : str
        What writes it (``"map"``, ``"language-map"``), recorded in the manifest.
    inputs : iterable of path-like
        Files and folders the job reads (nested lists and mappings walked): ``path`` may not
        be one of them, inside one, or hold one.
    param : str
        The parameter that named ``path``, for messages.
    legacy : callable
        ``legacy(folder) -> names or None``: the names (glob patterns) a folder written
        before manifests holds when it is one (default: ``toponeuro map`` of 0.2).

    Raises
    ------
    OutputExistsError
        ``path`` holds an earlier output and ``overwrite`` is False, or files toponeuro did
        not write.
    OutputLockedError
        Another process is writing ``path``.
    OutputPathError
        ``path`` is a file, the root folder, one of the inputs or holds one.

    Examples
    --------
    >>> out = Path(tempfile.mkdtemp()) / "map"
    >>> with output_folder(out) as folder:
    ...     _ = (folder.path / "summary.json").write_text("{}")
    >>> sorted(p.name for p in out.iterdir())
    ['.toponeuro-output.json', 'summary.json']
    >>> try:
    ...     with output_folder(out, overwrite=True) as folder:
    ...         _ = (folder.path / "summary.json").write_text("half")
    ...         raise KeyboardInterrupt
    ... except KeyboardInterrupt:
    ...     pass
    >>> (out / "summary.json").read_text(), len(list(out.parent.iterdir()))
    ('{}', 1)
    """
    given = Path(path)
    final = folder_target(path, param)
    check_not_an_input(final, param=param, inputs=inputs)
    check_writable(final, param)  # a read-only folder refused now, not after the job ran
    check_writable(final.parent, param)  # the job is built in a sibling folder
    final.parent.mkdir(parents=True, exist_ok=True)
    lock = PathLock(lock_path(final), f"output folder {given}",
                    f"Wait for it to finish, or pass another {param}=.")
    lock.acquire()
    try:
        _tidy_siblings(final)
        _check_replaceable(final, overwrite, param, legacy=legacy)
        tmp = Path(tempfile.mkdtemp(prefix=_hidden_stem(final.name) + ".partial-",
                                    dir=final.parent))
        os.chmod(tmp, 0o777 & ~_umask())
        try:
            _write_manifest(tmp, kind, complete=False)
            yield OutputFolder(final=given, path=tmp)
            _write_manifest(tmp, kind, complete=True)
            # checked again: files the user put there while the job ran are never deleted
            _check_replaceable(final, True, param, legacy=legacy)
            _move_into_place(tmp, final)
        finally:
            if tmp.exists():
                remove_tree(tmp)
    finally:
        lock.release()
