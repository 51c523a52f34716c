"""Honest draw counts of the symmetric two-map null (issue 47): one move serves two draws, so
the p floor and whether a test can reach alpha follow the *effective* number of draws."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.ndimage import gaussian_filter

from toponeuro.analysis import (
    can_reject,
    effective_draws,
    floor_p,
    map_similarity,
    overlap_verdict,
)


def _smooth(rng, shape=(20, 20), sigma=2.0):
    return gaussian_filter(rng.standard_normal(shape), sigma)


def test_a_map_against_itself_has_as_many_effective_draws_as_moves():
    """Planted: the same map twice -- each move's two draws are the same number (rho = 1)."""
    a = _smooth(np.random.default_rng(0))
    res = map_similarity(a, a, "pearson", n_permutations=1000, random_state=0)
    assert res.n_permutations == 1000 and res.n_moves == 500
    assert res.attrs["paired_correlation"] == 1.0 and res.n_effective == 500.0
    # old: p = 2 / 1001 from 1,000 draws that are 500 values each counted twice
    assert res.p_value == pytest.approx(2 / 501)
    v = overlap_verdict(res)
    assert v.p_value == pytest.approx(2 / 501) and v.n_effective == 500.0
    assert v.p_text == "p < 0.004 (two-sided, 1,000 draws of 500 moves, ≈ 500 effective)"
    assert v.to_dict()["n_moves"] == 500 and v.to_dict()["n_effective"] == 500.0


def test_independent_maps_have_effective_draws_between_moves_and_draws():
    rng = np.random.default_rng(1)
    res = map_similarity(_smooth(rng), _smooth(rng), "pearson", n_permutations=400,
                         random_state=0)
    rho = res.attrs["paired_correlation"]
    assert 0 <= rho < 1 and res.n_moves == 200
    assert res.n_effective == pytest.approx(400 / (1 + rho), abs=0.1)
    assert 200 < res.n_effective < 400


def test_odd_draws_count_the_unpaired_move_once():
    a = _smooth(np.random.default_rng(2))
    res = map_similarity(a, a, "pearson", n_permutations=99, random_state=0)
    assert res.n_moves == 50 and res.n_effective == 50.0  # 49 pairs + 1 move used once


def test_a_first_map_kept_fixed_has_every_draw_its_own_move():
    rng = np.random.default_rng(3)
    a = _smooth(rng)
    res = map_similarity(a, a, "pearson", n_permutations=99, random_state=0,
                         null="mirror")  # not the symmetric 'shift': the first map stays
    assert res.n_moves == 99 and res.n_effective == 99.0 and "n_effective" not in res.attrs


def test_effective_draws_formula_and_the_floor():
    x = np.arange(10.0)
    assert effective_draws(x, x) == pytest.approx((10.0, 1.0))
    assert effective_draws(x, -x, n_unpaired=1) == (21.0, 0.0)  # clipped at 0
    assert effective_draws(np.ones(5), np.ones(5)) == (5.0, 1.0)  # undefined: the safe side
    # 40 draws of 20 moves of one map against itself cannot reach 0.05 two-sided
    assert can_reject(40, 0.05, "two-sided") and not can_reject(20.0, 0.05, "two-sided")
    assert floor_p(500.0, "two-sided") == pytest.approx(2 / 501)
