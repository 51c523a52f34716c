"""One $TOPONEURO_DATA layout for every dataset (issue 34): ``<cache>/<dataset>/...``, the
pre-0.4 download place still read with a warning (never moved or deleted), the offline fLoc
error naming the whole set, and docs/data.rst showing the same table. Offline: file:// sources
in tmp_path stand in for the pinned repositories."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pandas as pd
import pytest

import toponeuro.stimuli._loaders as loaders
from toponeuro._io.fetch import data_dir, sha256sum
from toponeuro.exceptions import DownloadError, OldDataLocationWarning, UnknownNameError
from toponeuro.stimuli import (
    DATASETS,
    FLOC_CATEGORIES,
    dataset_dir,
    fetch_language_localizer,
    load_floc,
    make_image_folder,
    pinned_sources,
)
from toponeuro.stimuli._datasets import _WARNED, dataset_relpath

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _mirror(tmp_path, monkeypatch, files: dict[tuple[str, str], bytes]):
    """Serve ``{(repo, path): bytes}`` as pinned sources from file:// (commit 'c0ffee...')."""
    commit = "c0ffee" + "0" * 34
    rows = []
    for (repo, path), data in files.items():
        src = tmp_path / "mirror" / repo / commit / path
        src.parent.mkdir(parents=True, exist_ok=True)
        src.write_bytes(data)
        rows.append({"repo": repo, "commit": commit, "path": path, "bytes": len(data),
                     "sha256": sha256sum(src)})
    table = pd.DataFrame(rows)
    monkeypatch.setattr(loaders, "pinned_sources",
                        lambda repo=None: table[table.repo == repo].reset_index(drop=True)
                        if repo else table)
    monkeypatch.setattr(loaders, "_RAW", (tmp_path / "mirror").as_uri() + "/{repo}/{commit}/{path}")
    _WARNED.clear()
    return table


def test_every_pinned_file_lands_in_its_dataset_folder():
    table = pinned_sources()
    rel = [dataset_relpath(r) for r in table.itertuples()]
    assert len(set(rel)) == len(rel)  # no two files share a place
    assert {p.parts[0] for p in rel} == set(DATASETS)
    got = dict(zip(table.path, (p.as_posix() for p in rel)))
    assert got["stimuli/adult/adult-1.jpg"] == "floc/adult/adult-1.jpg"
    assert got["eval/stimuli/fedorenko_stimuli.csv"] == "langloc/fedorenko_stimuli.csv"
    assert got["demos/92imageData/92_brainRDMs.mat"] == "r92/92_brainRDMs.mat"


def test_dataset_dir_is_under_the_cache_root_and_refuses_unknown_names(tmp_path):
    assert dataset_dir("langloc", tmp_path) == tmp_path / "langloc"
    with pytest.raises(UnknownNameError, match=r"'r92'.*The datasets are"):
        dataset_dir("r 92", tmp_path)


def test_download_goes_to_the_dataset_folder(tmp_path, monkeypatch):
    _mirror(tmp_path, monkeypatch, {("epflneuroailab/topolm", "eval/stimuli/fedorenko_stimuli.csv"):
                                    b",sentence,condition\n0,a b,S\n"})
    got = fetch_language_localizer()
    assert got == data_dir() / "langloc" / "fedorenko_stimuli.csv"
    assert not any(p.name.startswith("epflneuroailab") for p in data_dir().iterdir())


def _old_copy(tmp_path, monkeypatch, content: bytes):
    """The localizer pinned (its mirror holds the real bytes) and a copy of ``content`` at
    the pre-0.4 download place; returns that folder."""
    data = b",sentence,condition\n0,a b,S\n"
    table = _mirror(tmp_path, monkeypatch,
                    {("epflneuroailab/topolm", "eval/stimuli/fedorenko_stimuli.csv"): data})
    old = data_dir() / "epflneuroailab_topolm" / table.commit[0][:12] / "eval/stimuli"
    old.mkdir(parents=True)
    (old / "fedorenko_stimuli.csv").write_bytes(content)
    return old


