"""Sweeps: layer x region tables from precomputed activations (and via extract)."""

import sys
import types

import numpy as np
import pytest
import xarray as xr

from toponeuro import make_activations
from toponeuro.analysis import compare_rdms, rdm, sweep
from toponeuro.exceptions import AlignmentError, CoordinateError, UnknownNameError


def _setup(n=24):
    rng = np.random.default_rng(0)
    shared = rng.standard_normal((n, 5))
    acts = make_activations({"early": shared @ rng.standard_normal((5, 12)),
                             "late": rng.standard_normal((n, 12))}, random_state=0)
    v1 = shared @ rng.standard_normal((5, 6)) + 0.1 * rng.standard_normal((n, 6))
    ffa = rng.standard_normal((n, 6))
    resp = xr.DataArray(
        np.hstack([v1, ffa, v1]), dims=("stimulus", "voxel"),
        coords={"stimulus_id": ("stimulus", acts.stimulus_id.values),
                "roi": ("voxel", ["V1"] * 6 + ["FFA"] * 6 + ["V1"] * 6),
                "subject": ("voxel", ["s1"] * 12 + ["s2"] * 6)})
    return acts, resp


def test_rsa_sweep_table_and_planted_layer():
    acts, resp = _setup()
    other = acts.copy()
    table = sweep({"net": acts, "twin": other}, ["early", "late"],
                  resp.isel(stimulus=np.arange(24)[::-1]), progress=False)
    assert list(table.columns) == ["model", "layer", "subject", "roi", "score", "method",
                                   "n_units", "n_voxels"]
    assert len(table) == 2 * 2 * 3  # models x layers x (s1 V1, s1 FFA, s2 V1)
    best = table.loc[table.groupby(["model", "subject", "roi"]).score.idxmax()]
    assert set(best.loc[best.roi == "V1", "layer"]) == {"early"}
    row = table.query("model == 'net' and layer == 'early' and roi == 'V1' and subject == 's1'")
    ref = compare_rdms(rdm(acts.topo.select("early").values), rdm(resp.values[:, :6]))
    assert row.score.item() == pytest.approx(ref, abs=1e-12)
    heat = table.pivot_table(index=["model", "layer"], columns="roi", values="score")
    assert heat.shape == (4, 2)


def test_encoding_sweep():
    acts, resp = _setup(40)
    table = sweep({"net": acts}, None, resp, method="encoding", cv=4, progress=False)
    v1 = table.query("roi == 'V1' and subject == 's1'").set_index("layer").score
    assert v1["early"] > 0.8 > v1["late"]


def test_named_models_are_extracted_lazily(monkeypatch):
    acts, resp = _setup()
    calls = []

    def fake_extract(model, stimuli, layers, **kw):
        calls.append((model, stimuli, layers, kw))
        return acts

    fake = types.ModuleType("toponeuro.features")
    fake.extract = fake_extract
    monkeypatch.setitem(sys.modules, "toponeuro.features", fake)
    table = sweep(["resnet18.topo"], ["early"], resp, stimuli="STIMS", store="cache",
                  extract_kwargs={"batch_size": 4}, progress=False)
    assert calls == [("resnet18.topo", "STIMS", ["early"],
                      {"store": "cache", "progress": False, "batch_size": 4})]
    assert set(table.model) == {"resnet18.topo"}


def test_sweep_bad_input():
    acts, resp = _setup()
    with pytest.raises(UnknownNameError, match="rsa"):
        sweep({"n": acts}, None, resp, method="rsaa", progress=False)
    with pytest.raises(CoordinateError, match="roi"):
        sweep({"n": acts}, None, resp, regions="rio", progress=False)
    with pytest.raises(AlignmentError):
        sweep({"n": acts}, None, resp.isel(stimulus=slice(0, 10)), progress=False)
    with pytest.raises(ValueError, match="stimuli="):
        sweep(["resnet18"], None, resp, progress=False)


def test_a_killed_sweep_resumes_where_it_stopped(tmp_path, monkeypatch):
    import toponeuro.analysis.encoding._sweep as sw
    from toponeuro.exceptions import InvalidDataError

    acts, resp = _setup()
    models = {"net": acts, "twin": acts.copy()}
    full = sweep(models, None, resp, progress=False)
    real = sw._compare_vectors
    calls = []

    def dies_after_five(*a):
        if len(calls) == 5:
            raise KeyboardInterrupt  # the run is killed mid-sweep
        calls.append(1)
        return real(*a)

    path = tmp_path / "sweep.jsonl"
    monkeypatch.setattr(sw, "_compare_vectors", dies_after_five)
    with pytest.raises(KeyboardInterrupt):
        sweep(models, None, resp, progress=False, results=path)
    with open(path, "a") as f:
        f.write('{"key": "cut off by the kill')  # a half-written last line
    calls.clear()
    monkeypatch.setattr(sw, "_compare_vectors", lambda *a: calls.append(1) or real(*a))
    resumed = sweep(models, None, resp, progress=False, results=path)
    assert len(calls) == len(full) - 5  # only the missing pairs were scored
    assert resumed.equals(full)
    calls.clear()
    again = sweep(models, None, resp, progress=False, results=path)
    assert not calls and again.equals(full)
    with pytest.raises(InvalidDataError, match="other settings"):
        sweep(models, None, resp, progress=False, results=path, compare="pearson")
