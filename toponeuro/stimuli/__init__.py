"""Stimulus sets: fLoc, the language localizer, image folders and NSD images.

A :class:`StimulusSet` holds unique stimulus ids, image paths or texts, one category per
stimulus and free metadata; every labelled array is aligned on its ids. Images are decoded
by :func:`read_image` alone, and image folders listed by :func:`list_image_files` alone;
:func:`load_stimulus_table` joins a folder of images with a CSV/TSV of their labels;
:func:`make_image_folder` writes a synthetic one in fLoc's layout.
"""

from . import _datasets, _image, _loaders, _nsd, _numbers, _r92, _set, _synthetic, _table, _verbnoun
from ._datasets import *
from ._image import *
from ._loaders import *
from ._nsd import *
from ._numbers import *
from ._r92 import *
from ._set import *
from ._synthetic import *
from ._table import *
from ._verbnoun import *

__all__ = [
    *_set.__all__,
    *_loaders.__all__,
    *_nsd.__all__,
    *_numbers.__all__,
    *_image.__all__,
    *_synthetic.__all__,
    *_table.__all__,
    *_r92.__all__,
    *_datasets.__all__,
    *_verbnoun.__all__,
]
