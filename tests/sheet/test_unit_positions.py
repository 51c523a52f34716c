"""Free unit positions (TDANN-style) through the pipeline: reading the positions format,
``extract`` / the ``.topo`` accessor / a model card / ``run_map``, and a toy model whose
units are placed by hand with a planted selectivity blob at a known (x, y)."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

import toponeuro
from toponeuro._util import dims as D
from toponeuro.exceptions import (
    DimensionError,
    InvalidDataError,
    MissingFileError,
    UnknownNameError,
)

torch = pytest.importorskip("torch")

FLOC = ["adult", "child", "body", "limb", "corridor", "house", "word", "number", "car",
        "instrument"]
#: the planted face blob: centre (mm) and width
BLOB_XY, BLOB_SIGMA = np.array([4.5, 1.5]), 0.9
N_SIDE = 6  # 36 units on a 6 mm x 6 mm patch of simulated cortex


def _hand_placed_positions(seed=0):
    """36 units, one per mm cell (jittered), given to the channels in a shuffled order: the
    grid sheet scatters the blob, the free positions keep it in one place."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[:N_SIDE, :N_SIDE]
    cells = np.stack([xx.ravel() + 0.5, yy.ravel() + 0.5], 1)
    cells += rng.uniform(-0.2, 0.2, cells.shape)
    return cells[rng.permutation(len(cells))]


class ToyFree(torch.nn.Module):
    """Two convolutions. conv1's channel 0 is the image's brightness; conv2's channel ``i``
    reads it with a weight that falls off with the distance of unit ``i``'s hand-placed
    position from :data:`BLOB_XY`: units near the blob prefer the bright (face) images."""

    def __init__(self, positions=None):
        super().__init__()
        pos = _hand_placed_positions() if positions is None else positions
        self.conv1 = torch.nn.Conv2d(3, 4, 3, bias=False)
        self.conv2 = torch.nn.Conv2d(4, len(pos), 1, bias=False)
        g = torch.Generator().manual_seed(0)
        with torch.no_grad():
            self.conv1.weight.normal_(0, 0.3, generator=g)
            # channels 1-3: zero-sum filters, blind to brightness (they read texture only)
            self.conv1.weight -= self.conv1.weight.mean(dim=(1, 2, 3), keepdim=True)
            self.conv1.weight[0] = 1.0 / 27
            blob = np.exp(-((pos - BLOB_XY) ** 2).sum(1) / (2 * BLOB_SIGMA**2))
            self.conv2.weight.normal_(0, 0.05, generator=g)
            # far from the blob the weight is negative: those units prefer the darker images
            self.conv2.weight[:, 0, 0, 0] = torch.tensor(3.0 * blob - 0.5, dtype=torch.float32)

    def forward(self, x):
        return self.conv2(self.conv1(x))


def _card(**kw):
    from toponeuro.models import ModelCard

    return ModelCard(name="toy_free.v1", arch="toy_free", tag="v1", input_size=32,
                     topo_layers=("conv2",), **kw)


def _floc_folder(root, numbers=(97, 98, 99), seed=0):
    """fLoc layout: faces (adult, child) bright, every other category darker, all noisy."""
    rng = np.random.default_rng(seed)
    for c in FLOC:
        (root / c).mkdir(parents=True, exist_ok=True)
        base = 190 if c in ("adult", "child") else 90
        for n in numbers:
            arr = base + 25 * rng.standard_normal((32, 32))
            Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8), "L").save(
                root / c / f"{c}-{n}.jpg")
    return root


def _stimuli(tmp_path):
    from toponeuro.stimuli import load_floc

    return load_floc(_floc_folder(tmp_path / "floc"))


# --------------------------------------------------------------------- the format
def test_positions_from_an_array_a_npy_and_a_csv_agree(tmp_path):
    pos = _hand_placed_positions()
    np.save(tmp_path / "p.npy", pos)
    order = np.random.default_rng(1).permutation(len(pos))  # table rows in any order
    lines = ["unit,x,y"] + [f"{i},{float(pos[i, 0])!r},{float(pos[i, 1])!r}" for i in order]
    (tmp_path / "p.csv").write_text("\n".join(lines) + "\n")
    for spec in (pos, tmp_path / "p.npy", str(tmp_path / "p.csv")):
        np.testing.assert_array_equal(toponeuro.read_unit_positions(spec, len(pos)), pos)


