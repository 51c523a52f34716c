"""Where a warning points: the user's line, not toponeuro's own frames.

A declared public function (:func:`toponeuro._util.params.validate_params`) runs inside a
wrapper, one frame more than its body counts; a fixed ``stacklevel`` then points at the
wrapper, in ``_util/params.py``. :func:`user_stacklevel` counts the frames instead (pandas'
``find_stack_level``): every ``warnings.warn`` in toponeuro passes
``stacklevel=user_stacklevel()`` and the warning names the first line outside the package.
"""

from __future__ import annotations

import os
import sys

__all__ = ["user_stacklevel"]

#: the package's folder; frames whose file lies in it are toponeuro's own
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def user_stacklevel() -> int:
    """The ``stacklevel`` for ``warnings.warn`` that points at the first frame outside toponeuro.

    Call it in the argument list of ``warnings.warn``: level 1 is the function warning, each
    toponeuro frame above it adds one.

    Returns
    -------
    int
        1 + the number of toponeuro frames between the warning and the user's code.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     warnings.warn("x", stacklevel=user_stacklevel())
    >>> w[0].lineno > 0
    True
    """
    frame = sys._getframe(1)  # the function calling warnings.warn
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back
        level += 1
    return level
