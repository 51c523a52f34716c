"""``toponeuro map``: a model's category-selective topography next to the cortex's.

This module orchestrates every stage (models, features, stimuli, atlases, analysis) *and*
plotting, so by the house rule (nothing imports ``plotting`` except entry points) it is an
entry point itself: only :mod:`toponeuro.cli` imports it, and the public name
``toponeuro.run_map`` reaches it through the lazy table of ``toponeuro/__init__.py``. No other
module may import it.
"""

from __future__ import annotations

import base64
import datetime as _dt
import html
import json
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import xarray as xr

from .. import _dims as D
from .._version import __version__
from ..exceptions import (
    CheckpointError,
    DownloadError,
    SheetError,
    UnknownNameError,
    close_matches,
)

__all__ = ["run_map", "MapResult", "DEFAULT_MAP_MODEL", "MAP_DOMAINS", "CORTEX_DOMAINS"]

#: the shipped demo TopoNet ``toponeuro map`` uses by default (the strongest shipped tau)
DEFAULT_MAP_MODEL = "toponet_demo.tau_50"
#: the five fLoc domain contrasts (each domain against the other four)
MAP_DOMAINS = ("faces", "bodies", "places", "characters", "objects")
#: domains the visfAtlas has ROIs for (it has no object-selective ROI)
CORTEX_DOMAINS = ("faces", "bodies", "places", "characters")
#: held-out fLoc images of the demo TopoNets (they were trained on images 1-96)
DEFAULT_NUMBERS = tuple(range(97, 121))
_FLOC_NONSCRAMBLED = (
    "adult", "child", "body", "limb", "corridor", "house", "word", "number", "car", "instrument",
)


@dataclass
class MapResult:
    """What :func:`run_map` returns (and writes to ``out``).

    Attributes
    ----------
    summary : dict
        The content of ``summary.json``.
    selectivity : xarray.DataArray
        Domain selectivity maps, dims ``("domain", "unit")`` with unit coords.
    tables : dict of pandas.DataFrame
        ``"model"`` (per layer and domain), ``"comparison"`` (model vs cortex, per layer and
        hemisphere).
    files : dict
        Name -> path of every file written.
    """

    summary: dict
    selectivity: xr.DataArray
    tables: dict = field(default_factory=dict)
    files: dict = field(default_factory=dict)


# --- inputs --------------------------------------------------------------------------------
def _load_model(model: str, checkpoint):
    """``(module, card, description)`` for a registered name or a checkpoint file."""
    import torch

    from ..models import ModelCard, create_model, list_models, model_card

    if checkpoint is None:
        try:
            card = model_card(model)
        except UnknownNameError as err:
            raise UnknownNameError(
                f"{err} Use --model NAME (toponeuro.models.list_models()) or --checkpoint FILE."
            ) from None
        module = create_model(model, pretrained=card.has_weights)
        return module, card, f"{model} (weights sha256 {module.weights_sha256})"
    path = Path(checkpoint)
    if not path.is_file():
        raise CheckpointError(f"No checkpoint file at {path} (--checkpoint).")
    obj = torch.load(path, map_location="cpu", weights_only=True)
    if isinstance(obj, dict) and isinstance(obj.get("recipe"), dict) and "model" in obj:
        # a checkpoint written by `toponeuro train`: rebuild the network from its recipe
        from .._fetch import sha256sum

        recipe = obj["recipe"]
        module, topo_layers = _model_from_recipe(recipe)
        module.load_state_dict(obj["model"])
        module.eval()
        data = recipe.get("data", {})
        size = int(data.get("image_size", 64))
        tcfg = recipe.get("topoloss") or {}
        card = ModelCard(
            name=f"checkpoint:{path.name}",
            arch=str(recipe["model"]["arch"]),
            tag="checkpoint",
            tau=float(tcfg.get("tau", 0.0)) if tcfg else 0.0,
            input_size=size,
            mean=(0.5, 0.5, 0.5),
            std=(0.5, 0.5, 0.5),
            crop_pct=1.0,
            topo_layers=topo_layers,
            num_classes=int(recipe["model"].get("num_classes", 0)) or None,
            description=f"trained with recipe {recipe.get('name')!r}, epoch {obj.get('epoch')}",
        )
        module.model_card = card
        return module, card, f"{path} (recipe {recipe.get('name')!r}, epoch {obj.get('epoch')}, sha256 {sha256sum(path)})"
    # a plain state dict: the architecture comes from --model
    if model not in list_models():
        raise UnknownNameError(
            f"Unknown model {model!r} for the checkpoint's architecture; "
            f"{close_matches(model, list_models())}"
        )
    from .._fetch import sha256sum
    from ..models import load_checkpoint

    card = model_card(model)
    module = create_model(model)
    module.load_state_dict({k: v.float() if v.is_floating_point() else v
                            for k, v in load_checkpoint(path).items()})
    module.eval()
    return module, card, f"{path} as {model} (sha256 {sha256sum(path)})"


def _model_from_recipe(recipe):
    """``(module, topo layer names)`` of a recipe's architecture (randomly initialised)."""
    from ..training import ARCHITECTURES

    module, default_layers = ARCHITECTURES[recipe["model"]["arch"]](recipe["model"])
    named = (recipe.get("topoloss") or {}).get("layers", "topo")
    return module, tuple(default_layers if named == "topo" else named)


