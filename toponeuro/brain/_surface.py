"""Surface beta maps (GIFTI / FreeSurfer MGH) -> BrainResponses with hemi, vertex coords."""

from __future__ import annotations

import os
from collections.abc import Sequence
from numbers import Real

import numpy as np
import xarray as xr

from .._io.meshes import MESH_SIZES, read_surface_file
from .._util.docs import fill_doc
from .._util.params import Boolean, Interval, PathLike, Text, validate_params
from ..atlases import FSAVERAGE5_N_VERTICES, HEMIS, read_netcdf_map
from ..exceptions import (
    AlignmentError,
    DimensionError,
    InputTypeError,
    InvalidDataError,
    MeshMismatchError,
    UnknownNameError,
    first_few,
)
from ._responses import handle_invalid, make_brain_responses

__all__ = ["load_surface_betas", "read_surface_data", "MESH_SIZES", "fetch_topolm_contrast",
           "load_topolm_contrast", "TOPOLM_CONTRAST"]

#: TopoLM's verb - noun group contrast: the pinned file (``toponeuro.stimuli.pinned_sources``)
TOPOLM_CONTRAST = {"repo": "epflneuroailab/topolm",
                   "path": "eval/fmri-fit/group-level-contrast.nc"}



@validate_params(dict(path=PathLike(), hemi=[Text(), None]))
def read_surface_data(path: str | os.PathLike, hemi: str | None = None) -> np.ndarray:
    """(n_vertices, n_maps) array from a GIFTI (``.gii``), CIFTI-2 (``.dscalar.nii``) or
    MGH/MGZ file.

    A GIFTI may hold one 2-D data array (vertices x maps) or one 1-D array per map; an MGH
    file is (n_vertices, 1, 1, n_maps); a CIFTI file's cortex brain models fill their
    vertices of the whole mesh (the medial wall is NaN). The one reader behind it is
    ``toponeuro._io.meshes.read_surface_file``.

    Parameters
    ----------
    path : path-like
        The file.
    hemi : {"left", "right"}, optional
        The hemisphere to take from a CIFTI file that holds both.

    Returns
    -------
    numpy.ndarray
        ``(n_vertices, n_maps)``, float.

    Examples
    --------
    >>> import tempfile, pathlib, nibabel as nib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "lh.betas.mgh"
    >>> nib.save(nib.MGHImage(np.ones((642, 1, 1, 3), np.float32), np.eye(4)), p)
    >>> read_surface_data(p).shape
    (642, 3)
    """
    f = _read_values(path)
    if hemi is not None:
        from ..atlases import hemi_name

        hemi = hemi_name(hemi)
        if hemi not in f.data:
            raise DimensionError(
                f"The surface file {str(path)!r} holds no {hemi} hemisphere (it holds "
                f"{[h or 'one unnamed' for h in f.data]}); pass hemi= one of those."
            )
        return f.data[hemi]
    if len(f.data) != 1:
        raise DimensionError(
            f"The CIFTI file {str(path)!r} holds {len(f.data)} hemispheres {list(f.data)}; "
            "read_surface_data reads one. Pass hemi='left' or hemi='right'."
        )
    return next(iter(f.data.values()))


def _read_values(path):
    """``read_surface_file(path)``, refusing a label file (its values are region ids)."""
    f = read_surface_file(path)
    if f.labels is not None:
        raise InvalidDataError(
            f"The surface file {str(path)!r} is a label file ({len(f.labels)} regions): its "
            "values are region ids, not responses. Give the betas or statistic maps; its "
            "regions are cortex maps' ROIs (toponeuro.atlases.load_cortex_maps, 'PATH#NAME')."
        )
    return f


def _hemi_of_file(path, hemi: str) -> tuple[np.ndarray, list | None]:
    """The ``hemi`` values of a file passed as ``lh=``/``rh=``, and its map names (None
    unless every map has one): a CIFTI over both hemispheres gives that one; a file whose
    metadata names the other hemisphere is refused (labelled ``hemi``, its vertices would be
    the other hemisphere's)."""
    f = _read_values(path)
    slot = "lh" if hemi == "left" else "rh"
    if hemi in f.data:
        values = f.data[hemi]
    elif None in f.data:  # the file does not say (MGH, a GIFTI without the structure)
        values = f.data[None]
    else:
        other = "rh" if slot == "lh" else "lh"
        raise AlignmentError(
            f"The file passed as {slot}= ({str(path)!r}) holds the {' and '.join(f.data)} "
            f"hemisphere (its metadata says so), not the {hemi}; pass it as {other}= instead."
        )
    names = list(f.map_names)
    named = len(names) == values.shape[1] and all(n.strip() for n in names)
    return values, names if named else None


