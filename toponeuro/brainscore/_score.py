"""Score an exported plugin with brainscore-vision itself, in its own Python environment."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from .. import exceptions as E
from .._io.output import atomic_file, read_json, refuse_link, remove_tree, write_text
from .._util.params import POSITIVE, Boolean, PathLike, validate_params
from ..exceptions import (
    ExternalCommandError,
    InputTypeError,
    MissingDependencyError,
    OutputExistsError,
)
from ._convert import write_brainscore_benchmark
from ._export import ExportedPlugin

if TYPE_CHECKING:
    import pandas as pd
    import xarray as xr

    from ..stimuli import StimulusSet

__all__ = [
    "BRAINSCORE_METRICS",
    "TOPONEURO_COMPARE",
    "brainscore_python",
    "install_plugin",
    "score_with_brainscore",
]

#: Brain-Score metrics the local scorer runs (``load_metric`` names).
BRAINSCORE_METRICS = ("pls", "ridge", "rdm")
ENV_PYTHON = "TOPONEURO_BRAINSCORE_PYTHON"
MIN_STIMULI_PLS = 30  # as in _runner.py: int(0.9 * 30) training stimuli > 25 PLS components


@validate_params(dict(python=[PathLike(), None]))
def brainscore_python(python=None) -> str:
    """The Python interpreter of the environment that has brainscore-vision.

    ``python``, else ``$TOPONEURO_BRAINSCORE_PYTHON``. Brain-Score pins numpy<2 and an old
    xarray, so it lives in its own environment (``.ci/brainscore.sh`` builds one in
    ``.venv-brainscore``).

    Parameters
    ----------
    python : str, optional
        Path of the interpreter.

    Returns
    -------
    str
        The interpreter's path.

    Raises
    ------
    MissingFileError
        Neither is given, or the file does not exist.

    Examples
    --------
    >>> brainscore_python("/usr/bin/python3")
    '/usr/bin/python3'
    """
    python = python or os.environ.get(ENV_PYTHON)
    if not python:
        raise E.MissingFileError(
            "No Brain-Score environment given: pass python='/path/to/bin/python' "
            f"or set {ENV_PYTHON}. Build one with `bash .ci/brainscore.sh` "
            "(brainscore-vision 2.4.2, numpy<2, scikit-learn 1.7.2)."
        )
    if not Path(python).exists() and shutil.which(python) is None:
        raise E.MissingFileError(f"Brain-Score python {python!r} does not exist.")
    return str(python)


def _bs_env(extra=None) -> dict:
    env = dict(os.environ)
    env["BS_INSTALL_DEPENDENCIES"] = "no"  # never pip-install at run time
    env.pop("PYTHONPATH", None)  # keep toponeuro's environment out of Brain-Score's
    env.update(extra or {})
    return env


def _plugin_info(plugin) -> tuple[Path, dict]:
    path = plugin.path if isinstance(plugin, ExportedPlugin) else Path(plugin)
    info_file = path / "toponeuro_export.json"
    if not info_file.is_file():
        raise E.MissingFileError(
            f"{path} is not a plugin folder written by toponeuro (no toponeuro_export.json); "
            "pass what export_plugin returned or its .path."
        )
    return path, json.loads(info_file.read_text())


#: the first line of the Brain-Score error output that score_with_brainscore keeps in work_dir
_LOG_HEAD = "# Brain-Score's error output, kept by toponeuro's score_with_brainscore"


def _is_result_json(path) -> bool:
    """The file is a result written by ``_runner.py`` (a JSON object with its keys)."""
    data = read_json(path)
    return isinstance(data, dict) and {"identifier", "scores", "look_at"} <= data.keys()


def _is_stderr_log(path) -> bool:
    """The file is an error log written by :func:`_write_stderr_log` (its first line)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.readline().startswith(_LOG_HEAD)
    except OSError:
        return False


#: the files score_with_brainscore writes in work_dir -> how it recognises its own
_WORK_FILES = {"result.json": _is_result_json, "brainscore_stderr.txt": _is_stderr_log}


