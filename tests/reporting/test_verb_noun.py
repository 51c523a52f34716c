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


# --- the model's verb - noun map and the comparison rules -----------------------------------
def _vn_acts(planted, n_per=30, seed=0, side=16):
    from toponeuro import make_activations

    rng = np.random.default_rng(seed)
    cats = np.repeat(["verb", "noun"], n_per)
    x = rng.standard_normal((cats.size, side * side))
    x[cats == "verb"] += planted.ravel()[None, :]
    acts = make_activations({"h": side * side}, n_stimuli=cats.size, categories=list(cats),
                            random_state=0)
    return acts.copy(data=x)


def test_a_planted_verb_noun_blob_is_found_and_its_absence_is_not():
    """Planted truth: verbs > nouns in one blob of the sheet gives a positive t there,
    organised and selective (label null); no effect gives neither claim."""
    from toponeuro.reporting import language_verb_noun

    rr, cc = np.mgrid[:16, :16]
    blob = 1.5 * np.exp(-((rr - 5) ** 2 + (cc - 10) ** 2) / (2 * 2.5**2))
    vn = language_verb_noun(_vn_acts(blob), ["h"], n_permutations=99, random_state=0)
    t = vn.tmap.topo.map("h")
    assert t[5, 10] > 4 and abs(t[14, 1]) < 3
    ct = vn.contrast["h"]
    assert ct.organised.outcome == "beyond chance" and ct.selective.outcome == "beyond chance"
    assert vn.n_units["h"] == 256 and vn.tmap.attrs["contrast"] == "verb - noun"
    null = language_verb_noun(_vn_acts(np.zeros((16, 16)), seed=1), ["h"], n_permutations=99,
                              random_state=0)
    assert null.contrast["h"].selective.outcome == "not beyond chance"


def _side(p, n=999):
    from types import SimpleNamespace as NS

    return NS(p_value=p, n_permutations=n, null="positions", alternative="greater")


def _fit(key, hemi, *rows):
    from types import SimpleNamespace as NS

    from toponeuro.reporting import LanguageFit

    return LanguageFit(key, "l", hemi, "x", "s", NS(rows=list(rows)))


def _row(descriptor, verdict, p, n=999):
    from types import SimpleNamespace as NS

    return NS(descriptor=descriptor, domain="", statistic="s", verdict=verdict,
              reason="r", model=_side(p, n), cortex=_side(p, n))


def test_the_language_headline_is_the_one_rule_of_both_jobs_on_planted_rows():
    """The language job's headline row comes from the vision job's rule (one rule, in
    _kit/headline.py): the most evidence wins across comparisons and hemispheres, a tie
    goes to TopoLM's verb - noun fit, then the left hemisphere; a row that cannot reach
    alpha (3 draws) is never chosen however small its p; none eligible -> None."""
    from toponeuro.reporting import HEADLINE_RULE, headline_fit

    fits = {"verb-noun|left": _fit("verb-noun", "left", _row("clustering", "alike", 0.01)),
            "language|right": _fit("language", "right", _row("smoothness", "unlike", 0.002)),
            "language|left": _fit("language", "left", _row("clustering", "alike", 0.0, 3))}
    fit, pick = headline_fit(fits)
    assert (fit.key, fit.hemisphere, pick.row.descriptor) == ("language", "right", "smoothness")
    assert pick.n_eligible == 2 and pick.n_rows == 3
    tie = {"language|left": _fit("language", "left", _row("clustering", "unlike", 0.001)),
           "verb-noun|right": _fit("verb-noun", "right", _row("clustering", "alike", 0.001)),
           "verb-noun|left": _fit("verb-noun", "left", _row("clustering", "alike", 0.001))}
    fit, _ = headline_fit(tie)
    assert (fit.key, fit.hemisphere) == ("verb-noun", "left")
    assert headline_fit({"language|left": _fit("language", "left",
                                               _row("clustering", "alike", 0.25, 3))}) is None
    assert "never the headline" in HEADLINE_RULE and "language" in HEADLINE_RULE


def test_the_language_headline_sentence_names_the_row_or_says_not_testable():
    from types import SimpleNamespace as NS

    from toponeuro.reporting._language.report import headline_text

    claim = NS(outcome="beyond chance", statistic=0.2, p_value=0.001, n_permutations=999)
    summ = NS(per_layer={"h": NS(n_language_units=7, n_units_with_data=64)})
    side = NS(value=0.3, p_value=0.001, n_permutations=999, null="positions", interval=None,
              alternative="greater")
    row = NS(descriptor="clustering", domain="", statistic="Moran's I", verdict="unlike",
             reason="r", model=side, cortex=side)
    text = headline_text(summ, NS(organised=claim, selective=claim),
                         {"language|right": _fit("language", "right", row)})
    assert text.count(".") == text.count("0.") + 1 and text.endswith(".")  # one sentence
    assert "(7 of 64 units language-selective)" in text
    assert "clustering of its S - N map against the cortex's language map (right hemisphere)" \
        in text and "unlike" in text
    few = NS(**{**vars(row), "model": NS(**{**vars(side), "n_permutations": 3})})
    text = headline_text(summ, NS(organised=claim, selective=claim),
                         {"language|left": _fit("language", "left", few)})
    assert "the answer is not testable" in text


