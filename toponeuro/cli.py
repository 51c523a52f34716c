"""The ``toponeuro`` command line. Thin: it parses arguments and calls the public API.

Each sub-command is a pair ``_add_<name>(subparsers)`` / ``_run_<name>(args)`` registered in
:data:`COMMANDS`; heavy imports happen inside ``_run_*``.
"""

from __future__ import annotations

import argparse
import sys

from ._version import __version__


def _add_train(sub):
    p = sub.add_parser(
        "train",
        help="train a small TopoNet from a recipe (cross-entropy + TopoLoss)",
        description="Train a TopoNet from a recipe: a TOML file or the name of a recipe shipped "
        "with toponeuro (see --list). Checkpoints are written after every epoch; rerunning the "
        "same command resumes from the last one.",
    )
    p.add_argument("--recipe", help="recipe name (e.g. demo-smoke) or path to a .toml file")
    p.add_argument("--out", default=None, help="output folder (default: runs/<recipe name>)")
    p.add_argument("--epochs", type=int, default=None, help="override the recipe's epochs")
    p.add_argument("--seed", type=int, default=None, help="override the recipe's seed")
    p.add_argument("--device", default=None, help="cpu (default) or cuda")
    p.add_argument("--data", default=None, help="override the recipe's data path")
    p.add_argument("--no-resume", action="store_true", help="start over even if checkpoints exist")
    p.add_argument("--no-progress", action="store_true", help="hide progress bars")
    p.add_argument("--list", action="store_true", help="list the recipes shipped with toponeuro")


def _run_train(args) -> int:
    from .training import list_recipes, load_recipe, run_recipe

    if args.list:
        for name in list_recipes():
            print(name)
        return 0
    if not args.recipe:
        print("toponeuro train: give --recipe NAME|FILE (see --list)", file=sys.stderr)
        return 2
    recipe = load_recipe(args.recipe)
    overrides = {
        k: v
        for k, v in {"epochs": args.epochs, "seed": args.seed, "device": args.device}.items()
        if v is not None
    }
    result = run_recipe(
        recipe,
        out_dir=args.out,
        data_path=args.data,
        resume=not args.no_resume,
        progress=not args.no_progress,
        **overrides,
    )
    last = result.history[-1]
    print(
        f"trained {recipe['name']!r}: {len(result.history)} epoch(s), final train accuracy "
        f"{last['train_accuracy']:.3f}, topo loss {last['topo_loss']:.4f}; checkpoints in "
        f"{result.out_dir}"
    )
    return 0


#: sub-command name -> (add parser, run)
COMMANDS = {"train": (_add_train, _run_train)}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="toponeuro",
        description="Compare topographic neural networks (TopoNets) with the human brain.",
    )
    parser.add_argument("--version", action="version", version=f"toponeuro {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for add, _ in COMMANDS.values():
        add(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    return COMMANDS[args.command][1](args)


if __name__ == "__main__":
    sys.exit(main())
