"""A cortical map stored as netCDF in TopoLM's layout (``group-level-contrast.nc``).

One data variable (``t_values``) with one value per vertex of the left fs_LR 32k hemisphere,
as the TopoLM repository distributes its group verb - noun contrast. :func:`read_netcdf_map`
is what ``cortex_maps`` reads a ``.nc`` path with; :func:`toponeuro.brain.load_topolm_contrast`
reads the same file into a labelled DataArray (``toponeuro.brain`` imports ``atlases``, so the
atlas reader cannot call it).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from .._meshes import MESH_SIZES
from .._params import Text, validate_params
from ..exceptions import DimensionError, InvalidDataError, UnknownNameError, close_matches

__all__ = ["NETCDF_SUFFIX", "NETCDF_VARIABLE", "read_netcdf_map"]

#: the suffix of a netCDF map
NETCDF_SUFFIX = ".nc"

#: the variable read (TopoLM's group t map)
NETCDF_VARIABLE = "t_values"


@validate_params({"variable": Text(), "what": Text()})
def read_netcdf_map(path, *, variable: str = NETCDF_VARIABLE, what: str = "cortex_maps"
                    ) -> tuple[str, np.ndarray]:
    """``("left", values)``: a netCDF map in TopoLM's layout, one value per left fs_LR 32k
    vertex.

    Parameters
    ----------
    path : path-like
        The ``.nc`` file.
    variable : str
        The data variable read (default ``"t_values"``, TopoLM's group t map).
    what : str
        The parameter the path came from, named in error messages (default
        ``"cortex_maps"``).

    Returns
    -------
    hemisphere : str
        ``"left"``.
    values : numpy.ndarray
        One value per vertex of the left fs_LR 32k hemisphere (32,492).

    Raises
    ------
    InvalidDataError
        Not a readable netCDF file (truncated, empty, another format).
    UnknownNameError
        No ``variable`` in the file.
    DimensionError
        Not one value per vertex of a fs_LR 32k hemisphere.

    Examples
    --------
    >>> import tempfile, xarray as xr
    >>> p = Path(tempfile.mkdtemp()) / "c.nc"
    >>> xr.Dataset({"t_values": ("coords", np.zeros(32492))}).to_netcdf(p)
    >>> hemi, v = read_netcdf_map(p)
    >>> hemi, v.size
    ('left', 32492)
    """
    import xarray as xr

    path = Path(os.fspath(path))
    try:
        with xr.open_dataset(path) as ds:
            names = list(ds.data_vars)
            if variable not in names:
                raise UnknownNameError(
                    f"{what}: {path.name!r} has no variable {variable!r}; "
                    f"{close_matches(variable, names)} (it has {names}). A netCDF map must be "
                    "in TopoLM's layout (t_values, one value per left fs_LR 32k vertex).")
            values = np.asarray(ds[variable].values, dtype=np.float64).ravel()
    except (OSError, ValueError) as err:
        raise InvalidDataError(
            f"{what}: {path.name!r} is not a readable netCDF file ({type(err).__name__}: "
            f"{err}); give TopoLM's group-level-contrast.nc as distributed, or the map as a "
            "fs_LR GIFTI (.func.gii).") from None
    n = MESH_SIZES["fs_LR_32k"]
    if values.size != n:
        raise DimensionError(
            f"{what}: {path.name!r} holds {values.size:,} values in {variable!r}; a netCDF map "
            f"holds one per vertex of the left fs_LR 32k hemisphere ({n:,}), as TopoLM's "
            "group-level-contrast.nc. Give other maps as GIFTI/CIFTI files.")
    return "left", values
