"""Data for the tutorials (and your own notebooks), through the library, and the note that
says which data ran: the public helpers the gallery pages use.

The tutorials get their data through the library: load_floc() reads the local copy
$TOPONEURO_DATA/floc (docs/install.rst) or downloads the pinned images;
load_language_localizer() reads the pinned csv from the cache or downloads it. Without
either (offline, no copy) they run on labelled synthetic stand-ins, and say so in the page.
"""

from __future__ import annotations

from numbers import Integral

from ._util.docs import fill_doc
from ._util.params import SEED, Interval, Text, validate_params

__all__ = ["tutorial_floc", "tutorial_language_localizer", "tutorial_topolm_contrast",
           "data_note"]



@fill_doc
@validate_params({"size": Interval(Integral, 1, None, closed="left", fix="size is in pixels."),
                  "random_state": SEED})
def tutorial_floc(numbers, categories=None, *, size: int = 64, random_state: int = 0,
                  path=None):
    """The fLoc images of a tutorial, or synthetic gratings when they cannot be had.

    :func:`toponeuro.stimuli.load_floc` (of ``path`` when given, e.g. a local copy): without
    a path, the local copy ``$TOPONEURO_DATA/floc`` when it exists, else the pinned download
    into the cache. When
    neither works (offline and no copy), :func:`toponeuro.stimuli.make_stimulus_set`
    gratings with the same categories and count per category, named ``"synthetic"``; show
    :func:`data_note` of the result so the rendered page says which data ran.

    Parameters
    ----------
    numbers : sequence of int
        The image numbers wanted in each category.
    categories : sequence of str, optional
        The categories (default: fLoc's).
    size : int
        Side of the synthetic gratings.
    %(random_state)s
    path : path-like, optional
        A local copy of the fLoc images.

    Returns
    -------
    StimulusSet
        The images; named ``"synthetic"`` for the stand-in.

    Examples
    --------
    >>> s = tutorial_floc(range(97, 99), ["adult", "house"])  # doctest: +SKIP
    >>> s.name, len(s)  # 'floc' with the images, 'synthetic' without  # doctest: +SKIP
    ('floc', 4)
    """
    from .exceptions import DownloadError, MissingFileError
    from .stimuli import FLOC_CATEGORIES, load_floc, make_stimulus_set

    numbers = list(numbers)
    cats = list(categories) if categories is not None else list(FLOC_CATEGORIES)
    try:
        return load_floc(path, categories=cats, numbers=numbers)
    except (DownloadError, MissingFileError, OSError):
        return make_stimulus_set(len(numbers), cats, size=size, random_state=random_state)


@fill_doc
@validate_params({"n_per_condition": Interval(Integral, 1, None, closed="left"),
                  "random_state": SEED})
