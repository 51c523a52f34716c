"""The activation store under two writers and under corrupted bytes: nothing is lost, nothing
is silently wrong (issue 13)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import warnings

import h5py
import numpy as np
import pytest
import torch

from toponeuro import exceptions as E
from toponeuro.features import extract
from toponeuro.features._store import ActivationStore, row_crc32
from toponeuro.models import SmallResNet

LAYERS = ["layer1.0.conv1", "fc"]

# a writer that stops after its first batch until the test says "go"
_SLOW_WRITER = """
import os, sys, time
import torch
from toponeuro.features import extract
from toponeuro.models import SmallResNet

store, ready, go = sys.argv[1:4]
torch.manual_seed(0)
net = SmallResNet(widths=(8, 8, 16, 16))
images = [torch.rand(3, 16, 16, generator=torch.Generator().manual_seed(i)) for i in range(9)]
seen = []

def pre(x):
    seen.append(1)
    if len(seen) == 4:  # the first batch of 3 is written; hold the store open
        open(ready, "w").write(str(os.getpid()))
        while not os.path.exists(go):
            time.sleep(0.05)
    return x

acts = extract(net, images, ["layer1.0.conv1", "fc"], batch_size=3, store=store,
               progress=False, preprocess=pre)
print("SUM", float(acts.values.sum()))
"""


def _net_and_images():
    torch.manual_seed(0)
    net = SmallResNet(widths=(8, 8, 16, 16))
    images = [torch.rand(3, 16, 16, generator=torch.Generator().manual_seed(i)) for i in range(9)]
    return net, images


@pytest.mark.slow  # two fresh Python processes importing torch
def test_second_process_is_refused_and_the_first_loses_nothing(tmp_path):
    store, ready, go = tmp_path / "store", tmp_path / "ready", tmp_path / "go"
    script = tmp_path / "writer.py"
    script.write_text(_SLOW_WRITER)
    first = subprocess.Popen(
        [sys.executable, str(script), str(store), str(ready), str(go)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.time() + 120
        while not ready.exists():
            assert first.poll() is None, first.stderr.read().decode()[-2000:]
            assert time.time() < deadline, "the first writer did not start"
            time.sleep(0.05)
        pid = ready.read_text()
        live = next(store.glob("*.nc"))
        inode = os.stat(live).st_ino
        # a second real process with the same settings (same cache key, same file): refused
        second = subprocess.run(
            [sys.executable, str(script), str(store), str(tmp_path / "ready2"), str(go)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert second.returncode == 1
        assert "StoreLockedError" in second.stderr and f"pid {pid}" in second.stderr
        assert os.stat(live).st_ino == inode  # the live file was not deleted or replaced
        # and in this process too, naming the file itself (other settings)
        net, images = _net_and_images()
        with pytest.raises(E.StoreLockedError, match=f"pid {pid}") as err:
            extract(net, images, LAYERS, batch_size=3, store=live, progress=False)
        assert isinstance(err.value, BlockingIOError)
        assert os.stat(live).st_ino == inode
    finally:
        go.write_text("go")
        out, errs = first.communicate(timeout=120)
    assert first.returncode == 0, errs.decode()[-2000:]
    ref = extract(net, images, LAYERS, batch_size=3, progress=False)
    total = float(out.decode().split("SUM")[1])
    np.testing.assert_allclose(total, float(ref.values.sum()), rtol=1e-5)
    # after the first writer is gone the store is free and complete: read without recomputing
    again = extract(net, images, LAYERS, batch_size=3, store=store, progress=False)
    np.testing.assert_allclose(again.values, ref.values, rtol=1e-6, atol=1e-7)


def _finished_store(tmp_path):
    net, images = _net_and_images()
    store = tmp_path / "store"
    acts = extract(net, images, LAYERS, batch_size=3, store=store, progress=False)
    return net, images, store, next(store.glob("*.nc")), acts


def test_flipped_bytes_in_the_rows_are_found(tmp_path):
    net, images, store, path, acts = _finished_store(tmp_path)
    raw = bytearray(path.read_bytes())
    row = np.ascontiguousarray(acts.values[4], dtype=np.float32).tobytes()
    at = raw.find(row)
    assert at > 0  # rows are stored uncompressed: the test can find and flip their bytes
    raw[at + 5] ^= 0x40
    path.write_bytes(bytes(raw))
    before = path.read_bytes()
    with pytest.raises(E.StoreCorruptError, match=r"stimuli \['stim-0004'\]") as err:
        extract(net, images, LAYERS, batch_size=3, store=store, progress=False)
    assert "resume=False" in str(err.value) and isinstance(err.value, ValueError)
    assert path.read_bytes() == before  # nothing deleted or rewritten
    # starting over is the fix, and gives the right values
    fresh = extract(net, images, LAYERS, batch_size=3, store=store, resume=False, progress=False)
    np.testing.assert_allclose(fresh.values, acts.values, rtol=1e-6, atol=1e-7)


def test_values_changed_behind_the_store_are_found_on_resume(tmp_path):
    net, images, store, path, acts = _finished_store(tmp_path)
    with h5py.File(path, "r+") as f:  # a row changed, its done flag kept: a partial store
        f["activations"][7, 3] = 123.0
        f["done"][8] = 0
    with pytest.raises(E.StoreCorruptError, match="stim-0007"):
        extract(net, images, LAYERS, batch_size=3, store=store, progress=False)


def test_unreadable_store_is_moved_aside_not_deleted(tmp_path):
    net, images, store, path, acts = _finished_store(tmp_path)
    path.write_bytes(b"\x89HDF\r\n\x1a\n" + b"\x00" * 64)
    # killed mid-write: the run's lock file is left behind (a finished run removes it)
    path.with_name(path.name + ".lock").write_text('{"pid": 4194999, "host": "h", "since": "t"}')
    with pytest.warns(UserWarning, match=".corrupt"):
        out = extract(net, images, LAYERS, batch_size=3, store=store, progress=False)
    assert path.with_name(path.name + ".corrupt").exists()
    np.testing.assert_allclose(out.values, acts.values, rtol=1e-6, atol=1e-7)


def test_row_checksums_are_written_and_verified(tmp_path):
    net, images, store, path, acts = _finished_store(tmp_path)
    with h5py.File(path, "r") as f:
        crc = f["row_crc32"][:]
        data = f["activations"][:]
    assert (row_crc32(data) == crc).all() and (crc >= 0).all()
    st = ActivationStore(path, acts.attrs["cache_key"], acts.stimulus_id.values, None, {})
    try:
        st.verify()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            st.read()
    finally:
        st.close()
    # the lock is released on close: a new store object opens it at once
    ActivationStore(path, acts.attrs["cache_key"], acts.stimulus_id.values, None, {}).close()


def test_one_writer_per_store_also_within_a_process(tmp_path):
    ids = ["a", "b"]
    first = ActivationStore(tmp_path / "s.nc", "k" * 64, ids, None, {})
    try:
        with pytest.raises(E.StoreLockedError, match=f"pid {os.getpid()}"):
            ActivationStore(tmp_path / "s.nc", "k" * 64, ids, None, {})
        first.write(0, np.ones((2, 3), np.float32), {"layer": np.array(["fc"] * 3)})
    finally:
        first.close()
    second = ActivationStore(tmp_path / "s.nc", "k" * 64, ids, None, {})
    try:
        assert second.done().all()
        np.testing.assert_array_equal(second.read()[0], np.ones((2, 3)))
    finally:
        second.close()


# --- only toponeuro's own files are stores (issue 19) ----------------------------------------
def _users_netcdf(path):
    import xarray as xr

    xr.DataArray(np.arange(4.0), dims="x", name="betas").to_netcdf(path, engine="h5netcdf")
    return path.read_bytes()


@pytest.mark.parametrize("kwargs", [{}, {"resume": False}, {"overwrite": True}])
def test_a_users_netcdf_at_the_store_path_is_refused_never_deleted(tmp_path, kwargs):
    # 0.2.0: replaced by a store with a UserWarning, and with resume=False without a word
    net, images = _net_and_images()
    path = tmp_path / "my_betas.nc"
    before = _users_netcdf(path)
    with pytest.raises(E.OutputExistsError, match="my_betas.nc.*did not write") as err:
        extract(net, images, LAYERS, store=path, progress=False, **kwargs)
    assert isinstance(err.value, FileExistsError) and "store=" in str(err.value)
    assert path.read_bytes() == before


def test_a_store_path_with_another_formats_suffix_is_refused(tmp_path):
    net, images = _net_and_images()
    image = tmp_path / "adult-121.jpg"
    image.write_bytes(b"\xff\xd8\xff\xe0 a jpeg")
    for target in (image, tmp_path / "new.csv"):
        with pytest.raises(E.OutputPathError, match="suffix"):
            extract(net, images, LAYERS, store=target, progress=False)
    assert image.read_bytes() == b"\xff\xd8\xff\xe0 a jpeg"
    assert not (tmp_path / "new.csv").exists()


def test_an_unreadable_file_toponeuro_did_not_write_is_refused(tmp_path):
    net, images = _net_and_images()
    path = tmp_path / "notes.nc"
    path.write_bytes(b"my own notes, not HDF5")
    with pytest.raises(E.OutputExistsError, match="no record of writing it"):
        extract(net, images, LAYERS, store=path, progress=False)
    assert path.read_bytes() == b"my own notes, not HDF5"
    assert not path.with_name("notes.nc.corrupt").exists()


def test_a_store_carries_its_format_mark(tmp_path):
    net, images, store, path, acts = _finished_store(tmp_path)
    with h5py.File(path, "r") as f:
        assert f.attrs["toponeuro_format"] == "activation-store"
        assert np.ravel(f.attrs["store_format"])[0] == 2 and "toponeuro_version" in f.attrs
