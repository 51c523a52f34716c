"""``toponeuro train`` and ``toponeuro extract``."""

from __future__ import annotations

import argparse
import sys

from .._io.output import atomic_file, check_not_an_input, check_output_file
from .._util import dims as D
from ._checks import (
    _device,
    _input_path,
    _out_file,
    _out_folder,
)
from ._common import (
    _add_checkpoint_args,
    _add_no_progress,
    _model_args,
    _parser,
)


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
    p.__class__ = _TrainParser  # the [train] flags: added when train runs or shows its help
    p.add_argument("--recipe", help="recipe name (e.g. demo-smoke) or path to a .toml file "
                   "(required unless --list)")
    p.add_argument("--out", help="output folder (default: runs/<recipe name>)")
    # --steps, --seed, --device, --data: run_recipe's declared parameters (_TrainParser)
    p.add_argument("--no-resume", action="store_true",
                   help="start the same run over even if checkpoints exist")
    p.add_argument("--restart", action="store_true",
                   help="discard the run in --out even if another recipe made it, and start "
                   "over")
    _add_no_progress(p)
    p.add_argument("--list", action="store_true", help="list the recipes shipped with toponeuro")


#: the parameters of :func:`toponeuro.training.run_recipe` that are ``train``'s flags (the
#: recipe's values they replace; ``--epochs`` is TrainSchedule's)
_RUN_FLAGS = {"steps": "--steps", "seed": "--seed", "device": "--device", "data_path": "--data"}


def _train_settings() -> tuple:
    """The settings classes of :func:`toponeuro.training.train` whose fields are an image
    recipe's ``[train]`` keys, each set by its own flag."""
    from ..training import TrainRecords, TrainSchedule

    return TrainSchedule, TrainRecords


class _TrainParser(argparse.ArgumentParser):
    """The ``train`` parser. Its flags of an image recipe's ``[train]`` are built from the
    declarations of :class:`~toponeuro.training.TrainSchedule` and
    :class:`~toponeuro.training.TrainRecords`, and those of the recipe's values a run
    replaces (``--steps``, ``--seed``, ``--device``, ``--data``) from the declared parameters
    of :func:`~toponeuro.training.run_recipe` (:func:`complete`), which live in
    :mod:`toponeuro.training` and so import torch: they are added when ``train`` parses its
    arguments (also ``train --help``), not for every ``toponeuro`` command
    (:func:`toponeuro.cli.build_parser` adds them at once)."""

    _completed = False

    def complete(self) -> None:
        """Add the declared flags (once)."""
        if self._completed:
            return
        self._completed = True
        from ..training import run_recipe
        from ._settings import add_param_args, add_settings_args

        run = self.add_argument_group(
            "the recipe's values a run replaces",
            "each flag is the parameter of its name of toponeuro.training.run_recipe")
        add_param_args(run, run_recipe, _RUN_FLAGS, first="the recipe's")
        group = self.add_argument_group(
            "an image recipe's [train]",
            "each flag sets the recipe's key of its name (toponeuro.training.TrainSchedule, "
            "TrainRecords)")
        for cls in _train_settings():
            add_settings_args(group, cls, first="the recipe's train.{name}")

    def parse_known_args(self, args=None, namespace=None):
        self.complete()
        return super().parse_known_args(args, namespace)


def _train_flags(args) -> dict:
    """``{[train] key: value}`` of the flags given, checked as the settings object checks the
    recipe's values (a message names the field, ``schedule.lr``, which
    :func:`~._checks.cli_message` writes as ``--lr``). A flag's word for None gives the
    recipe's value for it (``--lr-schedule constant``: ``"constant"``) or, for a field whose
    default is None (``--log-every none``), None: the key is dropped from the recipe."""
    from ._settings import given_settings, none_given

    given = {}
    for cls in _train_settings():
        # a field's word for None (--lr-schedule constant, --log-every none) means None
        mine = none_given(cls, given_settings(args, cls))
        checked = cls(**mine)
        for name, value in mine.items():  # canonical (2.0 epochs: 2); None as the recipe
            f = cls.__dataclass_fields__[name]  # writes it, or no key
            given[name] = (getattr(checked, name) if value is not None else
                           None if f.default is None else f.metadata["recipe_none"][0])
    return given


def _image_recipe_only(given: dict, recipe: dict) -> None:
    """Refuse the ``[train]`` flags (but ``--epochs``: run_recipe's own) for a language
    recipe, whose ``[train]`` is another table."""
    from ..exceptions import InvalidDataError
    from ..training import LANGUAGE_KIND

    if recipe.get("kind") != LANGUAGE_KIND:
        return
    fields = {f: c.__dataclass_fields__[f] for c in _train_settings()
              for f in c.__dataclass_fields__}
    flags = " and ".join(fields[k].metadata["flag"] for k in given if k != "epochs")
    if flags:
        raise InvalidDataError(
            f"{flags} set an image recipe's [train]; {recipe.get('name', 'the recipe')!r} is "
            f"a language recipe: drop {flags} and set its [train] in the recipe file "
            "(--steps sets its length).")


