"""The one ruler (issue 43): geometry of free positions, descriptors, the verdict rule.

The planted cortex-as-sheet truths (a real cortical map flattened onto a grid) are in
``tests/analysis/topography/test_one_ruler_planted.py``.
"""

from __future__ import annotations

import math
from dataclasses import fields

import numpy as np
import pytest
import xarray as xr
from scipy.ndimage import gaussian_filter

from toponeuro._util import dims as D
from toponeuro.analysis import (
    DescriptorResult,
    RulerSettings,
    as_topomap,
    compare_topography,
    describe,
    ruler_verdict,
)
from toponeuro.exceptions import (
    CoordinateError,
    InputTypeError,
    InvalidDataError,
    ParameterError,
    ToponeuroError,
    UnknownNameError,
)


def _hand_placed(n_side=12, jitter=0.3, seed=0):
    """Units placed by hand on a jittered 12 x 12 lattice (mm), with a known map: a
    left-to-right gradient plus a blob, so neighbours are alike."""
    rng = np.random.default_rng(seed)
    xx, yy = np.meshgrid(np.arange(n_side, dtype=float), np.arange(n_side, dtype=float))
    pos = np.stack([xx.ravel(), yy.ravel()], 1) + rng.uniform(-jitter, jitter, (n_side**2, 2))
    values = pos[:, 0] / n_side + 3 * np.exp(-((pos[:, 0] - 4) ** 2 + (pos[:, 1] - 7) ** 2) / 6)
    return pos, values


def test_free_positions_geometry_from_hand_placed_units():
    pos, values = _hand_placed()
    tm = as_topomap(values, positions=pos, units="mm")
    assert tm.geometry == "free" and tm.null_names == ("positions",)
    # Delaunay of a jittered lattice: every inner unit has about 6 neighbours
    deg = np.asarray(tm.neighbours().sum(1)).ravel()
    assert 5.5 < np.median(deg) <= 6.5
    # extent: sqrt of the convex-hull area (about 11 x 11 mm), in mm since units="mm"
    assert 10 < tm.extent < 12 and tm.extent_mm == tm.extent
    # sheet units without a scale: no mm
    assert math.isnan(as_topomap(values, positions=pos, units="sheet").extent_mm)
    assert as_topomap(values, positions=pos, units="sheet", mm_per_unit=2).extent_mm == (
        pytest.approx(2 * tm.extent))


def test_prune_drops_long_delaunay_edges():
    pos, values = _hand_placed()
    # an L-shaped layout: the hull spans the notch with long edges
    keep = ~((pos[:, 0] > 6) & (pos[:, 1] > 6))
    full = as_topomap(values[keep], positions=pos[keep], units="mm")
    pruned = as_topomap(values[keep], positions=pos[keep], units="mm", prune=2.0)
    assert pruned.neighbours().nnz < full.neighbours().nnz
    with pytest.raises(ParameterError, match="prune"):
        as_topomap(values, positions=pos, units="mm", prune=0.5)


def test_per_unit_map_with_free_positions():
    pos, values = _hand_placed()
    da = xr.DataArray(values, dims=(D.UNIT,),
                      coords={D.POS_X: (D.UNIT, pos[:, 0]), D.POS_Y: (D.UNIT, pos[:, 1]),
                              D.LAYER: (D.UNIT, ["it"] * len(values))},
                      attrs={D.ATTR_POSITION_UNITS: "mm"})
    tm = as_topomap(da)
    assert tm.geometry == "free" and tm.units == "mm" and tm.n == len(values)
    da.attrs = {}
    with pytest.raises(CoordinateError, match="position_units"):
        as_topomap(da)