def _load_stimuli(stimuli, numbers, progress: bool):
    """A StimulusSet of the ten non-scrambled fLoc categories (``numbers`` of each)."""
    from ..stimuli import load_floc, local_floc_copy

    hint = (
        "toponeuro map needs the fLoc localizer images. Offline, point it at a local copy: "
        "`toponeuro map --stimuli /path/to/floc` (a folder with one sub-folder per category, "
        "e.g. floc/adult/adult-1.jpg), or put the copy at $TOPONEURO_DATA/floc."
    )
    if stimuli in (None, "floc"):
        path, source = local_floc_copy(), None
        source = f"local copy {path}" if path is not None else "pinned download (VPNL/fLoc)"
    else:
        path = Path(stimuli)
        source = f"local copy {path}"
        if not path.is_dir():
            raise FileNotFoundError(
                f"--stimuli {stimuli!r} is neither 'floc' nor a folder. {hint}"
            )
    try:
        stim = load_floc(path, categories=list(_FLOC_NONSCRAMBLED), numbers=numbers,
                         progress=progress)
    except DownloadError as err:
        raise DownloadError(f"{hint}\n(download failed: {err})") from err
    return stim, source


def _check_layers(acts: xr.DataArray) -> None:
    from ..analysis import MIN_SHEET_UNITS

    for layer in acts.topo.layers:
        h, w = acts.topo.sheet_shape(layer)
        if h * w < MIN_SHEET_UNITS or h < 2 or w < 2:
            raise SheetError(
                f"Layer {layer!r} has {h * w} units ({h} x {w} sheet); a selectivity map needs "
                f"at least {MIN_SHEET_UNITS} units on a sheet at least 2 x 2. Pick wider layers "
                "with --layers (e.g. the last convolutions)."
            )


# --- cortex --------------------------------------------------------------------------------
def _cortex(hemis: Sequence[str]):
    """visfAtlas domain ROIs on fsaverage5 as binary maps, with flat-map geometry."""
    from ..analysis import as_topomap
    from ..atlases import load_visfatlas, mesh_graph, vertex_coordinates

    atlas = load_visfatlas("fsaverage5")
    out = {}
    for h in hemis:
        pos = vertex_coordinates("flat", h)[:, :2]
        adj = mesh_graph("inflated", h)
        maps = {}
        for d in CORTEX_DOMAINS:
            if d not in set(atlas.labels.query("hemisphere == @h").domain):
                continue
            m = atlas.mask(domain=d, hemi=h)[atlas.hemi == h].astype(float)
            maps[d] = as_topomap(m, positions=pos, adjacency=adj, mesh="fsaverage5",
                                 name=f"{h} {d}")
        out[h] = maps
    return atlas, out


# --- figures -------------------------------------------------------------------------------
def _savefig(fig, path: Path) -> Path:
    fig.savefig(path, dpi=120, bbox_inches="tight")
    import matplotlib.pyplot as plt

    plt.close(fig)
    return path


def _arrangement_figure(comparison: dict, layer: str, sheet_shape, hemi: str):
    """Where each domain's largest patch sits: model sheet vs flat cortex (one hemisphere)."""
    import matplotlib.pyplot as plt

    from ..plotting import DOMAIN_COLORS

    table = comparison[layer, hemi]
    mc, cc = table.attrs["model_centroids"], table.attrs["cortex_centroids"]
    fig, axes = plt.subplots(1, 2, figsize=(8.6, 3.8))
    for ax, cents, what in ((axes[0], mc, f"model sheet · {layer}"),
                            (axes[1], cc, f"cortex · {hemi} hemisphere (flat map)")):
        for d, c in cents.items():
            c = np.asarray(c, float)
            if not np.isfinite(c).all():
                continue
            x, y = (c[1], c[0]) if ax is axes[0] else (c[0], c[1])
            ax.scatter([x], [y], s=120, color=DOMAIN_COLORS.get(d, "k"), edgecolor="k", zorder=3)
            ax.annotate(d, (x, y), textcoords="offset points", xytext=(7, 5), fontsize=9)
        ax.set_title(what, fontsize=10)
        ax.margins(0.2)
    h, w = sheet_shape
    axes[0].add_patch(plt.Rectangle((-0.5, -0.5), w, h, fill=False, ec="0.6", lw=1))
    axes[0].set_xlim(-1, w)
    axes[0].set_ylim(h, -1)
    axes[0].set_aspect("equal")
    pts = np.array([c for c in cc.values() if np.isfinite(np.asarray(c, float)).all()], float)
    if len(pts):
        mid = (pts.max(0)[:2] + pts.min(0)[:2]) / 2
        half = 0.65 * max(np.ptp(pts[:, 0]), np.ptp(pts[:, 1])) + 8
        axes[1].set_xlim(mid[0] - half, mid[0] + half)
        axes[1].set_ylim(mid[1] - half, mid[1] + half)
    axes[1].set_aspect("equal")
    axes[0].set_xlabel(f"sheet column (the grey frame is the whole {h}×{w} sheet)")
    axes[0].set_ylabel("sheet row")
    axes[1].set_xlabel("flat-map x (mm)")
    axes[1].set_ylabel("flat-map y (mm)")
    rho = table.loc[("arrangement_spearman", "centroids"), "model_vs_cortex"]
    proc = table.loc[("arrangement_procrustes", "centroids"), "model_vs_cortex"]
    n = table.loc[("arrangement_n_regions", "centroids"), "model_vs_cortex"]
    fig.suptitle(
        f"Centroids of each domain's largest patch ({int(n)} domains on both sides): "
        f"Spearman ρ of pairwise distances = {rho:.2f}, Procrustes disparity = {proc:.2f}",
        fontsize=10,
    )
    fig.tight_layout()
    return fig


