"""``toponeuro train``'s flags, generated from the declarations of TrainSchedule and
TrainRecords (issue 44): each sets the recipe's ``[train]`` key of its field's name, its help
shows the library's default, and a message naming the field names the flag."""

import argparse
import dataclasses
import json
import warnings

import pytest
from _fresh import run_python

from toponeuro.cli import build_parser, cli_message, main
from toponeuro.cli._checks import _flags
from toponeuro.cli._settings import settings_flags
from toponeuro.training import TrainRecords, TrainSchedule, load_recipe, run_recipe

SETTINGS = (TrainSchedule, TrainRecords)


def _train_parser():
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return parser, sub.choices["train"]


def test_every_field_is_a_flag_of_train():
    _, p = _train_parser()
    by_dest = {a.dest: a for a in p._actions}
    for cls in SETTINGS:
        for f in dataclasses.fields(cls):
            action = by_dest[f"{cls._name}.{f.name}"]
            assert action.option_strings == [f.metadata["flag"]]
            assert action.help.startswith(f.metadata["help"]) and action.default is None
            # a field whose None a flag chooses says how, with the recipe's word for it
            assert action.help == f.metadata["help"] + NONE_HELP.get(f.name, ""), f.name


#: what --help adds to a field's help for its word for None (--lr-schedule: a choice)
NONE_HELP = {"log_every": "; none or 0: no step log", "keep_checkpoints": ", or all (also 0)"}


def test_help_shows_each_flag_with_its_help_and_library_default(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["train", "--help"])
    assert exc.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    for cls in SETTINGS:
        for f in dataclasses.fields(cls):
            flag, help_ = f.metadata["flag"], f.metadata["help"]
            default = f.default if not isinstance(f.default, float) else f"{f.default:g}"
            assert flag in text and help_ in text, flag
            assert (f"(default: the recipe's train.{f.name}, else toponeuro.training."
                    f"{cls.__name__}().{f.name} = {default}") in text, flag
    # the flags the command adds itself are there too
    for flag in ("--recipe", "--out", "--steps", "--seed", "--device", "--data", "--list"):
        assert flag in text


def test_a_message_naming_a_field_names_its_flag():
    flags = _flags(build_parser(), "train")
    for cls in SETTINGS:
        for f in dataclasses.fields(cls):
            name = f"{cls._name}.{f.name}"
            assert settings_flags()[name] == f.metadata["flag"]
            assert cli_message(f"{name}=3 is bad", flags) == f"{f.metadata['flag']} 3 is bad"
    # run_recipe's own keyword (its language message) and train's 0.4 keywords
    assert cli_message("pass steps=N instead of epochs=N", flags) == (
        "pass --steps N instead of --epochs N")
    assert cli_message("lr=0.1", flags) == "--lr 0.1"


TINY = """
name = "tiny"
seed = 0
[model]
arch = "small_resnet"
num_classes = 4
widths = [4, 4, 4, 4]
[data]
kind = "synthetic"
n_classes = 4
n_per_class = 4
val_per_class = 2
image_size = 16
[train]
epochs = 2
batch_size = 8
[topoloss]
layers = "topo"
tau = 1.0
"""


def _tiny(tmp_path):
    path = tmp_path / "tiny.toml"
    path.write_text(TINY)
    return load_recipe(str(path)), path


def _history(res_or_folder):
    history = (json.loads((res_or_folder / "history.json").read_text())
               if not hasattr(res_or_folder, "history") else res_or_folder.history)
    return [{k: v for k, v in h.items() if k != "seconds"} for h in history]


@pytest.mark.slow  # four tiny training runs
def test_the_flags_train_as_the_recipe_keys_do(tmp_path, capsys):
    """A seeded tiny run: the CLI without flags trains as run_recipe does, and with the
    [train] flags as run_recipe with those keys in the recipe (the flag is the key)."""
    recipe, path = _tiny(tmp_path)
    args = ["train", "--recipe", str(path), "--seed", "3", "--no-progress"]
    assert main([*args, "--out", str(tmp_path / "cli")]) == 0
    plain = run_recipe(recipe, tmp_path / "lib", progress=False, seed=3)
    assert _history(tmp_path / "cli") == _history(plain)

    flags = ["--lr", "0.2", "--momentum", "0.5", "--lr-schedule", "constant", "--log-every",
             "1", "--keep-checkpoints", "1", "--weight-decay", "0", "--batch-size", "4"]
    assert main([*args, "--out", str(tmp_path / "cli2"), *flags]) == 0
    edited = dict(recipe, train=dict(recipe["train"], lr=0.2, momentum=0.5,
                                     lr_schedule="constant", log_every=1, keep_checkpoints=1,
                                     weight_decay=0, batch_size=4))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no deprecation on the way
        lib = run_recipe(edited, tmp_path / "lib2", progress=False, seed=3)
    assert _history(tmp_path / "cli2") == _history(lib) != _history(plain)
    assert len(list((tmp_path / "cli2" / "checkpoints").glob("*.pt"))) == 1
    steps = (tmp_path / "cli2" / "steps.csv").read_text().splitlines()
    assert len(steps) > 2 and {line.split(",")[2] for line in steps[1:]} == {"0.2"}
    capsys.readouterr()


