import numpy as np
import pytest
import xarray as xr

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

from toponeuro import make_activations  # noqa: E402
from toponeuro.exceptions import DimensionError  # noqa: E402
from toponeuro.plotting import plot_rdm, plot_sheet_map  # noqa: E402


@pytest.fixture
def per_unit():
    acts = make_activations({"conv": 64, "fc": 30}, n_stimuli=6, random_state=0)
    maps = xr.concat([acts.mean("stimulus"), acts.std("stimulus")], dim="domain")
    return maps.assign_coords(domain=["faces", "places"]).rename("t")


def test_sheet_map_facets_and_shared_scale(per_unit, tmp_path):
    fig = plot_sheet_map(per_unit, outline=0.5)
    panels = [a for a in fig.axes if a.get_images()]
    assert len(panels) == 4
    clims = {a.get_images()[0].get_clim() for a in panels}
    assert len(clims) == 1
    lo, hi = clims.pop()
    assert lo == pytest.approx(-hi)  # diverging map centred at zero
    assert panels[0].get_title().startswith("faces · conv")
    fig.savefig(tmp_path / "sheet.png")
    plt.close(fig)


def test_sheet_map_into_given_axes(per_unit):
    fig, ax = plt.subplots()
    out = plot_sheet_map(per_unit.sel(domain="faces"), "fc", ax=ax)
    assert out is fig and ax.get_images()[0].get_array().shape == (5, 6)
    with pytest.raises(ValueError, match="single panel"):
        plot_sheet_map(per_unit, ax=ax)
    plt.close(fig)


def test_sheet_map_wraps_layers_into_rows():
    acts = make_activations({f"l{i}": 16 + 4 * i for i in range(5)}, n_stimuli=3, random_state=0)
    fig = plot_sheet_map(acts.mean("stimulus"), ncols=3)
    panels = [a for a in fig.axes if a.get_images()]
    assert [a.get_title().split("\n")[0] for a in panels] == [f"l{i}" for i in range(5)]
    rows = [a.get_subplotspec().rowspan.start for a in panels]
    assert rows == [0, 0, 0, 1, 1]  # 3 panels on top, 2 below
    hidden = [a for a in fig.axes if not a.get_visible()]
    assert len(hidden) == 1 and not hidden[0].get_images()
    # the panel above the empty cell gets the column label; the shared scale is kept
    assert panels[2].get_xlabel() and not panels[0].get_xlabel() and panels[3].get_xlabel()
    assert len({a.get_images()[0].get_clim() for a in panels}) == 1
    plt.close(fig)
    # ncols >= number of layers: one row, as without ncols
    fig = plot_sheet_map(acts.mean("stimulus"), ncols=8)
    assert {a.get_subplotspec().rowspan.start for a in fig.axes if a.get_images()} == {0}
    plt.close(fig)
    with pytest.raises(ValueError, match="ncols"):
        plot_sheet_map(acts.mean("stimulus"), ncols=0)


def test_sheet_map_robust_limits_per_layer_and_shared():
    values = xr.DataArray(np.r_[np.linspace(-1.0, 1.0, 16), 100.0, np.zeros(15)],
                          dims="unit", name="t")
    acts = make_activations({"a": 16, "b": 16}, n_stimuli=2, random_state=0)
    values = values.assign_coords(acts.mean("stimulus").coords)
    fig = plot_sheet_map(values, scale="layer", robust=50)
    clims = [a.get_images()[0].get_clim() for a in fig.axes if a.get_images()]
    half_a = float(np.percentile(np.abs(np.linspace(-1.0, 1.0, 16)), 50))
    assert clims[0] == pytest.approx((-half_a, half_a))
    assert clims[1] == pytest.approx((-1.0, 1.0))  # 50th percentile of |0| is 0: falls back to 1
    plt.close(fig)
    # vmin / vmax win over robust; without robust the one outlier sets the shared scale
    fig = plot_sheet_map(values, robust=50, vmin=-3.0)
    half = float(np.percentile(np.abs(values.values), 50))
    assert fig.axes[0].get_images()[0].get_clim() == pytest.approx((-3.0, half))
    plt.close(fig)
    fig = plot_sheet_map(values)
    assert fig.axes[0].get_images()[0].get_clim() == pytest.approx((-100.0, 100.0))
    plt.close(fig)


