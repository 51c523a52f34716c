"""Issue 33's measured cases: each failed on 0.3's code (checked by running this file against
main) and holds with the one writer. Planted symlinks must leave their targets byte for byte."""

from __future__ import annotations

import json
import os
import warnings

import numpy as np
import pytest
import xarray as xr

from toponeuro import exceptions as E
from toponeuro._io.folder import MANIFEST, output_folder

SECRET = b"the user's precious file\n" * 40


def _secret(tmp_path):
    target = tmp_path / "elsewhere" / "precious.txt"
    target.parent.mkdir()
    target.write_bytes(SECRET)
    return target


def _done(out, **files):
    with output_folder(out, overwrite=True) as folder:
        for name, text in (files or {"summary.json": "{}"}).items():
            (folder.path / name).write_text(text)
    return out


def _legacy_02(out):
    """A 0.2 ``toponeuro map`` folder (no manifest) ..."""
    out.mkdir()
    (out / "report.html").write_text("<html>")
    (out / "summary.json").write_text(json.dumps({"toponeuro_version": "0.2.0"}))
    (out / "sheet_maps.png").write_bytes(b"\x89PNG")
    (out / "arrangement_left.png").write_bytes(b"\x89PNG")
    return out


# --- overwrite replaces only what toponeuro wrote ----------------------------------------------
def test_overwrite_of_a_02_folder_keeps_the_users_files(tmp_path):
    # 0.3: --overwrite deleted the whole folder, analysis.py and data/betas.npy included
    out = _legacy_02(tmp_path / "map")
    (out / "analysis.py").write_text("print('mine')")
    (out / "data").mkdir()
    (out / "data" / "betas.npy").write_bytes(b"betas")
    with pytest.raises(E.OutputExistsError, match="analysis.py, data"):
        with output_folder(out, overwrite=True):
            pytest.fail("refused before the job runs")
    assert (out / "analysis.py").read_text() == "print('mine')"
    assert (out / "data" / "betas.npy").read_bytes() == b"betas"


def test_overwrite_of_a_02_folder_with_only_its_known_files_replaces_it(tmp_path):
    out = _legacy_02(tmp_path / "map")
    _done(out, **{"summary.json": "new"})
    assert sorted(p.name for p in out.iterdir()) == [MANIFEST, "summary.json"]


def test_overwrite_of_a_03_folder_keeps_files_the_user_added(tmp_path):
    # 0.3: files the user added beside the manifest's were deleted
    out = _done(tmp_path / "map")
    (out / "notes.txt").write_text("mine")
    with pytest.raises(E.OutputExistsError, match="notes.txt"):
        _done(out)
    assert (out / "notes.txt").read_text() == "mine"


def test_an_input_inside_the_output_folder_is_refused_before_any_work(tmp_path):
    # 0.3: run_map(checkpoint=out/ckpt.pt, out_dir=out, overwrite=True) deleted the checkpoint
    out = _done(tmp_path / "map")
    ckpt = out / "ckpt.pt"
    ckpt.write_bytes(b"weights")
    with pytest.raises(E.OutputPathError, match="holds the input"):
        with output_folder(out, overwrite=True, inputs=(ckpt, "floc", {"faces": (ckpt, None)})):
            pytest.fail("refused before the job runs")
    assert ckpt.read_bytes() == b"weights"


def test_a_missing_input_inside_the_output_folder_is_reported_missing(tmp_path):
    # 0.4: "holds the input" was said of a checkpoint that does not exist
    from toponeuro.reporting import run_map

    out = tmp_path / "map"
    with pytest.raises(E.CheckpointError, match="No checkpoint file at .*missing.pt"):
        run_map(checkpoint=out / "missing.pt", out_dir=out)
    assert not out.exists()  # nothing left behind: no folder, no lock
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("job", ["map", "language"])
def test_a_cortex_map_file_inside_the_output_folder_is_refused_before_any_work(tmp_path, job):
    # 0.4: the jobs read the maps first and passed the read objects, not their files, as
    # inputs (the language job passed none): a map kept in the report folder was kept only
    # because its name was not in the manifest, and the message spoke of "files toponeuro
    # did not write" rather than of the input
    import warnings

    import nibabel as nib
    from nilearn import datasets, surface

    from toponeuro.reporting import run_language_map, run_map

    out = _done(tmp_path / "report")
    fs = datasets.fetch_surf_fsaverage("fsaverage5")
    files = []
    for h in ("left", "right"):
        pos = surface.load_surf_mesh(fs[f"sphere_{h}"])[0]
        v = np.exp(-((pos - pos[100]) ** 2).sum(1) / 400.0).astype(np.float32)
        files.append(out / f"{h[0]}h.map.gii")
        nib.save(nib.gifti.GiftiImage(darrays=[nib.gifti.GiftiDataArray(v)]), files[-1])
    before = [f.read_bytes() for f in files]
    run, name = (run_map, "faces") if job == "map" else (run_language_map, "language")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the planted peak lies far from the atlas's ROIs
        with pytest.raises(E.OutputPathError, match=r"holds the input .*lh\.map\.gii"):
            run(out_dir=out, overwrite=True, cortex_maps={name: tuple(files)},
                progress=False, verbose=False)
    assert [f.read_bytes() for f in files] == before


