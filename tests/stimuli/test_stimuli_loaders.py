"""Stimulus loaders: fLoc (local and pinned fetch), language localizer, folders, NSD HDF5."""

from __future__ import annotations

import hashlib

import h5py
import numpy as np
import pandas as pd
import pytest
from PIL import Image

from toponeuro._io.fetch import sha256sum
from toponeuro.exceptions import (
    ChecksumError,
    DimensionError,
    InvalidDataError,
    UnknownNameError,
)
from toponeuro.stimuli import (
    FLOC_CATEGORIES,
    _loaders,
    load_floc,
    load_image_folder,
    load_language_localizer,
    load_nsd_stimuli,
    make_image_folder,
    pinned_sources,
)


def _floc_folder(root, cats=("adult", "house"), n=4, flat=False):
    make_image_folder(root, cats, range(1, n + 1), size=6, suffix=".jpg")
    if flat:  # the same images without category folders
        for c in cats:
            for p in (root / c).iterdir():
                p.rename(root / p.name)
            (root / c).rmdir()
    return root


@pytest.mark.parametrize("flat", [False, True])
def test_load_floc_local_layouts(tmp_path, flat):
    root = _floc_folder(tmp_path / "floc", flat=flat)
    s = load_floc(root)
    assert s.ids.tolist() == [f"{c}-{i}" for c in ("adult", "house") for i in range(1, 5)]
    assert s.metadata.domain.tolist() == ["faces"] * 4 + ["places"] * 4
    train = load_floc(root, numbers=range(1, 4))
    test = load_floc(root, numbers=[4], categories=["house"])
    assert len(train) == 6 and test.ids.tolist() == ["house-4"]
    assert s.get(0).mode == "RGB"


