"""On-disk streaming store of activations (netCDF-4 / HDF5 via h5netcdf), chunked by stimuli.

One file per cache key. Rows are written batch by batch and a per-stimulus ``done`` flag is set
only after the rows are flushed, so a run killed at any point resumes by recomputing only the
stimuli whose flag is not set: nothing is lost and nothing is duplicated (rows have fixed
places). Memory stays bounded by one batch.
"""

from __future__ import annotations

import hashlib
import json
import os
import warnings
from pathlib import Path

import numpy as np

from .. import _dims as D
from .._version import __version__

__all__ = ["cache_key", "ActivationStore"]

_DATA = "activations"
_DONE = "done"
_UNIT_INT_COORDS = (D.CHANNEL, D.ROW, D.COL, D.FMAP_Y, D.FMAP_X)
_CHUNK_BYTES = 4 << 20


def cache_key(
    *,
    weights_sha256: str,
    stimulus_ids,
    content_hash: str,
    layers,
    pooling,
    token_pooling,
    preprocessing: str,
    version: str = __version__,
) -> str:
    """sha256 over everything that determines the activations.

    Any change in the weights, the stimuli (ids or content), the layers, the pooling, the
    preprocessing or the toponeuro version gives another key, so a stale store is never read.

    Examples
    --------
    >>> k1 = cache_key(weights_sha256="a", stimulus_ids=["s1"], content_hash="c",
    ...                layers=["fc"], pooling="mean", token_pooling="mean", preprocessing="p")
    >>> k2 = cache_key(weights_sha256="a", stimulus_ids=["s1"], content_hash="c",
    ...                layers=["fc"], pooling="max", token_pooling="mean", preprocessing="p")
    >>> len(k1), k1 == k2
    (64, False)
    """
    ids_hash = hashlib.sha256("\x00".join(map(str, stimulus_ids)).encode()).hexdigest()
    payload = {
        "weights_sha256": weights_sha256,
        "stimulus_ids": ids_hash,
        "content_hash": content_hash,
        "layers": list(layers),
        "pooling": pooling,
        "token_pooling": token_pooling,
        "preprocessing": preprocessing,
        "toponeuro_version": version,
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def _store_path(store, key: str) -> Path:
    p = Path(store)
    if p.is_dir() or p.suffix == "":
        p.mkdir(parents=True, exist_ok=True)
        return p / f"activations-{key[:16]}.nc"
    p.parent.mkdir(parents=True, exist_ok=True)
    return p


def _put_strings(f, name, dim, values) -> None:
    import h5py

    v = f.create_variable(name, (dim,), dtype=h5py.string_dtype("utf-8"))
    v[:] = np.asarray(values).astype(str).astype(object)


def _get_strings(f, name) -> np.ndarray:
    vals = np.asarray(f.variables[name][:], dtype=object)
    return np.array([x.decode("utf-8") if isinstance(x, bytes) else str(x) for x in vals])


class ActivationStore:
    """Rows of activations for ``n_stimuli`` stimuli in one netCDF file.

    Parameters
    ----------
    store : path-like
        A folder (the file is named after the cache key, so different settings never share a
        file) or a ``.nc`` file path (a file made with another key is replaced, with a warning).
    key : str
        Cache key (:func:`cache_key`).
    stimulus_ids, categories : array
    attrs : dict
        Written to the file (model, weights sha256, pooling ...).
    resume : bool
        Keep finished rows of an existing file with the same key.

    Examples
    --------
    >>> import tempfile
    >>> st = ActivationStore(tempfile.mkdtemp(), "k" * 64, ["a", "b"], None, {"model": "demo"})
    >>> st.write(0, np.ones((2, 3)), {"layer": np.array(["fc"] * 3)})
    >>> data, info = st.read()
    >>> data.shape, st.done().tolist(), info["layer"].tolist()
    ((2, 3), [True, True], ['fc', 'fc', 'fc'])
    >>> st.close()
    """

    def __init__(self, store, key, stimulus_ids, categories, attrs, *, resume=True, batch_size=64):
        import h5netcdf

        self._h5netcdf = h5netcdf
        self.path = _store_path(store, key)
        self.key = key
        self.ids = np.asarray(stimulus_ids).astype(str)
        self.categories = None if categories is None else np.asarray(categories).astype(str)
        self.attrs = dict(attrs)
        self.batch_size = int(batch_size)
        self._f = None
        if self.path.exists():
            reason = None
            if not resume:
                reason = "resume=False"
            else:
                try:
                    with h5netcdf.File(self.path, "r") as f:
                        if f.attrs.get("cache_key") != key:
                            reason = "it was made with other settings (cache key differs)"
                        elif f.dimensions[D.STIMULUS].size != len(self.ids):
                            reason = "its stimulus count differs"
                except (OSError, KeyError, ValueError) as err:
                    reason = f"it cannot be read ({err}); a run was probably killed mid-write"
            if reason is not None:
                if reason != "resume=False":
                    warnings.warn(
                        f"Replacing the activation store {self.path}: {reason}.", stacklevel=3
                    )
                self.path.unlink()
        if self.path.exists():
            self._f = h5netcdf.File(self.path, "a")

    # -- state ------------------------------------------------------------------------------
    def done(self) -> np.ndarray:
        """Boolean per stimulus: its row is written."""
        if self._f is None:
            return np.zeros(len(self.ids), dtype=bool)
        return np.asarray(self._f.variables[_DONE][:]).astype(bool)

    def _create(self, unit_info: dict[str, np.ndarray]) -> None:
        n, u = len(self.ids), len(unit_info[D.LAYER])
        tmp = self.path.with_suffix(".creating")
        f = self._h5netcdf.File(tmp, "w")
        try:
            f.dimensions = {D.STIMULUS: n, D.UNIT: u}
            # one chunk per batch (or less, for very wide layers): a batch rewrites only its
            # own chunks, so the cost per batch does not grow with the number of stimuli
            rows = int(max(1, min(n, self.batch_size, _CHUNK_BYTES // max(1, 4 * u))))
            v = f.create_variable(
                _DATA, (D.STIMULUS, D.UNIT), "f4", chunks=(rows, u), fillvalue=np.nan
            )
            coords = [D.STIMULUS_ID, D.LAYER, *[c for c in _UNIT_INT_COORDS if c in unit_info]]
            if self.categories is not None:
                coords.append(D.CATEGORY)
            v.attrs["coordinates"] = " ".join(coords)
            f.create_variable(
                _DONE, (D.STIMULUS,), "i1", chunks=(min(n, max(rows, 4096)),), fillvalue=0
            )
            f.variables[_DONE][:] = np.zeros(n, dtype="i1")
            _put_strings(f, D.STIMULUS_ID, D.STIMULUS, self.ids)
            if self.categories is not None:
                _put_strings(f, D.CATEGORY, D.STIMULUS, self.categories)
            _put_strings(f, D.LAYER, D.UNIT, unit_info[D.LAYER])
            for c in _UNIT_INT_COORDS:
                if c in unit_info:
                    f.create_variable(c, (D.UNIT,), data=np.asarray(unit_info[c], dtype="i8"))
            f.attrs["cache_key"] = self.key
            for k, val in self.attrs.items():
                f.attrs[k] = val if isinstance(val, (int, float)) else str(val)
        finally:
            f.close()
        os.replace(tmp, self.path)
        self._f = self._h5netcdf.File(self.path, "a")

    def write(self, start: int, data: np.ndarray, unit_info: dict[str, np.ndarray]) -> None:
        """Write rows ``start : start + len(data)`` and mark them done (after a flush)."""
        if self._f is None:
            self._create(unit_info)
        stop = start + len(data)
        self._f.variables[_DATA][start:stop, :] = np.asarray(data, dtype=np.float32)
        self._sync()  # the rows reach the file before their flags say so
        self._f.variables[_DONE][start:stop] = np.ones(stop - start, dtype="i1")
        self._sync()

    def _sync(self) -> None:
        # h5netcdf's flush() leaves HDF5's caches alone; flush the HDF5 file itself so a
        # killed process (SIGKILL) leaves every flagged row on disk
        self._f.flush()
        self._f._h5file.flush()

    def read(self) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """All rows and the unit coords (every row must be done)."""
        f = self._f
        data = np.asarray(f.variables[_DATA][:])
        info = {D.LAYER: _get_strings(f, D.LAYER)}
        for c in _UNIT_INT_COORDS:
            if c in f.variables:
                info[c] = np.asarray(f.variables[c][:])
        return data, info

    def close(self) -> None:
        if self._f is not None:
            self._f.close()
            self._f = None
