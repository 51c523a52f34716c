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


def test_distance_profile_into_given_axes_keeps_the_figure_layout():
    import warnings

    res = smoothness(np.random.default_rng(1).standard_normal((10, 10)), random_state=0,
                     sample_size=40, n_samples=2)
    fig, axes = plt.subplots(1, 2, layout="constrained")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # tight_layout on a constrained figure warns
        out = plot_distance_profile(res, ax=axes[1])
    assert out is fig and len(axes[1].lines) == 1 and not axes[0].lines
    assert fig.get_layout_engine().__class__.__name__ == "ConstrainedLayoutEngine"
    plt.close(fig)


def test_distance_profile_of_one_smoothness_result():
    res = smoothness(np.random.default_rng(2).standard_normal((10, 10)), random_state=0,
                     sample_size=40, n_samples=2)
    for one in (res, res["profile"]):  # a Dataset is a Mapping too: still one line
        fig = plot_distance_profile(one)
        assert len(fig.axes[0].lines) == 1
        plt.close(fig)


# --- orientation: a map high at the frontal pole is drawn where anatomy says -------------


def _pixels(values, hemi, view):
    """The drawn hemisphere's pixels (RGB floats) and where the map is red (high)."""
    fig, ax = plt.subplots(figsize=(4, 4), dpi=80)
    plot_surface_map(values, hemi=hemi, view=view, ax=ax, cmap="RdBu_r", center=0.0)
    fig.canvas.draw()
    img = np.asarray(fig.canvas.buffer_rgba())[..., :3].astype(float) / 255
    x0, y0, x1, y1 = ax.get_window_extent().bounds[0], ax.get_window_extent().bounds[1], \
        *ax.get_window_extent().p1
    h = img.shape[0]
    crop = img[int(h - y1):int(h - y0), int(x0):int(x1)]
    plt.close(fig)
    red = (crop[..., 0] > 0.55) & (crop[..., 2] < 0.45)
    blue = (crop[..., 2] > 0.55) & (crop[..., 0] < 0.45)
    assert red.sum() > 50 and blue.sum() > 50, "the map was not drawn in colour"
    cols = np.arange(crop.shape[1])[None, :]
    rows = np.arange(crop.shape[0])[:, None]
    return {"red_x": float((cols * red).sum() / red.sum()),
            "blue_x": float((cols * blue).sum() / blue.sum()),
            "red_y": float((rows * red).sum() / red.sum()),
            "blue_y": float((rows * blue).sum() / blue.sum())}


def _coordinate(hemi, axis):
    """A map that rises along one RAS axis of the pial mesh (centred, so half is > 0)."""
    from toponeuro.atlases import fsaverage5_mesh

    xyz, _ = fsaverage5_mesh("pial", hemi)
    v = xyz[:, axis] - np.median(xyz[:, axis])
    return v / np.abs(v).max()


@pytest.mark.parametrize(("hemi", "view", "frontal"), [
    ("left", "lateral", "left"), ("right", "lateral", "right"),
    ("left", "medial", "right"), ("right", "medial", "left"),
])
def test_lateral_and_medial_views_put_the_frontal_pole_where_it_is(hemi, view, frontal):
    # left lateral: seen from the left, the front of the head is on the viewer's left
    px = _pixels(_coordinate(hemi, 1), hemi, view)  # high at the frontal pole (+y)
    assert (px["red_x"] < px["blue_x"]) == (frontal == "left"), px
    sup = _pixels(_coordinate(hemi, 2), hemi, view)  # high at the top (+z): image top
    assert sup["red_y"] < sup["blue_y"], sup


@pytest.mark.parametrize("hemi", ["left", "right"])
def test_ventral_view_puts_anterior_up_and_the_lateral_side_where_it_is(hemi):
    px = _pixels(_coordinate(hemi, 1), hemi, "ventral")
    assert px["red_y"] < px["blue_y"], px  # anterior up, occipital pole down
    # seen from below the subject's right is on the viewer's left: the right hemisphere's
    # lateral side (+x) on the left, the left hemisphere's lateral side (-x) on the right
    lateral = _coordinate(hemi, 0) * (1 if hemi == "right" else -1)
    lx = _pixels(lateral, hemi, "ventral")
    assert (lx["red_x"] < lx["blue_x"]) == (hemi == "right"), lx


