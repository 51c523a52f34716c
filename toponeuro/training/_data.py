"""Datasets for training small TopoNets: synthetic images and image folders."""

from __future__ import annotations

import os
import re
from numbers import Integral
from pathlib import Path

import numpy as np
import torch
from torch.utils.data import Dataset, TensorDataset

from .._util.docs import fill_doc
from .._util.params import SEED, Boolean, Interval, check_random_state, validate_params
from ..exceptions import InvalidDataError, RecipeError

__all__ = ["make_synthetic_images", "image_folder_dataset"]

_COUNT = Interval(Integral, 1, None, closed="left")

_NUMBER = re.compile(r"-(\d+)\.[A-Za-z]+$")


@fill_doc
@validate_params({"n_classes": _COUNT, "n_per_class": _COUNT, "image_size": _COUNT,
                  "random_state": SEED})
def make_synthetic_images(
    n_classes: int = 4, n_per_class: int = 16, image_size: int = 32, random_state: int = 0
) -> TensorDataset:
    """Gratings whose orientation is the class, plus noise: learnable in one CPU epoch.

    Parameters
    ----------
    n_classes : int
        Classes (grating orientations, evenly spaced).
    n_per_class : int
        Images per class.
    image_size : int
        Side of the square images.
    %(random_state)s

    Returns
    -------
    torch.utils.data.TensorDataset
        ``(images, labels)``: float images ``(n, 3, image_size, image_size)`` and int labels.

    Examples
    --------
    >>> ds = make_synthetic_images(n_classes=3, n_per_class=2, image_size=16)
    >>> len(ds), tuple(ds[0][0].shape), sorted({int(y) for _, y in ds})
    (6, (3, 16, 16), [0, 1, 2])
    """
    rng = check_random_state(random_state)
    yy, xx = np.mgrid[0:image_size, 0:image_size] / image_size
    images, labels = [], []
    for c in range(n_classes):
        theta = np.pi * c / n_classes
        for _ in range(n_per_class):
            phase = rng.uniform(0, 2 * np.pi)
            freq = rng.uniform(3, 5)
            g = np.sin(2 * np.pi * freq * (xx * np.cos(theta) + yy * np.sin(theta)) + phase)
            img = g[None].repeat(3, 0) + 0.5 * rng.standard_normal((3, image_size, image_size))
            images.append(img.astype(np.float32))
            labels.append(c)
    return TensorDataset(torch.from_numpy(np.stack(images)), torch.tensor(labels))



def _category_folders(root: Path, categories) -> list[str]:
    """``categories`` (each checked to be a sub-folder of ``root``), or all sub-folders."""
    if not root.is_dir():
        raise RecipeError(
            f"Image folder {root} does not exist. Point the recipe's data.path (or data_path=) at "
            "a folder with one sub-folder per category."
        )
    found = sorted(p.name for p in root.iterdir() if p.is_dir())
    classes = list(categories) if categories else found
    if not classes:
        raise RecipeError(
            f"Image folder {root} has no sub-folders (an image folder has one sub-folder of "
            "images per category, e.g. faces/face-1.jpg); point data.path (or data_path=) at "
            "such a folder."
        )
    missing = [c for c in classes if c not in found]
    if missing:
        raise RecipeError(f"Categories {missing} are not sub-folders of {root} (found {found}).")
    return classes


@fill_doc
@validate_params({"image_size": _COUNT, "grayscale": Boolean(), "augment": Boolean()})
def image_folder_dataset(
    path: str | os.PathLike,
    image_size: int = 64,
    numbers: tuple[int, int] | None = None,
    categories: list[str] | None = None,
    grayscale: bool = True,
    augment: bool = False,
    mean: tuple[float, ...] = (0.5, 0.5, 0.5),
    std: tuple[float, ...] = (0.5, 0.5, 0.5),
) -> Dataset:
    """A torchvision ``ImageFolder`` (one sub-folder per class) with optional filters.

    Parameters
    ----------
    %(image_folder)s
    image_size : int
        Images are resized to ``image_size`` x ``image_size``.
    %(folder_numbers)s
    %(folder_categories)s
    grayscale : bool
        Read as grayscale and repeat to 3 channels (fLoc stimuli are grayscale).
    augment : bool
        Random horizontal flips.
    mean, std : tuple of float
        Per-channel normalisation after scaling pixels to ``[0, 1]``.

    Returns
    -------
    torch.utils.data.Dataset
        A torchvision ``ImageFolder`` (``classes``: the category names), filtered to
        ``numbers`` / ``categories``: items are ``(image tensor, class index)``.

    Examples
    --------
    >>> from toponeuro.stimuli import make_image_folder
    >>> root = make_image_folder(categories=("faces", "houses"), numbers=(1, 2, 3))
    >>> ds = image_folder_dataset(root, image_size=16, numbers=(1, 2))
    >>> len(ds), tuple(ds[0][0].shape), ds.classes
    (4, (3, 16, 16), ['faces', 'houses'])
    """
    from .._util.optional import import_torchvision

    import_torchvision("image_folder_dataset")
    from torchvision import datasets, transforms

    root = Path(path)
    classes = _category_folders(root, categories)

    from ..stimuli import IMAGE_EXTENSIONS, is_hidden, read_image

    def keep(p: str) -> bool:
        if not p.lower().endswith(IMAGE_EXTENSIONS) or is_hidden(p, root):
            return False
        if numbers is None:
            return True
        m = _NUMBER.search(os.path.basename(p))
        return bool(m) and numbers[0] <= int(m.group(1)) <= numbers[1]

    tf = [transforms.Grayscale(3)] if grayscale else []
    tf += [transforms.Resize((image_size, image_size), antialias=True)]
    if augment:
        tf += [transforms.RandomHorizontalFlip()]
    tf += [transforms.ToTensor(), transforms.Normalize(mean, std)]

    class _Folder(datasets.ImageFolder):
        def find_classes(self, directory):
            return classes, {c: i for i, c in enumerate(classes)}

    try:
        ds = _Folder(str(root), transform=transforms.Compose(tf), loader=read_image,
                     is_valid_file=keep)
    except (FileNotFoundError, ValueError) as err:  # torchvision: an empty class folder
        raise InvalidDataError(
            f"data.path={root} is not an image folder with one sub-folder of images per class "
            f"(classes found: {classes[:5]}; torchvision: {err}). Put each class's images in "
            "a sub-folder named after it, e.g. faces/face-1.jpg."
        ) from err
    if len(ds) == 0:
        raise InvalidDataError(f"No images in {root} match numbers={numbers}.")
    return ds
