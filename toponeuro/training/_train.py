"""Train a TopoNet: cross-entropy + TopoLoss, seeded, checkpointed every epoch, resumable."""

from __future__ import annotations

import copy
import csv
import json
import math
import os
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

from .._io.output import (
    atomic_file,
    save_torch,
    write_text,
)
from .._util import params as P
from .._util.constraints import TorchModule
from .._util.docs import fill_doc
from .._util.frozen import validate_fields
from .._util.stack import user_stacklevel
from .._version import __version__
from ..exceptions import (
    CheckpointError,
    InvalidDataError,
    ToponeuroWarning,
    TrainingDivergedError,
)
from ..topoloss import TopoLoss
from ._checkpoint import non_finite_tensors, read_checkpoint_file, validate_checkpoint
from ._runs import _normalised, _open_run, _RunLayout, _strip_recipe, run_identity
from ._settings import TrainData, TrainRecords, TrainSchedule, train_settings, train_settings_record

__all__ = ["train", "TrainResult", "load_checkpoint", "list_checkpoints"]

_CKPT = "epoch_{:03d}.pt"


#: a list a result holds (history rows, checkpoint paths)
_LIST = P.InstanceOf(list, "a list", example=list)


@dataclass
@validate_fields({
    "model": TorchModule(), "history": _LIST, "out_dir": [P.PathLike(), None],
    "checkpoints": _LIST, "steps": _LIST})
class TrainResult:
    """What :func:`train` returns: the trained model, per-epoch history, where files went.

    Parameters
    ----------
    model : torch.nn.Module
        The trained network.
    history : list of dict
        One entry per epoch (losses, accuracies, τ, learning rate).
    out_dir : pathlib.Path or None
        The run's folder (``None`` when nothing was written).
    checkpoints : list of pathlib.Path
        The per-epoch checkpoints written, in order.
    steps : list of dict
        One entry per logged optimiser step.

    Examples
    --------
    >>> res = TrainResult(model=nn.Linear(2, 2))
    >>> res.history, res.out_dir, res.checkpoints
    ([], None, [])
    """

    model: nn.Module
    history: list[dict] = field(default_factory=list)
    out_dir: Path | None = None
    checkpoints: list[Path] = field(default_factory=list)
    steps: list[dict] = field(default_factory=list)


@P.validate_params({"folder": P.PathLike()})
def list_checkpoints(folder: str | os.PathLike) -> list[Path]:
    """Per-epoch checkpoints in ``folder`` (or its ``checkpoints/`` sub-folder), in order.

    Parameters
    ----------
    folder : path-like
        A run's folder (``out_dir`` of :func:`train`) or its ``checkpoints/`` sub-folder.

    Returns
    -------
    list of pathlib.Path
        The ``epoch_NNN.pt`` files, oldest first (empty when there are none).

    Examples
    --------
    >>> import tempfile
    >>> from toponeuro.models import SmallResNet
    >>> from toponeuro.training import make_synthetic_images
    >>> out = tempfile.mkdtemp()
    >>> data = make_synthetic_images(n_classes=2, n_per_class=4, image_size=16)
    >>> _ = train(SmallResNet(2, widths=(4, 4, 4, 4)), data, None, TrainSchedule(2, batch_size=4),
    ...           out_dir=out, progress=False)
    >>> [p.name for p in list_checkpoints(out)]
    ['epoch_001.pt', 'epoch_002.pt']
    """
    folder = Path(folder)
    if (folder / "checkpoints").is_dir():
        folder = folder / "checkpoints"
    return sorted(folder.glob("epoch_*.pt"))