# --- names toponeuro chooses: links never followed, globs escaped ------------------------------
def test_a_link_planted_at_the_lock_is_refused_and_its_target_untouched(tmp_path):
    # 0.3: opened through the link and its target truncated to 0 bytes, even when refused
    target = _secret(tmp_path)
    (tmp_path / ".out.lock").symlink_to(target)
    with pytest.raises(E.UnsafeLinkError, match="symbolic link"):
        with output_folder(tmp_path / "out"):
            pytest.fail("refused")
    assert target.read_bytes() == SECRET
    assert not (tmp_path / "out").exists()


def test_a_link_planted_at_the_store_lock_is_refused(tmp_path):
    from toponeuro.features._store import ActivationStore

    target = _secret(tmp_path)
    store = tmp_path / "acts.nc"
    (tmp_path / "acts.nc.lock").symlink_to(target)
    with pytest.raises(E.UnsafeLinkError):
        ActivationStore(store, "k" * 64, ["a", "b"], None, {})
    assert target.read_bytes() == SECRET


def test_a_link_at_the_old_temporary_name_of_ridge_weights_is_untouched(tmp_path):
    # 0.3: coef.nc.partial was a fixed name: the link's target was overwritten, coef.nc a link
    from toponeuro.analysis import RidgeEncoder

    target = _secret(tmp_path)
    (tmp_path / "coef.nc.partial").symlink_to(target)
    rng = np.random.default_rng(0)
    X, Y = rng.standard_normal((40, 5)), rng.standard_normal((40, 3))
    RidgeEncoder(alphas=[1.0, 10.0], cv=4, weights=tmp_path / "coef.nc").fit(X, Y)
    assert target.read_bytes() == SECRET
    assert (tmp_path / "coef.nc").is_file() and not (tmp_path / "coef.nc").is_symlink()
    assert xr.open_dataset(tmp_path / "coef.nc", engine="h5netcdf")["coef"].shape == (3, 5)


def test_a_link_at_the_old_temporary_name_of_run_json_is_untouched(tmp_path):
    # 0.3: .run.json.part was a fixed name: its target overwritten, run.json left a link
    from toponeuro.models import SmallResNet
    from toponeuro.training import TrainSchedule, make_synthetic_images, train

    out = tmp_path / "run"
    out.mkdir()
    target = _secret(tmp_path)
    (out / ".run.json.part").symlink_to(target)
    data = make_synthetic_images(n_classes=2, n_per_class=4, image_size=16)
    train(SmallResNet(2, widths=(4, 4, 4, 4)), data, schedule=TrainSchedule(batch_size=4),
          out_dir=out, progress=False)
    assert target.read_bytes() == SECRET
    assert (out / "run.json").is_file() and not (out / "run.json").is_symlink()


def test_a_refused_run_with_brackets_in_its_name_leaves_another_runs_partial_folder(tmp_path):
    # 0.3: out_dir='run[1]' (refused) globbed .run[1].partial-* and deleted .run1.partial-*
    other = tmp_path / ".run1.partial-12-abcd"
    other.mkdir()
    (other / MANIFEST).write_text(json.dumps({"format": "toponeuro.output-folder"}))
    (other / "report.html").write_text("being written")
    out = tmp_path / "run[1]"
    out.mkdir()
    (out / "mine.txt").write_text("x")
    with pytest.raises(E.OutputExistsError):
        with output_folder(out):
            pass
    assert (other / "report.html").read_text() == "being written"


