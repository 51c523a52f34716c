"""Instance-discrimination training data (decode once, cache, batched augmentation) and the
step logs of ``train``."""

from __future__ import annotations

import csv

import numpy as np
import pytest
import torch
from PIL import Image

from toponeuro.exceptions import InvalidDataError, RecipeError
from toponeuro.training import (
    InstanceImages,
    build_from_recipe,
    decode_image_folder,
    list_recipes,
    load_recipe,
    run_recipe,
)

CATS = ["adult", "house", "scrambled"]
NUMBERS = (1, 2, 3, 97)
INST_RECIPES = [r for r in list_recipes() if r.startswith("demo-floc-inst-tau")]


def test_decode_keeps_only_the_numbers_asked_for(tmp_path, write_floc_folder):
    root = write_floc_folder(tmp_path / "img", CATS, NUMBERS)
    d = decode_image_folder(root, 8, categories=CATS, numbers=(1, 96), cache=False)
    assert d["images"].dtype == torch.uint8 and tuple(d["images"].shape) == (9, 1, 8, 8)
    assert 97 not in d["number"].tolist()  # the held-out image never enters training
    assert d["category"] == [c for c in CATS for _ in range(3)]
    assert d["number"].tolist() == [1, 2, 3] * 3


def test_decode_matches_a_direct_resize(tmp_path, write_floc_folder):
    root = write_floc_folder(tmp_path / "img", ["a"], (5,))
    d = decode_image_folder(root, 8, cache=False)
    with Image.open(root / "a" / "a-5.png") as im:
        ref = np.asarray(im.convert("L").resize((8, 8), Image.Resampling.LANCZOS))
    assert np.array_equal(d["images"][0, 0].numpy(), ref)


def test_decode_cache_hits_and_misses_on_content(tmp_path, monkeypatch, write_floc_folder):
    root = write_floc_folder(tmp_path / "img", CATS, NUMBERS)
    cache = tmp_path / "cache"
    first = decode_image_folder(root, 8, numbers=(1, 3), cache_dir=cache)
    assert not first["cached"] and len(list((cache / "decoded").glob("*.pt"))) == 1
    # a hit does not decode again
    monkeypatch.setattr("PIL.Image.open", lambda *a, **k: pytest.fail("decoded twice"))
    second = decode_image_folder(root, 8, numbers=(1, 3), cache_dir=cache)
    monkeypatch.undo()
    assert second["cached"] and torch.equal(first["images"], second["images"])
    # changed bytes or another size give another key
    Image.fromarray(np.zeros((20, 20), np.uint8), "L").save(root / "adult" / "adult-1.png")
    third = decode_image_folder(root, 8, numbers=(1, 3), cache_dir=cache)
    assert not third["cached"] and third["key"] != first["key"]
    assert not torch.equal(third["images"], first["images"])
    assert decode_image_folder(root, 6, numbers=(1, 3), cache_dir=cache)["key"] != third["key"]


def test_decode_errors(tmp_path, write_floc_folder):
    with pytest.raises(RecipeError, match="does not exist"):
        decode_image_folder(tmp_path / "nope", 8, cache=False)
    root = write_floc_folder(tmp_path / "img", CATS, NUMBERS)
    with pytest.raises(RecipeError, match="not sub-folders"):
        decode_image_folder(root, 8, categories=["face"], cache=False)
    with pytest.raises(InvalidDataError, match="No images"):
        decode_image_folder(root, 8, numbers=(200, 300), cache=False)


def _images(n=6, s=16, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, 256, (n, 1, s, s), generator=g, dtype=torch.uint8)


def test_augment_batch_shapes_range_and_seeding():
    ds = InstanceImages(_images(), 8, repeats=3)
    assert len(ds) == 18 and ds.n_classes == 6 and int(ds[13][1]) == 1
    x = torch.stack([ds[i][0] for i in range(6)])
    a = ds.augment_batch(x, torch.Generator().manual_seed(1))
    b = ds.augment_batch(x, torch.Generator().manual_seed(1))
    c = ds.augment_batch(x, torch.Generator().manual_seed(2))
    assert tuple(a.shape) == (6, 3, 8, 8) and a.dtype == torch.float32
    assert torch.equal(a, b) and not torch.equal(a, c)
    assert a.min() >= -1 and a.max() <= 1  # [0, 1] pixels normalised with mean = std = 0.5
    assert torch.equal(a[:, 0], a[:, 2])  # grayscale repeated to three channels


def test_augment_without_randomness_is_a_plain_resize():
    imgs = _images(s=16)
    ds = InstanceImages(imgs, 16, scale=(1.0, 1.0), ratio=(1.0, 1.0), rotation=0.0, flip=False,
                        jitter=0.0)
    out = ds.augment_batch(imgs, torch.Generator().manual_seed(0))
    assert torch.allclose(out[:, 0], (imgs[:, 0].float() / 255 - 0.5) / 0.5, atol=1e-5)
    mirrored = InstanceImages(imgs, 16, scale=(1.0, 1.0), ratio=(1.0, 1.0), rotation=0.0,
                              jitter=0.0)
    got = mirrored.augment_batch(imgs, torch.Generator().manual_seed(0))[:, 0]
    plain = out[:, 0]
    flipped = torch.flip(plain, dims=[-1])
    per_image = [bool(torch.allclose(g, p, atol=1e-5) or torch.allclose(g, f, atol=1e-5))
                 for g, p, f in zip(got, plain, flipped)]
    assert all(per_image)


