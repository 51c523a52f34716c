"""Hash-verified downloads into toponeuro's cache.

Every file is downloaded to a temporary name inside the cache folder, its digest is checked,
and only then is it moved into place; a mismatch deletes the download and raises
:class:`~toponeuro.exceptions.ChecksumError` with both hashes. Hash checking is always on.

What a digest is checked against:

* pinned files (:func:`fetch_url`: fLoc images, language-localizer items): the sha256 in
  toponeuro's pinned-sources table.
* Hugging Face files (:func:`fetch_hf_file`): the sha256 given by the caller (a model card's
  ``sha256``) when there is one, and always the digest the hub itself publishes for the file,
  asked before downloading: the sha256 of its LFS object, or for a small non-LFS file its git
  blob sha1. The digest that matched is recorded beside the file (``<file>.sha256.json``), so
  a later run checks the cached file against it without going online.
* a file found in the cache (or put there by hand) is checked against the caller's sha256 or
  the recorded digest; when there is neither, the hub is asked for its digest, and when the hub
  cannot be reached the file is used with an :class:`~toponeuro.exceptions.UnverifiedFileWarning`
  and reported as *not verified*.

A cached file whose digest is wrong is moved aside to ``<file>.corrupt`` and downloaded again,
once; if the new download is wrong too, :class:`ChecksumError` names both hashes.

The cache root is, in order: the ``cache_dir`` argument, ``$TOPONEURO_DATA``, the platform
cache folder (``$XDG_CACHE_HOME/toponeuro`` or ``~/.cache/toponeuro``).
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import tempfile
import urllib.error
import urllib.parse
import urllib.request
import warnings
from pathlib import Path

from .._util.stack import user_stacklevel
from ..exceptions import ChecksumError, DownloadError, UnverifiedFileWarning
from .output import atomic_file, move, refuse_link, remove_tree, write_text

__all__ = [
    "data_dir",
    "sha256sum",
    "git_blob_sha1",
    "verify_file",
    "fetch_url",
    "fetch_hf_file",
    "hf_url",
    "hub_file_digest",
]

_CHUNK = 1 << 20

#: hosts a download failed to reach in this process (host -> error): later fetches from them
#: fail at once, so an offline run waits for one timeout, not one per file
_UNREACHABLE: dict[str, str] = {}


def data_dir(cache_dir: str | os.PathLike | None = None) -> Path:
    """Return (and create) the cache root for downloads.

    Examples
    --------
    >>> import tempfile
    >>> d = tempfile.mkdtemp()
    >>> data_dir(d) == Path(d)
    True
    """
    if cache_dir is not None:
        root = Path(cache_dir)
    elif os.environ.get("TOPONEURO_DATA"):
        root = Path(os.environ["TOPONEURO_DATA"])
    else:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        root = Path(base) / "toponeuro"
    root.mkdir(parents=True, exist_ok=True)
    return root


def sha256sum(path: str | os.PathLike) -> str:
    """sha256 hex digest of a file, read in 1 MiB chunks."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(_CHUNK), b""):
            h.update(chunk)
    return h.hexdigest()


def git_blob_sha1(path: str | os.PathLike) -> str:
    """The git blob id of a file: sha1 of ``b"blob <size>\\0"`` followed by its bytes.

    The Hugging Face hub publishes this id for every file (for LFS files, of the pointer).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "hello.txt"
    >>> _ = p.write_bytes(b"hello\\n")
    >>> git_blob_sha1(p)  # the same as `git hash-object hello.txt`
    'ce013625030ba8dba906f756967f9e9ca394464a'
    """
    h = hashlib.sha1()
    h.update(b"blob %d\0" % os.path.getsize(path))
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(_CHUNK), b""):
            h.update(chunk)
    return h.hexdigest()


def verify_file(path: str | os.PathLike, sha256: str | None, *, delete: bool = False) -> str:
    """Check ``path`` against ``sha256`` and return the actual digest.

    With ``sha256=None`` nothing is compared (the digest is still returned, so callers can
    record it). On a mismatch the file is deleted when ``delete`` is true and
    :class:`ChecksumError` names both hashes.
    """
    actual = sha256sum(path)
    if sha256 is not None and actual.lower() != sha256.lower():
        if delete:
            Path(path).unlink(missing_ok=True)
        raise ChecksumError(
            f"{path}: sha256 is {actual}, expected {sha256}. The file is corrupt, truncated or "
            f"not the published version{' and was deleted' if delete else ''}; download it "
            "again (or replace your hand-made copy with the official file)."
        )
    return actual


