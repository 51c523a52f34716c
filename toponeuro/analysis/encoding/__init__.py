"""Encoding models: the ridge solver, PLS, encoding scores and layer x region sweeps.

A wing of :mod:`toponeuro.analysis`: import the public names from there."""

from . import _encoding, _sweep
from ._encoding import *
from ._sweep import *

__all__ = [
    *_encoding.__all__,
    *_sweep.__all__,
]
