"""Cortical atlases shipped with toponeuro: visfAtlas and the language parcels."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd

from ..exceptions import CoordinateError, UnknownNameError, close_matches

__all__ = [
    "Atlas",
    "load_visfatlas",
    "load_language_parcels",
    "atlas_data_path",
    "HEMIS",
    "hemi_name",
    "ATLAS_SPACES",
    "FSAVERAGE5_N_VERTICES",
]

HEMIS = ("left", "right")
FSAVERAGE5_N_VERTICES = 10242
ATLAS_SPACES = ("MNI152", "fsaverage5", "fsaverage")
_HEMI_ALIASES = {"lh": "left", "l": "left", "left": "left",
                 "rh": "right", "r": "right", "right": "right"}
_PREFIX = {"left": "lh", "right": "rh"}


def hemi_name(value) -> str:
    """Normalise a hemisphere name to ``"left"`` / ``"right"``.

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


def atlas_data_path(*parts: str) -> Path:
    """Path of a file shipped in ``toponeuro/atlases/data`` (also the repo's ``atlases/``).

    Examples
    --------
    >>> atlas_data_path("visfatlas", "LUT.csv").name
    'LUT.csv'
    """
    p = Path(str(resources.files(__package__).joinpath("data", *parts)))
    if not p.exists():
        raise FileNotFoundError(
            f"Atlas file {p} is missing from the installed package; reinstall toponeuro "
            "(the atlases are package data)."
        )
    return p


@dataclass(eq=False)
class Atlas:
    """A label map (volume or surface) with a tidy label table.

    Attributes
    ----------
    name : str
    space : {"MNI152", "fsaverage5", "fsaverage"}
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

    Examples
    --------
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
        return self.hemi is not None

    @property
    def rois(self) -> list[str]:
        return self.labels.roi.tolist()

    @property
    def domains(self) -> list[str]:
        return list(dict.fromkeys(self.labels.domain))

    def __repr__(self) -> str:
        shape = f"{len(self.data)} vertices" if self.is_surface else f"volume {self.data.shape}"
        return f"Atlas({self.name!r}, space={self.space!r}, {len(self.labels)} labels, {shape})"

    def to_nifti(self):
        """The label volume as a :class:`nibabel.Nifti1Image` (volume atlases only)."""
        if self.is_surface:
            raise TypeError(f"{self!r} is a surface atlas; it has no NIfTI image.")
        import nibabel as nib

        return nib.Nifti1Image(self.data.astype(np.int16), self.affine)

    def select(self, roi: str | Sequence[str]) -> np.ndarray:
        """Label values for ROI keys (``"lh_mFus"``), names (``"mFus"``: both hemispheres)
        or domains (``"faces"``); a list combines them.

        Examples
        --------
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

        Examples
        --------
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
        """ROI key for each label value (``""`` for 0 / unlabelled)."""
        lut = dict(zip(self.labels.label.astype(int), self.labels.roi))
        return np.array([lut.get(int(v), "") for v in np.ravel(values)], dtype=object).astype(str)


# -- visfAtlas ------------------------------------------------------------------------------
_VISF_CITATION = (
    "Rosenke, M., van Hoof, R., van den Hurk, J., Grill-Spector, K., Goebel, R. (2021). A "
    "probabilistic functional atlas of human occipito-temporal visual cortex. Cerebral "
    "Cortex 31(1), 603-619. doi:10.1093/cercor/bhaa246"
)
_VISF_LICENSE = "not stated by the authors' README (see atlases/visfatlas/CITATION.md)"
_DOMAIN_FIX = {"haracters": "characters"}


def _visf_labels() -> pd.DataFrame:
    lut = pd.read_csv(atlas_data_path("visfatlas", "LUT.csv"))
    hemi = lut.ROI.str.split("_").str[0].map(hemi_name)
    return pd.DataFrame(
        {
            "label": lut.label.astype(int),
            "roi": lut.ROI.astype(str),
            "name": lut.ROI.str.split("_", n=1).str[1],
            "hemisphere": hemi,
            "domain": lut.func.replace(_DOMAIN_FIX),
        }
    )


