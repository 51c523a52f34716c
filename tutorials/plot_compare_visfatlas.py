"""
Compare a model sheet with the visfAtlas on fsaverage5
======================================================

The visfAtlas (Rosenke et al., 2021) marks the face-, body-, place- and character-selective
regions of human occipito-temporal cortex (and motion and retinotopic areas), drawn from the
fMRI of many people. Here we put it on the fsaverage5 cortical surface, look at where each
domain lies, and ask whether a TopoNet's category-selective patches are arranged on its
sheet the way these regions are arranged on the cortex.

The atlas volume ships with toponeuro (no download); projecting it onto fsaverage5 takes a
few seconds once and is cached. The model is the shipped demo TopoNet
``toponet_demo.v2_tau_50``; its selectivity maps come from fLoc images in ``$TOPONEURO_DATA/floc`` (or downloaded) when
present, else from toponeuro's synthetic gratings (the output says which).
"""

# %%
# The atlas on fsaverage5
# -----------------------
# :func:`toponeuro.load_visfatlas` returns an :class:`~toponeuro.atlases.Atlas`: one integer
# label per vertex (20,484 vertices: the left hemisphere's 10,242, then the right's) and a
# tidy label table naming each label's ROI, hemisphere and functional domain.

import matplotlib.pyplot as plt
import numpy as np

import toponeuro
from toponeuro.atlases import cortex_maps, vertex_coordinates
from toponeuro.plotting import DOMAIN_COLORS, plot_arrangement, plot_surface_map

atlas = toponeuro.load_visfatlas(space="fsaverage5")
print(atlas)
print(atlas.labels.head(10).to_string(index=False))
print("\nROIs per domain (both hemispheres):")
print(atlas.labels.groupby("domain")["name"].agg(lambda n: " ".join(sorted(set(n)))))

# %%
# ROI masks by domain
# -------------------
# ``atlas.mask(domain=..., hemi=...)`` is a boolean map over the vertices; ``atlas.hemi``
# and ``atlas.vertex`` say which hemisphere and which within-hemisphere vertex each entry is.
DOMAINS = ["faces", "bodies", "places", "characters"]
for domain in DOMAINS:
    counts = {h: int(atlas.mask(domain=domain, hemi=h).sum()) for h in ("left", "right")}
    print(f"{domain:>10}: {counts['left']:4d} vertices left, {counts['right']:4d} right")

# %%
# Where the domains lie
# ---------------------
# :func:`toponeuro.plotting.plot_surface_map` draws a map on the fsaverage5 surface, both
# hemispheres side by side. The ventral view of the inflated surface shows the
# occipito-temporal cortex from below (anterior up, occipital pole down); sulci are dark.
# With ``labels=`` the values are region labels drawn in one colour each.
domain_map = np.zeros(atlas.data.shape, int)
for k, domain in enumerate(DOMAINS, start=1):
    domain_map[atlas.mask(domain=domain)] = k
fig = plot_surface_map(
    domain_map,
    labels=dict(enumerate(DOMAINS, start=1)),
    view="ventral",
    title="visfAtlas domains, inflated fsaverage5, ventral view",
)
colors = [DOMAIN_COLORS[d] for d in DOMAINS]

# %%
# Vertex coordinates: inflated and flat
# -------------------------------------
# Distances on the cortex are measured along its surface. toponeuro gives the fsaverage5
# vertex coordinates of each mesh (:func:`toponeuro.atlases.vertex_coordinates`): the
# ``"inflated"`` mesh (3-D, mm) and the ``"flat"`` map (2-D, mm; the cortex cut open and laid
# flat), which is the 2-D analogue of a model's sheet. Below, the left hemisphere's flat map
# with the domain ROIs.
flat = vertex_coordinates("flat", "left")[:, :2]
inflated = vertex_coordinates("inflated", "left")
print("inflated:", inflated.shape, "flat:", flat.shape)
left = atlas.hemi == "left"
fig, ax = plt.subplots(figsize=(6.4, 5), layout="constrained")
ax.scatter(*flat.T, s=1, c="0.85", rasterized=True)
for k, domain in enumerate(DOMAINS):
    m = atlas.mask(domain=domain)[left]
    ax.scatter(*flat[m].T, s=4, color=colors[k], label=domain, rasterized=True)
