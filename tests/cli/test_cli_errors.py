"""Every sub-command of ``toponeuro`` through its error paths (issue 19).

Each case runs :func:`toponeuro.cli.main` in-process with a real mistake (a wrong path, a bad
value, an unknown name) and asserts exit status 1 (a typed error) or 2 (a usage error), a
one-line message on stderr in flag terms, and no traceback. Every case fails before any slow
step (no model is trained, no activations are extracted), so the whole table runs in seconds.
"""

from __future__ import annotations

import pytest
from test_cli import COMMANDS, PYTHON_NAME  # tests/ is on sys.path (pytest rootdir)

from toponeuro.cli import main
from toponeuro.stimuli import make_image_folder

FLOC = ["adult", "child", "body", "limb", "corridor", "house", "word", "number", "car",
        "instrument"]


@pytest.fixture(scope="module")
def paths(tmp_path_factory):
    root = tmp_path_factory.mktemp("cli_errors")
    afile = root / "a.txt"
    afile.write_text("not an image")
    images = make_image_folder(root / "images", ["a", "b"], [1], suffix=".png", mode="RGB")
    floc = make_image_folder(root / "floc", FLOC, [1], suffix=".jpg", mode="RGB")
    bad_json = root / "bad.json"
    bad_json.write_text('{"name": ')
    return {"root": root, "file": afile, "images": images, "floc": floc, "bad_json": bad_json,
            "nope": root / "does-not-exist"}


