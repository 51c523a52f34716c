"""Optional dependencies: imported where they are needed, with an error naming the extra.

nilearn's plotting guard, written once: ``import toponeuro`` never needs matplotlib,
transformers or safetensors, and a missing one says which ``pip install`` brings it.
"""

from __future__ import annotations

import importlib

from .exceptions import MissingDependencyError

__all__ = ["optional_import"]


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
