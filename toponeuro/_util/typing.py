"""Type aliases shared by the public signatures (annotations only; nothing here runs)."""

from __future__ import annotations

import numpy as np

#: a seed: an int, a ``numpy.random.Generator``, or None (fresh entropy); see ``%(random_state)s``
RandomState = int | np.random.Generator | None
