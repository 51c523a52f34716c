"""StimulusSet: ids, image paths or texts, categories and metadata for a set of stimuli."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from numbers import Integral

import numpy as np
import pandas as pd

from .._util import dims as D
from .._util.constraints import ArrayLike, Names
from .._util.docs import fill_doc
from .._util.params import SEED, Interval, Options, Text, validate_params
from ..exceptions import (
    AlignmentError,
    DimensionError,
    InputTypeError,
    InvalidDataError,
    OutOfRangeError,
    UnknownNameError,
    close_matches,
)
from ._identity import _is_tensor, stimulus_hash
from ._selection import _as_str_array, group_labels, ids_positions, index_positions, split_mask

__all__ = [
    "StimulusSet",
    "FLOC_CATEGORIES",
    "FLOC_DOMAINS",
    "FLOC_DOMAIN_OF",
    "STIMULUS_KINDS",
    "make_stimulus_set",
]

STIMULUS_KINDS = ("image", "text")

#: The 11 fLoc categories (Stigliani et al., 2015), in the order of the fLoc repository.
FLOC_CATEGORIES = (
    "adult",
    "child",
    "body",
    "limb",
    "corridor",
    "house",
    "word",
    "number",
    "car",
    "instrument",
    "scrambled",
)

#: fLoc domain -> its two categories; ``scrambled`` is a domain of its own.
FLOC_DOMAINS = {
    "faces": ("adult", "child"),
    "bodies": ("body", "limb"),
    "places": ("corridor", "house"),
    "characters": ("word", "number"),
    "objects": ("car", "instrument"),
    "scrambled": ("scrambled",),
}

#: fLoc category -> domain.
FLOC_DOMAIN_OF = {c: d for d, cats in FLOC_DOMAINS.items() for c in cats}


def _item_kind(item) -> str:
    if isinstance(item, str):
        return "image" if os.path.isfile(item) else "text"
    if isinstance(item, os.PathLike) or (hasattr(item, "shape") and hasattr(item, "dtype")):
        return "image"
    from PIL import Image

    if isinstance(item, Image.Image):
        return "image"
    raise InvalidDataError(
        f"Cannot use a {type(item).__name__} as a stimulus; expected an image path, a PIL "
        "image, a tensor (C, H, W), a text string, or a toponeuro StimulusSet."
    )


def _in_memory(item):
    """Loader of :meth:`StimulusSet.from_items`: files are opened, arrays become tensors."""
    if isinstance(item, str | os.PathLike):
        from ._image import read_image

        return read_image(item)
    if isinstance(item, np.ndarray):
        import torch

        return torch.from_numpy(item)
    return item


def _checked_fields(ids, items, kind: str, categories, metadata):
    """The constructor's checks: ``(ids, items, categories, metadata)`` as a
    :class:`StimulusSet` holds them, or a typed error naming the fix."""
    if kind not in STIMULUS_KINDS:
        raise UnknownNameError(
            f"Unknown stimulus kind {kind!r}; expected one of {STIMULUS_KINDS} "
            f"({close_matches(str(kind), STIMULUS_KINDS)})."
        )
    ids = _as_str_array(ids, "ids")
    items = list(items)
    if len(items) != len(ids):
        raise DimensionError(
            f"Got {len(ids)} ids but {len(items)} items; give exactly one item per id."
        )
    u, c = np.unique(ids, return_counts=True)
    if (c > 1).any():
        dup = u[c > 1]
        raise AlignmentError(
            f"Stimulus ids must be unique; {len(dup)} ids repeat (e.g. {dup[:5].tolist()}). "
            "Give each stimulus its own id (e.g. append the file name or a counter)."
        )
    if categories is not None:
        categories = _as_str_array(categories, "categories")
        if len(categories) != len(ids):
            raise DimensionError(
                f"Got {len(ids)} ids but {len(categories)} categories; give one category "
                "per stimulus (or categories=None)."
            )
    return ids, items, categories, _stimulus_metadata(metadata, ids, categories)


def _stimulus_metadata(metadata, ids: np.ndarray, categories) -> pd.DataFrame:
    """One row per stimulus, ``stimulus_id`` and ``category`` first (checked when given)."""
    if metadata is None:
        metadata = pd.DataFrame(index=pd.RangeIndex(len(ids)))
    else:
        metadata = pd.DataFrame(metadata).reset_index(drop=True)
        if len(metadata) != len(ids):
            raise DimensionError(
                f"metadata has {len(metadata)} rows for {len(ids)} stimuli; give one row "
                "per stimulus, in the order of ids."
            )
    metadata = metadata.copy()
    for col, values in ((D.STIMULUS_ID, ids), (D.CATEGORY, categories)):
        if col in metadata.columns and values is not None:
            have = metadata[col].astype(str).to_numpy()
            if not np.array_equal(have, values):
                raise AlignmentError(
                    f"metadata[{col!r}] disagrees with the {col} given (first difference "
                    f"at row {int(np.argmax(have != values))}); drop the column or fix "
                    "its order."
                )
        metadata[col] = values
    first = [D.STIMULUS_ID, D.CATEGORY]
    return metadata[first + [c for c in metadata.columns if c not in first]]


class StimulusSet:
    """An ordered set of stimuli: unique ids, image files or texts, categories, metadata.

    Parameters
    ----------
    ids : sequence of str
        One unique id per stimulus (the ``stimulus_id`` every labelled array is aligned on).
    items : sequence
        Image file paths (``kind="image"``), texts (``kind="text"``), or whatever ``loader``
        turns into an image or a text.
    kind : {"image", "text"}
    categories : sequence of str, optional
        One category per stimulus.
    metadata : pandas.DataFrame, optional
        One row per stimulus, in the order of ``ids``; columns ``stimulus_id`` and
        ``category`` are added (or checked when present).
    name : str, optional
        A short name, e.g. ``"floc"``.
    loader : callable, optional
        ``loader(item)`` returns the stimulus (a PIL image or array for images, a str for
        texts); without one, image items are opened as files.
    labels : sequence of str, optional
        Metadata columns that label each stimulus (e.g. ``human``, ``face`` from a
        stimulus table, :func:`load_stimulus_table`): :meth:`coords` includes them, so an
        array given ``assign_coords(stimuli.coords())`` carries them too.

    Attributes
    ----------
    ids : numpy.ndarray of str
    items : list
    kind : str
    categories : numpy.ndarray of str or None
    metadata : pandas.DataFrame
    name : str or None
    labels : tuple of str

    Examples
    --------
    >>> s = StimulusSet(["a", "b", "c"], ["one", "two", "three"], kind="text",
    ...                 categories=["x", "y", "x"], name="demo")
    >>> len(s), s.get(1), s[[0, 2]].ids.tolist()
    (3, 'two', ['a', 'c'])
    >>> inside, rest = s.split(categories=["x"])
    >>> inside.ids.tolist(), rest.ids.tolist()
    (['a', 'c'], ['b'])
    >>> s.metadata.columns.tolist()
    ['stimulus_id', 'category']
    """

    @validate_params(dict(ids=ArrayLike(ndim=1),
                          categories=[ArrayLike(ndim=1), None],
                          name=[Text(), None], loader=["callable", None], labels=[Names(), None]))
    def __init__(
        self,
        ids: Sequence[str],
        items: Sequence,
        kind: str,
        categories: Sequence[str] | None = None,
        metadata: pd.DataFrame | None = None,
        name: str | None = None,
        loader: Callable | None = None,
        labels: Sequence[str] | None = None,
    ):
        self.ids, self.items, self.categories, self.metadata = _checked_fields(
            ids, items, kind, categories, metadata)
        self.kind, self.name, self.loader = kind, name, loader
        self.labels = tuple(str(c) for c in (labels or ()))
        absent = [c for c in self.labels if c not in self.metadata.columns]
        if absent or set(self.labels) & {D.STIMULUS_ID, D.CATEGORY}:
            raise UnknownNameError(
                f"labels must name metadata columns other than stimulus_id and category; "
                f"{absent or sorted(set(self.labels) & {D.STIMULUS_ID, D.CATEGORY})} are not "
                f"({close_matches(str((absent or [''])[0]), self.metadata.columns)})"
            )
        self._hash: str | None = None

    @classmethod
    def from_items(
        cls,
        items,
        ids: Sequence[str] | None = None,
        *,
        kind: str | None = None,
        categories: Sequence[str] | None = None,
        metadata: pd.DataFrame | None = None,
        name: str | None = None,
    ) -> StimulusSet:
        """A StimulusSet from a list of image paths, PIL images, tensors or texts.

        What :func:`toponeuro.features.extract` does with a plain list. Strings that name an
        existing file are image paths, other strings are texts (mixing both raises). Tensors
        and arrays are ``(C, H, W)`` model inputs passed on as given (no preprocessing); a
        ``(N, C, H, W)`` batch is one stimulus per row.

        Parameters
        ----------
        items : sequence or batch tensor
            Image paths, PIL images, ``(C, H, W)`` tensors or arrays, or texts.
        ids : sequence of str, optional
            Default ``"stim-0000"``, ``"stim-0001"``, ...
        kind : {"image", "text"}, optional
            Inferred from the items when not given.
        categories, metadata, name : optional
            As for :class:`StimulusSet`.

        Examples
        --------
        >>> s = StimulusSet.from_items(["a face", "a house"])
        >>> s.kind, s.ids.tolist(), s.get(1)
        ('text', ['stim-0000', 'stim-0001'], 'a house')
        >>> from PIL import Image
        >>> StimulusSet.from_items([Image.new("L", (4, 4))], ids=["grey"]).get(0).mode
        'RGB'
        """
        if isinstance(items, str | os.PathLike):
            raise InvalidDataError(
                f"Got a single {type(items).__name__} {str(items)!r}; pass a list of stimuli "
                "(e.g. [path] or [text]), or load a folder with toponeuro.stimuli."
            )
        if getattr(items, "ndim", None) == 4:  # a (N, C, H, W) batch: one stimulus per row
            items = list(items)
        try:
            items = list(items)
        except TypeError as err:
            raise InvalidDataError(
                f"Stimuli must be iterable; got {type(items).__name__}."
            ) from err
        if not items:
            raise InvalidDataError(
                "No stimuli: the stimulus list is empty. Pass at least one image path, PIL "
                "image, tensor or text (or a non-empty StimulusSet)."
            )
        kinds = {_item_kind(x) for x in items}
        if len(kinds) > 1:
            raise InvalidDataError(
                "Stimuli mix images and texts (a string that is not an existing file is read "
                "as text); pass only image paths/images/tensors or only texts."
            )
        kind = kind or kinds.pop()
        if ids is None:
            ids = [f"stim-{i:04d}" for i in range(len(items))]
        on_disk = all(isinstance(x, str | os.PathLike) for x in items)
        loader = None if kind == "text" or on_disk else _in_memory
        return cls(ids, items, kind, categories, metadata, name, loader)

    # -- basics ---------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.ids)

    def __repr__(self) -> str:
        cats = "" if self.categories is None else f", {len(np.unique(self.categories))} categories"
        name = f"{self.name!r}, " if self.name else ""
        return f"StimulusSet({name}{len(self)} {self.kind} stimuli{cats})"

    def __iter__(self):
        """Iterate over the loaded stimuli (what :meth:`get` returns)."""
        for i in range(len(self)):
            yield self.get(i)

    def get(self, i: int):
        """Load stimulus ``i``: a RGB :class:`PIL.Image.Image` for images, a str for texts.

        Tensors (from :meth:`from_items`) are returned as given.

        Parameters
        ----------
        i : int
            Position of the stimulus (negative counts from the end).

        Returns
        -------
        PIL.Image.Image, str or torch.Tensor
            The stimulus.

        Examples
        --------
        >>> s = make_stimulus_set(n_per_category=1, categories=("faces",), size=16)
        >>> s.get(0).size, s.get(0).mode
        ((16, 16), 'RGB')
        """
        i = int(i)
        if not -len(self) <= i < len(self):
            raise OutOfRangeError(f"stimulus index {i} out of range for {len(self)} stimuli")
        item = self.items[i]
        obj = self.loader(item) if self.loader is not None else item
        if self.kind == "text":
            return str(obj)
        if _is_tensor(obj):  # a (C, H, W) model input (from_items) passes as given
            return obj
        from ._image import read_image

        where = f"{obj} " if isinstance(obj, (str, os.PathLike)) else ""
        return read_image(obj, what=f"{where}(stimulus {str(self.ids[i])!r})")

    def __getitem__(self, idx) -> StimulusSet:
        """A new StimulusSet with the stimuli at ``idx`` (int, slice, int array, bool mask)."""
        pos = index_positions(idx, len(self))
        return StimulusSet(
            self.ids[pos],
            [self.items[i] for i in pos],
            self.kind,
            None if self.categories is None else self.categories[pos],
            self.metadata.iloc[pos].reset_index(drop=True),
            self.name,
            self.loader,
            self.labels,
        )

    def select(self, ids: Sequence[str]) -> StimulusSet:
        """The stimuli with the given ids, in that order (unknown ids raise).

        Parameters
        ----------
        ids : sequence of str
            Stimulus ids.

        Returns
        -------
        StimulusSet
            The selected stimuli.

        Examples
        --------
        >>> s = StimulusSet(["a", "b"], ["A", "B"], kind="text")
        >>> s.select(["b"]).items
        ['B']
        """
        return self[ids_positions(self.ids, ids)]

    # -- categories -----------------------------------------------------------------------
    @property
    def domains(self) -> np.ndarray | None:
        """The fLoc domain of each stimulus (faces, bodies, places, characters, objects,
        scrambled); categories outside fLoc keep their own name. ``None`` without categories.

        Examples
        --------
        >>> s = StimulusSet(["a", "b"], ["p", "q"], "text", categories=["child", "house"])
        >>> s.domains.tolist()
        ['faces', 'places']
        """
        if self.categories is None:
            return None
        return np.array([FLOC_DOMAIN_OF.get(c, c) for c in self.categories], dtype=str)

    def split(self, indices=None, *, categories=None, domains=None, by: str | None = None):
        """Split the set by position, by category/domain, or into one set per group.

        Parameters
        ----------
        indices : int array, slice or bool mask, optional
            Stimuli of the first part; the second part is everything else (in order).
        categories, domains : sequence of str, optional
            Put the stimuli of these categories (or fLoc domains) in the first part.
        by : str, optional
            ``"category"``, ``"domain"`` or a metadata column: return a dict
            ``{value: StimulusSet}`` in order of first appearance.

        Returns
        -------
        (StimulusSet, StimulusSet) or dict
            The two parts, or ``{value: StimulusSet}`` with ``by``.

        Examples
        --------
        >>> s = StimulusSet(list("abcd"), list("ABCD"), "text", categories=["u", "v", "u", "v"])
        >>> first, rest = s.split(slice(0, 1))
        >>> first.ids.tolist(), rest.ids.tolist()
        (['a'], ['b', 'c', 'd'])
        >>> {k: v.ids.tolist() for k, v in s.split(by="category").items()}
        {'u': ['a', 'c'], 'v': ['b', 'd']}
        """
        given = sum(x is not None for x in (indices, categories, domains, by))
        if given != 1:
            raise InputTypeError("Give exactly one of indices, categories=, domains= or by=.")
        if by is not None:
            labels = group_labels(self, by)
            _, first = np.unique(labels, return_index=True)
            order = labels[np.sort(first)]
            return {str(k): self[labels == k] for k in order}
        mask = split_mask(self, indices, categories=categories, domains=domains)
        return self[mask], self[~mask]

    # -- identity -------------------------------------------------------------------------
    def content_hash(self) -> str:
        """The sha256 (hex) over kind, ids, and each stimulus' content, computed once.

        Image files contribute their bytes; texts their UTF-8; stimuli produced by a
        ``loader`` (in-memory images and tensors included) contribute the pixels (or text)
        it returns. This is toponeuro's one stimulus content hash. The hash changes when any
        id, order, file or text changes, and keys the feature-extraction cache. Image files
        are read again on every call (a file edited since the last call changes the hash);
        other stimuli are hashed once.

        Returns
        -------
        str
            64 hex digits.

        Examples
        --------
        >>> a = StimulusSet(["a"], ["hello"], "text")
        >>> b = StimulusSet(["a"], ["hello!"], "text")
        >>> a.content_hash() == b.content_hash(), len(a.content_hash())
        (False, 64)
        """
        if self.kind == "image" and self.loader is None:  # files: their bytes as they are now
            return stimulus_hash(self.kind, self.ids, self.items, self.loader)
        if self._hash is None:
            self._hash = stimulus_hash(self.kind, self.ids, self.items, self.loader)
        return self._hash

    def align(self, da, what: str = "array"):
        """Reorder ``da`` (any DataArray with a ``stimulus`` dim and ``stimulus_id`` coord) to
        this set's order: an exact join via :func:`toponeuro._util.align.align_stimuli`.

        Raises :class:`~toponeuro.exceptions.AlignmentError` when the ids differ or repeat.

        Parameters
        ----------
        da : xarray.DataArray
            Data with a ``stimulus`` dim and a ``stimulus_id`` coord.
        what : str
            What ``da`` is, in the error message.

        Returns
        -------
        xarray.DataArray
            ``da`` in this set's order.

        Examples
        --------
        >>> import xarray as xr
        >>> s = StimulusSet(["a", "b"], ["A", "B"], "text")
        >>> da = xr.DataArray([2, 1], dims="stimulus", coords={"stimulus_id": ("stimulus", ["b", "a"])})
        >>> s.align(da).values.tolist()
        [1, 2]
        """
        import xarray as xr

        from .._util.align import align_stimuli

        ref = xr.DataArray(np.arange(len(self)), dims=D.STIMULUS, coords=self.coords())
        return align_stimuli(ref, da, names=(f"StimulusSet {self.name or ''}".strip(), what))[1]

    def coords(self) -> dict:
        """Stimulus coordinates for an xarray object with a ``stimulus`` dim.

        Returns
        -------
        dict
            Coordinate name -> ``("stimulus", values)``.

        Examples
        --------
        >>> s = StimulusSet(["a", "b"], ["A", "B"], "text", categories=["u", "v"])
        >>> sorted(s.coords())
        ['category', 'stimulus_id']
        """
        out = {D.STIMULUS_ID: (D.STIMULUS, self.ids)}
        if self.categories is not None:
            out[D.CATEGORY] = (D.STIMULUS, self.categories)
        for col in self.labels:
            out[col] = (D.STIMULUS, self.metadata[col].to_numpy())
        return out


# -- synthetic stimuli ------------------------------------------------------------------
_ORIENT = {  # one grating orientation (degrees) per synthetic category
    "faces": 0.0,
    "bodies": 36.0,
    "places": 72.0,
    "characters": 108.0,
    "objects": 144.0,
}


class _GratingLoader:
    """Render item ``(category_angle, seed, size)`` as a noisy oriented grating (uint8 RGB)."""

    def __call__(self, item):
        angle, seed, size = item
        rng = np.random.default_rng(seed)
        yy, xx = np.mgrid[0:size, 0:size] / size
        t = np.deg2rad(angle)
        img = np.sin(2 * np.pi * 4 * (np.cos(t) * xx + np.sin(t) * yy) + rng.uniform(0, 2 * np.pi))
        img = 0.7 * img + 0.3 * rng.standard_normal((size, size))
        img = np.clip((img + 1.5) / 3.0 * 255, 0, 255).astype(np.uint8)
        return np.repeat(img[:, :, None], 3, axis=2)


@fill_doc
@validate_params({
    "n_per_category": Interval(Integral, 1, None, closed="left"),
    "kind": Options(STIMULUS_KINDS, error=UnknownNameError),
    "size": Interval(Integral, 1, None, closed="left", fix="size is in pixels."),
    "random_state": SEED,
})
def make_stimulus_set(
    n_per_category: int = 4,
    categories: Sequence[str] = ("faces", "bodies", "places", "characters", "objects"),
    *,
    kind: str = "image",
    size: int = 32,
    random_state: int = 0,
) -> StimulusSet:
    """Synthetic stimuli with known category structure (no files needed).

    Images are noisy gratings whose orientation depends on the category (so category is
    decodable from pixels); texts are sentences built from a per-category vocabulary.

    Parameters
    ----------
    n_per_category : int
        Stimuli of each category.
    categories : sequence of str
        The categories, in order.
    kind : {"image", "text"}
        Gratings or sentences.
    size : int
        Side of the images.
    %(random_state)s

    Returns
    -------
    StimulusSet
        Ids ``"<category>-<i>"``, named ``"synthetic"``.

    Examples
    --------
    >>> s = make_stimulus_set(n_per_category=2, categories=("faces", "places"))
    >>> s.ids.tolist(), s.categories.tolist()
    (['faces-0', 'faces-1', 'places-0', 'places-1'], ['faces', 'faces', 'places', 'places'])
    >>> make_stimulus_set(1, ("faces",), kind="text").get(0)
    'the smiling face looked at a friendly face'
    """
    categories = list(categories)
    ids, cats, items = [], [], []
    for ci, cat in enumerate(categories):
        for j in range(int(n_per_category)):
            ids.append(f"{cat}-{j}")
            cats.append(cat)
            if kind == "image":
                angle = _ORIENT.get(cat, (ci * 180.0 / max(len(categories), 1)) % 180)
                items.append((angle, int(random_state) * 100003 + ci * 1009 + j, int(size)))
            else:
                word = cat.rstrip("s") if cat.endswith("s") else cat
                adjs = ["smiling", "friendly", "quiet", "bright", "small", "old"]
                rng = np.random.default_rng(int(random_state) * 100003 + ci * 1009 + j)
                a, b = rng.choice(adjs, 2, replace=False) if j else (adjs[0], adjs[1])
                items.append(f"the {a} {word} looked at a {b} {word}")
    loader = _GratingLoader() if kind == "image" else None
    return StimulusSet(ids, items, kind, categories=cats, name="synthetic", loader=loader)
