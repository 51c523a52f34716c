"""The main job's library API: topography_table / compare_tables, cortex_maps, the comparison
figures and load_trained_model."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import xarray as xr

from toponeuro.analysis import compare_tables, topography_table
from toponeuro.exceptions import (
    CheckpointError,
    InvalidDataError,
    UnknownNameError,
)

RR, CC = np.mgrid[:20, :30]


def _blob(r, c, amp=5.0, width=8.0):
    return amp * np.exp(-((RR - r) ** 2 + (CC - c) ** 2) / width)


SHEET = {"faces": _blob(4, 5), "bodies": _blob(15, 8), "places": _blob(10, 25)}
PLAIN = {"threshold": 3.0, "min_units": 3, "smooth_sigma": 0.0}


def test_planted_blobs_are_found_once_each_at_their_centres():
    res = topography_table({"s": SHEET}, **PLAIN, n_permutations=0, random_state=0)
    for name, (r, c) in {"faces": (4, 5), "bodies": (15, 8), "places": (10, 25)}.items():
        row = res.row("s", name)
        assert row["n_patches"] == 1 and np.isnan(row["n_significant_patches"])
        np.testing.assert_allclose(res.centroids("s")[name], [r, c], atol=0.1)
    assert res.similarity["pair"].tolist() == ["faces-bodies", "faces-places"]
    with pytest.raises(UnknownNameError, match="objects"):
        res.row("s", "objects")


def test_nulls_separate_a_planted_blob_from_noise():
    noise = np.random.default_rng(0).standard_normal(RR.shape)
    res = topography_table({"s": {"faces": _blob(10, 15, 4.0, 20.0), "bodies": noise}},
                           threshold=2.0, min_units=10, n_permutations=199, random_state=0)
    blob, white = res.row("s", "faces"), res.row("s", "bodies")
    assert blob["smoothness_p"] <= 0.01 and white["smoothness_p"] > 0.05
    assert blob["n_significant_patches"] == 1 and white["n_significant_patches"] == 0
    assert white["smoothness_null_std"] > 0
    sim = res.similarity.iloc[0]
    assert sim["method"] == "ssim" and sim["null"] == "mirror" and 0 < sim["p_value"] <= 1
    assert res.similarities["s", "faces-bodies"].null.size == 199
    assert {"smoothness", "patches", "similarity_ssim"} <= set(res.attrs["definitions"])


def test_a_selectivity_dataarray_gives_one_sheet_per_layer():
    from toponeuro import make_activations

    acts = make_activations({"a": 64, "b": 128}, n_stimuli=4, random_state=0)
    maps = xr.concat([acts.mean("stimulus"), acts.std("stimulus")], "domain")
    maps = maps.assign_coords(domain=["faces", "bodies"])
    res = topography_table(maps, n_permutations=0, random_state=0)
    assert res.sheets == ["a", "b"] and res.table["shape"].tolist() == ["8x8"] * 2 + ["8x16"] * 2
    assert topography_table(maps, layers="b", n_permutations=0).sheets == ["b"]
    with pytest.raises(UnknownNameError, match="'a'"):
        topography_table(maps, layers=["c"])
    with pytest.raises(InvalidDataError):
        topography_table(maps.isel(domain=0))
    with pytest.raises(InvalidDataError):
        topography_table({"s": np.zeros((4, 4))})


def test_compare_tables_reads_the_numbers_computed_once():
    """Every model and cortex cell is the side's table entry; nothing is recomputed."""
    cortex = {"faces": _blob(5, 4), "bodies": _blob(14, 9), "places": _blob(9, 24)}
    model_t = topography_table({"m": SHEET}, **PLAIN, n_permutations=0, random_state=0)
    cortex_t = topography_table({"c": cortex}, **PLAIN, n_permutations=0, random_state=0)
    mine = compare_tables(model_t, "m", cortex_t, "c")
    for side, res, sheet in (("model", model_t, "m"), ("cortex", cortex_t, "c")):
        for name in ("faces", "bodies", "places"):
            row = res.row(sheet, name)
            for metric in ("smoothness", "n_patches", "total_patch_fraction"):
                assert mine.loc[(metric, name), side] == float(row[metric])
    sim = model_t.similarity.set_index("pair")
    assert mine.loc[("map_similarity", "faces-bodies"), "model"] == sim.loc["faces-bodies", "value"]
    assert mine.loc[("arrangement_procrustes", "centroids"), "model_vs_cortex"] < 0.05
    assert mine.attrs["arrangement_regions"] == ["faces", "bodies", "places"]
    with pytest.raises(UnknownNameError):
        compare_tables(model_t, "x", cortex_t, "c")
    with pytest.raises(UnknownNameError, match="largest"):
        compare_tables(model_t, "m", cortex_t, "c", centroid="big")