def _manual_hint(target: Path, url: str) -> str:
    return (
        f"Download {url} by hand (any machine with internet access) and put it at {target}; "
        "toponeuro will verify and use it without going online. You can also set "
        "TOPONEURO_DATA to a folder that already holds the file."
    )


def _quarantine(path: Path, actual: str, expected: str, what: str) -> str:
    """Move a cached file with a wrong digest to ``<name>.corrupt``; return a note for errors."""
    bad = path.with_name(path.name + ".corrupt")
    refuse_link(bad, "where a corrupt download is moved")
    move(path, bad)
    note = (
        f"the cached {path} had {what} {actual}, expected {expected}; it was moved to {bad}"
    )
    warnings.warn(f"{note[0].upper()}{note[1:]} and is downloaded again.", stacklevel=user_stacklevel())
    return note


def _download(url: str, tmp: str, progress: bool, label: str) -> None:
    with open(tmp, "wb") as out, urllib.request.urlopen(url, timeout=60) as resp:
        total = int(resp.headers.get("Content-Length") or 0) or None
        bar = None
        if progress:
            from tqdm.auto import tqdm

            bar = tqdm(total=total, unit="B", unit_scale=True, desc=label)
        for chunk in iter(lambda: resp.read(_CHUNK), b""):
            out.write(chunk)
            if bar is not None:
                bar.update(len(chunk))
        if bar is not None:
            bar.close()


