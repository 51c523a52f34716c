"""Flags built from the settings declarations beyond ``train``'s (issue 44): ``extract``'s
``--batch-size``, ``--device`` and ``--token-pooling``; the jobs' ``--stimuli``,
``--images`` and ``--verb-noun`` help; and the command line's word for None (``cli_none``),
which the flags take and the messages write."""

import argparse
import dataclasses
import functools
import inspect

import pytest

from toponeuro import settings as S
from toponeuro.cli import build_parser, cli_message, main
from toponeuro.cli._checks import _flags
from toponeuro.cli._settings import add_settings_args, none_given, none_words, settings_classes


def _sub(name):
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return parser, sub.choices[name]


# --- extract ---------------------------------------------------------------------------------
def test_extract_flags_come_from_the_declarations_with_extracts_defaults(capsys):
    """--batch-size, --device (Extraction) and --token-pooling (LanguageUnits): the fields'
    help and choices; left out, extract's own keyword applies, and --help says which."""
    from toponeuro.features import TOKEN_POOLINGS, extract

    _, p = _sub("extract")
    by_flag = {a.option_strings[0]: a for a in p._actions if a.option_strings}
    for flag, cls, name in (("--batch-size", S.Extraction, "batch_size"),
                            ("--device", S.Extraction, "device"),
                            ("--token-pooling", S.LanguageUnits, "token_pooling")):
        meta = cls.__dataclass_fields__[name].metadata
        action = by_flag[flag]
        assert meta["flag"] == flag and action.help == meta["help"] and action.default is None
    assert tuple(by_flag["--token-pooling"].choices) == TOKEN_POOLINGS
    with pytest.raises(SystemExit):
        main(["extract", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    defaults = inspect.signature(extract).parameters
    for name in ("batch_size", "device", "token_pooling"):
        assert f"(default: {defaults[name].default}, toponeuro.extract)" in text, name
    # one default per quantity: the jobs' Extraction() takes extract's own
    assert S.Extraction().batch_size == defaults["batch_size"].default == 64
    assert S.Extraction().device == defaults["device"].default
    assert S.LanguageUnits().token_pooling == defaults["token_pooling"].default


def test_each_batch_size_flag_says_which_batch(capsys):
    """--batch-size is the training batch in train, the extraction batch in extract and map."""
    for command, which in (("train", "the training batch: images per optimiser step"),
                           ("extract", "the extraction batch: stimuli per forward pass"),
                           ("map", "the extraction batch: stimuli per forward pass")):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        text = " ".join(capsys.readouterr().out.split())
        assert f"--batch-size N {which}" in text or f"--batch-size BATCH_SIZE {which}" in text


def _extract_kwargs(monkeypatch, tmp_path, *flags):
    """The keywords `toponeuro extract` passes to toponeuro.extract (stopped there)."""
    import toponeuro.features

    seen = {}

    class Stop(Exception):
        pass

    def fake(model, stimuli, layers, **kw):
        seen.update(kw)
        raise Stop

    monkeypatch.setattr(toponeuro.features, "extract", fake)
    monkeypatch.setattr("toponeuro.training.load_model", lambda *a, **k: object())
    texts = tmp_path / "s.txt"
    texts.write_text("a\nb\n")
    with pytest.raises(Stop):
        main(["extract", "--model", "toponet_demo.tau_0", "--stimuli", str(texts), "--out",
              str(tmp_path / "a.nc"), *flags])
    return seen


def test_extract_passes_only_the_flags_given(monkeypatch, tmp_path):
    kw = _extract_kwargs(monkeypatch, tmp_path)
    assert not {"batch_size", "device", "token_pooling"} & set(kw)  # extract's defaults
    kw = _extract_kwargs(monkeypatch, tmp_path, "--batch-size", "8", "--device", "cpu",
                         "--token-pooling", "last", "--no-progress")
    assert (kw["batch_size"], kw["device"], kw["token_pooling"], kw["progress"]) == (
        8, "cpu", "last", False)


def test_extract_refuses_a_bad_batch_size_by_its_flag_before_loading(tmp_path, capsys):
    assert main(["extract", "--model", "no.such", "--stimuli", str(tmp_path), "--out",
                 str(tmp_path / "a.nc"), "--batch-size", "0"]) == 1
    err = capsys.readouterr().err
    assert "--batch-size 0 is not a whole number >= 1" in err and "no.such" not in err
    with pytest.raises(SystemExit) as exc:  # a pooling extract lacks: the parser's choices
        main(["extract", "--model", "x", "--stimuli", "s", "--out", "a.nc",
              "--token-pooling", "avg"])
    assert exc.value.code == 2


# --- the jobs' stimuli flags -----------------------------------------------------------------
def test_the_jobs_stimuli_flags_take_their_help_from_the_fields():
    _, p = _sub("map")
    by_flag = {a.option_strings[0]: a for a in p._actions if a.option_strings}
    floc, lang = S.FlocStimuli.__dataclass_fields__, S.LanguageStimuli.__dataclass_fields__
    assert by_flag["--stimuli"].help == (f"{floc['source'].metadata['help']}; with --language: "
                                         f"{lang['source'].metadata['help']}")
    assert by_flag["--images"].help == floc["numbers"].metadata["help"]
    assert by_flag["--verb-noun"].help == ("with --language: "
                                           + lang["verb_noun"].metadata["help"])
    assert by_flag["--stimuli"].library_default() == ("floc; with --language langloc", "")
    assert by_flag["--verb-noun"].library_default() == ("topolm", "")
    from toponeuro.cli._map import _language_parser

    lp = {a.option_strings[0]: a for a in _language_parser()._actions if a.option_strings}
    assert lp["--stimuli"].help == lang["source"].metadata["help"]
    assert lp["--verb-noun"].help == lang["verb_noun"].metadata["help"]


# --- the word for None -----------------------------------------------------------------------
def _fields_with_a_none_word():
    return [(cls, f) for cls in settings_classes() for f in dataclasses.fields(cls)
            if "cli_none" in f.metadata]


def test_every_declared_none_word_is_taken_by_its_flag_and_means_none():
    """What a message writes for None (``--log-every none``) the flag takes, and the settings
    object gets None; other values still parse."""
    cases = _fields_with_a_none_word()
    assert {f"{c._name}.{f.name}" for c, f in cases} >= {
        "records.log_every", "records.keep_checkpoints", "schedule.lr_schedule",
        "units.smooth_fwhm", "stimuli.verb_noun"}
    for cls, f in cases:
        if f.metadata.get("cli_adds"):
            continue  # --verb-noun: the map's own (tested below)
        p = argparse.ArgumentParser()
        add_settings_args(p, cls, only=(f.name,))
        word = f.metadata["cli_none"]
        given_word = word if "choices" in f.metadata else word.upper()  # any case
        args = p.parse_args([f.metadata["flag"], given_word])
        given = none_given(cls, {f.name: getattr(args, f"{cls._name}.{f.name}")})
        assert given == {f.name: None}, f.name
        assert word in p.format_help()


def test_map_takes_smooth_fwhm_none():
    from toponeuro.cli._map import _job_settings, _other_job_flags

    parser, _ = _sub("map")
    args = parser.parse_args(["map", "--language", "--smooth-fwhm", "none"])
    assert _job_settings(args, language=True)["units"].smooth_fwhm is None
    args = parser.parse_args(["map", "--smooth-fwhm", "none"])  # without --language: named
    assert _other_job_flags(args, language=False) == ["--smooth-fwhm"]
    args = parser.parse_args(["map", "--language", "--smooth-fwhm", "1.5"])
    assert _job_settings(args, language=True)["units"].smooth_fwhm == 1.5


def test_train_none_words_set_none_over_the_recipe(monkeypatch, tmp_path):
    """--log-every none, --keep-checkpoints all and --lr-schedule constant give None over a
    recipe that sets the keys: the recipe run has no log_every / keep_checkpoints key (their
    default, None) and lr_schedule "constant", and the recipe schema accepts it."""
    import toponeuro.training
    from toponeuro.cli._train import _train_flags
    from toponeuro.training import TrainRecords, TrainSchedule, validate_recipe

    parser, _ = _sub("train")
    args = parser.parse_args(["train", "--recipe", "x", "--log-every", "none",
                              "--keep-checkpoints", "all", "--lr-schedule", "constant"])
    assert _train_flags(args) == {"log_every": None, "keep_checkpoints": None,
                                  "lr_schedule": "constant"}
    args = parser.parse_args(["train", "--recipe", "x", "--log-every", "5"])
    assert _train_flags(args) == {"log_every": 5}
    # the recipe's words for None are the flags' too: log_every = 0 in a recipe, --log-every 0
    args = parser.parse_args(["train", "--recipe", "x", "--log-every", "0",
                              "--keep-checkpoints", "0", "--lr-schedule", "none"])
    assert _train_flags(args) == {"log_every": None, "keep_checkpoints": None,
                                  "lr_schedule": "constant"}
    assert TrainRecords.from_recipe({"train": {"log_every": 0, "keep_checkpoints": 0}}) == (
        TrainRecords())

    recipe = tmp_path / "r.toml"
    recipe.write_text(
        'name = "r"\nseed = 0\n[model]\narch = "small_resnet"\nnum_classes = 2\n'
        '[data]\nkind = "synthetic"\nn_classes = 2\n'
        '[train]\nepochs = 1\nlog_every = 3\nkeep_checkpoints = 2\n')
    seen = {}

    @functools.wraps(toponeuro.training.run_recipe)  # its declarations: the CLI's flags
    def fake_run(r, **kw):
        seen["recipe"] = r
        raise KeyboardInterrupt

    monkeypatch.setattr(toponeuro.training, "run_recipe", fake_run)
    for words in (("none", "all", "constant"), ("0", "0", "none")):  # the flag's, the recipe's
        seen.clear()
        assert main(["train", "--recipe", str(recipe), "--out", str(tmp_path / "o"),
                     "--log-every", words[0], "--keep-checkpoints", words[1],
                     "--lr-schedule", words[2]]) == 130
        run = seen["recipe"]
        validate_recipe(run)
        assert "log_every" not in run["train"] and "keep_checkpoints" not in run["train"]
        assert TrainRecords.from_recipe(run) == TrainRecords()
        assert TrainSchedule.from_recipe(run).lr_schedule is None


def test_a_message_writes_none_as_the_flags_word(capsys):
    """``log_every=None`` in a message is ``--log-every none`` (0.5.0 before: ``--log-every
    None``, which the flag refused); a flag without a word for None is said left out."""
    train = _flags(build_parser(), "train")
    assert cli_message("records.log_every=None logs no steps.", train) == (
        "--log-every none logs no steps.")
    assert cli_message("records.keep_checkpoints=None keeps every one.", train) == (
        "--keep-checkpoints all keeps every one.")
    assert cli_message("schedule.lr_schedule=None", train) == "--lr-schedule constant"
    run_map = _flags(build_parser(), "map")
    assert cli_message("or pass verb_noun=None.", run_map) == "or pass --verb-noun none."
    assert cli_message("units.smooth_fwhm=None leaves them unsmoothed.", run_map) == (
        "--smooth-fwhm none leaves them unsmoothed.")
    assert cli_message("hemispheres=None compares both", run_map) == (
        "--hemispheres left out compares both")
    assert none_words()["--verb-noun"] == "none"
    # end to end: the message of a refused value names None's word and the recipe's (its 0),
    # which the library's declaration says (records.log_every=None ..., as 0 does in a recipe)
    for flag, says in (("--log-every", "--log-every none logs no steps"),
                       ("--keep-checkpoints", "--keep-checkpoints all keeps every one")):
        assert main(["train", "--recipe", "demo-smoke", flag, "-1"]) == 1
        err = capsys.readouterr().err
        assert f"{flag} -1 is not a whole number >= 1. {says}, as 0 does in a recipe." in err
