"""The Natural Scenes Dataset (Allen et al., 2022): single-trial betas and noise ceilings.

On-disk layout read here (the NSD data manual):

- ``nsddata/experiments/nsd/nsd_expdesign.mat``: ``masterordering`` (1 x 30000, 1-based
  positions in the subject's 10,000 images), ``subjectim`` (8 x 10000, 1-based 73k ids),
  ``sharedix`` (1-based 73k ids of the shared 1,000).
- ``nsddata_betas/ppdata/subjAA/<space>/<glm>/betas_sessionNN.nii.gz`` (X x Y x Z x 750,
  int16 = percent signal change x 300) or ``.hdf5`` (``/betas``, stored 750 x Z x Y x X),
  ``ncsnr.nii.gz``; for ``fsaverage``: ``[lh,rh].betas_sessionNN.mgh`` (163842 x 1 x 1 x 750,
  float32 percent signal change) and ``[lh,rh].ncsnr.mgh``.
- ``nsddata/ppdata/subjAA/<space>/brainmask.nii.gz`` and ``.../roi/<name>.nii.gz``;
  ``nsddata/freesurfer/fsaverage/label/[lh,rh].<name>.mgz``; ``<name>.mgz.ctab`` names.
"""

from __future__ import annotations

import numbers
import os
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import xarray as xr

from .._util import dims as D
from .._util.constraints import MAPPING, ArrayLike
from .._util.params import Boolean, Interval, PathLike, validate_params
from ..exceptions import (
    DimensionError,
    InvalidDataError,
    MissingFileError,
    OutOfRangeError,
    UnknownNameError,
    UnreadableFileError,
    close_matches,
    first_few,
)
from ._responses import handle_invalid, make_brain_responses, zscore_within
from ._volume import _get_data, _same_grid, load_brain_image

__all__ = [
    "load_nsd_betas",
    "read_nsd_expdesign",
    "nsd_trial_images",
    "nsd_noise_ceiling",
    "NSD_SPACES",
    "NSD_TRIALS_PER_SESSION",
    "NSD_BETA_SCALE",
]

NSD_SPACES = ("func1pt8mm", "func1mm", "fsaverage")
NSD_TRIALS_PER_SESSION = 750
NSD_BETA_SCALE = 300.0


def _subj(subject) -> int:
    s = str(subject).lower().replace("subj", "").replace("sub-", "")
    try:
        k = int(s)
    except ValueError:
        raise UnknownNameError(f"NSD subject {subject!r}: use 1..8 or 'subj01'.") from None
    if not 1 <= k <= 8:
        raise UnknownNameError(f"NSD has subjects 1..8; got {subject!r}.")
    return k


@validate_params(dict(path=PathLike()))
def read_nsd_expdesign(path: str | os.PathLike) -> dict:
    """``masterordering``, ``subjectim`` and ``sharedix`` of ``nsd_expdesign.mat`` (1-based).

    Parameters
    ----------
    path : path-like
        NSD's ``nsd_expdesign.mat``.

    Returns
    -------
    dict
        ``masterordering`` (trial -> 1-based index into the subject's 10,000 images),
        ``subjectim`` (subject x 10,000 1-based 73k ids) and, when the file has it,
        ``sharedix`` (the shared images), as integer arrays.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from scipy.io import savemat
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "nsd_expdesign.mat"
    >>> savemat(p, {"masterordering": [[3, 1, 3]], "subjectim": [[5, 9, 7]], "sharedix": [[5]]})
    >>> d = read_nsd_expdesign(p)
    >>> d["masterordering"].tolist(), d["subjectim"].tolist()
    ([3, 1, 3], [[5, 9, 7]])
    """
    from scipy.io import loadmat

    path = Path(path)
    if not path.is_file():
        raise MissingFileError(
            f"{path} does not exist; it ships with NSD in nsddata/experiments/nsd/."
        )
    try:
        mat = loadmat(path)
    except Exception as err:  # scipy raises ValueError/MatReadError/TypeError on bad files
        raise UnreadableFileError(
            f"{path} is not a readable .mat file ({err}); download NSD's "
            "nsddata/experiments/nsd/nsd_expdesign.mat again."
        ) from err
    for key in ("masterordering", "subjectim"):
        if key not in mat:
            raise InvalidDataError(f"{path} lacks {key!r}; is it NSD's nsd_expdesign.mat?")
    out = {
        "masterordering": np.asarray(mat["masterordering"]).ravel().astype(np.int64),
        "subjectim": np.atleast_2d(np.asarray(mat["subjectim"])).astype(np.int64),
    }
    if "sharedix" in mat:
        out["sharedix"] = np.asarray(mat["sharedix"]).ravel().astype(np.int64)
    return out


