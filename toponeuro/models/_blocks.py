"""Building blocks shared by the TopoNet architectures: the BlurPool conv wrapper.

Defined in :mod:`toponeuro.models._standalone` (torch-only, also inlined into Brain-Score
plugins).
"""

from ._standalone import BlurPoolConv2d, add_blurpool

__all__ = ["BlurPoolConv2d", "add_blurpool"]
