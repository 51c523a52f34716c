"""The main job's summary, built stage by stage (reporting._vision.results, said by .words):
each builder on its own."""

import numpy as np
import pandas as pd
import pytest

from toponeuro.analysis import topography_table
from toponeuro.exceptions import InvalidDataError
from toponeuro.reporting._kit.constants import MAP_DOMAINS
from toponeuro.reporting._kit.report import (
    ArrangementDrawsRecord,
    ArrangementRecord,
    CortexSourceRecord,
    MapHeadlineRecord,
    MapHemisphereRecord,
    MapLayerRecord,
    PatchCentroidsRecord,
    SimilarityTestRecord,
)
from toponeuro.reporting._vision import results as _results
from toponeuro.reporting._vision import words as _words

PAIRS = [("faces", "bodies"), ("faces", "places")]


@pytest.fixture(scope="module")
def topo():
    """Two sheets: on "a" faces = bodies (planted), on "b" every map is independent noise."""
    rng = np.random.default_rng(0)
    yy, xx = np.mgrid[0:12, 0:12]
    blob = np.exp(-((yy - 4) ** 2 + (xx - 5) ** 2) / 8.0)
    a = {d: rng.standard_normal((12, 12)) for d in MAP_DOMAINS}
    a["faces"] = blob + 0.05 * rng.standard_normal((12, 12))
    a["bodies"] = blob + 0.05 * rng.standard_normal((12, 12))
    b = {d: rng.standard_normal((12, 12)) for d in MAP_DOMAINS}
    return topography_table({"a": a, "b": b}, pairs=PAIRS, n_permutations=19, random_state=0)


def test_layer_summary_reads_its_layer_of_the_table(topo):
    s = _results.layer_summary(topo, "a", 3.25, alpha=0.05)
    assert isinstance(s, MapLayerRecord)  # typed: read by field
    for d in MAP_DOMAINS:
        assert s.smoothness[d] == round(float(topo.row("a", d)["smoothness"]), 4)
        assert s.n_patches_found[d] == int(topo.row("a", d)["n_patches"])
    assert s.sheet == topo.row("a", "faces")["shape"]
    assert s.map_similarity["faces-bodies"] == round(topo.similarity_of("a", "faces-bodies"), 4)
    assert s.map_similarity["faces-bodies"] > 0.5  # planted
    assert s.map_similarity_null["faces-bodies"].value == pytest.approx(
        topo.similarity_of("a", "faces-bodies"), abs=1e-4)
    assert s.effective_dimensionality == 3.25
    assert len(s.signatures) == 2 + 2 * len(MAP_DOMAINS)
    assert s.map_similarity_random_init is None
    assert "map_similarity_random_init" not in s.to_summary()  # not computed: not written
    assert MapLayerRecord.from_summary(s.to_summary()) == s
    other = _results.layer_summary(topo, "b", 1.0)
    assert other.smoothness != s.smoothness


def test_layer_summary_sets_the_random_initialisation_beside(topo):
    base = {("a", "faces-bodies"): topo.similarities["b", "faces-bodies"]}
    s = _results.layer_summary(topo, "a", 1.0, random_init=base)
    assert set(s.map_similarity_random_init) == {"faces-bodies"}
    assert s.map_similarity_random_init["faces-bodies"].value == pytest.approx(
        topo.similarity_of("b", "faces-bodies"), abs=1e-4)
    assert "at random initialisation" in s.signatures[0]


@pytest.mark.parametrize("representation,says", [("binary", "none (the atlas's fixed ROIs"),
                                                  ("values", "none drawn (they describe")])
def test_cortex_summary_names_its_nulls(topo, representation, says):
    c = _results.cortex_summary(topo, {"representation": representation}, alpha=0.05)
    assert c.source == CortexSourceRecord(representation=representation)
    assert c.source.to_summary() == {"representation": representation}
    assert c.source.user_maps == (representation == "values")
    assert c.nulls.startswith(
        "map similarity: spin test, 19 draws of 10 rotations of the sphere ")
    assert says in c.nulls and c.nulls.endswith(
        "; arrangement: spin test, 19 independent rotations of each domain's map")
    # the hemispheres under their own key, never beside the keys that describe the maps
    assert set(c.to_summary()) == {"atlas", "source", "nulls", "null_calibration",
                                   "hemispheres"}
    assert set(c.hemispheres) == {"a", "b"}
    assert c.null_calibration["mesh"] == "fsaverage5"  # the atlas's mesh: its rates
    fs_lr = _results.cortex_summary(topo, {"representation": representation,
                                           "mesh": "fs_LR_32k"}, alpha=0.05)
    assert fs_lr.null_calibration["mesh"] == "fs_LR_32k"
    assert "volume" in fs_lr.null_calibration["kinds"]
    entry = c.hemispheres["a"].map_similarity_null["faces-bodies"]  # 19 draws of 10 rotations
    assert isinstance(entry, SimilarityTestRecord)
    assert entry.n_moves == 10 and 10 <= entry.n_effective <= 19
    assert c.hemispheres["a"].n_regions == 4  # the visfAtlas has no object ROI: objects not counted
    assert set(c.hemispheres["a"].map_similarity_null) == {"faces-bodies", "faces-places"}
    assert MapHemisphereRecord.from_summary(c.hemispheres["a"].to_summary()) == c.hemispheres["a"]


