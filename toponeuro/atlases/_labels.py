"""Regions of a label file (or of a map of region ids) as a domain's 0/1 map.

A lab's ROIs often come as a parcellation: a GIFTI label array (``.label.gii``), a CIFTI
``.dlabel.nii``, a FreeSurfer ``.annot`` (each with its table of region names), or a map of
region ids without names (an MGH or NIfTI of integers, such as the language parcels here).
Its values are ids, not a statistic: region 12 is not "more" than region 3. So a label file
is read only with the regions of the domain named, ``PATH#NAME`` (several: ``#A+B``; an id
instead of a name: ``#12``), and becomes 1 inside those regions and 0 elsewhere (NaN where
the file has no data); a label file without them is a typed error that lists its regions.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from ..exceptions import InvalidDataError, UnknownNameError, close_matches

__all__ = ["LABEL_SEPARATOR", "split_labels", "region_map"]

#: between a file and the regions of a domain's ROI in it: ``lh.aparc.annot#fusiform``
LABEL_SEPARATOR = "#"
#: between the regions: ``visf.dlabel.nii#mFus-faces+pFus-faces``
_AND = "+"
#: how many region names an error lists
_SHOWN = 12


def split_labels(spec, what: str):
    """``(path, regions)`` of ``PATH#NAME[+NAME...]``; ``(spec, None)`` for anything else.

    A path that exists as a file is that file, ``#`` and all.

    Examples
    --------
    >>> split_labels("lh.aparc.annot#fusiform+lingual", "cortex_maps['faces']")
    ('lh.aparc.annot', ('fusiform', 'lingual'))
    >>> split_labels("lh.faces.func.gii", "cortex_maps['faces']")
    ('lh.faces.func.gii', None)
    """
    if not isinstance(spec, (str, os.PathLike)):
        return spec, None
    text = os.fspath(spec)
    if LABEL_SEPARATOR not in text or Path(text).expanduser().is_file():
        return spec, None
    path, _, chosen = text.rpartition(LABEL_SEPARATOR)
    regions = tuple(r.strip() for r in chosen.split(_AND) if r.strip())
    if not path or not regions:
        raise InvalidDataError(
            f"{what}: {text!r} names no region after {LABEL_SEPARATOR!r}; write "
            f"PATH{LABEL_SEPARATOR}NAME (several: PATH{LABEL_SEPARATOR}A{_AND}B; an id: "
            f"PATH{LABEL_SEPARATOR}12)."
        )
    return path, regions


def _listing(table: dict) -> str:
    names = [f"{n} ({k})" for k, n in sorted(table.items())]
    more = f", ... ({len(names)} in all)" if len(names) > _SHOWN else ""
    return ", ".join(names[:_SHOWN]) + more


def region_map(values: np.ndarray, table: dict | None, regions, what: str,
               path: str | os.PathLike) -> np.ndarray:
    """The 0/1 map of ``regions`` in a file of region ids (NaN stays NaN).

    Parameters
    ----------
    values : numpy.ndarray
        The file's region ids per vertex (or voxel).
    table : dict or None
        Region id -> name (the file's label table), None for a map of ids without names.
    regions : sequence of str or None
        Names (or ids, as text) of the regions that make the ROI; None: none were named.
    what : str
        How the map is named in messages (``"cortex_maps['faces']"``).
    path : path-like
        The file, for messages.

    Returns
    -------
    numpy.ndarray
        1.0 inside the regions, 0.0 elsewhere, NaN where ``values`` is NaN; ``values``
        unchanged when ``table`` and ``regions`` are both None.

    Raises
    ------
    InvalidDataError
        A label file without regions named (the message lists them), or ids picked from a
        map whose values are not whole numbers.
    UnknownNameError
        A region the table does not hold (with the close matches).

    Examples
    --------
    >>> ids = np.array([0.0, 1, 2, 2, np.nan])
    >>> region_map(ids, {0: "unknown", 1: "fusiform", 2: "lingual"}, ["lingual"], "faces",
    ...            "lh.aparc.annot")
    array([ 0.,  0.,  1.,  1., nan])
    >>> region_map(ids, None, ["1", "2"], "faces", "lh.parcels.mgh")
    array([ 0.,  1.,  1.,  1., nan])
    """
    name = Path(os.fspath(path)).name
    if regions is None:
        if table is None:
            return values
        first = next((n for k, n in sorted(table.items()) if k > 0), next(iter(table.values())))
        raise InvalidDataError(
            f"{what}: {name!r} is a label file: its values are region ids ({_listing(table)}), "
            f"not a map to compare. Name the regions of this domain's ROI after "
            f"{LABEL_SEPARATOR!r}: '{name}{LABEL_SEPARATOR}{first}' (several: "
            f"'{LABEL_SEPARATOR}A{_AND}B'); it becomes 1 inside them and 0 elsewhere, so give "
            "a patch threshold of 0.5 (cortex_threshold=0.5)."
        )
    values = np.asarray(values, dtype=float)
    fin = values[np.isfinite(values)]
    if table is None and not np.array_equal(fin, np.round(fin)):
        raise InvalidDataError(
            f"{what}: {name!r} holds values that are not whole numbers, so it is not a map of "
            f"region ids and {LABEL_SEPARATOR}{_AND.join(regions)} picks nothing in it; give "
            "it without a region (a map of values), or give the parcellation file."
        )
    by_name = {n: k for k, n in (table or {}).items()}
    keys = []
    for r in regions:
        if r in by_name:
            keys.append(by_name[r])
        elif r.lstrip("-").isdigit() and (table is None or int(r) in table):
            keys.append(int(r))
        elif table is None:
            raise InvalidDataError(
                f"{what}: {name!r} has no table of region names, so its regions are picked by "
                f"id ({LABEL_SEPARATOR}12); got {r!r}. Its ids: "
                f"{', '.join(str(int(k)) for k in np.unique(fin)[:_SHOWN])}"
                f"{' ...' if np.unique(fin).size > _SHOWN else ''}."
            )
        else:
            raise UnknownNameError(
                f"{what}: {name!r} has no region {r!r}; {close_matches(r, list(by_name))} Its "
                f"regions: {_listing(table)}."
            )
    out = np.isin(values, keys).astype(float)
    out[np.isnan(values)] = np.nan
    return out
