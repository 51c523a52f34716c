"""
Dimensionality: effective and bias-corrected
============================================

How many dimensions does a representation use? A common answer is the *participation
ratio* of the covariance eigenvalues λ:

.. math:: \\mathrm{PR} = \\frac{(\\sum_k \\lambda_k)^2}{\\sum_k \\lambda_k^2}
          = \\frac{(\\operatorname{tr} C)^2}{\\operatorname{tr}(C^2)},

which is ``d`` when ``d`` dimensions carry equal variance and smaller when variance is
concentrated. Computed from the sample covariance of ``n`` stimuli —
:func:`toponeuro.analysis.effective_dimensionality` — it can never exceed ``n - 1`` and is
biased low whenever ``n`` is not much larger than the dimensionality, which is the usual
situation with brain data and a few hundred images. :func:`toponeuro.analysis.participation_ratio`
(``bias_corrected=True``, the default) divides unbiased estimates of ``(tr C)²`` and
``tr(C²)`` instead, and stays near the true value down to a handful of stimuli.

We first check both estimators on synthetic data of known dimensionality, then measure
the dimensionality of the layers of the demo TopoNets shipped with toponeuro, trained with
and without TopoLoss.
"""

# %%
# Synthetic data of known dimensionality
# --------------------------------------
# Two populations of 500 units: one with 30 equally strong dimensions (PR = 30), one with a
# power-law spectrum λ_k ∝ 1/k over all 500 dimensions, as in mouse visual cortex (Stringer
# et al., 2019). For each number of stimuli we draw 10 independent samples and estimate PR
# both ways.
import matplotlib.pyplot as plt
import numpy as np

from toponeuro.analysis import effective_dimensionality, participation_ratio

rng = np.random.default_rng(0)
p = 500
spectra = {
    "30 equal dimensions": np.r_[np.ones(30), np.zeros(p - 30)],
    "power law λ_k ∝ 1/k": 1.0 / np.arange(1, p + 1),
}
n_list = [8, 12, 20, 35, 60, 100, 200, 400, 800]
fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), layout="constrained")
for ax, (name, lam) in zip(axes, spectra.items()):
    true_pr = lam.sum() ** 2 / (lam**2).sum()
    est = {True: [], False: []}
    for n in n_list:
        for corrected in (True, False):
            vals = [participation_ratio(rng.standard_normal((n, p)) * np.sqrt(lam),
                                        bias_corrected=corrected) for _ in range(10)]
            est[corrected].append((np.mean(vals), np.std(vals)))
    for corrected, color, label in ((False, "C3", "plain (effective_dimensionality)"),
                                    (True, "C0", "bias-corrected (participation_ratio)")):
        m, s = np.array(est[corrected]).T
        ax.plot(n_list, m, "o-", color=color, label=label)
        ax.fill_between(n_list, m - s, m + s, color=color, alpha=0.2)
    ax.axhline(true_pr, color="k", ls="--", lw=1, label=f"true PR = {true_pr:.1f}")
    ax.set_xscale("log")
    ax.set_xlabel("number of stimuli n")
    ax.set_title(f"{name} (true PR {true_pr:.1f})")
    print(f"{name}: true {true_pr:.1f}; at n = {n_list[0]}: plain {est[False][0][0]:.1f}, "
          f"corrected {est[True][0][0]:.1f}; at n = {n_list[-1]}: plain "
          f"{est[False][-1][0]:.1f}, corrected {est[True][-1][0]:.1f}")
axes[0].set_ylabel("participation ratio (mean ± sd of 10 draws)")
axes[0].legend(fontsize=8, loc="lower right")
fig.suptitle("The plain estimate drifts with n; the corrected one stays flat")
plt.show()