def test_old_place_is_read_with_a_warning_and_left_alone(tmp_path, monkeypatch):
    data = b",sentence,condition\n0,a b,S\n"
    old = _old_copy(tmp_path, monkeypatch, data)
    (tmp_path / "mirror").rename(tmp_path / "gone")  # offline: only the old copy can serve
    with pytest.warns(OldDataLocationWarning, match=r"nothing was moved or deleted.*langloc"):
        got = fetch_language_localizer()
    assert got == old / "fedorenko_stimuli.csv" and got.read_bytes() == data
    assert not (data_dir() / "langloc").exists()
    with warnings.catch_warnings():  # once per dataset and cache, not once per file
        warnings.simplefilter("error", OldDataLocationWarning)
        assert fetch_language_localizer() == got


def test_old_place_with_a_wrong_digest_is_ignored_not_deleted(tmp_path, monkeypatch):
    data = b",sentence,condition\n0,a b,S\n"
    old = _old_copy(tmp_path, monkeypatch, b"someone's edit")
    with warnings.catch_warnings():
        warnings.simplefilter("error", OldDataLocationWarning)
        got = fetch_language_localizer()
    assert got == data_dir() / "langloc" / "fedorenko_stimuli.csv" and got.read_bytes() == data
    assert (old / "fedorenko_stimuli.csv").read_bytes() == b"someone's edit"


def test_a_hand_copy_in_the_floc_folder_is_completed_by_download(tmp_path, monkeypatch):
    src = make_image_folder(tmp_path / "src", categories=("adult",), numbers=(97, 98),
                            suffix=".jpg")
    _mirror(tmp_path, monkeypatch,
            {("VPNL/fLoc", f"stimuli/adult/adult-{n}.jpg"): (src / "adult" / f"adult-{n}.jpg")
             .read_bytes() for n in (97, 98)})
    hand = make_image_folder(data_dir() / "floc", categories=("adult",), numbers=(97,),
                             suffix=".jpg", random_state=1)  # not the pinned bytes: kept as is
    before = (hand / "adult" / "adult-97.jpg").read_bytes()
    stim = load_floc(categories=["adult"], numbers="97-98")
    assert stim.ids.tolist() == ["adult-97", "adult-98"]
    assert [Path(p) for p in stim.metadata.path] == [hand / "adult" / "adult-97.jpg",
                                                     hand / "adult" / "adult-98.jpg"]
    assert (hand / "adult" / "adult-97.jpg").read_bytes() == before
    assert len(load_floc()) == 2  # no numbers asked: what the folder holds, nothing fetched


def test_offline_floc_error_names_the_whole_set_and_where_it_goes(monkeypatch):
    def offline(url, relpath, **kwargs):  # fetch_url's own wording, with its one-file hint
        raise DownloadError(f"Could not download {url} (no network). Download {url} by hand "
                            f"(any machine with internet access) and put it at {relpath}")

    monkeypatch.setattr(loaders, "fetch_url", offline)
    cats = [c for c in FLOC_CATEGORIES if c != "scrambled"]
    with pytest.raises(DownloadError) as err:
        load_floc(categories=cats, numbers="97-120")
    msg = str(err.value)
    commit = pinned_sources("VPNL/fLoc").commit[0]
    for needed in ("240 images", "numbers 97-120 of each of the 10 categories",
                   "adult, child, body", f"https://github.com/VPNL/fLoc/tree/{commit}",
                   "1,584 images", str(data_dir() / "floc"), "path= of load_floc",
                   "adult/adult-97.jpg", "no network"):
        assert needed in msg, needed
    assert "by hand" not in msg  # not the one-file hint of a single download
    assert "--" not in msg  # parameters, not flags: the CLI translates


def test_docs_table_matches_the_datasets():
    page = (DOCS / "data.rst").read_text(encoding="utf-8")
    table = pinned_sources()
    for name, ds in DATASETS.items():
        rows = table[table.repo == ds.repo]
        assert f"``$TOPONEURO_DATA/{name}/" in page, name
        assert f"{ds.repo}@{rows.commit.iloc[0][:12]}" in page, name
        assert ds.loader.rsplit(".", 1)[-1] in page, name
        if len(rows) <= 2:  # single files: their sha256 in the table itself
            for r in rows.itertuples():
                assert r.sha256 in page, r.path
                assert dataset_relpath(r).as_posix() in page, r.path
    legacy = re.compile(r"epflneuroailab_topolm/|VPNL_fLoc/|rsagroup_rsatoolbox/")
    for other in DOCS.glob("*.rst"):  # the old place is named only where data.rst explains it
        if other.name not in ("data.rst", "changelog.rst"):
            assert not legacy.search(other.read_text(encoding="utf-8")), other.name