def test_a_link_given_as_the_output_folder_is_written_through(tmp_path):
    # 0.3: the link was replaced by a real folder, and a hidden .link.old-* was left
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    with output_folder(link) as folder:
        (folder.path / "summary.json").write_text("{}")
    assert link.is_symlink() and (real / "summary.json").read_text() == "{}"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link", "real"]
    assert folder.final_paths({"s": folder.path / "summary.json"})["s"] == link / "summary.json"


def test_out_dot_in_an_empty_folder_is_written(tmp_path, monkeypatch):
    # 0.3: refused because of the lock it had just made (..lock inside the folder)
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    with output_folder(".") as folder:
        (folder.path / "summary.json").write_text("{}")
    assert sorted(p.name for p in here.iterdir()) == [MANIFEST, "summary.json"]
    assert os.path.samefile(os.getcwd(), here)  # the folder itself was kept
    assert sorted(p.name for p in tmp_path.iterdir()) == ["here"]  # no lock left


def test_out_root_is_refused_and_leaves_no_lock():
    # 0.3: --out / left /..lock
    existed = os.path.lexists("/..lock")
    with pytest.raises(E.OutputPathError, match="root of the file system"):
        with output_folder("/"):
            pass
    if not existed:
        assert not os.path.lexists("/..lock")


def test_a_long_folder_name_is_written(tmp_path):
    # 0.3: a 240-character name failed with ENAMETOOLONG on a hidden sibling
    out = tmp_path / ("m" * 240)
    with output_folder(out) as folder:
        (folder.path / "summary.json").write_text("{}")
    _done(out)
    assert (out / "summary.json").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == [out.name]


def test_no_lock_file_is_left_after_a_run(tmp_path):
    # 0.3: an empty .map.lock stayed beside every output
    _done(tmp_path / "map")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["map"]


def test_a_lock_left_by_a_killed_run_is_recognised_and_reported(tmp_path):
    (tmp_path / ".map.lock").write_text(json.dumps({"pid": 4194999, "host": "lab-node-3",
                                                    "since": "2026-01-01T00:00:00"}))
    with pytest.warns(E.StaleLockWarning, match="killed run .pid 4194999 on lab-node-3"):
        _done(tmp_path / "map")
    assert not (tmp_path / ".map.lock").exists()


# --- resumable results fingerprint their inputs ------------------------------------------------
def _sweep_inputs():
    from toponeuro import make_activations

    acts = make_activations({"a": 16, "b": 16}, n_stimuli=20, random_state=0)
    resp = xr.DataArray(acts.values[:, :6] + 0.1, dims=("stimulus", "voxel"),
                        coords={"stimulus_id": ("stimulus", acts.stimulus_id.values),
                                "roi": ("voxel", ["FFA"] * 3 + ["PPA"] * 3)})
    return acts, resp


def _values_changed(resp):
    return resp.copy(data=resp.values + np.random.default_rng(1).normal(size=resp.shape))


def _regions_moved(resp):
    return resp.assign_coords(roi=("voxel", ["FFA", "PPA"] * 3))


@pytest.mark.parametrize("change, message", [(_values_changed, "responses' values changed"),
                                             (_regions_moved, "region assignment")])
def test_sweep_results_refuse_changed_responses(tmp_path, change, message):
    # 0.3: the old scores came back (only shapes and stimulus ids were recorded)
    from toponeuro.analysis import sweep

    acts, resp = _sweep_inputs()
    res = tmp_path / "sweep.jsonl"
    sweep({"net": acts}, None, resp, progress=False, results=res)
    with pytest.raises(E.InputChangedError, match=message):
        sweep({"net": acts}, None, change(resp), progress=False, results=res)


def test_sweep_results_recompute_changed_activations(tmp_path):
    from toponeuro.analysis import sweep

    acts, resp = _sweep_inputs()
    res = tmp_path / "sweep.jsonl"
    sweep({"net": acts}, None, resp, progress=False, results=res)
    other = acts.copy(data=np.random.default_rng(2).normal(size=acts.shape))
    fresh = sweep({"net": other}, None, resp, progress=False)
    with pytest.warns(UserWarning, match="activations of 'net' differ"):
        again = sweep({"net": other}, None, resp, progress=False, results=res)
    np.testing.assert_allclose(again["score"].values, fresh["score"].values)


