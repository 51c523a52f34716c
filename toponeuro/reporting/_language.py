"""``toponeuro map --language``: a language model's language-selective topography beside the
cortex's language network.

:func:`run_language_map` reads as the data flow: model -> the Fedorenko et al. (2010)
localizer items -> activations -> TopoLM's language selectivity (and its split-half profile
over the four conditions) -> topography of each layer's map with its spatial null
(smoothness, patches, Moran's I) -> the language parcels on fsaverage5 -> report. Every
number comes from a public function of the analysis stage; this module only orders the calls,
puts the numbers into tables and sentences, and writes the files.

Like :mod:`._map` it draws (so it is an entry point: only :mod:`toponeuro.cli` imports it, and
``toponeuro.run_language_map`` reaches it through the lazy table of ``toponeuro/__init__.py``).
"""

from __future__ import annotations

import datetime as _dt
import html
import json
import os
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import xarray as xr

from .. import _dims as D
from .._version import __version__
from ..analysis import TDANN_PATCHES, format_p
from ..exceptions import DownloadError, MissingFileError, ParameterError
from . import _writer
from ._constants import DEFAULT_LANGUAGE_MODEL
from ._map import MapResult
from ._results import _jsonable, _null, _num
from ._stages import _model_description, check_sheet_layers

__all__ = ["run_language_map", "DEFAULT_LANGUAGE_MODEL", "language_verdict"]

_MAP = "language"
_HINT = (
    "The language map needs the Fedorenko et al. (2010) localizer items. Offline, point "
    "stimuli= at a local copy of the csv (columns sentence, condition), e.g. "
    "stimuli='/path/to/fedorenko2010_stimuli.csv'."
)


# ------------------------------------------------------------------------------ sentences
def language_verdict(statistic: str, result, alpha: float, where: str = "on this sheet") -> dict:
    """The plain-language claim of one topography test of a language map, from its numbers.

    One test, one p: the sentence says "beyond chance" only when the test's own p-value
    (one-sided, against its spatial null) is at or below ``alpha``; without a null it says
    so and makes no claim.

    Parameters
    ----------
    statistic : {"morans_i", "smoothness"}
        Which test ``result`` holds.
    result : NullResult-like
        Has ``statistic``, ``null_mean``, ``null_std``, ``p_value`` and
        ``n_permutations``.
    alpha : float
    where : str
        Where the map lives, for the sentence.

    Returns
    -------
    dict
        ``claim`` ("clusters", "does not cluster" or "no null"), ``significant``,
        ``p_value`` and ``text``.

    Examples
    --------
    >>> from types import SimpleNamespace as NS
    >>> r = NS(statistic=0.41, null_mean=-0.001, null_std=0.01, p_value=1 / 1001,
    ...        n_permutations=1000)
    >>> language_verdict("morans_i", r, 0.05)["text"]
    "language selectivity clusters beyond chance on this sheet: Moran's I 0.41, null -0.00 ± 0.01, p < 0.001 (1,000 draws)"
    >>> language_verdict("morans_i", NS(**{**vars(r), "p_value": 0.4}), 0.05)["claim"]
    'does not cluster'
    """
    p = float(result.p_value) if result.p_value is not None else float("nan")
    has_null = bool(getattr(result, "n_permutations", 0)) and np.isfinite(p)
    ok = bool(has_null and p <= alpha)
    name, verb = {
        "morans_i": ("Moran's I", ("clusters beyond chance", "does not cluster beyond chance")),
        "smoothness": ("smoothness", ("is smoother than its values scattered at random",
                                      "is not smoother than its values scattered at random")),
    }[statistic]
    numbers = (f"{name} {float(result.statistic):.2f}, "
               f"{_null(float(result.null_mean), float(result.null_std))}, "
               f"{format_p(p, getattr(result, 'n_permutations', 0))}")
    if not has_null:
        claim, text = "no null", f"language selectivity {where}: {numbers} (no null, no claim)"
    else:
        claim = ("clusters" if ok else "does not cluster") if statistic == "morans_i" else (
            "smoother" if ok else "not smoother")
        text = f"language selectivity {verb[0] if ok else verb[1]} {where}: {numbers}"
    return {"test": statistic, "claim": claim, "significant": ok, "p_value": p, "text": text}


