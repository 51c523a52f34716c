"""Training that has failed stops; a run folder holds one run; checkpoints are checked first
(issue 19: "Training that has failed keeps going" and the checkpoint tracebacks)."""

import copy
import importlib.resources
import json
import warnings

import pytest
import torch

from toponeuro import exceptions as E
from toponeuro.cli import main
from toponeuro.models import SmallResNet
from toponeuro.training import (
    TrainData,
    TrainSchedule,
    list_checkpoints,
    load_checkpoint,
    load_recipe,
    load_trained_model,
    make_synthetic_images,
    run_recipe,
    train,
    validate_checkpoint,
)


def _recipe(epochs=1, **train_cfg):
    r = load_recipe("demo-smoke")
    r["data"].update(n_per_class=4, val_per_class=0, image_size=16)
    r["train"].update(epochs=epochs, batch_size=4, **train_cfg)
    return r


def _no_nan_checkpoint(folder):
    for p in list_checkpoints(folder):
        state = torch.load(p, weights_only=True)["model"]
        assert all(v.isfinite().all() for v in state.values() if v.is_floating_point()), p


# --- divergence ------------------------------------------------------------------------------
def test_a_learning_rate_of_1e6_stops_at_the_first_non_finite_loss(tmp_path):
    # 0.2.0: NaN from step 2 on, every checkpoint NaN, train accuracy 0.25, no warning
    with pytest.raises(E.TrainingDivergedError) as err:
        run_recipe(_recipe(epochs=3, lr=1e6), tmp_path, progress=False)
    msg = str(err.value)
    assert "the loss became NaN or infinite at step 3" in msg
    assert "learning rate 933013" in msg and "no good checkpoint yet" in msg
    assert isinstance(err.value, FloatingPointError)
    assert list_checkpoints(tmp_path) == []


def test_divergence_names_the_last_good_checkpoint_and_saves_no_nan(tmp_path):
    calls = []

    def poisoned_after_epoch_1(x, gen):  # 4 batches per epoch; epoch 2 sees a NaN image
        calls.append(1)
        return x * float("nan") if len(calls) == 6 else x

    data = make_synthetic_images(n_classes=2, n_per_class=8, image_size=16)
    torch.manual_seed(0)
    model = SmallResNet(2, widths=(4, 4, 4, 4))
    with pytest.raises(E.TrainingDivergedError, match=r"at step 6 \(epoch 2\)") as err:
        train(model, TrainData(data, batch_transform=poisoned_after_epoch_1),
              schedule=TrainSchedule(epochs=3, batch_size=4), out_dir=tmp_path, progress=False)
    assert f"last good checkpoint is {tmp_path / 'checkpoints' / 'epoch_001.pt'}" in str(err.value)
    assert [p.name for p in list_checkpoints(tmp_path)] == ["epoch_001.pt"]
    _no_nan_checkpoint(tmp_path)
    assert len(json.loads((tmp_path / "history.json").read_text())) == 1


def test_a_non_finite_gradient_stops_before_the_weights_change():
    data = make_synthetic_images(n_classes=2, n_per_class=4, image_size=16)
    model = SmallResNet(2, widths=(4, 4, 4, 4))
    model.fc.weight.register_hook(lambda g: g * float("inf"))  # finite loss, infinite gradient
    before = model.fc.weight.detach().clone()
    with pytest.raises(E.TrainingDivergedError, match="a gradient became NaN or infinite at step 1"):
        train(model, data, schedule=TrainSchedule(batch_size=4), progress=False)
    assert torch.equal(model.fc.weight.detach(), before)


