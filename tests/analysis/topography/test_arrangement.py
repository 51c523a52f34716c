"""The model-vs-cortex arrangement (analysis.arrangement_comparison) and the cortex maps it
reads: planted co-located, anti-located and independent layouts; the shift null's
false-positive rate; continuous ROI maps; your own maps in every format."""


import numpy as np
import pytest
from scipy.ndimage import gaussian_filter

from toponeuro.analysis import arrangement_comparison, domain_centres, topography_table
from toponeuro.exceptions import InvalidDataError, ParameterError, UndefinedValueWarning

RR, CC = np.mgrid[:16, :16]
NAMES = ("faces", "bodies", "places", "characters", "objects")
LAYOUT = {"faces": (3, 3), "bodies": (12, 4), "places": (8, 13), "characters": (2, 12),
          "objects": (13, 12)}


def _blob(r, c, width=6.0):
    return 5 * np.exp(-((RR - r) ** 2 + (CC - c) ** 2) / width)


def _table(layout, n_permutations=0, seed=0):
    return topography_table({"s": {n: _blob(*rc) for n, rc in layout.items()}}, pairs=[],
                            n_permutations=n_permutations, n_samples=2, random_state=seed)


def test_planted_colocated_layout_matches_and_beats_the_shift_null():
    ref = _table(LAYOUT)
    same = _table({n: (r + 1, c) for n, (r, c) in LAYOUT.items()}, n_permutations=199)
    res = arrangement_comparison(same, "s", ref, "s", cortex_permutations=0, random_state=0)
    assert res["spearman"] == pytest.approx(1.0)
    assert res["n_domains"] == 5 and res["n_pairs"] == 10
    assert res["p_shift"] <= 0.01 and res["p_value"] == res["p_shift"]
    assert np.isnan(res["p_spin"])


def test_planted_antilocated_layout_is_negative_and_not_significant():
    ref = _table({"a": (1, 1), "b": (1, 14), "c": (14, 1), "d": (14, 14), "e": (8, 8)})
    # near pairs become far: the centre goes to a corner, corners come together
    anti = _table({"a": (7, 7), "b": (9, 9), "c": (9, 7), "d": (7, 9), "e": (1, 1)},
                  n_permutations=99)
    res = arrangement_comparison(anti, "s", ref, "s", cortex_permutations=0, random_state=0)
    assert res["spearman"] < -0.3 and res["p_shift"] > 0.5


@pytest.mark.slow  # a calibration (issue 46: calibrations run in the full suite)
def test_shift_null_false_positive_rate_on_independent_maps():
    """Independent smooth maps vs a fixed layout: p <= 0.05 in about 5% of cases."""
    ref = _table(LAYOUT)
    rng = np.random.default_rng(1)
    hits, n = 0, 40
    for i in range(n):
        maps = {d: gaussian_filter(rng.standard_normal((16, 16)), 2, mode="wrap") for d in NAMES}
        t = topography_table({"s": maps}, pairs=[], n_permutations=0, n_samples=2,
                             random_state=i)
        t.attrs["n_permutations"] = 99
        res = arrangement_comparison(t, "s", ref, "s", cortex_permutations=0, random_state=i)
        hits += res["p_shift"] <= 0.05
    assert hits <= 6  # 40 trials at 5%: expected 2, P(> 6) < 0.01


def test_fewer_than_three_shared_domains_is_nan_with_a_warning():
    two = _table({"faces": (3, 3), "bodies": (10, 10)})
    with pytest.warns(UndefinedValueWarning, match="3 or more domains"):
        res = arrangement_comparison(two, "s", two, "s")
    assert np.isnan(res["spearman"]) and np.isnan(res["p_value"])


def test_domain_centres_weight_the_top_of_every_map():
    t = _table({"faces": (5, 9)})
    (c,) = domain_centres({"faces": t.maps["s", "faces"]["distance"]}).values()
    assert np.allclose(c, [5, 9], atol=0.01)
    with pytest.raises(ParameterError, match="top"):
        domain_centres({"faces": t.maps["s", "faces"]["distance"]}, top=0)