def _checked_sessions(sessions, n_sessions: int) -> list[int]:
    """``sessions=`` as a list of distinct 1-based session numbers within ``1..n_sessions``."""
    sessions = [sessions] if np.isscalar(sessions) else list(sessions)
    if not sessions:
        raise DimensionError("sessions= is empty; give at least one session, e.g. sessions=[1].")
    out = []
    for s in sessions:
        try:
            v = float(s)
        except (TypeError, ValueError):
            v = float("nan")
        if not (v.is_integer() and 1 <= v <= n_sessions):
            raise OutOfRangeError(
                f"sessions= must hold session numbers 1..{n_sessions} (1-based, as in "
                f"betas_sessionNN); got {s!r}."
            )
        out.append(int(v))
    if len(set(out)) < len(out):
        dup = sorted({s for s in out if out.count(s) > 1})
        raise InvalidDataError(
            f"sessions= names session {first_few(dup)} twice; its trials would count as "
            "repetitions of their images (and raise the noise ceiling). Give each session once."
        )
    return out


@validate_params(dict(expdesign=MAPPING))
def nsd_trial_images(expdesign: dict, subject, sessions: Iterable[int]) -> tuple:
    """0-based 73k image index and 0-based global trial number of each trial of ``sessions``.

    Parameters
    ----------
    expdesign : dict
        What :func:`read_nsd_expdesign` returned.
    subject : int or str
        The NSD subject (``1``..``8`` or ``"subj01"``).
    sessions : iterable of int
        1-based session numbers (:data:`NSD_TRIALS_PER_SESSION` trials each).

    Returns
    -------
    images : numpy.ndarray
        The 0-based 73k image index of each trial.
    trials : numpy.ndarray
        The 0-based global trial number of each trial.

    Examples
    --------
    >>> design = {"masterordering": np.array([2, 1, 2, 3] * 1500),
    ...           "subjectim": np.tile(np.arange(1, 10001) * 7, (8, 1))}
    >>> img, trial = nsd_trial_images(design, 1, [1])
    >>> img[:4].tolist(), trial[:2].tolist()
    ([13, 6, 13, 20], [0, 1])
    """
    k = _subj(subject)
    mo, si = expdesign["masterordering"], expdesign["subjectim"]
    sessions = _checked_sessions(sessions, len(mo) // NSD_TRIALS_PER_SESSION)
    trials = np.concatenate(
        [np.arange((s - 1) * NSD_TRIALS_PER_SESSION, s * NSD_TRIALS_PER_SESSION) for s in sessions]
    )
    im10k = mo[trials]  # 1-based into the subject's 10k images
    ids73k = si[k - 1, im10k - 1]  # 1-based 73k ids
    return ids73k - 1, trials


@validate_params(dict(ncsnr=ArrayLike(scalar=True),
                      n_trials=[ArrayLike(), Interval(numbers.Real, 1, None, closed="left")]))
def nsd_noise_ceiling(ncsnr, n_trials) -> np.ndarray:
    """NSD's noise ceiling (percent of variance) from ``ncsnr``.

    ``NC = 100 * ncsnr**2 / (ncsnr**2 + mean(1 / n_i))`` where ``n_i`` is the number of trials
    averaged for image ``i`` (one number for all images, or one per image). With 3 trials per
    image this is the NSD manual's ``100 * ncsnr**2 / (ncsnr**2 + 1/3)``.

    Parameters
    ----------
    ncsnr : float or array
        The noise-ceiling SNR (:func:`ncsnr`), per voxel.
    n_trials : int or sequence of int
        Trials averaged per image (one number for all, or one per image).

    Returns
    -------
    numpy.ndarray
        The ceiling in percent of variance, the shape of ``ncsnr``.

    Raises
    ------
    InvalidDataError
        An image with fewer than one trial.

    Examples
    --------
    >>> nsd_noise_ceiling(np.array([0.0, 1.0]), 3).round(2).tolist()
    [0.0, 75.0]
    >>> round(float(nsd_noise_ceiling(1.0, [3, 1])), 6)  # mean(1/3, 1) = 2/3
    60.0
    """
    ncsnr = np.asarray(ncsnr, dtype=np.float64)
    n = np.atleast_1d(np.asarray(n_trials, dtype=np.float64))
    if (n < 1).any():
        raise InvalidDataError("Every image needs at least one trial.")
    k = float(np.mean(1.0 / n))
    return 100.0 * ncsnr**2 / (ncsnr**2 + k)


def _read_ctab(path: Path) -> dict[str, int]:
    out = {}
    for line in path.read_text().splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0].lstrip("-").isdigit():
            out[parts[1]] = int(parts[0])
    return out


