"""Reliability from repeats: planted signal/noise ratios must be recovered."""

from __future__ import annotations

import numpy as np
import pytest

from toponeuro.brain import (
    make_brain_responses,
    ncsnr,
    nsd_noise_ceiling,
    spearman_brown,
    split_half_reliability,
    voxel_noise_ceiling,
)
from toponeuro.exceptions import CoordinateError, InvalidDataError

NOISE = np.array([0.25, 0.5, 1.0, 2.0])  # signal sd is 1 in every voxel


def _repeated(n_images=4000, reps=2, seed=0):
    rng = np.random.default_rng(seed)
    signal = rng.standard_normal((n_images, len(NOISE)))
    x = np.repeat(signal, reps, axis=0) + NOISE * rng.standard_normal((n_images * reps, len(NOISE)))
    ids = np.repeat([f"im{i}" for i in range(n_images)], reps)
    return make_brain_responses(x, ids, xyz=np.zeros((len(NOISE), 3)))


def test_split_half_recovers_reliability_of_the_mean():
    r = _repeated(reps=2)
    rel = split_half_reliability(r).values
    truth = 1 / (1 + NOISE**2 / 2)  # reliability of the 2-trial mean
    np.testing.assert_allclose(rel, truth, atol=0.05)
    assert np.all(np.diff(rel) < 0)
    rnd = split_half_reliability(r, method="random", n_splits=3, random_state=0).values
    np.testing.assert_allclose(rnd, truth, atol=0.05)


def test_spearman_brown():
    assert spearman_brown(0.5) == pytest.approx(2 / 3)
    assert spearman_brown(0.5, 3) == pytest.approx(0.75)


def test_ncsnr_and_noise_ceiling_match_truth():
    r = _repeated(reps=3, n_images=1500, seed=1)
    snr = ncsnr(r).values
    np.testing.assert_allclose(snr, 1 / NOISE, rtol=0.08)
    nc = voxel_noise_ceiling(r).values
    truth = 100 * (1 / NOISE**2) / (1 / NOISE**2 + 1 / 3)
    np.testing.assert_allclose(nc, truth, atol=2.0)
    np.testing.assert_allclose(nc, nsd_noise_ceiling(snr, 3))


def test_ncsnr_zscores_within_session():
    r = _repeated(reps=2, n_images=800, seed=2)
    shifted = r.copy(data=r.values + np.where(np.arange(r.sizes["stimulus"]) < 800, 0, 50)[:, None])
    shifted = shifted.assign_coords(session=("stimulus", np.arange(1600) // 800))
    # an offset between sessions must not count as noise once z-scored per session
    np.testing.assert_allclose(ncsnr(shifted).values, ncsnr(r).values, rtol=0.1)


def test_reliability_bad_input():
    r = make_brain_responses(np.zeros((3, 1)), ["a", "b", "c"], xyz=np.zeros((1, 3)))
    with pytest.raises(CoordinateError, match="repeated trials"):
        split_half_reliability(r)
    r = make_brain_responses(np.arange(4.0)[:, None], ["a", "a", "b", "c"], xyz=np.zeros((1, 3)))
    with pytest.raises(InvalidDataError):
        split_half_reliability(r)
    with pytest.raises(InvalidDataError):
        nsd_noise_ceiling(1.0, [0])