def test_descriptors_on_free_positions_find_the_planted_organisation():
    pos, values = _hand_placed()
    tm = as_topomap(values, positions=pos, units="mm")
    shuffled = as_topomap(np.random.default_rng(1).permutation(values), positions=pos,
                          units="mm")
    res = {r.descriptor: r for r in describe(tm, ["smoothness", "clustering"],
                                             n_permutations=199, random_state=0)}
    shuf = {r.descriptor: r for r in describe(shuffled, ["smoothness", "clustering"],
                                              n_permutations=199, random_state=0)}
    assert res["clustering"].value > 0.8 and res["clustering"].p_value <= 0.01
    assert res["smoothness"].p_value <= 0.01
    assert shuf["clustering"].p_value > 0.05 and abs(shuf["clustering"].value) < 0.2
    assert res["clustering"].geometry == "free"


def _smooth(seed=0, shape=(32, 32), sigma=3.0):
    return gaussian_filter(np.random.default_rng(seed).standard_normal(shape), sigma)


def test_a_map_against_itself_is_alike_and_its_shuffle_unlike():
    cortex = _smooth() * 40  # values up to about +/-14: patches reach t = 2
    # 99 draws: both maps' nulls put p at its floor, 0.01 (0.005 with 199), five times
    # under alpha; the shuffle's own p is 0.58 (smoothness) and 0.81 (Moran's I)
    same = compare_topography(cortex, cortex, n_permutations=99, random_state=0)
    assert set(r.verdict for r in same.rows) == {"alike"}, same.to_frame()
    shuffled = np.random.default_rng(2).permutation(cortex.ravel()).reshape(cortex.shape)
    res = compare_topography(shuffled, cortex, n_permutations=99, random_state=0)
    v = {r.descriptor: r.verdict for r in res.rows}
    assert v["smoothness"] == "unlike" and v["clustering"] == "unlike"
    assert v["selective_fraction"] == "alike"  # the same values: the same fraction


def test_binary_cortex_leaves_smoothness_out():
    cortex = (_smooth() > 0.05).astype(float)
    res = compare_topography(_smooth(1) * 20, cortex, n_permutations=99, random_state=0)
    assert "smoothness" in res.left_out
    assert "smoothness" not in {r.descriptor for r in res.rows}


def test_domains_are_matched_by_name_with_similarity_and_arrangement():
    doms = {k: _smooth(i) for i, k in enumerate(["faces", "bodies", "places"])}
    res = compare_topography(doms, doms, descriptors=["domain_similarity", "arrangement"],
                             n_permutations=99, random_state=0)
    frame = res.to_frame()
    assert len(frame) == 4  # three pairs and one arrangement
    assert (frame["verdict"] == "alike").all()
    assert (frame.loc[frame["descriptor"] == "domain_similarity", "model_null"] == "mirror").all()
    with pytest.raises(ToponeuroError, match="share no name"):
        compare_topography({"a": doms["faces"]}, {"b": doms["faces"]})


def _res(value, p=0.001, n=999, name="clustering", **kw):
    return DescriptorResult(name, "stat", value, p, n, "positions", **kw)


def test_the_verdict_rule():
    nan = float("nan")
    assert ruler_verdict(_res(nan), _res(0.5))[0] == "not testable"
    assert ruler_verdict(_res(0.5, n=9, p=0.1), _res(0.5, n=9, p=0.1))[0] == "not testable"
    assert ruler_verdict(_res(0.5), _res(0.55))[0] == "alike"
    assert ruler_verdict(_res(0.5), _res(0.7))[0] == "unlike"  # outside the 0.1 tolerance
    assert ruler_verdict(_res(0.5), _res(0.45, p=0.3))[0] == "unlike"  # null verdicts differ
    # with a bootstrap interval: alike only when the whole interval lies in the band
    # (equivalence, two one-sided tests), unlike when it lies wholly outside, and a wide
    # interval that straddles an edge is never "alike" (0.4: it made 0.5 [0.4, 0.65] vs 0.7
    # alike -- uncertainty counted as agreement)
    assert ruler_verdict(_res(0.5, interval=(0.4, 0.65)), _res(0.7))[0] == "not testable"
    assert ruler_verdict(_res(0.65, interval=(0.62, 0.68)), _res(0.7))[0] == "alike"
    assert ruler_verdict(_res(0.3, interval=(0.25, 0.35)), _res(0.7))[0] == "unlike"
    # the same model values without an interval: the value decides
    assert ruler_verdict(_res(0.65), _res(0.7))[0] == "alike"
    wide = ruler_verdict(_res(0.7, interval=(0.2, 1.2)), _res(0.7))
    assert wide[0] == "not testable" and "straddles" in wide[1]
    # one side without a null: the null verdicts cannot be compared
    no_null = DescriptorResult("clustering", "stat", 0.5)
    assert ruler_verdict(no_null, _res(0.5))[0] == "not testable"
    # neither side has a null (a fraction): values alone
    frac = DescriptorResult("selective_fraction", "f", 0.10)
    assert ruler_verdict(frac, DescriptorResult("selective_fraction", "f", 0.14))[0] == "alike"


