"""
Exporting and scoring with Brain-Score
======================================

`Brain-Score <https://www.brain-score.org>`_ compares models with primate neural and
behavioural data on a common leaderboard. A model enters it as a *plugin*: a small folder
that builds the network and says which layer stands for which visual area.
:func:`toponeuro.brainscore.export_plugin` writes that folder (and the zip the website
takes) for a TopoNet; :func:`toponeuro.brainscore.score_with_brainscore` (CLI:
``toponeuro brainscore score``) runs brainscore-vision's own code on your stimuli and brain
responses, so what you submit is what you tested.

Brain-Score needs its own Python environment (it pins numpy < 2), which this documentation
build does not create: the export runs here; the scoring runs only when
``TOPONEURO_BRAINSCORE_PYTHON`` points at such an environment, and is otherwise shown as
code.
"""

# %%
# Export a plugin
# ---------------
# We export the demo TopoNet ``toponet_demo.v2_tau_50`` shipped with toponeuro. Its weights are
# a file inside the package; a plugin downloads its weights when Brain-Score loads it and
# checks their sha256, so we give a ``file://`` URL here (for a submission, upload the
# weights somewhere public and pass ``weights_url="https://..."``).
#
# The region → layer map commits a layer to each of Brain-Score's regions (V1, V2, V4, IT).
# :func:`~toponeuro.brainscore.propose_region_layer_map` proposes one from the model card
# (the last block of each ResNet stage); regions you give override it.
import importlib.resources
import json
import os
import tempfile
import zipfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

import toponeuro
from toponeuro.brainscore import (
    export_plugin,
    propose_region_layer_map,
    write_brainscore_benchmark,
)

NAME = "toponet_demo.v2_tau_50"
card = toponeuro.model_card(NAME)
print("proposed:", propose_region_layer_map(card))

weights = importlib.resources.files("toponeuro.models") / "weights" / f"{NAME}.pt"
out = Path(tempfile.mkdtemp(prefix="toponeuro_brainscore_"))
plugin = export_plugin(NAME, out, region_layer_map={"IT": "layer4.0.conv2"}, make_zip=True,
                       weights_url=Path(str(weights)).resolve().as_uri())
print(plugin.identifier, "->", plugin.path.relative_to(out))
print("weights sha256:", plugin.weights_sha256[:16], "...")

# %%
# The plugin folder. ``__init__.py`` registers the model under its identifier,
# ``model.py`` builds the network inside Brain-Score's ``PytorchWrapper`` with the card's
# input size and normalisation, ``toponet_arch.py`` holds the architecture code (the plugin
# does not import toponeuro), ``test.py`` holds offline tests Brain-Score runs on
# submission, and ``toponeuro_export.json`` records provenance.
for p in sorted(plugin.path.rglob("*")):
    if p.is_file():
        print(f"{str(p.relative_to(plugin.path)):45s} {p.stat().st_size:>7,d} bytes")

# %%
# The region → layer map Brain-Score's ``ModelCommitment`` will use instead of running its
# own layer selection:
rlm = plugin.path / "region_layer_map" / f"{plugin.identifier}.json"
print(json.dumps(json.loads(rlm.read_text()), indent=2))

# %%
# The zip is what brain-score.org's submission form takes: one root folder holding
# ``models/<identifier>/``.
with zipfile.ZipFile(plugin.zip_path) as z:
    names = z.namelist()
print(plugin.zip_path.name, f"({plugin.zip_path.stat().st_size:,d} bytes)")
print("\n".join(names))

# %%
# Your data as a Brain-Score benchmark
# ------------------------------------
# To score the plugin on your own data, toponeuro writes the stimuli and responses as plain
# files that Brain-Score's ``StimulusSet`` and ``NeuroidAssembly`` are built from on the
# other side (nothing is pickled between the two environments).
#
# Here: 55 fLoc images (5 per category, from ``$TOPONEURO_DATA/floc`` or the pinned download, else synthetic
# images) and synthetic "IT" voxels that read out the committed IT layer linearly, plus
# noise, each stimulus shown twice so Brain-Score can compute its split-half ceiling.
from toponeuro.brain import make_brain_responses  # noqa: E402
from toponeuro.tutorial import data_note, tutorial_floc  # noqa: E402

