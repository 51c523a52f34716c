"""Representational similarity analysis: RDMs, their comparison and noise ceilings, searchlights, and converters to rsatoolbox.

A wing of :mod:`toponeuro.analysis`: import the public names from there."""

from . import _rsa, _rsa_compare, _rsa_convert, _rsa_files, _rsa_inference, _searchlight
from ._rsa import *
from ._rsa_compare import *
from ._rsa_convert import *
from ._rsa_files import *
from ._rsa_inference import *
from ._searchlight import *

__all__ = [
    *_rsa.__all__,
    *_rsa_compare.__all__,
    *_rsa_convert.__all__,
    *_rsa_files.__all__,
    *_rsa_inference.__all__,
    *_searchlight.__all__,
]
