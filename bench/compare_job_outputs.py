"""Compare two output folders of one job (``toponeuro map`` or ``toponeuro map --language``):
``summary.json`` leaf by leaf (its time fields aside) and ``results.nc`` variable by variable.

For a speed change that must not change a number (issue 46): run the job before and after
with the same seed into two folders, then::

    python bench/compare_job_outputs.py BEFORE_DIR AFTER_DIR [--rtol 1e-12]

Prints every differing ``summary.json`` leaf (with both values) and every ``results.nc``
variable that is not ``identical`` (with its largest absolute and relative difference, and
whether it is within ``--rtol``). Exit status 0 when both files are identical (times
aside), 1 when only float differences within ``--rtol`` remain, 2 otherwise.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

#: summary.json keys that hold times and dates, at any depth
TIME_KEYS = {"created", "seconds", "elapsed", "elapsed_s", "wall_s", "time", "timings",
             "duration_s", "started", "finished"}


def diff_leaves(a, b, path=""):
    """``[(path, a, b)]`` where two JSON documents differ (time keys aside, NaN == NaN)."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b)):
            if k in TIME_KEYS:
                continue
            if k not in a or k not in b:
                out.append((f"{path}/{k}", a.get(k, "<absent>"), b.get(k, "<absent>")))
            else:
                out += diff_leaves(a[k], b[k], f"{path}/{k}")
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in diff_leaves(x, y, f"{path}[{i}]")]
    nan = isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b)
    return [] if (a == b or nan) else [(path, a, b)]


def _close(a, b, rtol) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return abs(a - b) <= rtol * max(abs(a), abs(b), 1e-300)
    return False


def compare_nc(a: Path, b: Path, rtol: float) -> list:
    """``[(variable, what)]`` for every ``results.nc`` variable (or coord) not identical."""
    import numpy as np
    import xarray as xr

    out = []
    with xr.open_dataset(a) as x, xr.open_dataset(b) as y:
        if x.attrs != y.attrs:
            keys = sorted(k for k in set(x.attrs) | set(y.attrs)
                          if k not in TIME_KEYS and x.attrs.get(k) != y.attrs.get(k))
            if keys:
                out.append(("<attrs>", f"differ at {keys}"))
        names = sorted(set(x.variables) | set(y.variables))
        for v in names:
            if v not in x.variables or v not in y.variables:
                out.append((v, "present in one file only"))
                continue
            if x[v].identical(y[v]):
                continue
            xv, yv = x[v].values, y[v].values
            if xv.shape != yv.shape or xv.dtype.kind not in "fc" or yv.dtype.kind not in "fc":
                out.append((v, "not identical (shape, dtype or non-float values)"))
                continue
            both = np.isfinite(xv) & np.isfinite(yv)
            same_nan = np.array_equal(np.isnan(xv), np.isnan(yv))
            ad = np.abs(xv - yv)[both]
            mx = float(ad.max()) if ad.size else 0.0
            rel = float((ad / np.maximum(np.abs(xv[both]), 1e-300)).max()) if ad.size else 0.0
            ok = same_nan and np.allclose(xv, yv, rtol=rtol, atol=0, equal_nan=True)
            out.append((v, f"max |diff| {mx:.3g}, max rel {rel:.3g}, NaNs alike {same_nan}, "
                           f"within rtol {rtol:g}: {ok}"))
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("before", type=Path)
    p.add_argument("after", type=Path)
    p.add_argument("--rtol", type=float, default=1e-12)
    args = p.parse_args(argv)
    s0 = json.loads((args.before / "summary.json").read_text())
    s1 = json.loads((args.after / "summary.json").read_text())
    leaves = diff_leaves(s0, s1)
    print(f"summary.json: {len(leaves)} leaves differ (times aside)")
    for path, a, b in leaves[:50]:
        print(f"  {path}: {a!r} -> {b!r}")
    nc = compare_nc(args.before / "results.nc", args.after / "results.nc", args.rtol)
    print(f"results.nc: {len(nc)} variables not identical")
    for v, what in nc:
        print(f"  {v}: {what}")
    if not leaves and not nc:
        print("identical (times aside)")
        return 0
    small = all(_close(a, b, args.rtol) for _, a, b in leaves) and all(
        what.endswith("True") for _, what in nc)
    return 1 if small else 2


if __name__ == "__main__":
    sys.exit(main())
