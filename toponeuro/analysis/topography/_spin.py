"""The spin test's draws: random rotations of a mesh's sphere matched to its vertices.

:func:`_spin_indices` gives the gather indices of ``n`` random rotations (nearest vertex), both
hemispheres of a named mesh together (the right by the left's rotation mirrored), cached for the
maps that share a sphere and a seed. ``_null.py`` registers it as ``null="spin"``.
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict

import numpy as np

from ...exceptions import InvalidDataError
from ._topomap import TopoMap

SPIN_REFERENCE = (
    "Alexander-Bloch et al. (2018) On testing for spatial correspondence between maps of "
    "human brain structure and function. NeuroImage 178, 540-551"
)


def _sphere_units(tm: TopoMap) -> np.ndarray:
    """Unit vectors of the points on their sphere, each hemisphere centred on its own."""
    pos = np.asarray(tm.positions, dtype=float)
    if pos.shape[1] != 3:
        raise InvalidDataError(
            f"The spin test rotates a sphere; {tm.name or 'this map'} has {pos.shape[1]}-D "
            "positions. Pass the vertices' sphere coordinates (e.g. the fsaverage 'sphere' "
            "surface) as positions= (geometry={'positions': ...}; an atlas: "
            "CortexMaps.spin_geometry), or use null='positions'."
        )
    unit = np.empty_like(pos)
    for part in tm.hemispheres:
        centred = pos[part] - pos[part].mean(0)
        radius = np.linalg.norm(centred, axis=1)
        if not radius.min() > 0 or radius.std() > 0.05 * radius.mean():
            raise InvalidDataError(
                f"The spin test needs the vertices on a sphere; the radii of "
                f"{tm.name or 'this map'} vary by {radius.std() / max(radius.mean(), 1e-12):.0%}"
                " (over 5%). Pass the sphere coordinates (fsaverage 'sphere'), or use "
                "null='positions'."
            )
        unit[part] = centred / radius[:, None]
        n_unique = np.unique(np.round(unit[part], 9), axis=0).shape[0]
        if n_unique < radius.size:
            raise InvalidDataError(
                f"The spin test needs one position per vertex; {radius.size - n_unique} of the "
                f"{radius.size} sphere positions of {tm.name or 'this map'} repeat (both "
                "hemispheres stacked on one sphere?). A rotation would then hand values across "
                "hemispheres. Spin each hemisphere separately (topography_table does; "
                "CortexMaps.spin_geometry), or spin both together: the left hemisphere's "
                "vertices first, then the right's, with geometry={'positions': ..., "
                "'mesh': 'fsaverage5'} (the mesh's vertex count per hemisphere)."
            )
    return unit


#: the last few spin draws, keyed by (sphere, draws, generator state): several maps on one
#: hemisphere with the same seed rotate alike, so the rotations are drawn and matched once
_SPIN_CACHE: OrderedDict = OrderedDict()
_SPIN_CACHE_BYTES = 256 * 2**20  # 1,000 draws on both fsaverage5 hemispheres take ~82 MB

#: reflection across the mid-sagittal plane (x -> -x): the right hemisphere's sphere is the
#: mirror image of the left's (fsaverage: lateral at -x on the left, +x on the right)
_MIRROR = np.diag([-1.0, 1.0, 1.0])


def _spin_indices(tm: TopoMap, n_draws: int, rng) -> np.ndarray:
    """``(n_draws, n)`` gather indices of random sphere rotations (nearest vertex).

    On both hemispheres (:attr:`TopoMap.hemispheres`) each rotates on its own sphere, the
    right by the left's rotation mirrored, ``M R M`` with ``M`` the reflection x -> -x
    (Alexander-Bloch et al. 2018; netneurotools' ``gen_spinsamples``): values stay in their
    hemisphere and a mirror-symmetric map stays mirror-symmetric.
    """
    from scipy.spatial.transform import Rotation

    unit = _units_of(tm)
    parts = tm.hemispheres
    key = (hashlib.sha1(np.ascontiguousarray(unit).tobytes()).hexdigest(), len(parts),
           int(n_draws), json.dumps(rng.bit_generator.state, sort_keys=True, default=str))
    hit = _SPIN_CACHE.get(key)
    if hit is not None:  # the same draws; leave the generator where drawing would have
        _SPIN_CACHE.move_to_end(key)
        idx, state_after = hit
        rng.bit_generator.state = state_after
        return idx
    rots = Rotation.random(n_draws, random_state=rng).as_matrix()
    idx = _rotated_indices(tm, rots)
    idx.setflags(write=False)
    _SPIN_CACHE[key] = (idx, rng.bit_generator.state)
    while sum(v[0].nbytes for v in _SPIN_CACHE.values()) > _SPIN_CACHE_BYTES:
        _SPIN_CACHE.popitem(last=False)
    return idx


def _units_of(tm: TopoMap) -> np.ndarray:
    unit = tm._cache.get("sphere_units")
    if unit is None:
        unit = _sphere_units(tm)
        tm._cache["sphere_units"] = unit
    return unit


def _rotated_indices(tm: TopoMap, rots: np.ndarray) -> np.ndarray:
    """``(n_rotations, n)`` gather indices of the rotation matrices ``rots`` ``(d, 3, 3)``:
    index ``[d, i]`` is the vertex whose value lands on vertex ``i`` (the right hemisphere
    by ``M R M``). BrainSpace's ``_generate_spins`` with the same matrices gives the same
    indices (``tests/analysis/topography/test_brainspace_parity.py``)."""
    from scipy.spatial import cKDTree

    unit, parts = _units_of(tm), tm.hemispheres
    trees = tm._cache.get("sphere_trees")
    if trees is None:
        trees = [(t, _search_radius(t)) for t in (cKDTree(unit[part]) for part in parts)]
        tm._cache["sphere_trees"] = trees
    n_draws = len(rots)
    idx = np.empty((n_draws, tm.n), dtype=np.int32 if tm.n < 2**31 else np.int64)
    for h, (part, (tree, radius)) in enumerate(zip(parts, trees)):
        turn = rots if h == 0 else _MIRROR @ rots @ _MIRROR
        # a few rotations at a time: their queries (and the distances the search returns)
        # stay near 100 MB, not 24 bytes x draws x vertices at once
        step = max(1, _QUERY_POINTS // max(1, tree.n))
        for lo in range(0, n_draws, step):
            # the value landing on vertex i comes from the vertex whose rotated position
            # R u_k is nearest to u_i, i.e. the vertex nearest to R^T u_i (rows: u_i R)
            queries = np.einsum("nk,dkj->dnj", unit[part], turn[lo : lo + step]).reshape(-1, 3)
            # the nearest vertex, searched within a radius first (a bounded search prunes
            # more) and again without a bound where none lies within it: the same vertex
            _, near = tree.query(queries, distance_upper_bound=radius, workers=-1)
            miss = np.flatnonzero(near >= tree.n)
            if miss.size:
                near[miss] = tree.query(queries[miss], workers=-1)[1]
            idx[lo : lo + step, part] = near.reshape(-1, tree.n) + part.start
    return idx


#: query points matched per KD-tree call (bounds the rotated coordinates held at once)
_QUERY_POINTS = 4_000_000


def _search_radius(tree) -> float:
    """A radius within which nearly every point of the sphere has a vertex: twice the
    largest distance from a vertex to its nearest other vertex (any point of a triangulated
    sphere lies within about one edge of a vertex). Only speed depends on it: a query with
    no vertex this close is searched again without a bound."""
    if tree.n < 2:
        return np.inf
    d = tree.query(tree.data, k=2)[0][:, 1]
    return float(2.0 * d.max()) if np.isfinite(d).all() and d.max() > 0 else np.inf
