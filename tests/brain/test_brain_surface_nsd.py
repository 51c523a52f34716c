"""Surface (GIFTI / MGH) and NSD loaders on files in the exact on-disk layouts."""

from __future__ import annotations

import h5py
import nibabel as nib
import numpy as np
import pytest
from scipy.io import savemat

from toponeuro.brain import (
    load_nsd_betas,
    load_surface_betas,
    nsd_noise_ceiling,
    read_surface_data,
)
from toponeuro.exceptions import (
    AlignmentError,
    DimensionError,
    InvalidDataError,
    UnknownNameError,
)

N5 = 10242


def _gifti(path, data, per_map=False):
    arrays = ([nib.gifti.GiftiDataArray(np.ascontiguousarray(c, np.float32)) for c in data.T]
              if per_map else [nib.gifti.GiftiDataArray(data.astype(np.float32))])
    nib.save(nib.gifti.GiftiImage(darrays=arrays), path)


def _mgh(path, data):
    data = data.reshape(data.shape[0], 1, 1, -1).astype(np.float32)
    if data.shape[3] == 1:  # one map: MGH stores (n, 1, 1)
        data = data[..., 0]
    nib.save(nib.MGHImage(data, np.eye(4)), path)


@pytest.mark.parametrize("fmt", ["gii2d", "gii_maps", "mgh"])
def test_surface_formats_same_result(tmp_path, fmt):
    rng = np.random.default_rng(0)
    lh, rh = rng.standard_normal((642, 3)), rng.standard_normal((642, 3))
    paths = []
    for h, d in (("lh", lh), ("rh", rh)):
        if fmt == "mgh":
            p = tmp_path / f"{h}.betas.mgh"
            _mgh(p, d)
        else:
            p = tmp_path / f"{h}.betas.func.gii"
            _gifti(p, d, per_map=fmt == "gii_maps")
        paths.append(p)
    r = load_surface_betas(*paths, ["a", "b", "c"], subject="s1")
    assert r.shape == (3, 1284) and r.attrs["mesh"] == "fsaverage3"
    np.testing.assert_allclose(r.values[:, :642], lh.T, rtol=1e-6)
    np.testing.assert_allclose(r.values[:, 642:], rh.T, rtol=1e-6)
    assert r.hemi.values[0] == "left" and r.hemi.values[-1] == "right"
    assert r.vertex.values[642] == 0


def test_fsaverage_to_fsaverage5_and_roi(tmp_path):
    rng = np.random.default_rng(1)
    full = rng.standard_normal((163842, 2)).astype(np.float32)
    _mgh(tmp_path / "lh.mgh", full)
    r = load_surface_betas(tmp_path / "lh.mgh", None, ["a", "b"], space="fsaverage5")
    assert r.sizes["voxel"] == N5
    np.testing.assert_allclose(r.values.T, full[:N5])
    from toponeuro.atlases import load_language_parcels

    atlas = load_language_parcels("fsaverage5")
    r2 = load_surface_betas(tmp_path / "lh.mgh", None, ["a", "b"], space="fsaverage5", roi="IFG")
    expect = atlas.mask(roi="IFG", hemi="left")[:N5]
    assert r2.sizes["voxel"] == expect.sum() > 0
    assert set(r2.roi.values) == {"lh_IFG"}
    np.testing.assert_array_equal(r2.vertex.values, np.flatnonzero(expect))
    with pytest.raises(UnknownNameError, match="IFG"):
        load_surface_betas(tmp_path / "lh.mgh", None, ["a", "b"], space="fsaverage5", roi="IFGG")


def test_surface_bad_input(tmp_path):
    rng = np.random.default_rng(2)
    with pytest.raises(DimensionError, match="transposed"):
        load_surface_betas(rng.standard_normal((3, 642)), None, ["a", "b", "c"])
    with pytest.raises(DimensionError, match="2 maps but 3"):
        load_surface_betas(rng.standard_normal((642, 2)), None, ["a", "b", "c"])
    with pytest.raises(AlignmentError, match="vertex counts"):
        load_surface_betas(rng.standard_normal((642, 1)), rng.standard_normal((2562, 1)), ["a"])
    bad = tmp_path / "lh.func.gii"
    bad.write_text("<xml>not gifti</xml>")
    with pytest.raises(InvalidDataError):
        read_surface_data(bad)
    with pytest.raises(AlignmentError, match="fsaverage5"):
        load_surface_betas(rng.standard_normal((642, 1)), None, ["a"], roi="faces")
    const = np.ones((642, 2))
    with pytest.raises(InvalidDataError, match="642 of 642"):
        load_surface_betas(const, None, ["a", "b"])