def test_bad_positions_say_what_to_give(tmp_path):
    with pytest.raises(DimensionError, match="one .x, y. row per unit"):
        toponeuro.read_unit_positions(np.zeros((5, 2)), 6, layer="conv2")
    with pytest.raises(DimensionError, match=r"\(n_units, 2\)"):
        toponeuro.read_unit_positions(np.zeros((6, 3)))
    with pytest.raises(InvalidDataError, match="NaN or inf"):
        toponeuro.read_unit_positions([[0.0, np.nan], [1.0, 1.0]])
    (tmp_path / "bad.csv").write_text("unit,a,b\n0,1,2\n")
    with pytest.raises(InvalidDataError, match="lacks the columns"):
        toponeuro.read_unit_positions(tmp_path / "bad.csv")
    (tmp_path / "dup.csv").write_text("unit,x,y\n0,1,2\n0,2,3\n")
    with pytest.raises(InvalidDataError, match="each once"):
        toponeuro.read_unit_positions(tmp_path / "dup.csv")
    with pytest.raises(MissingFileError):
        toponeuro.read_unit_positions(tmp_path / "absent.npy")
    acts = toponeuro.make_activations({"conv": 4}, 2)
    with pytest.raises(UnknownNameError, match="conv"):
        toponeuro.set_unit_positions(acts, {"conv_2": np.zeros((4, 2))})
    with pytest.raises(UnknownNameError, match="position_units"):
        toponeuro.set_unit_positions(acts, {"conv": np.zeros((4, 2))}, units="cm")


def test_accessor_positions_and_distances_follow_the_free_positions():
    acts = toponeuro.make_activations({"a": 4, "b": 4}, 2, random_state=0)
    pos = np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 4.0], [1.0, 1.0]])
    free = acts.topo.with_positions({"a": pos}, units="mm")
    assert free.topo.position_units == "mm"
    np.testing.assert_array_equal(free.topo.positions("a"), pos)
    assert free.topo.free_positions("b") is None  # layer b stays on its grid sheet
    np.testing.assert_array_equal(free.topo.positions("b"), acts.topo.positions("b"))
    d = free.topo.distances("a")
    assert d.values[1, 2] == pytest.approx(5.0) and d.attrs["units"] == "mm"
    # the values are untouched, and a reduction keeps the positions and their unit
    np.testing.assert_array_equal(free.values, acts.values)
    m = free.mean(D.STIMULUS)
    np.testing.assert_array_equal(m.topo.free_positions("a"), pos)


# ------------------------------------------------------------- the toy model, by hand
@pytest.fixture(scope="module")
def toy_acts(tmp_path_factory):
    stim = _stimuli(tmp_path_factory.mktemp("toy"))
    pos = _hand_placed_positions()
    acts = toponeuro.extract((ToyFree(), _card()), stim, ["conv2"], progress=False,
                             unit_positions={"conv2": pos})
    return acts, pos


def test_extract_attaches_the_positions_of_each_unit(toy_acts):
    acts, pos = toy_acts
    assert acts.topo.position_units == "mm"
    np.testing.assert_array_equal(acts.topo.free_positions("conv2"), pos)
    assert acts.sizes["unit"] == len(pos)


def test_a_planted_selectivity_blob_is_found_at_its_free_position(toy_acts):
    """The units most selective for faces sit around the planted (x, y) -- on the free
    positions; on the grid sheet (row/col, where the channels were shuffled) they do not."""
    from toponeuro.analysis import domain_selectivity

    acts, pos = toy_acts
    t = domain_selectivity(acts, ["faces"]).sel({D.DOMAIN: "faces"})
    np.testing.assert_array_equal(t.topo.free_positions("conv2"), pos)  # kept by the result
    top = np.argsort(-t.values)[:5]
    weights = np.clip(t.values, 0, None)
    centre = (pos * weights[:, None]).sum(0) / weights.sum()
    assert np.linalg.norm(centre - BLOB_XY) < 1.0
    assert np.linalg.norm(pos[top] - BLOB_XY, axis=1).max() < 2.0
    grid = np.stack([t[D.ROW].values, t[D.COL].values], 1).astype(float)
    assert np.linalg.norm(grid[top] - grid[top].mean(0), axis=1).max() > 2.0


def test_a_model_card_brings_its_unit_positions(tmp_path):
    pos = _hand_placed_positions()
    np.save(tmp_path / "conv2.npy", pos)
    net = ToyFree()
    card = _card(unit_positions={"conv2": str(tmp_path / "conv2.npy")}, position_units="sheet")
    images = [torch.rand(3, 32, 32) for _ in range(3)]
    acts = toponeuro.extract((net, card), images, ["conv2"], progress=False)
    assert acts.topo.position_units == "sheet"
    np.testing.assert_array_equal(acts.topo.free_positions("conv2"), pos)
    given = toponeuro.extract((net, card), images, ["conv2"], progress=False,
                              unit_positions={"conv2": pos * 2}, position_units="mm")
    np.testing.assert_array_equal(given.topo.free_positions("conv2"), pos * 2)


def test_a_sheet_with_free_positions_is_drawn_as_a_scatter(toy_acts):
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    from toponeuro.plotting import plot_sheet_map

    acts, pos = toy_acts
    ring = np.arange(len(pos)) < 3
    fig = plot_sheet_map(acts.mean(D.STIMULUS), outline={"conv2": ring})
    ax = fig.axes[0]
    np.testing.assert_allclose(np.asarray(ax.collections[0].get_offsets()), pos)
    np.testing.assert_allclose(np.asarray(ax.collections[1].get_offsets()), pos[ring])
    assert ax.get_xlabel() == "x (mm)" and not ax.images
    plt.close(fig)


