"""The :class:`Atlas` container, hemisphere names and the atlas data folder.

The loaders of the shipped atlases live in :mod:`toponeuro.atlases._loaders` (they also need
the surface projection of :mod:`toponeuro.atlases._surface`, which needs this module).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd

from .._io.meshes import MESH_SIZES
from .._util.constraints import MAPPING, NDARRAY
from .._util.frozen import validate_fields
from .._util.params import InstanceOf, Text, validate_params
from ..exceptions import (
    CoordinateError,
    InputTypeError,
    MissingFileError,
    ParameterError,
    UnknownNameError,
    close_matches,
)

__all__ = [
    "Atlas",
    "atlas_data_path",
    "HEMIS",
    "hemi_name",
    "ATLAS_SPACES",
    "FSAVERAGE5_N_VERTICES",
]

HEMIS = ("left", "right")
FSAVERAGE5_N_VERTICES = MESH_SIZES["fsaverage5"]
ATLAS_SPACES = ("MNI152", "fsaverage5", "fsaverage")
_HEMI_ALIASES = {"lh": "left", "l": "left", "left": "left",
                 "rh": "right", "r": "right", "right": "right"}
_PREFIX = {"left": "lh", "right": "rh"}


@validate_params(dict(value=Text(fix="Use 'left'/'lh' or 'right'/'rh'.")))
def hemi_name(value) -> str:
    """Normalise a hemisphere name to ``"left"`` / ``"right"``.

    Parameters
    ----------
    value : str
        ``"left"``, ``"lh"``, ``"L"``, ``"right"``, ``"rh"``, ``"R"`` ... (any case).

    Returns
    -------
    str
        ``"left"`` or ``"right"``.

    Raises
    ------
    CoordinateError
        Not a hemisphere name.

    Examples
    --------
    >>> hemi_name("lh"), hemi_name("R")
    ('left', 'right')
    """
    try:
        return _HEMI_ALIASES[str(value).lower()]
    except KeyError:
        raise CoordinateError(
            f"Unknown hemisphere {value!r}; use 'left'/'lh' or 'right'/'rh'."
        ) from None


def _hemi_names(values) -> list[str]:
    """``values`` as hemisphere names, each once, in the order given (``["left", "lh"]`` is
    one hemisphere); one name alone (``"left"``) is that hemisphere, not its letters.

    Examples
    --------
    >>> _hemi_names("left"), _hemi_names(["rh", "left", "lh"])
    (['left'], ['right', 'left'])
    """
    if isinstance(values, str | bytes):
        values = [values.decode() if isinstance(values, bytes) else values]
    try:
        names = list(dict.fromkeys(hemi_name(h) for h in values))
    except TypeError:
        raise InputTypeError(
            f"hemispheres must be 'left', 'right' or a list of them; got "
            f"{type(values).__name__} {values!r:.40}."
        ) from None
    if not names:
        raise ParameterError("hemispheres is empty; name at least one: 'left', 'right' or "
                             "['left', 'right'].")
    return names


def atlas_data_path(*parts: str) -> Path:
    """Path of a file shipped in ``toponeuro/atlases/data`` (also the repo's ``atlases/``).

    Parameters
    ----------
    *parts : str
        The path's parts under the data folder.

    Returns
    -------
    pathlib.Path
        The file (which may be absent).

    Examples
    --------
    >>> atlas_data_path("visfatlas", "LUT.csv").name
    'LUT.csv'
    """
    p = Path(str(resources.files(__package__).joinpath("data", *parts)))
    if not p.exists():
        raise MissingFileError(
            f"Atlas file {p} is missing from the installed package; reinstall toponeuro "
            "(the atlases are package data)."
        )
    return p


@dataclass(eq=False)
@validate_fields({
    "name": Text(), "space": Text(), "data": NDARRAY,
    "labels": InstanceOf(pd.DataFrame, "a pandas.DataFrame", example=pd.DataFrame),
    "affine": [NDARRAY, None], "hemi": [NDARRAY, None], "vertex": [NDARRAY, None],
    "citation": Text(empty=True), "license": Text(empty=True), "extra": MAPPING})
class Atlas:
    """A label map (volume or surface) with a tidy label table.

    Parameters
    ----------
    name : str
        The atlas's name (``"visfatlas"``).
    space : {"MNI152", "fsaverage5", "fsaverage"}
        Where ``data`` lies.
    data : numpy.ndarray of int
        3-D label volume, or one label per vertex (left hemisphere first, then right).
    labels : pandas.DataFrame
        Columns ``label`` (value in ``data``), ``roi`` (unique key like ``"lh_mFus"``),
        ``name``, ``hemisphere`` (``left``/``right``), ``domain``.
    affine : numpy.ndarray or None
        Voxel -> mm (volumes).
    hemi, vertex : numpy.ndarray or None
        Hemisphere and within-hemisphere vertex index of each entry of ``data`` (surfaces).
    citation, license : str
        The paper to cite, and the data's licence.
    extra : dict
        Anything else the loader records (e.g. the source file).

    Examples
    --------
    >>> from toponeuro.atlases import load_visfatlas
    >>> atlas = load_visfatlas()
    >>> atlas.labels.columns.tolist()
    ['label', 'roi', 'name', 'hemisphere', 'domain']
    >>> int(atlas.mask(domain="faces", hemi="left").sum()) > 0
    True
    """

    name: str
    space: str
    data: np.ndarray
    labels: pd.DataFrame
    affine: np.ndarray | None = None
    hemi: np.ndarray | None = None
    vertex: np.ndarray | None = None
    citation: str = ""
    license: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def is_surface(self) -> bool:
        """Whether the atlas labels the vertices of one hemisphere's mesh (not a volume).

        Returns
        -------
        bool
            True for a surface atlas.
        """
        return self.hemi is not None

    @property
    def rois(self) -> list[str]:
        """The ROI keys of the labels, in label order (``"lh_mFus"`` ...).

        Returns
        -------
        list of str
            One key per label.
        """
        return self.labels.roi.tolist()

    @property
    def domains(self) -> list[str]:
        """The atlas's domains (``faces``, ``language`` ...), in label order, once each.

        Returns
        -------
        list of str
            The domains.
        """
        return list(dict.fromkeys(self.labels.domain))

    def __repr__(self) -> str:
        shape = f"{len(self.data)} vertices" if self.is_surface else f"volume {self.data.shape}"
        return f"Atlas({self.name!r}, space={self.space!r}, {len(self.labels)} labels, {shape})"

    def to_nifti(self):
        """The label volume as a :class:`nibabel.Nifti1Image` (volume atlases only).

        Returns
        -------
        nibabel.Nifti1Image
            The labels (int16) with the atlas's affine.
        """
        if self.is_surface:
            raise InputTypeError(f"{self!r} is a surface atlas; it has no NIfTI image.")
        import nibabel as nib

        return nib.Nifti1Image(self.data.astype(np.int16), self.affine)

    def select(self, roi: str | Sequence[str]) -> np.ndarray:
        """Label values for ROI keys (``"lh_mFus"``), names (``"mFus"``: both hemispheres)
        or domains (``"faces"``); a list combines them.

        Parameters
        ----------
        roi : str or list of str
            ROI keys, names or domains.

        Returns
        -------
        numpy.ndarray
            The label values (int), sorted.

        Examples
        --------
        >>> from toponeuro.atlases import load_visfatlas
        >>> load_visfatlas().select(["lh_mFus", "hMT"]).tolist()
        [1, 11, 27]
        """
        wanted = [roi] if isinstance(roi, str) else list(roi)
        t = self.labels
        out: list[int] = []
        for w in wanted:
            hit = t[(t.roi == w) | (t.name == w) | (t.domain == w)]
            if hit.empty:
                options = list(dict.fromkeys([*t.roi, *t.name, *t.domain]))
                raise UnknownNameError(
                    f"{self.name} has no ROI, name or domain {w!r}; {close_matches(w, options)}"
                )
            out.extend(int(v) for v in hit.label if int(v) not in out)
        return np.array(sorted(out), dtype=np.int64)

    def mask(
        self,
        domain: str | Sequence[str] | None = None,
        hemi: str | None = None,
        roi: str | Sequence[str] | None = None,
    ) -> np.ndarray:
        """Boolean map (shape of ``data``) of the labels of a domain / ROI, optionally one
        hemisphere; with no argument, every labelled voxel.

        Parameters
        ----------
        domain : str or list of str, optional
            Domain(s) whose labels are kept.
        hemi : {"left", "right"}, optional
            Keep one hemisphere's labels only.
        roi : str or list of str, optional
            ROI key(s), name(s) or domain(s), as :meth:`select` reads them.

        Returns
        -------
        numpy.ndarray
            Boolean, the shape of ``data``.

        Examples
        --------
        >>> from toponeuro.atlases import load_language_parcels
        >>> a = load_language_parcels("fsaverage5")
        >>> m = a.mask(hemi="right")
        >>> m.shape, bool(m[a.hemi == "left"].any())
        ((20484,), False)
        """
        t = self.labels
        keep = np.ones(len(t), dtype=bool)
        if domain is not None:
            keep &= np.isin(t.label, self.select(domain))
            doms = [domain] if isinstance(domain, str) else list(domain)
            bad = [d for d in doms if d not in set(t.domain)]
            if bad:
                raise UnknownNameError(
                    f"{self.name} has no domain {bad[0]!r}; {close_matches(bad[0], self.domains)}"
                )
        if roi is not None:
            keep &= np.isin(t.label, self.select(roi))
        if hemi is not None:
            keep &= (t.hemisphere == hemi_name(hemi)).to_numpy()
        return np.isin(self.data, t.label[keep].to_numpy())

    def roi_of(self, values: np.ndarray) -> np.ndarray:
        """ROI key for each label value (``""`` for 0 / unlabelled).

        Parameters
        ----------
        values : numpy.ndarray
            Label values.

        Returns
        -------
        numpy.ndarray
            One ROI key (str) per value.
        """
        lut = dict(zip(self.labels.label.astype(int), self.labels.roi))
        return np.array([lut.get(int(v), "") for v in np.ravel(values)], dtype=object).astype(str)