def _work_file(work: Path, name: str) -> Path:
    """``work/name``, a file score_with_brainscore writes there, checked before the run: a
    link there is refused (never written through), and so is a file toponeuro did not write
    (its own is replaced)."""
    path = work / name
    refuse_link(path, f"the {name} that score_with_brainscore writes in work_dir")
    if path.exists() and (path.is_dir() or not _WORK_FILES[name](path)):
        raise OutputExistsError(
            f"{path} already exists and was not written by toponeuro, so it is never "
            f"replaced; move it away, or give another work_dir (work_dir={work} holds it)."
        )
    return path


def _write_stderr_log(path: Path, python: str, returncode: int, stderr: str) -> Path:
    """Keep Brain-Score's whole error output at ``path`` (checked by :func:`_work_file`),
    atomically, under a first line that marks it as toponeuro's."""
    return write_text(path, f"{_LOG_HEAD} ({python}, exit {returncode})\n{stderr}")


@validate_params({"overwrite": Boolean()})
def install_plugin(plugin, python=None, overwrite=True) -> Path:
    """Copy an exported plugin into the ``models`` folder of an installed Brain-Score.

    That is where Brain-Score discovers plugins: ``load_model(identifier)`` scans
    ``brainscore_vision/models/*/__init__.py`` for ``model_registry['<identifier>']``.

    Parameters
    ----------
    plugin : ExportedPlugin or path-like
        What :func:`export_plugin` returned (or its folder).
    python : str, optional
        See :func:`brainscore_python`.
    overwrite : bool
        Replace an earlier install of a toponeuro plugin of the same name.

    Returns
    -------
    pathlib.Path
        The installed plugin folder.

    Examples
    --------
    >>> folder = install_plugin("out/models/toponet_demo_v2_tau_50")  # doctest: +SKIP
    >>> folder.parent.name  # doctest: +SKIP
    'models'
    """
    path, info = _plugin_info(plugin)
    library = "brainscore_vision" if info["modality"] == "vision" else "brainscore_language"
    python = brainscore_python(python)
    probe = subprocess.run(
        [python, "-c", f"import {library}, os; print(os.path.dirname({library}.__file__))"],
        capture_output=True, text=True, env=_bs_env(),
    )
    if probe.returncode != 0:
        raise MissingDependencyError(
            f"{python} cannot import {library}: {probe.stderr.strip()[-400:]} Install it there "
            "(see .ci/brainscore.sh)."
        )
    target = Path(probe.stdout.strip().splitlines()[-1]) / "models" / path.name
    if target.exists():
        if not (target / "toponeuro_export.json").is_file():
            raise E.NameClashError(
                f"{target} is an existing Brain-Score plugin, not one of toponeuro's; export "
                "with another identifier."
            )
        if not overwrite:
            raise OutputExistsError(f"{target} exists; pass overwrite=True to replace it.")
        remove_tree(target)
    shutil.copytree(path, target, ignore=shutil.ignore_patterns("__pycache__"))
    return target


def _runner_path() -> Path:
    return Path(str(resources.files(__package__) / "_runner.py"))


