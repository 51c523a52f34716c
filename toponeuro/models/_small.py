"""A small ResNet-style CNN for TopoNets trained on CPU (the demo TopoNets, smoke recipes)."""

from __future__ import annotations

from torch import nn

from ._blocks import add_blurpool

__all__ = ["SmallResNet", "small_resnet_topo_layers"]


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
    widths : tuple of 4 ints
        Channels of the four stages.
    in_channels : int
    blurpool : bool
        Anti-alias strided convs with a fixed blur (as the released TopoNet ResNets do).
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
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(self.avgpool(x).flatten(1))


def small_resnet_topo_layers(model: nn.Module | None = None) -> list[str]:
    """Names of the convs inside residual blocks (where TopoLoss acts), downsample excluded."""
    return [f"layer{i}.0.conv{j}" for i in range(1, 5) for j in (1, 2)]
