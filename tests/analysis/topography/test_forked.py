"""The GIL-holding searches shared among forked workers (``_forked.py``): the same numbers,
in the same order, as searching in this process (issue 46: a cold null cache's Dijkstra)."""

import os
import sys

import numpy as np
import pytest

from toponeuro.analysis import mesh_topomap, smoothness
from toponeuro.analysis.topography import _descriptors, _forked
from toponeuro.analysis.topography._places import edge_lengths


@pytest.fixture(autouse=True)
def _no_process_cap(monkeypatch):
    """These tests ask for workers: a user's ``$TOPONEURO_PROCESSES`` must not turn them off."""
    monkeypatch.delenv("TOPONEURO_PROCESSES", raising=False)

linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forks on Linux only")


def _pid(_, item):
    return item, os.getpid()


@linux
def test_forked_map_runs_in_other_processes_in_order():
    out = list(_forked.forked_map(_pid, list(range(7)), (None,), workers=2))
    assert [item for item, _ in out] == list(range(7))
    assert os.getpid() not in {pid for _, pid in out}
    assert _forked._JOB is None  # nothing left for a later fork


def test_forked_map_stays_here_below_two_workers():
    out = list(_forked.forked_map(_pid, [1, 2], (None,), workers=1))
    assert out == [(1, os.getpid()), (2, os.getpid())]


def test_n_workers_only_for_enough_work(monkeypatch):
    monkeypatch.setattr(_forked, "n_cores", lambda: 2)
    assert _forked.n_workers(_forked.MIN_WORK - 1) == 0
    assert _forked.n_workers(_forked.MIN_WORK) == (2 if sys.platform.startswith("linux") else 0)
    monkeypatch.setattr(_forked, "n_cores", lambda: 1)
    assert _forked.n_workers(10 * _forked.MIN_WORK) == 0


def _both(monkeypatch, run):
    """``run()`` searched here, then in two forked workers (every search big enough)."""
    monkeypatch.setattr(_forked, "n_cores", lambda: 2)
    monkeypatch.setattr(_forked, "MIN_WORK", 10**12)
    here = run()
    calls = []
    real = _forked.forked_map

    def spy(func, items, shared=(), *, workers=0):
        calls.append(workers)
        return real(func, items, shared, workers=workers)

    monkeypatch.setattr(_forked, "MIN_WORK", 1)
    monkeypatch.setattr(_descriptors, "forked_map", spy)
    from toponeuro.analysis.topography import _smoothness_kernel

    monkeypatch.setattr(_smoothness_kernel, "forked_map", spy)
    return here, run(), calls


@pytest.mark.slow  # forked workers searching a whole hemisphere (~2 s)
@linux
def test_mesh_smoothness_is_the_same_searched_in_workers(monkeypatch):
    values = np.random.default_rng(0).standard_normal(10242)

    def run():
        tm = mesh_topomap(values, "fsaverage5", "left")
        return smoothness(tm, n_samples=3, sample_size=400, n_permutations=9, random_state=0)

    here, forked, calls = _both(monkeypatch, run)
    assert calls == [2]  # the pair distances were searched in two workers
    for name in ("score", "profile", "null"):
        np.testing.assert_array_equal(here[name].values, forked[name].values)


@linux
def test_geodesic_weights_are_the_same_searched_in_workers(monkeypatch):
    tm = mesh_topomap(np.zeros(10242), "fsaverage5", "left")
    graph = edge_lengths(tm.neighbours(), tm.positions)

    def run():
        return _descriptors._within(graph, tm.positions, 9.0, 3.0)

    here, forked, calls = _both(monkeypatch, run)
    assert calls == [2]
    for a, b in zip(here, forked):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)


def test_toponeuro_processes_caps_the_workers(monkeypatch):
    """``$TOPONEURO_PROCESSES`` 0 or 1 keeps the work in this process; a number caps it (on
    Linux outside a daemonic process, where workers may fork: elsewhere there are none)."""
    import multiprocessing

    from toponeuro.analysis.topography._forked import MIN_WORK, n_workers

    for cap in ("1", "0"):
        monkeypatch.setenv("TOPONEURO_PROCESSES", cap)
        assert n_workers(10 * MIN_WORK) == 0
    if not sys.platform.startswith("linux") or multiprocessing.current_process().daemon:
        pytest.skip("n_workers is 0 off Linux and in a daemonic process, whatever the cap")
    monkeypatch.setattr(_forked, "n_cores", lambda: 4)  # the cores, whatever the machine's
    for cap, expect in (("64", 4), ("3", 3), ("2", 2), ("", 4), (" 2 ", 2), ("lots", 4)):
        monkeypatch.setenv("TOPONEURO_PROCESSES", cap)
        assert n_workers(10 * MIN_WORK) == expect, cap
    assert n_workers(MIN_WORK - 1) == 0  # too little work to fork for
    monkeypatch.setattr(_forked, "n_cores", lambda: 1)
    assert n_workers(10 * MIN_WORK) == 0  # one core: no worker