def test_cortex_maps_are_binary_rois_with_their_geometry():
    from toponeuro.atlases import cortex_maps, load_visfatlas

    atlas = load_visfatlas("fsaverage5")
    maps = cortex_maps(atlas, ["faces", "characters"])
    left, right = maps["left"], maps["right"]
    assert set(left.maps) == {"faces", "characters"} and set(right.maps) == {"faces"}
    faces = left.maps["faces"]
    assert set(np.unique(faces)) == {0.0, 1.0}
    assert int(faces.sum()) == int(atlas.mask(domain="faces", hemi="left").sum())
    assert left.positions.shape == (10242, 2) and left.adjacency.shape == (10242, 10242)
    radius = np.linalg.norm(left.sphere, axis=1)  # fsaverage5 sphere: radius 100 mm
    assert radius.std() < 1e-3 * radius.mean()
    assert set(left.geometry) == {"positions", "adjacency", "mesh"}
    with pytest.raises(UnknownNameError, match="faces"):
        cortex_maps(atlas, ["facez"])
    with pytest.raises(InvalidDataError, match="fsaverage5"):
        cortex_maps(load_visfatlas(), ["faces"])


def test_plot_arrangement_and_comparison_draw_on_given_axes():
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt
    import pandas as pd

    from toponeuro.plotting import plot_arrangement, plot_comparison

    fig, axes = plt.subplots(1, 2)
    out = plot_arrangement({"faces": (2, 3), "bodies": (np.nan, np.nan)},
                           {"faces": (-30.0, 5.0), "bodies": (-20.0, 9.0)},
                           sheet_shape=(8, 16), spearman=np.nan, ax=axes)
    assert out is fig
    assert len(axes[0].collections) == 1 and len(axes[1].collections) == 2  # NaN left out
    assert "n/a" in fig._suptitle.get_text()
    with pytest.raises(InvalidDataError, match="two axes"):
        plot_arrangement({}, {}, ax=[axes[0]])
    fig2, ax = plt.subplots()
    view = pd.DataFrame({"model": ["0.2", "1"]}, index=["smoothness", "patches"])
    assert plot_comparison(view, title="t", ax=ax) is fig2
    with pytest.raises(InvalidDataError):
        plot_comparison(view.iloc[:0])
    plt.close("all")


def test_load_trained_model_reads_a_plain_state_dict_for_a_named_model(tmp_path):
    from toponeuro.models import create_model
    from toponeuro.training import load_trained_model

    net = create_model("toponet_demo.tau_0")
    path = tmp_path / "w.pt"
    torch.save(net.state_dict(), path)
    back = load_trained_model(path, model="toponet_demo.tau_0")
    assert back.model_card.name == "toponet_demo.tau_0" and not back.training
    assert all(torch.equal(v, back.state_dict()[k]) for k, v in net.state_dict().items())
    with pytest.raises(UnknownNameError, match="plain state dict"):
        load_trained_model(path)
    with pytest.raises(UnknownNameError, match="toponet_demo"):
        load_trained_model(path, model="toponet_demo.tau_5")
    with pytest.raises(CheckpointError, match="No checkpoint file"):
        load_trained_model(tmp_path / "absent.pt")