# ------------------------------------------------------------------------------ inputs
def _load_localizer(stimuli):
    """``(StimulusSet, source)``: a given set, a local csv, or the pinned download."""
    from ..stimuli import StimulusSet, load_language_localizer

    if isinstance(stimuli, StimulusSet):
        return stimuli, f"StimulusSet {stimuli.name!r}"
    if stimuli in (None, "langloc"):
        try:
            return load_language_localizer(), "pinned copy (epflneuroailab/topolm), sha256-checked"
        except DownloadError as err:
            raise DownloadError(f"{_HINT}\n(download failed: {err})") from err
    path = Path(stimuli)
    if not path.is_file():
        raise MissingFileError(f"stimuli {str(stimuli)!r} is neither 'langloc' nor a csv file. "
                                f"{_HINT}")
    return load_language_localizer(path), f"local copy {path}"


def _check_language(card):
    if card.modality != "language":
        raise ParameterError(
            f"model {card.name!r} is a {card.modality} model; the language job needs a "
            "language model (toponeuro.models.list_models(modality='language')). For a vision "
            "model use run_map (toponeuro map without --language)."
        )


# ------------------------------------------------------------------------------ the job
def run_language_map(
    model: str = DEFAULT_LANGUAGE_MODEL,
    *,
    checkpoint: str | os.PathLike | None = None,
    trust_checkpoint: bool = False,
    stimuli="langloc",
    layers: Sequence[str] | None = None,
    out_dir: str | os.PathLike = "toponeuro-language-map",
    overwrite: bool = False,
    top_k: float | int = 0.1,
    q: float = 0.05,
    smooth_fwhm: float | None = 2.0,
    token_pooling: str = "mean",
    min_units: int = TDANN_PATCHES["min_count"],
    cortex_min_vertices: int = 10,
    n_permutations: int = 1000,
    alpha: float = 0.05,
    hemispheres: Sequence[str] = ("left", "right"),
    batch_size: int = 64,
    device: str = "cpu",
    random_state: int = 0,
    progress: bool = True,
    verbose: bool = True,
) -> MapResult:
    """Map a language model's language-selective topography and set it beside the cortex's.

    1. **Localizer.** The Fedorenko et al. (2010) items (160 each of S sentences, W word
       lists, J Jabberwocky, N nonword lists), read by each of ``layers`` (tokens pooled by
       ``token_pooling``), laid on the layer's sheet.
    2. **Language-selective units, as TopoLM defines them**
       (:func:`~toponeuro.analysis.language_selectivity`): activations smoothed on the sheet
       (FWHM ``smooth_fwhm``), Welch t of S vs N, two-sided p, Benjamini-Hochberg at ``q``
       over the units of all layers, and the ``top_k`` units over all layers. Their response
       to all four conditions and their split-half stability
       (:func:`~toponeuro.analysis.language_profile`: selected on odd items, measured on
       even ones and vice versa).
    3. **Topography with its spatial null**, per layer, of the S vs N t map of the
       *unsmoothed* activations: TopoLM's smoothing of the activations makes any map smooth,
       so a null that scatters the units' values would call even a non-topographic model
       "clustered"; the unsmoothed map is where the positions null is calibrated. Moran's I
       (rook neighbours, row-standardised; :func:`~toponeuro.analysis.morans_i`),
       smoothness (TDANN) and patches (TDANN's procedure; threshold: the smallest t that
       passes Benjamini-Hochberg at ``q`` on that map), each with ``n_permutations`` draws.
       The sentences ("clusters beyond chance" or not) come from
       :func:`language_verdict`, one test and one p each.
    4. **Cortex.** The language parcels (Wolna et al., 2025; S > N in 706 participants) on
       fsaverage5, both hemispheres, drawn beside the sheets, with a model-vs-cortex table
       that says which rows are comparable and which are not. The parcels' own Moran's I
       and smoothness are not reported: no null can test them (a spin test rotates the map
       whole and keeps its autocorrelation; scattering its values makes any contiguous
       parcel "cluster"), and a number without a null would invite a comparison it cannot
       support. Their extent and regions are reported, as descriptions.

    Writes ``report.html``, PNG figures, ``results.nc`` and ``summary.json`` into
    ``out_dir``.

    Parameters
    ----------
    model : str
        Registered language model (default :data:`DEFAULT_LANGUAGE_MODEL`); with
        ``checkpoint``, the architecture of a plain state dict.
    checkpoint, trust_checkpoint :
        As in :func:`~toponeuro.reporting.run_map`.
    stimuli : "langloc", path-like or StimulusSet
        ``"langloc"``: the pinned localizer csv (cached, sha256-checked; downloaded once);
        a local csv with columns ``sentence``, ``condition``; or a StimulusSet whose
        categories are the conditions.
    layers : list of str, optional
        Default: every TopoLoss layer of the model card.
    out_dir : path-like
        Output folder: written aside and moved into place when complete (an interrupted run
        leaves an earlier output as it was; see the map's ``out_dir``).
    overwrite : bool
        Replace an earlier toponeuro output in ``out_dir`` (a folder toponeuro did not write
        is never replaced).
    top_k, q, smooth_fwhm :
        TopoLM's selection (see :func:`~toponeuro.analysis.language_selectivity`).
    token_pooling : {"mean", "first", "last"}
        How a layer's token activations become one vector per item.
    min_units, cortex_min_vertices : int
        Smallest patch on the sheet (units) and on the cortex (vertices).
    n_permutations : int
        Draws of every spatial null.
    alpha : float
        Significance level of every claim.
    hemispheres : sequence of {"left", "right"}
    batch_size, device : extraction settings.
    random_state : int
        Seed of every null.
    progress, verbose : bool
        Progress bars; print the summary.

    Returns
    -------
    MapResult
        ``selectivity`` is the ``("map", "unit")`` t map whose topography is measured;
        ``tables``: ``"model"``, ``"profile"``, ``"cortex"``, ``"comparison"``.

    Raises
    ------
    ParameterError
        A vision model.
    UnknownNameError
        Unknown model or layer.
    DownloadError
        The localizer csv can be neither found nor downloaded (the message says how to use
        ``stimuli``).

    Examples
    --------
    >>> import toponeuro
    >>> res = toponeuro.run_language_map("minilm.l6_v2", out_dir="lang-map")  # doctest: +SKIP
    >>> res.summary["per_layer"]["encoder.layer.5.intermediate.dense"]["verdict"]  # doctest: +SKIP
    "language selectivity clusters beyond chance on this sheet: Moran's I ..."
    """
    from tqdm.auto import tqdm

    from .._params import check_int, check_number
    from ..analysis import check_patch_params

    # every parameter checked before the first (slow) step, so a bad one fails at once
    check_patch_params(min_units=min_units, alpha=alpha, n_permutations=n_permutations,
                       random_state=random_state)
    check_number(q, "q", lo=0, hi=1, lo_open=True, hi_open=True)
    check_int(cortex_min_vertices, "cortex_min_vertices", lo=1)
    check_int(batch_size, "batch_size", lo=1)
    inputs = [p for p in (checkpoint, stimuli) if isinstance(p, (str, os.PathLike))
              and str(p) != "langloc"]
    with _writer.output_folder(out_dir, overwrite=overwrite, kind="language-map",
                               inputs=inputs) as folder:
        t0 = time.perf_counter()
        steps = tqdm(total=6, desc="toponeuro map --language", disable=not progress,
                     unit="step")
        try:  # an error closes the bar first, so its message gets a line of its own
            report = _steps(steps, model=model, checkpoint=checkpoint,
                            trust_checkpoint=trust_checkpoint, stimuli=stimuli, layers=layers,
                            top_k=top_k, q=q, smooth_fwhm=smooth_fwhm,
                            token_pooling=token_pooling, min_units=min_units,
                            cortex_min_vertices=cortex_min_vertices,
                            n_permutations=n_permutations, alpha=alpha,
                            hemispheres=hemispheres, batch_size=batch_size, device=device,
                            random_state=random_state, progress=progress)
            files = _write(folder.path, report, t0=t0)
            steps.update()
        finally:
            steps.close()
    files = folder.final_paths(files)
    if verbose:
        print(format_language_summary(report["summary"]))
        print(f"\nReport: {files['report.html']}")
    return MapResult(summary=report["summary"], selectivity=report["tmap"],
                     tables=report["tables"],
                     files={k: str(v) for k, v in files.items()})


