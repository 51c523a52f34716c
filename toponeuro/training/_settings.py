"""The settings of :func:`~toponeuro.training.train`, declared once (issue 44).

Values that travel together are one small frozen object, checked once where it is made (its
fields are declared with :func:`~toponeuro._util.frozen.validate_fields`), passed whole to
:func:`~toponeuro.training.train` and recorded whole in every checkpoint under
``"settings"`` (and the weight-changing ones in ``run.json``), with the same names as the
fields here:

- :class:`TrainSchedule` (``schedule``): epochs and the SGD settings, a recipe's ``[train]``
  table;
- :class:`TrainData` (``data``): the training images, the validation images and the batched
  augmentation;
- :class:`TrainRecords` (``records``): what the run keeps besides the weights (the step log,
  how many checkpoints).

A bad value raises the typed error of :mod:`toponeuro.exceptions` naming the field as
``schedule.lr``, ``records.log_every`` ... The 0.4 keywords of :func:`train` (``epochs=``,
``lr=``, ``val_dataset=`` ...) still work until 0.6, each with a FutureWarning naming its
replacement (:data:`OLD_TRAIN_KEYWORDS`).

Examples
--------
>>> TrainSchedule(epochs=2, lr=0.1)
TrainSchedule(epochs=2, batch_size=32, lr=0.1, momentum=0.9, weight_decay=0.0005, lr_schedule='cosine')
>>> TrainSchedule(lr=0)
Traceback (most recent call last):
...
toponeuro.exceptions.ParameterError: schedule.lr=0 is not a finite number > 0.
"""

from __future__ import annotations

import dataclasses
import numbers
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from .._util.frozen import declared, recipe_value, record_value, validate_fields
from .._util.params import COUNT, NON_NEGATIVE, POSITIVE, Constraint, Interval, Options, _Junk
from .._util.params import Callable as IsCallable
from .._util.stack import user_stacklevel
from ..exceptions import InputTypeError, UnknownNameError

__all__ = ["TrainSchedule", "TrainData", "TrainRecords", "LR_SCHEDULES", "OLD_TRAIN_KEYWORDS"]

#: the learning-rate schedules of :class:`TrainSchedule` (``None``: constant)
LR_SCHEDULES = ("cosine",)


def _from_recipe(cls, recipe: Mapping):
    """The settings of a recipe's ``[train]`` table, by field name.

    A key left out takes the field's default; a value the field declares as meaning
    ``None`` (``recipe_none``: ``lr_schedule = "constant"``, ``log_every = 0``) is
    ``None``. The command line's flags of these fields set the same keys.

    Parameters
    ----------
    recipe : mapping
        A recipe (:func:`~toponeuro.training.load_recipe`).

    Returns
    -------
    TrainSchedule or TrainRecords
        Checked.

    Examples
    --------
    >>> TrainSchedule.from_recipe({"train": {"epochs": 2, "lr": 0.1}}).lr
    0.1
    >>> TrainRecords.from_recipe({"train": {"log_every": 5}}).log_every
    5
    >>> TrainSchedule.from_recipe({"train": {"lr_schedule": "constant"}}).lr_schedule is None
    True
    """
    table = recipe["train"]
    return cls(**{f.name: recipe_value(f, table[f.name]) for f in dataclasses.fields(cls)
                  if f.init and f.name in table})


@dataclass(frozen=True)
@validate_fields({  # the one declaration: the recipe schema checks [train] by it too
    "epochs": COUNT,
    "batch_size": COUNT,
    "lr": POSITIVE,
    "momentum": Interval(numbers.Real, 0, 1, closed="left"),
    "weight_decay": NON_NEGATIVE,
    "lr_schedule": [Options(LR_SCHEDULES, error=UnknownNameError,
                            fix="schedule.lr_schedule=None keeps the learning rate constant."),
                    None],
})
class TrainSchedule:
    """How long and how :func:`~toponeuro.training.train` optimises: a recipe's ``[train]``.

    Parameters
    ----------
    epochs : int
        Total epochs (also when resuming), at least 1.
    batch_size : int
        Images per optimiser step, at least 1.
    lr : float
        SGD's learning rate, > 0 (the peak of the cosine schedule).
    momentum : float
        SGD's momentum, in [0, 1).
    weight_decay : float
        SGD's weight decay, >= 0.
    lr_schedule : {"cosine", None}
        ``"cosine"`` anneals the learning rate over all steps; ``None`` keeps it constant
        (in a recipe and on the command line: ``"constant"``).

    Examples
    --------
    >>> TrainSchedule(epochs=3).epochs, TrainSchedule().lr_schedule
    (3, 'cosine')
    """

    _name = "schedule"

    epochs: int = field(default=1, metadata=declared(
        "--epochs", "number of epochs of an image recipe", metavar="N"))
    batch_size: int = field(default=32, metadata=declared(
        "--batch-size", "the training batch: images per optimiser step", metavar="N"))
    lr: float = field(default=0.05, metadata=declared(
        "--lr", "SGD's learning rate (the peak of the cosine schedule)"))
    momentum: float = field(default=0.9, metadata=declared(
        "--momentum", "SGD's momentum, in [0, 1)"))
    weight_decay: float = field(default=5e-4, metadata=declared(
        "--weight-decay", "SGD's weight decay, >= 0"))
    lr_schedule: str | None = field(default="cosine", metadata=declared(
        "--lr-schedule", "cosine anneals the learning rate over all steps; constant keeps it",
        choices=("cosine", "constant"), none="constant", cli_none="constant",
        recipe_none=("constant", "none")))

    from_recipe = classmethod(_from_recipe)


