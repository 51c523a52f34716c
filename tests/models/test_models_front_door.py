"""The models front door (issue 44): ``load_model`` in models, one ``torch.load``, one table.

- the models package never imports ``toponeuro.training`` (training registers how to rebuild
  its checkpoints with :func:`toponeuro.models.register_checkpoint_reader`);
- ``torch.load`` is called in one module of the package (plus the Brain-Score plugin file,
  which is shipped alone and cannot import toponeuro);
- a checkpoint with a pickled payload does not run it through any reader unless trusted;
- the architectures have one table: the models builders (the recipe's ``model.arch`` and the
  Brain-Score plugin's names are among them).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import torch
from _parsed import parse  # tests/house: the package parsed once per process
from test_imports import graph_reaches, import_graph  # tests/house: on sys.path (conftest)

import toponeuro
from toponeuro import exceptions as E
from toponeuro import models, training
from toponeuro.brainscore import _plugin_arch

ROOT = Path(toponeuro.__file__).parent


def test_models_package_never_imports_training():
    graph = import_graph()
    mods = [m for m in graph if m == "toponeuro.models" or m.startswith("toponeuro.models.")]
    assert "toponeuro.models._factory" in mods
    reached = [m for m in mods for t in graph if t.startswith("toponeuro.training")
               and graph_reaches(m, t, graph)]
    assert reached == []


def test_the_models_rule_finds_a_planted_import_of_training():
    graph = import_graph()
    graph["toponeuro.models._factory"] = {*graph["toponeuro.models._factory"],
                                          "toponeuro.training._load"}
    assert graph_reaches("toponeuro.models", "toponeuro.training._load", graph)


def torch_load_calls(root: Path = ROOT) -> dict[str, int]:
    """module path -> number of ``torch.load(...)`` calls in its code (not its docstrings)."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        n = sum(
            1 for node in ast.walk(parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "load" and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "torch"
        )
        if n:
            found[path.relative_to(root).as_posix()] = n
    return found


def test_one_torch_load(tmp_path):
    # models/_weights.py: load_torch_file (weights_only, then with trust); the plugin file is
    # copied alone into Brain-Score plugins and loads with weights_only=True only
    assert set(torch_load_calls()) == {"models/_weights.py", "brainscore/_plugin_arch.py"}
    (tmp_path / "m.py").write_text("import torch\n'''torch.load(p)'''\nx = torch.load('p')\n")
    assert torch_load_calls(tmp_path) == {"m.py": 1}  # the rule sees a call, not a docstring


class _Payload:
    """Unpickling this creates ``marker``: the code a hostile checkpoint would run."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def _recipe_net():
    recipe = training.load_recipe("demo-smoke")
    net, _ = models.build_architecture(recipe["model"]["arch"],
                                       **{k: v for k, v in recipe["model"].items() if k != "arch"})
    return recipe, net


@pytest.mark.parametrize("kind", ["state_dict", "training"])
def test_a_planted_payload_does_not_run_without_trust(tmp_path, kind):
    recipe, net = _recipe_net()
    marker = tmp_path / "pwned"
    path = tmp_path / "evil.pt"
    if kind == "training":
        torch.save({"model": net.state_dict(), "epoch": 1, "recipe": recipe,
                    "extra": _Payload(marker)}, path)
    else:
        torch.save({"model": net.state_dict(), "extra": _Payload(marker)}, path)
    readers = [
        lambda: models.load_model("toponet_demo.v2_tau_0", checkpoint=path),
        lambda: models.load_weights(path, "model_key"),
        lambda: models.load_torch_file(path),
        lambda: training.load_trained_model(path),
    ]
    for read in readers:
        with pytest.raises(E.UntrustedCheckpointError, match="trust_checkpoint=True"):
            read()
        assert not marker.exists()
    with pytest.raises(E.UntrustedCheckpointError, match="Cannot read checkpoint") as info:
        training.load_checkpoint(path)  # resume: read by the one torch.load, never trusted
    assert "trust_checkpoint" not in str(info.value)  # load_checkpoint has no such parameter
    assert not marker.exists()
    models.load_torch_file(path, trust_checkpoint=True)  # trusted: the payload runs
    assert marker.exists()


def test_training_checkpoints_are_read_through_the_registered_reader(tmp_path):
    recipe, net = _recipe_net()
    path = tmp_path / "epoch_001.pt"
    torch.save({"model": net.state_dict(), "epoch": 1, "recipe": recipe}, path)
    loaded = models.load_model(checkpoint=path)
    assert loaded.model_card.name == "checkpoint:epoch_001.pt"
    assert loaded.model_card.topo_layers[:1] == ("layer1.0.conv1",)
    assert training.load_model is models.load_model
    assert "toponeuro train" in models._weights._READERS


def test_one_table_of_architectures():
    assert list(training.ARCHITECTURES) == models.list_architectures(trainable=True)
    assert "small_resnet" in training.ARCHITECTURES
    # the plugin's builders (a copy shipped alone) build registered architectures only
    assert set(_plugin_arch.ARCHITECTURES) <= set(models.list_architectures())
    with pytest.raises(E.UnknownNameError, match="small_resnet"):
        models.build_architecture("small_resnett")
    with pytest.raises(E.ParameterError, match="widths"):
        models.build_architecture("small_resnet", widths=[8, 8])
