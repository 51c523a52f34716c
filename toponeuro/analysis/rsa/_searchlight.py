"""Searchlight RSA in volumes (spheres in mm) and on cortical surfaces (mesh-graph radius).

rsatoolbox offers volume searchlights only; the surface case here measures distances along
the mesh: shortest paths over the triangle edges weighted by their length (a mesh-graph
approximation of geodesic distance, slightly longer than the true geodesic).
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
import xarray as xr

from ..._util import dims as D
from ..._util.align import as_labelled, stimulus_ids
from ..._util.params import Interval, validate_params
from ..._util.stack import user_stacklevel
from ...atlases import mesh_edge_graph
from ...exceptions import CoordinateError, DimensionError, InvalidDataError, UndefinedValueWarning
from .._validate import as_matrix, check_finite, voxel_template
from ._rsa import (
    RDM_METRIC,
    _one_rdm,
    _rdm_values,
    as_condensed,
    n_from_condensed,
    rdm_stimulus_ids,
    reorder_condensed,
)
from ._rsa_compare import COMPARE_METHOD, _compare_vectors, _method

__all__ = ["searchlight_rsa", "volume_neighbourhoods", "surface_neighbourhoods"]


def _mesh_graph_distances(coords, faces, sources, limit=np.inf) -> np.ndarray:
    """Shortest-path (mesh-graph) distances from ``sources`` to every vertex, ``inf`` beyond
    ``limit``.

    Examples
    --------
    >>> coords = np.array([[0, 0, 0], [1, 0, 0], [2, 0, 0], [0, 1, 0]], float)
    >>> faces = np.array([[0, 1, 3], [1, 2, 3]])
    >>> _mesh_graph_distances(coords, faces, [0])[0].round(3).tolist()
    [0.0, 1.0, 2.0, 1.0]
    """
    from scipy.sparse.csgraph import dijkstra

    return dijkstra(mesh_edge_graph(coords, faces), directed=False, indices=np.asarray(sources),
                    limit=limit)


#: a searchlight's radius: mm (volume) or mesh-graph distance (surface)
_RADIUS = Interval(Real, 0, None, closed="neither")


@validate_params({"radius": _RADIUS})
def volume_neighbourhoods(xyz, radius: float, centers=None) -> list[np.ndarray]:
    """Indices of the points within ``radius`` (same units as ``xyz``, e.g. mm) of each centre.

    Parameters
    ----------
    xyz : array (n_points, 3)
        The points (e.g. voxel centres in mm).
    radius : float
        The searchlight radius.
    centers : array of int, optional
        Indices of the centres (default: every point).

    Returns
    -------
    list of numpy.ndarray
        Sorted indices of the points within ``radius`` of each centre.

    Examples
    --------
    >>> xyz = np.array([[0, 0, 0], [2, 0, 0], [5, 0, 0]], float)
    >>> [n.tolist() for n in volume_neighbourhoods(xyz, 2.5)]
    [[0, 1], [0, 1], [2]]
    """
    from scipy.spatial import cKDTree

    xyz = np.asarray(xyz, dtype=np.float64)
    centers = np.arange(len(xyz)) if centers is None else np.asarray(centers)
    tree = cKDTree(xyz)
    return [np.asarray(sorted(h), dtype=np.int64)
            for h in tree.query_ball_point(xyz[centers], r=float(radius))]


@validate_params({"radius": _RADIUS, "chunk": Interval(Integral, 1, None, closed="left")})
def surface_neighbourhoods(coords, faces, vertices, radius: float, chunk: int = 256):
    """Neighbourhoods on a mesh: for each measured vertex, the measured vertices within
    mesh-graph distance ``radius``.

    Parameters
    ----------
    coords, faces : arrays (n_vertices, 3)
        The surface mesh (e.g. fsaverage5 pial or midthickness, in mm).
    vertices : array of int
        Mesh indices of the measured vertices (the ``vertex`` coord of BrainResponses).
    radius : float
        Mesh-graph radius in the units of ``coords``.
    chunk : int
        Sources per batch of the shortest-path search (bounds the memory).

    Returns
    -------
    list of arrays
        Positions in ``vertices`` (not mesh indices) of each neighbourhood.

    Examples
    --------
    >>> coords = np.array([[0, 0, 0], [1, 0, 0], [2, 0, 0], [0, 1, 0]], float)
    >>> faces = np.array([[0, 1, 3], [1, 2, 3]])
    >>> [n.tolist() for n in surface_neighbourhoods(coords, faces, [0, 1, 2], 1.0)]
    [[0, 1], [0, 1, 2], [1, 2]]
    """
    vertices = np.asarray(vertices, dtype=np.int64)
    graph = mesh_edge_graph(coords, faces)
    from scipy.sparse.csgraph import dijkstra

    out = []
    for s in range(0, len(vertices), chunk):
        dist = dijkstra(graph, directed=False, indices=vertices[s : s + chunk],
                        limit=float(radius) * (1 + 1e-12))
        for row in dist[:, vertices]:
            out.append(np.flatnonzero(row <= radius))
    return out


def _groups(resp: xr.DataArray, dim: str):
    """Voxel positions grouped by subject (and hemisphere): searchlights never mix them."""
    keys = [k for k in (D.SUBJECT, D.HEMI) if k in resp.coords and resp[k].dims == (dim,)]
    if not keys:
        return [np.arange(resp.sizes[dim])], [()]
    labels = np.stack([np.asarray(resp[k].values).astype(str) for k in keys], axis=1)
    uniq, inv = np.unique(labels, axis=0, return_inverse=True)
    return [np.flatnonzero(inv.ravel() == g) for g in range(len(uniq))], [
        dict(zip(keys, u)) for u in uniq
    ]


@validate_params({
    "radius": _RADIUS,
    "metric": RDM_METRIC,
    "method": COMPARE_METHOD,
    "min_size": Interval(Integral, 1, None, closed="left"),
})
def searchlight_rsa(
    responses,
    model_rdm,
    radius: float,
    *,
    surface=None,
    coords=None,
    metric: str = "correlation",
    method: str = "spearman",
    min_size: int = 2,
) -> xr.DataArray:
    """Map of model-brain RDM similarity: one RDM per searchlight, compared to ``model_rdm``.

    Parameters
    ----------
    responses : BrainResponses or array (n_stimuli, n_voxels)
        Volume data carry voxel coords ``x``, ``y``, ``z`` in mm (or pass ``coords``);
        surface data carry ``hemi`` and ``vertex``. Voxels of different subjects (and
        hemispheres) never share a searchlight.
    model_rdm : xarray.DataArray or array
        Condensed or square RDM of the same stimuli. A labelled RDM (from :func:`rdm`) is
        reordered to the responses' ``stimulus_id`` order (exact join); a plain array is
        taken to be in the responses' order.
    radius : float
        Sphere radius in mm (volume; points at distance <= radius) or mesh-graph radius
        (surface).
    surface : (coords, faces) or {hemi: (coords, faces)}, optional
        The mesh, e.g. fsaverage5 from nilearn; selects the surface searchlight.
    coords : array (n_voxels, 3), optional
        Voxel positions in mm when ``responses`` is a plain array.
    metric : str
        RDM metric for each searchlight (see :func:`rdm`).
    method : str
        Comparison method (see :func:`compare_rdms`).
    min_size : int
        Searchlights with fewer voxels are NaN.

    Returns
    -------
    xarray.DataArray
        One value per centre voxel, with the responses' voxel coords. Searchlights whose
        RDM comparison is undefined (constant data) are NaN, with one warning naming how
        many.

    Examples
    --------
    >>> from toponeuro.analysis import rdm
    >>> rng = np.random.default_rng(0)
    >>> xyz = np.array([[x, 0.0, 0.0] for x in range(6)])
    >>> patterns = rng.standard_normal((8, 1))
    >>> data = np.hstack([patterns + 0.01 * rng.standard_normal((8, 3)),
    ...                   rng.standard_normal((8, 3))])
    >>> model = rdm(np.hstack([patterns, np.zeros((8, 1))]), "euclidean")
    >>> m = searchlight_rsa(data, model, radius=1.0, coords=xyz, metric="euclidean")
    >>> bool(m[0] > 0.9), bool(m[5] < 0.9)
    (True, True)
    """
    responses = as_labelled(responses, "responses", D.VOXEL)
    Y = np.asarray(as_matrix(responses, "responses"), dtype=np.float64)
    check_finite(Y, "responses")
    name, fn = _method(method)
    model_rdm = _one_rdm(model_rdm, "model RDM")  # a square DataFrame / rsatoolbox RDMs: ids
    model = as_condensed(model_rdm, "model RDM")
    model_ids = rdm_stimulus_ids(model_rdm, "model RDM")
    if model_ids is not None and isinstance(responses, xr.DataArray) and (
        D.STIMULUS_ID in responses.coords
    ):
        model = reorder_condensed(model, model_ids, stimulus_ids(responses, "responses"),
                                  ("responses", "model RDM"))
    if n_from_condensed(len(model)) != Y.shape[0]:
        raise DimensionError(
            f"The model RDM describes {n_from_condensed(len(model))} stimuli; the responses "
            f"have {Y.shape[0]}. Build both from the same stimuli in the same order."
        )
    resp = responses if isinstance(responses, xr.DataArray) else None
    dim, vcoords = voxel_template(responses, Y.shape[1])
    groups, _ = _groups(resp, dim) if resp is not None else ([np.arange(Y.shape[1])], [()])
    neigh: list[np.ndarray | None] = [None] * Y.shape[1]
    for g in groups:
        if surface is not None:
            mesh = surface
            if isinstance(surface, dict):
                if resp is None or D.HEMI not in resp.coords:
                    raise CoordinateError("A per-hemisphere surface needs a 'hemi' voxel coord.")
                hemi = str(resp[D.HEMI].values[g[0]])
                if hemi not in surface:
                    raise CoordinateError(
                        f"No mesh for hemi {hemi!r}; surface has {sorted(surface)}."
                    )
                mesh = surface[hemi]
            if resp is None or D.VERTEX not in resp.coords:
                raise CoordinateError(
                    "A surface searchlight needs the 'vertex' voxel coord (mesh index of each "
                    "column); assign it with da.assign_coords(vertex=('voxel', idx))."
                )
            verts = np.asarray(resp[D.VERTEX].values)[g]
            local = surface_neighbourhoods(mesh[0], mesh[1], verts, radius)
        else:
            if coords is not None:
                xyz = np.asarray(coords, dtype=np.float64)
                if xyz.shape != (Y.shape[1], 3):
                    raise DimensionError(f"coords must be ({Y.shape[1]}, 3); got {xyz.shape}.")
            elif resp is not None and all(c in resp.coords for c in (D.X, D.Y, D.Z)):
                xyz = np.stack([np.asarray(resp[c].values, float) for c in (D.X, D.Y, D.Z)], 1)
            else:
                raise CoordinateError(
                    "A volume searchlight needs voxel coords x, y, z in mm (or coords=); for "
                    "surface data pass surface=(coords, faces)."
                )
            local = volume_neighbourhoods(xyz[g], radius)
        for i, nb in zip(g, local):
            neigh[i] = g[nb]
    out = np.full(Y.shape[1], np.nan)
    n_undefined = 0
    for i, nb in enumerate(neigh):
        if nb is None or len(nb) < min_size:
            continue
        try:
            local_rdm, _ = _rdm_values(Y[:, nb], metric)
        except InvalidDataError:  # e.g. constant patterns: correlation distance undefined
            n_undefined += 1
            continue
        out[i] = _compare_vectors(np.asarray(local_rdm, np.float64), model, name, fn)
        n_undefined += not np.isfinite(out[i])
    if n_undefined:
        warnings.warn(
            f"{n_undefined} searchlights have an undefined RDM or comparison (constant data "
            "in the sphere); they are NaN in the map.", UndefinedValueWarning, stacklevel=user_stacklevel(),
        )
    return xr.DataArray(out, dims=(dim,), coords=vcoords,
                        attrs={"radius": float(radius), "metric": metric, "method": method})