def test_settings_are_checked_once():
    with pytest.raises(InvalidDataError, match=r"min_patch_area \(0\.5\) exceeds"):
        RulerSettings(min_patch_area=0.5, max_patch_area=0.1)  # across fields, by hand
    with pytest.raises(ParameterError, match=r"^n_bins=1 is not a whole number >= 2\.$"):
        RulerSettings(n_bins=1)
    with pytest.raises(InputTypeError, match=r"^n_bins='10' is not a whole number"):
        RulerSettings(n_bins="10")


def test_settings_declare_every_field_and_store_canonical_values():
    """validate_fields: every field declared; a value stored in its canonical type (the
    defaults already are: summary.json's settings.ruler.descriptors is unchanged)."""
    from toponeuro._util.params import declared_params

    assert set(declared_params(RulerSettings)) == {f.name for f in fields(RulerSettings)}
    s = RulerSettings(n_bins=10.0, n_boot=np.int64(7), threshold=2, max_distance=np.float32(0.5))
    assert (s.n_bins, s.n_boot, s.threshold, s.max_distance) == (10, 7, 2.0, 0.5)
    assert [type(v) for v in (s.n_bins, s.n_boot, s.threshold, s.max_distance)] == [
        int, int, float, float]
    assert s == RulerSettings(n_boot=7)
    assert all(type(getattr(RulerSettings(), f.name)) in (int, float, str)
               for f in fields(RulerSettings))


def test_settings_cortex_region_is_an_option():
    assert RulerSettings(cortex_region=None).cortex_region is None
    with pytest.raises(UnknownNameError, match=r"^cortex_region='vtc_typo' is not one of "
                                               r"'votc' or None; did you mean 'votc'\? Use "):
        RulerSettings(cortex_region="vtc_typo")
    # a value of the wrong kind: InputTypeError (an UnknownNameError before it was declared)
    with pytest.raises(InputTypeError, match=r"^cortex_region=3 is not one of 'votc' or None "
                                             r"\(got a int\)"):
        RulerSettings(cortex_region=3)


def test_bootstrap_over_stimuli_gives_the_model_an_interval():
    from toponeuro.analysis import bootstrap_maps

    rng = np.random.default_rng(0)
    field = _smooth(3, (16, 16)) * 30
    x = field.ravel()[None, :] + rng.standard_normal((40, 256))  # 40 noisy stimuli
    acts = xr.DataArray(x, dims=(D.STIMULUS, "pixel"),
                        coords={D.CATEGORY: (D.STIMULUS, ["a"] * 20 + ["b"] * 20)})

    def make_map(a):
        return a.mean(D.STIMULUS).values.reshape(16, 16)

    boots = bootstrap_maps(acts, make_map, n_boot=20, random_state=0)
    assert len(boots) == 20 and not np.allclose(boots[0], boots[1])
    res = compare_topography(make_map(acts), field, descriptors=["clustering"],
                             n_permutations=99, random_state=0, model_boot=boots)
    row = res.rows[0]
    assert row.model.n_boot == 20
    lo, hi = row.model.interval
    # resampling with replacement repeats stimuli, so a bootstrap map is noisier than the
    # map of all stimuli and its Moran's I lower: the interval lies just below the value
    assert 0 < hi - lo < 0.05 and abs(row.model.value - hi) < 0.02
    assert row.verdict == "alike" and "interval" in row.reason


