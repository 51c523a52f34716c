"""Bad and unusual inputs to every public loader (issue 13).

Each case builds its input under a temporary folder, calls one public function and asserts:
the exception is a toponeuro type that is also the builtin a caller expects, its message names
the offending value and the fix, and no file of the input was changed or deleted. The property
tests at the end feed random bytes and random shapes to the loaders: nothing but a typed
toponeuro error may come out.
"""

from __future__ import annotations

import hashlib
import pickle
import re
import warnings
from pathlib import Path

import h5py
import nibabel as nib
import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

from toponeuro import exceptions as E
from toponeuro import stimuli as S
from toponeuro._io.fetch import fetch_hf_file, fetch_url
from toponeuro.atlases import load_language_parcels, load_visfatlas
from toponeuro.brain import (
    load_bids_betas,
    load_nsd_betas,
    load_surface_betas,
    load_volume_betas,
    read_nsd_expdesign,
    read_surface_data,
)
from toponeuro.features import extract
from toponeuro.models import create_model, load_weights
from toponeuro.training import load_recipe

CASES = {}


def case(builtin, error, *patterns):
    """Register a case: fn(tmp) -> zero-argument callable that must raise ``error``."""

    def deco(fn):
        CASES[fn.__name__] = (fn, builtin, error, patterns)
        return fn

    return deco


def _snapshot(root: Path) -> dict:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def _png(path: Path, size=(8, 8), mode="L") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new(mode, size, 128).save(path)
    return path


