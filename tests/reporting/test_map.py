"""`toponeuro map` end to end on a tiny fLoc-like folder, and its bad-input errors."""

from __future__ import annotations

import json

import numpy as np
import pytest
import xarray as xr
from PIL import Image

from toponeuro.exceptions import (
    DownloadError,
    InvalidDataError,
    SheetError,
    ToponeuroError,
    TrainingImagesWarning,
    UnknownNameError,
)

pytest.importorskip("matplotlib")
models = pytest.importorskip("toponeuro.models")
if not hasattr(models, "list_models") or not models.list_models("toponet_demo.*"):
    pytest.skip("needs the model registry with the demo TopoNets", allow_module_level=True)

from toponeuro.cli import main  # noqa: E402
from toponeuro.cli._map import _numbers  # noqa: E402
from toponeuro.reporting._vision.job import DEFAULT_MAP_MODEL, MAP_DOMAINS, run_map  # noqa: E402

CATEGORIES = ["adult", "child", "body", "limb", "corridor", "house", "word", "number", "car",
              "instrument"]


def _fake_floc(root, numbers=(97, 98), categories=CATEGORIES, seed=0):
    """fLoc layout with images whose brightness and texture differ by category."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[:32, :32] / 32
    for i, c in enumerate(categories):
        (root / c).mkdir(parents=True, exist_ok=True)
        for n in numbers:
            g = np.sin(2 * np.pi * (2 + i) * (xx * np.cos(i) + yy * np.sin(i)))
            arr = 127 + 100 * g + 20 * rng.standard_normal(g.shape)
            Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8), "L").save(
                root / c / f"{c}-{n}.jpg"
            )
    return root


@pytest.fixture(scope="module")
def mapped(tmp_path_factory):
    """One CLI run shared by the tests below (the atlas projection is cached per run)."""
    base = tmp_path_factory.mktemp("map")
    floc = _fake_floc(base / "floc")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TOPONEURO_DATA", str(base / "cache"))
        import contextlib
        import io

        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            rc = main(["map", "--stimuli", str(floc), "--images", "97-98", "--out",
                       str(base / "out"), "--no-progress"])
    return rc, base / "out", buf.getvalue()


def test_map_warns_in_one_line_each_once(tmp_path, monkeypatch, capsys):
    """toponeuro's warnings from the command line: 'toponeuro: warning: ...' in flags, each
    message once (the job's nulls repeated the same too-few-draws warning once per pair and
    layer), never Python's 'file:line: Category:' form."""
    import warnings

    import toponeuro.reporting
    from toponeuro.exceptions import ToponeuroWarning

    def fake_run_map(*args, **kwargs):
        for _ in range(3):
            warnings.warn("too few draws here; set n_permutations=99", ToponeuroWarning,
                          stacklevel=2)
        warnings.warn("another one", ToponeuroWarning, stacklevel=2)

    monkeypatch.setattr(toponeuro.reporting, "run_map", fake_run_map)
    floc = _fake_floc(tmp_path / "floc")
    assert main(["map", "--stimuli", str(floc), "--out", str(tmp_path / "o")]) == 0
    lines = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert lines == ["toponeuro: warning: too few draws here; set --n-permutations 99",
                     "toponeuro: warning: another one"]


@pytest.mark.slow  # reads the full default CLI run (~3 min at load 13)
def test_map_writes_every_output(mapped):
    rc, out, printed = mapped
    assert rc == 0
    for name in ("report.html", "summary.json", "results.nc", "comparison.csv",
                 "sheet_maps.png", "smoothness_profiles.png", "cortex_rois.png",
                 "comparison.png", "arrangement_left.png", "arrangement_right.png"):
        assert (out / name).is_file() and (out / name).stat().st_size > 0, name
    html = (out / "report.html").read_text()
    assert "data:image/png;base64," in html  # figures embedded: readable on its own
    assert "not</b> one of the TopoNets paper" in html
    assert html.startswith("<!DOCTYPE html>") and "<title>toponeuro map — toponet_demo." in html
    assert "toponeuro map" in printed and "smoothness" in printed
    assert "held-out: none of the stimuli are training images" in printed


