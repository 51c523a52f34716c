"""The 0.1 names that 0.2 kept for one release are gone in 0.3.0, and say what replaces them.

docs/changelog.rst lists each removal with its replacement; a removed module attribute raises
an AttributeError that names it, a removed keyword Python's own TypeError, a removed flag a
usage error (exit 2).
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import toponeuro
from toponeuro import exceptions as E

REMOVED_ATTRIBUTES = [
    ("toponeuro.features", "ItemStimuli", "StimulusSet.from_items"),
    ("toponeuro.models", "load_checkpoint", "toponeuro.models.load_weights"),
    ("toponeuro.analysis", "noise_ceiling", "rdm_noise_ceiling"),
    ("toponeuro.brain", "noise_ceiling", "voxel_noise_ceiling"),
    ("toponeuro", "noise_ceiling", "rdm_noise_ceiling"),
    ("toponeuro.analysis", "trajectory", "toponeuro.training.trajectory"),
    ("toponeuro.brain", "load_image", "load_brain_image"),
]


@pytest.mark.parametrize(("module", "name", "replacement"), REMOVED_ATTRIBUTES)
def test_removed_names_are_gone_and_name_their_replacement(module, name, replacement):
    mod = importlib.import_module(module)
    assert name not in getattr(mod, "__all__", ())
    with pytest.raises(AttributeError, match=f"removed in toponeuro 0.3.0; use .*{replacement}"):
        getattr(mod, name)
    with pytest.raises(ImportError):
        exec(f"from {module} import {name}", {})


def test_an_unknown_name_is_still_a_plain_attribute_error():
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        toponeuro.analysis.no_such_name  # noqa: B018


def test_load_checkpoint_has_one_meaning_now():
    from toponeuro.training import load_checkpoint

    assert load_checkpoint.__module__ == "toponeuro.training._train"


def test_removed_keywords_raise_type_errors(tmp_path):
    from toponeuro.analysis import find_patches, smoothness
    from toponeuro.reporting import run_map
    from toponeuro.stimuli import load_floc, load_language_localizer, local_floc_copy

    for fn in (local_floc_copy, load_floc, load_language_localizer):
        with pytest.raises(TypeError, match="data_dir"):
            fn(data_dir=tmp_path)
    with pytest.raises(TypeError, match="'out'"):
        run_map("toponet_demo.tau_99", stimuli=tmp_path / "s", out=tmp_path / "o",
                verbose=1)
    pts = np.random.default_rng(0).random((40, 3))
    with pytest.raises(TypeError, match="positions"):
        smoothness(pts[:, 0], positions=pts)
    with pytest.raises(TypeError, match="adjacency"):
        find_patches(pts[:, 0], 1.0, adjacency=0.5)
    # and the replacements work
    assert local_floc_copy(cache_dir=tmp_path) is None
    with pytest.raises(E.UnknownNameError):
        run_map("toponet_demo.tau_99", stimuli=tmp_path / "s", out_dir=tmp_path / "o",
                verbose=1)


def test_version_is_after_the_release_that_removed_them():
    """The names above were removed in 0.3.0; this is 0.4.0 (docs/changelog.rst heads it)."""
    assert toponeuro.__version__ == "0.4.0"
    from importlib.metadata import version
    assert version("toponeuro") == toponeuro.__version__


def test_one_name_one_meaning_in_the_dimension_names():
    """Each dimension/coordinate string has one constant (0.2 had FMAP_Y/FMAP_X beside Y/X)."""
    from collections import Counter

    from toponeuro._util import dims as D

    names = Counter(v for k, v in vars(D).items() if k.isupper() and isinstance(v, str))
    assert [v for v, n in names.items() if n > 1] == []
    assert not hasattr(D, "FMAP_Y") and D.Y == "y"


def test_images_means_floc_numbers_and_load_image_pictures_only():
    from toponeuro import brain, stimuli
    from toponeuro.cli import build_parser

    assert hasattr(stimuli, "read_image") and not hasattr(brain, "read_image")
    assert "load_brain_image" in brain.__all__ and "load_image" not in brain.__all__
    args = build_parser().parse_args(["map", "--images", "97-98"])
    assert args.images == [97, 98]
