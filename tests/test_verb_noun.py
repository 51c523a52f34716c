"""TopoLM's verb - noun items (Elli et al., 2019) and the language job's verb - noun contrast."""

from __future__ import annotations

import numpy as np
import pytest

from toponeuro import exceptions as E
from toponeuro.stimuli import VERB_NOUN_CLASSES, load_verb_noun_items

HEADER = "run,block,class,category,pair\n"


def _write(tmp_path, body, name="elli.csv"):
    p = tmp_path / name
    p.write_text(HEADER + body)
    return p


def test_the_shipped_items_are_read_as_they_come(shared_dir):
    s = load_verb_noun_items(shared_dir / "data" / "topolm" / "elli_stimuli.csv")
    assert len(s) == 576 and s.kind == "text" and s.name == "verb_noun"
    cats = s.categories
    assert {c: int((cats == c).sum()) for c in VERB_NOUN_CLASSES} == {"verb": 288, "noun": 288}
    meta = s.metadata
    assert sorted(meta["run"].unique()) == ["even", "odd"]
    assert meta["block"].dtype.kind == "i" and meta["block"].max() == 143
    assert s.get(0) == "the garage the rink" and cats[0] == "noun"
    assert s.get(8) == "to slurp to lick" and cats[8] == "verb"
    assert meta["semantic_category"].nunique() == 8


@pytest.mark.parametrize("body, error, words", [
    ('odd,0,adjective,x,"a b"\nodd,0,noun,x,"c d"\n', E.InvalidDataError, "adjective"),
    ('odd,0,noun,x,""\nodd,0,verb,x,"c d"\n', E.InvalidDataError, "empty cells in column 'pair'"),
    ('odd,zero,noun,x,"a b"\nodd,0,verb,x,"c d"\n', E.InvalidDataError, "'block'"),
    ('odd,0,noun,x,"a b"\nodd,0,noun,x,"a b"\nodd,0,verb,x,"c d"\nodd,0,verb,x,"e f"\n',
     E.AlignmentError, "one phrase twice"),
    ('odd,0,noun,x,"a b"\nodd,0,noun,x,"g h"\nodd,0,verb,x,"c d"\n', E.InvalidDataError,
     "fewer than 2 items of class ['verb']"),
])
def test_a_broken_item_file_is_refused_with_a_typed_error(tmp_path, body, error, words):
    with pytest.raises(error) as err:
        load_verb_noun_items(_write(tmp_path, body))
    assert words in str(err.value) and "path=" in str(err.value)


def test_missing_columns_and_files_name_the_parameter(tmp_path):
    p = tmp_path / "x.csv"
    p.write_text("run,block,kind,pair\nodd,0,noun,a b\n")
    with pytest.raises(E.InvalidDataError, match=r"lacks columns \['class', 'category'\]"):
        load_verb_noun_items(p)
    with pytest.raises(E.MissingFileError, match="path="):
        load_verb_noun_items(tmp_path / "absent.csv")


def test_classes_are_read_whatever_their_case_and_spaces(tmp_path):
    s = load_verb_noun_items(_write(tmp_path, 'odd,0, Noun ,x,"a b"\nodd,0,noun,x,"g h"\n'
                                              'even,1,VERB,y,"c d"\neven,1,verb,y,"e f"\n'))
    assert s.categories.tolist() == ["noun", "noun", "verb", "verb"]
    assert np.array_equal(s.metadata["block"].to_numpy(), [0, 0, 1, 1])
