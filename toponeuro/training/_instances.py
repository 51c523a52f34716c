"""Instance discrimination on a folder of images: decode once, augment whole batches.

Every image is its own class (fLoc images 1-96 of all 11 categories: 1,056 classes). The
images are decoded a single time into a ``uint8`` tensor, cached on disk under a key that
hashes the files' bytes and the decoding settings, and augmented on whole batches
(random resized crops, flips, small rotations and contrast jitter in one ``grid_sample``),
so an epoch costs seconds.
"""

from __future__ import annotations

import hashlib
import math
import numbers
import os
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch.utils.data import Dataset, TensorDataset

from .._io.output import save_torch
from .._util.docs import fill_doc
from .._util.params import (
    COUNT,
    NON_NEGATIVE,
    POSITIVE,
    Boolean,
    InstanceOf,
    Interval,
    PathLike,
    validate_params,
)
from ..exceptions import InvalidDataError, RecipeError
from ..models import load_torch_file
from ._data import _NUMBER, _category_folders

__all__ = ["decode_image_folder", "InstanceImages"]

_CACHE_FORMAT = "toponeuro-decoded-images-1"


def _image_files(root: Path, categories, numbers) -> list[tuple[str, int, Path]]:
    """``(category, number, path)`` of the images to use, ordered by category then number."""
    cats = _category_folders(root, categories)
    rows = []
    from ..stimuli import IMAGE_EXTENSIONS, is_hidden

    for cat in cats:
        for p in (root / cat).iterdir():
            m = _NUMBER.search(p.name)
            if not (p.suffix.lower() in IMAGE_EXTENSIONS and m) or is_hidden(p):
                continue
            n = int(m.group(1))
            if numbers is None or numbers[0] <= n <= numbers[1]:
                rows.append((cat, n, p))
    rows.sort(key=lambda r: (cats.index(r[0]), r[1]))
    if not rows:
        raise InvalidDataError(f"No images <category>-<N>.<ext> in {root} match numbers={numbers}.")
    return rows


@validate_params({"size": COUNT, "cache": Boolean(), "cache_dir": [PathLike(), None]})
@fill_doc
def decode_image_folder(
    path: str | os.PathLike,
    size: int,
    *,
    categories: list[str] | None = None,
    numbers: tuple[int, int] | None = None,
    cache: bool = True,
    cache_dir: str | os.PathLike | None = None,
) -> dict:
    """Decode grayscale images ``<category>/<category>-<N>.<ext>`` once into a tensor.

    Parameters
    ----------
    %(image_folder)s
    size : int
        Images are resized (antialiased, Lanczos) to ``size`` x ``size``.
    %(folder_categories)s
    %(folder_numbers)s
    cache : bool
        Read / write the decoded tensor at ``<cache root>/decoded/<key>.pt``; the key is a
        sha256 of every file's name and bytes and of ``size``, so changed images or settings
        never hit a stale entry.
    %(cache_dir)s
        Here: the cache root of the decoded images.

    Returns
    -------
    dict
        ``images`` (``uint8``, ``(n, 1, size, size)``), ``category`` (list of str),
        ``number`` (``int64`` tensor), ``key`` (the cache key) and ``cached`` (True when it
        was read from the cache).

    Examples
    --------
    >>> import tempfile
    >>> from toponeuro.stimuli import make_image_folder
    >>> root = make_image_folder(categories=("a", "b"), numbers=(1, 2, 3))
    >>> d = decode_image_folder(root, 8, numbers=(1, 2), cache_dir=tempfile.mkdtemp())
    >>> tuple(d["images"].shape), d["category"], d["number"].tolist()
    ((4, 1, 8, 8), ['a', 'a', 'b', 'b'], [1, 2, 1, 2])
    """
    from PIL import Image

    from ..stimuli import read_image

    rows = _image_files(Path(path), categories, numbers)
    h = hashlib.sha256(f"{_CACHE_FORMAT}|{int(size)}".encode())
    for cat, _n, p in rows:
        h.update(f"|{cat}/{p.name}|".encode())
        h.update(p.read_bytes())
    key = h.hexdigest()
    file = None
    if cache:
        from .._io.fetch import data_dir

        file = data_dir(cache_dir) / "decoded" / f"{key}.pt"
        if file.is_file():
            stored = load_torch_file(file)  # tensors and plain data only
            if stored.get("key") == key:
                return {**stored, "cached": True}
    images = np.empty((len(rows), 1, size, size), dtype=np.uint8)
    for i, (_, _, p) in enumerate(rows):
        # the one decoder (16-bit images by their range, corrupt files named), then luma
        im = read_image(p).convert("L").resize((size, size), Image.Resampling.LANCZOS)
        images[i, 0] = np.asarray(im, dtype=np.uint8)
    out = {
        "images": torch.from_numpy(images),
        "category": [r[0] for r in rows],
        "number": torch.tensor([r[1] for r in rows], dtype=torch.int64),
        "key": key,
    }
    if file is not None:
        file.parent.mkdir(parents=True, exist_ok=True)
        save_torch(out, file)
    return {**out, "cached": False}