# (id, argv with {placeholders}, exit status, text the message must hold)
CASES = [
    # --- prepare (refused before anything is drawn)
    ("prepare-stimuli-without-language", ["prepare", "--stimuli", "items.csv"], 1,
     "--language"),
    ("prepare-cortex-permutations-negative", ["prepare", "--cortex-n-permutations", "-5"], 1,
     "--cortex-n-permutations -5 is not a whole number"),
    # --- train
    ("train-unknown-recipe", ["train", "--recipe", "no-such-recipe"], 1, "no-such-recipe"),
    ("train-epochs-zero", ["train", "--recipe", "demo-smoke", "--epochs", "0", "--out",
                           "{root}/t"], 1, "--epochs"),
    ("train-epochs-text", ["train", "--recipe", "demo-smoke", "--epochs", "two"], 2, "--epochs"),
    ("train-out-is-file", ["train", "--recipe", "demo-smoke", "--out", "{file}"], 1, "--out"),
    ("train-data-missing", ["train", "--recipe", "demo-smoke", "--data", "{nope}", "--out",
                            "{root}/t"], 1, "--data"),
    ("train-device-typo", ["train", "--recipe", "demo-smoke", "--device", "gpu0", "--out",
                           "{root}/t"], 1, "gpu0"),
    ("train-recipe-missing-file", ["train", "--recipe", "{nope}.toml"], 1, "does-not-exist"),
    ("train-no-recipe", ["train"], 2, "--recipe"),
    # the flags of TrainSchedule / TrainRecords: refused by the settings object, in flags
    ("train-lr-zero", ["train", "--recipe", "demo-smoke", "--lr", "0", "--out", "{root}/t"], 1,
     "--lr 0 is not a finite number > 0"),
    ("train-lr-nan", ["train", "--recipe", "demo-smoke", "--lr", "nan", "--out", "{root}/t"], 1,
     "--lr nan is not a finite number"),
    ("train-lr-text", ["train", "--recipe", "demo-smoke", "--lr", "fast"], 2, "--lr"),
    ("train-momentum-one", ["train", "--recipe", "demo-smoke", "--momentum", "1", "--out",
                            "{root}/t"], 1, "--momentum 1 is not a finite number in [0, 1)"),
    ("train-batch-size-zero", ["train", "--recipe", "demo-smoke", "--batch-size", "0", "--out",
                               "{root}/t"], 1, "--batch-size 0 is not a whole number >= 1"),
    ("train-weight-decay-negative", ["train", "--recipe", "demo-smoke", "--weight-decay", "-1",
                                     "--out", "{root}/t"], 1, "--weight-decay -1 is not"),
    ("train-epochs-fraction", ["train", "--recipe", "demo-smoke", "--epochs", "1.5", "--out",
                               "{root}/t"], 1, "--epochs 1.5 is not a whole number"),
    # 0 is the recipe's word for None, which the flags take (test_declared_flags.py)
    ("train-log-every-negative", ["train", "--recipe", "demo-smoke", "--log-every", "-1",
                                  "--out", "{root}/t"], 1,
     "--log-every -1 is not a whole number >= 1"),
    ("train-keep-checkpoints-fraction", ["train", "--recipe", "demo-smoke",
                                         "--keep-checkpoints", "2.5", "--out", "{root}/t"], 1,
     "--keep-checkpoints 2.5 is not"),
    ("train-lr-schedule-typo", ["train", "--recipe", "demo-smoke", "--lr-schedule", "cosin"], 2,
     "--lr-schedule"),
    ("train-image-flag-language-recipe", ["train", "--recipe", "lm-smoke", "--momentum", "0.5",
                                          "--out", "{root}/t"], 1,
     "--momentum set an image recipe's [train]"),
    # --- extract
    ("extract-stimuli-missing", ["extract", "--model", "toponet_demo.tau_0", "--stimuli",
                                 "{nope}", "--out", "{root}/a.nc"], 1, "--stimuli"),
    ("extract-unknown-model", ["extract", "--model", "toponet_demo.tau_7", "--stimuli",
                               "{images}", "--out", "{root}/a.nc"], 1, "toponet_demo.tau_0"),
    ("extract-model-none", ["extract", "--stimuli", "{images}", "--out", "{root}/a.nc"], 2,
     "--model"),
    ("extract-out-is-folder", ["extract", "--model", "toponet_demo.tau_0", "--stimuli",
                               "{images}", "--out", "{root}"], 1, "--out"),
    ("extract-batch-size-zero", ["extract", "--model", "toponet_demo.tau_0", "--stimuli",
                                 "{images}", "--out", "{root}/a.nc", "--batch-size", "0"], 1,
     "--batch-size"),
    ("extract-unknown-layer", ["extract", "--model", "toponet_demo.tau_0", "--stimuli",
                               "{images}", "--out", "{root}/a.nc", "--layers", "layer9"], 1,
     "layer9"),
    ("extract-pooling-typo", ["extract", "--model", "toponet_demo.tau_0", "--stimuli",
                              "{images}", "--out", "{root}/a.nc", "--pooling", "maen"], 2,
     "--pooling"),
    ("extract-checkpoint-missing", ["extract", "--model", "toponet_demo.tau_0", "--checkpoint",
                                    "{nope}.pt", "--stimuli", "{images}", "--out",
                                    "{root}/a.nc"], 1, "--checkpoint"),
    # --- map
    ("map-stimuli-missing", ["map", "--stimuli", "{nope}", "--out", "{root}/m"], 1, "--stimuli"),
    ("map-threshold-nan", ["map", "--stimuli", "{floc}", "--out", "{root}/m", "--threshold",
                           "nan"], 1, "--threshold nan is not a finite number"),
    ("map-alpha-one", ["map", "--stimuli", "{floc}", "--out", "{root}/m", "--alpha", "1"], 1,
     "--alpha 1 is not a finite number in (0, 1)"),
    ("map-permutations-negative", ["map", "--stimuli", "{floc}", "--out", "{root}/m",
                                   "--n-permutations", "-5"], 1, "--n-permutations -5 is not"),
    ("map-permutations-huge", ["map", "--stimuli", "{floc}", "--out", "{root}/m",
                               "--n-permutations", "1000000000000"], 1, "[0, 1000000]"),
    # refused by the settings object, as in Python (was argparse's int type: exit 2)
    ("map-permutations-fraction", ["map", "--stimuli", "{floc}", "--out", "{root}/m",
                                   "--n-permutations", "2.7"], 1,
     "--n-permutations 2.7 is not a whole number"),
    ("map-seed-negative", ["map", "--stimuli", "{floc}", "--out", "{root}/m", "--random-state",
                           "-1"], 1, "--random-state -1 is not"),
    ("map-batch-size-zero", ["map", "--stimuli", "{floc}", "--out", "{root}/m", "--batch-size",
                             "0"], 1, "--batch-size"),
    ("map-unknown-model", ["map", "--model", "toponet_demo.tau_7", "--stimuli", "{floc}",
                           "--out", "{root}/m"], 1, "toponet_demo.tau_0"),
    ("map-checkpoint-missing", ["map", "--checkpoint", "{nope}.pt", "--stimuli", "{floc}",
                                "--out", "{root}/m"], 1, "--checkpoint"),
    ("map-out-is-file", ["map", "--stimuli", "{floc}", "--out", "{file}"], 1, "--out"),
    ("map-images-reversed", ["map", "--images", "9-3"], 2, "--images"),
    ("map-device-typo", ["map", "--stimuli", "{floc}", "--out", "{root}/m", "--device", "gpu0"],
     1, "gpu0"),
    ("map-language-threshold", ["map", "--language", "--threshold", "3", "--out", "{root}/m"], 1,
     "--threshold"),
    ("map-language-unit-positions", ["map", "--language", "--position-units", "mm", "--out",
                                     "{root}/m"], 1, "--position-units"),
    # one flag "belongs", several "belong" (before: "--no-random-init belong to")
    ("map-language-no-random-init", ["map", "--language", "--no-random-init", "--out",
                                     "{root}/m"], 1, "--no-random-init belongs to the fLoc map"),
    ("map-language-two-floc-flags", ["map", "--language", "--threshold", "3", "--no-random-init",
                                     "--out", "{root}/m"], 1,
     "--threshold and --no-random-init belong to the fLoc map"),
    # the library's "cortex_maps: ..." in flag terms (before: "error: cortex_maps: 'faces' ...")
    ("map-cortex-maps-missing", ["map", "--stimuli", "{floc}", "--out", "{root}/m",
                                 "--cortex-maps", "faces={nope}.L.func.gii"], 1,
     "error: --cortex-maps: 'faces' file"),
    ("map-language-alpha", ["map", "--language", "--alpha", "1", "--stimuli", "{file}", "--out",
                            "{root}/m"], 1, "--alpha 1 is not"),
    # --- models, layers
    ("models-no-match", ["models", "nothing_like_this*"], 1, "nothing_like_this"),
    ("layers-unknown-model", ["layers", "toponet_demo.tau_7"], 1, "toponet_demo.tau_0"),
    ("layers-no-model", ["layers"], 2, "MODEL"),
    # --- brainscore
    ("brainscore-no-subcommand", ["brainscore"], 2, "brainscore"),
    ("export-card-missing", ["brainscore", "export", "--card", "{nope}.json", "--out",
                             "{root}/o"], 1, "--card"),
    ("export-card-bad-json", ["brainscore", "export", "--card", "{bad_json}", "--out",
                              "{root}/o"], 1, "not valid JSON"),
    ("export-sha-short", ["brainscore", "export", "toponet_demo.tau_0", "--sha256", "abc",
                          "--out", "{root}/o"], 1, "--sha256"),
    ("export-region-map-bad", ["brainscore", "export", "toponet_demo.tau_0",
                               "--region-layer-map", "{{bad", "--out", "{root}/o"], 1,
     "--region-layer-map"),
    ("export-unknown-model", ["brainscore", "export", "toponet_demo.tau_7", "--out", "{root}/o"],
     1, "toponet_demo.tau_0"),
    ("score-plugin-missing", ["brainscore", "score", "--plugin", "{nope}", "--benchmark",
                              "{root}"], 1, "--plugin"),
    ("score-metric-typo", ["brainscore", "score", "--plugin", "{root}", "--benchmark", "{root}",
                           "--metrics", "plss"], 2, "plss"),
]