# -- NSD -----------------------------------------------------------------------------------
GRID = (4, 5, 3)
AFF = np.diag([1.8, 1.8, 1.8, 1.0])


def _nsd_tree(root, fmt="nii.gz", space="func1pt8mm"):
    """Two sessions of a tiny NSD: real file names, dtypes and array layouts."""
    rng = np.random.default_rng(3)
    mo = rng.integers(1, 31, size=30000)  # 1-based into the subject's 10k images
    subjectim = np.tile(np.arange(10000) * 7 + 5, (8, 1))  # 1-based 73k ids
    subjectim[1] += 1
    exp = root / "nsddata" / "experiments" / "nsd"
    exp.mkdir(parents=True)
    savemat(exp / "nsd_expdesign.mat", {"masterordering": mo[None, :], "subjectim": subjectim,
                                        "sharedix": np.array([[12, 19]])})
    glm = root / "nsddata_betas" / "ppdata" / "subj01" / space / "betas_fithrf_GLMdenoise_RR"
    glm.mkdir(parents=True)
    pp = root / "nsddata" / "ppdata" / "subj01" / space
    (pp / "roi").mkdir(parents=True)
    signal = {}
    sessions = {}
    for s in (1, 2):
        trials = np.arange((s - 1) * 750, s * 750)
        im = subjectim[0, mo[trials] - 1]
        if space == "fsaverage":
            vals = np.stack([np.sin(im * 0.1 + v) for v in range(8)], axis=0)  # (8 vertices, 750)
            vals = vals + 0.05 * rng.standard_normal(vals.shape)
            for h in ("lh", "rh"):
                _mgh(glm / f"{h}.betas_session{s:02d}.mgh", vals.astype(np.float32))
            sessions[s] = vals
            continue
        pattern = np.sin(im[None, None, None, :] * 0.1 + np.arange(60).reshape(GRID)[..., None])
        vals = np.rint(300 * (pattern + 0.05 * rng.standard_normal(pattern.shape))).astype(np.int16)
        vals[0, 0, 0] = 0  # outside the brain mask: zeroed like NSD
        if fmt == "nii.gz":
            nib.save(nib.Nifti1Image(vals, AFF), glm / f"betas_session{s:02d}.nii.gz")
        else:
            with h5py.File(glm / f"betas_session{s:02d}.hdf5", "w") as f:
                f.create_dataset("betas", data=np.transpose(vals, (3, 2, 1, 0)))
        sessions[s] = vals
        signal[s] = im
    if space == "fsaverage":
        for h in ("lh", "rh"):
            _mgh(glm / f"{h}.ncsnr.mgh", np.linspace(0, 2, 8)[:, None])
        lab = root / "nsddata" / "freesurfer" / "fsaverage" / "label"
        lab.mkdir(parents=True)
        for h in ("lh", "rh"):
            nib.save(nib.MGHImage(np.array([0, 1, 1, 2, 0, 0, 0, 0], np.float32).reshape(8, 1, 1),
                                  np.eye(4)), lab / f"{h}.floc-faces.mgz")
        (lab / "floc-faces.mgz.ctab").write_text("0 Unknown 0 0 0 0\n1 OFA 1 1 1 0\n2 FFA-1 2 2 2 0\n")
        return mo, subjectim, sessions
    mask = np.ones(GRID, np.uint8)
    mask[0, 0, 0] = 0
    nib.save(nib.Nifti1Image(mask, AFF), pp / "brainmask.nii.gz")
    nib.save(nib.Nifti1Image(np.linspace(0, 2, 60).reshape(GRID).astype(np.float32), AFF),
             glm / "ncsnr.nii.gz")
    roi = np.full(GRID, -1, np.int16)
    roi[1, 1, :] = 1
    roi[2, 2, 0] = 2
    nib.save(nib.Nifti1Image(roi, AFF), pp / "roi" / "floc-faces.nii.gz")
    fsl = root / "nsddata" / "freesurfer" / "subj01" / "label"
    fsl.mkdir(parents=True)
    (fsl / "floc-faces.mgz.ctab").write_text("0 Unknown 0 0 0 0\n1 OFA 1 1 1 0\n2 FFA-1 2 2 2 0\n")
    return mo, subjectim, sessions


