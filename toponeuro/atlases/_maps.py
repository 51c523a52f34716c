"""An atlas's domain ROIs as maps on one hemisphere, with the geometry to measure them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from numbers import Real

import numpy as np

from .._io.meshes import MESHES
from .._util.frozen import validate_fields
from .._util.params import Interval, Options, Text, validate_params
from ..exceptions import InvalidDataError, UnknownNameError, close_matches
from ._atlas import FSAVERAGE5_N_VERTICES, HEMIS, Atlas, _hemi_names
from ._surface import SURFACES, mesh_graph, vertex_coordinates

__all__ = ["CORTEX_REPRESENTATIONS", "CortexMaps", "cortex_maps", "roi_proximity"]

#: how :func:`cortex_maps` turns an ROI into a map over the hemisphere
CORTEX_REPRESENTATIONS = ("binary", "proximity")

#: mesh along which geodesic (shortest-path) distances on the cortex are measured
GEODESIC_SURFACE = "pial"

#: what each text field of a CortexMaps accepts (its declaration: checked when one is made)
_MAPS_FIELDS = {
    "hemi": Options(HEMIS, error=UnknownNameError),
    "surface": Text(),
    "neighbours": Text(),
    "mesh": Options(MESHES, error=UnknownNameError),
    "representation": Options(("binary", "proximity", "values"), error=UnknownNameError),
}


@dataclass(eq=False)
@validate_fields(_MAPS_FIELDS)
class CortexMaps:
    """Domain maps on one hemisphere of a mesh (fsaverage5, or fs_LR 32k for your own
    maps) and where its vertices lie.

    Parameters
    ----------
    hemi : {"left", "right"}
        The hemisphere.
    maps : dict of str -> numpy.ndarray
        Domain -> ``(10242,)`` float map of the hemisphere's vertices. From an atlas
        (:func:`cortex_maps`): 1 inside the domain's ROIs and 0 elsewhere (``"binary"``), or
        the ROI's proximity ``exp(-d / scale_mm)`` with ``d`` the geodesic distance to the
        ROI (``"proximity"``: 1 inside); from your own maps (:func:`load_cortex_maps`): their
        values. Domains without a map in this hemisphere are absent.
    positions : numpy.ndarray
        ``(10242, d)`` vertex coordinates in mm (``surface``: 2-D for ``"flat"``).
    adjacency : scipy.sparse matrix
        The mesh's edges (weighted by mm on the ``neighbours`` surface): which vertices
        touch, for patches.
    sphere : numpy.ndarray
        ``(10242, 3)`` coordinates of the vertices on the fsaverage5 sphere: what a spin test
        (random rotations of the sphere) needs.
    surface, neighbours : str
        The meshes ``positions`` and ``adjacency`` come from.
    mesh : str
        ``"fsaverage5"`` or ``"fs_LR_32k"`` (its facts: ``toponeuro._io.meshes.MESHES``).
    representation : str
        What the values are: ``"binary"``, ``"proximity"`` (atlas ROIs) or ``"values"``
        (maps you gave).
    source : dict
        Where the maps come from and how they were made (files, projection parameters), as
        recorded in a report's ``summary.json``.

    Attributes
    ----------
    files : list of str
        The files on disk the maps were read from (a property of ``source``).

    Examples
    --------
    >>> from toponeuro.atlases import load_visfatlas
    >>> left = cortex_maps(load_visfatlas("fsaverage5"), ["faces"], hemispheres=["left"])["left"]
    >>> left.maps["faces"].shape, left.positions.shape
    ((10242,), (10242, 2))
    """

    hemi: str
    maps: dict = field(default_factory=dict)
    positions: np.ndarray | None = None
    adjacency: object = None
    sphere: np.ndarray | None = None
    surface: str = "flat"
    neighbours: str = "inflated"
    mesh: str = "fsaverage5"
    representation: str = "binary"
    source: dict = field(default_factory=dict)

    @property
    def files(self) -> list[str]:
        """The files on disk these maps were read from (GIFTI, CIFTI-2, NIfTI, netCDF), in the
        order given; empty for an atlas's maps or maps given as arrays or images.

        The reader records a path under ``"surface"``, ``"cifti"``, ``"volume"`` or
        ``"netcdf"`` and an
        in-memory object under ``"object"`` (its type), so these are exactly the paths read.

        What a job passes to its output folder as inputs, so that ``overwrite`` can never
        replace a file the maps came from.

        Examples
        --------
        >>> src = {"maps": {"faces": {"left": {"surface": "lh.faces.gii", "mesh": "fsaverage5"}},
        ...                 "places": {"left": {"object": "array", "mesh": "fsaverage5"}}}}
        >>> CortexMaps("left", representation="values", source=src).files
        ['lh.faces.gii']
        """
        found: list[str] = []

        def walk(x):
            if isinstance(x, dict):
                for k, v in x.items():
                    if k in ("volume", "cifti", "surface", "netcdf") and isinstance(v, str):
                        found.append(v)
                    else:
                        walk(v)

        walk(self.source.get("maps", {}) if self.representation == "values" else {})
        return list(dict.fromkeys(found))

    @property
    def geometry(self) -> dict:
        """Keyword arguments of :func:`toponeuro.analysis.as_topomap` for these maps
        (:func:`toponeuro.analysis.topography_table` reads them off a ``CortexMaps``).
        """
        return {"positions": self.positions, "adjacency": self.adjacency, "mesh": self.mesh}

    @property
    def spin_geometry(self) -> dict:
        """The same maps on the sphere: geometry for statistics whose null is a spin test
        (e.g. ``map_similarity``).
        """
        return {"positions": self.sphere, "mesh": self.mesh}

    @property
    def geodesic_geometry(self) -> dict:
        """The same maps on the folded mesh (fsaverage5: pial; fs_LR 32k: midthickness) with
        shortest-path distances along its edges: geometry for statistics that measure how far apart points are on the cortex
        (e.g. the distances between domain centres of
        :func:`toponeuro.analysis.compare_tables`).
        """
        surface = MESHES[self.mesh].geodesic or GEODESIC_SURFACE
        return {"positions": vertex_coordinates(surface, self.hemi, mesh=self.mesh),
                "adjacency": mesh_graph(surface, self.hemi, mesh=self.mesh),
                "distance": "graph", "mesh": self.mesh}


#: the declared ``scale_mm`` of a proximity map: mm of cortex per 1/e fall
_SCALE_MM = Interval(Real, 0, None, closed="neither", fix="scale_mm is in mm of cortex.")
#: a declared fsaverage5 surface
_SURFACE = Options(SURFACES, error=UnknownNameError)


@validate_params({"scale_mm": _SCALE_MM, "surface": _SURFACE})
def roi_proximity(mask, hemi: str = "left", *, scale_mm: float = 10.0,
                  surface: str = GEODESIC_SURFACE) -> np.ndarray:
    """An ROI as a continuous map: ``exp(-d / scale_mm)``, ``d`` the geodesic distance (mm).

    ``d`` is the shortest path along the ``surface`` mesh's edges from each vertex to the
    nearest ROI vertex (:func:`mesh_distances`), so the map is exactly 1 inside the ROI and
    falls by ``1/e`` every ``scale_mm`` millimetres of cortex away from it.

    Parameters
    ----------
    mask : bool array (10242,)
        The ROI's vertices on one fsaverage5 hemisphere.
    hemi : {"left", "right"}
        The hemisphere.
    scale_mm : float
        Decay length in mm (> 0).
    surface : str
        Mesh of the distances (one of ``SURFACES``).

    Returns
    -------
    numpy.ndarray, shape (10242,)
        The proximity of every vertex (1 inside the ROIs).

    Examples
    --------
    >>> m = np.zeros(10242, bool)
    >>> m[:5] = True
    >>> p = roi_proximity(m)
    >>> float(p[:5].min()), bool(0 < p.min() < 1)
    (1.0, True)
    """
    from scipy.sparse.csgraph import dijkstra

    mask = np.asarray(mask, dtype=bool)
    if mask.shape != (FSAVERAGE5_N_VERTICES,) or not mask.any():
        raise InvalidDataError(
            f"roi_proximity needs a non-empty boolean mask of the {FSAVERAGE5_N_VERTICES} "
            f"vertices of one fsaverage5 hemisphere; got shape {mask.shape} with "
            f"{int(mask.sum())} vertices set."
        )
    d = dijkstra(mesh_graph(surface, hemi), directed=False, indices=np.flatnonzero(mask),
                 min_only=True)
    return np.exp(-np.asarray(d, float) / float(scale_mm))


@validate_params({
    "surface": _SURFACE,
    "neighbours": _SURFACE,
    "representation": Options(CORTEX_REPRESENTATIONS, error=UnknownNameError),
    "scale_mm": _SCALE_MM,
})
def cortex_maps(
    atlas: Atlas,
    domains: Sequence[str] | None = None,
    *,
    hemispheres: Sequence[str] = HEMIS,
    surface: str = "flat",
    neighbours: str = "inflated",
    representation: str = "binary",
    scale_mm: float = 10.0,
) -> dict[str, CortexMaps]:
    """Turn a surface atlas into one map per domain on each hemisphere.

    This is how toponeuro puts the cortex beside a model's sheet: each domain's ROIs (e.g.
    the visfAtlas's face-selective mFus and pFus) become a 0/1 map over the hemisphere's
    vertices, laid out on the ``surface`` mesh (default the flat map: 2-D, mm, the
    analogue of a sheet), with the ``neighbours`` mesh's edges saying which vertices touch.
    With ``threshold=0.5`` (binary) or ``threshold=1`` (proximity) each ROI is then a patch
    for :func:`toponeuro.analysis.find_patches`.

    A maximum-probability atlas (the visfAtlas shipped) gives each vertex one label, so its
    ROIs are disjoint 0/1 maps: two domains' maps then correlate slightly *negatively*
    however close the ROIs lie, because they never overlap. ``representation="proximity"``
    keeps the ROI's neighbourhood: each vertex holds ``exp(-d / scale_mm)`` of its geodesic
    distance ``d`` to the ROI (:func:`roi_proximity`), so ROIs that lie side by side have
    correlated maps. (The visfAtlas's probabilistic maps are not part of the release
    toponeuro ships; see ``atlases/visfatlas/README.md``.)

    Parameters
    ----------
    atlas : Atlas
        A surface atlas on fsaverage5 (e.g. ``load_visfatlas("fsaverage5")``).
    domains : list of str, optional
        Domains to map (default every domain of the atlas). A domain with no ROI in a
        hemisphere is left out of that hemisphere's maps.
    hemispheres : sequence of {"left", "right"}
    surface : str
        Mesh of the vertex positions (one of ``SURFACES``; default ``"flat"``).
    neighbours : str
        Mesh whose edges define adjacency (default ``"inflated"``: the flat map is cut, so
        its edges miss neighbours across the cuts).
    representation : {"binary", "proximity"}
        The ROI as a 0/1 map, or as its geodesic proximity (see above).
    scale_mm : float
        Decay length of ``"proximity"`` (mm).

    Returns
    -------
    dict of str -> CortexMaps
        Hemisphere -> its maps and geometry.

    Raises
    ------
    InvalidDataError
        A volume atlas, or one on another surface than fsaverage5.
    UnknownNameError
        A domain the atlas does not have.

    Examples
    --------
    >>> from toponeuro.atlases import load_visfatlas
    >>> maps = cortex_maps(load_visfatlas("fsaverage5"), ["faces", "characters"])
    >>> sorted(maps["left"].maps), sorted(maps["right"].maps)
    (['characters', 'faces'], ['faces'])
    """
    if not atlas.is_surface or len(atlas.data) != 2 * FSAVERAGE5_N_VERTICES:
        raise InvalidDataError(
            f"cortex_maps needs a surface atlas on fsaverage5; got {atlas!r}. Load it with "
            "space='fsaverage5' (e.g. load_visfatlas('fsaverage5'))."
        )
    domains = atlas.domains if domains is None else [str(d) for d in domains]
    for d in domains:
        if d not in atlas.domains:
            raise UnknownNameError(f"{atlas.name} has no domain {d!r}; "
                                   f"{close_matches(d, atlas.domains)}")
    hemispheres = _hemi_names(hemispheres)
    out: dict[str, CortexMaps] = {}
    for h in hemispheres:
        present = set(atlas.labels.loc[atlas.labels.hemisphere == h, "domain"])
        side = atlas.hemi == h
        pos = vertex_coordinates(surface, h)
        maps = {
            d: atlas.mask(domain=d, hemi=h)[side].astype(float) for d in domains if d in present
        }
        if representation == "proximity":
            maps = {d: roi_proximity(m > 0, h, scale_mm=scale_mm) for d, m in maps.items()}
        out[h] = CortexMaps(
            hemi=h,
            maps=dict(maps),
            positions=pos[:, :2] if surface == "flat" else pos,
            adjacency=mesh_graph(neighbours, h),
            sphere=vertex_coordinates("sphere", h),
            surface=surface,
            neighbours=neighbours,
            representation=representation,
            source={"atlas": atlas.name, "representation": representation,
                    "hemispheres": hemispheres,
                    **({"scale_mm": float(scale_mm), "distance": f"geodesic ({GEODESIC_SURFACE})"}
                       if representation == "proximity" else {})},
        )
    return out