@pytest.mark.slow  # reads the full default CLI run (~3 min at load 13)
def test_map_summary_has_the_expected_keys(mapped):
    _, out, _ = mapped
    s = json.loads((out / "summary.json").read_text())
    assert {"model", "stimuli", "layers", "per_layer", "cortex", "arrangement", "files"} <= set(s)
    assert s["model"]["name"] == DEFAULT_MAP_MODEL and s["model"]["tau"] > 0
    assert s["stimuli"]["n_stimuli"] == 20 and s["stimuli"]["numbers"] == [97, 98]
    train = s["stimuli"]["training_images"]  # the demo's recipe: trained on 1-96
    assert train["numbers"] == [1, 96] and train["n_overlap"] == 0
    layer = s["layers"][-1]
    per = s["per_layer"][layer]
    assert set(per["smoothness"]) == set(MAP_DOMAINS) == set(per["n_patches"])
    assert set(per["map_similarity"]) == {"faces-bodies", "faces-places"}
    # every model statistic carries its null; signatures are stated in words with it
    assert set(per["smoothness_null"]["faces"]) == {"mean", "std", "p_value"}
    assert per["map_similarity_null"]["faces-bodies"]["method"] == "ssim"
    assert per["map_similarity_null"]["faces-bodies"]["null"] == "mirror"
    assert any("faces and bodies" in t and "null" in t and ("p = " in t or "p < " in t)
               for t in per["signatures"])
    # one test, one p: the sentence's p is the one in the table entry, with its tail named
    fb = per["map_similarity_null"]["faces-bodies"]
    assert fb["alternative"] == "two-sided" and fb["p_text"] in per["signatures"][0]
    assert fb["verdict"] in ("share territory", "avoid each other", "no evidence either way")
    # the random-initialisation value stands beside the trained one
    assert set(per["map_similarity_random_init"]) == {"faces-bodies", "faces-places"}
    assert "at random initialisation" in per["signatures"][0]
    assert s["settings"]["null"]["n_permutations"] > 0 and "smoothness" in s["definitions"]
    assert not {"n_permutations", "patch_threshold_t", "cortex_permutations", "alpha",
                "patch_min_units"} & set(s)
    assert all(per["n_patches"][d] <= per["n_patches_found"][d] for d in MAP_DOMAINS)
    assert per["effective_dimensionality"] >= 1
    assert set(s["cortex"]["hemispheres"]) == {"left", "right"}  # under their own key (0.5)
    # the cortex's map similarities carry their spin-test null; ROI smoothness/patches none
    spin = s["cortex"]["hemispheres"]["left"]["map_similarity_null"]["faces-bodies"]
    assert spin["null"] == "spin" and 0 < spin["p_value"] <= 1 and spin["std"] > 0
    assert "spin test, 1000 draws of 500 rotations" in s["cortex"]["nulls"]  # issue 47
    assert set(s["cortex"]["hemispheres"]["left"]["n_patches"]) == {"faces", "bodies", "places", "characters"}
    assert f"{layer}|left" in s["arrangement"]


@pytest.mark.slow  # reads the full default CLI run (~3 min at load 13)
def test_map_report_answers_first(mapped):
    import html as _html
    import re

    _, out, printed = mapped
    html = _html.unescape((out / "report.html").read_text())
    detail = html.index('id="detail"')
    answer = html.index('id="answer"')
    # the headline (question, number with its statistic, null, verdict, layer rule), then
    # its figure, then what was run; methods and per-layer numbers only in the detail
    q = html.index("Do the domains sit on the sheet of")
    rho = html.index("Spearman ρ =", q)
    img = html.index("<img")
    run = html.index("<b>Run:</b>")
    methods = html.index("Methods: what was run, in full")
    assert answer < q < rho < img < run < detail < methods
    assert html.index("the larger of two nulls") < img and html.index("rule fixed") < img
    first = html[:detail]
    assert not re.search(r"[0-9a-f]{64}", first)  # no sha256 up top
    assert re.search(r"[0-9a-f]{64}", html[detail:])  # it is in the methods
    assert "tdann_t" not in html and "TDANN's t" in html
    # what was run: two lines
    run_par = first[first.index('<p class="run">'):]
    assert run_par[:run_par.index("</p>")].count("<br>") == 1
    # per hemisphere, what is compared is counted
    assert "4 on the left hemisphere" in first and "3 on the right hemisphere" in first
    assert "3 distances ρ can only be −1, −0.5, +0.5 or +1" in first
    assert "the five domains" not in html
    # every number names its statistic; one way to write a floor
    assert "SSIM " in html and "Pearson r " in html
    assert not re.search(r"p < 0\.\d*1{2}\b", html + printed)  # no "p < 0.0011"
    assert "snake" not in html and "n_patches" not in html.split("</style>")[-1]
    assert "faces–bodies Pearson r" in printed and "Spearman ρ" in printed


