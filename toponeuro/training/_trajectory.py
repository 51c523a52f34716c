"""Metrics over training: apply a function to every per-epoch checkpoint of a run."""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from pathlib import Path

import pandas as pd

from .._util.constraints import TorchModule
from .._util.params import InstanceOf, PathLike, validate_params
from ..exceptions import CheckpointError
from ._train import _load_weights, list_checkpoints, load_checkpoint

__all__ = ["trajectory"]


def _checkpoint_paths(checkpoints) -> list[Path]:
    if isinstance(checkpoints, str | Path) and Path(checkpoints).is_dir():
        paths = list_checkpoints(checkpoints)
        if not paths:
            raise CheckpointError(
                f"No epoch_XXX.pt checkpoints in {checkpoints} (nor in its checkpoints/ "
                "folder); point at the folder `toponeuro train` wrote, or pass a list of files."
            )
        return paths
    if isinstance(checkpoints, str | Path):
        checkpoints = [checkpoints]
    paths = [Path(p) for p in checkpoints]
    if not paths:
        raise CheckpointError("Give at least one checkpoint file (or a folder of them).")
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        raise CheckpointError(f"Checkpoint files not found: {missing}.")
    return paths


@validate_params(dict(checkpoints=[PathLike(), InstanceOf((list, tuple), "a list of checkpoint paths", example=[])],
                      metric_fn="callable", model=[TorchModule(), None]))
def trajectory(
    checkpoints,
    metric_fn: Callable,
    model=None,
) -> pd.DataFrame:
    """Apply a metric to every per-epoch checkpoint of a training run (alignment over training).

    Parameters
    ----------
    checkpoints : folder, path or sequence of paths
        A training output folder (or its ``checkpoints/``) of ``epoch_XXX.pt`` files, as
        ``toponeuro train`` saves them (a dict with ``"model"`` = state_dict and ``"epoch"``),
        or the files themselves. Read with :func:`load_checkpoint`
        (safe loading).
    metric_fn : callable
        With ``model``: ``metric_fn(model) -> float or mapping of floats`` after the epoch's
        weights are loaded; without: ``metric_fn(checkpoint_dict)``.
    model : torch.nn.Module, optional
        Architecture to load each state_dict into (a copy; yours is not changed).

    Returns
    -------
    pandas.DataFrame
        Tidy: one row per (epoch, metric) with columns ``epoch``, ``checkpoint``, ``metric``,
        ``value``.

    Raises
    ------
    CheckpointError
        Missing, truncated or foreign files, or weights for another architecture.

    Examples
    --------
    >>> import tempfile, torch
    >>> net = torch.nn.Linear(2, 1)
    >>> folder = tempfile.mkdtemp()
    >>> for e in range(3):
    ...     _ = torch.nn.init.constant_(net.weight, float(e))
    ...     torch.save({"model": net.state_dict(), "epoch": e}, f"{folder}/epoch_{e:03d}.pt")
    >>> trajectory(folder, lambda m: float(m.weight.detach().sum()), model=net)["value"].tolist()
    [0.0, 2.0, 4.0]
    """
    paths = _checkpoint_paths(checkpoints)
    work = copy.deepcopy(model) if model is not None else None
    rows = []
    for path in paths:
        ckpt = load_checkpoint(path)
        epoch = int(ckpt["epoch"])
        if work is not None:
            _load_weights(
                work,
                ckpt["model"],
                path,
                "its weights are for another architecture than the model given",
                "Build the model the run trained.",
            )
            result = metric_fn(work)
        else:
            result = metric_fn(ckpt)
        items = result.items() if isinstance(result, Mapping) else [("value", result)]
        for name, val in items:
            rows.append(
                {"epoch": epoch, "checkpoint": str(path), "metric": name, "value": float(val)}
            )
    return pd.DataFrame(rows, columns=["epoch", "checkpoint", "metric", "value"])
