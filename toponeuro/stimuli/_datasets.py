"""Where every dataset lives in the cache: one rule, one table.

The rule: dataset ``<name>`` lives in ``<cache>/<name>/`` (``$TOPONEURO_DATA/<name>/``), under
the file names of its pinned source with the source's leading folders dropped (fLoc keeps its
category sub-folders: ``floc/adult/adult-1.jpg``). A copy put there by hand and a download
land in the same place, so "where do I put it" has one answer. :data:`DATASETS` is the table;
docs/data.rst shows it (a test keeps the two equal) and ``stimuli/sources.tsv`` holds every
file's commit, size and sha256.

Before 0.4 a download went to ``<cache>/<owner>_<repo>/<commit[:12]>/<path in the repo>``;
a file found there (and with the pinned sha256) is still read, with an
:class:`~toponeuro.exceptions.OldDataLocationWarning` saying where to move it. Nothing is
moved or deleted.
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from .._io.fetch import data_dir, sha256sum
from .._util.docs import fill_doc
from .._util.frozen import validate_fields
from .._util.params import PathLike, Text, validate_params
from .._util.stack import user_stacklevel
from ..exceptions import OldDataLocationWarning, UnknownNameError, close_matches, first_few

__all__ = ["Dataset", "DATASETS", "dataset_dir"]


@dataclass(frozen=True)
@validate_fields({"name": Text(), "title": Text(), "repo": Text(), "prefix": Text(empty=True),
                 "loader": Text()})
class Dataset:
    """One dataset toponeuro reads: its cache folder, pinned source and loader.

    Parameters
    ----------
    name : str
        The folder under the cache root (``$TOPONEURO_DATA/<name>``).
    title : str
        What it is, with its citation.
    repo : str
        The public repository of the pinned source (``owner/name``; rows of
        :func:`~toponeuro.stimuli.pinned_sources`).
    prefix : str
        Leading folders of the source's paths that are dropped in the cache.
    loader : str
        The public function that reads it.

    Examples
    --------
    >>> DATASETS["langloc"].repo, DATASETS["langloc"].loader
    ('epflneuroailab/topolm', 'toponeuro.stimuli.load_language_localizer')
    """

    name: str
    title: str
    repo: str
    prefix: str
    loader: str


#: every dataset toponeuro downloads, by name (= its folder under the cache root)
DATASETS: dict[str, Dataset] = {
    d.name: d
    for d in (
        Dataset("floc", "fLoc functional-localizer images (Stigliani et al., 2015)",
                "VPNL/fLoc", "stimuli/", "toponeuro.stimuli.load_floc"),
        Dataset("langloc", "language-localizer items (Fedorenko et al., 2010)",
                "epflneuroailab/topolm", "eval/stimuli/",
                "toponeuro.stimuli.load_language_localizer"),
        Dataset("r92", "92 object images and IT RDMs (Kriegeskorte et al., 2008)",
                "rsagroup/rsatoolbox", "demos/92imageData/", "toponeuro.stimuli.load_92_images"),
        Dataset("topolm", "TopoLM's fs_LR 32k verb - noun group contrast (Rathi et al., 2025)",
                "epflneuroailab/topolm", "eval/fmri-fit/",
                "toponeuro.brain.load_topolm_contrast"),
    )
}

_WARNED: set[tuple[str, str]] = set()


@validate_params({"name": Text(), "cache_dir": [PathLike(), None]})
@fill_doc
def dataset_dir(name: str, cache_dir: str | os.PathLike | None = None) -> Path:
    """The folder of dataset ``name`` in the cache: ``<cache>/<name>`` (it may not exist yet).

    The cache root is ``cache_dir``, else ``$TOPONEURO_DATA``, else the platform cache
    folder. Put a copy made by hand here; downloads land here too.

    Parameters
    ----------
    name : str
        A key of :data:`DATASETS`: ``"floc"``, ``"langloc"``, ``"r92"`` or ``"topolm"``.
    %(cache_dir)s

    Returns
    -------
    pathlib.Path
        ``<cache>/<name>``.

    Raises
    ------
    UnknownNameError
        ``name`` is not a dataset (close matches listed).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = tempfile.mkdtemp()
    >>> dataset_dir("floc", d) == pathlib.Path(d) / "floc"
    True
    >>> dataset_dir("fLoc", d)
    Traceback (most recent call last):
    ...
    toponeuro.exceptions.UnknownNameError: Unknown dataset 'fLoc'; did you mean 'floc'? The datasets are ['floc', 'langloc', 'r92', 'topolm'].
    """
    if name not in DATASETS:
        raise UnknownNameError(
            f"Unknown dataset {name!r}; {close_matches(name, list(DATASETS))} The datasets "
            f"are {sorted(DATASETS)}."
        )
    return data_dir(cache_dir) / DATASETS[name].name


def _dataset_of(row) -> Dataset:
    """The dataset a pinned file belongs to: its repository's, the one whose folder (prefix)
    holds the file (one repository can hold several: TopoLM's localizer and its contrast)."""
    of_repo = [d for d in DATASETS.values() if d.repo == row.repo]
    return next((d for d in of_repo if row.path.startswith(d.prefix)), of_repo[0])


def dataset_relpath(row) -> Path:
    """Where a pinned file (a row of ``pinned_sources``) lives under the cache root."""
    ds = _dataset_of(row)
    path = PurePosixPath(row.path)
    inner = path.relative_to(ds.prefix) if row.path.startswith(ds.prefix) else path
    return Path(ds.name, *inner.parts)


def _legacy_relpath(row) -> Path:
    """Where toponeuro before 0.4 downloaded the file."""
    return Path(row.repo.replace("/", "_"), row.commit[:12], *PurePosixPath(row.path).parts)


def legacy_copy(row, cache_dir=None) -> Path | None:
    """The file at its pre-0.4 download place, when it is there, the new place is not, and its
    sha256 is the pinned one; warns once per dataset and cache. Nothing is moved or deleted."""
    root = data_dir(cache_dir)
    new, old = root / dataset_relpath(row), root / _legacy_relpath(row)
    if new.exists() or not old.is_file() or sha256sum(old) != row.sha256.lower():
        return None
    ds = _dataset_of(row)
    key = (ds.name, str(root))
    if key not in _WARNED:
        _WARNED.add(key)
        old_top = root / row.repo.replace("/", "_") / row.commit[:12]
        warnings.warn(
            f"The {ds.title} were found where toponeuro before 0.4 downloaded them "
            f"({old_top}); every dataset now lives in {root}/<dataset>/ (docs/data.rst). They "
            f"are read from the old place for now (nothing was moved or deleted); move "
            f"{old_top / ds.prefix.rstrip('/')} to {root / ds.name} to use the new layout.",
            OldDataLocationWarning,
            stacklevel=user_stacklevel(),
        )
    return old


def floc_offline_message(keys, row, err, cache_dir=None) -> str:
    """The offline fLoc error: the whole set asked for, where it comes from, where to put it."""
    cats = list(dict.fromkeys(c for c, _ in keys))
    nums = sorted({n for _, n in keys})
    span = (f"{nums[0]}-{nums[-1]}" if nums == list(range(nums[0], nums[-1] + 1))
            else first_few(nums, most=10))
    folder = dataset_dir("floc", cache_dir)
    # the cause, without fetch_url's one-file "download ... by hand" hint: the set replaces it
    reason = str(err.__cause__) if err.__cause__ is not None else str(err).split(" Download ")[0]
    return (
        f"Could not download fLoc image {PurePosixPath(row.path).name} ({reason.rstrip('.')}). "
        f"The request needs {len(keys)} images: numbers {span} of each of the {len(cats)} "
        f"categories {', '.join(cats)}, from the stimuli/ folder of "
        f"https://github.com/{row.repo}/tree/{row.commit} (all 1,584 images: 144 per category, "
        f"~196 MB). Offline, copy that folder (category sub-folders, e.g. adult/adult-97.jpg) to "
        f"{folder}, where toponeuro reads it and downloads only what it lacks; or give its "
        "path (path= of load_floc)."
    )
