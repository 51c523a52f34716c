"""``train``'s parameters declared once (issue 44): settings objects, the 0.4 keywords, records."""

import dataclasses
import inspect
import json
import warnings

import pytest
import torch

from toponeuro import exceptions as E
from toponeuro.models import SmallResNet
from toponeuro.training import (
    OLD_TRAIN_KEYWORDS,
    TrainData,
    TrainRecords,
    TrainSchedule,
    load_checkpoint,
    load_recipe,
    make_synthetic_images,
    run_identity,
    run_recipe,
    train,
)

#: the most parameters a front door takes (run_map and run_language_map take 12)
MAX_PARAMETERS = 12


def _count(func) -> int:
    return sum(p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)
               for p in inspect.signature(func).parameters.values())


def _tiny():
    torch.manual_seed(0)
    model = SmallResNet(2, widths=(4, 4, 4, 4))
    return model, make_synthetic_images(n_classes=2, n_per_class=4, image_size=16)


def _history(res):
    return [{k: v for k, v in h.items() if k != "seconds"} for h in res.history]


def test_train_takes_at_most_twelve_parameters():
    assert _count(train) <= MAX_PARAMETERS  # 0.4: 20
    # every 0.4 keyword that left the signature has its replacement, a field that exists
    params = inspect.signature(train).parameters
    for old, new in OLD_TRAIN_KEYWORDS.items():
        param, field = new.split(".")
        assert old not in params and param in params
        assert field in {f.name for f in dataclasses.fields(
            type(params[param].default) if param != "data" else TrainData)}


def test_the_count_rule_finds_a_planted_long_signature():
    def long(a, b, c, d, e, f, g, h, i, j, k, m, n, *args, **kwargs):
        return a

    assert _count(long) == 13 > MAX_PARAMETERS


def test_old_keywords_warn_and_train_the_same_weights(tmp_path):
    model, data = _tiny()
    val = make_synthetic_images(n_classes=2, n_per_class=2, image_size=16, random_state=1)
    def flip(x, gen):
        return x.flip(-1) if torch.rand(1, generator=gen).item() < 0.5 else x

    new = train(model, TrainData(data, val, flip), None,
                TrainSchedule(2, batch_size=4, lr=0.1, momentum=0.5, weight_decay=1e-3,
                              lr_schedule=None),
                seed=3, progress=False, records=TrainRecords(log_every=1, keep_checkpoints=1),
                out_dir=tmp_path / "new")
    model, data = _tiny()
    with pytest.warns(FutureWarning) as caught:
        old = train(model, data, None, 2, batch_size=4, lr=0.1, momentum=0.5,
                    weight_decay=1e-3, lr_schedule=None, val_dataset=val, batch_transform=flip,
                    seed=3, progress=False, log_every=1, keep_checkpoints=1,
                    out_dir=tmp_path / "old")
    texts = [str(w.message) for w in caught if w.category is FutureWarning]
    assert len(texts) == 10
    assert any("train(lr=...) is deprecated since toponeuro 0.5" in t
               and "schedule=TrainSchedule(lr=...)" in t for t in texts)
    assert any("train(val_dataset=...)" in t and "data=TrainData(val_dataset=...)" in t
               for t in texts)
    assert any("train(log_every=...)" in t and "records=TrainRecords(log_every=...)" in t
               for t in texts)
    assert any("train(epochs=...)" in t and "4th positional" in t for t in texts)
    assert all(w.filename == __file__ for w in caught if w.category is FutureWarning)
    a, b = new.model.state_dict(), old.model.state_dict()
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    assert _history(new) == _history(old) and len(new.steps) == 4
    assert json.dumps(new.steps) == json.dumps(old.steps)  # NaN topo terms: no TopoLoss
    assert [p.name for p in new.checkpoints] == [p.name for p in old.checkpoints] == [
        "epoch_002.pt"]
    rec_new = json.loads((tmp_path / "new" / "run.json").read_text())["identity"]
    rec_old = json.loads((tmp_path / "old" / "run.json").read_text())["identity"]
    assert rec_new["sha256"] == rec_old["sha256"]