def _run(argv, capsys):
    try:
        rc = main(argv)
    except SystemExit as exc:  # argparse's own usage errors
        rc = exc.code
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_error_path_exits_cleanly_with_one_line(case, paths, capsys):
    _, argv, status, needle = case
    argv = [a.format(**paths) for a in argv] + (["--no-progress"] if argv[0] in (
        "extract", "map", "train") and status == 1 else [])
    rc, out, err = _run(argv, capsys)
    assert rc == status, (rc, out, err)
    assert "Traceback" not in out + err, err
    lines = [ln for ln in err.strip().splitlines() if ln.strip()]
    message = lines[-1]
    assert message.startswith("toponeuro") and "error:" in message or status == 2, err
    if status == 1:
        assert len(lines) == 1, f"more than one line on stderr:\n{err}"
        assert not PYTHON_NAME.search(message), message
    assert needle in err, (needle, err)


def test_every_sub_command_has_error_cases():
    covered = {tuple(w for w in c[1][:2] if not w.startswith("-") and "{" not in w)
               for c in CASES}
    for words in COMMANDS:
        assert any(c[: len(words)] == words for c in covered), words


def test_no_case_reaches_a_slow_step(paths, capsys, monkeypatch):
    """The map cases fail before a model is loaded (they used to fail 15 s later)."""
    import toponeuro.models

    loaded = []
    import toponeuro.reporting  # noqa: F401 - imported before the patch:
    import toponeuro.training  # noqa: F401 - a first import under it keeps it
    monkeypatch.setattr(toponeuro.models, "load_model", lambda *a, **k: loaded.append(a))
    for case in CASES:
        if case[0].startswith("map-") and case[0] not in (
            "map-unknown-model", "map-checkpoint-missing"
        ):
            _run([a.format(**paths) for a in case[1]], capsys)
    assert not loaded


