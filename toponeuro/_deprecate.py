"""Deprecated names kept for one release: each use warns with a FutureWarning naming the new one.

FutureWarning (not DeprecationWarning) because the users of these names are scripts and
notebooks, where Python hides DeprecationWarnings (as pandas and scikit-learn do).
"""

from __future__ import annotations

import functools
import warnings

from .exceptions import InputTypeError

__all__ = ["renamed_parameter", "renamed_function", "warn_renamed"]


def warn_renamed(old: str, new: str, stacklevel: int = 3) -> None:
    """Warn that ``old`` is deprecated in favour of ``new`` (removed in the next release).

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     warn_renamed("f(data_dir=)", "f(cache_dir=)")
    >>> w[0].category.__name__, str(w[0].message).split(";")[0]
    ('FutureWarning', 'f(data_dir=) is deprecated and will be removed in the next release')
    """
    warnings.warn(
        f"{old} is deprecated and will be removed in the next release; use {new}.",
        FutureWarning,
        stacklevel=stacklevel,
    )


def renamed_parameter(old: str, new: str):
    """Decorator: keyword ``old=`` still works (with a FutureWarning) and means ``new=``.

    Examples
    --------
    >>> @renamed_parameter("data_dir", "cache_dir")
    ... def f(cache_dir=None):
    ...     return cache_dir
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", FutureWarning)
    ...     f(data_dir="/tmp")
    '/tmp'
    """

    def decorator(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            if old in kwargs:
                if new in kwargs:
                    raise InputTypeError(
                        f"{fn.__name__}() got {old}= (deprecated) and {new}=; pass only {new}=."
                    )
                warn_renamed(f"{fn.__name__}({old}=...)", f"{new}=")
                kwargs[new] = kwargs.pop(old)
            return fn(*args, **kwargs)

        return wrapper

    return decorator


def renamed_function(fn, old: str, new: str):
    """A deprecated alias ``old`` of ``fn`` that warns (naming ``new``) and then calls it.

    Examples
    --------
    >>> def total(xs):
    ...     return sum(xs)
    >>> add_up = renamed_function(total, "add_up", "total")
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", FutureWarning)
    ...     add_up([1, 2])
    3
    """

    @functools.wraps(fn)
    def alias(*args, **kwargs):
        warn_renamed(old, new)
        return fn(*args, **kwargs)

    alias.__name__ = alias.__qualname__ = old.rsplit(".", 1)[-1]
    alias.__doc__ = f"Deprecated alias of :func:`{new}` (removed in the next release)."
    return alias
