"""Names removed in 0.3.0: using one raises an error that names its replacement.

0.2 kept the 0.1 names for one release with a FutureWarning; 0.3.0 removed them
(``docs/changelog.rst`` lists each with its replacement). A removed module attribute raises
:class:`AttributeError` saying what to use instead (a removed keyword raises Python's own
:class:`TypeError`, and the changelog says what replaced it).
"""

from __future__ import annotations

__all__ = ["removed_names"]


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
    """

    def __getattr__(name: str):
        if name in replacements:
            raise AttributeError(
                f"{module}.{name} was removed in toponeuro 0.3.0; use {replacements[name]} "
                "(see the changelog)."
            )
        raise AttributeError(f"module {module!r} has no attribute {name!r}")

    return __getattr__
