"""Regions of a label file (or of a map of region ids) as a domain's 0/1 map.

A lab's ROIs often come as a parcellation: a GIFTI label array (``.label.gii``), a CIFTI
``.dlabel.nii``, a FreeSurfer ``.annot`` (each with its table of region names), or a map of
region ids without names (an MGH or NIfTI of integers, such as the language parcels here).
Its values are ids, not a statistic: region 12 is not "more" than region 3. So a label file
is read only with the regions of the domain named, ``PATH#NAME`` (several: ``#A+B``; an id
instead of a name: ``#12``), and becomes 1 inside those regions and 0 elsewhere (NaN where
the file has no data); a label file without them is a typed error that lists its regions.

A FreeSurfer ``.label`` (``lh.FFA.label``) is one region already, its vertices listed: it is
read on fsaverage (the listed vertices below 10,242 are fsaverage5's, the meshes being
nested), and its vertex coordinates are checked against fsaverage's surfaces, since a label
drawn on a subject's own surface lists vertices of another mesh.

A map of region ids named as BIDS names a segmentation (``..._dseg.nii.gz``,
``..._dseg.label.gii``) takes its names from its BIDS lookup table beside it, the same name
with ``.tsv`` (columns ``index`` and ``name``): it is then a label file like the others.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import numpy as np

from .._io.meshes import MESHES, mesh_surface
from .._io.reading import check_input_file
from .._util.stack import user_stacklevel
from ..exceptions import (
    ImplausibleValueWarning,
    InvalidDataError,
    MissingFileError,
    UnknownNameError,
    UnreadableFileError,
    close_matches,
)

__all__ = ["LABEL_SEPARATOR", "split_labels", "region_map", "freesurfer_label_map",
           "FREESURFER_LABEL_SUFFIX", "bids_label_table"]

#: a FreeSurfer label: one region, its vertices listed (``lh.FFA.label``)
FREESURFER_LABEL_SUFFIX = ".label"
#: how far (mm, median) a label's vertex coordinates may lie from fsaverage5's surfaces at the
#: same vertices before it is taken for a label on another surface (a subject's own)
LABEL_COORD_TOLERANCE_MM = 1.0

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
            ids = np.unique(fin)
            raise InvalidDataError(
                f"{what}: {name!r} has no table of region names, so its regions are picked by "
                f"id ({LABEL_SEPARATOR}12); got {r!r}. Its ids: "
                f"{', '.join(str(int(k)) for k in ids[:_SHOWN])}"
                f"{' ...' if ids.size > _SHOWN else ''}."
            )
        else:
            raise UnknownNameError(
                f"{what}: {name!r} has no region {r!r}; {close_matches(r, list(by_name))} Its "
                f"regions: {_listing(table)}."
            )
    out = np.isin(values, keys).astype(float)
    out[np.isnan(values)] = np.nan
    return out


def freesurfer_label_map(path: str | os.PathLike, hemi: str, what: str) -> np.ndarray:
    """The fsaverage5 0/1 map of a FreeSurfer ``.label`` on fsaverage (fsaverage5, 6 or 7).

    The file lists ``vertex x y z value`` per row (FreeSurfer's ASCII label). fsaverage's
    icosahedral meshes are nested, so its vertices below 10,242 are fsaverage5's: the map is
    1 at the listed ones. The coordinates are compared with fsaverage5's white, pial, inflated
    and sphere surfaces at those vertices; a label whose coordinates match none (median over
    :data:`LABEL_COORD_TOLERANCE_MM`) lists vertices of another surface (a subject's own, or
    fs_LR) and warns; a vertex beyond fsaverage's 163,842 is refused.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from toponeuro._io.meshes import mesh_surface
    >>> xyz = mesh_surface("fsaverage5", "white", "left")[0]
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "lh.roi.label"
    >>> rows = "\\n".join(f"{v} {x:.3f} {y:.3f} {z:.3f} 0" for v, (x, y, z) in
    ...                   zip([3, 7], xyz[[3, 7]]))
    >>> _ = p.write_text(f"#!ascii label, from subject fsaverage\\n2\\n{rows}\\n")
    >>> m = freesurfer_label_map(p, "left", "cortex_maps['faces']")
    >>> m.shape, np.flatnonzero(m).tolist()
    ((10242,), [3, 7])
    """
    path = Path(os.fspath(path)).expanduser()
    if not path.is_file():
        raise MissingFileError(f"{what}: the label file {str(path)!r} does not exist.")
    check_input_file(path, kind="FreeSurfer label (.label)", where=what,
                     fix="export the label again (mri_label2label / tksurfer)")
    try:
        with open(path, encoding="utf-8") as f:
            head = [f.readline(), f.readline()]
        rows = np.loadtxt(path, skiprows=2, ndmin=2)
        why = None if rows.shape[1] >= 4 else f"{rows.shape[1]} columns"
        said = head[1].strip()
        if why is None and said.isdigit() and int(said) != rows.shape[0]:
            why = (f"its header says {int(said)} vertices but it lists {rows.shape[0]}: it is "
                   "cut off")
    except (ValueError, UnicodeDecodeError) as err:
        why = str(err)
    if why is not None:
        raise UnreadableFileError(
            f"{what}: {path.name!r} is not a FreeSurfer ASCII label ({why}); its rows after "
            "the two header lines are 'vertex x y z value'."
        )
    vertices = rows[:, 0].astype(int)
    n_full = MESHES["fsaverage"].n_vertices
    if vertices.size == 0:
        raise InvalidDataError(f"{what}: the label {path.name!r} lists no vertex.")
    if vertices.min() < 0 or vertices.max() >= n_full:
        raise InvalidDataError(
            f"{what}: the label {path.name!r} lists vertex {int(vertices.max())}, beyond "
            f"fsaverage's {n_full:,}: it lies on another surface (a subject's own). Resample it "
            "to fsaverage (mri_label2label --trgsubject fsaverage --regmethod surface)."
        )
    n5 = MESHES["fsaverage5"].n_vertices
    shared = vertices < n5
    xyz = rows[shared, 1:4]
    if xyz.size and np.any(xyz != 0):
        off = min(float(np.median(np.sqrt(((mesh_surface("fsaverage5", s, hemi)[0][
            vertices[shared]] - xyz) ** 2).sum(1)))) for s in ("white", "pial", "inflated",
                                                              "sphere"))
        if off > LABEL_COORD_TOLERANCE_MM:
            warnings.warn(ImplausibleValueWarning(
                f"{what}: the vertex coordinates of the label {path.name!r} lie {off:.1f} mm "
                "(median) from fsaverage's surfaces at the same vertices: it lists vertices of "
                "another surface (a subject's own?), which are not fsaverage's. Resample it to "
                "fsaverage (mri_label2label --trgsubject fsaverage --regmethod surface)."),
                stacklevel=user_stacklevel())
    out = np.zeros(n5)
    out[vertices[shared]] = 1.0
    return out


def bids_label_table(path: str | os.PathLike, what: str) -> dict | None:
    """The region table of a BIDS segmentation (``*_dseg.<ext>`` beside ``*_dseg.tsv``,
    columns ``index`` and ``name``), or None when the file has none.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "sub-01_hemi-L_desc-rois_dseg.tsv").write_text("index\\tname\\n1\\tFFA\\n2\\tPPA\\n")
    >>> bids_label_table(d / "sub-01_hemi-L_desc-rois_dseg.func.gii", "cortex_maps['faces']")
    {1: 'FFA', 2: 'PPA'}
    """
    path = Path(os.fspath(path))
    stem, sep, _ = path.name.partition("_dseg.")
    if not sep:
        return None
    table = path.with_name(f"{stem}_dseg.tsv")
    if not table.is_file():
        return None
    import pandas as pd

    try:
        df = pd.read_csv(table, sep="\t")
        out = {int(i): str(n) for i, n in zip(df["index"], df["name"])}
    except (KeyError, ValueError, pd.errors.ParserError) as err:
        raise InvalidDataError(
            f"{what}: {table.name!r}, the BIDS lookup table of {path.name!r}, is not a table "
            f"with columns 'index' and 'name' ({type(err).__name__}: {err}); fix it, or move "
            "it away to pick the regions by id."
        ) from None
    return out