def test_load_floc_bad_inputs(tmp_path):
    root = _floc_folder(tmp_path / "floc")
    with pytest.raises(UnknownNameError, match="'adult'"):
        load_floc(root, categories=["adlt"])
    with pytest.raises(InvalidDataError, match=r"lacks adult images \[5\]"):
        load_floc(root, numbers=[4, 5])
    with pytest.raises(InvalidDataError, match="no images of category 'car'"):
        load_floc(root, categories=["car"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(InvalidDataError, match="No fLoc images"):
        load_floc(tmp_path / "empty")
    with pytest.raises(FileNotFoundError):
        load_floc(tmp_path / "nope")
    Image.new("L", (2, 2)).save(root / "adult-1.png")
    with pytest.raises(InvalidDataError, match="Two files"):
        load_floc(root)


def _fake_repo(tmp_path, monkeypatch, corrupt=False):
    """A local 'repository' served over file:// with a pinned table of its real hashes."""
    repo = tmp_path / "repo" / "VPNL" / "fLoc" / "abc123"
    rows = []
    for c in ("adult", "car"):
        for i in (1, 2):
            p = repo / "stimuli" / c / f"{c}-{i}.jpg"
            p.parent.mkdir(parents=True, exist_ok=True)
            Image.fromarray(np.full((4, 4), 10 * i, np.uint8)).save(p)
            digest = sha256sum(p)
            if corrupt and c == "car":
                digest = hashlib.sha256(b"other").hexdigest()
            rows.append(("VPNL/fLoc", "abc123", f"stimuli/{c}/{c}-{i}.jpg", p.stat().st_size, digest))
    table = pd.DataFrame(rows, columns=["repo", "commit", "path", "bytes", "sha256"])
    monkeypatch.setattr(_loaders, "pinned_sources", lambda repo=None: table)
    monkeypatch.setattr(_loaders, "_RAW", (tmp_path / "repo").as_uri() + "/{repo}/{commit}/{path}")


def test_load_floc_fetches_pinned_files_into_cache(tmp_path, monkeypatch):
    _fake_repo(tmp_path, monkeypatch)
    s = load_floc(cache_dir=tmp_path / "cache", numbers=[2])
    assert s.ids.tolist() == ["adult-2", "car-2"]
    assert all(str(p).startswith(str(tmp_path / "cache")) for p in s.items)
    assert np.asarray(s.get(1))[0, 0, 0] == 20


def test_load_floc_fetch_rejects_wrong_hash(tmp_path, monkeypatch):
    _fake_repo(tmp_path, monkeypatch, corrupt=True)
    with pytest.raises(ChecksumError):
        load_floc(cache_dir=tmp_path / "cache", categories=["car"])
    assert not list((tmp_path / "cache").rglob("car-1.jpg"))


def test_pinned_table_is_complete():
    t = pinned_sources("VPNL/fLoc")
    assert len(t) == 11 * 144 and t.sha256.str.len().eq(64).all()
    cats = t.path.str.split("/").str[1]
    assert sorted(cats.unique()) == sorted(FLOC_CATEGORIES)
    lm = pinned_sources("epflneuroailab/topolm")  # the localizer and verb-noun csv, the contrast
    assert sorted(lm.path) == ["eval/fmri-fit/group-level-contrast.nc",
                               "eval/stimuli/elli_stimuli.csv",
                               "eval/stimuli/fedorenko_stimuli.csv"]
    assert lm.commit.nunique() == 1 and lm.sha256.str.len().eq(64).all()


def test_language_localizer_local(tmp_path):
    p = tmp_path / "l.csv"
    p.write_text(",sentence,condition\n3,a cat sat,S\n7,mip dax,N\n9,the of ran,W\n")
    s = load_language_localizer(p)
    assert s.ids.tolist() == ["langloc-3", "langloc-7", "langloc-9"]
    assert s.kind == "text" and s.get(2) == "the of ran"
    sn = load_language_localizer(p, conditions=["S", "N"])
    assert sn.categories.tolist() == ["S", "N"]
    with pytest.raises(UnknownNameError):
        load_language_localizer(p, conditions=["X"])
    p.write_text(",sentence,condition\n0,a,Q\n")
    with pytest.raises(InvalidDataError, match="conditions"):
        load_language_localizer(p)
    p.write_text("a,b\n1,2\n")
    with pytest.raises(InvalidDataError, match="lacks columns"):
        load_language_localizer(p)


def test_image_folder(tmp_path):
    for sub, name in [("b", "house-2.png"), ("a", "face_1.png"), ("a", "face_10.png")]:
        (tmp_path / sub).mkdir(exist_ok=True)
        Image.new("RGB", (3, 3)).save(tmp_path / sub / name)
    s = load_image_folder(tmp_path)
    assert s.ids.tolist() == ["a/face_1", "a/face_10", "b/house-2"]
    assert s.categories.tolist() == ["a", "a", "b"]
    assert load_image_folder(tmp_path, "prefix").categories.tolist() == ["face", "face", "house"]
    assert load_image_folder(tmp_path, None).categories is None
    with pytest.raises(UnknownNameError):
        load_image_folder(tmp_path, "folders")
    Image.new("RGB", (3, 3)).save(tmp_path / "loose.png")
    with pytest.raises(InvalidDataError, match="no category folder"):
        load_image_folder(tmp_path)
    with pytest.raises(InvalidDataError, match="category prefix"):
        load_image_folder(tmp_path, "prefix")


def test_nsd_stimuli_lazy(tmp_path):
    p = tmp_path / "nsd_stimuli.hdf5"
    data = np.random.default_rng(0).integers(0, 255, (5, 7, 7, 3), dtype=np.uint8)
    with h5py.File(p, "w") as f:
        f.create_dataset("imgBrick", data=data, chunks=(1, 7, 7, 3))
    s = load_nsd_stimuli(p, [4, 1])
    assert s.ids.tolist() == ["nsd-00004", "nsd-00001"]
    assert s.metadata.nsd_73k_id.tolist() == [5, 2]
    np.testing.assert_array_equal(np.asarray(s.get(0)), data[4])
    import pickle

    s2 = pickle.loads(pickle.dumps(s))
    np.testing.assert_array_equal(np.asarray(s2.get(1)), data[1])
    assert s.content_hash() == s2.content_hash()
    assert len(load_nsd_stimuli(p)) == 5
    with pytest.raises(IndexError, match="0-based"):
        load_nsd_stimuli(p, [5])
    with h5py.File(tmp_path / "bad.hdf5", "w") as f:
        f.create_dataset("imgBrick", data=np.zeros((2, 4, 4), np.uint8))
    with pytest.raises(DimensionError):
        load_nsd_stimuli(tmp_path / "bad.hdf5")
    (tmp_path / "junk.hdf5").write_bytes(b"not hdf5")
    with pytest.raises(InvalidDataError):
        load_nsd_stimuli(tmp_path / "junk.hdf5")


def test_real_floc(floc_dir):
    s = load_floc(floc_dir)
    assert len(s) == 11 * 120
    assert s.get(0).size == (224, 224)
    train = load_floc(floc_dir, numbers=range(1, 97))
    held = load_floc(floc_dir, numbers=range(97, 121))
    assert len(train) == 11 * 96 and len(held) == 11 * 24
    assert not set(train.ids) & set(held.ids)


def test_real_language_localizer_matches_pinned_hash(langloc_csv):
    row = pinned_sources("epflneuroailab/topolm").iloc[0]
    assert sha256sum(langloc_csv) == row.sha256
    s = load_language_localizer(langloc_csv)
    assert len(s) == 640
    assert sorted(pd.Series(s.categories).value_counts().tolist()) == [160] * 4


def test_language_localizer_fetches_pinned_csv(tmp_path, monkeypatch):
    src = tmp_path / "repo" / "epflneuroailab" / "topolm" / "c0ffee" / "eval" / "stim.csv"
    src.parent.mkdir(parents=True)
    src.write_text(",sentence,condition\n0,a dog ran,S\n1,blick dax,N\n")
    table = pd.DataFrame([("epflneuroailab/topolm", "c0ffee", "eval/stim.csv",
                           src.stat().st_size, sha256sum(src))],
                         columns=["repo", "commit", "path", "bytes", "sha256"])
    monkeypatch.setattr(_loaders, "pinned_sources", lambda repo=None: table)
    monkeypatch.setattr(_loaders, "_RAW", (tmp_path / "repo").as_uri() + "/{repo}/{commit}/{path}")
    s = load_language_localizer(cache_dir=tmp_path / "cache")
    assert s.categories.tolist() == ["S", "N"]
    assert len(list((tmp_path / "cache").rglob("stim.csv"))) == 1
    src.write_text(",sentence,condition\n0,tampered,S\n")
    with pytest.raises(ChecksumError):
        load_language_localizer(cache_dir=tmp_path / "cache2")


def test_make_image_folder_writes_the_floc_layout_deterministically(tmp_path):
    a = make_image_folder(tmp_path / "a", ("adult", "house"), (1, 2), size=5, mode="RGB")
    b = make_image_folder(tmp_path / "b", ("adult", "house"), (1, 2), size=5, mode="RGB")
    files = sorted(p.relative_to(a).as_posix() for p in a.rglob("*") if p.is_file())
    assert files == ["adult/adult-1.png", "adult/adult-2.png", "house/house-1.png",
                     "house/house-2.png"]
    assert all((a / f).read_bytes() == (b / f).read_bytes() for f in files)
    im = Image.open(a / files[0])
    assert im.mode == "RGB" and im.size == (5, 5)
    other = make_image_folder(tmp_path / "c", ("adult",), (1,), size=5, mode="RGB", random_state=1)
    assert (other / files[0]).read_bytes() != (a / files[0]).read_bytes()
    assert np.ptp(np.asarray(im)) > 0  # not a flat image
    assert load_floc(a).ids.tolist() == ["adult-1", "adult-2", "house-1", "house-2"]
    tmp = make_image_folder()  # default: a fresh temporary folder
    assert tmp.is_dir() and sorted(p.name for p in tmp.iterdir()) == ["faces", "houses"]


@pytest.mark.parametrize("kwargs, match", [
    ({"categories": ()}, "at least one category"),
    ({"numbers": []}, "at least one category and one number"),
    ({"categories": ("a/b",)}, "folder names"),
    ({"size": 0}, "size=0 is not a whole number >= 1"),
    ({"suffix": ".txt"}, ".png"),
    ({"mode": "CMYK"}, "'L', 'RGB'"),
])
def test_make_image_folder_bad_arguments(tmp_path, kwargs, match):
    from toponeuro.exceptions import ParameterError

    with pytest.raises(ParameterError, match=match):
        make_image_folder(tmp_path, **kwargs)


def test_make_image_folder_refuses_to_write_over_a_file(tmp_path):
    from toponeuro.exceptions import OutputPathError

    (tmp_path / "faces").write_text("a file")
    with pytest.raises(OutputPathError, match="is a file"):
        make_image_folder(tmp_path)
    with pytest.raises(OSError, match="faces is a file"):  # the root itself
        make_image_folder(tmp_path / "faces")


def test_nsd_stimuli_indices_are_whole_numbers(tmp_path):
    """indices=[1.5] was truncated to image 1, silently; an id 'nsd-00001' raised a bare
    ValueError from int()."""
    import h5py

    from toponeuro.exceptions import InvalidDataError
    from toponeuro.stimuli import load_nsd_stimuli

    p = tmp_path / "nsd_stimuli.hdf5"
    with h5py.File(p, "w") as f:
        f.create_dataset("imgBrick", data=np.zeros((4, 3, 3, 3), np.uint8))
    with pytest.raises(InvalidDataError, match=r"indices= must be whole numbers.*1\.5"):
        load_nsd_stimuli(p, [1.5, 2])
    with pytest.raises(InvalidDataError, match=r"indices= must be 0-based.*pass the number"):
        load_nsd_stimuli(p, ["nsd-00001"])
    assert load_nsd_stimuli(p, [3.0, 0]).ids.tolist() == ["nsd-00003", "nsd-00000"]
    assert load_nsd_stimuli(p, np.array([2])).ids.tolist() == ["nsd-00002"]


def test_floc_finder_copies_are_never_taken_for_another_image(tmp_path):
    """``adult-1 copy 2.jpg`` (a macOS Finder duplicate) was read as image 2 when there was no
    ``adult-2.jpg``: the stem's last number. Only '<category>-<N>' or '<N>' are images now."""
    root = _floc_folder(tmp_path / "floc", n=3)
    (root / "adult" / "adult-2.jpg").rename(root / "adult" / "adult-1 copy 2.jpg")
    Image.new("L", (6, 6)).save(root / "house" / "house-3 (1).jpg")
    s = load_floc(root)
    assert s.ids.tolist() == ["adult-1", "adult-3", "house-1", "house-2", "house-3"]
    assert not any("copy" in p or "(1)" in p for p in s.metadata.path)
    with pytest.raises(InvalidDataError, match=r"lacks adult images \[2\]") as err:
        load_floc(root, numbers=[1, 2])
    assert "adult/adult-1 copy 2.jpg" in str(err.value) and "'<category>-<N>'" in str(err.value)
    only_copies = tmp_path / "copies" / "adult"
    only_copies.mkdir(parents=True)
    Image.new("L", (6, 6)).save(only_copies / "adult-1 copy.jpg")
    with pytest.raises(InvalidDataError, match="No fLoc images") as err:
        load_floc(tmp_path / "copies")
    assert "adult/adult-1 copy.jpg" in str(err.value)
    # the names a category folder may use: '<category><sep><N>' and a bare number
    other = tmp_path / "other" / "house"
    other.mkdir(parents=True)
    for name in ("house_1", "house 2", "house3", "4", "House-5"):
        Image.new("L", (6, 6)).save(other / f"{name}.jpg")
    assert load_floc(tmp_path / "other").ids.tolist() == [f"house-{i}" for i in range(1, 6)]