def _hemi_block(spec, hemi):
    """``(values (n_vertices, n_maps), map names or None)`` of one hemisphere's ``lh``/``rh``."""
    if spec is None:
        return None, None
    if isinstance(spec, str | os.PathLike):
        return _hemi_of_file(spec, hemi)
    if isinstance(spec, np.ndarray):
        return spec.reshape(spec.shape[0], -1), None
    read = [_hemi_of_file(p, hemi) for p in spec]
    blocks = [b for b, _ in read]
    sizes = {b.shape[0] for b in blocks}
    if len(sizes) != 1:
        raise AlignmentError(f"{hemi} files have different vertex counts {sorted(sizes)}.")
    names = None if any(n is None for _, n in read) else [n for _, ns in read for n in ns]
    return np.concatenate(blocks, axis=1), names


def _join_by_name(block: np.ndarray, names: list | None, ids: list, hemi: str) -> np.ndarray:
    """The maps of ``block`` in the order of ``ids``, matched by the file's map names (the
    k-th repeat of a name to the k-th repeat of the id); unnamed maps keep their order."""
    from collections import Counter

    if names is None or names == ids:
        return block
    if Counter(names) != Counter(ids):
        only_file = sorted(set(names) - set(ids))
        only_ids = sorted(set(ids) - set(names))
        slot = "lh" if hemi == "left" else "rh"
        raise AlignmentError(
            f"The {slot}= maps are named {first_few(map(repr, names))} (the file's map "
            f"names: CIFTI scalar names, GIFTI 'Name' meta), but stimulus_ids are "
            f"{first_few(map(repr, ids))}: {len(only_file)} names only in the file (e.g. "
            f"{first_few(map(repr, only_file), 3)}), {len(only_ids)} only in stimulus_ids (e.g. "
            f"{first_few(map(repr, only_ids), 3)}). Maps are matched to stimulus_ids by name, "
            "never by position: pass stimulus_ids with the file's map names (in any order), "
            "or rename the maps (wb_command -set-map-names)."
        )
    slots: dict = {}
    for k, n in enumerate(names):
        slots.setdefault(n, []).append(k)
    order = [slots[i].pop(0) for i in ids]
    return block[:, order]


def _resolve_surface_roi(roi, atlas, n_vert):
    if atlas is None:
        from ..atlases import load_language_parcels, load_visfatlas

        space = {v: k for k, v in MESH_SIZES.items()}.get(n_vert)
        if space == "fs_LR_32k":
            raise MeshMismatchError(
                f"roi={roi!r} needs a shipped atlas (visfAtlas, language parcels), which lie "
                "on fsaverage5/fsaverage, but these betas are on fs_LR 32k; toponeuro does not "
                "resample between meshes. Pass atlas= with a surface atlas on fs_LR 32k, or "
                "resample the betas to fsaverage5 (wb_command -metric-resample with the HCP "
                "fs_LR <-> fsaverage registration spheres)."
            )
        if space not in ("fsaverage5", "fsaverage"):
            raise AlignmentError(
                f"No shipped atlas has {n_vert} vertices per hemisphere; pass space='fsaverage5' "
                "to downsample fsaverage data, or atlas= with a matching surface atlas."
            )
        tried = []
        loaders = [load_visfatlas, load_language_parcels] if space == "fsaverage5" else [
            load_language_parcels]
        for loader in loaders:
            cand = loader(space)
            try:
                cand.select(roi)
            except UnknownNameError as err:
                tried.append(str(err))
                continue
            atlas = cand
            break
        if atlas is None:
            raise UnknownNameError(" / ".join(tried))
    if not atlas.is_surface:
        raise InputTypeError(f"{atlas!r} is a volume atlas; surface betas need a surface atlas.")
    if len(atlas.data) != 2 * n_vert:
        raise AlignmentError(
            f"{atlas!r} has {len(atlas.data) // 2} vertices per hemisphere but the betas have "
            f"{n_vert}; use the atlas in the betas' space (or space='fsaverage5')."
        )
    return atlas


@validate_params({"drop_invalid": Boolean(),
                  "scale": [Interval(Real, 0, None, closed="neither"), None]})
