"""
Representational similarity analysis, with rsatoolbox interop
=============================================================

RSA compares a model with the brain through their *representational geometry*: for every
pair of stimuli, how different are the two response patterns? The table of these
dissimilarities is the representational dissimilarity matrix (RDM); model and brain are
compared by correlating their RDMs, with no fitted weights.

This tutorial computes RDMs of a network's layers and of several (synthetic) subjects'
ventral-temporal responses to fLoc categories, compares them with several methods, puts
bootstrap confidence intervals and a noise ceiling on the comparison, and hands the RDMs to
`rsatoolbox <https://rsatoolbox.readthedocs.io>`_ and back.
"""

# %%
# Stimuli and model RDMs
# ----------------------
# Six images of each of the ten fLoc categories (faces: adult, child; bodies: body, limb;
# places: corridor, house; characters: word, number; objects: car, instrument), from
# ``$TOPONEURO_DATA/floc`` or the pinned download, else toponeuro's synthetic images. Activations of two layers of
# ``toponet_demo.v2_tau_50`` (a small TopoNet shipped with toponeuro, trained to tell apart
# fLoc images 1-96, each its own class), spatially averaged, give one RDM per layer: 1 − Pearson correlation between
# the patterns of each pair of stimuli (:func:`toponeuro.analysis.rdm`).
#
# One practical point: after a ReLU every unit's response is positive and units differ
# mostly in their mean level, so raw patterns of different images correlate at r ≈ 0.99 and
# all distances are tiny. Z-scoring each unit across stimuli first (and dropping units that
# never respond) makes the RDM reflect how *stimuli* differ rather than how units differ.

import matplotlib.pyplot as plt
import numpy as np
import xarray as xr

import toponeuro
from toponeuro.analysis import (
    bootstrap_compare_rdms,
    compare_rdms,
    from_rsatoolbox_rdms,
    rdm,
    rdm_noise_ceiling,
    to_rsatoolbox_rdms,
)
from toponeuro.brain import make_brain_responses
from toponeuro.plotting import plot_rdm
from toponeuro.stimuli import FLOC_CATEGORIES
from toponeuro.tutorial import data_note, tutorial_floc

CATS = [c for c in FLOC_CATEGORIES if c != "scrambled"]
# the local copy $TOPONEURO_DATA/floc, else the pinned download, else synthetic gratings
stimuli = tutorial_floc(range(1, 7), CATS)
print(stimuli)
data_note(stimuli)  # shown on the page: real images or synthetic stand-ins

# %%
LAYERS = ["layer2.0.conv2", "layer4.0.conv2"]
acts = toponeuro.extract("toponet_demo.v2_tau_50", stimuli, LAYERS, progress=False)
categories = acts.category.values


def zscore_units(a):
    """Z-score each unit across stimuli, dropping constant (dead) units."""
    sd = a.std("stimulus")
    a = a.isel(unit=np.flatnonzero(sd.values > 0))
    return (a - a.mean("stimulus")) / a.std("stimulus")


model_rdms = {layer: rdm(zscore_units(acts.topo.select(layer)), "correlation")
              for layer in LAYERS}
print({k: v.shape for k, v in model_rdms.items()}, "(condensed: 60 * 59 / 2 pairs)")
# each RDM knows its stimuli: comparisons below match stimuli by id, whatever their order
print(model_rdms[LAYERS[0]].attrs["metric"], model_rdms[LAYERS[0]].attrs["stimulus_id"][:3])

fig, axes = plt.subplots(1, 2, figsize=(10, 4.4), layout="constrained")
for ax, layer in zip(axes, LAYERS):
    plot_rdm(model_rdms[layer], labels=categories, title=f"model {layer}",
             colorbar_label="1 − Pearson r", ax=ax)

