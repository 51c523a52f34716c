"""Model-brain analyses: encoding models, RSA, dimensionality and sweeps."""

from ._encoding import ENCODING_MODELS, PLSEncoder, RidgeEncoder, encoding_score, make_folds

__all__ = [
    "RidgeEncoder",
    "PLSEncoder",
    "encoding_score",
    "make_folds",
    "ENCODING_MODELS",
]
