"""The ``toponeuro`` command line. Thin: it parses arguments and calls the public API.

Each sub-command is a pair ``_add_<name>(subparsers)`` / ``_run_<name>(args)`` registered in
:data:`COMMANDS`; heavy imports happen inside ``_run_*``.

Conventions (tested in ``tests/test_cli.py``): every option has help text and ``--help``
shows its default; one flag means one thing in every sub-command (``--model``, ``--stimuli``,
``--out``, ``--device``, ``--layers``), lists are space-separated; a typed toponeuro error
prints its message (with the library's parameter names turned into the flags that set them)
on one stderr line (:func:`~toponeuro._cli_checks.one_line`) and exits 1, never a
traceback; a bare ``toponeuro`` prints the help and exits 2.
"""

from __future__ import annotations

import argparse
import re
import sys
import warnings

from ._cli_checks import (
    _device,
    _flags,
    _input_path,
    _json_arg,
    _out_file,
    _out_folder,
    _positive,
    cli_message,
    one_line,
)
from ._output import atomic_file, check_not_an_input, check_output_file
from ._version import __version__

__all__ = ["main", "build_parser", "cli_message", "COMMANDS"]


class _HelpFormatter(argparse.HelpFormatter):
    """Appends ``(default: X)`` to an option's help unless the help already says its default."""

    def _get_help_string(self, action):
        text = action.help or ""
        library_default = getattr(action, "library_default", None)
        if library_default is not None:  # read from the library only when help is shown
            value, source = library_default()
            return f"{text} (default: {value:g}, {source})" if isinstance(
                value, float) else f"{text} (default: {value}, {source})"
        default = action.default
        if (
            "default" in text
            or default is None
            or default is False
            or default == argparse.SUPPRESS
            or action.required
            or not action.option_strings
            and action.nargs not in ("?", "*")
        ):
            return text
        if isinstance(default, (list, tuple)):
            default = " ".join(map(str, default))
        return f"{text} (default: {default})"


def _parser(sub, name, **kwargs):
    return sub.add_parser(name, formatter_class=_HelpFormatter, **kwargs)


def _warn(message: str) -> None:
    print(f"toponeuro: warning: {one_line(message)}", file=sys.stderr)


def _model_args(p, *, required: bool, positional: bool = False, default_help: str = "",
                need: str = "MODEL or --model is required"):
    """``--model NAME`` (and, where the command has one main argument, ``MODEL`` too).

    Returns the ``--model`` action (so a caller can attach a ``library_default``).
    """
    text = "registered model name arch.tag (see `toponeuro models`)" + default_help
    if positional:
        text += f" ({need})"
        p.add_argument("model_pos", nargs="?", metavar="MODEL",
                       help=f"{text}; same as --model")
    return p.add_argument("--model", required=required and not positional,
                          help=text + ("; same as MODEL" if positional else ""))


_DEVICE_HELP = "cpu, cuda or cuda:N"


def _add_no_progress(p) -> None:
    p.add_argument("--no-progress", action="store_true", help="hide progress bars")


def _add_forward_args(p, *, batch_size: int, per: str) -> None:
    """``--batch-size``, ``--device`` and ``--no-progress``: how a command runs the model."""
    p.add_argument("--batch-size", type=int, default=batch_size, help=f"{per} per forward pass")
    p.add_argument("--device", default="cpu", help=_DEVICE_HELP)
    _add_no_progress(p)


def _forward(args, device) -> dict:
    """What ``_add_forward_args`` parsed, as the library's keyword arguments."""
    return {"batch_size": args.batch_size, "device": device, "progress": not args.no_progress}


def _add_checkpoint_args(p) -> None:
    """``--checkpoint`` and ``--trust-checkpoint``: local weights instead of the released ones
    (read by :func:`toponeuro.training.load_trained_model`, in every command alike)."""
    p.add_argument("--checkpoint",
                   help="a checkpoint from `toponeuro train`, or a state dict for --model "
                   "(default: the model's released weights)")
    p.add_argument("--trust-checkpoint", action="store_true",
                   help="allow checkpoints that pickle arbitrary objects (runs their code)")


def _library_default(action, value_and_source) -> None:
    """Show a default that the library defines (read lazily: only when help is printed).

    The option itself defaults to ``None`` and is then not passed on, so the library's own
    default applies: the CLI cannot drift from it.
    """
    action.library_default = value_and_source


