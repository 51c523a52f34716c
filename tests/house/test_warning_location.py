"""A warning raised in a declared function's body names the user's line (issue 44).

:func:`~toponeuro._util.params.validate_params` runs the body inside a wrapper, one frame
more than a fixed ``stacklevel`` counts; toponeuro's warnings pass
``stacklevel=user_stacklevel()``, which counts the package's frames instead.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np

import toponeuro
from toponeuro._util.params import Boolean, validate_params
from toponeuro._util.stack import user_stacklevel
from toponeuro.analysis import participation_ratio
from toponeuro.exceptions import UndefinedValueWarning


def _record(func, *args, **kwargs):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        func(*args, **kwargs)
    return w


def test_a_declared_public_function_warns_at_the_users_line():
    assert participation_ratio.__toponeuro_params__  # declared: its body runs in the wrapper
    w = _record(participation_ratio, np.ones((3, 2)))  # too few stimuli: NaN, with a warning
    assert [x.category for x in w] == [UndefinedValueWarning]
    assert w[0].filename == __file__, w[0].filename


def test_a_fixed_stacklevel_would_point_at_the_wrapper():
    """The planted case: ``stacklevel=2`` in a declared body names ``_util/params.py``
    (the regression), ``user_stacklevel()`` this file."""
    planted = {"user_stacklevel": user_stacklevel}
    exec(compile(  # a body "inside" the package, as toponeuro's own functions are
        "import warnings\n"
        "def fixed(flag):\n    warnings.warn('w', stacklevel=2)\n"
        "def counted(flag):\n    warnings.warn('w', stacklevel=user_stacklevel())\n",
        str(Path(toponeuro.__file__).parent / "_planted.py"), "exec"),
        planted)
    fixed = validate_params({"flag": Boolean()})(planted["fixed"])
    counted = validate_params({"flag": Boolean()})(planted["counted"])
    assert Path(_record(fixed, True)[0].filename).name == "params.py"
    assert _record(counted, True)[0].filename == __file__


def test_every_warning_counts_its_frames():
    """No ``warnings.warn`` in the package passes a fixed number as its stacklevel."""
    fixed = []
    for path in Path(toponeuro.__file__).parent.rglob("*.py"):
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if re.search(r"stacklevel=\d", line):
                fixed.append(f"{path.name}:{n}")
    assert not fixed, f"use stacklevel=user_stacklevel() (toponeuro._util.stack): {fixed}"
