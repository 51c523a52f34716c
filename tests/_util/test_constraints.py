"""The constraints on data parameters (toponeuro._util.constraints): each accepts its kind,
refuses its bad values with a typed error naming the parameter, and gives a valid example."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import xarray as xr

from toponeuro._util.constraints import (
    MAPPING,
    STIMULUS_SET,
    ArrayLike,
    DataArrayWith,
    HasAttributes,
    Names,
    TorchModule,
)
from toponeuro._util.params import Options, bad_values, check_param
from toponeuro.exceptions import DimensionError, InputTypeError, ParameterError

ALL = [ArrayLike(), ArrayLike(scalar=True), ArrayLike(ndim=2), ArrayLike(ndim=(1, 2)), DataArrayWith(("stimulus",)),
       TorchModule(), Names(), Names(empty=False), MAPPING,
       HasAttributes(("name", "arch"), "a card"),
       STIMULUS_SET]


@pytest.mark.parametrize("constraint", ALL, ids=repr)
def test_example_accepted_and_bad_values_refused(constraint):
    assert constraint.is_satisfied_by(constraint.example())
    bad = bad_values([constraint])
    assert bad
    for value in bad:
        with pytest.raises((InputTypeError, ParameterError, DimensionError), match=r"^p="):
            check_param(value, "p", constraint)


def test_array_like():
    c = ArrayLike(ndim=2)
    for ok in ([[1, 2]], (1, 2), np.zeros((2, 3)), torch.zeros(2, 3), xr.DataArray(np.ones((1, 1)))):
        assert c.is_satisfied_by(ok), ok
    with pytest.raises(DimensionError, match=r"data=<ndarray shape \(3,\)> is not a 2-D array\."):
        check_param(np.zeros(3), "data", c)
    with pytest.raises(InputTypeError, match=r"data=None is not a 2-D array \(got a NoneType\)"):
        check_param(None, "data", c)


def test_data_array_with_dims():
    c = DataArrayWith(("stimulus", "unit"), fix="See toponeuro.check_activations.")
    ok = xr.DataArray(np.zeros((2, 3)), dims=("unit", "stimulus"))
    assert check_param(ok, "activations", c) is ok
    with pytest.raises(DimensionError, match=r"activations=<DataArray dims \('stimulus',\) "
                                             r"shape \(2,\)> is not an xarray.DataArray with "
                                             r"dims \('stimulus', 'unit'\)\. See toponeuro"):
        check_param(xr.DataArray(np.zeros(2), dims=("stimulus",)), "activations", c)
    with pytest.raises(InputTypeError, match="got a ndarray"):
        check_param(np.zeros((2, 3)), "activations", c)


def test_names_take_a_1d_array_of_strings_and_options_refuse_an_array_typed():
    """A 1-D array of str is a list of names (a tuple of str is stored); an array given for
    one option is refused with a typed error (before: ``array in options`` raised numpy's
    untyped ValueError, or let a one-name array through as is)."""
    got = check_param(np.array(["b", "a"]), "layers", Names())
    assert got == ("b", "a") and all(type(v) is str for v in got)
    with pytest.raises(ParameterError, match=r"^layers="):  # numbers, as [3] is
        check_param(np.array([1, 2]), "layers", Names())
    for bad in (np.array([["a"]]), np.array("a")):  # 2-D, 0-d: no list of names
        with pytest.raises(InputTypeError, match=r"^layers="):
            check_param(bad, "layers", Names())
    for value in (np.array(["a", "b"]), np.array(["a"]), np.array([], dtype=str)):
        assert not Options(("a", "b")).is_satisfied_by(value)
        with pytest.raises(InputTypeError, match=r"^how="):
            check_param(value, "how", Options(("a", "b")))


def test_torch_module_and_names_and_mapping():
    assert check_param(torch.nn.Linear(1, 1), "model", TorchModule()) is not None
    with pytest.raises(InputTypeError, match="model='resnet18' is not a torch.nn.Module"):
        check_param("resnet18", "model", TorchModule())
    assert check_param(["a", "b"], "layers", Names()) == ("a", "b")
    with pytest.raises(InputTypeError, match="layers='a' is not a list of non-empty strings"):
        check_param("a", "layers", Names())
    with pytest.raises(InputTypeError, match="edits=3 is not a mapping"):
        check_param(3, "edits", MAPPING)
