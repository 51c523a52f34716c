"""A synthetic image folder on disk in fLoc's layout, for examples and tests."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from numbers import Integral
from pathlib import Path

import numpy as np

from .._util.docs import fill_doc
from .._util.params import SEED, Interval, Options, check_random_state, validate_params
from .._util.typing import RandomState
from ..exceptions import OutputPathError, ParameterError
from ._image import IMAGE_EXTENSIONS

__all__ = ["make_image_folder"]

_MODES = ("L", "RGB")


@fill_doc
@validate_params({
    "size": Interval(Integral, 1, None, closed="left", fix="size is in pixels."),
    "mode": Options(_MODES),
    "random_state": SEED,
})
def make_image_folder(
    root: str | os.PathLike | None = None,
    categories: Sequence[str] = ("faces", "houses"),
    numbers: Sequence[int] = (1, 2, 3),
    *,
    size: int = 20,
    suffix: str = ".png",
    mode: str = "L",
    random_state: RandomState = 0,
) -> Path:
    """Write ``<root>/<category>/<category>-<N><suffix>`` images: an fLoc-like folder.

    The layout is the one fLoc ships (``adult/adult-1.jpg`` ...), which
    :func:`load_floc`, :func:`load_image_folder`, ``toponeuro extract --stimuli`` and the
    training data sets read. Pixels are uniform random bytes drawn from ``random_state``,
    one image after another in category then number order, so the same call writes the
    same files.

    Parameters
    ----------
    root : path-like, optional
        Folder to write into (created when absent; existing files of the same names are
        replaced). Default: a new temporary folder, which the caller removes.
    categories : sequence of str
        One sub-folder per category, in this order.
    numbers : sequence of int
        The image numbers written in every category.
    size : int
        Images are ``size`` x ``size`` pixels.
    suffix : str
        File ending, one of :data:`IMAGE_EXTENSIONS` (``".jpg"`` is lossy: pixels read back
        differ slightly from the ones drawn).
    mode : {"L", "RGB"}
        Grey (fLoc's images are grey) or colour.
    %(random_state)s

    Returns
    -------
    pathlib.Path
        ``root``.

    Raises
    ------
    ParameterError
        An empty ``categories`` or ``numbers``, a category that is not a plain folder name,
        a ``size`` below 1, an unknown ``suffix`` or ``mode``.
    OutputPathError
        ``root`` (or a category folder in it) is an existing file.

    Examples
    --------
    >>> root = make_image_folder(categories=("faces", "houses"), numbers=(1, 2))
    >>> sorted(p.relative_to(root).as_posix() for p in root.rglob("*.png"))
    ['faces/faces-1.png', 'faces/faces-2.png', 'houses/houses-1.png', 'houses/houses-2.png']
    >>> from toponeuro.stimuli import load_image_folder
    >>> load_image_folder(root, ids="stem").ids.tolist()
    ['faces-1', 'faces-2', 'houses-1', 'houses-2']
    """
    from PIL import Image

    categories, numbers = [str(c) for c in categories], [int(n) for n in numbers]
    if not categories or not numbers:
        raise ParameterError(
            f"make_image_folder needs at least one category and one number; got categories="
            f"{categories} and numbers={numbers}."
        )
    odd = [c for c in categories if not c or c in (".", "..") or "/" in c or "\\" in c]
    if odd:
        raise ParameterError(
            f"Categories are folder names; got {odd}. Pass names without path separators."
        )
    suffix = suffix if suffix.startswith(".") else f".{suffix}"
    if suffix.lower() not in IMAGE_EXTENSIONS:
        raise ParameterError(
            f"suffix must be one of {', '.join(IMAGE_EXTENSIONS)}; got {suffix!r}."
        )
    root = Path(tempfile.mkdtemp(prefix="toponeuro-images-")) if root is None else Path(root)
    shape = (int(size), int(size)) + ((3,) if mode == "RGB" else ())
    rng = check_random_state(random_state)
    for category in categories:
        folder = root / category
        blocking = next((p for p in (root, folder) if p.exists() and not p.is_dir()), None)
        if blocking is not None:
            raise OutputPathError(
                f"{blocking} is a file; make_image_folder writes a folder there. Pass another "
                "root."
            )
        folder.mkdir(parents=True, exist_ok=True)
        for n in numbers:
            pixels = rng.integers(0, 256, shape, dtype=np.uint8)
            Image.fromarray(pixels).save(folder / f"{category}-{n}{suffix}")
    return root
