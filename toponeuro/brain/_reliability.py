"""Reliability of responses from repeated trials: split-half (Spearman-Brown) and NSD's ncsnr."""

from __future__ import annotations

import warnings

import numpy as np
import xarray as xr

from .. import _dims as D
from .._docs import fill_doc
from .._metrics import pearson_r
from ..exceptions import CoordinateError, InvalidDataError, UnknownNameError, close_matches
from ._nsd import nsd_noise_ceiling
from ._responses import check_responses, zscore_within

__all__ = [
    "split_half_reliability",
    "spearman_brown",
    "ncsnr",
    "voxel_noise_ceiling",
    "noise_ceiling",
]


def spearman_brown(r, factor: float = 2.0):
    """Reliability of data ``factor`` times longer: ``factor * r / (1 + (factor - 1) * r)``.

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
    n_splits : int
    %(random_state)s

    Returns
    -------
    xarray.DataArray
        dims ``("voxel",)`` with the voxel coords.

    Examples
    --------
    >>> from toponeuro.brain import make_brain_responses
    >>> rng = np.random.default_rng(0)
    >>> signal = rng.standard_normal((50, 1)).repeat(2, axis=0)
    >>> r = make_brain_responses(signal + 0.5 * rng.standard_normal((100, 1)),
    ...                          np.repeat([f"s{i}" for i in range(50)], 2), xyz=np.zeros((1, 3)))
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
    if method not in ("odd-even", "random"):
        raise UnknownNameError(f"method={method!r}; {close_matches(method, ['odd-even', 'random'])}")
    x = np.asarray(responses.values, dtype=np.float64)
    rng = np.random.default_rng(random_state)
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


def ncsnr(responses: xr.DataArray, *, zscore: bool = True) -> xr.DataArray:
    """NSD's noise-ceiling signal-to-noise ratio per voxel (Allen et al., 2022).

    Responses are z-scored per voxel (within each ``session`` when that coord exists, as in
    NSD), then ``sigma_noise**2`` is the mean over images with 2+ trials of the across-trial
    variance (ddof=1), ``sigma_signal**2 = max(0, 1 - sigma_noise**2)`` and
    ``ncsnr = sigma_signal / sigma_noise``.

    Examples
    --------
    >>> from toponeuro.brain import make_brain_responses
    >>> rng = np.random.default_rng(0)
    >>> s = rng.standard_normal((2000, 1)).repeat(3, axis=0)
    >>> r = make_brain_responses(s + 0.5 * rng.standard_normal((6000, 1)),
    ...                          np.repeat([f"s{i}" for i in range(2000)], 3), xyz=np.zeros((1, 3)))
    >>> round(float(ncsnr(r).values[0]), 1)  # true value 1 / 0.5 = 2
    2.0
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


def voxel_noise_ceiling(responses: xr.DataArray, n_trials=None) -> xr.DataArray:
    """NSD's noise ceiling per voxel, in **percent of variance**, from :func:`ncsnr`.

    ``100 * ncsnr**2 / (ncsnr**2 + mean(1 / n_i))`` (:func:`nsd_noise_ceiling`): the
    percentage of the variance of the trial-averaged response that the signal explains.
    ``n_trials`` defaults to the number of trials of each image in ``responses``. The result
    says its units in ``attrs["units"]`` (``"percent variance"``), which
    :func:`toponeuro.analysis.encoding_score` checks: to normalise an encoding r pass
    ``np.sqrt(nc / 100)``, an R² ``nc / 100``. (Not the RDM noise ceiling:
    :func:`toponeuro.analysis.rdm_noise_ceiling`.)

    Examples
    --------
    >>> from toponeuro.brain import make_brain_responses
    >>> rng = np.random.default_rng(0)
    >>> s = rng.standard_normal((500, 1)).repeat(3, axis=0)
    >>> r = make_brain_responses(s + 0.5 * rng.standard_normal((1500, 1)),
    ...                          np.repeat([f"s{i}" for i in range(500)], 3), xyz=np.zeros((1, 3)))
    >>> nc = voxel_noise_ceiling(r)
    >>> nc.attrs["units"], bool(90 < float(nc.values[0]) < 95)  # truth 100 * 4 / (4 + 1/3)
    ('percent variance', True)
    """
    _, _, counts = _trials_by_image(responses)
    snr = ncsnr(responses)
    nc = nsd_noise_ceiling(snr.values, counts if n_trials is None else n_trials)
    out = snr.copy(data=nc).rename("noise_ceiling")
    out.attrs.update(units="percent variance", method="NSD ncsnr (Allen et al., 2022)")
    return out


def noise_ceiling(responses: xr.DataArray, n_trials=None) -> xr.DataArray:
    """Deprecated name of :func:`voxel_noise_ceiling` (removed in the next release).

    Examples
    --------
    >>> callable(noise_ceiling)
    True
    """
    warnings.warn(
        "toponeuro.brain.noise_ceiling is renamed voxel_noise_ceiling (NSD's ceiling, in "
        "percent variance; the RDM ceiling is toponeuro.analysis.rdm_noise_ceiling); the old "
        "name goes in the next release.", FutureWarning, stacklevel=2,
    )
    return voxel_noise_ceiling(responses, n_trials)