def _roi_spec(roi):
    if roi is None:
        return []
    return [roi] if isinstance(roi, str) else list(roi)


def _select_rois(rois, read_labels, ctab_of, shape):
    """Union mask of NSD ROI specs (``name`` or ``name/label``) and the ROI name per voxel.

    ``read_labels(name)`` returns the label array of that ROI file (of ``shape``) and
    ``ctab_of(name)`` the path of its colour table (label name -> value); one lookup for the
    volume and the fsaverage ROIs.
    """
    names = np.full(shape, "", dtype=object)
    keep = np.zeros(shape, dtype=bool)
    for spec in rois:
        fname, _, label = spec.partition("/")
        data = read_labels(fname)
        if label:
            ctab = ctab_of(fname)
            lut = _read_ctab(ctab) if ctab.is_file() else {}
            if label not in lut:
                raise UnknownNameError(
                    f"ROI {fname!r} has no label {label!r} ({ctab}); "
                    f"{close_matches(label, [n for n in lut if lut[n] > 0])}"
                )
            sel = data == lut[label]
        else:
            sel = data > 0
        names[sel & ~keep] = spec
        keep |= sel
    return keep, names


def _volume_roi_mask(root: Path, k: int, space: str, rois, shape, affine):
    """Union mask of NSD ROI files (``name`` or ``name/label``) and the ROI name per voxel."""
    roi_dir = root / "nsddata" / "ppdata" / f"subj{k:02d}" / space / "roi"
    available = (
        sorted(p.name.split(".nii")[0] for p in roi_dir.glob("*.nii*")) if roi_dir.is_dir() else []
    )

    def read_labels(fname):
        path = next(
            (p for p in (roi_dir / f"{fname}.nii.gz", roi_dir / f"{fname}.nii") if p.is_file()),
            None,
        )
        if path is None:
            raise UnknownNameError(
                f"No NSD ROI file {fname!r} in {roi_dir}; {close_matches(fname, available)}"
            )
        img = load_brain_image(path, f"ROI {fname}")
        data = _get_data(img, f"ROI {fname}")
        if not _same_grid(data.shape, img.affine, shape, affine):
            raise DimensionError(f"ROI {path} is not on the grid of the {space} betas.")
        return data

    label_dir = root / "nsddata" / "freesurfer" / f"subj{k:02d}" / "label"
    return _select_rois(rois, read_labels, lambda f: label_dir / f"{f}.mgz.ctab", shape[:3])


def _bbox(keep):
    idx = np.argwhere(keep)
    lo, hi = idx.min(0), idx.max(0) + 1
    return tuple(slice(int(a), int(b)) for a, b in zip(lo, hi))


def _read_session_volume(glm_dir: Path, session: int, fmt: str, bbox, ref_shape):
    """(x, y, z, 750) int16/float betas of one session inside the bounding box."""
    stem = f"betas_session{session:02d}"
    if fmt == "hdf5":
        import h5py

        path = glm_dir / f"{stem}.hdf5"
        if not path.is_file():
            raise MissingFileError(
                f"NSD betas {path} not found; download that session's betas from NSD's "
                "nsddata_betas (same name) or leave the session out of sessions=."
            )
        try:
            with h5py.File(path, "r") as f:
                ds = f["betas"]
                expected = (NSD_TRIALS_PER_SESSION, *ref_shape[:3][::-1])
                if ds.shape != expected:
                    raise DimensionError(
                        f"{path}:/betas has shape {ds.shape}; expected {expected} (750 trials x "
                        "Z x Y x X, the transpose of MATLAB's X x Y x Z x 750)."
                    )
                sx, sy, sz = bbox
                block = ds[:, sz, sy, sx]
        except OSError as err:
            raise UnreadableFileError(
                f"{path} is not a readable HDF5 file ({err}); it is truncated or corrupt. "
                "Download that session's betas again."
            ) from err
        return np.transpose(block, (3, 2, 1, 0))
    path = glm_dir / f"{stem}.nii.gz"
    if not path.is_file():
        path = glm_dir / f"{stem}.nii"
    if not path.is_file():
        raise MissingFileError(
            f"NSD betas {glm_dir / stem}.nii.gz not found; download that session's betas from "
            "NSD's nsddata_betas (same name) or leave the session out of sessions=."
        )
    img = load_brain_image(path, f"NSD betas session {session}")
    if len(img.shape) != 4 or img.shape[3] != NSD_TRIALS_PER_SESSION:
        raise DimensionError(
            f"{path} has shape {img.shape}; NSD betas are 4-D with {NSD_TRIALS_PER_SESSION} trials."
        )
    if not _same_grid(img.shape, img.affine, ref_shape, img.affine):
        raise DimensionError(f"{path} has grid {img.shape[:3]}; the mask has {ref_shape[:3]}.")
    try:
        return np.asarray(img.dataobj[bbox + (slice(None),)])
    except Exception as err:
        raise UnreadableFileError(
            f"Cannot read {path} ({type(err).__name__}: {err}); it is truncated or corrupt. "
            "Download that session's betas again."
        ) from err