def test_the_headline_answers_both_questions_in_one_sentence():
    from types import SimpleNamespace as NS

    from toponeuro.reporting import answer_both

    def claim(outcome, p):
        return NS(outcome=outcome, statistic=0.2, p_value=p, n_permutations=999)

    both = answer_both(claim("beyond chance", 0.001), claim("not beyond chance", 0.4))
    assert "is organised on the sheet, but not more than random contrasts" in both
    assert "positions null p ≤ 0.001" in both and "label null p = 0.4" in both
    yes = answer_both(claim("beyond chance", 0.001), claim("beyond chance", 0.001))
    assert "and more than random contrasts of its items would be" in yes
    no = answer_both(claim("not beyond chance", 0.3), claim("not beyond chance", 0.5))
    assert "not shown to be organised" in no and "." not in no.rstrip(")").split("(")[0]


@pytest.mark.shared
def test_topolm_s_nc_is_a_cortex_map_and_a_bare_nc_is_the_verbs_map(shared_dir):
    """Issue 45: the .nc TopoLM ships named no loader from --cortex-maps; now it is read by
    load_topolm_contrast, its file recorded (so --overwrite can never replace it)."""
    from toponeuro.atlases import load_cortex_maps
    from toponeuro.reporting import bare_netcdf

    nc = str(shared_dir / "data" / "topolm" / "group-level-contrast.nc")
    assert bare_netcdf(nc) == {"verbs": nc}
    maps = load_cortex_maps(bare_netcdf(nc))
    (hemi, cm), = maps.items()
    assert hemi == "left" and cm.mesh == "fs_LR_32k" and cm.files == [nc]
    vals = np.asarray(cm.maps["verbs"], float)
    assert int(np.isfinite(vals).sum()) == 29280
    rec = cm.source["maps"]["verbs"]["left"]
    assert rec["reader"] == "toponeuro.atlases.read_netcdf_map"


@pytest.mark.parametrize("content, error", [
    (b"", E.InvalidDataError),  # empty
    (b"this is text, not netCDF\n", E.InvalidDataError),  # wrong content
])
def test_a_broken_nc_cortex_map_is_refused_with_one_clear_error(tmp_path, content, error):
    from toponeuro.atlases import load_cortex_maps

    p = tmp_path / "contrast.nc"
    p.write_bytes(content)
    with pytest.raises(error, match=r"cortex_maps\['verbs'\].*not a readable netCDF"):
        load_cortex_maps({"verbs": str(p)})


def test_an_nc_of_another_layout_names_what_it_expects(tmp_path):
    import xarray as xr

    from toponeuro.atlases import load_cortex_maps

    p = tmp_path / "other.nc"
    xr.Dataset({"beta": ("v", np.zeros(10))}).to_netcdf(p)
    with pytest.raises(E.UnknownNameError, match="no variable 't_values'"):
        load_cortex_maps({"verbs": str(p)})
    xr.Dataset({"t_values": ("v", np.zeros(10))}).to_netcdf(p)
    with pytest.raises(E.DimensionError, match="32,492"):
        load_cortex_maps({"verbs": str(p)})
    trunc = tmp_path / "trunc.nc"
    xr.Dataset({"t_values": ("v", np.zeros(32492))}).to_netcdf(trunc)
    trunc.write_bytes(trunc.read_bytes()[:2000])
    with pytest.raises(E.InvalidDataError, match="not a readable netCDF"):
        load_cortex_maps({"verbs": str(trunc)})


def test_the_hints_name_the_parameters_as_the_api_does(monkeypatch):
    """The verb - noun hints name the job's parameters by their settings fields
    (``stimuli.verb_noun``, ``cortex.maps``), the names the command line rewrites into its
    flags, never a bare 0.4 keyword (issue 44)."""
    import dataclasses
    import re

    import toponeuro.brain
    from toponeuro.exceptions import DownloadError
    from toponeuro.reporting._language import verbs
    from toponeuro.settings import CortexInput, LanguageStimuli

    def offline(cache_dir=None):
        raise DownloadError("no network")

    monkeypatch.setattr(toponeuro.brain, "load_topolm_contrast", offline)
    with pytest.raises(DownloadError) as info:
        verbs.verb_noun_cortex(None)
    fields = {"stimuli": LanguageStimuli, "cortex": CortexInput}
    for text in (verbs._HINT, str(info.value)):
        named = re.findall(r"(?<![\w.])([a-z_]+)\.([a-z_]+)=", text)
        assert named and "stimuli.verb_noun=None" in text, text
        for group, field in named:
            assert field in {f.name for f in dataclasses.fields(fields[group])}, (group, field)
        assert not re.search(r"(?<![\w.])(verb_noun|cortex_maps)\b", text), text
    assert "cortex.maps={'verbs': 'group-level-contrast.nc'}" in str(info.value)