def _run_map_default(name: str):
    import inspect

    from .reporting import run_map

    return inspect.signature(run_map).parameters[name].default


def _model_of(args, command: str):
    pos = getattr(args, "model_pos", None)
    if pos and args.model and pos != args.model:
        from .exceptions import InvalidDataError

        raise InvalidDataError(
            f"toponeuro {command}: MODEL {pos!r} and --model {args.model!r} differ; give one."
        )
    return pos or args.model


# --- train -------------------------------------------------------------------------------------
def _add_train(sub):
    p = _parser(
        sub,
        "train",
        help="train a small TopoNet from a recipe (cross-entropy + TopoLoss)",
        description="Train a TopoNet from a recipe: a TOML file or the name of a recipe shipped "
        "with toponeuro (see --list). Checkpoints are written after every epoch; rerunning the "
        "same command resumes from the last one. A run stops at the first NaN or infinite loss "
        "or gradient, naming the step, the learning rate and the last good checkpoint. The "
        "output folder records its recipe (run.json): a rerun with another recipe is refused "
        "unless --restart.",
    )
    p.add_argument("--recipe", help="recipe name (e.g. demo-smoke) or path to a .toml file "
                   "(required unless --list)")
    p.add_argument("--out", help="output folder (default: runs/<recipe name>)")
    p.add_argument("--epochs", type=int, help="number of epochs of an image recipe (default: "
                   "the recipe's)")
    p.add_argument("--steps", type=int, help="number of steps of a language recipe (default: "
                   "the recipe's)")
    p.add_argument("--seed", type=int, help="random seed (default: the recipe's)")
    p.add_argument("--device", help=f"{_DEVICE_HELP} (default: the recipe's, else cpu)")
    p.add_argument("--data", help="image folder to train on (default: the recipe's data path)")
    p.add_argument("--no-resume", action="store_true",
                   help="start the same run over even if checkpoints exist")
    p.add_argument("--restart", action="store_true",
                   help="discard the run in --out even if another recipe made it, and start "
                   "over")
    _add_no_progress(p)
    p.add_argument("--list", action="store_true", help="list the recipes shipped with toponeuro")


def _run_train(args) -> int:
    from .exceptions import RecipeError
    from .training import list_recipes, load_recipe, run_recipe

    if args.list:
        for name in list_recipes():
            print(name)
        return 0
    if not args.recipe:
        print("toponeuro train: give --recipe NAME|FILE (see --list)", file=sys.stderr)
        return 2
    _positive(args.epochs, "--epochs", RecipeError)
    _positive(args.steps, "--steps", RecipeError)
    out = _out_folder(args.out) if args.out else None
    device = _device(args.device)
    if args.data is not None and args.data != "floc":
        _input_path(args.data, "--data", "an image folder with one sub-folder per class, or floc")
    recipe = load_recipe(args.recipe)
    overrides = {
        k: v for k, v in {"epochs": args.epochs, "steps": args.steps, "seed": args.seed,
                          "device": device}.items()
        if v is not None
    }
    result = run_recipe(
        recipe,
        out_dir=out,
        data_path=args.data,
        resume=not args.no_resume,
        restart=args.restart,
        progress=not args.no_progress,
        **overrides,
    )
    if hasattr(result, "summary"):  # a language recipe (toponeuro/training/_language.py)
        print(result.summary())
        return 0
    last = result.history[-1]
    print(
        f"trained {recipe['name']!r}: {len(result.history)} epoch(s), final train accuracy "
        f"{last['train_accuracy']:.3f}, topo loss {last['topo_loss']:.4f}; checkpoints in "
        f"{result.out_dir}"
    )
    return 0


