"""Selectivity contrasts: parity with scipy.stats and planted ground truth."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from toponeuro import make_activations
from toponeuro.analysis import (
    domain_selectivity,
    dprime,
    fdr_bh,
    language_selectivity,
    selectivity,
    student_t,
    welch_t,
)
from toponeuro.analysis._domains import FLOC_DOMAINS
from toponeuro.exceptions import DimensionError, InvalidDataError, UnknownNameError

CATS = [c for pair in FLOC_DOMAINS.values() for c in pair] + ["scrambled"]


def _floc_acts(n_per=6, n_units=36, seed=0, plant=None):
    rng = np.random.default_rng(seed)
    cats = np.repeat(CATS, n_per)
    x = rng.standard_normal((cats.size, n_units))
    x *= rng.uniform(0.5, 2.0, size=n_units)  # unequal spreads so t and Welch t differ
    if plant:
        for cat, (unit, shift) in plant.items():
            x[cats == cat, unit] += shift
    return make_activations({"fc": x}, categories=cats)


def test_kernels_match_scipy():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((9, 50)) * 2 + 0.5
    b = rng.standard_normal((14, 50))
    np.testing.assert_allclose(student_t(a, b), stats.ttest_ind(a, b).statistic, rtol=1e-10)
    t, df = welch_t(a, b, return_df=True)
    ref = stats.ttest_ind(a, b, equal_var=False)
    np.testing.assert_allclose(t, ref.statistic, rtol=1e-10)
    np.testing.assert_allclose(df, ref.df, rtol=1e-10)
    d = (a.mean(0) - b.mean(0)) / np.sqrt((a.var(0, ddof=1) + b.var(0, ddof=1)) / 2)
    np.testing.assert_allclose(dprime(a, b), d, rtol=1e-12)


def test_fdr_matches_scipy():
    rng = np.random.default_rng(2)
    p = np.concatenate([rng.uniform(size=200), rng.uniform(0, 1e-3, size=20)])
    np.testing.assert_allclose(fdr_bh(p), stats.false_discovery_control(p, method="bh"))
    with_nan = p.copy()
    with_nan[[3, 7]] = np.nan
    got = fdr_bh(with_nan)
    assert np.isnan(got[[3, 7]]).all()
    keep = np.isfinite(with_nan)
    np.testing.assert_allclose(got[keep], stats.false_discovery_control(with_nan[keep]))


@pytest.mark.parametrize("metric", ["t", "welch_t", "dprime"])
def test_domain_contrast_matches_scipy_and_keeps_coords(metric):
    acts = _floc_acts()
    sel = selectivity(acts, "faces", metric=metric)
    cats = acts["category"].values
    x = acts.values
    a = x[np.isin(cats, ["adult", "child"])]
    b = x[~np.isin(cats, ["adult", "child", "scrambled"])]
    if metric == "t":
        ref = stats.ttest_ind(a, b).statistic
    elif metric == "welch_t":
        ref = stats.ttest_ind(a, b, equal_var=False).statistic
    else:
        ref = dprime(a, b)
    np.testing.assert_allclose(sel.values, ref, rtol=1e-10)
    assert sel.dims == ("unit",)
    for c in ("layer", "channel", "row", "col"):
        np.testing.assert_array_equal(sel[c].values, acts[c].values)
    assert sel.topo.map("fc").shape == (6, 6)
    assert sel.attrs["n_target"] == 12 and sel.attrs["n_against"] == 48


def test_planted_unit_is_most_selective():
    acts = _floc_acts(
        plant={"house": (5, 4.0), "corridor": (5, 4.0), "word": (20, 5.0), "number": (20, 5.0)}
    )
    sel = domain_selectivity(acts)
    assert sel.dims == ("domain", "unit")
    assert int(np.argmax(sel.sel(domain="places").values)) == 5
    assert int(np.argmax(sel.sel(domain="characters").values)) == 20
    # category names and explicit against lists work too
    s2 = selectivity(acts, ["house", "corridor"], against=["car", "instrument"])
    assert int(np.argmax(s2.values)) == 5


def test_default_is_tdanns_t_each_domain_vs_the_other_four():
    acts = _floc_acts(n_per=8, seed=4)
    sel = selectivity(acts, "faces")
    cats = acts["category"].values
    on = acts.values[np.isin(cats, ["adult", "child"])]
    off = acts.values[~np.isin(cats, ["adult", "child", "scrambled"])]
    # spacetorch.utils.array_utils.tstat: population (ddof=0) variances, Welch-type
    ref = (on.mean(0) - off.mean(0)) / np.sqrt(on.var(0) / len(on) + off.var(0) / len(off))
    np.testing.assert_allclose(sel.values, ref, rtol=1e-10)
    assert sel.attrs["method"] == "tdann_t" and "TDANN" in sel.attrs["reference"]
    assert "scrambled" not in sel.attrs["against"]
    const = make_activations({"fc": np.ones((60, 16))}, categories=np.repeat(CATS[:10], 6))
    assert np.isnan(selectivity(const, "faces").values).all()  # undefined, not TDANN's 0


def test_a_category_named_like_a_domain_is_that_category():
    cats = np.repeat(["faces", "bodies", "places"], 6)
    x = np.random.default_rng(5).standard_normal((18, 16))
    x[cats == "faces", 3] += 4.0
    acts = make_activations({"fc": x}, categories=cats)
    sel = selectivity(acts, "faces")
    assert sel.attrs["target"] == "faces" and sel.attrs["against"] == "bodies+places"
    assert int(np.argmax(sel.values)) == 3
    assert domain_selectivity(acts, ["faces", "places"]).sizes["domain"] == 2


def test_labels_override_and_category_contrast():
    acts = _floc_acts()
    labels = np.where(np.arange(acts.sizes["stimulus"]) % 2 == 0, "x", "y")
    sel = selectivity(acts, "x", against="y", labels=labels, metric="t")
    ref = stats.ttest_ind(acts.values[::2], acts.values[1::2]).statistic
    np.testing.assert_allclose(sel.values, ref)


def test_language_selectivity_matches_scipy():
    rng = np.random.default_rng(3)
    conds = np.repeat(["S", "W", "J", "N"], 10)
    x = rng.standard_normal((40, 30)) * rng.uniform(0.5, 2, 30)
    x[conds == "S", :4] += 3.0  # four planted language units
    acts = make_activations({"a": x[:, :20], "b": x[:, 20:]}, categories=conds)
    res = language_selectivity(acts, top_k=3, alternative="greater", smooth_fwhm=None,
                               scope="layer")
    s, n = x[conds == "S"], x[conds == "N"]
    ref = stats.ttest_ind(s, n, equal_var=False, alternative="greater")
    np.testing.assert_allclose(res["t"].values, ref.statistic, rtol=1e-10)
    np.testing.assert_allclose(res["p"].values, ref.pvalue, rtol=1e-8)
    q_a = stats.false_discovery_control(ref.pvalue[:20])
    np.testing.assert_allclose(res["q"].values[:20], q_a, rtol=1e-8)
    assert res["fdr_mask"].values[:4].all()
    assert res["topk_mask"].values[:4].sum() == 3  # the top 3 of layer a are planted units
    assert res["topk_mask"].values[:20].sum() == 3 and res["topk_mask"].values[20:].sum() == 3
    two = language_selectivity(acts, smooth_fwhm=None)  # TopoLM: two-sided, FDR over all
    q_all = stats.false_discovery_control(stats.ttest_ind(s, n, equal_var=False).pvalue)
    np.testing.assert_allclose(two["q"].values, q_all, rtol=1e-8)
    np.testing.assert_allclose(
        two["p"].values, stats.ttest_ind(s, n, equal_var=False).pvalue, rtol=1e-8
    )
    assert two["t"].topo.map("b").shape == (2, 5)


def test_language_smoothing_and_top_k_never_picks_an_undefined_t():
    rng = np.random.default_rng(7)
    conds = np.repeat(["S", "N"], 8)
    x = rng.standard_normal((16, 64))
    x[:, :40] = 1.0  # constant units: t undefined
    acts = make_activations({"a": x}, categories=conds)
    res = language_selectivity(acts, top_k=30, smooth_fwhm=None)
    assert np.isnan(res["t"].values[:40]).all()
    assert not res["topk_mask"].values[:40].any() and res["topk_mask"].sum() == 24
    assert not res["fdr_mask"].values[:40].any()
    # smoothing as TopoLM: a zero-padded Gaussian (FWHM 2) of each stimulus's sheet
    from scipy import ndimage

    y = rng.standard_normal((16, 64))
    acts = make_activations({"a": y}, categories=conds)
    sm = ndimage.gaussian_filter(y.reshape(16, 8, 8), (0, 2 / np.sqrt(8 * np.log(2)),) * 1
                                 + (2 / np.sqrt(8 * np.log(2)),), mode="constant", truncate=6.0)
    sm = sm.reshape(16, 64)
    ref = stats.ttest_ind(sm[conds == "S"], sm[conds == "N"], equal_var=False)
    got = language_selectivity(acts)
    np.testing.assert_allclose(got["t"].values, ref.statistic, rtol=1e-8)
    assert got.attrs["method"] == "topolm" and "localize.py" in got.attrs["reference"]


def test_bad_contrasts_raise_with_fix():
    acts = _floc_acts()
    with pytest.raises(UnknownNameError, match="did you mean 'faces'"):
        selectivity(acts, "facse")
    sub = acts.isel(stimulus=np.flatnonzero(acts["category"].values != "house"))
    with pytest.raises(UnknownNameError, match="absent from these stimuli"):
        selectivity(sub, "places")
    with pytest.raises(UnknownNameError, match="absent from these stimuli"):
        selectivity(sub, "house")
    with pytest.raises(InvalidDataError, match="both sides"):
        selectivity(acts, "faces", against=["adult", "car"])
    with pytest.raises(UnknownNameError, match="metric"):
        selectivity(acts, "faces", metric="z")
    nocat = make_activations({"fc": 9}, n_stimuli=4, random_state=0)
    with pytest.raises(UnknownNameError, match="labels="):
        selectivity(nocat, "faces")
    with pytest.raises(DimensionError, match="one category per stimulus"):
        selectivity(nocat, "a", "b", labels=["a", "b"])
    with pytest.raises(InvalidDataError, match="at least 2"):
        selectivity(nocat, "a", "b", labels=["a", "b", "b", "b"])


def test_domain_table_matches_the_real_floc_categories(floc_dir):
    folders = sorted(p.name for p in floc_dir.iterdir() if p.is_dir())
    table = sorted([c for pair in FLOC_DOMAINS.values() for c in pair] + ["scrambled"])
    assert folders == table
    acts = make_activations(
        {"fc": 16}, n_stimuli=len(folders) * 2, categories=folders * 2, random_state=0
    )
    assert domain_selectivity(acts).sizes["domain"] == 5


@pytest.mark.parametrize("bad", [-0.1, 1.5])
def test_fdr_bh_refuses_values_that_are_not_p_values(bad):
    """A p below 0 or above 1 (a statistic, a log-p) was clipped: -0.1 became q = 0."""
    with pytest.raises(InvalidDataError, match="pvalues must lie in"):
        fdr_bh(np.array([0.2, bad, np.nan]))


def test_kernel_docstrings_share_one_text_for_a_b_and_t_values():
    """The four kernels document ``a``/``b`` (and the t kernels their values) from DOCDICT."""
    from toponeuro._util.docs import DOCDICT
    from toponeuro.analysis import tdann_t

    ab = DOCDICT["two_samples"].split("\n")[-1].strip()  # "``(n_b, n_units)``: ... other ..."
    t_line = DOCDICT["t_values"].split("\n")[-1].strip()
    for kernel in (student_t, welch_t, tdann_t, dprime):
        assert "%(" not in kernel.__doc__, kernel.__name__
        assert kernel.__doc__.count(ab) == 1, kernel.__name__
    for kernel in (student_t, tdann_t):
        assert kernel.__doc__.count(t_line) == 1, kernel.__name__