def test_nsd_volume_trials_values_and_noise_ceiling(tmp_path):
    mo, subjectim, sessions = _nsd_tree(tmp_path)
    r = load_nsd_betas(tmp_path, 1, [1, 2])
    assert r.shape == (1500, 59)
    expect_img = subjectim[0, mo[:1500] - 1] - 1
    assert r.stimulus_id.values[:3].tolist() == [f"nsd-{i:05d}" for i in expect_img[:3]]
    assert r.session.values.tolist() == [1] * 750 + [2] * 750
    assert r.trial.values[-1] == 1499
    assert r.shared1000.values.sum() == np.isin(expect_img + 1, [12, 19]).sum()
    # int16 / 300 -> percent signal change, voxel order = C order of the brain mask
    np.testing.assert_allclose(r.values[:750, 0], sessions[1][0, 0, 1] / 300.0, rtol=1e-6)
    np.testing.assert_allclose(r.values[750:, -1], sessions[2][3, 4, 2] / 300.0, rtol=1e-6)
    ids, counts = np.unique(expect_img, return_counts=True)
    nc = r.noise_ceiling.values
    assert r.noise_ceiling.attrs["units"] == "percent variance"
    np.testing.assert_allclose(nc, nsd_noise_ceiling(r.ncsnr.values, counts), rtol=1e-5)
    reps = r.repetition.values[r.stimulus_id.values == f"nsd-{ids[0]:05d}"]
    assert reps.tolist() == list(range(counts[0]))
    # subject 2 maps trials through its own row of subjectim
    assert set(r.subject.values) == {"subj01"}


def test_nsd_hdf5_equals_nifti(tmp_path):
    _nsd_tree(tmp_path / "a")
    _nsd_tree(tmp_path / "b", fmt="hdf5")
    # the hdf5 layout still needs the NIfTI brain mask for its grid/affine
    a = load_nsd_betas(tmp_path / "a", "subj01", 1)
    b = load_nsd_betas(tmp_path / "b", "subj01", 1, fmt="hdf5")
    np.testing.assert_array_equal(a.values, b.values)
    np.testing.assert_array_equal(a.x.values, b.x.values)


def test_nsd_rois_and_errors(tmp_path):
    _nsd_tree(tmp_path)
    r = load_nsd_betas(tmp_path, 1, 1, roi="floc-faces")
    assert r.sizes["voxel"] == 4 and set(r.roi.values) == {"floc-faces"}
    r = load_nsd_betas(tmp_path, 1, 1, roi="floc-faces/FFA-1")
    assert r.sizes["voxel"] == 1 and (r.i.item(), r.j.item(), r.k.item()) == (2, 2, 0)
    with pytest.raises(UnknownNameError, match="FFA-1"):
        load_nsd_betas(tmp_path, 1, 1, roi="floc-faces/FFA1")
    with pytest.raises(UnknownNameError, match="floc-faces"):
        load_nsd_betas(tmp_path, 1, 1, roi="floc-face")
    with pytest.raises(UnknownNameError, match="func1pt8mm"):
        load_nsd_betas(tmp_path, 1, 1, space="func1.8mm")
    with pytest.raises(FileNotFoundError):
        load_nsd_betas(tmp_path, 1, 3)
    z = load_nsd_betas(tmp_path, 1, [1, 2], zscore=True)
    np.testing.assert_allclose(z.values[:750].mean(0), 0, atol=1e-5)


def test_nsd_fsaverage(tmp_path):
    mo, subjectim, sessions = _nsd_tree(tmp_path, space="fsaverage")
    r = load_nsd_betas(tmp_path, 1, [1, 2], space="fsaverage")
    assert r.shape == (1500, 16)
    np.testing.assert_allclose(r.values[:750, :8], sessions[1].T, rtol=1e-6)  # float: no /300
    assert r.hemi.values.tolist() == ["left"] * 8 + ["right"] * 8
    f = load_nsd_betas(tmp_path, 1, 1, space="fsaverage", roi="floc-faces/OFA")
    assert f.vertex.values.tolist() == [1, 2, 1, 2]
    np.testing.assert_allclose(f.ncsnr.values, np.linspace(0, 2, 8)[[1, 2, 1, 2]], rtol=1e-6)


