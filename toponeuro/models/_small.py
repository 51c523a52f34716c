"""A small ResNet-style CNN for TopoNets trained on CPU (the demo TopoNets, smoke recipes).

``SmallResNet`` is defined in :mod:`toponeuro.models._standalone` (torch-only, also inlined
into Brain-Score plugins); ``toponeuro.models.SmallResNet`` imports it (and torch) on first
use. This module imports no torch: the builders register without it (``toponeuro models``
lists the registry torch-free).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._util.constraints import TorchModule
from .._util.params import validate_params

if TYPE_CHECKING:
    from torch import nn

__all__ = ["small_resnet_topo_layers"]


@validate_params(dict(model=[TorchModule(), None]))
def small_resnet_topo_layers(model: nn.Module | None = None) -> list[str]:
    """Names of the convs inside residual blocks (where TopoLoss acts), downsample excluded.

    Parameters
    ----------
    model : torch.nn.Module, optional
        Unused: the names are the same for every :class:`SmallResNet` (a builder's
        ``topo_layers(model)`` hook takes it).

    Returns
    -------
    list of str
        ``layer{1-4}.0.conv{1,2}``.

    Examples
    --------
    >>> small_resnet_topo_layers()[:3]
    ['layer1.0.conv1', 'layer1.0.conv2', 'layer2.0.conv1']
    """
    return [f"layer{i}.0.conv{j}" for i in range(1, 5) for j in (1, 2)]
