"""Train a TopoNet: cross-entropy + TopoLoss, seeded, checkpointed every epoch, resumable."""

from __future__ import annotations

import csv
import json
import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

from .._docs import fill_doc
from .._version import __version__
from ..exceptions import CheckpointError
from ..topoloss import TopoLoss

__all__ = ["train", "TrainResult", "load_checkpoint", "list_checkpoints"]

_CKPT = "epoch_{:03d}.pt"


@dataclass
class TrainResult:
    """What :func:`train` returns: the trained model, per-epoch history, where files went.

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


def list_checkpoints(folder: str | os.PathLike) -> list[Path]:
    """Per-epoch checkpoints in ``folder`` (or its ``checkpoints/`` sub-folder), in order.

    Examples
    --------
    >>> import tempfile
    >>> from toponeuro.models import SmallResNet
    >>> from toponeuro.training import make_synthetic_images
    >>> out = tempfile.mkdtemp()
    >>> data = make_synthetic_images(n_classes=2, n_per_class=4, image_size=16)
    >>> _ = train(SmallResNet(2, widths=(4, 4, 4, 4)), data, epochs=2, batch_size=4,
    ...           out_dir=out, progress=False)
    >>> [p.name for p in list_checkpoints(out)]
    ['epoch_001.pt', 'epoch_002.pt']
    """
    folder = Path(folder)
    if (folder / "checkpoints").is_dir():
        folder = folder / "checkpoints"
    return sorted(folder.glob("epoch_*.pt"))


def load_checkpoint(path: str | os.PathLike, map_location="cpu") -> dict:
    """Read a checkpoint written by :func:`train` (safe loading: tensors and plain data only).

    Keys: ``model`` (state dict), ``optimizer``, ``scheduler``, ``epoch`` (1-based, finished
    epochs), ``global_step``, ``history``, ``topoloss`` (spec dict), ``seed``, ``recipe``,
    ``toponeuro_version``.

    Examples
    --------
    >>> import tempfile
    >>> from toponeuro.models import SmallResNet
    >>> from toponeuro.training import make_synthetic_images
    >>> data = make_synthetic_images(n_classes=2, n_per_class=4, image_size=16)
    >>> res = train(SmallResNet(2, widths=(4, 4, 4, 4)), data, batch_size=4,
    ...             out_dir=tempfile.mkdtemp(), progress=False)
    >>> ckpt = load_checkpoint(res.checkpoints[-1])
    >>> ckpt["epoch"], sorted(ckpt["model"])[:1]
    (1, ['bn1.bias'])
    """
    try:
        ckpt = torch.load(path, map_location=map_location, weights_only=True)
    except Exception as err:
        raise CheckpointError(
            f"Cannot read checkpoint {path} ({type(err).__name__}: {err}). It may be truncated "
            "by a kill during saving; delete it to resume from the previous epoch."
        ) from err
    if not isinstance(ckpt, dict) or "model" not in ckpt or "epoch" not in ckpt:
        raise CheckpointError(f"{path} is not a toponeuro training checkpoint.")
    return ckpt


def _load_weights(module: nn.Module, state: dict, path, mismatch: str, fix: str) -> None:
    """``module.load_state_dict(state)``; keys or shapes that do not fit raise CheckpointError
    naming ``path``, the ``mismatch``, torch's first line and the ``fix``."""
    try:
        module.load_state_dict(state)
    except RuntimeError as err:
        raise CheckpointError(f"{path}: {mismatch} ({str(err).splitlines()[0]}). {fix}") from err


def _save_atomic(obj, path: Path) -> None:
    tmp = path.with_suffix(".pt.part")
    torch.save(obj, tmp)
    os.replace(tmp, path)


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
    tmp = path.with_suffix(".csv.part")
    with open(tmp, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(steps[0]))
        writer.writeheader()
        writer.writerows(steps)
    os.replace(tmp, path)


def _evaluate(model, loader, device) -> float:
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for x, y in loader:
            out = model(x.to(device))
            correct += int((out.argmax(1).cpu() == y).sum())
            total += len(y)
    return correct / max(total, 1)


