import math

import numpy as np
import pytest
import xarray as xr

import toponeuro
from toponeuro import check_activations, make_activations, sheet_positions, sheet_shape
from toponeuro.exceptions import CoordinateError, DimensionError, SheetError, UnknownNameError


def _official(n):
    from topoloss.cortical_sheet.common import find_cortical_sheet_size

    s = find_cortical_sheet_size(n)
    return s.height, s.width


def test_sheet_shape_matches_official_for_every_n():
    for n in range(1, 5001):
        assert sheet_shape(n) == _official(n), n
    for n in (8192, 3072, 2**14 + 2, 65536, 50304, 9973):
        assert sheet_shape(n) == _official(n), n


def test_sheet_shape_definition():
    for n in (1, 2, 7, 12, 64, 100, 512, 768, 3072):
        h, w = sheet_shape(n)
        assert h * w == n and h <= math.isqrt(n)
        assert all(n % d for d in range(h + 1, math.isqrt(n) + 1))


@pytest.mark.parametrize("bad", [0, -3, 2.5])
def test_sheet_shape_rejects_bad(bad):
    with pytest.raises(SheetError):
        sheet_shape(bad)


def test_positions_row_major():
    rows, cols = sheet_positions(12)  # 3 x 4
    assert rows.tolist() == [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2]
    assert cols.tolist() == [0, 1, 2, 3] * 3


def test_accessor_multi_layer_map_roundtrip():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(5, 12)), rng.normal(size=(5, 20))
    acts = make_activations({"a": a, "b": b}, categories=list("xxyyz"))
    check_activations(acts)
    assert acts.topo.layers == ["a", "b"]
    ma, mb = acts.topo.map("a"), acts.topo.map("b")
    assert ma.dims == ("stimulus", "row", "col") and ma.shape == (5, 3, 4)
    assert mb.shape == (5, 4, 5)
    np.testing.assert_allclose(ma.values.reshape(5, -1), a)
    np.testing.assert_allclose(mb.values.reshape(5, -1), b)
    assert list(ma["category"].values) == list("xxyyz")
    # a per-unit reduction keeps unit coords and maps too
    mean_map = acts.mean("stimulus").topo.map("b")
    assert mean_map.dims == ("row", "col")
    np.testing.assert_allclose(mean_map.values.ravel(), b.mean(0))


def test_accessor_map_follows_coords_not_order():
    acts = make_activations({"a": 6}, n_stimuli=2, random_state=1)
    shuffled = acts.isel(unit=[5, 3, 0, 1, 4, 2])
    np.testing.assert_allclose(shuffled.topo.map("a").values, acts.topo.map("a").values)


def test_accessor_distances():
    acts = make_activations({"a": 6, "b": 9}, n_stimuli=2, random_state=1)
    d = acts.topo.distances("b").values
    assert d.shape == (9, 9)
    np.testing.assert_allclose(d, d.T)
    assert d[0, 8] == pytest.approx(np.hypot(2, 2))
    assert acts.topo.distances("a").values[0, 5] == pytest.approx(np.hypot(1, 2))


def test_map_with_repeated_positions_needs_reduce():
    acts = make_activations({"a": 4}, n_stimuli=1, random_state=0)
    dup = xr.concat([acts, acts + 2], dim="unit")
    with pytest.raises(SheetError, match="reduce="):
        dup.topo.map("a")
    np.testing.assert_allclose(dup.topo.map("a", reduce="mean").values, acts.topo.map("a").values + 1)
    np.testing.assert_allclose(dup.topo.map("a", reduce="max").values, acts.topo.map("a").values + 2)


def test_unknown_layer_lists_close_matches():
    acts = make_activations({"layer1.0.conv1": 4}, n_stimuli=1, random_state=0)
    with pytest.raises(UnknownNameError, match="layer1.0.conv1"):
        acts.topo.map("layer1.0.conv2")


def test_check_activations_errors_name_the_fix():
    acts = make_activations({"a": 4}, n_stimuli=3, random_state=0)
    with pytest.raises(DimensionError, match=r"transpose"):
        check_activations(acts.T)
    with pytest.raises(CoordinateError, match="row"):
        check_activations(acts.drop_vars("row"))
    with pytest.raises(DimensionError):
        check_activations(np.zeros((3, 4)))
    with pytest.raises(CoordinateError, match="unique"):
        make_activations({"a": 4}, n_stimuli=2, stimulus_ids=["s", "s"])


def test_import_is_light():
    from _fresh import run_python

    code = "import sys, toponeuro; print('torch' in sys.modules, 'matplotlib' in sys.modules)"
    out = run_python("-c", code)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "False"]
    assert toponeuro.__version__
