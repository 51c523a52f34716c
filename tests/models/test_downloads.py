"""What a download is checked against, offline: the hub's metadata call is mocked with the
hub client's own RepoFile objects, and hf_hub_download writes the file it would."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import shutil
import subprocess
from pathlib import Path

import pytest
import torch

from toponeuro import exceptions as E
from toponeuro._io.fetch import (
    _fetch_hf,
    data_dir,
    fetch_hf_file,
    fetch_url,
    git_blob_sha1,
    hub_file_digest,
    sha256sum,
)
from toponeuro.models import _registry, create_model, model_card

NAME = "toponet_demo.tau_0"  # made a hub card without a sha256 below (small and fast)


class FakeHub:
    """Serves ``files`` (name -> bytes) through the hub client's two entry points."""

    def __init__(self, monkeypatch, files, *, published=None, online=True):
        import huggingface_hub
        from huggingface_hub.hf_api import RepoFile

        self.files = dict(files)
        self.published = dict(published or files)  # what the hub's metadata describes
        self.online = online
        self.downloads = 0
        self.metadata_calls = 0

        def get_paths_info(api, repo_id, paths, *, revision=None, **kw):
            self.metadata_calls += 1
            if not self.online:
                raise huggingface_hub.errors.OfflineModeIsEnabled("offline mode is enabled")
            out = []
            for p in [paths] if isinstance(paths, str) else paths:
                if p not in self.published:
                    continue
                data = self.published[p]
                pointer = f"version https://git-lfs.github.com/spec/v1\noid sha256:{hashlib.sha256(data).hexdigest()}\nsize {len(data)}\n".encode()
                lfs = p.endswith(".pt")  # weights in LFS, small text files in git
                blob = data if not lfs else pointer
                oid = hashlib.sha1(b"blob %d\0" % len(blob) + blob).hexdigest()
                kwargs = dict(path=p, size=len(data), oid=oid)
                if lfs:
                    kwargs["lfs"] = {
                        "size": len(data),
                        "oid": hashlib.sha256(data).hexdigest(),
                        "pointerSize": len(pointer),
                    }
                out.append(RepoFile(**kwargs))
            return out

        def hf_hub_download(*, repo_id, filename, revision=None, local_dir=None, **kw):
            self.downloads += 1
            if not self.online:
                raise huggingface_hub.errors.OfflineModeIsEnabled("offline mode is enabled")
            target = Path(local_dir) / filename
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(self.files[filename])
            return str(target)

        monkeypatch.setattr(huggingface_hub.HfApi, "get_paths_info", get_paths_info)
        monkeypatch.setattr(huggingface_hub, "hf_hub_download", hf_hub_download)


@pytest.fixture
def released(tmp_path, monkeypatch):
    """NAME as a hub card without sha256 (like the released TopoNets), the bytes of a valid
    checkpoint for it, and of another (randomly initialised) one."""
    model_card(NAME)  # registers the architectures
    card, builder = _registry._REGISTRY[NAME]
    card = dataclasses.replace(
        card, package_path=None, hub_repo="murtylab/topo-demo", filename="tau_0.pt", sha256=None
    )
    monkeypatch.setitem(_registry._REGISTRY, NAME, (card, builder))
    good, rand = tmp_path / "good.pt", tmp_path / "rand.pt"
    torch.manual_seed(0)
    torch.save(create_model(NAME).state_dict(), good)
    torch.manual_seed(1)
    torch.save(create_model(NAME).state_dict(), rand)
    assert model_card(NAME).sha256 is None
    return card, good.read_bytes(), rand.read_bytes()


def _target(card) -> Path:
    return data_dir() / "hf" / card.hub_repo / card.filename


def test_download_is_checked_against_the_hub_lfs_sha256(monkeypatch, released):
    card, good, _ = released
    hub = FakeHub(monkeypatch, {card.filename: good})
    model = create_model(NAME, pretrained=True)
    digest = hashlib.sha256(good).hexdigest()
    assert model.weights_sha256 == digest
    assert "Hugging Face LFS sha256" in model.weights_check and digest in model.weights_check
    record = json.loads(_target(card).with_name(card.filename + ".sha256.json").read_text())
    assert record["sha256"] == digest and "LFS sha256" in record["checked_against"][0]
    # a second run is checked against the recorded digest, offline, without downloading
    hub.online = False
    again = create_model(NAME, pretrained=True)
    assert hub.downloads == 1 and "recorded" in again.weights_check


def test_download_that_differs_from_the_hub_is_refused(monkeypatch, released):
    card, good, rand = released
    FakeHub(monkeypatch, {card.filename: rand}, published={card.filename: good})
    with pytest.raises(E.ChecksumError) as err:
        create_model(NAME, pretrained=True)
    msg = str(err.value)
    assert hashlib.sha256(rand).hexdigest() in msg and hashlib.sha256(good).hexdigest() in msg
    assert not _target(card).exists()  # nothing unverified left in the cache
    assert isinstance(err.value, ValueError)


