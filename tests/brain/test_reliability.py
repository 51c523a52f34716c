"""Reliability from repeats: planted signal/noise ratios must be recovered."""

from __future__ import annotations

import numpy as np
import pytest

from toponeuro.brain import (
    make_brain_responses,
    make_repeated_responses,
    ncsnr,
    nsd_noise_ceiling,
    spearman_brown,
    split_half_reliability,
    voxel_noise_ceiling,
)
from toponeuro.exceptions import CoordinateError, InvalidDataError, ParameterError

NOISE = np.array([0.25, 0.5, 1.0, 2.0])  # signal sd is 1 in every voxel


def _repeated(n_images=4000, reps=2, seed=0):
    return make_repeated_responses(n_images, reps, len(NOISE), noise=NOISE, random_state=seed)


def test_simulated_trials_state_their_truth():
    r, signal = make_repeated_responses(5, 3, len(NOISE), noise=NOISE, random_state=4,
                                        return_signal=True)
    np.testing.assert_array_equal(r.true_ncsnr.values, 1 / NOISE)
    np.testing.assert_allclose(r.true_reliability.values, 1 / (1 + NOISE**2 / 3))
    assert r.sizes == {"stimulus": 15, "voxel": 4} and signal.shape == (5, 4)
    assert r.repetition.values.tolist() == [0, 1, 2] * 5
    # the trials scatter around their image's signal with the planted sd
    resid = r.values.reshape(5, 3, 4) - signal[:, None, :]
    assert np.all(np.abs(resid).max(axis=(0, 1)) < 5 * NOISE)
    again = make_repeated_responses(5, 3, len(NOISE), noise=NOISE, random_state=4)
    np.testing.assert_array_equal(again.values, r.values)
    assert float(make_repeated_responses(4, 2, 3, noise=2.0).true_ncsnr[2]) == 0.5


def test_simulated_truth_is_what_the_estimators_recover():
    """The fixture's stated truth is the estimators' target (tolerances ~4 standard errors)."""
    r = make_repeated_responses(20000, 4, len(NOISE), noise=NOISE, random_state=7)
    np.testing.assert_allclose(ncsnr(r).values, r.true_ncsnr.values, rtol=0.04)
    np.testing.assert_allclose(split_half_reliability(r).values, r.true_reliability.values,
                               atol=0.03)
    np.testing.assert_allclose(voxel_noise_ceiling(r).values / 100, r.true_reliability.values,
                               atol=0.03)


@pytest.mark.parametrize("kwargs", [
    {"n_repeats": 1}, {"n_images": 0}, {"n_voxels": 0}, {"noise": 0.0}, {"noise": np.nan},
    {"noise": [0.5, 1.0]},
])
def test_simulated_trials_bad_arguments(kwargs):
    with pytest.raises(ParameterError):
        make_repeated_responses(**{"n_voxels": 3, **kwargs})


def test_split_half_recovers_reliability_of_the_mean():
    r = _repeated(reps=2)
    rel = split_half_reliability(r).values
    truth = r.true_reliability.values  # reliability of the 2-trial mean: 1 / (1 + noise**2 / 2)
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
    np.testing.assert_allclose(snr, r.true_ncsnr.values, rtol=0.08)
    nc = voxel_noise_ceiling(r).values
    truth = 100 * (1 / NOISE**2) / (1 / NOISE**2 + 1 / 3)  # NSD's formula, written out
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
