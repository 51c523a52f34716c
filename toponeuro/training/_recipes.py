"""Training recipes: small TOML files that say exactly how a TopoNet was trained."""

from __future__ import annotations

import copy
import os
import tomllib
import warnings
from importlib import resources
from pathlib import Path

import torch

from .._util.constraints import MAPPING
from .._util.docs import fill_doc
from .._util.params import COUNT, NON_NEGATIVE_INT, Boolean, PathLike, Text, validate_params
from .._util.stack import user_stacklevel
from ..exceptions import ParameterError, RecipeError, UnknownNameError, close_matches
from ..topoloss import LayerSpec, TauSchedule, TopoLoss
from ._architectures import ARCHITECTURES, build_recipe_model
from ._data import image_folder_dataset, make_synthetic_images
from ._instances import InstanceImages, decode_image_folder
from ._language import LanguageTrainResult, _run_language
from ._schema import LANGUAGE_KIND, validate_language_recipe, validate_recipe
from ._settings import TrainData, TrainRecords, TrainSchedule
from ._train import TrainResult, _overridden, _run_folder, train

__all__ = [
    "run_language_recipe",
    "list_recipes",
    "load_recipe",
    "build_from_recipe",
    "run_recipe",
    "resolve_data_path",
    "ARCHITECTURES",
    "FLOC_PLACEHOLDER",
]



_REQUIRED = {"name": str, "seed": int, "model": dict, "data": dict, "train": dict}

#: ``data.path`` placeholder for the fLoc images: resolved by :func:`resolve_data_path`
FLOC_PLACEHOLDER = "floc"


@validate_params({"progress": Boolean()})
@fill_doc
def resolve_data_path(cfg: dict, *, progress: bool = False) -> str:
    """The folder an ``image_folder`` recipe reads, with the ``"floc"`` placeholder resolved.

    ``data.path = "floc"`` stands for the fLoc localizer images wherever this machine has
    them: ``$TOPONEURO_DATA/floc`` when that folder exists, else the pinned, sha256-verified
    download of the images the recipe uses (``categories`` and the ``numbers`` /
    ``val_numbers`` ranges) into the cache (see :func:`toponeuro.stimuli.load_floc`). Any
    other value is returned unchanged (``~`` expanded); ``--data`` / ``data_path=`` override
    it.

    Parameters
    ----------
    cfg : dict
        The recipe's ``[data]`` table.
    %(progress)s
        Here: of the fLoc download (default ``False``).

    Returns
    -------
    str
        The folder to read.

    Examples
    --------
    >>> resolve_data_path({"path": "~/images"}).endswith("images")
    True
    """
    path = cfg.get("path")
    if path != FLOC_PLACEHOLDER:
        return os.path.expanduser(path) if path else path
    from ..stimuli import load_floc, local_floc_copy

    local = local_floc_copy()
    if local is not None:
        return str(local)
    numbers: set[int] = set()
    for key in ("numbers", "val_numbers"):
        if cfg.get(key):
            first, last = cfg[key]
            numbers.update(range(int(first), int(last) + 1))
    stim = load_floc(
        categories=cfg.get("categories"), numbers=sorted(numbers) or None, progress=progress
    )
    # the cache keeps the repository layout: <root>/<category>/<category>-<N>.jpg
    return str(Path(stim.metadata["path"].iloc[0]).parent.parent)


def list_recipes() -> list[str]:
    """Names of the recipes shipped with toponeuro.

    Returns
    -------
    list of str
        The names, sorted (:func:`load_recipe` reads them).

    Examples
    --------
    >>> "demo-smoke" in list_recipes()
    True
    """
    folder = resources.files("toponeuro.training") / "recipes"
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".toml"))


