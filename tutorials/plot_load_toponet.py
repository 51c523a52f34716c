"""
Load a released TopoNet
=======================

The TopoNets of Deb, Deb & Murty (ICLR 2025) are published on the Hugging Face hub. toponeuro
knows each of them by an ``arch.tag`` name, keeps a *model card* per name (where the weights
live, the TopoLoss strength τ, which layers carried the loss, licence and citation), downloads
the weights into a cache once, verifies them, and lays each TopoLoss layer's units on its 2-D
cortical sheet.

This page is built **offline**: it shows the download call and what happens without a network
(a typed error that says where to put the file by hand), continues with a randomly
initialised copy of the same architecture, and ends with the small demo TopoNets whose
weights ship inside toponeuro. The images are fLoc stimuli from ``$TOPONEURO_DATA/floc`` (or downloaded) when
that folder is present, else toponeuro's synthetic gratings; the output below says which.
"""

# %%
# Which models are there?
# -----------------------
# :func:`toponeuro.list_models` lists every registered name; a glob narrows it down.
import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # this page is built offline; delete to download

import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import toponeuro  # noqa: E402
from toponeuro.exceptions import DownloadError  # noqa: E402
from toponeuro.plotting import plot_sheet_map  # noqa: E402

print(toponeuro.list_models("toponet_*"))

# %%
# The model card
# --------------
# Everything toponeuro knows about a name, without downloading anything.
card = toponeuro.model_card("toponet_resnet18.tau_5")
print("hub repository :", card.hub_repo)
print("file           :", card.filename, "->", card.url)
print("sha256         :", card.sha256 or "not published (computed and recorded on load)")
print("TopoLoss tau   :", card.tau)
print("input          :", f"{card.input_size} px, mean {card.mean}, std {card.std}")
print("topo layers    :", len(card.topo_layers), "convs, e.g.", card.topo_layers[:3])
print("licence        :", card.license)
print("citation       :", card.citation)

# %%
# Download (or not) the released weights
# --------------------------------------
# ``pretrained=True`` fetches the file into the cache, verifies it and loads it safely (only
# tensors are unpickled). The cache root is ``$TOPONEURO_DATA`` (else ``~/.cache/toponeuro`` on
# Linux); hub files land in ``<cache>/hf/<hub repo>/<file>`` and later calls use the copy
# there without going online. Without a network the call raises
# :class:`~toponeuro.exceptions.DownloadError` (also a ``ConnectionError``), whose message
# says where to put a copy fetched by hand:
try:
    model = toponeuro.create_model("toponet_resnet18.tau_5", pretrained=True)
    print("loaded; sha256 of the weights file:", model.weights_sha256)
except DownloadError as err:
    print(f"{type(err).__name__}: {err}")

# %%
# A file you already have: ``checkpoint=``
# ----------------------------------------
# A checkpoint copied by hand (or one you trained) loads with ``checkpoint=PATH``. A file
# named like the released one is checked against the card's sha256 when one is published;
# any other file is taken as your own checkpoint and its digest recorded. Key prefixes from
# ``torch.compile``/``DataParallel`` are stripped, and a file of another architecture is
# refused with a :class:`~toponeuro.exceptions.CheckpointError` naming the missing keys.
# To keep this page offline, the "downloaded" file here is a freshly initialised ResNet-18
# saved to a temporary folder — a stand-in, not the released weights.
import torch  # noqa: E402

stand_in = Path(tempfile.mkdtemp()) / "all_topo_tau_5.0.pt"
torch.save(toponeuro.create_model("resnet18").state_dict(), stand_in)
model = toponeuro.create_model("toponet_resnet18.tau_5", checkpoint=stand_in)
print(type(model).__name__, "| weights sha256:", model.weights_sha256[:16], "...")

# %%
# Activations on the sheet
# ------------------------
# :func:`toponeuro.extract` runs images through the model and returns an
# ``xarray.DataArray`` with dims ``("stimulus", "unit")``; every unit carries its ``layer``,
# ``channel`` and its ``row``/``col`` on that layer's sheet. ``layers="topo"`` takes the
# card's TopoLoss layers. Two images per domain are enough to show the layout.
from toponeuro.tutorial import data_note, tutorial_floc  # noqa: E402