@pytest.mark.slow  # reads the full default CLI run (~3 min at load 13)
def test_map_headline_is_the_one_ruler_with_its_rule_and_table(mapped):
    """Issue 43: every descriptor on both sides per layer and hemisphere; the visfAtlas's
    0/1 ROIs leave smoothness out (listed); the headline rule is in summary.json and the
    report, its choice is a row whose nulls can reach alpha on both sides, and the report
    opens with it before the 0.4 arrangement question."""
    import html as _html

    from toponeuro.analysis import can_reject
    from toponeuro.reporting import HEADLINE_RULE

    _, out, _ = mapped
    s = json.loads((out / "summary.json").read_text())
    layer = s["layers"][-1]
    entry = s["ruler"]["comparisons"][f"{layer}|left"]
    assert entry["left_out"].keys() == {"smoothness"}
    assert {r["descriptor"] for r in entry["rows"]} == {
        "clustering", "selective_fraction", "patch_count", "patch_size", "domain_similarity",
        "arrangement"}
    assert all(r["verdict"] in ("alike", "unlike", "not testable") and r["statistic"]
               for r in entry["rows"])
    assert len(s["ruler"]["comparisons"]) == 2 * len(s["layers"])
    # the model side carries its interval over stimuli; the cortex side its declared region,
    # both recorded once, in the settings (issue 44)
    assert not {"cortex_region", "n_boot"} & set(entry)
    assert s["settings"]["ruler"]["descriptors"]["cortex_region"] == "votc"
    assert s["settings"]["ruler"]["descriptors"]["n_boot"] == 50
    clus = [r for r in entry["rows"] if r["descriptor"] == "clustering"]
    assert clus and all(r["model_boot"] == 50 and r["model_lo"] <= r["model_hi"]
                        for r in clus)
    head = s["ruler"]["headline"]
    assert head["rule"] == HEADLINE_RULE
    if head["chosen"]:
        assert head["verdict"] in ("alike", "unlike")
        for side in ("model", "cortex"):
            assert can_reject(head[f"{side}_draws"], s["settings"]["null"]["alpha"])
            assert head[f"{side}_null"] != "none"
    html = _html.unescape((out / "report.html").read_text())
    assert html.index("on one ruler") < html.index("Do the domains sit on the sheet of")
    assert "Headline rule (fixed before any result)" in html
    assert "one row per descriptor" in html and "Moran's I" in html
    assert "model_and_cortex.png" in s["files"] and (out / "model_and_cortex.png").is_file()
    assert (out / "comparison_ruler.csv").is_file()


@pytest.mark.slow  # reads the full default CLI run (~3 min at load 13)
def test_map_summary_validates_against_its_schema(mapped):
    jsonschema = pytest.importorskip("jsonschema")
    from toponeuro.reporting import summary_schema

    _, out, _ = mapped
    s = json.loads((out / "summary.json").read_text())
    jsonschema.validate(s, summary_schema("map"))
    layer = s["layers"][-1]
    s["per_layer"][layer]["n_patches"]["faces"] = "0"  # a count as a string is refused
    with pytest.raises(jsonschema.ValidationError, match="'0'"):
        jsonschema.validate(s, summary_schema("map"))


@pytest.mark.slow  # reads the full default CLI run (~3 min at load 13)
def test_map_results_netcdf_keeps_the_sheet_coords(mapped):
    _, out, _ = mapped
    ds = xr.load_dataset(out / "results.nc", engine="h5netcdf")
    assert ds["selectivity"].dims == ("domain", "unit")
    assert {"layer", "row", "col", "channel"} <= set(ds.coords)
    sel = ds["selectivity"].sel(domain="faces")
    assert sel.topo.map(str(ds["sheet_layer"].values[-1])).shape == (16, 16)
    assert ds["smoothness"].dims == ("sheet_layer", "domain")
    assert ds["smoothness_p"].dims == ("sheet_layer", "domain")
    assert ds["map_similarity_p"].dims == ("sheet_layer", "pair")


