"""Renamed API: the old names still work for one release and warn with a FutureWarning."""

from __future__ import annotations

import pytest

from toponeuro import exceptions as E


def test_data_dir_is_cache_dir(tmp_path):
    from toponeuro.stimuli import load_language_localizer, local_floc_copy

    (tmp_path / "floc").mkdir()
    with pytest.warns(FutureWarning, match=r"local_floc_copy\(data_dir=...\).*cache_dir="):
        assert local_floc_copy(data_dir=tmp_path) == tmp_path / "floc"
    csv = tmp_path / "items.csv"
    csv.write_text(",sentence,condition\n0,the dog ran home,S\n")
    with pytest.warns(FutureWarning, match="cache_dir="):
        assert len(load_language_localizer(csv, data_dir=tmp_path)) == 1
    with pytest.raises(TypeError, match="pass only cache_dir="):
        load_language_localizer(csv, data_dir=tmp_path, cache_dir=tmp_path)


def test_run_map_out_is_out_dir(tmp_path):
    from toponeuro.reporting import run_map

    with pytest.warns(FutureWarning, match=r"run_map\(out=...\).*out_dir="):
        with pytest.raises(E.UnknownNameError):
            run_map("toponet_demo.tau_99", stimuli=tmp_path / "s", out=tmp_path / "o",
                    progress=False)
