"""
Scaling out with dask
=====================

Whole-brain encoding models have tens of thousands of targets (voxels or vertices), and a
subject's betas may not fit in memory. Every voxel's ridge model is independent once the
features are fixed, so toponeuro fits BrainResponses that are *dask arrays chunked over
voxels* chunk by chunk, one task per chunk, on whatever dask scheduler is active — threads
on a laptop, or a ``dask.distributed`` cluster of many machines. The numbers are the same as
in memory.

This tutorial writes synthetic responses to a netCDF file, opens them lazily in chunks,
and runs :func:`toponeuro.analysis.encoding_score` and
:class:`toponeuro.analysis.RidgeEncoder` on a two-worker ``LocalCluster``.
"""

# %%
# Features and responses on disk
# ------------------------------
# 300 stimuli, 120 model units (synthetic activations from
# :func:`toponeuro.make_activations`), and 8,000 voxels: the first 3,000 read out the
# features linearly with noise, the rest are noise. The responses are built with
# :func:`toponeuro.brain.make_brain_responses` and saved with xarray's ``to_netcdf``.
import tempfile
import time
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import xarray as xr

from toponeuro import make_activations
from toponeuro.analysis import RidgeEncoder, encoding_score
from toponeuro.brain import make_brain_responses

if __name__ == "__main__":
    acts = make_activations({"layer": 120}, n_stimuli=300, random_state=0)
    rng = np.random.default_rng(0)
    X = (acts.values - acts.values.mean(0)) / acts.values.std(0)
    n_vox, n_signal = 8_000, 3_000
    Y = rng.standard_normal((300, n_vox)).astype(np.float32)
    Y[:, :n_signal] += (X @ rng.standard_normal((120, n_signal)) / np.sqrt(120)).astype(
        np.float32)
    responses = make_brain_responses(Y, acts.stimulus_id.values, roi="cortex",
                                     xyz=rng.uniform(-70, 70, (n_vox, 3)))
    path = Path(tempfile.mkdtemp(prefix="toponeuro_dask_")) / "sub-01_betas.nc"
    responses.to_netcdf(path, engine="h5netcdf")
    print(f"{path.name}: {path.stat().st_size / 2**20:.1f} MiB on disk")

# %%
# Open lazily, chunked over voxels
# --------------------------------
# ``chunks={"voxel": 2000}`` gives a dask array of four 300 × 2,000 blocks; nothing is read
# yet. Chunk over voxels only: each task needs all stimuli of its voxels.
if __name__ == "__main__":
    lazy = xr.open_dataarray(path, engine="h5netcdf", chunks={"voxel": 2000})
    print(type(lazy.data).__name__, lazy.data.chunks[1])

# %%
# A local cluster of worker processes
# -----------------------------------
# Two worker *processes* with one thread each (``processes=True``, dask's default): each
# has its own interpreter and memory, exactly as workers on other machines would. While a
# ``Client`` is active, toponeuro's dask paths send their tasks to it; the features are
# scattered to every worker once (``client.scatter(..., broadcast=True)``), not sent again
# with each chunk.
from dask.distributed import Client, LocalCluster  # noqa: E402

if __name__ == "__main__":
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           dashboard_address=None)
    client = Client(cluster)
    workers = client.scheduler_info()["workers"]
    print(f"{len(workers)} worker processes, {sum(w['nthreads'] for w in workers.values())} "
          "threads")