@validate_params(dict(name_or_path=PathLike()))
def load_recipe(name_or_path: str | os.PathLike) -> dict:
    """Read and validate a recipe: a shipped name (``"demo-smoke"``) or a ``.toml`` path.

    Relative ``data.path`` entries of a file recipe are resolved against the file's folder.

    Parameters
    ----------
    name_or_path : str or path-like
        A shipped recipe's name (:func:`list_recipes`) or a TOML file.

    Returns
    -------
    dict
        The recipe, checked.

    Raises
    ------
    RecipeError
        The file is not valid TOML or a value is wrong; the message names it.
    UnknownNameError
        No such shipped recipe, or an unknown ``model.arch`` (close matches listed).

    Examples
    --------
    >>> r = load_recipe("demo-smoke")
    >>> r["name"], r["model"]["arch"], r["topoloss"]["tau"]
    ('demo-smoke', 'small_resnet', 1.0)
    """
    p = Path(name_or_path)
    if p.suffix == ".toml" or p.exists():
        if not p.is_file():
            raise RecipeError(f"Recipe file {p} does not exist.")
        try:
            text = p.read_text(encoding="utf-8")
        except UnicodeDecodeError as err:
            raise RecipeError(
                f"Recipe file {p} is not UTF-8 text ({err}); a recipe is a TOML file (see "
                "toponeuro/training/recipes/demo-smoke.toml for the layout)."
            ) from err
        base = p.resolve().parent
    else:
        names = list_recipes()
        if str(name_or_path) not in names:
            raise UnknownNameError(
                f"No recipe {str(name_or_path)!r}; {close_matches(str(name_or_path), names)} "
                "(or give a path to a .toml file)"
            )
        text = (resources.files("toponeuro.training") / "recipes" / f"{name_or_path}.toml").read_text()
        base = None
    try:
        recipe = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise RecipeError(f"Recipe {name_or_path} is not valid TOML: {err}") from err
    if recipe.get("kind") == LANGUAGE_KIND:  # a sentence encoder, see training/_language.py
        return validate_language_recipe(recipe, str(name_or_path))
    for key, typ in _REQUIRED.items():
        if not isinstance(recipe.get(key), typ):
            raise RecipeError(
                f"Recipe {name_or_path} needs a {typ.__name__} {key!r} (see "
                "toponeuro/training/recipes/demo-smoke.toml for the layout)."
            )
    arch = recipe["model"].get("arch")
    if arch not in ARCHITECTURES:
        raise UnknownNameError(
            f"Recipe {name_or_path}: unknown model.arch {arch!r}; "
            f"{close_matches(str(arch), ARCHITECTURES)}"
        )
    validate_recipe(recipe, str(name_or_path))
    data_path = recipe["data"].get("path")
    if (
        base is not None
        and data_path
        and data_path != FLOC_PLACEHOLDER
        and not os.path.isabs(os.path.expanduser(data_path))
    ):
        recipe["data"]["path"] = str((base / data_path).resolve())
    return recipe


def _dataset(cfg: dict, split: str):
    kind = cfg.get("kind")
    if kind == "synthetic":
        seed = int(cfg.get("seed", 0)) + (0 if split == "train" else 1)
        n = int(cfg.get("n_per_class", 16) if split == "train" else cfg.get("val_per_class", 0))
        if n == 0:
            return None
        return make_synthetic_images(
            int(cfg.get("n_classes", 4)), n, int(cfg.get("image_size", 32)), seed
        )
    if kind == "image_folder":
        if not cfg.get("path"):
            raise RecipeError(
                "data.kind = 'image_folder' needs data.path (or pass data_path=)."
            )
        numbers = cfg.get("numbers") if split == "train" else cfg.get("val_numbers")
        if split != "train" and numbers is None:
            return None
        return image_folder_dataset(
            resolve_data_path(cfg),
            image_size=int(cfg.get("image_size", 64)),
            numbers=tuple(numbers) if numbers else None,
            categories=cfg.get("categories"),
            grayscale=bool(cfg.get("grayscale", True)),
            augment=bool(cfg.get("augment", False)) and split == "train",
        )
    if kind == "floc_instances":
        return _instances(cfg, split)
    raise RecipeError(
        f"Unknown data.kind {kind!r}; use 'synthetic', 'image_folder' or 'floc_instances'."
    )


def _instances(cfg: dict, split: str):
    """Instance discrimination: every image of ``numbers`` is its own class.

    ``split="val"`` gives ``data.val_views`` fresh augmented views of the same training images
    (seeded by ``data.val_seed``): instance accuracy, not accuracy on new images.
    """
    if not cfg.get("path"):
        raise RecipeError(
            "data.kind = 'floc_instances' needs data.path (or pass data_path=)."
        )
    image_size = int(cfg.get("image_size", 32))
    decoded = decode_image_folder(
        resolve_data_path(cfg),
        int(cfg.get("decode_size", 2 * image_size)),
        categories=cfg.get("categories"),
        numbers=tuple(cfg["numbers"]) if cfg.get("numbers") else None,
    )
    ds = InstanceImages(
        decoded["images"],
        image_size,
        repeats=int(cfg.get("repeats", 1)),
        scale=tuple(cfg.get("scale", (0.35, 1.0))),
        ratio=tuple(cfg.get("ratio", (3 / 4, 4 / 3))),
        rotation=float(cfg.get("rotation", 15.0)),
        flip=bool(cfg.get("flip", True)),
        jitter=float(cfg.get("jitter", 0.2)),
    )
    if split == "train":
        return ds
    n_views = int(cfg.get("val_views", 1))
    return ds.views(n_views, seed=int(cfg.get("val_seed", 12345))) if n_views > 0 else None


