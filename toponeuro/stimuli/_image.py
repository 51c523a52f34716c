"""The one place where toponeuro decodes images and lists image files.

:func:`read_image` turns a file, a PIL image or an array into an 8-bit RGB PIL image,
converting by the value range of its type (a 16-bit PNG is divided by 65535, not clipped at
255), and names the file when it cannot be decoded. :func:`list_image_files` lists the images
under a folder and skips hidden files (macOS ``._*`` resource forks, ``.DS_Store``, anything
under a folder whose name starts with a dot or ``__MACOSX``); :func:`files_by_name` keys them by
bare file name and refuses a name that occurs in several folders. Every loader (image folders,
fLoc, training folders, extraction, Brain-Score export) goes through these two functions.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from .._util.constraints import ArrayLike, Names
from .._util.params import Boolean, PathLike, Text, validate_params
from ..exceptions import ImageReadError, InvalidDataError, MissingFileError

__all__ = ["IMAGE_EXTENSIONS", "read_image", "is_hidden", "list_image_files", "files_by_name",
           "image_range"]

#: File suffixes read as images (lower case; matching is case-insensitive).
IMAGE_EXTENSIONS = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".gif", ".webp")

# folders that archivers add and that never hold stimuli
_JUNK_FOLDERS = ("__MACOSX",)

# PIL modes holding one integer channel wider than 8 bits
_WIDE_INT_MODES = ("I;16", "I;16B", "I;16L", "I;16N", "I")


@validate_params(dict(path=PathLike(), root=[PathLike(), None]))
def is_hidden(path: str | os.PathLike, root: str | os.PathLike | None = None) -> bool:
    """Whether ``path`` is a hidden or archiver file that loaders skip.

    A name starting with ``.`` (``.DS_Store``, macOS ``._image.jpg`` resource forks) or, when
    ``root`` is given, any folder between ``root`` and the file starting with ``.`` or named
    ``__MACOSX``.

    Parameters
    ----------
    path : path-like
        The file.
    root : path-like, optional
        The folder being listed; the folders between it and ``path`` are checked too.

    Returns
    -------
    bool
        Whether loaders skip the file.

    Examples
    --------
    >>> is_hidden("faces/._adult-1.jpg"), is_hidden("/home/me/.cache/faces/adult-1.jpg")
    (True, False)
    >>> is_hidden("/data/.git/x.png", root="/data"), is_hidden("/data/x.png", root="/data")
    (True, False)
    """
    p = Path(path)
    parts = p.relative_to(root).parts if root is not None else (p.name,)
    return any(part.startswith(".") or part in _JUNK_FOLDERS for part in parts)


@validate_params(dict(root=PathLike(), extensions=Names()))
def list_image_files(
    root: str | os.PathLike, extensions: Iterable[str] = IMAGE_EXTENSIONS
) -> list[Path]:
    """Image files under ``root`` (recursive), sorted by relative path, hidden files skipped.

    Parameters
    ----------
    root : path-like
        The folder.
    extensions : iterable of str
        Suffixes that count as images (any case).

    Returns
    -------
    list of pathlib.Path
        The files.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> for name in ["b.png", "a.JPG", "._a.JPG", "notes.txt"]:
    ...     _ = (d / name).write_bytes(b"")
    >>> [p.name for p in list_image_files(d)]
    ['a.JPG', 'b.png']
    """
    root = Path(root)
    exts = {e.lower() if e.startswith(".") else "." + e.lower() for e in extensions}
    return sorted(
        (
            p
            for p in root.rglob("*")
            if p.suffix.lower() in exts and not is_hidden(p, root) and p.is_file()
        ),
        key=lambda p: p.relative_to(root).as_posix(),
    )


@validate_params(dict(root=PathLike(), suffix=Boolean(), fix=Text()))
def files_by_name(root: str | os.PathLike, files: Iterable[Path], *, suffix: bool = True,
                  error: type[Exception] = InvalidDataError, fix: str = "rename the copies"
                  ) -> dict[str, Path]:
    """Key image files by their bare file name; a name in several folders is a typed error.

    Parameters
    ----------
    root : path-like
        The folder the files are under (named in the error).
    files : iterable of pathlib.Path
        Files under ``root``, e.g. from :func:`list_image_files`.
    suffix : bool
        Key by ``name.ext`` (True) or by the name without its suffix (False).
    error : Exception type
        What a clash raises (the caller's error type: an id clash or a table mismatch).
    fix : str
        What the caller's user should do instead, ending the message.

    Returns
    -------
    dict
        Bare name -> file, in the order of ``files``.

    Examples
    --------
    >>> from pathlib import Path
    >>> root = Path("/data")
    >>> files_by_name(root, [root / "a" / "x.png", root / "b" / "y.png"], suffix=False)
    {'x': PosixPath('/data/a/x.png'), 'y': PosixPath('/data/b/y.png')}
    >>> files_by_name(root, [root / "a" / "x.png", root / "b" / "x.png"])
    Traceback (most recent call last):
    ...
    toponeuro.exceptions.InvalidDataError: 1 file names under /data occur in several folders (e.g. 'x.png': ['a/x.png', 'b/x.png']); rename the copies.
    """
    groups: dict[str, list[Path]] = {}
    for f in files:
        groups.setdefault(f.name if suffix else f.stem, []).append(f)
    clash = {k: v for k, v in groups.items() if len(v) > 1}
    if clash:
        k = next(iter(clash))
        raise error(
            f"{len(clash)} file names under {root} occur in several folders (e.g. {k!r}: "
            f"{[Path(p).relative_to(root).as_posix() for p in clash[k][:3]]}); {fix}."
        )
    return {k: v[0] for k, v in groups.items()}


@validate_params(dict(array=ArrayLike()))
def image_range(array: np.ndarray) -> tuple[float, float]:
    """The value range ``(low, high)`` that maps to black and white for an array's dtype.

    Unsigned and signed integers use their full range (``uint16``: 0..65535); floats and
    booleans use 0..1.

    Parameters
    ----------
    array : numpy.ndarray
        Pixel values (only the dtype is read).

    Returns
    -------
    low : float
        The value shown black.
    high : float
        The value shown white.

    Examples
    --------
    >>> import numpy as np
    >>> image_range(np.zeros(2, np.uint16)), image_range(np.zeros(2, np.float32))
    ((0.0, 65535.0), (0.0, 1.0))
    """
    dt = np.asarray(array).dtype
    if dt.kind == "b" or np.issubdtype(dt, np.floating):
        return 0.0, 1.0
    if np.issubdtype(dt, np.integer):
        info = np.iinfo(dt)
        return float(info.min), float(info.max)
    raise InvalidDataError(f"Cannot read an array of dtype {dt} as an image; use uint8/16 or float.")


def _to_uint8(arr: np.ndarray, low: float, high: float, what: str) -> np.ndarray:
    arr = np.asarray(arr)
    if arr.dtype == np.uint8:
        return arr
    x = arr.astype(np.float64)
    if not np.isfinite(x).all():
        raise ImageReadError(f"{what} holds NaN or inf values; an image needs finite values.")
    if np.issubdtype(arr.dtype, np.floating) and (x.min() < 0 or x.max() > 1):
        raise ImageReadError(
            f"{what} is a float image with values {x.min():.4g}..{x.max():.4g}; float images "
            "must lie in 0..1. Divide by the maximum of its range (e.g. /255) first."
        )
    x = (x - low) / (high - low)
    return np.clip(np.rint(x * 255.0), 0, 255).astype(np.uint8)


def _array_image(arr, what: str):
    from PIL import Image

    arr = np.asarray(arr)
    if arr.ndim == 3 and arr.shape[-1] == 1:
        arr = arr[..., 0]
    if arr.ndim not in (2, 3) or (arr.ndim == 3 and arr.shape[-1] not in (3, 4)) or 0 in arr.shape:
        raise ImageReadError(
            f"{what} has shape {arr.shape}; an image array must be (H, W), (H, W, 1), (H, W, 3) "
            "or (H, W, 4) with H, W > 0."
        )
    u8 = _to_uint8(arr, *image_range(arr), what)
    return Image.fromarray(np.ascontiguousarray(u8)).convert("RGB")


def _pil_to_rgb(im, what: str):
    """8-bit RGB of a decoded PIL image, converting wide modes by their real range."""
    if im.mode in _WIDE_INT_MODES:
        arr = np.asarray(im)
        if im.mode == "I":
            # 16-bit PNGs and TIFFs decode to "I" in some Pillow versions: a 0..65535 range
            if arr.size and (arr.min() < 0 or arr.max() > 65535):
                raise ImageReadError(
                    f"{what} is a 32-bit integer image with values {arr.min()}..{arr.max()}; "
                    "its black and white levels are unknown. Save it as an 8- or 16-bit image."
                )
            return _array_image(arr.astype(np.uint16), what)
        return _array_image(arr, what)
    if im.mode == "F":
        return _array_image(np.asarray(im, dtype=np.float32), what)
    return im.convert("RGB")


@validate_params({"what": [Text(), None]})
def read_image(source, *, what: str | None = None):
    """Decode ``source`` into an 8-bit RGB :class:`PIL.Image.Image`.

    Parameters
    ----------
    source : path-like, PIL image or array
        A file in any format Pillow reads, an image, or an array ``(H, W)``, ``(H, W, 3)`` or
        ``(H, W, 4)``.
    what : str, optional
        How to name the image in errors (default: the path).

    Returns
    -------
    PIL.Image.Image
        Mode ``"RGB"``. Values are converted by the range of their type, not clipped:
        8-bit as is; 16-bit (PIL modes ``I;16``, or ``I`` with values in 0..65535, ``uint16``
        arrays) divided by 65535; other integer arrays by their dtype's range; float images
        (mode ``F``, float arrays) must lie in 0..1. The result is rounded to 8 bits, the
        precision the models were trained on. Palette, grayscale, CMYK and alpha images are
        converted by Pillow (alpha is dropped).

    Raises
    ------
    MissingFileError
        No file at the path.
    ImageReadError
        The file is corrupt, truncated or not an image, or its value range is unknown; the
        message names the file.

    Examples
    --------
    >>> import numpy as np, tempfile, pathlib
    >>> from PIL import Image
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "depth.png"
    >>> Image.fromarray(np.array([[0, 32768, 65535]], np.uint16)).save(p)
    >>> np.asarray(read_image(p))[0, :, 0].tolist()
    [0, 128, 255]
    """
    from PIL import Image

    if isinstance(source, Image.Image):
        return _pil_to_rgb(source, what or "the image")
    if isinstance(source, np.ndarray):
        return _array_image(source, what or f"an array of shape {source.shape}")
    if not isinstance(source, (str, os.PathLike)):
        raise InvalidDataError(
            f"Cannot read a {type(source).__name__} as an image; pass a path, a PIL image or "
            "an array (H, W[, 3])."
        )
    path = Path(source)
    name = what or str(path)
    if not path.is_file():
        raise MissingFileError(f"Image {name} does not exist (or is not a file).")
    try:
        with Image.open(path) as im:
            im.load()
            return _pil_to_rgb(im, name)
    except ImageReadError:
        raise
    except Exception as err:  # Pillow's decoders raise OSError, SyntaxError, ValueError ...
        raise ImageReadError(
            f"Cannot decode the image {name} ({type(err).__name__}: {err}); it is corrupt, "
            "truncated or not an image. Replace it with a good copy (download or export it "
            "again) or remove it from the stimuli."
        ) from err