# --- one run per folder ----------------------------------------------------------------------
@pytest.mark.slow  # several training runs
def test_a_rerun_with_another_recipe_is_refused_unless_restart(tmp_path):
    # 0.2.0: resumed silently from the other recipe's checkpoints
    first = _recipe(epochs=1)
    run_recipe(first, tmp_path, progress=False)
    record = json.loads((tmp_path / "run.json").read_text())
    assert record["format"] == "toponeuro.training-run" and len(record["recipe_sha256"]) == 64
    other = copy.deepcopy(first)
    other["topoloss"]["tau"], other["seed"], other["train"]["epochs"] = 50.0, 7, 2
    with pytest.raises(E.RecipeMismatchError, match="restart=True") as err:
        run_recipe(other, tmp_path, progress=False)
    assert "seed: 0 -> 7" in str(err.value) and "topoloss.tau: 1.0 -> 50.0" in str(err.value)
    res = run_recipe(other, tmp_path, progress=False, restart=True)
    assert [h["epoch"] for h in res.history] == [1, 2]
    for p in list_checkpoints(tmp_path):
        assert load_checkpoint(p)["recipe"]["seed"] == 7
    fresh = run_recipe(other, tmp_path / "fresh", progress=False)
    assert all(torch.equal(v, fresh.model.state_dict()[k])
               for k, v in res.model.state_dict().items())
    # the same recipe again resumes (nothing to do) and the device is not part of the run
    again = run_recipe(other, tmp_path, progress=False, device="cpu")
    assert len(again.history) == 2


def test_a_0_2_run_folder_without_run_json_is_checked_by_its_checkpoint(tmp_path):
    run_recipe(_recipe(), tmp_path, progress=False)
    (tmp_path / "run.json").unlink()  # as 0.2.0 left it
    other = _recipe()
    other["topoloss"]["tau"] = 50.0
    with pytest.raises(E.RecipeMismatchError, match="topoloss.tau"):
        run_recipe(other, tmp_path, progress=False)


def test_a_checkpoint_with_other_widths_is_a_typed_error(tmp_path):
    # 0.2.0: RuntimeError traceback from load_state_dict
    wide = _recipe()
    run_recipe(wide, tmp_path, progress=False)
    narrow = copy.deepcopy(wide)
    narrow["model"]["widths"] = [8, 8, 8, 8]
    with pytest.raises(E.RecipeMismatchError, match=r"model.widths"):
        run_recipe(narrow, tmp_path, progress=False, epochs=2)
    data = make_synthetic_images(n_classes=2, n_per_class=4, image_size=16)
    train(SmallResNet(2, widths=(4, 4, 4, 4)), data, schedule=TrainSchedule(batch_size=4),
          out_dir=tmp_path / "b", progress=False)
    (tmp_path / "b" / "run.json").unlink()  # a 0.2 folder: only the weights can tell
    with pytest.raises(E.CheckpointError, match="do not fit this model"):
        train(SmallResNet(2, widths=(8, 8, 8, 8)), data, schedule=TrainSchedule(2, batch_size=4),
              out_dir=tmp_path / "b", progress=False)


