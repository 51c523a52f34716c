"""The stages both jobs share: the cortex's inputs read and checked before any slow step, the
layers a job measures, the check that each layer's sheet can hold a map, and the one line on
which weights were used (one place; the vision and the language job import them from here)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import xarray as xr

from ..._util.constraints import MAPPING, DataArrayWith, HasAttributes, Names
from ..._util.frozen import validate_fields
from ..._util.params import InstanceOf, Text, validate_params
from ...exceptions import SheetError, UnknownNameError
from ...settings import CortexInput

__all__ = ["CortexInputs", "read_cortex_inputs", "map_layers", "check_sheet_layers",
           "model_description"]


@validate_fields({"maps": [MAPPING, None],
                 "files": InstanceOf(list, "a list of paths", example=list)})
class CortexInputs(NamedTuple):
    """A lab's cortex maps, read and checked before the model runs (:func:`read_cortex_inputs`).

    Parameters
    ----------
    maps : dict or None
        Hemisphere -> :class:`~toponeuro.atlases.CortexMaps` of your maps; None: the job's
        shipped atlas or parcels.
    files : list
        The files the maps were read from: inputs of the output folder, never replaced.

    Examples
    --------
    >>> read_cortex_inputs()
    CortexInputs(maps=None, files=[])
    """

    #: hemisphere -> :class:`~toponeuro.atlases.CortexMaps` of your maps; None: the job's
    #: shipped atlas or parcels
    maps: dict | None
    #: the files the maps were read from: inputs of the output folder, never replaced
    files: list


@validate_params(dict(cortex=[InstanceOf(CortexInput, "a CortexInput (toponeuro.settings)",
                                         example=CortexInput), None],
                      domains=[Names(), None]),
                 prefer_skip_nested_validation=False)  # cortex's maps: load_cortex_maps checks
def read_cortex_inputs(cortex=None, *, domains: Sequence[str] | None = None) -> CortexInputs:
    """Read your cortex maps, before any slow step.

    Both jobs start with it, so a bad map fails at once, and the files the maps come from
    are known to the output folder as inputs (``overwrite`` never replaces them). The
    fields of ``cortex`` were checked when it was made; the maps are checked as they are
    read (:func:`toponeuro.atlases.load_cortex_maps`).

    Parameters
    ----------
    cortex : CortexInput, optional
        The job's cortex side (:class:`toponeuro.settings.CortexInput`; None: the shipped
        maps, nothing read).
    domains : sequence of str, optional
        As :func:`toponeuro.atlases.load_cortex_maps`.

    Returns
    -------
    CortexInputs
        The maps read (None for the shipped maps) and their files.

    Examples
    --------
    >>> from toponeuro.settings import CortexInput
    >>> read_cortex_inputs(CortexInput())
    CortexInputs(maps=None, files=[])
    """
    from ...atlases import load_cortex_maps

    if cortex is None or cortex.kind == "atlas":
        return CortexInputs(None, [])
    maps = cortex.maps if cortex.kind == "loaded" else load_cortex_maps(
        cortex.maps, hemispheres=cortex.hemispheres, vol_to_surf=cortex.vol_to_surf,
        domains=domains)
    return CortexInputs(maps, [f for c in maps.values() for f in c.files])


def model_description(net, model: str | None, checkpoint) -> str:
    """The summary's one-line account of which weights were used (file or name, sha256).

    Examples
    --------
    >>> from types import SimpleNamespace as NS
    >>> model_description(NS(weights_sha256="ab12"), "toponet_demo.v2_tau_50", None)
    'toponet_demo.v2_tau_50 (weights sha256 ab12)'
    """
    if checkpoint is not None:
        what = net.model_card.description or f"as {model}"
        return f"{checkpoint} ({what}, sha256 {net.weights_sha256})"
    return f"{model} (weights sha256 {net.weights_sha256})"


@validate_params(dict(card=HasAttributes(("name", "topo_layers"), "a ModelCard (toponeuro.models.model_card)"),
                      layers=[Text(), Names(), None]))
def map_layers(card, layers: str | Sequence[str] | None = None) -> list[str]:
    """The layers the map measures: ``layers`` as a list, default the card's last three
    TopoLoss layers (the last convolutions of the demo TopoNets).

    Parameters
    ----------
    card : ModelCard
        The model's card (``net.model_card``).
    layers : str or sequence of str, optional
        The layers to measure (default the card's last three TopoLoss layers).

    Returns
    -------
    list of str
        The layer names, in order.

    Raises
    ------
    UnknownNameError
        No ``layers`` given and the card names no TopoLoss layers.

    Examples
    --------
    >>> from toponeuro.models import model_card
    >>> map_layers(model_card("toponet_demo.v2_tau_50"))
    ['layer3.0.conv2', 'layer4.0.conv1', 'layer4.0.conv2']
    >>> map_layers(model_card("toponet_demo.v2_tau_50"), "layer4.0.conv2")
    ['layer4.0.conv2']
    """
    if layers is None:
        if not card.topo_layers:
            raise UnknownNameError(
                f"{card.name!r} names no TopoLoss layers, so there is no default; name the "
                "layers to map with layers= (see toponeuro.models.list_layers)."
            )
        return list(card.topo_layers[-3:])
    return [layers] if isinstance(layers, str) else list(layers)


@validate_params(dict(acts=DataArrayWith(("unit",)), layers=Names()))
def check_sheet_layers(acts: xr.DataArray, layers: Sequence[str]) -> None:
    """Raise :class:`~toponeuro.exceptions.SheetError` unless every layer's sheet can hold a
    selectivity map (at least :data:`~toponeuro.analysis.MIN_SHEET_UNITS` units, 2 x 2).

    Parameters
    ----------
    acts : xarray.DataArray
        Activations with dims ``("stimulus", "unit")`` and the sheet coords of each layer.
    layers : sequence of str
        The layers the map measures.

    Examples
    --------
    >>> from toponeuro import make_activations
    >>> check_sheet_layers(make_activations({"conv": 64}, 3), ["conv"])
    >>> check_sheet_layers(make_activations({"fc": 3}, 3), ["fc"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    toponeuro.exceptions.SheetError: Layer 'fc' has 3 units (1 x 3 sheet); ...
    """
    from ...analysis import MIN_SHEET_UNITS

    for layer in layers:
        h, w = acts.topo.sheet_shape(layer)
        if h * w < MIN_SHEET_UNITS or h < 2 or w < 2:
            raise SheetError(
                f"Layer {layer!r} has {h * w} units ({h} x {w} sheet); a selectivity map needs "
                f"at least {MIN_SHEET_UNITS} units on a sheet at least 2 x 2. Pick wider layers "
                "with layers= (e.g. the last convolutions)."
            )
