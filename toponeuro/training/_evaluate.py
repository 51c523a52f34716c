"""Accuracy read-outs for models trained without the test categories as labels.

An instance-discrimination TopoNet (``data.kind = "floc_instances"``) has no held-out
accuracy of its own task on new images: its classes *are* the training images. Two numbers
stand in for it: the instance accuracy on fresh augmented views of the training images
(:func:`instance_accuracy`), and the category accuracy of a nearest-centroid read-out of its
features, fitted on some images and tested on others (:func:`nearest_centroid_accuracy`).
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
import torch
from torch import nn

from .._util.constraints import ArrayLike
from .._util.params import Interval, validate_params
from ..exceptions import InvalidDataError

__all__ = ["nearest_centroid_accuracy", "instance_accuracy"]


@validate_params(dict(train_x=ArrayLike(ndim=2), train_y=ArrayLike(ndim=1),
                      test_x=ArrayLike(ndim=2), test_y=ArrayLike(ndim=1)))
def nearest_centroid_accuracy(train_x, train_y, test_x, test_y) -> float:
    """Accuracy of a nearest-centroid classifier fitted on ``train_x`` and tested on ``test_x``.

    Every feature is z-scored with the training set's mean and standard deviation (features
    constant in training are dropped); each class is the mean of its training rows; a test row
    gets the class whose centroid is nearest in Euclidean distance. No parameter is tuned, so
    the number says how linearly separable the classes are in the features, not how well a
    fitted decoder does.

    Parameters
    ----------
    train_x : array ``(n, features)``
        Features of the training rows.
    train_y : array ``(n,)``
        Their class labels (any hashable values).
    test_x : array ``(m, features)``
        Features of the test rows.
    test_y : array ``(m,)``
        Their class labels.

    Returns
    -------
    float
        Fraction of test rows assigned their own class.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1, 2], 20)
    >>> x = rng.standard_normal((60, 5)) + 3 * np.eye(3, 5)[y]
    >>> nearest_centroid_accuracy(x[::2], y[::2], x[1::2], y[1::2]) > 0.9
    True
    """
    train_x, test_x = np.asarray(train_x, float), np.asarray(test_x, float)
    train_y, test_y = np.asarray(train_y), np.asarray(test_y)
    if train_x.ndim != 2 or test_x.ndim != 2 or train_x.shape[1] != test_x.shape[1]:
        raise InvalidDataError(
            f"Features must be 2-D with the same number of columns; got {train_x.shape} and "
            f"{test_x.shape}."
        )
    if len(train_x) != len(train_y) or len(test_x) != len(test_y):
        raise InvalidDataError(
            f"Rows and labels differ: {len(train_x)} vs {len(train_y)} (train), "
            f"{len(test_x)} vs {len(test_y)} (test)."
        )
    unknown = sorted(set(test_y.tolist()) - set(train_y.tolist()))
    if unknown:
        raise InvalidDataError(f"Test labels {unknown} have no training rows to fit a centroid.")
    mu, sd = train_x.mean(0), train_x.std(0)
    keep = sd > 0
    if not keep.any():
        raise InvalidDataError("Every feature is constant in the training rows.")
    z_train = (train_x[:, keep] - mu[keep]) / sd[keep]
    z_test = (test_x[:, keep] - mu[keep]) / sd[keep]
    classes = np.unique(train_y)
    centroids = np.stack([z_train[train_y == c].mean(0) for c in classes])
    d2 = ((z_test[:, None, :] - centroids[None]) ** 2).sum(-1)
    return float((classes[d2.argmin(1)] == test_y).mean())


@validate_params({"n_views": Interval(Integral, 1, None, closed="left"),
                  "seed": Interval(Integral, 0, None, closed="left"),
                  "batch_size": Interval(Integral, 1, None, closed="left")})
def instance_accuracy(
    model: nn.Module, dataset, *, n_views: int = 4, seed: int = 2024, batch_size: int = 256
) -> float:
    """Top-1 accuracy of an instance-discrimination model on fresh augmented views.

    Parameters
    ----------
    model : torch.nn.Module
        Logits over the instances of ``dataset``.
    dataset : InstanceImages
        The training images (``build_from_recipe(recipe)[1]``); ``n_views`` views of every
        image are drawn with ``seed`` (choose one that training did not use).
    n_views : int
        Augmented views drawn of every image.
    seed : int
        Seed of the views' augmentations.
    batch_size : int
        Views per forward pass.

    Returns
    -------
    float
        Fraction of views whose top logit is their own image's index.

    Examples
    --------
    >>> from toponeuro.training import InstanceImages
    >>> ds = InstanceImages(torch.randint(0, 255, (4, 1, 8, 8), dtype=torch.uint8), 8)
    >>> net = nn.Sequential(nn.Flatten(), nn.Linear(192, 4))
    >>> 0 <= instance_accuracy(net, ds, n_views=2) <= 1
    True
    """
    views = dataset.views(n_views, seed=seed)
    x, y = views.tensors
    was_training = model.training
    model.eval()
    correct = 0
    with torch.no_grad():
        for i in range(0, len(x), batch_size):
            correct += int((model(x[i : i + batch_size]).argmax(1) == y[i : i + batch_size]).sum())
    model.train(was_training)
    return correct / len(x)