def _steps(steps, *, model, checkpoint, trust_checkpoint, stimuli, layers, top_k, q,
           smooth_fwhm, token_pooling, min_units, cortex_min_vertices, n_permutations, alpha,
           hemispheres, batch_size, device, random_state, progress) -> dict:
    """The job's stages in order (each a public call), ticking ``steps``; the report data."""
    from ..analysis import language_profile, language_selectivity, morans_i, topography_table
    from ..atlases import cortex_maps, load_language_parcels
    from ..features import extract
    from ..training import load_model

    steps.set_postfix_str("stimuli")
    stim, stim_source = _load_localizer(stimuli)
    steps.update()

    steps.set_postfix_str("model")
    net = load_model(model, checkpoint=checkpoint, trust_checkpoint=trust_checkpoint)
    model_desc = _model_description(net, model, checkpoint)
    card = net.model_card
    _check_language(card)
    if layers is None:
        if not card.topo_layers:
            raise ParameterError(f"{card.name!r} names no TopoLoss layers; pass layers=.")
        layers = list(card.topo_layers)
    layers = [layers] if isinstance(layers, str) else list(layers)
    steps.update()

    steps.set_postfix_str("activations")
    acts = extract(net, stim, layers, token_pooling=token_pooling, batch_size=batch_size,
                   device=device, progress=progress)
    check_sheet_layers(acts, layers)
    steps.update()

    steps.set_postfix_str("selectivity")
    topolm = language_selectivity(acts, q=q, top_k=top_k, smooth_fwhm=smooth_fwhm)
    profile = language_profile(acts, q=q, top_k=top_k, smooth_fwhm=smooth_fwhm)
    raw = language_selectivity(acts, q=q, top_k=top_k, smooth_fwhm=None)
    passing = raw["t"].values[raw["fdr_mask"].values]
    threshold = float(passing.min()) if passing.size else float("inf")
    tmap = raw["t"].expand_dims(map=[_MAP])
    steps.update()

    steps.set_postfix_str("topography")
    model_topo = topography_table(tmap, layers=layers, threshold=threshold, min_units=min_units,
                                  pairs=(), n_permutations=n_permutations, alpha=alpha,
                                  random_state=random_state)
    morans = {ly: morans_i(raw["t"], layer=ly, n_permutations=n_permutations,
                           random_state=random_state) for ly in layers}
    steps.update()

    steps.set_postfix_str("cortex")
    atlas = load_language_parcels("fsaverage5")
    cortex = cortex_maps(atlas, [_MAP], hemispheres=hemispheres)
    cortex_topo = topography_table(cortex, threshold=0.5, min_units=cortex_min_vertices,
                                   smooth_sigma=0.0, pairs=(), n_permutations=0, alpha=alpha,
                                   random_state=random_state)
    report = _assemble(
        card=card, model_desc=model_desc, stim=stim, stim_source=stim_source, acts=acts,
        topolm=topolm, raw=raw, tmap=tmap, profile=profile, layers=layers,
        model_topo=model_topo, morans=morans, cortex_topo=cortex_topo,
        cortex_vertices={h: int(np.asarray(c.maps[_MAP]).size) for h, c in cortex.items()},
        threshold=threshold,
        min_units=min_units, alpha=alpha, n_permutations=n_permutations,
        token_pooling=token_pooling,
    )
    report["atlas"] = atlas
    return report


