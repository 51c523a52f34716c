"""Stimulus sets: fLoc, the language localizer, image folders and NSD images.

A :class:`StimulusSet` holds unique stimulus ids, image paths or texts, one category per
stimulus and free metadata; every labelled array is aligned on its ids. Images are decoded
by :func:`read_image` alone, and image folders listed by :func:`list_image_files` alone.
"""

from ._image import image_range, is_hidden, list_image_files, read_image
from ._loaders import (
    FLOC_LOCAL_FOLDER,
    IMAGE_EXTENSIONS,
    LANGLOC_CONDITIONS,
    NSDImageReader,
    fetch_floc,
    fetch_language_localizer,
    load_floc,
    load_image_folder,
    load_language_localizer,
    load_nsd_stimuli,
    local_floc_copy,
    pinned_sources,
)
from ._set import (
    FLOC_CATEGORIES,
    FLOC_DOMAIN_OF,
    FLOC_DOMAINS,
    STIMULUS_KINDS,
    StimulusSet,
    make_stimulus_set,
)

__all__ = [
    "StimulusSet",
    "FLOC_CATEGORIES",
    "FLOC_DOMAINS",
    "FLOC_DOMAIN_OF",
    "STIMULUS_KINDS",
    "LANGLOC_CONDITIONS",
    "IMAGE_EXTENSIONS",
    "make_stimulus_set",
    "fetch_floc",
    "fetch_language_localizer",
    "load_floc",
    "local_floc_copy",
    "FLOC_LOCAL_FOLDER",
    "load_language_localizer",
    "load_image_folder",
    "load_nsd_stimuli",
    "pinned_sources",
    "NSDImageReader",
    "read_image",
    "list_image_files",
    "is_hidden",
    "image_range",
]