# -- HCP files as nibabel writes them: CIFTI-2 over both hemispheres, named GIFTI arrays ----
N_LR = 32492


def _fslr_cifti(path, maps, names=None):
    """A CIFTI-2 file over both fs_LR 32k hemispheres with a medial wall left out (as HCP
    writes them): ``maps`` (n_maps, n_grayordinates); a ``.dscalar.nii`` gets ``names``,
    a ``.dtseries.nii`` a series axis. Returns the cortex masks (left, right)."""
    wall = {"left": np.arange(N_LR) < 2796, "right": np.arange(N_LR) % 12 == 0}
    bm = (nib.cifti2.BrainModelAxis.from_mask(~wall["left"], name="CortexLeft")
          + nib.cifti2.BrainModelAxis.from_mask(~wall["right"], name="CortexRight"))
    if maps is None:
        maps = np.random.default_rng(0).standard_normal((len(names), len(bm)))
    first = (nib.cifti2.ScalarAxis(names) if str(path).endswith(".dscalar.nii")
             else nib.cifti2.SeriesAxis(0, 1, maps.shape[0]))
    nib.cifti2.Cifti2Image(maps.astype(np.float32), header=(first, bm)).to_filename(path)
    return ~wall["left"], ~wall["right"]


@pytest.mark.parametrize("ext", [".dscalar.nii", ".dtseries.nii"])
def test_cifti_over_both_hemispheres_loads_as_lh_and_rh(tmp_path, ext):
    # before: DimensionError "read_surface_data reads one. Pass hemi='left' or hemi='right'",
    # a parameter load_surface_betas does not have, whatever the call
    rng = np.random.default_rng(0)
    ids = ["face", "house", "car"]
    n_left = N_LR - 2796
    maps = rng.standard_normal((3, n_left + N_LR - len(range(0, N_LR, 12))))
    path = tmp_path / f"sub-01_betas{ext}"
    cortex_l, cortex_r = _fslr_cifti(path, maps, ids)
    n_wall = 2 * N_LR - maps.shape[1]
    with pytest.warns(UserWarning, match=f"{n_wall} with NaN"):
        r = load_surface_betas(path, path, ids, drop_invalid=True)
    assert r.attrs["mesh"] == "fs_LR_32k" and r.sizes["voxel"] == maps.shape[1]
    left = r.sel(voxel=r.hemi == "left")
    np.testing.assert_array_equal(left.vertex, np.flatnonzero(cortex_l))
    np.testing.assert_allclose(left.values, maps[:, :n_left], rtol=1e-6)
    right = r.sel(voxel=r.hemi == "right")
    np.testing.assert_array_equal(right.vertex, np.flatnonzero(cortex_r))
    np.testing.assert_allclose(right.values, maps[:, n_left:], rtol=1e-6)
    with pytest.warns(UserWarning):
        only_left = load_surface_betas(path, None, ids, drop_invalid=True)
    assert set(only_left.hemi.values) == {"left"} and only_left.sizes["voxel"] == n_left
    with pytest.warns(UserWarning):
        only_right = load_surface_betas(None, path, ids, drop_invalid=True)
    np.testing.assert_allclose(only_right.values, maps[:, n_left:], rtol=1e-6)
    # the medial wall is NaN: refused unless asked to drop it, never a value
    with pytest.raises(InvalidDataError, match="drop_invalid=True"):
        load_surface_betas(path, path, ids)