def _png_b64(path: Path) -> str:
    return base64.b64encode(path.read_bytes()).decode("ascii")


# --- main ------------------------------------------------------------------------------------
def run_map(
    model: str = DEFAULT_MAP_MODEL,
    *,
    checkpoint: str | os.PathLike | None = None,
    stimuli: str | os.PathLike | None = "floc",
    numbers: Sequence[int] | None = DEFAULT_NUMBERS,
    layers: Sequence[str] | None = None,
    out: str | os.PathLike = "toponeuro-map",
    threshold: float = 3.0,
    min_units: int = 3,
    cortex_min_vertices: int = 10,
    hemispheres: Sequence[str] = ("left", "right"),
    batch_size: int = 64,
    device: str = "cpu",
    random_state: int = 0,
    progress: bool = True,
    verbose: bool = True,
) -> MapResult:
    """Map a model's category-selective topography and compare it with the cortex.

    Extracts the activations of ``layers`` (spatially averaged, one unit per channel, laid
    on each layer's cortical sheet) for the fLoc images, computes the five domain
    selectivity maps (t, each domain against the other four), their smoothness, patches
    (``t >= threshold``) and map similarities, the effective dimensionality of each layer,
    and compares the sheet with the visfAtlas domain ROIs on fsaverage5 (flat-map
    coordinates). Writes ``report.html``, PNG figures, ``results.nc``, ``summary.json`` and
    ``comparison.csv`` into ``out``.

    Parameters
    ----------
    model : str
        Registered model name (default the shipped demo TopoNet
        :data:`DEFAULT_MAP_MODEL`); with ``checkpoint``, the architecture of a plain state
        dict.
    checkpoint : path-like, optional
        A checkpoint written by ``toponeuro train`` (the network is rebuilt from its recipe)
        or a plain state dict for ``model``'s architecture.
    stimuli : "floc" or path-like
        ``"floc"``: ``$TOPONEURO_DATA/floc`` if it exists, else the pinned download; or a
        local fLoc folder.
    numbers : sequence of int or None
        fLoc image numbers per category (default 97-120, held out from the demo TopoNets'
        training); ``None`` for every image present.
    layers : list of str, optional
        Default: the last three TopoLoss layers of the model card (the last convolutions).
    out : path-like
        Output folder (created).
    threshold : float
        Patches are connected units with ``t >= threshold``.
    min_units : int
        Smallest model patch (units); ``cortex_min_vertices`` for the cortex.
    hemispheres : sequence of {"left", "right"}
        Cortical hemispheres compared.
    batch_size, device : extraction settings.
    random_state : int
        Seed of the smoothness sampling.
    progress, verbose : bool
        Progress bars; print the summary table.

    Returns
    -------
    MapResult

    Raises
    ------
    UnknownNameError
        Unknown model or layer, or domain categories absent from the stimuli.
    SheetError
        A layer with too few units for a sheet.
    DownloadError
        The fLoc images cannot be downloaded (the message says how to use ``--stimuli``).

    Examples
    --------
    >>> import toponeuro
    >>> res = toponeuro.run_map(stimuli="/path/to/floc", out="map-out")  # doctest: +SKIP
    >>> res.summary["per_layer"]["layer4.0.conv2"]["smoothness"]["faces"]  # doctest: +SKIP
    0.05
    """
    from tqdm.auto import tqdm

    from ..analysis import (
        compare_topography,
        domain_selectivity,
        effective_dimensionality,
        find_patches,
        map_similarity,
        smoothness,
    )
    from ..features import extract

    t0 = time.perf_counter()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    hemispheres = [str(h) for h in hemispheres]
    steps = tqdm(total=7, desc="toponeuro map", disable=not progress, unit="step")

    steps.set_postfix_str("model")
    module, card, model_desc = _load_model(model, checkpoint)
    if layers is None:
        if not card.topo_layers:
            raise UnknownNameError(
                f"{card.name!r} names no TopoLoss layers; pass --layers explicitly."
            )
        layers = list(card.topo_layers[-3:])
    layers = [layers] if isinstance(layers, str) else list(layers)
    steps.update()

    steps.set_postfix_str("stimuli")
    stim, stim_source = _load_stimuli(stimuli, numbers, progress)
    steps.update()

    steps.set_postfix_str("activations")
    acts = extract((module, card), stim, layers, pooling="mean", batch_size=batch_size,
                   device=device, progress=progress)
    acts = acts.assign_coords({D.CATEGORY: (D.STIMULUS, np.asarray(stim.categories, str))})
    _check_layers(acts)
    steps.update()

    steps.set_postfix_str("selectivity")
    sel = domain_selectivity(acts, list(MAP_DOMAINS))
    steps.update()

    steps.set_postfix_str("topography")
    rows, profiles, sims, dims = [], {}, [], {}
    for layer in tqdm(layers, desc="layers", disable=not progress, leave=False):
        x = acts.topo.select(layer).transpose(D.STIMULUS, D.UNIT).values
        dims[layer] = float(effective_dimensionality(x))
        h, w = acts.topo.sheet_shape(layer)
        for d in MAP_DOMAINS:
            m = sel.sel({D.DOMAIN: d})
            sm = smoothness(m, layer=layer, random_state=random_state)
            profiles[layer, d] = sm
            p = find_patches(m, threshold, min_units, layer=layer)
            vals = m.topo.select(layer).values
            rows.append(
                {
                    "layer": layer,
                    "domain": d,
                    "sheet": f"{h}x{w}",
                    "smoothness": float(sm["score"]),
                    "n_patches": int(p.n_patches),
                    "selective_fraction": float(np.mean(vals >= threshold)),
                    "largest_patch_units": int(p.table["n_units"].iloc[0]) if p.n_patches else 0,
                    "max_t": float(np.nanmax(vals)),
                }
            )
        for a, b in (("faces", "bodies"), ("faces", "places")):
            sims.append(
                {
                    "layer": layer,
                    "pair": f"{a}-{b}",
                    "r": map_similarity(sel.sel({D.DOMAIN: a}), sel.sel({D.DOMAIN: b}),
                                        layer=layer),
                }
            )
    model_table = pd.DataFrame(rows)
    sim_table = pd.DataFrame(sims)
    steps.update()

    steps.set_postfix_str("cortex")
    atlas, cortex = _cortex(hemispheres)
    comparison, comp_rows = {}, []
    jobs = [(layer, h) for layer in layers for h in hemispheres]
    for layer, h in tqdm(jobs, desc="model vs cortex", disable=not progress, leave=False):
        model_maps = {d: sel.sel({D.DOMAIN: d}) for d in MAP_DOMAINS}
        table = compare_topography(
            model_maps,
            cortex[h],
            layer=layer,
            threshold=threshold,
            cortex_threshold=0.5,
            min_units=min_units,
            cortex_min_units=cortex_min_vertices,
            random_state=random_state,
        )
        comparison[layer, h] = table
        t = table.reset_index()
        t.insert(0, "hemisphere", h)
        t.insert(0, "layer", layer)
        comp_rows.append(t)
    comp_table = pd.concat(comp_rows, ignore_index=True)
    steps.update()

    steps.set_postfix_str("report")
    files = _write_outputs(
        out, acts, sel, model_table, sim_table, dims, comp_table, comparison, profiles,
        atlas, cortex, layers, hemispheres, threshold,
    )
    summary = _summary(
        card, model_desc, stim, stim_source, numbers, layers, threshold, model_table,
        sim_table, dims, comparison, hemispheres, acts,
    )
    summary["patch_min_units"] = int(min_units)
    summary["seconds"] = round(time.perf_counter() - t0, 1)
    summary["files"] = {k: str(Path(v).name) for k, v in files.items()}
    files["summary.json"] = out / "summary.json"
    summary["files"]["summary.json"] = "summary.json"
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    files["report.html"] = _write_html(out, summary, model_table, sim_table, comparison,
                                       files, threshold, min_units)
    summary["files"]["report.html"] = "report.html"
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    steps.update()
    steps.close()
    if verbose:
        print(format_summary(summary))
        print(f"\nReport: {files['report.html']}")
    return MapResult(summary=summary, selectivity=sel,
                     tables={"model": model_table, "similarity": sim_table,
                             "comparison": comp_table},
                     files={k: str(v) for k, v in files.items()})


