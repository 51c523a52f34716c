"""Stimulus sets from a lab's tables: a folder of images with a CSV/TSV of labels, and the
Fedorenko et al. (2010) localizer run lists as the lab distributes them."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from .._util import dims as D
from .._util.constraints import Names
from .._util.params import Options, PathLike, Text, validate_params
from ..exceptions import (
    AlignmentError,
    InvalidDataError,
    MissingFileError,
    UnknownNameError,
    UnreadableFileError,
    close_matches,
    first_few,
)
from ._image import IMAGE_EXTENSIONS, files_by_name, list_image_files
from ._set import StimulusSet

__all__ = ["load_stimulus_table", "read_run_list", "FILE_COLUMNS", "RUN_LIST_COLUMNS"]

#: column names taken as the file column when ``file_column`` is not given (case-insensitive)
FILE_COLUMNS = ("file", "filename", "file_name", "image", "image_file", "path", "stimulus")
#: the columns of a Fedorenko-lab run list: item number, 12 words, condition (S or N)
RUN_LIST_COLUMNS = tuple(f"stim{i}" for i in range(1, 15))


#: the separators a header line is read for: tab, comma, and the semicolon of the CSV that
#: spreadsheets write where the comma is the decimal mark (most of Europe)
_SEPARATORS = ("\t", ",", ";")


def _header_sep(path: Path) -> str | None:
    """Tab, comma or semicolon: whichever the header line holds most of outside quotes (a
    TSV saved as ``.csv``, a European spreadsheet's ``;``); None when none leads (a
    one-column table)."""
    with open(path, encoding="utf-8-sig", errors="replace") as f:
        header = re.sub(r'"[^"]*"', "", f.readline())
    counts = sorted(((header.count(s), s) for s in _SEPARATORS), reverse=True)
    return counts[0][1] if counts[0][0] > counts[1][0] else None


def _check_split(frame: pd.DataFrame, path: Path, sep: str) -> None:
    """Refuse a table whose header did not split with ``sep`` although it holds another
    separator (a ``;`` table read with ``sep=','``): its one column would be 'not found'
    later, advice about the wrong problem."""
    if frame.shape[1] != 1:
        return
    name = str(frame.columns[0])
    other = next((s for s in _SEPARATORS if s != sep and s in name), None)
    if other is None:
        return
    said = {"\t": "tab", ",": "comma", ";": "semicolon"}
    raise InvalidDataError(
        f"{path} was read with sep={sep!r} ({said.get(sep, 'as given')}) into one column named {name!r}, "
        f"but its header is separated by {other!r} ({said[other]}"
        + ("; spreadsheets save CSV this way where the comma is the decimal mark"
           if other == ";" else "")
        + f"). Pass sep={other!r}, or leave sep out to read the separator from the header."
    )


def _read_table(path: Path, sep, *, what: str = "table",
                fix: str = "save it as UTF-8 CSV (comma) or TSV (tab), or pass sep=.",
                ) -> pd.DataFrame:
    """The table at ``path`` as text cells, the one reader of a lab's CSV/TSV files.

    ``sep=None`` reads the separator from the header line (tab, comma or semicolon,
    :func:`_header_sep`; else by suffix: tab for ``.tsv``/``.tab``); a given ``sep`` wins
    (a header it leaves unsplit although it holds another separator is refused, naming it).
    ``what`` and ``fix`` word the error of an unreadable file (a caller without ``sep=``
    gives a ``fix`` that does not name it).
    """
    if not path.is_file():
        raise MissingFileError(
            f"Stimulus table {path} does not exist; pass a CSV or TSV file with one row per "
            "image (a file-name column and label columns)."
        )
    if sep is None:
        sep = _header_sep(path) or ("\t" if path.suffix.lower() in (".tsv", ".tab") else ",")
    try:
        frame = pd.read_csv(path, sep=sep, dtype=str, keep_default_na=False,
                            encoding="utf-8-sig")  # Excel writes a byte-order mark
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as err:
        raise UnreadableFileError(
            f"{path} is not a readable {what} ({str(err).strip()}); {fix}"
        ) from err
    frame.columns = [str(c).strip() for c in frame.columns]
    _check_split(frame, path, sep)
    frame.attrs["sep"] = sep  # a ';' table writes numbers with a decimal comma
    return frame


#: cells read as missing in a numeric label column (pandas and Excel write '', MATLAB
#: 'NaN', R 'NA'), case-insensitive
_MISSING = ("", "nan", "na", "n/a")


def _typed(col: pd.Series, decimal_comma: bool = False):
    """A label column as booleans when every entry is ``true``/``false``; as numbers when
    every non-missing entry is one (missing cells, :data:`_MISSING`, NaN; a column of only
    missing cells is all NaN); else text. ``decimal_comma`` (a ``;``-separated table): a
    column whose every entry is a number written with a decimal comma (``0,5``) is numbers."""
    low = col.str.strip().str.lower()
    if len(low) and low.isin(["true", "false"]).all():
        return low.eq("true").to_numpy()
    filled = ~low.isin(_MISSING)
    if decimal_comma and low[filled].str.fullmatch(r"[+-]?\d+,\d+|[+-]?\d+").all():
        col = col.str.replace(",", ".", regex=False)
    num = pd.to_numeric(col.where(filled), errors="coerce")
    if num[filled].notna().all():
        out = num.to_numpy(dtype=float)
        whole = np.isfinite(out).all() and np.equal(np.mod(out, 1), 0).all()
        return out.astype(np.int64) if whole else out
    return np.asarray(col.tolist(), dtype=str)


def _no_empty_cells(frame, column, values, path, what) -> None:
    """Empty cells of the file or id column are refused, naming the table's lines."""
    empty = np.flatnonzero(np.asarray(values, dtype=str) == "")
    if empty.size:
        raise InvalidDataError(
            f"{path.name} has empty cells in column {column!r} (lines "
            f"{first_few((empty + 2).tolist())}, counting the header as line 1); it must "
            f"give {what}: fill them in or delete those rows."
        )