def test_cli_images_argument():
    assert _numbers("97-99") == [97, 98, 99] and _numbers("all") is None
    import argparse

    with pytest.raises(argparse.ArgumentTypeError):
        _numbers("x-3")
    with pytest.raises(argparse.ArgumentTypeError):
        _numbers("9-3")


# -- bad input ----------------------------------------------------------------------------
def test_unknown_model_lists_close_matches(tmp_path):
    with pytest.raises(UnknownNameError, match="toponet_demo"):
        run_map("toponet_demo.tau_99", stimuli=tmp_path / "s", out_dir=tmp_path / "o",
                progress=False)


def test_absent_contrast_categories_raise(tmp_path):
    floc = _fake_floc(tmp_path / "floc", categories=CATEGORIES[:8])  # no cars, no instruments
    with pytest.raises(InvalidDataError, match="car"):
        run_map(stimuli=floc, numbers=[97, 98], out_dir=tmp_path / "o", progress=False)


def test_layer_with_too_few_units_raises(tmp_path):
    floc = _fake_floc(tmp_path / "floc")
    # the superseded demo model's fc has 10 units, too few for a sheet (v2's has 1,056)
    with pytest.raises(SheetError, match="fc"):
        run_map("toponet_demo.tau_50", stimuli=floc, numbers=[97, 98], layers=["fc"],
                out_dir=tmp_path / "o", progress=False)


def test_unknown_layer_raises(tmp_path):
    floc = _fake_floc(tmp_path / "floc")
    with pytest.raises(UnknownNameError):
        run_map(stimuli=floc, numbers=[97, 98], layers=["layer9.conv"], out_dir=tmp_path / "o",
                progress=False)


def test_offline_without_local_copy_says_how_to_use_stimuli(tmp_path, monkeypatch):
    import toponeuro.stimuli._loaders as loaders

    def offline(*args, **kwargs):
        raise DownloadError("no network")

    monkeypatch.setattr(loaders, "fetch_url", offline)
    with pytest.raises(DownloadError, match="stimuli='/path/to/floc'") as err:
        run_map(stimuli="floc", numbers=[97], out_dir=tmp_path / "o", progress=False)
    assert "--" not in str(err.value)  # the library names parameters; the CLI says flags


def test_stimuli_that_is_not_a_folder(tmp_path):
    with pytest.raises(FileNotFoundError, match="stimuli="):
        run_map(stimuli=str(tmp_path / "nope"), out_dir=tmp_path / "o", progress=False)
    assert issubclass(SheetError, ToponeuroError)


def test_checkpoint_from_toponeuro_train_is_rebuilt_from_its_recipe(tmp_path):
    from toponeuro.reporting._vision.stages import _model_description
    from toponeuro.training import load_model, load_recipe, run_recipe

    recipe = load_recipe("demo-smoke")
    recipe["data"].update(n_per_class=4, val_per_class=0, image_size=16)
    res = run_recipe(recipe, tmp_path / "run", progress=False)
    module = load_model("unused", checkpoint=res.checkpoints[-1])
    desc = _model_description(module, "unused", res.checkpoints[-1])
    card = module.model_card
    assert card.tau == 1.0 and card.input_size == 16 and card.mean == (0.5, 0.5, 0.5)
    assert card.topo_layers[-1] == "layer4.0.conv2" and "demo-smoke" in desc
    assert card.recipe == "demo-smoke" and module.recipe["data"]["kind"] == "synthetic"
    state = res.model.state_dict()
    assert all(np.array_equal(state[k].numpy(), v.numpy()) for k, v in module.state_dict().items())
    with pytest.raises(ToponeuroError, match="No checkpoint file"):
        load_model("unused", checkpoint=tmp_path / "absent.pt")