def _jpeg_truncated(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    Image.fromarray(rng.integers(0, 255, (64, 64, 3), dtype=np.uint8)).save(path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    return path


def _nifti(path: Path, shape, affine=None) -> Path:
    data = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    nib.save(nib.Nifti1Image(data, np.eye(4) if affine is None else affine), path)
    return path


def _demo():
    return create_model("toponet_demo.tau_0", widths=(8, 16, 16, 32))


# --- stimuli -----------------------------------------------------------------------------------
@case(ValueError, E.InvalidDataError, "No fLoc images", "adult-1.jpg")
def floc_only_hidden_files(tmp):
    _png(tmp / "floc" / "adult" / "._adult-1.png")
    (tmp / "floc" / ".DS_Store").write_bytes(b"junk")
    return lambda: S.load_floc(tmp / "floc")


@case(KeyError, E.UnknownNameError, "adlt", "did you mean 'adult'")
def floc_unknown_category(tmp):
    _png(tmp / "floc" / "adult-1.png")
    return lambda: S.load_floc(tmp / "floc", categories=["adlt"])


@case(ValueError, E.InvalidDataError, "999", "give numbers= only numbers it has")
def floc_missing_number(tmp):
    _png(tmp / "floc" / "adult-1.png")
    return lambda: S.load_floc(tmp / "floc", numbers=[1, 999])


@case(ValueError, E.InvalidDataError, "adult-1", "Keep one copy")
def floc_duplicate_image(tmp):
    _png(tmp / "floc" / "adult" / "adult-1.png")
    _png(tmp / "floc" / "copy" / "adult-1.png")
    return lambda: S.load_floc(tmp / "floc")


@case(OSError, E.ImageReadError, "adult-2.jpg", "Replace it")
def floc_truncated_jpeg(tmp):
    _png(tmp / "floc" / "adult-1.png")
    _jpeg_truncated(tmp / "floc" / "adult-2.jpg")
    return lambda: list(S.load_floc(tmp / "floc"))


@case(ValueError, E.InvalidDataError, "'sentence'", "expected")
def langloc_wrong_columns(tmp):
    (tmp / "items.csv").write_text("a,b\n1,2\n")
    return lambda: S.load_language_localizer(tmp / "items.csv")


@case(ValueError, E.InvalidDataError, "'X'", "expected only")
def langloc_unknown_condition(tmp):
    (tmp / "items.csv").write_text(",sentence,condition\n0,the dog,S\n1,blick,X\n")
    return lambda: S.load_language_localizer(tmp / "items.csv")


@case(KeyError, E.UnknownNameError, "'Q'", "did you mean|known names")
def langloc_unknown_condition_filter(tmp):
    (tmp / "items.csv").write_text(",sentence,condition\n0,the dog,S\n")
    return lambda: S.load_language_localizer(tmp / "items.csv", conditions=["Q"])


@case(ValueError, E.InvalidDataError, "No images", "extensions=")
def folder_only_hidden_and_text(tmp):
    _png(tmp / "imgs" / "cats" / "._a.png")
    (tmp / "imgs" / "notes.txt").write_text("x")
    return lambda: S.load_image_folder(tmp / "imgs")


@case(KeyError, E.UnknownNameError, "folders", "did you mean 'folder'")
def folder_bad_category_from(tmp):
    _png(tmp / "imgs" / "cats" / "a.png")
    return lambda: S.load_image_folder(tmp / "imgs", category_from="folders")


@case(ValueError, E.InvalidDataError, "a", "category_from='prefix'")
def folder_loose_images(tmp):
    # category_from="folder" asked for: a flat folder has none (the default "auto" loads
    # it without categories, as `toponeuro extract` does; issue 45)
    _png(tmp / "imgs" / "a.png")
    return lambda: S.load_image_folder(tmp / "imgs", category_from="folder")


@case(ValueError, E.InvalidDataError, "cats/a", "Rename")
def folder_duplicate_stems(tmp):
    _png(tmp / "imgs" / "cats" / "a.png")
    _png(tmp / "imgs" / "cats" / "a.jpg", mode="RGB")
    return lambda: S.load_image_folder(tmp / "imgs")


@case(ValueError, E.InvalidDataError, "'house.png'", "category_from='folder'")
def folder_prefix_without_number(tmp):
    _png(tmp / "imgs" / "house.png")
    return lambda: S.load_image_folder(tmp / "imgs", category_from="prefix")


@case(OSError, E.ImageReadError, "b.jpg", "Replace it")
def folder_truncated_jpeg(tmp):
    _png(tmp / "imgs" / "cats" / "a.png")
    _jpeg_truncated(tmp / "imgs" / "cats" / "b.jpg")
    return lambda: [s for s in S.load_image_folder(tmp / "imgs")]


@case(OSError, E.ImageReadError, "noise.png", "not an image")
def folder_random_bytes_png(tmp):
    (tmp / "imgs" / "cats").mkdir(parents=True)
    (tmp / "imgs" / "cats" / "noise.png").write_bytes(np.random.bytes(300))
    return lambda: S.load_image_folder(tmp / "imgs").get(0)


@case(ValueError, E.InvalidDataError, "'imgBrick'", "pass key=")
def nsd_stimuli_wrong_key(tmp):
    with h5py.File(tmp / "nsd.hdf5", "w") as f:
        f.create_dataset("images", data=np.zeros((2, 4, 4, 3), np.uint8))
    return lambda: S.load_nsd_stimuli(tmp / "nsd.hdf5")


@case(ValueError, E.DimensionError, r"\(2, 4, 4\)", "expected")
def nsd_stimuli_wrong_shape(tmp):
    with h5py.File(tmp / "nsd.hdf5", "w") as f:
        f.create_dataset("imgBrick", data=np.zeros((2, 4, 4), np.uint8))
    return lambda: S.load_nsd_stimuli(tmp / "nsd.hdf5")


@case(IndexError, E.OutOfRangeError, "2..2", "Subtract 1")
def nsd_stimuli_index_out_of_range(tmp):
    with h5py.File(tmp / "nsd.hdf5", "w") as f:
        f.create_dataset("imgBrick", data=np.zeros((2, 4, 4, 3), np.uint8))
    return lambda: S.load_nsd_stimuli(tmp / "nsd.hdf5", [2])


@case(KeyError, E.UnknownNameError, "'video'", "expected one of")
def stimulus_set_unknown_kind(tmp):
    return lambda: S.StimulusSet(["a"], ["x"], kind="video")


@case(ValueError, E.ToponeuroError, "'a'", "unique|rename|own id")
def stimulus_set_duplicate_ids(tmp):
    return lambda: S.StimulusSet(["a", "a"], ["x", "y"], kind="text")


@case(ValueError, E.ToponeuroError, "2", "1")
def stimulus_set_length_mismatch(tmp):
    return lambda: S.StimulusSet(["a", "b"], ["x"], kind="text")


@case(KeyError, E.ToponeuroError, "'zz'", "")
def stimulus_set_select_unknown(tmp):
    return lambda: S.StimulusSet(["a", "b"], ["x", "y"], kind="text").select(["zz"])


@case(IndexError, E.OutOfRangeError, "5", "2 stimuli")
def stimulus_set_index_out_of_range(tmp):
    return lambda: S.StimulusSet(["a", "b"], ["x", "y"], kind="text")[5]


@case(TypeError, E.InputTypeError, "float", "select")
def stimulus_set_float_index(tmp):
    return lambda: S.StimulusSet(["a", "b"], ["x", "y"], kind="text")[np.array([0.5])]


@case(OSError, E.ImageReadError, "2", "0..1")
def read_image_float_out_of_range(tmp):
    return lambda: S.read_image(np.full((4, 4), 2.0, np.float32))


@case(OSError, E.ImageReadError, r"\(4, 4, 7\)", r"\(H, W, 3\)")
def read_image_bad_shape(tmp):
    return lambda: S.read_image(np.zeros((4, 4, 7), np.uint8))


@case(OSError, E.ImageReadError, "100000", "8- or 16-bit")
def read_image_int32_beyond_16_bit(tmp):
    return lambda: S.read_image(Image.fromarray(np.full((4, 4), 100000, np.int32)))


# --- brain -------------------------------------------------------------------------------------
@case(ValueError, E.ToponeuroError, "3", "2")
def volume_ids_count_mismatch(tmp):
    path = _nifti(tmp / "b.nii.gz", (4, 4, 4, 3))
    return lambda: load_volume_betas(path, ["a", "b"])


@case(ValueError, E.AlignmentError, "mask", "grid")
def volume_mask_other_grid(tmp):
    path = _nifti(tmp / "b.nii.gz", (4, 4, 4, 2))
    mask = _nifti(tmp / "m.nii.gz", (5, 5, 5))
    return lambda: load_volume_betas(path, ["a", "b"], mask=mask)


@case(ValueError, E.InvalidDataError, "no voxel", "zeros")
def volume_mask_empty(tmp):
    path = _nifti(tmp / "b.nii.gz", (4, 4, 4, 2))
    nib.save(nib.Nifti1Image(np.zeros((4, 4, 4), np.uint8), np.eye(4)), tmp / "m.nii.gz")
    return lambda: load_volume_betas(path, ["a", "b"], mask=tmp / "m.nii.gz")


@case(KeyError, E.UnknownNameError, "FFAA", "did you mean|known")
def volume_unknown_roi(tmp):
    path = _nifti(tmp / "b.nii.gz", (4, 4, 4, 2), affine=np.diag([40.0, 40.0, 40.0, 1.0]))
    return lambda: load_volume_betas(path, ["a", "b"], roi="FFAA")


@case(KeyError, E.ToponeuroError, "01", "")
def bids_no_files(tmp):
    (tmp / "deriv" / "sub-02").mkdir(parents=True)
    _nifti(tmp / "deriv" / "sub-02" / "sub-02_task-x_beta.nii.gz", (3, 3, 3, 2))
    return lambda: load_bids_betas(tmp / "deriv", "01")


@case(ValueError, E.DimensionError, "lh or rh", "")
def surface_no_hemisphere(tmp):
    return lambda: load_surface_betas(None, None, ["a"])


@case(ValueError, E.ToponeuroError, "3", "2")
def surface_ids_count_mismatch(tmp):
    return lambda: load_surface_betas(np.zeros((10242, 3)), None, ["a", "b"])


@case(KeyError, E.UnknownNameError, "9", "1..8")
def nsd_unknown_subject(tmp):
    return lambda: load_nsd_betas(tmp, 9, [1])


@case(KeyError, E.UnknownNameError, "func2mm", "did you mean")
def nsd_unknown_space(tmp):
    return lambda: load_nsd_betas(tmp, 1, [1], space="func2mm")


# --- models and checkpoints --------------------------------------------------------------------
def _demo_ckpt(tmp, name="mine.pt"):
    path = tmp / name
    torch.save(_demo().state_dict(), path)
    return path


@case(KeyError, E.UnknownNameError, "resnet19", "did you mean")
def model_unknown_name(tmp):
    return lambda: create_model("resnet19")


@case(ValueError, E.CheckpointError, "mine.pt", "Download it again")
def checkpoint_truncated(tmp):
    path = _demo_ckpt(tmp)
    path.write_bytes(path.read_bytes()[:3000])
    return lambda: create_model("toponet_demo.tau_0", checkpoint=path, widths=(8, 16, 16, 32))


class _Evil:
    def __reduce__(self):
        return (print, ("pwned",))


@case(ValueError, E.UntrustedCheckpointError, "evil.pt", "trust_checkpoint=True")
def checkpoint_unsafe_pickle(tmp):
    torch.save({"w": torch.ones(1), "x": _Evil()}, tmp / "evil.pt")
    return lambda: load_weights(tmp / "evil.pt")


@case(ValueError, E.CheckpointError, "missing keys", "pick the model name")
def checkpoint_wrong_architecture(tmp):
    torch.save(torch.nn.Linear(3, 2).state_dict(), tmp / "linear.pt")
    return lambda: create_model("toponet_demo.tau_0", checkpoint=tmp / "linear.pt")


@case(ValueError, E.CheckpointError, "other shapes", "another configuration")
def checkpoint_wrong_width(tmp):
    path = _demo_ckpt(tmp)
    return lambda: create_model("toponet_demo.tau_0", checkpoint=path, widths=(8, 16, 16, 64))


@case(ValueError, E.CheckpointError, "list", "state dict")
def checkpoint_holds_a_list(tmp):
    torch.save([torch.ones(1)], tmp / "list.pt")
    return lambda: load_weights(tmp / "list.pt")


@case(ValueError, E.CheckpointError, "'epoch'", "expected a state dict")
def checkpoint_non_tensor_entries(tmp):
    torch.save({"w": torch.ones(1), "epoch": 3}, tmp / "mixed.pt")
    return lambda: load_weights(tmp / "mixed.pt")


@case(FileNotFoundError, E.MissingWeightsError, "resnet18", "pretrained=False")
def model_pretrained_without_weights(tmp):
    return lambda: create_model("resnet18", pretrained=True)


@case(ConnectionError, E.DownloadError, "all_topo_tau_30.0.pt", "by hand")
def model_offline_download(tmp):
    return lambda: create_model("toponet_resnet50.tau_30", pretrained=True)


# --- fetch -------------------------------------------------------------------------------------
@case(ValueError, E.ChecksumError, "0000000000", "download it")
def fetch_wrong_sha256(tmp):
    (tmp / "src.txt").write_text("x")
    return lambda: fetch_url((tmp / "src.txt").as_uri(), sha256="0" * 64, relpath="a.txt",
                             cache_dir=tmp / "cache")


@case(ConnectionError, E.DownloadError, "absent.txt", "by hand")
def fetch_unreachable(tmp):
    return lambda: fetch_url((tmp / "absent.txt").as_uri(), sha256="0" * 64, relpath="a.txt",
                             cache_dir=tmp / "cache")


@case(ConnectionError, E.DownloadError, "weights.pt", "by hand")
def fetch_hf_offline(tmp):
    return lambda: fetch_hf_file("murtylab/none", "weights.pt", cache_dir=tmp / "cache")


# --- features.extract --------------------------------------------------------------------------
@case(ValueError, E.InvalidDataError, "empty", "at least one")
def extract_no_stimuli(tmp):
    return lambda: extract(_demo(), [], ["fc"], progress=False)


@case(TypeError, E.InputTypeError, "stimuli=", "a.png", "Pass a list")
def extract_single_path(tmp):
    return lambda: extract(_demo(), str(_png(tmp / "a.png")), ["fc"], progress=False)


@case(KeyError, E.UnknownNameError, "fcc", "fc")
def extract_unknown_layer(tmp):
    return lambda: extract(_demo(), [torch.rand(3, 16, 16)], ["fcc"], progress=False)


@case(ValueError, E.ParameterError, "pooling='avg'", "one of")
def extract_bad_pooling(tmp):
    return lambda: extract(_demo(), [torch.rand(3, 16, 16)], ["fc"], pooling="avg",
                           progress=False)


@case(ValueError, E.ParameterError, "batch_size=0", "whole number >= 1")
def extract_zero_batch(tmp):
    return lambda: extract(_demo(), [torch.rand(3, 16, 16)], ["fc"], batch_size=0,
                           progress=False)


@case(TypeError, E.InputTypeError, "int", "registered name")
def extract_model_of_wrong_type(tmp):
    return lambda: extract(123, [torch.rand(3, 16, 16)], ["fc"], progress=False)


@case(ValueError, E.InvalidDataError, "vision model", "texts")
def extract_texts_to_vision_model(tmp):
    return lambda: extract((_demo(), create_model("toponet_demo.tau_0").model_card),
                           ["a face", "a house"], ["fc"], progress=False)


@case(ValueError, E.InvalidDataError, "mix", "only")
def extract_mixed_stimuli(tmp):
    return lambda: extract(_demo(), [str(_png(tmp / "a.png")), "a house"], ["fc"],
                           progress=False)


@case(OSError, E.ImageReadError, "bad.jpg", "Replace it")
def extract_truncated_image(tmp):
    good, bad = _png(tmp / "a.png", mode="RGB"), _jpeg_truncated(tmp / "bad.jpg")
    return lambda: extract(_demo(), [good, bad], ["fc"], progress=False)


@case(ValueError, E.InvalidDataError, "dict", "expected an image path")
def extract_dict_stimulus(tmp):
    return lambda: extract(_demo(), [{"a": 1}], ["fc"], progress=False)


@case(TypeError, E.InputTypeError, "stimuli=3.5", "a list of stimuli", "got a float")
def extract_not_iterable(tmp):
    return lambda: extract(_demo(), 3.5, ["fc"], progress=False)


# --- atlases and recipes -----------------------------------------------------------------------
@case(KeyError, E.UnknownNameError, "MNI", "did you mean")
def atlas_unknown_space(tmp):
    return lambda: load_visfatlas("MNI")


@case(KeyError, E.UnknownNameError, "fsaverage6", "did you mean|known")
def language_parcels_unknown_space(tmp):
    return lambda: load_language_parcels("fsaverage6")


@case(TypeError, E.InputTypeError, "surface atlas", "")
def atlas_surface_to_nifti(tmp):
    import pandas as pd

    from toponeuro.atlases import Atlas

    surf = Atlas(name="tiny", space="fsaverage5", data=np.zeros(4, int),
                 labels=pd.DataFrame({"index": [0], "name": ["none"]}),
                 hemi=np.array(["left", "left", "right", "right"]), vertex=np.array([0, 1, 0, 1]))
    return lambda: surf.to_nifti()


@case(KeyError, E.UnknownNameError, "demo-flco", "did you mean")
def recipe_unknown_name(tmp):
    return lambda: load_recipe("demo-flco")


# --- absent and unreadable files, one row each -------------------------------------------------
# (name, file under tmp, its content: None = absent, int = that many random bytes, bytes = these,
#  the call on its path, builtin, toponeuro error, message patterns)
FILE_CASES = [
    ("floc_missing_folder", "absent", None, S.load_floc,
     FileNotFoundError, E.MissingFileError, ("absent", "pass the folder")),
    ("langloc_missing_csv", "items.csv", None, S.load_language_localizer,
     FileNotFoundError, E.MissingFileError, ("items.csv", "path=None")),
    ("langloc_random_bytes", "items.csv", bytes(range(256)) * 4, S.load_language_localizer,
     ValueError, E.InvalidDataError, ("items.csv", "UTF-8")),
    ("folder_missing", "absent", None, S.load_image_folder,
     FileNotFoundError, E.MissingFileError, ("absent", "pass a folder")),
    ("nsd_stimuli_missing", "nsd.hdf5", None, S.load_nsd_stimuli,
     FileNotFoundError, E.MissingFileError, ("nsd.hdf5", "nsd_stimuli.hdf5")),
    ("nsd_stimuli_random_bytes", "nsd.hdf5", 500, S.load_nsd_stimuli,
     ValueError, E.InvalidDataError, ("nsd.hdf5", "pass the path")),
    ("volume_missing_file", "absent.nii.gz", None, lambda p: load_volume_betas(p, ["a"]),
     FileNotFoundError, E.MissingFileError, ("absent.nii.gz", "existing NIfTI")),
    ("volume_random_bytes", "noise.nii.gz", 400, lambda p: load_volume_betas(p, ["a"]),
     ValueError, E.InvalidDataError, ("noise.nii.gz", "")),
    ("bids_missing_folder", "absent", None, lambda p: load_bids_betas(p, "01"),
     FileNotFoundError, E.MissingFileError, ("absent", "sub-<label>")),
    ("surface_missing_file", "lh.gii", None, lambda p: load_surface_betas(p, None, ["a"]),
     FileNotFoundError, E.MissingFileError, ("lh.gii", "GIFTI")),
    ("surface_random_bytes", "lh.gii", 300, read_surface_data,
     ValueError, E.InvalidDataError, ("lh.gii", "")),
    ("nsd_expdesign_missing", "nsd_expdesign.mat", None, read_nsd_expdesign,
     FileNotFoundError, E.MissingFileError, ("nsd_expdesign.mat", "nsddata/experiments")),
    ("nsd_expdesign_random_bytes", "nsd_expdesign.mat", 300, read_nsd_expdesign,
     ValueError, E.InvalidDataError, ("nsd_expdesign.mat", "")),
    ("nsd_missing_root", "nsd", None, lambda p: load_nsd_betas(p, 1, [1]),
     FileNotFoundError, E.MissingFileError, ("nsd_expdesign.mat", "nsddata/experiments")),
    ("checkpoint_missing", "absent.pt", None,
     lambda p: create_model("toponet_demo.tau_0", checkpoint=p),
     ValueError, E.CheckpointError, ("absent.pt", "existing")),
    ("checkpoint_random_bytes", "mine.pt", 2000, load_weights,
     ValueError, E.CheckpointError, ("mine.pt", "not a torch checkpoint")),
    ("checkpoint_empty_file", "empty.pt", b"", load_weights,
     ValueError, E.CheckpointError, ("empty.pt", "not a torch checkpoint")),
    ("checkpoint_random_safetensors", "w.safetensors", 500,
     lambda p: load_weights(p, "safetensors"),
     ValueError, E.CheckpointError, ("w.safetensors", "Download it again")),
    ("recipe_random_bytes", "r.toml", bytes(range(256)), load_recipe,
     ValueError, E.RecipeError, ("r.toml", "")),
]


def _file_case(rel, content, call):
    def fn(tmp):
        path = tmp / rel
        if content is not None:
            path.write_bytes(np.random.bytes(content) if isinstance(content, int) else content)
        return lambda: call(path)

    return fn


for _name, _rel, _content, _call, _builtin, _error, _patterns in FILE_CASES:
    assert _name not in CASES, _name
    _fn = _file_case(_rel, _content, _call)
    _fn.__name__ = _name
    case(_builtin, _error, *_patterns)(_fn)


def test_at_least_fifty_cases():
    assert len(CASES) >= 50


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_input(name, tmp_path):
    fn, builtin, error, patterns = CASES[name]
    call = fn(tmp_path)
    before = _snapshot(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(error) as err:
            call()
    exc = err.value
    assert isinstance(exc, E.ToponeuroError), type(exc).__mro__
    assert isinstance(exc, builtin), f"{type(exc).__name__} is not a {builtin.__name__}"
    msg = str(exc)
    for pattern in patterns:
        assert re.search(pattern, msg), f"{pattern!r} not in: {msg}"
    after = _snapshot(tmp_path)
    assert {k: v for k, v in after.items() if k in before} == before, "an input file changed"


# --- 16-bit images and hidden files (before: saturated, read as images) -------------------------
def test_16_bit_png_keeps_its_range(tmp_path):
    ramp = np.linspace(0, 65535, 64 * 64).reshape(64, 64).astype(np.uint16)
    Image.fromarray(ramp).save(tmp_path / "g.png")
    assert Image.open(tmp_path / "g.png").mode.startswith("I")
    got = np.asarray(S.read_image(tmp_path / "g.png"))
    assert got.shape == (64, 64, 3)
    assert (got == 255).mean() < 0.01  # before: 0.996 of the pixels were 255
    np.testing.assert_allclose(got[..., 0], ramp / 257.0, atol=0.51)
    # the same through every path that decodes images
    (tmp_path / "set" / "a").mkdir(parents=True)
    Image.fromarray(ramp).save(tmp_path / "set" / "a" / "g.png")
    s = S.load_image_folder(tmp_path / "set")
    np.testing.assert_array_equal(np.asarray(s.get(0)), got)
    pil = Image.open(tmp_path / "g.png")
    np.testing.assert_array_equal(np.asarray(S.read_image(pil)), got)
    np.testing.assert_array_equal(np.asarray(S.read_image(ramp)), got)
    from toponeuro.stimuli import StimulusSet

    np.testing.assert_array_equal(np.asarray(StimulusSet.from_items([tmp_path / "g.png"]).get(0)), got)


def test_hidden_files_are_skipped_by_every_folder_loader(tmp_path):
    from toponeuro.training._data import image_folder_dataset

    root = tmp_path / "floc"
    for cat in ("adult", "house"):
        for n in (1, 2):
            _png(root / cat / f"{cat}-{n}.png")
        (root / cat / f"._{cat}-1.png").write_bytes(b"\x00\x05\x16\x07 AppleDouble junk")
    (root / "__MACOSX" / "adult").mkdir(parents=True)
    (root / "__MACOSX" / "adult" / "._adult-3.png").write_bytes(b"junk")
    (root / ".DS_Store").write_bytes(b"junk")
    assert len(S.load_floc(root)) == 4
    folder = S.load_image_folder(root)
    assert folder.ids.tolist() == ["adult/adult-1", "adult/adult-2", "house/house-1",
                                   "house/house-2"]
    ds = image_folder_dataset(root, image_size=8, categories=["adult", "house"])
    assert len(ds) == 4 and ds[0][0].shape == (3, 8, 8)


# --- property tests: random bytes and random shapes only ever give typed errors -----------------
FAST = settings(max_examples=30, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])


def _typed_or_ok(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn()
        except E.ToponeuroError:
            return None


@FAST
@given(blobs=st.lists(st.binary(max_size=600), min_size=1, max_size=4),
       ext=st.sampled_from([".png", ".jpg", ".gif", ".tif", ".bmp", ".webp"]))
def test_image_folder_of_random_bytes(tmp_path_factory, blobs, ext):
    root = tmp_path_factory.mktemp("imgs")
    (root / "cat").mkdir()
    for i, b in enumerate(blobs):
        (root / "cat" / f"x{i}{ext}").write_bytes(b)
    s = _typed_or_ok(lambda: S.load_image_folder(root))
    if s is not None:
        for i in range(len(s)):
            im = _typed_or_ok(lambda i=i: s.get(i))
            assert im is None or im.mode == "RGB"


@FAST
@given(shape=st.lists(st.integers(0, 6), min_size=0, max_size=4),
       dtype=st.sampled_from(["uint8", "uint16", "int16", "int32", "float32", "float64", "bool"]),
       scale=st.floats(-10, 1e6) | st.sampled_from([np.nan, np.inf]))
def test_read_image_of_random_arrays(shape, dtype, scale):
    with np.errstate(all="ignore"):
        arr = (np.random.default_rng(0).random(shape) * scale).astype(dtype)
    im = _typed_or_ok(lambda: S.read_image(arr))
    assert im is None or (im.mode == "RGB" and arr.ndim in (2, 3))


@FAST
@given(blob=st.binary(max_size=800), gz=st.booleans())
def test_nifti_of_random_bytes(tmp_path_factory, blob, gz):
    path = tmp_path_factory.mktemp("nii") / ("b.nii.gz" if gz else "b.nii")
    path.write_bytes(blob)
    _typed_or_ok(lambda: load_volume_betas(path, ["a"]))


@FAST
@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=5), n_ids=st.integers(0, 5),
       ids=st.sampled_from(["list", "string", "ints"]))
def test_nifti_of_random_shapes(tmp_path_factory, shape, n_ids, ids):
    path = _nifti(tmp_path_factory.mktemp("nii") / "b.nii.gz", shape)
    stim = {"list": [f"s{i}" for i in range(n_ids)], "string": "abcdef"[:n_ids],
            "ints": list(range(n_ids))}[ids]
    _typed_or_ok(lambda: load_volume_betas(path, stim))


@FAST
@given(text=st.text(max_size=300) | st.binary(max_size=300).map(lambda b: b.decode("latin-1")))
def test_recipes_of_random_text(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("rec") / "r.toml"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    _typed_or_ok(lambda: load_recipe(path))


@FAST
@given(blob=st.binary(max_size=2000))
def test_checkpoints_of_random_bytes(tmp_path_factory, blob):
    path = tmp_path_factory.mktemp("ck") / "w.pt"
    path.write_bytes(blob)
    _typed_or_ok(lambda: load_weights(path))
    _typed_or_ok(lambda: load_weights(path, "safetensors"))


@FAST
@given(shapes=st.dictionaries(st.sampled_from(["conv1.weight", "fc.weight", "fc.bias", "x"]),
                              st.lists(st.integers(0, 3), max_size=3), max_size=4),
       wrap=st.sampled_from(["", "module.", "_orig_mod.", "model"]))
def test_checkpoints_of_random_shapes(tmp_path_factory, shapes, wrap):
    path = tmp_path_factory.mktemp("ck") / "w.pt"
    state = {f"{wrap if wrap != 'model' else ''}{k}": torch.zeros(v) for k, v in shapes.items()}
    torch.save({"model": state} if wrap == "model" else state, path)
    _typed_or_ok(lambda: create_model("toponet_demo.tau_0", checkpoint=path))


@FAST
@given(ids=st.lists(st.one_of(st.text(max_size=5), st.integers(), st.none(), st.floats()),
                    max_size=6),
       n_items=st.integers(0, 6))
def test_stimulus_ids_random(ids, n_items):
    s = _typed_or_ok(lambda: S.StimulusSet(ids, [f"t{i}" for i in range(n_items)], kind="text"))
    if s is not None:
        assert len(set(s.ids.tolist())) == len(s) == n_items


def test_pickled_evil_object_never_runs(tmp_path, capsys):
    path = tmp_path / "evil.pkl"
    path.write_bytes(pickle.dumps({"w": _Evil()}))
    with pytest.raises(E.CheckpointError):
        load_weights(path)
    assert "pwned" not in capsys.readouterr().out
