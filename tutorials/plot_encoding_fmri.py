"""
Encoding models on fMRI betas: a NIfTI workflow
===============================================

An encoding model predicts each voxel's response from a model's features with a linear map
fitted on some stimuli and tested on others. This tutorial goes through the whole volume
workflow on files:

1. write a small 4-D NIfTI of beta maps (one volume per trial, every stimulus shown twice)
   whose voxels inside a region of interest are driven by a known linear map of a network's
   features, plus noise;
2. load it with :func:`toponeuro.brain.load_volume_betas` and a brain mask;
3. estimate how reliable each voxel is (split-half and NSD's ncsnr noise ceiling);
4. fit cross-validated ridge (:class:`~toponeuro.analysis.RidgeEncoder`) and PLS
   (:class:`~toponeuro.analysis.PLSEncoder`) encoding models with
   :func:`~toponeuro.analysis.encoding_score`, look at the chosen regularisation, the score
   map, and normalise by the noise ceiling.

Because we planted the signal, we know which voxels should be predictable and how well.
"""

# %%
# Stimuli and model features
# --------------------------
# We use 60 fLoc images (12 each of adult faces, bodies, houses, words and cars) from
# ``$TOPONEURO_DATA/floc`` (or the pinned download), else toponeuro's synthetic images
# (:func:`toponeuro.stimuli.make_stimulus_set`). Features are the spatially averaged
# activations of the last residual block of ``toponet_demo.v2_tau_50``, a small TopoNet that
# ships with toponeuro (trained on fLoc images 1-96 by instance discrimination), extracted with
# :func:`toponeuro.extract`.
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import nibabel as nib
import numpy as np

import toponeuro
from toponeuro.analysis import PLSEncoder, RidgeEncoder, encoding_score
from toponeuro.brain import (
    average_repetitions,
    load_volume_betas,
    split_half_reliability,
    voxel_noise_ceiling,
)
from toponeuro.tutorial import data_note, tutorial_floc

CATS = ["adult", "body", "house", "word", "car"]
# the local copy $TOPONEURO_DATA/floc, else the pinned download, else synthetic gratings
stimuli = tutorial_floc(range(1, 13), CATS)
print(stimuli)
data_note(stimuli)  # shown on the page: real images or synthetic stand-ins

# %%
LAYER = "layer4.0.conv2"
acts = toponeuro.extract("toponet_demo.v2_tau_50", stimuli, [LAYER], progress=False)
print(acts.sizes)

# %%
# Plant a signal and write the NIfTI files
# ----------------------------------------
# A 14 × 14 × 8 grid of 3 mm voxels. An ellipsoid is the "brain" (the mask); a sphere inside
# it is the ROI, whose voxels respond to ``features @ W`` (``W`` random, one column per
# voxel) plus Gaussian noise. The signal gain grows from left to right across the ROI, so
# some voxels are much more reliable than others; voxels outside the ROI are pure noise.
# Each stimulus is shown twice (two trials, independent noise), so the 4-D image has 120
# volumes, as a GLM with one beta per trial would give.
rng = np.random.default_rng(0)
shape = (14, 14, 8)
affine = np.diag([3.0, 3.0, 3.0, 1.0])
affine[:3, 3] = [-20.0, -60.0, -12.0]  # voxel (0,0,0) at (-20, -60, -12) mm
ii, jj, kk = np.indices(shape)
brain = ((ii - 6.5) / 7) ** 2 + ((jj - 6.5) / 7) ** 2 + ((kk - 3.5) / 4.2) ** 2 <= 1
roi = ((ii - 7) ** 2 + (jj - 7) ** 2 + (kk - 4) ** 2 * 2) <= 16
print(f"{brain.sum()} voxels in the brain mask, {roi.sum()} in the ROI")

X = acts.values.astype(float)
Xz = (X - X.mean(0)) / (X.std(0) + 1e-8)
n_stim, n_feat = Xz.shape
W = rng.standard_normal((n_feat, roi.sum())) / np.sqrt(n_feat)
gain = np.interp(ii[roi], [3, 11], [0.2, 1.5])  # weak on the left, strong on the right
signal = np.zeros((n_stim,) + shape)
signal[:, roi] = (Xz @ W) * gain
trials = [signal + rng.standard_normal(signal.shape) for _ in range(2)]
betas = np.concatenate(trials, axis=0)  # 120 volumes: every stimulus, then all again
betas = np.moveaxis(betas, 0, -1).astype(np.float32)  # -> (x, y, z, volume)

folder = Path(tempfile.mkdtemp(prefix="toponeuro_encoding_"))
nib.save(nib.Nifti1Image(betas, affine), folder / "sub-01_task-floc_beta.nii.gz")
nib.save(nib.Nifti1Image(brain.astype(np.uint8), affine), folder / "brain_mask.nii.gz")
nib.save(nib.Nifti1Image(roi.astype(np.uint8), affine), folder / "roi_mask.nii.gz")
trial_ids = list(acts.stimulus_id.values) * 2  # volume order: all stimuli, then again
print(sorted(p.name for p in folder.iterdir()), betas.shape)