def test_run_map_takes_a_stimulus_set_and_every_image_of_a_folder(tmp_path):
    from toponeuro.reporting import load_map_stimuli as _load_stimuli
    from toponeuro.stimuli import load_floc

    floc = _fake_floc(tmp_path / "floc", numbers=(121, 122, 144))  # not the default 97-120
    stim, source = _load_stimuli(floc, None, progress=False)
    assert len(stim) == 30 and "local copy" in source
    assert len(_load_stimuli(floc, [121], progress=False)[0]) == 10
    given = load_floc(floc, numbers=[122])
    assert _load_stimuli(given, None, progress=False)[0] is given


@pytest.mark.slow  # an end-to-end run_map, 3 layers
def test_each_statistic_is_computed_once(tmp_path, monkeypatch):
    """3 layers x 5 domains on the sheet + 4 + 3 cortical ROI maps: 22 smoothness calls."""
    import toponeuro.analysis.topography._tables as tables

    calls = {"smoothness": 0, "find_patches": 0}
    for name in calls:
        original = getattr(tables, name)

        def counted(*a, _f=original, _n=name, **k):
            calls[_n] += 1
            return _f(*a, **k)

        monkeypatch.setattr(tables, name, counted)
    floc = _fake_floc(tmp_path / "floc", numbers=(1,))  # a training image of the demo
    with pytest.warns(TrainingImagesWarning, match="10 of the 10 stimuli"):
        # few draws: the count of calls does not depend on them (the default run is slow)
        res = run_map(stimuli=floc, out_dir=tmp_path / "o", progress=False, verbose=False,
                      n_permutations=9, cortex_permutations=9, ruler_permutations=9)
    assert calls == {"smoothness": 22, "find_patches": 22}
    html = (tmp_path / "o" / "report.html").read_text()
    assert "Training images:</b> WARNING: 10 of the 10 stimuli are training images" in html
    per = res.summary["per_layer"]
    for layer, r in per.items():
        t = res.tables["model"]
        row = t[(t["layer"] == layer) & (t["domain"] == "faces")].iloc[0]
        assert r["smoothness"]["faces"] == round(float(row["smoothness"]), 4)


@pytest.mark.slow  # an end-to-end run_map (model, atlas, report)
def test_map_without_the_baseline_says_it_was_not_computed(tmp_path):
    """random_init_baseline=False (--no-random-init) used to drop the random-initialisation
    values silently; the sentences, the summary and the report now say they were skipped."""
    floc = _fake_floc(tmp_path / "floc")
    res = run_map(stimuli=floc, numbers=[97, 98], out_dir=tmp_path / "o", n_permutations=9,
                  cortex_permutations=9, random_init_baseline=False, progress=False,
                  verbose=False)
    s = res.summary
    assert s["random_init_baseline"] is False and "not computed" in s["random_init_note"]
    for r in s["per_layer"].values():
        assert "map_similarity_random_init" not in r
        assert "at random initialisation: not computed" in r["signatures"][0]
    html = (tmp_path / "o" / "report.html").read_text()
    assert "Random-initialisation baseline:</b> not computed" in html
    assert "Beside each value stands" not in html


def test_stimuli_among_the_training_images_are_named(tmp_path):
    """The card's recipe says which fLoc images the model saw; overlap warns, in flags too."""
    import warnings

    from toponeuro.cli._checks import cli_message
    from toponeuro.models import create_model
    from toponeuro.reporting import training_images as _training_images
    from toponeuro.reporting._vision.stages import _warn_training_overlap
    from toponeuro.reporting._vision.words import training_images_note
    from toponeuro.stimuli import load_floc

    net = create_model(DEFAULT_MAP_MODEL, pretrained=False)
    stim = load_floc(_fake_floc(tmp_path / "floc", numbers=(1, 96, 97)))
    train = _training_images(net, stim)
    assert train["recipe"] == net.model_card.recipe and train["numbers"] == [1, 96]
    assert train["n_overlap"] == 20 and train["held_out"] == [97, 120]
    with pytest.warns(TrainingImagesWarning, match="20 of the 30 stimuli") as rec:
        _warn_training_overlap(train, len(stim))
    assert "--images 97-120" in cli_message(str(rec[0].message), {})
    from toponeuro.reporting._kit.report import MapStimuliRecord

    note = training_images_note(MapStimuliRecord(
        set="fLoc", source="s", n_stimuli=30, categories=[], numbers=[1, 97],
        training_images=train))
    assert note.startswith("WARNING: 20 of the 30 stimuli are training images")
    held = load_floc(tmp_path / "floc", numbers=[97])
    assert _training_images(net, held)["n_overlap"] == 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _warn_training_overlap(_training_images(net, held), len(held))


