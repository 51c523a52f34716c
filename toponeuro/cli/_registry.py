"""``toponeuro models`` and ``toponeuro layers``: what the registry holds."""

from __future__ import annotations

import sys

from ._common import _model_args, _model_of, _parser
from ._map import _text_table


def _add_models(sub):
    p = _parser(
        sub,
        "models",
        help="list the registered models, their tau and whether their weights are here",
        description="List the model registry: name, architecture, modality, TopoLoss tau and "
        "where the weights are (shipped with a package, cached from an earlier download, "
        "downloaded on first use, or none: architecture only).",
    )
    p.add_argument("pattern", nargs="?", default="*", help="glob on the names, e.g. 'toponet_*'")


def _run_models(args) -> int:
    from ..models import WEIGHTS_STATUSES, describe_models

    table = describe_models(args.pattern)
    if table.empty:
        from ..exceptions import UnknownNameError

        raise UnknownNameError(f"No registered model matches {args.pattern!r}; try `toponeuro "
                               "models` without a pattern.")
    shown = table[["name", "modality", "tau", "weights", "source"]].copy()
    shown["tau"] = [None if t != t else f"{t:g}" for t in shown["tau"]]
    print(_text_table(shown, numeric={"tau"}))
    print()
    for status in sorted(set(table["weights"])):
        print(f"{status}: {WEIGHTS_STATUSES[status]}")
    return 0


def _add_layers(sub):
    p = _parser(
        sub,
        "layers",
        help="list the layers of a model that extract can read, with unit counts and sheets",
        description="List every module of a registered model (built without weights: nothing "
        "is downloaded) with its output shape, the units `toponeuro extract` gives for it "
        "(channels of a conv map, features of a token sequence), its cortical sheet and "
        "whether TopoLoss acted on it (the layers of --layers topo).",
    )
    _model_args(p, required=True, positional=True)
    p.add_argument("--topo", action="store_true", help="only the TopoLoss layers")
    p.add_argument("--no-probe", action="store_true",
                   help="read sizes off the modules instead of running one blank input")


def _run_layers(args) -> int:
    from ..models import list_layers

    name = _model_of(args, "layers")
    if not name:
        print("toponeuro layers: give MODEL (see `toponeuro models`)", file=sys.stderr)
        return 2
    table = list_layers(name, probe=not args.no_probe)
    if args.topo:
        table = table[table["topo"]]
    shown = table.copy()
    shown["output_shape"] = [None if s is None else "x".join(map(str, s))
                             for s in shown["output_shape"]]
    shown["sheet_shape"] = [None if s is None else f"{s[0]}x{s[1]}" for s in shown["sheet_shape"]]
    shown["topo"] = ["yes" if t else "" for t in shown["topo"]]
    print(_text_table(shown, numeric={"n_units"}))
    return 0


# --- brainscore ------------------------------------------------------------------------------