def test_the_command_line_reads_layer_equals_path_items(tmp_path):
    from toponeuro.cli._map import _unit_positions

    np.save(tmp_path / "c.npy", np.zeros((4, 2)))
    assert _unit_positions([f"conv2={tmp_path / 'c.npy'}"]) == {"conv2": tmp_path / "c.npy"}
    assert _unit_positions(None) is None
    with pytest.raises(InvalidDataError, match="LAYER=PATH"):
        _unit_positions(["conv2.npy"])
    with pytest.raises(MissingFileError, match="--unit-positions"):
        _unit_positions([f"conv2={tmp_path / 'absent.npy'}"])


def test_the_vision_stages_find_the_planted_patch_at_its_free_position(toy_acts):
    """model_topography on free positions: the faces patch (TDANN's rules, its centroid in
    mm) lies at the planted blob, and the label null runs on the same free geometry."""
    from toponeuro.reporting import model_topography

    acts, pos = toy_acts
    res = model_topography(acts, ["conv2"], n_permutations=99, min_units=3,
                           label_permutations=19, random_state=0)
    row = res.topography.row("conv2", "faces")
    assert row["shape"] == f"{len(pos)} points"
    patches = res.topography.patches["conv2", "faces"]
    best = patches.table.sort_values("mass").iloc[-1]
    assert np.hypot(best["x"] - BLOB_XY[0], best["y"] - BLOB_XY[1]) < 1.5
    assert patches.labels.shape == (len(pos),)  # one label per unit: the units are the points
    label_null = res.contrast["conv2", "faces"]
    assert label_null.labels.n_permutations == 19 and np.isfinite(label_null.labels.p_value)
    from toponeuro.analysis import contrast_design

    design = contrast_design(acts, "faces", "rest", layer="conv2")
    assert design.grid_shape is None and design.to_topomap().geometry == "free"


@pytest.mark.slow
def test_run_map_runs_a_tdann_style_model_end_to_end(tmp_path, monkeypatch):
    """``toponeuro map`` from Python on a model whose units sit at hand-placed positions
    (given as a .csv): every output is written, the sheet is drawn as a scatter, and the
    summary counts the planted faces patch."""
    from toponeuro.models import register_model
    from toponeuro.models._registry import _REGISTRY
    from toponeuro.reporting import run_map

    monkeypatch.setenv("TOPONEURO_DATA", str(tmp_path / "cache"))
    register_model("toy_free.v1", card=_card())(ToyFree)
    try:
        pos = _hand_placed_positions()
        lines = ["unit,x,y"] + [f"{i},{float(x)!r},{float(y)!r}" for i, (x, y) in enumerate(pos)]
        (tmp_path / "conv2.csv").write_text("\n".join(lines) + "\n")
        res = run_map("toy_free.v1", stimuli=_floc_folder(tmp_path / "floc"),
                      layers=["conv2"], out_dir=tmp_path / "out", min_units=3,
                      n_permutations=19, cortex_permutations=0, ruler_permutations=19,
                      hemispheres=["left"],
                      unit_positions={"conv2": tmp_path / "conv2.csv"},
                      random_init_baseline=False, progress=False, verbose=False)
    finally:
        _REGISTRY.pop("toy_free.v1", None)
    assert res.selectivity.topo.position_units == "mm"
    np.testing.assert_allclose(res.selectivity.topo.free_positions("conv2"), pos)
    assert (tmp_path / "out" / "report.html").is_file()
    assert (tmp_path / "out" / "sheet_maps.png").is_file()
    faces = res.summary["per_layer"]["conv2"]
    assert faces["n_patches"]["faces"] >= 1
    # the one ruler ran on the free positions against the atlas's binary ROIs
    ruler = res.summary["ruler"]["comparisons"]["conv2|left"]
    assert ruler["model_geometry"] == "free" and "smoothness" in ruler["left_out"]
    assert (tmp_path / "out" / "model_and_cortex.png").is_file()
    assert (tmp_path / "out" / "comparison_ruler.csv").is_file()
    jsonschema = pytest.importorskip("jsonschema")
    from toponeuro.reporting import summary_schema

    errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in
              jsonschema.Draft202012Validator(summary_schema("map")).iter_errors(res.summary)]
    assert not errors


def test_layers_without_free_positions_keep_their_grid_sheet_in_the_job():
    """Positions for one layer only: that layer is measured on its free positions, the other
    on its grid sheet (.topo.select drops the NaN positions of a grid layer)."""
    from toponeuro.reporting import model_topography
    from toponeuro.stimuli import FLOC_CATEGORIES

    ten = [c for c in FLOC_CATEGORIES if c != "scrambled"]
    acts = toponeuro.make_activations({"conv": 36, "fc": 64}, 30, categories=ten * 3,
                                      random_state=0)
    acts = acts.topo.with_positions({"conv": _hand_placed_positions()})
    assert acts.topo.select("fc").topo.position_units is None
    table = model_topography(acts, ["conv", "fc"], n_permutations=0).topography.table
    shapes = dict(zip(table["sheet"], table["shape"]))
    assert shapes == {"conv": "36 points", "fc": "8x8"}
