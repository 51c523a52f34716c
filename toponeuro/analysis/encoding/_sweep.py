"""Sweeps: layer x region scores of many models against brain responses, as a tidy table."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import xarray as xr

from ..._util import dims as D
from ..._util.align import align_stimuli, as_labelled
from ..._util.docs import fill_doc
from ..._util.params import Options, validate_params
from ..._util.stack import user_stacklevel
from ..._util.typing import RandomState
from ...exceptions import (
    CoordinateError,
    DimensionError,
    InputChangedError,
    InvalidDataError,
    MissingDependencyError,
    ParameterError,
    UndefinedValueWarning,
    UnknownNameError,
    close_matches,
)
from ..rsa._rsa import RDM_METRIC, _rdm_values
from ..rsa._rsa_compare import COMPARE_METHOD, _compare_vectors, _method
from ._encoding import encoding_score

__all__ = ["sweep", "SWEEP_METHODS"]

SWEEP_METHODS = ("rsa", "encoding")


def _region_groups(responses: xr.DataArray, regions):
    dim = responses.dims[1]
    keys = [regions] if isinstance(regions, str) else list(regions or [])
    for k in keys:
        if k not in responses.coords or responses[k].dims != (dim,):
            raise CoordinateError(
                f"The responses have no voxel coord {k!r} to group regions by; "
                f"{close_matches(k, [c for c in responses.coords if responses[c].dims == (dim,)])}"
            )
    if D.SUBJECT in responses.coords and responses[D.SUBJECT].dims == (dim,) and (
        D.SUBJECT not in keys
    ):
        keys = [D.SUBJECT, *keys]
    if not keys:
        return [({}, np.arange(responses.sizes[dim]))]
    labels = np.stack([np.asarray(responses[k].values).astype(str) for k in keys], axis=1)
    uniq, inv = np.unique(labels, axis=0, return_inverse=True)
    return [
        (dict(zip(keys, u.tolist())), np.flatnonzero(inv.ravel() == g))
        for g, u in enumerate(uniq)
    ]


def _extract(model, stimuli, layers, store, extract_kwargs):
    try:
        from ...features import extract  # lazy: features is an earlier stage
    except ImportError as err:
        raise MissingDependencyError(
            "Extracting activations for a sweep needs toponeuro.features.extract; pass "
            "precomputed activations as {model_name: Activations} instead."
        ) from err
    return extract(model, stimuli, layers if layers is not None else "topo", store=store,
                   progress=False, **dict(extract_kwargs or {}))


def _row_key(model, layer, keys):
    return json.dumps([str(model), str(layer), sorted((str(k), str(v)) for k, v in keys.items())])


def _describe(obj):
    if hasattr(obj, "get_params"):
        return f"{type(obj).__name__}({sorted(obj.get_params().items())!r})"
    if hasattr(obj, "split"):
        return repr(obj)
    return repr(obj) if isinstance(obj, (str, int, float, type(None))) else type(obj).__name__


def _digest(da: xr.DataArray, coords=()) -> str:
    """sha256 of a DataArray's values (row block by row block: a dask array is never loaded
    whole), dims, shape, dtype and the named ``coords``: the content a result depends on."""
    h = hashlib.sha256(json.dumps([list(da.dims), list(da.shape), str(da.dtype)]).encode())
    step = max(1, (16 << 20) // max(1, 8 * int(np.prod(da.shape[1:], dtype=np.int64))))
    for s in range(0, da.shape[0], step):
        h.update(np.ascontiguousarray(np.asarray(da[s : s + step].values)).tobytes())
    for c in coords:
        h.update(c.encode() + b"\0")
        h.update("\n".join(np.asarray(da[c].values).astype(str).ravel()).encode())
    return h.hexdigest()


def _activations_digest(acts: xr.DataArray) -> str:
    """The digest of precomputed activations: values, stimulus ids and unit coords."""
    unit = [c for c in acts.coords if acts[c].dims == (acts.dims[1],)]
    return _digest(acts, [D.STIMULUS_ID, *sorted(unit)])


#: config entries that are digests of the inputs (a change refuses: the inputs changed)
_DIGESTS = ("responses_sha256", "regions_sha256")


def _config(method, regions, rdm_metric, compare, encoder, cv, metric, random_state, responses,
            region_keys=()):
    """The settings a results file must share with the sweep that resumes it, and digests of
    its inputs (the responses' values, the voxels' region assignment)."""
    ids = np.asarray(responses[D.STIMULUS_ID].values).astype(str)
    cfg = {"method": method, "regions": regions if regions is None or isinstance(regions, str)
           else list(regions), "responses_shape": list(responses.shape),
           "stimulus_ids_sha1": hashlib.sha1("\n".join(ids).encode()).hexdigest(),
           "responses_sha256": _digest(responses, [D.STIMULUS_ID]),
           "regions_sha256": hashlib.sha256(json.dumps(
               [[k, np.asarray(responses[k].values).astype(str).tolist()]
                for k in region_keys]).encode()).hexdigest()}
    if method == "rsa":
        cfg.update(rdm_metric=str(rdm_metric), compare=str(compare))
    else:
        cfg.update(encoder=_describe(encoder), cv=_describe(cv), metric=metric,
                   random_state=_describe(random_state))
    return cfg


def _check_digests(path, head: dict, config: dict, diff: list[str]) -> None:
    """Refuse a results file whose inputs (not settings) differ from this sweep's."""
    changed = [k for k in diff if k in _DIGESTS]
    if not changed:
        return
    if any(k not in head for k in changed):
        raise InputChangedError(
            f"results={str(path)!r} was written by a toponeuro before 0.4 that recorded no "
            "digest of the responses and regions, so it cannot be checked against these "
            "inputs; pass a new results path (the sweep is then computed afresh)."
        )
    what = {"responses_sha256": "the responses' values",
            "regions_sha256": "the voxels' region assignment"}
    raise InputChangedError(
        f"results={str(path)!r} was computed from other inputs: "
        f"{' and '.join(what[k] for k in changed)} changed since (content digests differ), so "
        "its scores are not these inputs' scores. Pass a new results path to compute them "
        "afresh, or the inputs the file was made with to resume it."
    )


