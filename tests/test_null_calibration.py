"""The measured false-positive rates have one record (null_calibration); the docs' tables and
the report quote it, and these tests keep them from drifting apart."""

from pathlib import Path

import pytest

from toponeuro.analysis import null_calibration

METRICS = Path(__file__).resolve().parents[1] / "docs" / "metrics.rst"


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
    from toponeuro.reporting._writer import _calibration_texts

    texts = _calibration_texts()
    cal = null_calibration()
    crop = [c["ssim"] for c in cal["sheet"] if c["maps"] == "crop" and c["null"] == "shift"]
    assert texts["ssim_fpr_mean"] == _pct(sum(crop) / len(crop))
    assert texts["ssim_fpr_range"] == f"{100 * min(crop):.1f}&ndash;{_pct(max(crop))}"
    template = (Path(__file__).resolve().parents[1] / "toponeuro" / "reporting" / "templates"
                / "report.html").read_text(encoding="utf-8")
    for key in texts:
        assert f"${key}" in template
