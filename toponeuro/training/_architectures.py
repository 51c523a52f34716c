"""The architectures a recipe's ``model.arch`` names: the models package's one table.

The builders are registered in :mod:`toponeuro.models` (``register_builder`` with its default
TopoLoss layers); this module only turns a recipe's ``[model]`` table into their keywords.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

from ..exceptions import ParameterError, RecipeError, UnknownNameError, close_matches
from ..models import build_architecture, list_architectures

__all__: list[str] = []  # ARCHITECTURES is public through toponeuro.training._recipes


def build_recipe_model(cfg: Mapping):
    """``(model, default topo layers)`` for a recipe's ``[model]`` table (``arch`` + keywords).

    Examples
    --------
    >>> net, layers = build_recipe_model({"arch": "small_resnet", "num_classes": 2})
    >>> net.fc.out_features, len(layers)
    (2, 8)
    """
    kwargs = {k: v for k, v in cfg.items() if k != "arch"}
    try:
        return build_architecture(cfg["arch"], **kwargs)
    except ParameterError as err:  # e.g. widths of the wrong length: the recipe's fault
        raise RecipeError(str(err)) from None


class _RecipeArchitectures(Mapping):
    """A read-only view: recipe ``model.arch`` -> ``builder(cfg) -> (model, topo layers)``."""

    def __getitem__(self, arch: str) -> Callable:
        known = list_architectures(trainable=True)
        if arch not in known:  # a KeyError too, as a Mapping's lookup must raise
            raise UnknownNameError(
                f"No recipe architecture {arch!r}; {close_matches(str(arch), known)}"
            )
        return lambda cfg: build_recipe_model({**cfg, "arch": arch})

    def __iter__(self) -> Iterator[str]:
        return iter(list_architectures(trainable=True))

    def __len__(self) -> int:
        return len(list_architectures(trainable=True))


#: recipe ``model.arch`` -> builder returning ``(model, default topo layers)``: a view of the
#: builders :mod:`toponeuro.models` registered with their TopoLoss layers, not a table
ARCHITECTURES = _RecipeArchitectures()