# %%
# Load the betas
# --------------
# One id per volume, in volume order. Ids repeat, so the result gets a ``repetition``
# coord; voxels are taken inside the mask (in nilearn's ``NiftiMasker`` order) and carry
# their grid indices ``i, j, k`` and centres ``x, y, z`` in mm.
responses = load_volume_betas(folder / "sub-01_task-floc_beta.nii.gz", trial_ids,
                              mask=folder / "brain_mask.nii.gz")
in_roi = roi[responses.i.values, responses.j.values, responses.k.values]
print(responses.sizes, "repetitions:", np.unique(responses.repetition.values))
print("first voxel at", [float(responses[c][0]) for c in ("x", "y", "z")], "mm")

# %%
# How reliable is each voxel?
# ---------------------------
# :func:`~toponeuro.brain.split_half_reliability` correlates the two trials across stimuli
# and applies the Spearman-Brown correction: it estimates the reliability of the 2-trial
# mean. :func:`~toponeuro.brain.voxel_noise_ceiling` is NSD's estimate: the percentage of
# the variance of the trial-averaged response that is signal (its ``attrs["units"]`` say
# so; to normalise a Pearson r by it, pass ``np.sqrt(nc / 100)``).
rel = split_half_reliability(responses)
nc = voxel_noise_ceiling(responses)
print(f"split-half reliability: ROI median {np.median(rel.values[in_roi]):.2f}, "
      f"outside median {np.median(rel.values[~in_roi]):.2f}")
print(f"NSD noise ceiling (% variance): ROI median {np.median(nc.values[in_roi]):.0f}, "
      f"outside median {np.median(nc.values[~in_roi]):.0f}")

# %%
# Fit encoding models with cross-validation
# -----------------------------------------
# Models are fitted on the trial-averaged responses. ``encoding_score`` runs an outer 5-fold
# cross-validation; inside each training set :class:`RidgeEncoder` picks its alpha per voxel
# by another 5-fold cross-validation. Scores are the Pearson correlation between predicted
# and held-out responses, averaged over folds. PLS (Brain-Score's default regression) is
# the comparison, with 10 components.
mean_resp = average_repetitions(responses)
alphas = np.logspace(-2, 6, 17)
ridge = encoding_score(acts, mean_resp, model=RidgeEncoder(alphas=alphas, cv=5), cv=5,
                       random_state=0)
pls = encoding_score(acts, mean_resp, model=PLSEncoder(n_components=10), cv=5, random_state=0)
for name, s in (("ridge", ridge), ("PLS", pls)):
    print(f"{name:>5}: median r in ROI {np.median(s.values[in_roi]):.2f}, "
          f"outside {np.median(s.values[~in_roi]):.2f}")

fig, ax = plt.subplots(figsize=(6.4, 3.4))
bins = np.linspace(-0.5, 1, 31)
ax.hist(ridge.values[~in_roi], bins, alpha=0.5, color="0.5", label="ridge, outside ROI (noise)")
ax.hist(ridge.values[in_roi], bins, alpha=0.6, color="C0", label="ridge, ROI")
ax.hist(pls.values[in_roi], bins, histtype="step", lw=2, color="C3", label="PLS (10 comp.), ROI")
ax.axvline(0, color="k", lw=0.8)
ax.set_xlabel("cross-validated Pearson r (predicted vs held-out response)")
ax.set_ylabel("number of voxels")
ax.set_title("Per-voxel encoding scores")
ax.legend(fontsize=8)
fig.tight_layout()

# %%
# The score map
# -------------
# Scores are per voxel, with the voxel's grid indices as coords, so they go straight back
# into the volume. Axial slices through the ROI: the scores rise from left to right,
# following the planted gain, and stay near zero outside the ROI (a diverging map centred
# at zero, so negative scores show in blue).
vol = np.full(shape, np.nan)
vol[ridge.i.values, ridge.j.values, ridge.k.values] = ridge.values
lim = np.nanmax(np.abs(vol))
fig, axes = plt.subplots(1, 3, figsize=(8.5, 3.2), layout="constrained")
for ax, k in zip(axes, (2, 4, 6)):
    im = ax.imshow(vol[:, :, k].T, origin="lower", cmap="RdBu_r", vmin=-lim, vmax=lim)
    ax.contour(roi[:, :, k].T, levels=[0.5], colors="k", linewidths=1)
    ax.set_title(f"z = {affine[2, 2] * k + affine[2, 3]:g} mm")
    ax.set_xlabel("x (voxel index, left → right)")
axes[0].set_ylabel("y (voxel index, posterior → anterior)")
fig.colorbar(im, ax=axes, shrink=0.8, label="ridge encoding score (Pearson r)")
fig.suptitle("Encoding score map (black outline: planted ROI)")
plt.show()

