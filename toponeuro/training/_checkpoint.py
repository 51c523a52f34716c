"""What a training checkpoint must hold, checked before it is used (resume, load, export).

A checkpoint written by :func:`~toponeuro.training.train` is a dict with ``model`` (the state
dict), ``epoch``, ``global_step``, ``optimizer`` ... and the ``recipe`` it was trained with.
:func:`validate_checkpoint` checks each field a reader relies on and raises a
:class:`~toponeuro.exceptions.CheckpointError` naming the missing or wrong one, instead of a
``KeyError`` / ``AttributeError`` / ``IndexError`` deep inside torch; weights that are NaN or
infinite (a run that diverged) are refused too.
"""

from __future__ import annotations

import numbers

import torch

from .._util.params import Boolean, validate_params
from ..exceptions import CheckpointError, RecipeError, UntrustedCheckpointError
from ..models import load_torch_file, non_finite_tensors

__all__ = ["validate_checkpoint"]

def read_checkpoint_file(path, map_location="cpu", *, fix: str):
    """What a checkpoint file holds (tensors and plain data only), or a CheckpointError that
    names the file, what went wrong and ``fix`` (what the caller's user should do).

    Read by the one ``torch.load`` of toponeuro (:func:`toponeuro.models.load_torch_file`,
    never trusting the file's pickled objects)."""
    try:
        return load_torch_file(path, False, map_location)
    except UntrustedCheckpointError as err:
        cause = str(err.__cause__ or err)
        what = next((line.strip() for line in cause.splitlines() if "GLOBAL" in line), "")
        raise UntrustedCheckpointError(
            f"Cannot read checkpoint {path}: it pickles objects outside the safe allow-list of "
            f"torch.load(weights_only=True) ({what or 'not tensors or plain data'}). A "
            "checkpoint of toponeuro train holds tensors and plain data only, so this file was "
            f"written by another program or altered; it is never unpickled here. {fix}"
        ) from err
    except CheckpointError as err:
        raise CheckpointError(f"Cannot read checkpoint {path} ({err}) {fix}") from err


#: keys only a training checkpoint has (a plain state dict holds tensors only)
_TRAINING_KEYS = ("recipe", "epoch", "global_step", "optimizer", "history")


def is_training_checkpoint(obj) -> bool:
    """``obj`` (what ``torch.load`` returned) looks like a :func:`train` checkpoint, not a
    plain state dict.

    Examples
    --------
    >>> is_training_checkpoint({"fc.weight": torch.zeros(2, 2)})
    False
    >>> is_training_checkpoint({"epoch": 1, "recipe": None})
    True
    """
    return isinstance(obj, dict) and any(k in obj for k in _TRAINING_KEYS) and not all(
        isinstance(v, torch.Tensor) for v in obj.values()
    )


def _whole(v) -> bool:
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


