"""Rebuild a trained network from a checkpoint: the model with its card, ready to extract.

The front door, :func:`toponeuro.models.load_model`, lives in the models package and reads
every file once; this module registers how a ``toponeuro train`` checkpoint (it carries its
recipe) is rebuilt (:func:`toponeuro.models.register_checkpoint_reader`), so the models
package never imports training. ``load_model`` stays importable from here.
"""

from __future__ import annotations

import os
from pathlib import Path

from .._io.fetch import sha256sum
from .._util.docs import fill_doc
from .._util.params import Boolean, Text, validate_params
from ..exceptions import CheckpointError
from ..models import ModelCard, load_model, register_checkpoint_reader
from ._architectures import build_recipe_model
from ._checkpoint import is_training_checkpoint, validate_checkpoint
from ._train import _load_weights

__all__ = ["load_model", "load_trained_model"]


@validate_params({"model": [Text(), None], "trust_checkpoint": Boolean()})
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
    return load_model(model, checkpoint=path, map_location=map_location,
                      trust_checkpoint=trust_checkpoint)


def _recognise(obj, model: str | None) -> bool:
    """A ``toponeuro train`` checkpoint, unless it lacks its recipe and ``model`` names the
    architecture (another program's checkpoint, e.g. the released ViT's
    ``{"model", "epoch", "args"}``, is then read as a state dict)."""
    return is_training_checkpoint(obj) and not (model is not None and obj.get("recipe") is None)


def _rebuild(ckpt: dict, path: Path):
    """The network of a ``toponeuro train`` checkpoint, with the card its recipe describes."""
    validate_checkpoint(ckpt, path, training=False)
    recipe = ckpt.get("recipe")
    if recipe is None:
        raise CheckpointError(
            f"{path} is a training checkpoint without its recipe ('recipe' is None), so it "
            "does not say which architecture to build. Train with a recipe (run_recipe / "
            "`toponeuro train`), or save the state dict alone and pass model=<registered name>."
        )
    arch = str(recipe["model"].get("arch"))
    module, default_layers = build_recipe_model(recipe["model"])
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


register_checkpoint_reader("toponeuro train", _recognise, _rebuild)