# %%
# Which alphas were chosen?
# -------------------------
# Fit one :class:`RidgeEncoder` on all stimuli to see the regularisation each voxel chose
# (``best_alphas_``). Most noise voxels pick the largest alpha (their best prediction is
# the mean), though some fit noise by chance with a moderate one; ROI voxels pick smaller
# alphas. What counts as "small" depends on the scale of the features: alpha is compared
# with the eigenvalues of the centred feature Gram matrix (printed below), so rescaling the
# features by 10 moves the best alpha by 100. Keep the grid wide, and check that the signal
# voxels' alphas are not piled up at either end.
enc = RidgeEncoder(alphas=alphas, cv=5, random_state=0).fit(acts, mean_resp)
eig = np.linalg.eigvalsh(np.cov(acts.values.T) * (n_stim - 1))[::-1]
print(f"feature Gram eigenvalues: largest {eig[0]:.3g}, 10th {eig[9]:.3g}, 50th {eig[49]:.3g}")
print(f"median chosen alpha: ROI {np.median(enc.best_alphas_[in_roi]):.3g}, "
      f"outside {np.median(enc.best_alphas_[~in_roi]):.3g}")
fig, ax = plt.subplots(figsize=(6.4, 3.2))
edges = np.log10(alphas)
width = (edges[1] - edges[0]) / 2.5
for shift, (mask, label, color) in enumerate(
    ((~in_roi, "outside ROI", "0.5"), (in_roi, "ROI", "C0"))
):
    counts = [(enc.best_alphas_[mask] == a).sum() for a in alphas]
    ax.bar(edges + (shift - 0.5) * width, counts, width, color=color, label=label)
ax.set_xticks(edges[::2], [f"$10^{{{e:g}}}$" for e in edges[::2]])
ax.set_xlabel("chosen ridge alpha (inner 5-fold CV)")
ax.set_ylabel("number of voxels")
ax.set_title("Regularisation chosen per voxel")
ax.legend()
fig.tight_layout()

# %%
# Normalising by the noise ceiling
# --------------------------------
# A voxel's score is limited by its own noise: a perfect model of the signal correlates with
# the noisy 2-trial mean at most ``sqrt(reliability)``. Passing ``ceiling=`` divides the
# scores by it. Raw scores grow with the planted gain (left); normalised scores scatter
# around one level whatever the gain (right; wider at low gain, where the ceiling estimate
# is itself noisy): what remains is how much of the *explainable* response the model
# captures. Voxels with reliability near zero are left out: their ceiling is meaningless
# (a ceiling of 0 gives NaN, and ``encoding_score`` warns how many voxels that is). The
# ceiling must be in the metric's units, r here; NSD's ``voxel_noise_ceiling`` is in percent
# of variance and would be refused with the conversion to use (``np.sqrt(nc / 100)``).
ceiling = np.sqrt(rel.clip(min=0))
normalised = encoding_score(acts, mean_resp, model=RidgeEncoder(alphas=alphas, cv=5), cv=5,
                            ceiling=ceiling, random_state=0)
ok = rel.values > 0.1
print(f"ROI voxels with reliability > 0.1: {int((ok & in_roi).sum())} of {int(in_roi.sum())}; "
      f"median normalised score {np.median(normalised.values[ok & in_roi]):.2f}")

fig, axes = plt.subplots(1, 2, figsize=(8.5, 3.4), layout="constrained")
gain_of_voxel = np.interp(responses.i.values, [3, 11], [0.2, 1.5])
sc = axes[0].scatter(ceiling.values[in_roi], ridge.values[in_roi], c=gain_of_voxel[in_roi], s=12,
                     cmap="viridis")
axes[0].plot([0, 1], [0, 1], "k--", lw=0.8, label="score = ceiling")
axes[0].set_xlabel("noise ceiling, sqrt(split-half reliability)")
axes[0].set_ylabel("ridge score (Pearson r)")
axes[0].set_title("Raw scores track the ceiling")
axes[0].legend(fontsize=8)
axes[1].scatter(gain_of_voxel[ok & in_roi], normalised.values[ok & in_roi], s=12, color="C0")
axes[1].axhline(1, color="k", ls="--", lw=0.8)
axes[1].set_xlabel("planted signal gain (a.u.)")
axes[1].set_ylabel("score / noise ceiling")
axes[1].set_title("Normalised (ROI, reliability > 0.1)")
fig.colorbar(sc, ax=axes[0], label="planted signal gain (a.u.)")
plt.show()

# %%
# With real data
# --------------
# The same calls work on your own GLM outputs: ``load_volume_betas`` takes a 4-D image or a
# list of 3-D maps and an optional mask or atlas ROI (``roi="faces"`` selects the visfAtlas
# face ROIs, resampled to the betas' grid), and :func:`toponeuro.brain.load_bids_betas`
# finds the beta maps of a subject in a BIDS-derivatives folder. For NSD use
# :func:`toponeuro.brain.load_nsd_betas`, which also reads NSD's own ncsnr maps.
