"""Selecting and splitting a :class:`~toponeuro.stimuli.StimulusSet`: positions from an
index, group labels, the mask of a split. Each works on any set with ``ids``,
``categories``, ``domains`` and ``metadata``; the set's methods call them."""

from __future__ import annotations

import numpy as np

from ..exceptions import (
    DimensionError,
    InputTypeError,
    OutOfRangeError,
    ParameterError,
    UnknownNameError,
    close_matches,
)

__all__ = ["index_positions", "ids_positions", "group_labels", "split_mask"]


def _as_str_array(values, what: str) -> np.ndarray:
    arr = np.asarray(list(values), dtype=object)
    if arr.ndim != 1:
        raise DimensionError(f"{what} must be one-dimensional; got shape {arr.shape}.")
    return arr.astype(str)


def index_positions(idx, n: int) -> np.ndarray:
    """Positions ``0 .. n-1`` that ``idx`` (int, slice, int array or bool mask) selects.

    Examples
    --------
    >>> index_positions(-1, 4).tolist(), index_positions([True, False, True, False], 4).tolist()
    ([3], [0, 2])
    """
    if isinstance(idx, slice):
        return np.arange(n)[idx]
    if np.isscalar(idx) and not isinstance(idx, str | bytes):
        i = int(idx)
        if not -n <= i < n:
            raise OutOfRangeError(f"stimulus index {i} out of range for {n} stimuli")
        return np.array([i % n])
    arr = np.asarray(idx)
    if arr.dtype == bool:
        if arr.shape != (n,):
            raise DimensionError(
                f"A boolean mask must have one value per stimulus ({n}); got shape "
                f"{arr.shape}."
            )
        return np.flatnonzero(arr)
    if arr.size == 0:
        return np.zeros(0, dtype=int)
    if not np.issubdtype(arr.dtype, np.integer):
        raise InputTypeError(
            f"Index stimuli with ints, a slice, int arrays or a boolean mask; got {arr.dtype}."
            " To select by id use s.select(ids)."
        )
    if (arr >= n).any() or (arr < -n).any():
        raise OutOfRangeError(f"stimulus indices out of range for {n} stimuli")
    return arr % n


def ids_positions(have, ids) -> np.ndarray:
    """Positions of ``ids`` among the set's ids ``have``, in the order of ``ids``.

    Examples
    --------
    >>> ids_positions(["a", "b", "c"], ["c", "a"]).tolist()
    [2, 0]
    """
    pos = {s: i for i, s in enumerate(have)}
    ids = _as_str_array(ids, "ids")
    missing = [s for s in ids if s not in pos]
    if missing:
        raise UnknownNameError(
            f"{len(missing)} ids are not in this StimulusSet (e.g. {missing[:3]}); "
            f"{close_matches(missing[0], have)}"
        )
    return np.array([pos[s] for s in ids], dtype=int)


def group_labels(stimuli, by: str) -> np.ndarray:
    """Each stimulus' group: its ``"category"``, fLoc ``"domain"`` or a metadata column.

    Examples
    --------
    >>> from toponeuro.stimuli import StimulusSet
    >>> s = StimulusSet(["a", "b"], ["p", "q"], "text", categories=["child", "house"])
    >>> group_labels(s, "domain").tolist()
    ['faces', 'places']
    """
    if by == "category":
        labels = stimuli.categories
    elif by == "domain":
        labels = stimuli.domains
    elif by in stimuli.metadata.columns:
        labels = stimuli.metadata[by].astype(str).to_numpy()
    else:
        raise UnknownNameError(
            f"Cannot group stimuli by {by!r}: {close_matches(by, ['category', 'domain', *stimuli.metadata.columns])}"
        )
    if labels is None:
        raise ParameterError(
            f"This StimulusSet has no categories, so it cannot be split by {by!r}; pass "
            "categories= when building it."
        )
    return labels


def split_mask(stimuli, indices=None, *, categories=None, domains=None) -> np.ndarray:
    """Mask of the first part of a split: the stimuli at ``indices``, or of these
    ``categories`` or fLoc ``domains`` (one of the three).

    Examples
    --------
    >>> from toponeuro.stimuli import StimulusSet
    >>> s = StimulusSet(list("abc"), list("ABC"), "text", categories=["u", "v", "u"])
    >>> split_mask(s, categories="u").tolist(), split_mask(s, slice(0, 1)).tolist()
    ([True, False, True], [True, False, False])
    """
    if indices is not None:
        mask = np.zeros(len(stimuli), dtype=bool)
        mask[index_positions(indices, len(stimuli))] = True
        return mask
    key = "category" if categories is not None else "domain"
    wanted = _as_str_array(
        [categories] if isinstance(categories, str) else categories
        if categories is not None
        else [domains] if isinstance(domains, str) else domains,
        key,
    )
    labels = group_labels(stimuli, key)
    unknown = [w for w in wanted if w not in set(labels)]
    if unknown:
        raise UnknownNameError(
            f"No stimulus has {key} {unknown[0]!r}; "
            f"{close_matches(unknown[0], np.unique(labels))}"
        )
    return np.isin(labels, wanted)
