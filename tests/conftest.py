"""Shared fixtures: an isolated data cache, the real data in ../shared when present, and a
writer of fLoc-like image folders."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

SHARED = Path(os.environ.get("TOPONEURO_SHARED") or Path(__file__).resolve().parents[1].parent / "shared")


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory, monkeypatch):
    """Every test gets its own TOPONEURO_DATA so nothing touches the user's cache."""
    monkeypatch.setenv("TOPONEURO_DATA", str(tmp_path_factory.mktemp("toponeuro_data")))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The ../shared folder with real third-party data; skips the test when it is absent."""
    if not (SHARED / "data").is_dir():
        pytest.skip(
            f"needs the real data folder {SHARED} (fLoc, language localizer, atlases), "
            "which a fresh clone does not have"
        )
    return SHARED


@pytest.fixture(scope="session")
def floc_dir(shared_dir) -> Path:
    return shared_dir / "data" / "floc"


@pytest.fixture(scope="session")
def langloc_csv(shared_dir) -> Path:
    return shared_dir / "data" / "langloc" / "fedorenko2010_stimuli.csv"


@pytest.fixture
def write_floc_folder():
    """Writes ``<root>/<category>/<category>-<N><suffix>`` random grey images (fLoc's layout).

    ``write(root, categories, numbers, size=20, suffix=".png", seed=0)`` returns ``root``.
    """

    def write(root, categories, numbers, size=20, suffix=".png", seed=0):
        import numpy as np
        from PIL import Image

        rng = np.random.default_rng(seed)
        for c in categories:
            (root / c).mkdir(parents=True, exist_ok=True)
            for n in numbers:
                arr = rng.integers(0, 255, (size, size), dtype=np.uint8)
                Image.fromarray(arr, "L").save(root / c / f"{c}-{n}{suffix}")
        return root

    return write
