"""Work that holds the GIL, shared among forked worker processes.

scipy's shortest-path searches (:func:`scipy.sparse.csgraph.dijkstra`) hold the GIL, so
threads cannot share the cores between them. On a cold null cache two of the cortex side's
steps are such searches from thousands of vertices: the point pairs of a mesh map's
smoothness samples (``_smoothness_kernel``) and a mesh's geodesic neighbourhood weights
(``_descriptors._within``). :func:`forked_map` runs them in worker processes forked from
this one: each worker reads what is shared (the mesh's graph, the samples) from the fork --
nothing of it is pickled -- and sends back only its results, in the items' order. A result
depends on its item and the shared state only, so the numbers are those computed here.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence

#: items' work (sources searched) below which the work stays in this process: seconds or less
MIN_WORK = 2048

#: ``(func, shared)`` of the running :func:`forked_map` (set only while its workers fork)
_JOB: tuple | None = None


def n_cores() -> int:
    """Cores this process may use (at most 4: the loops are memory-bound).

    Examples
    --------
    >>> 1 <= n_cores() <= 4
    True
    """
    import os

    try:
        n = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        n = os.cpu_count() or 1
    return max(1, min(4, n))


def n_workers(work: int) -> int:
    """Worker processes for ``work`` (sources to search): 0 (work here) below
    :data:`MIN_WORK`, on one core, off Linux (elsewhere a fork is unsafe or absent), inside
    a daemonic process (which may start none) or when ``$TOPONEURO_PROCESSES`` is 0 or 1
    (a whole number caps the workers; the numbers are the same either way).

    Examples
    --------
    >>> n_workers(10)
    0
    """
    import multiprocessing
    import os
    import sys

    if (work < MIN_WORK or not sys.platform.startswith("linux")
            or multiprocessing.current_process().daemon):
        return 0
    n = n_cores()
    cap = os.environ.get("TOPONEURO_PROCESSES", "").strip()
    if cap.isdigit():  # the user's cap on worker processes: 0 or 1, none (the work stays here)
        n = min(n, int(cap))
    return n if n > 1 else 0


def _call(item):
    func, shared = _JOB
    return func(*shared, item)


def forked_map(func: Callable, items: Sequence, shared: tuple = (), *,
               workers: int = 0) -> Iterator:
    """``func(*shared, item)`` for each of ``items``, in order: here (``workers`` < 2 or a
    single item), else in ``workers`` processes forked from this one.

    Examples
    --------
    >>> list(forked_map(pow, [1, 2, 3], (2,), workers=2))
    [2, 4, 8]
    """
    global _JOB
    workers = min(int(workers), len(items))
    if workers < 2:
        yield from (func(*shared, item) for item in items)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    _JOB = (func, tuple(shared))
    try:
        with ProcessPoolExecutor(workers,
                                 mp_context=multiprocessing.get_context("fork")) as pool:
            with warnings.catch_warnings():
                # Python >= 3.12 warns on forking a process with threads (torch's pool): the
                # workers run numpy and scipy only, taking none of those threads' locks
                warnings.simplefilter("ignore", DeprecationWarning)
                results: Iterable = pool.map(_call, items)  # submits every item: forks here
            yield from results
    finally:
        _JOB = None
