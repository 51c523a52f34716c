"""TopoNet architectures and a hash-checked weight loader for exported Brain-Score plugins.

This file is copied into every exported vision plugin as ``toponet_arch.py``, with the
torch-only module :mod:`toponeuro.models._standalone` (the single definition of BlurPool and
SmallResNet) inlined in place of its import line. The plugin imports only the standard
library, torch and torchvision: Brain-Score's environment pins
numpy<2 and an old xarray, so a plugin cannot import toponeuro. toponeuro's tests import
this module directly to check that it builds the same networks as ``toponeuro.models``
(same state-dict keys, same outputs).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import pickle
import shutil
import tempfile
import urllib.request
from pathlib import Path

import torch
from torch import nn

from toponeuro.models._standalone import (  # inlined by the exporter
    BlurPoolConv2d,
    SmallResNet,
    add_blurpool,
    strip_wrapper_prefixes,
)

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
    """Accept a bare state dict or a training checkpoint holding one; drop DDP/compile prefixes."""
    for key in ("state_dict", "model_state_dict", "model"):
        if isinstance(obj, dict) and key in obj and isinstance(obj[key], dict):
            obj = obj[key]
            break
    if not isinstance(obj, dict) or not obj or not all(torch.is_tensor(v) for v in obj.values()):
        raise ValueError("checkpoint holds no state dict of tensors (expected a dict of "
                         "tensors, or a dict with a 'model'/'state_dict' entry holding one)")
    obj = {strip_wrapper_prefixes(k): v for k, v in obj.items()}
    if all(k.startswith("model.") for k in obj):  # a whole wrapper module saved as 'model'
        obj = {k[len("model."):]: v for k, v in obj.items()}
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


#: the only non-tensor objects a checkpoint may pickle: torchvision's reference training
#: scripts (ViT-B/32) save their command-line arguments as an argparse.Namespace
SAFE_GLOBALS = [argparse.Namespace]


def load_state_dict(path) -> dict:
    """Read a checkpoint without unpickling arbitrary objects (``weights_only=True``).

    ``argparse.Namespace`` (the ``args`` entry of torchvision-style checkpoints) is allowed,
    nothing else; ``module.`` / ``_orig_mod.`` prefixes are removed.
    """
    safe = getattr(torch.serialization, "safe_globals", None)
    try:
        if safe is not None:
            with safe(SAFE_GLOBALS):
                obj = torch.load(path, map_location="cpu", weights_only=True)
        else:  # older torch: a process-wide allow-list, where it exists
            add = getattr(torch.serialization, "add_safe_globals", None)
            if add is not None:
                add(SAFE_GLOBALS)
            obj = torch.load(path, map_location="cpu", weights_only=True)
    except (pickle.UnpicklingError, RuntimeError, EOFError, OSError) as err:
        raise ValueError(f"{path} is not a readable torch checkpoint, or it pickles objects "
                         f"beyond {[g.__name__ for g in SAFE_GLOBALS]} ({type(err).__name__}: "
                         f"{str(err).splitlines()[0] if str(err) else ''}). Re-export the "
                         "plugin from a plain state dict.") from err
    try:
        return _unwrap_state_dict(obj)
    except ValueError as err:
        raise ValueError(f"{path}: {err}") from err


def build_model(arch: str, state_dict=None, **kwargs) -> nn.Module:
    """Build ``arch`` (sized from ``state_dict`` where it can be), load the weights, eval mode."""
    model = ARCHITECTURES[normalize_arch(arch)](state_dict=state_dict, **kwargs)
    if state_dict is not None:
        model.load_state_dict(state_dict, strict=True)
    return model.eval()
