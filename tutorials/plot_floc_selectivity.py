"""
Category selectivity maps and patches on fLoc
=============================================

The fLoc localizer (Stigliani, Weiner & Grill-Spector, 2015) shows images of five visual
domains — faces, bodies, places, characters, objects — two categories each. Contrasting one
domain against the other four gives, for every unit of a network, a selectivity t value; laid
on the cortical sheet these values form a *selectivity map*, and where a TopoNet has clustered
similar units the map shows *patches*, as the ventral temporal cortex does.

We use the demo TopoNets shipped with toponeuro (trained on fLoc images 1–96; we look at
held-out images 97–120, 24 per category). The images are the real fLoc stimuli from
``$TOPONEURO_DATA/floc`` or the pinned download, else toponeuro's synthetic gratings; the output says which ran.
"""

# %%
# Stimuli and model
# -----------------

import matplotlib.pyplot as plt
import numpy as np

import toponeuro
from toponeuro._tutorial import data_note, tutorial_floc
from toponeuro.plotting import plot_distance_profile, plot_sheet_map

categories = [c for c in toponeuro.stimuli.FLOC_CATEGORIES if c != "scrambled"]
# the local copy $TOPONEURO_DATA/floc, else the pinned download, else synthetic gratings
stimuli = tutorial_floc(range(97, 121), categories)
print(stimuli)
data_note(stimuli)  # shown on the page: real images or synthetic stand-ins

# %%
# Two shipped demo TopoNets, trained identically except for TopoLoss: τ = 50, and the control
# τ = 0 (the loss logged, not optimised).
models = {
    name: toponeuro.create_model(name, pretrained=True)
    for name in ("toponet_demo.v2_tau_50", "toponet_demo.v2_tau_0")
}
print(models["toponet_demo.v2_tau_50"].model_card.description)

# %%
# Activations and domain selectivity
# ----------------------------------
# One unit per channel (responses averaged over the feature map), on the TopoLoss layers'
# sheets. :func:`toponeuro.domain_selectivity` contrasts each domain with the other four
# (two-sample t; each fLoc category counts for its domain).
sels = {}
for name, model in models.items():
    acts = toponeuro.extract(model, stimuli, "topo", progress=False)
    sels[name] = toponeuro.domain_selectivity(acts)
sel = sels["toponet_demo.v2_tau_50"]
print(sel.sizes)
print({layer: acts.topo.sheet_shape(layer) for layer in acts.topo.layers})

# %%
# Selectivity maps with patches outlined
# --------------------------------------
# One row per domain, one column per layer, a shared colour scale centred at 0 (red: prefers
# the domain, blue: prefers the other four). Black contours enclose units with t > 3.
LAYERS = ["layer2.0.conv1", "layer3.0.conv1", "layer4.0.conv1"]
fig = plot_sheet_map(
    sel.rename("t (domain vs rest)"),
    layers=LAYERS,
    outline=3.0,
    title="toponet_demo.v2_tau_50: fLoc domain selectivity",
)

# %%
# Patches
# -------
# :func:`toponeuro.find_patches` finds connected groups of at least ``min_units`` units at or
# above a threshold (here t ≥ 3 after a light Gaussian smoothing of 0.5 unit spacings). Its
# table gives each patch's size (units and fraction of the sheet), centroid (row, col) and
# peak value.
LAYER = "layer3.0.conv1"
for domain in ("faces", "characters"):
    patches = toponeuro.find_patches(
        sel.sel(domain=domain), threshold=3.0, min_units=3, smooth_sigma=0.5, layer=LAYER
    )
    print(f"\n{domain} patches on {LAYER}: {patches.n_patches}")
    print(patches.table.round(2).to_string(index=False))

# %%
# Smoothness: TopoNet vs control
# ------------------------------
# :func:`toponeuro.smoothness` measures how much less neighbouring units differ than distant
# ones (the TDANN score: 0 = no spatial structure, 1 = neighbours identical). Its distance
# profile is the mean absolute difference of t between two units as a function of their
# distance on the sheet: a smooth map starts low and rises, a salt-and-pepper map is flat.
# :func:`toponeuro.plotting.plot_distance_profile` draws the profiles.
fig, axes = plt.subplots(1, 2, figsize=(9.5, 3.6), layout="constrained")
profiles = {
    name: toponeuro.smoothness(sels[name].sel(domain="faces"), layer=LAYER, random_state=0)
    for name in sels
}
plot_distance_profile(
    profiles,
    labels=[f"{n} (score {float(p['score']):.2f})" for n, p in profiles.items()],
    ylabel="mean |Δt| between two units",
    title=f"faces map, {LAYER}",
    ax=axes[0],
)

domains = list(sel["domain"].values)
x = np.arange(len(domains))
for k, name in enumerate(sels):
    scores = [
        float(toponeuro.smoothness(sels[name].sel(domain=d), layer=LAYER, random_state=0)["score"])
        for d in domains
    ]
    axes[1].bar(x + (k - 0.5) * 0.4, scores, 0.4, label=name)
axes[1].set_xticks(x, domains)
axes[1].set_ylabel("smoothness score")
axes[1].set_title(f"every domain, {LAYER}", fontsize=10)
axes[1].legend(fontsize=8)

# %%
# How the domain maps relate
# --------------------------
# :func:`toponeuro.map_similarity` correlates two maps across units. In the ventral temporal
# cortex face- and body-selective regions lie next to each other while place-selective
# cortex lies apart, so there the faces–bodies correlation exceeds faces–places. Bear in
# mind that this demo model was trained to tell these very categories apart, which by itself
# pushes domain maps towards negative correlations (a unit that prefers one domain responds
# less to the others).
rows = []
for layer in LAYERS:
    fb = toponeuro.map_similarity(sel.sel(domain="faces"), sel.sel(domain="bodies"), layer=layer)
    fp = toponeuro.map_similarity(sel.sel(domain="faces"), sel.sel(domain="places"), layer=layer)
    rows.append((fb, fp))
    print(f"{layer:>15}: faces-bodies r = {fb:+.2f}   faces-places r = {fp:+.2f}")

fig, ax = plt.subplots(figsize=(6, 3.2), layout="constrained")
x = np.arange(len(LAYERS))
ax.bar(x - 0.2, [r[0] for r in rows], 0.4, label="faces – bodies")
ax.bar(x + 0.2, [r[1] for r in rows], 0.4, label="faces – places")
ax.axhline(0, color="k", lw=0.8)
ax.set_xticks(x, LAYERS)
ax.set_ylabel("Pearson r across units")
ax.set_title("toponet_demo.v2_tau_50: similarity of selectivity maps")
ax.legend()
