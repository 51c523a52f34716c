"""Load stimulus sets: fLoc, the Fedorenko language localizer, image folders (NSD images:
:mod:`toponeuro.stimuli._nsd`)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd

from .._io.fetch import fetch_url
from .._util.docs import fill_doc
from .._util.params import Boolean, Options, PathLike, Text, validate_params
from ..exceptions import (
    AlignmentError,
    DownloadError,
    InvalidDataError,
    MissingFileError,
    UnknownNameError,
    close_matches,
    first_few,
)
from ._datasets import DATASETS, dataset_dir, dataset_relpath, floc_offline_message, legacy_copy
from ._image import IMAGE_EXTENSIONS, files_by_name, list_image_files
from ._numbers import floc_numbers
from ._set import FLOC_CATEGORIES, FLOC_DOMAIN_OF, StimulusSet
from ._table import RUN_LIST_COLUMNS, _read_table, read_run_list

__all__ = [
    "fetch_floc",
    "fetch_language_localizer",
    "load_floc",
    "local_floc_copy",
    "FLOC_LOCAL_FOLDER",
    "load_language_localizer",
    "load_image_folder",
    "pinned_sources",
    "fetch_pinned_file",
    "LANGLOC_CONDITIONS",
]

#: Fedorenko et al. (2010) localizer conditions.
LANGLOC_CONDITIONS = {
    "S": "sentences",
    "W": "word lists",
    "J": "Jabberwocky",
    "N": "nonword lists",
}

_FLOC_REPO = "VPNL/fLoc"
_LANGLOC_REPO = "epflneuroailab/topolm"
_RAW = "https://raw.githubusercontent.com/{repo}/{commit}/{path}"
_FLOC_NAME = re.compile(r"^([a-z]+)-(\d+)$")


@validate_params({"repo": [Text(), None]})
def pinned_sources(repo: str | None = None) -> pd.DataFrame:
    """The pinned files toponeuro may download: repo, commit, path, bytes, sha256.

    Parameters
    ----------
    repo : str, optional
        Keep only this repository's files (``owner/name``).

    Returns
    -------
    pandas.DataFrame
        One row per file: ``repo``, ``commit``, ``path``, ``bytes``, ``sha256``.

    Examples
    --------
    >>> t = pinned_sources("VPNL/fLoc")
    >>> len(t), t.commit.nunique()
    (1584, 1)
    """
    with resources.files(__package__).joinpath("sources.tsv").open("r", encoding="utf-8") as f:
        table = pd.read_csv(f, sep="\t", dtype={"bytes": np.int64})
    if repo is not None:
        table = table[table.repo == repo].reset_index(drop=True)
    return table


@validate_params({"repo": Text(), "path": Text(), "cache_dir": [PathLike(), None]})
@fill_doc
def fetch_pinned_file(repo: str, path: str, *,
                      cache_dir: str | os.PathLike | None = None) -> Path:
    """Download one file of :func:`pinned_sources` (its commit, sha256-checked) to its
    dataset's folder, ``<cache>/<dataset>/...`` (:data:`DATASETS`, docs/data.rst), unless a
    verified copy is there; offline, the error names the address and where to put a copy by
    hand. Returns its path.

    Parameters
    ----------
    repo : str
        ``owner/name`` as in the table.
    path : str
        The file's path in the repository, as in the table.
    %(cache_dir)s

    Returns
    -------
    pathlib.Path
        The verified file in the cache.

    Examples
    --------
    >>> fetch_pinned_file("epflneuroailab/topolm", "eval/fmri-fit/group-level-contrast.nc"
    ...                   ).name  # doctest: +SKIP
    'group-level-contrast.nc'
    """
    table = pinned_sources(repo)
    rows = table[table.path == path]
    if rows.empty:
        known = table.path.tolist() or pinned_sources().repo.unique().tolist()
        raise UnknownNameError(f"No pinned file {path!r} of repo {repo!r}; "
                               f"{close_matches(path if len(table) else repo, known)}")
    return _fetch_row(next(rows.itertuples()), cache_dir, False)


def _fetch_row(row, cache_dir, progress) -> Path:
    """One pinned file at ``<cache>/<dataset>/...`` (``_datasets``), downloaded when absent."""
    url = _RAW.format(repo=row.repo, commit=row.commit, path=row.path.replace(" ", "%20"))
    old = legacy_copy(row, cache_dir)  # before 0.4's layout: read, warned, never moved
    if old is not None:
        return old
    return fetch_url(url, sha256=row.sha256, relpath=dataset_relpath(row), cache_dir=cache_dir,
                     progress=progress)


def _fetch_floc_keys(rows, keys, cache_dir, progress) -> list[Path]:
    """The fLoc images ``keys``; offline, the error names the whole set and where it goes."""
    try:
        return [_fetch_row(rows[k], cache_dir, progress) for k in keys]
    except DownloadError as err:
        raise DownloadError(floc_offline_message(keys, rows[keys[0]], err, cache_dir)) from err


def _check_names(wanted, known, what: str) -> list[str]:
    out = []
    for w in wanted:
        if w not in known:
            raise UnknownNameError(f"Unknown {what} {w!r}; {close_matches(str(w), known)}")
        out.append(w)
    return out


def _floc_number_in(folder: str, stem: str) -> int | None:
    """The image number of a file named ``stem`` in category folder ``folder``: the stem is
    the category and a number (``adult-12``, ``adult_12``, ``adult 12``, ``adult12``) or a bare
    number (``12``); anything else (``adult-1 copy 2``, ``adult-1 (1)``, ``img2``) is None."""
    m = re.fullmatch(rf"(?:{re.escape(folder)}[-_ ]?)?(\d+)", stem)
    return int(m.group(1)) if m else None


def _floc_scan(root: Path) -> tuple[dict[tuple[str, int], Path], dict[str, list[Path]]]:
    """``(found, skipped)`` of a local fLoc copy (sub-folders or flat names): ``found`` maps
    (category, number) -> file; ``skipped`` maps a category -> its files not named like an fLoc
    image (a Finder duplicate ``adult-1 copy 2.jpg`` is not image 2), which errors name."""
    found: dict[tuple[str, int], Path] = {}
    skipped: dict[str, list[Path]] = {}
    for p in list_image_files(root):
        stem, folder = p.stem.lower(), p.parent.name.lower()
        m = _FLOC_NAME.match(stem)
        number = _floc_number_in(folder, stem) if folder in FLOC_CATEGORIES else None
        if m and m.group(1) in FLOC_CATEGORIES:
            key = (m.group(1), int(m.group(2)))
        elif number is not None:
            key = (folder, number)
        else:
            lead = re.match(r"([a-z]+)", stem)
            cat = folder if folder in FLOC_CATEGORIES else lead and lead.group(1)
            if cat in FLOC_CATEGORIES:
                skipped.setdefault(cat, []).append(p)
            continue
        if key in found:
            raise InvalidDataError(
                f"Two files are fLoc image {key[0]}-{key[1]}: {found[key]} and {p}. Keep one "
                "copy of each image under the fLoc folder."
            )
        found[key] = p
    return found, skipped


def _skipped_note(files) -> str:
    """Why files that look like fLoc images were not read, for an error's message."""
    if not files:
        return ""
    names = [f"{Path(f).parent.name}/{Path(f).name}" for f in files]
    return (f" It skipped {len(names)} files not named like fLoc images ({first_few(names)}): "
            "an image is named '<category>-<N>' or '<N>', and a copy such as "
            "'adult-1 copy 2.jpg' is never read as another image; rename any that are images.")