def test_cortex_side_spin_null_on_atlas_proximity_maps():
    from toponeuro.atlases import cortex_maps, load_visfatlas

    cm = cortex_maps(load_visfatlas("fsaverage5"), ["faces", "bodies", "places", "characters"],
                     hemispheres=["left"], representation="proximity")
    left = cm["left"]
    assert all(float(m.max()) == 1.0 for m in left.maps.values())
    ct = topography_table(cm, threshold=1.0, min_units=10, smooth_sigma=0.0, n_permutations=0,
                          similarity_permutations=0, n_samples=2, random_state=0)
    # the ROI is exactly the points at 1: its patches are the ROI's parts of >= 10 vertices
    roi = int((left.maps["faces"] == 1).sum())
    assert 10 <= ct.patches["left", "faces"].table["n_units"].sum() <= roi
    res = arrangement_comparison(ct, "left", ct, "left", n_permutations=0,
                                 cortex_permutations=19, random_state=0)
    assert res["spearman"] == pytest.approx(1.0) and res["n_pairs"] == 6
    assert 0 < res["p_spin"] <= 1 and all(d > 5 for d in res["cortex_distances"])  # mm


# --------------------------------------------------------------------------- your own maps


def _gii(path, values, hemi=None):
    import nibabel as nib

    meta = {"AnatomicalStructurePrimary": f"Cortex{hemi.capitalize()}"} if hemi else {}
    img = nib.gifti.GiftiImage(darrays=[nib.gifti.GiftiDataArray(values.astype(np.float32))],
                               meta=nib.gifti.GiftiMetaData(meta))
    nib.save(img, str(path))
    return str(path)


def _mgh(path, values):
    import nibabel as nib

    nib.save(nib.MGHImage(values.astype(np.float32).reshape(-1, 1, 1), np.eye(4)), str(path))
    return str(path)


def _planted(hemi, seed):
    return np.random.default_rng(seed).standard_normal(10242) + (0 if hemi == "left" else 5)


def test_own_surface_maps_gifti_and_fsaverage_mgh(tmp_path):
    from toponeuro.atlases import load_cortex_maps, parse_cortex_maps

    lf, rf = _planted("left", 0), _planted("right", 1)
    big = np.zeros(163842)
    big[:10242] = _planted("left", 2)  # fsaverage decimates to fsaverage5: first 10,242
    big_r = np.zeros(163842)
    big_r[:10242] = _planted("right", 3)
    spec = (f"faces={_gii(tmp_path / 'lh.faces.gii', lf, 'left')}:"
            f"{_gii(tmp_path / 'rh.faces.gii', rf, 'right')},"
            f"bodies={_mgh(tmp_path / 'lh.bodies.mgh', big)}:{_mgh(tmp_path / 'rh.bodies.mgh', big_r)}")
    assert set(parse_cortex_maps(spec)) == {"faces", "bodies"}
    cm = load_cortex_maps(spec)
    np.testing.assert_allclose(cm["left"].maps["faces"], lf, rtol=1e-6)
    np.testing.assert_allclose(cm["right"].maps["faces"], rf, rtol=1e-6)
    np.testing.assert_allclose(cm["left"].maps["bodies"], big[:10242], rtol=1e-6)
    assert cm["left"].source["maps"]["bodies"]["left"]["mesh"] == "fsaverage"
    assert cm["left"].representation == "values" and cm["left"].sphere.shape == (10242, 3)
    # one file whose metadata names the hemisphere; the other hemisphere then has no map
    one = load_cortex_maps({"faces": _gii(tmp_path / "faces_left.gii", lf, "left")},
                           hemispheres=["left"])
    assert list(one) == ["left"]