def test_views_are_fixed_by_their_seed():
    ds = InstanceImages(_images(), 8)
    v1, v2 = ds.views(2, seed=3), ds.views(2, seed=3)
    assert len(v1) == 12 and torch.equal(v1.tensors[0], v2.tensors[0])
    assert v1.tensors[1].tolist() == list(range(6)) * 2


def test_instance_images_rejects_float_input():
    with pytest.raises(InvalidDataError, match="uint8"):
        InstanceImages(torch.zeros(2, 1, 8, 8), 8)
    with pytest.raises(RecipeError, match="scale"):
        InstanceImages(_images(), 8, scale=(0.0, 1.0))


def _tiny_recipe(root, **train):
    return {
        "name": "tiny-inst",
        "seed": 0,
        "model": {"arch": "small_resnet", "num_classes": 9, "widths": [4, 8, 8, 8]},
        "data": {"kind": "floc_instances", "path": str(root), "categories": CATS,
                 "numbers": [1, 3], "image_size": 16, "decode_size": 16, "repeats": 2},
        "train": {"epochs": 2, "batch_size": 6, "lr": 0.05, "log_every": 1, **train},
        "topoloss": {"layers": "topo", "factor_h": 2.0, "factor_w": 2.0, "tau": 5.0,
                     "schedule": {"kind": "linear_warmup", "warmup_steps": 4}},
    }


def test_tiny_instance_recipe_trains_logs_steps_and_prunes_checkpoints(
    tmp_path, monkeypatch, write_floc_folder
):
    monkeypatch.setenv("TOPONEURO_DATA", str(tmp_path / "cache"))
    root = write_floc_folder(tmp_path / "img", CATS, NUMBERS)
    res = run_recipe(_tiny_recipe(root, keep_checkpoints=1), out_dir=tmp_path / "run",
                     progress=False)
    assert len(res.history) == 2 and 0 <= res.history[-1]["val_accuracy"] <= 1
    assert [s["step"] for s in res.steps] == list(range(1, 7))  # 18 items / 6 per batch x 2
    assert [round(s["tau_multiplier"], 2) for s in res.steps[:5]] == [0, 0.25, 0.5, 0.75, 1]
    s = res.steps[-1]
    assert s["topo_loss"] == pytest.approx(5.0 * s["topo_raw"], rel=0.2)
    with open(tmp_path / "run" / "steps.csv") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 6 and float(rows[-1]["ce_loss"]) == pytest.approx(s["ce_loss"])
    assert [p.name for p in res.checkpoints] == ["epoch_002.pt"]


@pytest.mark.slow  # three training runs
def test_instance_recipe_resume_matches_uninterrupted(tmp_path, monkeypatch, write_floc_folder):
    monkeypatch.setenv("TOPONEURO_DATA", str(tmp_path / "cache"))
    root = write_floc_folder(tmp_path / "img", CATS, NUMBERS)
    full = run_recipe(_tiny_recipe(root), out_dir=tmp_path / "a", progress=False)
    (tmp_path / "a" / "checkpoints" / "epoch_002.pt").unlink()  # as if killed in epoch 2
    resumed = run_recipe(_tiny_recipe(root), out_dir=tmp_path / "a", progress=False)
    for k, v in full.model.state_dict().items():
        assert torch.equal(v, resumed.model.state_dict()[k]), k
    assert resumed.steps == full.steps


def test_num_classes_must_match_the_instances(tmp_path, monkeypatch, write_floc_folder):
    monkeypatch.setenv("TOPONEURO_DATA", str(tmp_path / "cache"))
    recipe = _tiny_recipe(write_floc_folder(tmp_path / "img", CATS, NUMBERS))
    recipe["model"]["num_classes"] = 10
    with pytest.raises(RecipeError, match="num_classes = 9"):
        build_from_recipe(recipe)


@pytest.mark.parametrize("name", INST_RECIPES)
def test_shipped_instance_recipes(name):
    r = load_recipe(name)
    d = r["data"]
    assert d["kind"] == "floc_instances" and d["numbers"] == [1, 96]
    assert len(d["categories"]) == 11 and "scrambled" in d["categories"]
    assert r["model"]["num_classes"] == 96 * 11
    steps = r["train"]["epochs"] * -(-96 * 11 * d["repeats"] // r["train"]["batch_size"])
    assert steps >= 2000  # thousands of steps, not hundreds
    assert r["topoloss"]["layers"] == "topo"


def test_instance_recipes_cover_a_control_and_two_taus():
    taus = sorted(load_recipe(r)["topoloss"]["tau"] for r in INST_RECIPES)
    assert taus == [0.0, 10.0, 50.0]
