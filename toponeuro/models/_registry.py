"""The model registry: ``ModelCard``, ``register_model``, ``list_models``, ``model_card``.

Names are ``arch.tag`` (timm): the arch picks the builder, the tag the weights. Each name has
a frozen :class:`ModelCard` that says where its weights live (Hugging Face file, or a file
shipped inside a Python package), their sha256 when known, the input preprocessing and the
layers TopoLoss acted on.

The cards are data: ``cards.toml`` beside this module, read on first use. Builders register
themselves with :func:`register_builder` when their module is imported; this module imports
no builder (``toponeuro/models/__init__.py`` imports them, as timm's does), so a card names
its builder by string. Laid out as timm's: this registry, the factory
(:mod:`._factory`: ``create_model``, ``load_model``) and the weights I/O (:mod:`._weights`:
the one ``torch.load``, the one state-dict reader).
"""

from __future__ import annotations

import fnmatch
import importlib.resources
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from numbers import Real

from .._io.fetch import hf_url
from .._util.frozen import validate_fields
from .._util.params import (
    COUNT,
    NON_NEGATIVE,
    NON_NEGATIVE_INT,
    Boolean,
    Interval,
    Options,
    Text,
    validate_params,
)
from ..exceptions import (
    InputTypeError,
    InvalidDataError,
    NameClashError,
    ParameterError,
    UnknownNameError,
    close_matches,
)
from ._weights import CHECKPOINT_FORMATS

__all__ = [
    "ModelCard",
    "register_model",
    "register_builder",
    "list_models",
    "model_card",
    "list_architectures",
    "build_architecture",
]

_ANY_TEXT = Text(empty=True)
#: the scalar fields of a ModelCard and what each accepts, its declaration, checked when a card
#: is made (the cards of cards.toml, a user's card for register_model, a checkpoint's card)
_CARD_FIELDS = {
    "name": Text(), "arch": Text(), "tag": _ANY_TEXT,
    **dict.fromkeys(("hub_repo", "filename", "sha256", "package_path", "tokenizer", "builder",
                     "recipe", "superseded_by", "base_model", "base_sha256"), [_ANY_TEXT, None]),
    **dict.fromkeys(("license", "citation", "description"), _ANY_TEXT),
    "checkpoint_format": Options(CHECKPOINT_FORMATS),
    "modality": Options(("vision", "language")),
    "position_units": Options(("mm", "sheet")),
    "tau": [NON_NEGATIVE, None],
    "input_size": [COUNT, None],
    "num_classes": [COUNT, None],
    "seed": [NON_NEGATIVE_INT, None],
    "train_steps": [NON_NEGATIVE_INT, None],
    "crop_pct": Interval(Real, 0, 1, closed="right"),
}


