"""Vision architectures of the released TopoNets: BlurPool ResNet-18/50, ViT-B/32, demo CNN.

Builders only: their cards (weights, preprocessing, topo layers) are data in ``cards.toml``.

The ResNets are torchvision's, with every strided conv of ``in_channels >= 16`` wrapped in
:class:`BlurPoolConv2d` (as the official TopoNets loader does), so the published state dicts
load with ``strict=True``. ViT-B/32 is torchvision's ``vit_b_32``, its hyper-parameters data
in ``architectures.toml`` (:func:`architecture_config`). torch and torchvision are imported
inside the builders, so registering them imports neither.
"""

from __future__ import annotations

from ..exceptions import ParameterError
from ._architectures import architecture_config
from ._registry import register_builder
from ._small import small_resnet_topo_layers

__all__ = ["resnet18", "resnet50", "vit_b_32", "toponet_demo", "small_resnet"]


def _resnet(arch: str, num_classes: int = 1000):
    from .._util.optional import import_torchvision
    from ._blocks import add_blurpool

    torchvision = import_torchvision(arch)
    model = getattr(torchvision.models, arch)(weights=None, num_classes=num_classes)
    return add_blurpool(model)


@register_builder("resnet18")
def resnet18(num_classes: int = 1000):
    """torchvision ResNet-18 with BlurPool on strided convs (randomly initialised)."""
    return _resnet("resnet18", num_classes)


@register_builder("resnet50")
def resnet50(num_classes: int = 1000):
    """torchvision ResNet-50 with BlurPool on strided convs (randomly initialised)."""
    return _resnet("resnet50", num_classes)


@register_builder("vit_b_32")
def vit_b_32(size: str = "full", **kwargs):
    """torchvision's ViT-B/32 (``VisionTransformer``, randomly initialised).

    The hyper-parameters are ``architecture_config("vit_b_32", size)`` (data in
    ``architectures.toml``); keyword arguments override them (``image_size``,
    ``num_layers``, ``num_heads``, ``hidden_dim``, ``mlp_dim``, ``num_classes`` ...).
    ``size="tiny"`` is a 2-layer, 32-wide ViT on 64-pixel images, for tests; its state dict
    has the same keys as the full model's.

    Examples
    --------
    >>> vit = vit_b_32("tiny", num_classes=10)
    >>> vit.patch_size, vit.hidden_dim, len(vit.encoder.layers), vit.heads.head.out_features
    (32, 32, 2, 10)
    """
    import inspect

    from .._util.optional import import_torchvision
    from ..exceptions import UnknownNameError, close_matches

    import_torchvision("vit_b_32")
    from torchvision.models.vision_transformer import VisionTransformer

    accepted = sorted(inspect.signature(VisionTransformer).parameters)
    unknown = sorted(set(kwargs) - set(accepted))
    if unknown:  # passed through to torchvision: checked here, not as its TypeError
        raise UnknownNameError(
            f"vit_b_32: {unknown} {'is not a parameter' if len(unknown) == 1 else 'are not parameters'} "
            f"of torchvision's VisionTransformer; {close_matches(unknown[0], accepted)}"
        )
    return VisionTransformer(**architecture_config("vit_b_32", size, **kwargs))


@register_builder("toponet_demo")
def toponet_demo(num_classes: int = 10, widths=(32, 64, 128, 256)):
    """The small BlurPool ResNet of the demo TopoNets (:class:`SmallResNet`)."""
    from ._standalone import SmallResNet

    return SmallResNet(num_classes=num_classes, widths=tuple(widths))


@register_builder("small_resnet", topo_layers=small_resnet_topo_layers)
def small_resnet(num_classes: int = 10, widths=(32, 64, 128, 256), blurpool: bool = True):
    """The small ResNet a training recipe's ``model.arch = "small_resnet"`` builds.

    Examples
    --------
    >>> small_resnet(4, widths=[8, 16, 16, 32]).fc.out_features
    4
    """
    widths = tuple(widths)
    if len(widths) != 4:
        raise ParameterError(
            f"model.widths must be 4 channel counts, one per stage of the small ResNet; got "
            f"{list(widths)}. Give e.g. widths = [32, 64, 128, 256]."
        )
    from ._standalone import SmallResNet

    return SmallResNet(num_classes=int(num_classes), widths=widths, blurpool=bool(blurpool))
