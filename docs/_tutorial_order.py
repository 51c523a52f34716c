"""Order of the tutorials in the gallery: the quickstart first, then by file name.

Referenced from ``conf.py`` by its qualified name (sphinx-gallery imports it), so the Sphinx
configuration stays picklable.
"""

from sphinx_gallery.sorting import FileNameSortKey

FIRST = ("plot_quickstart.py",)


class QuickstartFirst(FileNameSortKey):
    """Sort key: the files in ``FIRST`` in that order, then the rest by file name."""

    def __call__(self, filename: str):
        rank = FIRST.index(filename) if filename in FIRST else len(FIRST)
        return rank, filename