# ------------------------------------------------------------------------------ numbers
def _assemble(*, card, model_desc, stim, stim_source, acts, topolm, raw, tmap, profile, layers,
              model_topo, morans, cortex_topo, cortex_vertices, threshold, min_units,
              alpha, n_permutations, token_pooling) -> dict:
    unit_layer = np.asarray(acts[D.LAYER].values).astype(str)
    rows, per_layer = [], {}
    for ly in layers:
        r = model_topo.row(ly, _MAP)
        mi = morans[ly]
        in_ly = unit_layer == ly
        moran_v = language_verdict("morans_i", mi, alpha)
        smooth_v = language_verdict("smoothness", _SmoothRow(r, n_permutations), alpha)
        n_sig = r["n_significant_patches"]
        patch_text = (
            f"{int(n_sig)} significant patch{'es' if n_sig != 1 else ''} of t >= "
            f"{threshold:.2f} (of {int(r['n_patches'])} found; family-wise p <= {alpha:g})"
            if np.isfinite(threshold) and np.isfinite(n_sig) else
            "no patches: no unit passes Benjamini-Hochberg on this map"
            if not np.isfinite(threshold) else f"{int(r['n_patches'])} patches (no null drawn)")
        prof = profile.sel({D.LAYER: ly})
        row = {
            "layer": ly, "sheet": r["shape"],
            "n_units": int(in_ly.sum()),
            "n_fdr_topolm": int(topolm["fdr_mask"].values[in_ly].sum()),
            "n_topk_topolm": int(topolm["topk_mask"].values[in_ly].sum()),
            "max_t": float(r["max_value"]),
            "morans_i": float(mi.statistic), "morans_i_expected": float(mi.attrs["expected"]),
            "morans_i_null_mean": mi.null_mean, "morans_i_null_std": mi.null_std,
            "morans_i_p": float(mi.p_value),
            "smoothness": float(r["smoothness"]),
            "smoothness_null_mean": float(r["smoothness_null_mean"]),
            "smoothness_null_std": float(r["smoothness_null_std"]),
            "smoothness_p": float(r["smoothness_p"]),
            "n_patches": int(r["n_patches"]),
            "n_significant_patches": r["n_significant_patches"],
            "largest_patch_units": int(r["largest_patch_units"]),
            "selective_fraction": float(r["selective_fraction"]),
            "split_half_overlap": float(prof["overlap"]),
            "split_half_chance": float(prof["overlap_chance"]),
            "split_half_p": float(prof["overlap_p"]),
        }
        rows.append(row)
        per_layer[ly] = {
            "sheet": row["sheet"],
            "verdict": moran_v["text"],
            "signatures": [moran_v["text"], smooth_v["text"], patch_text,
                           f"split-half stability of the top-k units: Dice "
                           f"{row['split_half_overlap']:.2f} (chance "
                           f"{row['split_half_chance']:.2f}, hypergeometric "
                           f"p = {row['split_half_p']:.2g})"],
            "claims": {"morans_i": moran_v, "smoothness": smooth_v},
            **{k: _num(v) if isinstance(v, float) else v for k, v in row.items()
               if k not in ("layer", "sheet")},
            "profile": {str(c): {"response": _num(prof["response"].sel(condition=c)),
                                 "sem": _num(prof["sem"].sel(condition=c))}
                        for c in profile["condition"].values},
        }
    model_table = pd.DataFrame(rows)
    prof_table = profile["response"].to_pandas()
    prof_table.columns = [f"{c} response" for c in prof_table.columns]
    prof_table = prof_table.join(profile["sem"].to_pandas().add_suffix(" sem")).reset_index()
    cortex_rows, cortex = [], {}
    for h in cortex_topo.sheets:
        r = cortex_topo.row(h, _MAP)
        cortex_rows.append({"hemisphere": h, "n_vertices": cortex_vertices[h],
                            "parcel_fraction": float(r["selective_fraction"]),
                            "n_regions": int(r["n_patches"]),
                            "largest_region_vertices": int(r["largest_patch_units"]),
                            "largest_region_fraction": None})
        cortex[h] = {k: _num(v) if isinstance(v, float) else v
                     for k, v in cortex_rows[-1].items() if k != "hemisphere"}
    cortex_table = pd.DataFrame(cortex_rows).drop(columns="largest_region_fraction")
    view = comparison_table(model_table, cortex_table)
    summary = {
        "toponeuro_version": __version__,
        "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "job": "toponeuro map --language",
        "model": {"name": card.name, "source": model_desc, "tau": card.tau,
                  "description": card.description,
                  "weights_sha256": str(acts.attrs.get(D.ATTR_WEIGHTS_SHA256, ""))},
        "stimuli": {
            "set": "language localizer (Fedorenko et al., 2010)", "source": stim_source,
            "n_stimuli": len(stim),
            "conditions": {str(c): int(n) for c, n in
                           pd.Series(np.asarray(stim.categories, str)).value_counts(sort=False)
                           .items()},
        },
        "layers": list(layers),
        "token_pooling": token_pooling,
        "selection": {k: _jsonable(topolm.attrs.get(k)) for k in
                      ("method", "statistic", "target", "against", "q_level", "top_k",
                       "alternative", "smooth_fwhm", "scope", "reference")},
        "topography_map": ("Welch t of S vs N on the unsmoothed activations (TopoLM's sheet "
                           "smoothing would make any map smooth, so the positions null is "
                           "applied to the unsmoothed map)"),
        "patch_threshold_t": _num(threshold),
        "patch_min_units": int(min_units),
        "n_permutations": int(n_permutations),
        "alpha": float(alpha),
        "definitions": _jsonable({**model_topo.attrs["definitions"],
                                  "morans_i": {k: v for k, v in
                                               next(iter(morans.values())).attrs.items()
                                               if k not in ("expected", "n_points")}}),
        "per_layer": per_layer,
        "cortex": {"atlas": "language parcels (Wolna et al., 2025; S > N, n = 706) on "
                            "fsaverage5, flat-map coordinates, inflated-mesh neighbours",
                   "nulls": "none: the parcels are one fixed binary map, smooth and patchy "
                            "by construction; a spin test keeps a map's own autocorrelation "
                            "and scattering its values makes any contiguous parcel cluster, so "
                            "no null can test their Moran's I or smoothness, and neither is "
                            "reported (only their extent and regions are)",
                   **cortex},
    }
    data = xr.Dataset(
        {"t": (D.UNIT, raw["t"].values), "p": (D.UNIT, raw["p"].values),
         "q": (D.UNIT, raw["q"].values),
         "t_topolm": (D.UNIT, topolm["t"].values), "q_topolm": (D.UNIT, topolm["q"].values),
         "fdr_mask_topolm": (D.UNIT, topolm["fdr_mask"].values.astype(np.int8)),
         "topk_mask_topolm": (D.UNIT, topolm["topk_mask"].values.astype(np.int8))},
        coords={D.LAYER: (D.UNIT, unit_layer),
                **{c: (D.UNIT, np.asarray(raw[c].values)) for c in (D.ROW, D.COL)}},
    )
    per = model_table.set_index("layer")
    for col in per.columns:
        if col != "sheet":
            data[col] = ("sheet_layer", per[col].to_numpy(dtype=float))
    data = data.assign_coords(sheet_layer=np.asarray(layers, dtype=str))
    data["profile_response"] = (("sheet_layer", "condition"), profile["response"].values)
    data["profile_sem"] = (("sheet_layer", "condition"), profile["sem"].values)
    data = data.assign_coords(condition=np.asarray(profile["condition"].values, str))
    data.attrs.update({k: (str(v) if not isinstance(v, (int, float)) else v)
                       for k, v in acts.attrs.items()})
    data.attrs["description"] = ("toponeuro map --language: language selectivity (S vs N) maps, "
                                 "their topography with spatial nulls, split-half profile")
    return {"summary": summary, "dataset": data, "tmap": tmap, "topolm": topolm,
            "model_topo": model_topo, "cortex_topo": cortex_topo,
            "sheet_shapes": {ly: acts.topo.sheet_shape(ly) for ly in layers},
            "tables": {"model": model_table, "profile": prof_table, "cortex": cortex_table,
                       "comparison": view},
            "threshold": threshold}


