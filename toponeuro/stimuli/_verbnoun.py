"""The verb and noun items of TopoLM's fMRI fit (Elli, Lane & Bedny, 2019; Rathi et al., 2025).

Two-word phrases, verbs (``"to slurp to lick"``) and nouns (``"the garage the rink"``), as
TopoLM distributes them (``eval/stimuli/elli_stimuli.csv`` of ``epflneuroailab/topolm``): the
items the group verb - noun fMRI contrast that TopoLM compares its models with
(:func:`toponeuro.brain.load_topolm_contrast`) is computed from, so a model's verb - noun map
on its sheet is that contrast's counterpart.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from .._util.docs import fill_doc
from .._util.params import PathLike, validate_params
from ..exceptions import AlignmentError, InvalidDataError, MissingFileError, first_few
from ._loaders import _LANGLOC_REPO, fetch_pinned_file
from ._set import StimulusSet
from ._table import _read_table

__all__ = ["VERB_NOUN_CLASSES", "VERB_NOUN_REFERENCE", "VERB_NOUN_SOURCE",
           "fetch_verb_noun_items", "load_verb_noun_items"]

#: the two classes of the items, target first (the contrast is verb - noun)
VERB_NOUN_CLASSES = ("verb", "noun")

#: the file's path in the pinned TopoLM repository
VERB_NOUN_SOURCE = "eval/stimuli/elli_stimuli.csv"

#: where the items come from, for reports
VERB_NOUN_REFERENCE = (
    "Elli, Lane & Bedny (2019), A double dissociation in sensitivity to verb and noun "
    "semantics across cortical networks, Cereb. Cortex 29(11):4803-4817 (the items); "
    "Hauptman et al. (2024), bioRxiv 10.1101/2023.08.23.552701 (the fMRI data, 22 "
    "participants); Rathi, Mehrer, AlKhamissi, Binhuraib, Blauch & Schrimpf (2025), TopoLM, "
    "ICLR 2025 (the verb - noun fit, as distributed in its repository)"
)

_COLUMNS = ("run", "block", "class", "category", "pair")


@validate_params({"cache_dir": [PathLike(), None]})
@fill_doc
def fetch_verb_noun_items(*, cache_dir: str | os.PathLike | None = None) -> Path:
    """Download TopoLM's verb and noun items (pinned commit, sha256-checked) unless a verified
    copy is in the cache; return its path (``<cache>/langloc/elli_stimuli.csv``).

    Parameters
    ----------
    %(cache_dir)s

    Returns
    -------
    pathlib.Path
        The verified copy of ``elli_stimuli.csv``.

    Examples
    --------
    >>> path = fetch_verb_noun_items()  # doctest: +SKIP
    >>> from toponeuro.stimuli import pinned_sources
    >>> t = pinned_sources("epflneuroailab/topolm")
    >>> int(t.bytes[t.path == VERB_NOUN_SOURCE].iloc[0])
    23238
    """
    return fetch_pinned_file(_LANGLOC_REPO, VERB_NOUN_SOURCE, cache_dir=cache_dir)


@validate_params({"path": [PathLike(), None], "cache_dir": [PathLike(), None]})
@fill_doc
def load_verb_noun_items(path: str | os.PathLike | None = None,
                         cache_dir: str | os.PathLike | None = None) -> StimulusSet:
    """The verb and noun two-word phrases of TopoLM's fMRI fit, as a text StimulusSet.

    The file as it comes (columns ``run``, ``block``, ``class``, ``category``, ``pair``; 576
    rows, 144 verbs and 144 nouns in each run half, ``odd`` / ``even``): the category of
    each item is its ``class`` (``"verb"`` / ``"noun"``), its text the ``pair``, its id
    ``"elli-<row>"`` (rows numbered from 0 in file order), and the metadata keeps ``run``,
    ``block`` (an integer) and the semantic ``category`` (e.g. ``mouth``, ``manmade``) under
    ``semantic_category``.

    Cite Elli, Lane & Bedny (2019) for the items and Rathi et al. (2025), TopoLM, for the
    fit (:data:`VERB_NOUN_REFERENCE`).

    Parameters
    ----------
    path : str or Path, optional
        A local copy of ``elli_stimuli.csv`` (comma or tab separated); without it,
        :func:`fetch_verb_noun_items` (the cache, else the pinned download).
    %(cache_dir)s
        Ignored with ``path``.

    Returns
    -------
    StimulusSet
        ``kind="text"``, ``name="verb_noun"``.

    Raises
    ------
    MissingFileError
        ``path`` does not exist.
    InvalidDataError
        A column is missing, a class is neither verb nor noun, a phrase is empty, a block is
        not a whole number, or a class has fewer than 2 items.
    AlignmentError
        The same phrase twice in one class (two items could not be told apart).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "elli.csv"
    >>> _ = p.write_text("run,block,class,category,pair\\n"
    ...                  'odd,0,noun,manmade,"the garage the rink"\\n'
    ...                  'odd,0,noun,manmade,"the booth the shack"\\n'
    ...                  'odd,1,verb,mouth,"to slurp to lick"\\n'
    ...                  'odd,1,verb,mouth,"to purse to gulp"\\n')
    >>> s = load_verb_noun_items(p)
    >>> s.ids.tolist()[:2], s.categories.tolist(), s.get(2)
    (['elli-0', 'elli-1'], ['noun', 'noun', 'verb', 'verb'], 'to slurp to lick')
    >>> s.metadata["semantic_category"].tolist()
    ['manmade', 'manmade', 'mouth', 'mouth']
    """
    if path is None:
        path = fetch_verb_noun_items(cache_dir=cache_dir)
    path = Path(os.fspath(path)).expanduser()
    if not path.is_file():
        raise MissingFileError(
            f"path={str(path)!r}: no such file. Pass a copy of TopoLM's elli_stimuli.csv "
            "(columns run, block, class, category, pair) or path=None for the pinned download.")
    table = _read_table(path, None, what="csv",
                        fix="save it as a UTF-8 csv with columns run, block, class, category, "
                            "pair.")
    missing = [c for c in _COLUMNS if c not in table.columns]
    if missing:
        raise InvalidDataError(
            f"path={str(path)!r} lacks columns {missing} (has {list(table.columns)}); expected "
            f"TopoLM's elli_stimuli.csv with columns {', '.join(_COLUMNS)}.")
    for col in _COLUMNS:
        table[col] = table[col].str.strip()
    table["class"] = table["class"].str.lower()
    bad = sorted(set(table["class"]) - set(VERB_NOUN_CLASSES))
    if bad:
        raise InvalidDataError(
            f"path={str(path)!r}: column 'class' holds {first_few(bad)}; expected only "
            f"'verb' and 'noun' (the two sides of the contrast).")
    for col in ("pair", "run", "category"):
        empty = np.flatnonzero(table[col].to_numpy(dtype=str) == "")
        if empty.size:
            raise InvalidDataError(
                f"path={str(path)!r} has empty cells in column {col!r} (lines "
                f"{first_few((empty + 2).tolist())}, the header being line 1); fill them in "
                "or delete those rows.")
    block = pd.to_numeric(table["block"], errors="coerce")
    if block.isna().any() or not np.equal(np.mod(block, 1), 0).all():
        rows = np.flatnonzero(block.isna() | (np.mod(block.fillna(0), 1) != 0))
        raise InvalidDataError(
            f"path={str(path)!r}: column 'block' must hold whole numbers; lines "
            f"{first_few((rows + 2).tolist())} do not.")
    key = table["class"] + ": " + table["pair"]
    if key.duplicated().any():
        raise AlignmentError(
            f"path={str(path)!r} gives one phrase twice in one class "
            f"({first_few(key[key.duplicated()].unique().tolist())}); every item must be its "
            "own phrase.")
    counts = table["class"].value_counts()
    few = [c for c in VERB_NOUN_CLASSES if counts.get(c, 0) < 2]
    if few:
        raise InvalidDataError(
            f"path={str(path)!r} has fewer than 2 items of class {few} "
            f"({ {c: int(counts.get(c, 0)) for c in VERB_NOUN_CLASSES} }); the verb - noun "
            "contrast needs at least 2 of each.")
    meta = pd.DataFrame({"run": table["run"].to_numpy(), "block": block.to_numpy(np.int64),
                         "semantic_category": table["category"].to_numpy()})
    return StimulusSet([f"elli-{i}" for i in range(len(table))], table["pair"].tolist(), "text",
                       categories=table["class"].tolist(), metadata=meta, name="verb_noun")
