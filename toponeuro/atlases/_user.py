"""Your own cortical maps (localizer t-maps, ...) as :class:`CortexMaps`, in place of an atlas.

Surface maps: one GIFTI (``.gii``) or FreeSurfer MGH (``.mgh``/``.mgz``) file per hemisphere on
fsaverage5, fsaverage6 or fsaverage (fsaverage6/fsaverage are decimated to fsaverage5: the
icosahedral meshes are nested, so fsaverage5's vertices are the first 10,242 of the finer
meshes). Volume maps: one MNI NIfTI per domain, projected to both hemispheres with
:func:`nilearn.surface.vol_to_surf` on nilearn's fsaverage5 pial mesh (white mesh inside).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from ..exceptions import DimensionError, InputTypeError, InvalidDataError, MissingFileError
from ._atlas import FSAVERAGE5_N_VERTICES, HEMIS, hemi_name
from ._maps import CortexMaps
from ._surface import _fsaverage5, mesh_graph, vertex_coordinates

__all__ = ["VOL_TO_SURF_DEFAULTS", "load_cortex_maps", "parse_cortex_maps"]

#: :func:`nilearn.surface.vol_to_surf` parameters used for NIfTI maps unless you give others
VOL_TO_SURF_DEFAULTS = {"radius": 3.0, "interpolation": "linear", "kind": "auto",
                        "n_samples": None, "depth": None}

#: vertices per hemisphere of the icosahedral fsaverage meshes that decimate to fsaverage5
_NESTED = {10242: "fsaverage5", 40962: "fsaverage6", 163842: "fsaverage"}
_SURFACE_SUFFIXES = (".gii", ".mgh", ".mgz")
_VOLUME_SUFFIXES = (".nii", ".nii.gz")
_HEMI_PATTERNS = {"left": (r"(^|[._-])lh[._-]", r"hemi-l(eft)?[._-]", r"cortexleft"),
                  "right": (r"(^|[._-])rh[._-]", r"hemi-r(ight)?[._-]", r"cortexright")}


def parse_cortex_maps(spec: str) -> dict:
    """Read the text form ``faces=PATH,bodies=LH:RH`` into ``{domain: path or (lh, rh)}``.

    Each entry is ``domain=PATH`` -- an MNI NIfTI volume (both hemispheres), or one surface
    file whose hemisphere its name or metadata says -- or ``domain=LH_PATH:RH_PATH``, the
    left and then the right hemisphere's surface file (GIFTI or MGH).

    Examples
    --------
    >>> parse_cortex_maps("faces=lh.faces.gii:rh.faces.gii,places=places_mni.nii.gz")
    {'faces': ('lh.faces.gii', 'rh.faces.gii'), 'places': 'places_mni.nii.gz'}
    """
    if not isinstance(spec, str) or not spec.strip():
        raise InvalidDataError(
            f"cortex_maps must look like 'faces=PATH,bodies=LH.gii:RH.gii'; got {spec!r}."
        )
    out: dict = {}
    for item in (s.strip() for s in spec.split(",") if s.strip()):
        name, eq, path = item.partition("=")
        if not eq or not name.strip() or not path.strip():
            raise InvalidDataError(
                f"cortex_maps entry {item!r} is not DOMAIN=PATH; write e.g. "
                "'faces=faces_mni.nii.gz' or 'faces=lh.faces.gii:rh.faces.gii'."
            )
        parts = [p.strip() for p in path.split(":")]
        if len(parts) > 2 or not all(parts):
            raise InvalidDataError(
                f"cortex_maps entry {item!r}: give one path, or two joined by ':' (left "
                "hemisphere first, then right)."
            )
        if name.strip() in out:
            raise InvalidDataError(f"cortex_maps names domain {name.strip()!r} twice.")
        out[name.strip()] = parts[0] if len(parts) == 1 else tuple(parts)
    return out


def _is_volume(path: Path) -> bool:
    return str(path).lower().endswith(_VOLUME_SUFFIXES)


def _exists(path, what: str) -> Path:
    path = Path(os.fspath(path)).expanduser()
    if not path.is_file():
        raise MissingFileError(f"cortex_maps: {what} file {str(path)!r} does not exist.")
    return path


def _hemi_from_name(path: Path) -> str | None:
    name = path.name.lower()
    hits = [h for h, pats in _HEMI_PATTERNS.items() if any(re.search(p, name) for p in pats)]
    return hits[0] if len(hits) == 1 else None


def _read_surface(path: Path) -> tuple[np.ndarray, str | None]:
    """``(values, hemisphere its metadata states or None)`` of a GIFTI or MGH file."""
    import nibabel as nib

    low = str(path).lower()
    if not low.endswith(_SURFACE_SUFFIXES):
        raise InvalidDataError(
            f"cortex_maps: {str(path)!r} is neither a surface map (.gii, .mgh, .mgz) nor an "
            "MNI volume (.nii, .nii.gz)."
        )
    img = nib.load(str(path))
    meta_hemi = None
    if low.endswith(".gii"):
        if not img.darrays:
            raise InvalidDataError(f"cortex_maps: the GIFTI {str(path)!r} holds no data array.")
        if len(img.darrays) > 1:
            raise DimensionError(
                f"cortex_maps: the GIFTI {str(path)!r} holds {len(img.darrays)} data arrays; "
                "give a file with one map (one value per vertex)."
            )
        values = np.asarray(img.darrays[0].data, dtype=float)
        structure = str(img.meta.get("AnatomicalStructurePrimary", "")).lower()
        meta_hemi = {"cortexleft": "left", "cortexright": "right"}.get(structure)
    else:
        values = np.asarray(img.get_fdata(), dtype=float)
    if values.ndim > 1:
        if sum(s > 1 for s in values.shape) > 1:
            raise DimensionError(
                f"cortex_maps: {str(path)!r} has shape {values.shape}; give one map (one value "
                "per vertex), not several frames."
            )
        values = values.reshape(-1)
    return values, meta_hemi


def _to_fsaverage5(values: np.ndarray, path: Path, hemi: str) -> tuple[np.ndarray, str]:
    n = values.size
    if n not in _NESTED:
        hint = (" It holds both hemispheres; give one file per hemisphere, 'LH:RH'."
                if n // 2 in _NESTED and n % 2 == 0 else "")
        raise DimensionError(
            f"cortex_maps: {str(path)!r} ({hemi} hemisphere) has {n:,} values; a map on "
            f"fsaverage5 / fsaverage6 / fsaverage has {', '.join(f'{k:,}' for k in _NESTED)} "
            f"vertices per hemisphere.{hint} Resample it to fsaverage5 (e.g. FreeSurfer's "
            "mri_surf2surf --trgsubject fsaverage5) or give the MNI volume instead."
        )
    return values[:FSAVERAGE5_N_VERTICES], _NESTED[n]


def _check_values(values: np.ndarray, what: str) -> None:
    bad = ~np.isfinite(values)
    if bad.any():
        raise InvalidDataError(
            f"cortex_maps: {what} has {int(bad.sum()):,} of {values.size:,} vertices without a "
            "finite value (NaN/inf). Set the vertices outside your data (e.g. the medial wall) "
            "to 0 before saving the map, so toponeuro need not guess what they mean."
        )
    if np.ptp(values) == 0:
        raise InvalidDataError(
            f"cortex_maps: {what} is constant ({values[0]:g} everywhere); a map with no "
            "variation has no centre or similarity. Check that the file holds the statistic."
        )


def _surface_pair(domain: str, spec) -> dict:
    """``{hemi: path}`` of a surface entry: (lh, rh), {"left": p, ...} or one named file."""
    if isinstance(spec, Mapping):
        pairs = {hemi_name(h): p for h, p in spec.items()}
    elif isinstance(spec, (tuple, list)):
        if len(spec) != 2:
            raise InvalidDataError(
                f"cortex_maps[{domain!r}]: give (left, right) surface files; got {len(spec)} "
                "paths."
            )
        pairs = dict(zip(HEMIS, spec))
    else:
        path = Path(os.fspath(spec))
        hemi = _hemi_from_name(path)
        if hemi is None:
            _, meta = _read_surface(_exists(path, f"{domain!r}"))
            hemi = meta
        if hemi is None:
            raise InvalidDataError(
                f"cortex_maps[{domain!r}]: {str(path)!r} is one surface file, and neither its "
                "name (lh./rh., hemi-L/hemi-R) nor its metadata says which hemisphere it is. "
                "Give both as 'LH_PATH:RH_PATH' (left first) or {'left': ..., 'right': ...}."
            )
        pairs = {hemi: spec}
    return pairs


def load_cortex_maps(
    maps: Mapping[str, object] | str,
    *,
    hemispheres: Sequence[str] = HEMIS,
    vol_to_surf: Mapping | None = None,
    surface: str = "flat",
    neighbours: str = "inflated",
) -> dict[str, CortexMaps]:
    """Read your own cortical maps (e.g. localizer t-maps) as fsaverage5 :class:`CortexMaps`.

    The result goes where an atlas's :func:`cortex_maps` would: ``toponeuro map
    --cortex-maps`` and ``run_map(cortex_maps=...)`` measure these maps (smoothness, patches,
    map similarity with its spin-test null, the arrangement of the domain centres) instead of
    the visfAtlas ROIs.

    Parameters
    ----------
    maps : mapping or str
        Domain -> its map(s): an MNI NIfTI path (projected to both hemispheres); a
        ``(left, right)`` pair of surface files (GIFTI or MGH on fsaverage5, fsaverage6 or
        fsaverage); ``{"left": path, "right": path}``; or one surface file whose name
        (``lh.``/``rh.``, ``hemi-L``/``hemi-R``) or GIFTI metadata names its hemisphere. Text
        is read by :func:`parse_cortex_maps` (``"faces=lh.gii:rh.gii,bodies=b.nii.gz"``).
    hemispheres : sequence of {"left", "right"}
        Hemispheres kept; each must have at least one map.
    vol_to_surf : mapping, optional
        Parameters of :func:`nilearn.surface.vol_to_surf` for NIfTI maps (``radius``,
        ``interpolation``, ``kind``, ``n_samples``, ``depth``, ``mask_img``); the rest keep
        :data:`VOL_TO_SURF_DEFAULTS`. They are recorded in ``CortexMaps.source``.
    surface, neighbours : str
        Meshes of the vertex positions and adjacency (as in :func:`cortex_maps`).

    Returns
    -------
    dict of str -> CortexMaps
        Hemisphere -> its maps (``representation="values"``); ``source`` records each file,
        its mesh and the projection parameters.

    Raises
    ------
    MissingFileError
        A path that does not exist.
    DimensionError
        A surface map whose vertex count is not that of fsaverage5/6/fsaverage, or a file
        with several maps.
    InvalidDataError
        NaN or infinite values, a constant map, a file whose hemisphere is unknown or
        contradicts its place, an unknown format.

    Examples
    --------
    A real statistical map nilearn ships (NeuroVault image 10426, motor contrast), projected
    from MNI to fsaverage5:

    >>> from nilearn.datasets import load_sample_motor_activation_image
    >>> cm = load_cortex_maps({"motor": load_sample_motor_activation_image()})
    >>> sorted(cm), cm["left"].maps["motor"].shape, cm["left"].source["vol_to_surf"]["radius"]
    (['left', 'right'], (10242,), 3.0)
    """
    if isinstance(maps, str):
        maps = parse_cortex_maps(maps)
    if not isinstance(maps, Mapping) or not maps:
        raise InputTypeError(
            "cortex_maps must map each domain to its file(s), e.g. {'faces': 'faces.nii.gz'} "
            f"or 'faces=lh.gii:rh.gii'; got {type(maps).__name__}."
        )
    hemis = [hemi_name(h) for h in hemispheres]
    params = dict(VOL_TO_SURF_DEFAULTS)
    for key, val in dict(vol_to_surf or {}).items():
        if key not in (*VOL_TO_SURF_DEFAULTS, "mask_img"):
            raise InvalidDataError(
                f"Unknown vol_to_surf parameter {key!r}; use {sorted(VOL_TO_SURF_DEFAULTS)} "
                "or 'mask_img' (see nilearn.surface.vol_to_surf)."
            )
        params[key] = val
    per_hemi: dict = {h: {} for h in hemis}
    files: dict = {}
    used_volume = False
    for domain, spec in maps.items():
        domain = str(domain)
        if isinstance(spec, (str, os.PathLike)) and _is_volume(Path(os.fspath(spec))):
            path = _exists(spec, f"{domain!r}")
            used_volume = True
            for h in hemis:
                vals = _project(path, h, params)
                _check_values(vals, f"{domain!r} ({path.name}, {h} hemisphere, projected)")
                per_hemi[h][domain] = vals
            files[domain] = {"volume": str(path), "space": "MNI152", "mesh": "fsaverage5"}
            continue
        entry = {}
        for h, p in _surface_pair(domain, spec).items():
            path = _exists(p, f"{domain!r} {h}-hemisphere")
            named = _hemi_from_name(path)
            vals, meta = _read_surface(path)
            for said, how in ((named, "name"), (meta, "GIFTI metadata")):
                if said is not None and said != h:
                    raise InvalidDataError(
                        f"cortex_maps[{domain!r}]: {path.name!r} is given as the {h} "
                        f"hemisphere but its {how} says {said}. Put the left hemisphere first "
                        "('LH_PATH:RH_PATH')."
                    )
            vals, mesh = _to_fsaverage5(vals, path, h)
            _check_values(vals, f"{domain!r} ({path.name}, {h} hemisphere)")
            entry[h] = {"surface": str(path), "mesh": mesh}
            if h in per_hemi:
                per_hemi[h][domain] = vals
        files[domain] = entry
    out: dict[str, CortexMaps] = {}
    for h in hemis:
        if not per_hemi[h]:
            raise InvalidDataError(
                f"cortex_maps: no map covers the {h} hemisphere; give its file (LH:RH) or "
                f"leave it out with hemispheres={[x for x in hemis if x != h]}."
            )
        pos = vertex_coordinates(surface, h)
        source = {"maps": files, "representation": "values"}
        if used_volume:
            source["vol_to_surf"] = {k: (str(v) if k == "mask_img" and v is not None else v)
                                     for k, v in params.items()}
            source["vol_to_surf"]["meshes"] = "nilearn fsaverage5 pial (white inside)"
        out[h] = CortexMaps(
            hemi=h, maps=per_hemi[h], positions=pos[:, :2] if surface == "flat" else pos,
            adjacency=mesh_graph(neighbours, h), sphere=vertex_coordinates("sphere", h),
            surface=surface, neighbours=neighbours, representation="values", source=source,
        )
    return out


def _project(path: Path, hemi: str, params: dict) -> np.ndarray:
    import nibabel as nib
    from nilearn import surface as nsurf

    img = nib.load(str(path))
    if len(img.shape) == 4 and img.shape[3] == 1:
        img = nib.Nifti1Image(np.asarray(img.dataobj)[..., 0], img.affine, img.header)
    if len(img.shape) != 3:
        raise DimensionError(
            f"cortex_maps: the volume {path.name!r} has shape {img.shape}; give one 3-D map."
        )
    fs = _fsaverage5()
    return np.asarray(nsurf.vol_to_surf(img, fs["pial"].parts[hemi],
                                        inner_mesh=fs["white_matter"].parts[hemi], **params),
                      dtype=float)