# --- extract ---------------------------------------------------------------------------------
def _add_extract(sub):
    p = _parser(
        sub,
        "extract",
        help="extract sheet-organised activations of a model for stimuli",
        description="Run stimuli through a registered model and save the activations of the "
        "chosen layers (one unit per channel / neuron, laid out on cortical sheets) as netCDF. "
        "Images are found recursively; each keeps its id (the file name without suffix, or "
        "with --ids path its path in the folder) and its category (its sub-folder), so the "
        "output joins brain data by stimulus id. With --store, rows stream to disk and an "
        "interrupted run resumes.",
    )
    _model_args(p, required=True)
    _add_checkpoint_args(p)
    p.add_argument("--stimuli", required=True,
                   help="a folder of images (searched recursively) or a .txt file with one "
                   "text per line")
    p.add_argument("--ids", default="stem", choices=["stem", "path"],
                   help="image ids: the file name without suffix, or the path in the folder")
    p.add_argument("--category-from", default="auto", choices=["auto", "folder", "prefix", "none"],
                   help="image categories: the sub-folder, the file name's prefix "
                   "(house-12.jpg -> house) or none; auto: sub-folders if the images are in "
                   "sub-folders, else none")
    p.add_argument("--layers", nargs="+", default=["topo"],
                   help="module names (see `toponeuro layers MODEL`), or topo for the card's "
                   "TopoLoss layers")
    p.add_argument("--out", required=True,
                   help="output netCDF file (.nc); never one of the inputs or inside --stimuli")
    p.add_argument("--pooling", default="mean", choices=["mean", "max", "center", "none"],
                   help="spatial pooling of conv feature maps (none keeps every unit)")
    p.add_argument("--token-pooling", default="mean", choices=["mean", "first", "last"],
                   help="pooling over tokens of transformer layers")
    _add_forward_args(p, batch_size=32, per="stimuli")
    p.add_argument("--store", help="folder for the resumable streaming store "
                   "(default: keep the activations in memory)")
    p.add_argument("--no-resume", action="store_true", help="ignore finished rows in --store")
    p.add_argument("--overwrite", action="store_true",
                   help="replace an existing --out file written by toponeuro (and a --store "
                   "file made with other settings); files toponeuro did not write are never "
                   "replaced")


def _extract_stimuli(args):
    from .exceptions import InvalidDataError
    from .stimuli import load_image_folder

    src = _input_path(args.stimuli, "--stimuli", "an image folder or a .txt file")
    if src.is_dir():
        how = args.category_from
        if how == "auto":
            how = "folder" if any(p.is_dir() and not p.name.startswith(".")
                                  for p in src.iterdir()) else "none"
        return load_image_folder(src, None if how == "none" else how, ids=args.ids)
    if src.suffix == ".txt":
        return [line for line in src.read_text().splitlines() if line.strip()]
    raise InvalidDataError(
        f"--stimuli {src} is a {src.suffix or 'suffix-less'} file; give an image folder or a "
        ".txt file with one text per line."
    )


