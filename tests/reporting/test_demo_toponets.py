"""The demo TopoNets: recipes, the fLoc placeholder, shipped weights and their model cards."""

from __future__ import annotations

import pytest
import torch

from toponeuro.stimuli import FLOC_DOMAINS, load_floc
from toponeuro.training import (
    FLOC_PLACEHOLDER,
    build_from_recipe,
    export_weights,
    list_recipes,
    load_recipe,
    resolve_data_path,
)

DEMO_RECIPES = [r for r in list_recipes() if r.startswith("demo-floc-tau")]
CATEGORIES = [c for d, cats in FLOC_DOMAINS.items() if d != "scrambled" for c in cats]


def test_demo_recipes_are_shipped_with_a_control_and_two_taus():
    taus = sorted(load_recipe(r)["topoloss"]["tau"] for r in DEMO_RECIPES)
    assert taus[0] == 0 and len([t for t in taus if t > 0]) >= 2


@pytest.mark.parametrize("name", DEMO_RECIPES)
def test_demo_recipe_loads_and_builds(name, tmp_path, write_floc_folder):
    recipe = load_recipe(name)
    assert recipe["data"]["path"] == FLOC_PLACEHOLDER
    assert recipe["data"]["categories"] == CATEGORIES  # the class order of the shipped models
    assert recipe["data"]["numbers"] == [1, 96] and recipe["data"]["val_numbers"] == [97, 120]
    root = write_floc_folder(tmp_path / "floc", CATEGORIES, (1, 2, 97, 98), size=24, suffix=".jpg")
    model, train_ds, val_ds, topo = build_from_recipe(recipe, data_path=root)
    assert len(train_ds) == 2 * len(CATEGORIES) and len(val_ds) == 2 * len(CATEGORIES)
    x, y = train_ds[0]
    assert tuple(x.shape) == (3, 64, 64) and 0 <= y < 10
    assert model(x[None]).shape == (1, 10)
    tau = recipe["topoloss"]["tau"]
    optimised = [s for s in topo.specs if s.tau is not None]
    assert (len(optimised) == 0) if tau == 0 else all(s.tau == tau for s in optimised)


def test_floc_placeholder_uses_the_local_copy_in_the_cache(
    tmp_path, monkeypatch, write_floc_folder
):
    monkeypatch.setenv("TOPONEURO_DATA", str(tmp_path))
    write_floc_folder(tmp_path / "floc", CATEGORIES, (97, 98), size=24, suffix=".jpg")
    cfg = load_recipe("demo-floc-tau0")["data"]
    assert resolve_data_path(cfg) == str(tmp_path / "floc")
    assert resolve_data_path({**cfg, "path": str(tmp_path)}) == str(tmp_path)
    # load_floc without a path reads the same copy (no download)
    s = load_floc(categories=["adult"], numbers=[97])
    assert s.ids.tolist() == ["adult-97"]


def test_recipe_file_keeps_the_placeholder_unresolved(tmp_path):
    src = load_recipe("demo-floc-tau0")
    text = (tmp_path / "r.toml")
    from importlib import resources

    text.write_text(
        (resources.files("toponeuro.training") / "recipes" / "demo-floc-tau0.toml").read_text()
    )
    assert load_recipe(text)["data"]["path"] == FLOC_PLACEHOLDER == src["data"]["path"]


def test_export_weights_half_precision_round_trip(tmp_path):
    from toponeuro.models import SmallResNet

    torch.manual_seed(0)
    net = SmallResNet(num_classes=10, widths=(8, 16, 16, 32)).eval()
    torch.save({"model": net.state_dict(), "epoch": 1}, tmp_path / "epoch_001.pt")
    sha = export_weights(tmp_path / "epoch_001.pt", tmp_path / "w.pt")
    state = torch.load(tmp_path / "w.pt", weights_only=True)
    assert all(v.dtype == torch.float16 for v in state.values() if v.is_floating_point())
    assert state["bn1.num_batches_tracked"].dtype == torch.int64
    other = SmallResNet(num_classes=10, widths=(8, 16, 16, 32)).eval()
    other.load_state_dict(state)
    assert other.conv1.weight.dtype == torch.float32
    x = torch.randn(2, 3, 32, 32)
    with torch.no_grad():
        a, b = net(x), other(x)
    assert torch.allclose(a, b, atol=5e-2, rtol=5e-2) and not torch.equal(a, b)
    assert len(sha) == 64