def test_a_file_of_the_other_hemisphere_is_refused(tmp_path):
    # before: a right-hemisphere GIFTI passed as lh= was labelled left, silently
    rng = np.random.default_rng(0)
    for h, structure in (("lh", "CortexLeft"), ("rh", "CortexRight")):
        img = nib.gifti.GiftiImage(meta=nib.gifti.GiftiMetaData(
            {"AnatomicalStructurePrimary": structure}))
        img.add_gifti_data_array(nib.gifti.GiftiDataArray(
            rng.standard_normal(642).astype(np.float32)))
        nib.save(img, tmp_path / f"{h}.func.gii")
    with pytest.raises(AlignmentError, match=r"lh=.*right hemisphere.*rh="):
        load_surface_betas(tmp_path / "rh.func.gii", tmp_path / "lh.func.gii", ["a"])
    with pytest.raises(AlignmentError, match=r"rh=.*left hemisphere"):
        load_surface_betas(None, tmp_path / "lh.func.gii", ["a"])
    left_only = tmp_path / "left.dscalar.nii"
    bm = nib.cifti2.BrainModelAxis.from_mask(np.ones(N_LR, bool), name="CortexLeft")
    nib.cifti2.Cifti2Image(np.ones((1, N_LR), np.float32),
                           header=(nib.cifti2.ScalarAxis(["a"]), bm)).to_filename(left_only)
    with pytest.raises(AlignmentError, match=r"rh=.*left hemisphere"):
        load_surface_betas(None, left_only, ["a"])


def _named_gifti(path, data, names, structure="CortexLeft"):
    img = nib.gifti.GiftiImage(meta=nib.gifti.GiftiMetaData(
        {"AnatomicalStructurePrimary": structure}))
    for column, name in zip(data.T, names):
        meta = nib.gifti.GiftiMetaData({"Name": name}) if name else None
        img.add_gifti_data_array(nib.gifti.GiftiDataArray(
            np.ascontiguousarray(column, np.float32), intent="NIFTI_INTENT_ESTIMATE", meta=meta))
    nib.save(img, path)
    return path


def test_map_names_are_joined_to_stimulus_ids_by_name(tmp_path):
    # before: the maps were paired with stimulus_ids by position, whatever their names
    # (the row 'car' held the 'face' map), and names that disagree were not noticed
    rng = np.random.default_rng(0)
    names = ["face", "house", "car"]
    lh, rh = rng.standard_normal((642, 3)), rng.standard_normal((642, 3))
    lp = _named_gifti(tmp_path / "lh.func.gii", lh, names)
    rp = _named_gifti(tmp_path / "rh.func.gii", rh[:, [2, 0, 1]], ["car", "face", "house"],
                      "CortexRight")
    r = load_surface_betas(lp, rp, ["car", "face", "house"])
    assert r.stimulus_id.values.tolist() == ["car", "face", "house"]
    np.testing.assert_allclose(r.values[:, :642], lh[:, [2, 0, 1]].T, rtol=1e-6)
    np.testing.assert_allclose(r.values[:, 642:], rh[:, [2, 0, 1]].T, rtol=1e-6)
    # a CIFTI's scalar map names join the same way
    cp = tmp_path / "betas.dscalar.nii"
    maps = rng.standard_normal((3, 2 * N_LR))
    bm = (nib.cifti2.BrainModelAxis.from_mask(np.ones(N_LR, bool), name="CortexLeft")
          + nib.cifti2.BrainModelAxis.from_mask(np.ones(N_LR, bool), name="CortexRight"))
    nib.cifti2.Cifti2Image(maps.astype(np.float32),
                           header=(nib.cifti2.ScalarAxis(names), bm)).to_filename(cp)
    c = load_surface_betas(cp, cp, ["house", "car", "face"])
    np.testing.assert_allclose(c.values, maps[[1, 2, 0]], rtol=1e-6)
    # names that share nothing with the ids, or only some: refused, naming the parameter
    with pytest.raises(AlignmentError, match=r"stimulus_ids.*'face'.*'a'"):
        load_surface_betas(lp, None, ["a", "b", "c"])
    with pytest.raises(AlignmentError, match=r"stimulus_ids.*only in the file.*'car'"):
        load_surface_betas(lp, None, ["face", "house", "cat"])
    # unnamed maps (or only some named) pair by position, as documented
    part = _named_gifti(tmp_path / "part.func.gii", lh, ["", "house", "face"])
    p = load_surface_betas(part, None, ["x", "y", "z"])
    np.testing.assert_allclose(p.values, lh.T, rtol=1e-6)