def test_models_without_a_recipe_have_no_training_note(tmp_path):
    from toponeuro.models import create_model
    from toponeuro.reporting import training_images as _training_images
    from toponeuro.stimuli import load_floc

    stim = load_floc(_fake_floc(tmp_path / "floc", numbers=(1,)))
    net = create_model("toponet_demo.tau_0", pretrained=False)
    net.model_card = type(net.model_card)(name="x.y", arch="x")  # no recipe on the card
    assert _training_images(net, stim) is None


# -- the front doors: one reader of the fLoc numbers, one builder of a model -------------------
def test_floc_numbers_is_the_one_reader_of_image_numbers(tmp_path):
    from toponeuro.stimuli import floc_numbers, load_floc

    assert floc_numbers("97-99") == [97, 98, 99] == floc_numbers(range(97, 100))
    assert floc_numbers("5") == [5] and floc_numbers("all") is None and floc_numbers(None) is None
    assert floc_numbers((3, 1, 3)) == [1, 3]
    for bad in ("x-3", "9-3", "0-2", [], ["a"]):
        with pytest.raises(InvalidDataError, match="numbers="):
            floc_numbers(bad)
    floc = _fake_floc(tmp_path / "floc", numbers=(97, 98, 99))
    assert load_floc(floc, numbers="98-99").ids.tolist()[:2] == ["adult-98", "adult-99"]
    # the CLI's --images goes through the same reader and says the flag
    import argparse

    with pytest.raises(argparse.ArgumentTypeError, match="--images 9-3"):
        _numbers("9-3")


def test_load_model_builds_by_name_and_names_parameters():
    from toponeuro.cli._checks import cli_message
    from toponeuro.training import load_model

    net = load_model("toponet_demo.v2_tau_0")
    assert net.model_card.name == "toponet_demo.v2_tau_0" and not net.training
    with pytest.raises(UnknownNameError, match="checkpoint=FILE") as err:
        load_model("toponet_demo.tau_99")
    assert "--" not in str(err.value)
    flags = {"model": "--model", "checkpoint": "--checkpoint"}
    assert "--checkpoint FILE" in cli_message(str(err.value), flags)
    with pytest.raises(UnknownNameError, match="model=NAME"):
        load_model()


def _stage_calls(job_cls) -> list[str]:
    """The names a job calls, its __init__ first, then its stages in the skeleton's order."""
    import ast
    import inspect
    import textwrap

    from toponeuro.reporting._kit.job import STAGES

    calls = []
    for name in ("__init__", *STAGES):
        tree = ast.parse(textwrap.dedent(inspect.getsource(getattr(job_cls, name))))
        calls += [n.func.id if isinstance(n.func, ast.Name) else n.func.attr
                  for n in ast.walk(tree) if isinstance(n, ast.Call)
                  and isinstance(n.func, ast.Name | ast.Attribute)]
    return calls


def test_run_map_is_a_sequence_of_named_stages():
    """run_map checks its parameters and runs the one job skeleton; its stages call the named
    public stages in order and compute nothing themselves."""
    import inspect

    from toponeuro.reporting._kit.job import JobStages
    from toponeuro.reporting._vision import job as _map

    assert issubclass(_map._MapJob, JobStages)
    calls = _stage_calls(_map._MapJob)
    stages = ["read_cortex_inputs", "load_job_model", "map_layers", "load_map_stimuli",
              "training_images", "extract", "check_sheet_layers", "model_topography",
              "cortex_topography", "compare_model_cortex", "ruler_comparisons", "assemble",
              "write_report"]
    assert [c for c in calls if c in stages] == stages
    src = inspect.getsource(_map.run_map)
    assert "run_job(" in src
    assert len(src.split('"""')[-1].splitlines()) < 20  # the body: checks, then the skeleton