# the local copy $TOPONEURO_DATA/floc, else the pinned download, else synthetic gratings
stimuli = tutorial_floc(range(1, 6))
print(stimuli)
data_note(stimuli)  # shown on the page: real images or synthetic stand-ins

# %%
acts = toponeuro.extract(NAME, stimuli, [plugin.region_layer_map["IT"]], progress=False)
rng = np.random.default_rng(0)
f = acts.values - acts.values.mean(0)
signal = f @ rng.standard_normal((f.shape[1], 40)) / np.sqrt(f.shape[1]) / f.std()
trials = np.concatenate([signal + 0.7 * rng.standard_normal(signal.shape) for _ in range(2)])
ids = np.tile(acts.stimulus_id.values, 2)
responses = make_brain_responses(trials, ids, roi="IT", xyz=rng.uniform(-40, 40, (40, 3)))
bench = write_brainscore_benchmark(stimuli, responses, out / "benchmark", regions="IT")
print(sorted(p.name for p in bench.iterdir()))

fig, ax = plt.subplots(figsize=(5, 3.4))
ax.scatter(trials[: len(stimuli)].ravel(), trials[len(stimuli):].ravel(), s=3, alpha=0.4)
r = np.corrcoef(trials[: len(stimuli)].ravel(), trials[len(stimuli):].ravel())[0, 1]
ax.set_xlabel("response, repetition 1 (a.u.)")
ax.set_ylabel("response, repetition 2 (a.u.)")
ax.set_title(f"Synthetic IT voxels: repeat reliability r = {r:.2f}")
fig.tight_layout()

# %%
# Scoring with brainscore-vision
# ------------------------------
# Build Brain-Score's environment once (``bash .ci/brainscore.sh`` creates
# ``.venv-brainscore`` with brainscore-vision 2.4.2, numpy 1.26, xarray 2022.3 and
# scikit-learn 1.7.2), then point toponeuro at it and score:
#
# .. code-block:: console
#
#     $ export TOPONEURO_BRAINSCORE_PYTHON=$PWD/.venv-brainscore/bin/python
#     $ toponeuro brainscore score --plugin out/models/<identifier> \
#           --benchmark out/benchmark --metrics pls,ridge,rdm
#
# or from Python, ``score_with_brainscore(plugin, benchmark=bench)``. toponeuro copies the
# plugin into the Brain-Score install, runs Brain-Score offline
# (``BS_INSTALL_DEPENDENCIES=no``), lets the ``ModelCommitment`` look at the images with the
# committed IT layer, and scores it with Brain-Score's own ``pls``, ``ridge`` and ``rdm``
# metrics and split-half ceiling. The table has one row per (region, metric): ``raw``
# (median Pearson r over voxels for the regressions, Spearman r between RDMs for ``rdm``),
# ``ceiling`` and ``score`` (``r**2 / ceiling`` for the regressions, as Brain-Score's neural
# benchmarks report, ``r / ceiling`` for ``rdm``).
python = os.environ.get("TOPONEURO_BRAINSCORE_PYTHON")
if python:
    from toponeuro.brainscore import score_with_brainscore

    table = score_with_brainscore(plugin, benchmark=bench, python=python, timeout=600)
    print(table.to_string())
else:
    print("TOPONEURO_BRAINSCORE_PYTHON is not set: skipping the Brain-Score run.")

# %%
# Submitting
# ----------
# Upload ``plugin.zip_path`` at https://www.brain-score.org (Profile → Submit a model),
# after replacing the ``file://`` weights URL by a public one: re-run ``export_plugin`` with
# ``weights_url="https://..."``. Brain-Score runs the plugin's ``test.py``, then scores the
# model on its public benchmarks.