# --- numbers that cannot silently go NaN -------------------------------------------------------
def test_ridge_alpha_zero_with_more_features_than_samples_is_the_minimum_norm_fit():
    # 0.3: NaN coefficients, then "responses are constant within a test fold"
    from sklearn.linear_model import LinearRegression

    from toponeuro.analysis import RidgeEncoder

    rng = np.random.default_rng(0)
    X = rng.standard_normal((30, 80))
    Y = X @ rng.standard_normal((80, 3)) + 0.1 * rng.standard_normal((30, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        m = RidgeEncoder(alphas=[0.0], cv=5, alpha_per_target=False).fit(X, Y)
    ref = LinearRegression().fit(X, Y)  # lstsq: the minimum-norm solution
    np.testing.assert_allclose(m.coef_, ref.coef_, atol=1e-8)
    np.testing.assert_allclose(m.predict(X), ref.predict(X), atol=1e-8)
    assert np.isfinite(m.cv_scores_).all()


def test_ridge_on_float16_features_does_not_overflow_the_gram_matrix():
    # 0.3: float16 X and Y (10,000 x 20) overflowed X'X: NaN coefficients, no warning
    from toponeuro.analysis import RidgeEncoder

    rng = np.random.default_rng(0)
    X = (8 * rng.standard_normal((10_000, 20))).astype(np.float16)
    Y = (X.astype(float) @ rng.standard_normal((20, 2))
         + 20 * rng.standard_normal((10_000, 2))).astype(np.float16)
    m = RidgeEncoder(alphas=[0.01, 1.0, 100.0], cv=5).fit(X, Y)
    ref = RidgeEncoder(alphas=[0.01, 1.0, 100.0], cv=5).fit(X.astype(np.float32),
                                                           Y.astype(np.float32))
    assert np.isfinite(m.coef_).all()
    np.testing.assert_allclose(m.coef_, ref.coef_, rtol=1e-3, atol=1e-4)


# --- typed errors instead of tracebacks --------------------------------------------------------
def test_an_empty_language_csv_is_a_typed_error(tmp_path):
    from toponeuro.stimuli import load_language_localizer

    (tmp_path / "empty.csv").write_text("")
    with pytest.raises(E.InvalidDataError, match="not a readable csv"):
        load_language_localizer(tmp_path / "empty.csv")


@pytest.mark.parametrize("layout", ["flat", "empty"])
def test_an_image_folder_recipe_on_a_flat_or_empty_folder_is_a_typed_error(tmp_path, layout):
    from PIL import Image

    from toponeuro.training import image_folder_dataset

    root = tmp_path / "imgs"
    root.mkdir()
    if layout == "flat":
        Image.new("RGB", (8, 8)).save(root / "face-1.png")
    else:
        (root / "faces").mkdir()
    with pytest.raises(E.ToponeuroError, match="sub-folder"):
        image_folder_dataset(root)


@pytest.mark.parametrize("numbers", ["1-1000000000", range(1, 10**9), [97.5, 98.9], [True]])
def test_absurd_or_non_integral_image_numbers_are_refused(numbers):
    from toponeuro.stimuli import floc_numbers

    with pytest.raises(E.InvalidDataError, match="numbers="):
        floc_numbers(numbers)


def test_overlap_verdict_with_alpha_as_text_is_a_typed_error():
    from toponeuro.analysis import overlap_verdict

    with pytest.raises(E.InputTypeError, match="alpha='0.05'"):
        overlap_verdict(0.3, alpha="0.05")


def test_importing_a_removed_name_carries_the_migration_hint():
    with pytest.raises(E.RemovedNameError, match="rdm_noise_ceiling"):
        from toponeuro.analysis import noise_ceiling  # noqa: F401
    import toponeuro.analysis as analysis

    assert not hasattr(analysis, "noise_ceiling")  # attribute access stays an AttributeError


def test_a_two_variable_netcdf_given_as_responses_is_a_typed_cli_error(tmp_path, capsys):
    from toponeuro.cli import main

    plugin = tmp_path / "plugin"
    plugin.mkdir()
    (plugin / "toponeuro_export.json").write_text("{}")
    nc = tmp_path / "two.nc"
    xr.Dataset({"a": ("x", [1.0]), "b": ("x", [2.0])}).to_netcdf(nc, engine="h5netcdf")
    imgs = tmp_path / "imgs"
    imgs.mkdir()
    code = main(["brainscore", "score", "--plugin", str(plugin), "--responses", str(nc),
                 "--stimuli", str(imgs)])
    err = capsys.readouterr().err
    assert code != 0 and "Traceback" not in err and "--responses" in err


def test_overwrite_keeps_a_file_the_user_changed_since_toponeuro_wrote_it(tmp_path):
    # 0.4 before this: the manifest held names only, so a report.html the user had edited (or
    # a summary.json replaced by their own) was deleted by overwrite=True
    out = _done(tmp_path / "map", **{"summary.json": "{}", "report.html": "<html>"})
    assert json.loads((out / MANIFEST).read_text())["sha256"].keys() == {"summary.json",
                                                                          "report.html"}
    (out / "report.html").write_text("<html> my notes on the faces patch")
    with pytest.raises(E.OutputExistsError, match="in which report.html was changed since toponeuro wrote it"):
        _done(out)
    assert (out / "report.html").read_text() == "<html> my notes on the faces patch"
    (out / "report.html").write_text("<html>")  # put back as written: replaceable again
    _done(out, **{"summary.json": "new"})
    assert (out / "summary.json").read_text() == "new" and not (out / "report.html").exists()


def test_overwrite_keeps_a_link_the_user_put_at_a_name_toponeuro_wrote(tmp_path):
    target = _secret(tmp_path)
    out = _done(tmp_path / "map")
    (out / "summary.json").unlink()
    (out / "summary.json").symlink_to(target)
    with pytest.raises(E.OutputExistsError, match="summary.json was changed"):
        _done(out)
    assert (out / "summary.json").is_symlink() and target.read_bytes() == SECRET


def test_overwrite_keeps_a_file_the_user_changed_or_added_inside_a_subfolder(tmp_path):
    # 0.4 before this: the manifest hashed the top-level files only, so an edited
    # region_layer_map/<id>.json of a Brain-Score plugin, or a file added beside it, was
    # deleted by overwrite=True
    out = tmp_path / "plugin"

    def write(text):
        with output_folder(out, overwrite=True, kind="brainscore-plugin") as folder:
            (folder.path / "model.py").write_text("model")
            (folder.path / "region_layer_map").mkdir()
            (folder.path / "region_layer_map" / "net.json").write_text(text)

    write('{"IT": "layer4"}')
    assert "region_layer_map/net.json" in json.loads((out / MANIFEST).read_text())["sha256"]
    rlm = out / "region_layer_map"
    (rlm / "net.json").write_text('{"IT": "my layer"}')
    with pytest.raises(E.OutputExistsError, match="region_layer_map/net.json was changed"):
        write("new")
    assert (rlm / "net.json").read_text() == '{"IT": "my layer"}'
    (rlm / "net.json").write_text('{"IT": "layer4"}')  # as written, but a file added beside
    (rlm / "notes.txt").write_text("mine")
    with pytest.raises(E.OutputExistsError, match="region_layer_map/notes.txt"):
        write("new")
    assert (rlm / "notes.txt").read_text() == "mine"
    (rlm / "notes.txt").unlink()  # as written: replaceable again
    write("new")
    assert (rlm / "net.json").read_text() == "new"


def test_overwrite_keeps_a_link_or_file_the_user_put_in_place_of_a_subfolder(tmp_path):
    target = _secret(tmp_path)
    out = tmp_path / "plugin"

    def write():
        with output_folder(out, overwrite=True, kind="brainscore-plugin") as folder:
            (folder.path / "region_layer_map").mkdir()
            (folder.path / "region_layer_map" / "net.json").write_text("{}")

    write()
    from toponeuro._io.output import remove_tree

    remove_tree(out / "region_layer_map")
    (out / "region_layer_map").symlink_to(target.parent)
    with pytest.raises(E.OutputExistsError, match="region_layer_map was changed"):
        write()
    (out / "region_layer_map").unlink()
    (out / "region_layer_map").write_text("mine")
    with pytest.raises(E.OutputExistsError, match="region_layer_map was changed"):
        write()
    assert (out / "region_layer_map").read_text() == "mine" and target.read_bytes() == SECRET