def _write_outputs(out, acts, sel, model_table, sim_table, dims, comp_table, comparison,
                   profiles, atlas, cortex, layers, hemispheres, threshold) -> dict:
    from ..plotting import plot_distance_profile, plot_sheet_map, plot_surface_map
    from ..plotting._common import require_matplotlib

    plt = require_matplotlib()
    files = {}
    # sheet maps: one row per domain, one column per layer
    fig = plot_sheet_map(
        sel, layers, facet=D.DOMAIN, outline=threshold,
        colorbar_label="selectivity t (domain vs the other four)",
        title="Domain selectivity on the model's cortical sheets",
    )
    files["sheet_maps.png"] = _savefig(fig, out / "sheet_maps.png")
    # smoothness profiles, one panel per layer
    fig, axes = plt.subplots(1, len(layers), figsize=(4.4 * len(layers), 3.4), squeeze=False)
    for ax, layer in zip(axes[0], layers):
        plot_distance_profile({d: profiles[layer, d] for d in MAP_DOMAINS}, ax=ax,
                              title=f"{layer}", ylabel="mean |Δ t|")
    for ax in axes[0][:-1]:
        ax.get_legend().remove()
    axes[0][-1].legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=8, frameon=False)
    fig.suptitle("How much selectivity differs between units, by distance on the sheet",
                 fontsize=10)
    fig.tight_layout()
    files["smoothness_profiles.png"] = _savefig(fig, out / "smoothness_profiles.png")
    # cortical ROIs
    lab = np.zeros(len(atlas.data), dtype=int)
    for i, d in enumerate(CORTEX_DOMAINS, start=1):
        lab[atlas.mask(domain=d)] = i
    fig = plot_surface_map(lab, labels={i: d for i, d in enumerate(CORTEX_DOMAINS, 1)},
                           title="visfAtlas category-selective ROIs on fsaverage5 "
                           "(inflated, ventral view)")
    files["cortex_rois.png"] = _savefig(fig, out / "cortex_rois.png")
    # arrangement, last layer, each hemisphere
    for h in hemispheres:
        fig = _arrangement_figure(comparison, layers[-1], acts.topo.sheet_shape(layers[-1]), h)
        files[f"arrangement_{h}.png"] = _savefig(fig, out / f"arrangement_{h}.png")
    # comparison table as a figure
    files["comparison.png"] = _savefig(
        _comparison_figure(comparison_view(comparison, layers[-1], hemispheres)),
        out / "comparison.png",
    )
    comp_table.to_csv(out / "comparison.csv", index=False)
    files["comparison.csv"] = out / "comparison.csv"
    # results.nc
    ds = _results_dataset(acts, sel, model_table, sim_table, dims, profiles, layers)
    ds.to_netcdf(out / "results.nc", engine="h5netcdf")
    files["results.nc"] = out / "results.nc"
    return files


