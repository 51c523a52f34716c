"""The architectures a recipe's ``model.arch`` names: builders from the ``[model]`` table."""

from __future__ import annotations

from ..exceptions import RecipeError

__all__: list[str] = []  # ARCHITECTURES is public through toponeuro.training._recipes


def _small_resnet(cfg: dict):
    from ..models import SmallResNet, small_resnet_topo_layers

    widths = tuple(cfg.get("widths", (32, 64, 128, 256)))
    if len(widths) != 4:
        raise RecipeError(
            f"model.widths must be 4 channel counts, one per stage of the small ResNet; got "
            f"{list(widths)}. Give e.g. widths = [32, 64, 128, 256]."
        )
    model = SmallResNet(
        num_classes=int(cfg["num_classes"]),
        widths=widths,
        blurpool=bool(cfg.get("blurpool", True)),
    )
    return model, small_resnet_topo_layers(model)


#: recipe ``model.arch`` -> builder returning ``(model, default topo layers)``
ARCHITECTURES = {"small_resnet": _small_resnet}
