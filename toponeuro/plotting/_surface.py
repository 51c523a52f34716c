"""Maps on the fsaverage5 cortical surface, and distance profiles (smoothness)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import xarray as xr

from .._io.meshes import MESH_SIZES
from .._util import dims as D
from .._util.docs import fill_doc
from .._util.params import Boolean, Options, validate_params
from ..exceptions import DimensionError, ParameterError, UnknownNameError, close_matches
from ._common import LABEL, TITLE, require_matplotlib, symmetric_limits

__all__ = ["plot_surface_map", "plot_distance_profile", "plot_distance_profiles",
           "SURFACE_VIEWS", "DOMAIN_COLORS"]

#: views a hemisphere can be drawn from
SURFACE_VIEWS = ("ventral", "lateral", "medial", "dorsal")

#: one colour per fLoc domain, used for ROI maps and profiles alike
DOMAIN_COLORS = {
    "faces": "#d62728",
    "bodies": "#ff7f0e",
    "places": "#2ca02c",
    "characters": "#1f77b4",
    "objects": "#9467bd",
    "motion": "#8c564b",
    "retinotopic": "#7f7f7f",
    "language": "#e377c2",
}
_N5 = MESH_SIZES["fsaverage5"]
_HEMI_TITLE = {"left": "left hemisphere", "right": "right hemisphere"}


def _hemi_values(values, hemi) -> dict[str, np.ndarray]:
    v = np.asarray(values, dtype=float).ravel()
    if hemi == "both":
        if v.size != 2 * _N5:
            raise DimensionError(
                f"A map of both fsaverage5 hemispheres has {2 * _N5:,} values (left then "
                f"right); got {v.size:,}. Give hemi='left' or 'right' for one hemisphere "
                "(10,242 values), or resample the map to fsaverage5."
            )
        return {"left": v[:_N5], "right": v[_N5:]}
    from ..atlases import hemi_name

    h = hemi_name(hemi)
    if v.size != _N5:
        raise DimensionError(
            f"A map of one fsaverage5 hemisphere has {_N5:,} values; got {v.size:,}. Pass "
            "hemi='both' for a map of both hemispheres (20,484 values)."
        )
    return {h: v}


@fill_doc
@validate_params({"view": Options(SURFACE_VIEWS, error=UnknownNameError),
                  "colorbar_label": TITLE, "title": TITLE})
def plot_surface_map(
    values,
    *,
    hemi: str = "both",
    surface: str = "inflated",
    view: str = "ventral",
    labels: Mapping[int, str] | None = None,
    colors: Mapping[str, str] | None = None,
    cmap: str = "RdBu_r",
    center: float | None = 0.0,
    vmin: float | None = None,
    vmax: float | None = None,
    threshold: float | None = None,
    colorbar_label: str | None = None,
    title: str | None = None,
    ax=None,
):
    """Draw a map on the fsaverage5 surface, both hemispheres side by side.

    The meshes and the sulcal depth (grey background: dark = sulci) are nilearn's
    fsaverage5 files (bundled, no download). Each hemisphere is drawn as an orthographic
    projection seen from ``view`` (hidden faces removed by depth order, shaded by the angle
    to the viewer), which gives crisp, predictable 2-D panels.

    Parameters
    ----------
    values : array
        One value per vertex: 20,484 (left hemisphere first) with ``hemi="both"``, or 10,242
        for one hemisphere. With ``labels``, integer labels (0 = unlabelled).
    hemi : {"both", "left", "right"}
    surface : {"inflated", "pial", "white", "sphere"}
        fsaverage5 mesh drawn.
    view : str
        One of :data:`SURFACE_VIEWS`; ``"ventral"`` shows the occipito-temporal cortex from
        below (anterior up, occipital pole down), where the face, body, place and character
        regions lie.
    labels : mapping int -> str, optional
        Draw ``values`` as regions (label value -> name) with one colour each and a legend,
        instead of a continuous colour map (``cmap``, ``center``, ``vmin`` and ``vmax`` are
        then not used).
    colors : mapping str -> colour, optional
        Region colours by name (default :data:`DOMAIN_COLORS`, then a qualitative palette).
    %(colour_scale)s
    threshold : float, optional
        Continuous maps: leave vertices with ``|value| < threshold`` uncoloured.
    colorbar_label, title : str, optional
        The colour bar's label and the title (defaults used when omitted).
    ax : matplotlib Axes, optional
        Draw one hemisphere (``hemi="left"`` or ``"right"``) into this axes.

    %(figure)s

    Examples
    --------
    >>> import numpy as np
    >>> lab = np.zeros(20484, int); lab[:300] = 1; lab[10242:10500] = 2
    >>> fig = plot_surface_map(lab, labels={1: "faces", 2: "places"})
    >>> len(fig.axes)
    2
    """
    plt = require_matplotlib()
    from matplotlib.colors import Normalize, to_rgba
    from matplotlib.patches import Patch

    from ..atlases import SURFACES, fsaverage5_mesh

    if surface not in SURFACES or surface == "flat":
        raise UnknownNameError(
            f"Unknown 3-D fsaverage5 surface {surface!r}; "
            f"{close_matches(surface, [s for s in SURFACES if s != 'flat'])}"
        )
    parts = _hemi_values(values, hemi)
    if ax is not None and len(parts) != 1:
        raise ParameterError(
            "ax= draws a single hemisphere; pass hemi='left' or 'right' (or leave ax=None)."
        )
    sulc = _sulcal_depth(surface)
    if ax is None:
        extra = 1.7 if labels is not None else 1.2
        fig, axes = plt.subplots(1, len(parts), figsize=(3.0 * len(parts) + extra, 4.6))
        axes = np.atleast_1d(axes).tolist()
    else:
        fig, axes = ax.figure, [ax]

    if labels is not None:
        names = {int(k): str(v) for k, v in labels.items() if int(k) != 0}
        palette = plt.get_cmap("tab10")
        col = dict(DOMAIN_COLORS)
        col.update(colors or {})
        rgba = {k: to_rgba(col.get(n, palette(i % 10))) for i, (k, n) in enumerate(sorted(names.items()))}
        present = {int(x) for p in parts.values() for x in np.unique(p[np.isfinite(p)])}
    else:
        lo, hi = symmetric_limits(np.concatenate(list(parts.values())), vmin, vmax, center)
        norm, cm = Normalize(lo, hi), plt.get_cmap(cmap)

    for a, (h, v) in zip(axes, parts.items()):
        xyz, faces = fsaverage5_mesh(surface, h)
        if labels is not None:
            lab = np.nan_to_num(v, nan=0).astype(np.int64)[faces]
            # a face takes the label two of its vertices share (else its first vertex's)
            face_lab = np.where(lab[:, 1] == lab[:, 2], lab[:, 1], lab[:, 0])
            over = np.zeros((len(faces), 4))
            for k, c in rgba.items():
                over[face_lab == k] = c
        else:
            fv = np.nanmean(np.where(np.isfinite(v), v, np.nan)[faces], axis=1)
            over = cm(norm(np.nan_to_num(fv)))
            hide = ~np.isfinite(fv)
            if threshold is not None:
                hide |= np.abs(fv) < threshold
            over[hide] = 0.0
        _draw_hemisphere(a, xyz, faces, sulc.get(h) if sulc else None, over, view, h)
        a.set_title(_HEMI_TITLE[h], fontsize=10)

    if labels is not None:
        handles = [
            Patch(facecolor=rgba[k], edgecolor="k", label=names[k])
            for k in sorted(names)
            if k in present
        ]
        if handles:
            fig.legend(handles=handles, loc="center right", frameon=False, fontsize=9)
        fig.subplots_adjust(left=0.02, right=1 - 1.5 / fig.get_figwidth(), wspace=0.05)
    else:
        from matplotlib.cm import ScalarMappable

        fig.colorbar(ScalarMappable(norm=norm, cmap=cm), ax=axes, shrink=0.7,
                     label=colorbar_label or "value")
    if title:
        fig.suptitle(title, fontsize=11)
    return fig


def _view_axes(view: str, hemi: str):
    """``((sign, RAS axis) for image x, image y, towards the viewer)`` of a view.

    A viewer looking along ``f`` with ``u`` up sees ``f × u`` on their right. Ventral: from
    below (``f = +z``), anterior up, so image x is ``-x`` (the subject's right on the left).
    Dorsal: from above, image x is ``+x``. Lateral and medial: superior up, the viewer on
    the ``-x`` side (left lateral, right medial: ``f = +x``, image x ``-y``, the frontal pole
    on the left) or the ``+x`` side (right lateral, left medial: image x ``+y``, the frontal
    pole on the right). tests/plotting/test_plotting_surface.py renders each view of a map high at
    the frontal pole (and laterally) and reads the pixels.
    """
    if view == "ventral":  # seen from below, anterior up
        return (-1, 0), (1, 1), (-1, 2)
    if view == "dorsal":
        return (1, 0), (1, 1), (1, 2)
    # lateral / medial: the viewer on the -x (left) or +x (right) side, superior up
    viewer = -1 if (hemi == "left") == (view == "lateral") else 1
    return (viewer, 1), (1, 2), (viewer, 0)


def _draw_hemisphere(ax, xyz, faces, sulc, overlay, view, hemi):
    """Orthographic projection with depth-sorted, shaded faces (painter's algorithm)."""
    from matplotlib.collections import PolyCollection

    (sx, ax_x), (sy, ax_y), (sz, ax_z) = _view_axes(view, hemi)
    p = np.stack([sx * xyz[:, ax_x], sy * xyz[:, ax_y], sz * xyz[:, ax_z]], axis=1)
    tri = p[faces]
    normal = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    normal /= np.linalg.norm(normal, axis=1, keepdims=True) + 1e-12
    facing = np.abs(normal[:, 2])
    order = np.argsort(tri[:, :, 2].mean(1))  # farthest first, nearest drawn last
    if sulc is not None:
        base = np.where(sulc[faces].mean(1) > 0, 0.55, 0.82)
    else:
        base = np.full(len(faces), 0.75)
    shade = 0.55 + 0.45 * facing
    rgb = np.repeat((base * shade)[:, None], 3, axis=1)
    alpha = overlay[:, 3:4]
    rgb = rgb * (1 - alpha) + overlay[:, :3] * alpha * (0.65 + 0.35 * facing[:, None])
    coll = PolyCollection(tri[order, :, :2], facecolors=np.clip(rgb[order], 0, 1),
                          edgecolors="none", antialiased=False)
    ax.add_collection(coll)
    ax.set_xlim(p[:, 0].min() - 2, p[:, 0].max() + 2)
    ax.set_ylim(p[:, 1].min() - 2, p[:, 1].max() + 2)
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    for side in ax.spines.values():
        side.set_visible(False)
    if view == "ventral":
        lat_left = hemi == "right"  # seen from below, the right hemisphere's lateral side is left
        ax.set_xlabel(("lateral ← → medial" if lat_left else "medial ← → lateral")
                      + "\n(anterior up, occipital pole down)", fontsize=8, color="0.3")


def _sulcal_depth(surface: str):
    """Per-hemisphere sulcal depth for the grey background, or None when unavailable."""
    try:
        from nilearn import datasets

        img = datasets.load_fsaverage_data(
            mesh="fsaverage5", mesh_type=surface if surface != "white" else "pial",
            data_type="sulcal",
        )
        return {h: np.asarray(img.data.parts[h]).ravel() for h in ("left", "right")}
    except Exception:  # pragma: no cover - depends on the nilearn version
        return None


@fill_doc
@validate_params({"xlabel": TITLE, "ylabel": LABEL, "normalize": Boolean(), "title": TITLE})
def plot_distance_profile(
    profiles,
    *,
    labels: Sequence[str] | None = None,
    colors: Mapping[str, str] | None = None,
    xlabel: str | None = None,
    ylabel: str = "mean |Δ selectivity|",
    normalize: bool = False,
    title: str | None = None,
    ax=None,
):
    """Draw distance profiles (from :func:`toponeuro.analysis.smoothness`), one line each.

    Parameters
    ----------
    profiles : xarray.Dataset, DataArray, or mapping name -> either
        A smoothness result (its ``profile`` and, when present, the per-sample ``profiles``
        for a band of ±1 s.d.), or a profile DataArray with dim ``"distance"``. A mapping
        draws one line per name (e.g. per fLoc domain).
    labels : list of str, optional
        Legend labels (default: the mapping's keys).
    colors : mapping name -> colour, optional
        Default :data:`DOMAIN_COLORS` for domain names, else matplotlib's cycle.
    xlabel, ylabel : str
        Axis labels (x default: "distance on the sheet (units)").
    normalize : bool
        Divide each profile by its maximum, so maps with different ranges compare by shape.
    title : str, optional
        The title (defaults used when omitted).
    %(ax_panel)s

    %(figure)s

    Examples
    --------
    %(smooth_map_example)s
    >>> fig = plot_distance_profile({"faces": smoothness(m, random_state=0)})
    >>> len(fig.axes[0].lines)
    1
    """
    plt = require_matplotlib()
    # a Dataset is itself a Mapping (of its variables): one smoothness result, one line
    single = isinstance(profiles, (xr.Dataset, xr.DataArray)) or not isinstance(profiles, Mapping)
    items = {"": profiles} if single else dict(profiles)
    names = list(labels) if labels is not None else list(items)
    if len(names) != len(items):
        raise DimensionError(f"Got {len(names)} labels for {len(items)} profiles.")
    own_figure = ax is None
    if own_figure:
        fig, ax = plt.subplots(figsize=(4.6, 3.4))
    else:
        fig = ax.figure
    col = dict(DOMAIN_COLORS)
    col.update(colors or {})
    for name, (key, prof) in zip(names, items.items()):
        mean, band = _profile_arrays(prof)
        d = mean[D.DISTANCE].values
        y = mean.values.astype(float)
        scale = np.nanmax(y) if normalize and np.isfinite(y).any() and np.nanmax(y) > 0 else 1.0
        c = col.get(str(key))
        (line,) = ax.plot(d, y / scale, marker="o", ms=3, color=c, label=name or None)
        if band is not None:
            sd = band.std(D.SAMPLE).values.astype(float)
            ax.fill_between(d, (y - sd) / scale, (y + sd) / scale, color=line.get_color(),
                            alpha=0.15, lw=0)
    ax.set_xlabel(xlabel or "distance on the sheet (units)")
    ax.set_ylabel(ylabel + (" (÷ max)" if normalize else ""))
    if any(names):
        ax.legend(fontsize=8, frameon=False)
    if title:
        ax.set_title(title, fontsize=10)
    if own_figure:  # a given ax's figure keeps its own layout engine
        fig.tight_layout()
    return fig


@fill_doc
@validate_params({"ylabel": LABEL, "title": TITLE})
def plot_distance_profiles(by_panel: Mapping, *, ylabel: str = "mean |Δ selectivity|",
                           title: str | None = None):
    """Distance profiles side by side, one panel per sheet (e.g. per layer), one legend.

    Parameters
    ----------
    by_panel : mapping panel title -> mapping name -> profile
        Each panel's profiles, as :func:`plot_distance_profile` takes them (e.g. layer ->
        domain -> smoothness result).
    ylabel : str
        The y axis label of every panel.
    title : str, optional
        The figure's title.

    %(figure)s

    Examples
    --------
    %(smooth_map_example)s
    >>> fig = plot_distance_profiles({"l1": {"faces": smoothness(m, random_state=0)},
    ...                               "l2": {"faces": smoothness(m, random_state=1)}})
    >>> len(fig.axes)
    2
    """
    plt = require_matplotlib()
    panels = dict(by_panel)
    if not panels:
        raise DimensionError("plot_distance_profiles needs at least one panel; got none.")
    fig, axes = plt.subplots(1, len(panels), figsize=(4.4 * len(panels), 3.4), squeeze=False,
                             layout="constrained")
    for ax, (name, profiles) in zip(axes[0], panels.items()):
        plot_distance_profile(profiles, ax=ax, title=f"{name}", ylabel=ylabel)
    for ax in axes[0][:-1]:
        if ax.get_legend() is not None:
            ax.get_legend().remove()
    if axes[0][-1].get_legend() is not None:
        axes[0][-1].legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=8,
                           frameon=False)
    if title:
        fig.suptitle(title, fontsize=10)
    return fig


def _profile_arrays(prof):
    if isinstance(prof, xr.Dataset):
        if "profile" not in prof:
            raise DimensionError(
                "A profile Dataset needs a 'profile' variable (the output of "
                "toponeuro.analysis.smoothness or correlation_profile)."
            )
        band = prof["profiles"] if "profiles" in prof and D.SAMPLE in prof["profiles"].dims else None
        return prof["profile"], band
    if isinstance(prof, xr.DataArray) and D.DISTANCE in prof.dims and prof.ndim == 1:
        return prof, None
    raise DimensionError(
        "Each profile must be a smoothness() Dataset or a 1-D DataArray with dim 'distance'; "
        f"got {type(prof).__name__}."
    )
