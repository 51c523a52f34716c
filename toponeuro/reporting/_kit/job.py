"""The one job skeleton both jobs fill in (issue 44).

A job is a :class:`JobStages`: one method per stage of :data:`STAGES`, in that order -- load
the model, read the stimuli, make the maps, measure their topography, read the cortex,
compare the two, write the report -- sharing what each made as attributes of the job.
:func:`run_job` runs them the same way for both jobs: inside the output folder that is
complete or untouched (:func:`~toponeuro._io.folder.output_folder`), one progress bar with
the stage's name, each stage timed (:attr:`JobStages.timings`), then the terminal summary
and the job's typed result. What a job checks before its first slow step it checks when it
is made (its ``__init__``), before :func:`run_job` opens the folder.

The jobs' model stage loads through the models package's front door,
:func:`load_job_model`.
"""

from __future__ import annotations

import numbers
import os
import time
from abc import ABC, abstractmethod
from collections.abc import Iterable

from ..._util.constraints import Names
from ..._util.params import Boolean, InstanceOf, Interval, PathLike, Text
from ...settings import CortexInput, Extraction, ModelSource, NullSettings, PatchRule, RulerRun
from .files import output_folder
from .result import JobResult

__all__ = ["STAGES", "JobStages", "run_job", "load_job_model", "JOB_PARAMS",
           "settings_param", "cortex_stage_keywords"]


def settings_param(cls) -> InstanceOf:
    """A job's settings parameter: an instance of ``cls`` (its fields checked when made)."""
    return InstanceOf(cls, f"a {cls.__name__} (toponeuro.settings)", example=cls,
                      fix=f"Make one with {cls.__name__}(...).")


#: the parameters both jobs declare (``dict(JOB_PARAMS, stimuli=..., ...)`` adds each job's
#: own): checked once, at the job's call; the settings objects' fields checked themselves
JOB_PARAMS = dict(
    model=[Text(), settings_param(ModelSource), None],
    layers=[Text(fix="See `toponeuro layers MODEL`."), Names(empty=False), None],
    out_dir=PathLike(), overwrite=Boolean(),
    null=settings_param(NullSettings), patches=settings_param(PatchRule),
    cortex=settings_param(CortexInput), ruler=settings_param(RulerRun),
    extraction=settings_param(Extraction),
    verbose=[Boolean(), Interval(numbers.Integral, 0, 2, closed="both",
                                 fix="0: silent; 1: the summary; 2: the summary and progress "
                                     "bars.")],
)

def cortex_stage_keywords(cortex: CortexInput, null: NullSettings, maps) -> dict:
    """The keywords of both jobs' cortex stage (``cortex_topography``, ``language_cortex``).

    Parameters
    ----------
    cortex : CortexInput
        The job's cortex input: its hemispheres, projection, region rule and draws.
    null : NullSettings
        The job's null: its significance level and seed.
    maps : dict or None
        The user's cortex maps as the job read them (None: the shipped ones).

    Returns
    -------
    dict
        ``hemispheres``, ``cortex_maps``, ``vol_to_surf``, ``threshold``, ``min_vertices``,
        ``similarity_permutations``, ``alpha`` and ``random_state``.

    Examples
    --------
    >>> kw = cortex_stage_keywords(CortexInput(n_permutations=99), NullSettings(alpha=0.01), None)
    >>> kw["alpha"], kw["cortex_maps"], kw["similarity_permutations"]
    (0.01, None, 99)
    """
    return dict(hemispheres=cortex.hemispheres, cortex_maps=maps,
                vol_to_surf=cortex.vol_to_surf, threshold=cortex.threshold,
                min_vertices=cortex.min_vertices, similarity_permutations=cortex.n_permutations,
                alpha=null.alpha, random_state=null.random_state)


#: the stages of every job, in the order :func:`run_job` runs them
STAGES = ("model", "stimuli", "maps", "topography", "cortex", "compare", "write")


