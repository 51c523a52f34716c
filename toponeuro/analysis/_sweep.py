"""Sweeps: layer x region scores of many models against brain responses, as a tidy table."""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence

import numpy as np
import xarray as xr

from .. import _dims as D
from .._align import align_stimuli
from .._typing import RandomState
from ..exceptions import (
    CoordinateError,
    DimensionError,
    MissingDependencyError,
    ParameterError,
    UndefinedValueWarning,
    UnknownNameError,
    close_matches,
)
from ._encoding import encoding_score
from ._rsa import _rdm_values
from ._rsa_compare import _compare_vectors, _method

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
):
    """Score every layer of every model against every brain region; a tidy pandas table.

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
    progress : bool
        Show a tqdm progress bar over (model, layer).

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

    if method not in SWEEP_METHODS:
        raise UnknownNameError(f"Unknown sweep method {method!r}; {close_matches(method, SWEEP_METHODS)}")
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
    todo = []
    for name, acts in items:
        if not isinstance(acts, xr.DataArray):
            if stimuli is None:
                raise ParameterError(
                    f"Model {name!r} is not precomputed; pass stimuli= so it can be extracted, "
                    "or give {name: Activations}."
                )
            try:
                from ..features import extract  # lazy: features is an earlier stage
            except ImportError as err:
                raise MissingDependencyError(
                    "Extracting activations for a sweep needs toponeuro.features.extract; pass "
                    "precomputed activations as {model_name: Activations} instead."
                ) from err
            acts = extract(acts, stimuli, layers if layers is not None else "topo", store=store,
                           progress=False, **dict(extract_kwargs or {}))
        acts, resp = align_stimuli(acts, responses, names=(f"activations of {name!r}", "responses"))
        use = list(layers) if layers is not None else acts.topo.layers
        todo.extend((name, layer, acts, resp) for layer in use)
    if method == "rsa":
        cname, cfn = _method(compare)
    # region RDMs are reused across models that share the responses' stimuli: the key holds
    # every stimulus id in order (a model aligned to a different order or subset gets its own)
    region_cache: dict = {}
    rows = []
    it = todo
    if progress:
        from tqdm.auto import tqdm

        it = tqdm(todo, desc=f"sweep ({method})")
    for name, layer, acts, resp in it:
        feats = acts.topo.select(layer)
        X = np.asarray(feats.values)
        layer_rdm = _rdm_values(X, rdm_metric)[0].astype(np.float64) if method == "rsa" else None
        ids_key = tuple(np.asarray(resp[D.STIMULUS_ID].values).astype(str).tolist())
        for keys, idx in groups:
            sub = resp.isel({resp.dims[1]: idx})
            if method == "rsa":
                ck = (tuple(keys.items()), ids_key)
                if ck not in region_cache:
                    region_cache[ck] = _rdm_values(np.asarray(sub.values), rdm_metric)[0].astype(
                        np.float64)
                score = _compare_vectors(layer_rdm, region_cache[ck], cname, cfn)
            else:
                per_voxel = encoding_score(X, np.asarray(sub.values), model=encoder, cv=cv,
                                           metric=metric, random_state=random_state)
                score = float(np.nanmean(per_voxel.values))
            rows.append({"model": name, "layer": layer, **keys, "score": score,
                         "method": method, "n_units": X.shape[1], "n_voxels": len(idx)})
    table = pd.DataFrame(rows)
    n_nan = int(table["score"].isna().sum()) if len(table) else 0
    if n_nan:
        warnings.warn(
            f"{n_nan} of {len(table)} sweep scores are undefined (NaN): a constant layer or "
            "region RDM, or voxels with undefined encoding scores.", UndefinedValueWarning,
            stacklevel=2,
        )
    return table