def test_random_weights_at_the_cache_path_are_not_pretrained(monkeypatch, released):
    card, good, rand = released
    target = _target(card)
    target.parent.mkdir(parents=True)
    target.write_bytes(rand)
    # offline: used, but said loudly to be unverified (before: silently "pretrained")
    hub = FakeHub(monkeypatch, {card.filename: good}, online=False)
    with pytest.warns(E.UnverifiedFileWarning, match="NOT verified"):
        model = create_model(NAME, pretrained=True)
    assert model.weights_check.startswith("NOT verified")
    assert "verified" not in model.weights_check.replace("NOT verified", "")
    # online: the hub's digest disagrees -> quarantined, downloaded again, verified
    hub.online = True
    with pytest.warns(UserWarning, match="corrupt"):
        model = create_model(NAME, pretrained=True)
    assert target.read_bytes() == good and hub.downloads == 1
    assert target.with_name(card.filename + ".corrupt").read_bytes() == rand
    assert "LFS sha256" in model.weights_check


def test_corrupted_cached_file_is_downloaded_again_once(monkeypatch, released):
    card, good, rand = released
    hub = FakeHub(monkeypatch, {card.filename: good})
    create_model(NAME, pretrained=True)
    target = _target(card)
    data = bytearray(target.read_bytes())
    data[len(data) // 2] ^= 0xFF
    target.write_bytes(bytes(data))
    with pytest.warns(UserWarning, match="moved to"):
        create_model(NAME, pretrained=True)  # before: every rerun failed the same way
    assert hub.downloads == 2 and sha256sum(target) == hashlib.sha256(good).hexdigest()
    # the hub now serves broken bytes too: one new try, then both hashes named
    target.write_bytes(bytes(data))
    hub.files[card.filename] = rand
    with pytest.warns(UserWarning), pytest.raises(E.ChecksumError) as err:
        create_model(NAME, pretrained=True)
    assert hub.downloads == 3
    assert hashlib.sha256(rand).hexdigest() in str(err.value)
    assert hashlib.sha256(good).hexdigest() in str(err.value)


def test_card_sha256_and_hub_are_both_checked(monkeypatch, released):
    card, good, _ = released
    FakeHub(monkeypatch, {card.filename: good})
    path, check = _fetch_hf(card.hub_repo, card.filename, sha256=hashlib.sha256(good).hexdigest())
    assert "model card's sha256 and the Hugging Face LFS sha256" in check
    # offline with a card digest: still downloads nothing, checks the card digest
    path.unlink()
    with pytest.raises(E.DownloadError, match="by hand"):
        FakeHub(monkeypatch, {card.filename: good}, online=False)
        fetch_hf_file(card.hub_repo, card.filename, sha256="0" * 64)


def test_non_lfs_file_is_checked_by_its_git_blob_sha1(monkeypatch):
    text = b'{"hello": 1}\n'
    hub = FakeHub(monkeypatch, {"vocab.json": text})
    path, check = _fetch_hf("openai-community/gpt2", "vocab.json")
    assert path.read_bytes() == text and "git blob sha1" in check
    assert hub_file_digest("openai-community/gpt2", "vocab.json")["sha256"] is None
    hub.published["vocab.json"] = b"other"
    path.unlink()
    with pytest.raises(E.ChecksumError, match="git blob sha1"):
        _fetch_hf("openai-community/gpt2", "vocab.json")


def test_hub_without_the_file_is_a_download_error(monkeypatch):
    FakeHub(monkeypatch, {})
    with pytest.raises(E.DownloadError, match="no file 'absent.pt'"):
        fetch_hf_file("murtylab/x", "absent.pt")


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_git_blob_sha1_is_gits_own(tmp_path):
    p = tmp_path / "f.bin"
    p.write_bytes(bytes(range(256)) * 5)
    out = subprocess.run(["git", "hash-object", str(p)], capture_output=True, text=True)
    assert git_blob_sha1(p) == out.stdout.strip()


def test_fetch_url_quarantines_a_wrong_cached_copy(tmp_path):
    src = tmp_path / "src.txt"
    src.write_text("published")
    digest = sha256sum(src)
    target = data_dir() / "pinned" / "a.txt"
    target.parent.mkdir(parents=True)
    target.write_text("stale")
    with pytest.warns(UserWarning, match="a.txt.corrupt"):
        got = fetch_url(src.as_uri(), sha256=digest, relpath="pinned/a.txt")
    assert got.read_text() == "published"
    assert (target.parent / "a.txt.corrupt").read_text() == "stale"
    # the source itself is wrong now: one new download, then both hashes named
    target.write_text("stale")
    src.write_text("changed")
    with pytest.warns(UserWarning), pytest.raises(E.ChecksumError) as err:
        fetch_url(src.as_uri(), sha256=digest, relpath="pinned/a.txt")
    assert digest in str(err.value) and sha256sum(src) in str(err.value)