@validate_params(dict(recipe=MAPPING, data_path=[PathLike(), None]))
def build_from_recipe(recipe: dict, data_path: str | None = None):
    """``(model, train_dataset, val_dataset, topoloss)`` for a recipe, model init seeded.

    Parameters
    ----------
    recipe : dict
        A recipe (:func:`load_recipe`); checked again (a dict may have been edited).
    data_path : str, optional
        Overrides ``data.path``.

    Returns
    -------
    model : torch.nn.Module
        The network, initialised with the recipe's seed.
    train_dataset : torch.utils.data.Dataset
        The training images.
    val_dataset : torch.utils.data.Dataset or None
        The validation images (``None`` when the recipe has none).
    topoloss : TopoLoss
        The recipe's TopoLoss on the model's layers.

    Examples
    --------
    >>> model, train_ds, val_ds, topo = build_from_recipe(load_recipe("demo-smoke"))
    >>> type(model).__name__, len(train_ds), len(val_ds), len(topo.specs)
    ('SmallResNet', 128, 32, 8)
    """
    recipe = copy.deepcopy(recipe)
    if data_path is not None:
        recipe["data"]["path"] = str(data_path)
    validate_recipe(recipe)  # dict recipes and overrides are checked too
    torch.manual_seed(int(recipe["seed"]))
    model, default_layers = build_recipe_model(recipe["model"])
    train_ds = _dataset(recipe["data"], "train")
    val_ds = _dataset(recipe["data"], "val")
    n_classes = getattr(train_ds, "n_classes", None)
    if n_classes is not None and n_classes != int(recipe["model"]["num_classes"]):
        raise RecipeError(
            f"Recipe {recipe['name']!r}: model.num_classes = {recipe['model']['num_classes']} "
            f"but the data has {n_classes} classes (instances); set model.num_classes = "
            f"{n_classes}."
        )
    topo = None
    tcfg = recipe.get("topoloss")
    if tcfg:
        layers = tcfg.get("layers", "topo")
        layers = default_layers if layers == "topo" else list(layers)
        tau = float(tcfg.get("tau", 1.0))
        specs = [
            LayerSpec(
                n,
                float(tcfg.get("factor_h", 2)),
                float(tcfg.get("factor_w", 2)),
                tau=tau if tau > 0 else None,  # τ = 0: logged, not optimised
                interpolation=tcfg.get("interpolation", "bilinear"),
                target=tcfg.get("target", "weight"),
            )
            for n in layers
        ]
        sched = TauSchedule.from_dict(tcfg["schedule"]) if tcfg.get("schedule") else None
        topo = TopoLoss(specs, sched)
        topo.validate(model)
    return model, train_ds, val_ds, topo