def _floc_key(p) -> tuple[str, int]:
    m = _FLOC_NAME.match(Path(p).stem.lower())
    return m.group(1), int(m.group(2))


def _floc_select(found, categories, numbers, source: str,
                 skipped=None) -> list[tuple[str, int]]:
    """The (category, number) keys asked for, checked against those ``found`` in ``source``;
    errors name the files ``skipped`` (category -> files, :func:`_floc_scan`)."""
    skipped = skipped or {}
    if categories is not None:
        categories = _check_names(
            [categories] if isinstance(categories, str) else list(categories),
            FLOC_CATEGORIES,
            "fLoc category",
        )
    numbers = floc_numbers(numbers)
    present = sorted({c for c, _ in found})
    cats = categories if categories is not None else [c for c in FLOC_CATEGORIES if c in present]
    keys = []
    for c in cats:
        have = sorted(n for cc, n in found if cc == c)
        if not have:
            raise InvalidDataError(
                f"The fLoc {source} has no images of category {c!r} (it has {present}); "
                "drop it from categories= or use a complete copy." + _skipped_note(skipped.get(c))
            )
        want = have if numbers is None else numbers
        missing = sorted(set(want) - set(have))
        if missing:
            raise InvalidDataError(
                f"The fLoc {source} lacks {c} images {missing[:10]}"
                f"{' ...' if len(missing) > 10 else ''} (it has numbers {have[0]}..{have[-1]}, "
                f"{len(have)} images); give numbers= only numbers it has."
                + _skipped_note(skipped.get(c))
            )
        keys.extend((c, n) for n in want)
    return keys