@validate_params({"install": Boolean(), "look_at_only": Boolean(), "keep_activations": Boolean(), "timeout": [POSITIVE, None]})
def score_with_brainscore(
    plugin: ExportedPlugin | str | os.PathLike,
    stimuli: StimulusSet | None = None,
    responses: xr.DataArray | None = None,
    *,
    benchmark: str | os.PathLike | None = None,
    python: str | None = None,
    metrics: Sequence[str] = BRAINSCORE_METRICS,
    regions: str | Mapping[str, str] | None = None,
    work_dir: str | os.PathLike | None = None,
    install: bool = True,
    look_at_only: bool = False,
    compare: str | Mapping[str, Callable] | None = None,
    keep_activations: bool = False,
    timeout: float | None = None,
) -> pd.DataFrame:
    """Score an exported TopoNet on your own data with brainscore-vision's own code.

    Runs ``_runner.py`` in the Brain-Score environment (``BS_INSTALL_DEPENDENCIES=no``,
    offline): it loads the plugin by its registry name, lets the ``ModelCommitment`` (with
    the plugin's region-layer map) ``look_at`` the stimuli, and scores the committed layer
    of each region with Brain-Score's ``pls``/``ridge`` (cross-validated regression, median
    Pearson r over voxels) and ``rdm`` metrics; with repeated presentations, split-half
    ``InternalConsistency`` ceilings normalise them (``score = r**2 / ceiling`` for the
    regressions, as Brain-Score's neural benchmarks do; ``r / ceiling`` for ``rdm``).

    Parameters
    ----------
    plugin : ExportedPlugin or path-like
        What :func:`export_plugin` returned (or its folder).
    stimuli, responses : StimulusSet, xarray.DataArray
        Converted with :func:`write_brainscore_benchmark`; or give ``benchmark=``.
    benchmark : path-like, optional
        A folder written by :func:`write_brainscore_benchmark`.
    python : str, optional
        The Brain-Score environment's Python (else ``$TOPONEURO_BRAINSCORE_PYTHON``).
    metrics : sequence of str
        Among :data:`BRAINSCORE_METRICS`.
    regions : str or dict, optional
        Voxel -> region mapping, see :func:`write_brainscore_benchmark`.
    work_dir : path-like, optional
        Where the benchmark files, the result cache and ``result.json`` go (default: a new
        temporary folder). ``result.json`` and ``brainscore_stderr.txt`` there are written
        atomically by the one writer: a file of that name toponeuro did not write is refused
        (:class:`~toponeuro.exceptions.OutputExistsError`), a link there too
        (:class:`~toponeuro.exceptions.UnsafeLinkError`), before any work.
    install : bool
        Copy the plugin into the Brain-Score install first (:func:`install_plugin`).
    look_at_only : bool
        Only run ``look_at`` per region (no metrics); the ``look_at`` summary is in
        ``.attrs``.
    compare : "toponeuro", dict or None
        ``"toponeuro"``: toponeuro's own engines (:data:`TOPONEURO_COMPARE`: ``rdm`` +
        ``compare_rdms``, ``encoding_score`` with PLS / ridge). Or a dict
        metric name -> ``f(activations, responses) -> float``: your own scorer for
        the same committed-layer activations (written by the runner) and the
        repetition-averaged responses; its value goes in a ``toponeuro`` column.
    keep_activations : bool
        Save each region's ``look_at`` activations as ``<work_dir>/activations/<region>.npz``
        (``activations``, ``stimulus_id``); the folder is in ``.attrs["activations_dir"]``.
    timeout : float, optional
        Seconds before the Brain-Score run is stopped.

    Returns
    -------
    pandas.DataFrame
        One row per (region, metric): ``raw``, ``raw_error``, ``ceiling``, ``score``,
        ``layer``, ``n_neuroids`` (and ``toponeuro``). ``.attrs`` holds the run summary
        (committed region-layer map, look_at shapes, seconds, work_dir).

    Examples
    --------
    >>> table = score_with_brainscore("out/models/toponet_demo_v2_tau_50", stimuli, responses,
    ...                               regions="IT", compare="toponeuro")  # doctest: +SKIP
    >>> table[["region", "metric", "score", "toponeuro"]]  # doctest: +SKIP
    """
    import pandas as pd

    unknown = [m for m in metrics if m not in BRAINSCORE_METRICS]
    if unknown:
        raise E.UnknownNameError(
            f"Unknown Brain-Score metric {unknown[0]!r}; expected one of {BRAINSCORE_METRICS} "
            f"({E.close_matches(unknown[0], BRAINSCORE_METRICS)})."
        )
    path, info = _plugin_info(plugin)
    n_stim = len(stimuli.ids) if benchmark is None and stimuli is not None else None
    if "pls" in metrics and n_stim is not None and n_stim < MIN_STIMULI_PLS:
        raise E.InvalidDataError(
            f"Brain-Score's pls metric fits 25 components on 90% of the stimuli, so it needs at "
            f"least {MIN_STIMULI_PLS} stimuli; got {n_stim}. Add stimuli or pass "
            "metrics=('ridge', 'rdm')."
        )
    if info["modality"] != "vision":
        raise InputTypeError(
            "Local scoring runs brainscore-vision; language plugins are checked by their "
            "own test.py in a brainscore-language environment."
        )
    python = brainscore_python(python)
    work = Path(work_dir) if work_dir is not None else Path(tempfile.mkdtemp(prefix="tn-bs-"))
    work.mkdir(parents=True, exist_ok=True)
    out, log = (_work_file(work, name) for name in _WORK_FILES)  # before any work
    if benchmark is None:
        if stimuli is None or responses is None:
            raise InputTypeError("Give stimuli and responses, or benchmark= (a folder of files).")
        benchmark = write_brainscore_benchmark(stimuli, responses, work / "benchmark",
                                               regions=regions, overwrite=True)
    if install:
        install_plugin(path, python=python)
    # the runner writes a new file toponeuro made (random name, O_EXCL), renamed to
    # result.json when the run succeeded: never through a link, never half a file
    with atomic_file(out) as tmp:
        cmd = [python, str(_runner_path()), "--benchmark", str(benchmark), "--identifier",
               info["identifier"], "--metrics", ",".join(metrics), "--out", str(tmp),
               "--expected-map", json.dumps(info["region_layer_map"])]
        if look_at_only:
            cmd.append("--look-at-only")
        if compare or keep_activations:
            cmd += ["--dump-activations", str(work / "activations")]
        proc = subprocess.run(
            cmd, capture_output=True, text=True, timeout=timeout,
            env=_bs_env({"RESULTCACHING_HOME": str(work / "result_caching")}),
        )
        if proc.returncode != 0:
            _write_stderr_log(log, python, proc.returncode, proc.stderr)
            raise ExternalCommandError(
                f"Brain-Score scoring failed (exit {proc.returncode}) in {python}; its whole "
                f"error output is in {log}, and ends:\n{proc.stderr.strip()[-3000:]}"
            )
        result = json.loads(tmp.read_text())
    table = pd.DataFrame(result["scores"], columns=[
        "region", "metric", "layer", "n_neuroids", "raw", "raw_error", "ceiling", "score",
        "stratified_by"])
    if compare == "toponeuro":
        compare = TOPONEURO_COMPARE
    if compare:
        table["toponeuro"] = _toponeuro_scores(table, compare, work / "activations", benchmark)
    table.attrs.update({k: v for k, v in result.items() if k != "scores"})
    table.attrs["work_dir"] = str(work)
    if compare or keep_activations:
        table.attrs["activations_dir"] = str(work / "activations")
    return table