class InstanceImages(Dataset):
    """Images whose class is their own index, with batched augmentation.

    Items are the stored ``uint8`` images (``(1, s, s)``) and their index; ``len`` is
    ``repeats`` x the number of images, so one epoch shows every image ``repeats`` times.
    :meth:`augment_batch` turns a batch of items into normalised ``(b, 3, image_size,
    image_size)`` float views; :meth:`views` makes a fixed set of such views (for instance
    accuracy on fresh augmentations).

    Parameters
    ----------
    images : uint8 tensor ``(n, 1, s, s)``
        The stored grayscale images; image ``i`` is class ``i``.
    image_size : int
        Side of the augmented views (the model's input).
    repeats : int
        Times each image appears in one epoch.
    scale : (float, float)
        Range of the crop's area as a fraction of the image (random resized crop).
    ratio : (float, float)
        Range of the crop's aspect ratio.
    rotation : float
        Rotations are drawn uniformly from ``[-rotation, rotation]`` degrees.
    flip : bool
        Mirror half of the views left-right.
    jitter : float
        Brightness and contrast are scaled by factors drawn from ``[1 - jitter, 1 + jitter]``.
    mean, std : float
        Normalisation after scaling pixels to ``[0, 1]``.

    Examples
    --------
    >>> ds = InstanceImages(torch.randint(0, 255, (5, 1, 16, 16), dtype=torch.uint8), 8)
    >>> x, y = ds[7]
    >>> len(ds), tuple(x.shape), int(y)
    (5, (1, 16, 16), 2)
    >>> batch = ds.augment_batch(torch.stack([ds[i][0] for i in range(5)]),
    ...                          torch.Generator().manual_seed(0))
    >>> tuple(batch.shape), batch.dtype
    ((5, 3, 8, 8), torch.float32)
    """

    @validate_params(dict(images=InstanceOf(torch.Tensor, "a torch.Tensor (uint8, (n, 1, s, s))", example=lambda: torch.zeros((1, 1, 4, 4), dtype=torch.uint8)),
                          image_size=COUNT, repeats=COUNT, rotation=NON_NEGATIVE, flip=Boolean(),
                          jitter=NON_NEGATIVE, mean=Interval(numbers.Real), std=POSITIVE))
    def __init__(
        self,
        images: torch.Tensor,
        image_size: int,
        *,
        repeats: int = 1,
        scale: tuple[float, float] = (0.35, 1.0),
        ratio: tuple[float, float] = (3 / 4, 4 / 3),
        rotation: float = 15.0,
        flip: bool = True,
        jitter: float = 0.2,
        mean: float = 0.5,
        std: float = 0.5,
    ):
        if images.dtype != torch.uint8 or images.ndim != 4 or images.shape[1] != 1:
            raise InvalidDataError(
                f"InstanceImages needs uint8 images (n, 1, s, s); got {images.dtype} "
                f"{tuple(images.shape)}. Decode them with decode_image_folder."
            )
        if not (0 < scale[0] <= scale[1] <= 1):
            raise RecipeError(f"scale must satisfy 0 < low <= high <= 1; got {scale}.")
        self.images = images
        self.image_size = int(image_size)
        self.repeats = int(repeats)
        self.scale, self.ratio = tuple(map(float, scale)), tuple(map(float, ratio))
        self.rotation, self.flip, self.jitter = float(rotation), bool(flip), float(jitter)
        self.mean, self.std = float(mean), float(std)
        self.labels = torch.arange(len(images))

    @property
    def n_classes(self) -> int:
        """Number of instances (= classes)."""
        return len(self.images)

    def __len__(self) -> int:
        return len(self.images) * self.repeats

    def __getitem__(self, i: int):
        j = int(i) % len(self.images)
        return self.images[j], self.labels[j]

    def augment_batch(self, x: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
        """Random resized crop + flip + rotation + contrast jitter of a ``uint8`` batch.

        Parameters
        ----------
        x : torch.Tensor
            ``(n, 1, s, s)`` uint8 images.
        generator : torch.Generator
            Source of the random augmentations.

        Returns
        -------
        torch.Tensor
            ``(n, 1, image_size, image_size)`` float images, normalised by ``mean`` and ``std``.
        """
        b = len(x)

        def u(lo, hi):
            return lo + (hi - lo) * torch.rand(b, generator=generator, dtype=torch.float64)

        area = u(*self.scale)
        log_r = u(math.log(self.ratio[0]), math.log(self.ratio[1]))
        r = torch.exp(log_r)
        sw = torch.sqrt(area * r).clamp(max=1.0)  # crop width / image width
        sh = torch.sqrt(area / r).clamp(max=1.0)
        cx = (2 * torch.rand(b, generator=generator, dtype=torch.float64) - 1) * (1 - sw)
        cy = (2 * torch.rand(b, generator=generator, dtype=torch.float64) - 1) * (1 - sh)
        th = torch.deg2rad(u(-self.rotation, self.rotation))
        f = torch.ones(b, dtype=torch.float64)
        if self.flip:
            f = torch.where(torch.rand(b, generator=generator) < 0.5, -f, f)
        cos, sin = torch.cos(th), torch.sin(th)
        theta = torch.stack(
            [
                torch.stack([sw * cos * f, -sh * sin, cx], 1),
                torch.stack([sw * sin * f, sh * cos, cy], 1),
            ],
            1,
        ).float()
        grid = F.affine_grid(theta, (b, 1, self.image_size, self.image_size), align_corners=False)
        out = F.grid_sample(
            x.float() / 255.0, grid, mode="bilinear", padding_mode="border", align_corners=False
        )
        if self.jitter > 0:
            c = u(1 - self.jitter, 1 + self.jitter).float().view(b, 1, 1, 1)
            br = u(1 - self.jitter, 1 + self.jitter).float().view(b, 1, 1, 1)
            m = out.mean(dim=(2, 3), keepdim=True)
            out = ((out - m) * c + m * br).clamp(0, 1)
        return ((out - self.mean) / self.std).expand(-1, 3, -1, -1).contiguous()

    def views(self, n_views: int = 1, seed: int = 0) -> TensorDataset:
        """``n_views`` augmented views of every image (fixed by ``seed``), labelled by index.

        Parameters
        ----------
        n_views : int
            Augmented views per image.
        seed : int
            Seed of the augmentations.

        Returns
        -------
        torch.utils.data.TensorDataset
            Images and their labels (the image's index).
        """
        gen = torch.Generator().manual_seed(int(seed))
        xs = [self.augment_batch(self.images, gen) for _ in range(int(n_views))]
        return TensorDataset(torch.cat(xs), self.labels.repeat(int(n_views)))