def load_visfatlas(space: str = "MNI152", *, cache_dir: str | os.PathLike | None = None) -> Atlas:
    """The visfAtlas (Rosenke et al., 2021): 33 ventral/lateral visual ROIs.

    Domains: faces, bodies, characters, places, motion, retinotopic (V1-V3 dorsal/ventral).

    Parameters
    ----------
    space : {"MNI152", "fsaverage5"}
        ``"MNI152"``: the 1 mm maximum-probability volume (MNI colin27 per the authors).
        ``"fsaverage5"``: that volume projected on nilearn's fsaverage5 pial surface with
        :func:`nilearn.surface.vol_to_surf` (``nearest_most_frequent`` along the
        white-to-pial segment); computed once and cached under ``cache_dir``.
    cache_dir : str or Path, optional
        Where the projection is cached (default: the toponeuro data cache).

    Returns
    -------
    Atlas

    Examples
    --------
    >>> a = load_visfatlas()
    >>> a.data.shape, len(a.labels), a.domains
    ((182, 218, 182), 33, ['faces', 'bodies', 'characters', 'places', 'motion', 'retinotopic'])
    """
    labels = _visf_labels()
    if space == "MNI152":
        import nibabel as nib

        img = nib.load(atlas_data_path("visfatlas", "space-MNI_seg-visfAtlas_dseg.nii.gz"))
        data = np.asarray(img.dataobj).astype(np.int16)
        return Atlas("visfAtlas", "MNI152", data, labels, affine=img.affine.copy(),
                     citation=_VISF_CITATION, license=_VISF_LICENSE)
    if space == "fsaverage5":
        from ._surface import project_volume_atlas

        vol = load_visfatlas("MNI152")
        return project_volume_atlas(vol, cache_dir=cache_dir)
    raise UnknownNameError(
        f"visfAtlas has no space {space!r}; {close_matches(space, ['MNI152', 'fsaverage5'])}"
    )


# -- language parcels ---------------------------------------------------------------------
_LANG_CITATION = (
    "Wolna et al. (2025): symmetrical functional language parcels, sentences > nonwords, "
    "n = 706 (github.com/aaronwriight/extended_language_network-osf)"
)
_RIGHT_OFFSET = 5  # right parcels carry roiNumber + 5 in the files (see CITATION.md)


def _lang_labels() -> pd.DataFrame:
    t = pd.read_csv(atlas_data_path("language_parcels", "labels_symmetrical.tsv"), sep="\t")
    hemi = t.hemisphere.map(hemi_name)
    name = t.label.astype(str).str.strip()
    value = t.roiNumber.astype(int) + np.where(hemi == "right", _RIGHT_OFFSET, 0)
    return pd.DataFrame(
        {
            "label": value,
            "roi": [f"{_PREFIX[h]}_{n}" for h, n in zip(hemi, name)],
            "name": name,
            "hemisphere": hemi,
            "domain": "language",
        }
    )


def load_language_parcels(space: str = "MNI152") -> Atlas:
    """The symmetrical language parcels (Wolna et al., 2025; S > N, n = 706; MIT).

    Parameters
    ----------
    space : {"MNI152", "fsaverage", "fsaverage5"}
        The 2 mm MNI152 volume (26 parcels), or the fsaverage surface (22 parcels: the
        cerebellar ones exist only in the volume); ``"fsaverage5"`` keeps the first 10,242
        vertices of each fsaverage hemisphere (the icosahedral meshes are nested).

    Examples
    --------
    >>> a = load_language_parcels()
    >>> int(a.labels.query("hemisphere == 'right'").label.min()), a.data.shape
    (19, (91, 109, 91))
    >>> a.select("IFG").tolist()
    [2, 20]
    """
    import nibabel as nib

    labels = _lang_labels()
    common = dict(citation=_LANG_CITATION, license="MIT")
    if space == "MNI152":
        img = nib.load(atlas_data_path("language_parcels", "langParcels_symmetrical.nii.gz"))
        data = np.rint(np.asarray(img.dataobj)).astype(np.int16)
        return Atlas("language_parcels", "MNI152", data, labels, affine=img.affine.copy(),
                     **common)
    if space in ("fsaverage", "fsaverage5"):
        parts, hemis, verts = [], [], []
        for h in HEMIS:
            f = atlas_data_path("language_parcels", f"{_PREFIX[h]}_langParcels_symmetrical_fsaverage.mgh")
            d = np.rint(np.asarray(nib.load(f).dataobj).reshape(-1)).astype(np.int16)
            if space == "fsaverage5":
                d = d[:FSAVERAGE5_N_VERTICES]
            parts.append(d)
            hemis.append(np.full(len(d), h))
            verts.append(np.arange(len(d)))
        data = np.concatenate(parts)
        present = set(np.unique(data)) - {0}
        labels = labels[labels.label.isin(present)].reset_index(drop=True)
        return Atlas("language_parcels", space, data, labels, hemi=np.concatenate(hemis),
                     vertex=np.concatenate(verts), **common)
    raise UnknownNameError(
        f"The language parcels have no space {space!r}; {close_matches(space, ATLAS_SPACES)}"
    )