@validate_params({"cache_dir": [PathLike(), None], "progress": Boolean()})
@fill_doc
def fetch_floc(
    categories: Sequence[str] | None = None,
    numbers: Iterable[int] | None = None,
    *,
    cache_dir: str | os.PathLike | None = None,
    progress: bool = False,
) -> list[Path]:
    """Download the fLoc images (pinned VPNL/fLoc commit) into the cache; return their paths.

    Each file is verified by sha256 and downloaded once; later calls return the cached
    files offline. :func:`load_floc` calls this when it has no local copy.

    Parameters
    ----------
    categories : sequence of str, optional
        As for :func:`load_floc` (default: all 11 categories).
    numbers : iterable of int, optional
        As for :func:`load_floc` (default: images 1-144).
    %(cache_dir)s
    %(progress)s
        Here: one bar per downloaded file.

    Returns
    -------
    list of pathlib.Path
        One file per image, ordered by category then number.

    Examples
    --------
    >>> paths = fetch_floc(["adult"], range(1, 4))  # doctest: +SKIP
    >>> [p.name for p in paths]  # doctest: +SKIP
    ['adult-1.jpg', 'adult-2.jpg', 'adult-3.jpg']

    Names are checked before anything is downloaded:

    >>> fetch_floc(["adults"])
    Traceback (most recent call last):
    ...
    toponeuro.exceptions.UnknownNameError: Unknown fLoc category 'adults'; did you mean 'adult'?
    """
    table = pinned_sources(_FLOC_REPO)
    rows = {_floc_key(row.path): row for row in table.itertuples()}
    keys = _floc_select(rows, categories, numbers, f"{_FLOC_REPO}@{table.commit.iloc[0]}")
    return _fetch_floc_keys(rows, keys, cache_dir, progress)


@validate_params({"cache_dir": [PathLike(), None]})
@fill_doc
def fetch_language_localizer(*, cache_dir: str | os.PathLike | None = None) -> Path:
    """Download the language-localizer csv (pinned epflneuroailab/topolm copy); return its path.

    Verified by sha256 and downloaded once, to ``<cache>/langloc/fedorenko_stimuli.csv``
    (:func:`dataset_dir`). :func:`load_language_localizer` calls this when given no path.

    Parameters
    ----------
    %(cache_dir)s

    Returns
    -------
    pathlib.Path
        The verified csv in the cache.

    Examples
    --------
    >>> path = fetch_language_localizer()  # doctest: +SKIP
    >>> t = pinned_sources("epflneuroailab/topolm")
    >>> t.path[t.path.str.endswith("fedorenko_stimuli.csv")].tolist()  # the file it fetches
    ['eval/stimuli/fedorenko_stimuli.csv']
    """
    row = next(r for r in pinned_sources(_LANGLOC_REPO).itertuples()  # not the verb-noun
               if r.path.endswith(".csv") and not r.path.endswith("elli_stimuli.csv"))
    return _fetch_row(row, cache_dir, False)


