"""The vision job's ruler stage (reporting/_vision/ruler.py) on planted maps.

A lab's continuous cortex maps (planted blobs on fsaverage5) go through the stage as the job
passes them; the model's sheet is planted from the same maps, flattened onto a grid
(co-located: it *is* the cortex). The bootstrap over stimuli and the cortex region are
tested on the demo-sized synthetic model and the visfAtlas.
"""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr

DOMAINS = ("faces", "bodies", "places", "characters")
#: planted seeds: well apart on the left fsaverage5 hemisphere (vertex ids)
SEEDS = (120, 2400, 5100, 8800)


def _blob(seed: int) -> np.ndarray:
    from toponeuro.atlases import roi_proximity

    m = np.zeros(10242, bool)
    m[seed] = True
    return 4.0 * roi_proximity(m, "left", scale_mm=12.0)  # t-like: >= 2 within ~8 mm


@pytest.fixture(scope="module")
def planted():
    from toponeuro.analysis import flat_sheet
    from toponeuro.atlases import load_cortex_maps
    from toponeuro.reporting import CortexTopography

    maps = {d: _blob(s) for d, s in zip(DOMAINS, SEEDS)}
    cm = load_cortex_maps({d: {"left": v} for d, v in maps.items()}, hemispheres=["left"])
    cortex = CortexTopography(atlas=None, maps=cm, topography=None)
    sheets = {d: flat_sheet(v, "fsaverage5", "left", spacing=8.0) for d, v in maps.items()}
    return cortex, sheets


def _selectivity(grids: dict) -> xr.DataArray:
    """A model's domain selectivity maps, dims ("domain", "unit"), one layer "L"."""
    first = next(iter(grids.values()))
    h, w = first.shape
    rr, cc = np.mgrid[:h, :w]
    data = np.stack([np.asarray(grids[d], float).ravel() for d in DOMAINS])
    return xr.DataArray(data, dims=("domain", "unit"),
                        coords={"domain": list(DOMAINS), "layer": ("unit", ["L"] * (h * w)),
                                "row": ("unit", rr.ravel()), "col": ("unit", cc.ravel())})


def _grids(sheets, order=DOMAINS, shuffle=None):
    out = {}
    for d, src in zip(DOMAINS, order):
        g = np.asarray(sheets[src].values, float).reshape(sheets[src].grid_shape)
        if shuffle is not None:
            ok = np.isfinite(g)
            g = g.copy()
            g[ok] = shuffle.permutation(g[ok])
        out[d] = g
    return out


def _rows(sel, cortex, **kw):
    from toponeuro.analysis import RulerSettings
    from toponeuro.reporting import ruler_comparisons

    settings = RulerSettings(cortex_region=None, n_boot=0)  # the whole planted hemisphere
    comp = ruler_comparisons(sel, ["L"], cortex, n_permutations=39, alpha=0.05,
                             random_state=0, settings=settings, **kw)["L", "left"]
    return comp, {(r.descriptor, r.domain): r.verdict for r in comp.rows}


@pytest.mark.slow
def test_a_lab_s_continuous_maps_get_every_descriptor_and_a_co_located_sheet_shares_them(
        planted):
    """Every descriptor on both sides (continuous maps: nothing left out), the cortex on its
    mesh (spin null); the sheet flattened from the same maps has the same area fractions,
    patch counts and domain similarities (alike). Measured, not asserted: on this coarse
    sheet (8 flat-map units a cell) Moran's I is 0.79-0.88 against the mesh's 0.97-0.98
    (unlike: a coarser neighbour spacing lowers I, docs/one_ruler.rst), and the flat map's
    distortion moves the arrangement's distances beyond their tolerance."""
    cortex, sheets = planted
    comp, v = _rows(_selectivity(_grids(sheets)), cortex)
    assert comp.left_out == {} and comp.cortex_geometry == "mesh"
    assert {r.descriptor for r in comp.rows} == {
        "smoothness", "clustering", "selective_fraction", "patch_count", "patch_size",
        "domain_similarity", "arrangement"}
    sims = [r for r in comp.rows if r.descriptor == "domain_similarity"]
    assert {r.cortex.null for r in sims} == {"spin"} and len(sims) == 6
    assert all(r.verdict == "alike" for r in sims)
    for d in DOMAINS:
        assert v["selective_fraction", d] == "alike" and v["patch_count", d] == "alike"
        # both sides' maps are organised: the clustering verdicts differ only in size
        row = next(r for r in comp.rows if (r.descriptor, r.domain) == ("clustering", d))
        assert row.model.p_value <= 0.05 and row.cortex.p_value <= 0.05


