"""Reliability of responses from repeated trials: split-half (Spearman-Brown) and NSD's ncsnr."""

from __future__ import annotations

import numbers
from numbers import Integral, Real

import numpy as np
import xarray as xr

from .._util import dims as D
from .._util.constraints import ArrayLike, DataArrayWith
from .._util.docs import fill_doc
from .._util.metrics import pearson_r
from .._util.params import SEED, Boolean, Interval, Options, check_random_state, validate_params
from .._util.typing import RandomState
from ..exceptions import (
    CoordinateError,
    InvalidDataError,
    ParameterError,
    UnknownNameError,
)
from ._nsd import nsd_noise_ceiling
from ._responses import check_responses, make_brain_responses, zscore_within


@fill_doc
@validate_params({
    "n_images": Interval(Integral, 1, None, closed="left"),
    "n_repeats": Interval(Integral, 2, None, closed="left",
                          fix="Repeated trials need at least 2 repetitions."),
    "n_voxels": Interval(Integral, 1, None, closed="left"),
    "random_state": SEED,
    "return_signal": Boolean(),
})
def make_repeated_responses(
    n_images: int = 100,
    n_repeats: int = 2,
    n_voxels: int = 1,
    *,
    noise: float | np.ndarray = 0.5,
    random_state: RandomState = 0,
    return_signal: bool = False,
) -> xr.DataArray | tuple[xr.DataArray, np.ndarray]:
    """Repeated-trial BrainResponses with a known reliability in every voxel.

    Image ``i`` has a signal ``s[i, v] ~ N(0, 1)`` in voxel ``v``; each of its ``n_repeats``
    trials is ``s[i, v] + noise[v] * e`` with fresh ``e ~ N(0, 1)``. The truth is then known
    in closed form, and stored as voxel coords:

    - ``true_ncsnr = 1 / noise`` (signal sd over noise sd; :func:`ncsnr` estimates it);
    - ``true_reliability = 1 / (1 + noise**2 / n_repeats)``, the reliability of the
      ``n_repeats``-trial mean, which :func:`split_half_reliability` estimates (for even
      ``n_repeats``) and which is ``voxel_noise_ceiling / 100``.

    Parameters
    ----------
    n_images : int
        Distinct images (stimulus ids ``stim-0000`` ...).
    n_repeats : int
        Trials per image (at least 2); rows are image by image, trial by trial.
    n_voxels : int
        Voxels (columns).
    noise : float or array (n_voxels,)
        Noise sd of every voxel (or of each); the signal sd is 1.
    %(random_state)s
    return_signal : bool
        Also return the signal, ``(n_images, n_voxels)`` in the order of the ids.

    Returns
    -------
    xarray.DataArray or (xarray.DataArray, numpy.ndarray)
        BrainResponses, dims ``("stimulus", "voxel")`` with a ``repetition`` coord; with
        ``return_signal`` also the signal.

    Raises
    ------
    ParameterError
        Fewer than 1 image or voxel, fewer than 2 repeats, or a noise sd that is not
        positive and finite (or not one per voxel).

    Examples
    --------
    >>> r = make_repeated_responses(n_images=2, n_repeats=3, noise=0.5)
    >>> r.stimulus_id.values[:4].tolist(), r.repetition.values.tolist()
    (['stim-0000', 'stim-0000', 'stim-0000', 'stim-0001'], [0, 1, 2, 0, 1, 2])
    >>> float(r.true_ncsnr[0]), float(r.true_reliability[0])
    (2.0, 0.9230769230769231)
    """
    sd = np.asarray(noise, dtype=np.float64)
    if sd.ndim == 0:
        sd = np.full(n_voxels, float(sd))
    if sd.shape != (n_voxels,) or not np.all(np.isfinite(sd) & (sd > 0)):
        raise ParameterError(
            f"noise must be a positive finite sd, or one per voxel ({n_voxels}); got {noise!r}."
        )
    rng = check_random_state(random_state)
    signal = rng.standard_normal((n_images, n_voxels))
    trials = signal.repeat(n_repeats, axis=0)
    trials = trials + sd * rng.standard_normal(trials.shape)
    ids = np.repeat([f"stim-{i:04d}" for i in range(n_images)], n_repeats)
    xyz = np.column_stack([2.0 * np.arange(n_voxels), np.zeros(n_voxels), np.zeros(n_voxels)])
    responses = make_brain_responses(
        trials, ids, xyz=xyz,
        voxel_coords={"true_ncsnr": 1.0 / sd, "true_reliability": 1.0 / (1.0 + sd**2 / n_repeats)},
        attrs={"method": "simulated repeated trials: signal N(0, 1) + noise N(0, noise**2)",
               "n_repeats": n_repeats},
    )
    return (responses, signal) if return_signal else responses