ax.set_aspect("equal")
ax.set_xlabel("flat-map x (mm)")
ax.set_ylabel("flat-map y (mm)")
ax.set_title("Left hemisphere, flat fsaverage5: visfAtlas domains")
ax.legend(markerscale=4, loc="upper right")
plt.show()

# %%
# A model's selectivity maps
# --------------------------
# As in :doc:`plot_floc_selectivity`: domain-vs-rest t maps of the demo TopoNet on held-out
# fLoc images (97–120, 24 per category).
from toponeuro.tutorial import data_note, tutorial_floc

categories = [c for c in toponeuro.stimuli.FLOC_CATEGORIES if c != "scrambled"]
# the local copy $TOPONEURO_DATA/floc, else the pinned download, else synthetic gratings
stimuli = tutorial_floc(range(97, 121), categories)
print(stimuli)
data_note(stimuli)  # shown on the page: real images or synthetic stand-ins

# %%
MODEL = "toponet_demo.v2_tau_50"
model = toponeuro.create_model(MODEL, pretrained=True)
LAYER = "layer4.0.conv1"
acts = toponeuro.extract(model, stimuli, [LAYER], progress=False)
sel = toponeuro.domain_selectivity(acts)

# %%
# Compare the topographies
# ------------------------
# :func:`toponeuro.atlases.cortex_maps` turns the atlas into what the comparison needs, the
# same way ``toponeuro map`` does: per hemisphere, one 0/1 map per domain over its vertices,
# with the flat-map coordinates as positions and the inflated mesh's edges as neighbours
# (``.geometry``). Each side then gets its topography table
# (:func:`toponeuro.analysis.topography_table`: every statistic measured once, with its null),
# and :func:`toponeuro.analysis.compare_tables` puts one layer beside one hemisphere, the
# same two calls ``toponeuro map`` makes; ``threshold=0.5`` without smoothing makes each ROI a
# patch. Model patches here are looser than TDANN's
# procedure (the defaults of :func:`toponeuro.find_patches`: smoothing by TDANN's 2.4 mm scaled
# to the sheet, t ≥ 2, at least 10 connected units): t ≥ 3 after a light smoothing (0.5 unit
# spacings), at least 3 units. On this demo's 16 × 16 sheet TDANN's 10-unit minimum leaves only
# two domains with a patch, too few to compare arrangements; drop the three settings to get
# TDANN's. Each patch still gets its p value. ``n_permutations`` adds the spatial null of
# every per-map statistic (rows ``smoothness_p``, ``n_significant_patches``,
# ``map_similarity_p``); 200 draws keep this page fast (``toponeuro map`` uses 1,000 for the
# model). The cortex's maps are the atlas's binary ROIs, smooth and patchy by construction,
# so their smoothness and patches get no null (as in ``toponeuro map``); their map
# similarities get the spin test (``similarity_permutations``).
from toponeuro.analysis import compare_tables, topography_table

left_cortex = cortex_maps(atlas, DOMAINS, hemispheres=["left"])["left"]
cortex_topo = topography_table({"left": left_cortex}, threshold=0.5, smooth_sigma=0.0,
                               min_units=10, n_permutations=0, similarity_permutations=200,
                               random_state=0)
model_settings = dict(threshold=3.0, smooth_sigma=0.5, min_units=3, n_permutations=200,
                      random_state=0)
model_topo = topography_table(sel.sel(domain=DOMAINS), layers=LAYER, **model_settings)
table = compare_tables(model_topo, LAYER, cortex_topo, "left")
print(table.round(3).to_string())