#: name of the folder under the cache root where a local fLoc copy is looked for
FLOC_LOCAL_FOLDER = DATASETS["floc"].name


@validate_params({"cache_dir": [PathLike(), None]})
@fill_doc
def local_floc_copy(cache_dir: str | os.PathLike | None = None) -> Path | None:
    """The local fLoc copy ``<cache>/floc`` (``$TOPONEURO_DATA/floc``) if it exists, else None.

    Parameters
    ----------
    %(cache_dir)s

    Returns
    -------
    pathlib.Path or None
        The folder, or ``None`` when there is none.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> local_floc_copy(d) is None
    True
    >>> (d / "floc").mkdir(); local_floc_copy(d) == d / "floc"
    True
    """
    folder = dataset_dir("floc", cache_dir)
    return folder if folder.is_dir() else None


@validate_params({"path": [PathLike(), None], "cache_dir": [PathLike(), None], "progress": Boolean()})
@fill_doc
def load_floc(
    path: str | os.PathLike | None = None,
    cache_dir: str | os.PathLike | None = None,
    *,
    categories: Sequence[str] | None = None,
    numbers: Iterable[int] | str | None = None,
    progress: bool = False,
) -> StimulusSet:
    """The fLoc functional-localizer images (Stigliani et al., 2015).

    Ids are ``"<category>-<number>"`` (e.g. ``"adult-12"``), ordered by category (in the
    order of :data:`FLOC_CATEGORIES`) then number. The metadata holds ``number``, ``domain``
    (faces, bodies, places, characters, objects, scrambled) and ``path``.

    Parameters
    ----------
    path : str or Path, optional
        A local copy: one sub-folder per category, or files named ``<category>-<N>.jpg``
        (hidden files such as macOS ``._*`` are skipped). In a category sub-folder a file
        is image ``N`` when its name (without suffix) is the category and ``N``
        (``adult-12``, ``adult_12``, ``adult 12``, ``adult12``) or ``N`` alone (``12.jpg``);
        other names are not fLoc images and are skipped, so a duplicate such as
        ``adult-1 copy 2.jpg`` (macOS Finder) or ``adult-1 (1).jpg`` is never taken for
        another image (errors about missing numbers name the files skipped).
        Without a path, the dataset folder ``<cache>/floc`` (``$TOPONEURO_DATA/floc``,
        :func:`dataset_dir`): the images asked for by ``numbers`` that it lacks are
        downloaded into it by :func:`fetch_floc` (VPNL/fLoc at a pinned commit, 144 per
        category, ~196 MB, each verified by sha256); a copy put there by hand is used as is.
    %(cache_dir)s
        Ignored with ``path``.
    categories : sequence of str, optional
        Keep only these categories (default: every category present).
    numbers : iterable of int or str, optional
        Keep only these image numbers (1-based, as in the file names), e.g.
        ``range(1, 97)`` for training and ``"97-120"`` held out (text is read by
        :func:`floc_numbers`: a range, one number or ``"all"``). Every requested image
        must exist.
    %(progress)s
        Here: one bar per downloaded file.

    Returns
    -------
    StimulusSet
        Images named ``"floc"``, with ``category`` and the metadata above.

    Raises
    ------
    UnknownNameError
        A category that fLoc does not have (close matches listed).
    InvalidDataError
        A requested image is missing from the local copy, or none were found.

    Examples
    --------
    >>> from toponeuro.stimuli import make_image_folder
    >>> d = make_image_folder(categories=("adult", "house"), numbers=(1, 2), suffix=".jpg")
    >>> s = load_floc(d)
    >>> s.ids.tolist(), s.domains.tolist()
    (['adult-1', 'adult-2', 'house-1', 'house-2'], ['faces', 'faces', 'places', 'places'])
    >>> load_floc(d, categories=["adult"], numbers=[2]).ids.tolist()
    ['adult-2']
    >>> load_floc(d, numbers="2-2").ids.tolist()
    ['adult-2', 'house-2']
    """
    local = local_floc_copy(cache_dir) if path is None else None
    found, skipped = _floc_scan(local) if local is not None else ({}, {})
    if path is None and not found:
        paths = fetch_floc(categories, numbers, cache_dir=cache_dir, progress=progress)
        keys = [_floc_key(p) for p in paths]
    elif path is None and numbers is not None:  # <cache>/floc: what it lacks is downloaded
        rows = {_floc_key(row.path): row for row in pinned_sources(_FLOC_REPO).itertuples()}
        cats = categories if categories is not None else sorted(
            {c for c, _ in found}, key=FLOC_CATEGORIES.index)
        keys = _floc_select({**dict.fromkeys(rows), **found}, cats, numbers, f"copy {local}",
                            skipped)
        missing = [k for k in keys if k not in found]
        got = dict(zip(missing, _fetch_floc_keys(rows, missing, cache_dir, progress)))
        paths = [found[k] if k in found else got[k] for k in keys]
    else:
        root = Path(path if path is not None else local)
        if not root.is_dir():
            raise MissingFileError(
                f"fLoc folder {root} does not exist (or is not a folder); pass the folder that "
                "holds the category sub-folders, or path=None to download the images."
            )
        found, skipped = _floc_scan(root)
        if not found:
            raise InvalidDataError(
                f"No fLoc images under {root}: expected sub-folders named after the "
                f"categories {FLOC_CATEGORIES[:3]}... or files named like 'adult-1.jpg'."
                + _skipped_note([f for files in skipped.values() for f in files])
            )
        keys = _floc_select(found, categories, numbers, f"local copy {root}", skipped)
        paths = [found[k] for k in keys]
    ids = [f"{c}-{n}" for c, n in keys]
    meta = pd.DataFrame(
        {
            "number": [n for _, n in keys],
            "domain": [FLOC_DOMAIN_OF[c] for c, _ in keys],
            "path": [str(p) for p in paths],
        }
    )
    return StimulusSet(
        ids, paths, "image", categories=[c for c, _ in keys], metadata=meta, name="floc"
    )


