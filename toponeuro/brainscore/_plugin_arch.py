"""TopoNet architectures and a hash-checked weight loader for exported Brain-Score plugins.

This file is copied verbatim into every exported vision plugin as ``toponet_arch.py``. It
imports only the standard library, torch and torchvision: Brain-Score's environment pins
numpy<2 and an old xarray, so a plugin cannot import toponeuro. toponeuro's tests import
this module directly to check that it builds the same networks as ``toponeuro.models``
(same state-dict keys, same outputs).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import urllib.request
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

__all__ = [
    "ARCHITECTURES",
    "BlurPoolConv2d",
    "SmallResNet",
    "add_blurpool",
    "build_model",
    "fetch_weights",
    "load_state_dict",
    "normalize_arch",
]


class BlurPoolConv2d(nn.Module):
    """A fixed depthwise [1 2 1]x[1 2 1]/16 blur (stride 1, padding 1), then ``conv``."""

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
    """Wrap every strided ``nn.Conv2d`` with ``in_channels >= min_in_channels`` in place."""
    for _, module in list(model.named_modules()):
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
    """Four-stage ResNet (one basic block per stage), BlurPool on strided convs."""

    def __init__(self, num_classes=10, widths=(32, 64, 128, 256), in_channels=3, blurpool=True):
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
        if blurpool:
            add_blurpool(self)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(self.avgpool(x).flatten(1))


def _small_resnet(state_dict=None, num_classes=10, widths=(32, 64, 128, 256), **kwargs):
    if state_dict is not None:  # the weights say how wide the stages are
        widths = tuple(
            int(state_dict[k].shape[0])
            for k in ("conv1.weight", "layer2.0.conv2.weight", "layer3.0.conv2.weight",
                      "layer4.0.conv2.weight")
        )
        num_classes = int(state_dict["fc.weight"].shape[0])
        kwargs.setdefault("in_channels", int(state_dict["conv1.weight"].shape[1]))
    return SmallResNet(num_classes=num_classes, widths=widths, **kwargs)


def _torchvision_resnet(depth):
    def build(state_dict=None, num_classes=1000, blurpool=True, **kwargs):
        import torchvision

        if state_dict is not None and "fc.weight" in state_dict:
            num_classes = int(state_dict["fc.weight"].shape[0])
        model = getattr(torchvision.models, f"resnet{depth}")(weights=None, num_classes=num_classes,
                                                              **kwargs)
        return add_blurpool(model) if blurpool else model

    return build


def _vit_b_32(state_dict=None, num_classes=1000, image_size=224, **kwargs):
    import torchvision

    if state_dict is not None and "heads.head.weight" in state_dict:
        num_classes = int(state_dict["heads.head.weight"].shape[0])
    return torchvision.models.vit_b_32(weights=None, num_classes=num_classes,
                                       image_size=image_size, **kwargs)


#: architecture name -> builder(state_dict=None, **kwargs) -> nn.Module
ARCHITECTURES = {
    "small_resnet": _small_resnet,
    "resnet18": _torchvision_resnet(18),
    "resnet50": _torchvision_resnet(50),
    "vit_b_32": _vit_b_32,
}

_ALIASES = {"smallresnet": "small_resnet", "vitb32": "vit_b_32", "demo": "small_resnet"}


def normalize_arch(arch: str) -> str:
    """``"ResNet-18"`` / ``"toponet_resnet18"`` -> ``"resnet18"`` (``"toponet_demo"`` is the
    SmallResNet); unknown names raise ``KeyError``."""
    key = str(arch).lower().replace("-", "_").replace("/", "_")
    if key.startswith("toponet_"):  # toponeuro's registry names TopoNet archs toponet_<arch>
        key = key[len("toponet_"):]
    if key in ARCHITECTURES:
        return key
    squashed = key.replace("_", "")
    for name in ARCHITECTURES:
        if name.replace("_", "") == squashed:
            return name
    if squashed in _ALIASES:
        return _ALIASES[squashed]
    raise KeyError(f"Unknown TopoNet architecture {arch!r}; known: {sorted(ARCHITECTURES)}")


def _unwrap_state_dict(obj):
    """Accept a bare state dict or a training checkpoint holding one; drop DDP prefixes."""
    for key in ("state_dict", "model_state_dict", "model"):
        if isinstance(obj, dict) and key in obj and isinstance(obj[key], dict):
            obj = obj[key]
            break
    if not isinstance(obj, dict) or not all(torch.is_tensor(v) for v in obj.values()):
        raise ValueError("checkpoint holds no state dict of tensors")
    for prefix in ("module.", "model.", "_orig_mod."):
        if obj and all(k.startswith(prefix) for k in obj):
            obj = {k[len(prefix):]: v for k, v in obj.items()}
    return obj


def _sha256(path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def fetch_weights(url: str, sha256: str, filename: str, cache_dir=None) -> Path:
    """Download ``url`` once into the cache, verify its sha256, return the local path.

    The cache is ``cache_dir``, else ``$TOPONETS_BRAINSCORE_CACHE``, else
    ``~/.cache/toponets_brainscore``. A file with the wrong hash is deleted and raises.
    """
    root = Path(cache_dir or os.environ.get("TOPONETS_BRAINSCORE_CACHE")
                or Path.home() / ".cache" / "toponets_brainscore")
    root.mkdir(parents=True, exist_ok=True)
    target = root / f"{sha256[:16]}-{filename}"
    if target.is_file() and _sha256(target) == sha256:
        return target
    fd, tmp = tempfile.mkstemp(dir=root, suffix=".part")
    os.close(fd)
    try:
        with urllib.request.urlopen(url) as response, open(tmp, "wb") as out:
            shutil.copyfileobj(response, out)
        got = _sha256(tmp)
        if got != sha256:
            raise ValueError(f"sha256 mismatch for {url}: expected {sha256}, got {got}; "
                             "the file was deleted. Re-export the plugin with the right hash.")
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    return target


def load_state_dict(path) -> dict:
    """Read a checkpoint without unpickling arbitrary objects (``weights_only=True``)."""
    return _unwrap_state_dict(torch.load(path, map_location="cpu", weights_only=True))


def build_model(arch: str, state_dict=None, **kwargs) -> nn.Module:
    """Build ``arch`` (sized from ``state_dict`` where it can be), load the weights, eval mode."""
    model = ARCHITECTURES[normalize_arch(arch)](state_dict=state_dict, **kwargs)
    if state_dict is not None:
        model.load_state_dict(state_dict, strict=True)
    return model.eval()
