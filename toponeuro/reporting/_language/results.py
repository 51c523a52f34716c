"""The language job's numbers, assembled once into a :class:`LanguageReport`: its tables,
``summary.json`` and ``results.nc``.

Nothing here computes a statistic: every value comes from the stages of
:mod:`._language_stages` (the selection, the topography table and Moran's I of each layer,
the cortex's maps), so the tables, sentences, figures and files all show the same numbers.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import xarray as xr

from ..._util import dims as D
from ..._util.constraints import MAPPING
from ..._util.docs import fill_doc
from ..._util.params import ALPHA, InstanceOf, Text, validate_params
from ..._version import __version__
from ...analysis import (
    SMOOTHNESS_METHODS,
    NullResult,
    can_reject,
    organisation_claim,
    too_few_draws_text,
)
from ...exceptions import InputTypeError, InvalidDataError, UnknownNameError
from .._kit.entries import definitions_entry, label_null_entry
from .._kit.report import (
    CortexReport,
    LanguageLayerRecord,
    LanguageMapReport,
    ParcelsRecord,
    YourMapsRecord,
)
from .._kit.report import jsonable as _jsonable
from .._kit.report import num as _num
from .stages import LANGUAGE_MAP, _n_vertices

__all__ = ["language_verdict", "LanguageInputs", "LanguageReport", "assemble_language",
           "format_language_summary", "main_mesh", "cortex_lines"]

_MAP = LANGUAGE_MAP


# ------------------------------------------------------------------------------ sentences
@validate_params(dict(statistic=Text(), alpha=ALPHA, where=Text()))
@fill_doc
def language_verdict(statistic: str, result, alpha: float, where: str = "on this sheet") -> dict:
    """The plain-language claim of one positions-null test of a language map, from its numbers.

    This is the "organised on the sheet" question (the map against its own values scattered
    over the sheet), not whether language selectivity is more clustered than other contrasts
    (that is the label null's, :func:`toponeuro.analysis.contrast_claim`). One test, one p,
    one sentence: both statistics are worded by :func:`toponeuro.analysis.organisation_claim`,
    the sentence every positions-null test has; "organised" only when the test's own p-value
    (one-sided) is at or below ``alpha``; too few draws to reach ``alpha`` is never a negative
    finding; without a null it says so and makes no claim.

    Parameters
    ----------
    statistic : {"morans_i", "smoothness"}
        Which test ``result`` holds.
    result : NullResult
        The :class:`~toponeuro.analysis.NullResult` of the test with its positions null:
        :func:`~toponeuro.analysis.morans_i`'s, or a map's smoothness
        (:meth:`~toponeuro.analysis.TopographyTable.smoothness_null`).
    %(alpha)s
    where : str
        Where the map lives, for the sentence.

    Returns
    -------
    dict
        ``test``, ``claim`` ("organised" / "not organised", "too few draws" -- the draws
        cannot reach ``alpha``, never a negative finding -- or "no null"), ``significant``,
        ``p_value`` and ``text``.

    Raises
    ------
    InputTypeError
        ``result`` is not a NullResult.
    InvalidDataError
        ``result`` is the test of another statistic (its ``attrs["method"]``: ``"morans_i"``
        for Moran's I, one of ``SMOOTHNESS_METHODS`` for smoothness).
    UnknownNameError
        Another ``statistic``.

    Examples
    --------
    >>> from toponeuro.analysis import morans_i
    >>> rr, cc = np.mgrid[:16, :16]
    >>> blob = np.exp(-((rr - 5) ** 2 + (cc - 9) ** 2) / 10.0)
    >>> v = language_verdict("morans_i", morans_i(blob, n_permutations=99, random_state=0), 0.05)
    >>> v["claim"], v["text"]
    ('organised', "language selectivity is organised on this sheet: Moran's I 0.94 (positions null 0.00 ± 0.04), p ≤ 0.01 (one-sided, 99 draws)")
    """
    if statistic not in ("morans_i", "smoothness"):
        raise UnknownNameError(
            f"language_verdict words 'morans_i' or 'smoothness'; got {statistic!r}."
        )
    if not isinstance(result, NullResult):
        raise InputTypeError(
            f"language_verdict({statistic!r}, result) reads the NullResult of the test with its "
            f"positions null (morans_i's, or TopographyTable.smoothness_null(sheet, name)); got "
            f"{type(result).__name__}."
        )
    method = result.attrs.get("method")
    expected = ("morans_i",) if statistic == "morans_i" else SMOOTHNESS_METHODS
    if method not in expected:
        raise InvalidDataError(
            f"language_verdict({statistic!r}, result) got the test of {method!r} "
            f"(result.attrs['method']); pass the NullResult of {' or '.join(map(repr, expected))}"
            f" ({'morans_i' if statistic == 'morans_i' else 'TopographyTable.smoothness_null'}), "
            f"or name the statistic it holds."
        )
    return _organisation_verdict(
        organisation_claim(result, alpha, what="language selectivity", where=where), statistic)


def _organisation_verdict(c, test: str) -> dict:
    """A positions-null :class:`~toponeuro.analysis.TopographyClaim` as the ``claims`` entry
    ``summary.json`` carries (its sentence unchanged)."""
    claim = {"beyond chance": "organised", "not beyond chance": "not organised",
             "too few draws": "too few draws", "not tested": "no null"}[c.outcome]
    return {"test": test, "claim": claim, "significant": c.significant,
            "p_value": float(c.p_value), "text": c.text}


# ------------------------------------------------------------------------------ the data
@dataclass(frozen=True)
class LanguageInputs:
    """What the language job was asked to do (the settings the report states).

    Examples
    --------
    >>> LanguageInputs(card=None, model_desc="m", stimuli=[], stimuli_source="s",
    ...                layers=("l",), alpha=0.05, n_permutations=9, q=0.05).layers
    ('l',)
    """

    card: object
    model_desc: str
    stimuli: object
    stimuli_source: str
    layers: tuple
    alpha: float
    n_permutations: int
    q: float
    cortex_threshold: float | None = None


@dataclass
class LanguageReport:
    """Everything the language report writer needs, assembled once by :func:`assemble_language`.

    Attributes
    ----------
    report : LanguageMapReport
        Every number and sentence, typed (``summary.json`` is its ``to_summary()``, also
        :attr:`summary`).
    tables : dict of pandas.DataFrame
        ``"model"`` (per layer), ``"profile"`` (per layer and condition), ``"cortex"`` (per
        map and hemisphere), ``"comparison"`` (model sheet vs cortex, with what compares).
    dataset : xarray.Dataset
        The content of ``results.nc``.
    selectivity : xarray.DataArray
        The ``("map", "unit")`` S vs N t map whose topography is measured.
    threshold : float
        The patch threshold (smallest t passing Benjamini-Hochberg; NaN: none passes).
    profile : xarray.Dataset
        The split-half condition profile (what the profile figure draws).
    cortex : object
        The :class:`~toponeuro.reporting.LanguageCortex` drawn beside the sheets.

    Examples
    --------
    >>> LanguageReport(report=None, tables={}, dataset=None, selectivity=None,
    ...                threshold=2.0, profile=None, cortex=None).sheet_shapes
    {}
    """

    report: LanguageMapReport
    tables: dict
    dataset: xr.Dataset
    selectivity: xr.DataArray
    threshold: float
    profile: xr.Dataset
    cortex: object
    sheet_shapes: dict = field(default_factory=dict)
    #: the model's verb - noun maps (:class:`~toponeuro.reporting.VerbNoun`), or None
    verb_noun: object = None
    #: key -> :class:`~toponeuro.reporting.LanguageFit` (the model-vs-cortex comparisons)
    fits: dict = field(default_factory=dict)

    @property
    def summary(self) -> dict:
        """The content of ``summary.json`` (:meth:`LanguageMapReport.to_summary`)."""
        return self.report.to_summary()


def _patch_text(r, threshold: float, alpha: float, q: float, n_permutations: int) -> str:
    n_sig = r["n_significant_patches"]
    if not np.isfinite(threshold):
        return (f"no patches: no language-selective units at q = {q:g} (no unit passes "
                "Benjamini-Hochberg on this map, so there is no patch threshold)")
    if np.isfinite(n_sig) and not can_reject(n_permutations, alpha):
        return (f"{int(r['n_patches'])} patches of t >= {threshold:.2f} found, "
                f"{too_few_draws_text(n_permutations, alpha)} (family-wise)")
    if np.isfinite(n_sig):
        return (f"{int(n_sig)} significant patch{'es' if n_sig != 1 else ''} of t >= "
                f"{threshold:.2f} (of {int(r['n_patches'])} found; family-wise p <= {alpha:g})")
    return f"{int(r['n_patches'])} patches (no null drawn)"


def _typed(v):
    """A summary value as JSON types: counts as ints, measures as floats, undefined None."""
    if isinstance(v, int | np.integer) and not isinstance(v, bool):
        return int(v)
    return _num(v) if isinstance(v, float | np.floating) else v


def _nan_int(v):
    return int(v) if np.isfinite(v) else np.nan


def _layer_row(inputs: LanguageInputs, units, topo, ly: str, in_ly) -> dict:
    r = topo.table.row(ly, _MAP)
    mi = topo.morans[ly]
    prof = units.profile.sel({D.LAYER: ly})
    return {
        "layer": ly, "sheet": r["shape"],
        "n_units": int(in_ly.sum()),
        "n_fdr_topolm": int(units.topolm["fdr_mask"].values[in_ly].sum()),
        "n_topk_topolm": int(units.topolm["topk_mask"].values[in_ly].sum()),
        "max_t": float(r["max_value"]),
        "morans_i": float(mi.statistic), "morans_i_expected": float(mi.attrs["expected"]),
        "morans_i_null_mean": mi.null_mean, "morans_i_null_std": mi.null_std,
        "morans_i_p": float(mi.p_value),
        "smoothness": float(r["smoothness"]),
        "smoothness_null_mean": float(r["smoothness_null_mean"]),
        "smoothness_null_std": float(r["smoothness_null_std"]),
        "smoothness_p": float(r["smoothness_p"]),
        "n_patches": _nan_int(r["n_patches"]),
        "n_significant_patches": _nan_int(float(r["n_significant_patches"])),
        "largest_patch_units": _nan_int(r["largest_patch_units"]),
        "selective_fraction": float(r["selective_fraction"]),
        "n_units_with_data": int(r["n_points"]),
        "n_language_units": int(r["n_selective"]),
        "split_half_overlap": float(prof["overlap"]),
        "split_half_chance": float(prof["overlap_chance"]),
        "split_half_p": float(prof["overlap_p"]),
    }


def _layer_summary(inputs: LanguageInputs, units, topo, row: dict) -> LanguageLayerRecord:
    ly = row["layer"]
    r = topo.table.row(ly, _MAP)
    both = topo.contrast[ly]
    moran_v = _organisation_verdict(both.organised, "morans_i")  # the positions test, once
    smooth_v = language_verdict("smoothness", topo.table.smoothness_null(ly, _MAP), inputs.alpha)
    prof = units.profile.sel({D.LAYER: ly})
    return LanguageLayerRecord.from_summary(_jsonable({
        "sheet": row["sheet"],
        "verdict": both.selective.text,
        "organised": moran_v["text"],
        "label_null": _jsonable(label_null_entry(both)),
        "signatures": [both.selective.text, moran_v["text"], smooth_v["text"],
                       _patch_text(r, units.threshold, inputs.alpha, inputs.q,
                                   inputs.n_permutations),
                       f"split-half stability of the top-k units: Dice "
                       f"{row['split_half_overlap']:.2f} (chance "
                       f"{row['split_half_chance']:.2f}, hypergeometric "
                       f"p = {row['split_half_p']:.2g})"],
        "claims": {"morans_i": moran_v, "smoothness": smooth_v},
        **{k: _typed(v) for k, v in row.items() if k not in ("layer", "sheet")},
        "profile": {str(c): {"response": _num(prof["response"].sel(condition=c)),
                             "sem": _num(prof["sem"].sel(condition=c))}
                    for c in units.profile["condition"].values},
    }))


def _cortex_rows(cortex, threshold: float | None) -> list[dict]:
    """One row per (map, hemisphere): the parcels' (or your maps') extent and regions.

    Every count and fraction is over the vertices *with data* (``n_with_data``: a map's
    medial wall or NaN vertices are not cortex it measured), the denominator
    :func:`~toponeuro.analysis.topography_table` computed its fractions over; ``n_vertices``
    is the hemisphere's mesh size, for reference.
    """
    rows = []
    for topo, maps, kind in ((cortex.topography, cortex.maps, "parcels"),
                             (cortex.user_topography, cortex.user_maps, "yours")):
        if topo is None:
            continue
        for rec in topo.table.itertuples():
            n_vert = _n_vertices(maps)[rec.sheet]
            n_data = int(rec.n_points)
            largest = int(rec.largest_patch_units)
            rows.append({"map": rec.name, "kind": kind, "hemisphere": rec.sheet,
                         "mesh": getattr(maps[rec.sheet], "mesh", "fsaverage5"),
                         "n_vertices": n_vert, "n_with_data": n_data,
                         "n_marked": int(rec.n_selective),
                         "parcel_fraction": float(rec.selective_fraction),
                         "n_regions": int(rec.n_patches),
                         "largest_region_vertices": largest,
                         "largest_region_fraction": largest / n_data if n_data else np.nan,
                         "threshold": 0.5 if kind == "parcels" else float(threshold)})
    return rows


def main_mesh(rows: list[dict]) -> str:
    """The mesh of the cortex's language map (the parcels', or your ``language`` map's).

    Examples
    --------
    >>> main_mesh([{"map": "language", "mesh": "fs_LR_32k"}])
    'fs_LR_32k'
    """
    return next((r["mesh"] for r in rows if r["map"] == _MAP), "fsaverage5")


def _cortex_summary(cortex, rows: list[dict]) -> CortexReport:
    parcels = [r for r in rows if r["kind"] == "parcels"]
    yours = [r for r in rows if r["kind"] == "yours"]
    out = CortexReport(atlas=("language parcels (Wolna et al., 2025; S > N, n = 706) on "
                     "fsaverage5, flat-map coordinates, inflated-mesh neighbours")
           if cortex.atlas is not None else
           f"your own language map (from cortex.maps) on {main_mesh(rows)}",
           nulls="none: the parcels are one fixed binary map, smooth and patchy "
                    "by construction; a spin test keeps a map's own autocorrelation "
                    "and scattering its values makes any contiguous parcel cluster, so "
                    "no null can test their Moran's I or smoothness, and neither is "
                    "reported (only their extent and regions are)")
    keep = ("n_vertices", "n_with_data", "n_marked", "parcel_fraction", "n_regions",
            "largest_region_vertices", "largest_region_fraction")
    main = parcels or [r for r in yours if r["map"] == _MAP]
    for r in main:
        out.hemispheres[r["hemisphere"]] = ParcelsRecord(**{k: _num(r[k]) for k in keep})
    if yours:
        sims = cortex.user_topography.similarity
        out.your_maps = YourMapsRecord(
            source=_jsonable(cortex.source),
            mesh=yours[0]["mesh"],
            maps={name: {r["hemisphere"]: ParcelsRecord(**{k: _num(r[k]) for k in keep})
                         for r in yours if r["map"] == name}
                  for name in dict.fromkeys(r["map"] for r in yours)},
            similarity=[{"hemisphere": s.sheet, "pair": s.pair, "method": s.method,
                         "value": _num(s.value), "null_mean": _num(s.null_mean),
                         "null_std": _num(s.null_std), "p_value": _num(s.p_value),
                         "null": s.null, "verdict": s.verdict,
                         **_draws(cortex.user_topography.similarities.get((s.sheet, s.pair)))}
                        for s in sims.itertuples()],
        )
    return out


def _draws(res) -> dict:
    """The spin test's draws as they really are (issue 47): the p in words, the draws, the
    distinct rotations and the effective count, from the similarity's one NullResult (the
    same words as the vision job's, :func:`~toponeuro.analysis.overlap_verdict`)."""
    if res is None or not res.n_permutations:
        return {"p_text": "not tested", "n_permutations": 0, "n_moves": None,
                "n_effective": None}
    from ...analysis import overlap_verdict

    v = overlap_verdict(res)
    return {"p_text": v.p_text, "n_permutations": int(v.n_permutations),
            "n_moves": v.n_moves, "n_effective": v.n_effective}


def _dataset(acts, units, model_table: pd.DataFrame, layers, verb_noun=None) -> xr.Dataset:
    raw, topolm, profile = units.raw, units.topolm, units.profile
    unit_layer = np.asarray(acts[D.LAYER].values).astype(str)
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
    if verb_noun is not None:
        data["t_verb_noun"] = (D.UNIT, np.asarray(verb_noun.tmap.values, dtype=float))
    data.attrs.update({k: (str(v) if not isinstance(v, (int, float)) else v)
                       for k, v in acts.attrs.items()})
    data.attrs["description"] = ("toponeuro map --language: language selectivity (S vs N) maps, "
                                 "their topography with spatial nulls, split-half profile; "
                                 "t_verb_noun: the verb vs noun Welch t (TopoLM's fMRI fit)")
    return data


def assemble_language(inputs: LanguageInputs, acts, units, topo, cortex, *, verb_noun=None,
                      fits=None, settings: dict | None = None) -> LanguageReport:
    """The report's numbers: tables, ``summary.json`` and ``results.nc``, from the stages'
    results (:func:`~toponeuro.reporting.language_units`,
    :func:`~toponeuro.reporting.language_model_topography`,
    :func:`~toponeuro.reporting.language_cortex`,
    :func:`~toponeuro.reporting.language_verb_noun`,
    :func:`~toponeuro.reporting.language_fits`). ``settings``: the run's settings objects as
    :func:`toponeuro.settings.settings_record` records them, kept whole as
    ``summary["settings"]``."""
    from .report import fits_summary, fits_table, headline_text, verb_noun_summary

    fits = fits or {}
    layers = list(inputs.layers)
    unit_layer = np.asarray(acts[D.LAYER].values).astype(str)
    rows = [_layer_row(inputs, units, topo, ly, unit_layer == ly) for ly in layers]
    per_layer = {r["layer"]: _layer_summary(inputs, units, topo, r) for r in rows}
    model_table = pd.DataFrame(rows)
    profile = units.profile
    prof_table = profile["response"].to_pandas()
    prof_table.columns = [f"{c} response" for c in prof_table.columns]
    prof_table = prof_table.join(profile["sem"].to_pandas().add_suffix(" sem")).reset_index()
    c_rows = _cortex_rows(cortex, inputs.cortex_threshold)
    cortex_table = pd.DataFrame(c_rows)
    stim, card = inputs.stimuli, inputs.card
    morans_attrs = next(iter(topo.morans.values())).attrs
    summary = {
        "toponeuro_version": __version__,
        "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "model": {"name": card.name, "source": inputs.model_desc, "tau": card.tau,
                  "description": card.description,
                  "weights_sha256": str(acts.attrs.get(D.ATTR_WEIGHTS_SHA256, ""))},
        "stimuli": {
            "set": "language localizer (Fedorenko et al., 2010)",
            "source": inputs.stimuli_source, "n_stimuli": len(stim),
            "conditions": {str(c): int(n) for c, n in
                           pd.Series(np.asarray(stim.categories, str)).value_counts(sort=False)
                           .items()},
        },
        "layers": layers,
        # its q, top_k and smooth_fwhm are the run's settings.units, recorded there once
        "selection": {k: _jsonable(units.topolm.attrs.get(k)) for k in
                      ("method", "statistic", "target", "against", "alternative", "scope",
                       "reference")},
        "topography_map": ("Welch t of S vs N on the unsmoothed activations (TopoLM's sheet "
                           "smoothing would make any map smooth, so the positions null is "
                           "applied to the unsmoothed map)"),
        "patch_threshold_t": _num(units.threshold),
        "definitions": _jsonable(definitions_entry({
            **topo.table.attrs["definitions"],
            "morans_i": {k: v for k, v in morans_attrs.items()
                         if k not in ("expected", "n_points")}})),
        "language_units": (
            "units of the measured map (the unsmoothed S vs N Welch t) at or above its patch "
            f"threshold t >= {_fmt(units.threshold)}, the smallest t that passes "
            f"Benjamini-Hochberg at q = {inputs.q:g} over all layers; counted over the units "
            "with a defined t (n_units_with_data). TopoLM's own selection on smoothed "
            "activations (n_fdr_topolm, n_topk_topolm) is a different set, reported under its "
            "name"),
    }
    summary = _jsonable(summary)  # JSON types in memory, as in the file
    summary["per_layer"] = per_layer  # LanguageLayerRecord's, JSON types already
    summary["cortex"] = _cortex_summary(cortex, c_rows)
    summary["comparison"] = _jsonable(fits_summary(fits, inputs.alpha))
    report = LanguageMapReport(
        **summary, headline=None, settings=settings,
        verb_noun=(None if verb_noun is None
                   else _jsonable(verb_noun_summary(verb_noun))))
    report.headline = headline_text(report, topo.contrast[layers[-1]], fits,
                                    inputs.alpha)
    tables = {"model": model_table, "profile": prof_table,
              "cortex": cortex_table.drop(columns=["kind", "threshold"], errors="ignore"),
              "comparison": fits_table(fits)}
    return LanguageReport(
        report=report, tables=tables, dataset=_dataset(acts, units, model_table, layers, verb_noun),
        selectivity=units.tmap.expand_dims(map=[_MAP]), threshold=units.threshold,
        profile=profile, cortex=cortex,
        sheet_shapes={ly: acts.topo.sheet_shape(ly) for ly in layers},
        verb_noun=verb_noun, fits=fits)


