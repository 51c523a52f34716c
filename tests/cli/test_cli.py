"""The command line's conventions, its error paths, and the commands models / layers.

Conventions (issue 12): every option has help and ``--help`` shows its default; one flag
means one thing in every sub-command; lists are space-separated; a bare ``toponeuro`` prints
the help and exits 2. Errors (issue 13): a typed error prints its message and exits 1, with
no traceback and no Python parameter names (``--categories``, not ``categories=``).
"""

from __future__ import annotations

import argparse
import re

import numpy as np
import pytest
import torch
import xarray as xr
from _fresh import imported_by, run_python
from PIL import Image

from toponeuro import cli
from toponeuro.cli import build_parser, cli_message, main
from toponeuro.stimuli import make_image_folder

# a library parameter written the Python way: name=value
PYTHON_NAME = re.compile(r"(?<![\w.-])[a-z][a-z0-9]*(?:_[a-z0-9]+)*=")
FLOC_NONSCRAMBLED = ["adult", "child", "body", "limb", "corridor", "house", "word", "number",
                     "car", "instrument"]


def _subparsers(parser, prefix=()):
    """(command words, parser) of every sub-command, nested ones included."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                has_children = any(isinstance(a, argparse._SubParsersAction) for a in sub._actions)
                if not has_children:
                    yield (*prefix, name), sub
                yield from _subparsers(sub, (*prefix, name))


COMMANDS = [words for words, _ in _subparsers(build_parser())]


def _run(argv, capsys):
    rc = main(argv)
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


def _assert_clean_error(argv, capsys, *needles):
    """Exit 1, a message naming the problem, no traceback, no Python parameter names."""
    rc, out, err = _run(argv, capsys)
    assert rc == 1, (rc, out, err)
    assert "error:" in err and "Traceback" not in err + out, err
    assert not PYTHON_NAME.search(err), err
    for needle in needles:
        assert needle in err, (needle, err)
    return err


# --- conventions ---------------------------------------------------------------------------
def test_bare_command_prints_help_and_exits_2(capsys):
    rc, out, err = _run([], capsys)
    assert rc == 2
    assert "usage: toponeuro" in err and "COMMAND" in err
    for name in ("train", "extract", "map", "models", "layers", "brainscore"):
        assert name in err


def test_help_imports_neither_torch_nor_scipy_stats():
    """``toponeuro --help`` and ``toponeuro map --help`` read the settings and the jobs'
    defaults (toponeuro.settings, toponeuro.analysis, toponeuro.reporting) without torch or
    scipy.stats: the model is loaded, and scipy.stats used, only when a job runs."""
    code = (
        "import contextlib, io, sys\n"
        "from toponeuro.cli import main\n"
        "for argv in (['--help'], ['map', '--help'], ['map', '--language', '--help']):\n"
        "    with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "        main(argv)\n"
        "assert {'toponeuro.settings', 'toponeuro.analysis', 'toponeuro.reporting'} <= set("
        "sys.modules), sorted(m for m in sys.modules if m.startswith('toponeuro.'))\n"
        "print(sorted({'torch', 'scipy.stats', 'toponeuro.training'} & set(sys.modules)))\n"
    )
    done = run_python("-c", code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_every_command_is_covered():
    assert {w[0] for w in COMMANDS} == set(cli.COMMANDS)
    assert ("brainscore", "export") in COMMANDS and ("brainscore", "score") in COMMANDS


@pytest.mark.parametrize("words", COMMANDS, ids=" ".join)
def test_every_option_has_help_and_shows_its_default(words, capsys):
    parser = dict(_subparsers(build_parser()))[words]
    for action in parser._actions:
        if action.help == argparse.SUPPRESS or action.dest == "help":
            continue
        assert action.help and len(action.help) > 8, (words, action.dest)
        takes_value = action.nargs != 0 and not action.required
        if takes_value and (action.option_strings or action.nargs in ("?", "*")):
            shown = parser.formatter_class(prog="x")._get_help_string(action)
            assert "default" in shown or "required" in shown, (words, action.dest, shown)
    with pytest.raises(SystemExit) as exc:
        main([*words, "--help"])
    assert exc.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    for action in parser._actions:
        value = action.default
        if action.option_strings and value not in (None, False, argparse.SUPPRESS) and not (
            isinstance(value, bool)
        ):
            shown = " ".join(map(str, value)) if isinstance(value, list) else str(value)
            assert f"(default: {shown})" in text, (words, action.dest, text)


def test_one_flag_means_one_thing():
    parsers = {" ".join(w): p for w, p in _subparsers(build_parser())}

    def option(command, flag):
        return next((a for a in parsers[command]._actions if flag in a.option_strings), None)

    for command in ("extract", "map", "layers", "brainscore export"):
        assert option(command, "--model") is not None, command
    for command in ("extract", "map", "brainscore score"):
        assert option(command, "--stimuli") is not None, command  # never --images for a folder
    # --images means fLoc image numbers, in map only (0.1's folder flag of score: a hidden
    # usage error that names --stimuli, never a second meaning)
    old = option("brainscore score", "--images")
    assert option("map", "--images") is not None
    assert old is None or old.help == argparse.SUPPRESS
    for command, flag in (("extract", "--layers"), ("map", "--layers"),
                          ("brainscore score", "--metrics")):
        assert option(command, flag).nargs == "+", (command, flag)  # space-separated lists
    for command in ("train", "extract", "map"):
        assert "cpu" in option(command, "--device").help


def test_cli_message_turns_parameters_into_flags():
    flags = {"trust_checkpoint": "--trust-checkpoint", "categories": "--categories"}
    assert cli_message("pass trust_checkpoint=True.", flags) == "pass --trust-checkpoint."
    assert cli_message("drop it from categories= or", flags) == "drop it from --categories or"
    assert cli_message("use device='cpu'.", {"device": "--device"}) == "use --device cpu."
    assert cli_message("numbers=[1, 2]", {}).startswith("--images")
    assert cli_message("keep x=1 and a == b", flags) == "keep x=1 and a == b"  # unknown: kept
    # a parameter named before a colon (the atlases' "cortex_maps: ..."), as its flag
    cortex = {"cortex_maps": "--cortex-maps"}
    assert cli_message("cortex_maps: 'faces' has 12 values", cortex) == (
        "--cortex-maps: 'faces' has 12 values")
    assert cli_message("give maps (cortex_maps: faces=...)", cortex) == (
        "give maps (--cortex-maps: faces=...)")
    assert cli_message("note: x_y: kept, cortex_maps:x", cortex) == (
        "note: x_y: kept, cortex_maps:x")  # unknown names and no space: kept


def test_cli_message_writes_a_dict_after_its_flag():
    """A dict value (the verb - noun hint's ``cortex_maps={'verbs': ...}``) used to be left
    glued to the flag: ``--cortex-maps{'verbs': ...}``."""
    flags = cli._checks._flags(build_parser(), "map")
    hint = ("Give it as cortex_maps={'verbs': 'group-level-contrast.nc'} (any format), or pass "
            "verb_noun=None.")
    assert cli_message(hint, flags) == ("Give it as --cortex-maps verbs=group-level-contrast.nc "
                                        "(any format), or pass --verb-noun none.")
    # a dict a flag takes as JSON: JSON, quoted for the shell; nested dicts whole
    assert cli_message("set vol_to_surf={'radius': 2}.", flags) == (
        "set --vol-to-surf '{\"radius\": 2}'.")
    assert cli_message("cortex.maps={'verbs': {'left': 'a.gii'}} is", flags) == (
        "--cortex-maps '{\"verbs\": {\"left\": \"a.gii\"}}' is")
    # a value the rewrite does not parse stays, after a space, never glued to the flag
    for text in ("cortex.maps={not a dict", "cortex.maps=@x", "cortex.maps=#3"):
        out = cli_message(text, flags)
        assert out.startswith("--cortex-maps ") and out[len("--cortex-maps "):] == text.split(
            "=", 1)[1], out
    assert cli_message("cortex.maps=, then", flags) == "--cortex-maps, then"


# --- error paths: exit 1, a message, no traceback --------------------------------------------
@pytest.fixture
def afile(tmp_path):
    path = tmp_path / "afile"
    path.write_text("not a folder")
    return path


def _images(folder, names):
    for name in names:
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        Image.fromarray(np.random.default_rng(len(name)).integers(0, 255, (20, 20, 3),
                                                                  dtype=np.uint8)).save(path)
    return folder


def _fake_floc(root, numbers):
    return make_image_folder(root, FLOC_NONSCRAMBLED, numbers, suffix=".jpg", mode="RGB")


def test_train_errors(tmp_path, afile, capsys):
    _assert_clean_error(["train", "--recipe", "demo-smoke", "--epochs", "0", "--out",
                         str(tmp_path)], capsys, "--epochs")
    _assert_clean_error(["train", "--recipe", "demo-smoke", "--out", str(afile)], capsys,
                        "--out", "is a file")
    _assert_clean_error(["train", "--recipe", "no-such-recipe"], capsys, "no-such-recipe")
    _assert_clean_error(["train", "--recipe", "demo-smoke", "--data", str(tmp_path / "nope")],
                        capsys, "--data", "no such file")
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\n[train')
    _assert_clean_error(["train", "--recipe", str(bad)], capsys, "not valid TOML")


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine without a GPU")
@pytest.mark.parametrize("command", ["train", "extract", "map"])
def test_device_cuda_without_gpu(command, tmp_path, capsys):
    argv = {
        "train": ["train", "--recipe", "demo-smoke", "--out", str(tmp_path / "t")],
        "extract": ["extract", "--model", "toponet_demo.tau_0", "--stimuli",
                    str(_images(tmp_path / "im", ["a.png"])), "--out", str(tmp_path / "a.nc")],
        "map": ["map", "--stimuli", "floc", "--out", str(tmp_path / "m")],
    }[command]
    _assert_clean_error([*argv, "--device", "cuda", "--no-progress"], capsys, "--device",
                        "GPU", "--device cpu")


def test_device_names_are_checked(capsys, tmp_path):
    from toponeuro._util.device import check_device
    from toponeuro.exceptions import DeviceError

    assert str(check_device("cpu")) == "cpu"
    with pytest.raises(DeviceError, match="not a torch device"):
        check_device("gpu0")
    if not torch.cuda.is_available():
        with pytest.raises(RuntimeError, match="CUDA GPU"):  # DeviceError is a RuntimeError
            check_device("cuda:1")


def test_extract_errors(tmp_path, afile, capsys):
    folder = _images(tmp_path / "images", ["a.png", "b.png"])
    base = ["extract", "--model", "toponet_demo.tau_0", "--no-progress"]
    _assert_clean_error([*base, "--stimuli", str(tmp_path / "nope"), "--out",
                         str(tmp_path / "a.nc")], capsys, "--stimuli", "no such file")
    _assert_clean_error([*base, "--stimuli", str(afile), "--out", str(tmp_path / "a.nc")],
                        capsys, "--stimuli", ".txt")
    _assert_clean_error([*base, "--stimuli", str(folder), "--out", str(afile / "a.nc")],
                        capsys, "--out", "is a file")
    _assert_clean_error([*base, "--stimuli", str(folder), "--out", str(tmp_path)], capsys,
                        "--out", "is a folder")
    _assert_clean_error([*base, "--stimuli", str(folder), "--out", str(tmp_path / "a.nc"),
                         "--batch-size", "0"], capsys, "--batch-size")
    _assert_clean_error([*base, "--stimuli", str(folder), "--out", str(tmp_path / "a.nc"),
                         "--layers", "layer9"], capsys, "layer9")
    _assert_clean_error([*base, "--stimuli", str(folder), "--out", str(tmp_path / "a.nc"),
                         "--store", str(afile)], capsys, "--store", "is a file")
    _assert_clean_error(["extract", "--model", "toponet_demo.tau_7", "--stimuli", str(folder),
                         "--out", str(tmp_path / "a.nc")], capsys, "toponet_demo.tau_0")


def _bad_checkpoints(tmp_path):
    """A truncated file, an unsafe pickle and a state dict of another architecture."""
    from toponeuro.models import SmallResNet, create_model

    good = tmp_path / "good.pt"
    torch.save(create_model("toponet_demo.tau_0").state_dict(), good)
    truncated = tmp_path / "truncated.pt"
    truncated.write_bytes(good.read_bytes()[:1000])
    unsafe = tmp_path / "unsafe.pt"
    torch.save({"model": create_model("toponet_demo.tau_0").state_dict(),
                "extra": _Unsafe()}, unsafe)
    other = tmp_path / "other.pt"
    torch.save(SmallResNet(widths=(8, 8, 8, 8)).state_dict(), other)
    return {"truncated": truncated, "unsafe": unsafe, "other architecture": other}


class _Unsafe:
    """A pickled object outside the safe allow-list."""


@pytest.mark.parametrize("kind", ["truncated", "unsafe", "other architecture"])
def test_extract_bad_checkpoint(kind, tmp_path, capsys):
    ckpt = _bad_checkpoints(tmp_path)[kind]
    folder = _images(tmp_path / "images", ["a.png"])
    err = _assert_clean_error(["extract", "--model", "toponet_demo.tau_0", "--checkpoint",
                               str(ckpt), "--stimuli", str(folder), "--out",
                               str(tmp_path / "a.nc"), "--no-progress"], capsys, str(ckpt))
    if kind == "unsafe":
        assert "--trust-checkpoint" in err


@pytest.mark.parametrize("kind", ["truncated", "unsafe", "other architecture", "missing"])
def test_map_bad_checkpoint(kind, tmp_path, capsys, monkeypatch):
    import toponeuro.training as training

    if kind != "missing" and not hasattr(training, "load_trained_model"):
        pytest.skip("map reads checkpoints with the typed loader once "
                    "toponeuro.training.load_trained_model is on main")
    monkeypatch.setenv("TOPONEURO_DATA", str(tmp_path / "cache"))
    floc = _fake_floc(tmp_path / "floc", [97])
    ckpt = tmp_path / "nope.pt" if kind == "missing" else _bad_checkpoints(tmp_path)[kind]
    _assert_clean_error(["map", "--checkpoint", str(ckpt), "--stimuli", str(floc), "--out",
                         str(tmp_path / "m"), "--no-progress"], capsys, str(ckpt))


def test_map_errors(tmp_path, afile, capsys):
    _assert_clean_error(["map", "--stimuli", str(tmp_path / "nope"), "--out",
                         str(tmp_path / "m")], capsys, "--stimuli", "no such file")
    _assert_clean_error(["map", "--stimuli", str(tmp_path), "--out", str(afile)], capsys,
                        "--out", "is a file")
    partial = _images(tmp_path / "partial", ["adult/adult-121.jpg", "house/house-121.jpg"])
    _assert_clean_error(["map", "--stimuli", str(partial), "--out", str(tmp_path / "m")],
                        capsys, "--stimuli", "'child'", "all ten fLoc categories")


def test_brainscore_export_errors(tmp_path, afile, capsys):
    base = ["brainscore", "export", "--out", str(tmp_path / "o")]
    _assert_clean_error([*base, "--card", str(tmp_path / "card.json")], capsys, "--card",
                        "no such file")
    bad = tmp_path / "bad.json"
    bad.write_text('{"name": "x"')
    _assert_clean_error([*base, "--card", str(bad)], capsys, "--card", "not valid JSON")
    for rlm in ("{bad", str(bad), "[1, 2]"):
        _assert_clean_error([*base, "toponet_demo.tau_0", "--region-layer-map", rlm], capsys,
                            "--region-layer-map")
    _assert_clean_error(["brainscore", "export", "toponet_demo.tau_0", "--out", str(afile)],
                        capsys, "--out", "is a file")
    for sha in ("xyz", "a" * 63, "g" * 64):
        _assert_clean_error([*base, "--model", "toponet_demo.tau_0", "--sha256", sha], capsys,
                            "--sha256", "64 hex digits")
    _assert_clean_error([*base, "toponet_demo.tau_0", "--model", "toponet_demo.tau_10"], capsys,
                        "differ")
    empty = tmp_path / "empty.json"
    empty.write_text("{}")
    _assert_clean_error([*base, "--card", str(empty)], capsys, "--card", "name", "arch")
    _assert_clean_error([*base, "toponet_demo.tau_0"], capsys, "--weights-url")
    _assert_clean_error([*base, "toponet_demo.tau_0", "--region-layer-map", '{"IT": "nolayer"}'],
                        capsys, "nolayer", "`toponeuro layers MODEL`")
    _assert_clean_error([*base, "toponet_demo.tau_0", "--weights-url",
                         (tmp_path / "absent.pt").as_uri()], capsys, "does not exist")


def test_brainscore_score_errors(tmp_path, capsys):
    _assert_clean_error(["brainscore", "score", "--plugin", str(tmp_path / "nope"),
                         "--benchmark", str(tmp_path)], capsys, "--plugin")
    (tmp_path / "plugin").mkdir()
    _assert_clean_error(["brainscore", "score", "--plugin", str(tmp_path / "plugin"),
                         "--responses", str(tmp_path / "r.nc"), "--stimuli", str(tmp_path)],
                        capsys, "--responses")


def test_layers_and_models_errors(capsys):
    _assert_clean_error(["layers", "toponet_demo.tau_7"], capsys, "toponet_demo.tau_0")
    _assert_clean_error(["models", "nothing_like_this*"], capsys, "nothing_like_this")


def test_usage_errors_exit_2(capsys):
    for argv in (["extract", "--model", "x"], ["map", "--images", "9-3"], ["nope"],
                 ["brainscore"], ["layers"]):
        try:
            rc = main(argv)
        except SystemExit as exc:  # argparse's own usage errors
            rc = exc.code
        assert rc == 2, argv
        assert "Traceback" not in capsys.readouterr().err


# --- the commands ---------------------------------------------------------------------------
def test_models_lists_tau_and_weights(tmp_path, monkeypatch, capsys):
    from toponeuro._io.fetch import hf_cache_path
    from toponeuro.models import model_card

    monkeypatch.setenv("TOPONEURO_DATA", str(tmp_path))
    card = model_card("toponet_resnet18.tau_5")
    cached = hf_cache_path(card.hub_repo, card.filename)
    cached.parent.mkdir(parents=True)
    cached.write_bytes(b"copied by hand")
    rc, out, _ = _run(["models"], capsys)
    assert rc == 0
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line.strip()}
    assert rows["toponet_demo.tau_50"][1:4] == ["vision", "50", "shipped"]
    assert rows["toponet_resnet18.tau_5"][3] == "cached"
    assert rows["toponet_resnet18.tau_10"][3] == "download"
    assert rows["resnet18"][2:4] == ["-", "none"]
    assert "download: released on the Hugging Face hub" in out
    rc, out, _ = _run(["models", "toponet_demo.tau_*"], capsys)
    names = [line.split()[0] for line in out.splitlines()[1:] if line.startswith("toponet")]
    assert rc == 0 and names == ["toponet_demo.tau_0", "toponet_demo.tau_10", "toponet_demo.tau_50"]


def test_layers_lists_extractable_layers(capsys):
    rc, out, _ = _run(["layers", "toponet_demo.tau_0", "--topo"], capsys)
    assert rc == 0
    lines = out.splitlines()
    assert lines[0].split() == ["layer", "type", "output_shape", "n_units", "sheet_shape", "topo"]
    assert len(lines) == 1 + 8 and all(line.rstrip().endswith("yes") for line in lines[1:])
    rc, same, _ = _run(["layers", "--model", "toponet_demo.tau_0", "--topo"], capsys)
    assert rc == 0 and same == out
    rc, out, _ = _run(["layers", "toponet_demo.tau_0"], capsys)
    fc = next(line.split() for line in out.splitlines() if line.startswith("fc "))
    assert fc[1:] == ["Linear", "10", "10", "2x5"]


def test_list_layers_counts_match_extract():
    from toponeuro.features import extract
    from toponeuro.models import SmallResNet, list_layers

    net = SmallResNet(widths=(8, 16, 16, 32))
    table = list_layers(net, input_shape=(3, 32, 32)).set_index("layer")
    layers = ["layer1.0.conv1", "layer3.0.bn2", "layer4.0", "fc"]
    acts = extract(net, [torch.rand(3, 32, 32)], layers, progress=False)
    for layer in layers:
        assert table.loc[layer, "n_units"] == acts.topo.select(layer).sizes["unit"], layer
        assert table.loc[layer, "sheet_shape"] == acts.topo.sheet_shape(layer), layer
    static = list_layers(net, probe=False).set_index("layer")
    assert static.loc["layer1.0.conv1", "n_units"] == 8 and static.loc["layer1.0.conv1",
                                                                     "output_shape"] is None
    assert static["n_units"].isna().any()  # containers: unknown without a forward pass
    assert not table["topo"].any()  # no card: no TopoLoss layers


def test_list_layers_marks_modules_the_forward_pass_skips():
    from torch import nn

    from toponeuro.models import list_layers

    class Skips(nn.Module):
        def __init__(self):
            super().__init__()
            self.used, self.unused = nn.Linear(4, 6), nn.Linear(4, 5)

        def forward(self, x):
            return self.used(x)

    table = list_layers(Skips(), input_shape=(4,)).set_index("layer")
    assert table.loc["used", "n_units"] == 6
    assert table["n_units"].isna()["unused"]
    # a module run twice (the BasicBlock's one ReLU): no unit count, as extract refuses it
    table = list_layers("toponet_demo.v2_tau_0").set_index("layer")
    assert table["n_units"].isna()["layer1.0.relu"] and table.loc["relu", "n_units"] == 32


def test_extract_folder_keeps_ids_and_categories(tmp_path, capsys):
    folder = _images(tmp_path / "images", ["faces/f-01.png", "faces/f-02.png",
                                           "places/p-01.jpg", "places/deeper/p-02.png"])
    out = tmp_path / "acts.nc"
    rc, printed, _ = _run(["extract", "--model", "toponet_demo.tau_0", "--stimuli", str(folder),
                           "--layers", "fc", "--out", str(out), "--no-progress"], capsys)
    assert rc == 0, printed
    acts = xr.load_dataarray(out, engine="h5netcdf")
    assert acts["stimulus_id"].values.tolist() == ["f-01", "f-02", "p-02", "p-01"]
    assert acts["category"].values.tolist() == ["faces", "faces", "deeper", "places"]
    brain = xr.DataArray(np.arange(4.0), dims="stimulus",
                         coords={"stimulus_id": ("stimulus", ["p-01", "f-02", "f-01", "p-02"])})
    joined = acts.set_index(stimulus="stimulus_id").sel(
        stimulus=brain.set_index(stimulus="stimulus_id").stimulus)
    assert joined.sizes["stimulus"] == 4
    rc, _, _ = _run(["extract", "--model", "toponet_demo.tau_0", "--stimuli", str(folder),
                     "--layers", "fc", "--ids", "path", "--out", str(out), "--no-progress",
                     "--overwrite"], capsys)
    assert xr.load_dataarray(out, engine="h5netcdf")["stimulus_id"].values[2] == \
        "places/deeper/p-02"


def test_extract_flat_folder_has_no_categories(tmp_path, capsys):
    folder = _images(tmp_path / "flat", ["b.png", "a.png"])
    out = tmp_path / "acts.nc"
    assert main(["extract", "--model", "toponet_demo.tau_0", "--stimuli", str(folder),
                 "--layers", "fc", "--out", str(out), "--no-progress"]) == 0
    acts = xr.load_dataarray(out, engine="h5netcdf")
    assert acts["stimulus_id"].values.tolist() == ["a", "b"]
    assert "category" not in acts.coords or set(acts["category"].values) <= {"", "nan"}


def test_extract_repeated_stems_name_the_fix(tmp_path, capsys):
    folder = _images(tmp_path / "rep", ["x/a.png", "y/a.png"])
    _assert_clean_error(["extract", "--model", "toponet_demo.tau_0", "--stimuli", str(folder),
                         "--out", str(tmp_path / "a.nc"), "--no-progress"], capsys,
                        "--ids path")


@pytest.fixture
def captured_map(monkeypatch):
    import toponeuro.reporting

    calls = []
    monkeypatch.setattr(toponeuro.reporting, "run_map", lambda *a, **kw: calls.append((a, kw)))
    return calls


def test_map_uses_the_images_in_the_folder(tmp_path, captured_map, capsys):
    late = _fake_floc(tmp_path / "late", [121, 122])
    assert main(["map", "--stimuli", str(late), "--out", str(tmp_path / "m")]) == 0
    # run_map: every image in the folder (the numbers travel with the stimuli)
    assert captured_map[-1][1]["stimuli"].numbers is None
    assert str(captured_map[-1][1]["stimuli"].source) == str(late)
    assert main(["map", "--stimuli", str(late), "--images", "all", "--out",
                 str(tmp_path / "m")]) == 0
    assert captured_map[-1][1]["stimuli"].numbers == "all"
    assert main(["map", "--stimuli", str(late), "--images", "121-121", "--out",
                 str(tmp_path / "m"), "--batch-size", "8", "--random-state", "3"]) == 0
    kw = captured_map[-1][1]
    assert kw["stimuli"].numbers == [121] and kw["extraction"].batch_size == 8
    assert kw["verbose"] == 2  # no --no-progress: the summary and the progress bars
    assert kw["null"].random_state == 3


def test_map_folder_of_late_numbers_loads(tmp_path):
    from toponeuro.reporting import load_map_stimuli as _load_stimuli

    late = _fake_floc(tmp_path / "late", [121, 122])
    stim, _ = _load_stimuli(str(late), None, progress=False)
    assert len(stim) == 20 and set(stim.metadata["number"]) == {121, 122}
    assert len(_load_stimuli(str(late), cli._map._numbers("122-122"), progress=False)[0]) == 10


def test_brainscore_score_takes_stimuli_and_space_separated_metrics(tmp_path, monkeypatch,
                                                                     capsys):
    import toponeuro.brainscore as bs

    calls = []
    monkeypatch.setattr(bs, "score_with_brainscore", lambda *a, **kw: calls.append((a, kw))
                        or __import__("pandas").DataFrame({"metric": ["pls"]}))
    folder = _images(tmp_path / "images", ["faces/f-01.png", "places/p-01.png", "x/extra.png"])
    resp = xr.DataArray(np.zeros((2, 3)), dims=("stimulus", "voxel"),
                        coords={"stimulus_id": ("stimulus", ["p-01", "f-01"])})
    resp.to_netcdf(tmp_path / "r.nc")
    (tmp_path / "plugin").mkdir()
    base = ["brainscore", "score", "--plugin", str(tmp_path / "plugin"), "--responses",
            str(tmp_path / "r.nc")]
    assert main([*base, "--stimuli", str(folder), "--metrics", "pls", "rdm"]) == 0
    args, kw = calls[-1]
    assert args[1].ids.tolist() == ["f-01", "p-01"] and kw["metrics"] == ("pls", "rdm")
    assert args[1].categories.tolist() == ["faces", "places"]
    capsys.readouterr()
    # 0.1's spellings were removed in 0.3.0: --images (it means fLoc numbers in map) and
    # comma-separated metrics are usage errors now
    for old in (["--images", str(folder)], ["--stimuli", str(folder), "--metrics", "pls,ridge"]):
        with pytest.raises(SystemExit) as exit_:
            main([*base, *old])
        assert exit_.value.code == 2
    assert len(calls) == 1


def test_map_help_shows_the_library_defaults(capsys):
    import inspect

    from toponeuro.analysis import TDANN_PATCHES
    from toponeuro.reporting import DEFAULT_MAP_MODEL, run_map

    with pytest.raises(SystemExit):
        main(["map", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    from toponeuro.settings import NullSettings

    assert inspect.signature(run_map).parameters["null"].default == NullSettings()
    assert f"(default: {DEFAULT_MAP_MODEL}, the shipped demo TopoNet" in text
    assert (f"(default: {TDANN_PATCHES['threshold']:g}, "
            "toponeuro.settings.PatchRule().threshold") in text
    assert (f"(default: {NullSettings().n_permutations}, "
            "toponeuro.settings.NullSettings().n_permutations") in text
    assert f"(default: {NullSettings().alpha:g}, toponeuro.settings.NullSettings().alpha" in text


def test_map_passes_threshold_permutations_alpha(tmp_path, captured_map):
    folder = _fake_floc(tmp_path / "f", [1])
    assert main(["map", "--stimuli", str(folder), "--out", str(tmp_path / "m")]) == 0
    from toponeuro.settings import NullSettings, PatchRule

    kw = captured_map[-1][1]  # not given: the settings objects' own defaults apply
    assert kw["null"] == NullSettings() and kw["patches"] == PatchRule()
    assert main(["map", "--stimuli", str(folder), "--out", str(tmp_path / "m"),
                 "--threshold", "3.5", "--n-permutations", "0", "--alpha", "0.01"]) == 0
    kw = captured_map[-1][1]
    assert (kw["patches"].threshold, kw["null"].n_permutations, kw["null"].alpha) == (
        3.5, 0, 0.01)


def test_map_no_random_init_turns_the_baseline_off(tmp_path, captured_map, capsys):
    """run_map(random_init_baseline=False) had no flag; --no-random-init is it."""
    folder = _fake_floc(tmp_path / "f", [1])
    assert main(["map", "--stimuli", str(folder), "--out", str(tmp_path / "m")]) == 0
    assert captured_map[-1][1]["random_init_baseline"] is True
    assert main(["map", "--stimuli", str(folder), "--out", str(tmp_path / "m"),
                 "--no-random-init"]) == 0
    assert captured_map[-1][1]["random_init_baseline"] is False
    parser = dict(_subparsers(build_parser()))[("map",)]
    action = next(a for a in parser._actions if "--no-random-init" in a.option_strings)
    assert "untrained" in action.help and "not computed" in action.help
    # the language job has no baseline: the flag is refused there, with the reason
    _assert_clean_error(["map", "--language", "--no-random-init", "--out",
                         str(tmp_path / "l")], capsys, "--no-random-init", "baseline")


@pytest.mark.parametrize("flag, value", [("--n-permutations", "-1"), ("--alpha", "0"),
                                         ("--alpha", "1.5"), ("--alpha", "1"),
                                         ("--threshold", "nan"), ("--n-permutations", "2000000"),
                                         ("--cortex-n-permutations", "-1"),
                                         ("--ruler-n-permutations", "2.5"),
                                         ("--cortex-min-vertices", "0"),
                                         ("--min-units", "0")])
def test_map_rejects_bad_null_settings(tmp_path, capsys, monkeypatch, flag, value):
    """run_map checks them before its first step (--alpha 1 used to fail 15 s later naming
    path=None; --threshold nan was accepted), and the CLI says so in flags."""
    import toponeuro.models

    loaded = []
    import toponeuro.reporting  # noqa: F401 - imported before the patch:
    import toponeuro.training  # noqa: F401 - a first import under it keeps it
    monkeypatch.setattr(toponeuro.models, "load_model", lambda *a, **k: loaded.append(a))
    folder = _fake_floc(tmp_path / "f", [1])
    err = _assert_clean_error(["map", "--stimuli", str(folder), "--out", str(tmp_path / "m"),
                               flag, value, "--no-progress"], capsys, f"{flag} {value}")
    assert "is not" in err and not loaded


def test_map_says_in_flags_when_stimuli_are_training_images(tmp_path, monkeypatch, capsys):
    import warnings

    import toponeuro.reporting
    from toponeuro.exceptions import TrainingImagesWarning

    def fake_run_map(*a, **kw):
        warnings.warn(TrainingImagesWarning(
            "10 of the 10 stimuli are images the model was trained on (recipe r: fLoc images "
            "1-96); what is measured on them is not held-out. For held-out images only, pass "
            "numbers='97-120'."), stacklevel=2)

    monkeypatch.setattr(toponeuro.reporting, "run_map", fake_run_map)
    folder = _fake_floc(tmp_path / "f", [1])
    assert main(["map", "--stimuli", str(folder), "--out", str(tmp_path / "m")]) == 0
    err = capsys.readouterr().err
    assert "toponeuro: warning: 10 of the 10 stimuli are images the model was trained" in err
    assert "pass --images 97-120." in err and "numbers=" not in err


def test_extract_and_map_read_checkpoints_alike(tmp_path, capsys):
    """`extract --checkpoint` takes a `toponeuro train` checkpoint as `map` does, and both
    take --trust-checkpoint (one definition of the two flags)."""
    from toponeuro.training import load_recipe, run_recipe

    recipe = load_recipe("demo-smoke")
    recipe["data"].update(n_per_class=2, val_per_class=0, image_size=16)
    ckpt = run_recipe(recipe, tmp_path / "run", progress=False).checkpoints[-1]
    folder = _images(tmp_path / "imgs", ["a.png", "b.png"])
    out = tmp_path / "acts.nc"
    assert main(["extract", "--model", "toponet_demo.tau_0", "--checkpoint", str(ckpt),
                 "--stimuli", str(folder), "--layers", "topo", "--out", str(out),
                 "--no-progress"]) == 0
    acts = xr.load_dataarray(out, engine="h5netcdf")
    assert acts.sizes["stimulus"] == 2 and acts.attrs["model"] == f"checkpoint:{ckpt.name}"
    parser = build_parser()
    for cmd in ("extract", "map"):
        sub = parser._subparsers._group_actions[0].choices[cmd]
        flags = {o: a.help for a in sub._actions for o in a.option_strings}
        assert "--trust-checkpoint" in flags and "toponeuro train" in flags["--checkpoint"]


def test_python_dash_m_toponeuro_is_the_command(monkeypatch, capsys):
    """``python -m toponeuro`` runs the CLI (it said "No module named toponeuro.__main__"),
    and its exit status is the command's (the failing one run in this process, as
    ``python -m`` runs it: a new interpreter costs seconds of imports). ``toponeuro models``
    lists the registry (the cards, their weights' status) without torch or torchvision."""
    import runpy
    import sys

    res, imported = imported_by("-m", "toponeuro", "models", timeout=120)
    assert res.returncode == 0, res.stderr[-1000:]
    assert "toponet_demo.v2_tau_50" in res.stdout
    assert {"toponeuro.cli", "toponeuro.models._registry", "pandas"} <= imported
    assert not {"torch", "torchvision"} & imported, sorted({"torch", "torchvision"} & imported)
    monkeypatch.setattr(sys, "argv", ["toponeuro", "extract", "--model", "nope.x", "--stimuli",
                                      "nowhere", "--out", "a.nc"])
    with pytest.raises(SystemExit) as bad:  # any other exception would be a traceback
        runpy.run_module("toponeuro", run_name="__main__", alter_sys=True)
    assert bad.value.code == 1 and "Traceback" not in capsys.readouterr().err
