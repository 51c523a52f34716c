"""Vision architectures of the released TopoNets: BlurPool ResNet-18/50, ViT-B/32, demo CNN.

The ResNets are torchvision's, with every strided conv of ``in_channels >= 16`` wrapped in
:class:`BlurPoolConv2d` (as the official TopoNets loader does), so the published state dicts
load with ``strict=True``. ViT-B/32 is torchvision's ``vit_b_32``.
"""

from __future__ import annotations

from ._blocks import add_blurpool
from ._registry import TOPONETS_CITATION, ModelCard, register_model
from ._small import SmallResNet, small_resnet_topo_layers

__all__ = ["resnet18", "resnet50", "vit_b_32", "toponet_demo", "resnet_topo_layers"]

_IMAGENET = dict(
    modality="vision",
    input_size=224,
    mean=(0.485, 0.456, 0.406),
    std=(0.229, 0.224, 0.225),
    num_classes=1000,
    crop_pct=0.875,
)
_TV_CITATION = "torchvision model zoo, https://pytorch.org/vision/stable/models.html"

# blocks per stage and convs per block
_RESNET_LAYOUT = {"resnet18": ((2, 2, 2, 2), 2), "resnet50": ((3, 4, 6, 3), 3)}


def resnet_topo_layers(arch: str) -> tuple[str, ...]:
    """Convs inside the residual blocks of a torchvision ResNet (downsample convs excluded).

    Strided convs are :class:`BlurPoolConv2d` wrappers; the names point at the wrapper.

    Examples
    --------
    >>> resnet_topo_layers("resnet18")[:3]
    ('layer1.0.conv1', 'layer1.0.conv2', 'layer1.1.conv1')
    >>> len(resnet_topo_layers("resnet50"))
    48
    """
    blocks, convs = _RESNET_LAYOUT[arch]
    return tuple(
        f"layer{s + 1}.{b}.conv{c}"
        for s, n in enumerate(blocks)
        for b in range(n)
        for c in range(1, convs + 1)
    )


def _resnet(arch: str, num_classes: int = 1000):
    import torchvision

    model = getattr(torchvision.models, arch)(weights=None, num_classes=num_classes)
    return add_blurpool(model)


def resnet18(num_classes: int = 1000):
    """torchvision ResNet-18 with BlurPool on strided convs (randomly initialised)."""
    return _resnet("resnet18", num_classes)


def resnet50(num_classes: int = 1000):
    """torchvision ResNet-50 with BlurPool on strided convs (randomly initialised)."""
    return _resnet("resnet50", num_classes)


def vit_b_32(**kwargs):
    """torchvision ``vit_b_32`` (randomly initialised).

    Keyword arguments override the ViT-B/32 hyper-parameters (``image_size``, ``num_layers``,
    ``num_heads``, ``hidden_dim``, ``mlp_dim``, ``num_classes``), which tests use to build a
    tiny ViT with the same parameter names.
    """
    from torchvision.models.vision_transformer import VisionTransformer

    cfg = dict(
        image_size=224,
        patch_size=32,
        num_layers=12,
        num_heads=12,
        hidden_dim=768,
        mlp_dim=3072,
        num_classes=1000,
    )
    cfg.update(kwargs)
    return VisionTransformer(**cfg)


def toponet_demo(num_classes: int = 10, widths=(32, 64, 128, 256)):
    """The small BlurPool ResNet of the demo TopoNets (:class:`SmallResNet`)."""
    return SmallResNet(num_classes=num_classes, widths=tuple(widths))


_VIT_TOPO = tuple(f"encoder.layers.encoder_layer_{i}.mlp.0" for i in range(12))

# --- untrained architectures -------------------------------------------------------------
for _arch, _fn in (("resnet18", resnet18), ("resnet50", resnet50)):
    register_model(
        _arch,
        card=ModelCard(
            name=_arch,
            arch=_arch,
            topo_layers=resnet_topo_layers(_arch),
            license="BSD-3-Clause (torchvision)",
            citation=_TV_CITATION,
            description=f"torchvision {_arch} with BlurPool on strided convs, randomly "
            "initialised (the TopoNets architecture, no weights).",
            **_IMAGENET,
        ),
    )(_fn)
register_model(
    "vit_b_32",
    card=ModelCard(
        name="vit_b_32",
        arch="vit_b_32",
        topo_layers=_VIT_TOPO,
        license="BSD-3-Clause (torchvision)",
        citation=_TV_CITATION,
        description="torchvision ViT-B/32, randomly initialised (no weights).",
        **_IMAGENET,
    ),
)(vit_b_32)

