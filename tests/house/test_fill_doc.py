"""``fill_doc`` is indentation-aware (issue 44, nilearn's ``fill_doc``): a shared entry reads
as one numpydoc parameter wherever its placeholder sits."""

from __future__ import annotations

from numpydoc.docscrape import FunctionDoc

from toponeuro._util.docs import DOCDICT, fill_doc


class _Holder:
    def method(self, alpha=0.05, device="cpu"):
        """Doc.

        Parameters
        ----------
        %(alpha)s
        %(device)s
        """


def _dedented(alpha=0.05, device="cpu"):
    pass


# what Python 3.13 stores: the docstring dedented at compile time
_dedented.__doc__ = "Doc.\n\nParameters\n----------\n%(alpha)s\n%(device)s\n"


def test_an_entry_in_a_method_docstring_is_one_parameter():
    doc = fill_doc(_Holder.method).__doc__
    params = FunctionDoc(_Holder.method, doc=doc)["Parameters"]
    assert [p.name for p in params] == ["alpha", "device"]
    # the description lines sit under their parameter (a shift of 4 spaces), not beside it
    assert "\n            Significance level" in doc
    assert " ".join(params[0].desc).startswith("Significance level of every claim")


def test_an_entry_in_a_dedented_docstring_is_one_parameter():
    doc = fill_doc(_dedented).__doc__
    assert "\n    Significance level" in doc and "\n        Significance" not in doc
    params = FunctionDoc(_dedented, doc=doc)["Parameters"]
    assert [p.name for p in params] == ["alpha", "device"]


def _function(alpha=0.05):
    """Doc.

    Parameters
    ----------
    %(alpha)s
    """


def test_a_function_docstring_reads_as_the_entry_is_written():
    assert fill_doc(_function).__doc__.split("----------\n", 1)[1].rstrip() == "    " + DOCDICT["alpha"]


def test_no_public_docstring_keeps_a_placeholder():
    """Every public object whose docstring uses a shared entry (``%(name)s``) is filled
    (decorated with fill_doc): none reads a raw placeholder."""
    import inspect
    import re

    from test_docstrings import _resolve, public_objects  # tests/house/ is on sys.path

    raw = re.compile(r"%\(\w+\)s")
    left = []
    for path in public_objects().values():
        obj = _resolve(path)  # a function, a class, or a method or property of one
        docs = [obj.__doc__ or ""]
        if inspect.isclass(obj):
            docs += [m.__doc__ or "" for _, m in inspect.getmembers(obj, callable)
                     if not _.startswith("_")]
        left += [path for d in docs if raw.search(d)]
    assert not left, sorted(set(left))
