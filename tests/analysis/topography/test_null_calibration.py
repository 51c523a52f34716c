"""The measured false-positive rates have one record (null_calibration); the docs' tables and
the report quote it, and these tests keep them from drifting apart."""

from pathlib import Path

import pytest

from toponeuro.analysis import null_calibration

METRICS = Path(__file__).resolve().parents[3] / "docs" / "metrics.rst"


def _pct(x):
    return f"{100 * x:.1f} %"


def _fsaverage5(cal):
    return [c for c in cal["spin"] if c.get("mesh", "fsaverage5") == "fsaverage5"]


@pytest.fixture(scope="module")
def docs():
    if not METRICS.exists():
        pytest.skip("docs/metrics.rst is not beside the tests (an installed package)")
    return METRICS.read_text(encoding="utf-8")


def test_record_is_complete_and_in_range():
    cal = null_calibration()
    assert cal["alpha"] == 0.05 and cal["target"] == [0.035, 0.065]
    crop = [c for c in cal["sheet"] if c["maps"] == "crop" and c["null"] == "shift"]
    assert {(c["shape"], c["sigma"]) for c in crop} == {
        (s, g) for s in ("16x16", "16x32") for g in (1.0, 2.0, 3.0, 4.0)}
    for c in cal["sheet"] + cal["spin"]:
        for k in ("ssim", "pearson"):
            if k in c:
                assert 0 <= c[k] <= 1
    null_calibration()["sheet"].clear()  # a fresh copy each call
    assert null_calibration()["sheet"]


def test_docs_tables_show_the_record(docs):
    cal = null_calibration()
    for c in cal["sheet"]:
        null = c["null"] if c["seed"] == 0 else f"{c['null']} (maps seed {c['seed']})"
        row = (f"   * - {c['maps']}\n     - {c['shape']}\n     - {c['sigma']:g}\n"
               f"     - {null}\n     - {_pct(c['ssim'])}")
        assert row in docs, row
        after = docs[docs.index(row) + len(row):]
        assert after.split("\n")[1].startswith(f"     - {_pct(c['pearson'])}"), row
    labels = {"stationary": "stationary", "envelope": "amplitude envelope, ratio 4"}
    hemis = {"left": "left", "right": "right", "both": "both (mirrored spin)"}
    for maps, label in labels.items():
        for hemi, hlabel in hemis.items():
            cells = {c["sigma_mm"]: c["pearson"] for c in _fsaverage5(cal) if c["maps"] == maps
                     and c["hemi"] == hemi and c["seed"] == 0
                     and c.get("envelope_ratio", 4.0) == 4.0}
            row = f"   * - {label}\n     - {hlabel}\n     - {_pct(cells[5])}"
            assert row in docs, row
            rest = docs[docs.index(row) + len(row):].split("\n")
            assert rest[1].startswith(f"     - {_pct(cells[10])}")
            assert rest[2].startswith(f"     - {_pct(cells[20])}")
    prose = " ".join(docs.split())
    for c in _fsaverage5(cal):
        if c["seed"] == 1:
            assert f"{c['hemi']} {_pct(c['pearson'])}" in prose
    for hemi in ("left", "right"):  # the later replicates, in seed order
        reps = sorted((c["seed"], c["pearson"]) for c in _fsaverage5(cal) if c["seed"] >= 2
                      and c["hemi"] == hemi and c["maps"] == "stationary")
        if reps:
            assert (f"{hemi} " + " / ".join(f"{100 * p:.1f}" for _, p in reps) + " %"
                    in prose), hemi
        if c.get("envelope_ratio", 4.0) != 4.0:
            assert f"a ratio of {c['envelope_ratio']:g} gives {_pct(c['pearson'])}" in prose


def test_report_quotes_the_record():
    from toponeuro.reporting._vision.writer import _calibration_texts

    texts = _calibration_texts()
    cal = null_calibration()
    crop = [c["ssim"] for c in cal["sheet"] if c["maps"] == "crop" and c["null"] == "shift"]
    assert texts["ssim_fpr_mean"] == _pct(sum(crop) / len(crop))
    assert texts["ssim_fpr_range"] == f"{100 * min(crop):.1f}&ndash;{_pct(max(crop))}"
    template = (Path(__file__).resolve().parents[3] / "toponeuro" / "reporting" / "templates"
                / "report.html").read_text(encoding="utf-8")
    for key in texts:
        assert f"${key}" in template


def _fslr(cal, medial_wall=True):
    return [c for c in cal["spin"] if c.get("mesh") == "fs_LR_32k"
            and bool(c.get("medial_wall")) == medial_wall]


def _fslr_cell_text(c, target):
    flag = "" if target[0] <= c["pearson"] <= target[1] else " \\*"
    lo, hi = c["ci95"]
    return f"{_pct(c['pearson'])}{flag} ({100 * lo:.1f}--{100 * hi:.1f})"