# the local copy $TOPONEURO_DATA/floc, else the pinned download, else synthetic gratings
stimuli = tutorial_floc([1, 2], ["adult", "body", "house", "word", "car"])
print(stimuli)
data_note(stimuli)  # shown on the page: real images or synthetic stand-ins

# %%
acts = toponeuro.extract(model, stimuli, "topo", progress=False)
print(acts.sizes, "| layers:", len(acts.topo.layers))
print("sheet of layer4.1.conv2 (rows, cols):", acts.topo.sheet_shape("layer4.1.conv2"))

# %%
# ``acts.topo.map(layer)`` lays one layer's units on its sheet: dims ``(stimulus, row, col)``.
sheet = acts.topo.map("layer4.1.conv2")
print(sheet.dims, sheet.shape)

fig, axes = plt.subplots(1, 5, figsize=(11, 2.4), sharey=True, layout="constrained")
images = sheet.isel(stimulus=slice(0, None, 2))  # one image per category
lim = float(np.abs(images - images.mean("stimulus")).max())
for ax, img in zip(axes, images):
    im = ax.imshow(img - images.mean("stimulus"), cmap="RdBu_r", vmin=-lim, vmax=lim)
    ax.set_title(str(img["stimulus_id"].values), fontsize=9)
    ax.set_xlabel("sheet column")
axes[0].set_ylabel("sheet row")
fig.colorbar(im, ax=axes, shrink=0.85, label="response − image mean")
fig.suptitle("layer4.1.conv2 on its 16 × 32 sheet (random weights)")
plt.show()

# %%
# :func:`toponeuro.plotting.plot_sheet_map` draws any per-unit value on each layer's sheet
# with one shared, zero-centred colour scale. With random weights neighbouring units are
# unrelated, so the maps are salt-and-pepper; a trained TopoNet's maps are smooth.
mean = acts.mean("stimulus")
resp = mean.groupby("layer").map(lambda m: (m - m.mean()) / m.std())  # z within each layer
fig = plot_sheet_map(
    resp.rename("mean response (z within layer)"),
    layers=["layer1.0.conv1", "layer2.0.conv1", "layer3.0.conv1", "layer4.0.conv1"],
    title="Mean response over the 10 images, per unit",
)

# %%
# The shipped demo TopoNets
# -------------------------
# Small TopoNets trained on CPU on fLoc images ship inside the package (no download, sha256
# recorded on their cards): ``toponet_demo.v2_tau_*`` (instance discrimination over fLoc
# images 1-96, two seeds per τ; τ = 0 is the control trained without TopoLoss) take 32-px
# images, and ``toponeuro map`` uses ``toponet_demo.v2_tau_50`` by default. The first demo
# models (``toponet_demo.tau_*``) stay loadable; their cards name the v2 model that
# supersedes them.
from toponeuro.analysis import correlation_profile  # noqa: E402
from toponeuro.plotting import plot_distance_profile  # noqa: E402

demo_names = [n for n in toponeuro.list_models("toponet_demo.v2_tau_*") if "_seed" not in n]  # seed 0
print(demo_names)
profiles = {}
for name in demo_names:
    demo = toponeuro.create_model(name, pretrained=True)
    print(f"{name}: tau = {demo.model_card.tau:g}, weights sha256 {demo.weights_sha256[:16]} ...")
    demo_acts = toponeuro.extract(demo, stimuli, "topo", progress=False)
    profiles[name] = correlation_profile(demo_acts, layer="layer3.0.conv1", random_state=0)

# %%
# What TopoLoss does to the sheet shows in how alike neighbouring units respond: the
# correlation (across the 10 images) of two units' responses as a function of their distance
# on the sheet (:func:`toponeuro.analysis.correlation_profile`). Without TopoLoss it is flat
# near zero; the stronger τ, the more adjacent units respond alike.
fig = plot_distance_profile(
    profiles,
    ylabel="response correlation (r)",
    title="layer3.0.conv1 of the demo TopoNets",
)
fig.axes[0].axhline(0, color="k", lw=0.6)
plt.show()