def _pick(table, given, candidates, what, path):
    cols = list(table.columns)
    if given is not None:
        if given not in cols:
            raise UnknownNameError(f"{path.name} has no column {given!r} for the {what}; "
                                   f"{close_matches(given, cols)}")
        return given
    lower = {c.lower(): c for c in cols}
    for c in candidates:
        if c in lower:
            return lower[c]
    return None


@validate_params(dict(table=PathLike(), images=[PathLike(), None], file_column=[Text(), None],
                      category_column=[Text(), None], id_column=[Text(), None],
                      labels=[Names(), None],
                      extra_files=Options(("error", "skip"), error=UnknownNameError),
                      sep=[Text(empty=True), None], name=[Text(), None]))
def load_stimulus_table(
    table: str | os.PathLike,
    images: str | os.PathLike | None = None,
    *,
    file_column: str | None = None,
    category_column: str | None = None,
    id_column: str | None = None,
    labels: Sequence[str] | None = None,
    extra_files: str = "error",
    sep: str | None = None,
    name: str | None = None,
) -> StimulusSet:
    """A folder of images and a CSV/TSV of their labels -> a labelled :class:`StimulusSet`.

    The usual layout of a lab's own stimulus set (and of the 92-image set): a flat folder
    of images and a table with one row per image: its file name, its category, and any
    number of other label columns (``human``, ``face``, ``animal``, ...). Rows and files are
    joined by file name, exactly: a row whose file is missing, or an image no row names,
    is an error naming them.

    Parameters
    ----------
    table : str or Path
        A comma- or tab-separated table (``.csv``, ``.tsv``) with a header row.
    images : str or Path, optional
        The image folder (searched recursively, hidden files skipped); default: the
        table's folder.
    file_column : str, optional
        The column of file names, relative to ``images`` (``a.jpg`` or ``faces/a.jpg``);
        names without a suffix match files by name without suffix. Default: the first of
        :data:`FILE_COLUMNS` present (case-insensitive).
    category_column : str, optional
        The column of categories; default ``category`` when present, else no categories.
        Every row needs one (an empty cell is refused, naming its line; spaces around a
        category are dropped).
    id_column : str, optional
        A column of stimulus ids; default: the file name without suffix (as
        ``toponeuro extract --ids stem``), which is how brain data usually names stimuli.
    labels : sequence of str, optional
        Label columns to keep (default: every other column). Each becomes a stimulus coord
        (:meth:`StimulusSet.coords`); columns of only numbers or only ``true``/``false``
        are read as such, others as text. In a numeric column an empty cell, ``NaN``,
        ``NA`` or ``n/a`` is missing (NaN).
    extra_files : {"error", "skip"}
        Images in the folder that no row names: an error naming them (default), or left out.
    sep : str, optional
        The column separator. Default: read from the header line, tab, comma or semicolon
        (a TSV saved as ``.csv`` is split on tabs; a spreadsheet's ``;``-separated CSV, as
        saved where the comma is the decimal mark, on semicolons, its label columns' decimal
        commas read: ``0,5`` is 0.5), else by suffix.
    name : str, optional
        The set's name (default: the table's file name without suffix).

    Returns
    -------
    StimulusSet
        In table row order; metadata: ``path`` and the label columns.

    Raises
    ------
    MissingFileError
        The table, the folder, or files the table names do not exist (the first few named).
    AlignmentError
        Images no row names (with ``extra_files="error"``), or two rows naming one file.
    UnknownNameError
        A column that the table lacks (close matches listed), or no file column found.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from PIL import Image
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> for f in ["face1.png", "dog1.png", "car1.png"]:
    ...     Image.new("RGB", (8, 8)).save(d / f)
    >>> _ = (d / "labels.csv").write_text(
    ...     "file,category,human,face,animal\\n"
    ...     "face1.png,human face,1,1,1\\ndog1.png,animal body,0,0,1\\ncar1.png,object,0,0,0\\n")
    >>> s = load_stimulus_table(d / "labels.csv")
    >>> s.ids.tolist(), s.categories.tolist()
    (['face1', 'dog1', 'car1'], ['human face', 'animal body', 'object'])
    >>> sorted(s.coords()), s.coords()["face"][1].tolist()
    (['animal', 'category', 'face', 'human', 'stimulus_id'], [1, 0, 0])
    """
    path = Path(table)
    frame = _read_table(path, sep)
    root = Path(images) if images is not None else path.parent
    if not root.is_dir():
        raise MissingFileError(
            f"Image folder {root} does not exist (or is not a folder); pass images= with the "
            "folder the table's file names are relative to."
        )
    fcol = _pick(frame, file_column, FILE_COLUMNS, "file names", path)
    if fcol is None:
        raise UnknownNameError(
            f"{path.name} has no file-name column (looked for {list(FILE_COLUMNS)}; it has "
            f"{list(frame.columns)}); pass file_column= naming it."
        )
    ccol = _pick(frame, category_column, ("category",), "categories", path)
    icol = _pick(frame, id_column, (), "ids", path) if id_column is not None else None
    names = frame[fcol].str.strip().str.replace("\\", "/", regex=False).to_numpy(dtype=str)
    if len(names) == 0:
        raise InvalidDataError(f"{path} has no rows; give one row per image.")
    _no_empty_cells(frame, fcol, names, path, "the file name of every image")
    u, c = np.unique(names, return_counts=True)
    if (c > 1).any():
        raise AlignmentError(
            f"{path.name} names {int((c > 1).sum())} files more than once (e.g. "
            f"{u[c > 1][:3].tolist()}); give each image one row."
        )
    files = list_image_files(root, IMAGE_EXTENSIONS)
    rel = [p.relative_to(root).as_posix() for p in files]
    with_suffix = all(Path(n).suffix.lower() in IMAGE_EXTENSIONS for n in names)
    key = {(r if with_suffix else r.rsplit(".", 1)[0]): p for r, p in zip(rel, files)}
    if not any("/" in n for n in names):  # bare names: match the file name in any sub-folder
        key = files_by_name(root, files, suffix=with_suffix, error=AlignmentError,
                            fix="the table's bare names are ambiguous; write paths relative to "
                                "the folder in the table")
    missing = [n for n in names if n not in key]
    if missing:
        raise MissingFileError(
            f"{len(missing)} of the {len(names)} files {path.name} names are not under {root} "
            f"(e.g. {[str(m) for m in missing[:5]]}); fix the names in column {fcol!r} or pass images= with "
            "the right folder."
        )
    extra = sorted(set(key) - set(names))
    if extra and extra_files == "error":
        raise AlignmentError(
            f"{len(extra)} images under {root} have no row in {path.name} (e.g. {extra[:5]}); "
            "add rows for them, move them out, or pass extra_files='skip' to leave them out."
        )
    paths = [key[n] for n in names]
    if icol is not None:
        ids = np.asarray(frame[icol].str.strip().tolist(), dtype=str)
        _no_empty_cells(frame, icol, ids, path, "an id for every image (id_column=)")
    else:
        ids = np.array([Path(n).stem if with_suffix else Path(n).name for n in names])
        u, c = np.unique(ids, return_counts=True)
        if (c > 1).any():
            k = str(u[c > 1][0])
            raise AlignmentError(
                f"{int((c > 1).sum())} stimulus ids repeat in {path.name}: the default id is "
                f"the file name without suffix, and {[str(n) for n in names if Path(n).stem == k or Path(n).name == k][:3]} "
                f"all give {k!r}. Add a column of unique ids and pass id_column= naming it, "
                "or rename the files."
            )
    taken = {fcol, ccol, icol} - {None}
    if labels is None:
        labels = [c for c in frame.columns if c not in taken]
    else:
        labels = [_pick(frame, c, (), "labels", path) for c in labels]
    meta = pd.DataFrame({"path": [str(p) for p in paths]})
    for col in labels:
        if col in (D.STIMULUS_ID, D.CATEGORY, D.STIMULUS, "path"):
            param = {D.STIMULUS_ID: "id_column", D.CATEGORY: "category_column"}.get(col)
            fix = (f"pass {param}={col!r} if it holds the {'ids' if col == D.STIMULUS_ID else 'categories'}, "
                   "or rename it" if param else "rename it")
            raise InvalidDataError(
                f"Label column {col!r} of {path.name} clashes with a name the StimulusSet "
                f"uses itself; {fix} (or leave it out with labels=[...])."
            )
        meta[col] = _typed(frame[col], decimal_comma=frame.attrs.get("sep") == ";")
    cats = None
    if ccol is not None:  # an empty cell would be a category named '' in every contrast
        cats = frame[ccol].str.strip().to_numpy(dtype=str)
        _no_empty_cells(frame, ccol, cats, path, "a category for every image "
                        "(category_column=)")
    return StimulusSet(ids, paths, "image", categories=cats, metadata=meta,
                       name=name or path.stem, labels=labels)