class JobStages(ABC):
    """A job: its stages (one method per name of :data:`STAGES`), what it writes and returns.

    A subclass sets :attr:`title` (the progress bar's label) and :attr:`kind` (the output
    folder's manifest), checks its parameters in ``__init__``, and fills in every stage, the
    summary it prints (:meth:`summary_text`) and the result it returns (:meth:`result`).
    Each stage keeps what it made as attributes of the job, for the stages after it; the
    ``write`` stage stores the files it wrote in :attr:`files`.

    Attributes
    ----------
    out : pathlib.Path
        The folder the ``write`` stage writes into (set by :func:`run_job`).
    t0 : float
        :func:`time.perf_counter` when the stages began (set by :func:`run_job`).
    files : dict
        Name -> path of every file written (set by the ``write`` stage).
    timings : dict
        Stage -> seconds it took (set by :func:`run_job`).

    Examples
    --------
    >>> sorted(JobStages.__abstractmethods__) == sorted(STAGES + ("result", "summary_text"))
    True
    """

    title: str = "toponeuro"
    kind: str = "map"

    def __init__(self) -> None:
        self.out = None
        self.t0 = 0.0
        self.files: dict = {}
        self.timings: dict[str, float] = {}

    @abstractmethod
    def model(self) -> None:
        """Load the model (and pick its layers)."""
        raise NotImplementedError

    @abstractmethod
    def stimuli(self) -> None:
        """Read the stimuli."""
        raise NotImplementedError

    @abstractmethod
    def maps(self) -> None:
        """The model's activations and selectivity maps on its sheets."""
        raise NotImplementedError

    @abstractmethod
    def topography(self) -> None:
        """The maps' topography, each statistic with its null."""
        raise NotImplementedError

    @abstractmethod
    def cortex(self) -> None:
        """The cortex's maps and their topography."""
        raise NotImplementedError

    @abstractmethod
    def compare(self) -> None:
        """The model beside the cortex."""
        raise NotImplementedError

    @abstractmethod
    def write(self) -> None:
        """The typed report and its files, into :attr:`out`."""
        raise NotImplementedError

    @abstractmethod
    def summary_text(self) -> str:
        """The summary printed at the end (``verbose >= 1``)."""
        raise NotImplementedError

    @abstractmethod
    def result(self, files: dict, out_dir: str) -> JobResult:
        """What the job returns, given the final paths of its files and its folder."""
        raise NotImplementedError


def run_job(job: JobStages, *, out_dir: str | os.PathLike, overwrite: bool,
            inputs: Iterable, verbose: int) -> JobResult:
    """Run ``job``'s stages in the order of :data:`STAGES`, into ``out_dir``.

    Parameters
    ----------
    job : JobStages
        The job, its parameters checked.
    out_dir : path-like
        The output folder: written aside and moved into place when every stage is done (an
        error leaves an earlier output as it was).
    overwrite : bool
        Replace an earlier toponeuro output in ``out_dir``.
    inputs : iterable
        The files the job reads (``out_dir`` may not be or hold one of them).
    verbose : int
        0: silent; 1: the summary at the end; 2: also a progress bar over the stages (and
        the stages' own bars).

    Returns
    -------
    JobResult
        ``job.result(...)``, its :attr:`~JobResult.timings` the stages' seconds.

    Examples
    --------
    >>> from toponeuro.reporting._kit.job import run_job
    >>> res = run_job(job, out_dir="out", overwrite=False, inputs=(),
    ...               verbose=1)  # doctest: +SKIP
    >>> list(res.timings) == list(STAGES)  # doctest: +SKIP
    True
    """
    from tqdm.auto import tqdm

    with output_folder(out_dir, overwrite=overwrite, kind=job.kind, inputs=inputs) as folder:
        job.out = folder.path
        job.t0 = time.perf_counter()
        bar = tqdm(total=len(STAGES), desc=job.title, disable=verbose < 2, unit="step")
        try:  # an error closes the bar first, so its message gets a line of its own
            for name in STAGES:
                bar.set_postfix_str(name)
                start = time.perf_counter()
                getattr(job, name)()
                job.timings[name] = round(time.perf_counter() - start, 3)
                bar.update()
        finally:
            bar.close()
    files = folder.final_paths(job.files)
    if verbose:
        print(job.summary_text())
        print(f"\nReport: {files['report.html']}")
    res = job.result({k: str(v) for k, v in files.items()}, str(folder.final))
    res.timings = dict(job.timings)
    return res


def load_job_model(src: ModelSource):
    """The network a job maps: :func:`toponeuro.models.load_model` of ``src``.

    A ``toponeuro train`` checkpoint is read by the reader :mod:`toponeuro.training`
    registers with the models package (:func:`toponeuro.models.register_checkpoint_reader`)
    when it is imported: the jobs read such checkpoints, so this function imports it (here,
    not at the top: importing :mod:`toponeuro.reporting` stays free of torch).

    Parameters
    ----------
    src : ModelSource
        The model's name, checkpoint and ``trust_checkpoint``.

    Returns
    -------
    torch.nn.Module
        The network, its ``model_card`` set.

    Examples
    --------
    >>> net = load_job_model(ModelSource("toponet_demo.v2_tau_50"))  # doctest: +SKIP
    """
    from ... import training  # noqa: F401 - registers how its checkpoints are rebuilt
    from ...models import load_model

    return load_model(src.name, checkpoint=src.checkpoint, trust_checkpoint=src.trust_checkpoint)
