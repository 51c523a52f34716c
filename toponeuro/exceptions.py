"""Every error toponeuro raises on purpose.

Each type also derives from the builtin that callers already catch (``ValueError``,
``KeyError``, ``OSError`` ...), so ``except ValueError`` keeps working. Messages say what was
expected, what arrived, and how to fix it.

Examples
--------
>>> from toponeuro.models import create_model
>>> try:
...     create_model("toponet_resnet19.tau_1")
... except KeyError as err:  # an UnknownNameError is a KeyError too
...     print(type(err).__name__, "-", err)  # doctest: +ELLIPSIS
UnknownNameError - Unknown model 'toponet_resnet19.tau_1'; did you mean ...
>>> issubclass(DimensionError, ValueError), issubclass(DownloadError, ConnectionError)
(True, True)
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = [
    "ToponeuroError",
    "DimensionError",
    "CoordinateError",
    "SheetError",
    "UnsupportedLayerError",
    "UnknownNameError",
    "ChecksumError",
    "DownloadError",
    "CheckpointError",
    "UntrustedCheckpointError",
    "UntrustedFileError",
    "UnreadableFileError",
    "AlignmentError",
    "MeshMismatchError",
    "InvalidDataError",
    "NotFittedError",
    "RecipeError",
    "MissingWeightsError",
    "NameClashError",
    "UnitsError",
    "ToponeuroWarning",
    "UndefinedValueWarning",
    "MissingFileError",
    "ImageReadError",
    "StoreLockedError",
    "StoreCorruptError",
    "UnverifiedFileWarning",
    "TrainingImagesWarning",
    "InputTypeError",
    "ParameterError",
    "OutOfRangeError",
    "OutputPathError",
    "DeviceError",
    "MissingDependencyError",
    "DependencyMismatchError",
    "ExternalCommandError",
    "InternalError",
    "ImplausibleValueWarning",
    "PairedByPositionWarning",
    "OutputExistsError",
    "OutputLockedError",
    "TrainingDivergedError",
    "RecipeMismatchError",
    "UnsafeLinkError",
    "StaleLockWarning",
    "OldDataLocationWarning",
    "InputChangedError",
    "RemovedNameError",
    "close_matches",
    "first_few",
]


class ToponeuroError(Exception):
    """Base class of every error raised on purpose by toponeuro."""


class DimensionError(ToponeuroError, ValueError):
    """An array has the wrong dimensions (names, order or size)."""


class CoordinateError(ToponeuroError, ValueError):
    """A required coordinate is missing or malformed."""


class SheetError(ToponeuroError, ValueError):
    """A layer cannot be laid out on a cortical sheet as requested."""


class UnsupportedLayerError(ToponeuroError, TypeError):
    """A module cannot carry TopoLoss or be read as a sheet."""


class UnknownNameError(ToponeuroError, KeyError):
    """A name (model, layer, category, ROI, recipe ...) is not known.

    The message lists the closest known names.
    """

    def __str__(self) -> str:  # KeyError quotes its message; keep it readable
        return str(self.args[0]) if self.args else ""


class ChecksumError(ToponeuroError, ValueError):
    """A downloaded or supplied file does not have the expected sha256."""


class DownloadError(ToponeuroError, ConnectionError):
    """A file could not be downloaded; the message says where to put a copy by hand."""


class CheckpointError(ToponeuroError, ValueError):
    """A checkpoint is truncated, unreadable, or for another architecture."""


class UntrustedFileError(ToponeuroError, ValueError):
    """A file would run code when read (a Python pickle) and was not marked trusted.

    Reading a pickle executes whatever it names, so toponeuro reads one only when the caller
    says the file is trusted: ``trust_pickle=True`` for data files (RDMs ...),
    ``trust_checkpoint=True`` for checkpoints. The message names the file, the reader and the
    parameter.
    """


class UntrustedCheckpointError(CheckpointError, UntrustedFileError):
    """A checkpoint pickles objects outside the safe allow-list."""


class AlignmentError(ToponeuroError, ValueError):
    """Two labelled arrays do not describe the same stimuli (or voxels) in the same order."""


class MeshMismatchError(AlignmentError):
    """Maps on different template meshes (fsaverage5 and fs_LR 32k) were to be compared;
    toponeuro compares maps on their own mesh and does not resample between meshes.
    """


class InvalidDataError(ToponeuroError, ValueError):
    """Values are unusable (NaN, constant, too few samples ...)."""


class NotFittedError(ToponeuroError, ValueError, AttributeError):
    """An estimator was used before ``fit``."""


class RecipeError(ToponeuroError, ValueError):
    """A training recipe or TopoLoss spec file is malformed."""


class MissingWeightsError(ToponeuroError, FileNotFoundError):
    """Released weights are not available here (not shipped yet, or none exist for the name)."""


class NameClashError(ToponeuroError, ValueError):
    """A new name (e.g. a Brain-Score plugin identifier) is already taken."""


class UnitsError(InvalidDataError):
    """A value is in other units than expected (a percentage where a fraction is needed ...).

    The message names the conversion.
    """


class ToponeuroWarning(UserWarning):
    """Base class of every warning toponeuro emits on purpose."""


class UndefinedValueWarning(ToponeuroWarning, RuntimeWarning):
    """A statistic is undefined for the data given (constant input, too few values ...).

    The value is returned as NaN (never 0); the message names the cause.
    """


class UnreadableFileError(InvalidDataError):
    """An input file exists but cannot be read as its format: empty, truncated, corrupt, or
    another kind of file under the name (text named ``.nii.gz``).

    Also a ``ValueError``; the message names the file, the format expected and the fix,
    never the parsing library's own exception (which is chained as ``__cause__``).
    """


class MissingFileError(ToponeuroError, FileNotFoundError):
    """An input file or folder does not exist (the message names the path and what to pass)."""


class ImageReadError(UnreadableFileError, OSError):
    """An image file cannot be decoded (corrupt, truncated, not an image, unknown range).

    Also an ``OSError``, like Pillow's own ``UnidentifiedImageError``; the message names the
    file.
    """


class OutputLockedError(ToponeuroError, BlockingIOError):
    """Another process is writing the same output (folder, file or store); the message names it."""


class StoreLockedError(OutputLockedError):
    """Another process is writing the same activation store (the message names it)."""


class StoreCorruptError(ChecksumError):
    """Rows of an activation store do not match the checksums recorded when they were written."""


class UnverifiedFileWarning(ToponeuroWarning):
    """A file is used although no published digest was available to check it against.

    Turn it into an error with ``warnings.simplefilter("error", UnverifiedFileWarning)``.
    """


class OldDataLocationWarning(ToponeuroWarning, FutureWarning):
    """A dataset was read from where toponeuro before 0.4 downloaded it.

    Every dataset now lives in ``$TOPONEURO_DATA/<dataset>/`` (``toponeuro.stimuli.DATASETS``);
    files found at the old place are still read (and never moved or deleted); the message
    says where to move them.
    """


class TrainingImagesWarning(ToponeuroWarning):
    """The stimuli include images the model was trained on (by its recipe's ``data.numbers``).

    Numbers measured on them are not held-out; the message says how many and how to choose
    only held-out images.
    """


class OutputPathError(ToponeuroError, OSError):
    """An output path cannot be written: a file where a folder is needed, or the reverse."""


class OutputExistsError(OutputPathError, FileExistsError):
    """An output path already holds something: toponeuro's own output (pass ``overwrite=True``
    to replace it) or a file or folder toponeuro did not write (never replaced).

    The message names the path and the fix.
    """


class UnsafeLinkError(OutputPathError):
    """A symbolic link sits at a name toponeuro chose (a lock file, a file inside an output
    folder): toponeuro never writes through it, so its target is left untouched; the message
    names the link and says to remove it.
    """


class StaleLockWarning(ToponeuroWarning):
    """A lock file left by a run that was killed was found and taken over; the message names
    the run (pid, host, start time) and what to check.
    """


class InputChangedError(ToponeuroError, ValueError):
    """Saved results were computed from other input data than the data given now (their
    content digests differ); the message names what changed and how to recompute.
    """


class RemovedNameError(ToponeuroError, ImportError):
    """A name removed from toponeuro was imported (``from toponeuro.x import name``); the
    message names its replacement.
    """


class TrainingDivergedError(ToponeuroError, FloatingPointError):
    """Training stopped: the loss, a gradient or the weights became NaN or infinite.

    The message names the step, the learning rate and the last good checkpoint; no
    checkpoint with non-finite weights is ever written.
    """


class RecipeMismatchError(RecipeError):
    """A run folder holds a run of another recipe (or other training settings).

    Resuming it would mix two runs; pass ``restart=True`` (``--restart``) or another folder.
    """


class DeviceError(ToponeuroError, RuntimeError):
    """The requested torch device is not a device name, or not available on this machine."""


class InputTypeError(ToponeuroError, TypeError):
    """An argument has the wrong type or kind (a surface atlas where a volume one is needed)."""


class ParameterError(ToponeuroError, ValueError):
    """An argument's value is not one it accepts; the message lists the accepted values."""


