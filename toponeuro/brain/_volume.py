"""Volume beta maps (NIfTI) -> BrainResponses: plain files and BIDS derivatives."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from xml.parsers.expat import ExpatError  # how a broken GIFTI's XML fails

import numpy as np
import pandas as pd
import xarray as xr

from .._io.reading import read_file
from .._util.params import Boolean, Text, validate_params
from ..exceptions import (
    AlignmentError,
    DimensionError,
    InputTypeError,
    InvalidDataError,
    MissingFileError,
    UnknownNameError,
    UnreadableFileError,
    close_matches,
    first_few,
)
from ._responses import handle_invalid, make_brain_responses

__all__ = ["load_volume_betas", "load_bids_betas", "load_brain_image"]


@validate_params({"what": Text()})
def load_brain_image(obj, what: str = "image"):
    """A nibabel spatial image (NIfTI, MGH ...) from a path or an image, with typed errors.

    Bad files raise typed errors. (Pictures, the stimuli, are read by
    :func:`toponeuro.stimuli.read_image`; this was ``toponeuro.brain.load_image`` before
    0.3.0.)

    Parameters
    ----------
    obj : path-like or nibabel.spatialimages.SpatialImage
        A file, or an image (returned as it is).
    what : str
        What the image is, in the messages (``"beta volume"``).

    Returns
    -------
    nibabel.spatialimages.SpatialImage
        The image.

    Raises
    ------
    MissingFileError
        No such file.
    InvalidDataError
        A file nibabel cannot read as an image.

    Examples
    --------
    >>> import nibabel as nib
    >>> img = nib.Nifti1Image(np.zeros((4, 4, 4, 2), np.float32), np.eye(4))
    >>> load_brain_image(img) is img  # an image passes through; a path is read with nibabel
    True
    >>> try:
    ...     load_brain_image("absent.nii.gz", "beta volume")
    ... except FileNotFoundError as err:
    ...     print(type(err).__name__)
    MissingFileError
    """
    from nibabel.filebasedimages import ImageFileError
    from nibabel.spatialimages import SpatialImage

    if isinstance(obj, SpatialImage):
        return obj

    def volume(img):
        if not isinstance(img, SpatialImage):
            raise ImageFileError(f"{type(img).__name__} is not a volume")
        return img

    return _read_nibabel(Path(os.fspath(obj)), volume, "volume", what)


# kind -> (what is accepted, what it is read as, its file endings): the one source of the
# messages of _read_nibabel
_NIBABEL_KINDS = {
    "volume": ("an existing NIfTI file (.nii/.nii.gz) or a nibabel image", "NIfTI/MGH volume",
               ".nii/.nii.gz"),
    "surface": ("a GIFTI (.gii) or FreeSurfer (.mgh/.mgz) file of per-vertex betas",
                "GIFTI or MGH surface file", ".gii/.mgh/.mgz"),
}


def _read_nibabel(path: Path, read, kind: str, what: str | None = None):
    """``read(nibabel.load(path))`` with typed errors whose text comes from ``_NIBABEL_KINDS``.

    A missing file raises MissingFileError (what to pass instead); one that nibabel (or
    ``read``, by raising ValueError) cannot parse raises InvalidDataError (why, and the fix).
    ``what`` names the file in the message (default: ``"<kind> file"``).
    """
    import nibabel as nib

    accepted, read_as, endings = _NIBABEL_KINDS[kind]
    name = f"The {what or f'{kind} file'} {path}"
    if not path.is_file():
        raise MissingFileError(f"{name} does not exist; pass {accepted}.")
    try:
        return read(nib.load(path))
    except (nib.filebasedimages.ImageFileError, OSError, EOFError, ValueError, ExpatError) as err:
        raise UnreadableFileError(
            f"{name} is not a readable {read_as} ({type(err).__name__}: {err}). Check the file "
            f"is complete and a {endings} (re-download or re-export)."
        ) from err


def _get_data(img, what: str) -> np.ndarray:
    try:
        return np.asarray(img.dataobj)
    except Exception as err:  # noqa: BLE001 - gzip/zlib/EOF/OSError errors vary
        where = img.get_filename() if hasattr(img, "get_filename") else None
        raise UnreadableFileError(
            f"Cannot read the voxel data of the {what}{f' {where}' if where else ''} "
            f"({type(err).__name__}: {err}); the file is truncated or corrupt. Re-download or "
            "re-export it."
        ) from err


def _same_grid(a_shape, a_affine, b_shape, b_affine) -> bool:
    return tuple(a_shape[:3]) == tuple(b_shape[:3]) and np.allclose(a_affine, b_affine, atol=1e-3)


def _stack_volumes(images, n_expected: int | None):
    """Return (4-D data array (X, Y, Z, n), affine, names) from a 4-D image or 3-D maps."""
    single = isinstance(images, str | os.PathLike) or hasattr(images, "dataobj")
    if single:
        img = load_brain_image(images, "beta image")
        data = _get_data(img, "beta image")
        if data.ndim == 3:
            if n_expected not in (None, 1):
                raise DimensionError(
                    f"Got one 3-D beta map but {n_expected} stimulus ids. Pass a 4-D image "
                    "(one volume per stimulus) or a list of 3-D maps, one per stimulus."
                )
            data = data[..., None]
        elif data.ndim == 5 and data.shape[3] == 1:
            data = data[:, :, :, 0, :]
        elif data.ndim != 4:
            raise DimensionError(
                f"Beta image has shape {data.shape}; expected a 4-D (x, y, z, stimulus) image."
            )
        return data, img.affine, img.shape
    images = list(images)
    if not images:
        raise DimensionError("No beta images given.")
    vols, ref = [], None
    for k, obj in enumerate(images):
        img = load_brain_image(obj, f"beta map #{k}")
        data = _get_data(img, f"beta map #{k}")
        if data.ndim == 4 and data.shape[3] == 1:
            data = data[..., 0]
        if data.ndim != 3:
            raise DimensionError(
                f"Beta map #{k} has shape {data.shape}; a list must hold 3-D maps (one per "
                "stimulus). To load a 4-D image pass it alone, not inside a list (or concatenate "
                "with nilearn.image.concat_imgs)."
            )
        if ref is None:
            ref = (data.shape, img.affine)
        elif not _same_grid(data.shape, img.affine, *ref):
            raise AlignmentError(
                f"Beta map #{k} has shape {data.shape} / affine differing from map #0 "
                f"{ref[0]}; resample them to one grid (nilearn.image.resample_to_img)."
            )
        vols.append(data)
    return np.stack(vols, axis=-1), ref[1], ref[0] + (len(vols),)


def _resolve_mask(mask, roi, atlas, shape, affine):
    """Boolean mask on the data grid and the ROI key of each voxel (or None)."""
    import nibabel as nib

    keep = np.ones(shape[:3], dtype=bool)
    roi_map = None
    if mask is not None:
        mimg = load_brain_image(mask, "mask")
        mdata = _get_data(mimg, "mask")
        if mdata.ndim == 4 and mdata.shape[3] == 1:
            mdata = mdata[..., 0]
        if mdata.ndim != 3:
            raise DimensionError(f"The mask must be a 3-D image; got shape {mdata.shape}.")
        if not _same_grid(mdata.shape, mimg.affine, shape, affine):
            raise AlignmentError(
                f"The mask (shape {mdata.shape}, affine\n{np.round(mimg.affine, 3)}) is not on the "
                f"grid of the betas (shape {tuple(shape[:3])}, affine\n{np.round(affine, 3)}). "
                "Resample it first: nilearn.image.resample_to_img(mask, betas, "
                "interpolation='nearest')."
            )
        n_nan = int(np.isnan(mdata).sum()) if np.issubdtype(mdata.dtype, np.floating) else 0
        if n_nan:
            raise InvalidDataError(
                f"The mask= image holds {n_nan} NaN voxels; a mask is 0 (out) / non-zero (in), "
                "and NaN is neither. Set them to 0 (e.g. nilearn.image.math_img("
                "'np.nan_to_num(img)', img=mask)), or resample the mask with "
                "interpolation='nearest'."
            )
        keep &= np.asarray(mdata) != 0
        if not keep.any():
            raise InvalidDataError("The mask selects no voxel (it is all zeros).")
    if roi is not None:
        if atlas is None:
            from ..atlases import load_visfatlas

            atlas = load_visfatlas("MNI152")
        if atlas.is_surface:
            raise InputTypeError(f"{atlas!r} is a surface atlas; volume betas need a volume atlas.")
        labels = atlas.select(roi)
        lab = atlas.data
        if not _same_grid(lab.shape, atlas.affine, shape, affine):
            from nilearn.image import resample_to_img

            ref = nib.Nifti1Image(np.zeros(shape[:3], np.int8), affine)
            lab = np.asarray(
                resample_to_img(atlas.to_nifti(), ref, interpolation="nearest",
                                force_resample=True, copy_header=True).dataobj
            ).astype(np.int64)
        in_roi = np.isin(lab, labels)
        if not (keep & in_roi).any():
            raise InvalidDataError(
                f"ROI {roi!r} of {atlas.name} covers no voxel of the betas"
                f"{' inside the mask' if mask is not None else ''}: are the betas in "
                f"{atlas.space} space?"
            )
        keep &= in_roi
        roi_map = lab
        return keep, roi_map, atlas
    return keep, roi_map, atlas


def _mask_volumes(data4d, affine, keep):
    """(n_stimuli, n_voxels) responses of the voxels in ``keep``, plus their ijk and xyz (mm).

    Voxels are taken in C order of the mask, exactly like nilearn's ``NiftiMasker`` (the
    tests check parity). Masking is done here rather than by ``NiftiMasker`` itself because
    nilearn silently replaces NaN/inf by 0, which would hide invalid voxels.
    """
    import nibabel as nib

    x = np.asarray(data4d)[keep].T
    ijk = np.argwhere(keep)
    xyz = nib.affines.apply_affine(affine, ijk)
    return x, ijk, xyz


def _volume_responses(data4d, affine, stimulus_ids, *, mask, roi, atlas, subject, categories,
                      stimulus_coords, drop_invalid, attrs, scale=None, what="betas"):
    n = data4d.shape[3]
    if len(stimulus_ids) != n:
        raise DimensionError(
            f"The {what} hold {n} volumes but {len(stimulus_ids)} stimulus ids were given; "
            "give exactly one id per volume, in volume order."
        )
    keep, roi_map, atlas = _resolve_mask(mask, roi, atlas, data4d.shape, affine)
    x, ijk, xyz = _mask_volumes(data4d, affine, keep)
    x = x.astype(np.float32)
    if scale is not None:
        x /= scale
    roi_coord = None
    if roi_map is not None:
        roi_coord = atlas.roi_of(roi_map[tuple(ijk.T)])
    elif mask is not None:
        roi_coord = "mask"
    da = make_brain_responses(
        x, stimulus_ids, subject=subject, roi=roi_coord, xyz=xyz, categories=categories,
        stimulus_coords=stimulus_coords,
        voxel_coords={"i": ijk[:, 0], "j": ijk[:, 1], "k": ijk[:, 2]},
        attrs={"space_affine": np.asarray(affine).ravel().tolist(),
               "grid_shape": list(data4d.shape[:3]), **(attrs or {})},
    )
    return handle_invalid(da, drop_invalid, what)


def _id_list(stimulus_ids, what: str = "stimulus_ids") -> list:
    """``stimulus_ids`` as a list, refusing what would silently become other ids."""
    if isinstance(stimulus_ids, (str, bytes)):
        raise DimensionError(
            f"{what} must be a sequence with one id per volume; got the string "
            f"{stimulus_ids!r}, which would be read as {len(stimulus_ids)} one-character ids. "
            f"Pass a list, e.g. [{stimulus_ids!r}] for a single volume."
        )
    if stimulus_ids is None or isinstance(stimulus_ids, (set, frozenset, dict)) or not (
        hasattr(stimulus_ids, "__iter__")
    ):
        kind = type(stimulus_ids).__name__
        why = " (unordered: the id of each volume would be lost)" if isinstance(
            stimulus_ids, (set, frozenset, dict)) else ""
        raise DimensionError(
            f"{what} must be an ordered sequence (list, array) with one id per volume, in "
            f"volume order; got {kind} {stimulus_ids!r}{why}."
        )
    ids = list(np.asarray(stimulus_ids, dtype=object).ravel()) if hasattr(
        stimulus_ids, "shape") else list(stimulus_ids)
    bad = [v for v in ids if v is None or (isinstance(v, float) and not np.isfinite(v))]
    if bad:
        raise DimensionError(
            f"{what} holds {len(bad)} missing ids (None/NaN), e.g. {bad[0]!r}; give every "
            "volume an id."
        )
    return ids


@validate_params({"drop_invalid": Boolean()})
def load_volume_betas(
    images,
    stimulus_ids: Sequence[str],
    mask=None,
    roi: str | Sequence[str] | None = None,
    *,
    atlas=None,
    subject: str = "sub-01",
    categories: Sequence[str] | None = None,
    drop_invalid: bool = False,
) -> xr.DataArray:
    """Beta maps in a volume -> BrainResponses with voxel coords x, y, z (mm).

    Parameters
    ----------
    images : path, nibabel image, or list of them
        One 4-D image (a volume per stimulus) or a list of 3-D maps (one per stimulus).
    stimulus_ids : sequence of str
        One id per volume, in volume order (ids may repeat for repeated trials; a
        ``repetition`` coord then numbers them).
    mask : path or image, optional
        Binary mask on exactly the grid of the betas (shape and affine; another grid is an
        :class:`~toponeuro.exceptions.AlignmentError`, a NaN voxel an
        :class:`~toponeuro.exceptions.InvalidDataError`); non-zero voxels are kept, in the C order nilearn's ``NiftiMasker`` uses (the values equal its
        output, except that NaN stay NaN where nilearn would silently write 0). Without
        mask and roi every voxel of the grid is kept.
    roi : str or list of str, optional
        ROI keys, names or domains of ``atlas`` (default the visfAtlas, MNI152), e.g.
        ``"faces"`` or ``["lh_mFus", "rh_mFus"]``. The atlas is resampled (nearest) to the
        betas' grid; with a mask too, voxels must be in both.
    atlas : toponeuro.atlases.Atlas, optional
        The atlas ``roi`` is read from.
    subject : str
        Subject of every voxel (the ``subject`` coord).
    categories : sequence of str, optional
        A category per volume.
    drop_invalid : bool
        Exclude voxels with NaN or constant responses (with a warning). By default they
        raise :class:`~toponeuro.exceptions.InvalidDataError` listing how many and where.

    Returns
    -------
    xarray.DataArray
        BrainResponses: dims (stimulus, voxel); voxel coords subject, roi, x, y, z, i, j, k.

    Raises
    ------
    InvalidDataError, DimensionError, AlignmentError, UnknownNameError

    Examples
    --------
    >>> import nibabel as nib, numpy as np
    >>> rng = np.random.default_rng(0)
    >>> img = nib.Nifti1Image(rng.standard_normal((3, 3, 2, 4)).astype("f4"), np.eye(4) * 2)
    >>> r = load_volume_betas(img, ["a", "b", "c", "d"])
    >>> r.sizes["stimulus"], r.sizes["voxel"], r.x.values[:3].tolist()
    (4, 18, [0.0, 0.0, 0.0])
    """
    stimulus_ids = _id_list(stimulus_ids)
    data4d, affine, _ = _stack_volumes(images, len(stimulus_ids))
    return _volume_responses(
        data4d, affine, stimulus_ids, mask=mask, roi=roi, atlas=atlas, subject=subject,
        categories=categories, stimulus_coords=None, drop_invalid=drop_invalid, attrs=None,
    )


# -- BIDS derivatives ---------------------------------------------------------------------
_ENTITY_ORDER = ("ses", "task", "acq", "run", "space", "desc")
_ID_ENTITIES = ("stim", "cond", "condition", "contrast", "trial")
#: columns of a labels / events .tsv that name each volume's stimulus, first found wins
_LABEL_COLUMNS = ("stimulus_id", "stim_file", "trial_type", "condition", "label")


def _same_entity(key: str, have: str | None, want) -> bool:
    """Whether a file's BIDS entity value is the one asked for: a run is an index, so
    ``run=1`` is ``run-01`` (BIDS allows zero padding); other entities compare as text."""
    if have is None:
        return False
    if key == "run" and have.isdigit() and str(want).isdigit():
        return int(have) == int(want)
    return have == str(want)


def _parse_bids(name: str) -> tuple[dict, str]:
    stem = re.sub(r"\.nii(\.gz)?$", "", name)
    parts = stem.split("_")
    ents = {}
    for p in parts[:-1]:
        if "-" in p:
            k, v = p.split("-", 1)
            ents[k] = v
    return ents, parts[-1]


def _labels_for(path: Path, ents: dict, suffix: str, n: int) -> list[str] | None:
    stem = re.sub(r"\.nii(\.gz)?$", "", path.name)
    prefix = stem[: -len(suffix) - 1]
    raw = "_".join(f"{k}-{ents[k]}" for k in ("sub", "ses", "task", "acq", "run") if k in ents)
    candidates = [path.with_name(stem + ".tsv"), path.with_name(prefix + "_labels.tsv"),
                  path.with_name(prefix + "_events.tsv"), path.with_name(raw + "_events.tsv")]
    for c in candidates:
        if c.is_file():
            t = read_file(c, lambda p: pd.read_csv(p, sep="\t", dtype=str, keep_default_na=False),
                          kind="BIDS TSV", what="labels table", fix="save it as a tab-separated "
                          "table with a header row and one row per volume")
            col = next((k for k in _LABEL_COLUMNS if k in t.columns), None)
            if col is None:
                raise InvalidDataError(
                    f"{c} has no 'stimulus_id', 'stim_file' or 'trial_type' column (has "
                    f"{list(t.columns)})."
                )
            if len(t) != n:
                raise DimensionError(
                    f"{c} lists {len(t)} rows but {path.name} holds {n} volumes; the labels "
                    "file needs one row per volume, in volume order."
                )
            ids = [v.strip() for v in t[col].tolist()]
            missing = [k + 1 for k, v in enumerate(ids) if v in ("", "n/a")]
            if missing:
                raise InvalidDataError(
                    f"{c}: column {col!r} has no id (empty or 'n/a') in row "
                    f"{first_few(missing)} of {n}; every volume needs its stimulus's id. "
                    "Fill them in, or leave those volumes out of the beta file."
                )
            if col == "stim_file":  # as load_image_folder names pictures: no extension
                ids = [PurePosixPath(v).with_suffix("").as_posix() for v in ids]
            return ids
    return None


@validate_params({"drop_invalid": Boolean()})
def load_bids_betas(
    derivatives_dir: str | os.PathLike,
    subject: str,
    *,
    task: str | None = None,
    session: str | None = None,
    run: str | None = None,
    space: str | None = None,
    desc: str | None = None,
    suffix: str = "beta",
    mask=None,
    roi=None,
    atlas=None,
    drop_invalid: bool = False,
) -> xr.DataArray:
    """Per-trial or per-condition beta maps from a BIDS-derivatives folder.

    Files ``sub-<subject>[_ses-..][_task-..][_run-..][_space-..][_desc-..]_<suffix>.nii[.gz]``
    are found anywhere under ``derivatives_dir`` and filtered by the given entities. A 4-D
    file takes its stimulus ids, one row per volume, from the first existing of
    ``<same name>.tsv``, ``<prefix>_labels.tsv``, ``<prefix>_events.tsv`` or the raw
    ``sub-.._ses-.._task-.._run-.._events.tsv`` next to it (column ``stimulus_id``, else
    BIDS's ``stim_file``, the picture shown, without its extension as
    :func:`toponeuro.stimuli.load_image_folder` names pictures, else ``trial_type``); an
    empty or ``n/a`` id is refused. A 3-D file takes its id from its ``stim-``/``cond-``/``contrast-`` entity.
    Files are read in order of session, run, then name; the ``session``/``run`` of each row
    are stimulus coords, and ids repeated across runs get a ``repetition`` coord.

    Parameters
    ----------
    derivatives_dir : str or Path
        The BIDS-derivatives folder (holding ``sub-<subject>/``).
    subject : str
        ``"01"`` or ``"sub-01"``.
    task, session, run, space, desc : str, optional
        BIDS entity values to keep. A run is an index: ``run=1`` (or ``"1"``, ``"01"``)
        keeps ``run-1`` and ``run-01``, and runs are read in numeric order (2 before 10).
    suffix : str
        File suffix of the beta maps (default ``"beta"``).
    mask : path or image, optional
        As in :func:`load_volume_betas`.
    roi : str or list of str, optional
        As in :func:`load_volume_betas`.
    atlas : toponeuro.atlases.Atlas, optional
        As in :func:`load_volume_betas`.
    drop_invalid : bool
        As in :func:`load_volume_betas`.

    Returns
    -------
    xarray.DataArray
        BrainResponses with voxel coords ``x``, ``y``, ``z`` (mm).

    Examples
    --------
    >>> import tempfile, pathlib, nibabel as nib, numpy as np
    >>> d = pathlib.Path(tempfile.mkdtemp()) / "sub-01" / "func"; d.mkdir(parents=True)
    >>> for c in ["face", "house"]:
    ...     v = np.random.default_rng(len(c)).standard_normal((2, 2, 2)).astype("f4")
    ...     nib.save(nib.Nifti1Image(v, np.eye(4)), d / f"sub-01_task-floc_cond-{c}_beta.nii.gz")
    >>> load_bids_betas(d.parent.parent, "01").stimulus_id.values.tolist()
    ['face', 'house']
    """
    root = Path(derivatives_dir)
    if not root.is_dir():
        raise MissingFileError(
            f"BIDS derivatives folder {root} does not exist; pass the folder that holds the "
            "sub-<label>/ folders of beta maps."
        )
    sub = subject[4:] if str(subject).startswith("sub-") else str(subject)
    wanted = {"ses": session, "task": task, "run": run, "space": space, "desc": desc}
    files, found_any = [], []
    for p in sorted(root.rglob("sub-*.nii*")):
        ents, suf = _parse_bids(p.name)
        found_any.append((ents.get("sub"), suf, ents))
        if ents.get("sub") != sub or suf != suffix:
            continue
        if any(v is not None and not _same_entity(k, ents.get(k), v) for k, v in wanted.items()):
            continue
        files.append((p, ents))
    if not files:
        subs = sorted({s for s, _, _ in found_any if s})
        sufs = sorted({s for _, s, _ in found_any})
        if sub not in subs:
            hint = f"subject={subject!r}: {close_matches(sub, subs)} (subjects found: {subs})"
        elif suffix not in sufs:
            hint = "pass suffix= one of the suffixes found: " + ", ".join(
                f"suffix={x!r}" for x in sufs)
        else:
            found = [e for s_, x, e in found_any if s_ == sub and x == suffix]
            hint = "values found: " + "; ".join(
                f"{k}= {sorted({e.get(ent) for e in found if ent in e})}"
                for k, ent in (("session", "ses"), ("task", "task"), ("run", "run"),
                               ("space", "space"), ("desc", "desc"))
                if wanted[ent] is not None)
        raise UnknownNameError(
            f"No '{suffix}' maps for sub-{sub} under {root} matching "
            f"{ {k: v for k, v in wanted.items() if v} }; {hint}"
        )

    def order(item):  # run-2 before run-10: a run is an index (BIDS)
        p, e = item
        run = e.get("run", "")
        return (e.get("ses", ""), e.get("task", ""), (0, int(run), "") if run.isdigit()
                else (1, 0, run), p.name)

    files.sort(key=order)
    blocks, ids, sessions, runs, ref = [], [], [], [], None
    for p, ents in files:
        img = load_brain_image(p, "beta map")
        data = _get_data(img, f"beta map {p.name}")
        if data.ndim == 3:
            key = next((k for k in _ID_ENTITIES if k in ents), None)
            if key is None:
                labels = _labels_for(p, ents, suffix, 1)
                if labels is None:
                    raise InvalidDataError(
                        f"{p.name} is a 3-D map without a stim-/cond-/contrast- entity or a "
                        "labels .tsv; name it like sub-01_cond-face_beta.nii.gz."
                    )
            else:
                labels = [ents[key]]
            data = data[..., None]
        elif data.ndim == 4:
            labels = _labels_for(p, ents, suffix, data.shape[3])
            if labels is None:
                raise InvalidDataError(
                    f"{p.name} holds {data.shape[3]} volumes but no labels file was found "
                    f"(looked for {p.name.split('.')[0]}.tsv, *_labels.tsv, *_events.tsv); add a "
                    "tsv with a 'stimulus_id' column, one row per volume."
                )
        else:
            raise DimensionError(f"{p.name} has shape {data.shape}; expected a 3-D or 4-D map.")
        if ref is None:
            ref = (data.shape, img.affine)
        elif not _same_grid(data.shape, img.affine, *ref):
            raise AlignmentError(
                f"{p.name} is on another grid than {files[0][0].name}; resample to one grid."
            )
        blocks.append(data)
        ids.extend(labels)
        sessions.extend([ents.get("ses", "")] * len(labels))
        runs.extend([ents.get("run", "")] * len(labels))
    data4d = np.concatenate(blocks, axis=3)
    return _volume_responses(
        data4d, ref[1], ids, mask=mask, roi=roi, atlas=atlas, subject=f"sub-{sub}",
        categories=None, stimulus_coords={"session": sessions, "run": runs},
        drop_invalid=drop_invalid, attrs={"source": str(root)},
    )
