"""Shared fixtures: an isolated data cache, the real data in ../shared when present, and a
writer of fLoc-like image folders."""

from __future__ import annotations

import itertools
import os
import shutil
import sys
from pathlib import Path

import pytest

# tests/ mirrors the package; a test may import a helper of another folder's test module
# (``from test_cli_errors import _run``): every test folder is on sys.path (names are unique)
for _folder in sorted(p for p in Path(__file__).resolve().parent.rglob("*") if p.is_dir()
                      and p.name != "__pycache__"):
    if str(_folder) not in sys.path:
        sys.path.append(str(_folder))

SHARED = Path(os.environ.get("TOPONEURO_SHARED") or Path(__file__).resolve().parents[1].parent / "shared")

#: the thread-pool variables a worker sets (OpenMP: torch, libgomp; OpenBLAS: numpy, scipy)
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def pytest_configure(config):
    """``pytest -n N``: the N workers share the machine's cores, ``cores // N`` threads each for
    torch and BLAS, so their thread pools do not spin over each other's cores (the training
    and feature tests took 61 s of CPU with the default two threads, 20 s with one, on two
    cores at load ~8). The subprocesses the tests start (``python -m toponeuro``) inherit the limit. A
    thread variable the user set wins; one process (no ``-n``) keeps the libraries' defaults."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput is None or any(os.environ.get(v) for v in THREAD_VARIABLES):
        return
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    threads = max(1, (cores or 1) // int(workerinput["workercount"]))
    for var in THREAD_VARIABLES:  # libraries loaded later (scipy's OpenBLAS) read these
        os.environ[var] = str(threads)
    import torch

    torch.set_num_threads(threads)
    try:  # the pools already loaded (numpy's OpenBLAS, libgomp)
        from threadpoolctl import threadpool_limits
    except ImportError:
        return
    threadpool_limits(threads)


@pytest.fixture(scope="session", autouse=True)
def _session_null_cache(tmp_path_factory):
    """One null cache for the whole session (toponeuro/_io/null_cache.py), set before any
    fixture of a module runs: the cortex maps' spin draws, content-addressed and verified,
    are drawn by the first test that needs them and read by every later one (the jobs'
    tests run the same atlas, mesh and seed); with pytest-xdist the workers share it."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TOPONEURO_NULL_CACHE", str(_session_folder(tmp_path_factory, "toponeuro_nulls")))
        yield


def _session_folder(tmp_path_factory, name: str) -> Path:
    """A folder for the whole session; with pytest -n each worker has its own basetemp
    (<run>/popen-gwN) and the workers share one folder beside them (entries are written
    whole, by a rename)."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        folder = tmp_path_factory.getbasetemp().parent / name
        folder.mkdir(exist_ok=True)
        return folder
    return tmp_path_factory.mktemp(name)


#: the cached projections a test's fresh TOPONEURO_DATA starts with (see ``_isolated_cache``)
PROJECTIONS = "visfAtlas_fsaverage5_*.npz"


@pytest.fixture(scope="session")
def _session_projections(tmp_path_factory) -> Path:
    """The visfAtlas's fsaverage5 projections (toponeuro/atlases/_surface.py) made so far in
    the session: content-addressed files, the first test that projects the atlas leaves its
    file here and every later test's fresh cache starts with it."""
    return _session_folder(tmp_path_factory, "toponeuro_atlases")


@pytest.fixture(scope="session")
def _data_folders(tmp_path_factory):
    """A fresh, empty folder each call, under one parent for the session: a counter, not
    ``tmp_path_factory.mktemp`` (which lists the folders made so far to number the next;
    3,000 trivial tests took 4.0 s with it, 3.3 s this way)."""
    parent = tmp_path_factory.mktemp("toponeuro_data")
    numbers = itertools.count()

    def fresh() -> Path:
        folder = parent / str(next(numbers))
        folder.mkdir()
        return folder

    return fresh


@pytest.fixture(autouse=True)
def _isolated_cache(_data_folders, monkeypatch, _session_projections):
    """Every test gets its own TOPONEURO_DATA so nothing touches the user's cache (the null
    draws aside: one folder for the session, see ``_session_null_cache``). It starts with a
    copy of the visfAtlas's fsaverage5 projection once a test of the session has made it (a
    second of CPU each time otherwise; the file is named by the atlas's content and the
    method, as the library caches it for a user); a test's own ``cache_dir=`` starts empty."""
    from toponeuro._io.output import atomic_file

    data = _data_folders()
    made = sorted(_session_projections.glob(PROJECTIONS))
    if made:
        (data / "atlases").mkdir()
        for path in made:
            shutil.copyfile(path, data / "atlases" / path.name)
    monkeypatch.setenv("TOPONEURO_DATA", str(data))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    yield
    for path in sorted((data / "atlases").glob(PROJECTIONS)) if not made else ():
        if not path.is_symlink() and not (_session_projections / path.name).exists():
            with atomic_file(_session_projections / path.name) as tmp:
                shutil.copyfile(path, tmp)


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The ../shared folder with real third-party data; skips the test when it is absent."""
    if not (SHARED / "data").is_dir():
        pytest.skip(
            f"needs the real data folder {SHARED} (fLoc, language localizer, atlases), which "
            "a fresh clone does not have: set TOPONEURO_SHARED=/path/to/shared (a folder "
            "holding data/floc, data/langloc; see tests/conftest.py) or put that folder at "
            "../shared beside the repository"
        )
    return SHARED


@pytest.fixture(scope="session")
def floc_dir(shared_dir) -> Path:
    return shared_dir / "data" / "floc"


@pytest.fixture(scope="session")
def langloc_csv(shared_dir) -> Path:
    return shared_dir / "data" / "langloc" / "fedorenko2010_stimuli.csv"


@pytest.fixture(scope="session")
def r92_dir(shared_dir) -> Path:
    """data/r92 (rsatoolbox's 92-image demo files); skips when this copy lacks them."""
    folder = shared_dir / "data" / "r92"
    if not (folder / "92_brainRDMs.mat").is_file():
        pytest.skip(f"needs {folder} (92_brainRDMs.mat and the supplemental data file of "
                    "rsatoolbox's demos/92imageData), absent from this copy of the shared data")
    return folder


@pytest.fixture
def write_floc_folder():
    """:func:`toponeuro.stimuli.make_image_folder`: ``<root>/<category>/<category>-<N><suffix>``
    random grey images (fLoc's layout).

    ``write(root, categories, numbers, size=20, suffix=".png", seed=0)`` returns ``root``.
    """
    from toponeuro.stimuli import make_image_folder

    def write(root, categories, numbers, size=20, suffix=".png", seed=0):
        return make_image_folder(root, categories, numbers, size=size, suffix=suffix,
                                 random_state=seed)

    return write
