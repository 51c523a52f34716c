"""
Quickstart: ``toponeuro map`` and what its report means
=======================================================

One command takes a topographic network, shows it the fLoc localizer images (faces, bodies,
places, characters, objects), maps where on its cortical sheets each category is preferred,
and sets those maps beside the human ventral visual cortex (the visfAtlas on fsaverage5).
From the command line::

    pip install -e .                           # in a clone of the repository
    toponeuro map                              # the shipped demo TopoNet, fLoc images 97-120
    toponeuro map --stimuli /path/to/floc --images 97-120   # offline: a local fLoc copy
    toponeuro map --model toponet_demo.v2_tau_0 --out map-tau0     # the control, for comparison

It writes a folder with ``report.html`` (everything below on one page), the figures as PNG,
``summary.json``, ``comparison.csv`` and ``results.nc`` (the selectivity maps, for your own
analyses). Here we run the same thing from Python with :func:`toponeuro.run_map` and walk
through each part of the report.

The images are the fLoc stimuli 97–120 of each category, read through the library as
``toponeuro map`` reads them (:func:`toponeuro.stimuli.load_floc`: the local copy
``$TOPONEURO_DATA/floc``, else the pinned download; see the install page). Without either
the page runs on synthetic gratings with the fLoc category names, and says so below (the
numbers then describe gratings, not faces and houses).
"""

# %%
# Run it
# ------
import json
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt

import toponeuro
from toponeuro.reporting import DEFAULT_MAP_MODEL
from toponeuro.stimuli import FLOC_CATEGORIES
from toponeuro.tutorial import data_note, tutorial_floc

stimuli = tutorial_floc(range(97, 121), [c for c in FLOC_CATEGORIES if c != "scrambled"])
out = Path(tempfile.mkdtemp()) / "toponeuro-map"
# 200 draws of each spatial null keep this page under a minute on two cores; ``toponeuro map``
# draws 1,000 (``--n-permutations``, ``--cortex-n-permutations``). The numbers below are the
# same kind, only their p-values are coarser: the smallest one-sided p is 1/201, not 1/1001.
# The settings travel as small objects (:mod:`toponeuro.settings`), recorded whole in
# ``summary.json`` under ``settings``.
from toponeuro.settings import CortexInput, NullSettings  # noqa: E402

res = toponeuro.run_map(stimuli=stimuli, out_dir=out, null=NullSettings(n_permutations=200),
                        cortex=CortexInput(n_permutations=200), verbose=1)
data_note(stimuli)

# %%
# The summary printed above is the top of the report. It says which model ran
# (:data:`toponeuro.reporting.DEFAULT_MAP_MODEL`, the shipped demo TopoNet with the strongest
# TopoLoss, unless you pick another), on which images (fLoc numbers 97–120, and whether any
# of them are among the images the model was trained on — its recipe's ``data.numbers``; a
# ``TrainingImagesWarning`` says so when they are), which layers (by default the last three
# TopoLoss layers), the patch threshold (TDANN's t ≥ 2), the significance level and the
# number of draws of the spatial nulls. Then, per layer and per domain, and for the cortex,
# the numbers explained below. Everything is in the output folder:
print(DEFAULT_MAP_MODEL, "| training images:", res.summary["stimuli"]["training_images"])
for name, path in res.files.items():
    print(f"{name:>24}  {Path(path).stat().st_size / 1e3:7.1f} kB")
summary = json.loads(Path(res.files["summary.json"]).read_text())
print(json.dumps(summary["model"], indent=1))


def show(name, width=9.0):
    """Display one of the report's PNG figures."""
    img = plt.imread(res.files[name])
    h, w = img.shape[:2]
    fig, ax = plt.subplots(figsize=(width, width * h / w), layout="constrained")
    ax.imshow(img)
    ax.set_axis_off()
    plt.show()


# %%
# 1. Selectivity maps on the sheets
# ---------------------------------
# For every unit (one per channel, responses averaged over the feature map) and every domain,
# TDANN's selectivity t (Welch-type): responses to that domain's images against the other
# four domains'. Red units prefer the domain, blue units avoid it; each layer (column) has
# its own colour scale, centred at 0 and reaching the 99th percentile of ``|t|``, so a layer with
# weaker selectivity is not washed out by a stronger one. Each unit sits at its place on the layer's sheet — the same place where
# TopoLoss pulled it toward its neighbours during training. Black contours enclose units
# with t ≥ 2 (before smoothing), the candidates for *patches*.
show("sheet_maps.png", width=7.5)

