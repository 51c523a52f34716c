"""``toponeuro prepare`` (issue 46): after it, the vision job's cortex side is read, not drawn.

The cache is a folder of this test's own (``TOPONEURO_NULL_CACHE``) and the draws are few;
what is counted is :func:`toponeuro._io.null_cache.cache_counts`: a hit is a verified entry
read, a miss one computed.
"""

from __future__ import annotations

import pytest

pytest.importorskip("matplotlib")
models = pytest.importorskip("toponeuro.models")
if not hasattr(models, "list_models") or not models.list_models("toponet_demo.*"):
    pytest.skip("needs the model registry with the demo TopoNets", allow_module_level=True)

from test_language_map import lang_csv, tiny_lm, vn_csv  # noqa: E402, F401 - fixtures
from test_map import _fake_floc  # noqa: E402

from toponeuro._io.null_cache import cache_counts  # noqa: E402
from toponeuro.settings import CortexInput, FlocStimuli, NullSettings, RulerRun  # noqa: E402

#: what the job draws on the cortex: the spin tests of the maps, of their arrangement, and
#: every cortex descriptor of the one ruler
CORTEX_KINDS = ("pair-similarity", "arrangement-spin", "ruler-cortex")
#: too few draws to test at alpha: expected with the few draws here
pytestmark = pytest.mark.filterwarnings("ignore::toponeuro.exceptions.ToponeuroWarning")
FEW = {"cortex": CortexInput(n_permutations=9), "ruler": RulerRun(n_permutations=9)}


def _grew(before: dict, after: dict, what: str) -> dict:
    return {k: n[what] - before.get(k, {}).get(what, 0) for k, n in after.items()
            if n[what] - before.get(k, {}).get(what, 0)}


@pytest.mark.slow  # prepare, then an end-to-end run_map (model, atlas, ruler)
def test_after_prepare_the_jobs_cortex_side_is_read_not_drawn(tmp_path, monkeypatch):
    import toponeuro
    from toponeuro.reporting import run_map

    monkeypatch.setenv("TOPONEURO_NULL_CACHE", str(tmp_path / "nulls"))
    made = toponeuro.prepare(**FEW, verbose=0)
    assert set(CORTEX_KINDS) <= set(made["drawn"]) and made["already"] == {}
    assert len(list((tmp_path / "nulls").glob("*.npz"))) == sum(made["drawn"].values())

    before = cache_counts()
    run_map(stimuli=FlocStimuli(_fake_floc(tmp_path / "floc"), numbers=[97, 98]),
            out_dir=tmp_path / "o",
            null=NullSettings(n_permutations=9), random_init_baseline=False, verbose=0, **FEW)
    after = cache_counts()
    missed = {k: n for k, n in _grew(before, after, "miss").items() if k in CORTEX_KINDS}
    read = _grew(before, after, "hit")
    assert missed == {}, f"the job drew cortex entries prepare should have made: {missed}"
    for kind in CORTEX_KINDS:  # every entry prepare drew is what the job reads
        assert read.get(kind) == made["drawn"][kind], (kind, read, made)
    assert "geodesic-weights" not in _grew(before, after, "miss")  # no shortest paths either

    again = toponeuro.prepare(**FEW, verbose=0)  # a second prepare draws nothing
    assert again["drawn"] == {} and set(CORTEX_KINDS) <= set(again["already"])


@pytest.mark.slow
def test_prepare_for_another_seed_draws_again(tmp_path, monkeypatch):
    """The entries are keyed by the seed: one prepared for seed 0 does not serve seed 1."""
    from toponeuro.reporting import prepare

    monkeypatch.setenv("TOPONEURO_NULL_CACHE", str(tmp_path / "nulls"))
    prepare(**FEW, verbose=0)
    other = prepare(**FEW, null=NullSettings(random_state=1), verbose=0)
    assert "ruler-cortex" in other["drawn"] and "pair-similarity" in other["drawn"]


@pytest.mark.slow  # an end-to-end `toponeuro prepare` (the visfAtlas's cortex side, ~4 s)
def test_prepare_says_what_it_did(tmp_path, monkeypatch, capsys):
    """The one line of verbose=1, and the command line's exit status (no fLoc images)."""
    from toponeuro.cli import main

    monkeypatch.setenv("TOPONEURO_NULL_CACHE", str(tmp_path / "nulls"))
    # one hemisphere, few draws, one ruler draw: the smallest prepare there is
    assert main(["prepare", "--hemispheres", "left", "--cortex-n-permutations", "9",
                 "--ruler-n-permutations", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("prepared the cortex side of `toponeuro map`: ") and " drawn" in out
    assert list((tmp_path / "nulls").glob("pair-similarity-*.npz"))


def test_prepare_refuses_the_language_jobs_items_for_the_map(capsys):
    """--stimuli and --verb-noun are the language job's: without --language, a one-line
    error naming the fix, nothing drawn."""
    from toponeuro.cli import main

    assert main(["prepare", "--stimuli", "items.csv"]) == 1
    err = capsys.readouterr().err
    assert "--language" in err and "Traceback" not in err
    from toponeuro.exceptions import ParameterError
    from toponeuro.reporting import prepare

    with pytest.raises(ParameterError, match="job='language'"):
        prepare(stimuli="items.csv")


@pytest.mark.slow  # prepare --language, then an end-to-end language job
def test_after_prepare_the_language_jobs_cortex_side_is_read_with_another_model(
        tiny_lm, lang_csv, vn_csv, tmp_path, monkeypatch):  # noqa: F811 - fixtures
    """Prepared with the default language model, read by a run of another model: the
    cortex side (the parcels, your verb - noun map, every ruler descriptor on them) is the
    same for every model."""
    from test_language_map import _verbs_map

    from toponeuro.reporting import prepare, run_language_map
    from toponeuro.settings import LanguageStimuli

    monkeypatch.setenv("TOPONEURO_NULL_CACHE", str(tmp_path / "nulls"))
    kw = {"stimuli": LanguageStimuli(lang_csv, verb_noun=vn_csv),
          "cortex": CortexInput(maps={"verbs": {"left": _verbs_map()}}, threshold=2.0,
                                n_permutations=9),
          "null": NullSettings(n_permutations=9), "ruler": RulerRun(n_permutations=9)}
    made = prepare("language", verbose=0, **kw)
    assert made["drawn"].get("ruler-cortex") and made["already"] == {}
    before = cache_counts()
    run_language_map(tiny_lm, out_dir=tmp_path / "o", verbose=0, **kw)
    after = cache_counts()
    assert not _grew(before, after, "miss"), _grew(before, after, "miss")
    assert _grew(before, after, "hit")["ruler-cortex"] == made["drawn"]["ruler-cortex"]