# the overrides' declarations and docstring entries are also `toponeuro train`'s flags
# (--epochs is TrainSchedule's): their type, help and default
@validate_params(dict(
    recipe=[MAPPING, PathLike()], out_dir=[PathLike(), None], data_path=[PathLike(), None],
    resume=Boolean(), restart=Boolean(), progress=Boolean(), device=[Text(), None],
    epochs=[COUNT, None], steps=[COUNT, None], seed=[NON_NEGATIVE_INT, None],
), prefer_skip_nested_validation=False)
def run_recipe(
    recipe: dict | str,
    out_dir: str | os.PathLike | None = None,
    *,
    data_path: str | None = None,
    resume: bool = True,
    restart: bool = False,
    progress: bool = True,
    epochs: int | None = None,
    steps: int | None = None,
    seed: int | None = None,
    device: str | None = None,
) -> TrainResult | LanguageTrainResult:
    """Train what a recipe describes; checkpoints go to ``out_dir`` (default ``runs/<name>``).

    The one way to run a recipe, of either kind: an image recipe trains a TopoNet
    (:func:`train`; returns :class:`TrainResult`), a ``language_distillation`` recipe
    fine-tunes a language model (returns :class:`LanguageTrainResult`). Rerunning into the
    same folder resumes after the last checkpoint; a folder holding a run of another recipe
    (or of other ``epochs`` / ``seed``) is refused with
    :class:`~toponeuro.exceptions.RecipeMismatchError` unless ``restart=True``, which
    discards that run and starts over (see :func:`train` for ``resume``, divergence and the
    ``run.json`` record). A folder holding files that are not a training run's is refused
    (:class:`~toponeuro.exceptions.OutputExistsError`), never written into.

    Parameters
    ----------
    recipe : dict or str
        A recipe (:func:`load_recipe`), or its name or TOML path.
    out_dir : path-like, optional
        Output folder (default ``runs/<name>``).
    data_path : str, optional
        The images to train on in place of the recipe's ``data.path``: an image folder with
        one sub-folder per class, or ``floc`` (a language recipe: its WordNet folder).
    resume, restart : bool
        Continue the run in ``out_dir`` (default), or discard it and start over.
    progress : bool
        Print one line per epoch (language: per logged step).
    epochs : int, optional
        Overrides an image recipe's ``train.epochs``.
    steps : int, optional
        Number of steps of a language recipe, in place of its ``train.steps`` (a longer run
        continues a shorter one).
    seed : int, optional
        Random seed of the run (the initial weights, the order and augmentation of the
        images), in place of the recipe's ``seed``.
    device : str, optional
        ``cpu``, ``cuda``, ``cuda:N`` or ``mps``, in place of the recipe's ``device`` (a
        recipe without one: ``cpu``).

    Returns
    -------
    TrainResult or LanguageTrainResult
        The trained model, its history and the files written.

    Raises
    ------
    ParameterError
        ``epochs`` for a language recipe (it counts steps) or ``steps`` for an image recipe.
    TrainingDivergedError
        The loss, a gradient or a trained weight became NaN or infinite; the message names
        the step, the learning rate and the last good checkpoint.

    Examples
    --------
    >>> import tempfile
    >>> r = load_recipe("demo-smoke")
    >>> r["data"].update(n_per_class=4, val_per_class=2, image_size=16)  # seconds -> a blink
    >>> res = run_recipe(r, tempfile.mkdtemp(), progress=False)
    >>> len(res.checkpoints), res.history[0]["epoch"]
    (1, 1)
    """
    if not isinstance(recipe, dict):
        recipe = load_recipe(recipe)
    language = recipe.get("kind") == LANGUAGE_KIND
    wrong, unit = ("epochs", "steps") if language else ("steps", "epochs")
    if (epochs if language else steps) is not None:
        raise ParameterError(
            f"Recipe {recipe.get('name', 'recipe')!r} is "
            f"{'a language' if language else 'an image'} recipe: it counts training in "
            f"{unit} (train.{unit}), not {wrong}; pass {unit}=N instead of {wrong}=N."
        )
    if language:
        recipe = _overridden(recipe, seed=seed, data_path=data_path, steps=steps)
        return _run_language(recipe, _run_folder(out_dir, recipe), resume=resume,
                             restart=restart, progress=progress, device=device)
    recipe = _overridden(recipe, seed=seed, data_path=data_path, epochs=epochs)
    model, train_ds, val_ds, topo = build_from_recipe(recipe)
    return train(
        model,
        TrainData(train_ds, val_ds, getattr(train_ds, "augment_batch", None)),
        topo,
        TrainSchedule.from_recipe(recipe),
        seed=int(recipe["seed"]),
        out_dir=_run_folder(out_dir, recipe),
        resume=resume,
        restart=restart,
        device=device or recipe.get("device", "cpu"),
        progress=progress,
        recipe=recipe,
        records=TrainRecords.from_recipe(recipe),
    )


@validate_params(dict(recipe=[MAPPING, PathLike()],
                      out_dir=[PathLike(), None]), prefer_skip_nested_validation=False)
def run_language_recipe(recipe, out_dir=None, **kwargs):
    """Deprecated: :func:`run_recipe` runs language recipes too (``steps=``).

    Kept for one release with a ``FutureWarning`` (the 0.2 deprecation rule); it calls
    :func:`run_recipe` with the same arguments.

    Parameters
    ----------
    recipe : dict or str
        As :func:`run_recipe`.
    out_dir : path-like, optional
        As :func:`run_recipe`.
    **kwargs
        Passed to :func:`run_recipe`.

    Returns
    -------
    LanguageTrainResult
        What :func:`run_recipe` returns.

    Examples
    --------
    >>> import tempfile, warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     res = run_language_recipe(load_recipe("lm-smoke"), tempfile.mkdtemp(), steps=1,
    ...                               progress=False)
    >>> caught[0].category.__name__, [h["step"] for h in res.history]
    ('FutureWarning', [1])
    """
    warnings.warn(
        "run_language_recipe is deprecated and will be removed in the next release; use "
        "run_recipe(recipe, out_dir, steps=...), which runs language recipes too.",
        FutureWarning, stacklevel=user_stacklevel(),
    )
    return run_recipe(recipe, out_dir, **kwargs)