class OutOfRangeError(ToponeuroError, IndexError):
    """An index is outside the valid range; the message gives the range."""


class MissingDependencyError(ToponeuroError, ImportError):
    """An optional package a function needs is not installed; the message names the extra."""


class DependencyMismatchError(MissingDependencyError):
    """Two installed packages that must be built for each other are not (a CPU torch beside
    a CUDA torchvision: ``operator torchvision::nms does not exist``); the message names the
    ``pip install`` of a matching pair.
    """


class ExternalCommandError(ToponeuroError, RuntimeError):
    """A program toponeuro runs in another environment (Brain-Score scoring) failed.

    The message names the file holding that program's whole error output and ends with the
    last of it (the command line prints its first and last lines).
    """


class InternalError(ToponeuroError, RuntimeError):
    """Toponeuro's own files disagree with each other: a bug in toponeuro; please report it."""


class PairedByPositionWarning(ToponeuroWarning):
    """One input carries stimulus ids and the other is a plain array, so they were paired by
    position: right only if the plain one lists the same stimuli in the same order. Label it
    (a DataArray with a ``stimulus_id`` coord) to have them joined by id, or pass both as
    plain arrays to pair them by position on purpose, without this warning.
    """


class ImplausibleValueWarning(ToponeuroWarning):
    """A result lies outside the range its definition allows for sound inputs (scores far
    above their noise ceiling ...), so an input is likely wrong; the message names the rule
    and the likely cause.
    """