def _is_dataset(value) -> bool:
    return (hasattr(value, "__len__") and hasattr(value, "__getitem__")
            and not isinstance(value, str | bytes | Mapping))


class _Dataset(Constraint):
    """A map-style dataset, duck-typed as torch's ``DataLoader`` reads it: a length and
    items by index (a ``torch.utils.data.Dataset``, a list of pairs), not a string, bytes
    or a mapping (a path, or a recipe's ``[data]`` table, given by mistake). A refused
    value is never of the right kind: an :class:`~toponeuro.exceptions.InputTypeError`."""

    fix = "Load the images first: a path or a recipe's [data] table is not a dataset."

    def is_satisfied_by(self, value) -> bool:
        return _is_dataset(value)

    def describe(self) -> str:
        return "a torch.utils.data.Dataset of (image, label) pairs, with a length"

    def example(self):
        return [(0, 0)]

    def bad_values(self) -> list:
        return ["images/", b"x", {"n": 1}, 3, _Junk()]


@dataclass(frozen=True)
@validate_fields({
    "dataset": _Dataset(),
    "val_dataset": [_Dataset(), None],
    "batch_transform": [IsCallable(fix="It is called as batch_transform(x, generator) on "
                                     "every training batch."), None],
})
class TrainData:
    """What :func:`~toponeuro.training.train` learns from and is checked on.

    ``train(model, dataset)`` is ``train(model, TrainData(dataset))``. The fields are
    declared (``__toponeuro_params__``); a bad value raises
    :class:`~toponeuro.exceptions.InputTypeError` naming the field: ``data.dataset='images/'
    is not a torch.utils.data.Dataset of (image, label) pairs, with a length``.

    Parameters
    ----------
    dataset : torch.utils.data.Dataset
        Yields ``(image_tensor, label)``; its length counts the steps of an epoch.
    val_dataset : torch.utils.data.Dataset, optional
        Evaluated after every epoch (``val_accuracy``).
    batch_transform : callable, optional
        ``batch_transform(x, generator)`` turns every training batch into the model's input
        (batched augmentation, e.g. :meth:`InstanceImages.augment_batch`); its generator is
        reseeded from ``(seed, epoch)`` so resuming stays exact.

    Examples
    --------
    >>> from toponeuro.training import make_synthetic_images
    >>> data = TrainData(make_synthetic_images(2, 4, 16))
    >>> len(data.dataset), data.val_dataset is None
    (8, True)
    """

    _name = "data"

    dataset: object = field(metadata=declared(
        None, "the training images (the command line: the recipe's [data], or --data)"))
    val_dataset: object = field(default=None, metadata=declared(None, "the validation images"))
    batch_transform: Callable | None = field(default=None, metadata=declared(
        None, "the batched augmentation"))

    @property
    def transform_name(self) -> str | None:
        """The batch transform's qualified name (``None``: none), as ``run.json`` records it."""
        t = self.batch_transform
        return None if t is None else getattr(t, "__qualname__", type(t).__name__)


