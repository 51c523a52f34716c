"""Model architectures (and, with the model-zoo issue, the registry of released TopoNets)."""

from ._blocks import BlurPoolConv2d, add_blurpool
from ._small import SmallResNet, small_resnet_topo_layers

__all__ = ["BlurPoolConv2d", "add_blurpool", "SmallResNet", "small_resnet_topo_layers"]
