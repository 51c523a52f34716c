"""The one ruler's cortex side is computed once per map, mesh, settings and seed (issue 46):
kept in the null cache, a second run computes none of it and gives the same numbers --
the model side's too, whose draws follow the cortex's on the same generator -- and an
edited entry is recomputed with a warning. The mesh's neighbourhood weights likewise."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from scipy import sparse
from scipy.sparse import csgraph

from toponeuro._io import null_cache as _null_cache
from toponeuro.analysis import compare_topography, mesh_topomap
from toponeuro.analysis.topography import _descriptors
from toponeuro.analysis.topography import _ruler as ruler_mod
from toponeuro.analysis.topography._places import edge_lengths
from toponeuro.exceptions import ToponeuroWarning

N = 19
DESCRIPTORS = ["clustering", "patch_count"]  # the model's patch draws follow the cortex's


@pytest.fixture(scope="module")
def maps():
    """A smooth model sheet and a smooth cortex map on fsaverage5 (left)."""
    from scipy.ndimage import gaussian_filter

    rng = np.random.default_rng(3)
    sheet = 3 * gaussian_filter(rng.standard_normal((24, 24)), 2) / 0.2
    cortex = mesh_topomap(rng.standard_normal(10242), "fsaverage5", "left")
    smooth = cortex.neighbours() + sparse.identity(cortex.n)
    v = rng.standard_normal(cortex.n)
    for _ in range(20):  # graph smoothing: patches of vertices above threshold
        v = smooth @ v / np.asarray(smooth.sum(1)).ravel()
    return sheet, mesh_topomap(4 * v / v.std(), "fsaverage5", "left")


@pytest.fixture
def counted(monkeypatch, tmp_path):
    """How many cortex-side (mesh) descriptors are computed; a null cache of its own."""
    monkeypatch.setenv("TOPONEURO_NULL_CACHE", str(tmp_path / "nulls"))
    calls = {"mesh": 0}
    for name in DESCRIPTORS:
        func = ruler_mod._ONE_MAP_FUNCS[name]

        def count(tm, *a, _func=func, **k):
            calls["mesh"] += tm.geometry == "mesh"
            return _func(tm, *a, **k)

        monkeypatch.setitem(ruler_mod._ONE_MAP_FUNCS, name, count)
    return calls


def _run(maps, seed=0):
    sheet, cortex = maps
    return compare_topography(sheet, cortex, descriptors=DESCRIPTORS, n_permutations=N,
                              random_state=seed)


def _same(a, b) -> bool:
    """Equal, NaN included (JSON writes NaN as NaN; ``==`` on dicts fails it)."""
    return json.dumps(a, sort_keys=True, default=repr) == json.dumps(b, sort_keys=True,
                                                                     default=repr)


def _entries(kind="ruler-cortex"):
    return sorted(_null_cache.null_cache_dir().glob(f"{kind}-*.npz"))


def test_second_run_reads_the_cortex_side(counted, maps):
    plain = _run(maps)  # outside the cache: computed, nothing stored
    assert counted["mesh"] == 2 and not _entries()
    with _null_cache.use_null_cache():
        first = _run(maps)
        assert counted["mesh"] == 4 and len(_entries()) == 2
        again = _run(maps)
    assert counted["mesh"] == 4  # nothing recomputed: read from the cache
    for res in (first, again):
        assert _same(res.to_dict(), plain.to_dict())  # the model side's too: same generator
        assert _same([r.cortex.detail for r in res.rows], [r.cortex.detail for r in plain.rows])
    with _null_cache.use_null_cache():
        _run(maps, seed=1)  # another seed: other draws, other entries
    assert counted["mesh"] == 6 and len(_entries()) == 4


def test_edited_entry_is_recomputed_with_a_warning(counted, maps):
    with _null_cache.use_null_cache():
        first = _run(maps)
    victim = _entries()[0]
    with np.load(victim) as z:
        head = json.loads(str(z["__meta__"][()]))
    head["meta"]["value"]["value"] += 0.25  # a plausible number, the key left intact
    victim.write_bytes(b"")  # the one writer replaces files; write the edit in place
    np.savez(victim.open("wb"), __meta__=np.array(json.dumps(head)))
    with _null_cache.use_null_cache(), pytest.warns(ToponeuroWarning,
                                                    match="failed verification"):
        again = _run(maps)
    assert counted["mesh"] == 3  # that entry only, computed again
    assert _same(again.to_dict(), first.to_dict())
    with _null_cache.use_null_cache(), warnings.catch_warnings():
        warnings.simplefilter("error", ToponeuroWarning)
        _run(maps)  # rewritten: verified on the next read
    assert counted["mesh"] == 3


def _weights_by_whole_graph(tm, sigma, block=512):
    """The weights as searched before issue 46: every source on the whole graph (``block``
    sources at a time, not one dense n x n array: the same distances, row by row)."""
    graph = edge_lengths(tm.neighbours(), tm.positions)
    rows, cols, vals = [], [], []
    for start in range(0, tm.n, block):
        d = csgraph.dijkstra(graph, directed=False, limit=3 * sigma,
                             indices=np.arange(start, min(start + block, tm.n)))
        r, c = np.nonzero(np.isfinite(d))
        rows.append(r + start)
        cols.append(c)
        vals.append(np.exp(-0.5 * (d[r, c] / sigma) ** 2))
    return sparse.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                             shape=(tm.n, tm.n))


@pytest.mark.slow  # geodesic weights over a whole hemisphere, against a reference (~3.5 s)
def test_geodesic_weights_identical_and_cached(monkeypatch, tmp_path, maps):
    monkeypatch.setenv("TOPONEURO_NULL_CACHE", str(tmp_path / "nulls"))
    from toponeuro.analysis import as_topomap

    tm = maps[1]
    small = as_topomap(np.zeros(2562), positions=tm.positions[:2562] * 1.0,
                       adjacency=tm.neighbours()[:2562][:, :2562], distance="graph")
    for m, sigma in ((small, 6.0), (tm, 2.4 / 70 * tm.extent)):
        want = _weights_by_whole_graph(m, sigma)
        _descriptors._GEODESIC_CACHE.clear()
        with _null_cache.use_null_cache():
            got = _descriptors._geodesic_weights(m, sigma)
            _descriptors._GEODESIC_CACHE.clear()
            read = _descriptors._geodesic_weights(m, sigma)
        for part in ("indptr", "indices", "data"):  # bit for bit, in the same order
            for mat in (got, read):
                assert np.array_equal(getattr(mat, part), getattr(want, part))
                assert getattr(mat, part).dtype == getattr(want, part).dtype
        if m is small:
            (victim,) = _entries("geodesic-weights")  # the small mesh's entry
    assert len(_entries("geodesic-weights")) == 2
    data = bytearray(victim.read_bytes())
    data[len(data) // 2] ^= 0xFF
    victim.write_bytes(bytes(data))
    _descriptors._GEODESIC_CACHE.clear()
    with _null_cache.use_null_cache(), pytest.warns(ToponeuroWarning,
                                                    match="failed verification"):
        again = _descriptors._geodesic_weights(small, 6.0)
    assert np.array_equal(again.data, _weights_by_whole_graph(small, 6.0).data)


def test_graph_distances_directed_search_is_the_same(maps):
    tm = maps[1]
    src = np.arange(0, tm.n, 97)
    graph = edge_lengths(tm.neighbours(), tm.positions)
    want = csgraph.dijkstra(graph, directed=False, indices=src, limit=80.0)
    assert np.array_equal(tm.distances_from(src, limit=80.0), want)
