"""Volume and BIDS beta loaders: real on-disk formats with planted values, and bad input."""

from __future__ import annotations

import gzip

import nibabel as nib
import numpy as np
import pandas as pd
import pytest
import xarray as xr

from toponeuro._util.align import align_stimuli
from toponeuro.atlases import Atlas
from toponeuro.brain import (
    average_repetitions,
    check_responses,
    load_bids_betas,
    load_volume_betas,
    make_brain_responses,
)
from toponeuro.exceptions import (
    AlignmentError,
    CoordinateError,
    DimensionError,
    InvalidDataError,
    UnknownNameError,
)

AFFINE = np.array([[2.0, 0, 0, -10], [0, 2, 0, -20], [0, 0, 2, -4], [0, 0, 0, 1]])
SHAPE = (4, 5, 3)


def _planted(n=3):
    """value = 100*stimulus + 10*i + j + k/10 (never constant, easy to decode)."""
    i, j, k = np.meshgrid(*[np.arange(s) for s in SHAPE], indexing="ij")
    return np.stack([100 * s + 10 * i + j + k / 10 for s in range(n)], axis=-1).astype(np.float32)


def test_4d_file_values_coords_and_nilearn_parity(tmp_path):
    from nilearn.maskers import NiftiMasker

    p = tmp_path / "betas.nii.gz"
    nib.save(nib.Nifti1Image(_planted(), AFFINE), p)
    mask = np.zeros(SHAPE, np.uint8)
    mask[1:3, 2:4, 1] = 1
    mp = tmp_path / "mask.nii.gz"
    nib.save(nib.Nifti1Image(mask, AFFINE), mp)
    r = load_volume_betas(p, ["a", "b", "c"], mask=mp, subject="sub-07")
    check_responses(r)
    assert r.dims == ("stimulus", "voxel") and r.shape == (3, 4)
    i, j, k = r.i.values, r.j.values, r.k.values
    np.testing.assert_allclose(r.values[2], 200 + 10 * i + j + k / 10, rtol=1e-6)
    np.testing.assert_allclose(r.x.values, 2 * i - 10)
    np.testing.assert_allclose(r.y.values, 2 * j - 20)
    np.testing.assert_allclose(r.z.values, 2 * k - 4)
    assert set(r.subject.values) == {"sub-07"} and set(r.roi.values) == {"mask"}
    ref = NiftiMasker(mask_img=str(mp), standardize=None).fit_transform(str(p))
    np.testing.assert_allclose(r.values, ref)


def test_list_of_3d_maps_equals_4d(tmp_path):
    data = _planted()
    paths = []
    for s in range(3):
        paths.append(tmp_path / f"b{s}.nii")
        nib.save(nib.Nifti1Image(data[..., s], AFFINE), paths[-1])
    a = load_volume_betas(paths, ["a", "b", "c"])
    b = load_volume_betas(nib.Nifti1Image(data, AFFINE), ["a", "b", "c"])
    xr.testing.assert_identical(a.drop_attrs(), b.drop_attrs())
    assert a.sizes["voxel"] == np.prod(SHAPE)


def test_roi_from_atlas_and_close_matches(tmp_path):
    lab = np.zeros(SHAPE, np.int16)
    lab[0, :, :] = 1
    lab[3, 0, 0] = 2
    table = pd.DataFrame({"label": [1, 2], "roi": ["lh_FFA", "rh_PPA"], "name": ["FFA", "PPA"],
                          "hemisphere": ["left", "right"], "domain": ["faces", "places"]})
    atlas = Atlas("toy", "MNI152", lab, table, affine=AFFINE)
    img = nib.Nifti1Image(_planted(), AFFINE)
    r = load_volume_betas(img, list("abc"), roi=["faces", "PPA"], atlas=atlas)
    assert r.sizes["voxel"] == 16
    assert (r.roi.values == "lh_FFA").sum() == 15 and (r.roi.values == "rh_PPA").sum() == 1
    assert (r.i.values[r.roi.values == "lh_FFA"] == 0).all()
    with pytest.raises(UnknownNameError, match="'FFA'"):
        load_volume_betas(img, list("abc"), roi="FFB", atlas=atlas)


def test_roi_from_real_visfatlas_resampled_to_2mm():
    mni2 = np.array([[-2.0, 0, 0, 90], [0, 2, 0, -126], [0, 0, 2, -72], [0, 0, 0, 1]])
    rng = np.random.default_rng(0)
    img = nib.Nifti1Image(rng.standard_normal((91, 109, 91, 2)).astype(np.float32), mni2)
    r = load_volume_betas(img, ["a", "b"], roi="lh_mFus")
    assert r.sizes["voxel"] > 5
    assert (r.x.values < 0).all() and set(r.roi.values) == {"lh_mFus"}