def load_surface_betas(
    lh,
    rh,
    stimulus_ids: Sequence[str],
    *,
    space: str | None = None,
    roi: str | Sequence[str] | None = None,
    atlas=None,
    subject: str = "sub-01",
    categories: Sequence[str] | None = None,
    drop_invalid: bool = False,
    scale: float | None = None,
) -> xr.DataArray:
    """Surface beta maps (one hemisphere or both) -> BrainResponses with hemi, vertex coords.

    Parameters
    ----------
    lh, rh : path, list of paths, array (n_vertices, n_stimuli), or None
        GIFTI (``.func.gii``/``.shape.gii``), CIFTI-2 (``.dscalar.nii``/``.dtseries.nii``)
        or FreeSurfer MGH/MGZ files on fsaverage, fsaverage5, fs_LR 32k ...; a list is
        concatenated along stimuli. ``None`` skips a hemisphere. A CIFTI file holding both
        hemispheres (as HCP writes them) is passed as both: ``load_surface_betas(path, path,
        ids)``; each takes its own hemisphere (``(path, None, ids)``: the left only). Its
        medial wall, outside the file's brain models, is NaN: pass ``drop_invalid=True`` to
        leave those vertices out (the ``vertex`` coord keeps the mesh's indices). A file whose
        metadata names the other hemisphere (a GIFTI's ``AnatomicalStructurePrimary``, a
        CIFTI's brain models) is refused (:class:`~toponeuro.exceptions.AlignmentError`).
    stimulus_ids : sequence of str
        One per map. When every map of a file is named (a CIFTI's scalar map names, a GIFTI
        array's ``Name`` meta), the maps are matched to the ids by name, in any order (names
        that differ from the ids: :class:`~toponeuro.exceptions.AlignmentError`); unnamed
        maps (MGH, arrays) are taken in order.
    space : {"fsaverage5"}, optional
        Keep the first 10,242 vertices (fsaverage5) of finer icosahedral meshes (the meshes
        are nested, so these are exactly the fsaverage5 vertices).
    roi : str or list of str, optional
        ROI keys, names or domains of ``atlas``.
    atlas : toponeuro.atlases.Atlas, optional
        A surface atlas in the same space (default: the visfAtlas, else the language
        parcels; see :mod:`toponeuro.atlases`).
    subject : str
        As in :func:`toponeuro.brain.load_volume_betas`.
    categories : sequence of str, optional
        As in :func:`toponeuro.brain.load_volume_betas`.
    drop_invalid : bool
        As in :func:`toponeuro.brain.load_volume_betas`.
    scale : float, optional
        Divide the values by this (e.g. 300 for NSD's int16 files).

    Returns
    -------
    xarray.DataArray
        BrainResponses with voxel coords ``hemi`` and ``vertex`` (dims ``("stimulus",
        "voxel")``).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> r = load_surface_betas(rng.standard_normal((642, 3)), None, ["a", "b", "c"])
    >>> r.sizes["voxel"], str(r.hemi.values[0]), int(r.vertex.values[-1])
    (642, 'left', 641)
    """
    read = {h: _hemi_block(s, h) for h, s in zip(HEMIS, (lh, rh))}
    blocks = {h: b for h, (b, _) in read.items() if b is not None}
    if not blocks:
        raise DimensionError("Give surface data for at least one hemisphere (lh or rh).")
    n_vert = {b.shape[0] for b in blocks.values()}
    if len(n_vert) != 1:
        raise AlignmentError(
            f"Left and right hemispheres have different vertex counts {sorted(n_vert)}; load "
            "both from the same mesh."
        )
    n_vert = n_vert.pop()
    n_ids = len(stimulus_ids)
    for h, b in blocks.items():
        if b.shape[1] != n_ids:
            if b.shape[0] == n_ids and b.shape[1] in MESH_SIZES.values():
                raise DimensionError(
                    f"{h} data look transposed ({b.shape}: stimuli x vertices); give vertices "
                    "x stimuli."
                )
            raise DimensionError(
                f"{h} data hold {b.shape[1]} maps but {n_ids} stimulus ids were given; give "
                "one id per map."
            )
        blocks[h] = _join_by_name(b, read[h][1], [str(i) for i in stimulus_ids], h)
    if space is not None:
        if space != "fsaverage5":
            raise UnknownNameError(f"space={space!r}; only 'fsaverage5' downsampling is offered.")
        if n_vert < FSAVERAGE5_N_VERTICES or n_vert not in MESH_SIZES.values():
            raise AlignmentError(
                f"Cannot take fsaverage5 vertices from a mesh of {n_vert} vertices; it must be "
                "fsaverage, fsaverage6 or fsaverage5."
            )
        blocks = {h: b[:FSAVERAGE5_N_VERTICES] for h, b in blocks.items()}
        n_vert = FSAVERAGE5_N_VERTICES
    hemi = np.concatenate([np.full(n_vert, h) for h in blocks])
    vertex = np.tile(np.arange(n_vert), len(blocks))
    x = np.concatenate([blocks[h] for h in blocks], axis=0).T.astype(np.float32)
    if scale is not None:
        x /= scale
    roi_coord = None
    if roi is not None:
        atlas = _resolve_surface_roi(roi, atlas, n_vert)
        full = {h: atlas.data[atlas.hemi == h] for h in HEMIS}
        labels = np.concatenate([full[h] for h in blocks])
        keep = np.isin(labels, atlas.select(roi))
        if not keep.any():
            raise InvalidDataError(f"ROI {roi!r} has no vertex in the hemispheres given.")
        x, hemi, vertex = x[:, keep], hemi[keep], vertex[keep]
        roi_coord = atlas.roi_of(labels[keep])
    mesh = {v: k for k, v in MESH_SIZES.items()}.get(n_vert, f"{n_vert} vertices")
    da = make_brain_responses(
        x, stimulus_ids, subject=subject, roi=roi_coord, hemi=hemi, vertex=vertex,
        categories=categories, attrs={"mesh": mesh},
    )
    return handle_invalid(da, drop_invalid, "surface betas")


