"""The surface-file reader (``toponeuro._io.meshes``): a dense CIFTI is read from its header's
brain models the same as nibabel's axes read it."""

from __future__ import annotations

import nibabel as nib
import numpy as np
import pytest

from toponeuro._io.meshes import read_surface_file
from toponeuro.exceptions import InvalidDataError


def _by_nibabels_axes(img) -> dict:
    """What nibabel's BrainModelAxis gives: each cortex's (vertices, maps), NaN off the
    brain models."""
    axis = img.header.get_axis(1)
    raw = np.asarray(img.get_fdata(), dtype=float)
    hemis = {"CIFTI_STRUCTURE_CORTEX_LEFT": "left", "CIFTI_STRUCTURE_CORTEX_RIGHT": "right"}
    out = {}
    for name, columns, models in axis.iter_structures():
        if name in hemis:
            full = np.full((models.nvertices[name], raw.shape[0]), np.nan)
            full[models.vertex] = raw[:, columns].T
            out[hemis[name]] = full
    return out


def _one_map_file(path, models):
    """``path``: a CIFTI-2 of one map of ones, named "a", over ``models`` (its second axis)."""
    nib.save(nib.Cifti2Image(np.ones((1, len(models)), np.float32),
                             header=(nib.cifti2.ScalarAxis(["a"]), models)), path)
    return path


@pytest.mark.parametrize("order", ["left-right-volume", "volume-right-left"])
def test_a_dense_cifti_reads_as_nibabels_axes_read_it(tmp_path, order):
    """Medial walls (vertices off the models), a subcortical volume between or before the
    cortices, three named maps: the same arrays, NaN where nibabel has none."""
    rng = np.random.default_rng(0)
    n = 32492
    parts = {
        "left": nib.cifti2.BrainModelAxis.from_surface(
            np.flatnonzero(rng.random(n) > 0.1), n, "CortexLeft"),
        "right": nib.cifti2.BrainModelAxis.from_surface(
            np.flatnonzero(rng.random(n) > 0.12), n, "CortexRight"),
        "volume": nib.cifti2.BrainModelAxis.from_mask(
            np.ones((2, 2, 2), bool), name="thalamus_left", affine=np.eye(4)),
    }
    names = order.split("-")
    models = parts[names[0]] + parts[names[1]] + parts[names[2]]
    data = rng.normal(size=(3, len(models))).astype(np.float32)
    path = tmp_path / "maps.dscalar.nii"
    nib.save(nib.Cifti2Image(data, header=(nib.cifti2.ScalarAxis(["a", "b", "c"]), models)),
             path)
    read = read_surface_file(path)
    expected = _by_nibabels_axes(nib.load(path))
    assert read.map_names == ("a", "b", "c") and set(read.data) == {"left", "right"}
    for hemi in ("left", "right"):
        np.testing.assert_array_equal(read.data[hemi], expected[hemi])
    assert np.isnan(read.data["left"]).any()  # the wall is NaN, not 0


def test_a_parcellated_cifti_is_refused_naming_its_axis(tmp_path):
    """A whole, valid parcellated CIFTI named .dscalar.nii is not a corrupt download: the
    message gives the reason (its axis) and no re-download advice."""
    parcels = nib.cifti2.ParcelsAxis.from_brain_models([
        ("p1", nib.cifti2.BrainModelAxis.from_surface(np.arange(3), 10, "CortexLeft"))])
    # a parcellated file named as a dense one
    path = _one_map_file(tmp_path / "parcels.dscalar.nii", parcels)
    with pytest.raises(InvalidDataError, match="ParcelsAxis, not brain models") as info:
        read_surface_file(path)
    assert "cannot be read as surface data: its second axis is a ParcelsAxis" in str(info.value)
    assert "re-download" not in str(info.value)


def _small_models(rng, n=200):
    left = nib.cifti2.BrainModelAxis.from_surface(np.flatnonzero(rng.random(n) > 0.2), n,
                                                  "CortexLeft")
    right = nib.cifti2.BrainModelAxis.from_surface(np.flatnonzero(rng.random(n) > 0.2), n,
                                                   "CortexRight")
    return left + right


@pytest.mark.parametrize("kind", ["dtseries", "dlabel"])
def test_a_series_or_label_cifti_reads_as_nibabels_axes_read_it(tmp_path, kind):
    """The rows' axis is a series (no map names) or labels (the label table is read)."""
    rng = np.random.default_rng(1)
    models = _small_models(rng)
    if kind == "dtseries":
        rows = nib.cifti2.SeriesAxis(0, 2.0, 4)
        data = rng.normal(size=(4, len(models))).astype(np.float32)
    else:
        rows = nib.cifti2.LabelAxis(["rois"], [{0: ("???", (0, 0, 0, 0)),
                                                1: ("V1", (1, 0, 0, 1))}])
        data = rng.integers(0, 2, size=(1, len(models))).astype(np.float32)
    path = tmp_path / f"maps.{kind}.nii"
    nib.save(nib.Cifti2Image(data, header=(rows, models)), path)
    read = read_surface_file(path)
    expected = _by_nibabels_axes(nib.load(path))
    for hemi in ("left", "right"):
        np.testing.assert_array_equal(read.data[hemi], expected[hemi])
    if kind == "dtseries":
        assert read.map_names == () and read.labels is None
    else:
        assert read.map_names == ("rois",) and read.labels == {0: "???", 1: "V1"}


def test_a_volume_only_cifti_is_refused_as_having_no_cortex(tmp_path):
    volume = nib.cifti2.BrainModelAxis.from_mask(np.ones((2, 2, 2), bool),
                                                 name="thalamus_left", affine=np.eye(4))
    path = _one_map_file(tmp_path / "subcortex.dscalar.nii", volume)
    with pytest.raises(InvalidDataError, match="no CIFTI_STRUCTURE_CORTEX_LEFT/RIGHT"):
        read_surface_file(path)


def test_a_cortex_in_two_brain_models_is_refused_not_half_read(tmp_path):
    """A structure may have one brain model (CIFTI-2); a file with two for the left cortex
    (here around the right one) was read keeping only the second's vertices."""
    n = 50
    first = nib.cifti2.BrainModelAxis.from_surface(np.arange(10), n, "CortexLeft")
    second = nib.cifti2.BrainModelAxis.from_surface(np.arange(20, 30), n, "CortexLeft")
    right = nib.cifti2.BrainModelAxis.from_surface(np.arange(n), n, "CortexRight")
    models = first + right + second
    path = _one_map_file(tmp_path / "split.dscalar.nii", models)
    with pytest.raises(InvalidDataError, match="CIFTI_STRUCTURE_CORTEX_LEFT in 2 brain models"):
        read_surface_file(path)
