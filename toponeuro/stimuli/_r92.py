"""The 92 object images of Kriegeskorte et al. (2008), as rsatoolbox distributes them."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from .._io.reading import read_file
from .._util.docs import fill_doc
from .._util.params import PathLike, validate_params
from ..exceptions import InvalidDataError, MissingFileError
from ._datasets import DATASETS, dataset_dir
from ._loaders import _fetch_row, pinned_sources
from ._set import StimulusSet

__all__ = ["fetch_92_images", "load_92_images", "R92_FILES", "R92_LABELS", "R92_LOCAL_FOLDER"]

_R92_REPO = "rsagroup/rsatoolbox"
#: role -> file name of the two files of rsatoolbox's demos/92imageData (pinned in
#: ``pinned_sources("rsagroup/rsatoolbox")``)
R92_FILES = {
    "stimuli": "Kriegeskorte_Neuron2008_supplementalData.mat",
    "brain_rdms": "92_brainRDMs.mat",
}
#: the 0/1 flags of each image in ``stimuli_92objs``, kept as stimulus labels
R92_LABELS = ("human", "face", "animal", "natural")
#: name of the folder under the cache root where a local copy is looked for
R92_LOCAL_FOLDER = DATASETS["r92"].name


@validate_params({"cache_dir": [PathLike(), None]})
@fill_doc
def fetch_92_images(*, cache_dir: str | os.PathLike | None = None) -> dict[str, Path]:
    """Download the 92-image files (rsatoolbox's demo data, pinned commit); return their paths.

    Two MATLAB files from ``rsagroup/rsatoolbox`` ``demos/92imageData`` at the commit in
    :func:`pinned_sources`, each verified by sha256 (a mismatch deletes the download and
    raises :class:`~toponeuro.exceptions.ChecksumError`) and downloaded once:
    ``"stimuli"`` (the images, their category and flags) and ``"brain_rdms"`` (human-IT
    RDMs of 4 subjects x 2 sessions). Offline, the error names the address and where to
    put a copy.

    Parameters
    ----------
    %(cache_dir)s

    Returns
    -------
    dict
        ``{"stimuli": Path, "brain_rdms": Path}``.

    Examples
    --------
    >>> paths = fetch_92_images()  # doctest: +SKIP
    >>> sorted(pinned_sources("rsagroup/rsatoolbox").path.str.rsplit("/", n=1).str[-1])
    ['92_brainRDMs.mat', 'Kriegeskorte_Neuron2008_supplementalData.mat']
    """
    rows = {Path(r.path).name: r for r in pinned_sources(_R92_REPO).itertuples()}
    return {role: _fetch_row(rows[name], cache_dir, False) for role, name in R92_FILES.items()}


def _image(arr):
    from PIL import Image

    return Image.fromarray(np.asarray(arr, dtype=np.uint8))


def _text(v) -> str:
    v = np.asarray(v)
    return str(v.ravel()[0]) if v.size else ""


@validate_params({"path": [PathLike(), None], "cache_dir": [PathLike(), None]})
@fill_doc
def load_92_images(
    path: str | os.PathLike | None = None, cache_dir: str | os.PathLike | None = None
) -> StimulusSet:
    """The 92 object images of Kriegeskorte et al. (2008), with their categories and flags.

    Ids ``"img01"``..``"img92"`` in the order of the file, which is the row order of its
    RDMs (``92_brainRDMs.mat``: read them with
    ``toponeuro.analysis.load_rdms(path, stimuli)``). Categories: ``human face``, ``human
    bodypart``, ``nonhuman face``, ``nonhuman bodypart``, ``natural inanimate``,
    ``artificial inanimate``; labels (stimulus coords, :data:`R92_LABELS`): ``human``,
    ``face``, ``animal``, ``natural`` (0/1). The images (175 x 175 RGB) are held in memory.

    Parameters
    ----------
    path : str or Path, optional
        ``Kriegeskorte_Neuron2008_supplementalData.mat`` or the folder holding it. Without
        one, ``<cache>/r92`` (``$TOPONEURO_DATA/r92``, :func:`dataset_dir`) is used when it
        holds the file; otherwise :func:`fetch_92_images` downloads it there (pinned,
        sha256-checked).
    %(cache_dir)s

    Returns
    -------
    StimulusSet
        The 92 images with their categories and labels.

    Examples
    --------
    >>> s = load_92_images()  # doctest: +SKIP
    >>> len(s), s.categories[0], sorted(s.coords())  # doctest: +SKIP
    (92, 'human bodypart', ['animal', 'category', 'face', 'human', 'natural', 'stimulus_id'])
    """
    import scipy.io

    name = R92_FILES["stimuli"]
    if path is None:
        local = dataset_dir("r92", cache_dir) / name
        path = local if local.is_file() else fetch_92_images(cache_dir=cache_dir)["stimuli"]
    path = Path(path)
    if path.is_dir():
        path = path / name
    if not path.is_file():
        raise MissingFileError(
            f"{path} does not exist; pass the file {name} (or its folder), or path=None to "
            "download the pinned copy."
        )
    content = read_file(path, scipy.io.loadmat, kind="MATLAB", what="92-image stimulus file",
                        fix="download it again (path=None fetches the pinned copy)")
    if "stimuli_92objs" not in content:
        raise InvalidDataError(
            f"{path} has no variable 'stimuli_92objs'; expected rsatoolbox's "
            f"demos/92imageData/{name}."
        )
    objs = content["stimuli_92objs"].ravel()
    images = [np.asarray(o["image"]) for o in objs]
    meta = pd.DataFrame({k: [int(np.asarray(o[k]).ravel()[0]) for o in objs] for k in R92_LABELS})
    meta.insert(0, "number", np.arange(1, len(objs) + 1))
    return StimulusSet(
        [f"img{k:02d}" for k in range(1, len(objs) + 1)], images, "image",
        categories=[_text(o["category"]) for o in objs], metadata=meta, name="kriegeskorte92",
        loader=_image, labels=R92_LABELS,
    )
