"""Efficiency of a sheet (lesion / pooling vs magnitude pruning) and metrics over training.

``torch`` is imported inside the functions, so ``import toponeuro.analysis`` stays light.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from ..exceptions import CheckpointError, InvalidDataError, UnknownNameError, close_matches
from ..sheet import sheet_shape

__all__ = ["EFFICIENCY_METHODS", "efficiency_curve", "trajectory", "pool_matrix"]

#: ``"remove"``: zero a random fraction of each layer's units (output channels);
#: ``"pool"``: replace each unit's output by the mean over its k x k block of the sheet;
#: ``"magnitude"``: zero the fraction of each layer's weights smallest in magnitude.
EFFICIENCY_METHODS = ("remove", "pool", "magnitude")


def pool_matrix(n_units: int, size: int) -> np.ndarray:
    """``(n_units, n_units)`` matrix averaging each unit with its ``size x size`` sheet block.

    Blocks tile the layer's sheet (:func:`toponeuro.sheet_shape`) from the top-left corner;
    edge blocks are smaller. ``outputs @ P`` replaces every unit by its block mean.

    Examples
    --------
    >>> P = pool_matrix(4, 2)  # a 2 x 2 sheet, one block
    >>> P.tolist()[0]
    [0.25, 0.25, 0.25, 0.25]
    """
    h, w = sheet_shape(n_units)
    size = int(size)
    if size < 1:
        raise InvalidDataError(f"Pool sizes must be whole numbers >= 1; got {size}.")
    rows, cols = np.divmod(np.arange(n_units), w)
    block = (rows // size) * (-(-w // size)) + cols // size
    same = block[:, None] == block[None, :]
    return same / same.sum(1, keepdims=True)


def _channel_dim(out, n: int, name: str) -> int:
    if out.ndim >= 2 and out.shape[1] == n and out.ndim != 3:
        return 1
    if out.shape[-1] == n:
        return out.ndim - 1
    raise InvalidDataError(
        f"Layer {name!r} outputs shape {tuple(out.shape)}; cannot find its {n} units (expected "
        "them on dim 1 for conv / linear outputs or on the last dim)."
    )


def _apply_on_units(out, n, name, fn):
    dim = _channel_dim(out, n, name)
    moved = out.movedim(dim, -1)
    return fn(moved).movedim(-1, dim)


def efficiency_curve(
    model,
    layers: Sequence[str],
    fractions: Sequence[float] = (0.0, 0.25, 0.5, 0.75, 0.9),
    evaluate: Callable | None = None,
    method: str | Sequence[str] = EFFICIENCY_METHODS,
    *,
    pool_sizes: Sequence[int] = (1, 2, 3, 4),
    random_state=None,
) -> pd.DataFrame:
    """Score a model while removing, pooling or pruning the units of its sheet layers.

    TopoNets pack information smoothly on the sheet, so averaging neighbouring units (or
    removing units) should cost a topographic model less than a control; magnitude pruning of
    the same layers is the usual baseline. The model is restored afterwards (weights, buffers
    and train/eval modes).

    Parameters
    ----------
    model : torch.nn.Module
    layers : sequence of str
        Dotted names of the sheet layers (conv / linear modules, as in the TopoLoss specs).
    fractions : sequence of float
        Fractions in [0, 1) of units (``"remove"``) or weights (``"magnitude"``) zeroed.
    evaluate : callable
        ``evaluate(model) -> float`` (or a mapping of named floats), e.g. held-out accuracy.
    method : str or sequence of str
        Any of ``"remove"``, ``"pool"``, ``"magnitude"`` (default all three).
    pool_sizes : sequence of int
        Block sizes of ``"pool"`` (1 = intact). The fraction reported for pooling is
        ``1 - n_blocks / n_units``: the units it averages away.
    random_state : int or None
        Seed of the units ``"remove"`` zeroes (one permutation per layer, so each removed set
        contains the previous one).

    Returns
    -------
    pandas.DataFrame
        One row per step: ``method``, ``fraction`` (requested), ``removed_fraction``
        (effective, over the layers' units or weights), ``pool_size`` and the score columns
        (``score``, or the keys evaluate returns).

    Examples
    --------
    >>> import torch
    >>> net = torch.nn.Sequential(torch.nn.Linear(3, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
    >>> x = torch.ones(1, 3)
    >>> score = lambda m: float(m(x).abs().sum().detach())
    >>> curve = efficiency_curve(net, ["0"], [0.0, 1 - 1e-9], score, method="remove")
    >>> curve["removed_fraction"].tolist()
    [0.0, 1.0]
    """
    import torch

    from ..topoloss import layer_weight
    from ..topoloss._layers import resolve

    if evaluate is None or not callable(evaluate):
        raise InvalidDataError("Give evaluate=callable(model) -> float, e.g. held-out accuracy.")
    methods = [method] if isinstance(method, str) else list(method)
    for m in methods:
        if m not in EFFICIENCY_METHODS:
            raise UnknownNameError(
                f"Unknown efficiency method {m!r}; {close_matches(m, EFFICIENCY_METHODS)}"
            )
    fractions = [float(f) for f in fractions]
    if any(not 0.0 <= f < 1.0 for f in fractions):
        raise InvalidDataError(f"fractions must lie in [0, 1); got {fractions}.")
    if isinstance(layers, str):
        layers = [layers]
    modules = {name: resolve(model, name) for name in layers}
    n_units = {name: int(layer_weight(model, name)[0].shape[0]) for name in layers}
    rng = np.random.default_rng(random_state)
    order = {name: rng.permutation(n) for name, n in n_units.items()}

    saved = copy.deepcopy(model.state_dict())
    modes = {m: m.training for m in model.modules()}
    rows = []

    def _run(meth, frac, eff, size, hooks_fn=None):
        handles = []
        try:
            if hooks_fn is not None:
                for name, mod in modules.items():
                    handles.append(mod.register_forward_hook(hooks_fn(name)))
            result = evaluate(model)
        finally:
            for h in handles:
                h.remove()
            model.load_state_dict(saved)
            for m, t in modes.items():
                m.train(t)
        scores = dict(result) if isinstance(result, Mapping) else {"score": float(result)}
        rows.append(
            {"method": meth, "fraction": frac, "removed_fraction": eff, "pool_size": size, **scores}
        )

    total_units = sum(n_units.values())
    try:
        for meth in methods:
            if meth == "remove":
                for frac in fractions:
                    masks, removed = {}, 0
                    for name, n in n_units.items():
                        k = int(round(frac * n))
                        m = torch.ones(n)
                        m[torch.as_tensor(order[name][:k])] = 0.0
                        masks[name] = m
                        removed += k

                    def hook(name, masks=masks):
                        n = n_units[name]

                        def _h(_mod, _inp, out):
                            mk = masks[name].to(out.device, out.dtype)
                            return _apply_on_units(out, n, name, lambda t: t * mk)

                        return _h

                    _run(meth, frac, removed / total_units, 1, hook)
            elif meth == "pool":
                for size in pool_sizes:
                    mats, kept = {}, 0
                    for name, n in n_units.items():
                        p = pool_matrix(n, size)
                        mats[name] = torch.as_tensor(p, dtype=torch.float32)
                        kept += len(np.unique(p, axis=0))

                    def hook(name, mats=mats):
                        n = n_units[name]

                        def _h(_mod, _inp, out):
                            pm = mats[name].to(out.device, out.dtype)
                            return _apply_on_units(out, n, name, lambda t: t @ pm)

                        return _h

                    _run(meth, np.nan, 1.0 - kept / total_units, int(size), hook)
            else:  # magnitude pruning of the layers' weights
                weights = [layer_weight(model, name)[0] for name in layers]
                total_w = sum(w.numel() for w in weights)
                for frac in fractions:
                    zeroed = 0
                    with torch.no_grad():
                        for w in weights:
                            k = int(round(frac * w.numel()))
                            if k:
                                cut = w.abs().flatten().kthvalue(k).values
                                mask = w.abs() <= cut
                                zeroed += int(mask.sum())
                                w.masked_fill_(mask, 0.0)
                    _run(meth, frac, zeroed / total_w, 1)
    finally:
        model.load_state_dict(saved)
        for m, t in modes.items():
            m.train(t)
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- trajectory


def _checkpoint_paths(checkpoints) -> list[Path]:
    from ..training import list_checkpoints

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
        or the files themselves. Read with :func:`toponeuro.training.load_checkpoint`
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
    from ..training import load_checkpoint

    paths = _checkpoint_paths(checkpoints)
    work = copy.deepcopy(model) if model is not None else None
    rows = []
    for path in paths:
        ckpt = load_checkpoint(path)
        epoch = int(ckpt["epoch"])
        if work is not None:
            try:
                work.load_state_dict(ckpt["model"])
            except RuntimeError as err:
                raise CheckpointError(
                    f"{path} holds weights for another architecture than the model given: "
                    f"{str(err).splitlines()[0]} Build the model the run trained."
                ) from err
            result = metric_fn(work)
        else:
            result = metric_fn(ckpt)
        items = result.items() if isinstance(result, Mapping) else [("value", result)]
        for name, val in items:
            rows.append(
                {"epoch": epoch, "checkpoint": str(path), "metric": name, "value": float(val)}
            )
    return pd.DataFrame(rows, columns=["epoch", "checkpoint", "metric", "value"])
