"""An atlas's domain ROIs as maps on one hemisphere, with the geometry to measure them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..exceptions import InvalidDataError, UnknownNameError, close_matches
from ._atlas import FSAVERAGE5_N_VERTICES, HEMIS, Atlas, hemi_name
from ._surface import SURFACES, mesh_graph, vertex_coordinates

__all__ = ["CortexMaps", "cortex_maps"]


@dataclass(eq=False)
class CortexMaps:
    """Binary domain maps on one fsaverage5 hemisphere and where its vertices lie.

    Attributes
    ----------
    hemi : {"left", "right"}
    maps : dict of str -> numpy.ndarray
        Domain -> ``(10242,)`` float map of the hemisphere's vertices: 1 inside the domain's
        ROIs, 0 elsewhere. Domains without an ROI in this hemisphere are absent.
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
        ``"fsaverage5"``.

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

    @property
    def geometry(self) -> dict:
        """Keyword arguments of :func:`toponeuro.analysis.as_topomap` for these maps
        (:func:`toponeuro.analysis.topography_table` reads them off a ``CortexMaps``)."""
        return {"positions": self.positions, "adjacency": self.adjacency, "mesh": self.mesh}

    @property
    def spin_geometry(self) -> dict:
        """The same maps on the sphere: geometry for statistics whose null is a spin test
        (e.g. ``map_similarity``)."""
        return {"positions": self.sphere, "mesh": self.mesh}


def cortex_maps(
    atlas: Atlas,
    domains: Sequence[str] | None = None,
    *,
    hemispheres: Sequence[str] = HEMIS,
    surface: str = "flat",
    neighbours: str = "inflated",
) -> dict[str, CortexMaps]:
    """Turn a surface atlas into one binary map per domain on each hemisphere.

    This is how toponeuro puts the cortex beside a model's sheet: each domain's ROIs (e.g.
    the visfAtlas's face-selective mFus and pFus) become a 0/1 map over the hemisphere's
    vertices, laid out on the ``surface`` mesh (default the flat map: 2-D, mm, the
    analogue of a sheet), with the ``neighbours`` mesh's edges saying which vertices touch.
    With ``threshold=0.5`` each ROI is then a patch for
    :func:`toponeuro.analysis.find_patches`.

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
    for mesh in (surface, neighbours):
        if mesh not in SURFACES:
            raise UnknownNameError(f"Unknown surface {mesh!r}; {close_matches(mesh, SURFACES)}")
    domains = atlas.domains if domains is None else [str(d) for d in domains]
    for d in domains:
        if d not in atlas.domains:
            raise UnknownNameError(f"{atlas.name} has no domain {d!r}; "
                                   f"{close_matches(d, atlas.domains)}")
    out: dict[str, CortexMaps] = {}
    for h in hemispheres:
        h = hemi_name(h)
        present = set(atlas.labels.loc[atlas.labels.hemisphere == h, "domain"])
        side = atlas.hemi == h
        pos = vertex_coordinates(surface, h)
        maps = {
            d: atlas.mask(domain=d, hemi=h)[side].astype(float) for d in domains if d in present
        }
        out[h] = CortexMaps(
            hemi=h,
            maps=dict(maps),
            positions=pos[:, :2] if surface == "flat" else pos,
            adjacency=mesh_graph(neighbours, h),
            sphere=vertex_coordinates("sphere", h),
            surface=surface,
            neighbours=neighbours,
        )
    return out