@validate_params({"cache_dir": [PathLike(), None]})  # path may be a list of run lists
@fill_doc
def load_language_localizer(
    path: str | os.PathLike | None = None,
    cache_dir: str | os.PathLike | None = None,
    *,
    conditions: Sequence[str] | None = None,
) -> StimulusSet:
    """The Fedorenko et al. (2010) language-localizer items: 160 each of S, W, J, N.

    Conditions: ``S`` sentences, ``W`` word lists, ``J`` Jabberwocky, ``N`` nonword lists
    (:data:`LANGLOC_CONDITIONS`); the condition is the category. Ids are
    ``"langloc-<index>"`` with the csv's index column as written (``001`` stays ``001``),
    which must give every item its own, non-empty id.

    Parameters
    ----------
    path : str, Path or list of them, optional
        A csv with columns (index), ``sentence``, ``condition`` (comma- or tab-separated,
        told by the header line, whatever the suffix); or the lab's run lists as
        distributed (one or several files with columns ``stim1``..``stim14``: item number,
        12 words, ``S``/``N``; :func:`read_run_list`), whose ids are
        ``"langloc-<condition>-<number>"`` (with several files, whose trial numbers each
        start at 1, ``"langloc-<run>-<condition>-<number>"``, the run being the file name
        without suffix) and metadata holds the ``run``. Words are kept as written (the
        lab's files are upper case). Without one
        :func:`fetch_language_localizer` downloads the pinned copy (epflneuroailab/topolm)
        into the cache, verified by sha256.
    %(cache_dir)s
        Ignored with ``path``.
    conditions : sequence of str, optional
        Keep only these conditions, e.g. ``["S", "N"]``; each must have items in the file.

    Returns
    -------
    StimulusSet
        Text stimuli with the condition as category, named ``"language_localizer"``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "items.csv"
    >>> _ = p.write_text(",sentence,condition\\n0,the dog ran home,S\\n1,blick florp,N\\n")
    >>> s = load_language_localizer(p)
    >>> s.ids.tolist(), s.categories.tolist(), s.get(0)
    (['langloc-0', 'langloc-1'], ['S', 'N'], 'the dog ran home')
    """
    if path is None:
        path = fetch_language_localizer(cache_dir=cache_dir)
    runs = [Path(p) for p in path] if isinstance(path, list | tuple) else [Path(path)]
    if not runs:
        raise InvalidDataError(
            "path= is an empty list; give a localizer csv, one or more run lists, or "
            "path=None to download the pinned copy."
        )
    for p in runs:
        if not p.is_file():
            raise MissingFileError(
                f"Language-localizer csv {p} does not exist; pass an existing csv (columns "
                "sentence, condition, or the lab's run lists stim1..stim14) or path=None to "
                "download the pinned copy."
            )
    if len(runs) > 1 or _is_run_list(runs[0]):
        return _from_run_lists(runs, conditions)
    path = runs[0]
    table = _read_table(path, None, what="csv",  # ids '001' stay '001'
                        fix="save it as a UTF-8 csv (comma or tab) with an index column, "
                            "'sentence' and 'condition'.")
    missing = {"sentence", "condition"} - set(table.columns)
    if missing:
        raise InvalidDataError(
            f"{path} lacks columns {sorted(missing)} (has {list(table.columns)}); expected "
            "an index column, 'sentence' and 'condition' (S/W/J/N)."
        )
    idx_col = table.columns[0] if table.columns[0] not in ("sentence", "condition") else None
    index = (table[idx_col].str.strip() if idx_col is not None
             else pd.Series(table.index.astype(str), index=table.index))
    table["condition"] = table.condition.str.strip().str.upper()
    bad = sorted(set(table.condition) - set(LANGLOC_CONDITIONS))
    if bad:
        raise InvalidDataError(
            f"{path} has conditions {bad}; expected only {sorted(LANGLOC_CONDITIONS)}."
        )
    for col, values in ((idx_col, index), ("sentence", table.sentence.str.strip())):
        empty = np.flatnonzero(values.to_numpy(dtype=str) == "")
        if empty.size:
            raise InvalidDataError(
                f"{path} has empty cells in column {col!r} (lines "
                f"{first_few((empty + 2).tolist())}); every item needs "
                f"{'an id' if col == idx_col else 'its words'}: fill them in or delete those rows."
            )
    dup = index[index.duplicated()].unique().tolist()
    if dup:
        raise AlignmentError(
            f"{path} gives two items one id in column {idx_col!r} ({first_few(dup)}); ids are "
            f"'langloc-<{idx_col}>', so number every item apart (not each condition from 1)."
        )
    table = _keep_conditions(table, conditions, str(path))
    index = index[table.index]
    meta = pd.DataFrame(
        {"index": index.to_numpy(), "condition_name": table.condition.map(LANGLOC_CONDITIONS)}
    )
    return StimulusSet(
        [f"langloc-{i}" for i in index],
        table.sentence.astype(str).tolist(),
        "text",
        categories=table.condition.tolist(),
        metadata=meta,
        name="language_localizer",
    )


