"""
The language main job: ``toponeuro map --language``
===================================================

:func:`toponeuro.run_language_map` (on the command line ``toponeuro map --language``) is the
language half of the main job, one composition of the library's stages:

1. the Fedorenko et al. (2010) localizer items (160 each of sentences ``S``, word lists
   ``W``, Jabberwocky ``J`` and nonword lists ``N``) read by every TopoLoss layer of a
   language model, each layer's units laid on its sheet;
2. the language-selective units as TopoLM defines them
   (:func:`toponeuro.analysis.language_selectivity`: sheet smoothing, Welch t of S vs N,
   two-sided, Benjamini-Hochberg over all layers, top-k), and their response to all four
   conditions on items they were not selected on
   (:func:`toponeuro.analysis.language_profile`);
3. the topography of each layer's S vs N map with its spatial null: Moran's I
   (:func:`toponeuro.analysis.morans_i`), smoothness and patches, and a sentence per test
   that says "beyond chance" only when that test's p-value says so;
4. the cortex's language network (the Wolna et al., 2025 parcels on fsaverage5) beside the
   sheets, with a table that says which numbers compare and which do not.

It runs here on the default model, :data:`toponeuro.reporting.DEFAULT_LANGUAGE_MODEL`, with
200 null draws instead of the default 1,000 to keep the page fast.
"""

# %%
# Run the job
# -----------
# The localizer csv is read from the cache (``$TOPONEURO_DATA``; downloaded once, sha256
# checked); ``stimuli=`` also takes a local copy of the csv. Offline without a copy this page
# runs on synthetic stand-in items and says so in the box below.
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt

import toponeuro
from toponeuro.reporting import DEFAULT_LANGUAGE_MODEL
from toponeuro.tutorial import data_note, tutorial_language_localizer

# the pinned csv (cache or download), else a synthetic stand-in: the note below says which
items = tutorial_language_localizer(160, conditions=("S", "W", "J", "N"))
data_note(items, "language-localizer items")  # shown on the page: real items or stand-ins

# %%
out = Path(tempfile.mkdtemp()) / "language-map"
from toponeuro.settings import NullSettings  # noqa: E402

res = toponeuro.run_language_map(DEFAULT_LANGUAGE_MODEL, stimuli=items, out_dir=out,
                                 null=NullSettings(n_permutations=200), verbose=1)

# %%
# What it concluded
# -----------------
# Each sentence comes from one test and its p-value. Two questions, two nulls: is the
# language contrast more clustered than contrasts of random splits of its items (the label
# null: S and N labels shuffled, the map recomputed; ``verdict``, the claim a *selective*
# topography rests on), and is the map organised on the sheet at all (the positions null:
# its values scattered over the sheet; ``organised``, nearly always so on a topographic
# sheet). The topography is measured on the t map of the *unsmoothed* activations: TopoLM's
# smoothing would make any map smooth.
for layer, r in res.summary["per_layer"].items():
    print(layer, "->", r["verdict"])
    print(" " * len(layer), "  ", r["organised"])

# %%
# The language-selective maps on the sheets
# -----------------------------------------
# The report's figures are PNG files in ``out``; here they are shown again.
for name in ("sheet_maps.png", "condition_profile.png", "cortex_parcels.png"):
    fig, ax = plt.subplots(figsize=(10, 4))
    ax.imshow(plt.imread(out / name))
    ax.set_axis_off()

# %%
# Numbers per layer, and the model beside the cortex
# --------------------------------------------------
# ``split_half_overlap`` is the Dice overlap of the top-k units selected on the odd and on
# the even items (``split_half_chance``: its value for unrelated selections).
cols = ["layer", "n_fdr_topolm", "morans_i", "morans_i_p", "smoothness_p",
        "n_significant_patches", "split_half_overlap", "split_half_chance"]
print(res.tables["model"][cols].round(3).to_string(index=False))

# %%
# The last column of the comparison says which rows can be read side by side.
print(res.tables["comparison"].to_string())

# %%
# The clustering of the S > N units, with both nulls
# --------------------------------------------------
# TopoLM also asks whether the units that prefer sentences (S > N) cluster on the sheet.
# ``"sign_clustering"`` is Moran's I of the binary map ``t > 0``: it is centred on each map's
# own fraction of S > N units, so it measures how clustered they are, not how many. Like
# every one-map statistic it is tested against both nulls: organised on the sheet
# (positions) and more clustered than random splits of the items (labels). Here it runs on
# the job's layers from the library's own stages; with six layers tested at α = 0.05, one
# pass in twenty is expected by chance alone. On the real items the S > N units are
# organised on the sheet but not more clustered than random splits' (:doc:`/metrics`).
from toponeuro.analysis import language_topography

acts = toponeuro.extract(DEFAULT_LANGUAGE_MODEL, items, list(res.summary["per_layer"]),
                         token_pooling="mean", progress=False)
topo = language_topography(acts, statistics=("sign_clustering",), n_permutations=200)
for layer, r in topo.items():
    test = r["tests"]["sign_clustering"]
    print(f"{layer}: {test.selective.outcome} (label null p = {test.labels.p_value:.3f}); "
          f"organised: {test.organised.outcome} (positions null p = {test.positions.p_value:.3f})")

# %%
# Files
# -----
# ``report.html`` holds all of this in one page; ``results.nc`` every unit's t, p and q and
# the TopoLM masks; ``summary.json`` the numbers and sentences.
print(sorted(res.files))