def tutorial_language_localizer(n_per_condition: int, conditions=("S", "N"), *,
                                random_state: int = 0):
    """The first ``n_per_condition`` language-localizer items of each condition, or a
    synthetic stand-in when they cannot be had.

    :func:`toponeuro.stimuli.load_language_localizer` without a path: the pinned
    Fedorenko et al. (2010) csv from the cache (``$TOPONEURO_DATA``), else downloaded. When
    neither works: sentences from :func:`toponeuro.stimuli.make_stimulus_set` (``S``), their
    words shuffled (``W``), their long words spelled backwards (``J``) and all words shuffled
    and backwards (``N``), named ``"synthetic"``; show :func:`data_note`.

    Parameters
    ----------
    n_per_condition : int
        Items of each condition.
    conditions : sequence of str
        The conditions (``"S"`` sentences, ``"W"`` word lists, ``"J"`` Jabberwocky,
        ``"N"`` non-word lists).
    %(random_state)s

    Returns
    -------
    StimulusSet
        Text stimuli with the conditions as categories; named ``"synthetic"`` for the
        stand-in.

    Examples
    --------
    >>> items = tutorial_language_localizer(2)  # doctest: +SKIP
    >>> items.categories.tolist()  # doctest: +SKIP
    ['S', 'S', 'N', 'N']
    """
    import numpy as np

    from .exceptions import DownloadError, MissingFileError
    from .stimuli import StimulusSet, load_language_localizer, make_stimulus_set

    conditions = list(conditions)
    try:
        items = load_language_localizer(conditions=conditions)
    except (DownloadError, MissingFileError, OSError):
        if not set(conditions) <= {"S", "W", "J", "N"}:
            raise
        synthetic = make_stimulus_set(max(1, n_per_condition // 5), kind="text",
                                      random_state=random_state)
        sentences = [synthetic.get(i) for i in range(len(synthetic))]
        rng = np.random.default_rng(random_state)
        made = {
            "S": sentences,  # sentences
            "W": [" ".join(rng.permutation(s.split())) for s in sentences],  # word lists
            "J": [" ".join(w[::-1] if len(w) > 3 else w for w in s.split())  # Jabberwocky-like
                  for s in sentences],
            "N": [" ".join(w[::-1] for w in rng.permutation(s.split())) for s in sentences],
        }
        n = len(sentences)
        ids, texts, cats = [], [], []
        for c in conditions:
            ids += [f"{c}-{i}" for i in range(n)]
            texts += made[c]
            cats += [c] * n
        return StimulusSet(ids, texts, "text", categories=cats, name="synthetic")
    keep = np.concatenate([items.ids[items.categories == c][:n_per_condition]
                           for c in conditions])
    return items.select(keep)


@fill_doc
@validate_params({"random_state": SEED})
def tutorial_topolm_contrast(local_copies=None, *, random_state: int = 0):
    """TopoLM's fs_LR 32k verb - noun group contrast for a tutorial, or a synthetic fs_LR map
    when it cannot be had.

    :func:`toponeuro.brain.load_topolm_contrast` without a path (the cache
    ``$TOPONEURO_DATA``, else the pinned download); offline, the first of ``local_copies``
    (folders holding ``group-level-contrast.nc``; default: ``shared/data/topolm`` in the
    working directory or any folder above it, where a checkout's ``../shared`` lies) that
    exists. Without either: smooth random bumps on the left fs_LR 32k sphere in t-like units,
    named ``"synthetic"`` (``attrs["synthetic"]`` True); show :func:`data_note` of the result.

    Parameters
    ----------
    local_copies : sequence of path-like, optional
        Folders to look in, offline, for ``group-level-contrast.nc``.
    %(random_state)s

    Returns
    -------
    xarray.DataArray
        The contrast, one value per vertex (dim ``"voxel"``, coords ``hemi`` and ``vertex``).

    Examples
    --------
    >>> t = tutorial_topolm_contrast(local_copies=[])  # doctest: +SKIP
    >>> t.sizes["voxel"], t.attrs["mesh"]  # doctest: +SKIP
    (32492, 'fs_LR_32k')
    """
    from pathlib import Path

    import numpy as np
    import xarray as xr

    from ._util.dims import HEMI, VERTEX, VOXEL
    from .brain import load_topolm_contrast
    from .exceptions import DownloadError

    try:
        t = load_topolm_contrast()
        t.attrs["origin"] = "TopoLM's file (pinned, sha256-checked)"
        return t
    except DownloadError:
        pass
    if local_copies is None:
        here = Path.cwd().resolve()
        local_copies = [d / "shared" / "data" / "topolm" for d in (here, *here.parents)]
    for folder in map(Path, local_copies):
        if (folder / "group-level-contrast.nc").is_file():
            t = load_topolm_contrast(folder / "group-level-contrast.nc")
            t.attrs["origin"] = f"TopoLM's file, local copy {folder} (offline)"
            return t
    from .atlases import vertex_coordinates

    rng = np.random.default_rng(random_state)
    u = vertex_coordinates("sphere", "left", mesh="fs_LR_32k")
    u = u / np.linalg.norm(u, axis=1, keepdims=True)
    centres = rng.standard_normal((60, 3))
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    values = (rng.normal(0, 2.5, 60) * np.exp(-(1 - u @ centres.T) * 50)).sum(1)
    return xr.DataArray(values, dims=(VOXEL,), name="synthetic", coords={
        HEMI: (VOXEL, np.full(values.size, "left")), VERTEX: (VOXEL, np.arange(values.size))},
        attrs={"mesh": "fs_LR_32k", "synthetic": True, "origin": "synthetic"})


def make_stimulus_set_for_doc():
    """Two synthetic stimuli (for the examples of this module).

    Examples
    --------
    >>> len(make_stimulus_set_for_doc())
    2
    """
    from .stimuli import make_stimulus_set

    return make_stimulus_set(1, ("faces", "places"), size=8)


class data_note:  # noqa: N801 - used like a function in the tutorials
    """What a tutorial ran on, as a note the rendered page shows (sphinx-gallery renders a
    cell's last value with ``_repr_html_``): a warning box for synthetic stand-ins.

    Parameters
    ----------
    stimuli : StimulusSet or xarray.DataArray
        What the tutorial ran on: a stimulus set, or a cortex map
        (:func:`tutorial_topolm_contrast`).
    what : str
        What the data are, in the note's words (``"fLoc images"``).

    Examples
    --------
    >>> note = data_note(make_stimulus_set_for_doc())
    >>> note.synthetic, "Synthetic data" in note._repr_html_()
    (True, True)
    """

    @validate_params(dict(what=Text()))
    def __init__(self, stimuli, what: str = "fLoc images"):
        if hasattr(stimuli, "dims"):  # a cortex map (tutorial_topolm_contrast)
            self._map_note(stimuli, what)
            return
        self.synthetic = stimuli.name == "synthetic"
        n = len(stimuli)
        if self.synthetic:
            text = stimuli.kind == "text"
            self.title = "Synthetic data"
            self.text = (
                f"The {what} are not available here (no copy in "
                f"{'the cache $TOPONEURO_DATA' if text else '$TOPONEURO_DATA/floc'} and no "
                f"network), so this page ran on {n} synthetic "
                f"{'stand-in items (sentences, shuffled and backwards-spelled words)' if text else 'gratings'} "
                "(toponeuro.stimuli.make_stimulus_set): the figures show the method, not "
                f"results about the real {'items' if text else 'images'}. See the install "
                "page to get the data."
            )
        else:
            self.title = "Data"
            self.text = f"This page ran on {n} {what} ({stimuli.name})."

    def _map_note(self, cortex_map, what: str) -> None:
        self.synthetic = bool(cortex_map.attrs.get("synthetic"))
        if self.synthetic:
            self.title = "Synthetic data"
            self.text = (
                f"The {what} is not available here (not in the cache $TOPONEURO_DATA, no "
                "local copy and no network), so this page ran on a synthetic map (smooth random "
                "bumps on the fs_LR 32k sphere): the figures and numbers show the method, not "
                "results about the real map. See the install page to get the data.")
        else:
            self.title = "Data"
            self.text = (f"This page ran on the {what}: {cortex_map.attrs.get('origin', '')}, "
                         f"{cortex_map.sizes[cortex_map.dims[0]]:,} vertices.")

    def __repr__(self) -> str:
        return f"{self.title}: {self.text}"

    def _repr_html_(self) -> str:
        kind = "warning" if self.synthetic else "note"
        return (
            f'<div class="admonition {kind}"><p class="admonition-title">{self.title}</p>'
            f"<p>{self.text}</p></div>"
        )