@validate_params(dict(training=Boolean()))
def validate_checkpoint(ckpt, path, *, training: bool = True) -> dict:
    """Check a checkpoint's fields; return it unchanged.

    Parameters
    ----------
    ckpt : object
        What ``torch.load`` returned.
    path : path-like
        The file (named in messages).
    training : bool
        Require ``epoch`` >= 1 and ``global_step`` (a checkpoint to resume from); otherwise an
        ``epoch``, if present, must be a whole number >= 0 (0: the initial weights).

    Returns
    -------
    dict
        ``ckpt``, unchanged.

    Raises
    ------
    CheckpointError
        Naming the missing or wrong field: no ``model`` state dict, ``epoch`` not a whole
        number, ``recipe`` or ``recipe.model`` not a table, ``recipe.model.num_classes`` not a
        whole number >= 1 or not the number of outputs the weights have, ``model.widths``
        the architecture cannot take, an unknown ``model.arch``, or NaN / infinite weights.

    Examples
    --------
    >>> validate_checkpoint({"epoch": 1, "global_step": 3}, "run/epoch_001.pt")
    Traceback (most recent call last):
    ...
    toponeuro.exceptions.CheckpointError: run/epoch_001.pt has no 'model' entry (the state dict of the weights), so it is not a complete toponeuro training checkpoint. It may come from another program; use a checkpoint written by `toponeuro train`.
    """
    if not isinstance(ckpt, dict):
        raise CheckpointError(
            f"{path} holds a {type(ckpt).__name__}, not a toponeuro training checkpoint (a "
            "dict with 'model', 'epoch', 'recipe' ...)."
        )
    state = ckpt.get("model")
    if state is None and isinstance(ckpt.get("trained"), dict):
        raise CheckpointError(
            f"{path} is the resume checkpoint of a language run (recipe kind "
            "'language_distillation'): it holds only the fine-tuned parameters. Pass the "
            "run's trained.pt, with model= a model laid over its base (e.g. "
            "'toponet_lm_demo.tau_1'; toponeuro.models.list_models('toponet_lm_demo.*'))."
        )
    if state is None:
        raise CheckpointError(
            f"{path} has no 'model' entry (the state dict of the weights), so it is not a "
            "complete toponeuro training checkpoint. It may come from another program; use a "
            "checkpoint written by `toponeuro train`."
        )
    if not isinstance(state, dict) or not all(isinstance(v, torch.Tensor) for v in state.values()):
        raise CheckpointError(
            f"{path}: 'model' must be a state dict (parameter names -> tensors); got a "
            f"{type(state).__name__}."
        )
    # epoch 0 is the initial weights (a trajectory's first point); a checkpoint to resume from
    # has finished an epoch and knows its step
    need = {"epoch": 1, "global_step": 0} if training else {"epoch": 0}
    for key, lo in need.items():
        if (training or key in ckpt) and (not _whole(ckpt.get(key)) or ckpt[key] < lo):
            raise CheckpointError(
                f"{path}: {key!r} must be a whole number >= {lo}; got {ckpt.get(key)!r}. The "
                "file is not a complete training checkpoint."
            )
    recipe = ckpt.get("recipe")
    if recipe is not None:
        _check_recipe_model(recipe, state, path)
    bad = non_finite_tensors(state)
    if bad:
        raise CheckpointError(
            f"{path} holds NaN or infinite weights ({len(bad)} of {len(state)} tensors, e.g. "
            f"{bad[0]!r}): the run diverged before this file was saved. Use an earlier "
            "checkpoint, or retrain with a lower learning rate (train.lr)."
        )
    return ckpt


def _check_recipe_model(recipe, state: dict, path) -> None:
    from ._architectures import ARCHITECTURES, build_recipe_model
    from ._schema import RECIPE_SCHEMA, _check_section

    if not isinstance(recipe, dict):
        raise CheckpointError(
            f"{path}: 'recipe' must be the recipe table it was trained with; got a "
            f"{type(recipe).__name__} ({recipe!r:.60})."
        )
    cfg = recipe.get("model")
    if not isinstance(cfg, dict):
        raise CheckpointError(
            f"{path}: recipe.model must be a table (arch, num_classes, widths ...); got "
            f"{cfg!r:.60}. The file was not written by `toponeuro train`, or was edited."
        )
    try:
        _check_section("stored in the checkpoint", "model", cfg, RECIPE_SCHEMA["model"])
    except RecipeError as err:
        text = str(err).replace(" Fix the value in the recipe file.", "")
        raise CheckpointError(f"{path}: {text}") from None
    arch = cfg.get("arch")
    if arch not in ARCHITECTURES:
        from ..exceptions import close_matches

        raise CheckpointError(
            f"{path}: recipe.model.arch {arch!r} is not an architecture this toponeuro can "
            f"build; {close_matches(str(arch), ARCHITECTURES)}"
        )
    n_classes = cfg.get("num_classes")
    if not _whole(n_classes) or n_classes < 1:
        raise CheckpointError(
            f"{path}: recipe.model.num_classes must be a whole number >= 1; got {n_classes!r}."
        )
    fc = state.get("fc.weight")
    if isinstance(fc, torch.Tensor) and fc.ndim == 2 and fc.shape[0] != n_classes:
        raise CheckpointError(
            f"{path}: recipe.model.num_classes = {n_classes} but the weights have "
            f"{fc.shape[0]} outputs (fc.weight {tuple(fc.shape)}); the recipe and the weights "
            "are from different runs."
        )
    try:
        with torch.random.fork_rng(devices=[]):  # building draws initial weights
            build_recipe_model(cfg)  # e.g. widths of the wrong length
    except RecipeError as err:
        raise CheckpointError(f"{path}: {err}") from None
