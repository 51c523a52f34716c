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
from toponeuro.plotting import plot_distance_profile, plot_sheet_map
from toponeuro.tutorial import data_note, tutorial_floc

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
# sheets. :func:`toponeuro.domain_selectivity` contrasts each domain with the other four with
# TDANN's statistic (Welch-type t, each fLoc category counting for its domain, scrambled
# images left out); ``sel.attrs["method"]`` says so.
sels = {}
for name, model in models.items():
    acts = toponeuro.extract(model, stimuli, "topo", progress=False)
    sels[name] = toponeuro.domain_selectivity(acts)
sel = sels["toponet_demo.v2_tau_50"]
print(sel.sizes)
print(sel.attrs["method"])
print({layer: acts.topo.sheet_shape(layer) for layer in acts.topo.layers})

# %%
# Selectivity maps with patches outlined
# --------------------------------------
# One row per domain, one column per layer, a shared colour scale centred at 0 (red: prefers
# the domain, blue: prefers the other four). Black contours enclose units with t ≥ 2, TDANN's
# patch threshold (``toponeuro.analysis.TDANN_PATCHES``).
LAYERS = ["layer2.0.conv1", "layer3.0.conv1", "layer4.0.conv1"]
fig = plot_sheet_map(
    sel.rename("t (domain vs rest)"),
    layers=LAYERS,
    outline=toponeuro.analysis.TDANN_PATCHES["threshold"],
    title="toponet_demo.v2_tau_50: fLoc domain selectivity",
)

# %%
# Patches
# -------
# :func:`toponeuro.find_patches` follows TDANN: the map is smoothed with a Gaussian (TDANN's
# 2.4 mm on its 70 mm sheet, scaled to this sheet's unit spacing), thresholded at t ≥ 2, and
# its connected groups of at least 10 units within TDANN's area limits are patches. Each
# patch gets a p value from the spatial null (the largest cluster mass on maps with the units'
# positions shuffled, as in fMRI cluster inference); ``.significant`` keeps the patches with
# p ≤ ``alpha`` (0.05). The table gives each patch's size (units and fraction of the sheet),
# centroid (row, col), peak value and p value.
LAYER = "layer3.0.conv1"
for domain in ("faces", "characters"):
    patches = toponeuro.find_patches(sel.sel(domain=domain), layer=LAYER, random_state=0)
    print(f"\n{domain} patches on {LAYER}: {patches.n_patches} found, "
          f"{patches.significant.n_patches} significant at p <= {patches.alpha}")
    print(patches.table.round(3).to_string(index=False))

# %%
# Smoothness: TopoNet vs control
# ------------------------------
# :func:`toponeuro.smoothness` measures how much less neighbouring units differ than distant
# ones (the TDANN score: 0 = no spatial structure, 1 = neighbours identical). With
# ``n_permutations`` it stands beside its spatial null: the same score on maps whose units'
# positions are shuffled (``null_mean``, ``null_std``) and the one-sided ``p_value`` of the
# real score (without, these are NaN). Its distance profile is the
# mean absolute difference of t between two units as a function of their distance on the
# sheet: a smooth map starts low and rises, a salt-and-pepper map is flat.
# :func:`toponeuro.plotting.plot_distance_profile` draws the profiles.
fig, axes = plt.subplots(1, 2, figsize=(9.5, 3.6), layout="constrained")
profiles = {
    name: toponeuro.smoothness(sels[name].sel(domain="faces"), layer=LAYER,
                               n_permutations=1000, random_state=0)
    for name in sels
}
for name, prof in profiles.items():
    print(f"{name}: faces smoothness {float(prof['score']):.3f}, null "
          f"{float(prof['null_mean']):.3f} ± {float(prof['null_std']):.3f}, "
          f"p = {float(prof['p_value']):.3f}")
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
plt.show()

# %%
# How the domain maps relate
# --------------------------
# :func:`toponeuro.map_similarity` compares two maps on the sheet by their structural
# similarity (SSIM, Wang et al. 2004: local means, contrasts and correlations in a sliding
# window), the measure the TopoNets paper reports; see :doc:`/metrics`. Beside each value
# stands its *shift* null: one map moved as a whole across the sheet (shifts within the
# sheet and its mirror images; each map in turn, half the draws each), so that each map
# keeps its own smoothness but the correspondence between them is broken; ``p_value``
# (two-sided) asks whether the two maps are more or less alike than that, and
# :func:`toponeuro.analysis.overlap_verdict` says it in words. In the ventral
# temporal cortex face- and body-selective regions lie next to each other while
# place-selective cortex lies apart, so there faces–bodies is the more similar pair. These
# demo models were trained by instance discrimination (each training image its own class),
# never told the categories, so any domain structure in their maps they found themselves.
# Read each SSIM against its null: a value near the null's mean (p well above 0.05) is what
# two unrelated maps of this smoothness give; in the figure a bar must rise above its black
# tick (the null's 95th percentile) to count.
rows = []
for layer in LAYERS:
    row = []
    for other in ("bodies", "places"):
        res = toponeuro.map_similarity(sel.sel(domain="faces"), sel.sel(domain=other),
                                       layer=layer, random_state=0)
        row.append(res)
        print(f"{layer:>15}: faces-{other:<6} SSIM = {res.statistic:+.2f}  (shift null "
              f"{res.null.mean():+.2f} ± {res.null.std():.2f}, p = {res.p_value:.3f})")
    rows.append(row)

fig, ax = plt.subplots(figsize=(6, 3.2), layout="constrained")
x = np.arange(len(LAYERS))
for k, label in enumerate(("faces – bodies", "faces – places")):
    ax.bar(x + (k - 0.5) * 0.4, [r[k].statistic for r in rows], 0.4, label=label)
    null_hi = [np.percentile(r[k].null, 95) for r in rows]
    ax.scatter(x + (k - 0.5) * 0.4, null_hi, marker="_", s=200, color="k",
               label="95th percentile of the shift null" if k == 0 else None)
ax.axhline(0, color="k", lw=0.8)
ax.set_xticks(x, LAYERS)
ax.set_ylabel("SSIM")
ax.set_title("toponet_demo.v2_tau_50: similarity of selectivity maps")
ax.legend(fontsize=8)
plt.show()
