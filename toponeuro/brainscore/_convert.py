"""StimulusSet + BrainResponses -> plain files that Brain-Score's own classes are built from.

Brain-Score's environment pins numpy<2 and xarray<2022.6, so toponeuro's objects cannot be
handed over in memory or pickled. Instead this module writes plain files (CSV, PNG, ``.npy``)
that ``toponeuro/brainscore/_runner.py`` reads inside the Brain-Score environment into a
``brainscore_core`` ``StimulusSet`` (``stimulus_id`` + ``stimulus_paths``) and a
``NeuroidAssembly`` (``presentation`` x ``neuroid``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import xarray as xr

from .. import exceptions as E
from .._io.folder import output_folder
from .._io.output import read_json
from .._io.reading import load_numpy, read_file
from .._util import dims as D
from .._util.params import Boolean, PathLike, validate_params
from ..exceptions import InputTypeError
from ._export import BRAINSCORE_REGIONS

__all__ = ["ROI_REGIONS", "write_brainscore_benchmark", "read_brainscore_benchmark"]

FORMAT_VERSION = 1

#: Default ROI -> Brain-Score region. Early visual areas map to themselves; the
#: category-selective ROIs of ventral and lateral occipito-temporal cortex (what fLoc
#: localises) map to IT, the region Brain-Score's models commit a late layer to.
ROI_REGIONS = {
    "V1": "V1", "V2": "V2", "V4": "V4", "hV4": "V4", "IT": "IT",
    "FFA": "IT", "FFA1": "IT", "FFA2": "IT", "mFus-faces": "IT", "pFus-faces": "IT",
    "OFA": "IT", "IOG-faces": "IT", "PPA": "IT", "CoS-places": "IT", "VWFA": "IT",
    "VWFA1": "IT", "VWFA2": "IT", "OTS-words": "IT", "mOTS-words": "IT", "pOTS-words": "IT",
    "EBA": "IT", "FBA": "IT", "OTS-bodies": "IT", "LOS-bodies": "IT", "ITG-bodies": "IT",
    "MTG-bodies": "IT", "LOC": "IT", "ventral": "IT",
}

_VOXEL_COORDS = (D.SUBJECT, D.ROI, D.X, D.Y, D.Z, D.HEMI, D.VERTEX)


def _check_responses(responses) -> xr.DataArray:
    if not isinstance(responses, xr.DataArray):
        raise InputTypeError(
            f"responses must be an xarray.DataArray (BrainResponses); got "
            f"{type(responses).__name__}."
        )
    if tuple(responses.dims) != D.RESPONSE_DIMS:
        fix = (".transpose('stimulus', 'voxel')" if set(responses.dims) == set(D.RESPONSE_DIMS)
               else "rename the dims")
        raise E.DimensionError(
            f"BrainResponses must have dims {D.RESPONSE_DIMS}; got {tuple(responses.dims)}. "
            f"Call {fix}."
        )
    if D.STIMULUS_ID not in responses.coords:
        raise E.CoordinateError(
            "BrainResponses need a 'stimulus_id' coord on 'stimulus'; assign one with "
            "responses.assign_coords(stimulus_id=('stimulus', ids))."
        )
    values = np.asarray(responses.values, dtype=float)
    if not np.isfinite(values).all():
        raise E.InvalidDataError(
            f"BrainResponses hold {int((~np.isfinite(values)).sum())} non-finite values; "
            "drop or impute those voxels first (Brain-Score's metrics cannot use them)."
        )
    return responses


def _regions_of(responses, regions) -> np.ndarray:
    n = responses.sizes[D.VOXEL]
    if isinstance(regions, str):
        if regions not in BRAINSCORE_REGIONS:
            raise E.UnknownNameError(
                f"Unknown Brain-Score region {regions!r}; expected one of {BRAINSCORE_REGIONS} "
                f"({E.close_matches(regions, BRAINSCORE_REGIONS)})."
            )
        return np.full(n, regions, dtype=object)
    if D.ROI not in responses.coords:
        raise E.CoordinateError(
            "BrainResponses have no 'roi' coord to map voxels to Brain-Score regions; pass "
            "regions='IT' (every voxel in one region) or add an 'roi' coord."
        )
    table = dict(ROI_REGIONS)
    if regions is not None:
        table.update(dict(regions))
    bad_regions = sorted({r for r in table.values() if r not in BRAINSCORE_REGIONS})
    if bad_regions:
        raise E.UnknownNameError(
            f"Unknown Brain-Score region(s) {bad_regions} in regions; expected values from "
            f"{BRAINSCORE_REGIONS} ({E.close_matches(bad_regions[0], BRAINSCORE_REGIONS)})."
        )
    rois = np.asarray(responses[D.ROI].values).astype(str)
    unknown = sorted(set(rois) - set(table))
    if unknown:
        raise E.UnknownNameError(
            f"ROI(s) {[str(u) for u in unknown[:5]]} have no Brain-Score region; pass "
            f"regions={{{str(unknown[0])!r}: 'IT', ...}} (values from {BRAINSCORE_REGIONS})."
        )
    return np.array([table[r] for r in rois], dtype=object)


def _is_file(item) -> bool:
    try:
        return isinstance(item, (str, os.PathLike)) and Path(item).is_file()
    except (OSError, ValueError):
        return False


def _legacy_benchmark(folder: Path) -> tuple[str, ...] | None:
    """The names a benchmark folder written before manifests (0.3) holds, when it is one."""
    record = read_json(folder / "benchmark.json")
    if not isinstance(record, dict) or record.get("format") != "toponeuro-brainscore-benchmark":
        return None
    return ("benchmark.json", "stimuli.csv", "responses.npy", "presentation.csv",
            "neuroid.csv", "images")


@validate_params({"copy_images": Boolean(), "overwrite": Boolean()})
def write_brainscore_benchmark(stimuli, responses, out_dir, regions=None, copy_images=False,
                               name=None, *, overwrite: bool = False) -> Path:
    """Write a StimulusSet and BrainResponses as files Brain-Score's classes load.

    Files: ``stimuli.csv`` (``stimulus_id``, ``category``, ``filename`` + metadata) with
    ``images/`` when images must be written out; ``responses.npy`` (presentation x neuroid,
    float64); ``presentation.csv`` (``stimulus_id``, ``repetition`` when the responses hold
    repeats); ``neuroid.csv`` (``neuroid_id``, ``region`` + the voxel coords); and
    ``benchmark.json`` (a manifest).

    Parameters
    ----------
    stimuli : StimulusSet
        Image paths are referred to, other items (what ``.get(i)`` loads) are written out.
    responses : xarray.DataArray
        BrainResponses, dims ``("stimulus", "voxel")``, a ``stimulus_id`` coord and, for
        split-half ceilings, a ``repetition`` coord on ``stimulus`` (a stimulus id then
        appears once per repetition). Voxel coords ``subject``, ``roi``, ``x``, ``y``,
        ``z`` / ``hemi``, ``vertex`` are kept.
    out_dir : path-like
        The folder to write (created).
    regions : str or dict, optional
        Brain-Score region of the voxels: one region for all (``"IT"``), or a dict ROI ->
        region that extends :data:`ROI_REGIONS`.
    copy_images : bool
        Write every image under ``images/`` (default: refer to existing image files by
        absolute path; images that are not files are always written).
    name : str, optional
        The Brain-Score StimulusSet identifier (default ``toponeuro.<stimuli.name>``).
    overwrite : bool
        Replace an earlier benchmark folder at ``out_dir`` (only what toponeuro wrote there,
        unchanged: the folder is written by :func:`toponeuro._io.folder.output_folder`;
        a folder holding other files is never written into).

    Returns
    -------
    pathlib.Path
        ``out_dir``.

    Raises
    ------
    toponeuro.exceptions.AlignmentError
        The responses' stimulus ids are not exactly the StimulusSet's ids.

    Examples
    --------
    >>> import tempfile, numpy as np, xarray as xr
    >>> from PIL import Image
    >>> from toponeuro.stimuli import StimulusSet
    >>> tmp = tempfile.mkdtemp()
    >>> stimuli = StimulusSet.from_items([Image.new("RGB", (8, 8))] * 2, ids=["a", "b"],
    ...                                  categories=["x", "y"], name="demo")
    >>> resp = xr.DataArray(np.eye(2), dims=("stimulus", "voxel"),
    ...                     coords={"stimulus_id": ("stimulus", ["b", "a"]),
    ...                             "roi": ("voxel", ["FFA", "PPA"])})
    >>> folder = write_brainscore_benchmark(stimuli, resp, tmp)
    >>> sorted(p.name for p in folder.iterdir() if not p.name.startswith("."))
    ['benchmark.json', 'images', 'neuroid.csv', 'presentation.csv', 'responses.npy', 'stimuli.csv']
    >>> read_brainscore_benchmark(folder)[1]["region"].values.tolist()
    ['IT', 'IT']
    """
    responses = _check_responses(responses)

    ids = np.asarray(stimuli.ids).astype(str)
    resp_ids = np.asarray(responses[D.STIMULUS_ID].values).astype(str)
    missing, extra = np.setdiff1d(ids, resp_ids), np.setdiff1d(resp_ids, ids)
    if len(missing) or len(extra):
        raise E.AlignmentError(
            f"The StimulusSet and the BrainResponses do not hold the same stimuli: "
            f"{len(extra)} response ids are not in the set (e.g. {extra[:3].tolist()}), "
            f"{len(missing)} set ids have no response (e.g. {missing[:3].tolist()}). Select "
            "matching stimuli first (e.g. stimuli[idx] and responses.sel(...))."
        )
    has_reps = D.REPETITION in responses.coords
    if not has_reps:
        u, c = np.unique(resp_ids, return_counts=True)
        if (c > 1).any():
            raise E.CoordinateError(
                f"Stimulus ids repeat in the responses (e.g. {u[c > 1][:3].tolist()}) but there "
                "is no 'repetition' coord; add one to mark the repeats."
            )

    region_of_voxels = _regions_of(responses, regions)  # checked before anything is written
    with output_folder(out_dir, overwrite=overwrite, kind="brainscore-benchmark",
                       param="out_dir", legacy=_legacy_benchmark) as folder:
        out = folder.path
        # stimuli.csv (+ images/)
        items = list(stimuli.items)
        filenames = []
        images_dir = out / "images"
        for i, item in enumerate(items):
            if _is_file(item) and not copy_images:
                filenames.append(str(Path(item).resolve()))
                continue
            images_dir.mkdir(exist_ok=True)
            image = stimuli.get(i) if hasattr(stimuli, "get") else None
            if image is None:
                from ..stimuli import read_image

                image = read_image(item)
            target = images_dir / f"{i:06d}.png"
            image.convert("RGB").save(target)
            filenames.append(str(target.relative_to(out)))
        meta = getattr(stimuli, "metadata", None)
        table = pd.DataFrame(meta).reset_index(drop=True).copy() if meta is not None else pd.DataFrame()
        table[D.STIMULUS_ID] = ids
        cats = getattr(stimuli, "categories", None)
        if cats is not None:
            table[D.CATEGORY] = np.asarray(cats).astype(str)
        table["filename"] = filenames
        first = [c for c in (D.STIMULUS_ID, D.CATEGORY, "filename") if c in table.columns]
        table = table[first + [c for c in table.columns if c not in first]]
        for col in table.columns:  # old pandas on the other side: keep plain scalars only
            if table[col].dtype == object or str(table[col].dtype).startswith(("string", "str")):
                table[col] = table[col].astype(str)
        table.to_csv(out / "stimuli.csv", index=False)

        # responses.npy, presentation.csv, neuroid.csv
        np.save(out / "responses.npy", np.asarray(responses.values, dtype=np.float64))
        pres = pd.DataFrame({D.STIMULUS_ID: resp_ids})
        if has_reps:
            pres[D.REPETITION] = np.asarray(responses[D.REPETITION].values).astype(int)
        pres.to_csv(out / "presentation.csv", index=False)
        neuroid = pd.DataFrame({"neuroid_id": [f"voxel{i}" for i in range(responses.sizes[D.VOXEL])]})
        for coord in _VOXEL_COORDS:
            if coord in responses.coords and responses[coord].dims == (D.VOXEL,):
                neuroid[coord] = np.asarray(responses[coord].values)
        neuroid["region"] = region_of_voxels
        neuroid.to_csv(out / "neuroid.csv", index=False)

        n_reps = int(pd.Series(resp_ids).value_counts().min()) if has_reps else 1
        manifest = {
            "format": "toponeuro-brainscore-benchmark",
            "format_version": FORMAT_VERSION,
            "stimulus_set_identifier": name or f"toponeuro.{getattr(stimuli, 'name', None) or 'stimuli'}",
            "n_stimuli": int(len(ids)),
            "n_presentations": int(responses.sizes[D.STIMULUS]),
            "n_neuroids": int(responses.sizes[D.VOXEL]),
            "regions": sorted(set(neuroid["region"])),
            "min_repetitions": n_reps,
            "files": {"stimuli": "stimuli.csv", "responses": "responses.npy",
                      "presentation": "presentation.csv", "neuroid": "neuroid.csv"},
        }
        (out / "benchmark.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return Path(out_dir)


@validate_params(dict(folder=PathLike()))
def read_brainscore_benchmark(folder):
    """Read back what :func:`write_brainscore_benchmark` wrote.

    Parameters
    ----------
    folder : path-like
        The folder :func:`write_brainscore_benchmark` wrote (holding ``benchmark.json``).

    Returns
    -------
    stimuli : pandas.DataFrame
        ``stimulus_id``, ``category``, ``filename`` (absolute) and metadata columns.
    responses : xarray.DataArray
        Dims ``("stimulus", "voxel")`` with the written coords plus ``region``.

    Examples
    --------
    >>> import tempfile
    >>> from PIL import Image
    >>> from toponeuro.stimuli import StimulusSet
    >>> stim = StimulusSet.from_items([Image.new("RGB", (8, 8))] * 2, ids=["a", "b"])
    >>> resp = xr.DataArray(np.eye(2), dims=("stimulus", "voxel"),
    ...                     coords={"stimulus_id": ("stimulus", ["a", "b"]),
    ...                             "roi": ("voxel", ["FFA", "PPA"])})
    >>> table, back = read_brainscore_benchmark(write_brainscore_benchmark(stim, resp, tempfile.mkdtemp()))
    >>> table.stimulus_id.tolist(), back.dims, back.region.values.tolist()
    (['a', 'b'], ('stimulus', 'voxel'), ['IT', 'IT'])
    """
    folder = Path(folder)
    manifest = read_json(folder / "benchmark.json")
    if not isinstance(manifest, dict) or manifest.get("format") != (
            "toponeuro-brainscore-benchmark"):
        raise E.InvalidDataError(
            f"{folder} holds no toponeuro Brain-Score benchmark files (no readable "
            "benchmark.json); pass the folder write_brainscore_benchmark wrote."
        )
    fix = "write the folder again with write_brainscore_benchmark"

    def table(name, **kw):
        return read_file(folder / name, lambda p: pd.read_csv(p, **kw), kind="CSV", fix=fix,
                         what=f"benchmark table {name}")

    stimuli = table("stimuli.csv", dtype={D.STIMULUS_ID: str})
    stimuli["filename"] = [str(folder / f) for f in stimuli["filename"]]  # absolute stay so
    pres = table("presentation.csv", dtype={D.STIMULUS_ID: str})
    neuroid = table("neuroid.csv")
    values = load_numpy(folder / "responses.npy", what="benchmark responses", fix=fix)
    coords = {c: (D.STIMULUS, pres[c].to_numpy()) for c in pres.columns}
    coords.update({c: (D.VOXEL, neuroid[c].to_numpy()) for c in neuroid.columns})
    return stimuli, xr.DataArray(values, dims=D.RESPONSE_DIMS, coords=coords)
