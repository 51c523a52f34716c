"""Rebuild a trained network from a checkpoint: the model with its card, ready to extract."""

from __future__ import annotations

import os
from pathlib import Path

from .._docs import fill_doc
from .._fetch import sha256sum
from ..exceptions import CheckpointError, UnknownNameError, close_matches
from ._checkpoint import is_training_checkpoint, non_finite_tensors, validate_checkpoint
from ._recipes import ARCHITECTURES
from ._train import _load_weights

__all__ = ["load_model", "load_trained_model"]


@fill_doc
def load_trained_model(
    path: str | os.PathLike,
    *,
    model: str | None = None,
    map_location: str = "cpu",
    trust_checkpoint: bool = False,
):
    """The network a checkpoint holds, in eval mode, with its ``model_card``.

    Two kinds of file are read:

    - a checkpoint written by ``toponeuro train`` (:func:`train`, :func:`run_recipe`): it
      carries its recipe, so the architecture is rebuilt from ``recipe["model"]`` and the
      card says what the recipe says (τ, TopoLoss layers, image size; inputs normalised
      with mean = std = 0.5, as :func:`image_folder_dataset` trains them);
    - a plain state dict (e.g. from :func:`export_weights`) for a registered architecture
      named by ``model`` (:func:`toponeuro.models.create_model` with ``checkpoint=``), in
      the card's format (a torch file, or ``.safetensors`` for the language baselines).

    Parameters
    ----------
    path : path-like
        The checkpoint file.
    model : str, optional
        Registered model name whose architecture (and card) a plain state dict, or a
        checkpoint without a recipe (another program's, e.g. ``{"model", "epoch", "args"}``),
        fits. Ignored for ``toponeuro train`` checkpoints.
    %(map_location)s
    %(trust_checkpoint)s

    Returns
    -------
    torch.nn.Module
        In eval mode, with ``model_card`` (a :class:`toponeuro.models.ModelCard`; for a
        training checkpoint its name is ``checkpoint:<file name>`` and its description
        names the recipe and epoch, its ``recipe`` field the recipe's name),
        ``weights_sha256`` (the file's sha256) and, for a training checkpoint, ``recipe``
        (the recipe dict it was trained with, e.g. its ``data.numbers``).

    Raises
    ------
    CheckpointError
        No such file, a truncated file, a malformed checkpoint (the message names the missing
        or wrong field: no ``model`` state dict, ``recipe.model`` not a table,
        ``num_classes`` not a whole number or not the weights' number of outputs, ``widths``
        the architecture cannot take), NaN or infinite weights, or weights that do not fit
        the architecture.
    UntrustedCheckpointError
        The file pickles objects other than tensors and ``trust_checkpoint`` is False.
    UnknownNameError
        A plain state dict without (or with an unknown) ``model``.

    Examples
    --------
    >>> import tempfile
    >>> from toponeuro.training import load_recipe, run_recipe
    >>> recipe = load_recipe("demo-smoke")
    >>> recipe["data"].update(n_per_class=2, val_per_class=0, image_size=16)
    >>> run = run_recipe(recipe, tempfile.mkdtemp(), progress=False)
    >>> net = load_trained_model(run.checkpoints[-1])
    >>> net.model_card.tau, net.model_card.input_size, net.training
    (1.0, 16, False)
    """
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"No checkpoint file at {path}.")
    from ..models import list_models, load_torch_file, model_card

    if path.suffix == ".safetensors" or (
        model in list_models() and model_card(model).checkpoint_format == "safetensors"
    ):  # a state dict in another format: never a `toponeuro train` checkpoint
        return _finite(_from_state_dict(path, model, trust_checkpoint), path)
    ckpt = load_torch_file(path, trust_checkpoint, map_location)
    if not is_training_checkpoint(ckpt) or (model is not None and ckpt.get("recipe") is None):
        # a state dict, or a checkpoint of another program (the released ViT's
        # {"model", "epoch", "args"}): `model` names its architecture
        return _finite(_from_state_dict(path, model, trust_checkpoint), path)
    from ..models import ModelCard

    validate_checkpoint(ckpt, path, training=False)
    recipe = ckpt.get("recipe")
    if recipe is None:
        raise CheckpointError(
            f"{path} is a training checkpoint without its recipe ('recipe' is None), so it "
            "does not say which architecture to build. Train with a recipe (run_recipe / "
            "`toponeuro train`), or save the state dict alone and pass model=<registered name>."
        )
    arch = str(recipe["model"].get("arch"))
    module, default_layers = ARCHITECTURES[arch](recipe["model"])
    _load_weights(
        module,
        ckpt["model"],
        path,
        "its weights do not fit the architecture its recipe describes",
        "The file may come from another toponeuro version.",
    )
    module.eval()
    tcfg = recipe.get("topoloss") or {}
    named = tcfg.get("layers", "topo")
    n_classes = int(recipe["model"].get("num_classes", 0))
    module.model_card = ModelCard(
        name=f"checkpoint:{path.name}",
        arch=arch,
        tag="checkpoint",
        tau=float(tcfg.get("tau", 0.0)) if tcfg else 0.0,
        input_size=int(recipe.get("data", {}).get("image_size", 64)),
        mean=(0.5, 0.5, 0.5),
        std=(0.5, 0.5, 0.5),
        crop_pct=1.0,
        topo_layers=tuple(default_layers if named == "topo" else named),
        num_classes=n_classes or None,
        description=f"trained with recipe {recipe.get('name')!r}, epoch {ckpt.get('epoch')}",
        recipe=str(recipe.get("name")) if recipe.get("name") else None,
        seed=recipe.get("seed"),
    )
    module.recipe = recipe
    module.weights_sha256 = sha256sum(path)
    return module


