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
