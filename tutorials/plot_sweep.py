"""
Layer × region sweeps
=====================

Which layer of a network best matches which brain region? :func:`toponeuro.analysis.sweep`
scores every layer of every model against every region (and subject) with RSA or an
encoding model and returns one tidy table; :func:`toponeuro.plotting.plot_sweep` draws it as
a layer × region heatmap per model.

We sweep the two demo TopoNets shipped with toponeuro (``toponet_demo.v2_tau_0``, the control,
and ``toponet_demo.v2_tau_50``) over synthetic brain regions whose answer we know: each region
is driven by one layer of the control network.
"""

# %%
# Stimuli, activations and planted regions
# ----------------------------------------
# 110 fLoc images (10 per category) from ``$TOPONEURO_DATA/floc`` or the pinned download, else synthetic images.
# :func:`toponeuro.extract` with ``store=`` caches the activations on disk: the sweeps below
# extract the same (model, stimuli, layers) and read them back instead of recomputing.
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import xarray as xr

import toponeuro
from toponeuro.analysis import sweep
from toponeuro.brain import make_brain_responses
from toponeuro.plotting import plot_sweep
from toponeuro.tutorial import data_note, tutorial_floc

# the local copy $TOPONEURO_DATA/floc, else the pinned download, else synthetic gratings
stimuli = tutorial_floc(range(1, 11))
print(stimuli)
data_note(stimuli)  # shown on the page: real images or synthetic stand-ins

# %%
store = Path(tempfile.mkdtemp(prefix="toponeuro_sweep_"))
control = toponeuro.extract("toponet_demo.v2_tau_0", stimuli, "topo", store=store, progress=False)
print(control.topo.layers)

# %%
# Three regions are each a noisy linear read-out of one layer of the control network —
# "early" of ``layer1.0.conv2``, "middle" of ``layer3.0.conv1``, "late" of
# ``layer4.0.conv2`` — and a fourth, "noise", responds to nothing. Two subjects with 30
# voxels per region each, with their own read-out weights and noise.
PLANT = {"early": "layer1.0.conv2", "middle": "layer3.0.conv1", "late": "layer4.0.conv2",
         "noise": None}
rng = np.random.default_rng(0)
parts = []
for subject in ("sub-01", "sub-02"):
    for roi, layer in PLANT.items():
        y = 1.5 * rng.standard_normal((len(stimuli), 30))
        if layer is not None:
            f = control.topo.select(layer).values
            f = (f - f.mean(0)) / (f.std(0) + 1e-8)
            y += f @ rng.standard_normal((f.shape[1], 30)) / np.sqrt(f.shape[1])
        parts.append(make_brain_responses(y, control.stimulus_id.values, subject=subject,
                                          roi=roi, xyz=rng.uniform(-50, 50, (30, 3))))
responses = xr.concat(parts, dim="voxel")
print(responses.sizes)

# %%
# An RSA sweep
# ------------
# Models are given by name, with the stimuli: ``sweep`` extracts them itself (here from the
# cache). ``layers=None`` means every TopoLoss layer of each model. For each (model, layer,
# subject, region) the layer's RDM is compared with the region's (correlation distance,
# Spearman comparison).
models = ["toponet_demo.v2_tau_0", "toponet_demo.v2_tau_50"]
rsa = sweep(models, None, responses, "rsa", stimuli=stimuli, store=store, progress=False)
print(rsa.head(6).to_string())
print(f"{len(rsa)} rows = 2 models x 8 layers x 2 subjects x 4 regions")

# %%
# The table is ready for pandas: average the subjects and find each region's best layer.
best = (rsa.groupby(["model", "roi", "layer"], sort=False).score.mean().reset_index()
        .sort_values("score").groupby(["model", "roi"]).tail(1).sort_values(["model", "roi"]))
print(best.to_string(index=False))

# %%
# ``plot_sweep`` draws one panel per model with a shared colour scale, layers in network
# order, subjects averaged (the colour bar says so). Each planted region peaks at or near
# its source layer in the control network; neighbouring layers score high too, because
# their representations are similar. The τ = 50 network, which never produced these
# responses, shows the same progression from early to late layers. The noise region
# scores about zero everywhere.
fig = plot_sweep(rsa, regions=list(PLANT), title="RSA: Spearman ρ between layer and region RDMs")

# %%
# An encoding sweep
# -----------------
# ``method="encoding"`` fits a cross-validated ridge encoding model per voxel (alpha chosen
# by inner cross-validation) and reports the mean score over each region's voxels. Here the
# encoding models are fitted on the 110 stimuli with 5-fold cross-validation.
enc = sweep(models, None, responses, "encoding", stimuli=stimuli, store=store, cv=5,
            random_state=0, progress=False)

# %%
# The encoding map is flatter than the RSA map: a linear read-out of one layer can largely be
# re-learned from its neighbours, so many layers predict each region well. RSA fits no
# weights and separates the layers more sharply. The noise region stays at zero with both.
fig = plot_sweep(enc, regions=list(PLANT),
                 title="Encoding: mean cross-validated Pearson r per region")

# %%
# One model into an existing axes
# --------------------------------
# ``ax=`` draws a single model's panel into your own figure, for example next to the RSA
# result of the same model.
fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), layout="constrained")
plot_sweep(rsa, models="toponet_demo.v2_tau_0", regions=list(PLANT), ax=axes[0], center=None,
           cmap="viridis", colorbar_label="RSA (Spearman ρ)")
plot_sweep(enc, models="toponet_demo.v2_tau_0", regions=list(PLANT), ax=axes[1], center=None,
           cmap="viridis", colorbar_label="encoding (Pearson r)")
fig.suptitle("toponet_demo.v2_tau_0: two methods")
plt.show()
