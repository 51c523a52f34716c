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




def _add_extract(sub):
    p = sub.add_parser(
        "extract",
        help="extract sheet-organised activations of a model for stimuli",
        description="Run stimuli through a registered model and save the activations of the "
        "chosen layers (one unit per channel / neuron, laid out on cortical sheets) as netCDF. "
        "With --store, rows stream to disk and an interrupted run resumes.",
    )
    p.add_argument("--model", required=True, help="registered name (toponeuro.models.list_models)")
    p.add_argument("--checkpoint", default=None, help="local weights file in the card's format")
    p.add_argument(
        "--stimuli",
        required=True,
        help="a folder of images (sorted by file name) or a .txt file with one text per line",
    )
    p.add_argument("--layers", nargs="+", default=["topo"], help="module names, or topo (default)")
    p.add_argument("--out", required=True, help="output netCDF file (.nc)")
    p.add_argument("--pooling", default="mean", choices=["mean", "max", "center", "none"])
    p.add_argument("--token-pooling", default="mean", choices=["mean", "first", "last"])
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--device", default="cpu")
    p.add_argument("--store", default=None, help="folder for the resumable streaming store")
    p.add_argument("--no-resume", action="store_true", help="ignore finished rows in --store")
    p.add_argument("--trust-checkpoint", action="store_true", help="allow unsafe pickles")
    p.add_argument("--no-progress", action="store_true", help="hide progress bars")


def _run_extract(args) -> int:
    from pathlib import Path

    from .features import extract
    from .models import create_model, model_card

    src = Path(args.stimuli)
    if src.is_dir():
        from .stimuli import IMAGE_EXTENSIONS

        stimuli = sorted(str(f) for f in src.iterdir() if f.suffix.lower() in IMAGE_EXTENSIONS)
    elif src.suffix == ".txt" and src.is_file():
        stimuli = [line for line in src.read_text().splitlines() if line.strip()]
    else:
        print(
            f"toponeuro extract: --stimuli must be an image folder or a .txt file; got {src}",
            file=sys.stderr,
        )
        return 2
    card = model_card(args.model)
    model = create_model(
        args.model,
        pretrained=args.checkpoint is None and card.has_weights,
        checkpoint=args.checkpoint,
        trust_checkpoint=args.trust_checkpoint,
    )
    acts = extract(
        model,
        stimuli,
        args.layers if args.layers != ["topo"] else "topo",
        pooling=None if args.pooling == "none" else args.pooling,
        token_pooling=args.token_pooling,
        batch_size=args.batch_size,
        device=args.device,
        store=args.store,
        resume=not args.no_resume,
        progress=not args.no_progress,
    )
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    acts.to_netcdf(out, engine="h5netcdf")
    print(
        f"extracted {acts.sizes['stimulus']} stimuli x {acts.sizes['unit']} units from "
        f"{len(acts.topo.layers)} layer(s) of {args.model!r} -> {out}"
    )
    return 0


def _numbers(text: str):
    if text == "all":
        return None
    first, sep, last = text.partition("-")
    try:
        lo, hi = int(first), int(last or first)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--images takes a range like 97-120 or 'all'; got {text!r}"
        ) from None
    if lo < 1 or hi < lo:
        raise argparse.ArgumentTypeError(f"--images: need 1 <= first <= last; got {text!r}")
    return list(range(lo, hi + 1))


def _add_map(sub):
    p = sub.add_parser(
        "map",
        help="map a model's category-selective topography and compare it with the cortex",
        description="Extract sheet activations for the fLoc localizer images, compute the five "
        "domain selectivity maps (faces, bodies, places, characters, objects), their "
        "smoothness, patches and similarities, compare them with the visfAtlas ROIs on "
        "fsaverage5, and write report.html, PNG figures, results.nc and summary.json. "
        "Defaults: the demo TopoNet shipped with toponeuro and the held-out fLoc images "
        "97-120. Offline, give a local fLoc copy with --stimuli DIR.",
    )
    p.add_argument("--model", default=None,
                   help="registered model name (default: the shipped demo TopoNet "
                   "toponet_demo.tau_50)")
    p.add_argument("--checkpoint", default=None,
                   help="a checkpoint from `toponeuro train` (or a state dict for --model)")
    p.add_argument("--stimuli", default="floc",
                   help="'floc' ($TOPONEURO_DATA/floc, else download) or a local fLoc folder "
                   "with one sub-folder per category")
    p.add_argument("--images", type=_numbers, default="97-120",
                   help="fLoc image numbers per category, e.g. 97-120 (default) or 'all'")
    p.add_argument("--layers", nargs="+", default=None,
                   help="layers to map (default: the model's last three TopoLoss layers)")
    p.add_argument("--out", default="toponeuro-map", help="output folder")
    p.add_argument("--threshold", type=float, default=3.0, help="patch threshold on t")
    p.add_argument("--device", default="cpu", help="cpu (default) or cuda")
    p.add_argument("--seed", type=int, default=0, help="seed of the smoothness sampling")
    p.add_argument("--no-progress", action="store_true", help="hide progress bars")


def _run_map(args) -> int:
    from .reporting import DEFAULT_MAP_MODEL, run_map

    images = _numbers(args.images) if isinstance(args.images, str) else args.images
    run_map(
        args.model or DEFAULT_MAP_MODEL,
        checkpoint=args.checkpoint,
        stimuli=args.stimuli,
        numbers=images,
        layers=args.layers,
        out_dir=args.out,
        threshold=args.threshold,
        device=args.device,
        random_state=args.seed,
        progress=not args.no_progress,
    )
    return 0


