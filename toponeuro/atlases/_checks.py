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
  :func:`warn_if_region_ids`).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from functools import lru_cache

import numpy as np

from .._meshes import MESHES
from ..exceptions import (
    ImplausibleValueWarning,
    InvalidDataError,
    UndefinedValueWarning,
    UnknownNameError,
    close_matches,
)

# check_domain_names and warn_if_region_ids are load_cortex_maps's own checks (used only
# inside atlases): not exported, so they are not public API (issue 44)
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
#: away, see tests/test_cortex_maps.py) does not
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
        stacklevel=4)
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
            stacklevel=4)


@lru_cache(maxsize=2)
def _region_points(hemi: str) -> np.ndarray:
    from ._loaders import load_visfatlas
    from ._surface import vertex_coordinates

    atlas = load_visfatlas("fsaverage5")
    mask = atlas.mask(domain=list(EXPECTED_REGION_DOMAINS), hemi=hemi)[atlas.hemi == hemi]
    return vertex_coordinates("pial", hemi)[mask]


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
            stacklevel=4)


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
        stacklevel=4)
