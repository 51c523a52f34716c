"""Cortical atlases shipped with toponeuro, and fsaverage5 geometry.

- :func:`load_visfatlas`: visfAtlas (Rosenke et al., 2021), 33 visual ROIs, MNI152 1 mm or
  projected to fsaverage5.
- :func:`load_language_parcels`: language parcels (Wolna et al., 2025; MIT), MNI152 2 mm,
  fsaverage or fsaverage5.
- Geometry: :func:`vertex_coordinates` on the pial / white / inflated / sphere / flat
  fsaverage5 meshes, :func:`mesh_distances` (Dijkstra along mesh edges).
- :func:`cortex_maps`: an atlas's domain ROIs as 0/1 maps per hemisphere, with the flat-map
  positions and mesh neighbours to measure them beside a model's sheet.

The atlas files live in ``toponeuro/atlases/data`` (the repository's ``atlases/`` folder
links there), with their citation and licence notes.
"""

from ._atlas import (
    ATLAS_SPACES,
    FSAVERAGE5_N_VERTICES,
    HEMIS,
    Atlas,
    atlas_data_path,
    hemi_name,
)
from ._loaders import load_language_parcels, load_visfatlas
from ._maps import CortexMaps, cortex_maps
from ._surface import (
    SURFACES,
    fsaverage5_mesh,
    mesh_distances,
    mesh_edge_graph,
    mesh_graph,
    project_volume_atlas,
    vertex_coordinates,
)

__all__ = [
    "Atlas",
    "load_visfatlas",
    "load_language_parcels",
    "atlas_data_path",
    "hemi_name",
    "HEMIS",
    "ATLAS_SPACES",
    "FSAVERAGE5_N_VERTICES",
    "SURFACES",
    "fsaverage5_mesh",
    "vertex_coordinates",
    "mesh_edge_graph",
    "mesh_graph",
    "mesh_distances",
    "project_volume_atlas",
    "CortexMaps",
    "cortex_maps",
]
