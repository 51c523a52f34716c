"""Building blocks shared by the TopoNet architectures: the BlurPool conv wrapper."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

__all__ = ["BlurPoolConv2d", "add_blurpool"]


class BlurPoolConv2d(nn.Module):
    """A fixed depthwise [1 2 1]ᵀ[1 2 1]/16 blur (stride 1, padding 1), then ``conv``.

    Anti-aliases strided convolutions as in the released TopoNet ResNets. State-dict keys are
    ``<name>.blur_filter`` (a buffer) and ``<name>.conv.weight``; hooks attach to this
    wrapper, whose output is the strided conv's output.
    """

    def __init__(self, conv: nn.Conv2d):
        super().__init__()
        self.conv = conv
        k = torch.tensor([1.0, 2.0, 1.0])
        k = (k[:, None] * k[None, :]) / 16.0
        self.register_buffer("blur_filter", k.expand(conv.in_channels, 1, 3, 3).clone())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.conv2d(x, self.blur_filter, stride=1, padding=1, groups=self.conv.in_channels)
        return self.conv(x)


def add_blurpool(model: nn.Module, min_in_channels: int = 16) -> nn.Module:
    """Wrap every ``nn.Conv2d`` with stride > 1 and ``in_channels >= min_in_channels`` in
    :class:`BlurPoolConv2d`, in place; returns ``model``."""
    for module in list(model.modules()):
        for child_name, child in list(module.named_children()):
            if (
                isinstance(child, nn.Conv2d)
                and max(child.stride) > 1
                and child.in_channels >= min_in_channels
            ):
                setattr(module, child_name, BlurPoolConv2d(child))
    return model