class _ResultsLog:
    """Rows appended to a JSON-lines file as they are scored; the rows of earlier runs."""

    def __init__(self, path, config):
        self.path = Path(path)
        self.rows = {}
        self.digests = {}  # key -> the activations' digest its row was computed from
        if self.path.exists():
            lines = self.path.read_text().split("\n")
            try:
                head = json.loads(lines[0])["sweep_config"]
            except (ValueError, KeyError, TypeError) as err:
                raise InvalidDataError(
                    f"results={str(path)!r} is not a sweep results file (its first line holds "
                    "no sweep_config); pass a new path. toponeuro never overwrites it."
                ) from err
            if head != config:
                diff = sorted(k for k in set(head) | set(config) if head.get(k) != config.get(k))
                _check_digests(path, head, config, diff)
                raise InvalidDataError(
                    f"results={str(path)!r} was written by a sweep with other settings "
                    f"({', '.join(f'{k}: {head.get(k)!r} there, {config.get(k)!r} now' for k in diff)}); "
                    "pass a new results path to start afresh, or the same settings to resume."
                )
            for line in lines[1:]:
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                    self.rows[rec["key"]] = rec["row"]
                    self.digests[rec["key"]] = rec.get("activations_sha256")
                except (ValueError, KeyError, TypeError):
                    continue  # a line cut off by a killed run: that pair is scored again
            text_end = self.path.read_bytes()[-1:]
            self.f = open(self.path, "a")
            if text_end not in (b"\n", b""):
                self.f.write("\n")  # end the cut-off line; never rewrite the file
        else:
            self.f = open(self.path, "a")
            self._write({"sweep_config": config})

    def _write(self, obj):
        self.f.write(json.dumps(obj) + "\n")
        self.f.flush()
        os.fsync(self.f.fileno())

    def append(self, key, row, activations_sha256=None):
        rec = {"key": key, "row": row}
        if activations_sha256 is not None:
            rec["activations_sha256"] = activations_sha256
        self._write(rec)
        self.rows[key] = row
        self.digests[key] = activations_sha256

    def __del__(self):
        f = getattr(self, "f", None)
        if f is not None:
            f.close()


class _RegionRDMs:
    """Region RDMs computed once and kept in a temporary folder, read back one at a time."""

    def __enter__(self):
        self._dir = tempfile.TemporaryDirectory(prefix="toponeuro_sweep_")
        self._files = {}
        return self

    def __exit__(self, *exc):
        self._dir.cleanup()

    def get(self, key, build):
        path = self._files.get(key)
        if path is None:
            values = build()
            path = Path(self._dir.name) / f"{len(self._files)}.npy"
            np.save(path, values)
            self._files[key] = path
            return values
        return np.load(path)