def fetch_url(
    url: str,
    *,
    sha256: str | None,
    relpath: str | os.PathLike,
    cache_dir: str | os.PathLike | None = None,
    progress: bool = False,
) -> Path:
    """Download ``url`` to ``<cache>/<relpath>`` unless a verified copy is already there.

    Parameters
    ----------
    url : str
        ``http(s)://`` or ``file://`` address.
    sha256 : str or None
        Expected digest. ``None`` is only for files whose publisher gives no hash; the
        digest found is then returned by :func:`sha256sum` for the caller to record.
    relpath : path-like
        Location inside the cache root.

    Raises
    ------
    ChecksumError
        The download does not have ``sha256`` (it is deleted). A cached copy with the wrong
        digest is first moved to ``<file>.corrupt`` and downloaded again, once.
    DownloadError
        The address cannot be reached; the message says where to put a copy by hand.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> src = pathlib.Path(tempfile.mkdtemp()) / "a.txt"
    >>> _ = src.write_text("abc")
    >>> got = fetch_url(src.as_uri(), sha256=sha256sum(src), relpath="doc/a.txt",
    ...                 cache_dir=tempfile.mkdtemp())
    >>> got.read_text()
    'abc'
    """
    target = data_dir(cache_dir) / relpath
    note = ""
    if target.exists():
        actual = sha256sum(target)
        if sha256 is None or actual == sha256.lower():
            return target
        note = " (" + _quarantine(target, actual, sha256, "sha256") + ")"
    host = urllib.parse.urlsplit(url).netloc
    if host in _UNREACHABLE:  # offline: fail at once, not after another timeout per file
        raise DownloadError(
            f"Could not download {url}: {host} could not be reached earlier in this session "
            f"({_UNREACHABLE[host]}){note}. {_manual_hint(target, url)}"
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    with atomic_file(target) as tmp:  # the writer: a random temporary name, then renamed
        try:
            _download(url, tmp, progress, target.name)
        except (urllib.error.URLError, OSError, TimeoutError, ValueError) as err:
            if host and isinstance(err, (urllib.error.URLError, TimeoutError, ConnectionError)):
                _UNREACHABLE[host] = str(err)
            raise DownloadError(
                f"Could not download {url} ({err}){note}. {_manual_hint(target, url)}"
            ) from err
        verify_file(tmp, sha256, delete=True)
    return target


def hf_url(repo_id: str, filename: str, revision: str = "main") -> str:
    """Public address of a file in a Hugging Face model repository.

    Examples
    --------
    >>> hf_url("murtylab/topo-resnet18-imagenet", "all_topo_tau_0.5.pt")
    'https://huggingface.co/murtylab/topo-resnet18-imagenet/resolve/main/all_topo_tau_0.5.pt'
    """
    return f"https://huggingface.co/{repo_id}/resolve/{revision}/{filename}"


def hub_file_digest(repo_id: str, filename: str, revision: str | None = None) -> dict:
    """The digests the Hugging Face hub publishes for one file of a model repository.

    Asks the hub's paths-info API (``huggingface_hub.HfApi.get_paths_info``); nothing is
    downloaded.

    Returns
    -------
    dict
        ``sha256``: sha256 of the file's LFS object (``None`` for a file not stored in LFS),
        ``git_sha1``: its git blob id (see :func:`git_blob_sha1`; of the LFS pointer for LFS
        files), ``size``: bytes.

    Raises
    ------
    DownloadError
        The hub cannot be reached (offline, ``HF_HUB_OFFLINE=1``) or has no such file.
    """
    try:
        from huggingface_hub import HfApi

        infos = HfApi().get_paths_info(repo_id, [filename], revision=revision)
    except Exception as err:  # offline, DNS, 404, auth: the hub client has many error types
        raise DownloadError(
            f"Could not ask the Hugging Face hub for the digest of {filename!r} in {repo_id!r} "
            f"({type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''})."
        ) from err
    for info in infos:
        if getattr(info, "path", None) == filename and hasattr(info, "blob_id"):
            lfs = getattr(info, "lfs", None)
            return {
                "sha256": lfs.sha256.lower() if lfs is not None else None,
                "git_sha1": str(info.blob_id).lower(),
                "size": int(info.size),
            }
    raise DownloadError(
        f"The Hugging Face repo {repo_id!r} has no file {filename!r} at revision "
        f"{revision or 'main'!r}; check the model card's hub_repo and filename."
    )


def _record_path(target: Path) -> Path:
    return target.with_name(target.name + ".sha256.json")


def _read_record(target: Path) -> dict | None:
    try:
        rec = json.loads(_record_path(target).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(rec, dict) or not isinstance(rec.get("sha256"), str):
        return None
    return rec


def _write_record(target: Path, sha: str, checked: list[str], repo_id, filename, revision):
    rec = {
        "sha256": sha,
        "checked_against": checked,
        "repo_id": repo_id,
        "filename": filename,
        "revision": revision or "main",
        "checked_at": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
    }
    write_text(_record_path(target), json.dumps(rec, indent=1))


def _hub_checks(path, actual: str, meta: dict, where: str):
    """Compare ``path`` with the hub's digests: (what matched, (kind, got, want) or None)."""
    if meta.get("sha256"):
        if actual != meta["sha256"]:
            return [], ("sha256", actual, f"{meta['sha256']} (the hub's LFS sha256)")
        return [f"the Hugging Face LFS sha256 of {where}"], None
    blob = git_blob_sha1(path)
    if blob != meta["git_sha1"]:
        return [], ("git blob sha1", blob, f"{meta['git_sha1']} (the hub's)")
    return [f"the Hugging Face git blob sha1 of {where} (a non-LFS file)"], None


def hf_cache_path(
    repo_id: str, filename: str, cache_dir: str | os.PathLike | None = None
) -> Path:
    """Where :func:`fetch_hf_file` keeps ``filename`` of ``repo_id`` (it may not exist yet)."""
    return data_dir(cache_dir) / "hf" / repo_id / filename


def _fetch_hf(repo_id, filename, *, sha256=None, revision=None, cache_dir=None):
    """:func:`fetch_hf_file`, also returning one sentence saying exactly what was checked."""
    target = hf_cache_path(repo_id, filename, cache_dir)
    where = f"{repo_id}:{filename}@{revision or 'main'}"
    url = hf_url(repo_id, filename, revision or "main")
    sha256 = sha256.lower() if sha256 else None
    note = ""
    if target.exists():
        actual = sha256sum(target)
        rec = _read_record(target)
        if sha256 is not None:
            if actual == sha256:
                return target, f"sha256 {actual} matches the model card's sha256"
            note = _quarantine(target, actual, sha256, "sha256")
        elif rec is not None:
            if actual == rec["sha256"].lower():
                against = "; ".join(rec.get("checked_against") or []) or "nothing"
                return target, (
                    f"sha256 {actual} matches the digest recorded when the file was checked "
                    f"on {rec.get('checked_at', '?')} against {against}"
                )
            note = _quarantine(target, actual, rec["sha256"], "sha256 (recorded)")
        else:
            try:
                meta = hub_file_digest(repo_id, filename, revision)
            except DownloadError as err:
                msg = (
                    f"NOT verified: {target} was found in the cache without a recorded digest, "
                    f"the model card gives none, and the hub could not be asked ({str(err).rstrip('.')}). Only its "
                    f"sha256 {actual} is recorded; it may not be the published file."
                )
                warnings.warn(msg, UnverifiedFileWarning, stacklevel=user_stacklevel())
                return target, msg
            checked, bad = _hub_checks(target, actual, meta, where)
            if bad is None:
                _write_record(target, actual, checked, repo_id, filename, revision)
                return target, f"sha256 {actual} matches {checked[0]}"
            note = _quarantine(target, bad[1], bad[2], bad[0])
    note = f" ({note})" if note else ""
    try:
        meta = hub_file_digest(repo_id, filename, revision)
    except DownloadError as err:
        if sha256 is None:
            raise DownloadError(f"{err}{note} {_manual_hint(target, url)}") from err
        meta = None  # the card's sha256 still checks the download
    target.parent.mkdir(parents=True, exist_ok=True)
    tmpdir = tempfile.mkdtemp(prefix=".download-", dir=target.parent)
    try:
        try:
            import huggingface_hub

            got = huggingface_hub.hf_hub_download(
                repo_id=repo_id, filename=filename, revision=revision, local_dir=tmpdir
            )
        except Exception as err:  # hub errors have many types: offline, 404, auth, DNS
            raise DownloadError(
                f"Could not download {filename!r} from the Hugging Face repo {repo_id!r} "
                f"({type(err).__name__}: {err}){note}. {_manual_hint(target, url)}"
            ) from err
        actual = verify_file(got, sha256, delete=True)
        checked = ["the model card's sha256"] if sha256 else []
        if meta is not None:
            hub, bad = _hub_checks(got, actual, meta, where)
            if bad is not None:
                Path(got).unlink(missing_ok=True)
                raise ChecksumError(
                    f"The download of {where} has {bad[0]} {bad[1]}, expected {bad[2]}; it is "
                    f"corrupt or was changed in transit and was deleted{note}. Download it "
                    f"again (or put a good copy by hand at {target})."
                )
            checked += hub
        move(got, target)
        _write_record(target, actual, checked, repo_id, filename, revision)
    finally:
        remove_tree(tmpdir)
    return target, f"sha256 {actual} matches " + " and ".join(checked)


def fetch_hf_file(
    repo_id: str,
    filename: str,
    *,
    sha256: str | None = None,
    revision: str | None = None,
    cache_dir: str | os.PathLike | None = None,
) -> Path:
    """Download ``filename`` of the Hugging Face repo ``repo_id`` and verify it.

    The file lands at ``<cache>/hf/<repo_id>/<filename>``, with the digest it was checked
    against recorded in ``<filename>.sha256.json``. Checked against: ``sha256`` when given,
    and the hub's own digest of the file (LFS sha256, or git blob sha1 for non-LFS files),
    asked before downloading. A file already there (for example one copied by hand on an
    offline machine) is checked against ``sha256`` or the recorded digest without going
    online; with neither, the hub is asked, and if it cannot be reached the file is used
    with an :class:`~toponeuro.exceptions.UnverifiedFileWarning`. A cached file that fails its
    check is moved to ``<filename>.corrupt`` and downloaded again, once.

    Raises
    ------
    ChecksumError
        The download does not match (both digests named; the download is deleted).
    DownloadError
        The hub cannot be reached and no usable copy is cached; the message says where to
        put a copy by hand.
    """
    return _fetch_hf(repo_id, filename, sha256=sha256, revision=revision, cache_dir=cache_dir)[0]
