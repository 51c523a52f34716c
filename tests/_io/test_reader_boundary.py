"""Every file reader is typed at its boundary (issue 45).

One parametrised test per format family (NIfTI, GIFTI, CIFTI, MGH, FreeSurfer annot and
label, .mat, .npy/.npz, .hdf5, .nc, CSV/TSV, JSON): a truncated file, an empty file and a
text file under the format's name each raise one typed toponeuro error
(:class:`~toponeuro.exceptions.UnreadableFileError`, a ``ValueError``) that names the file,
never ``EOFError``, nibabel's ``ImageFileError``, zlib or h5py errors. Before: the NIfTI maps
of ``load_cortex_maps``, the TopoLM ``.nc`` contrast, the 92-image ``.mat``, ``.npy`` RDMs,
a BIDS events table and ``TopoLoss.load`` raised the parsing library's own exceptions.
"""

from __future__ import annotations

import warnings

import h5py
import nibabel as nib
import numpy as np
import pytest
import scipy.io
import xarray as xr

import toponeuro.exceptions as E
from toponeuro.analysis import load_rdms
from toponeuro.atlases import load_cortex_maps
from toponeuro.brain import (
    load_topolm_contrast,
    load_volume_betas,
    read_nsd_expdesign,
    read_surface_data,
)
from toponeuro.stimuli import load_92_images, load_nsd_stimuli, load_stimulus_table
from toponeuro.topoloss import LayerSpec, TopoLoss

RNG = np.random.default_rng(0)
IDS = ["a", "b", "c"]


def _nii(p):
    nib.save(nib.Nifti1Image(RNG.normal(size=(12, 12, 12)).astype(np.float32), np.eye(4)), p)


def _gii(p):
    arr = nib.gifti.GiftiDataArray(RNG.normal(size=10242).astype(np.float32))
    nib.save(nib.gifti.GiftiImage(darrays=[arr]), p)


def _mgh(p):
    nib.save(nib.MGHImage(RNG.normal(size=(10242, 1, 1)).astype(np.float32), np.eye(4)), p)


def _annot(p):
    nib.freesurfer.write_annot(p, RNG.integers(0, 2, 10242).astype(np.int32),
                               np.array([[0, 0, 0, 0, 0], [255, 0, 0, 0, 255]]), [b"a", b"b"])


def _label(p):
    rows = "".join(f"{v} 1.0 2.0 3.0 0\n" for v in range(0, 400, 7))
    p.write_text(f"#!ascii label, from subject fsaverage\n{len(range(0, 400, 7))}\n{rows}")


def _mat(p):
    scipy.io.savemat(p, {"masterordering": np.arange(2000)[None], "subjectim": np.ones((8, 99))})


def _rdm_mat(p):
    scipy.io.savemat(p, {"RDMs": RNG.random((30, 30))})


def _npy(p):
    np.save(p, RNG.random((40, 40)))


def _npz(p):
    np.savez(p, rdms=RNG.random((40, 40)))


def _nc(p):
    xr.Dataset({"t_values": ("v", RNG.normal(size=32492))}).to_netcdf(p)


def _hdf5(p):
    with h5py.File(p, "w") as f:
        f.create_dataset("imgBrick", data=np.zeros((3, 40, 40, 3), np.uint8))


def _csv(p):  # the last row's quoted note is long: a cut file ends inside its quotes
    p.write_text("file,category,note\n" + "".join(f'"img{i}.png","faces",""\n' for i in range(9))
                 + '"img9.png","faces","' + "a long note, " * 40 + '"\n')


def _json(p):
    TopoLoss([LayerSpec("a", 2, 3, tau=5.0)]).save(p)


def _label_map(p):
    return load_cortex_maps({"faces": {"left": p}})


