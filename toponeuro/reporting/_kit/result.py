"""What both jobs return: one shape (:class:`JobResult`), each job adding its own results."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..._util.constraints import MAPPING
from ..._util.frozen import validate_fields
from ..._util.params import InstanceOf, PathLike
from .report import JobReport

__all__ = ["JobResult"]


def _example_report() -> JobReport:
    """A small valid JobReport (the declaration's example)."""
    from .report import CortexReport, ModelRecord

    model = ModelRecord(name="m", source="m", tau=None, description=None, weights_sha256=None)
    return JobReport(toponeuro_version="0.5", created="-", model=model, stimuli={},
                     layers=["l"], definitions={}, per_layer={},
                     cortex=CortexReport(atlas="a", nulls="n"), headline="h")


@dataclass(kw_only=True)
@validate_fields({"report": InstanceOf(JobReport, "a JobReport", example=_example_report),
                 "tables": MAPPING, "files": MAPPING, "out_dir": [PathLike(), None],
                 "timings": MAPPING})
class JobResult:
    """What a job returns: its typed report, its maps and tables, and the files written.

    Parameters
    ----------
    report : JobReport
        Every number and sentence of the run, typed (``summary.json`` is
        ``report.to_summary()``).
    selectivity : xarray.DataArray
        The selectivity maps whose topography was measured.
    tables : dict of pandas.DataFrame
        The report's tables.
    files : dict
        Name -> path of every file written.
    out_dir : str, optional
        The output folder (None: nothing written).
    timings : dict
        Stage of the job skeleton (:data:`~toponeuro.reporting._kit.job.STAGES`) -> the
        seconds it took.

    Attributes
    ----------
    summary : dict
        The content of ``summary.json`` (``report.to_summary()``).

    Examples
    --------
    >>> from toponeuro.reporting._kit.report import CortexReport, ModelRecord
    >>> model = ModelRecord(name="m", source="m", tau=None, description=None,
    ...                     weights_sha256=None)
    >>> rep = JobReport(toponeuro_version="0.5", created="-", model=model,
    ...                 stimuli={}, layers=["l"],
    ...                 definitions={}, per_layer={},
    ...                 cortex=CortexReport(atlas="a", nulls="n"), headline="h")
    >>> JobResult(report=rep, selectivity=None).summary["model"]["name"]
    'm'
    """

    report: JobReport
    selectivity: object
    tables: dict = field(default_factory=dict)
    files: dict = field(default_factory=dict)
    out_dir: str | None = None
    timings: dict = field(default_factory=dict)

    @property
    def summary(self) -> dict:
        """The content of ``summary.json``."""
        return self.report.to_summary()