def test_the_settings_are_recorded_whole_by_their_names(tmp_path):
    model, data = _tiny()
    res = train(model, data, schedule=TrainSchedule(1, batch_size=4, lr=0.02), seed=5,
                progress=False, records=TrainRecords(log_every=2), out_dir=tmp_path)
    ckpt = load_checkpoint(res.checkpoints[-1])
    assert ckpt["settings"] == {
        "schedule": {"epochs": 1, "batch_size": 4, "lr": 0.02, "momentum": 0.9,
                     "weight_decay": 5e-4, "lr_schedule": "cosine"},
        "data": {"dataset": "<TensorDataset of 8>", "val_dataset": None,
                 "batch_transform": None},
        "records": {"log_every": 2, "keep_checkpoints": None},
    }
    identity = json.loads((tmp_path / "run.json").read_text())["identity"]
    assert identity["settings"] == {"schedule": ckpt["settings"]["schedule"], "seed": 5,
                                    "batch_transform": None}
    # another learning rate is another run, named by its field
    with pytest.raises(E.RecipeMismatchError, match=r"settings\.schedule\.lr: 0\.02 -> 0\.03"):
        train(SmallResNet(2, widths=(4, 4, 4, 4)), data, None,
              TrainSchedule(1, batch_size=4, lr=0.03), seed=5, progress=False, out_dir=tmp_path)


def _write_0_4_record(out_dir, model, sched, **changed):
    """Replace the run.json of ``out_dir`` by what 0.4 wrote: the settings flat."""
    run_file = out_dir / "run.json"
    record = json.loads(run_file.read_text())
    fields = ("epochs", "batch_size", "lr", "momentum", "weight_decay", "lr_schedule")
    flat = run_identity(model, None, None, seed=0, batch_transform=None,
                        **dict({f: getattr(sched, f) for f in fields}, **changed))
    record["identity"], record["identity_sha256"] = flat, flat["sha256"]
    run_file.write_text(json.dumps(record))


def test_a_run_folder_of_0_4_resumes(tmp_path):
    """A run.json with 0.4's flat settings is the same run, not a mismatch."""
    model, data = _tiny()
    sched = TrainSchedule(1, batch_size=4)
    first = train(model, data, None, sched, progress=False, out_dir=tmp_path)
    _write_0_4_record(tmp_path, first.model, sched)
    model, data = _tiny()
    again = train(model, data, None, sched, progress=False, out_dir=tmp_path)
    assert _history(again) == _history(first)  # resumed after the last epoch
    assert "schedule" in json.loads((tmp_path / "run.json").read_text())["identity"]["settings"]
    _write_0_4_record(tmp_path, first.model, sched, lr=0.5)  # a 0.4 run of another lr
    with pytest.raises(E.RecipeMismatchError, match=r"settings\.lr: 0\.5 -> 0\.05"):
        train(SmallResNet(2, widths=(4, 4, 4, 4)), data, None, sched, progress=False,
              out_dir=tmp_path)


def test_bad_values_are_typed_errors_naming_the_field():
    with pytest.raises(E.ParameterError, match=r"^schedule\.lr=0 is not a finite number > 0"):
        TrainSchedule(lr=0)
    with pytest.raises(E.ParameterError, match=r"^schedule\.momentum=1 "):
        TrainSchedule(momentum=1)
    with pytest.raises(E.InputTypeError, match=r"^schedule\.epochs='2' "):
        TrainSchedule(epochs="2")
    with pytest.raises(E.UnknownNameError, match=r"schedule\.lr_schedule='cosin'.*'cosine'"):
        TrainSchedule(lr_schedule="cosin")
    with pytest.raises(E.ParameterError, match=r"^records\.log_every=0 .*None logs no steps"):
        TrainRecords(log_every=0)
    for f in dataclasses.fields(TrainRecords):  # the recipe's word for None, as declared
        words = f.metadata["recipe_none"]
        with pytest.raises(E.ParameterError, match=rf"^records\.{f.name}=-1 .*None .*, as "
                                                   rf"{words[0]} does in a recipe\.$"):
            TrainRecords(**{f.name: -1})
    # declared fields (validate_fields): name=value, what it must be, the fix
    with pytest.raises(E.InputTypeError, match=r"^data\.dataset='images/' is not a torch\.utils"
                       r"\.data\.Dataset of \(image, label\) pairs, with a length \(got a str\)\. "
                       r"Load the images first"):
        TrainData("images/")
    data = make_synthetic_images(2, 2, 16)
    with pytest.raises(E.InputTypeError, match=r"^data\.val_dataset=3 is not a torch\.utils"):
        TrainData(data, val_dataset=3)
    with pytest.raises(E.InputTypeError, match=r"^data\.batch_transform='flip' is not a "
                       r"callable \(got a str\)\. It is called as batch_transform\(x, generator\)"):
        TrainData(data, batch_transform="flip")
    with pytest.raises(E.InputTypeError, match=r"^schedule=.* is not a "
                       r"toponeuro\.training\.TrainSchedule or a whole number"):
        train(SmallResNet(2, widths=(4, 4, 4, 4)), data, schedule={"lr": 0.1})
    with pytest.raises(E.InputTypeError, match=r"^topoloss=<TrainSchedule> is not a "
                       r"toponeuro\.topoloss\.TopoLoss or None"):  # the 3rd is the TopoLoss
        train(SmallResNet(2, widths=(4, 4, 4, 4)), data, TrainSchedule())
    with pytest.raises(E.InputTypeError, match=r"^records="):
        train(SmallResNet(2, widths=(4, 4, 4, 4)), data, records={"log_every": 2})
    with pytest.raises(E.ParameterError, match=r"^schedule\.lr=-1 "):  # an old keyword too
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            train(SmallResNet(2, widths=(4, 4, 4, 4)), data, lr=-1)
    with pytest.raises(TypeError, match="unexpected keyword argument 'learning_rate'"):
        train(SmallResNet(2, widths=(4, 4, 4, 4)), data, learning_rate=0.1)


