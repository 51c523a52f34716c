"""The pieces of a frozen settings object (toponeuro._util.frozen): one helper for the jobs'
settings and train's."""

import dataclasses

import pytest

import toponeuro.settings as job_settings
import toponeuro.training._settings as train_settings
from toponeuro._util.frozen import declared, set_checked, validate_fields
from toponeuro._util.params import COUNT, declared_params, validate_params
from toponeuro.exceptions import ParameterError


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
    """No copy of ``_set`` / ``_meta`` left in either settings module (train's checks its
    fields from their declarations: it sets nothing by hand)."""
    assert job_settings._set is set_checked
    assert not hasattr(train_settings, "_set")
    assert job_settings._meta is declared


def test_a_field_is_declared_one_way():
    """Constraints are declared with validate_fields only: no settings field carries its own
    ``check`` metadata, and train's settings objects declare every field they check."""
    from toponeuro.cli._settings import settings_classes

    assert not [f"{c.__name__}.{f.name}" for c in settings_classes()
                for f in dataclasses.fields(c) if "check" in f.metadata]
    for cls in (train_settings.TrainSchedule, train_settings.TrainRecords):
        assert sorted(declared_params(cls)) == sorted(f.name for f in dataclasses.fields(cls))


def test_a_settings_object_is_checked_wherever_it_is_made():
    """A record made inside a declared function trusts its values; a settings object
    (``_name``) checks them there too, naming ``param.field``, and lets a declared None pass."""
    @dataclasses.dataclass(frozen=True)
    @validate_fields({"n": COUNT})
    class Record:
        n: int

    @dataclasses.dataclass(frozen=True)
    @validate_fields({"n": [COUNT, None]})
    class Settings:
        _name = "records"
        n: int | None = None

    @validate_params({"m": COUNT})
    def make(m, cls):
        return cls(n=0)

    assert make(1, Record).n == 0  # trusted: the declared function made it
    with pytest.raises(ParameterError, match=r"^records\.n=0 is not a whole number >= 1\.$"):
        make(1, Settings)
    assert Settings().n is None and Settings(2.0).n == 2
    with pytest.raises(ParameterError, match=r"^n=0 is not"):
        Record(0)
