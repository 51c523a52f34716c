"""Numeric backends: numpy and torch behind the same function names (as in himalaya).

Kernels in :mod:`toponeuro.analysis` take a backend from :func:`get_backend` and call only
these functions plus the array operators both libraries share (``@``, ``*``, slicing).
"""

from __future__ import annotations

import numpy as np

from ..exceptions import MissingDependencyError, ParameterError, UnknownNameError, close_matches

__all__ = ["get_backend", "BACKENDS"]


class _Numpy:
    name = "numpy"

    def __init__(self, device="cpu"):
        if str(device) != "cpu":
            raise ParameterError(f"The numpy backend runs on the CPU only; got device={device!r}. "
                             "Use backend='torch' for GPUs.")
        self.device = "cpu"

    def asarray(self, x, dtype=None):
        return np.asarray(x, dtype=dtype)

    def to_numpy(self, x):
        return np.asarray(x)

    def eigh(self, a):
        w, v = np.linalg.eigh(a)
        return w, v

    def zeros(self, shape, dtype):
        return np.zeros(shape, dtype=dtype)

    def index(self, idx):
        return np.asarray(idx)

    def argmax(self, x, axis):
        return np.argmax(x, axis=axis)

    def eye(self, n, dtype):
        return np.eye(n, dtype=dtype)

    def inv(self, a):
        return np.linalg.inv(a)

    def solve(self, a, b):
        return np.linalg.solve(a, b)

    def sqrt(self, x):
        return np.sqrt(x)

    def clip_min(self, x, v):
        return np.maximum(x, v)

    def stack(self, xs):
        return np.stack(xs)

    def concatenate(self, xs, axis=0):
        return np.concatenate(xs, axis=axis)

    def float64(self):
        return np.float64

    def dtype_of(self, x):
        return x.dtype


class _Torch:
    name = "torch"

    def __init__(self, device="cpu"):
        try:
            import torch
        except ImportError as err:  # pragma: no cover - torch is a core dependency
            raise MissingDependencyError("backend='torch' needs PyTorch: pip install torch") from err
        self.torch = torch
        self.device = torch.device(device)

    def _dtype(self, dtype):
        if dtype is None:
            return None
        return getattr(self.torch, np.dtype(dtype).name) if not isinstance(
            dtype, self.torch.dtype) else dtype

    def asarray(self, x, dtype=None):
        t = self.torch
        if isinstance(x, t.Tensor):
            return x.to(device=self.device, dtype=self._dtype(dtype) or x.dtype)
        arr = np.asarray(x)
        return t.as_tensor(arr, dtype=self._dtype(dtype), device=self.device)

    def to_numpy(self, x):
        if isinstance(x, self.torch.Tensor):
            return x.detach().cpu().numpy()
        return np.asarray(x)

    def eigh(self, a):
        return self.torch.linalg.eigh(a)

    def zeros(self, shape, dtype):
        return self.torch.zeros(shape, dtype=self._dtype(dtype), device=self.device)

    def index(self, idx):
        return self.torch.as_tensor(np.asarray(idx), dtype=self.torch.long, device=self.device)

    def argmax(self, x, axis):
        return self.torch.argmax(x, dim=axis)

    def eye(self, n, dtype):
        return self.torch.eye(n, dtype=self._dtype(dtype), device=self.device)

    def inv(self, a):
        return self.torch.linalg.inv(a)

    def solve(self, a, b):
        return self.torch.linalg.solve(a, b)

    def sqrt(self, x):
        return self.torch.sqrt(x)

    def clip_min(self, x, v):
        return self.torch.clamp(x, min=v)

    def stack(self, xs):
        return self.torch.stack(xs)

    def concatenate(self, xs, axis=0):
        return self.torch.cat(xs, dim=axis)

    def float64(self):
        return self.torch.float64

    def dtype_of(self, x):
        return x.dtype


BACKENDS = {"numpy": _Numpy, "torch": _Torch}


def get_backend(name: str = "numpy", device: str = "cpu"):
    """Return the backend called ``name`` ("numpy" or "torch") on ``device``.

    Examples
    --------
    >>> get_backend("numpy").name
    'numpy'
    """
    if name not in BACKENDS:
        raise UnknownNameError(
            f"Unknown backend {name!r}; {close_matches(name, BACKENDS)}"
        )
    return BACKENDS[name](device)