def test_cortex_results_computed_once_are_reused():
    cortex = _smooth() * 40
    once = describe(cortex, ["clustering"], n_permutations=99, random_state=0)
    res = compare_topography(_smooth(1) * 40, cortex, descriptors=["clustering"],
                             n_permutations=99, random_state=1, cortex_results=once)
    assert res.rows[0].cortex is once[0]


def test_patches_and_similarity_run_on_free_positions():
    from toponeuro.analysis import find_patches, map_similarity, morans_i

    pos, values = _hand_placed()
    tm = as_topomap(values, positions=pos, units="mm")
    # the planted blob (peak 3 at x=4, y=7) is one patch around its centre
    p = find_patches(tm, threshold=1.5, smooth_sigma=0.5, min_units=3, n_permutations=0)
    assert p.n_patches == 1
    assert np.allclose(p.centroids[0], [4, 7], atol=1.0)
    assert float(map_similarity(tm, tm, "pearson", n_permutations=0)) == pytest.approx(1.0)
    with pytest.raises(ToponeuroError, match="Delaunay"):
        morans_i(tm, n_permutations=0)  # rook weights are a grid's
    assert morans_i(tm, weights="graph", n_permutations=0).statistic > 0.8


def test_model_results_of_one_model_against_two_cortices_are_the_same_numbers():
    from dataclasses import asdict

    from toponeuro.analysis import bootstrap_maps

    rng = np.random.default_rng(0)
    field = _smooth(3, (16, 16)) * 30
    x = field.ravel()[None, :] + rng.standard_normal((30, 256))
    acts = xr.DataArray(x, dims=(D.STIMULUS, "pixel"),
                        coords={D.CATEGORY: (D.STIMULUS, ["a"] * 15 + ["b"] * 15)})

    def make_map(a):
        return a.mean(D.STIMULUS).values.reshape(16, 16)

    boots = bootstrap_maps(acts, make_map, n_boot=5, random_state=0)
    kw = dict(n_permutations=19, random_state=0, model_boot=boots)
    model = make_map(acts)
    left = compare_topography(model, _smooth(4) * 40, **kw)
    right_alone = compare_topography(model, _smooth(5) * 40, **kw)
    right = compare_topography(model, _smooth(5) * 40,
                               model_results=[r.model for r in left.rows], **kw)
    assert [r.model for r in right.rows] == [r.model for r in left.rows]  # reused, not redrawn
    assert [repr(asdict(r)) for r in right.rows] == [repr(asdict(r)) for r in right_alone.rows]
    # results of another set of descriptors are not the plan: every one is computed
    other = compare_topography(model, _smooth(5) * 40, descriptors=["clustering"], **kw)
    again = compare_topography(model, _smooth(5) * 40, model_results=[r.model for r in other.rows],
                               **kw)
    assert [repr(asdict(r)) for r in again.rows] == [repr(asdict(r)) for r in right_alone.rows]
    # reused means not recomputed: another model's results with the same plan are taken as is
    shuffled = compare_topography(rng.permutation(model.ravel()).reshape(16, 16),
                                  _smooth(4) * 40, **kw)
    taken = compare_topography(model, _smooth(5) * 40,
                               model_results=[r.model for r in shuffled.rows], **kw)
    assert [r.model for r in taken.rows] == [r.model for r in shuffled.rows]
    assert [r.model for r in taken.rows] != [r.model for r in right_alone.rows]