def test_a_recipes_train_table_is_one_schedule_and_its_records():
    r = load_recipe("demo-smoke")
    r["train"].update(epochs=3, lr=0.2, log_every=7, keep_checkpoints=0)
    s = TrainSchedule.from_recipe(r)
    assert (s.epochs, s.lr, s.batch_size) == (3, 0.2, int(r["train"]["batch_size"]))
    assert TrainRecords.from_recipe(r) == TrainRecords(log_every=7, keep_checkpoints=None)


def test_run_recipe_passes_the_settings_objects(tmp_path, monkeypatch):
    import toponeuro.training._recipes as rec

    seen = {}
    monkeypatch.setattr(rec, "train", lambda *a, **kw: seen.update(args=a, kw=kw))
    r = load_recipe("demo-smoke")
    r["data"].update(n_per_class=2, val_per_class=1, image_size=16)
    run_recipe(r, tmp_path, progress=False, epochs=2)
    assert isinstance(seen["args"][1], TrainData) and seen["args"][1].val_dataset is not None
    assert seen["args"][3] == TrainSchedule.from_recipe(dict(r, train=dict(r["train"],
                                                                           epochs=2)))
    assert isinstance(seen["kw"]["records"], TrainRecords)


@pytest.mark.parametrize("word", ["constant", "none"])
def test_a_recipes_constant_schedule_is_none(word):
    """The recipe schema accepts ``lr_schedule = "constant"`` (and ``"none"``); it used to
    reach TrainSchedule as a string and be refused."""
    assert TrainSchedule.from_recipe({"train": {"lr_schedule": word}}).lr_schedule is None
    assert TrainSchedule.from_recipe({"train": {}}).lr_schedule == "cosine"


def test_from_recipe_is_one_path_for_both_tables():
    """One ``from_recipe``: each field reads the ``[train]`` key of its name, the rest of the
    table is another object's."""
    table = {"epochs": 2, "lr": 1, "log_every": 4, "keep_checkpoints": 0, "momentum": 0.5}
    s, r = TrainSchedule.from_recipe({"train": table}), TrainRecords.from_recipe({"train": table})
    assert TrainSchedule.from_recipe.__func__ is TrainRecords.from_recipe.__func__
    assert s == TrainSchedule(epochs=2, lr=1.0, momentum=0.5) and isinstance(s.lr, float)
    assert r == TrainRecords(log_every=4)
    with pytest.raises(E.ParameterError, match=r"schedule\.lr=-1"):
        TrainSchedule.from_recipe({"train": {"lr": -1}})


def test_every_recipe_field_declares_its_flag_and_help():
    """The fields the command line sets carry their flag and help (``toponeuro train``'s
    flags are built from them); TrainData's are Python only."""
    for cls in (TrainSchedule, TrainRecords):
        for f in dataclasses.fields(cls):
            assert f.metadata["flag"] == "--" + f.name.replace("_", "-"), f.name
            assert len(f.metadata["help"]) > 8, f.name
    assert all(f.metadata["flag"] is None for f in dataclasses.fields(TrainData))