class _SmoothRow:
    """A topography-table row's smoothness as the NullResult-like :func:`language_verdict` reads."""

    def __init__(self, row, n_permutations):
        self.statistic = float(row["smoothness"])
        self.null_mean = float(row["smoothness_null_mean"])
        self.null_std = float(row["smoothness_null_std"])
        self.p_value = float(row["smoothness_p"])
        self.n_permutations = int(n_permutations)


def _fmt(v, spec="{:.2f}"):
    return "–" if v is None or not np.isfinite(v) else spec.format(float(v))


#: the cortex's cell for a statistic of one map that no null can test (see comparison_table)
NOT_TESTED = "not tested (no valid null)"


def comparison_table(model_table: pd.DataFrame, cortex_table: pd.DataFrame) -> pd.DataFrame:
    """Model sheet (last layer) vs each hemisphere, with a column saying what is comparable.

    Examples
    --------
    >>> m = pd.DataFrame([{"layer": "l", "selective_fraction": 0.1, "n_significant_patches": 2,
    ...                    "n_units": 100, "largest_patch_units": 10, "morans_i": 0.4,
    ...                    "morans_i_p": 0.001, "smoothness": 0.3, "smoothness_p": 0.01}])
    >>> c = pd.DataFrame([{"hemisphere": "left", "parcel_fraction": 0.05, "n_regions": 5,
    ...                    "n_vertices": 10242, "largest_region_vertices": 200}])
    >>> comparison_table(m, c).loc["contiguous regions", "comparable?"][:7]
    'in kind'
    >>> comparison_table(m, c).loc["Moran's I", "cortex · left"]
    'not tested (no valid null)'
    """
    last = model_table.iloc[-1]
    cols = {f"model · {last['layer']}": [
        "Welch t, S vs N, per unit",
        _fmt(last["selective_fraction"], "{:.1%}"),
        _fmt(last["n_significant_patches"], "{:.0f}"),
        _fmt(last["largest_patch_units"] / last["n_units"], "{:.1%}"),
        f"{_fmt(last['morans_i'])} (p {_fmt(last['morans_i_p'], '{:.3f}')})",
        f"{_fmt(last['smoothness'])} (p {_fmt(last['smoothness_p'], '{:.3f}')})",
        "–",
    ]}
    for r in cortex_table.itertuples():
        cols[f"cortex · {r.hemisphere}"] = [
            "group parcels, 1 inside / 0 outside",
            _fmt(r.parcel_fraction, "{:.1%}"),
            _fmt(r.n_regions, "{:.0f}"),
            _fmt(r.largest_region_vertices / r.n_vertices, "{:.1%}"),
            NOT_TESTED,
            NOT_TESTED,
            "–",
        ]
    cols["comparable?"] = [
        "no: a statistic per unit vs a fixed binary atlas",
        "in kind: both a fraction of the surface marked language-selective; the model's "
        "depends on q and the items, the parcels' on the group threshold",
        "in kind: counts of contiguous regions (the model's tested against its null, the "
        "parcels fixed); sheet and hemisphere differ in size and shape",
        "in kind: the largest region as a share of the surface",
        "no: only the model's is tested. The parcels' own Moran's I has no valid null: a "
        "spin test rotates the map whole and so keeps its autocorrelation (a rotated map has "
        "about the same Moran's I), and scattering its values makes any contiguous parcel "
        "'cluster'; a binary map of contiguous parcels is autocorrelated by construction, "
        "so its value is not reported",
        "no: only the model's is tested; the parcels' smoothness has no valid null, for the "
        "same reason as Moran's I, and is not reported",
        "not compared: one language map, no set of regions to arrange",
    ]
    index = ["what the map is", "fraction language-selective", "contiguous regions",
             "largest region (share of surface)", "Moran's I", "smoothness",
             "arrangement of regions"]
    return pd.DataFrame(cols, index=index)