def _comparison_table(arrangement: dict) -> pd.DataFrame:
    index = pd.MultiIndex.from_tuples([("arrangement_spearman", "centroids"),
                                       ("arrangement_n_regions", "centroids")])
    t = pd.DataFrame({"model_vs_cortex": [0.25, 3.0]}, index=index)
    t.attrs["arrangement"] = arrangement
    return t


def test_arrangement_summary_is_json_ready_and_undefined_is_none():
    a = _results.arrangement_summary(_comparison_table({
        "spearman": 0.5, "p_value": 0.3, "p_shift": 0.3, "p_spin": np.nan, "n_domains": 3,
        "n_pairs": 3, "domains": ("faces", "bodies", "places"), "model_distances": [1.0, 2.5],
        "cortex_distances": np.array([10.0, np.nan])}))
    assert isinstance(a, ArrangementRecord)
    assert a.spearman == 0.5 and a.p_spin is None and a.null_shift_mean is None
    assert a.domains == ["faces", "bodies", "places"] and a.pairs == []
    assert a.model_distances == [1, 2.5] and a.cortex_distances_mm == [10, None]
    assert a.patch_centroids == PatchCentroidsRecord(spearman=0.25, n_regions=3)
    # its draws are the settings' (MapReport.arrangement_draws), not repeated here (issue 44)
    assert "n_permutations" not in a.to_summary()
    with pytest.raises(InvalidDataError, match=r"'n_permutations' \(now settings.null."
                                               r"n_permutations and settings.cortex"):
        ArrangementRecord.from_summary({**a.to_summary(),
                                        "n_permutations": {"shift": 9, "spin": 9}})
    assert ArrangementRecord.from_summary(a.to_summary()) == a
    empty = _results.arrangement_summary(_comparison_table({}))
    assert empty.n_domains == 0 and empty.spearman is None and empty.p_text == "not tested"


def _arrangement(spearman, **kw) -> ArrangementRecord:
    a = dict(spearman=spearman, p_value=None, p_shift=None, p_spin=None, null_shift_mean=None,
             null_spin_mean=None, n_domains=3, n_pairs=3, domains=[], pairs=[],
             model_distances=[], cortex_distances_mm=[],
             patch_centroids={"spearman": None, "n_regions": 0}, p_text="")
    a.update(kw)
    drawn = a.pop("draws", None)
    if not a["p_text"]:
        a["p_text"] = _words.arrangement_p_text(
            a["p_value"], a["p_shift"], a["p_spin"], drawn and ArrangementDrawsRecord(**drawn))
    return ArrangementRecord(**a)


def test_headline_summary_is_the_named_layer_against_each_hemisphere():
    arrangement = {"l1|left": _arrangement(0.1), "l2|left": _arrangement(0.2),
                   "l2|right": _arrangement(0.3)}
    h = _results.headline_summary("l2", ["left", "right"], arrangement)
    assert isinstance(h, MapHeadlineRecord)
    assert h.layer == "l2" and h.rule.startswith("the deepest mapped layer")
    assert h.arrangement == {"left": arrangement["l2|left"], "right": arrangement["l2|right"]}
    assert _results.headline_summary("l1", ["left", "right"], arrangement).arrangement == {
        "left": arrangement["l1|left"]}
    # summary.json's entry reads back into the same record, its arrangements typed too
    assert MapHeadlineRecord.from_summary(h.to_summary()) == h


