"""plot_surface_map and plot_distance_profile: shapes, legends, bad input."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("matplotlib")
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from toponeuro.analysis import smoothness  # noqa: E402
from toponeuro.exceptions import DimensionError, UnknownNameError  # noqa: E402
from toponeuro.plotting import DOMAIN_COLORS, plot_distance_profile, plot_surface_map  # noqa: E402


def test_surface_map_labels_draw_both_hemispheres_with_a_legend():
    lab = np.zeros(20484, int)
    lab[:200] = 1
    lab[10242:10300] = 2
    fig = plot_surface_map(lab, labels={1: "faces", 2: "places", 3: "bodies"})
    axes = [a for a in fig.axes if a.collections]
    assert [a.get_title() for a in axes] == ["left hemisphere", "right hemisphere"]
    # only labels present on the map get a legend entry, in their domain colours
    texts = [t.get_text() for t in fig.legends[0].get_texts()]
    assert texts == ["faces", "places"]
    colours = fig.legends[0].legend_handles
    assert matplotlib.colors.to_hex(colours[0].get_facecolor()) == DOMAIN_COLORS["faces"]
    plt.close(fig)


def test_surface_map_continuous_one_hemisphere_into_ax():
    fig, ax = plt.subplots()
    v = np.linspace(-3, 3, 10242)
    out = plot_surface_map(v, hemi="right", view="lateral", threshold=1.0, ax=ax)
    assert out is fig and ax.get_title() == "right hemisphere"
    plt.close(fig)


def test_surface_map_bad_input():
    with pytest.raises(DimensionError, match="20,484"):
        plot_surface_map(np.zeros(5000))
    with pytest.raises(DimensionError, match="10,242"):
        plot_surface_map(np.zeros(20484), hemi="left")
    with pytest.raises(UnknownNameError, match="ventral"):
        plot_surface_map(np.zeros(20484), view="ventrall")
    fig, ax = plt.subplots()
    with pytest.raises(ValueError, match="single hemisphere"):
        plot_surface_map(np.zeros(20484), ax=ax)
    plt.close("all")


def test_distance_profile_one_line_per_map():
    rng = np.random.default_rng(0)
    maps = {"faces": rng.standard_normal((12, 12)), "places": rng.standard_normal((12, 12))}
    res = {k: smoothness(v, random_state=0, sample_size=50, n_samples=3) for k, v in maps.items()}
    fig = plot_distance_profile(res, normalize=True)
    ax = fig.axes[0]
    assert len(ax.lines) == 2
    assert matplotlib.colors.to_hex(ax.lines[0].get_color()) == DOMAIN_COLORS["faces"]
    assert max(np.nanmax(line.get_ydata()) for line in ax.lines) == pytest.approx(1.0)
    with pytest.raises(DimensionError):
        plot_distance_profile({"x": np.zeros(3)})
    plt.close("all")