@P.validate_params({"resume": P.Boolean()})
@fill_doc
def load_checkpoint(path: str | os.PathLike, map_location="cpu", *, resume: bool = False) -> dict:
    """Read a checkpoint written by :func:`train` (safe loading: tensors and plain data only).

    Every field is checked (:func:`~toponeuro.training.validate_checkpoint`): a missing or
    malformed one, or NaN / infinite weights, raise a
    :class:`~toponeuro.exceptions.CheckpointError` naming it. ``resume=True`` (what a rerun of
    :func:`train` uses) also requires what resuming needs: ``epoch`` >= 1 and ``global_step``.

    Keys: ``model`` (state dict), ``optimizer``, ``scheduler``, ``epoch`` (1-based, finished
    epochs), ``global_step``, ``history``, ``topoloss`` (spec dict), ``seed``, ``recipe``,
    ``toponeuro_version``.

    Parameters
    ----------
    path : path-like
        The checkpoint file.
    %(map_location)s
    resume : bool
        Also require what resuming needs (``epoch`` >= 1, ``global_step``).

    Returns
    -------
    dict
        The checkpoint's fields, checked.

    Examples
    --------
    >>> import tempfile
    >>> from toponeuro.models import SmallResNet
    >>> from toponeuro.training import make_synthetic_images
    >>> data = make_synthetic_images(n_classes=2, n_per_class=4, image_size=16)
    >>> res = train(SmallResNet(2, widths=(4, 4, 4, 4)), data,
    ...             schedule=TrainSchedule(batch_size=4), out_dir=tempfile.mkdtemp(),
    ...             progress=False)
    >>> ckpt = load_checkpoint(res.checkpoints[-1])
    >>> ckpt["epoch"], sorted(ckpt["model"])[:1]
    (1, ['bn1.bias'])
    """
    ckpt = read_checkpoint_file(path, map_location, fix="It may be truncated by a kill during "
                                "saving; delete it to resume from the previous epoch.")
    return validate_checkpoint(ckpt, path, training=resume)


def _load_weights(module: nn.Module, state: dict, path, mismatch: str, fix: str) -> None:
    """``module.load_state_dict(state)``; keys or shapes that do not fit raise CheckpointError
    naming ``path``, the ``mismatch``, torch's first line and the ``fix``."""
    try:
        module.load_state_dict(state)
    except RuntimeError as err:
        raise CheckpointError(f"{path}: {mismatch} ({str(err).splitlines()[0]}). {fix}") from err


def _save_atomic(obj, path: Path) -> None:
    save_torch(obj, path)  # the writer: a random temporary name, renamed when complete


def _epoch_seed(seed: int, epoch: int) -> int:
    return (int(seed) * 1_000_003 + int(epoch)) % (2**63)


def _step_record(step, epoch, opt, topoloss, model, loss, ce_loss, topo, out, y) -> dict:
    rec = {
        "step": step,
        "epoch": epoch + 1,
        "lr": opt.param_groups[0]["lr"],
        "tau_multiplier": float("nan"),
        "loss": loss.item(),
        "ce_loss": ce_loss.item(),
        "topo_loss": topo.item() if topo is not None else float("nan"),
        "topo_raw": float("nan"),
        "accuracy": float((out.argmax(1) == y).float().mean()),
    }
    if topoloss is not None:
        if topoloss.schedule is not None:
            rec["tau_multiplier"] = topoloss.schedule(step - 1)
        else:
            rec["tau_multiplier"] = 1.0
        with torch.no_grad():
            vals = list(topoloss.layerwise(model).values())
        rec["topo_raw"] = float(torch.stack(vals).mean()) if vals else float("nan")
    return rec


def _write_steps_csv(steps: list[dict], path: Path) -> None:
    with atomic_file(path) as tmp, open(tmp, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(steps[0]))
        writer.writeheader()
        writer.writerows(steps)


def _evaluate(model, loader, device) -> float:
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for x, y in loader:
            out = model(x.to(device))
            correct += int((out.argmax(1).cpu() == y).sum())
            total += len(y)
    return correct / max(total, 1)


def _image_legacy(path: Path) -> dict:
    ckpt = load_checkpoint(path)
    return {"legacy": True, "recipe": _strip_recipe(ckpt.get("recipe")),
            "seed": ckpt.get("seed"), "topoloss": _normalised(ckpt.get("topoloss"))}


#: the run folder of :func:`train`
_IMAGE_RUN = _RunLayout(
    written=("checkpoints/epoch_*.pt", "checkpoints/epoch_*.pt.part", "history.json",
             "steps.csv"),
    checkpoints=lambda out_dir: (list_checkpoints(out_dir / "checkpoints")
                                 if (out_dir / "checkpoints").is_dir() else []),
    legacy=_image_legacy,
)