def test_the_arrangement_shows_its_one_p_first():
    """One test, one p: the arrangement's p is the larger of its two nulls, named as such."""
    text = _words.arrangement_p_text(0.908, 0.908, 0.818)
    assert text.startswith("p = 0.908 (one-sided, the larger of")
    assert "0.818" in text
    # the spin null decides here
    assert _words.arrangement_p_text(0.3, 0.1, 0.3).startswith("p = 0.300")
    assert _words.arrangement_p_text(None, None, None) == "not tested"
    # the draws recorded: a floor is written with them; a null not drawn says so
    few = ArrangementDrawsRecord(shift=19, spin=0)
    assert _words.arrangement_p_text(0.05, 0.05, None, few) == (
        "p ≤ 0.05 (one-sided, the larger of two nulls: sheet maps shifted p ≤ 0.05 (19 draws), "
        "cortex maps spun not drawn)")


def test_the_headline_with_too_few_draws_says_so_not_chance():
    # before: 9 draws (the smallest p they can give is 0.1) headlined "not distinguishable
    # from chance arrangements", a negative finding the test could never have contradicted
    from toponeuro.reporting._vision.words import headline_parts

    def answer(p, n):
        a = _arrangement(0.6, n_domains=4, n_pairs=6, p_value=p, p_shift=p, p_spin=p,
                         domains=["faces", "bodies", "places", "characters"],
                         draws={"shift": n, "spin": n})
        head = MapHeadlineRecord(layer="l4", rule="r", arrangement={"left": a})
        return headline_parts(head, alpha=0.05,
                              draws=ArrangementDrawsRecord(shift=n, spin=n))["answers"]["left"]

    few = answer(0.2, 9)
    assert "too few draws to test at α = 0.05" in few and "chance" not in few
    assert "not distinguishable from chance" in answer(0.2, 99)
    assert "matches beyond both nulls" in answer(0.01, 99)
    assert "not tested" in answer(None, 99) and "chance" not in answer(None, 99)


def _view_tables() -> dict:
    """``(layer, hemisphere) ->`` a compare_tables-like table: the map similarities of both
    sides and the arrangement of the domain centres."""
    index = pd.MultiIndex.from_tuples(
        [("map_similarity", "faces-bodies"), ("map_similarity", "faces-places"),
         ("domain_arrangement", "spearman"), ("domain_arrangement", "n_domains")])
    t = pd.DataFrame({"model": [-0.45, 0.1, np.nan, np.nan],
                      "cortex": [0.41, -0.2, np.nan, np.nan],
                      "model_vs_cortex": [np.nan, np.nan, 0.5, 4.0]}, index=index)
    return {("l", "left"): t}


def test_comparison_view_reads_the_typed_report():
    """Issue 44: the view takes MapResult.report; each side's test and the arrangement's p
    come from its records; 0.4's summary dict is read into the report once, with a
    FutureWarning."""
    from test_report_model import _SIM_TEST, _map_report

    tables = _view_tables()
    bare = _words.comparison_view(tables, "l", ["left"])
    assert bare.iloc[0].tolist() == ["SSIM -0.45", "Pearson r +0.41"]
    assert not any("test" in i for i in bare.index)
    rep = _map_report()
    layer = rep.per_layer["l"]
    rep.per_layer["l"] = MapLayerRecord.from_summary({**layer.to_summary(), "map_similarity_null": {
        "faces-bodies": {**_SIM_TEST, "method": "ssim", "null": "shift", "verdict": "not tested"}}})
    rep.cortex.hemispheres["left"] = MapHemisphereRecord.from_summary(
        {**rep.cortex.hemispheres["left"].to_summary(),
         "map_similarity_null": {"faces-bodies": _SIM_TEST}})
    rep.arrangement = {"l|left": _arrangement(0.5, p_value=0.3, p_shift=0.3, p_spin=0.1,
                                              n_domains=4)}
    view = _words.comparison_view(tables, "l", ["left"], rep)
    rows = dict(zip(view.index, view.values.tolist()))
    test = "map similarity test · faces–bodies (two-sided, each side its own null)"
    assert rows[test] == ["not tested", "share territory; spin test, p = 0.020"]
    assert rows["map similarity test · faces–places (two-sided, each side its own null)"] == [
        "–", "–"]
    assert rows["arrangement · test (one-sided)"] == ["–", rep.arrangement["l|left"].p_text]
    assert rows["arrangement · Spearman ρ of the centre distances, sheet vs cortex"][1] == "ρ +0.50"
    with pytest.warns(FutureWarning, match=r"comparison_view\(report=<a summary dict>\)"):
        old = _words.comparison_view(tables, "l", ["left"], rep.to_summary())
    pd.testing.assert_frame_equal(old, view)