@dataclass(frozen=True)
@validate_fields({
    "log_every": [Interval(numbers.Integral, 1, None, closed="left",
                           fix="records.log_every=None logs no steps, as 0 does in a "
                               "recipe."), None],
    "keep_checkpoints": [Interval(numbers.Integral, 1, None, closed="left",
                                  fix="records.keep_checkpoints=None keeps every one, as 0 "
                                      "does in a recipe."), None],
})
class TrainRecords:
    """What a training run keeps besides the weights (none of it changes them).

    Parameters
    ----------
    log_every : int, optional
        Every ``log_every`` steps record ``step``, ``epoch``, ``lr``, ``tau_multiplier``,
        ``loss``, ``ce_loss``, ``topo_loss`` (the optimised, τ-scaled term), ``topo_raw``
        (the unscaled TopoLoss averaged over all specs, also for τ = 0) and the batch
        ``accuracy``; kept in ``TrainResult.steps``, the checkpoints and ``steps.csv``
        (default: no step log).
    keep_checkpoints : int, optional
        Keep only the last ``keep_checkpoints`` epoch checkpoints on disk (default: all).

    Examples
    --------
    >>> TrainRecords(log_every=10)
    TrainRecords(log_every=10, keep_checkpoints=None)
    """

    _name = "records"

    log_every: int | None = field(default=None, metadata=declared(
        "--log-every", "record the step log (steps.csv) every N steps", metavar="N",
        none="no step log", cli_none="none", recipe_none=(0,)))
    keep_checkpoints: int | None = field(default=None, metadata=declared(
        "--keep-checkpoints", "keep only the last N epoch checkpoints on disk", metavar="N",
        none="all", cli_none="all", recipe_none=(0,)))

    from_recipe = classmethod(_from_recipe)


def _json(value):
    """A training setting as JSON: a dataset as ``"<kind of n>"``, a callable by its
    qualified name, the rest as every settings record writes it."""
    if _is_dataset(value):
        return f"<{type(value).__name__} of {len(value)}>"
    if callable(value):
        return getattr(value, "__qualname__", type(value).__name__)
    return record_value(value)


def train_settings_record(**settings) -> dict:
    """The settings objects as a checkpoint records them: ``{parameter: {field: value}}``.

    Datasets as ``"<kind of n>"``, the batch transform by its qualified name.

    Examples
    --------
    >>> train_settings_record(records=TrainRecords(log_every=2))
    {'records': {'log_every': 2, 'keep_checkpoints': None}}
    """
    return {name: {f.name: _json(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
            for name, obj in settings.items()}


# --- the 0.4 keywords, for one release --------------------------------------------------------
#: a 0.4 keyword of :func:`~toponeuro.training.train` -> the settings field that replaced it
#: (``parameter.field``); accepted until 0.6 with a FutureWarning
OLD_TRAIN_KEYWORDS = {
    "epochs": "schedule.epochs",
    "batch_size": "schedule.batch_size",
    "lr": "schedule.lr",
    "momentum": "schedule.momentum",
    "weight_decay": "schedule.weight_decay",
    "lr_schedule": "schedule.lr_schedule",
    "val_dataset": "data.val_dataset",
    "batch_transform": "data.batch_transform",
    "log_every": "records.log_every",
    "keep_checkpoints": "records.keep_checkpoints",
}


def _warn_old(key: str, replacement: str) -> None:
    warnings.warn(f"train({key}=...) is deprecated since toponeuro 0.5 and will be removed in "
                  f"0.6; use {replacement}.", FutureWarning, stacklevel=user_stacklevel())


def train_settings(data, schedule, records, old_keywords: Mapping) -> tuple:
    """``(data, schedule, records)`` of a :func:`train` call, as their settings objects.

    ``data`` may be a plain Dataset (:class:`TrainData` of it), ``schedule`` an int (the 0.4
    positional ``epochs``, with a FutureWarning); each 0.4 keyword warns (naming its
    replacement) and replaces its field; a keyword ``train`` never had is Python's TypeError.
    """
    if isinstance(schedule, numbers.Integral) and not isinstance(schedule, bool):
        _warn_old("epochs", "schedule=TrainSchedule(epochs=...) (the 4th positional argument "
                  "is the schedule now)")
        schedule = TrainSchedule(epochs=schedule)
    changes: dict[str, dict] = {}
    for key, value in old_keywords.items():
        if key not in OLD_TRAIN_KEYWORDS:
            raise InputTypeError(f"train() got an unexpected keyword argument {key!r}")
        param, _, name = OLD_TRAIN_KEYWORDS[key].partition(".")
        cls = {c._name: c for c in (TrainSchedule, TrainData, TrainRecords)}[param]
        _warn_old(key, f"{param}={cls.__name__}({name}=...) (toponeuro.training."
                       f"{cls.__name__})")
        changes.setdefault(param, {})[name] = value
    if not isinstance(data, TrainData):
        data = TrainData(data)
    out = {"data": data, "schedule": schedule, "records": records}
    for param, fields_ in changes.items():
        out[param] = dataclasses.replace(out[param], **fields_)
    return out["data"], out["schedule"], out["records"]