# %%
# The plain estimate and ``effective_dimensionality`` are the same number. The corrected
# estimate divides two unbiased estimates, so it scatters more at very small ``n`` (shaded:
# ± 1 sd over draws) but is centred near the truth, and it can exceed ``n - 1``: it
# estimates the population's dimensionality, not the sample's.
#
# TopoNets with and without TopoLoss
# ----------------------------------
# toponeuro ships small demonstration TopoNets (SmallResNet, trained on CPU to tell apart
# the 1,056 fLoc images 1-96 of all categories): ``toponet_demo.v2_tau_0`` is the control (TopoLoss logged, not optimised) and
# ``toponet_demo.v2_tau_50`` was trained with τ = 50. We read the mean-pooled activations of
# every TopoLoss layer for 110 fLoc images (10 per category, from ``$TOPONEURO_DATA/floc`` or the pinned download,
# else synthetic images) with :func:`toponeuro.extract`.

import toponeuro  # noqa: E402
from toponeuro.tutorial import data_note, tutorial_floc  # noqa: E402

# the local copy $TOPONEURO_DATA/floc, else the pinned download, else synthetic gratings
stimuli = tutorial_floc(range(1, 11))
print(stimuli)
data_note(stimuli)  # shown on the page: real images or synthetic stand-ins

# %%
MODELS = {"τ = 0 (control)": "toponet_demo.v2_tau_0", "τ = 50": "toponet_demo.v2_tau_50"}
acts = {label: toponeuro.extract(name, stimuli, "topo", progress=False)
        for label, name in MODELS.items()}
layers = acts["τ = 50"].topo.layers
print(layers)

# %%
# Participation ratio per layer
# -----------------------------
# Spatially averaged activations are dominated by a few directions (PR of 2–5), so with 110
# stimuli the two estimators nearly agree. Dimensionality grows with depth in both
# networks; in this pair the τ = 50 network is lower-dimensional in the first block and
# similar or slightly higher in the last blocks.
fig, ax = plt.subplots(figsize=(7.5, 3.4))
for (label, a), color in zip(acts.items(), ("0.4", "C0")):
    pr = [participation_ratio(a.topo.select(layer)) for layer in layers]
    plain = [effective_dimensionality(a.topo.select(layer)) for layer in layers]
    ax.plot(range(len(layers)), pr, "o-", color=color, label=f"{label}, bias-corrected")
    ax.plot(range(len(layers)), plain, "x--", color=color, label=f"{label}, plain")
    print(f"{label}: corrected PR per layer {np.round(pr, 2).tolist()}")
ax.set_xticks(range(len(layers)), [name.replace(".0.", " ") for name in layers], rotation=30)
ax.set_ylabel("participation ratio")
ax.set_title(f"Dimensionality of each TopoLoss layer ({len(stimuli)} stimuli)")
ax.legend(fontsize=8, ncol=2)
fig.tight_layout()

# %%
# Fewer stimuli
# -------------
# Random subsets of the stimuli, for the last layer. The plain estimate falls steadily as
# the number of stimuli shrinks, for both networks. The bias-corrected one stays much closer
# to its full-set value down to 20 stimuli and drifts up below that (a ratio of two
# unbiased estimates is not itself unbiased, and it is noisy with very few stimuli). Compare
# networks or brain regions with the corrected estimate, and with enough stimuli.
layer = layers[-1]
fig, ax = plt.subplots(figsize=(6, 3.4))
sizes = [6, 10, 20, 40, len(stimuli)]
for (label, a), color in zip(acts.items(), ("0.4", "C0")):
    X = a.topo.select(layer).values
    for corrected, style in ((True, "o-"), (False, "x--")):
        means = [np.mean([participation_ratio(X[rng.choice(len(X), n, replace=False)],
                                              bias_corrected=corrected)
                          for _ in range(20 if n < len(X) else 1)]) for n in sizes]
        ax.plot(sizes, means, style, color=color,
                label=f"{label}, {'bias-corrected' if corrected else 'plain'}")
ax.set_xscale("log")
ax.set_xticks(sizes, [str(n) for n in sizes])
ax.set_xlabel("number of stimuli (random subsets, mean of 20)")
ax.set_ylabel("participation ratio")
ax.set_title(f"{layer}: estimate vs number of stimuli")
ax.legend(fontsize=8)
fig.tight_layout()
