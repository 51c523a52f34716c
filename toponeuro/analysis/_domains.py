"""The fLoc domains used by the selectivity contrasts, and the language-localizer contrast.

The domain table itself is defined once, in :mod:`toponeuro.stimuli`; analysis uses the five
category domains (scrambled images are the control left out of every "rest" contrast).
"""

from __future__ import annotations

from types import MappingProxyType

from ..stimuli import FLOC_DOMAINS as _STIMULUS_DOMAINS

__all__ = ["FLOC_DOMAINS", "FLOC_SCRAMBLED", "LANGUAGE_TARGET", "LANGUAGE_AGAINST"]

#: the control category left out of every "rest" contrast
FLOC_SCRAMBLED = "scrambled"

#: fLoc domain -> its two sub-categories (Stigliani et al., 2015), scrambled excluded
FLOC_DOMAINS = MappingProxyType(
    {k: tuple(v) for k, v in _STIMULUS_DOMAINS.items() if k != FLOC_SCRAMBLED}
)

#: language localizer (Fedorenko et al., 2010): sentences > nonword lists
LANGUAGE_TARGET = "S"
LANGUAGE_AGAINST = "N"
