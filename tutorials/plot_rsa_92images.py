"""
A TopoNet against human IT on the 92 images
===========================================

Kriegeskorte et al. (2008) showed 92 photographs of objects (faces and bodies of humans and
animals, natural and man-made things) to four people in fMRI, twice each, and summarised the
response patterns of human inferior temporal cortex (hIT) in a *representational
dissimilarity matrix* (RDM) per session: 8 RDMs of 92 x 92. This page compares a shipped demo
TopoNet with them the way rsatoolbox users would: RDMs read from the published ``.mat`` files
and labelled with their stimuli, a noise ceiling that leaves out a subject's two sessions
together, and a bootstrap comparison of models against each other and against the ceiling.
Finally it asks whether the TopoNet's face units, picked on another image set (fLoc),
prefer the faces among the 92.

Data: rsatoolbox's public demo files (``demos/92imageData`` at a pinned commit), fetched
and sha256-checked into the cache; offline, a local copy in ``$TOPONEURO_SHARED/data/r92``
(or ``../shared/data/r92`` beside the repository) when one exists, else synthetic stand-ins.
The fLoc images for the last section come the same way (the cache, a download, a local
copy in ``.../shared/data/floc``, else synthetic gratings). The outputs say which ran.

Cite: Kriegeskorte, Mur, Ruff, Kiani, Bodurka, Esteky, Tanaka & Bandettini (2008), Neuron
60(6):1126-1141; Schütt et al. (2023), eLife 12:e82566 for the inference.
"""

# %%
# The images, their labels and the hIT RDMs
# ------------------------------------------
# :func:`toponeuro.stimuli.fetch_92_images` downloads the two files once (pinned commit,
# sha256-checked; a copy in the cache is used as it is). :func:`toponeuro.stimuli.load_92_images`
# reads the images with their category and four 0/1 flags (human, face, animal, natural),
# which become stimulus coords. :func:`toponeuro.analysis.load_rdms` reads the RDMs from the
# ``.mat`` file (a struct array, as the MATLAB RSA toolbox saves them) and gives every one the
# ids of the 92 images, so each comparison below joins stimuli by id, never by position.
import os
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

import toponeuro
from toponeuro.analysis import (
    compare_rdm_models,
    labelled_rdm,
    load_rdms,
    localizer_transfer,
    rdm,
    rdm_noise_ceiling,
)
from toponeuro.exceptions import DownloadError
from toponeuro.plotting import plot_rdm
from toponeuro.stimuli import fetch_92_images, load_92_images, make_stimulus_set
from toponeuro.tutorial import data_note, tutorial_floc


def local_copy(name, marker):
    """A local copy of the real data, ``<shared>/data/<name>``, or None: the folder named by
    $TOPONEURO_SHARED, else ``shared`` beside the repository (from the repository root or
    from tutorials/, where the docs build runs this page)."""
    roots = [os.environ.get("TOPONEURO_SHARED"), "../shared", "../../shared"]
    found = [Path(r) / "data" / name for r in roots if r]
    return next((p for p in found if (p / marker).exists()), None)


def hit_data():
    """(stimuli, hIT RDMs, where they came from): the pinned download, a local copy, or
    synthetic stand-ins."""
    try:
        paths = fetch_92_images()
        source = "rsatoolbox demos/92imageData (pinned, sha256-checked)"
    except DownloadError:
        local = local_copy("r92", "92_brainRDMs.mat")
        if local is None:
            return None
        paths = {"stimuli": local, "brain_rdms": local / "92_brainRDMs.mat"}
        source = f"local copy {local} (offline)"
    stimuli = load_92_images(paths["stimuli"])
    return stimuli, load_rdms(paths["brain_rdms"], stimuli, key="RDMs"), source


found = hit_data()
if found is not None:
    stimuli, hit, source = found
    subjects = [r.attrs["name"].split("|")[1].strip() for r in hit]  # 'hIT | BE | Session: 1'
else:  # offline without a copy: 6 categories of gratings, RDMs = category structure + noise
    source = "SYNTHETIC stand-ins (no download, no local copy): numbers below are not hIT's"
    stimuli = make_stimulus_set(n_per_category=15, size=64, random_state=0)
    rng = np.random.default_rng(0)
    same = stimuli.categories[:, None] == stimuli.categories[None, :]
    hit = []
    for _ in range(8):
        noisy = np.triu(np.where(same, 0.6, 1.0) + 0.3 * rng.random(same.shape), 1)
        hit.append(labelled_rdm(noisy + noisy.T, stimuli))
    subjects = [f"s{k // 2 + 1}" for k in range(8)]
print("data:", source)
print(stimuli, "| labels:", sorted(stimuli.coords()))
print(len(hit), "RDMs; subjects:", subjects)

fig = plot_rdm(np.mean([np.asarray(r) for r in hit], axis=0), labels=stimuli.categories,
               title="hIT, mean of 8 session RDMs", colorbar_label="1 − r")

# %%
# The noise ceiling, sessions grouped by subject
# ----------------------------------------------
# The noise ceiling bounds how well any model could match these RDMs given their noise
# (Nili et al., 2014): the upper bound compares each RDM with the mean of all, the lower
# bound with the mean of the others. With two sessions per person, "the others" must leave
# out the person's other session too, or the lower bound borrows that session's shared
# signal. ``subjects=`` does that (rsatoolbox's ``boot_noise_ceiling(...,
# rdm_descriptor="subject")``); taking the 8 sessions as 8 people lifts the lower bound.
grouped = rdm_noise_ceiling(hit, "spearman", subjects=subjects)
as_eight = rdm_noise_ceiling(hit, "spearman")
print(f"Spearman noise ceiling, 4 subjects x 2 sessions: lower {grouped[0]:.3f}, "
      f"upper {grouped[1]:.3f}")