def comparison_view(comparison: dict, layer: str, hemispheres: Sequence[str]) -> pd.DataFrame:
    """One readable table: rows metric · domain, columns model and each cortical hemisphere."""
    metrics = (("smoothness", "smoothness", "{:.2f}"), ("n_patches", "patches", "{:.0f}"),
               ("total_patch_fraction", "patch area (% of sheet / hemisphere)", "{:.1%}"))
    first = comparison[layer, hemispheres[0]]
    rows, index = [], []

    def cell(t, key, col, fmt):
        if key not in t.index or not np.isfinite(t.loc[key, col]):
            return "–"
        return fmt.format(float(t.loc[key, col]))

    for metric, label, fmt in metrics:
        for d in MAP_DOMAINS:
            index.append(f"{label} · {d}")
            rows.append([cell(first, (metric, d), "model", fmt)]
                        + [cell(comparison[layer, h], (metric, d), "cortex", fmt)
                           for h in hemispheres])
    for pair in ("faces-bodies", "faces-places"):
        index.append(f"map similarity r · {pair.replace('-', '–')}")
        rows.append([cell(first, ("map_similarity", pair), "model", "{:+.2f}")]
                    + [cell(comparison[layer, h], ("map_similarity", pair), "cortex", "{:+.2f}")
                       for h in hemispheres])
    for metric, label in (("arrangement_spearman", "arrangement: Spearman ρ (model vs cortex)"),
                          ("arrangement_procrustes", "arrangement: Procrustes disparity"),
                          ("arrangement_n_regions", "arrangement: domains compared")):
        fmt = "{:.0f}" if metric.endswith("n_regions") else "{:+.2f}" if "spearman" in metric else "{:.2f}"
        index.append(label)
        rows.append(["↔"] + [cell(comparison[layer, h], (metric, "centroids"),
                                  "model_vs_cortex", fmt) for h in hemispheres])
    cols = [f"model · {layer}"] + [f"cortex · {h} hemisphere" for h in hemispheres]
    return pd.DataFrame(rows, index=index, columns=cols)


def _comparison_figure(view: pd.DataFrame):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8.4, 0.25 * len(view) + 1.0))
    ax.axis("off")
    tab = ax.table(cellText=view.to_numpy(), rowLabels=list(view.index),
                   colLabels=list(view.columns), loc="center", cellLoc="center")
    tab.auto_set_font_size(False)
    tab.set_fontsize(8)
    tab.scale(1, 1.2)
    ax.set_title("Model sheet vs cortex (visfAtlas has no object ROI: '–')", fontsize=10)
    return fig