def first_few(items: Iterable, most: int = 5) -> str:
    """The first ``most`` of ``items`` for a message, comma-separated, with `` ...`` when
    there are more (the one way toponeuro's messages shorten a list).

    Parameters
    ----------
    items : iterable
        What to list (each shown with ``str``).
    most : int
        Most items shown.

    Returns
    -------
    str
        The items, comma-separated.

    Examples
    --------
    >>> first_few(["a.png", "b.png"])
    'a.png, b.png'
    >>> first_few(range(1, 8), most=3)
    '1, 2, 3 ...'
    """
    items = [str(i) for i in items]
    return ", ".join(items[:most]) + (" ..." if len(items) > most else "")


def close_matches(name: str, options: Iterable[str], n: int = 5) -> str:
    """Return a short human phrase listing the options closest to ``name``.

    Parameters
    ----------
    name : str
        What the user gave.
    options : iterable of str
        The accepted names.
    n : int
        Most matches listed.

    Returns
    -------
    str
        ``"did you mean 'a' or 'b'?"``, or ``"known names: ..."`` when none is close.

    Examples
    --------
    >>> close_matches("resnet19", ["resnet18", "resnet50", "vit_b_32"])
    "did you mean 'resnet18' or 'resnet50'?"
    """
    options = [str(o) for o in options]
    hits = difflib.get_close_matches(str(name), options, n=n, cutoff=0.5)
    if not hits:
        hits = [o for o in options if str(name).lower() in o.lower()][:n]
    if hits:
        quoted = [repr(h) for h in hits]
        if len(quoted) == 1:
            return f"did you mean {quoted[0]}?"
        return "did you mean " + ", ".join(quoted[:-1]) + f" or {quoted[-1]}?"
    shown = ", ".join(repr(o) for o in options[:12])
    more = f" (and {len(options) - 12} more)" if len(options) > 12 else ""
    return f"known names: {shown}{more}" if options else "nothing is registered"