def _finite(module, path: Path):
    """``module``, after checking that no weight is NaN or infinite."""
    bad = non_finite_tensors(module.state_dict())
    if bad:
        raise CheckpointError(
            f"{path} holds NaN or infinite weights ({len(bad)} tensors, e.g. {bad[0]!r}): "
            "the run that made it diverged. Use an earlier checkpoint of that run."
        )
    return module


@fill_doc
def load_model(
    model: str | None = None,
    *,
    checkpoint: str | os.PathLike | None = None,
    trust_checkpoint: bool = False,
    map_location: str = "cpu",
):
    """A network by registered name or from a checkpoint file: the one way to build a model.

    The command line (``--model`` / ``--checkpoint`` / ``--trust-checkpoint`` of every
    sub-command) and :func:`toponeuro.run_map` both call this. Without ``checkpoint`` the
    registered ``model`` is built with its released weights when its card has any
    (:func:`toponeuro.models.create_model`), else with its architecture's initial weights;
    with ``checkpoint`` the file is read by :func:`load_trained_model` (``model`` then
    names the architecture of a plain state dict and is ignored for a ``toponeuro train``
    checkpoint).

    Parameters
    ----------
    model : str, optional
        Registered model name ``arch.tag`` (:func:`toponeuro.models.list_models`); required
        without ``checkpoint``.
    checkpoint : path-like, optional
        A checkpoint from ``toponeuro train``, or a plain state dict for ``model``.
    %(trust_checkpoint)s
    %(map_location)s

    Returns
    -------
    torch.nn.Module
        In eval mode, with ``model_card`` and ``weights_sha256``.

    Raises
    ------
    UnknownNameError
        ``model`` is not registered (close matches listed), or neither ``model`` nor
        ``checkpoint`` is given.
    CheckpointError, UntrustedCheckpointError
        As :func:`load_trained_model`.

    Examples
    --------
    >>> net = load_model("toponet_demo.v2_tau_0")
    >>> net.model_card.name, net.training
    ('toponet_demo.v2_tau_0', False)
    """
    if checkpoint is not None:
        return load_trained_model(checkpoint, model=model, map_location=map_location,
                                  trust_checkpoint=trust_checkpoint)
    from ..models import create_model, model_card

    if model is None:
        raise UnknownNameError(
            "No model to load: give a registered name, model=NAME "
            "(toponeuro.models.list_models()), or a file, checkpoint=FILE."
        )
    try:
        card = model_card(model)
    except UnknownNameError as err:
        raise UnknownNameError(
            f"{err} Give a registered name, model=NAME (toponeuro.models.list_models()), or "
            "a file, checkpoint=FILE."
        ) from None
    return create_model(model, pretrained=card.has_weights)


def _from_state_dict(path: Path, model: str | None, trust_checkpoint: bool):
    from ..models import create_model, list_models

    if model is None or model not in list_models():
        known = list_models()
        hint = close_matches(model, known) if model else f"known: {', '.join(known[:8])}, ..."
        raise UnknownNameError(
            f"{path} is a plain state dict, not a `toponeuro train` checkpoint, so it does not "
            f"say which architecture it fits; got model={model!r}. Name a registered model "
            f"(toponeuro.models.list_models()); {hint}"
        )
    return create_model(model, checkpoint=path, trust_checkpoint=trust_checkpoint)
