"""Train small TopoNets with cross-entropy + TopoLoss (``toponeuro train``)."""

from ._data import image_folder_dataset, make_synthetic_images
from ._evaluate import instance_accuracy, nearest_centroid_accuracy
from ._export import export_weights
from ._instances import InstanceImages, decode_image_folder
from ._load import load_trained_model
from ._recipes import (
    ARCHITECTURES,
    FLOC_PLACEHOLDER,
    build_from_recipe,
    list_recipes,
    load_recipe,
    resolve_data_path,
    run_recipe,
)
from ._schema import RECIPE_SCHEMA, validate_recipe
from ._train import TrainResult, list_checkpoints, load_checkpoint, train
from ._trajectory import trajectory

__all__ = [
    "train",
    "TrainResult",
    "load_checkpoint",
    "load_trained_model",
    "list_checkpoints",
    "trajectory",
    "list_recipes",
    "load_recipe",
    "build_from_recipe",
    "run_recipe",
    "validate_recipe",
    "RECIPE_SCHEMA",
    "ARCHITECTURES",
    "FLOC_PLACEHOLDER",
    "resolve_data_path",
    "make_synthetic_images",
    "image_folder_dataset",
    "decode_image_folder",
    "InstanceImages",
    "instance_accuracy",
    "nearest_centroid_accuracy",
    "export_weights",
]