__all__ = [
    "split_half_reliability",
    "spearman_brown",
    "ncsnr",
    "voxel_noise_ceiling",
    "make_repeated_responses",
]


@validate_params({"factor": Interval(Real, 0, None, closed="neither")})
def spearman_brown(r, factor: float = 2.0):
    """Reliability of data ``factor`` times longer: ``factor * r / (1 + (factor - 1) * r)``.

    Parameters
    ----------
    r : float or array
        The reliability of the data as measured.
    factor : float
        How many times longer the data whose reliability is predicted are.

    Returns
    -------
    float or array
        The predicted reliability, the shape of ``r``.

    Examples
    --------
    >>> float(spearman_brown(0.5))
    0.6666666666666666
    """
    r = np.asarray(r, dtype=np.float64)
    return factor * r / (1.0 + (factor - 1.0) * r)


def _voxel_result(values, da: xr.DataArray, name: str) -> xr.DataArray:
    coords = {k: c for k, c in da.coords.items() if c.dims == (D.VOXEL,)}
    return xr.DataArray(values, dims=(D.VOXEL,), coords=coords, name=name)


def _trials_by_image(da: xr.DataArray):
    if D.REPETITION not in da.coords:
        raise CoordinateError(
            "Reliability needs repeated trials: the responses have no 'repetition' coord "
            "(every stimulus id appears once)."
        )
    ids = np.asarray(da[D.STIMULUS_ID].values).astype(str)
    uniq, inverse, counts = np.unique(ids, return_inverse=True, return_counts=True)
    return uniq, inverse, counts


@fill_doc
@validate_params({
    "method": Options(("odd-even", "random"), error=UnknownNameError),
    "n_splits": Interval(Integral, 1, None, closed="left"),
    "random_state": SEED,
})
def split_half_reliability(
    responses: xr.DataArray,
    *,
    method: str = "odd-even",
    n_splits: int = 1,
    random_state=None,
) -> xr.DataArray:
    """Per-voxel split-half reliability with the Spearman-Brown correction.

    For every image with at least two trials, its trials are split into two halves
    (``"odd-even"``: repetitions 0, 2, ... vs 1, 3, ...; ``"random"``: a random half,
    averaged over ``n_splits`` splits), each half is averaged, and the two half-means are
    correlated across images (Pearson) per voxel; ``2r / (1 + r)`` estimates the
    reliability of the all-trial mean.

    Parameters
    ----------
    responses : xarray.DataArray
        BrainResponses with repeated stimulus ids (a ``repetition`` coord).
    method : {"odd-even", "random"}
        How the trials of an image are split (see above).
    n_splits : int
        Random splits averaged (``method="random"``).
    %(random_state)s

    Returns
    -------
    xarray.DataArray
        Dims ``("voxel",)`` with the voxel coords.

    Examples
    --------
    >>> r = make_repeated_responses(n_images=50, n_repeats=2, noise=0.5, random_state=0)
    >>> float(r.true_reliability[0])  # 1 / (1 + 0.5**2 / 2)
    0.8888888888888888
    >>> bool(split_half_reliability(r).values[0] > 0.8)
    True
    """
    check_responses(responses)
    uniq, inverse, counts = _trials_by_image(responses)
    multi = np.flatnonzero(counts >= 2)
    if len(multi) < 3:
        raise InvalidDataError(
            f"Split-half reliability needs at least 3 images with 2+ trials; got {len(multi)}."
        )
    x = np.asarray(responses.values, dtype=np.float64)
    rng = check_random_state(random_state)
    order = np.argsort(inverse, kind="stable")
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    rs = []
    for _ in range(n_splits if method == "random" else 1):
        half_a = np.zeros((len(multi), x.shape[1]))
        half_b = np.zeros_like(half_a)
        for row, img in enumerate(multi):
            trials = order[starts[img]: starts[img] + counts[img]]
            if method == "random":
                trials = rng.permutation(trials)
            half_a[row] = x[trials[0::2]].mean(0)
            half_b[row] = x[trials[1::2]].mean(0)
        rs.append(pearson_r(half_a, half_b))
    r = np.mean(rs, axis=0)
    out = _voxel_result(spearman_brown(r), responses, "split_half_reliability")
    out.attrs.update(method=method, n_images=int(len(multi)), correction="Spearman-Brown x2")
    return out