def _overridden(recipe: dict, *, seed=None, data_path=None, **train) -> dict:
    """A copy of ``recipe`` with what a caller overrides: ``seed``, ``data.path`` and
    ``train`` entries (``epochs=``, ``steps=``); ``None`` keeps the recipe's value."""
    recipe = copy.deepcopy(recipe)
    for key, value in train.items():
        if value is not None:
            recipe["train"][key] = value  # validated when the run is built
    if seed is not None:
        recipe["seed"] = seed
    if data_path is not None:
        recipe["data"]["path"] = str(data_path)
    return recipe


def _run_folder(out_dir, recipe: dict) -> Path:
    """The folder of a recipe's run: ``out_dir``, by default ``runs/<recipe name>``."""
    return Path(out_dir) if out_dir is not None else Path("runs") / recipe["name"]


def _divergence(what: str, at: str, lr: float, *, unsaved: str, where: str,
                lr_name: str = "lr=, train.lr in a recipe") -> TrainingDivergedError:
    """The error of a run stopped at a non-finite ``what`` (the loss, a gradient, the weights)."""
    return TrainingDivergedError(
        f"Training diverged: {what} became NaN or infinite at {at} with learning rate "
        f"{lr:g}. Training stopped and nothing from {unsaved} was saved; {where}. Lower the "
        f"learning rate ({lr_name}), e.g. to {lr / 10:g}, and rerun with restart=True."
    )


def _grads_finite(model: nn.Module) -> bool:
    grads = [p.grad.detach() for p in model.parameters() if p.grad is not None]
    return not grads or bool(torch.stack([g.abs().amax() for g in grads]).isfinite().all())


def _check_labels(y: torch.Tensor, out: torch.Tensor) -> None:
    n_out = out.shape[1]
    if y.numel() and (int(y.max()) >= n_out or int(y.min()) < 0):
        raise InvalidDataError(
            f"The data has class labels from {int(y.min())} to {int(y.max())}, but the model has "
            f"{n_out} outputs; set num_classes (model.num_classes in a recipe) to the number of "
            f"classes in the data (at least {int(y.max()) + 1})."
        )