# %%
# Encoding scores: worker processes vs in memory
# ----------------------------------------------
# The same call on the lazy array (on the cluster) and on the in-memory one (here). Each
# outer fold fits a :class:`RidgeEncoder` with alpha chosen per voxel by an inner 5-fold
# cross-validation.
if __name__ == "__main__":
    model = RidgeEncoder(alphas=np.logspace(-1, 4, 6), cv=5)
    t = time.perf_counter()
    scores_dask = encoding_score(acts, lazy, model=model, cv=5)
    t_dask = time.perf_counter() - t
    t = time.perf_counter()
    scores_mem = encoding_score(acts, responses, model=model, cv=5)
    t_mem = time.perf_counter() - t
    diff = np.abs(scores_dask.values - scores_mem.values).max()
    print(f"cluster: {t_dask:.1f} s, in memory: {t_mem:.1f} s; max |difference| = {diff:.2e}")
    # The responses are float32, so the two runs agree to float32 rounding (~1e-7): the
    # matrix products sum in a different order for 2,000-voxel chunks than for all 8,000
    # voxels at once. Timings on this small problem say little (starting the workers and
    # shipping the data dominate); the point is that each task holds one chunk of responses.
    print(f"median score: signal voxels {np.median(scores_dask.values[:n_signal]):.2f}, "
          f"noise voxels {np.median(scores_dask.values[n_signal:]):.2f}")

# %%
# The fitted estimator works the same way: ``RidgeEncoder.fit`` on a dask target fits one
# chunk per task and gathers the alpha chosen for every voxel and, unless ``weights=None``,
# the coefficients (``weights="coef.nc"`` writes them to a store instead of memory).
if __name__ == "__main__":
    enc_dask = RidgeEncoder(alphas=np.logspace(-1, 4, 6), cv=5).fit(acts, lazy)
    enc_mem = RidgeEncoder(alphas=np.logspace(-1, 4, 6), cv=5).fit(acts, responses)
    print("coef_", enc_dask.coef_.shape, "max |difference|:",
          f"{np.abs(enc_dask.coef_ - enc_mem.coef_).max():.2e};",
          "same alphas chosen:", bool(np.array_equal(enc_dask.best_alphas_,
                                                     enc_mem.best_alphas_)))

    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), layout="constrained")
    axes[0].scatter(scores_mem.values[::10], scores_dask.values[::10], s=3, alpha=0.5)
    axes[0].plot([-0.3, 1], [-0.3, 1], "k--", lw=0.8)
    axes[0].set_xlabel("score, in memory (Pearson r)")
    axes[0].set_ylabel("score, worker processes (Pearson r)")
    axes[0].set_title(f"Same numbers (max |Δ| = {diff:.1e})")
    bins = np.linspace(-0.3, 1, 40)
    axes[1].hist(scores_dask.values[n_signal:], bins, alpha=0.6, color="0.5",
                 label="noise voxels")
    axes[1].hist(scores_dask.values[:n_signal], bins, alpha=0.6, color="C0",
                 label="signal voxels")
    axes[1].set_xlabel("cross-validated Pearson r")
    axes[1].set_ylabel("number of voxels")
    axes[1].set_title("8,000 voxels, scored on 2 worker processes")
    axes[1].legend()

    client.close()
    cluster.close()

# %%
# Pointing it at a real cluster
# -----------------------------
# Nothing in the analysis code changes: connect a ``Client`` to your cluster before the
# call. With a scheduler started on a login node (``dask scheduler``) and workers on compute
# nodes (``dask worker tcp://scheduler:8786``)::
#
#     from dask.distributed import Client
#     client = Client("tcp://scheduler:8786")
#
# or let ``dask-jobqueue`` submit the workers as batch jobs::
#
#     from dask_jobqueue import SLURMCluster
#     cluster = SLURMCluster(cores=8, memory="32GB", walltime="02:00:00")
#     cluster.scale(jobs=10)
#     client = Client(cluster)
#
# Then open the betas on a file system every worker can read, chunked over voxels, and call
# ``encoding_score`` / ``RidgeEncoder.fit`` as above. Every worker needs toponeuro
# installed (tasks are toponeuro functions, imported on the workers). Choose chunks of a few
# thousand voxels: each task holds the features' decompositions (computed once per worker)
# plus one chunk of responses and its predictions, so very small chunks spend their time on
# overhead and very large ones on memory.