# %%
# Brain responses of six synthetic subjects
# -----------------------------------------
# We simulate the responses of 80 ventral-temporal voxels in each of six subjects (no fMRI
# data ships with toponeuro). Each subject's voxels mix three parts, with subject-specific
# voxel weights: a shared *domain* geometry (faces, bodies, places, characters, objects each
# have a prototype pattern), a component driven linearly by the model's ``layer4`` features,
# and independent noise. All subjects live in one BrainResponses array, told apart by the
# ``subject`` voxel coord, exactly as a multi-subject loader returns them.
rng = np.random.default_rng(1)
domains = np.array([toponeuro.stimuli.FLOC_DOMAIN_OF[c] for c in categories])
_, dom_idx = np.unique(domains, return_inverse=True)
prototypes = rng.standard_normal((5, 20))[dom_idx]  # (60 stimuli, 20 latent dims)
feat = acts.topo.select("layer4.0.conv2").values
feat = (feat - feat.mean(0)) / (feat.std(0) + 1e-8)
per_subject = []
for s in range(6):
    data = (prototypes @ rng.standard_normal((20, 80)) * 0.5
            + feat @ rng.standard_normal((feat.shape[1], 80)) / np.sqrt(feat.shape[1])
            + 2.5 * rng.standard_normal((60, 80)))
    per_subject.append(make_brain_responses(
        data, acts.stimulus_id.values, subject=f"sub-{s + 1:02d}", roi="VTC",
        xyz=rng.uniform(-40, 40, (80, 3)), categories=categories))
brain = xr.concat(per_subject, dim="voxel")
print(brain.sizes, np.unique(brain.subject.values))

subjects = np.unique(brain.subject.values)
brain_rdms = [rdm(brain[:, brain.subject.values == s], "correlation") for s in subjects]
fig = plot_rdm(np.mean(brain_rdms, axis=0), labels=categories, colorbar_label="1 − Pearson r",
               title="VTC, mean RDM of 6 subjects")

# %%
# Comparing RDMs
# --------------
# :func:`~toponeuro.analysis.compare_rdms` offers the methods of rsatoolbox: rank
# correlation (Spearman, Kendall's τ\ :sub:`a`, robust to any monotonic transform of the
# distances), Pearson correlation, cosine similarity, and their whitened versions
# (``corr_cov``, ``cosine_cov``) that account for the dependence between distances that share
# a stimulus. Each subject's RDM is compared with each layer's; bars show the mean over
# subjects, points the subjects. The methods rank the two layers the same way, but their
# scales differ: cosine similarity does not subtract the mean distance, so any two RDMs of
# positive distances score high — compare cosine values between models, never against 0.
methods = ["spearman", "kendall_tau_a", "pearson", "cosine", "corr_cov"]
scores = {(layer, m): [compare_rdms(model_rdms[layer], b, m) for b in brain_rdms]
          for layer in LAYERS for m in methods}
fig, ax = plt.subplots(figsize=(7.5, 3.4))
width = 0.38
for k, layer in enumerate(LAYERS):
    x = np.arange(len(methods)) + (k - 0.5) * width
    ax.bar(x, [np.mean(scores[layer, m]) for m in methods], width, label=layer, alpha=0.8)
    for xi, m in zip(x, methods):
        ax.plot(np.full(6, xi), scores[layer, m], "k.", ms=3)
ax.set_xticks(range(len(methods)), methods)
ax.axhline(0, color="k", lw=0.8)
ax.set_ylabel("model–brain RDM similarity")
ax.set_title("One comparison, five methods (dots: subjects)")
ax.legend(title="model layer", fontsize=8)
fig.tight_layout()