def test_fs_lr_spin_cells_are_recorded_with_their_binomial_interval():
    """Issue 31: the spin test calibrated on the fs_LR 32k sphere it rotates (both maps NaN
    on the medial wall, as a user's fs_LR maps arrive), each cell with its hits, pairs, draws
    and exact 95 % interval, and the interval that of its hits."""
    from scipy import stats

    cal = null_calibration()
    cells = [c for c in _fslr(cal) if c["maps"] == "stationary"]
    assert {(c["hemi"], c["sigma_mm"]) for c in cells} == {
        (h, s) for h in ("left", "right", "both") for s in (5, 10, 20)}
    envelope = [c for c in _fslr(cal) if c["maps"] == "envelope"]
    assert envelope and all(c["ci95"][0] > cal["target"][1] for c in envelope)  # liberal
    for c in _fslr(cal) + _fslr(cal, medial_wall=False):
        assert c["maps"] in ("stationary", "envelope") and c["pairs"] >= 200
        assert c["draws"] == 199
        assert c["hits"] == round(c["pearson"] * c["pairs"])
        ci = stats.binomtest(c["hits"], c["pairs"]).proportion_ci(0.95, method="exact")
        assert c["ci95"] == pytest.approx([ci.low, ci.high], abs=1e-4)
        assert c["ci95"][0] <= c["pearson"] <= c["ci95"][1]


def test_docs_fs_lr_table_shows_the_record(docs):
    cal = null_calibration()
    for hemi, label in (("left", "left"), ("right", "right"), ("both", "both, spun together")):
        cells = {c["sigma_mm"]: c for c in _fslr(cal)
                 if c["hemi"] == hemi and c["maps"] == "stationary"}
        row = ("   * - stationary, medial wall no data\n"
               f"     - fs_LR 32k {label}\n"
               + "\n".join(f"     - {_fslr_cell_text(cells[s], cal['target'])}"
                           for s in (5, 10, 20)))
        assert row in docs, row
    prose = " ".join(docs.split())
    for c in _fslr(cal):
        if c["maps"] == "envelope":
            lo, hi = c["ci95"]
            assert (f"{_pct(c['pearson'])} of pairs ({c['hits']} of {c['pairs']}, interval "
                    f"{100 * lo:.1f}--{100 * hi:.1f} %)") in prose
    both = [c for c in _fslr(cal) if c["hemi"] == "both"]
    k, n = sum(c["hits"] for c in both), sum(c["pairs"] for c in both)
    assert f"({k} of {n} pairs, {_pct(k / n)})" in prose
    for c in _fslr(cal, medial_wall=False):
        assert (f"{c['hemi']} {c['sigma_mm']} mm {_pct(c['pearson'])} ({c['hits']} of "
                f"{c['pairs']})") in prose


def test_cortex_cells_are_recorded_with_their_binomial_interval():
    """Issue 47: every cortex null calibrated per mesh, kind of map and hemisphere set, each
    cell with its hits, pairs, draws and exact 95 % interval."""
    from scipy import stats

    from toponeuro.analysis import CORTEX_MAP_KINDS

    cal = null_calibration()
    assert cal["cortex"]
    for c in cal["cortex"]:
        assert c["maps"] in CORTEX_MAP_KINDS and c["hemi"] in ("left", "right", "both")
        assert c["hits"] == round(c["pearson"] * c["pairs"]) and c["draws"] == 199
        ci = stats.binomtest(c["hits"], c["pairs"]).proportion_ci(0.95, method="exact")
        assert c["ci95"] == pytest.approx([ci.low, ci.high], abs=1e-4)


def test_report_quotes_the_calibration_of_the_maps_mesh():
    """The report quotes the cortex null's rates for the mesh the maps are on (it quoted
    fsaverage5's for fs_LR maps), and says plainly where it does not hold its level."""
    from toponeuro.analysis import cortex_null_calibration
    from toponeuro.reporting._vision.writer import _calibration_texts, spin_calibration_text

    cal = cortex_null_calibration("fs_LR_32k")
    vol = cal["kinds"]["volume"]
    k = sum(c["hits"] for c in null_calibration()["cortex"]
            if c["mesh"] == "fs_LR_32k" and c["maps"] == "volume")
    assert vol["hits"] == k
    text = spin_calibration_text("fs_LR_32k")
    assert text.startswith("On fs_LR_32k, the cortex's null (the spin test")
    assert f"{_pct(vol['rate'])} ({100 * vol['ci95'][0]:.1f}" in text
    assert ("It does not hold its level on maps smoothed in the volume" in text) == (
        not vol["holds_level"])
    assert spin_calibration_text("fsaverage5") != text
    assert "fs_LR_32k" in _calibration_texts("fs_LR_32k")["spin_calibration_text"]


def test_docs_cortex_table_shows_the_record(docs):
    """docs/metrics.rst's cortex table and pooled rates are the record's (bench/
    calibrate_cortex_nulls.py --record writes both)."""
    import sys

    sys.path.insert(0, str(METRICS.parents[1] / "bench"))
    try:
        from calibrate_cortex_nulls import cell_text, pooled_lines
    finally:
        sys.path.pop(0)
    block = docs[docs.index(".. cortex-nulls-table-start"):docs.index(".. cortex-nulls-table-end")]
    for c in null_calibration()["cortex"]:
        assert cell_text(c) in block, cell_text(c)
    for line in pooled_lines():
        assert line in block, line