def test_sheet_map_bad_input(per_unit):
    acts = make_activations({"conv": 16}, n_stimuli=3, random_state=0)
    with pytest.raises(DimensionError, match="extra dims"):
        plot_sheet_map(acts.expand_dims(run=2))
    with pytest.raises(DimensionError, match="unit"):
        plot_sheet_map(per_unit.isel(unit=0))


def test_rdm_square_and_condensed():
    x = np.random.default_rng(0).normal(size=(8, 4))
    d = np.linalg.norm(x[:, None] - x[None], axis=-1)
    from scipy.spatial.distance import squareform

    f1 = plot_rdm(d, labels=list("aaaabbbb"), title="t")
    f2 = plot_rdm(squareform(d))
    np.testing.assert_allclose(
        f1.axes[0].get_images()[0].get_array(), f2.axes[0].get_images()[0].get_array()
    )
    assert [t.get_text() for t in f1.axes[0].get_xticklabels()] == ["a", "b"]
    with pytest.raises(DimensionError):
        plot_rdm(np.zeros((3, 4)))
    plt.close("all")


def _sweep_table():
    import pandas as pd

    from toponeuro.analysis import sweep

    rng = np.random.default_rng(0)
    models = {
        "net_a": make_activations({"conv1": 16, "conv2": 16, "fc": 16}, n_stimuli=24,
                                  random_state=0),
        "net_b": make_activations({"block1": 16, "block2": 16}, n_stimuli=24, random_state=1),
    }
    ids = models["net_a"].stimulus_id.values
    # V1 copies net_a's conv1, FFA net_b's block2: those cells must score highest
    y = np.concatenate([models["net_a"].values[:, :4], models["net_b"].values[:, -4:],
                        rng.standard_normal((24, 4))], axis=1)
    resp = xr.DataArray(y, dims=("stimulus", "voxel"),
                        coords={"stimulus_id": ("stimulus", ids),
                                "roi": ("voxel", ["V1"] * 4 + ["FFA"] * 4 + ["PPA"] * 4)})
    table = sweep(models, None, resp, progress=False)
    assert isinstance(table, pd.DataFrame)
    return table


def test_plot_sweep_layout_order_and_shared_scale(tmp_path):
    from toponeuro.plotting import plot_sweep

    table = _sweep_table()
    fig = plot_sweep(table, regions=["V1", "FFA", "PPA"])
    panels = [a for a in fig.axes if a.get_images()]
    assert [a.get_title() for a in panels] == ["net_a", "net_b"]
    # layers in network order (as swept), regions in the order asked for
    assert [t.get_text() for t in panels[0].get_yticklabels()] == ["conv1", "conv2", "fc"]
    assert [t.get_text() for t in panels[1].get_yticklabels()] == ["block1", "block2"]
    assert [t.get_text() for t in panels[0].get_xticklabels()] == ["V1", "FFA", "PPA"]
    clims = {a.get_images()[0].get_clim() for a in panels}
    assert len(clims) == 1
    lo, hi = clims.pop()
    assert lo == pytest.approx(-hi)
    a = panels[0].get_images()[0].get_array()
    b = panels[1].get_images()[0].get_array()
    # the planted cells are the maxima of their region columns
    assert np.argmax(a[:, 0]) == 0 and a[0, 0] > b[:, 0].max()
    assert np.argmax(b[:, 1]) == 1 and b[1, 1] > a[:, 1].max()
    # cell values are the table's scores
    want = table.query("model == 'net_a' and layer == 'conv2' and roi == 'PPA'").score.item()
    assert a[1, 2] == pytest.approx(want)
    # annotated: one text per cell
    assert len(panels[0].texts) == 9 and len(panels[1].texts) == 6
    fig.savefig(tmp_path / "sweep.png")
    plt.close(fig)