def test_an_interrupted_map_leaves_the_earlier_report_whole(tmp_path, monkeypatch):
    """Issue 19: Ctrl-C when the first PNG appeared left a truncated sheet_maps.png beside
    the earlier run's report.html and summary.json (a folder that looked complete)."""
    from toponeuro._io import folder as _writer
    from toponeuro.reporting._vision import job as _map

    monkeypatch.setenv("TOPONEURO_DATA", str(tmp_path / "cache"))
    floc = _fake_floc(tmp_path / "floc")
    earlier = tmp_path / "out"
    with _writer.output_folder(earlier) as folder:  # an earlier, finished run
        (folder.path / "report.html").write_text("<html>the earlier model</html>")
        (folder.path / "summary.json").write_text('{"model": "earlier"}')
        (folder.path / "sheet_maps.png").write_bytes(b"\x89PNG" + b"x" * 5000)
    before = {p.name: p.read_bytes() for p in earlier.iterdir()}

    def interrupted(*args, **kwargs):  # Ctrl-C in the middle of the run
        raise KeyboardInterrupt

    # (a kill while a figure is written is the same: the figures go to the hidden sibling;
    # tests/reporting/test_output_safety.py writes a truncated PNG there)
    monkeypatch.setattr(_map, "model_topography", interrupted)
    code = main(["map", "--stimuli", str(floc), "--images", "97-98", "--out", str(earlier),
                 "--overwrite", "--no-progress", "--n-permutations", "0"])
    assert code == 130
    assert {p.name: p.read_bytes() for p in earlier.iterdir()} == before
    # nothing hidden is left beside it: no partial folder, and the lock goes when the run ends
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".out.")] == []


def test_local_floc_copy_errors_name_the_flags(tmp_path, capsys):
    """map --stimuli DIR --images 1-5 on a copy with 3 images per category said 'request only
    existing numbers' (no flag); a copy lacking categories listed them as np.str_('adult')."""
    from toponeuro.stimuli import make_image_folder

    cats = ("adult", "child", "body", "limb", "corridor", "house", "word", "number", "car",
            "instrument")
    full = make_image_folder(tmp_path / "full", categories=cats, numbers=(1, 2, 3), suffix=".jpg")
    assert main(["map", "--stimuli", str(full), "--images", "1-5",
                 "--out", str(tmp_path / "o1")]) != 0
    err = capsys.readouterr().err
    assert "give --images only numbers it has" in err and "Traceback" not in err
    part = make_image_folder(tmp_path / "part", categories=("adult", "house"), numbers=(1,),
                             suffix=".jpg")
    with pytest.raises(InvalidDataError, match=r"it has \['adult', 'house'\]"):
        run_map(stimuli=str(part), out_dir=tmp_path / "o2", progress=False)


@pytest.mark.slow
def test_one_name_from_the_flag_to_summary_json(tmp_path, capsys):
    """Issue 44: a value given at a flag appears in summary.json under the settings field of
    the same name (--cortex-n-permutations -> settings.cortex.n_permutations), once."""
    import dataclasses

    from toponeuro import settings as S

    floc = _fake_floc(tmp_path / "floc")
    given = {"--n-permutations": 3, "--alpha": 0.1, "--random-state": 2, "--threshold": 1.5,
             "--min-units": 4, "--cortex-n-permutations": 2, "--cortex-min-vertices": 5,
             "--ruler-n-permutations": 0, "--batch-size": 8, "--device": "cpu"}
    argv = ["map", "--stimuli", str(floc), "--images", "97-98", "--out", str(tmp_path / "o"),
            "--layers", "layer4.0.conv2", "--no-random-init", "--no-progress",
            "--hemispheres", "left"]
    for flag, value in given.items():
        argv += [flag, str(value)]
    assert main(argv) == 0
    recorded = json.loads((tmp_path / "o" / "summary.json").read_text())["settings"]
    flags = {}
    for cls in (S.NullSettings, S.PatchRule, S.CortexInput, S.RulerRun, S.Extraction):
        for f in dataclasses.fields(cls):
            if f.metadata.get("flag"):
                flags[f.metadata["flag"]] = (cls._name, f.name)
    for flag, value in given.items():
        param, name = flags[flag]
        assert flag.lstrip("-").endswith(name.replace("_", "-"))  # one name, with dashes
        assert recorded[param][name] == value, flag
    assert recorded["cortex"]["hemispheres"] == ["left"]
    assert recorded["cortex"]["maps"] is None and recorded["cortex"]["kind"] == "atlas"
    assert recorded["model"]["name"] == DEFAULT_MAP_MODEL