def test_a_checkpoint_of_another_program_loads_for_a_named_model(tmp_path):
    # the released ViT's {"model", "epoch", "args"}: `model=` names its architecture (before:
    # "a training checkpoint without its recipe ... pass model=", though model= was given)
    import argparse

    from toponeuro.models import create_model
    from toponeuro.training import load_model

    net = create_model("toponet_demo.tau_0")
    path = tmp_path / "tau_10.0.pt"
    torch.save({"model": net.state_dict(), "epoch": 299, "args": argparse.Namespace(a=1)}, path)
    back = load_model("toponet_demo.tau_0", checkpoint=path)
    assert back.model_card.name == "toponet_demo.tau_0"
    assert all(torch.equal(v, back.state_dict()[k]) for k, v in net.state_dict().items())
    with pytest.raises(CheckpointError, match="without its recipe"):  # no model=: which one?
        load_model(checkpoint=path)


def test_load_trained_model_rejects_weights_that_do_not_fit_their_recipe(tmp_path):
    from toponeuro.training import load_recipe, load_trained_model

    recipe = load_recipe("demo-smoke")
    path = tmp_path / "epoch_001.pt"
    torch.save({"model": {"nope": torch.zeros(1)}, "epoch": 1, "recipe": recipe}, path)
    with pytest.raises(CheckpointError, match="do not fit"):
        load_trained_model(path)
    recipe = {**recipe, "model": {**recipe["model"], "arch": "big_resnet"}}
    torch.save({"model": {}, "epoch": 1, "recipe": recipe}, path)
    with pytest.raises(CheckpointError, match="big_resnet"):
        load_trained_model(path)


class _Pickled:
    """An object outside the safe allow-list, pickled into a checkpoint."""


def test_load_trained_model_refuses_untrusted_pickles_unless_trusted(tmp_path):
    from toponeuro.exceptions import UntrustedCheckpointError
    from toponeuro.training import load_recipe, load_trained_model
    from toponeuro.training._recipes import ARCHITECTURES

    recipe = load_recipe("demo-smoke")
    module, _ = ARCHITECTURES[recipe["model"]["arch"]](recipe["model"])
    path = tmp_path / "epoch_001.pt"
    torch.save({"model": module.state_dict(), "epoch": 1, "recipe": recipe,
                "extra": _Pickled()}, path)
    # a training checkpoint that pickles an object: refused by name, not "which model?"
    with pytest.raises(UntrustedCheckpointError, match="trust_checkpoint=True"):
        load_trained_model(path)
    net = load_trained_model(path, trust_checkpoint=True)
    assert net.model_card.name == "checkpoint:epoch_001.pt"
    assert all(torch.equal(v, net.state_dict()[k]) for k, v in module.state_dict().items())
    truncated = tmp_path / "cut.pt"
    truncated.write_bytes(path.read_bytes()[:500])
    with pytest.raises(CheckpointError, match="truncated"):
        load_trained_model(truncated, trust_checkpoint=True)


def test_load_trained_model_reads_a_safetensors_state_dict_in_its_cards_format(monkeypatch):
    """`extract --checkpoint x.safetensors` for a language baseline goes through
    load_trained_model too: a safetensors file is a state dict, never a training checkpoint,
    so it is read once, by the card's safetensors reader, not first by torch.load (which is
    not that format's reader, even where a torch version happens to open it)."""
    pytest.importorskip("transformers")
    from importlib import resources

    import toponeuro.models._factory as factory
    import toponeuro.models._weights as weights
    from toponeuro.models import model_card
    from toponeuro.training import load_trained_model

    def no_torch_load(*a, **k):
        raise AssertionError("a safetensors file was read with torch.load")

    import toponeuro.models

    monkeypatch.setattr(weights, "load_torch_file", no_torch_load)
    monkeypatch.setattr(factory, "load_torch_file", no_torch_load)
    monkeypatch.setattr(toponeuro.models, "load_torch_file", no_torch_load)

    card = model_card("minilm.l6_v2")
    pkg, rel = card.package_path.split(":")
    path = resources.files(pkg).joinpath(rel)
    net = load_trained_model(path, model="minilm.l6_v2")
    assert net.model_card.name == "minilm.l6_v2" and net.weights_sha256 == card.sha256
