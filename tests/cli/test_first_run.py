"""A new user's first run: the offline error stands on its own line and says where fLoc
lives and which images to map; the skip message of the real-data tests says how to supply
the data."""

from __future__ import annotations

from toponeuro.exceptions import DownloadError


def test_offline_error_has_its_own_line_and_names_floc_and_images(tmp_path, monkeypatch,
                                                                   capsys):
    import toponeuro.stimuli._loaders as loaders
    from toponeuro.cli import main

    def offline(*args, **kwargs):
        raise DownloadError("no network")

    monkeypatch.setattr(loaders, "fetch_url", offline)
    rc = main(["map", "--out", str(tmp_path / "o")])  # progress bars on
    err = capsys.readouterr().err
    assert rc == 1
    line = next(ln for ln in err.split("\n") if "error:" in ln)  # "\r" redraws a bar
    assert line.startswith("toponeuro map: error:")  # not glued to the progress bar
    for needed in ("github.com/VPNL/fLoc", "stimuli/", "--images 97-120", "--stimuli"):
        assert needed in err, needed


def test_real_data_skip_says_how_to_supply_it():
    import inspect

    import conftest

    src = inspect.getsource(conftest.shared_dir)
    assert "TOPONEURO_SHARED" in src and "../shared" in src