def test_plot_sweep_single_model_ax_subjects_and_errors():
    from toponeuro.exceptions import InvalidDataError, UnknownNameError
    from toponeuro.plotting import plot_sweep

    table = _sweep_table()
    fig, ax = plt.subplots()
    out = plot_sweep(table, models="net_b", ax=ax, annotate=False, center=None)
    assert out is fig and ax.get_images()[0].get_array().shape == (2, 3) and not ax.texts
    with pytest.raises(ValueError, match="single panel"):
        plot_sweep(table, ax=ax)
    plt.close(fig)
    # two subjects: averaged, and the colour bar says so; one can be picked
    two = table.assign(subject="sub-01")
    two = pd_concat(two, two.assign(subject="sub-02", score=two.score + 1.0))
    fig = plot_sweep(two, models="net_a")
    arr = fig.axes[0].get_images()[0].get_array()
    base = plot_sweep(table, models="net_a").axes[0].get_images()[0].get_array()
    np.testing.assert_allclose(arr, base + 0.5)
    assert "mean of 2 subjects" in fig.axes[-1].get_ylabel()
    one = plot_sweep(two, models="net_a", subject="sub-02").axes[0].get_images()[0].get_array()
    np.testing.assert_allclose(one, base + 1.0)
    with pytest.raises(UnknownNameError, match="net_a"):
        plot_sweep(table, models="net_c")
    with pytest.raises(UnknownNameError, match="V1"):
        plot_sweep(table, regions=["V2"])
    with pytest.raises(InvalidDataError, match="method"):
        plot_sweep(pd_concat(table, table.assign(method="encoding")))
    with pytest.raises(TypeError):
        plot_sweep(table.to_dict())
    plt.close("all")


def pd_concat(*tables):
    import pandas as pd

    return pd.concat(tables, ignore_index=True)


def test_sheet_map_outlines_exactly_the_given_patches_not_a_value_threshold():
    from matplotlib.collections import LineCollection

    from toponeuro import make_activations
    from toponeuro.analysis import find_patches
    from toponeuro.exceptions import DimensionError
    from toponeuro.plotting import plot_sheet_map

    acts = make_activations({"conv": 64}, n_stimuli=2, random_state=0)
    rr, cc = np.mgrid[:8, :8]
    blob = 4 * np.exp(-((rr - 2) ** 2 + (cc - 5) ** 2) / 3.0)
    noise = np.zeros((8, 8))
    noise[6, 0] = 3.0  # one unit over t = 2: not a patch (fewer than min_units)
    m = acts.isel(stimulus=0).copy(data=(blob + noise).ravel()).rename("t")
    patch = find_patches(blob + noise, threshold=2.0, min_units=4, smooth_sigma=0.0)
    mask = patch.label_grid() > 0
    assert mask.sum() > 4 and not mask[6, 0]
    fig = plot_sheet_map(m, outline={"conv": mask}, outline_label="outlined: the patches")
    segs = [s for c in fig.axes[0].collections if isinstance(c, LineCollection)
            for s in c.get_segments()]
    # one edge per unit side on the patch boundary: as many as the mask's boundary edges
    padded = np.pad(mask, 1)
    n_edges = int((padded[1:, :] != padded[:-1, :]).sum() + (padded[:, 1:] != padded[:, :-1]).sum())
    assert len(segs) == n_edges
    xs = np.array([p for s in segs for p in s])
    assert xs[:, 1].max() < 5.5  # nothing drawn round the lone unit in row 6
    assert "outlined: the patches" in fig.axes[-1].get_ylabel()
    with pytest.raises(DimensionError, match="label_grid"):
        plot_sheet_map(m, outline={"conv": mask[:4]})
    plt.close("all")