def test_own_maps_are_validated_with_errors_naming_the_fix(tmp_path):
    from toponeuro.atlases import load_cortex_maps
    from toponeuro.exceptions import DimensionError, MissingFileError

    lf, rf = _planted("left", 0), _planted("right", 1)
    lh, rh = _gii(tmp_path / "lh.f.gii", lf, "left"), _gii(tmp_path / "rh.f.gii", rf, "right")
    with pytest.raises(InvalidDataError, match="left hemisphere first"):
        load_cortex_maps({"faces": (rh, lh)})
    with pytest.raises(DimensionError, match="fsaverage5"):
        load_cortex_maps({"faces": (_mgh(tmp_path / "a.mgh", np.ones(5000)), rh)})
    nan = lf.copy()
    nan[:7] = np.nan  # NaN is "no data" (the medial wall, outside a mask): kept, recorded
    cm = load_cortex_maps({"faces": (_gii(tmp_path / "n.gii", nan), rh)})
    assert cm["left"].source["no_data_vertices"] == {"faces": {"left": 7}}
    with pytest.raises(InvalidDataError, match="no map covers the left"):
        load_cortex_maps({"faces": (_gii(tmp_path / "c.gii", np.ones(10242)), rh)})
    with pytest.raises(MissingFileError, match="does not exist"):
        load_cortex_maps({"faces": (str(tmp_path / "none.gii"), rh)})
    with pytest.raises(InvalidDataError, match="which hemisphere"):
        load_cortex_maps({"faces": _gii(tmp_path / "faces.gii", lf)})
    with pytest.raises(InvalidDataError, match="DOMAIN=PATH"):
        load_cortex_maps("faces")
    with pytest.raises(InvalidDataError, match="vol_to_surf parameter"):
        load_cortex_maps({"faces": (lh, rh)}, vol_to_surf={"radios": 2})


def test_own_mni_volumes_planted_and_nilearns_real_statistical_map(tmp_path):
    """A planted MNI blob lands where it was put; nilearn's bundled NeuroVault t-map (motor,
    image 10426) projects with the recorded vol_to_surf parameters."""
    import nibabel as nib
    from nilearn.datasets import load_sample_motor_activation_image

    from toponeuro.atlases import load_cortex_maps, vertex_coordinates

    affine = np.diag([2.0, 2.0, 2.0, 1.0])
    affine[:3, 3] = [-90, -126, -72]
    ijk = np.indices((91, 109, 91)).reshape(3, -1).T
    xyz = ijk * 2.0 + affine[:3, 3]
    centre = np.array([-40.0, -50.0, -20.0])  # left ventral temporal cortex
    blob = np.exp(-((xyz - centre) ** 2).sum(1) / (2 * 8.0 ** 2)).reshape(91, 109, 91)
    path = tmp_path / "faces_mni.nii.gz"
    nib.save(nib.Nifti1Image(blob.astype(np.float32), affine), str(path))
    cm = load_cortex_maps({"faces": str(path),
                           "motor": load_sample_motor_activation_image()},
                          vol_to_surf={"radius": 2.0})
    pial = vertex_coordinates("pial", "left")
    peak = pial[np.argmax(cm["left"].maps["faces"])]
    assert np.linalg.norm(peak - centre) < 15
    assert cm["right"].maps["faces"].max() < 0.05  # the blob is in the left hemisphere
    assert cm["left"].source["vol_to_surf"]["radius"] == 2.0
    motor = cm["right"].maps["motor"]
    assert motor.shape == (10242,) and motor.max() > 5  # the t-map's right-hemisphere peak