# -- shipped weights (registered by toponeuro.models) -------------------------------------
models = pytest.importorskip("toponeuro.models")


def _demo_names():
    if not hasattr(models, "list_models"):
        return []
    return models.list_models("toponet_demo.*")


@pytest.mark.parametrize("name", _demo_names())
def test_shipped_demo_weights_verify_and_load(name):
    from toponeuro._io.fetch import sha256sum
    from toponeuro.models import package_file

    card = models.model_card(name)
    path = package_file(card.package_path)
    assert path.is_file(), f"{name}: weights file {path} is not shipped"
    assert path.stat().st_size < 3.5e6
    assert card.sha256 is not None and sha256sum(path) == card.sha256
    net = models.create_model(name, pretrained=True)
    assert net.weights_sha256 == card.sha256
    assert all(p.dtype == torch.float32 for p in net.parameters())
    # every tensor of the file is used: a strict load of the raw file succeeds
    state = torch.load(path, weights_only=True)
    fresh = models.create_model(name)
    fresh.load_state_dict(state, strict=True)
    assert net.fc.out_features == card.num_classes
    # the exact recipe it was trained with is shipped too, with the same tau and inputs
    recipe = load_recipe(card.recipe or f"demo-floc-tau{card.tau:g}")
    assert recipe["topoloss"]["tau"] == card.tau
    assert recipe["data"]["image_size"] == card.input_size
    assert recipe["model"]["num_classes"] == card.num_classes
    assert tuple(recipe["model"]["widths"]) == tuple(card.builder_kwargs.get("widths", (32, 64, 128, 256)))
    assert card.mean == card.std == (0.5, 0.5, 0.5)  # the training normalisation


def _v2_names():
    return _demo_names() and models.list_models("toponet_demo.v2_*")


@pytest.mark.parametrize("name", _v2_names())
def test_v2_cards_record_how_they_were_trained(name):
    card = models.model_card(name)
    recipe = load_recipe(card.recipe)
    assert recipe["data"]["kind"] == "floc_instances"
    assert card.seed is not None and card.name.endswith("" if card.seed == 0 else f"_seed{card.seed}")
    n = 96 * len(recipe["data"]["categories"]) * recipe["data"]["repeats"]
    steps = recipe["train"]["epochs"] * -(-n // recipe["train"]["batch_size"])
    assert card.train_steps == steps >= 2000
    assert set(card.evaluation) == {"instance_accuracy", "category_accuracy_nearest_centroid"}
    assert all(0 <= v <= 1 for v in card.evaluation.values())
    assert card.superseded_by is None


def test_old_demo_weights_are_superseded_but_loadable():
    old = [n for n in _demo_names() if not n.startswith("toponet_demo.v2_")]
    if not _v2_names():
        pytest.skip("no v2 demo TopoNets registered")
    for name in old:
        card = models.model_card(name)
        assert card.superseded_by in _v2_names() and models.model_card(card.superseded_by).tau == card.tau
    from toponeuro.reporting import DEFAULT_MAP_MODEL

    assert DEFAULT_MAP_MODEL in _v2_names()
    assert models.model_card(DEFAULT_MAP_MODEL).tau == max(models.model_card(n).tau for n in _v2_names())


def test_v2_weight_sheets_are_smoother_with_tau():
    # what TopoLoss optimises, read off the shipped weights: 1 - cos falls with tau, per seed
    from toponeuro.topoloss import TopoLoss

    names = _v2_names()
    if not names:
        pytest.skip("no v2 demo TopoNets registered")
    by_seed = {}
    for name in names:
        card = models.model_card(name)
        net = models.create_model(name, pretrained=True)
        topo = TopoLoss.for_layers(net, card.topo_layers, factor_h=2, factor_w=2, tau=1.0)
        with torch.no_grad():
            raw = {k: float(v) for k, v in topo.layerwise(net).items()}
        by_seed.setdefault(card.seed, []).append((card.tau, raw))
    for seed, rows in by_seed.items():
        rows.sort(key=lambda r: r[0])
        for layer in rows[0][1]:
            vals = [r[1][layer] for r in rows]
            assert all(a > b for a, b in zip(vals, vals[1:])), (seed, layer, vals)


def test_demo_cards_cover_control_and_tau_above_zero():
    names = _demo_names()
    if not names:
        pytest.skip("the model registry (toponeuro.models.list_models) is not available")
    taus = sorted(models.model_card(n).tau for n in names)
    assert taus[0] == 0 and any(t > 0 for t in taus)
