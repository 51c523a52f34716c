"""No code runs from a data file (issue 45).

Each test plants a pickle whose ``__reduce__`` writes a marker file when it is unpickled,
hands it to a toponeuro reader and checks that the marker was NOT written and the typed
error (:class:`~toponeuro.exceptions.UntrustedFileError`, naming ``trust_pickle``) was
raised; with ``trust_pickle=True`` a genuine file loads.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from scipy.spatial.distance import squareform

import toponeuro.exceptions as E
from toponeuro.analysis import load_rdms, to_rsatoolbox_rdms

IDS = ["a", "b", "c", "d"]


class _Payload:
    """Unpickling this writes ``marker`` (the planted code)."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def _plant(path, marker):
    with open(path, "wb") as f:
        pickle.dump(_Payload(marker), f)
    return path


def test_payload_plants_work(tmp_path):
    """The planted file does run its code when unpickled (so the tests below can fail)."""
    marker = tmp_path / "ran"
    with open(_plant(tmp_path / "x.pkl", marker), "rb") as f:
        pickle.load(f).close()  # noqa: S301 - the planted file, on purpose
    assert marker.exists()


@pytest.mark.parametrize("name", ["rdms.pkl", "rdms.PKL"])
def test_load_rdms_refuses_a_pickle_without_trust(tmp_path, name):
    marker = tmp_path / "ran"
    path = _plant(tmp_path / name, marker)
    with pytest.raises(E.UntrustedFileError, match="trust_pickle=True") as info:
        load_rdms(path, IDS)
    assert not marker.exists(), "the pickle's code ran"
    assert isinstance(info.value, ValueError) and "load_rdms" in str(info.value)
    assert str(path) in str(info.value)


@pytest.mark.parametrize("name", ["x.npy", "x.npz"])
def test_numpy_names_never_unpickle(tmp_path, name):
    """A raw pickle under a NumPy name (numpy.load would hand it to pickle) is refused by its
    first bytes, with or without trust."""
    marker = tmp_path / "ran"
    path = _plant(tmp_path / name, marker)
    with pytest.raises(E.UnreadableFileError, match="not a NumPy .npy/.npz file"):
        load_rdms(path, IDS)
    assert not marker.exists()


def test_object_array_npy_is_not_unpickled(tmp_path):
    marker = tmp_path / "ran"
    np.save(tmp_path / "o.npy", np.array([_Payload(marker), None], dtype=object),
            allow_pickle=True)
    assert not marker.exists()
    with pytest.raises(E.InvalidDataError, match="holds Python objects"):
        load_rdms(tmp_path / "o.npy", IDS)
    assert not marker.exists()


def test_trusted_pickle_loads(tmp_path):
    rng = np.random.default_rng(0)
    a = squareform(rng.random(6))
    to_rsatoolbox_rdms([a], "euclidean", stimulus_ids=IDS).save(str(tmp_path / "r.pkl"),
                                                                 file_type="pkl")
    with pytest.raises(E.UntrustedFileError):
        load_rdms(tmp_path / "r.pkl")
    out = load_rdms(tmp_path / "r.pkl", trust_pickle=True)
    np.testing.assert_allclose(out[0].values, squareform(a))
    assert out[0].attrs["stimulus_id"].tolist() == IDS
    # trust is a bool, never a truthy string
    with pytest.raises(E.InputTypeError, match="trust_pickle='yes' is not True or False"):
        load_rdms(tmp_path / "r.pkl", trust_pickle="yes")


def test_untrusted_checkpoint_is_an_untrusted_file():
    """One rule: a checkpoint refused for the same reason is caught the same way."""
    assert issubclass(E.UntrustedCheckpointError, E.UntrustedFileError)
    assert issubclass(E.UntrustedCheckpointError, E.CheckpointError)