@pytest.mark.slow  # an end-to-end run_map (model, atlas-free cortex side, spin nulls)
def test_run_map_with_your_own_maps_records_them(tmp_path, write_floc_folder):
    """run_map(cortex_maps=) measures the given maps in place of the atlas, with the spin
    null, and summary.json says which files and how they were read."""
    from toponeuro.reporting import run_map

    cats = ["adult", "child", "body", "limb", "corridor", "house", "word", "number", "car",
            "instrument"]
    floc = write_floc_folder(tmp_path / "floc", cats, (97,), size=32)
    spec = {}
    for i, d in enumerate(("faces", "bodies", "places")):
        spec[d] = (_gii(tmp_path / f"lh.{d}.gii", _planted("left", i), "left"),
                   _gii(tmp_path / f"rh.{d}.gii", _planted("right", 10 + i), "right"))
    res = run_map(stimuli=floc, out_dir=tmp_path / "out", layers=["layer4.0.conv2"],
                  n_permutations=9, cortex_permutations=9, cortex_maps=spec,
                  cortex_threshold=2.0, progress=False, verbose=False)
    cortex = res.summary["cortex"]
    assert cortex["source"]["representation"] == "values"
    assert set(cortex["source"]["maps"]) == {"faces", "bodies", "places"}
    assert cortex["atlas"].startswith("your own maps")
    assert set(cortex["hemispheres"]["left"]["n_patches"]) == {"faces", "bodies", "places"}
    assert cortex["hemispheres"]["left"]["map_similarity_null"]["faces-bodies"]["null"] == "spin"
    arr = res.summary["arrangement"]["layer4.0.conv2|left"]
    assert arr["n_domains"] == 3 and arr["p_spin"] is not None and arr["p_shift"] is not None
    assert res.summary["headline"]["layer"] == "layer4.0.conv2"
    html = (tmp_path / "out" / "report.html").read_text()
    assert "your maps on fsaverage5" in html and "3 on the left hemisphere" in html
    # the lab's continuous maps go through the one ruler: every descriptor (smoothness
    # too), on the mesh over the declared region, the model side with its interval
    from toponeuro.reporting import cortex_region_mask

    comp = res.ruler["layer4.0.conv2", "left"]
    assert comp.left_out == {} and comp.cortex_geometry == "mesh"
    assert {r.descriptor for r in comp.rows} >= {"smoothness", "clustering", "patch_count",
                                                 "domain_similarity", "arrangement"}
    region = int(cortex_region_mask("votc", "fsaverage5", "left").sum())
    smooth = [r for r in comp.rows if r.descriptor == "smoothness"]
    assert all(r.cortex.extent_mm < 150 and r.model.interval is not None for r in smooth)
    assert comp.settings.cortex_region == "votc" and 500 < region < 5000


def test_cli_cortex_maps_syntax_error_names_the_flag(tmp_path, capsys):
    from toponeuro.cli import main

    rc = main(["map", "--stimuli", str(tmp_path), "--cortex-maps", "faces", "--out",
               str(tmp_path / "o"), "--no-progress"])
    err = capsys.readouterr().err
    assert rc != 0 and "DOMAIN=PATH" in err


def test_spin_draws_are_shared_across_layers_with_a_fixed_seed():
    """A second layer against the same hemisphere reuses the spin draws: the same p as a
    fresh computation, without drawing again."""
    from toponeuro.atlases import cortex_maps, load_visfatlas

    cm = cortex_maps(load_visfatlas("fsaverage5"), ["faces", "bodies", "places"],
                     hemispheres=["right"], representation="proximity")
    ct = topography_table(cm, threshold=1.0, smooth_sigma=0.0, n_permutations=0,
                          similarity_permutations=0, n_samples=2, random_state=0)
    a = _table({"faces": (3, 3), "bodies": (12, 4), "places": (8, 13)})
    b = _table({"faces": (12, 4), "bodies": (3, 3), "places": (8, 13)})
    kw = {"n_permutations": 0, "cortex_permutations": 29, "random_state": 3}
    first = arrangement_comparison(a, "s", ct, "right", **kw)
    second = arrangement_comparison(b, "s", ct, "right", **kw)  # from the memo
    for tm in (ct.maps["right", n]["distance"] for n in ("faces", "bodies", "places")):
        tm._cache.clear()
    fresh = arrangement_comparison(b, "s", ct, "right", **kw)
    assert second["p_spin"] == fresh["p_spin"] and second["null_spin_std"] == fresh["null_spin_std"]
    assert np.isfinite(first["p_spin"])