# --- messages of several lines (issue: the hint and its cause printed on two lines) ---------
def test_a_download_error_prints_one_line(paths, capsys, monkeypatch):
    """run_map's DownloadError is the fLoc hint, a newline and the cause; one line here."""
    import toponeuro.stimuli
    from toponeuro.exceptions import DownloadError

    def offline(*a, **k):
        raise DownloadError("could not reach github.com: timed out")

    monkeypatch.setattr(toponeuro.stimuli, "load_floc", offline)
    monkeypatch.setenv("TOPONEURO_DATA", str(paths["root"] / "empty-cache"))
    rc, out, err = _run(["map", "--out", str(paths["root"] / "dl"), "--no-progress"], capsys)
    assert rc == 1 and "Traceback" not in out + err
    assert len(err.strip().splitlines()) == 1, err
    assert "--stimuli" in err and "(the download failed: could not reach github.com" in err


def _fake_brainscore(root):
    """A plugin folder and a 'python' that installs it and then fails like a traceback."""
    import json
    import stat

    plugin = root / "plugin"
    plugin.mkdir()
    (plugin / "toponeuro_export.json").write_text(json.dumps(
        {"modality": "vision", "identifier": "toponet_x", "region_layer_map": {"IT": "fc"}}))
    (root / "site" / "brainscore_vision" / "models").mkdir(parents=True)
    (root / "bench").mkdir()
    python = root / "python"
    python.write_text(
        "#!/bin/sh\n"
        f'if [ "$1" = "-c" ]; then echo "{root}/site/brainscore_vision"; exit 0; fi\n'
        'echo "Traceback (most recent call last):" >&2\n'
        'echo "  File \\"_runner.py\\", line 3, in <module>" >&2\n'
        'echo "ValueError: the benchmark holds no stimuli" >&2\n'
        "exit 3\n")
    python.chmod(python.stat().st_mode | stat.S_IXUSR)
    return plugin, python


def test_a_failed_scorer_prints_one_line_naming_its_output_file(tmp_path, capsys):
    """ExternalCommandError copies the scorer's error output (several lines): the CLI prints
    its first and last lines and the file with all of it; Python keeps the whole text."""
    from toponeuro.brainscore import score_with_brainscore
    from toponeuro.exceptions import ExternalCommandError

    plugin, python = _fake_brainscore(tmp_path)
    rc, out, err = _run(["brainscore", "score", "--plugin", str(plugin), "--benchmark",
                         str(tmp_path / "bench"), "--python", str(python), "--work-dir",
                         str(tmp_path / "work")], capsys)
    assert rc == 1 and "Traceback" not in out
    assert len(err.strip().splitlines()) == 1, err
    assert "exit 3" in err and "ValueError: the benchmark holds no stimuli" in err
    log = tmp_path / "work" / "brainscore_stderr.txt"
    assert str(log) in err and "[2 more lines]" in err
    assert "_runner.py" in log.read_text()
    with pytest.raises(ExternalCommandError) as info:
        score_with_brainscore(plugin, benchmark=tmp_path / "bench", python=str(python),
                              work_dir=tmp_path / "work2")
    text = str(info.value)
    assert "_runner.py" in text and text.count("\n") == 3, text
