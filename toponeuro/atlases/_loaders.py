"""Cortical atlases shipped with toponeuro: visfAtlas and the language parcels."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

from .._util.docs import fill_doc
from .._util.params import Options, PathLike, validate_params
from ..exceptions import UnknownNameError, close_matches
from ._atlas import (
    _PREFIX,
    ATLAS_SPACES,
    FSAVERAGE5_N_VERTICES,
    HEMIS,
    Atlas,
    atlas_data_path,
    hemi_name,
)
from ._surface import project_volume_atlas

__all__ = ["load_visfatlas", "load_language_parcels"]


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
            "domain": lut.func.replace(to_replace=_DOMAIN_FIX),
        }
    )


@fill_doc
@validate_params({"space": Options(("MNI152", "fsaverage5"), error=UnknownNameError),
                  "cache_dir": [PathLike(), None]})
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
    %(cache_dir)s
        Here: where the projection is cached.

    Returns
    -------
    Atlas
        The visfAtlas's labels and table.

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


@validate_params({"space": Options(ATLAS_SPACES, error=UnknownNameError)})
def load_language_parcels(space: str = "MNI152") -> Atlas:
    """The symmetrical language parcels (Wolna et al., 2025; S > N, n = 706; MIT).

    Parameters
    ----------
    space : {"MNI152", "fsaverage", "fsaverage5"}
        The 2 mm MNI152 volume (26 parcels), or the fsaverage surface (22 parcels: the
        cerebellar ones exist only in the volume); ``"fsaverage5"`` keeps the first 10,242
        vertices of each fsaverage hemisphere (the icosahedral meshes are nested).

    Returns
    -------
    Atlas
        The parcels' labels and table (domain ``"language"``).

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