@dataclass(frozen=True)
@validate_fields(_CARD_FIELDS)
class ModelCard:
    """Everything toponeuro knows about one registered model name.

    Its fields are declared (``__toponeuro_params__``) and checked wherever a card is made:
    by you (``register_model(card=)``), by the catalogue's reader (``cards.toml``) and by a
    checkpoint's loader. A bad value raises the typed error naming the field as the
    parameter ``card``: ``card.tau=-1 is not a finite number >= 0``.

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
        Outputs of the classifier head (``None`` for language models).
    license : str
        The weights' licence.
    citation : str
        The paper to cite for them.
    description : str
        One line on what the weights are.
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

    # the parameter a card is passed as (register_model): checked wherever it is made, also
    # inside a declared function (model_card reads cards.toml, load_model a checkpoint)
    _name = "card"

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
# builder name -> topo_layers(model): its default TopoLoss layers (the trainable builders)
_TOPO_LAYERS: dict[str, Callable] = {}
# model name -> (card, builder); the cards of cards.toml are added on first use
_REGISTRY: dict[str, tuple[ModelCard, Callable]] = {}
_CARDS_FILE = "cards.toml"
_CARDS_LOADED = False


@validate_params(dict(name=Text(), topo_layers=["callable", None]))
def register_builder(name: str, *, topo_layers: Callable | None = None):
    """Decorator registering an architecture builder (``builder(**kwargs) -> nn.Module``).

    This is the one table of architectures: cards (``cards.toml`` or :func:`register_model`)
    name their builder by this string, so the registry never imports a builder module, and
    a training recipe's ``model.arch`` names one too (:func:`build_architecture`).

    Parameters
    ----------
    name : str
        The builder's name, unique in the registry.
    topo_layers : callable, optional
        ``topo_layers(model) -> list of str``: the module names where TopoLoss acts by
        default on a network this builder made (a recipe's ``topoloss.layers = "topo"``).
        Builders without it cannot be trained by a recipe.

    Returns
    -------
    callable
        The decorator, which registers the builder and returns it unchanged.

    Raises
    ------
    NameClashError
        Another builder is already registered under ``name``.

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
        if not callable(builder):
            raise InputTypeError(f"register_builder({name!r}) decorates a function "
                                 f"builder(**kwargs) -> nn.Module; got {type(builder).__name__}.")
        if _BUILDERS.get(name, builder) is not builder:
            raise NameClashError(f"A builder named {name!r} is already registered.")
        _BUILDERS[name] = builder
        if topo_layers is not None:
            _TOPO_LAYERS[name] = topo_layers
        return builder

    return decorator


@validate_params({"trainable": Boolean()})
def list_architectures(*, trainable: bool = False) -> list[str]:
    """The registered builder names, sorted.

    Parameters
    ----------
    trainable : bool
        Only the builders that name their default TopoLoss layers, which a training
        recipe's ``model.arch`` may name.

    Returns
    -------
    list of str
        Builder names (:func:`build_architecture` builds them).

    Examples
    --------
    >>> "resnet18" in list_architectures(), list_architectures(trainable=True)
    (True, ['small_resnet'])
    """
    return sorted(n for n in _BUILDERS if not trainable or n in _TOPO_LAYERS)


@validate_params(dict(name=Text()), prefer_skip_nested_validation=False)
def build_architecture(name: str, **kwargs):
    """A registered architecture, randomly initialised, and its default TopoLoss layers.

    Parameters
    ----------
    name : str
        A builder name (:func:`list_architectures`), e.g. a recipe's ``model.arch``.
    **kwargs
        Passed to the builder (e.g. ``num_classes``, ``widths``).

    Returns
    -------
    model : torch.nn.Module
        The network, with the builder's initial weights.
    topo_layers : list of str
        Module names where TopoLoss acts by default (empty for a builder registered without
        ``topo_layers``).

    Raises
    ------
    UnknownNameError
        ``name`` is not a registered builder; the message lists close matches.

    Examples
    --------
    >>> net, layers = build_architecture("small_resnet", num_classes=3, widths=[4, 4, 8, 8])
    >>> net.fc.out_features, layers[:2]
    (3, ['layer1.0.conv1', 'layer1.0.conv2'])
    """
    if name not in _BUILDERS:
        raise UnknownNameError(
            f"No architecture {name!r}; {close_matches(str(name), sorted(_BUILDERS))} "
            "(toponeuro.models.list_architectures())."
        )
    model = _BUILDERS[name](**kwargs)
    layers = _TOPO_LAYERS.get(name)
    return model, (list(layers(model)) if layers is not None else [])


def _check_card(name: str, card: ModelCard) -> None:
    arch, _, tag = name.partition(".")
    if card.name != name or card.arch != arch or card.tag != tag:
        raise ParameterError(
            f"The card of {name!r} must have name={name!r}, arch={arch!r}, tag={tag!r}; got "
            f"name={card.name!r}, arch={card.arch!r}, tag={card.tag!r}."
        )


@validate_params({"name": Text(), "overwrite": Boolean()})
def register_model(name: str, card: ModelCard | None = None, *, overwrite: bool = False):
    """Decorator registering a builder (``builder(**kwargs) -> nn.Module``) under ``name``.

    The builder returns a randomly initialised model; weights are loaded by
    :func:`create_model`. The decorator returns the builder unchanged, so one builder can be
    registered under several names. (The package's own names are cards in ``cards.toml``
    whose builders register with :func:`register_builder`.) A name already registered (a
    catalogue model included) raises :class:`~toponeuro.exceptions.NameClashError` unless
    ``overwrite=True``, so a catalogue model is never replaced by accident; a builder that
    is not callable raises :class:`~toponeuro.exceptions.InputTypeError`.

    Parameters
    ----------
    name : str
        ``arch.tag`` (or ``arch`` alone for an untrained architecture).
    card : ModelCard, optional
        What is known about the weights; by default a card with the name's arch and tag
        and nothing else.
    overwrite : bool
        Replace a model already registered as ``name`` (a catalogue model included);
        without it that name raises :class:`~toponeuro.exceptions.NameClashError`.

    Returns
    -------
    callable
        The decorator, which registers the builder and returns it unchanged.

    Raises
    ------
    ParameterError
        The card's name, arch or tag do not match ``name``, or its format is unknown.

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
    if not isinstance(name, str) or not name:
        raise InputTypeError(f"A model's name must be a non-empty str; got {name!r}.")
    if card is not None and not isinstance(card, ModelCard):
        raise InputTypeError(f"card must be a ModelCard; got {type(card).__name__}.")
    arch, _, tag = name.partition(".")
    if card is None:
        card = ModelCard(name=name, arch=arch, tag=tag)
    _check_card(name, card)

    def decorator(builder: Callable) -> Callable:
        if not callable(builder):
            raise InputTypeError(f"register_model({name!r}) decorates a function "
                                 f"builder(**kwargs) -> nn.Module; got {type(builder).__name__}.")
        _ensure_registered()
        if name in _REGISTRY and not overwrite and _REGISTRY[name] != (card, builder):
            raise NameClashError(
                f"A model is already registered as {name!r}; registering another would "
                "replace it for every caller. Choose another name, or pass overwrite=True to "
                "replace it on purpose."
            )
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


@validate_params({"pattern": Text()})
def list_models(pattern: str = "*") -> list[str]:
    """Registered model names matching a glob ``pattern``, sorted.

    Parameters
    ----------
    pattern : str
        A shell-style glob (:mod:`fnmatch`, case-sensitive); ``"*"`` lists every name.

    Returns
    -------
    list of str
        The matching ``arch.tag`` names.

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


@validate_params({"name": Text()})
def model_card(name: str) -> ModelCard:
    """The :class:`ModelCard` of a registered name.

    Parameters
    ----------
    name : str
        A registered ``arch.tag`` (:func:`list_models`).

    Returns
    -------
    ModelCard
        Where its weights live, its preprocessing and its TopoLoss layers.

    Raises
    ------
    UnknownNameError
        ``name`` is not registered (close matches listed), or names an architecture with
        several weights.

    Examples
    --------
    >>> card = model_card("toponet_resnet18.tau_0.5")
    >>> card.hub_repo, card.filename, card.tau
    ('murtylab/topo-resnet18-imagenet', 'all_topo_tau_0.5.pt', 0.5)
    """
    return _lookup(name)[0]
