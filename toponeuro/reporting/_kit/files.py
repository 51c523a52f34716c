"""The files every job's report ends with, written in one order from its typed report, and
the one HTML table style (shared by the vision and the language writers)."""

from __future__ import annotations

import json
import time
from pathlib import Path

from ..._io.folder import MANIFEST, OutputFolder, output_folder  # noqa: F401 - the jobs' folder
from .report import JobReport

__all__ = ["write_job_files", "html_table", "output_folder", "OutputFolder"]


def html_table(df, index: bool = False) -> str:
    """A table as the report shows it: 3 decimals, "–" for a missing value, scrollable.

    Examples
    --------
    >>> import pandas as pd
    >>> "0.333" in html_table(pd.DataFrame({"a": [1 / 3]}))
    True
    """
    table = df.to_html(index=index, float_format=lambda v: f"{v:.3f}", border=0,
                       classes="tbl", na_rep="–")
    return f'<div class="scroll">{table}</div>'


def write_job_files(out: Path, files: dict, *, dataset, report: JobReport, page,
                    t0: float | None = None) -> dict:
    """The files every job's report ends with, in one order (the vision and the language
    job alike): ``results.nc``, then ``report.html`` (``page(files)``) and ``summary.json``
    (``report.to_summary()``), the report given the run's seconds and the names of every
    file first; name -> path."""
    dataset.to_netcdf(out / "results.nc", engine="h5netcdf")
    files["results.nc"] = out / "results.nc"
    files["summary.json"] = out / "summary.json"
    files["report.html"] = out / "report.html"
    report.seconds = round(time.perf_counter() - t0, 1) if t0 is not None else None
    report.files = {k: Path(v).name for k, v in files.items()}
    (out / "report.html").write_text(page(files), encoding="utf-8")
    (out / "summary.json").write_text(json.dumps(report.to_summary(), indent=2))
    return files