def _results_dataset(acts, sel, model_table, sim_table, dims, profiles, layers) -> xr.Dataset:
    unit_coords = {c: (D.UNIT, np.asarray(sel[c].values)) for c in D.UNIT_COORDS}
    unit_coords[D.LAYER] = (D.UNIT, np.asarray(sel[D.LAYER].values).astype(str))
    ds = xr.Dataset(
        {"selectivity": ((D.DOMAIN, D.UNIT), np.asarray(sel.values, np.float64))},
        coords={D.DOMAIN: list(sel[D.DOMAIN].values.astype(str)), **unit_coords},
    )
    piv = model_table.set_index(["layer", "domain"])
    for var in ("smoothness", "n_patches", "selective_fraction", "largest_patch_units"):
        arr = np.array([[piv.loc[(layer, d), var] for d in MAP_DOMAINS] for layer in layers])
        ds[var] = (("sheet_layer", D.DOMAIN), arr.astype(float))
    ds = ds.assign_coords(sheet_layer=np.asarray(layers, dtype=str))
    sp = sim_table.pivot(index="layer", columns="pair", values="r").loc[layers]
    ds["map_similarity"] = (("sheet_layer", "pair"), sp.to_numpy(float))
    ds = ds.assign_coords(pair=np.asarray(sp.columns, dtype=str))
    ds["effective_dimensionality"] = (("sheet_layer",), np.array([dims[ly] for ly in layers]))
    for ly in layers:  # sheets differ in size, so each layer has its own distance bins
        key = ly.replace(".", "_")
        dist = profiles[ly, MAP_DOMAINS[0]][D.DISTANCE].values
        prof = np.array([profiles[ly, d]["profile"].values for d in MAP_DOMAINS])
        ds[f"smoothness_profile_{key}"] = ((D.DOMAIN, f"distance_{key}"), prof)
        ds = ds.assign_coords({f"distance_{key}": dist})
        ds[f"smoothness_profile_{key}"].attrs["layer"] = ly
    attrs = {k: (str(v) if not isinstance(v, (int, float)) else v) for k, v in acts.attrs.items()}
    ds.attrs.update(attrs)
    ds.attrs["description"] = "toponeuro map: domain selectivity (t) maps and topography metrics"
    return ds


def _summary(card, model_desc, stim, stim_source, numbers, layers, threshold, model_table,
             sim_table, dims, comparison, hemispheres, acts) -> dict:
    per_layer = {}
    for layer in layers:
        t = model_table[model_table.layer == layer].set_index("domain")
        s = sim_table[sim_table.layer == layer].set_index("pair")["r"]
        per_layer[layer] = {
            "sheet": t["sheet"].iloc[0],
            "smoothness": {d: round(float(t.loc[d, "smoothness"]), 4) for d in MAP_DOMAINS},
            "n_patches": {d: int(t.loc[d, "n_patches"]) for d in MAP_DOMAINS},
            "selective_fraction": {d: round(float(t.loc[d, "selective_fraction"]), 4)
                                   for d in MAP_DOMAINS},
            "map_similarity": {k: round(float(v), 4) for k, v in s.items()},
            "effective_dimensionality": round(float(dims[layer]), 3),
        }
    cortex = {}
    for h in hemispheres:
        t = comparison[layers[-1], h]
        cortex[h] = {
            "n_regions": len([d for d in CORTEX_DOMAINS if ("n_patches", d) in t.index
                              and np.isfinite(t.loc[("n_patches", d), "cortex"])]),
            "smoothness": {d: _num(t.loc[("smoothness", d), "cortex"]) for d in CORTEX_DOMAINS
                           if ("smoothness", d) in t.index and np.isfinite(t.loc[("smoothness", d), "cortex"])},
            "n_patches": {d: _num(t.loc[("n_patches", d), "cortex"]) for d in CORTEX_DOMAINS
                          if ("n_patches", d) in t.index and np.isfinite(t.loc[("n_patches", d), "cortex"])},
            "map_similarity": {p: _num(t.loc[("map_similarity", p), "cortex"])
                               for p in ("faces-bodies", "faces-places")
                               if ("map_similarity", p) in t.index},
        }
    arrangement = {}
    for layer in layers:
        for h in hemispheres:
            t = comparison[layer, h]
            arrangement[f"{layer}|{h}"] = {
                "spearman": _num(t.loc[("arrangement_spearman", "centroids"), "model_vs_cortex"]),
                "procrustes": _num(t.loc[("arrangement_procrustes", "centroids"), "model_vs_cortex"]),
                "n_regions": _num(t.loc[("arrangement_n_regions", "centroids"), "model_vs_cortex"]),
                "regions": t.attrs.get("arrangement_regions", []),
            }
    return {
        "toponeuro_version": __version__,
        "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "model": {
            "name": card.name,
            "source": model_desc,
            "tau": card.tau,
            "description": card.description,
            "weights_sha256": str(acts.attrs.get(D.ATTR_WEIGHTS_SHA256, "")),
        },
        "stimuli": {
            "set": "fLoc (Stigliani et al., 2015)",
            "source": stim_source,
            "n_stimuli": len(stim),
            "categories": list(_FLOC_NONSCRAMBLED),
            "numbers": [int(min(numbers)), int(max(numbers))] if numbers else "all",
        },
        "layers": list(layers),
        "pooling": "mean over feature-map positions (one unit per channel)",
        "selectivity": "two-sample t, each domain vs the other four domains",
        "patch_threshold_t": threshold,
        "per_layer": per_layer,
        "cortex": {
            "atlas": "visfAtlas (Rosenke et al., 2021) on fsaverage5, flat-map coordinates",
            **cortex,
        },
        "arrangement": arrangement,
    }


def _num(v):
    v = float(v)
    return None if not np.isfinite(v) else (int(v) if v.is_integer() and abs(v) >= 1 else round(v, 4))


