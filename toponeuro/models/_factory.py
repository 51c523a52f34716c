"""The model factory: :func:`create_model` (a registered name) and :func:`load_model`.

:func:`load_model` is the front door for a network (a registered name or a checkpoint file);
it builds registered names with :func:`create_model` and reads files through the weights I/O
(:mod:`._weights`), asking the readers other packages registered
(:func:`register_checkpoint_reader`) about formats of their own.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from .._io.fetch import _fetch_hf, sha256sum
from .._util.docs import fill_doc
from .._util.params import Boolean, Text, validate_params
from ..exceptions import (
    CheckpointError,
    ChecksumError,
    MissingWeightsError,
    UnknownNameError,
    close_matches,
)
from ._registry import ModelCard, _lookup, list_models, model_card
from ._weights import _READERS, load_torch_file, load_weights, non_finite_tensors, package_file

__all__ = ["create_model", "load_model"]

# keys that some exporters write but models do not hold (non-persistent buffers), and tied
# weights that exporters leave out; neither changes the model's outputs
_IGNORABLE_UNEXPECTED = ("position_ids", ".attention.bias", ".attention.masked_bias")
_IGNORABLE_MISSING = ("lm_head.weight",)


def _load_state(model, state: Mapping, name: str, source) -> None:
    own = model.state_dict()
    if all(k.startswith("model.") for k in state) and not any(k.startswith("model.") for k in own):
        state = {k[len("model."):]: v for k, v in state.items()}  # a wrapper saved as `model`
    missing = [k for k in own if k not in state]
    unexpected = [k for k in state if k not in own]
    unexpected = [k for k in unexpected if not k.endswith(_IGNORABLE_UNEXPECTED)]
    missing = [k for k in missing if k not in _IGNORABLE_MISSING]
    if missing and not unexpected:
        overlays = [n for n in list_models() if _lookup(n)[0].base_model == name]
        raise CheckpointError(
            f"{source} holds only {len(state)} of the {len(own)} tensors of {name!r} (first "
            f"missing: {missing[:3]}): it is a partial state dict, e.g. the fine-tuned "
            "parameters of a language run (trained.pt). Pass the name of a model laid over "
            f"{name!r} ({overlays[:4] or 'a card with base_model'}) with it."
        )
    if missing or unexpected:
        raise CheckpointError(
            f"{source} does not fit the architecture of {name!r}: {len(missing)} missing keys "
            f"(first: {missing[:3]}), {len(unexpected)} unexpected keys (first: "
            f"{unexpected[:3]}). It is a checkpoint of another architecture; pick the model "
            "name it was trained as (toponeuro.models.list_models())."
        )
    shapes = [
        (k, tuple(state[k].shape), tuple(v.shape))
        for k, v in own.items()
        if k in state and tuple(state[k].shape) != tuple(v.shape)
    ]
    if shapes:
        k, got, want = shapes[0]
        raise CheckpointError(
            f"{source} does not fit {name!r}: {len(shapes)} tensors have other shapes (first: "
            f"{k} is {got}, the model expects {want}). It was trained with another "
            "configuration (width, classes, vocabulary)."
        )
    state = {k: v for k, v in state.items() if k in own}
    model.load_state_dict(state, strict=not any(k not in state for k in own))


def _weights_file(card: ModelCard, cache_dir) -> tuple[Path, str | None]:
    """The released weights file and, for hub files, the sentence saying what was checked."""
    if card.package_path:
        path = package_file(card.package_path)
        if not path.is_file():
            raise MissingWeightsError(
                f"The weights of {card.name!r} ({card.package_path}) are not shipped with "
                f"this installation (looked for {path}). Train them with the demo recipe "
                "(toponeuro train) and pass checkpoint=PATH, or update toponeuro."
            )
        return path, None
    if not card.has_weights:
        tagged = [n for n in list_models(f"*{card.arch}.*")]
        raise MissingWeightsError(
            f"{card.name!r} is an untrained architecture without released weights; use "
            f"pretrained=False, pass checkpoint=PATH, or pick a trained name "
            f"({tagged[:8] or 'see list_models()'})."
        )
    return _fetch_hf(card.hub_repo, card.filename, sha256=card.sha256, cache_dir=cache_dir)


@fill_doc
@validate_params({"pretrained": Boolean(), "trust_checkpoint": Boolean()},
                 prefer_skip_nested_validation=False)  # builder_kwargs go to the builder
def create_model(
    name: str,
    pretrained: bool = False,
    checkpoint=None,
    cache_dir=None,
    trust_checkpoint: bool = False,
    **builder_kwargs,
):
    """Build a registered model, optionally with its released or a local checkpoint.

    The front door for a model is :func:`toponeuro.load_model` (a name or a checkpoint
    file); this is the registry's builder it calls for a name (docs: "Making a model: one
    front door").

    Parameters
    ----------
    name : str
        Registered ``arch.tag`` (see :func:`list_models`).
    pretrained : bool
        Load the released weights: from the package that ships them (checked against the
        card's sha256) or from the hub, cached and checked against the card's sha256 when it
        has one and against the hub's own LFS sha256 of the file, recorded at download (see
        :func:`toponeuro._io.fetch.fetch_hf_file`). A file found in the cache with neither is
        used with an :class:`~toponeuro.exceptions.UnverifiedFileWarning`.
    checkpoint : path-like, optional
        A local file in the card's format. A file named like the released one
        (``card.filename`` or the shipped file's name, e.g. a copy placed by hand on an offline machine) is verified
        against the card's sha256 when known; any other file is your own checkpoint (e.g.
        fine-tuned) and is loaded as is, its digest recorded in ``weights_sha256``.
    %(cache_dir)s
    %(trust_checkpoint)s
    **builder_kwargs
        Passed to the architecture builder (e.g. a smaller ``config`` for tests).

    Returns
    -------
    torch.nn.Module
        In eval mode, with attributes ``model_card`` (the :class:`ModelCard`),
        ``weights_sha256`` (digest of the loaded file, ``None`` when randomly initialised) and
        ``weights_check`` (one sentence saying exactly what the file was checked against:
        the card's sha256, the Hugging Face hub's LFS sha256, or "NOT verified" and why).

    Examples
    --------
    >>> m = create_model("toponet_demo.v2_tau_0")
    >>> m.model_card.arch, m.weights_sha256 is None
    ('toponet_demo', True)
    """
    card, builder = _lookup(name)
    sha, check = None, "randomly initialised (no weights file)"
    model = None
    if checkpoint is not None or pretrained:
        check = None
        if checkpoint is not None:
            path = Path(checkpoint)
            if not path.is_file():
                raise CheckpointError(
                    f"No checkpoint file at {path} (checkpoint=); pass the path of an existing "
                    "file, or pretrained=True for the released weights."
                )
        else:
            path, check = _weights_file(card, cache_dir)
        released = card.filename or (
            card.package_path.rsplit("/", 1)[-1].split(":")[-1] if card.package_path else None
        )
        official = checkpoint is None or path.name == released
        sha = sha256sum(path)
        if check is None:
            check = _check_local(path, sha, card, official)
        fmt = card.checkpoint_format if card.checkpoint_format != "package" else "state_dict"
        state = load_weights(path, fmt, trust_checkpoint=trust_checkpoint)
        if card.base_model:
            state, check, model = _overlay(card, state, path, check, cache_dir)
            base_card, base_builder = _lookup(card.base_model)
            if (builder_kwargs or base_builder is not builder
                    or dict(base_card.builder_kwargs) != dict(card.builder_kwargs)):
                model = None  # not built as the base was: built below
        # built after the file is found, checked and read: a bad file fails fast (an
        # overlay's model is its base's, built once, the overlay's state loaded into it)
        if model is None:
            model = builder(**{**dict(card.builder_kwargs), **builder_kwargs})
        _load_state(model, state, name, path)
    else:
        model = builder(**{**dict(card.builder_kwargs), **builder_kwargs})
    model.eval()
    model.model_card = card
    model.weights_sha256 = sha
    model.weights_check = check
    return model


def _overlay(card: ModelCard, state: Mapping, path: Path, check: str, cache_dir):
    """The base's released state dict with ``state`` (some of its parameters) laid over it,
    the check, and the base model (built with the base card's builder and arguments)."""
    base = create_model(card.base_model, pretrained=True, cache_dir=cache_dir)
    if card.base_sha256 and base.weights_sha256 != card.base_sha256.lower():
        raise ChecksumError(
            f"{card.name!r} was trained from {card.base_model!r} weights with sha256 "
            f"{card.base_sha256}, but the installed ones have {base.weights_sha256}; install "
            f"the version of its package the card names, or retrain with the recipe "
            f"{card.recipe!r}."
        )
    full = base.state_dict()
    foreign = [k for k in state if k not in full]
    if foreign:
        raise CheckpointError(
            f"{path} holds {len(foreign)} parameters that {card.base_model!r} does not have "
            f"(first: {foreign[:3]}); it is not an overlay of that model."
        )
    shapes = [k for k in state if tuple(state[k].shape) != tuple(full[k].shape)]
    if shapes:
        raise CheckpointError(
            f"{path}: {shapes[0]} is {tuple(state[shapes[0]].shape)}, {card.base_model!r} has "
            f"{tuple(full[shapes[0]].shape)}; it is not an overlay of that model."
        )
    full.update({k: v.to(full[k].dtype) for k, v in state.items()})
    return full, (
        f"{check}; laid over {card.base_model!r} ({len(state)} of {len(full)} tensors), "
        f"whose {base.weights_check}"
    ), base


def _check_local(path: Path, sha: str, card: ModelCard, official: bool) -> str:
    """Check a shipped or hand-given file against the card; say exactly what was checked."""
    if not official:
        return f"not verified: your own checkpoint {path}; its sha256 {sha} is recorded"
    if card.sha256 is None:
        return (
            f"NOT verified: {path} has the released file's name but the model card gives no "
            f"sha256; only its sha256 {sha} is recorded"
        )
    if sha != card.sha256.lower():
        raise ChecksumError(
            f"{path}: sha256 is {sha}, expected {card.sha256} (the model card of {card.name!r})."
            " The file is corrupt, truncated or not the published version; replace it with "
            "the official file, or rename it if it is a checkpoint of your own."
        )
    return f"sha256 {sha} matches the model card's sha256"



@fill_doc
@validate_params({"model": [Text(), None], "trust_checkpoint": Boolean()})
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
    (:func:`create_model`), else with its architecture's initial weights. With
    ``checkpoint`` the file is read once, safely (:func:`load_torch_file`): a format a
    package registered (:func:`register_checkpoint_reader`; ``toponeuro.training`` registers
    the checkpoints of ``toponeuro train``, which carry their recipe) is rebuilt by that
    package, and any other file is a plain state dict (or another program's checkpoint,
    e.g. ``{"model", "epoch", "args"}``) for the architecture of ``model``, in the card's
    format (a torch file, or ``.safetensors`` for the language baselines).

    Parameters
    ----------
    model : str, optional
        Registered model name ``arch.tag`` (:func:`list_models`); required without
        ``checkpoint``, and for a checkpoint that does not say which architecture it holds.
        Ignored for a ``toponeuro train`` checkpoint with its recipe.
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
        ``checkpoint`` is given, or a plain state dict comes without ``model``.
    CheckpointError
        No such file; a truncated or malformed file; NaN or infinite weights; weights that
        do not fit the architecture.
    UntrustedCheckpointError
        The file pickles objects other than tensors and ``trust_checkpoint`` is False.

    Examples
    --------
    >>> net = load_model("toponet_demo.v2_tau_0")
    >>> net.model_card.name, net.training
    ('toponet_demo.v2_tau_0', False)
    """
    if checkpoint is not None:
        return _from_file(Path(checkpoint), model, trust_checkpoint, map_location)
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


def _from_file(path: Path, model: str | None, trust_checkpoint: bool, map_location: str):
    """The network a checkpoint file holds (:func:`load_model` with ``checkpoint=``)."""
    if not path.is_file():
        raise CheckpointError(
            f"No checkpoint file at {path} (checkpoint=); pass the path of an existing file."
        )
    if path.suffix == ".safetensors" or (
        model in list_models() and model_card(model).checkpoint_format == "safetensors"
    ):  # a state dict in another format: never a registered package's checkpoint
        return _finite(_from_state_dict(path, model, trust_checkpoint), path)
    obj = load_torch_file(path, trust_checkpoint, map_location)
    for reader in list(_READERS.values()):
        if reader.recognise(obj, model):
            return reader.rebuild(obj, path)
    # a state dict, or a checkpoint of another program (the released ViT's
    # {"model", "epoch", "args"}): `model` names its architecture
    return _finite(_from_state_dict(path, model, trust_checkpoint), path)


def _finite(module, path: Path):
    """``module``, after checking that no weight is NaN or infinite."""
    bad = non_finite_tensors(module.state_dict())
    if bad:
        raise CheckpointError(
            f"{path} holds NaN or infinite weights ({len(bad)} tensors, e.g. {bad[0]!r}): "
            "the run that made it diverged. Use an earlier checkpoint of that run."
        )
    return module


def _from_state_dict(path: Path, model: str | None, trust_checkpoint: bool):
    if model is None or model not in list_models():
        known = list_models()
        hint = close_matches(model, known) if model else f"known: {', '.join(known[:8])}, ..."
        raise UnknownNameError(
            f"{path} is a plain state dict, not a checkpoint of a registered format "
            f"({sorted(_READERS) or 'none registered'}; `toponeuro train` checkpoints are "
            "read once toponeuro.training is imported), so it does not say which "
            f"architecture it fits; got model={model!r}. Name a registered model "
            f"(toponeuro.models.list_models()); {hint}"
        )
    return create_model(model, checkpoint=path, trust_checkpoint=trust_checkpoint)