# ------------------------------------------------------------------------------ text
def format_language_summary(summary: dict) -> str:
    """The plain-text summary ``toponeuro map --language`` prints.

    Examples
    --------
    >>> s = {"model": {"name": "m"}, "stimuli": {"n_stimuli": 640}, "n_permutations": 9,
    ...      "alpha": 0.05, "patch_threshold_t": 3.1, "per_layer": {"l": {
    ...      "sheet": "8x8", "n_fdr_topolm": 5, "n_topk_topolm": 6, "signatures": ["a", "b"]}},
    ...      "cortex": {"atlas": "x", "nulls": "y", "left": {"parcel_fraction": 0.05,
    ...      "n_regions": 5}}}
    >>> print(format_language_summary(s).splitlines()[0])
    toponeuro map --language — m on 640 localizer items (nulls: 9 draws, alpha 0.05)
    """
    lines = [f"toponeuro map --language — {summary['model']['name']} on "
             f"{summary['stimuli']['n_stimuli']} localizer items (nulls: "
             f"{summary['n_permutations']} draws, alpha {summary['alpha']:g})", ""]
    for ly, r in summary["per_layer"].items():
        lines.append(f"{ly} ({r['sheet']}): {r['n_fdr_topolm']} units pass BH (TopoLM), "
                     f"top-k {r['n_topk_topolm']}")
        lines += [f"    {t}" for t in r["signatures"]]
    lines.append("")
    for h, c in summary["cortex"].items():
        if h in ("atlas", "nulls"):
            continue
        frac = c["parcel_fraction"]
        lines.append(f"cortex {h}: language parcels cover {frac:.1%} of the hemisphere in "
                     f"{c['n_regions']} regions")
    return "\n".join(lines)