def format_summary(summary: dict) -> str:
    """The summary table ``toponeuro map`` prints (plain text)."""
    doms = list(MAP_DOMAINS)
    lines = [
        f"toponeuro map — {summary['model']['name']} on {summary['stimuli']['n_stimuli']} fLoc "
        f"images (patches: t >= {summary['patch_threshold_t']:g})",
        "",
        f"{'layer':<18}{'sheet':>7}  {'metric':<12}" + "".join(f"{d:>11}" for d in doms),
    ]
    for layer, r in summary["per_layer"].items():
        lines.append(f"{layer:<18}{r['sheet']:>7}  {'smoothness':<12}"
                     + "".join(f"{r['smoothness'][d]:>11.3f}" for d in doms))
        lines.append(f"{'':<25}  {'patches':<12}" + "".join(f"{r['n_patches'][d]:>11d}" for d in doms))
        sims = r["map_similarity"]
        lines.append(
            f"{'':<25}  faces–bodies r = {sims.get('faces-bodies', float('nan')):+.2f}, "
            f"faces–places r = {sims.get('faces-places', float('nan')):+.2f}, effective "
            f"dimensionality = {r['effective_dimensionality']:.1f}"
        )
    lines.append("")
    for h in [k for k in summary["cortex"] if k != "atlas"]:
        c = summary["cortex"][h]
        lines.append(
            f"cortex {h:<6} smoothness " + ", ".join(f"{d} {v:.2f}" for d, v in c["smoothness"].items())
            + "; patches " + ", ".join(f"{d} {v}" for d, v in c["n_patches"].items())
        )
    for key, a in summary["arrangement"].items():
        layer, h = key.split("|")
        rho = "n/a" if a["spearman"] is None else f"{a['spearman']:+.2f}"
        proc = "n/a" if a["procrustes"] is None else f"{a['procrustes']:.2f}"
        lines.append(f"arrangement {layer} vs {h} cortex: Spearman {rho}, Procrustes {proc} "
                     f"({a['n_regions']} domains)")
    return "\n".join(lines)


_EXPLAIN = """
<h2>How to read this report</h2>
<p>A <b>topographic network</b> (TopoNet) is trained with an extra loss, TopoLoss, that makes
neighbouring units on a 2-D "cortical sheet" have similar weights. Each layer's channels are
laid out on such a sheet (row-major; shape given under each panel). The strength of that loss
is called &tau; (&tau; = 0 is an ordinary network).</p>
<p><b>Selectivity maps.</b> For every unit we compare its (spatially averaged) response to the
images of one domain (faces = adult + child faces, bodies = bodies + limbs, places = corridors +
houses, characters = words + numbers, objects = cars + instruments) with its responses to the
images of the other four domains, using a two-sample t statistic. Red units respond more to
that domain, blue ones less. Black outlines mark <b>patches</b>: connected groups of units with
t at or above the threshold.</p>
<p><b>Smoothness</b> (as defined for the TDANN model) asks whether nearby units have similar
selectivity: for random samples of units, the absolute difference in t between two units is
averaged by their distance on the sheet; the score is (largest difference &minus; difference
between nearest neighbours) / largest difference. 1 means neighbours are alike (a smooth map),
0 means no spatial structure (a salt-and-pepper map).</p>
<p><b>Map similarity</b> is the correlation across units of two selectivity maps. In the
TopoNets paper, face and body maps overlap (positive r) while face and place maps are
anti-correlated, as in the ventral visual cortex.</p>
<p><b>Effective dimensionality</b> is (&Sigma;&lambda;)&sup2; / &Sigma;&lambda;&sup2; of the
eigenvalues &lambda; of the layer's response covariance across images: how many dimensions the
responses effectively spread over. The paper reports that it falls as &tau; rises.</p>
<p><b>Cortex.</b> The visfAtlas (Rosenke et al., 2021) gives probabilistic face-, body-, place-
and character-selective regions of human occipito-temporal cortex; toponeuro projects it onto
the fsaverage5 surface. The same metrics are computed on these regions (as binary maps on the
flattened cortex), and the <b>arrangement</b> test asks whether the domains sit in the same
relative positions: the pairwise distances between the centroids of each domain's largest patch
on the sheet are rank-correlated (Spearman) with those between the ROI centroids on the cortex,
and a Procrustes fit measures the mismatch after shifting, scaling, rotating and mirroring
(0 = same arrangement, 1 = unrelated). With only three or four domains these arrangement numbers
rest on 3&ndash;6 distances and are very noisy: read them as a description, not a test.</p>
"""


def _html_table(df: pd.DataFrame) -> str:
    return df.to_html(index=False, float_format=lambda v: f"{v:.3f}", border=0,
                      classes="tbl", na_rep="–")