def test_nsd_sessions_each_once_and_in_range(tmp_path):
    """A session named twice counted its trials as repetitions (6 'repetitions' of an image
    seen 3 times, a higher noise ceiling); session 0 read masterordering from its end."""
    from toponeuro.brain import nsd_trial_images, read_nsd_expdesign
    from toponeuro.exceptions import OutOfRangeError

    _nsd_tree(tmp_path)
    with pytest.raises(InvalidDataError, match=r"sessions= names session 1 twice"):
        load_nsd_betas(tmp_path, 1, [1, 1])
    design = read_nsd_expdesign(tmp_path / "nsddata" / "experiments" / "nsd" / "nsd_expdesign.mat")
    for bad in ([0], [-1], [41], [1.5], ["x"]):
        with pytest.raises(OutOfRangeError, match=r"sessions= must hold session numbers 1\.\.40"):
            nsd_trial_images(design, 1, bad)
    with pytest.raises(OutOfRangeError, match="sessions="):
        load_nsd_betas(tmp_path, 1, 0)
    img, trials = nsd_trial_images(design, 1, [2])
    assert trials[0] == 750 and len(img) == 750


def test_nsd_missing_session_and_ncsnr_on_another_grid(tmp_path):
    """A missing NIfTI session said 'pass an existing NIfTI file or a nibabel image' (no
    sessions=); an ncsnr.nii.gz on another grid stopped with numpy's IndexError."""
    from toponeuro.exceptions import MissingFileError

    _nsd_tree(tmp_path)
    with pytest.raises(MissingFileError, match=r"betas_session03\.nii\.gz.*out of sessions="):
        load_nsd_betas(tmp_path, 1, [1, 3])
    glm = tmp_path / "nsddata_betas/ppdata/subj01/func1pt8mm/betas_fithrf_GLMdenoise_RR"
    nib.save(nib.Nifti1Image(np.ones((5, 5, 3), np.float32), AFF), glm / "ncsnr.nii.gz")
    with pytest.raises(DimensionError, match=r"ncsnr\.nii\.gz has grid.*noise_ceiling=False"):
        load_nsd_betas(tmp_path, 1, 1)
    assert load_nsd_betas(tmp_path, 1, 1, noise_ceiling=False).shape == (750, 59)


def test_nsd_sessions_in_different_formats_load_together(tmp_path):
    """The format was chosen from the first session, so a session present only as .hdf5
    (after one as .nii.gz, or the reverse) was reported missing though it was there."""
    from toponeuro.exceptions import MissingFileError

    _nsd_tree(tmp_path / "a")
    _nsd_tree(tmp_path / "b")
    glm = tmp_path / "b/nsddata_betas/ppdata/subj01/func1pt8mm/betas_fithrf_GLMdenoise_RR"
    vals = np.asarray(nib.load(glm / "betas_session02.nii.gz").dataobj)
    with h5py.File(glm / "betas_session02.hdf5", "w") as f:  # NSD's layout: 750 x Z x Y x X
        f.create_dataset("betas", data=np.transpose(vals, (3, 2, 1, 0)))
    (glm / "betas_session02.nii.gz").unlink()
    for order in ([1, 2], [2, 1]):
        want = load_nsd_betas(tmp_path / "a", 1, order)
        got = load_nsd_betas(tmp_path / "b", 1, order)
        np.testing.assert_array_equal(got.values, want.values)
        assert got.session.values.tolist() == want.session.values.tolist()
    with pytest.raises(MissingFileError, match=r"betas_session02\.nii\.gz not found, but "
                       r"betas_session02\.hdf5 is there; pass fmt=None"):
        load_nsd_betas(tmp_path / "b", 1, [1, 2], fmt="nii.gz")
    with pytest.raises(MissingFileError, match=r"betas_session03\.nii\.gz \(or "
                       r"betas_session03\.hdf5\) not found.*out of sessions="):
        load_nsd_betas(tmp_path / "b", 1, [2, 3])


def test_nsd_betas_are_scaled_by_one_rule_for_volume_and_surface():
    """int16 betas (volume or surface files alike) / NSD_BETA_SCALE; float betas as given."""
    from toponeuro.brain._nsd import NSD_BETA_SCALE, _betas_float

    raw = np.array([[300, -600], [150, 0]], dtype=np.int16)
    out = _betas_float(raw)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, raw / NSD_BETA_SCALE)
    flt = np.array([[1.5, -2.0]], dtype=np.float64)
    np.testing.assert_array_equal(_betas_float(flt), flt.astype(np.float32))
