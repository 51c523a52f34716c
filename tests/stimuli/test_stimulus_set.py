"""StimulusSet: construction, indexing, splitting, hashing and the bad-input paths."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from toponeuro.exceptions import AlignmentError, DimensionError, UnknownNameError
from toponeuro.stimuli import FLOC_CATEGORIES, FLOC_DOMAINS, StimulusSet, make_stimulus_set


def _images(tmp_path, n=4):
    paths = []
    for i in range(n):
        p = tmp_path / f"im{i}.png"
        Image.fromarray(np.full((8, 8), i * 40, np.uint8), mode="L").save(p)
        paths.append(p)
    return paths


def test_image_set_loads_rgb_and_indexes(tmp_path):
    paths = _images(tmp_path)
    s = StimulusSet([f"s{i}" for i in range(4)], paths, "image", categories=list("aabb"))
    assert len(s) == 4 and s.ids.dtype.kind == "U"
    im = s.get(2)
    assert isinstance(im, Image.Image) and im.mode == "RGB"
    assert np.asarray(im)[0, 0].tolist() == [80, 80, 80]
    assert s[1].ids.tolist() == ["s1"]
    assert s[-1].ids.tolist() == ["s3"]
    assert s[1:3].ids.tolist() == ["s1", "s2"]
    assert s[np.array([3, 0])].ids.tolist() == ["s3", "s0"]
    assert s[s.categories == "b"].items == paths[2:]
    assert s[[3, 0]].metadata.stimulus_id.tolist() == ["s3", "s0"]
    assert [np.asarray(x)[0, 0, 0] for x in s] == [0, 40, 80, 120]


def test_split_by_index_category_domain_and_group():
    s = StimulusSet(list("abcdef"), list("ABCDEF"), "text",
                    categories=["adult", "child", "house", "word", "corridor", "scrambled"])
    a, b = s.split([0, 2])
    assert a.ids.tolist() == ["a", "c"] and b.ids.tolist() == ["b", "d", "e", "f"]
    a, b = s.split(domains="places")
    assert a.ids.tolist() == ["c", "e"] and len(b) == 4
    a, b = s.split(categories=["adult"])
    assert a.ids.tolist() == ["a"]
    groups = s.split(by="domain")
    assert list(groups) == ["faces", "places", "characters", "scrambled"]
    assert groups["faces"].ids.tolist() == ["a", "b"]
    with pytest.raises(UnknownNameError, match="house"):
        s.split(categories=["hous"])
    with pytest.raises(TypeError):
        s.split([0], categories=["adult"])


def test_content_hash_tracks_ids_order_and_bytes(tmp_path):
    paths = _images(tmp_path, 2)
    s = StimulusSet(["x", "y"], paths, "image")
    h = s.content_hash()
    assert h == StimulusSet(["x", "y"], paths, "image").content_hash()
    assert h != StimulusSet(["y", "x"], paths, "image").content_hash()
    assert h != s[[1, 0]].content_hash()
    Image.fromarray(np.full((8, 8), 7, np.uint8)).save(paths[1])
    assert StimulusSet(["x", "y"], paths, "image").content_hash() != h
    assert s.content_hash() != h  # files are read again: the edit changes the hash


def test_synthetic_set_has_category_structure():
    s = make_stimulus_set(n_per_category=3, categories=("faces", "places"), size=24)
    x = np.stack([np.asarray(im, float)[..., 0].ravel() for im in s])
    # gratings of one category correlate more with each other than across categories
    c = np.abs(np.corrcoef(np.abs(np.fft.fft2(x.reshape(-1, 24, 24))).reshape(6, -1)))
    within = c[:3, :3][np.triu_indices(3, 1)].mean()
    between = c[:3, 3:].mean()
    assert within > between
    assert s.content_hash() == make_stimulus_set(3, ("faces", "places"), size=24).content_hash()


def test_floc_constants():
    assert len(FLOC_CATEGORIES) == 11
    flat = sorted(c for cats in FLOC_DOMAINS.values() for c in cats)
    assert flat == sorted(FLOC_CATEGORIES)


def test_bad_inputs():
    with pytest.raises(AlignmentError, match="unique"):
        StimulusSet(["a", "a"], ["x", "y"], "text")
    with pytest.raises(DimensionError, match="one item per id"):
        StimulusSet(["a", "b"], ["x"], "text")
    with pytest.raises(DimensionError, match="categories"):
        StimulusSet(["a", "b"], ["x", "y"], "text", categories=["c"])
    with pytest.raises(UnknownNameError, match="image"):
        StimulusSet(["a"], ["x"], "imag")
    import pandas as pd

    with pytest.raises(AlignmentError, match="disagrees"):
        StimulusSet(["a", "b"], ["x", "y"], "text", metadata=pd.DataFrame({"stimulus_id": ["b", "a"]}))
    with pytest.raises(DimensionError, match="rows"):
        StimulusSet(["a", "b"], ["x", "y"], "text", metadata=pd.DataFrame({"k": [1]}))
    s = StimulusSet(["a", "b"], ["x", "y"], "text")
    with pytest.raises(IndexError):
        s[5]
    with pytest.raises(DimensionError, match="mask"):
        s[np.array([True])]
    with pytest.raises(UnknownNameError):
        s.select(["c"])
    with pytest.raises(ValueError, match="no categories"):
        s.split(by="category")


def test_align_responses_to_set_order_exact_join():
    import xarray as xr

    s = StimulusSet(["a", "b", "c"], ["A", "B", "C"], "text")
    da = xr.DataArray([3, 1, 2], dims="stimulus",
                      coords={"stimulus_id": ("stimulus", ["c", "a", "b"])})
    assert s.align(da).stimulus_id.values.tolist() == ["a", "b", "c"]
    with pytest.raises(AlignmentError, match="1 ids only"):
        s.align(da.isel(stimulus=[0, 1]))


# --- StimulusSet.from_items: the one container for plain lists ---------------------------
def test_from_items_kinds_ids_and_hash(tmp_path):
    import torch
    from PIL import Image

    from toponeuro.exceptions import InvalidDataError

    path = tmp_path / "a.png"
    Image.fromarray(np.full((4, 4, 3), 7, np.uint8)).save(path)
    files = StimulusSet.from_items([str(path)])
    assert (files.kind, files.loader, files.ids.tolist()) == ("image", None, ["stim-0000"])
    assert files.get(0).size == (4, 4)
    mixed = StimulusSet.from_items([path, Image.open(path)], ids=["file", "pil"])
    assert np.array_equal(np.asarray(mixed.get(0)), np.asarray(mixed.get(1)))
    batch = torch.rand(3, 3, 5, 5, generator=torch.Generator().manual_seed(0))
    tensors = StimulusSet.from_items(batch)  # one stimulus per row, passed on as given
    assert len(tensors) == 3 and torch.equal(tensors.get(2), batch[2])
    arrays = StimulusSet.from_items([batch[0].numpy()])
    assert torch.equal(arrays.get(0), batch[0])
    # the content hash follows the values, not the object
    assert StimulusSet.from_items(batch).content_hash() == tensors.content_hash()
    assert StimulusSet.from_items(batch + 1).content_hash() != tensors.content_hash()
    with pytest.raises(InvalidDataError, match="mix images and texts"):
        StimulusSet.from_items([str(path), "a sentence"])
    with pytest.raises(InvalidDataError, match="empty"):
        StimulusSet.from_items([])
    with pytest.raises(InvalidDataError, match="single str"):
        StimulusSet.from_items("a sentence")
    with pytest.raises(InvalidDataError, match="Cannot use a dict"):
        StimulusSet.from_items([{}])


def test_the_set_s_stages_are_functions_of_their_own():
    """Selection and hashing live in _selection / _identity; the methods are their callers."""
    from toponeuro.stimuli._identity import stimulus_hash
    from toponeuro.stimuli._selection import (
        group_labels,
        ids_positions,
        index_positions,
        split_mask,
    )

    cats = ["adult", "house", "child", "corridor", "word"]
    s = StimulusSet(list("abcde"), list("ABCDE"), "text", categories=cats,
                    metadata={"run": [1, 2, 1, 2, 1]})
    for idx in (slice(1, 4), [4, 0], -2, np.array([True, False, True, False, False]), []):
        assert s[idx].ids.tolist() == s.ids[index_positions(idx, 5)].tolist()
    assert ids_positions(s.ids, ["e", "b"]).tolist() == [4, 1]
    assert group_labels(s, "domain").tolist() == ["faces", "places", "faces", "places",
                                                  "characters"]
    assert group_labels(s, "run").tolist() == ["1", "2", "1", "2", "1"]
    mask = split_mask(s, domains="places")
    first, rest = s.split(domains="places")
    assert first.ids.tolist() == s.ids[mask].tolist() == ["b", "d"]
    assert rest.ids.tolist() == s.ids[~mask].tolist()
    assert s.content_hash() == stimulus_hash("text", s.ids, s.items)
    assert stimulus_hash("text", s.ids[::-1], s.items[::-1]) != s.content_hash()
    with pytest.raises(UnknownNameError, match="Cannot group stimuli by 'rn'"):
        group_labels(s, "rn")
    with pytest.raises(DimensionError, match="one value per stimulus"):
        index_positions(np.array([True, False]), 5)
