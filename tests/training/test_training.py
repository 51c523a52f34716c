import json

import pytest
import torch

from toponeuro.cli import main
from toponeuro.exceptions import RecipeError, UnknownNameError
from toponeuro.training import (
    TrainSchedule,
    build_from_recipe,
    list_checkpoints,
    load_checkpoint,
    load_recipe,
    run_recipe,
    train,
)


def _tiny_recipe(epochs=2):
    r = load_recipe("demo-smoke")
    r["data"].update(n_per_class=8, val_per_class=2, image_size=16)
    r["train"]["epochs"] = epochs
    return r


def _weights(model):
    return {k: v.clone() for k, v in model.state_dict().items()}


def test_same_seed_same_weights(tmp_path):
    a = run_recipe(_tiny_recipe(1), tmp_path / "a", progress=False)
    b = run_recipe(_tiny_recipe(1), tmp_path / "b", progress=False)
    wa, wb = _weights(a.model), _weights(b.model)
    assert all(torch.equal(wa[k], wb[k]) for k in wa)
    c = run_recipe(_tiny_recipe(1), tmp_path / "c", progress=False, seed=1)
    assert not all(torch.equal(wa[k], c.model.state_dict()[k]) for k in wa)


@pytest.mark.slow  # a killed and a resumed training run
def test_resume_after_kill_gives_identical_weights(tmp_path, monkeypatch):
    import toponeuro.training._train as tr

    full = run_recipe(_tiny_recipe(2), tmp_path / "full", progress=False)
    real_save = tr._save_atomic

    def killed_after_first_epoch(obj, path):
        if obj["epoch"] == 2:
            path.with_suffix(".pt.part").write_bytes(b"half-written")  # killed while saving
            raise KeyboardInterrupt
        real_save(obj, path)

    monkeypatch.setattr(tr, "_save_atomic", killed_after_first_epoch)
    with pytest.raises(KeyboardInterrupt):
        run_recipe(_tiny_recipe(2), tmp_path / "resumed", progress=False)
    monkeypatch.setattr(tr, "_save_atomic", real_save)
    assert len(list_checkpoints(tmp_path / "resumed")) == 1
    resumed = run_recipe(_tiny_recipe(2), tmp_path / "resumed", progress=False)
    wf, wr = _weights(full.model), _weights(resumed.model)
    assert all(torch.equal(wf[k], wr[k]) for k in wf)
    assert [h["epoch"] for h in resumed.history] == [1, 2]
    assert len(list_checkpoints(tmp_path / "resumed")) == 2
    hist = json.loads((tmp_path / "resumed" / "history.json").read_text())
    assert hist[0]["loss"] == pytest.approx(full.history[0]["loss"])


def test_history_logs_per_layer_topo_and_accuracy(tmp_path):
    res = run_recipe(_tiny_recipe(1), tmp_path, progress=False)
    rec = res.history[0]
    for key in ("loss", "ce_loss", "topo_loss", "train_accuracy", "val_accuracy", "lr"):
        assert key in rec
    topo_keys = [k for k in rec if k.startswith("topo/")]
    assert len(topo_keys) == 8 and all(0 <= rec[k] <= 2 for k in topo_keys)
    ckpt = load_checkpoint(res.checkpoints[0])
    assert ckpt["epoch"] == 1 and ckpt["topoloss"]["format"] == "toponeuro.topoloss/1"
    assert ckpt["recipe"]["name"] == "demo-smoke"


def test_topoloss_makes_sheets_smoother():
    torch.manual_seed(0)
    r = _tiny_recipe(1)
    model, ds, _, topo = build_from_recipe(r)
    before = {k: v.item() for k, v in topo.layerwise(model).items()}
    from toponeuro.topoloss import LayerSpec, TopoLoss

    strong = TopoLoss([LayerSpec(s.name, s.factor_h, s.factor_w, tau=50.0) for s in topo.specs])
    res = train(model, ds, strong, TrainSchedule(epochs=2, batch_size=16, lr=0.05),
                progress=False)
    after = {k: v.item() for k, v in topo.layerwise(res.model).items()}
    assert all(after[k] < before[k] for k in before)


def test_tau_zero_is_a_logged_control():
    r = _tiny_recipe(1)
    r["topoloss"]["tau"] = 0.0
    model, _, _, topo = build_from_recipe(r)
    assert all(s.tau is None for s in topo.specs)
    assert topo(model).item() == 0.0 and len(topo.layerwise(model)) == 8


def test_unknown_recipe_name_suggests_the_close_one():
    with pytest.raises(UnknownNameError, match="demo-smoke"):
        load_recipe("demo-smok")


@pytest.mark.parametrize(
    "text, error, match",
    [
        ('name = "x"\nseed = 0\n[model]\narch = "resnet9000"\n[data]\n[train]\n',
         UnknownNameError, "small_resnet"),
        ("name = [", RecipeError, "TOML"),
        ('name = "x"\nseed = 0\n[model]\narch = "small_resnet"\n[train]\n', RecipeError, "'data'"),
    ],
    ids=["unknown-arch", "bad-toml", "missing-table"],
)
def test_recipe_file_errors(tmp_path, text, error, match):
    bad = tmp_path / "bad.toml"
    bad.write_text(text)
    with pytest.raises(error, match=match):
        load_recipe(bad)


def test_image_folder_recipe(tmp_path):
    from toponeuro.stimuli import make_image_folder

    make_image_folder(tmp_path / "imgs", ("a", "b"), range(1, 7), suffix=".jpg")
    recipe = tmp_path / "r.toml"
    recipe.write_text(
        'name = "folder"\nseed = 3\n[model]\narch = "small_resnet"\nnum_classes = 2\n'
        "widths = [8, 8, 8, 8]\n"
        '[data]\nkind = "image_folder"\npath = "imgs"\nimage_size = 16\nnumbers = [1, 4]\n'
        "val_numbers = [5, 6]\n[train]\nepochs = 1\nbatch_size = 4\n"
    )
    r = load_recipe(recipe)
    model, train_ds, val_ds, topo = build_from_recipe(r)
    assert len(train_ds) == 8 and len(val_ds) == 4 and topo is None
    res = run_recipe(r, tmp_path / "out", progress=False)
    assert "val_accuracy" in res.history[0]


@pytest.mark.slow  # an end-to-end training run from the CLI
def test_cli_train_and_help(tmp_path, capsys):
    assert main(["train", "--list"]) == 0
    assert "demo-smoke" in capsys.readouterr().out
    assert main(["train", "--recipe", "demo-smoke", "--out", str(tmp_path), "--no-progress"]) == 0
    assert "trained 'demo-smoke'" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exc:
        main(["train", "--help"])
    assert exc.value.code == 0