# (family, file name, writer, reader)
READERS = [
    ("nifti-gz", "faces.nii.gz", _nii, lambda p: load_cortex_maps({"faces": p})),
    ("nifti", "faces.nii", _nii, lambda p: load_cortex_maps({"faces": p})),
    ("nifti-betas", "betas.nii.gz", _nii, lambda p: load_volume_betas(p, stimulus_ids=["s1"])),
    ("gifti", "lh.faces.func.gii", _gii, read_surface_data),
    ("cifti", "faces.dscalar.nii", _nii, lambda p: load_cortex_maps({"faces": p})),
    ("mgh", "lh.faces.mgh", _mgh, read_surface_data),
    ("mgz", "lh.faces.mgz", _mgh, read_surface_data),
    ("annot", "lh.aparc.annot", _annot, lambda p: load_cortex_maps({"faces": f"{p}#b"})),
    ("fs-label", "lh.FFA.label", _label, _label_map),
    ("mat-rdms", "rdms.mat", _rdm_mat, lambda p: load_rdms(p, [f"s{i}" for i in range(30)])),
    ("mat-nsd", "nsd_expdesign.mat", _mat, read_nsd_expdesign),
    ("mat-92", "Stimuli_92objs.mat", _rdm_mat, load_92_images),
    ("npy", "rdms.npy", _npy, lambda p: load_rdms(p, [f"s{i}" for i in range(40)])),
    ("npz", "rdms.npz", _npz, lambda p: load_rdms(p, [f"s{i}" for i in range(40)])),
    ("hdf5-rdms", "rdms.hdf5", _hdf5, load_rdms),
    ("hdf5-nsd", "nsd_stimuli.hdf5", _hdf5, lambda p: load_nsd_stimuli(p, [0])),
    ("netcdf", "contrast.nc", _nc, load_topolm_contrast),
    ("csv", "table.csv", _csv, load_stimulus_table),
    ("json", "spec.json", _json, TopoLoss.load),
]

BROKEN = {
    "truncated": lambda good: good[: max(1, len(good) * 2 // 3)],
    "empty": lambda good: b"",
    "wrong-content": lambda good: b"subject,condition\n" + b"1,faces\n" * 40 + b"\xff\xfe",
}


@pytest.mark.parametrize("how", list(BROKEN))
@pytest.mark.parametrize("family", READERS, ids=[r[0] for r in READERS])
def test_a_broken_file_raises_one_typed_error(tmp_path, family, how):
    _, name, write, read = family
    good = tmp_path / "good" / name
    good.parent.mkdir()
    write(good)
    bad = tmp_path / name
    bad.write_bytes(BROKEN[how](good.read_bytes()))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(E.UnreadableFileError) as info:
            read(bad)
    assert isinstance(info.value, ValueError)
    assert name in str(info.value), str(info.value)


def test_the_unreadable_error_chains_the_library_error(tmp_path):
    p = tmp_path / "faces.nii.gz"
    _nii(p)
    p.write_bytes(p.read_bytes()[:200])
    with pytest.raises(E.UnreadableFileError, match="truncated, corrupt") as info:
        load_cortex_maps({"faces": p})
    assert info.value.__cause__ is not None  # nibabel's / gzip's error, kept as the cause


def test_a_netcdf_map_is_read_and_names_its_reader(tmp_path):
    """The TopoLM .nc contrast given as a cortex map is read (0.5: the language job compares
    it on one ruler), and the source names the function that read it."""
    p = tmp_path / "contrast.nc"
    _nc(p)
    maps = load_cortex_maps({"verbs": p})
    left = maps["left"]
    assert left.mesh == "fs_LR_32k" and left.maps["verbs"].shape == (32492,)
    entry = left.source["maps"]["verbs"]["left"]
    assert entry["reader"] == "toponeuro.atlases.read_netcdf_map" and entry["netcdf"] == str(p)


def test_a_bids_labels_table_is_read_at_the_boundary(tmp_path):
    betas = tmp_path / "sub-01_task-floc_beta.nii.gz"
    nib.save(nib.Nifti1Image(RNG.normal(size=(4, 4, 4, 3)).astype(np.float32), np.eye(4)),
             betas)
    (tmp_path / "sub-01_task-floc_beta.tsv").write_bytes(b"")
    from toponeuro.brain import load_bids_betas

    with pytest.raises(E.UnreadableFileError, match="floc_beta.tsv"):
        load_bids_betas(tmp_path, subject="01", task="floc")


# --- the command line: one clear line, no traceback ---------------------------------------
@pytest.mark.parametrize("how", ["truncated", "empty", "wrong-content"])
def test_cli_map_with_a_broken_nifti_prints_one_line(tmp_path, capsys, how):
    from test_cli_errors import FLOC, _run  # every test folder is on sys.path (conftest)

    from toponeuro.stimuli import make_image_folder

    floc = make_image_folder(tmp_path / "floc", FLOC, [1], suffix=".jpg", mode="RGB")
    good = tmp_path / "good.nii.gz"
    _nii(good)
    bad = tmp_path / "bad.nii.gz"
    bad.write_bytes(BROKEN[how](good.read_bytes()))
    rc, out, err = _run(["map", "--stimuli", str(floc), "--out", str(tmp_path / "m"),
                         "--cortex-maps", f"faces={bad}", "--no-progress"], capsys)
    assert rc == 1 and "Traceback" not in out + err, err
    lines = [ln for ln in err.strip().splitlines() if ln.strip()]
    assert len(lines) == 1 and "bad.nii.gz" in lines[0] and "--cortex-maps" in lines[0], err
    assert not (tmp_path / "m").exists()
