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