@validate_params({"zscore": Boolean()})
def ncsnr(responses: xr.DataArray, *, zscore: bool = True) -> xr.DataArray:
    """NSD's noise-ceiling signal-to-noise ratio per voxel (Allen et al., 2022).

    Responses are z-scored per voxel (within each ``session`` when that coord exists, as in
    NSD), then ``sigma_noise**2`` is the mean over images with 2+ trials of the across-trial
    variance (ddof=1), ``sigma_signal**2 = max(0, 1 - sigma_noise**2)`` and
    ``ncsnr = sigma_signal / sigma_noise``.

    Parameters
    ----------
    responses : xarray.DataArray
        BrainResponses with repeated stimulus ids (a ``repetition`` coord).
    zscore : bool
        Z-score each voxel first (NSD's recipe); ``False`` for responses already z-scored.

    Returns
    -------
    xarray.DataArray
        Dims ``("voxel",)`` with the voxel coords, named ``"ncsnr"``.

    Examples
    --------
    >>> r = make_repeated_responses(n_images=2000, n_repeats=3, noise=0.5, random_state=0)
    >>> round(float(ncsnr(r).values[0]), 1), float(r.true_ncsnr[0])  # truth: 1 / noise
    (2.0, 2.0)
    """
    check_responses(responses)
    uniq, inverse, counts = _trials_by_image(responses)
    if zscore:
        if "session" in responses.coords:
            responses = zscore_within(responses, "session")
        else:
            x = np.asarray(responses.values, dtype=np.float64)
            sd = x.std(0)
            responses = responses.copy(data=(x - x.mean(0)) / np.where(sd > 0, sd, 1.0))
    x = np.asarray(responses.values, dtype=np.float64)
    multi = counts >= 2
    if multi.sum() < 2:
        raise InvalidDataError("ncsnr needs at least 2 images with 2+ trials.")
    sums = np.zeros((len(uniq), x.shape[1]))
    sq = np.zeros_like(sums)
    np.add.at(sums, inverse, x)
    np.add.at(sq, inverse, x**2)
    n = counts[:, None].astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        var = (sq - sums**2 / n) / (n - 1)
    noise_var = var[multi].mean(0)
    signal_var = np.clip(1.0 - noise_var, 0, None)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = np.sqrt(signal_var) / np.sqrt(noise_var)
    return _voxel_result(value, responses, "ncsnr")


@validate_params(dict(responses=DataArrayWith((D.STIMULUS, D.VOXEL)),
                      n_trials=[ArrayLike(), Interval(numbers.Real, 1, None, closed="left"), None]))
def voxel_noise_ceiling(responses: xr.DataArray, n_trials=None) -> xr.DataArray:
    """NSD's noise ceiling per voxel, in **percent of variance**, from :func:`ncsnr`.

    ``100 * ncsnr**2 / (ncsnr**2 + mean(1 / n_i))`` (:func:`nsd_noise_ceiling`): the
    percentage of the variance of the trial-averaged response that the signal explains.
    ``n_trials`` defaults to the number of trials of each image in ``responses``. The result
    says its units in ``attrs["units"]`` (``"percent variance"``), which
    :func:`toponeuro.analysis.encoding_score` checks: to normalise an encoding r pass
    ``np.sqrt(nc / 100)``, an R² ``nc / 100``. (Not the RDM noise ceiling:
    :func:`toponeuro.analysis.rdm_noise_ceiling`.)

    Parameters
    ----------
    responses : xarray.DataArray
        BrainResponses with repeated stimulus ids.
    n_trials : int or sequence of int, optional
        Trials averaged per image in the data the ceiling is for.

    Returns
    -------
    xarray.DataArray
        Dims ``("voxel",)``, in percent of variance (``attrs["units"]``).

    Examples
    --------
    >>> r = make_repeated_responses(n_images=500, n_repeats=3, noise=0.5, random_state=0)
    >>> nc = voxel_noise_ceiling(r)
    >>> round(100 * float(r.true_reliability[0]), 1)  # truth: 100 * 4 / (4 + 1/3)
    92.3
    >>> nc.attrs["units"], bool(90 < float(nc.values[0]) < 95)
    ('percent variance', True)
    """
    _, _, counts = _trials_by_image(responses)
    snr = ncsnr(responses)
    nc = nsd_noise_ceiling(snr.values, counts if n_trials is None else n_trials)
    out = snr.copy(data=nc).rename("noise_ceiling")
    out.attrs.update(units="percent variance", method="NSD ncsnr (Allen et al., 2022)")
    return out
