"""Cortical atlases shipped with toponeuro, and fsaverage5 geometry.

- :func:`load_visfatlas`: visfAtlas (Rosenke et al., 2021), 33 visual ROIs, MNI152 1 mm or
  projected to fsaverage5.
- :func:`load_language_parcels`: language parcels (Wolna et al., 2025; MIT), MNI152 2 mm,
  fsaverage or fsaverage5.
- Geometry: :func:`vertex_coordinates` on the pial / white / inflated / sphere / flat
  fsaverage5 meshes, :func:`mesh_distances` (Dijkstra along mesh edges).
- :func:`cortex_maps`: an atlas's domain ROIs as 0/1 (or geodesic-proximity) maps per
  hemisphere, with the flat-map positions and mesh neighbours to measure them beside a
  model's sheet.
- :func:`load_cortex_maps`: your own maps (fsaverage or fs_LR 32k GIFTI/MGH per hemisphere,
  CIFTI-2 ``.dscalar.nii``, MNI NIfTI projected with nilearn's ``vol_to_surf``, or arrays,
  DataArrays and nibabel images), checked and compared on their own mesh.

The atlas files live in ``toponeuro/atlases/data`` (the repository's ``atlases/`` folder
links there), with their citation and licence notes.
"""

from . import _atlas, _checks, _loaders, _maps, _netcdf, _surface, _user
from ._atlas import *
from ._checks import *
from ._loaders import *
from ._maps import *
from ._netcdf import *
from ._surface import *
from ._user import *

__all__ = [
    *_atlas.__all__,
    *_loaders.__all__,
    *_surface.__all__,
    *_maps.__all__,
    *_netcdf.__all__,
    *_user.__all__,
    *_checks.__all__,
]
