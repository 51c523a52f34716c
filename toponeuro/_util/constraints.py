"""Constraints on data parameters: arrays, labelled arrays, torch modules, mappings, lists
of names (issue 44).

They extend the vocabulary of :mod:`toponeuro._util.params` to the parameters that carry
data, so that every public function declares its parameters once. Each checks the kind of
the value only (cheap: no conversion, no pass over the data); what the data hold (NaN, the
stimulus ids, the sizes that must agree) stays with the readers that use them.

Examples
--------
>>> import numpy as np
>>> from toponeuro._util.params import check_param
>>> check_param(np.zeros((3, 2)), "data", ArrayLike(ndim=2)).shape
(3, 2)
>>> check_param("x.npy", "data", ArrayLike(ndim=2))
Traceback (most recent call last):
...
toponeuro.exceptions.InputTypeError: data='x.npy' is not a 2-D array (got a str).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping
from types import SimpleNamespace

import numpy as np

from ..exceptions import DimensionError, ParameterError
from .params import Constraint, InstanceOf, Options, _is_number, _Junk

__all__ = ["ArrayLike", "DataArrayWith", "TorchModule", "Names", "HasAttributes", "NumberGrid",
           "MAPPING", "STIMULUS_SET", "STIMULUS_ITEMS", "NDARRAY"]


def _ndim_text(ndim) -> str:
    if ndim is None:
        return "an array"
    dims = ndim if isinstance(ndim, tuple) else (ndim,)
    return "a " + " or ".join(f"{d}-D" for d in dims) + " array"


class ArrayLike(Constraint):
    """An array: a numpy array, a torch tensor, an xarray object, a list or tuple of numbers,
    or anything with ``__array__``; ``ndim`` (an int or a tuple of them) is checked where
    the value has one (a list's is read by its reader).

    Refused: None, strings, bytes, mappings and, unless ``scalar=True`` (elementwise
    functions), numbers.
    """

    error = DimensionError

    def __init__(self, ndim=None, *, scalar: bool = False, description: str = "",
                 fix: str = ""):
        self.ndim, self.fix, self.scalar = ndim, fix, scalar
        self.description = description or (_ndim_text(ndim) + (" or a number" if scalar
                                                                else ""))

    def kind_ok(self, value) -> bool:
        if isinstance(value, str | bytes | Mapping) or value is None:
            return False
        if self.scalar and _is_number(value):
            return True
        return isinstance(value, list | tuple | range) or hasattr(value, "__array__") or \
            hasattr(value, "__array_interface__") or hasattr(value, "__torch_function__")

    def is_satisfied_by(self, value) -> bool:
        if not self.kind_ok(value):
            return False
        if self.scalar and _is_number(value):
            return True  # NaN and inf are values of an elementwise function
        n = getattr(value, "ndim", None)
        if self.ndim is None or n is None:
            return True
        return n in (self.ndim if isinstance(self.ndim, tuple) else (self.ndim,))

    def describe(self) -> str:
        return self.description

    def example(self):
        n = self.ndim[0] if isinstance(self.ndim, tuple) else (self.ndim or 2)
        return np.zeros((2,) * n)

    def bad_values(self) -> list:
        out = [None, "x", {"a": 1}, _Junk()] + ([] if self.scalar else [3.0])
        if self.ndim is not None:
            wanted = self.ndim if isinstance(self.ndim, tuple) else (self.ndim,)
            out += [np.zeros((2,) * n) for n in range(4) if n not in wanted][:2]
        return out


class DataArrayWith(Constraint):
    """An ``xarray.DataArray`` that has the given dims (in any order, others allowed):
    ``DataArrayWith(("stimulus", "unit"))``."""

    error = DimensionError

    def __init__(self, dims=(), *, fix: str = ""):
        self.dims, self.fix = tuple(dims), fix

    def kind_ok(self, value) -> bool:
        xr = sys.modules.get("xarray")
        return xr is not None and isinstance(value, xr.DataArray)

    def is_satisfied_by(self, value) -> bool:
        return self.kind_ok(value) and all(d in value.dims for d in self.dims)

    def describe(self) -> str:
        return "an xarray.DataArray" + (f" with dims {self.dims}" if self.dims else "")

    def example(self):
        import xarray as xr

        return xr.DataArray(np.zeros((2,) * len(self.dims)), dims=self.dims)

    def bad_values(self) -> list:
        import xarray as xr

        out = [None, np.zeros((2, 2)), "x", _Junk()]
        if self.dims:
            out.append(xr.DataArray(np.zeros(2), dims=("not_a_dim",)))
        return out


class TorchModule(Constraint):
    """A ``torch.nn.Module`` (torch is not imported to check: a module implies it)."""

    def __init__(self, *, fix: str = ""):
        self.fix = fix

    def is_satisfied_by(self, value) -> bool:
        torch = sys.modules.get("torch")
        return torch is not None and isinstance(value, torch.nn.Module)

    def describe(self) -> str:
        return "a torch.nn.Module"

    def example(self):
        import torch

        return torch.nn.Identity()

    def bad_values(self) -> list:
        return [None, "resnet18", {"weight": 1}, _Junk()]


class Names(Constraint):
    """A list, tuple, set or 1-D array of non-empty strings (not a string); the body
    receives a tuple of ``str``. ``empty=False`` refuses an empty one; ``options`` limits the
    names to a few (``error``: raised for a list of the right kind holding another name, an
    ``UnknownNameError`` where a misspelt name was always one).

    Examples
    --------
    >>> from toponeuro._util.params import check_param
    >>> check_param(["left"], "hemispheres", Names(options=("left", "right")))
    ('left',)
    >>> check_param(["lft"], "hemispheres", Names(options=("left", "right")))
    Traceback (most recent call last):
    ...
    toponeuro.exceptions.ParameterError: hemispheres=['lft'] is not a list of names from 'left', 'right'; did you mean 'left'?
    """

    def __init__(self, *, empty: bool = True, options=None, fix: str = "",
                 error=ParameterError):
        self.empty, self.fix, self.error = empty, fix, error
        self.options = None if options is None else tuple(options)

    def kind_ok(self, value) -> bool:
        return isinstance(value, list | tuple | set | frozenset) or (
            isinstance(value, np.ndarray) and value.ndim == 1)

    def is_satisfied_by(self, value) -> bool:
        return self.kind_ok(value) and (self.empty or len(value) > 0) and all(
            isinstance(v, str) and v.strip() and (self.options is None or v in self.options)
            for v in value)

    def convert(self, value):
        if isinstance(value, np.ndarray):  # numpy's str_ names as str
            return tuple(str(v) for v in value)
        return tuple(sorted(value)) if isinstance(value, set | frozenset) else tuple(value)

    def describe(self) -> str:
        what = ("non-empty strings" if self.options is None else
                "names from " + ", ".join(repr(o) for o in self.options))
        return f"a list of {what}" if self.empty else f"a non-empty list of {what}"

    def example(self):
        return ("x",) if self.options is None else self.options[:1]

    def bad_values(self) -> list:
        return (["x", [3], [""], None, _Junk()] + ([] if self.empty else [[]])
                + ([] if self.options is None else [["not-an-option"]]))

    def hint(self, value) -> str:
        """The closest options to the first name that is none (a misspelt name)."""
        if self.options is None or not self.kind_ok(value):
            return ""
        bad = next((v for v in value if isinstance(v, str) and v not in self.options), None)
        return Options(self.options).hint(bad)  # one option's hint, for the first misspelt


class HasAttributes(Constraint):
    """An object with the given attributes (duck-typed: a ``ModelCard``, or any object with
    its fields): ``HasAttributes(("name", "arch"), "a ModelCard")``. Its example is a
    namespace with those attributes (the check reads nothing else)."""

    def __init__(self, names, description: str, *, fix: str = ""):
        self.names, self.description, self.fix = tuple(names), description, fix

    def is_satisfied_by(self, value) -> bool:
        return value is not None and all(hasattr(value, n) for n in self.names)

    def describe(self) -> str:
        return f"{self.description} (an object with {', '.join(self.names)})"

    def example(self):
        return SimpleNamespace(**dict.fromkeys(self.names))

    def bad_values(self) -> list:
        return [None, "x", 3, _Junk()]


class NumberGrid(Constraint):
    """A number or a non-empty 1-D list (or array) of finite numbers ``>= lo``: a grid of
    values to choose from (``RidgeEncoder(alphas=...)``). Its values are read (a grid is
    short); the estimator converts it where it uses it.

    Examples
    --------
    >>> from toponeuro._util.params import check_param
    >>> check_param([0.1, 10.0], "alphas", NumberGrid(0))
    [0.1, 10.0]
    >>> check_param([1.0, -1.0], "alphas", NumberGrid(0))
    Traceback (most recent call last):
    ...
    toponeuro.exceptions.ParameterError: alphas=[1.0, -1.0] is not a number >= 0 or a non-empty 1-D list of finite numbers >= 0.
    """

    def __init__(self, lo: float = 0, *, fix: str = ""):
        self.lo, self.fix = lo, fix

    def kind_ok(self, value) -> bool:
        return _is_number(value) or isinstance(value, list | tuple | np.ndarray)

    def is_satisfied_by(self, value) -> bool:
        if not self.kind_ok(value):
            return False
        try:
            grid = np.atleast_1d(np.asarray(value, dtype=float))
        except (TypeError, ValueError):
            return False
        return (grid.ndim == 1 and grid.size > 0 and bool(np.all(np.isfinite(grid)))
                and bool(np.all(grid >= self.lo)))

    def describe(self) -> str:
        return (f"a number >= {self.lo:g} or a non-empty 1-D list of finite numbers "
                f">= {self.lo:g}")

    def example(self):
        return [1.0]

    def bad_values(self) -> list:
        return ["1", [], [self.lo - 1.0], [float("nan")], float("inf"), self.lo - 1.0,
                np.zeros((2, 2)), ["a"], True, None, _Junk()]


#: a mapping (a dict)
MAPPING = InstanceOf(Mapping, "a mapping (a dict)", example={})


#: a numpy array (a record's field: what toponeuro computed)
NDARRAY = InstanceOf(np.ndarray, "a numpy array", example=lambda: np.zeros(1))

#: a StimulusSet (duck-typed: its ids, items and kind)
STIMULUS_SET = HasAttributes(("ids", "items", "kind"), "a StimulusSet")


class _StimulusItems(Constraint):
    """Stimuli as a list: any iterable (image paths, PIL images, tensors, texts) that is not
    itself one string, bytes or path."""

    fix = ("Pass a list of stimuli (e.g. [path] or [text]), or load a folder with "
           "toponeuro.stimuli.")

    def is_satisfied_by(self, value) -> bool:
        return isinstance(value, Iterable) and not isinstance(value, str | bytes | os.PathLike)

    def describe(self) -> str:
        return "a list of stimuli (image paths, PIL images, tensors or texts)"

    def example(self):
        return ["a face"]

    def bad_values(self) -> list:
        return ["a face", b"x", 3, None, _Junk()]


#: stimuli given as a list, which ``StimulusSet.from_items`` reads
STIMULUS_ITEMS = _StimulusItems()
