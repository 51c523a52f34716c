"""A new null is one function and one call (``register_null``), used through spatial_null."""

import numpy as np
import pytest
from scipy.ndimage import gaussian_filter

from toponeuro.analysis import NULL_METHODS, map_similarity, spatial_null
from toponeuro.analysis.topography import each_but_first, register_null, unregister_null
from toponeuro.exceptions import InvalidDataError, UnknownNameError


def _transpose_shift(first, tm, n_draws, rng):
    """Every other map shifted by a random whole row (circular): a planted, known null."""
    h, w = tm.grid_shape
    shifts = rng.integers(1, h, n_draws)
    grid = np.arange(h * w).reshape(h, w)
    return np.stack([np.roll(grid, s, axis=0).ravel() for s in shifts])


@pytest.fixture
def rowshift():
    register_null("rowshift", each_but_first(_transpose_shift), reference="a test's null",
                  geometries=("sheet",))
    yield "rowshift"
    unregister_null("rowshift")


def test_registered_null_is_used_by_spatial_null(rowshift):
    assert rowshift in NULL_METHODS
    rng = np.random.default_rng(0)
    a = gaussian_filter(rng.standard_normal((16, 16)), 2)
    res = spatial_null("pearson", a, a, null=rowshift, n_permutations=15, random_state=0)
    assert res.null_method == "rowshift" and res.attrs["null_reference"] == "a test's null"
    # the planted null: the same map rolled by whole rows, draw by draw
    shifts = np.random.default_rng(0).integers(1, 16, 15)
    want = [np.corrcoef(a.ravel(), np.roll(a, s, axis=0).ravel())[0, 1] for s in shifts]
    np.testing.assert_allclose(res.null, want, atol=1e-12)
    # and by every metric built on spatial_null
    sim = map_similarity(a, a, "pearson", null=rowshift, n_permutations=15, random_state=0)
    np.testing.assert_allclose(np.sort(sim.null), np.sort(want), atol=1e-12)


def test_unregistered_null_is_gone(rowshift):
    unregister_null(rowshift)
    assert rowshift not in NULL_METHODS
    with pytest.raises(UnknownNameError, match="Unknown null 'rowshift'"):
        spatial_null("pearson", np.ones((4, 4)), np.ones((4, 4)), null=rowshift)
    register_null(rowshift, each_but_first(_transpose_shift), geometries=("sheet",))


def test_null_refuses_other_geometry_and_one_map(rowshift):
    mesh = {"positions": np.random.default_rng(0).standard_normal((30, 3))}
    v = np.random.default_rng(1).standard_normal(30)
    with pytest.raises(InvalidDataError, match="null='rowshift' draws on a sheet grid"):
        spatial_null("pearson", v, v, null=rowshift, geometry=mesh, n_permutations=3)
    with pytest.raises(InvalidDataError, match="needs two or more maps"):
        spatial_null("smoothness", np.ones((16, 16)), null=rowshift, n_permutations=3)


def test_register_null_bad_input():
    with pytest.raises(UnknownNameError, match="geometries must name"):
        register_null("x", each_but_first(_transpose_shift), geometries=("torus",))
    with pytest.raises(InvalidDataError, match="needs a draw function"):
        register_null("x")
    assert "x" not in NULL_METHODS


def test_builtin_nulls_are_registered():
    assert {"positions", "shift", "mirror", "spin", "torus", "spectral", "phase", "iaaft",
            "variogram"} <= set(NULL_METHODS)