@validate_params({"noise_ceiling": Boolean(), "zscore": Boolean(), "drop_invalid": Boolean()})
def load_nsd_betas(
    nsd_dir: str | os.PathLike,
    subject,
    sessions: int | Iterable[int],
    space: str = "func1pt8mm",
    roi: str | Iterable[str] | None = None,
    *,
    glm: str = "betas_fithrf_GLMdenoise_RR",
    fmt: str | None = None,
    noise_ceiling: bool = True,
    zscore: bool = False,
    drop_invalid: bool = False,
) -> xr.DataArray:
    """NSD single-trial betas of one subject -> BrainResponses, one row per trial.

    Trials keep their order; each row's ``stimulus_id`` is ``"nsd-<0-based 73k index>"``
    (the ids of :func:`toponeuro.stimuli.load_nsd_stimuli`), repeated images get a
    ``repetition`` coord (0, 1, 2), and ``session`` / ``trial`` / ``shared1000`` are stimulus
    coords. Use :func:`toponeuro.brain.average_repetitions` before aligning with features.

    Parameters
    ----------
    nsd_dir : str or Path
        The NSD root (holding ``nsddata`` and ``nsddata_betas``).
    subject : int or str
        1..8 or ``"subj01"``.
    sessions : int or iterable of int
        1-based session numbers, each once (``betas_sessionNN``).
    space : {"func1pt8mm", "func1mm", "fsaverage"}
    roi : str or list of str, optional
        NSD ROI files (``"nsdgeneral"``, ``"floc-faces"``) or one label of them
        (``"floc-faces/FFA-1"``, named by the ``.mgz.ctab``). Volumes default to
        ``brainmask.nii.gz``; fsaverage to every vertex.
    glm : str
        Beta version folder.
    fmt : {"nii.gz", "hdf5"}, optional
        Volume file format; default the one present, chosen for each session (NIfTI
        preferred), so sessions downloaded as ``.hdf5`` and others as ``.nii.gz`` load
        together.
    noise_ceiling : bool
        Read ``ncsnr`` and add voxel coords ``ncsnr`` and ``noise_ceiling`` (percent, for the
        average of the trials loaded per image, :func:`nsd_noise_ceiling`).
    zscore : bool
        Z-score each voxel within each session (NSD's usual normalisation).
    drop_invalid : bool
        As in :func:`toponeuro.brain.load_volume_betas`.

    Returns
    -------
    xarray.DataArray
        Percent signal change (int16 files are divided by 300).

    Examples
    --------
    >>> r = load_nsd_betas("/data/NSD", "subj01", [1, 2], roi="floc-faces")  # doctest: +SKIP
    >>> NSD_SPACES  # the spaces it reads
    ('func1pt8mm', 'func1mm', 'fsaverage')
    """
    root = Path(nsd_dir)
    k = _subj(subject)
    if space not in NSD_SPACES:
        raise UnknownNameError(f"NSD space {space!r}; {close_matches(space, NSD_SPACES)}")
    ids, stim_coords, counts, sessions = _nsd_trials(root, k, sessions)
    glm_dir = root / "nsddata_betas" / "ppdata" / f"subj{k:02d}" / space / glm
    if not glm_dir.is_dir():
        raise MissingFileError(
            f"NSD betas folder {glm_dir} does not exist; nsd_dir must be the NSD root that "
            f"holds nsddata/ and nsddata_betas/ (check subject, space={space!r} and glm)."
        )
    if space == "fsaverage":
        da = _nsd_surface(root, glm_dir, sessions, ids, roi, stim_coords, k)
        if noise_ceiling:
            da = _with_surface_ceiling(da, glm_dir, counts)
        da = da.drop_vars("_index")
    else:
        da = _nsd_volume(root, glm_dir, k, (space, glm), sessions, ids, roi, fmt, stim_coords,
                         counts if noise_ceiling else None)
    da = handle_invalid(da, drop_invalid, f"NSD betas (subj{k:02d}, {space})")
    if "noise_ceiling" in da.coords:  # so encoding_score(ceiling=) can check the units
        da.coords["noise_ceiling"].attrs.update(units="percent variance",
                                                reference="Allen et al. 2022 (NSD)")
    if zscore:
        da = zscore_within(da, "session")
        da.attrs["units"] = "z-scored within session"
    return da