# --- released TopoNets (Hugging Face org murtylab) -----------------------------------------
for _tau in (0.5, 1, 5, 10, 20, 50):
    _name = f"toponet_resnet18.tau_{_tau}"
    register_model(
        _name,
        card=ModelCard(
            name=_name,
            arch="toponet_resnet18",
            tag=f"tau_{_tau}",
            hub_repo="murtylab/topo-resnet18-imagenet",
            filename=f"all_topo_tau_{float(_tau)}.pt",
            checkpoint_format="state_dict",
            tau=float(_tau),
            topo_layers=resnet_topo_layers("resnet18"),
            license="see the Hugging Face model card of murtylab/topo-resnet18-imagenet",
            citation=TOPONETS_CITATION,
            description=f"TopoNet ResNet-18 (BlurPool) trained on ImageNet with TopoLoss "
            f"tau={_tau} on every conv of the residual blocks.",
            **_IMAGENET,
        ),
    )(resnet18)

register_model(
    "toponet_resnet50.tau_30",
    card=ModelCard(
        name="toponet_resnet50.tau_30",
        arch="toponet_resnet50",
        tag="tau_30",
        hub_repo="murtylab/topo-resnet50-imagenet",
        filename="all_topo_tau_30.0.pt",
        checkpoint_format="state_dict",
        tau=30.0,
        topo_layers=resnet_topo_layers("resnet50"),
        license="see the Hugging Face model card of murtylab/topo-resnet50-imagenet",
        citation=TOPONETS_CITATION,
        description="TopoNet ResNet-50 (BlurPool) trained on ImageNet with TopoLoss tau=30 on "
        "every conv of the residual blocks.",
        **_IMAGENET,
    ),
)(resnet50)

for _tau in (0, 10):
    _name = f"toponet_vit_b_32.tau_{_tau}"
    register_model(
        _name,
        card=ModelCard(
            name=_name,
            arch="toponet_vit_b_32",
            tag=f"tau_{_tau}",
            hub_repo="murtylab/topo-vit-b-32-imagenet",
            filename=f"tau_{float(_tau)}.pt",
            checkpoint_format="model_key",
            tau=float(_tau),
            topo_layers=_VIT_TOPO,
            license="see the Hugging Face model card of murtylab/topo-vit-b-32-imagenet",
            citation=TOPONETS_CITATION,
            description=f"TopoNet ViT-B/32 trained on ImageNet with TopoLoss tau={_tau} on the "
            "MLP up-projection (mlp.0) of every encoder block"
            + (" (tau=0: the baseline)." if _tau == 0 else "."),
            **_IMAGENET,
        ),
    )(vit_b_32)

# --- demo TopoNets trained on CPU (weights shipped in the package) -------------------------
#: tau -> sha256 of the shipped demo TopoNet weights (float16 state dicts written by
#: ``toponeuro.training.export_weights`` from the last checkpoint of the recipe
#: ``demo-floc-tau<tau>``; see docs/demo_toponets.rst)
DEMO_WEIGHTS = {
    0: "4a5391b3b49ced05c86199dd33bd22199ed912d7b1f6b406c537927b75cf81cf",
    10: "89e8e340318cc8a9d414af4cb7e10aa9383b1f59ea4c59c9ff6c1058f6c34b95",
    50: "d336f62f6a418a193da74083a848392cd9605b6cec7133f77b2e093281fad621",
}
#: taus of the shipped demo TopoNets
DEMO_TAUS = tuple(DEMO_WEIGHTS)
for _tau in DEMO_TAUS:
    _name = f"toponet_demo.tau_{_tau}"
    register_model(
        _name,
        card=ModelCard(
            name=_name,
            arch="toponet_demo",
            tag=f"tau_{_tau}",
            checkpoint_format="package",
            package_path=f"toponeuro.models:weights/{_name}.pt",
            sha256=DEMO_WEIGHTS[_tau],
            tau=float(_tau),
            modality="vision",
            input_size=64,
            # the training normalisation of the recipes (grayscale images repeated to RGB)
            mean=(0.5, 0.5, 0.5),
            std=(0.5, 0.5, 0.5),
            crop_pct=1.0,
            topo_layers=tuple(small_resnet_topo_layers()),
            num_classes=10,
            license="MIT (toponeuro)",
            citation="toponeuro demo TopoNets (trained with `toponeuro train`)",
            description=f"Small demonstration TopoNet (SmallResNet, BlurPool), TopoLoss tau="
            f"{_tau}, trained on CPU for 6 epochs on fLoc images 1-96 of the localizer's 10 "
            f"categories (recipe demo-floc-tau{_tau}); not one of the paper's ImageNet "
            "models.",
        ),
    )(toponet_demo)
