"""Shipped atlases: integrity, label tables, masks, the cached fsaverage5 projection, geometry."""

from __future__ import annotations

import numpy as np
import pytest

from toponeuro._io.fetch import sha256sum
from toponeuro.atlases import (
    FSAVERAGE5_N_VERTICES,
    _surface,
    atlas_data_path,
    load_language_parcels,
    load_visfatlas,
    mesh_distances,
    vertex_coordinates,
)
from toponeuro.exceptions import UnknownNameError


def test_shipped_files_match_pinned_hashes():
    sums = atlas_data_path("SHA256SUMS").read_text().split("\n")
    rows = [line.split() for line in sums if line.strip()]
    assert len(rows) == 8
    for digest, rel in rows:
        assert sha256sum(atlas_data_path(*rel.split("/"))) == digest, rel
    for folder in ("visfatlas", "language_parcels"):
        assert atlas_data_path(folder, "CITATION.md").stat().st_size > 200
    assert "MIT" in atlas_data_path("language_parcels", "LICENSE").read_text()


def test_shipped_files_equal_shared_copy(shared_dir):
    for p in (shared_dir / "atlases").rglob("*"):
        if p.is_file():
            ours = atlas_data_path(p.parent.name, p.name)
            assert sha256sum(ours) == sha256sum(p), p.name


def test_visfatlas_label_table_and_mask():
    a = load_visfatlas()
    t = a.labels
    assert len(t) == 33 and list(t.columns) == ["label", "roi", "name", "hemisphere", "domain"]
    assert set(t.domain) == {"faces", "bodies", "characters", "places", "motion", "retinotopic"}
    assert t.set_index("roi").loc["lh_IOS", "domain"] == "characters"  # LUT typo fixed
    assert (t.hemisphere == "left").sum() == 17
    faces_l = a.mask(domain="faces", hemi="lh")
    assert faces_l.shape == a.data.shape and faces_l.sum() > 0
    xyz = np.c_[np.argwhere(faces_l), np.ones(faces_l.sum())] @ a.affine.T
    assert (xyz[:, 0] < 0).all()  # left hemisphere is negative x in MNI
    assert a.mask().sum() == (a.data > 0).sum()
    with pytest.raises(UnknownNameError, match="faces"):
        a.mask(domain="face")
    with pytest.raises(UnknownNameError, match="mFus"):
        a.select("mFsu")


def test_language_parcels_right_labels_mirror_left():
    a = load_language_parcels()
    t = a.labels.set_index("roi")
    assert len(t) == 26 and set(t.domain) == {"language"}
    for name in ("IFG", "posterior temporal", "cerebellum Crus II / VIIb"):
        cl = np.argwhere(a.data == t.loc[f"lh_{name}", "label"]).mean(0)
        cr = np.argwhere(a.data == t.loc[f"rh_{name}", "label"]).mean(0)
        xl, xr = (a.affine @ np.r_[cl, 1])[:3], (a.affine @ np.r_[cr, 1])[:3]
        assert xl[0] < 0 < xr[0]
        np.testing.assert_allclose(xl[1:], xr[1:], atol=3)
        np.testing.assert_allclose(-xl[0], xr[0], atol=3)
    assert set(np.unique(a.data)) - {0} == set(a.labels.label)


def test_language_parcels_surfaces():
    full = load_language_parcels("fsaverage")
    five = load_language_parcels("fsaverage5")
    assert len(full.data) == 2 * 163842 and len(five.data) == 2 * FSAVERAGE5_N_VERTICES
    np.testing.assert_array_equal(five.data[five.hemi == "left"],
                                  full.data[full.hemi == "left"][:FSAVERAGE5_N_VERTICES])
    assert set(five.labels.hemisphere[five.labels.label < 19]) == {"left"}
    assert not five.mask(hemi="right")[five.hemi == "left"].any()
    with pytest.raises(UnknownNameError):
        load_language_parcels("fsaverage7")


def test_visfatlas_fsaverage5_projection_is_cached(monkeypatch, tmp_path):
    a = load_visfatlas("fsaverage5", cache_dir=tmp_path)
    assert len(a.data) == 2 * FSAVERAGE5_N_VERTICES
    lut = a.labels.set_index("label").hemisphere
    for h in ("left", "right"):
        labs = a.data[(a.hemi == h) & (a.data > 0)]
        assert len(labs) > 100 and (lut.loc[labs] == h).all()
    assert {"faces", "places", "retinotopic"} <= set(a.labels.domain)
    # the second load reads the cache: projecting again would fail here
    import nilearn.surface

    def boom(*args, **kwargs):
        raise AssertionError("projection recomputed")

    monkeypatch.setattr(nilearn.surface, "vol_to_surf", boom)
    b = load_visfatlas("fsaverage5", cache_dir=tmp_path)
    np.testing.assert_array_equal(a.data, b.data)


def test_geometry_coordinates_and_mesh_distances():
    sph = vertex_coordinates("sphere", "left")
    assert sph.shape == (FSAVERAGE5_N_VERTICES, 3)
    assert vertex_coordinates("flat").shape == (2 * FSAVERAGE5_N_VERTICES, 3)
    src = [0, 500, 5000]
    d = mesh_distances(src, surface="sphere")
    assert d.shape == (3, FSAVERAGE5_N_VERTICES) and np.allclose(d[[0, 1, 2], src], 0)
    radius = np.linalg.norm(sph, axis=1).mean()
    unit = sph / np.linalg.norm(sph, axis=1, keepdims=True)
    great = radius * np.arccos(np.clip(unit[src] @ unit.T, -1, 1))
    far = great > 20
    ratio = d[far] / great[far]
    assert (ratio >= 0.999).all() and np.median(ratio) < 1.15  # edge paths >= geodesic, close
    pial = mesh_distances([0], surface="pial", targets=[1, 2, 3])
    assert pial.shape == (1, 3) and (pial > 0).all()
    with pytest.raises(UnknownNameError, match="inflated"):
        vertex_coordinates("inflate")
    assert _surface.SURFACES == ("pial", "white", "inflated", "sphere", "flat")


def test_cortex_maps_declare_their_fields():
    """CortexMaps's text fields are declared (validate_fields): the message names the field
    as typed, a misspelt option is an UnknownNameError, a value of the wrong kind an
    InputTypeError."""
    from dataclasses import fields

    from toponeuro._util.params import declared_params
    from toponeuro.atlases import CortexMaps
    from toponeuro.exceptions import InputTypeError, ParameterError

    assert set(declared_params(CortexMaps)) == {
        f.name for f in fields(CortexMaps) if f.type == "str"}
    assert CortexMaps("left", mesh="fs_LR_32k", representation="values").mesh == "fs_LR_32k"
    with pytest.raises(UnknownNameError, match=r"^hemi='lft' is not one of 'left', 'right'; "
                                               r"did you mean 'left'\?"):
        CortexMaps("lft")
    with pytest.raises(InputTypeError, match=r"^mesh=3 is not one of .*\(got a int\)"):
        CortexMaps("left", mesh=3)
    with pytest.raises(ParameterError, match=r"^surface='' is not a non-empty string"):
        CortexMaps("left", surface="")