@validate_params({"cache_dir": [PathLike(), None]})
@fill_doc
def fetch_topolm_contrast(*, cache_dir: str | os.PathLike | None = None):
    """Download TopoLM's fs_LR 32k verb - noun group contrast (pinned commit, sha256-checked)
    unless a verified copy is in the cache; return its path.

    The file ``eval/fmri-fit/group-level-contrast.nc`` of ``epflneuroailab/topolm`` at the
    commit in :func:`toponeuro.stimuli.pinned_sources` (Rathi et al., 2025, TopoLM, ICLR).
    Offline, the error names the address and where to put a copy by hand.

    Parameters
    ----------
    %(cache_dir)s

    Returns
    -------
    pathlib.Path
        The verified file in the cache.

    Examples
    --------
    >>> path = fetch_topolm_contrast()  # doctest: +SKIP
    >>> from toponeuro.stimuli import pinned_sources
    >>> t = pinned_sources(TOPOLM_CONTRAST["repo"])
    >>> int(t.bytes[t.path == TOPOLM_CONTRAST["path"]].iloc[0])
    786114
    """
    from ..stimuli import fetch_pinned_file

    return fetch_pinned_file(TOPOLM_CONTRAST["repo"], TOPOLM_CONTRAST["path"],
                             cache_dir=cache_dir)


@validate_params({"path": [PathLike(), None], "variable": Text(), "cache_dir": [PathLike(), None]})
@fill_doc
def load_topolm_contrast(path: str | os.PathLike | None = None, *, variable: str = "t_values",
                         cache_dir: str | os.PathLike | None = None) -> xr.DataArray:
    """TopoLM's group verb - noun contrast on the left hemisphere of fs_LR 32k.

    A one-sample t over 22 participants of the verb - noun fMRI contrast (Rathi et al., 2025,
    TopoLM, ICLR), as the TopoLM repository distributes it: an xarray Dataset with one value
    per vertex of the left fs_LR 32k hemisphere (32,492; NaN where there is no data).

    Parameters
    ----------
    path : path-like, optional
        A local copy of ``group-level-contrast.nc``; without it,
        :func:`fetch_topolm_contrast` (the cache, else the pinned download).
    variable : {"t_values", "p_values"}
    %(cache_dir)s

    Returns
    -------
    xarray.DataArray
        Dims ``("voxel",)`` with coords ``hemi`` ("left") and ``vertex`` (0..32,491): a
        cortex map :func:`toponeuro.atlases.load_cortex_maps` (and ``run_language_map(
        cortex=CortexInput(maps=...))``) reads as the left hemisphere of fs_LR 32k. Attrs: ``mesh``,
        ``statistic``, ``contrast``, ``source`` (the file), ``reference``.

    Raises
    ------
    UnreadableFileError
        Not a readable netCDF file (:func:`toponeuro.atlases.read_netcdf_map` reads it).
    UnknownNameError
        ``variable`` is not in the file.
    DimensionError
        The file does not hold one value per vertex of a fs_LR 32k hemisphere.

    Examples
    --------
    >>> t = load_topolm_contrast()  # doctest: +SKIP
    >>> t.sizes["voxel"], str(t.hemi.values[0]), t.attrs["mesh"]  # doctest: +SKIP
    (32492, 'left', 'fs_LR_32k')
    """
    from .._util.dims import HEMI, VERTEX, VOXEL

    path = fetch_topolm_contrast(cache_dir=cache_dir) if path is None else path
    _, values = read_netcdf_map(path, variable=variable, what="TopoLM contrast", fix=(
        "pass the group-level-contrast.nc of the TopoLM repository, or path=None to download "
        "the pinned copy"))
    n = values.size
    return xr.DataArray(values, dims=(VOXEL,), name=variable, coords={
        HEMI: (VOXEL, np.full(n, "left")), VERTEX: (VOXEL, np.arange(n))}, attrs={
        "mesh": "fs_LR_32k", "statistic": "t" if variable == "t_values" else "p",
        "contrast": "verbs - nouns", "n_subjects": 22, "source": str(path),
        "reference": "Rathi, Mehrer, AlKhamissi, Binhuraib, Blauch & Schrimpf (2025), "
                     "TopoLM, ICLR 2025"})
