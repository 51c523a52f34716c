"""The pieces of a frozen settings object (toponeuro._util.frozen): one helper for the jobs'
settings and train's."""

import dataclasses

import pytest

import toponeuro.settings as job_settings
import toponeuro.training._settings as train_settings
from toponeuro._util.frozen import declared, set_checked


def test_declared_is_the_flag_the_help_and_the_rest():
    assert declared("--x", "an x", metavar="N") == {"flag": "--x", "help": "an x",
                                                     "metavar": "N"}
    assert declared(None, "Python only")["flag"] is None


def test_set_checked_stores_on_a_frozen_object():
    @dataclasses.dataclass(frozen=True)
    class Rate:
        value: float = 1

        def __post_init__(self):
            set_checked(self, "value", float(self.value))

    r = Rate(2)
    assert r.value == 2.0 and isinstance(r.value, float)
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.value = 3


def test_both_settings_modules_use_the_one_helper():
    """No copy of ``_set`` / ``_meta`` left in either settings module."""
    for module in (job_settings, train_settings):
        assert module._set is set_checked, module.__name__
    assert job_settings._meta is declared