def test_bad_files(tmp_path):
    junk = tmp_path / "junk.nii.gz"
    junk.write_bytes(b"definitely not a nifti")
    with pytest.raises(InvalidDataError, match="not a readable"):
        load_volume_betas(junk, ["a"])
    txt = tmp_path / "notes.txt"
    txt.write_text("hello")
    with pytest.raises(InvalidDataError):
        load_volume_betas(txt, ["a"])
    good = tmp_path / "good.nii.gz"
    nib.save(nib.Nifti1Image(_planted(), AFFINE), good)
    raw = gzip.decompress(good.read_bytes())
    trunc = tmp_path / "trunc.nii.gz"
    trunc.write_bytes(gzip.compress(raw[: len(raw) // 2]))
    with pytest.raises(InvalidDataError, match="truncated or corrupt"):
        load_volume_betas(trunc, list("abc"))
    with pytest.raises(FileNotFoundError):
        load_volume_betas(tmp_path / "missing.nii.gz", ["a"])


def test_3d_4d_confusion_and_counts(tmp_path):
    data = _planted()
    with pytest.raises(DimensionError, match="one 3-D beta map but 3"):
        load_volume_betas(nib.Nifti1Image(data[..., 0], AFFINE), list("abc"))
    with pytest.raises(DimensionError, match="pass it alone"):
        load_volume_betas([nib.Nifti1Image(data, AFFINE)], list("abc"))
    with pytest.raises(DimensionError, match="3 volumes but 2"):
        load_volume_betas(nib.Nifti1Image(data, AFFINE), ["a", "b"])


def test_mask_grid_mismatch(tmp_path):
    img = nib.Nifti1Image(_planted(), AFFINE)
    shifted = AFFINE.copy()
    shifted[0, 3] += 2
    with pytest.raises(AlignmentError, match="resample_to_img"):
        load_volume_betas(img, list("abc"), mask=nib.Nifti1Image(np.ones(SHAPE, np.uint8), shifted))
    with pytest.raises(AlignmentError):
        load_volume_betas(img, list("abc"), mask=nib.Nifti1Image(np.ones((4, 5, 2), np.uint8), AFFINE))
    with pytest.raises(InvalidDataError, match="all zeros"):
        load_volume_betas(img, list("abc"), mask=nib.Nifti1Image(np.zeros(SHAPE, np.uint8), AFFINE))


def test_invalid_voxels_raise_or_drop():
    data = _planted()
    data[0, 0, 0, 1] = np.nan
    data[1, 1, 1, :] = 5.0
    img = nib.Nifti1Image(data, AFFINE)
    with pytest.raises(InvalidDataError, match=r"2 of 60 voxels.*1 with NaN.*1 constant") as e:
        load_volume_betas(img, list("abc"))
    assert "xyz=(-10, -20, -4)" in str(e.value) and "drop_invalid=True" in str(e.value)
    with pytest.warns(UserWarning, match="excluded"):
        r = load_volume_betas(img, list("abc"), drop_invalid=True)
    assert r.sizes["voxel"] == 58 and r.attrs["n_invalid_dropped"] == 2


def test_repeats_alignment_and_average():
    img = nib.Nifti1Image(_planted(3), AFFINE)
    r = load_volume_betas(img, ["a", "b", "a"])
    assert r.repetition.values.tolist() == [0, 0, 1]
    feats = xr.DataArray(np.zeros((2, 1)), dims=("stimulus", "unit"),
                         coords={"stimulus_id": ("stimulus", ["b", "a"])})
    with pytest.raises(AlignmentError, match="repeats"):
        align_stimuli(feats, r)
    m = average_repetitions(r)
    _, aligned = align_stimuli(feats, m)
    assert aligned.stimulus_id.values.tolist() == ["b", "a"]
    np.testing.assert_allclose(aligned.values[1], (r.values[0] + r.values[2]) / 2, rtol=1e-6)


def test_make_and_check_responses_errors():
    with pytest.raises(DimensionError, match="one id per row"):
        make_brain_responses(np.zeros((2, 2)), ["a"], xyz=np.zeros((2, 3)))
    with pytest.raises(CoordinateError):
        make_brain_responses(np.zeros((2, 1)), xyz=np.zeros((1, 3)), hemi=["lh"], vertex=[0])
    r = make_brain_responses(np.zeros((2, 1)), hemi="lh", vertex=[3])
    with pytest.raises(DimensionError, match="transpose"):
        check_responses(r.T)
    with pytest.raises(CoordinateError, match="locate"):
        check_responses(r.drop_vars(["hemi", "vertex"]))
    with pytest.raises(CoordinateError):
        make_brain_responses(np.zeros((1, 1)), hemi=["middle"], vertex=[0])


def _bids(tmp_path):
    func = tmp_path / "deriv" / "sub-01" / "ses-1" / "func"
    func.mkdir(parents=True)
    data = _planted(4)
    for run, ids in ((1, ["face1", "house1"]), (2, ["house1", "face1"])):
        stem = f"sub-01_ses-1_task-floc_run-{run}_space-T1w_desc-trials"
        vols = data[..., (run - 1) * 2:(run - 1) * 2 + 2]
        nib.save(nib.Nifti1Image(vols, AFFINE), func / f"{stem}_beta.nii.gz")
        if run == 1:
            pd.DataFrame({"stimulus_id": ids}).to_csv(func / f"{stem}_beta.tsv", sep="\t", index=False)
        else:  # raw-style events file next to it
            pd.DataFrame({"onset": [0, 4], "duration": [2, 2], "trial_type": ids}).to_csv(
                func / f"sub-01_ses-1_task-floc_run-{run}_events.tsv", sep="\t", index=False)
    return tmp_path / "deriv", data


def test_bids_per_trial_with_labels_and_events(tmp_path):
    root, data = _bids(tmp_path)
    r = load_bids_betas(root, "sub-01", task="floc")
    assert r.stimulus_id.values.tolist() == ["face1", "house1", "house1", "face1"]
    assert r.run.values.tolist() == ["1", "1", "2", "2"]
    assert r.repetition.values.tolist() == [0, 0, 1, 1]
    np.testing.assert_allclose(r.values[:, 0], data[0, 0, 0, :])
    assert len(load_bids_betas(root, "01", run="2").stimulus_id) == 2
    # a run is an index: run=2, "02" and "2" name run-2 (and run-02), zero padding or not
    assert len(load_bids_betas(root, "01", run=2).stimulus_id) == 2
    assert len(load_bids_betas(root, "01", run="02").stimulus_id) == 2
    with pytest.raises(UnknownNameError, match="sub-02|'01'"):
        load_bids_betas(root, "02")
    with pytest.raises(UnknownNameError):
        load_bids_betas(root, "01", task="rest")


def test_bids_labels_count_mismatch(tmp_path):
    root, _ = _bids(tmp_path)
    f = next(root.rglob("*run-1*_beta.tsv"))
    pd.DataFrame({"stimulus_id": ["x"]}).to_csv(f, sep="\t", index=False)
    with pytest.raises(DimensionError, match="one row per volume"):
        load_bids_betas(root, "01")


def test_single_map_is_not_called_constant():
    data = _planted(1)
    r = load_volume_betas(nib.Nifti1Image(data, AFFINE), ["only"])
    assert r.shape == (1, 60)
    data[0, 0, 0, 0] = np.inf
    with pytest.raises(InvalidDataError, match="1 with NaN/inf"):
        load_volume_betas(nib.Nifti1Image(data, AFFINE), ["only"])


def test_bids_events_stim_file_names_each_trial_and_missing_ids_are_refused(tmp_path):
    # before: per-trial betas took trial_type (the condition) as ids, so four different
    # pictures became two 'face' and two 'house' repetitions (average_repetitions then
    # averaged different pictures); "n/a" and empty cells became ids
    func = tmp_path / "sub-01" / "func"
    func.mkdir(parents=True)
    data = _planted(4)
    stem = "sub-01_task-x_run-1_space-MNI152NLin2009cAsym_desc-beta"
    nib.save(nib.Nifti1Image(data, AFFINE), func / f"{stem}_bold.nii.gz")
    events = func / "sub-01_task-x_run-1_events.tsv"
    pd.DataFrame({"onset": [0, 4, 8, 12], "duration": [1] * 4,
                  "trial_type": ["face", "face", "house", "house"],
                  "stim_file": ["faces/f1.png", "faces/f2.png", "houses/h1.png", "houses/h2.png"],
                  }).to_csv(events, sep="\t", index=False)
    r = load_bids_betas(tmp_path, "01", suffix="bold")
    # ids as load_image_folder names the pictures (relative path without extension)
    assert r.stimulus_id.values.tolist() == ["faces/f1", "faces/f2", "houses/h1", "houses/h2"]
    assert "repetition" not in r.coords
    np.testing.assert_allclose(r.values[:, 0], data[0, 0, 0, :])
    for missing in ("n/a", ""):
        pd.DataFrame({"stimulus_id": ["a", "b", missing, "d"]}).to_csv(
            func / f"{stem}_bold.tsv", sep="\t", index=False)
        with pytest.raises(InvalidDataError, match=r"stimulus_id.*row 3"):
            load_bids_betas(tmp_path, "01", suffix="bold")
    # the default suffix= finds nothing: the message names suffix= and what was found
    with pytest.raises(UnknownNameError, match=r"suffix='bold'"):
        load_bids_betas(tmp_path, "01")


def test_a_mask_with_nan_voxels_is_refused():
    # before: NaN != 0, so a mask's NaN voxels (no data, e.g. outside a resampled mask)
    # were kept as inside it, silently
    data = _planted(3)
    mask = np.zeros(data.shape[:3], np.float32)
    mask[1:3, 1:3, 0] = 1
    mask[0, 0, 0] = np.nan
    with pytest.raises(InvalidDataError, match=r"mask=.*1 NaN"):
        load_volume_betas(nib.Nifti1Image(data, AFFINE), ["a", "b", "c"],
                          nib.Nifti1Image(mask, AFFINE))
