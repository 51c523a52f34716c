"""Planted truths shared by the null and conclusion tests: a Gaussian blob on a grid, and the
scikit-image SSIM the toolkit's map_similarity is checked against (skipped when absent)."""

from __future__ import annotations

import numpy as np
import pytest

skimage_metrics = pytest.importorskip("skimage.metrics")


def blob(shape, centre, sigma):
    """A unit-height isotropic Gaussian of width ``sigma`` at ``centre`` on a ``shape`` grid."""
    rr, cc = np.mgrid[: shape[0], : shape[1]]
    return np.exp(-((rr - centre[0]) ** 2 + (cc - centre[1]) ** 2) / (2 * sigma**2))
