"""Efficiency of a sheet: score a model while its sheet layers lose units or parameters.

The surgery itself (hooks, pruning, weight downsampling, restoring the model) is
:mod:`toponeuro.models`' (``restoring``, ``unit_hooks``, ``prune_weights``,
``downsample_weights``); this module picks the steps and tabulates the scores. ``torch`` is
imported inside the functions, so ``import toponeuro.analysis`` stays light.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from .._util.docs import fill_doc
from .._util.params import COUNT, SEED, check_random_state, validate_params
from .._util.typing import RandomState
from ..exceptions import InvalidDataError, UnknownNameError, close_matches
from ..sheet import sheet_shape

__all__ = ["EFFICIENCY_METHODS", "TOPONETS_NANOGPT_KEEP", "efficiency_curve", "pool_matrix"]

#: ``"remove"``: zero a random fraction of each layer's units (output channels);
#: ``"pool"``: replace each unit's output by the mean over its k x k block of the sheet;
#: ``"magnitude"``: zero the fraction of each layer's weights smallest in magnitude;
#: ``"downsample"``: shrink each layer's weight sheet to a fraction of its units and
#: interpolate it back (the TopoNets paper's parameter-efficiency test).
EFFICIENCY_METHODS = ("remove", "pool", "magnitude", "downsample")
#: fractions of the ``c_fc`` sheets' parameters kept in the TopoNets NanoGPT analysis
#: (Deb et al., 2025, ICLR; arXiv:2501.16396; toponets.github.io: "models with only 20 % of
#: the parameters remaining on the c_fc modules showed no significant drop in performance")
TOPONETS_NANOGPT_KEEP = (1.0, 0.8, 0.5, 0.2)
_DEFAULT_METHODS = ("remove", "pool", "magnitude")


@validate_params(dict(n_units=COUNT, size=COUNT))
def pool_matrix(n_units: int, size: int) -> np.ndarray:
    """``(n_units, n_units)`` matrix averaging each unit with its ``size x size`` sheet block.

    Blocks tile the layer's sheet (:func:`toponeuro.sheet_shape`) from the top-left corner;
    edge blocks are smaller. ``outputs @ P`` replaces every unit by its block mean.

    Parameters
    ----------
    n_units : int
        Units of the layer (its sheet is :func:`toponeuro.sheet_shape` of it).
    size : int
        Side of the square blocks, in units.

    Returns
    -------
    numpy.ndarray
        ``(n_units, n_units)``; each row sums to 1.

    Examples
    --------
    >>> P = pool_matrix(4, 2)  # a 2 x 2 sheet, one block
    >>> P.tolist()[0]
    [0.25, 0.25, 0.25, 0.25]
    """
    h, w = sheet_shape(n_units)
    rows, cols = np.divmod(np.arange(n_units), w)
    block = (rows // size) * (-(-w // size)) + cols // size
    same = block[:, None] == block[None, :]
    return same / same.sum(1, keepdims=True)


@validate_params({"random_state": SEED},
                 prefer_skip_nested_validation=False)  # evaluate is the caller's
@fill_doc
def efficiency_curve(
    model,
    layers: Sequence[str],
    fractions: Sequence[float] = (0.0, 0.25, 0.5, 0.75, 0.9),
    evaluate: Callable | None = None,
    method: str | Sequence[str] = _DEFAULT_METHODS,
    *,
    pool_sizes: Sequence[int] = (1, 2, 3, 4),
    keep: Sequence[float] = TOPONETS_NANOGPT_KEEP,
    random_state: RandomState = None,
) -> pd.DataFrame:
    """Score a model while removing, pooling, pruning or downsampling its sheet layers.

    TopoNets pack information smoothly on the sheet, so averaging neighbouring units,
    removing units or shrinking the weight sheet should cost a topographic model less than a
    control; magnitude pruning of the same layers is the usual baseline. The model is
    restored afterwards (weights, buffers and train/eval modes).

    ``method="downsample"`` runs the TopoNets paper's parameter-efficiency test (Deb et al.,
    2025, ICLR, arXiv:2501.16396, the NanoGPT analysis on the ``c_fc`` layers: 100, 80, 50
    and 20 %% of their parameters kept, ``keep=TOPONETS_NANOGPT_KEEP``): each layer's weight
    sheet is resized to ``keep`` of its units and interpolated back
    (:func:`toponeuro.models.downsample_weights`; bilinear, antialiased when shrinking —
    the interpolation is toponeuro's choice, the text we read does not name one).

    Parameters
    ----------
    model : torch.nn.Module
        The network to score; it is edited for each score and restored afterwards.
    layers : sequence of str
        Dotted names of the sheet layers (conv / linear modules, as in the TopoLoss specs),
        e.g. ``[f"transformer.h.{i}.mlp.c_fc" for i in range(12)]`` for NanoGPT.
    fractions : sequence of float
        Fractions in [0, 1) of units (``"remove"``) or weights (``"magnitude"``) zeroed.
    evaluate : callable
        ``evaluate(model) -> float`` (or a mapping of named floats), e.g. held-out accuracy
        or validation loss.
    method : str or sequence of str
        Any of :data:`EFFICIENCY_METHODS` (default ``"remove"``, ``"pool"``,
        ``"magnitude"``).
    pool_sizes : sequence of int
        Block sizes of ``"pool"`` (1 = intact). The fraction reported for pooling is
        ``1 - n_blocks / n_units``: the units it averages away (75 / 89 / 94 %% for 2 / 3 / 4).
    keep : sequence of float
        Fractions in (0, 1] of each sheet's parameters ``"downsample"`` keeps.
    %(random_state)s
        Here: of the units ``"remove"`` zeroes (one permutation per layer, so each removed set contains the previous one).

    Returns
    -------
    pandas.DataFrame
        One row per step: ``method``, ``fraction`` (requested: units or weights removed,
        ``1 - keep`` for downsampling, NaN for pooling), ``removed_fraction`` (effective,
        over the layers' units or weights), ``pool_size`` and the score columns (``score``,
        or the keys evaluate returns).

    Examples
    --------
    >>> import torch
    >>> net = torch.nn.Sequential(torch.nn.Linear(3, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
    >>> x = torch.ones(1, 3)
    >>> score = lambda m: float(m(x).abs().sum().detach())
    >>> curve = efficiency_curve(net, ["0"], [0.0, 1 - 1e-9], score, method="remove")
    >>> curve["removed_fraction"].tolist()
    [0.0, 1.0]
    >>> efficiency_curve(net, ["0"], evaluate=score, method="downsample",
    ...                  keep=[1.0, 0.25])["removed_fraction"].tolist()
    [0.0, 0.75]
    """
    import torch

    from ..models import downsample_weights, prune_weights, restoring, sheet_units, unit_hooks

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
    keep = [float(k) for k in keep]
    if "downsample" in methods and any(not 0.0 < k <= 1.0 for k in keep):
        raise InvalidDataError(f"keep must lie in (0, 1]; got {keep}.")
    layers = [layers] if isinstance(layers, str) else list(layers)
    n_units = {name: sheet_units(model, name) for name in layers}
    total_units = sum(n_units.values())
    rng = check_random_state(random_state)
    order = {name: rng.permutation(n) for name, n in n_units.items()}
    rows = []

    def _row(meth, frac, eff, size, edit=None, hooks=None):
        with restoring(model), unit_hooks(model, hooks or {}):
            eff = edit() if edit is not None else eff
            result = evaluate(model)
        scores = dict(result) if isinstance(result, Mapping) else {"score": float(result)}
        rows.append({"method": meth, "fraction": frac, "removed_fraction": eff,
                     "pool_size": size, **scores})

    for meth in methods:
        if meth == "remove":
            for frac in fractions:
                masks = {}
                for name, n in n_units.items():
                    mk = torch.ones(n)
                    mk[torch.as_tensor(order[name][: int(round(frac * n))])] = 0.0
                    masks[name] = mk
                removed = sum(int((mk == 0).sum()) for mk in masks.values())
                hooks = {name: (lambda t, mk=mk: t * mk.to(t.device, t.dtype))
                         for name, mk in masks.items()}
                _row(meth, frac, removed / total_units, 1, hooks=hooks)
        elif meth == "pool":
            for size in pool_sizes:
                mats = {name: torch.as_tensor(pool_matrix(n, size), dtype=torch.float32)
                        for name, n in n_units.items()}
                kept = sum(len(np.unique(p.numpy(), axis=0)) for p in mats.values())
                hooks = {name: (lambda t, p=p: t @ p.to(t.device, t.dtype))
                         for name, p in mats.items() if size > 1}  # size 1: intact
                _row(meth, np.nan, 1.0 - kept / total_units, int(size), hooks=hooks)
        elif meth == "magnitude":
            for frac in fractions:
                _row(meth, frac, None, 1, edit=lambda f=frac: prune_weights(model, layers, f))
        else:  # downsample: the TopoNets parameter-efficiency test
            for k in keep:
                _row(meth, 1.0 - k, None, np.nan,
                     edit=lambda k=k: 1.0 - downsample_weights(model, layers, k))
    return pd.DataFrame(rows)
