"""``architecture_config``: the builders' hyper-parameters, read from ``architectures.toml``.

The architectures are data, as the model cards are (``cards.toml``): one table per builder
name says which class the keywords go to, which published configuration they reproduce, and
the keywords themselves, at full size and (for tests and doctests) a tiny size.
"""

from __future__ import annotations

import copy
import functools
import importlib.resources
import tomllib

from .._util.params import Text, validate_params
from ..exceptions import UnknownNameError, close_matches

__all__ = ["architecture_config"]

_FILE = "architectures.toml"
#: the fields of a table that describe it rather than give a size
_META = ("builds", "source")


@functools.cache
def _tables() -> dict:
    text = importlib.resources.files(__package__).joinpath(_FILE).read_text("utf-8")
    return tomllib.loads(text)


def _sizes(table: dict) -> list[str]:
    return [k for k in table if k not in _META]


@validate_params(dict(name=Text(), size=Text()))
def architecture_config(name: str, size: str = "full", **overrides) -> dict:
    """The keyword arguments that build the architecture ``name`` at ``size``.

    The values are data in ``toponeuro/models/architectures.toml``, each table naming the
    published configuration its ``full`` size reproduces (a Hugging Face ``config.json``, a
    torchvision builder). The builders read them: ``gpt_neo_125m_config`` (GPT-Neo 125M),
    ``minilm_l6`` (all-MiniLM-L6-v2's ``BertConfig``) and ``vit_b_32`` (torchvision's
    ViT-B/32).

    Parameters
    ----------
    name : str
        A builder name: ``"gpt_neo_125m"``, ``"minilm_l6"`` or ``"vit_b_32"``.
    size : str
        ``"full"`` (the published architecture) or ``"tiny"`` (two narrow layers, for tests
        and doctests; the fields it does not list are the full size's).
    **overrides
        Fields to change, passed on unchecked (the class that receives them validates them).

    Returns
    -------
    dict
        A fresh dict (changing it changes nothing here). A field the library defaults is
        absent, since TOML has no null: GPT-Neo's ``intermediate_size`` is left to
        ``GPTNeoConfig``'s default ``None`` (4 × ``hidden_size``), as in its ``config.json``.

    Raises
    ------
    UnknownNameError
        ``name`` or ``size`` is not in the file; the message lists the close matches.

    Examples
    --------
    >>> cfg = architecture_config("vit_b_32")
    >>> cfg["patch_size"], cfg["hidden_dim"], cfg["num_layers"]
    (32, 768, 12)
    >>> architecture_config("vit_b_32", "tiny", num_classes=10)["num_classes"]
    10
    >>> "intermediate_size" in architecture_config("gpt_neo_125m")  # transformers' default
    False
    """
    tables = _tables()
    if name not in tables:
        raise UnknownNameError(
            f"No architecture {name!r} in {_FILE}; {close_matches(name, sorted(tables))} "
            "(architecture_config takes a builder name)."
        )
    table = tables[name]
    sizes = _sizes(table)
    if size not in sizes:
        raise UnknownNameError(
            f"The architecture {name!r} has no size {size!r}; {close_matches(size, sizes)} "
            f"(sizes in {_FILE}: {sizes})."
        )
    cfg = copy.deepcopy(table["full"])
    if size != "full":
        cfg.update(copy.deepcopy(table[size]))
    cfg.update(overrides)
    return cfg