@validate_params({
    "method": Options(SWEEP_METHODS, error=UnknownNameError),
    "rdm_metric": RDM_METRIC,
    "compare": COMPARE_METHOD,
    "metric": Options(("pearson", "r2"), error=UnknownNameError),
}, prefer_skip_nested_validation=False)  # extract_kwargs go to extract
@fill_doc
def sweep(
    models,
    layers,
    responses: xr.DataArray,
    method: str = "rsa",
    *,
    regions: str | Sequence[str] | None = D.ROI,
    stimuli=None,
    rdm_metric: str = "correlation",
    compare: str = "spearman",
    encoder="ridge",
    cv=5,
    metric: str = "pearson",
    store=None,
    extract_kwargs: Mapping | None = None,
    progress: bool = True,
    random_state: RandomState = None,
    results=None,
):
    """Score every layer of every model against every brain region; a tidy pandas table.

    The sweep streams: one model is extracted at a time, one layer of it is read at a time
    and one region's responses at a time (activations and responses backed by dask, e.g.
    opened from a netCDF store with ``chunks=``, are read piece by piece), so its peak memory
    is that of the largest single (layer, region) pair, not of all layers times all regions.
    Region RDMs are computed once and kept in a temporary folder, read back one at a time.
    With ``results=`` every finished pair is appended to a file at once, and a sweep that was
    killed restarts where it stopped.

    Parameters
    ----------
    models : mapping or sequence
        ``{name: Activations}`` of precomputed activations, or model names / modules that
        are passed to :func:`toponeuro.features.extract` (imported when first needed) with
        ``stimuli``, ``layers``, ``store`` and ``extract_kwargs``; give ``store`` to reuse
        the extraction cache across runs.
    layers : list of str or None
        Layers to score (``None``: every layer found in the activations).
    responses : BrainResponses
        DataArray ``("stimulus", "voxel")`` with a ``stimulus_id`` coord; stimuli are aligned
        to the activations by id (exact join).
    method : {"rsa", "encoding"}
        ``"rsa"``: compare the layer RDM with the region RDM (``rdm_metric``, ``compare``).
        ``"encoding"``: mean over the region's voxels of :func:`encoding_score`
        (``encoder``, ``cv``, ``metric``).
    regions : str or list of str or None
        Voxel coords that define a region (default ``"roi"``); voxels of different subjects
        always form different regions, and the table gets a ``subject`` column.
    stimuli : StimulusSet, optional
        The stimuli to extract the models' activations on (models given by name or module).
    rdm_metric : str
        The RDM dissimilarity (:func:`rdm`), for ``method="rsa"``.
    compare : str
        How two RDMs are compared (:func:`compare_rdms`), for ``method="rsa"``.
    encoder : {"ridge", "pls"} or estimator
        The encoding model (:func:`encoding_score`'s ``model``), for ``method="encoding"``.
    cv : int, splitter or list of (train, test)
        The folds of :func:`encoding_score`.
    metric : {"pearson", "r2"}
        The score of :func:`encoding_score`.
    store : path-like, optional
        The activation store of :func:`toponeuro.features.extract` (reused across runs).
    extract_kwargs : mapping, optional
        More keywords for :func:`toponeuro.features.extract`.
    %(progress)s
        Here: over (model, layer).
    %(random_state)s
    results : str or path, optional
        A JSON-lines file that receives each (model, layer, region) row as soon as it is
        scored (flushed to disk). When it exists, its rows are reused and only the missing
        pairs are computed (models whose pairs are all there are not even extracted), so a
        killed sweep restarts where it stopped and returns the same table. Its first line
        records the settings (method, metrics, encoder, folds, the responses' shape and
        stimulus ids); a file written with other settings raises
        :class:`~toponeuro.exceptions.InvalidDataError` instead of mixing results. The file
        is only ever appended to.

    Returns
    -------
    pandas.DataFrame
        One row per (model, layer, region[, subject]) with columns ``model``, ``layer``,
        the region keys, ``score``, ``method``, ``n_units``, ``n_voxels``. For a heatmap:
        ``table.pivot_table(index=["model", "layer"], columns="roi", values="score")``.

    Examples
    --------
    >>> from toponeuro import make_activations
    >>> acts = make_activations({"a": 16, "b": 16}, n_stimuli=20, random_state=0)
    >>> resp = xr.DataArray(acts.values[:, :6] + 0.1, dims=("stimulus", "voxel"),
    ...                     coords={"stimulus_id": ("stimulus", acts.stimulus_id.values),
    ...                             "roi": ("voxel", ["V1"] * 3 + ["FFA"] * 3)})
    >>> table = sweep({"net": acts}, None, resp, progress=False)
    >>> table[["layer", "roi", "n_voxels"]].values.tolist()
    [['a', 'FFA', 3], ['a', 'V1', 3], ['b', 'FFA', 3], ['b', 'V1', 3]]
    >>> bool(table.loc[table.layer == "a", "score"].min() > table.loc[table.layer == "b",
    ...      "score"].max())
    True
    """
    import pandas as pd

    responses = as_labelled(responses, "responses", D.VOXEL)
    if not isinstance(responses, xr.DataArray) or responses.ndim != 2 or (
        responses.dims[0] != D.STIMULUS
    ):
        raise DimensionError(
            "responses must be a DataArray with dims ('stimulus', 'voxel') (BrainResponses)."
        )
    if isinstance(layers, str):
        layers = [layers]
    groups = _region_groups(responses, regions)
    if isinstance(models, Mapping) and all(isinstance(v, xr.DataArray) for v in models.values()):
        items = list(models.items())
    else:
        names = list(models.keys()) if isinstance(models, Mapping) else list(models)
        items = [(str(getattr(m, "name", m)), m) for m in names]
    for name, acts in items:
        if not isinstance(acts, xr.DataArray) and stimuli is None:
            raise ParameterError(
                f"Model {name!r} is not precomputed; pass stimuli= so it can be extracted, "
                "or give {name: Activations}."
            )
    log = None
    if results is not None:
        region_keys = sorted({k for keys, _ in groups for k in keys})
        config = _config(method, regions, rdm_metric, compare, encoder, cv, metric,
                         random_state, responses, region_keys)
        log = _ResultsLog(results, config)
    if method == "rsa":
        cname, cfn = _method(compare)
    done = dict(log.rows) if log is not None else {}
    rows = []
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(desc=f"sweep ({method})", unit="layer")
    # region RDMs are computed once per (region, stimulus order) and kept on disk, read back
    # one at a time: memory holds one layer and one region, never all of them
    with _RegionRDMs() as region_rdms:
        for name, source in items:
            known = list(layers) if layers is not None else (
                source.topo.layers if isinstance(source, xr.DataArray) else None)
            acts_sha = (_activations_digest(source) if log is not None
                        and isinstance(source, xr.DataArray) else None)
            stale = [k for k in done if json.loads(k)[0] == str(name)
                     and log.digests.get(k) != acts_sha]
            if stale:  # the same model name, other activations: its pairs are scored again
                warnings.warn(
                    f"The activations of {name!r} differ from those results={str(results)!r} "
                    f"was computed from (content digests differ); its {len(stale)} saved "
                    "scores are not used and are computed again.", UserWarning, stacklevel=user_stacklevel())
                for k in stale:
                    del done[k]
            if known is not None and all(
                _row_key(name, layer, keys) in done for layer in known for keys, _ in groups
            ):
                rows.extend(done[_row_key(name, layer, keys)] for layer in known
                            for keys, _ in groups)
                continue  # finished in an earlier run: not even extracted again
            acts = source if isinstance(source, xr.DataArray) else _extract(
                source, stimuli, layers, store, extract_kwargs)
            acts, resp = align_stimuli(acts, responses,
                                       names=(f"activations of {name!r}", "responses"))
            ids_key = tuple(np.asarray(resp[D.STIMULUS_ID].values).astype(str).tolist())
            for layer in (list(layers) if layers is not None else acts.topo.layers):
                if bar is not None:
                    bar.update()
                X = None
                layer_rdm = None
                for keys, idx in groups:
                    key = _row_key(name, layer, keys)
                    if key in done:
                        rows.append(done[key])
                        continue
                    if X is None:  # this layer only, read when first needed
                        X = np.asarray(acts.topo.select(layer).values)
                        if method == "rsa":
                            layer_rdm = _rdm_values(X, rdm_metric)[0].astype(np.float64)
                    sub = resp.isel({resp.dims[1]: idx})
                    if method == "rsa":
                        region = region_rdms.get(
                            (tuple(keys.items()), ids_key),
                            lambda sub=sub: _rdm_values(np.asarray(sub.values),
                                                        rdm_metric)[0].astype(np.float64))
                        score = _compare_vectors(layer_rdm, region, cname, cfn)
                        del region
                    else:
                        per_voxel = encoding_score(X, np.asarray(sub.values), model=encoder,
                                                   cv=cv, metric=metric,
                                                   random_state=random_state)
                        score = float(np.nanmean(per_voxel.values))
                    row = {"model": name, "layer": layer, **keys, "score": score,
                           "method": method, "n_units": X.shape[1], "n_voxels": len(idx)}
                    rows.append(row)
                    if log is not None:
                        log.append(key, row, acts_sha)
                del X, layer_rdm
            del acts, resp
    if bar is not None:
        bar.close()
    table = pd.DataFrame(rows)
    n_nan = int(table["score"].isna().sum()) if len(table) else 0
    if n_nan:
        warnings.warn(
            f"{n_nan} of {len(table)} sweep scores are undefined (NaN): a constant layer or "
            "region RDM, or voxels with undefined encoding scores.", UndefinedValueWarning,
            stacklevel=user_stacklevel(),
        )
    return table