def _run_train(args) -> int:
    from ..training import list_recipes, load_recipe, run_recipe

    if args.list:
        for name in list_recipes():
            print(name)
        return 0
    if not args.recipe:
        print("toponeuro train: give --recipe NAME|FILE (see --list)", file=sys.stderr)
        return 2
    from ._settings import given_params

    train = _train_flags(args)
    run = given_params(args, run_recipe, _RUN_FLAGS)  # checked by run_recipe's declarations
    out = _out_folder(args.out) if args.out else None
    if "device" in run:
        run["device"] = _device(run["device"])  # and by the hardware
    data = run.pop("data_path", None)
    if data is not None and data != "floc":
        _input_path(data, "--data", "an image folder with one sub-folder per class, or floc")
    recipe = load_recipe(args.recipe)
    _image_recipe_only(train, recipe)
    epochs = train.pop("epochs", None)  # run_recipe's own: it refuses it for a language recipe
    for key, value in train.items():  # None: the key dropped, the field's default None
        if value is None:
            recipe["train"].pop(key, None)
        else:
            recipe["train"][key] = value
    overrides = {k: v for k, v in {"epochs": epochs, **run}.items() if v is not None}
    result = run_recipe(
        recipe,
        out_dir=out,
        data_path=data,
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
    from .. import settings as S
    from ._settings import add_settings_args

    # declared once (toponeuro.settings); left out, extract's own keyword applies
    add_settings_args(p, S.LanguageUnits, only=("token_pooling",), defaults_of="toponeuro.extract")
    add_settings_args(p, S.Extraction, defaults_of="toponeuro.extract")
    _add_no_progress(p)
    p.add_argument("--store", help="folder for the resumable streaming store "
                   "(default: keep the activations in memory)")
    p.add_argument("--no-resume", action="store_true", help="ignore finished rows in --store")
    p.add_argument("--overwrite", action="store_true",
                   help="replace an existing --out file written by toponeuro (and a --store "
                   "file made with other settings); files toponeuro did not write are never "
                   "replaced")


def _extract_stimuli(args):
    from ..exceptions import InvalidDataError
    from ..stimuli import load_image_folder

    src = _input_path(args.stimuli, "--stimuli", "an image folder or a .txt file")
    if src.is_dir():
        how = args.category_from  # "auto" is load_image_folder's own rule
        return load_image_folder(src, None if how == "none" else how, ids=args.ids)
    if src.suffix == ".txt":
        return [line for line in src.read_text().splitlines() if line.strip()]
    raise InvalidDataError(
        f"--stimuli {src} is a {src.suffix or 'suffix-less'} file; give an image folder or a "
        ".txt file with one text per line."
    )


def _extraction(args) -> dict:
    """``extract``'s keywords of the declared flags given (``batch_size``, ``device``,
    ``token_pooling``), checked by their settings objects (a message names
    ``extraction.batch_size``, which :func:`~._checks.cli_message` writes as
    ``--batch-size``); a flag left out is not passed, so ``extract``'s own default applies."""
    from .. import settings as S
    from ._settings import given_settings

    given = given_settings(args, S.Extraction)
    checked = S.Extraction(**given)
    out = {k: getattr(checked, k) for k in given}
    out.update(given_settings(args, S.LanguageUnits))  # the parser's choices checked it
    return out


def _run_extract(args) -> int:
    from ..features import extract
    from ..training import load_model

    forward = _extraction(args)
    inputs = [args.stimuli, args.checkpoint]
    if args.store:
        (_out_file if args.store.endswith(".nc") else _out_folder)(args.store, "--store")
        check_not_an_input(args.store, param="store", inputs=inputs)
    out = check_output_file(args.out, param="out", inputs=[*inputs, args.store],
                            overwrite=args.overwrite, what="netCDF file of activations")
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
        store=args.store,
        resume=not args.no_resume,
        overwrite=args.overwrite,
        progress=not args.no_progress,
        **forward,
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    with atomic_file(out) as tmp:  # a kill mid-write leaves the earlier file, never half
        acts.to_netcdf(tmp, engine="h5netcdf")
    print(
        f"extracted {acts.sizes[D.STIMULUS]} stimuli x {acts.sizes[D.UNIT]} units from "
        f"{len(acts.topo.layers)} layer(s) of {args.model!r} -> {out}"
    )
    return 0


# --- map -------------------------------------------------------------------------------------
