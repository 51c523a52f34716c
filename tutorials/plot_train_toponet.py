"""
Train your own small TopoNet with TopoLoss
==========================================

TopoLoss lays each chosen layer's units on a 2-D sheet and pulls every unit's weight vector
toward a blurred copy of the sheet, so neighbouring units learn similar weights. Here we train
the same small ResNet twice on synthetic gratings — once as a control (τ = 0: the loss is
logged, not optimised) and once with τ = 50 — and look at what the loss does to the sheet.

The data are toponeuro's synthetic gratings (:func:`toponeuro.training.make_synthetic_images`),
so this runs anywhere in a few seconds.
"""

# %%
# Build the model, the data and the loss
# --------------------------------------
# ``SmallResNet`` names its layers like torchvision's ResNets; TopoLoss goes on every conv
# inside the residual blocks, as in the released TopoNets.
import matplotlib.pyplot as plt
import numpy as np
import torch

from toponeuro.models import SmallResNet, small_resnet_topo_layers
from toponeuro.topoloss import TopoLoss
from toponeuro.training import TrainSchedule, make_synthetic_images, train

data = make_synthetic_images(n_classes=4, n_per_class=32, image_size=24, random_state=0)
layers = small_resnet_topo_layers()
print(layers)

# %%
# Train a control and a TopoNet
# -----------------------------
# Both runs start from the same seeded weights and see the batches in the same order.
runs = {}
for tau in (0.0, 50.0):
    torch.manual_seed(0)
    model = SmallResNet(num_classes=4, widths=(16, 32, 32, 64))
    loss = TopoLoss.for_layers(
        model, layers, factor_h=2, factor_w=2, tau=tau if tau > 0 else None
    )
    runs[tau] = train(model, data, loss, TrainSchedule(epochs=4, batch_size=16, lr=0.05), seed=0,
                      progress=False)
    last = runs[tau].history[-1]
    print(f"tau={tau:>4}: train accuracy {last['train_accuracy']:.2f}, "
          f"mean topo loss {np.mean([v for k, v in last.items() if k.startswith('topo/')]):.3f}")

# %%
# The topo loss per layer
# -----------------------
# Lower is smoother: 0 would mean every unit's weights equal the local average of its
# neighbours'. The control keeps a high loss; the TopoNet drives it down in every layer.
fig, ax = plt.subplots(figsize=(7, 3.2))
for tau, res in runs.items():
    last = res.history[-1]
    vals = [last[f"topo/{n}"] for n in layers]
    ax.plot(range(len(layers)), vals, "o-", label=f"τ = {tau:g}")
ax.set_xticks(range(len(layers)), [n.replace(".0.", " ") for n in layers], rotation=30)
ax.set_ylabel("TopoLoss (1 − mean cosine)")
ax.set_title("Per-layer TopoLoss after training")
ax.legend()
fig.tight_layout()

# %%
# What the sheet looks like
# -------------------------
# Project every unit's weight vector of ``layer4.0.conv2`` onto the first principal component
# of the layer's weights and draw it on the sheet (8 x 8 units). Neighbouring units of the
# TopoNet share weights, so the map is smooth; the control's map is salt-and-pepper.
from toponeuro import sheet_shape  # noqa: E402

fig, axes = plt.subplots(1, 2, figsize=(7, 3.4))
for ax, (tau, res) in zip(axes, runs.items()):
    w = res.model.layer4[0].conv2.weight.detach().reshape(64, -1).numpy()
    w = w / np.linalg.norm(w, axis=1, keepdims=True)
    w = w - w.mean(0)
    pc1 = np.linalg.svd(w, full_matrices=False)[2][0]
    h, wd = sheet_shape(64)
    score = (w @ pc1).reshape(h, wd)
    lim = np.abs(score).max()
    im = ax.imshow(score, cmap="RdBu_r", vmin=-lim, vmax=lim)  # diverging, centred at 0
    ax.set_title(f"τ = {tau:g}")
    ax.set_xlabel("sheet column")
    ax.set_ylabel("sheet row")
    fig.colorbar(im, ax=ax, shrink=0.8, label="weight PC1 score")
fig.suptitle("layer4.0.conv2 weights on the cortical sheet")
fig.tight_layout()

# %%
# From the command line
# ---------------------
# The same loop runs from a recipe file, with a checkpoint after every epoch; rerunning the
# command after a crash resumes from the last complete epoch::
#
#     toponeuro train --recipe demo-smoke --out runs/demo-smoke
#     toponeuro train --list