def test_dorsal_view_puts_anterior_up_and_the_right_on_the_right():
    px = _pixels(_coordinate("right", 0), "right", "dorsal")  # high laterally (+x)
    medial = _pixels(-_coordinate("left", 0), "left", "dorsal")  # left hemisphere's lateral
    assert px["red_x"] > px["blue_x"] and medial["red_x"] < medial["blue_x"]


def test_one_function_and_one_colour_logic_for_both_jobs_model_cortex_figures():
    """The vision job's figure (flat map, a cortex threshold of its own) and the language
    job's (inflated mesh) come from plot_model_cortex_maps with one colour logic: below the
    threshold uncoloured, each map's threshold at the same colour, one scale."""
    import toponeuro.plotting as tp
    from toponeuro.plotting._pair import _UNCOLOURED

    assert not hasattr(tp, "plot_model_and_cortex")  # one function, not two
    sheet = np.array([[0.5, 2.0, 4.0], [-3.0, np.nan, 1.0]])  # model t, threshold 2
    pos = np.random.default_rng(0).random((5, 2)) * 10
    cortex = np.array([0.1, 0.2, 0.4, -0.6, np.nan])  # its own threshold 0.2
    fig = tp.plot_model_cortex_maps(sheet.ravel(), cortex, threshold=2.0, cortex_threshold=0.2,
                                    model_grid_shape=(2, 3), cortex_positions=pos)
    ax_m, ax_c = fig.axes[:2]
    m = ax_m.images[0].get_array()
    c = ax_c.collections[0].get_facecolors()
    grey = np.array(_UNCOLOURED)
    # below threshold or no data: uncoloured on both sides
    for rgba in (m[0, 0], m[1, 1], m[1, 2], c[0], c[4]):
        np.testing.assert_allclose(rgba, grey)
    # each map's threshold has one colour: t 2 on the sheet, 0.2 on the cortex
    np.testing.assert_allclose(c[1], m[0, 1])
    assert not np.allclose(m[1, 0], grey) and not np.allclose(c[3], grey)  # negative side too
    assert "cortex × 10" in fig.axes[-1].get_ylabel()
    plt.close(fig)
    # the language job's call: a 0/1 ROI on its mesh is inside selective, outside bare
    roi = np.zeros(10242)
    roi[:500] = 1
    fig = tp.plot_model_cortex_maps(sheet, roi, mesh="fsaverage5")
    assert "0/1 map" in fig.axes[1].get_title() and len(fig.axes) == 3
    plt.close(fig)
    with pytest.raises(DimensionError, match="model_grid_shape"):
        tp.plot_model_cortex_maps(sheet.ravel(), cortex, model_grid_shape=(4, 4),
                                  cortex_positions=pos)
    with pytest.raises(DimensionError, match="cortex_positions"):
        tp.plot_model_cortex_maps(sheet, cortex, cortex_positions=pos[:3])


def test_both_model_cortex_figures_take_two_axes_through_one_helper():
    """plot_arrangement and plot_model_cortex_maps draw into two given axes alike and refuse
    another number with one error."""
    from toponeuro.exceptions import InvalidDataError
    from toponeuro.plotting import plot_arrangement, plot_model_cortex_maps

    sheet = np.arange(12.0).reshape(3, 4)
    pos = np.random.default_rng(0).random((5, 2))
    fig, axes = plt.subplots(1, 2)
    assert plot_model_cortex_maps(sheet, np.ones(5), cortex_positions=pos, ax=axes) is fig
    assert plot_arrangement({"faces": (1, 1)}, {"faces": (0.0, 0.0)}, ax=axes) is fig
    plt.close(fig)
    fig, axes = plt.subplots(1, 3)
    for draw in (lambda: plot_model_cortex_maps(sheet, np.ones(5), cortex_positions=pos, ax=axes),
                 lambda: plot_arrangement({"faces": (1, 1)}, {"faces": (0.0, 0.0)}, ax=axes)):
        with pytest.raises(InvalidDataError, match=r"ax= needs two axes \(model, cortex\); got 3"):
            draw()
    plt.close(fig)
