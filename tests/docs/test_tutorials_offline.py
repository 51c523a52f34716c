"""Every tutorial resolves its data offline at once: the real data, else a synthetic stand-in
that the page names (docs/install.rst promises this; an offline docs build relies on it)."""

import re
import time
import urllib.error
from pathlib import Path

import pytest

from toponeuro._io import fetch as _fetch
from toponeuro.tutorial import data_note, tutorial_floc, tutorial_language_localizer

TUTORIALS = sorted((Path(__file__).parents[2] / "tutorials").glob("plot_*.py"))
_READERS = re.compile(r"\b(load_floc|load_language_localizer|fetch_floc|"
                      r"fetch_language_localizer|fetch_url|load_topolm_contrast|"
                      r"fetch_topolm_contrast|fetch_pinned_file)\(")


@pytest.fixture
def offline(monkeypatch, tmp_path):
    """An empty cache and a fetch layer whose network is down (counts its attempts)."""
    calls = []

    def down(url, tmp, progress, label):
        calls.append(url)
        time.sleep(0.2)  # a (short) connect timeout
        raise urllib.error.URLError("[Errno 101] Network is unreachable")

    monkeypatch.setenv("TOPONEURO_DATA", str(tmp_path / "empty-cache"))
    monkeypatch.setattr(_fetch, "_download", down)
    monkeypatch.setattr(_fetch, "_UNREACHABLE", {})
    return calls


def test_floc_falls_back_fast_and_says_so(offline):
    t0 = time.perf_counter()
    s = tutorial_floc(range(97, 121), ["adult", "house"])
    elapsed = time.perf_counter() - t0
    assert s.name == "synthetic" and len(s) == 48
    assert len(offline) == 1  # one attempt, not one per image
    assert elapsed < 5
    note = data_note(s)
    assert note.synthetic and "Synthetic data" in note._repr_html_()


@pytest.mark.parametrize("conditions", [("S", "N"), ("S", "W", "J", "N")])
def test_language_items_fall_back_fast_and_say_so(offline, conditions):
    t0 = time.perf_counter()
    s = tutorial_language_localizer(160, conditions=conditions)
    assert time.perf_counter() - t0 < 5
    assert s.name == "synthetic" and set(s.categories) == set(conditions)
    assert len(offline) == 1
    assert "Synthetic data" in data_note(s, "language-localizer items")._repr_html_()


def test_a_second_fetch_from_an_unreachable_host_fails_at_once(offline):
    for _ in range(2):
        with pytest.raises(_fetch.DownloadError, match="by hand"):
            _fetch.fetch_url("https://example.invalid/a.csv", sha256=None, relpath="x/a.csv")
    assert len(offline) == 1


@pytest.mark.parametrize("path", TUTORIALS, ids=[p.stem for p in TUTORIALS])
def test_every_tutorial_reads_data_through_the_fallback_helpers(path):
    """A tutorial that called a loader directly would fail offline instead of falling back."""
    code = "\n".join(line for line in path.read_text().splitlines()
                     if not line.lstrip().startswith("#"))
    code = re.sub(r'""".*?"""', "", code, flags=re.S)  # docstrings name the loaders
    assert not _READERS.search(code), f"{path.name} reads data without toponeuro.tutorial"