@fill_doc
def train(
    model: nn.Module,
    dataset: Dataset,
    topoloss: TopoLoss | None = None,
    epochs: int = 1,
    *,
    batch_size: int = 32,
    lr: float = 0.05,
    momentum: float = 0.9,
    weight_decay: float = 5e-4,
    lr_schedule: str | None = "cosine",
    seed: int = 0,
    out_dir: str | os.PathLike | None = None,
    resume: bool = True,
    device: str = "cpu",
    progress: bool = True,
    val_dataset: Dataset | None = None,
    recipe: dict | None = None,
    batch_transform: Callable[[torch.Tensor, torch.Generator], torch.Tensor] | None = None,
    log_every: int | None = None,
    keep_checkpoints: int | None = None,
) -> TrainResult:
    """Train ``model`` on ``dataset`` with cross-entropy + TopoLoss.

    The same seed gives the same weights on CPU. After every epoch a checkpoint
    ``<out_dir>/checkpoints/epoch_XXX.pt`` is written atomically, with ``history.json``
    beside it; with ``resume=True`` a rerun continues after the last complete epoch and ends
    with exactly the weights an uninterrupted run would have (every epoch reseeds its shuffling
    and augmentation from ``(seed, epoch)``).

    Parameters
    ----------
    model : torch.nn.Module
        A classifier returning logits.
    dataset : torch.utils.data.Dataset
        Yields ``(image_tensor, label)``.
    topoloss : TopoLoss, optional
        Added to the cross-entropy at every step (``topoloss(model, step=global_step)``).
        ``None`` trains a control network; per-layer topo losses are then not logged.
    epochs : int
        Total epochs (also when resuming).
    batch_size, lr, momentum, weight_decay : float
        SGD settings; ``lr_schedule="cosine"`` anneals the learning rate over all steps.
    seed : int
    out_dir : path-like, optional
        Where checkpoints and history go; ``None`` keeps everything in memory.
    resume : bool
    %(device)s
    %(progress)s
    val_dataset : Dataset, optional
        Evaluated after every epoch (``val_accuracy``).
    recipe : dict, optional
        Stored in each checkpoint so a run can be reproduced from it.
    batch_transform : callable, optional
        ``batch_transform(x, generator)`` turns every training batch into the model's input
        (batched augmentation, e.g. :meth:`InstanceImages.augment_batch`); its generator is
        reseeded from ``(seed, epoch)`` so resuming stays exact.
    log_every : int, optional
        Every ``log_every`` steps record ``step``, ``epoch``, ``lr``, ``tau_multiplier``,
        ``loss``, ``ce_loss``, ``topo_loss`` (the optimised, τ-scaled term), ``topo_raw``
        (the unscaled TopoLoss averaged over all specs, also for τ = 0) and the batch
        ``accuracy``; kept in ``TrainResult.steps``, the checkpoints and ``steps.csv``.
    keep_checkpoints : int, optional
        Keep only the last ``keep_checkpoints`` epoch checkpoints on disk (default: all).

    Returns
    -------
    TrainResult
        ``history`` holds one dict per epoch: ``epoch``, ``loss``, ``ce_loss``,
        ``topo_loss``, ``train_accuracy``, ``val_accuracy``, ``lr``, ``seconds`` and
        ``topo/<layer>`` (unscaled per-layer TopoLoss at the epoch's end).

    Examples
    --------
    >>> from toponeuro.models import SmallResNet, small_resnet_topo_layers
    >>> from toponeuro.topoloss import TopoLoss
    >>> from toponeuro.training import make_synthetic_images
    >>> model = SmallResNet(num_classes=2, widths=(4, 4, 4, 8))
    >>> topo = TopoLoss.for_layers(model, small_resnet_topo_layers(), factor_h=2, factor_w=2, tau=1.0)
    >>> data = make_synthetic_images(n_classes=2, n_per_class=4, image_size=16)
    >>> res = train(model, data, topo, epochs=1, batch_size=4, progress=False)
    >>> len(res.history), sorted(res.history[0])[:3]
    (1, ['ce_loss', 'epoch', 'loss'])
    """
    from tqdm.auto import tqdm

    device = torch.device(device)
    model.to(device)
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum, weight_decay=weight_decay)
    steps_per_epoch = math.ceil(len(dataset) / batch_size)
    total_steps = max(1, steps_per_epoch * epochs)
    sched = (
        torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=total_steps)
        if lr_schedule == "cosine"
        else None
    )
    history: list[dict] = []
    steps: list[dict] = []
    start_epoch, global_step = 0, 0
    ckpt_dir = None
    if out_dir is not None:
        out_dir = Path(out_dir)
        ckpt_dir = out_dir / "checkpoints"
        ckpt_dir.mkdir(parents=True, exist_ok=True)
        existing = list_checkpoints(ckpt_dir)
        if existing and resume:
            ckpt = load_checkpoint(existing[-1], map_location=device)
            model.load_state_dict(ckpt["model"])
            opt.load_state_dict(ckpt["optimizer"])
            if sched is not None and ckpt.get("scheduler"):
                sched.load_state_dict(ckpt["scheduler"])
            start_epoch, global_step = int(ckpt["epoch"]), int(ckpt["global_step"])
            history = list(ckpt.get("history", []))
            steps = list(ckpt.get("steps", []))
        elif existing:
            for p in existing:
                p.unlink()
    ce = nn.CrossEntropyLoss()
    val_loader = (
        DataLoader(val_dataset, batch_size=batch_size, shuffle=False) if val_dataset else None
    )
    for epoch in range(start_epoch, epochs):
        t0 = time.perf_counter()
        torch.manual_seed(_epoch_seed(seed, epoch))
        gen = torch.Generator().manual_seed(_epoch_seed(seed, epoch))
        loader = DataLoader(dataset, batch_size=batch_size, shuffle=True, generator=gen)
        aug_gen = torch.Generator().manual_seed(_epoch_seed(seed, epoch) + 1)
        model.train()
        sums = {"loss": 0.0, "ce_loss": 0.0, "topo_loss": 0.0}
        correct = seen = 0
        bar = tqdm(loader, desc=f"epoch {epoch + 1}/{epochs}", disable=not progress, leave=False)
        for x, y in bar:
            if batch_transform is not None:
                x = batch_transform(x, aug_gen)
            x, y = x.to(device), y.to(device)
            opt.zero_grad(set_to_none=True)
            out = model(x)
            ce_loss = ce(out, y)
            topo = topoloss(model, step=global_step) if topoloss is not None else None
            loss = ce_loss + topo if topo is not None else ce_loss
            loss.backward()
            opt.step()
            if sched is not None:
                sched.step()
            global_step += 1
            if log_every and global_step % int(log_every) == 0:
                steps.append(_step_record(global_step, epoch, opt, topoloss, model, loss,
                                          ce_loss, topo, out, y))
            n = len(y)
            sums["loss"] += loss.item() * n
            sums["ce_loss"] += ce_loss.item() * n
            sums["topo_loss"] += topo.item() * n if topo is not None else 0.0
            correct += int((out.argmax(1) == y).sum())
            seen += n
            bar.set_postfix(loss=f"{loss.item():.3f}", acc=f"{correct / seen:.3f}")
        record = {k: v / max(seen, 1) for k, v in sums.items()}
        record.update(epoch=epoch + 1, train_accuracy=correct / max(seen, 1))
        record["lr"] = opt.param_groups[0]["lr"]
        if topoloss is not None:
            with torch.no_grad():
                for name, val in topoloss.layerwise(model).items():
                    record[f"topo/{name}"] = float(val)
        if val_loader is not None:
            record["val_accuracy"] = _evaluate(model, val_loader, device)
        record["seconds"] = time.perf_counter() - t0
        history.append(record)
        if progress:
            shown = {k: round(v, 4) for k, v in record.items() if not k.startswith("topo/")}
            tqdm.write(f"epoch {epoch + 1}/{epochs}: {shown}")
        if ckpt_dir is not None:
            _save_atomic(
                {
                    "model": model.state_dict(),
                    "optimizer": opt.state_dict(),
                    "scheduler": sched.state_dict() if sched is not None else None,
                    "epoch": epoch + 1,
                    "global_step": global_step,
                    "history": history,
                    "steps": steps,
                    "topoloss": topoloss.to_dict() if topoloss is not None else None,
                    "seed": seed,
                    "recipe": recipe,
                    "toponeuro_version": __version__,
                },
                ckpt_dir / _CKPT.format(epoch + 1),
            )
            with open(out_dir / "history.json", "w") as f:
                json.dump(history, f, indent=2)
            if steps:
                _write_steps_csv(steps, out_dir / "steps.csv")
            if keep_checkpoints:
                for old in list_checkpoints(ckpt_dir)[: -int(keep_checkpoints)]:
                    old.unlink()
    return TrainResult(
        model=model,
        history=history,
        out_dir=out_dir,
        checkpoints=list_checkpoints(ckpt_dir) if ckpt_dir is not None else [],
        steps=steps,
    )

