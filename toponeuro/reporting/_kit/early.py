"""A job's parameters that need no model, checked before its first slow step (issue 45).

``run_map`` and ``run_language_map`` load the model first (minutes, for released weights that
are downloaded) and met a missing stimulus folder, a misspelt device, an unknown model name or
``overwrite="yes"`` only afterwards. :func:`check_job_params` checks what can be
checked without the model, once, at the top of both jobs, beyond what the jobs declare
(``overwrite``, ``layers`` and the types of the settings objects, :func:`validate_params`):
a model name, a stimuli path, the fLoc numbers. The numbers, the device and the cortex input
are checked by the settings objects of :mod:`toponeuro.settings` when they are made.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..._util.docs import fill_doc
from ...exceptions import MissingFileError

__all__ = ["check_job_params"]


@fill_doc
def check_job_params(*, model=None, checkpoint=None, stimuli=None,
                     stimuli_name: str = "floc", stimuli_kind: str = "folder",
                     numbers=None) -> None:
    """Refuse at once the parameters a job would otherwise refuse after loading its model.

    Parameters
    ----------
    model : str, optional
        Without a ``checkpoint``: a registered model name (its card is looked up, nothing is
        loaded).
    checkpoint : path-like, optional
        Given: ``model`` is not looked up (the checkpoint says what it is; a missing file is
        reported by the loader, ``CheckpointError``).
    stimuli : str, path-like or StimulusSet, optional
        A path (anything but ``stimuli_name``, None or a StimulusSet) must exist as a
        ``stimuli_kind`` ("folder" or "file").
    numbers : optional
        fLoc image numbers, read by :func:`toponeuro.stimuli.floc_numbers`.

    Examples
    --------
    >>> check_job_params(stimuli="floc")
    >>> check_job_params(stimuli="/no/such/floc")
    Traceback (most recent call last):
    ...
    toponeuro.exceptions.MissingFileError: stimuli='/no/such/floc' is neither 'floc' nor an existing folder; pass 'floc' or the path of a local copy.
    """
    if checkpoint is None and isinstance(model, str):
        from ...models import model_card

        model_card(model)  # an unknown name lists the close matches
    if isinstance(stimuli, str | os.PathLike) and str(stimuli) != stimuli_name:
        path = Path(stimuli).expanduser()
        found = path.is_dir() if stimuli_kind == "folder" else path.is_file()
        if not found:
            raise MissingFileError(
                f"stimuli={str(stimuli)!r} is neither {stimuli_name!r} nor an existing "
                f"{stimuli_kind}; pass {stimuli_name!r} or the path of a local copy."
            )
    if numbers is not None:
        from ...stimuli import floc_numbers

        floc_numbers(numbers)
