"""A training run's folder: what it trains (its identity, ``run.json``) and when a rerun
resumes it, is refused or starts over.

:func:`run_identity` is what determines a run's weights; :func:`_open_run` prepares the
folder of a run of either kind (:func:`~toponeuro.training.train`'s images, the language
distillation's), described by its :class:`_RunLayout`: it reads the run recorded there,
refuses one of another identity (unless ``restart``) and a folder of someone else's files,
and records this run.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from torch import nn

from .._io.output import check_writable, link_target, refuse_link, write_text
from .._util import params as P
from .._util.constraints import MAPPING, TorchModule
from .._version import __version__
from ..exceptions import OutputExistsError, OutputPathError, RecipeMismatchError
from ..topoloss import TopoLoss

__all__ = ["run_identity"]

#: the file that marks a folder as a toponeuro training run and records what it trains
RUN_FILE = "run.json"
_RUN_FORMAT = "toponeuro.training-run"


def _normalised(obj):
    """``obj`` as it reads back from JSON (tuples -> lists, other objects -> str)."""
    return json.loads(json.dumps(obj, sort_keys=True, default=str))


def _strip_recipe(recipe: dict | None):
    """A recipe without what does not change the weights (device, description, logging)."""
    if recipe is None:
        return None
    rec = _normalised(recipe)
    for key in ("device", "description"):
        rec.pop(key, None)
    if isinstance(rec.get("train"), dict):
        for key in ("log_every", "keep_checkpoints"):
            rec["train"].pop(key, None)
    return rec


def _sha256(obj) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True).encode()).hexdigest()


@P.validate_params(dict(
    model=TorchModule(),
    topoloss=[P.InstanceOf(TopoLoss, "a toponeuro.topoloss.TopoLoss"), None],
    recipe=[MAPPING, None],
))
def run_identity(model: nn.Module, topoloss: TopoLoss | None = None, recipe: dict | None = None,
                 **settings) -> dict:
    """What determines a run's weights: the recipe, the training settings, the TopoLoss and
    the model's parameter shapes (as JSON data), with their sha256 (``"sha256"``).

    :func:`train` writes it to ``<out_dir>/run.json`` and refuses to resume a folder whose
    run has another identity. The device, the description and logging options are left out:
    they do not change the weights.

    Parameters
    ----------
    model : torch.nn.Module
        The network to be trained (its parameter shapes count).
    topoloss : TopoLoss, optional
        Its specs and schedule count (``None``: trained without TopoLoss).
    recipe : dict, optional
        The recipe the run comes from.
    **settings
        The training settings of :func:`train` that change the weights (epochs, batch size,
        learning rate, seed ...).

    Returns
    -------
    dict
        JSON data: ``model``, ``topoloss``, ``settings``, ``recipe``, the recipe's
        ``recipe_sha256`` and the whole identity's ``sha256``.

    Examples
    --------
    >>> a = run_identity(nn.Linear(2, 3), lr=0.1, seed=0)
    >>> b = run_identity(nn.Linear(2, 3), lr=0.2, seed=0)
    >>> len(a["sha256"]), a["sha256"] == b["sha256"], a["settings"]["lr"]
    (64, False, 0.1)
    """
    return _identity(
        {"class": type(model).__name__,
         "shapes": {k: list(v.shape) for k, v in model.state_dict().items()}},
        topoloss.to_dict() if topoloss is not None else None, recipe, settings)


def _identity(model: dict | None, topoloss: dict | None, recipe: dict | None,
              settings: dict) -> dict:
    """A run identity from its parts as JSON data, with its sha256 (see :func:`run_identity`)."""
    ident = _normalised({"model": model, "topoloss": topoloss, "settings": dict(settings),
                         "recipe": _strip_recipe(recipe)})
    ident["recipe_sha256"] = _sha256(ident["recipe"]) if recipe is not None else None
    ident["sha256"] = _sha256({k: v for k, v in ident.items() if k != "recipe_sha256"})
    return ident


def _differences(old, new, prefix="") -> list[str]:
    """``key: old -> new`` for every leaf where two JSON-like values differ."""
    if isinstance(old, dict) and isinstance(new, dict):
        out = []
        for k in sorted(set(old) | set(new)):
            out += _differences(old.get(k), new.get(k), f"{prefix}{k}.")
        return out
    return [] if old == new else [f"{prefix[:-1]}: {old!r} -> {new!r}"]


def _read_run_file(path: Path) -> dict:
    try:
        data = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise OutputExistsError(
            f"{path} is not a toponeuro run record ({err}); it is not replaced. Move it away "
            "or give another out_dir=."
        ) from err
    if not isinstance(data, dict) or data.get("format") != _RUN_FORMAT:
        raise OutputExistsError(
            f"{path} was not written by toponeuro train (no format {_RUN_FORMAT!r}); it is not "
            "replaced. Move it away or give another out_dir=."
        )
    return data


@dataclass(frozen=True)
class _RunLayout:
    """What one kind of training run writes into its folder.

    ``written``: glob patterns (relative to the folder) of every file the run writes, besides
    ``run.json``; their first parts are the only names a run folder holds. ``checkpoints``:
    the run's checkpoints in a folder, newest last. ``legacy``: the recorded identity of a run
    without ``run.json`` (toponeuro 0.2), read from its newest checkpoint.
    """

    written: tuple[str, ...]
    checkpoints: Callable[[Path], list[Path]]
    legacy: Callable[[Path], dict]

    @property
    def entries(self) -> set[str]:
        return {pattern.split("/")[0] for pattern in self.written} | {RUN_FILE}


def _recorded_identity(out_dir: Path, existing: list[Path], layout: _RunLayout) -> dict | None:
    """The identity of the run already in ``out_dir`` (``None``: no run there yet); refuses a
    folder holding files toponeuro did not write (without a run record or a checkpoint, any
    file is someone else's: a ``history.json`` alone is not a run)."""
    run_file = out_dir / RUN_FILE
    if run_file.exists():
        return _read_run_file(run_file)["identity"]
    foreign = sorted(p.name for p in out_dir.iterdir()
                     if not p.name.startswith(".")
                     and (p.name not in layout.entries or not (existing or p.is_dir())))
    if foreign:
        raise OutputExistsError(
            f"out_dir={out_dir} holds files that are not a toponeuro training run "
            f"({', '.join(foreign[:5])}{' ...' if len(foreign) > 5 else ''}) and no {RUN_FILE}; "
            "nothing there is touched. Give an empty or new folder."
        )
    return layout.legacy(existing[-1]) if existing else None


def _same_run(recorded: dict, identity: dict) -> list[str]:
    """Differences between the recorded run and this one (empty: the same run)."""
    if recorded.get("legacy"):
        if recorded["recipe"] is not None or identity["recipe"] is not None:
            return _differences({"recipe": recorded["recipe"]}, {"recipe": identity["recipe"]})
        return _differences(
            {"seed": recorded["seed"], "topoloss": recorded["topoloss"]},
            {"seed": identity["settings"].get("seed"), "topoloss": identity["topoloss"]},
        )
    new = identity.get("settings") or {}
    if "schedule" in new and "lr" in (recorded.get("settings") or {}):  # 0.4's flat settings
        identity = _identity(identity["model"], identity["topoloss"], identity["recipe"], {
            **{k: v for k, v in new.items() if k != "schedule"}, **new["schedule"]})
    if recorded.get("sha256") == identity["sha256"]:
        return []
    diff = []
    for part in ("recipe", "settings", "topoloss"):  # what a user changes, first
        diff += _differences({part: recorded.get(part)}, {part: identity.get(part)})
    shapes = _differences(recorded.get("model"), identity.get("model"))
    if shapes:
        diff.append(f"model parameter shapes ({len(shapes)} differ, e.g. {shapes[0]})")
    return diff or ["sha256"]


def _clear_run(out_dir: Path, layout: _RunLayout) -> None:
    """Remove what a run wrote into ``out_dir`` (checkpoints, history, run record): only the
    files the ``layout`` names."""
    for pattern in (*layout.written, RUN_FILE):
        for p in out_dir.glob(pattern):
            if p.is_file():
                p.unlink()


def _open_run(out_dir, identity: dict, *, resume: bool, restart: bool,
              layout: _RunLayout) -> list[Path]:
    """Prepare ``out_dir`` for this run; the checkpoints to resume from (newest last).

    A folder with a run of another identity is refused unless ``restart``; ``restart`` or
    ``resume=False`` clear the folder's run first. ``run.json`` records this run.
    """
    out_dir = Path(out_dir)
    if out_dir.is_symlink():
        link_target(out_dir, "out_dir")  # a loop or a link to nowhere: typed, at once
    if out_dir.exists() and not out_dir.is_dir():
        raise OutputPathError(f"out_dir={out_dir} is a file; give a folder for the run.")
    check_writable(out_dir, "out_dir")
    for sub in sorted({pattern.split("/")[0] for pattern in layout.written if "/" in pattern}):
        refuse_link(out_dir / sub, "the run's folder of checkpoints")  # else cleared through
    existing = layout.checkpoints(out_dir) if out_dir.is_dir() else []
    recorded = _recorded_identity(out_dir, existing, layout) if out_dir.is_dir() else None
    if recorded is not None:
        diff = _same_run(recorded, identity)
        # no checkpoint of this kind and nothing else there yet: nothing would mix; files of
        # another kind of run (an image run's checkpoints/ beside a language run) would
        others = [p.name for p in out_dir.iterdir()
                  if not p.name.startswith(".") and p.name not in layout.entries]
        if diff and not restart and (existing or others):
            raise RecipeMismatchError(
                f"out_dir={out_dir} holds a run of another recipe or other settings "
                f"({'; '.join(diff[:5])}{' ...' if len(diff) > 5 else ''}); resuming it would "
                "mix two runs. Pass restart=True to discard it and start over, or give another "
                "out_dir=."
            )
        if restart or not resume:
            _clear_run(out_dir, layout)
            existing = []
    out_dir.mkdir(parents=True, exist_ok=True)
    record = {"format": _RUN_FORMAT, "format_version": 1, "toponeuro_version": __version__,
              "recipe_name": (identity["recipe"] or {}).get("name"),
              "recipe_sha256": identity["recipe_sha256"], "identity_sha256": identity["sha256"],
              "identity": identity}
    write_text(out_dir / RUN_FILE, json.dumps(record, indent=2))
    return existing