def _nsd_trials(root: Path, k: int, sessions):
    """``(ids, stimulus coords, trials per image, sessions)`` of subject ``k``'s ``sessions``."""
    design = read_nsd_expdesign(root / "nsddata" / "experiments" / "nsd" / "nsd_expdesign.mat")
    sessions = _checked_sessions(sessions, len(design["masterordering"]) // NSD_TRIALS_PER_SESSION)
    img_idx, trials = nsd_trial_images(design, k, sessions)
    ids = [f"nsd-{i:05d}" for i in img_idx]
    stim_coords = {"session": np.repeat(sessions, NSD_TRIALS_PER_SESSION), "trial": trials}
    if "sharedix" in design:
        stim_coords["shared1000"] = np.isin(img_idx + 1, design["sharedix"])
    _, counts = np.unique(img_idx, return_counts=True)
    return ids, stim_coords, counts, sessions


def _with_surface_ceiling(da, glm_dir: Path, counts):
    """fsaverage responses with the ``ncsnr`` and ``noise_ceiling`` voxel coords."""
    nc = np.concatenate([
        np.asarray(load_brain_image(glm_dir / f"{h}.ncsnr.mgh", "NSD ncsnr").dataobj).ravel()
        for h in ("lh", "rh")
    ])
    keep_idx = da["_index"].values
    return da.assign_coords(
        ncsnr=(D.VOXEL, nc[keep_idx].astype(np.float32)),
        noise_ceiling=(D.VOXEL, nsd_noise_ceiling(nc[keep_idx], counts).astype(np.float32)),
    )


def _betas_float(x: np.ndarray) -> np.ndarray:
    """NSD betas as float32: an int16 file's values divided by :data:`NSD_BETA_SCALE`
    (percent signal change); a float file's as they are."""
    if x.dtype == np.int16:
        return x.astype(np.float32) / NSD_BETA_SCALE
    return x.astype(np.float32)


def _volume_format(glm_dir: Path, session: int, fmt: str | None) -> str:
    """One session's betas file format: ``fmt`` checked, default the one present for that
    session (NIfTI preferred), so sessions downloaded in different formats load together."""
    if fmt is not None and fmt not in ("nii.gz", "hdf5"):
        raise UnknownNameError(f"fmt={fmt!r}; use 'nii.gz' or 'hdf5' (or None: the one present).")
    stem = glm_dir / f"betas_session{session:02d}"
    have = {
        "nii.gz": any(Path(f"{stem}{ext}").is_file() for ext in (".nii.gz", ".nii")),
        "hdf5": Path(f"{stem}.hdf5").is_file(),
    }
    if fmt is None:
        if not any(have.values()):
            raise MissingFileError(
                f"NSD betas {stem}.nii.gz (or {stem.name}.hdf5) not found; download session "
                f"{session}'s betas from NSD's nsddata_betas (either format, same name) or "
                "leave the session out of sessions=."
            )
        return "nii.gz" if have["nii.gz"] else "hdf5"
    other = "hdf5" if fmt == "nii.gz" else "nii.gz"
    if not have[fmt] and have[other]:
        raise MissingFileError(
            f"NSD betas {stem}.{fmt} not found, but {stem.name}.{other} is there; pass "
            f"fmt=None to read each session in the format present, or fmt={other!r}."
        )
    return fmt


def _nsd_volume(root, glm_dir, k, space_glm, sessions, ids, roi, fmt, stim_coords, counts):
    """Volume betas inside the ROI (default the brain mask); ``counts``: add the ceiling."""
    space, glm = space_glm
    pp = root / "nsddata" / "ppdata" / f"subj{k:02d}" / space
    ref = load_brain_image(pp / "brainmask.nii.gz", "NSD brain mask")
    shape, affine = ref.shape[:3], ref.affine
    rois = _roi_spec(roi)
    if rois:
        keep, names = _volume_roi_mask(root, k, space, rois, shape, affine)
    else:
        keep = _get_data(ref, "NSD brain mask") > 0
        names = np.full(shape, "brainmask", dtype=object)
    if not keep.any():
        raise InvalidDataError(f"The ROI/mask {roi or 'brainmask'} selects no voxel.")
    bbox = _bbox(keep)
    sub_keep = keep[bbox]
    blocks = []
    for s in sessions:
        vol = _read_session_volume(glm_dir, s, _volume_format(glm_dir, s, fmt), bbox, shape)
        x = vol[sub_keep].T  # (750, n_voxels), C order of the mask = nilearn's order
        blocks.append(_betas_float(x))
    ijk = np.argwhere(keep)
    import nibabel as nib

    xyz = nib.affines.apply_affine(affine, ijk)
    vc = {"i": ijk[:, 0], "j": ijk[:, 1], "k": ijk[:, 2]}
    if counts is not None:
        nimg = load_brain_image(glm_dir / "ncsnr.nii.gz", "NSD ncsnr")
        nc = _get_data(nimg, "NSD ncsnr")
        if not _same_grid(nc.shape, nimg.affine, shape, affine):
            raise DimensionError(
                f"{glm_dir / 'ncsnr.nii.gz'} has grid {nc.shape}; the {space} brain mask has "
                f"{tuple(shape)}. Use the ncsnr of this space and glm, or noise_ceiling=False."
            )
        nc = nc[keep].astype(np.float64)
        vc["ncsnr"] = nc.astype(np.float32)
        vc["noise_ceiling"] = nsd_noise_ceiling(nc, counts).astype(np.float32)
    return make_brain_responses(
        np.concatenate(blocks, axis=0),
        ids,
        subject=f"subj{k:02d}",
        roi=names[keep].astype(str),
        xyz=xyz,
        stimulus_coords=stim_coords,
        voxel_coords=vc,
        attrs={
            "dataset": "NSD",
            "space": space,
            "glm": glm,
            "units": "percent signal change",
        },
    )


def _nsd_surface(root, glm_dir, sessions, ids, roi, stim_coords, k):
    from ._surface import read_surface_data

    per_hemi = {}
    for h in ("lh", "rh"):
        blocks = []
        for s in sessions:
            data = read_surface_data(glm_dir / f"{h}.betas_session{s:02d}.mgh")
            if data.shape[1] != NSD_TRIALS_PER_SESSION:
                raise DimensionError(
                    f"{h}.betas_session{s:02d}.mgh holds {data.shape[1]} maps; expected 750."
                )
            blocks.append(_betas_float(data))
        per_hemi[h] = np.concatenate(blocks, axis=1)
    n_vert = per_hemi["lh"].shape[0]
    hemi = np.repeat(["left", "right"], n_vert)
    vertex = np.tile(np.arange(n_vert), 2)
    x = np.concatenate([per_hemi["lh"], per_hemi["rh"]], axis=0).T
    rois = _roi_spec(roi)
    if rois:
        label_dir = root / "nsddata" / "freesurfer" / "fsaverage" / "label"
        available = (
            sorted({p.name[3:].split(".mgz")[0] for p in label_dir.glob("lh.*.mgz")})
            if label_dir.is_dir()
            else []
        )

        def read_labels(fname):
            files = [label_dir / f"{h}.{fname}.mgz" for h in ("lh", "rh")]
            if not all(f.is_file() for f in files):
                raise UnknownNameError(
                    f"No NSD fsaverage ROI {fname!r} in {label_dir}; "
                    f"{close_matches(fname, available)}"
                )
            return np.concatenate(
                [np.asarray(load_brain_image(f, "NSD ROI").dataobj).ravel() for f in files]
            )

        keep, names = _select_rois(
            rois, read_labels, lambda f: label_dir / f"{f}.mgz.ctab", (2 * n_vert,)
        )
    else:
        keep, names = np.ones(2 * n_vert, dtype=bool), np.full(2 * n_vert, "", dtype=object)
    idx = np.flatnonzero(keep)
    return make_brain_responses(
        x[:, idx],
        ids,
        subject=f"subj{k:02d}",
        roi=names[idx].astype(str),
        hemi=hemi[idx],
        vertex=vertex[idx],
        stimulus_coords=stim_coords,
        voxel_coords={"_index": idx},
        attrs={"dataset": "NSD", "space": "fsaverage", "units": "percent signal change"},
    )
