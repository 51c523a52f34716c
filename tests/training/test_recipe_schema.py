"""The recipe schemas (``toponeuro/training/_schema.py``): an image recipe's ``[train]`` is
checked by the declarations of TrainSchedule and TrainRecords (one declaration, issue 44), and
both kinds of recipe are read by one checker."""

import copy
import dataclasses

import pytest

from toponeuro.exceptions import RecipeError, ToponeuroError
from toponeuro.training import (
    LANGUAGE_RECIPE_SCHEMA,
    RECIPE_SCHEMA,
    TrainRecords,
    TrainSchedule,
    load_recipe,
    validate_language_recipe,
    validate_recipe,
)

SETTINGS = (TrainSchedule, TrainRecords)


def test_the_train_keys_are_the_settings_fields():
    assert set(RECIPE_SCHEMA["train"]) == {f.name for cls in SETTINGS
                                           for f in dataclasses.fields(cls)}


@pytest.mark.parametrize("key, none", [("log_every", 0), ("keep_checkpoints", 0),
                                       ("lr_schedule", "constant"), ("lr_schedule", "none")])
def test_a_recipe_word_for_none_passes_the_schema_and_means_none(key, none):
    """The word a field declares for None (recipe_none) is a value the schema accepts."""
    r = load_recipe("demo-smoke")
    r["train"][key] = none
    validate_recipe(r)
    cls = next(c for c in SETTINGS if key in c.__dataclass_fields__)
    assert getattr(cls.from_recipe(r), key) is None


@pytest.mark.parametrize("key, value, want", [
    ("log_every", -1, "a whole number >= 1, or 0 for no step log; got -1"),
    ("keep_checkpoints", 2.5, "a whole number >= 1, or 0 for all; got 2.5"),
    ("log_every", False, "got False"),  # a boolean is no word for None
    ("epochs", 0, "a whole number >= 1; got 0"),
    ("lr", 0, "a finite number > 0; got 0"),
    ("momentum", 1, "a finite number in [0, 1); got 1"),
    ("lr_schedule", "cosin", "one of 'cosine', or 'constant' / 'none' for constant"),
])
def test_the_schema_refuses_what_the_settings_refuse(key, value, want):
    r = load_recipe("demo-smoke")
    r["train"][key] = value
    with pytest.raises(RecipeError, match=f"train.{key} must be") as err:
        validate_recipe(r)
    assert want in str(err.value)
    cls = next(c for c in SETTINGS if key in c.__dataclass_fields__)
    with pytest.raises(ToponeuroError):  # the settings object refuses it too
        cls(**{key: value})


def test_a_whole_float_passes_both():
    r = load_recipe("demo-smoke")
    r["train"]["epochs"] = 2.0
    validate_recipe(r)
    assert TrainSchedule.from_recipe(r).epochs == 2


def test_one_checker_reads_both_kinds():
    """A language recipe's messages are worded as an image recipe's."""
    r = copy.deepcopy(load_recipe("lm-smoke"))
    del r["train"]["steps"]
    with pytest.raises(RecipeError, match=r"^Recipe 'lm': train\.steps is required"):
        validate_language_recipe(r, "lm")
    r = copy.deepcopy(load_recipe("lm-smoke"))
    r["train"]["lr"] = -1
    with pytest.raises(RecipeError, match=r"^Recipe 'lm': train\.lr must be a finite number > 0; "
                       r"got -1\. Fix the value"):
        validate_language_recipe(r, "lm")
    assert set(LANGUAGE_RECIPE_SCHEMA) == {"", "model", "data", "train", "topoloss"}