# %%
# Reading the table
# -----------------
# * ``smoothness`` (per domain, TDANN's score): 0 = no spatial structure, 1 = neighbours
#   identical; ``smoothness_p`` is its one-sided p against maps with the points' positions
#   shuffled. The cortex column describes binary ROI maps, which are smooth by construction;
#   what matters is the model's value and its p (compare the τ = 0 control in
#   :doc:`plot_floc_selectivity`).
# * ``n_patches``, ``mean_patch_fraction``, ``total_patch_fraction``: how many separate
#   patches each domain forms, and the share of the sheet (model) or of the hemisphere's
#   vertices (cortex) that one patch, and all of them, cover; ``n_significant_patches``
#   counts those beyond the spatial null (p ≤ 0.05). A domain with no patch drops out of the
#   arrangement comparison.
# * ``map_similarity`` (faces–bodies, faces–places): on the model sheet the structural
#   similarity (SSIM) of the two domains' maps, with ``map_similarity_p`` from the shift null
#   (one map moved as a whole across the sheet); on the cortex, where SSIM has no standard
#   definition, the Pearson correlation across vertices (see :doc:`/metrics`). The cortex's
#   ROIs do not overlap, so for binary ROI maps these are close to 0 by construction; on t
#   maps from fMRI faces are more similar to bodies than to places.
# * ``arrangement_spearman``: take the centroid of each domain's largest patch; compute every
#   pairwise distance between the domains on the sheet and on the flat cortex; rank-correlate
#   the two lists. +1 means the domains are laid out in the same order of nearness, 0
#   unrelated, −1 reversed. ``arrangement_n_regions`` says how many domains had a patch on
#   both sides: with four there are only six distances (with three, three), so this is a
#   coarse number.
# * ``arrangement_procrustes``: the disparity left after the best translation, rotation,
#   reflection and scaling of the model's centroids onto the cortex's (0 = the same shape,
#   1 = unrelated). With three points any two triangles of similar shape fit well, so read
#   it together with the number of regions.
rho = float(table.loc[("arrangement_spearman", "centroids"), "model_vs_cortex"])
proc = float(table.loc[("arrangement_procrustes", "centroids"), "model_vs_cortex"])
print(f"{MODEL}: arrangement Spearman rho = {rho:+.2f}, Procrustes disparity = {proc:.2f}")

# %%
# The patch-centroid numbers above need a patch on both sides, so they are often undefined.
# The ``domain_arrangement`` rows (:func:`toponeuro.analysis.arrangement_comparison`, the
# number ``toponeuro map`` reports for every layer) use every domain's whole map instead:
# each domain's centre is the weighted mean position of its map's top 10 % of points, the
# centre distances on the sheet are rank-correlated with the geodesic ones on the cortex, and
# two nulls (sheet maps shifted, cortex maps spun on the sphere) give ``p_shift`` and
# ``p_spin``; ``p_value`` is the larger (see :doc:`/metrics`).
print(table.loc["domain_arrangement", "model_vs_cortex"].round(3).to_string())

# %%
# With three domains a perfect rank correlation happens by chance one time in six (3! orders
# of the three distances), and four domains give only six distances, so a single number says
# little. A reference point is the same comparison for the control
# network trained without TopoLoss (τ = 0):
control = toponeuro.create_model("toponet_demo.v2_tau_0", pretrained=True)
control_sel = toponeuro.domain_selectivity(
    toponeuro.extract(control, stimuli, [LAYER], progress=False)
)
control_topo = topography_table(control_sel.sel(domain=DOMAINS), layers=LAYER, **model_settings)
control_table = compare_tables(control_topo, LAYER, cortex_topo, "left")
rows = ["arrangement_spearman", "arrangement_procrustes", "arrangement_n_regions"]
print(control_table.loc[rows, "model_vs_cortex"].round(2).to_string())

# %%
# The centroids themselves (``table.attrs``) show what was compared;
# :func:`toponeuro.plotting.plot_arrangement` draws them on the sheet and on the flat cortex.
fig = plot_arrangement(
    table.attrs["model_centroids"],
    table.attrs["cortex_centroids"],
    sheet_shape=acts.topo.sheet_shape(LAYER),
    spearman=rho,
    procrustes=proc,
    model_label=f"model sheet ({LAYER})",
    cortex_label="left hemisphere, flat cortex",
)
