"""The fLoc domain table and the language-localizer contrast, defined once for analysis.

Temporary home: the stimuli stage will own ``FLOC_DOMAINS``; when it lands, this module
re-exports it from :mod:`toponeuro.stimuli` so the table is defined in one place only.
"""

from __future__ import annotations

from types import MappingProxyType

__all__ = ["FLOC_DOMAINS", "FLOC_SCRAMBLED", "LANGUAGE_TARGET", "LANGUAGE_AGAINST"]

#: fLoc domain -> its two sub-categories (Stigliani et al., 2015).
FLOC_DOMAINS = MappingProxyType(
    {
        "faces": ("adult", "child"),
        "bodies": ("body", "limb"),
        "places": ("corridor", "house"),
        "characters": ("word", "number"),
        "objects": ("car", "instrument"),
    }
)
#: the control category left out of every "rest" contrast
FLOC_SCRAMBLED = "scrambled"

#: language localizer (Fedorenko et al., 2010): sentences > nonword lists
LANGUAGE_TARGET = "S"
LANGUAGE_AGAINST = "N"