def _add_brainscore(sub):
    p = sub.add_parser(
        "brainscore",
        help="export a TopoNet as a Brain-Score plugin; score it locally with Brain-Score",
        description="Brain-Score integration. `export` writes a self-contained plugin folder "
        "(and --zip, the archive the Brain-Score website takes); `score` runs brainscore-vision "
        "itself (in its own environment, offline) on your stimuli and brain responses.",
    )
    bs = p.add_subparsers(dest="brainscore_command", metavar="ACTION")
    e = bs.add_parser("export", help="write models/<identifier>/ for brainscore-vision/-language")
    e.add_argument("model", nargs="?", help="registered model name (arch.tag)")
    e.add_argument("--card", help="JSON file of ModelCard fields (instead of a model name)")
    e.add_argument("--out", required=True, help="output folder (models/<identifier>/ inside)")
    e.add_argument("--region-layer-map", help="JSON object or file: region -> layer")
    e.add_argument("--zip", action="store_true", help="also write <identifier>.zip to submit")
    e.add_argument("--weights-url", help="URL the plugin downloads the weights from")
    e.add_argument("--sha256", help="sha256 of the weights when the card does not know it")
    e.add_argument("--identifier", help="Brain-Score registry name (default toponet_<name>)")
    e.add_argument("--overwrite", action="store_true", help="replace an existing plugin folder")
    s = bs.add_parser("score", help="score an exported plugin with brainscore-vision locally")
    s.add_argument("--plugin", required=True, help="plugin folder written by `export`")
    s.add_argument("--benchmark", help="folder written by write_brainscore_benchmark")
    s.add_argument("--responses", help="BrainResponses netCDF file (stimulus x voxel)")
    s.add_argument("--images", help="image folder; ids are file stems, categories folder names")
    s.add_argument("--python", help="Brain-Score env python (else $TOPONEURO_BRAINSCORE_PYTHON)")
    s.add_argument("--metrics", default="pls,ridge,rdm", help="comma-separated (pls,ridge,rdm)")
    s.add_argument("--regions", help="one region for all voxels (e.g. IT) or JSON roi -> region")
    s.add_argument("--work-dir", help="keep the files and result.json here")
    s.add_argument("--json", help="also write the score table as JSON here")
    s.add_argument("--no-toponeuro", action="store_true",
                   help="skip toponeuro's own scores (the 'toponeuro' column) on the same data")


def _json_arg(text):
    import json
    from pathlib import Path

    if text is None:
        return None
    path = Path(text)
    return json.loads(path.read_text() if path.is_file() else text)


def _image_stimuli(folder, ids):
    from pathlib import Path

    from .stimuli import IMAGE_EXTENSIONS, StimulusSet

    files = sorted(p for p in Path(folder).rglob("*") if p.suffix.lower() in IMAGE_EXTENSIONS)
    wanted = set(ids)
    chosen = [p for p in files if p.stem in wanted]
    print(f"{len(chosen)} of {len(files)} images in {folder} have responses")
    return StimulusSet([p.stem for p in chosen], [str(p) for p in chosen], "image",
                       categories=[p.parent.name for p in chosen], name=Path(folder).name)


def _run_brainscore(args) -> int:
    from types import SimpleNamespace

    from .brainscore import export_plugin, score_with_brainscore

    if args.brainscore_command == "export":
        if bool(args.model) == bool(args.card):
            print("toponeuro brainscore export: give a MODEL name or --card FILE", file=sys.stderr)
            return 2
        model = SimpleNamespace(**_json_arg(args.card)) if args.card else args.model
        plugin = export_plugin(
            model, args.out, region_layer_map=_json_arg(args.region_layer_map),
            make_zip=args.zip, weights_url=args.weights_url, identifier=args.identifier,
            sha256=args.sha256, overwrite=args.overwrite,
        )
        print(f"wrote {plugin.path} ({plugin.modality} plugin {plugin.identifier!r}); "
              f"regions -> layers: {plugin.region_layer_map}")
        if plugin.zip_path:
            print(f"submission archive: {plugin.zip_path}")
        return 0
    if args.brainscore_command == "score":
        import xarray as xr

        stimuli = responses = None
        if args.benchmark is None:
            if not (args.responses and args.images):
                print("toponeuro brainscore score: give --benchmark DIR, or --responses FILE "
                      "and --images DIR", file=sys.stderr)
                return 2
            responses = xr.load_dataarray(args.responses)
            stimuli = _image_stimuli(args.images, responses["stimulus_id"].values.astype(str))
        regions = args.regions
        if regions and regions.strip().startswith("{"):
            regions = _json_arg(regions)
        table = score_with_brainscore(
            args.plugin, stimuli, responses, benchmark=args.benchmark, python=args.python,
            metrics=tuple(m for m in args.metrics.split(",") if m), regions=regions,
            work_dir=args.work_dir, compare=None if args.no_toponeuro else "toponeuro",
        )
        print(table.to_string(index=False))
        if args.json:
            table.to_json(args.json, orient="records", indent=2)
        return 0
    print("toponeuro brainscore: give an action, export or score (see --help)", file=sys.stderr)
    return 2




#: sub-command name -> (add parser, run)
COMMANDS = {
    "train": (_add_train, _run_train),
    "extract": (_add_extract, _run_extract),
    "map": (_add_map, _run_map),
    "brainscore": (_add_brainscore, _run_brainscore),
}


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
    from .exceptions import ToponeuroError

    try:
        return COMMANDS[args.command][1](args)
    except ToponeuroError as err:  # typed errors name the fix: show the message, no traceback
        print(f"toponeuro {args.command}: error: {err}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
