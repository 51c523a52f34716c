"""The cortex side's null draws are computed once per maps, mesh and seed, kept on disk
content-addressed and verified (issue 46): a second run draws no spin, gives the same numbers,
and a corrupted entry is recomputed with a warning, never trusted."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import toponeuro.analysis.topography._compare as compare_mod
import toponeuro.analysis.topography._null as null_mod
from toponeuro._io import null_cache as _null_cache
from toponeuro.exceptions import ToponeuroWarning
from toponeuro.reporting import compare_model_cortex, cortex_topography, model_topography

N_SPIN = 39  # the fewest draws a two-sided p at 0.05 needs: no warning to confuse the test


@pytest.fixture(scope="module")
def atlas_maps():
    """The visfAtlas domain maps of the left hemisphere, read once."""
    from toponeuro.atlases import cortex_maps, load_visfatlas
    from toponeuro.reporting import CORTEX_DOMAINS

    return cortex_maps(load_visfatlas("fsaverage5"), CORTEX_DOMAINS, hemispheres=("left",))


@pytest.fixture
def counted(monkeypatch, tmp_path):
    """How many similarity nulls and spatial nulls are computed (not read from the cache);
    a null cache of this test's own."""
    monkeypatch.setenv("TOPONEURO_NULL_CACHE", str(tmp_path / "nulls"))
    calls = {"similarity": 0, "null": 0}
    sim, null = compare_mod.map_similarity, null_mod.spatial_null

    def count_sim(*a, **k):
        calls["similarity"] += 1
        return sim(*a, **k)

    def count_null(*a, **k):
        calls["null"] += 1
        return null(*a, **k)

    monkeypatch.setattr(compare_mod, "map_similarity", count_sim)
    monkeypatch.setattr(null_mod, "spatial_null", count_null)
    return calls


def _entries():
    return sorted(_null_cache.null_cache_dir().glob("*.npz"))


@pytest.fixture
def cortex(atlas_maps):
    """``cortex(seed)``: the cortex step (:func:`cortex_topography`) on the atlas maps."""
    def run(seed=0):
        return cortex_topography(["left"], cortex_maps=atlas_maps, threshold=1.0,
                                 similarity_permutations=N_SPIN, random_state=seed)
    return run


def test_cortex_similarity_nulls_read_back_identical(counted, cortex):
    first = cortex()
    n_first = counted["similarity"]
    assert n_first > 0 and len(_entries()) == n_first
    again = cortex()
    assert counted["similarity"] == n_first  # nothing recomputed: read from the cache
    a, b = first.topography.similarity, again.topography.similarity
    assert a.equals(b)
    ra = first.topography.similarities["left", "faces-bodies"]
    rb = again.topography.similarities["left", "faces-bodies"]
    np.testing.assert_array_equal(ra.null, rb.null)
    assert ra.to_dict() == rb.to_dict()


def test_another_seed_or_map_is_another_entry(counted, cortex):
    cortex(seed=0)
    n0 = len(_entries())
    assert n0 > 0
    cortex(seed=1)
    assert len(_entries()) == 2 * n0
    # a lab's own maps: hashed by content, so one changed vertex is another entry
    maps = cortex().maps
    cm = maps["left"]
    faces = np.array(cm.maps["faces"], dtype=float)
    faces[np.flatnonzero(np.isfinite(faces))[0]] += 0.5
    digest = _null_cache.map_digest
    from toponeuro.analysis import as_topomap

    geom = cm.spin_geometry
    before = digest(as_topomap(np.asarray(cm.maps["faces"], float), **geom))
    after = digest(as_topomap(faces, **geom))
    assert before != after


def test_corrupt_entry_is_recomputed_with_a_warning(counted, cortex):
    first = cortex()
    n_first = counted["similarity"]
    victim = _entries()[0]
    data = bytearray(victim.read_bytes())
    data[len(data) // 2] ^= 0xFF  # one flipped byte inside the stored draws
    victim.write_bytes(bytes(data))
    with pytest.warns(ToponeuroWarning, match="failed verification"):
        again = cortex()
    assert counted["similarity"] == n_first + 1  # that entry only, computed again
    assert first.topography.similarity.equals(again.topography.similarity)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cortex()  # rewritten: verified on the next read
    assert not [w for w in caught if "failed verification" in str(w.message)]
    assert counted["similarity"] == n_first + 1


def test_arrangement_spin_draws_are_cached(counted, cortex):
    import toponeuro.stimuli

    ten = [c for c in toponeuro.stimuli.FLOC_CATEGORIES if c != "scrambled"]
    acts = toponeuro.make_activations({"v1": 64, "v2": 81}, 30, random_state=1,
                                      categories=ten * 3)
    sheet = model_topography(acts, ["v1", "v2"], n_permutations=0).topography
    first = compare_model_cortex(sheet, cortex().topography, ["v1", "v2"], ["left"])
    n_nulls = counted["null"]
    # a new process would start here: fresh cortex maps, nothing in memory
    again = compare_model_cortex(sheet, cortex().topography, ["v1", "v2"], ["left"])
    assert counted["null"] == n_nulls  # no spin drawn the second time
    for key in first:
        a, b = first[key].attrs["arrangement"], again[key].attrs["arrangement"]
        assert a["p_spin"] == b["p_spin"] and a["null_spin_mean"] == b["null_spin_mean"]
    assert any(p.name.startswith("arrangement-spin") for p in _entries())


def test_without_the_context_nothing_is_stored(monkeypatch, tmp_path):
    monkeypatch.setenv("TOPONEURO_NULL_CACHE", str(tmp_path / "nulls"))
    from toponeuro.analysis import NullResult, as_topomap, map_similarity

    a = as_topomap(np.arange(16.0).reshape(4, 4))
    run = lambda: ({"x": np.arange(2.0)}, {})  # noqa: E731
    _null_cache.cached("demo", {"seed": 0}, run)
    assert not _null_cache.null_cache_dir().exists() or not _entries()
    with _null_cache.use_null_cache():
        # a Generator seed names no key: computed, not stored
        _null_cache.cached_result(
            "demo", [a, a], {}, np.random.default_rng(0),
            lambda: map_similarity(a, a, "pearson", n_permutations=9, random_state=0),
            NullResult)
    assert not _entries()


def test_language_cortex_own_maps_spun_once(counted, atlas_maps):
    from toponeuro.reporting._language.stages import language_cortex

    def run():
        return language_cortex(["left"], cortex_maps=atlas_maps, threshold=1.0,
                               similarity_permutations=N_SPIN, random_state=0)

    first = run()
    n_first = counted["similarity"]
    assert n_first > 0
    again = run()
    assert counted["similarity"] == n_first
    assert first.user_topography.similarity.equals(again.user_topography.similarity)


def test_an_edit_of_the_null_code_is_another_key(monkeypatch):
    key = _null_cache._key("demo", {"seed": 0})
    monkeypatch.setattr(_null_cache, "code_digest", lambda: "0" * 64)
    assert _null_cache._key("demo", {"seed": 0}) != key


def test_a_computation_that_warns_is_passed_on_and_not_stored(monkeypatch, tmp_path):
    monkeypatch.setenv("TOPONEURO_NULL_CACHE", str(tmp_path / "nulls"))

    def noisy():
        warnings.warn("too few draws here", ToponeuroWarning, stacklevel=2)
        return {"x": np.arange(2.0)}, {}

    with _null_cache.use_null_cache():
        for _ in range(2):  # not stored, so drawn (and warned) each time
            with pytest.warns(ToponeuroWarning, match="too few draws"):
                _null_cache.cached("demo", {"seed": 0}, noisy)
    assert not _entries()