@validate_params(dict(path=PathLike()))
def read_run_list(path: str | os.PathLike) -> pd.DataFrame:
    """One Fedorenko-lab localizer run list (``stim1..stim14``) as ``(number, sentence, condition)``.

    The language localizer's run files as the lab distributes them (e.g.
    ``langloc_fmri_run1_stim_set1.csv``): one trial per row, ``stim1`` the item number,
    ``stim2``..``stim13`` its twelve words, ``stim14`` the condition (``S`` sentence, ``N``
    nonword list). Rows with an empty ``stim1`` (fixation) are left out.

    Parameters
    ----------
    path : path-like
        The run file (comma- or tab-separated).

    Returns
    -------
    pandas.DataFrame
        Columns ``number`` (as written), ``sentence`` (the words joined by spaces) and
        ``condition``, one row per trial.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "run1.csv"
    >>> words = " ".join(f"w{i}" for i in range(12)).split()
    >>> _ = p.write_text(",".join(f"stim{i}" for i in range(1, 15)) + "\\n"
    ...                  + ",".join(["7", *words, "S"]) + "\\n")
    >>> read_run_list(p).to_dict("records")[0]["sentence"]
    'w0 w1 w2 w3 w4 w5 w6 w7 w8 w9 w10 w11'
    """
    path = Path(path)
    frame = _read_table(path, None, fix="save it as UTF-8 CSV (comma) or TSV (tab).")
    cols = [c.strip().lower() for c in frame.columns]
    if cols[: len(RUN_LIST_COLUMNS)] != list(RUN_LIST_COLUMNS):
        raise InvalidDataError(
            f"{path} is not a run list: expected the columns {RUN_LIST_COLUMNS[0]}.."
            f"{RUN_LIST_COLUMNS[-1]} (item number, 12 words, S or N); got {list(frame.columns)[:6]}..."
        )
    frame.columns = cols
    frame = frame[frame["stim1"].str.strip() != ""]
    words = frame[list(RUN_LIST_COLUMNS[1:13])].apply(lambda s: s.str.strip())
    empty = (words == "").any(axis=1).to_numpy()
    if empty.any():
        row = int(np.flatnonzero(empty)[0])
        raise InvalidDataError(
            f"{path}: trial {frame['stim1'].iloc[row]!r} has fewer than 12 words in stim2.."
            "stim13; every trial of the localizer is 12 words."
        )
    cond = frame["stim14"].str.strip().str.upper()
    return pd.DataFrame({
        "number": frame["stim1"].str.strip().to_numpy(),
        "sentence": words.apply(" ".join, axis=1).to_numpy(),
        "condition": cond.to_numpy(),
        "run": path.stem,
    })