@dataclass
class _Run:
    """The state of one training run between steps, and its stages: one step, one epoch,
    one checkpoint."""

    model: nn.Module
    opt: torch.optim.Optimizer
    sched: object
    topoloss: TopoLoss | None
    device: torch.device
    ckpt_dir: Path | None
    out_dir: Path | None
    history: list = field(default_factory=list)
    steps: list = field(default_factory=list)
    global_step: int = 0
    last_good: Path | None = None
    ce: nn.Module = field(default_factory=nn.CrossEntropyLoss)

    def diverged(self, what: str, epoch: int, lr: float) -> TrainingDivergedError:
        if self.last_good is not None:
            where = f"the last good checkpoint is {self.last_good}"
        elif self.ckpt_dir is None:
            where = "nothing is kept on disk (out_dir=None)"
        else:
            where = f"there is no good checkpoint yet (the first epoch failed; {self.ckpt_dir})"
        return _divergence(what, f"step {self.global_step} (epoch {epoch + 1})", lr,
                           unsaved="this epoch", where=where)

    def step(self, x, y, epoch: int, log_every: int | None):
        """One optimisation step; ``(logits, loss, ce_loss, topo)``. Stops at the first
        non-finite loss or gradient, before the weights change."""
        self.opt.zero_grad(set_to_none=True)
        out = self.model(x)
        _check_labels(y, out)
        ce_loss = self.ce(out, y)
        topo = (self.topoloss(self.model, step=self.global_step)
                if self.topoloss is not None else None)
        loss = ce_loss + topo if topo is not None else ce_loss
        lr = self.opt.param_groups[0]["lr"]
        if not bool(torch.isfinite(loss.detach())):
            self.global_step += 1
            raise self.diverged("the loss", epoch, lr)
        loss.backward()
        if not _grads_finite(self.model):
            self.global_step += 1
            raise self.diverged("a gradient", epoch, lr)
        self.opt.step()
        if self.sched is not None:
            self.sched.step()
        self.global_step += 1
        if log_every and self.global_step % int(log_every) == 0:
            self.steps.append(_step_record(self.global_step, epoch, self.opt, self.topoloss,
                                           self.model, loss, ce_loss, topo, out, y))
        return out, loss, ce_loss, topo

    def epoch(self, dataset, epoch: int, *, epochs: int, batch_size: int, seed: int,
              batch_transform, log_every, val_loader, progress: bool) -> dict:
        """Train one epoch (shuffling and augmentation reseeded from ``(seed, epoch)``);
        its history record."""
        from tqdm.auto import tqdm

        t0 = time.perf_counter()
        torch.manual_seed(_epoch_seed(seed, epoch))
        gen = torch.Generator().manual_seed(_epoch_seed(seed, epoch))
        loader = DataLoader(dataset, batch_size=batch_size, shuffle=True, generator=gen)
        aug_gen = torch.Generator().manual_seed(_epoch_seed(seed, epoch) + 1)
        self.model.train()
        sums = {"loss": 0.0, "ce_loss": 0.0, "topo_loss": 0.0}
        correct = seen = 0
        bar = tqdm(loader, desc=f"epoch {epoch + 1}/{epochs}", disable=not progress, leave=False)
        for x, y in bar:
            if batch_transform is not None:
                x = batch_transform(x, aug_gen)
            x, y = x.to(self.device), y.to(self.device)
            out, loss, ce_loss, topo = self.step(x, y, epoch, log_every)
            n = len(y)
            sums["loss"] += loss.item() * n
            sums["ce_loss"] += ce_loss.item() * n
            sums["topo_loss"] += topo.item() * n if topo is not None else 0.0
            correct += int((out.argmax(1) == y).sum())
            seen += n
            bar.set_postfix(loss=f"{loss.item():.3f}", acc=f"{correct / seen:.3f}")
        bad = non_finite_tensors(self.model.state_dict())
        if bad:  # the last step's update overflowed (or a BatchNorm statistic did)
            raise self.diverged(f"the weights ({bad[0]!r})", epoch, self.opt.param_groups[0]["lr"])
        record = {k: v / max(seen, 1) for k, v in sums.items()}
        record.update(epoch=epoch + 1, train_accuracy=correct / max(seen, 1))
        record["lr"] = self.opt.param_groups[0]["lr"]
        if self.topoloss is not None:
            with torch.no_grad():
                for name, val in self.topoloss.layerwise(self.model).items():
                    record[f"topo/{name}"] = float(val)
        if val_loader is not None:
            record["val_accuracy"] = _evaluate(self.model, val_loader, self.device)
        record["seconds"] = time.perf_counter() - t0
        return record

    def save(self, epoch: int, *, seed: int, recipe, settings, keep_checkpoints) -> None:
        """Checkpoint ``epoch`` (atomically), then history.json and steps.csv."""
        path = self.ckpt_dir / _CKPT.format(epoch + 1)
        _save_atomic(
            {
                "model": self.model.state_dict(),
                "optimizer": self.opt.state_dict(),
                "scheduler": self.sched.state_dict() if self.sched is not None else None,
                "epoch": epoch + 1,
                "global_step": self.global_step,
                "history": self.history,
                "steps": self.steps,
                "topoloss": self.topoloss.to_dict() if self.topoloss is not None else None,
                "seed": seed,
                "recipe": recipe,
                "settings": settings,
                "toponeuro_version": __version__,
            },
            path,
        )
        self.last_good = path
        write_text(self.out_dir / "history.json", json.dumps(self.history, indent=2))
        if self.steps:
            _write_steps_csv(self.steps, self.out_dir / "steps.csv")
        if keep_checkpoints:
            for old in list_checkpoints(self.ckpt_dir)[: -int(keep_checkpoints)]:
                old.unlink()

    def resume_from(self, path: Path) -> int:
        """Load the checkpoint ``path`` (validated); the number of finished epochs."""
        ckpt = load_checkpoint(path, map_location=self.device, resume=True)
        _load_weights(self.model, ckpt["model"], path,
                      "its weights do not fit this model",
                      "Pass restart=True to start over, or another out_dir=.")
        self.opt.load_state_dict(ckpt["optimizer"])
        if self.sched is not None and ckpt.get("scheduler"):
            self.sched.load_state_dict(ckpt["scheduler"])
        self.global_step = int(ckpt["global_step"])
        self.history = list(ckpt.get("history", []))
        self.steps = list(ckpt.get("steps", []))
        self.last_good = path
        return int(ckpt["epoch"])