def test_a_folder_that_is_not_a_run_is_never_written_into(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(E.OutputExistsError, match="notes.txt"):
        run_recipe(_recipe(), tmp_path, progress=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_a_link_at_the_checkpoints_folder_is_refused_and_its_target_untouched(tmp_path):
    # before: restart=True deleted (and keep_checkpoints replaced) the checkpoints in the
    # folder a link planted at <out_dir>/checkpoints points to
    data = make_synthetic_images(n_classes=2, n_per_class=4, image_size=16)
    out, archive = tmp_path / "run", tmp_path / "archive"
    train(SmallResNet(2, widths=(4, 4, 4, 4)), data, schedule=TrainSchedule(2, batch_size=4),
          out_dir=out, progress=False)
    (out / "checkpoints").rename(archive)
    (out / "checkpoints").symlink_to(archive)
    before = {p.name: p.read_bytes() for p in archive.iterdir()}
    with pytest.raises(E.UnsafeLinkError, match="checkpoints"):
        train(SmallResNet(2, widths=(4, 4, 4, 4)), data, schedule=TrainSchedule(1, batch_size=4),
              out_dir=out, progress=False, restart=True)
    assert {p.name: p.read_bytes() for p in archive.iterdir()} == before


@pytest.mark.parametrize("name", ["history.json", "steps.csv"])
def test_a_file_named_as_a_runs_is_not_a_run_without_its_record(tmp_path, name):
    # before: no run.json and no checkpoint, yet a user's history.json was overwritten
    (tmp_path / name).write_bytes(b"mine")
    with pytest.raises(E.OutputExistsError, match=f"not a toponeuro training run .{name}"):
        run_recipe(_recipe(), tmp_path, progress=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]
    assert (tmp_path / name).read_bytes() == b"mine"


def test_a_recipe_name_is_a_name_not_a_path(tmp_path, monkeypatch):
    # 0.2.0: runs/../../escape written outside runs/
    monkeypatch.chdir(tmp_path)
    r = _recipe()
    r["name"] = "../../escape"
    with pytest.raises(E.RecipeError, match="name must be a name"):
        run_recipe(r, progress=False)
    bad = tmp_path / "bad.toml"
    bad.write_text((importlib.resources.files("toponeuro.training")
                    / "recipes" / "demo-smoke.toml").read_text()
                   .replace('name = "demo-smoke"', 'name = "a/b"'))
    with pytest.raises(E.RecipeError, match="'a/b'"):
        load_recipe(bad)
    assert list(tmp_path.iterdir()) == [bad]


def test_an_empty_topoloss_layer_list_warns(tmp_path):
    r = _recipe()
    r["topoloss"]["layers"] = []
    with pytest.warns(E.ToponeuroWarning, match="no layers"):
        run_recipe(r, progress=False)


def test_labels_beyond_num_classes_are_a_typed_error():
    # 0.2.0: IndexError from cross-entropy
    data = make_synthetic_images(n_classes=4, n_per_class=2, image_size=16)
    with pytest.raises(E.InvalidDataError, match="num_classes"):
        train(SmallResNet(2, widths=(4, 4, 4, 4)), data, schedule=TrainSchedule(batch_size=8),
              progress=False)


# --- malformed checkpoints -------------------------------------------------------------------
@pytest.fixture(scope="module")
def good_checkpoint(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ckpt")
    res = run_recipe(_recipe(), folder, progress=False)
    return torch.load(res.checkpoints[-1], weights_only=True), folder


def _nan(c):
    for v in c["model"].values():
        if v.is_floating_point():
            v.fill_(float("nan"))


@pytest.mark.parametrize("name, edit, match", [
    ("no-model", lambda c: c.pop("model"), "no 'model' entry"),
    # a language run's checkpoint.pt (before: "use a checkpoint written by toponeuro train")
    ("language-run", lambda c: c.update(trained=c.pop("model")),
     "resume checkpoint of a language run"),
    ("model-str", lambda c: c["recipe"].__setitem__("model", "small_resnet"),
     "recipe.model must be a table"),
    ("classes-many", lambda c: c["recipe"]["model"].__setitem__("num_classes", "many"),
     "num_classes must be a whole number"),
    ("widths-2", lambda c: c["recipe"]["model"].__setitem__("widths", [8, 16]),
     r"model.widths must be 4 channel counts"),
    ("classes-2", lambda c: c["recipe"]["model"].__setitem__("num_classes", 2),
     r"num_classes = 2 but the weights have 4 outputs"),
    ("nan", _nan, "NaN or infinite weights"),
])
def test_malformed_checkpoints_name_the_field(good_checkpoint, tmp_path, name, edit, match):
    # 0.2.0: KeyError / AttributeError / ValueError / IndexError, or a NaN model accepted
    ckpt = copy.deepcopy(good_checkpoint[0])
    edit(ckpt)
    path = tmp_path / f"{name}.pt"
    torch.save(ckpt, path)
    with pytest.raises(E.CheckpointError, match=match):
        load_trained_model(path)
    with pytest.raises(E.CheckpointError, match=match):
        validate_checkpoint(ckpt, path)


def test_a_nan_checkpoint_given_to_the_cli_is_one_line(good_checkpoint, tmp_path, capsys):
    # 0.2.0: `toponeuro map --checkpoint` crashed with a numpy traceback
    ckpt = copy.deepcopy(good_checkpoint[0])
    _nan(ckpt)
    torch.save(ckpt, tmp_path / "nan.pt")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = main(["map", "--checkpoint", str(tmp_path / "nan.pt"), "--out",
                     str(tmp_path / "map"), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 1 and "NaN or infinite weights" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "map").exists()
