"""Hash-verified downloads into toponeuro's cache.

Every file is downloaded to a temporary name inside the cache folder, its sha256 is checked,
and only then is it moved into place; a mismatch deletes the file and raises
:class:`~toponeuro.exceptions.ChecksumError` with both hashes. Hash checking is always on.

The cache root is, in order: the ``cache_dir`` argument, ``$TOPONEURO_DATA``, the platform
cache folder (``$XDG_CACHE_HOME/toponeuro`` or ``~/.cache/toponeuro``).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

from .exceptions import ChecksumError, DownloadError

__all__ = ["data_dir", "sha256sum", "verify_file", "fetch_url", "fetch_hf_file", "hf_url"]

_CHUNK = 1 << 20


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
    """
    target = data_dir(cache_dir) / relpath
    if target.exists():
        verify_file(target, sha256)
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=target.name + ".", suffix=".part", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            try:
                with urllib.request.urlopen(url, timeout=60) as resp:
                    total = int(resp.headers.get("Content-Length") or 0) or None
                    bar = None
                    if progress:
                        from tqdm.auto import tqdm

                        bar = tqdm(total=total, unit="B", unit_scale=True, desc=target.name)
                    for chunk in iter(lambda: resp.read(_CHUNK), b""):
                        out.write(chunk)
                        if bar is not None:
                            bar.update(len(chunk))
                    if bar is not None:
                        bar.close()
            except (urllib.error.URLError, OSError, TimeoutError) as err:
                raise DownloadError(
                    f"Could not download {url} ({err}). {_manual_hint(target, url)}"
                ) from err
        verify_file(tmp, sha256, delete=True)
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return target


def hf_url(repo_id: str, filename: str, revision: str = "main") -> str:
    """Public address of a file in a Hugging Face model repository."""
    return f"https://huggingface.co/{repo_id}/resolve/{revision}/{filename}"


def hf_cache_path(
    repo_id: str, filename: str, cache_dir: str | os.PathLike | None = None
) -> Path:
    """Where :func:`fetch_hf_file` keeps ``filename`` of ``repo_id`` (it may not exist yet)."""
    return data_dir(cache_dir) / "hf" / repo_id / filename


def fetch_hf_file(
    repo_id: str,
    filename: str,
    *,
    sha256: str | None = None,
    revision: str | None = None,
    cache_dir: str | os.PathLike | None = None,
) -> Path:
    """Download ``filename`` of the Hugging Face repo ``repo_id`` and verify it.

    The file lands at ``<cache>/hf/<repo_id>/<filename>``; an existing file there (for example
    one copied by hand on an offline machine) is verified and used without going online.
    """
    target = hf_cache_path(repo_id, filename, cache_dir)
    if target.exists():
        verify_file(target, sha256)
        return target
    url = hf_url(repo_id, filename, revision or "main")
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
                f"({type(err).__name__}: {err}). {_manual_hint(target, url)}"
            ) from err
        verify_file(got, sha256, delete=True)
        os.replace(got, target)
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)
    return target