def _toponeuro_rdm(activations, responses) -> float:
    from ..analysis import compare_rdms, rdm

    return float(compare_rdms(rdm(activations, "correlation"), rdm(responses, "correlation"),
                              method="spearman"))


def _toponeuro_encoding(model: str):
    def score(activations, responses) -> float:
        import numpy as np

        from ..analysis import encoding_score

        per_voxel = encoding_score(activations, responses, model=model, cv=10,
                                   metric="pearson", random_state=0)
        return float(np.median(np.asarray(per_voxel)))

    score.__name__ = f"toponeuro_{model}"
    return score


#: toponeuro's own scorer for each Brain-Score metric, on the same activations and
#: repetition-averaged responses (``compare="toponeuro"``). Protocols differ in the splits:
#: Brain-Score's regressions average 10 random 90/10 splits, toponeuro uses 10-fold KFold (each
#: stimulus tested once), and toponeuro's ridge picks alpha per voxel by inner CV. The rdm
#: scores are the same computation and agree to float precision.
TOPONEURO_COMPARE = {
    "rdm": _toponeuro_rdm,
    "pls": _toponeuro_encoding("pls"),
    "ridge": _toponeuro_encoding("ridge"),
}


def _toponeuro_scores(table, compare, act_dir, benchmark):
    import numpy as np

    from ..brain import average_repetitions
    from ._convert import read_brainscore_benchmark

    _, responses = read_brainscore_benchmark(benchmark)
    responses = average_repetitions(responses)  # one row per stimulus, float64 kept
    row_of = {s: i for i, s in enumerate(np.asarray(responses["stimulus_id"].values).astype(str))}
    region = np.asarray(responses["region"].values).astype(str)
    values = np.asarray(responses.values, dtype=float)
    out = []
    for _, row in table.iterrows():
        fn = compare.get(row["metric"])
        if fn is None:
            out.append(np.nan)
            continue
        data = np.load(Path(act_dir) / f"{row['region']}.npz", allow_pickle=False)
        ids = data["stimulus_id"].astype(str)
        y = values[[row_of[s] for s in ids]]  # in the activations' stimulus order
        # float64 like Brain-Score's metrics (rsatoolbox keeps float32 input in float32 and
        # then differs from Brain-Score's rdm in the 5th decimal)
        acts = data["activations"].astype(np.float64)
        out.append(float(fn(acts, y[:, region == row["region"]])))
    return out