def _keep_conditions(table: pd.DataFrame, conditions, source: str) -> pd.DataFrame:
    """The rows of ``conditions`` (all when None); a condition with no item is refused."""
    if conditions is None:
        return table
    conditions = _check_names([conditions] if isinstance(conditions, str) else list(conditions),
                              LANGLOC_CONDITIONS, "language-localizer condition")
    absent = [c for c in conditions if c not in set(table.condition)]
    if absent:
        raise InvalidDataError(
            f"No items of condition {first_few(absent)} in {source} (it has "
            f"{sorted(set(table.condition))}); drop it from conditions= or give a file with it."
        )
    return table[table.condition.isin(conditions)]


def _is_run_list(path: Path) -> bool:
    with open(path, encoding="utf-8", errors="replace") as f:
        header = f.readline()
    first = re.split(r"[,\t;]", header.strip().lower().lstrip("\ufeff"), maxsplit=1)[0]
    return first.strip().strip('"') == RUN_LIST_COLUMNS[0]


def _from_run_lists(runs, conditions) -> StimulusSet:
    """The lab's run lists (``stim1..stim14``): ids ``langloc-<condition>-<number>``, with
    the run (file name without suffix) before the condition when several files are given,
    since each run numbers its trials from 1 (``langloc-<run>-<condition>-<number>``)."""
    tables = [read_run_list(p) for p in runs]
    for p, t in zip(runs, tables):
        key = t.condition + "-" + t.number
        if key.duplicated().any():
            raise AlignmentError(
                f"{p} numbers two trials of one condition alike (e.g. "
                f"{key[key.duplicated()].iloc[0]!r} in stim14-stim1), so they cannot be told "
                "apart; give each trial of a condition its own number in stim1."
            )
    runs_named = [t.run.iloc[0] for t in tables if len(t)]
    if len(set(runs_named)) < len(runs_named):
        raise AlignmentError(
            f"Two run lists have the same file name ({sorted(runs_named)}); the run is the "
            "file name without suffix, so rename one (e.g. run1_set1.csv, run1_set2.csv)."
        )
    table = pd.concat(tables, ignore_index=True)
    bad = sorted(set(table.condition) - set(LANGLOC_CONDITIONS))
    if bad:
        raise InvalidDataError(
            f"The run lists have conditions {bad} in stim14; expected only "
            f"{sorted(LANGLOC_CONDITIONS)}."
        )
    table = _keep_conditions(table, conditions, "the run lists").reset_index(drop=True)
    meta = pd.DataFrame({"index": table.number.to_numpy(), "run": table.run.to_numpy(),
                         "condition_name": table.condition.map(LANGLOC_CONDITIONS).to_numpy()})
    return StimulusSet(
        [f"langloc-{r + '-' if len(runs) > 1 else ''}{c}-{n}"
         for r, c, n in zip(table.run, table.condition, table.number)],
        table.sentence.tolist(), "text", categories=table.condition.tolist(), metadata=meta,
        name="language_localizer",
    )


