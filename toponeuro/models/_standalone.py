"""TopoNet building blocks that need only torch: BlurPool, the small ResNet, key clean-up.

This module is the single definition of these architectures. ``toponeuro.models`` re-exports
them, and the Brain-Score exporter inlines this file into every vision plugin's
``toponet_arch.py`` (a plugin cannot import toponeuro), so it must import nothing but torch.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

__all__ = ["BlurPoolConv2d", "add_blurpool", "SmallResNet"]


class BlurPoolConv2d(nn.Module):
    """A fixed depthwise [1 2 1]ᵀ[1 2 1]/16 blur (stride 1, padding 1), then ``conv``.

    Anti-aliases strided convolutions as in the released TopoNet ResNets. State-dict keys are
    ``<name>.blur_filter`` (a buffer) and ``<name>.conv.weight``; hooks attach to this
    wrapper, whose output is the strided conv's output.

    Parameters
    ----------
    conv : torch.nn.Conv2d
        The strided convolution to anti-alias; it keeps its weights (``conv.weight``).

    Examples
    --------
    >>> conv = BlurPoolConv2d(nn.Conv2d(16, 32, 3, stride=2, padding=1))
    >>> tuple(conv(torch.zeros(1, 16, 8, 8)).shape), tuple(conv.blur_filter.shape)
    ((1, 32, 4, 4), (16, 1, 3, 3))
    """

    def __init__(self, conv: nn.Conv2d):
        super().__init__()
        self.conv = conv
        k = torch.tensor([1.0, 2.0, 1.0])
        k = (k[:, None] * k[None, :]) / 16.0
        self.register_buffer("blur_filter", k.expand(conv.in_channels, 1, 3, 3).clone())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Blur each input channel (3 x 3 binomial filter), then apply the wrapped convolution.

        Parameters
        ----------
        x : torch.Tensor
            ``(batch, channels, height, width)`` input.

        Returns
        -------
        torch.Tensor
            The convolution's output.
        """
        x = F.conv2d(x, self.blur_filter, stride=1, padding=1, groups=self.conv.in_channels)
        return self.conv(x)


def add_blurpool(model: nn.Module, min_in_channels: int = 16) -> nn.Module:
    """Wrap every ``nn.Conv2d`` with stride > 1 and ``in_channels >= min_in_channels`` in
    :class:`BlurPoolConv2d`, in place; returns ``model``.

    Parameters
    ----------
    model : torch.nn.Module
        The network, changed in place.
    min_in_channels : int
        Convolutions with fewer input channels (an RGB stem) stay plain.

    Returns
    -------
    torch.nn.Module
        ``model`` itself.

    Examples
    --------
    >>> net = add_blurpool(nn.Sequential(nn.Conv2d(3, 16, 3, stride=2), nn.Conv2d(16, 16, 3, stride=2)))
    >>> [type(m).__name__ for m in net]  # the 3-channel stem stays a plain conv
    ['Conv2d', 'BlurPoolConv2d']
    """
    for module in list(model.modules()):
        for child_name, child in list(module.named_children()):
            if (
                isinstance(child, nn.Conv2d)
                and max(child.stride) > 1
                and child.in_channels >= min_in_channels
            ):
                setattr(module, child_name, BlurPoolConv2d(child))
    return model


class _BasicBlock(nn.Module):
    def __init__(self, c_in: int, c_out: int, stride: int):
        super().__init__()
        self.conv1 = nn.Conv2d(c_in, c_out, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(c_out)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(c_out, c_out, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(c_out)
        self.downsample = None
        if stride != 1 or c_in != c_out:
            self.downsample = nn.Sequential(
                nn.Conv2d(c_in, c_out, 1, stride, bias=False), nn.BatchNorm2d(c_out)
            )

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(out + identity)


class SmallResNet(nn.Module):
    """A four-stage ResNet (one basic block per stage) with BlurPool on strided convs.

    Layer names follow torchvision's ResNets (``layer1.0.conv1`` ... ``layer4.0.conv2``,
    ``fc``) so TopoLoss specs, hooks and region-layer maps read the same way.

    Parameters
    ----------
    num_classes : int
        Outputs of the classifier head ``fc``.
    widths : tuple of 4 ints
        Channels of the four stages.
    in_channels : int
        Channels of the input images (3 for RGB).
    blurpool : bool
        Anti-alias strided convs with a fixed blur (as the released TopoNet ResNets do).

    Examples
    --------
    >>> net = SmallResNet(num_classes=10, widths=(8, 16, 16, 32))
    >>> tuple(net(torch.zeros(2, 3, 32, 32)).shape), type(net.layer3[0].conv1).__name__
    ((2, 10), 'BlurPoolConv2d')
    """

    def __init__(
        self,
        num_classes: int = 10,
        widths: tuple[int, int, int, int] = (32, 64, 128, 256),
        in_channels: int = 3,
        blurpool: bool = True,
    ):
        super().__init__()
        self.widths = tuple(widths)
        self.conv1 = nn.Conv2d(in_channels, widths[0], 3, 1, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(widths[0])
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(2)
        self.layer1 = nn.Sequential(_BasicBlock(widths[0], widths[0], 1))
        self.layer2 = nn.Sequential(_BasicBlock(widths[0], widths[1], 2))
        self.layer3 = nn.Sequential(_BasicBlock(widths[1], widths[2], 2))
        self.layer4 = nn.Sequential(_BasicBlock(widths[2], widths[3], 2))
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(widths[3], num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
        if blurpool:
            add_blurpool(self)

    def forward(self, x):
        """Class logits of a batch of images.

        Parameters
        ----------
        x : torch.Tensor
            ``(batch, in_channels, height, width)`` images.

        Returns
        -------
        torch.Tensor
            ``(batch, num_classes)`` logits.
        """
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(self.avgpool(x).flatten(1))


#: prefixes that DataParallel/DDP (``module.``) and torch.compile (``_orig_mod.``) add to keys
WRAPPER_PREFIXES = ("module.", "_orig_mod.")


def strip_wrapper_prefixes(key: str) -> str:
    """``module._orig_mod.fc.weight`` (any order, any number of prefixes) -> ``fc.weight``.

    Examples
    --------
    >>> strip_wrapper_prefixes("module._orig_mod.module.fc.w"), strip_wrapper_prefixes("c")
    ('fc.w', 'c')
    """
    stripped = True
    while stripped:
        stripped = False
        for prefix in WRAPPER_PREFIXES:
            if key.startswith(prefix):
                key, stripped = key[len(prefix) :], True
    return key
