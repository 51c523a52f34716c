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
    parcels = nib.cifti2.ParcelsAxis.from_brain_models([
        ("p1", nib.cifti2.BrainModelAxis.from_surface(np.arange(3), 10, "CortexLeft"))])
    path = tmp_path / "parcels.dscalar.nii"  # a parcellated file named as a dense one
    nib.save(nib.Cifti2Image(np.ones((1, 1), np.float32),
                             header=(nib.cifti2.ScalarAxis(["a"]), parcels)), path)
    with pytest.raises(InvalidDataError, match="ParcelsAxis, not brain models"):
        read_surface_file(path)