def test_the_stage_bootstraps_the_model_side_over_stimuli():
    """With the activations, every one-map row and domain pair gets the model's 95% interval
    over n_boot stimulus resamples (RulerSettings.n_boot), and the table carries it."""
    import toponeuro
    from toponeuro.analysis import RulerSettings
    from toponeuro.reporting import (
        cortex_topography,
        model_topography,
        ruler_comparisons,
        ruler_table,
    )
    from toponeuro.stimuli import FLOC_CATEGORIES

    ten = [c for c in FLOC_CATEGORIES if c != "scrambled"]
    acts = toponeuro.make_activations({"v1": 64}, 30, random_state=1, categories=ten * 3)
    sel = model_topography(acts, ["v1"], n_permutations=0).selectivity
    cortex = cortex_topography(["left"], similarity_permutations=0)
    out = ruler_comparisons(sel, ["v1"], cortex, n_permutations=0, activations=acts,
                            settings=RulerSettings(n_boot=7))
    rows = [r for r in out["v1", "left"].rows if r.descriptor in ("clustering",
                                                                  "domain_similarity")]
    assert rows and all(r.model.n_boot == 7 and r.model.interval is not None for r in rows)
    for r in rows:
        lo, hi = r.model.interval
        assert lo <= hi
    table = ruler_table(out)
    assert {"model_lo", "model_hi"} <= set(table.columns)
    assert table.loc[table["descriptor"] == "clustering", "model_lo"].notna().all()
    none = ruler_comparisons(sel, ["v1"], cortex, n_permutations=0,
                             settings=RulerSettings(n_boot=7))
    assert all(r.model.interval is None for r in none["v1", "left"].rows)


def test_the_cortex_region_is_the_atlas_neighbourhood_and_the_cortex_side_covers_it():
    """RulerSettings.cortex_region='votc' (default): the cortex maps have data only within
    10 mm of a visfAtlas category ROI; None: the whole hemisphere."""
    from toponeuro.analysis import RulerSettings
    from toponeuro.exceptions import UnknownNameError
    from toponeuro.reporting import cortex_region_mask, cortex_topography, ruler_cortex_maps

    cortex = cortex_topography(["left"], similarity_permutations=0)
    mask = cortex_region_mask("votc", "fsaverage5", "left")
    region = ruler_cortex_maps(cortex)["left"]["faces"]
    whole = ruler_cortex_maps(cortex, RulerSettings(cortex_region=None))["left"]["faces"]
    assert int(region.finite.sum()) == int(mask.sum()) < int(whole.finite.sum())
    # the ROIs themselves lie inside the region
    rois = np.nan_to_num(whole.values) > 0.5
    assert rois.any() and mask[rois].all()
    assert region.extent < whole.extent
    with pytest.raises(UnknownNameError, match="cortex_region"):
        RulerSettings(cortex_region="vtc_typo")


# compare_topography(model_results=) itself is tested in the fast lane (test_one_ruler.py)
@pytest.mark.slow  # the ruler stage three times over both hemispheres (~4 s)
def test_the_second_hemisphere_reuses_the_model_side_with_the_same_numbers(monkeypatch):
    """A layer's model side is measured once when both hemispheres hold the same domains
    (``compare_topography(model_results=)``): the rows are those of measuring it again."""
    import toponeuro
    import toponeuro.analysis as analysis
    from toponeuro.analysis import RulerSettings
    from toponeuro.atlases import load_cortex_maps, roi_proximity
    from toponeuro.reporting import CortexTopography, model_topography, ruler_comparisons
    from toponeuro.stimuli import FLOC_CATEGORIES

    def roi(seed, hemi):
        m = np.zeros(10242, bool)
        m[seed] = True
        return (roi_proximity(m, hemi, scale_mm=12.0) > 0.5).astype(float)

    doms = ("faces", "bodies", "places")
    cm = load_cortex_maps({d: {"left": roi(s, "left"), "right": roi(s, "right")}
                           for d, s in zip(doms, SEEDS)}, hemispheres=["left", "right"])
    cortex = CortexTopography(atlas=None, maps=cm, topography=None)
    ten = [c for c in FLOC_CATEGORIES if c != "scrambled"]
    acts = toponeuro.make_activations({"v1": 64}, 30, random_state=1, categories=ten * 3)
    sel = model_topography(acts, ["v1"], n_permutations=0).selectivity
    real, given = analysis.compare_topography, []

    def spy(model, cortex_maps, **kw):
        given.append(kw.get("model_results"))
        res = real(model, cortex_maps, **kw)
        if not isinstance(kw["random_state"], int):  # a Generator: each call draws anew
            return res
        again = real(model, cortex_maps, **dict(kw, model_results=None))
        assert [repr(r.model) for r in res.rows] == [repr(r.model) for r in again.rows]  # NaN too
        return res

    monkeypatch.setattr(analysis, "compare_topography", spy)
    out = ruler_comparisons(sel, ["v1"], cortex, n_permutations=19, random_state=3,
                            activations=acts,
                            settings=RulerSettings(cortex_region=None, n_boot=3))
    assert given[0] is None and given[1] is not None  # the right hemisphere reused the left's
    assert sorted(out) == [("v1", "left"), ("v1", "right")]
    ruler_comparisons(sel, ["v1"], cortex, n_permutations=19,
                      random_state=np.random.default_rng(3),
                      settings=RulerSettings(cortex_region=None, n_boot=0))
    assert given[2:] == [None, None]  # a Generator draws anew for each hemisphere