def _run_extract(args) -> int:
    from .features import extract
    from .training import load_model

    _positive(args.batch_size, "--batch-size")
    inputs = [args.stimuli, args.checkpoint]
    if args.store:
        (_out_file if args.store.endswith(".nc") else _out_folder)(args.store, "--store")
        check_not_an_input(args.store, param="store", inputs=inputs)
    out = check_output_file(args.out, param="out", inputs=[*inputs, args.store],
                            overwrite=args.overwrite, what="netCDF file of activations")
    device = _device(args.device)
    stimuli = _extract_stimuli(args)
    if args.checkpoint is not None:
        _input_path(args.checkpoint, "--checkpoint", "a checkpoint file")
    model = load_model(args.model, checkpoint=args.checkpoint,
                       trust_checkpoint=args.trust_checkpoint)
    acts = extract(
        model,
        stimuli,
        args.layers if args.layers != ["topo"] else "topo",
        pooling=None if args.pooling == "none" else args.pooling,
        token_pooling=args.token_pooling,
        store=args.store,
        resume=not args.no_resume,
        overwrite=args.overwrite,
        **_forward(args, device),
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    with atomic_file(out) as tmp:  # a kill mid-write leaves the earlier file, never half
        acts.to_netcdf(tmp, engine="h5netcdf")
    print(
        f"extracted {acts.sizes['stimulus']} stimuli x {acts.sizes['unit']} units from "
        f"{len(acts.topo.layers)} layer(s) of {args.model!r} -> {out}"
    )
    return 0


# --- map -------------------------------------------------------------------------------------
def _numbers(text: str):
    """``--images``: fLoc numbers read by the library's one reader (``all`` -> None)."""
    from .exceptions import InvalidDataError
    from .stimuli import floc_numbers

    try:
        return floc_numbers(text)
    except InvalidDataError as err:
        raise argparse.ArgumentTypeError(cli_message(str(err), {})) from None


def _images_arg(text: str):
    return "all" if text.strip() == "all" else _numbers(text)


def _add_map(sub):
    p = _parser(
        sub,
        "map",
        help="map a model's category-selective topography and compare it with the cortex",
        description="Extract sheet activations for the fLoc localizer images, compute the five "
        "domain selectivity maps (faces, bodies, places, characters, objects), their "
        "smoothness, patches and similarities, compare them with the visfAtlas ROIs on "
        "fsaverage5, and write report.html, PNG figures, results.nc and summary.json. "
        "Offline, give a local fLoc copy with --stimuli DIR. With --language: the same for a "
        "language model, the Fedorenko et al. (2010) localizer and the language parcels.",
    )
    p.add_argument("--language", action="store_true",
                   help="map a language model's language-selective units (S vs N, TopoLM's "
                   "definitions) against the cortex's language parcels "
                   "(toponeuro.run_language_map; default model "
                   "toponeuro.reporting.DEFAULT_LANGUAGE_MODEL, --stimuli a localizer csv)")
    model = _model_args(p, required=False)
    _library_default(model, lambda: (_default_map_model(),
                                     "the shipped demo TopoNet, toponeuro.reporting.DEFAULT_MAP_MODEL"))
    _add_checkpoint_args(p)
    p.add_argument("--stimuli", default=None,
                   help="floc ($TOPONEURO_DATA/floc, else the pinned download) or a local fLoc "
                   "folder with one sub-folder per category; with --language: langloc (the "
                   "pinned localizer csv, cached) or a local csv with columns sentence, "
                   "condition (default: floc; with --language langloc)")
    p.add_argument("--images", type=_images_arg, default=None,
                   help="fLoc image numbers of each category, a range like 97-120 or all "
                   "(default: with --stimuli floc 97-120, the images held out from the demo "
                   "TopoNets' training; with --stimuli DIR every image in DIR, and the report says which "
                   "of them the model was trained on)")
    p.add_argument("--layers", nargs="+",
                   help="layers to map (default: the model's last three TopoLoss layers)")
    p.add_argument("--out", default=None,
                   help="output folder (default: toponeuro-map; with --language "
                   "toponeuro-language-map); written aside and moved into place when "
                   "complete, so an interrupted run leaves an earlier output as it was")
    p.add_argument("--overwrite", action="store_true",
                   help="replace an earlier toponeuro output in --out (a folder toponeuro did "
                   "not write is never replaced)")
    _library_default(
        p.add_argument("--threshold", type=float,
                       help="patch threshold on the selectivity t, after TDANN's smoothing"),
        lambda: (_run_map_default("threshold"),
                 "TDANN's threshold, toponeuro.analysis.TDANN_PATCHES['threshold']"))
    _library_default(
        p.add_argument("--permutations", type=int,
                       help="draws of the spatial null of every model statistic (smoothness, "
                       "patches, map similarity); 0 skips the nulls"),
        lambda: (_run_map_default("n_permutations"), "toponeuro.run_map's n_permutations"))
    _library_default(
        p.add_argument("--alpha", type=float,
                       help="significance level: only patches with p <= alpha are reported"),
        lambda: (_run_map_default("alpha"), "toponeuro.run_map's alpha"))
    p.add_argument("--cortex-maps", metavar="DOMAIN=PATH,...",
                   help="your own cortical maps in place of the visfAtlas: "
                   "faces=lh.faces.gii:rh.faces.gii (GIFTI or MGH per hemisphere on fsaverage5 "
                   "or fsaverage, left first) or faces=faces_mni.nii.gz (an MNI volume, "
                   "projected with nilearn's vol_to_surf), comma-separated per domain "
                   "(default: the visfAtlas ROIs, each as its geodesic proximity)")
    p.add_argument("--vol-to-surf", metavar="JSON",
                   help='vol_to_surf parameters for NIfTI --cortex-maps, e.g. \'{"radius": 2}\' '
                   "(default: radius 3 mm, linear interpolation; recorded in summary.json)")
    p.add_argument("--cortex-threshold", type=float,
                   help="patch threshold of --cortex-maps, in their units (default: --threshold)")
    p.add_argument("--no-random-init", dest="random_init_baseline", action="store_false",
                   help="skip the random-initialisation baseline. By default the same "
                   "architecture with untrained (re-drawn) weights is mapped too, a second "
                   "extraction and its nulls, and its map similarities stand beside the "
                   "trained ones: the selectivity contrast builds in an anti-correlation "
                   "between domains' maps, and the baseline shows how much of a similarity "
                   "that alone gives. Without it that is lost, and the report says the "
                   "baseline was not computed")
    _add_forward_args(p, batch_size=64, per="images")
    p.add_argument("--seed", type=int, default=0, help="seed of the spatial nulls")


def _default_map_model() -> str:
    from .reporting import DEFAULT_MAP_MODEL

    return DEFAULT_MAP_MODEL


def _run_language_map(args) -> int:
    from .exceptions import InvalidDataError
    from .reporting import DEFAULT_LANGUAGE_MODEL, run_language_map

    given = [f for f, v in (("--images", args.images), ("--threshold", args.threshold),
                            ("--no-random-init", not args.random_init_baseline)) if v]
    if given:
        raise InvalidDataError(
            f"{' and '.join(given)} belong to the fLoc map; with --language the items are the "
            "localizer's, the patch threshold is the Benjamini-Hochberg t and there is no "
            f"random-initialisation baseline. Drop {' and '.join(given)}.")
    out = _out_folder(args.out or "toponeuro-language-map")
    device = _device(args.device)
    _positive(args.batch_size, "--batch-size")
    if args.checkpoint is not None:
        _input_path(args.checkpoint, "--checkpoint", "a checkpoint file")
    stimuli = args.stimuli or "langloc"
    if stimuli != "langloc":
        _input_path(stimuli, "--stimuli", "'langloc' or a localizer csv")
    library_defaults = {"n_permutations": args.permutations, "alpha": args.alpha}
    run_language_map(
        args.model or DEFAULT_LANGUAGE_MODEL, checkpoint=args.checkpoint,
        trust_checkpoint=args.trust_checkpoint, stimuli=stimuli, layers=args.layers,
        out_dir=out, overwrite=args.overwrite, random_state=args.seed, **_forward(args, device),
        **{k: v for k, v in library_defaults.items() if v is not None})
    return 0


def _run_map(args) -> int:
    from .exceptions import TrainingImagesWarning
    from .reporting import DEFAULT_MAP_MODEL, run_map

    if args.language:
        return _run_language_map(args)
    args.stimuli = args.stimuli or "floc"
    out = _out_folder(args.out or "toponeuro-map")
    device = _device(args.device)
    _positive(args.batch_size, "--batch-size")
    library_defaults = {  # None: not given, run_map's own default applies
        "threshold": args.threshold, "n_permutations": args.permutations, "alpha": args.alpha}
    if args.checkpoint is not None:
        _input_path(args.checkpoint, "--checkpoint", "a checkpoint file")
    if args.stimuli != "floc":
        _input_path(args.stimuli, "--stimuli", "'floc' or a folder of fLoc images")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", TrainingImagesWarning)
        run_map(
            args.model or DEFAULT_MAP_MODEL,
            checkpoint=args.checkpoint,
            trust_checkpoint=args.trust_checkpoint,
            stimuli=args.stimuli,
            numbers=args.images,
            layers=args.layers,
            out_dir=out,
            overwrite=args.overwrite,
            random_state=args.seed,
            cortex_maps=args.cortex_maps,
            **_forward(args, device),
            vol_to_surf=_json_arg(args.vol_to_surf, "--vol-to-surf",
                                  example='{"radius": 2}'),
            cortex_threshold=args.cortex_threshold,
            random_init_baseline=args.random_init_baseline,
            **{k: v for k, v in library_defaults.items() if v is not None},
        )
    for w in caught:  # said in flags, last, after the summary
        if issubclass(w.category, TrainingImagesWarning):
            _warn(cli_message(str(w.message), {}))
        else:
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    return 0


# --- models, layers --------------------------------------------------------------------------
def _text_table(table, numeric=()) -> str:
    cols = [str(c) for c in table.columns]
    cells = [cols] + [["-" if _missing(v) else str(v) for v in row]
                      for row in table.itertuples(index=False)]
    widths = [max(len(r[i]) for r in cells) for i in range(len(cols))]
    return "\n".join(
        "  ".join(c.rjust(w) if name in numeric else c.ljust(w)
                  for c, w, name in zip(r, widths, cols)).rstrip()
        for r in cells
    )


def _missing(value) -> bool:
    import pandas as pd

    return value is None or (not isinstance(value, (tuple, list)) and bool(pd.isna(value)))


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
    from .models import WEIGHTS_STATUSES, describe_models

    table = describe_models(args.pattern)
    if table.empty:
        from .exceptions import UnknownNameError

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
    from .models import list_layers

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
def _add_brainscore(sub):
    p = _parser(
        sub,
        "brainscore",
        help="export a TopoNet as a Brain-Score plugin; score it locally with Brain-Score",
        description="Brain-Score integration. `export` writes a self-contained plugin folder "
        "(and --zip, the archive the Brain-Score website takes); `score` runs brainscore-vision "
        "itself (in its own environment, offline) on your stimuli and brain responses.",
    )
    bs = p.add_subparsers(dest="brainscore_command", metavar="ACTION")
    e = _parser(bs, "export", help="write models/<identifier>/ for brainscore-vision/-language",
                description="Write a Brain-Score plugin folder for a registered model (or a "
                "card given as JSON).")
    _model_args(e, required=False, positional=True,
                need="MODEL, --model or --card is required")
    e.add_argument("--card", help="JSON file of ModelCard fields (required instead of a model "
                   "name when the model is not registered)")
    e.add_argument("--out", required=True, help="output folder (models/<identifier>/ inside)")
    e.add_argument("--region-layer-map",
                   help="JSON object or file: region -> layer (default: chosen from the card)")
    e.add_argument("--zip", action="store_true", help="also write <identifier>.zip to submit")
    e.add_argument("--weights-url",
                   help="URL the plugin downloads the weights from (default: the card's)")
    e.add_argument("--sha256", help="sha256 of the weights, 64 hex digits (default: the card's)")
    e.add_argument("--identifier", help="Brain-Score registry name (default: toponet_<name>)")
    e.add_argument("--overwrite", action="store_true", help="replace an existing plugin folder")
    s = _parser(bs, "score", help="score an exported plugin with brainscore-vision locally",
                description="Score an exported plugin with brainscore-vision's own metrics on "
                "your stimuli and responses (or a benchmark folder), next to toponeuro's "
                "scores of the same data.")
    s.add_argument("--plugin", required=True, help="plugin folder written by `export`")
    s.add_argument("--metrics", nargs="+", default=["pls", "ridge", "rdm"],
                   choices=["pls", "ridge", "rdm"], metavar="METRIC",
                   help="metrics to run: pls ridge rdm")
    for flag, text in [
        ("--benchmark", "folder written by write_brainscore_benchmark (default: build one from "
         "--responses and --stimuli)"),
        ("--responses", "BrainResponses netCDF file (stimulus x voxel); required without "
         "--benchmark"),
        ("--stimuli", "image folder (recursive); ids are file names without suffix, categories "
         "their sub-folders; required without --benchmark"),
        ("--python", "python of the Brain-Score environment (default: "
         "$TOPONEURO_BRAINSCORE_PYTHON)"),
        ("--regions", "one region for all voxels (e.g. IT) or a JSON object roi -> region "
         "(default: each voxel's roi coord, by toponeuro's ROI table)"),
        ("--work-dir", "keep the files and result.json here (default: a temporary folder)"),
        ("--json", "also write the score table as JSON to this file (default: print it only)"),
    ]:
        s.add_argument(flag, help=text)
    s.add_argument("--no-toponeuro", action="store_true",
                   help="skip toponeuro's own scores (the 'toponeuro' column) on the same data")


def _sha256_arg(text):
    if text is None:
        return None
    if not re.fullmatch(r"[0-9a-fA-F]{64}", text.strip()):
        from .exceptions import InvalidDataError

        raise InvalidDataError(
            f"--sha256 {text!r} is not a sha256 digest: expected 64 hex digits, got "
            f"{len(text.strip())} characters. Compute it with `sha256sum FILE`."
        )
    return text.strip().lower()


def _run_brainscore(args) -> int:
    from types import SimpleNamespace

    from .brainscore import export_plugin, score_with_brainscore

    if args.brainscore_command == "export":
        model = _model_of(args, "brainscore export")
        if bool(model) == bool(args.card):
            print("toponeuro brainscore export: give a MODEL name or --card FILE", file=sys.stderr)
            return 2
        out = _out_folder(args.out)
        sha = _sha256_arg(args.sha256)
        rlm = _json_arg(args.region_layer_map, "--region-layer-map")
        if args.card:
            fields = _json_arg(args.card, "--card", allow_inline=False,
                               example='{"name": "my_net.tau_5", "arch": "resnet18", ...}')
            absent = [k for k in ("name", "arch") if k not in fields]
            if absent:
                from .exceptions import InvalidDataError

                raise InvalidDataError(
                    f"--card {args.card} lacks the ModelCard fields {absent}; it needs at least "
                    "name and arch (and where the weights are: hub_repo and filename, or "
                    "--weights-url)."
                )
            model = SimpleNamespace(**fields)
        plugin = export_plugin(
            model, out, region_layer_map=rlm, make_zip=args.zip, weights_url=args.weights_url,
            identifier=args.identifier, sha256=sha, overwrite=args.overwrite,
        )
        print(f"wrote {plugin.path} ({plugin.modality} plugin {plugin.identifier!r}); "
              f"regions -> layers: {plugin.region_layer_map}")
        if plugin.zip_path:
            print(f"submission archive: {plugin.zip_path}")
        return 0
    if args.brainscore_command == "score":
        import numpy as np
        import xarray as xr

        from .stimuli import load_image_folder

        stimuli = responses = None
        _input_path(args.plugin, "--plugin", "a plugin folder written by `export`")
        if args.benchmark is None:
            if not (args.responses and args.stimuli):
                print("toponeuro brainscore score: give --benchmark DIR, or --responses FILE "
                      "and --stimuli DIR", file=sys.stderr)
                return 2
            resp = _input_path(args.responses, "--responses", "a BrainResponses netCDF file")
            folder = _input_path(args.stimuli, "--stimuli", "an image folder")
            responses = xr.load_dataarray(resp)
            found = load_image_folder(folder, "folder", ids="stem")
            keep = np.isin(found.ids, responses["stimulus_id"].values.astype(str))
            stimuli = found[keep]
            print(f"{len(stimuli)} of {len(found)} images in {folder} have responses")
        else:
            _input_path(args.benchmark, "--benchmark", "a benchmark folder")
        if args.json:
            _out_file(args.json, "--json")
        regions = args.regions
        if regions and regions.strip().startswith("{"):
            regions = _json_arg(regions, "--regions", example='{"FFA": "IT", "V1v": "V1"}')
        table = score_with_brainscore(
            args.plugin, stimuli, responses, benchmark=args.benchmark, python=args.python,
            metrics=tuple(dict.fromkeys(args.metrics)), regions=regions,
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
    "models": (_add_models, _run_models),
    "layers": (_add_layers, _run_layers),
    "brainscore": (_add_brainscore, _run_brainscore),
}


def build_parser() -> argparse.ArgumentParser:
    """The ``toponeuro`` argument parser, one sub-parser per entry of :data:`COMMANDS`.

    Examples
    --------
    >>> args = build_parser().parse_args(["map", "--images", "97-99", "--layers", "fc"])
    >>> args.command, args.images, args.layers, args.stimuli  # stimuli: the job's default
    ('map', [97, 98, 99], ['fc'], None)
    """
    parser = argparse.ArgumentParser(
        prog="toponeuro",
        description="Compare topographic neural networks (TopoNets) with the human brain.",
        formatter_class=_HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"toponeuro {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for add, _ in COMMANDS.values():
        add(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run ``toponeuro`` with ``argv`` (default ``sys.argv[1:]``) and return the exit status.

    0: done; 1: a typed error (its message, with flags for parameter names, on stderr; no
    traceback); 2: a usage error, or no command (the help goes to stderr); 130: interrupted.

    Examples
    --------
    >>> main(["layers", "toponet_demo.v2_tau_0", "--topo"])  # doctest: +ELLIPSIS
    layer           type            output_shape  n_units  sheet_shape  topo
    layer1.0.conv1  Conv2d          32x16x16           32  4x8          yes
    ...
    0
    >>> main(["extract", "--model", "toponet_demo.v2_tau_0", "--stimuli", "absent/", "--out", "a.nc"])
    1
    """
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv:
        parser.print_help(sys.stderr)
        return 2
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    from .exceptions import ToponeuroError

    try:
        return COMMANDS[args.command][1](args)
    except (ToponeuroError, OSError) as err:  # the message names the fix: no traceback
        command = args.command
        if getattr(args, "brainscore_command", None):
            command += f" {args.brainscore_command}"
        message = cli_message(one_line(str(err)), _flags(parser, args.command))
        print(f"toponeuro {command}: error: {message}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"toponeuro {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
