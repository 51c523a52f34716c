"""Optional dependencies: imported where they are needed, with an error naming the extra.

nilearn's plotting guard, written once: ``import toponeuro`` never needs matplotlib,
transformers or safetensors, and a missing one says which ``pip install`` brings it.
"""

from __future__ import annotations

import functools
import importlib
import re

from ..exceptions import DependencyMismatchError, MissingDependencyError

__all__ = ["optional_import", "import_torchvision", "matching_torchvision"]


def optional_import(module: str, extra: str, who: str):
    """Import ``module`` or raise an ImportError naming ``toponeuro[extra]``.

    Examples
    --------
    >>> optional_import("json", "plot", "This example").__name__
    'json'
    >>> optional_import("no_such_module_xyz", "plot", "This example")
    Traceback (most recent call last):
    ...
    toponeuro.exceptions.MissingDependencyError: This example needs no_such_module_xyz: pip install 'toponeuro[plot]'
    """
    try:
        return importlib.import_module(module)
    except ImportError as err:
        raise MissingDependencyError(
            f"{who} needs {module.split('.')[0]}: pip install 'toponeuro[{extra}]'"
        ) from err


def _version(dist: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return None


def matching_torchvision(torch_version: str) -> str | None:
    """The torchvision release built for ``torch_version`` (torch 2.m.p pairs with
    torchvision 0.(m+15).p, torch 1.m with 0.(m+1)), its local tag (``+cpu``, ``+cu121``)
    kept; None for a version that does not parse.

    Examples
    --------
    >>> matching_torchvision("2.5.1+cu121"), matching_torchvision("1.13.1")
    ('0.20.1+cu121', '0.14.1')
    """
    m = re.match(r"(\d+)\.(\d+)(?:\.(\d+))?([^+]*)(\+.*)?$", torch_version)
    if m is None:
        return None
    major, minor, patch = int(m[1]), int(m[2]), m[3] or "0"
    tv_minor = minor + 15 if major == 2 else minor + 1 if major == 1 else None
    if tv_minor is None:
        return None
    return f"0.{tv_minor}.{patch}{m[5] or ''}"


def _mismatch(err: BaseException) -> DependencyMismatchError:
    torch_v, tv_v = _version("torch") or "?", _version("torchvision") or "?"
    want = matching_torchvision(torch_v)
    pin = (f"pip install torch=={torch_v.split('+')[0]} torchvision=={want.split('+')[0]}"
           if want else "pip install --force-reinstall torch torchvision")
    tags = {v.partition("+")[2] or "default" for v in (torch_v, tv_v)}
    index = ""
    if len(tags) > 1:  # one CPU and one CUDA build (or two CUDA versions)
        tag = torch_v.partition("+")[2]
        index = (" from the same index as torch (one build for both: "
                 f"--index-url https://download.pytorch.org/whl/{tag})" if tag else
                 " from the same index (both CPU, or both the same CUDA build)")
    return DependencyMismatchError(
        f"torch {torch_v} and torchvision {tv_v} are not built for each other "
        f"({type(err).__name__}: {str(err).strip().splitlines()[0] if str(err).strip() else ''})"
        f"; models would fail at their first convolution. Install the matching pair{index}: "
        f"{pin}."
    )


def _probe_torchvision():
    """Import torchvision and touch one of its compiled operators (what a mismatched build
    lacks); returns the module."""
    import torch
    import torchvision
    import torchvision.ops  # noqa: F401 - registers the operators' Python side

    torch.ops.torchvision.nms  # noqa: B018 - raises when the compiled operators are missing
    return torchvision


@functools.cache
def _checked_torchvision():
    try:
        return _probe_torchvision()
    except (RuntimeError, AttributeError, OSError) as err:  # "operator torchvision::nms does
        # not exist", a missing op namespace, a shared library that does not load
        raise _mismatch(err) from err


def import_torchvision(who: str = "This model"):
    """``torchvision``, after checking it was built for the installed torch (checked once per
    process): a mismatched pair raises :class:`DependencyMismatchError` naming the
    ``pip install`` of a matching pair, here and not at a model's first convolution.

    Examples
    --------
    >>> import_torchvision("resnet18").__name__
    'torchvision'
    """
    try:
        return _checked_torchvision()
    except ImportError as err:
        if isinstance(err, MissingDependencyError):
            raise
        raise MissingDependencyError(
            f"{who} needs torchvision: pip install torchvision (the release built for your "
            f"torch {_version('torch')}: {matching_torchvision(_version('torch') or '')})"
        ) from err
