"""Searchlight RSA: volume parity with rsatoolbox, surface neighbourhoods on a mesh graph."""

import numpy as np
import pytest
import rsatoolbox as rt
import xarray as xr

from toponeuro.analysis import rdm, searchlight_rsa, surface_neighbourhoods, volume_neighbourhoods
from toponeuro.analysis.rsa._searchlight import _mesh_graph_distances
from toponeuro.exceptions import CoordinateError, DimensionError


def _grid_mesh(h, w, spacing=1.0):
    yy, xx = np.mgrid[0:h, 0:w]
    coords = np.stack([xx.ravel() * spacing, yy.ravel() * spacing, np.zeros(h * w)], 1)
    faces = []
    for r in range(h - 1):
        for c in range(w - 1):
            v = r * w + c
            faces += [[v, v + 1, v + w], [v + 1, v + w + 1, v + w]]
    return coords, np.asarray(faces)


def test_volume_searchlight_matches_rsatoolbox(capsys):
    from rsatoolbox.util.searchlight import get_searchlight_RDMs, get_volume_searchlight

    rng = np.random.default_rng(0)
    shape = (5, 4, 4)
    mask = rng.random(shape) < 0.7
    n_stim, voxel_mm = 8, 2.0
    full = rng.standard_normal((n_stim, mask.size))
    centers, neighbors = get_volume_searchlight(
        mask, radius=2, threshold=0.0, truncate_at_boundary=True)
    sl = get_searchlight_RDMs(full, centers, neighbors, np.arange(n_stim),
                                                  method="correlation", verbose=False)
    model = rdm(rng.standard_normal((n_stim, 5)))
    ref = rt.rdm.compare(rt.rdm.RDMs(np.asarray(model)[None]), sl, method="spearman")[0]
    idx = np.flatnonzero(mask.ravel())
    ijk = np.stack(np.unravel_index(idx, shape), 1) * voxel_mm
    resp = xr.DataArray(full[:, idx], dims=("stimulus", "voxel"),
                        coords={"x": ("voxel", ijk[:, 0]), "y": ("voxel", ijk[:, 1]),
                                "z": ("voxel", ijk[:, 2]), "roi": ("voxel", ["a"] * len(idx))})
    # rsatoolbox keeps distance < 2 voxels; on the integer grid that is <= 1.9 voxels
    got = searchlight_rsa(resp, model, radius=1.9 * voxel_mm, min_size=1)
    pos = {v: i for i, v in enumerate(idx)}
    ours = got.values[[pos[c] for c in centers]]
    single = np.array([len(n) for n in neighbors]) < 2  # rsatoolbox gives NaN-free values
    np.testing.assert_allclose(ours[~single], ref[~single], atol=1e-10)
    assert list(got.roi.values) == ["a"] * len(idx) and "x" in got.coords
    capsys.readouterr()


def test_volume_neighbourhoods_use_mm():
    xyz = np.array([[0, 0, 0], [3, 0, 0], [0, 4, 0]], float)
    assert [n.tolist() for n in volume_neighbourhoods(xyz, 3.0)] == [[0, 1], [0, 1], [2]]
    assert [n.tolist() for n in volume_neighbourhoods(xyz, 5.0)] == [[0, 1, 2]] * 3


def test_mesh_graph_distances_and_neighbourhoods():
    coords, faces = _grid_mesh(5, 5)
    d = _mesh_graph_distances(coords, faces, [12])[0]  # centre vertex (2, 2)
    assert d[12] == 0 and d[13] == 1 and d[17] == 1
    # one diagonal per square: (2,2)->(3,1) is an edge, (2,2)->(3,3) takes two steps
    assert d[16] == pytest.approx(np.sqrt(2)) and d[18] == pytest.approx(2.0)
    nb = surface_neighbourhoods(coords, faces, np.arange(25), 1.0)
    assert nb[12].tolist() == [7, 11, 12, 13, 17]
    assert len(surface_neighbourhoods(coords, faces, np.arange(25), 1.5)[12]) == 7
    # only measured vertices are returned, as positions in `vertices`
    sub = surface_neighbourhoods(coords, faces, [12, 13, 24], 1.0)
    assert [s.tolist() for s in sub] == [[0, 1], [0, 1], [2]]


def test_surface_searchlight_finds_planted_patch_per_subject_and_hemi():
    rng = np.random.default_rng(1)
    coords, faces = _grid_mesh(8, 8, spacing=2.0)
    n_stim = 12
    signal = rng.standard_normal((n_stim, 3))
    model = rdm(signal, "correlation")
    verts = np.arange(64)
    patch = (coords[:, 0] <= 4) & (coords[:, 1] <= 4)  # a corner of the sheet
    blocks, coord = [], {"subject": [], "hemi": [], "vertex": []}
    for subj in ("s1", "s2"):
        for hemi in ("left", "right"):
            data = rng.standard_normal((n_stim, 64))
            if subj == "s1" and hemi == "left":
                data[:, patch] = signal @ rng.standard_normal((3, patch.sum())) + (
                    0.05 * rng.standard_normal((n_stim, patch.sum())))
            blocks.append(data)
            coord["subject"] += [subj] * 64
            coord["hemi"] += [hemi] * 64
            coord["vertex"] += verts.tolist()
    resp = xr.DataArray(np.hstack(blocks), dims=("stimulus", "voxel"),
                        coords={k: ("voxel", v) for k, v in coord.items()})
    mesh = {"left": (coords, faces), "right": (coords, faces)}
    m = searchlight_rsa(resp, model, radius=2.0, surface=mesh, metric="correlation",
                        method="pearson")
    assert m.dims == ("voxel",) and list(m.hemi.values[:2]) == ["left", "left"]
    first = m.values[:64]
    assert first[patch].mean() > first[~patch].mean() + 0.4
    assert np.nanmax(m.values[64:]) < first[patch].mean()  # other subject/hemi: no signal


def test_searchlight_bad_input():
    model = rdm(np.random.default_rng(0).standard_normal((5, 3)))
    with pytest.raises(CoordinateError, match="x, y, z"):
        searchlight_rsa(np.zeros((5, 4)), model, 2.0)
    with pytest.raises(DimensionError, match="same stimuli"):
        searchlight_rsa(np.zeros((6, 4)), model, 2.0, coords=np.zeros((4, 3)))
    resp = xr.DataArray(np.random.default_rng(0).standard_normal((5, 4)),
                        dims=("stimulus", "voxel"))
    with pytest.raises(CoordinateError, match="vertex"):
        searchlight_rsa(resp, model, 2.0, surface=_grid_mesh(2, 2))