@P.validate_params(dict(
    topoloss=[P.InstanceOf(TopoLoss, "a toponeuro.topoloss.TopoLoss", fix="The schedule is "
                           "the 4th argument (or schedule=)."), None],
    schedule=[P.InstanceOf(TrainSchedule, "a toponeuro.training.TrainSchedule",
                           example=TrainSchedule), P.COUNT],
    records=P.InstanceOf(TrainRecords, "a toponeuro.training.TrainRecords",
                         example=TrainRecords),
    seed=P.NON_NEGATIVE_INT, resume=P.Boolean(), restart=P.Boolean(), progress=P.Boolean(),
), prefer_skip_nested_validation=False)  # the datasets and batch_transform: TrainData checks
@fill_doc
def train(
    model: nn.Module,
    data: Dataset | TrainData,
    topoloss: TopoLoss | None = None,
    schedule: TrainSchedule = TrainSchedule(),
    *,
    seed: int = 0,
    out_dir: str | os.PathLike | None = None,
    resume: bool = True,
    restart: bool = False,
    device: str = "cpu",
    progress: bool = True,
    recipe: dict | None = None,
    records: TrainRecords = TrainRecords(),
    **old_keywords,
) -> TrainResult:
    """Train ``model`` on ``data`` with cross-entropy + TopoLoss.

    The same seed gives the same weights on CPU. After every epoch a checkpoint
    ``<out_dir>/checkpoints/epoch_XXX.pt`` is written atomically, with ``history.json``
    beside it; with ``resume=True`` a rerun continues after the last complete epoch and ends
    with exactly the weights an uninterrupted run would have (every epoch reseeds its shuffling
    and augmentation from ``(seed, epoch)``).

    Training stops at the first loss or gradient that is NaN or infinite (and at weights that
    became so) with a :class:`~toponeuro.exceptions.TrainingDivergedError` naming the step,
    the learning rate and the last good checkpoint; a checkpoint with non-finite weights is
    never written. ``<out_dir>/run.json`` records the run's identity (recipe, settings,
    TopoLoss, parameter shapes; :func:`run_identity`) and its sha256: a rerun with another
    recipe or other settings is refused unless ``restart=True``.

    Parameters
    ----------
    model : torch.nn.Module
        A classifier returning logits.
    data : torch.utils.data.Dataset or TrainData
        The training images (yielding ``(image_tensor, label)``), or a :class:`TrainData`
        with the validation images and the batched augmentation too.
    topoloss : TopoLoss, optional
        Added to the cross-entropy at every step (``topoloss(model, step=global_step)``).
        ``None`` trains a control network; per-layer topo losses are then not logged. A
        TopoLoss with no layers warns (it is a control too).
    schedule : TrainSchedule
        Epochs (in total, also when resuming), batch size and the SGD settings
        (:class:`TrainSchedule`; a recipe's ``[train]``: :meth:`TrainSchedule.from_recipe`).
    seed : int
        Seed of the initial shuffling and augmentation draws (each epoch reseeds from
        ``(seed, epoch)``).
    out_dir : path-like, optional
        Where checkpoints and history go; ``None`` keeps everything in memory. A folder
        holding files that are not a training run's is refused, never written into.
    resume : bool
        Continue the run in ``out_dir`` after its last checkpoint; ``False`` starts the same
        run over.
    restart : bool
        Discard the run in ``out_dir`` even if another recipe or other settings made it, and
        start over (without it such a folder is refused with
        :class:`~toponeuro.exceptions.RecipeMismatchError`).
    %(device)s
    %(progress)s
    recipe : dict, optional
        Stored in each checkpoint so a run can be reproduced from it.
    records : TrainRecords
        The step log (``log_every``) and how many checkpoints are kept
        (:class:`TrainRecords`).
    **old_keywords
        The 0.4 keywords (``epochs=``, ``batch_size=``, ``lr=``, ``momentum=``,
        ``weight_decay=``, ``lr_schedule=``, ``val_dataset=``, ``batch_transform=``,
        ``log_every=``, ``keep_checkpoints=``; and ``epochs`` as the 4th positional argument),
        until 0.6: each warns (FutureWarning) and sets the settings field that replaced it
        (``toponeuro.training.OLD_TRAIN_KEYWORDS``). Every checkpoint records the settings
        whole under ``settings`` (``schedule``, ``data``, ``records``), by the fields' names.

    Returns
    -------
    TrainResult
        ``history`` holds one dict per epoch: ``epoch``, ``loss``, ``ce_loss``,
        ``topo_loss``, ``train_accuracy``, ``val_accuracy``, ``lr``, ``seconds`` and
        ``topo/<layer>`` (unscaled per-layer TopoLoss at the epoch's end).

    Raises
    ------
    TrainingDivergedError
        A loss, gradient or weight became NaN or infinite.
    RecipeMismatchError
        ``out_dir`` holds a run of another recipe or other settings (and ``restart`` is False).
    OutputExistsError
        ``out_dir`` holds files that are not a toponeuro training run.
    CheckpointError
        The checkpoint to resume from is malformed or does not fit the model.
    InvalidDataError
        Class labels outside the model's outputs.

    Examples
    --------
    >>> from toponeuro.models import SmallResNet, small_resnet_topo_layers
    >>> from toponeuro.topoloss import TopoLoss
    >>> from toponeuro.training import make_synthetic_images
    >>> model = SmallResNet(num_classes=2, widths=(4, 4, 4, 8))
    >>> topo = TopoLoss.for_layers(model, small_resnet_topo_layers(), factor_h=2, factor_w=2, tau=1.0)
    >>> data = make_synthetic_images(n_classes=2, n_per_class=4, image_size=16)
    >>> res = train(model, data, topo, TrainSchedule(epochs=1, batch_size=4), progress=False)
    >>> len(res.history), sorted(res.history[0])[:3]
    (1, ['ce_loss', 'epoch', 'loss'])
    """
    from tqdm.auto import tqdm

    data, sch, records = train_settings(data, schedule, records, old_keywords)
    device = torch.device(device)
    model.to(device)
    if topoloss is not None and not topoloss.specs:
        warnings.warn(ToponeuroWarning(
            "The TopoLoss has no layers (topoloss.layers = [] in a recipe): the model trains "
            "with cross-entropy only, as a control. List layers (or 'topo' for the "
            "architecture's default), or drop the [topoloss] table for an intended control."
        ), stacklevel=user_stacklevel())
    opt = torch.optim.SGD(model.parameters(), lr=sch.lr, momentum=sch.momentum,
                          weight_decay=sch.weight_decay)
    steps_per_epoch = math.ceil(len(data.dataset) / sch.batch_size)
    sched = (
        torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=max(1, steps_per_epoch * sch.epochs))
        if sch.lr_schedule == "cosine"
        else None
    )
    run = _Run(model, opt, sched, topoloss, device, None, None)
    start_epoch = 0
    if out_dir is not None:
        run.out_dir = Path(out_dir)
        identity = run_identity(model, topoloss, recipe, seed=seed,
                                batch_transform=data.transform_name,
                                **train_settings_record(schedule=sch))
        existing = _open_run(run.out_dir, identity, resume=resume, restart=restart,
                             layout=_IMAGE_RUN)
        run.ckpt_dir = run.out_dir / "checkpoints"
        run.ckpt_dir.mkdir(exist_ok=True)
        if existing and resume:
            start_epoch = run.resume_from(existing[-1])
    val_loader = (DataLoader(data.val_dataset, batch_size=sch.batch_size, shuffle=False)
                  if data.val_dataset else None)
    settings = train_settings_record(schedule=sch, data=data, records=records)
    for epoch in range(start_epoch, sch.epochs):
        record = run.epoch(data.dataset, epoch, epochs=sch.epochs, batch_size=sch.batch_size,
                           seed=seed, batch_transform=data.batch_transform,
                           log_every=records.log_every, val_loader=val_loader, progress=progress)
        run.history.append(record)
        if progress:
            shown = {k: round(v, 4) for k, v in record.items() if not k.startswith("topo/")}
            tqdm.write(f"epoch {epoch + 1}/{sch.epochs}: {shown}")
        if run.ckpt_dir is not None:
            run.save(epoch, seed=seed, recipe=recipe, settings=settings,
                     keep_checkpoints=records.keep_checkpoints)
    return TrainResult(
        model=model,
        history=run.history,
        out_dir=run.out_dir,
        checkpoints=list_checkpoints(run.ckpt_dir) if run.ckpt_dir is not None else [],
        steps=run.steps,
    )