_PREFIX = re.compile(r"^(.*?)[-_ ]*\d+$")


@validate_params({
    "category_from": [Options(("auto", "folder", "prefix"), error=UnknownNameError), None],
    "name": [Text(), None],
    "ids": Options(("path", "stem"), error=UnknownNameError),
})
def load_image_folder(
    path: str | os.PathLike,
    category_from: str | None = "auto",
    *,
    extensions: Sequence[str] = IMAGE_EXTENSIONS,
    name: str | None = None,
    ids: str = "path",
) -> StimulusSet:
    """Every image under ``path`` (recursively), sorted by relative path.

    Hidden files are skipped: names starting with ``.`` (macOS ``._*`` resource forks,
    ``.DS_Store``) and anything in a folder starting with ``.`` or named ``__MACOSX``
    (:func:`toponeuro.stimuli.list_image_files`). Images are decoded on use by
    :func:`toponeuro.stimuli.read_image` (16-bit images converted by their range).

    Parameters
    ----------
    path : str or Path
        The folder.
    category_from : {"auto", "folder", "prefix", None}
        ``"folder"``: the name of the image's parent folder; ``"prefix"``: the file name
        without its trailing number (``house-12.jpg`` -> ``house``); ``None``: no categories.
        ``"auto"`` (default; what ``toponeuro extract`` does): ``"folder"`` when any image
        sits in a sub-folder, else ``None``, so a flat folder of images loads without
        categories (images both loose and in sub-folders still raise).
    extensions : sequence of str
        File suffixes counted as images (case-insensitive).
    name : str, optional
        The set's name (default: the folder's name).
    ids : {"path", "stem"}
        ``"path"``: the path relative to ``path``, without suffix, with ``/`` separators
        (``cats/a``); ``"stem"``: the file name without suffix (``a``), which is how brain
        data usually names its stimuli; two files with one stem raise.

    Returns
    -------
    StimulusSet
        Ids as chosen by ``ids``; metadata column ``path`` holds each file.

    Examples
    --------
    >>> from toponeuro.stimuli import make_image_folder
    >>> d = make_image_folder(categories=("cats", "dogs"), numbers=(1,), mode="RGB")
    >>> s = load_image_folder(d)
    >>> s.ids.tolist(), s.categories.tolist()
    (['cats/cats-1', 'dogs/dogs-1'], ['cats', 'dogs'])
    >>> load_image_folder(d, ids="stem").ids.tolist()
    ['cats-1', 'dogs-1']
    """
    root = Path(path)
    if not root.is_dir():
        raise MissingFileError(
            f"Image folder {root} does not exist (or is not a folder); pass a folder of images."
        )
    if isinstance(extensions, str):
        extensions = [extensions]
    exts = {e.lower() if e.startswith(".") else "." + e.lower() for e in extensions}
    files = list_image_files(root, exts)
    if not files:
        raise InvalidDataError(
            f"No images ({sorted(exts)}) under {root} (hidden files are skipped); put image "
            "files there, or pass extensions= with the suffixes your images have."
        )
    rel = [p.relative_to(root).with_suffix("").as_posix() for p in files]
    if len(set(rel)) != len(rel):
        dup = sorted({r for r in rel if rel.count(r) > 1})
        raise InvalidDataError(
            f"Several images share a name apart from the suffix ({dup[:3]}); ids would "
            "repeat. Rename or remove the copies."
        )
    if ids == "stem":
        files_by_name(root, files, suffix=False, fix="file stems cannot be the stimulus ids; "
                      "rename the copies or use ids='path' (ids relative to the folder)")
        rel_ids = [p.stem for p in files]
    else:
        rel_ids = rel
    cats = None
    if category_from == "auto":
        category_from = "folder" if any(p.parent != root for p in files) else None
    if category_from == "folder":
        cats = [p.parent.name if p.parent != root else "" for p in files]
        if "" in cats:
            loose = [r for r, c in zip(rel, cats) if c == ""]
            raise InvalidDataError(
                f"{len(loose)} images sit directly in {root} (e.g. {loose[:3]}) and have no "
                "category folder; move them into sub-folders or use category_from='prefix'."
            )
    elif category_from == "prefix":
        cats = []
        for p in files:
            m = _PREFIX.match(p.stem)
            if not m or not m.group(1):
                raise InvalidDataError(
                    f"Cannot read a category prefix from {p.name!r}: expected names like "
                    "'house-12.jpg'. Use category_from='folder' or None."
                )
            cats.append(m.group(1))
    meta = pd.DataFrame({"path": [str(p) for p in files]})
    return StimulusSet(
        rel_ids, files, "image", categories=cats, metadata=meta, name=name or root.name
    )
