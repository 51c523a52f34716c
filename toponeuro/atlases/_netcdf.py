"""A cortical map stored as netCDF in TopoLM's layout (``group-level-contrast.nc``).

One data variable (``t_values``) with one value per vertex of the left fs_LR 32k hemisphere,
as the TopoLM repository distributes its group verb - noun contrast. :func:`read_netcdf_map`
is the one reader of such a file: what ``cortex_maps`` reads a ``.nc`` path with, and what
:func:`toponeuro.brain.load_topolm_contrast` reads TopoLM's file with before labelling it.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from .._io.meshes import MESH_SIZES
from .._util.params import Text, validate_params
from ..exceptions import (
    DimensionError,
    MissingFileError,
    ToponeuroError,
    UnknownNameError,
    UnreadableFileError,
    close_matches,
)

__all__ = ["NETCDF_SUFFIX", "NETCDF_VARIABLE", "read_netcdf_map"]

#: the suffix of a netCDF map
NETCDF_SUFFIX = ".nc"

#: the variable read (TopoLM's group t map)
NETCDF_VARIABLE = "t_values"


#: what to do about a file that is not TopoLM's layout (``cortex_maps``' fix)
_FIX = ("give TopoLM's group-level-contrast.nc as distributed, or the map as a fs_LR GIFTI "
        "(.func.gii)")


@validate_params({"variable": Text(), "what": Text(), "fix": [Text(), None]})
def read_netcdf_map(path, *, variable: str = NETCDF_VARIABLE, what: str = "cortex_maps",
                    fix: str | None = None) -> tuple[str, np.ndarray]:
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
    fix : str, optional
        What to do instead, ending every error message (default: give TopoLM's file as
        distributed, or the map as a fs_LR GIFTI).

    Returns
    -------
    hemisphere : str
        ``"left"``.
    values : numpy.ndarray
        One value per vertex of the left fs_LR 32k hemisphere (32,492).

    Raises
    ------
    MissingFileError
        No file at ``path``.
    UnreadableFileError
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
    fix = _FIX if fix is None else fix
    if not path.is_file():
        raise MissingFileError(f"{what}: the netCDF map {str(path)!r} does not exist; {fix}.")
    try:
        with xr.open_dataset(path) as ds:
            names = list(ds.data_vars)
            if variable not in names:
                raise UnknownNameError(
                    f"{what}: {path.name!r} has no variable {variable!r}; "
                    f"{close_matches(variable, names)} (it has {names}). A netCDF map must be "
                    f"in TopoLM's layout (t_values, one value per left fs_LR 32k vertex): {fix}.")
            values = np.asarray(ds[variable].values, dtype=np.float64).ravel()
    except ToponeuroError:
        raise
    except (MemoryError, RecursionError):
        raise
    except Exception as err:  # noqa: BLE001 - netCDF/HDF5 back-ends fail in many ways
        first = (str(err).strip().splitlines() or [""])[0][:200]
        raise UnreadableFileError(
            f"{what}: {path.name!r} is not a readable netCDF file ({type(err).__name__}"
            f"{': ' + first if first else ''}); {fix}.") from err
    n = MESH_SIZES["fs_LR_32k"]
    if values.size != n:
        raise DimensionError(
            f"{what}: a netCDF map holds one value per vertex of the left fs_LR 32k hemisphere "
            f"({n:,}), as TopoLM's group-level-contrast.nc; {path.name!r} has {values.size:,} "
            f"in {variable!r}: {fix}.")
    return "left", values
