"""Data for the tutorials (and your own notebooks), through the library, and the note that
says which data ran: the public helpers the gallery pages use.

The tutorials get their data through the library: load_floc() reads the local copy
$TOPONEURO_DATA/floc (docs/install.rst) or downloads the pinned images;
load_language_localizer() reads the pinned csv from the cache or downloads it. Without
either (offline, no copy) they run on labelled synthetic stand-ins, and say so in the page.
"""

from __future__ import annotations

__all__ = ["tutorial_floc", "tutorial_language_localizer", "data_note"]



def tutorial_floc(numbers, categories=None, *, size: int = 64, random_state: int = 0,
                  path=None):
    """fLoc images for a tutorial, or synthetic gratings when they cannot be had.

    :func:`toponeuro.stimuli.load_floc` (of ``path`` when given, e.g. a local copy): without
    a path, the local copy ``$TOPONEURO_DATA/floc`` when it exists, else the pinned download
    into the cache. When
    neither works (offline and no copy), :func:`toponeuro.stimuli.make_stimulus_set`
    gratings with the same categories and count per category, named ``"synthetic"``; show
    :func:`data_note` of the result so the rendered page says which data ran.

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


def tutorial_language_localizer(n_per_condition: int, conditions=("S", "N"), *,
                                random_state: int = 0):
    """The first ``n_per_condition`` language-localizer items of each condition, or a
    synthetic stand-in when they cannot be had.

    :func:`toponeuro.stimuli.load_language_localizer` without a path: the pinned
    Fedorenko et al. (2010) csv from the cache (``$TOPONEURO_DATA``), else downloaded. When
    neither works: sentences from :func:`toponeuro.stimuli.make_stimulus_set` (``S``), their
    words shuffled (``W``), their long words spelled backwards (``J``) and all words shuffled
    and backwards (``N``), named ``"synthetic"``; show :func:`data_note`.

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

    Examples
    --------
    >>> note = data_note(make_stimulus_set_for_doc())
    >>> note.synthetic, "Synthetic data" in note._repr_html_()
    (True, True)
    """

    def __init__(self, stimuli, what: str = "fLoc images"):
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

    def __repr__(self) -> str:
        return f"{self.title}: {self.text}"

    def _repr_html_(self) -> str:
        kind = "warning" if self.synthetic else "note"
        return (
            f'<div class="admonition {kind}"><p class="admonition-title">{self.title}</p>'
            f"<p>{self.text}</p></div>"
        )