# ------------------------------------------------------------------------------ files
def _figures(out: Path, rep: dict, atlas) -> dict:
    from .._optional import optional_import
    from ..plotting import plot_comparison, plot_sheet_map, plot_surface_map
    from ._writer import _savefig

    plt = optional_import("matplotlib.pyplot", "plot", "toponeuro.plotting")
    s, files = rep["summary"], {}
    layers, thr = s["layers"], rep["threshold"]
    fig = plot_sheet_map(rep["tmap"], layers, facet="map", ncols=min(3, len(layers)),
                         outline=thr if np.isfinite(thr) else None,
                         colorbar_label="t (sentences vs nonword lists)",
                         title="Language selectivity on the model's sheets (outline: units "
                               "passing Benjamini-Hochberg)")
    files["sheet_maps.png"] = _savefig(fig, out / "sheet_maps.png")
    lab = atlas.mask(domain=_MAP).astype(int)
    fig = plot_surface_map(lab, labels={1: "language parcels"}, view="lateral",
                           title="Language parcels (Wolna et al., 2025) on fsaverage5 "
                                 "(inflated, lateral view)")
    files["cortex_parcels.png"] = _savefig(fig, out / "cortex_parcels.png")
    prof = rep["tables"]["profile"].set_index(D.LAYER)
    conds = [c.split()[0] for c in prof.columns if c.endswith("response")]
    fig, ax = plt.subplots(figsize=(1.2 + 0.9 * len(layers) * len(conds) / 4, 3.2))
    width = 0.8 / len(conds)
    xs = np.arange(len(prof))
    for j, c in enumerate(conds):
        ax.bar(xs + (j - (len(conds) - 1) / 2) * width, prof[f"{c} response"], width,
               yerr=prof[f"{c} sem"], label=c, capsize=2)
    ax.set_xticks(xs, [str(ly).replace(".intermediate.dense", "") for ly in prof.index],
                  rotation=30, ha="right", fontsize=8)
    ax.axhline(0, color="k", lw=0.6)
    ax.set_ylabel("response (z), held-out items")
    ax.set_title("Language units (top-k, selected on the other half of the items)", fontsize=9)
    ax.legend(fontsize=8, frameon=False, ncol=len(conds))
    files["condition_profile.png"] = _savefig(fig, out / "condition_profile.png")
    fig = plot_comparison(rep["tables"]["comparison"].drop(columns="comparable?"),
                          title="Model sheet vs cortex (see the table for what compares)")
    files["comparison.png"] = _savefig(fig, out / "comparison.png")
    return files