def test_other_commands_do_not_import_training_for_its_flags():
    """train's flags come from toponeuro.training (torch): main's parser adds them when train
    parses, so `toponeuro --version` or `map`'s parsing stay light."""
    code = (
        "import sys\n"
        "from toponeuro.cli import _build_parser\n"
        "p = _build_parser()\n"
        "p.parse_args(['map', '--images', '97-99'])\n"
        "assert 'torch' not in sys.modules and 'toponeuro.training' not in sys.modules\n"
        "args = p.parse_args(['train', '--recipe', 'x', '--lr', '0.1'])\n"
        "assert getattr(args, 'schedule.lr') == 0.1 and 'toponeuro.training' in sys.modules\n"
    )
    done = run_python("-c", code)
    assert done.returncode == 0, done.stderr


#: flags a command words for itself although a settings field declares one of that name:
#: extract's and brainscore score's --stimuli (their own argument, an image folder or texts,
#: not a job's stimuli)
OWN_WORDING = {("extract", "--stimuli"), ("score", "--stimuli")}


def test_a_flag_a_command_adds_itself_says_what_its_field_declares():
    """--model, --checkpoint, --trust-checkpoint, the jobs' --stimuli, --images and
    --verb-noun (``cli_adds``): added by hand, their help is the field's declared help
    (one text), not a copy (map's language-only flags after ``with --language: ``)."""
    from toponeuro.cli._settings import settings_classes

    declared = {}
    for cls in settings_classes():
        for f in dataclasses.fields(cls):
            if f.metadata.get("flag"):
                declared.setdefault(f.metadata["flag"], set()).add(f.metadata["help"])
    parser = build_parser()
    checked = set()
    stack = [((), parser)]
    while stack:
        words, p = stack.pop()
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                stack.extend(((*words, n), s) for n, s in action.choices.items())
                continue
            flag = next(iter(action.option_strings), None)
            if (flag not in declared or "." in action.dest or flag in OWN_WORDING
                    or hasattr(action, "declared_by")  # a function's parameter (train's)
                    or (words[-1], flag) in OWN_WORDING or action.help == argparse.SUPPRESS):
                continue
            text = action.help.removeprefix("with --language: ")
            assert any(text.startswith(h) for h in declared[flag]), (words, flag)
            checked.add(flag)
    assert {"--model", "--checkpoint", "--trust-checkpoint", "--stimuli", "--images",
            "--verb-noun"} <= checked, checked


def test_the_flags_of_run_recipes_parameters_come_from_its_declarations(capsys):
    """--steps, --seed, --device, --data: type, help and default from run_recipe's declared
    parameters, docstring and signature; dest the parameter, so a message naming it names
    the flag; a bad value is refused by the declaration, before the recipe is read."""
    import inspect

    from toponeuro.cli._settings import param_help
    from toponeuro.cli._train import _RUN_FLAGS

    _, p = _train_parser()
    by_dest = {a.dest: a for a in p._actions}
    for name, flag in _RUN_FLAGS.items():
        action = by_dest[name]
        assert action.option_strings == [flag] and action.declared_by is run_recipe
        assert action.help == param_help(run_recipe, name) and action.default is None
        assert inspect.signature(run_recipe).parameters[name].default is None
    assert by_dest["seed"].type is int and by_dest["steps"].type is int
    assert by_dest["data_path"].metavar == "PATH"
    flags = _flags(build_parser(), "train")
    assert cli_message("seed=-1 is not a whole number >= 0.", flags) == (
        "--seed -1 is not a whole number >= 0.")
    with pytest.raises(SystemExit):
        main(["train", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--seed N random seed of the run" in text and "(default: the recipe's)" in text
    for bad, says in ((["--seed", "-1"], "--seed -1 is not a whole number >= 0."),
                      (["--steps", "0"], "--steps 0 is not a whole number >= 1.")):
        assert main(["train", "--recipe", "no-such-recipe", *bad]) == 1
        err = capsys.readouterr().err
        assert err == f"toponeuro train: error: {says}\n"  # before the recipe is looked up