def _fmt(v, spec="{:.2f}"):
    return "–" if v is None or not np.isfinite(v) else spec.format(float(v))


def _count(n, of, what: str = "") -> str:
    """``"1,000 of 1,536 (65.1 %)"``: a count with its denominator (``what`` names it: "units
    with data", "vertices with data"), as the terminal says it.

    Examples
    --------
    >>> _count(4806, 29280, "vertices with data")
    '4,806 of 29,280 vertices with data (16.4 %)'
    """
    if not np.isfinite(n) or not of:
        return "–"
    what = f" {what}" if what else ""
    return f"{int(round(n)):,} of {int(of):,}{what} ({n / of:.1%})".replace("%)", " %)")


# ------------------------------------------------------------------------------ text
def _count_of(c: ParcelsRecord) -> str:
    """A hemisphere's language map as "4,806 of 29,280 vertices with data (16.4 %)" (without
    the counts: its fraction alone)."""
    if c.n_with_data and c.n_marked is not None:
        return _count(c.n_marked, c.n_with_data, "vertices with data")
    return f"{c.parcel_fraction:.1%} of the vertices with data"


@validate_params(dict(report=[InstanceOf(LanguageMapReport), MAPPING]))
def format_language_summary(report: LanguageMapReport | dict) -> str:
    """The plain-text summary ``toponeuro map --language`` prints.

    Parameters
    ----------
    report : LanguageMapReport or dict
        The run's typed report (``LanguageMapResult.report``), or its ``summary.json``
        content (``LanguageMapResult.summary``).

    Returns
    -------
    str
        The summary, one line per layer and hemisphere.

    Examples
    --------
    >>> from dataclasses import fields
    >>> from toponeuro.reporting._kit.report import CortexReport, LanguageLayerRecord
    >>> layer = LanguageLayerRecord(**{f.name: None for f in fields(LanguageLayerRecord)}
    ...     | dict(sheet="8x8", n_language_units=5, n_units_with_data=64, signatures=["a", "b"]))
    >>> rep = LanguageMapReport(
    ...     toponeuro_version="0.5", created="-",
    ...     model={"name": "m", "source": "m", "tau": None, "description": None,
    ...            "weights_sha256": None},
    ...     stimuli={"set": "localizer", "source": "s", "n_stimuli": 640,
    ...              "conditions": {"S": 320, "N": 320}},
    ...     layers=["l"], patch_threshold_t=3.1, definitions={},
    ...     settings={"null": {"n_permutations": 9, "alpha": 0.05}},
    ...     per_layer={"l": layer},
    ...     cortex=CortexReport(atlas="x", nulls="y", hemispheres={"left": {
    ...         "n_vertices": 10242, "n_with_data": 10000, "n_marked": 500,
    ...         "parcel_fraction": 0.05, "n_regions": 5, "largest_region_vertices": 200,
    ...         "largest_region_fraction": 0.02}}),
    ...     headline="h", selection={}, topography_map="t",
    ...     language_units="u", comparison={
    ...         "layer_rule": "l", "hemisphere_rule": "h", "headline_rule": "r",
    ...         "headline": None, "headline_row": None, "fits": {}})
    >>> print(format_language_summary(rep).splitlines()[0])
    toponeuro map --language — m on 640 localizer items (nulls: 9 draws, alpha 0.05)
    """
    rep = (report if isinstance(report, LanguageMapReport)
           else LanguageMapReport.from_summary(report))
    lines = [f"toponeuro map --language — {rep.model.name} on "
             f"{rep.stimuli.n_stimuli} localizer items (nulls: "
             f"{rep.setting('null.n_permutations')} draws, alpha {rep.setting('null.alpha'):g})", ""]
    if rep.headline:
        lines += [rep.headline, ""]
    for ly, r in rep.per_layer.items():
        if r.n_units_with_data:
            count = (f"{_count(r.n_language_units, r.n_units_with_data, 'units')} "
                     "language-selective")
        else:
            count = f"{r.n_fdr_topolm:,} units pass BH (TopoLM)"
        lines.append(f"{ly} ({r.sheet}): {count}")
        lines += [f"    {t}" for t in r.signatures]
    vn = rep.verb_noun.per_layer if rep.verb_noun is not None else {}
    if vn:
        lines.append("")
        lines += [f"{ly}, verb - noun: {r.verdict}" for ly, r in vn.items()]
    comp = rep.comparison
    if comp.fits:
        lines += ["", f"Model vs cortex ({comp.layer_rule}):"]
        for f in comp.fits.values():
            counts = ", ".join(f"{k} {v}" for k, v in f.counts.items())
            lines.append(f"    {f.title}: {counts}")
        lines.append(f"    the headline rule (both jobs): {comp.headline_rule}")
    lines.append("")
    return "\n".join(lines + cortex_lines(rep.cortex))


def cortex_lines(cortex: CortexReport) -> list:
    """The terminal's lines on the cortex: each hemisphere's parcels (or your language map),
    then each of your maps.

    Examples
    --------
    >>> left = ParcelsRecord(n_vertices=10242, n_with_data=9000, n_marked=900,
    ...                      parcel_fraction=0.1, n_regions=3, largest_region_vertices=400,
    ...                      largest_region_fraction=0.0444)
    >>> c = CortexReport(atlas="x", nulls="y", hemispheres={"left": left})
    >>> cortex_lines(c)
    ['cortex left: language parcels cover 900 of 9,000 vertices with data (10.0 %) in 3 regions']
    """
    lines = [f"cortex {h}: language parcels cover {_count_of(c)} in {c.n_regions} regions"
             for h, c in cortex.hemispheres.items()]
    for name, per in (cortex.your_maps.maps if cortex.your_maps else {}).items():
        for h, c in per.items():
            lines.append(f"cortex {h}, your map {name!r}: {_count_of(c)} at or above the "
                         f"threshold, in {c.n_regions} regions")
    return lines