# %%
# 2. Smoothness: are neighbours alike?
# ------------------------------------
# For pairs of units, the mean absolute difference of their t values as a function of their
# distance on the sheet. If selectivity is organised in patches, near units differ less than
# far ones and the curve rises; on a salt-and-pepper sheet it is flat. The *smoothness score*
# in the table condenses each curve as TDANN does: (largest − nearest) / largest, 0 = no
# spatial structure, 1 = neighbours identical. Beside it stands its spatial null: the same
# score on the map with its units' positions shuffled (``smoothness_null_mean``,
# ``smoothness_null_std``) and the one-sided p value of the real score against it
# (``smoothness_p``).
show("smoothness_profiles.png")

# %%
# The per-layer numbers are in ``res.tables["model"]`` (also ``summary.json``): smoothness
# with its null, the patches found by TDANN's procedure (Gaussian smoothing, t ≥ 2, at least
# 10 connected units, see :func:`toponeuro.analysis.find_patches`) and how many of them are
# significant against the spatial null at ``alpha`` (``n_significant_patches``; the report
# counts only those), the fraction of units with t ≥ 2, the largest significant patch and the
# largest t.
print(res.tables["model"].round(3).to_string(index=False))

# %%
# ``res.tables["similarity"]`` compares domain maps on the sheet by their structural
# similarity (SSIM, as the TopoNets paper reports it; see :func:`toponeuro.map_similarity`),
# each ``value`` beside its *shift* null: one map moved as a whole across the sheet
# (each map in turn, half the draws each), so that each map keeps its smoothness but the
# correspondence between them is broken (``null_mean``, ``null_std``, ``p_value``). The TopoNets paper reports face and body
# maps overlapping and face and place maps apart on its models' sheets; the report sets
# beside it what the cortex maps used here show (their own faces–bodies and faces–places
# correlations with spin-test p-values). The report also gives each layer's effective
# dimensionality (how many dimensions the responses to these images spread over).
print(res.tables["similarity"].round(3).to_string(index=False))

# %%
# 3. The cortex: visfAtlas on fsaverage5
# --------------------------------------
# The same measures need cortical maps to compare with. The visfAtlas (Rosenke et al., 2021)
# outlines face-, body-, place- and character-selective regions, here on the inflated
# fsaverage5 surface seen from below (see :doc:`plot_compare_visfatlas`). It has no
# object-selective region, so objects are compared on the model side only. The atlas is a
# maximum-probability map (one label per vertex, so its 0/1 regions never overlap); the map
# measures each region continuously, as its geodesic proximity ``exp(-d / 10 mm)``. Your own
# cortical maps replace it with ``toponeuro map --cortex-maps faces=lh.gii:rh.gii,...``
# (``run_map(cortex=CortexInput(maps=...))``, :func:`toponeuro.atlases.load_cortex_maps`), and so do the
# regions of a lab's parcellation, named after ``#`` (``faces=rois.dlabel.nii#FFA`` with
# ``--cortex-threshold 0.5``).
show("cortex_rois.png")

# %%
# 4. Model vs cortex
# ------------------
# The model-vs-cortex number is the *arrangement* of the five domains: each domain's centre
# (the weighted mean position of the top 10 % of its map, whatever its patches), the
# distances between every pair of centres on the sheet, and Spearman's ρ of those against the
# geodesic distances between the same centres on the cortex. It is defined for every layer,
# and it has two nulls: the sheet's maps moved at random (cortex fixed) and the cortex's maps
# spun on the sphere (sheet fixed); it counts only if it beats both. The figure shows ρ for
# every layer and hemisphere (filled: p ≤ alpha against both nulls); the report's headline
# names the deepest layer, a rule fixed in advance.
show("comparison.png")

# %%
# For the headline layer and the left hemisphere: the centres on the sheet, on the cortex's
# flat map, and each pair's distance on one against the other. The visfAtlas has four domains
# on the left (six pairs) and three on the right (three pairs: ρ can then only be ±1 or
# ±0.5, and no p-value can be small) — read the right hemisphere as a description.
show("arrangement_left.png")

# %%
# The full comparison, every layer and hemisphere, is ``comparison.csv``:
table = res.tables["comparison"]
rows = table["metric"] == "domain_arrangement"
print(table[rows].round(3).to_string(index=False))

# %%
# Next steps
# ----------
# * Run the control (``--model toponet_demo.v2_tau_0``) and compare the two reports: the
#   difference TopoLoss makes is the point, not any single number.
# * ``--checkpoint runs/<your run>/checkpoints/epoch_006.pt`` maps a network you trained
#   yourself (:doc:`plot_train_toponet`).
# * ``res.selectivity`` (and ``results.nc``) holds the maps for your own analyses
#   (:doc:`plot_floc_selectivity`).
print(res.selectivity.sizes)