def _html(rep: dict, files: dict) -> str:
    from ._writer import _html_table, _img

    esc = html.escape
    s = rep["summary"]
    m, st, sel = s["model"], s["stimuli"], s["selection"]
    verdicts = "".join(
        f"<h3>{esc(ly)} ({esc(r['sheet'])})</h3><ul>"
        + "".join(f"<li>{esc(t)}</li>" for t in r["signatures"]) + "</ul>"
        for ly, r in s["per_layer"].items())
    topolm_note = "" if m.get("tau") else (
        '<div class="note">This model has no TopoLoss (&tau; unset or 0): a non-topographic '
        "baseline. Its sheets are its units in their index order.</div>")
    return _writer.render_page(
        "language_report.html", title=f"toponeuro map --language — {esc(m['name'])}",
        model_name=esc(m["name"]), version=esc(s["toponeuro_version"]),
        created=esc(s["created"]), seconds=s["seconds"], model_source=esc(str(m["source"])),
        tau=esc(str(m["tau"])), model_description=esc(m["description"] or ""),
        n_stimuli=st["n_stimuli"],
        conditions=esc(", ".join(f"{k} {v}" for k, v in st["conditions"].items())),
        stimuli_source=esc(st["source"]), layers=esc(", ".join(s["layers"])),
        token_pooling=esc(s["token_pooling"]), q=sel["q_level"], top_k=sel["top_k"],
        fwhm=sel["smooth_fwhm"], reference=esc(str(sel["reference"])),
        threshold=_fmt(rep["threshold"]), min_units=s["patch_min_units"],
        n_permutations=s["n_permutations"], alpha=f"{s['alpha']:g}",
        atlas=esc(s["cortex"]["atlas"]), model_note=topolm_note, verdicts=verdicts,
        model_table=_html_table(rep["tables"]["model"]),
        profile_table=_html_table(rep["tables"]["profile"]),
        cortex_table=_html_table(rep["tables"]["cortex"]),
        comparison_view=rep["tables"]["comparison"].to_html(border=0, classes="tbl"),
        fig_sheet_maps=_img(files, "sheet_maps.png", "S vs N t on each layer's sheet"),
        fig_profile=_img(files, "condition_profile.png",
                         "Mean response (z) of the top-k language units to each condition, "
                         "on the items they were not selected on (error bars: s.e.m. over "
                         "items)"),
        fig_cortex=_img(files, "cortex_parcels.png",
                        "Language parcels on the inflated fsaverage5 surface"),
        png_links=", ".join(f'<a href="{esc(k)}">{esc(k)}</a>' for k in files
                            if k.endswith(".png")),
    )


def _write(out: Path, rep: dict, *, t0: float) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    files = _figures(out, rep, rep["atlas"])
    rep["dataset"].to_netcdf(out / "results.nc", engine="h5netcdf")
    files["results.nc"] = out / "results.nc"
    files["summary.json"] = out / "summary.json"
    files["report.html"] = out / "report.html"
    s = rep["summary"]
    s["seconds"] = round(time.perf_counter() - t0, 1)
    s["files"] = {k: Path(v).name for k, v in files.items()}
    (out / "report.html").write_text(_html(rep, files), encoding="utf-8")
    (out / "summary.json").write_text(json.dumps(_jsonable(s), indent=2))
    return files