# %%
# Confidence intervals and the noise ceiling
# ------------------------------------------
# How sure are we of a comparison? :func:`~toponeuro.analysis.bootstrap_compare_rdms`
# resamples *stimuli* with replacement (so the interval covers other images from the same
# categories) and reports a percentile interval. How high could any model score?
# :func:`~toponeuro.analysis.rdm_noise_ceiling` compares each subject's RDM with the average of
# the other subjects' (lower bound) and of all subjects' (upper bound): a model that captures
# everything the subjects share scores inside that band, on the same scale as the mean over
# subjects of the model–subject comparisons.
#
# With one ``random_state`` every call draws the same stimulus resamples, so the bootstrap
# samples of the six subjects can be averaged into an interval for that subject mean.
lower, upper = rdm_noise_ceiling(brain_rdms, "spearman")
print(f"noise ceiling (Spearman): [{lower:.3f}, {upper:.3f}]")
summary = {}
for layer in LAYERS:
    boots = [bootstrap_compare_rdms(model_rdms[layer], b, "spearman", n_bootstrap=300,
                                    random_state=0) for b in brain_rdms]
    mean_samples = np.mean([b.samples for b in boots], axis=0)
    value = np.mean([b.value for b in boots])
    lo, hi = np.quantile(mean_samples, [0.025, 0.975])
    summary[layer] = (value, lo, hi)
    print(f"{layer}: mean Spearman over subjects {value:.3f}, 95% CI [{lo:.3f}, {hi:.3f}]; "
          f"sub-01 alone {boots[0].value:.3f} [{boots[0].ci_low:.3f}, {boots[0].ci_high:.3f}]")

fig, ax = plt.subplots(figsize=(5.5, 3.4))
ax.axhspan(lower, upper, color="0.85", label="noise ceiling")
vals = [summary[layer][0] for layer in LAYERS]
err = np.array([[v - lo, hi - v] for v, lo, hi in summary.values()]).T
ax.bar(range(len(LAYERS)), vals, 0.5, yerr=err, capsize=6, color=["C0", "C1"])
ax.set_xticks(range(len(LAYERS)), LAYERS)
ax.set_ylabel("Spearman ρ, mean over subjects")
ax.set_title("Model layers vs VTC (error bars: 95% bootstrap CI)")
ax.set_ylim(0, 1)
ax.legend(loc="upper left")
fig.tight_layout()

# %%
# Round trip through rsatoolbox
# -----------------------------
# :func:`~toponeuro.analysis.to_rsatoolbox_rdms` wraps RDMs as ``rsatoolbox.rdm.RDMs`` (same
# entry order, stimulus ids as pattern descriptors), so everything in rsatoolbox — its
# model comparison, inference and plotting — is available. Here rsatoolbox computes the same
# comparisons and the same noise ceiling; :func:`~toponeuro.analysis.from_rsatoolbox_rdms`
# brings them back as labelled RDMs (stimulus ids and metric kept), ready for toponeuro's
# comparisons.
import rsatoolbox  # noqa: E402

rt_subjects = to_rsatoolbox_rdms(brain_rdms, metric="correlation",
                                 stimulus_ids=acts.stimulus_id.values)
rt_model = to_rsatoolbox_rdms(model_rdms["layer4.0.conv2"], metric="correlation",
                              stimulus_ids=acts.stimulus_id.values)
print(f"rsatoolbox RDMs: {rt_subjects.n_rdm} RDMs of {rt_subjects.n_cond} conditions, "
      f"dissimilarity {rt_subjects.dissimilarity_measure!r}")
rt_scores = rsatoolbox.rdm.compare(rt_model, rt_subjects, method="spearman").ravel()
ours = np.array(scores["layer4.0.conv2", "spearman"])
print("max |toponeuro - rsatoolbox| Spearman per subject:", np.abs(rt_scores - ours).max())
rt_lower, rt_upper = rsatoolbox.inference.boot_noise_ceiling(rt_subjects, method="spearman")
print(f"rsatoolbox noise ceiling: [{rt_lower:.3f}, {rt_upper:.3f}]  "
      f"(toponeuro: [{lower:.3f}, {upper:.3f}])")
back = from_rsatoolbox_rdms(rt_subjects)
print("round trip exact:", np.array_equal(back, np.stack(brain_rdms)),
      "| ids kept:", bool((back[0].attrs["stimulus_id"] == acts.stimulus_id.values).all()))
