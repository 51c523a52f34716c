"""A package's module ``__getattr__``: names imported on first access (:func:`lazy_names`),
and names removed in 0.3.0, whose use raises an error that names the replacement.

0.2 kept the 0.1 names for one release with a FutureWarning; 0.3.0 removed them
(``docs/changelog.rst`` lists each with its replacement). A removed module attribute raises
:class:`AttributeError` saying what to use instead; ``from module import name`` raises
:class:`~toponeuro.exceptions.RemovedNameError` (an :class:`ImportError`) with the same hint —
Python turns an AttributeError there into its own bare "cannot import name" (a removed
keyword raises Python's own :class:`TypeError`, and the changelog says what replaced it).
"""

from __future__ import annotations

import dis
import importlib
import sys

from ..exceptions import RemovedNameError

__all__ = ["lazy_names", "removed_names"]

_IMPORT_FROM = dis.opmap.get("IMPORT_FROM")


def _in_from_import() -> bool:
    """The attribute is being read by a ``from module import name`` statement: the first
    frame above the module ``__getattr__`` hooks is executing ``IMPORT_FROM``."""
    try:
        frame = sys._getframe(2)
        while frame is not None and frame.f_code.co_name == "__getattr__":
            frame = frame.f_back
        if frame is None or _IMPORT_FROM is None:
            return False
        return frame.f_code.co_code[frame.f_lasti] == _IMPORT_FROM
    except (AttributeError, IndexError, ValueError):  # another Python implementation
        return False


def removed_names(module: str, replacements: dict[str, str]):
    """A module ``__getattr__`` for attributes removed in 0.3.0 (``name -> replacement``).

    Examples
    --------
    >>> getattr_ = removed_names("toponeuro.features", {"ItemStimuli": "StimulusSet.from_items"})
    >>> try:
    ...     getattr_("ItemStimuli")
    ... except AttributeError as err:
    ...     print(err)
    toponeuro.features.ItemStimuli was removed in toponeuro 0.3.0; use StimulusSet.from_items (see the changelog).
    >>> try:
    ...     from toponeuro.analysis import noise_ceiling
    ... except ImportError as err:
    ...     print(type(err).__name__, str(err).split(";")[0])
    RemovedNameError toponeuro.analysis.noise_ceiling was removed in toponeuro 0.3.0
    """

    def __getattr__(name: str):
        if name in replacements:
            message = (f"{module}.{name} was removed in toponeuro 0.3.0; use "
                       f"{replacements[name]} (see the changelog).")
            if _in_from_import():
                raise RemovedNameError(message, name=name, path=None)
            raise AttributeError(message)
        raise AttributeError(f"module {module!r} has no attribute {name!r}")

    return __getattr__


def lazy_names(module: str, lazy: dict[str, str], *, submodules=(), removed=None):
    """A package's module ``__getattr__`` and ``__dir__``: a name in ``lazy`` (name -> the
    module defining it, absolute) or ``submodules`` is imported when first read, so importing
    the package stays light (torch and the like load when used); any other name goes to
    :func:`removed_names` (``removed``: name -> replacement).

    Examples
    --------
    >>> getattr_, dir_ = lazy_names("toponeuro", {"StimulusSet": "toponeuro.stimuli"})
    >>> getattr_("StimulusSet").__module__, "StimulusSet" in dir_()
    ('toponeuro.stimuli._set', True)
    """
    missing = removed_names(module, removed or {})

    def __getattr__(name: str):
        if name in lazy:
            return getattr(importlib.import_module(lazy[name]), name)
        if name in submodules:
            return importlib.import_module(f"{module}.{name}")
        return missing(name)

    def __dir__():
        return sorted(set(vars(sys.modules[module])) | set(lazy) | set(submodules))

    return __getattr__, __dir__
