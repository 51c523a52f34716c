"""Writes that cannot destroy (issue 19, "Files lost or corrupted"): outputs are refused when
they are inputs or not toponeuro's, written aside and moved into place, one writer at a time."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
import torch
from PIL import Image

from toponeuro import exceptions as E
from toponeuro._io.folder import MANIFEST, output_folder
from toponeuro.cli import main


def _finished(out, text="first"):
    with output_folder(out) as folder:
        (folder.path / "summary.json").write_text(json.dumps({"run": text}))
        (folder.path / "sheet_maps.png").write_bytes(b"\x89PNG" + b"x" * 4000)
    return out


def _siblings(out):
    return sorted(p.name for p in out.parent.iterdir() if p.name != f".{out.name}.lock")


# --- the output folder -----------------------------------------------------------------------
@pytest.mark.parametrize("error", [KeyboardInterrupt, RuntimeError])
def test_an_interrupted_run_leaves_the_earlier_output_and_no_half_folder(tmp_path, error):
    # 0.2.0: exit 130 with sheet_maps.png truncated (124 bytes) beside the earlier run's
    # report.html and summary.json: a folder that looked complete and was wrong
    out = _finished(tmp_path / "map")
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    with pytest.raises(error):
        with output_folder(out, overwrite=True) as folder:
            (folder.path / "sheet_maps.png").write_bytes(b"\x89PNG" + b"x" * 120)
            raise error("Ctrl-C while the first PNG is written")
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert _siblings(out) == ["map"]


def test_a_complete_run_replaces_the_earlier_output_only_with_overwrite(tmp_path):
    out = _finished(tmp_path / "map")
    with pytest.raises(E.OutputExistsError, match="overwrite=True"):
        with output_folder(out):
            pytest.fail("the block must not run")
    _finished(out.parent / "other", "x")
    with output_folder(out, overwrite=True) as folder:
        (folder.path / "summary.json").write_text(json.dumps({"run": "second"}))
    assert json.loads((out / "summary.json").read_text()) == {"run": "second"}
    assert not (out / "sheet_maps.png").exists()  # nothing of the earlier run is left
    manifest = json.loads((out / MANIFEST).read_text())
    assert manifest["complete"] and manifest["kind"] == "map"
    assert manifest["files"] == ["summary.json"]


def test_a_folder_toponeuro_did_not_write_is_never_replaced(tmp_path):
    out = tmp_path / "thesis"
    out.mkdir()
    (out / "chapter1.tex").write_text("years of work")
    for overwrite in (False, True):
        with pytest.raises(E.OutputExistsError, match="chapter1.tex"):
            with output_folder(out, overwrite=overwrite):
                pytest.fail("the block must not run")
    assert (out / "chapter1.tex").read_text() == "years of work"
    with output_folder(tmp_path / "empty_is_fine"):
        pass


def test_a_second_writer_is_refused_at_once(tmp_path):
    # 0.2.0: two `toponeuro map` into one --out both exit 0; one report replaces the other
    out = tmp_path / "map"
    with output_folder(out) as folder:
        with pytest.raises(E.OutputLockedError, match=f"pid {os.getpid()}"):
            with output_folder(out, overwrite=True):
                pytest.fail("the block must not run")
        (folder.path / "summary.json").write_text("{}")
    assert (out / "summary.json").read_text() == "{}"
    with output_folder(out, overwrite=True):  # released when the first ends
        pass


def test_a_killed_run_leaves_nothing_that_a_later_run_keeps(tmp_path):
    out = _finished(tmp_path / "map")
    # what SIGKILL leaves: a partial folder, and an earlier output set aside mid-swap
    partial = tmp_path / ".map.partial-999-dead"
    partial.mkdir()
    (partial / MANIFEST).write_text((out / MANIFEST).read_text())
    os.replace(out, tmp_path / ".map.old-dead")
    with pytest.warns(UserWarning, match="Restored"):
        with pytest.raises(E.OutputExistsError):
            with output_folder(out):
                pass
    assert (out / "summary.json").exists() and _siblings(out) == ["map"]


def test_the_output_folder_may_not_be_inside_an_input(tmp_path):
    stimuli = tmp_path / "floc"
    stimuli.mkdir()
    with pytest.raises(E.OutputPathError, match="inside the input folder"):
        with output_folder(stimuli / "map", inputs=[stimuli]):
            pytest.fail("the block must not run")
    assert list(stimuli.iterdir()) == []


# --- toponeuro extract --out / --store --------------------------------------------------------
@pytest.fixture(scope="module")
def images(tmp_path_factory):
    root = tmp_path_factory.mktemp("stimuli")
    rng = np.random.default_rng(0)
    for c in ("adult", "house"):
        (root / c).mkdir()
        for n in (120, 121):
            Image.fromarray(rng.integers(0, 255, (32, 32, 3), dtype=np.uint8)).save(
                root / c / f"{c}-{n}.jpg")
    return root


def _extract(images, out, *extra):
    return main(["extract", "--model", "toponet_demo.v2_tau_0", "--stimuli", str(images),
                 "--layers", "fc", "--out", str(out), "--no-progress", *extra])


def test_extract_never_writes_over_an_input_image(images, capsys):
    # 0.2.0: the input image was overwritten with HDF5 bytes and the command exited 0
    target = images / "adult" / "adult-121.jpg"
    before = target.read_bytes()
    assert _extract(images, target) == 1
    err = capsys.readouterr().err
    assert "--out" in err and "suffix '.jpg'" in err and "Traceback" not in err
    assert _extract(images, images / "acts.nc") == 1
    assert "inside the input folder" in capsys.readouterr().err
    assert target.read_bytes() == before and not (images / "acts.nc").exists()


def test_extract_replaces_its_own_output_only_with_overwrite(images, tmp_path, capsys):
    out = tmp_path / "acts.nc"
    assert _extract(images, out) == 0
    first = out.read_bytes()
    assert _extract(images, out) == 1
    err = capsys.readouterr().err
    assert "pass --overwrite to replace it" in err and out.read_bytes() == first
    assert _extract(images, out, "--overwrite") == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["acts.nc"]  # no partial left
    mine = tmp_path / "my_betas.nc"
    mine.write_bytes(b"CDF\x01 a netCDF-3 file of mine")
    assert _extract(images, mine, "--overwrite") == 1
    assert "not written by toponeuro" in capsys.readouterr().err
    assert mine.read_bytes() == b"CDF\x01 a netCDF-3 file of mine"


def test_extract_store_that_is_a_users_netcdf_is_refused(images, tmp_path, capsys):
    import xarray as xr

    betas = tmp_path / "my_betas.nc"
    xr.DataArray(np.arange(3.0), dims="x", name="betas").to_netcdf(betas, engine="h5netcdf")
    before = betas.read_bytes()
    for extra in ([], ["--no-resume"], ["--overwrite"]):
        assert _extract(images, tmp_path / "acts.nc", "--store", str(betas), *extra) == 1
        assert "did not write" in capsys.readouterr().err
    assert betas.read_bytes() == before


# --- toponeuro map ---------------------------------------------------------------------------
def test_map_into_a_folder_being_written_stops_at_once(tmp_path, capsys):
    out = tmp_path / "map"
    with output_folder(out):
        code = main(["map", "--out", str(out), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 1 and "being written by another process" in err and "Traceback" not in err


def test_map_into_an_earlier_output_needs_overwrite(tmp_path, capsys):
    out = _finished(tmp_path / "map")
    assert main(["map", "--out", str(out), "--no-progress"]) == 1
    assert "--overwrite" in capsys.readouterr().err
    assert json.loads((out / "summary.json").read_text()) == {"run": "first"}


def test_the_train_cli_restarts_only_when_asked(tmp_path, capsys):
    from importlib import resources

    text = (resources.files("toponeuro.training") / "recipes" / "demo-smoke.toml").read_text()
    text = text.replace("n_per_class = 32", "n_per_class = 2").replace(
        "val_per_class = 8", "val_per_class = 0").replace("image_size = 32", "image_size = 16")
    (tmp_path / "tau1.toml").write_text(text)
    (tmp_path / "tau50.toml").write_text(text.replace("tau = 1.0", "tau = 50.0"))
    run = ["train", "--out", str(tmp_path / "run"), "--no-progress", "--recipe"]
    assert main([*run, str(tmp_path / "tau1.toml")]) == 0
    capsys.readouterr()
    assert main([*run, str(tmp_path / "tau50.toml")]) == 1
    err = capsys.readouterr().err
    assert "topoloss.tau: 1.0 -> 50.0" in err and "--restart" in err and "Traceback" not in err
    assert main([*run, str(tmp_path / "tau50.toml"), "--restart"]) == 0
    record = json.loads((tmp_path / "run" / "run.json").read_text())
    assert record["identity"]["recipe"]["topoloss"]["tau"] == 50.0
    assert torch.load(tmp_path / "run" / "checkpoints" / "epoch_001.pt",
                      weights_only=True)["recipe"]["topoloss"]["tau"] == 50.0