def _write_html(out, summary, model_table, sim_table, comparison, files, threshold,
                min_units) -> Path:
    esc = html.escape
    hemis = [h for h in summary["cortex"] if h != "atlas"]
    view = comparison_view(comparison, summary["layers"][-1], hemis)
    m, s = summary["model"], summary["stimuli"]
    layers = summary["layers"]
    dims = pd.DataFrame(
        [{"layer": ly, "effective dimensionality": r["effective_dimensionality"],
          "faces–bodies r": r["map_similarity"].get("faces-bodies"),
          "faces–places r": r["map_similarity"].get("faces-places")}
         for ly, r in summary["per_layer"].items()]
    )
    comp_parts = []
    for (layer, h), t in comparison.items():
        tt = t.reset_index()
        tt.columns = ["metric", "item", "model", "cortex", "model vs cortex"]
        comp_parts.append(f"<h3>{esc(layer)} vs the {esc(h)} hemisphere</h3>" + _html_table(tt))

    def img(name, alt):
        if name not in files:
            return ""
        return (f'<figure><img alt="{esc(alt)}" src="data:image/png;base64,'
                f'{_png_b64(Path(files[name]))}"><figcaption>{esc(alt)} '
                f'(<a href="{esc(name)}">{esc(name)}</a>)</figcaption></figure>')

    arr_imgs = "".join(
        img(f"arrangement_{h}.png", f"Arrangement of the domains: {layers[-1]} vs the {h} "
            "hemisphere") for h in summary["cortex"] if h != "atlas"
    )
    demo_note = (
        '<div class="note">This model is a <b>small demonstration TopoNet</b> shipped with '
        "toponeuro: a 4-stage ResNet trained on CPU on the fLoc localizer's own ten categories "
        "(images 1–96), evaluated here on held-out images. It is <b>not</b> one of the "
        "TopoNets paper's ImageNet models; use <code>--model</code> for those.</div>"
        if str(m["name"]).startswith("toponet_demo.") else ""
    )
    numbers = s["numbers"]
    numtxt = "all images" if numbers == "all" else f"images {numbers[0]}–{numbers[1]} of each category"
    body = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>toponeuro map — {esc(m['name'])}</title>
<style>
body {{ font-family: system-ui, sans-serif; max-width: 1100px; margin: 2em auto; padding: 0 1em;
       line-height: 1.45; color: #222; }}
h1 {{ font-size: 1.6em; }} h2 {{ margin-top: 1.8em; border-bottom: 1px solid #ddd; }}
table.tbl {{ border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0 1em; }}
table.tbl th, table.tbl td {{ padding: 2px 8px; border-bottom: 1px solid #eee; text-align: right; }}
table.tbl th {{ background: #f4f4f4; }}
figure {{ margin: 1em 0; }} img {{ max-width: 100%; }} figcaption {{ font-size: 0.85em; color: #555; }}
code {{ background: #f4f4f4; padding: 0 3px; }}
.note {{ background: #fff8e5; border-left: 4px solid #f0c040; padding: 0.5em 1em; }}
</style></head><body>
<h1>Category-selective topography of <code>{esc(m['name'])}</code></h1>
<p>Made by <code>toponeuro map</code> (toponeuro {esc(summary['toponeuro_version'])}) on
{esc(summary['created'])} in {summary['seconds']} s.</p>
<h2>What was run</h2>
<ul>
<li><b>Model:</b> {esc(str(m['source']))}. τ = {esc(str(m['tau']))}. {esc(m['description'] or '')}</li>
<li><b>Stimuli:</b> {s['n_stimuli']} images of the fLoc localizer (Stigliani et al., 2015):
{numtxt}, 10 categories in 5 domains ({esc(s['source'])}).</li>
<li><b>Layers:</b> {esc(', '.join(layers))}; {esc(summary['pooling'])}.</li>
<li><b>Selectivity:</b> {esc(summary['selectivity'])}; patches = {min_units} or more
connected units (edge neighbours) with t &ge; {threshold:g}.</li>
<li><b>Cortex:</b> {esc(summary['cortex']['atlas'])}.</li>
</ul>
{demo_note}
<h2>Model: topography per layer and domain</h2>
{_html_table(model_table.rename(columns={
    "n_patches": "patches", "selective_fraction": f"fraction of units with t ≥ {threshold:g}",
    "largest_patch_units": "largest patch (units)", "max_t": "max t"}))}
<h2>Map similarity and dimensionality</h2>
{_html_table(dims)}
<h2>Selectivity maps on the sheet</h2>
{img('sheet_maps.png', f'Domain selectivity (t) on each layer sheet; black outlines: units with t > {threshold:g} (a patch is {min_units} or more connected ones)')}
<h2>Smoothness profiles</h2>
{img('smoothness_profiles.png', 'Mean absolute difference in t between units, by distance on the sheet (shaded: ±1 s.d. over samples)')}
<h2>The cortex: visfAtlas ROIs on fsaverage5</h2>
{img('cortex_rois.png', 'Face-, body-, place- and character-selective ROIs of the visfAtlas, ventral view of the inflated fsaverage5 surface')}
<h2>Model vs cortex</h2>
{view.to_html(border=0, classes="tbl")}
{arr_imgs}
<details><summary>Full comparison tables (every layer and hemisphere)</summary>
{''.join(comp_parts)}
</details>
{_EXPLAIN}
<h2>Files</h2>
<ul>
<li><code>results.nc</code>: the selectivity maps (domain × unit, with layer/row/col
coordinates), per-layer metrics and smoothness profiles (xarray / netCDF).</li>
<li><code>summary.json</code>: the numbers above. <code>comparison.csv</code>: the full
comparison tables.</li>
<li>PNG figures: {', '.join(f'<a href="{esc(k)}">{esc(k)}</a>' for k in files if k.endswith('.png'))}.</li>
</ul>
</body></html>
"""
    path = out / "report.html"
    path.write_text(body, encoding="utf-8")
    return path