print(f"  (the 8 sessions taken as 8 subjects: lower {as_eight[0]:.3f})")

# %%
# Model RDMs: a TopoNet, its τ = 0 control, and a category model
# --------------------------------------------------------------
# Two shipped demo TopoNets trained identically on fLoc images, one with TopoLoss (τ = 50),
# one with the loss only logged (τ = 0). Their RDMs come from the last sheet layer (one unit
# per channel, correlation distance). The category model says only "same category or not"
# (the six categories of the set): a strong, simple baseline in IT.
LAYER = "layer4.0.conv1"
names = {"TopoNet τ=50": "toponet_demo.v2_tau_50", "TopoNet τ=0": "toponet_demo.v2_tau_0"}
acts = {}
for label, name in names.items():
    model = toponeuro.create_model(name, pretrained=True)
    acts[label] = toponeuro.extract(model, stimuli, [LAYER], progress=False)
models = {label: rdm(a, "correlation") for label, a in acts.items()}
same = stimuli.categories[:, None] == stimuli.categories[None, :]
models["category"] = labelled_rdm((~same).astype(float), stimuli, metric="same category")

# %%
# Bootstrap comparison (over stimuli)
# -----------------------------------
# :func:`toponeuro.analysis.compare_rdm_models` runs rsatoolbox's ``eval_bootstrap_pattern``
# on rsatoolbox's own objects: each sample redraws the 92 images with replacement,
# compares every model with every session RDM (Spearman, mean over RDMs) and recomputes the
# grouped noise ceiling; p-values are rsatoolbox's t-tests on the bootstrap covariance
# (uncorrected). Resampling stimuli asks whether a result would hold for new images of the
# same kind, not for new people (``bootstrap="subjects"`` or ``"both"`` does that; with four
# people it is coarse).
res = compare_rdm_models(models, hit, "spearman", subjects=subjects, bootstrap="stimuli",
                         n_bootstrap=100, random_state=0)
print(res.table().round(3).to_string(index=False))
print("pairwise p:\n", res.p_pairwise.round(4))

fig, ax = plt.subplots(figsize=(6, 3.6), layout="constrained")
ax.axhspan(*res.noise_ceiling, color="0.85", label="noise ceiling")
ax.bar(range(len(res.models)), res.mean, yerr=[res.mean - res.ci_low, res.ci_high - res.mean],
       color=["C0", "C1", "C2"], capsize=4)
ax.set_xticks(range(len(res.models)), res.models)
ax.set_ylabel("Spearman ρ with hIT RDMs")
ax.set_title(f"{res.n_bootstrap} bootstrap samples of the stimuli, 95% CI")
ax.legend(loc="upper right")
plt.show()

# %%
# What this shows, and what it does not
# -------------------------------------
# Each model's bar is its mean Spearman correlation with the 8 session RDMs over bootstrap
# samples of the images; the grey band is the grouped noise ceiling. A model whose interval
# stays below the lower bound leaves explainable structure unexplained; ``p_noise_ceiling``
# tests that, ``p_zero`` tests "above 0", and the pairwise table whether two models differ.
# The demo TopoNets are small networks trained on about 1,000 fLoc images (a single domain
# of grayscale photos), so they are far from the ceiling; the comparison says how they stand
# against each other and against a category model *on these 92 images and this ROI*, not
# how topographic networks in general fare. Bootstrapping stimuli treats the 92 images as a
# sample from a population of such images; the four people are fixed.

# %%
# Localise on fLoc, test on the 92 images
# ---------------------------------------
# Pick the TopoNet's face-selective units on fLoc (faces against the other four domains,
# TDANN's t, the top tenth of the layer) and ask whether they respond more to the 92-set's
# human faces than to its other images. :func:`toponeuro.analysis.localizer_transfer` shuffles
# the 92-set's labels 1,000 times to build the null (the units stay fixed), and reports
# Cohen's d. The two sets share no image, so the test is not circular.
floc = tutorial_floc(range(109, 121), [c for c in toponeuro.stimuli.FLOC_CATEGORIES
                                      if c != "scrambled"],
                    path=local_copy("floc", "adult"))
print(data_note(floc))
for label, name in names.items():
    model = toponeuro.create_model(name, pretrained=True)
    floc_acts = toponeuro.extract(model, floc, [LAYER], progress=False)
    test = acts[label].assign_coords(stimuli.coords())
    face_kind = np.where(test.face.values == 1,
                         np.where(test.human.values == 1, "human face", "animal face"), "other") \
        if "face" in test.coords else np.where(test.category.values == "faces", "human face",
                                               "other")
    for tgt in ("human face", "animal face"):
        if tgt not in face_kind:
            continue
        r = localizer_transfer(floc_acts, test, "faces", tgt, test_against="other",
                               test_labels=face_kind, n_permutations=1000, random_state=0)
        print(f"{label}: fLoc face units ({r.n_units}) on the 92 images, {r.test}: "
              f"d = {r.statistic:.2f}, p = {r.p_value:.4f} ({r.n_permutations} relabellings)")

# %%
# A small p says these units, chosen on fLoc alone, prefer that kind of face among the 92
# images more than they prefer random groups of the same size; it does not say they are the
# units the 92 images would pick, nor that the preference is for faces rather than for
# whatever else tells those images apart (lighting, framing, colour: fLoc is grayscale,
# the 92 images are not).
