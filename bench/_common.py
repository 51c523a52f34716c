"""What the bench scripts share: size options with a ``--small`` preset, peak memory, timing,
and running a script again in a child process that reports one JSON line.

The scripts run as ``python bench/<name>.py``, so this folder is on ``sys.path`` and they
``from _common import ...``.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time


def add_sizes(parser, sizes: dict, small: dict) -> None:
    """Add ``--<name>`` for each problem size (typed by its default) and ``--small``."""
    for name, default in sizes.items():
        parser.add_argument("--" + name.replace("_", "-"), type=type(default), default=default)
    quick = ", ".join(f"{k}={v}" for k, v in small.items())
    parser.add_argument("--small", action="store_true", help=f"quick run: {quick}")


def parse_sizes(parser, small: dict, argv=None):
    """``parser.parse_args(argv)``, with the ``small`` sizes applied when ``--small`` is set."""
    args = parser.parse_args(argv)
    if args.small:
        vars(args).update(small)
    return args


def size_argv(args, sizes: dict) -> list[str]:
    """The command-line flags that pass the current values of ``sizes`` to a child."""
    out = []
    for name in sizes:
        out += ["--" + name.replace("_", "-"), str(getattr(args, name))]
    return out


def peak_rss_mib() -> float:
    """Peak resident memory of this process since it started (VmHWM on Linux).

    ``ru_maxrss`` is the fallback only: on Linux it keeps the parent's peak across fork + exec.
    """
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def best_of(fn, repeat: int = 1):
    """``(fastest wall-clock seconds over repeat calls, last result)``."""
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def run_child(script: str, *argv: str, env=None) -> dict:
    """Run ``python script *argv`` and return the JSON object on the last line it printed.

    Raises RuntimeError (with the end of its stderr) when it fails or prints nothing.
    """
    res = subprocess.run([sys.executable, script, *argv], capture_output=True, text=True,
                         env=env, check=False)
    lines = res.stdout.strip().splitlines()
    if res.returncode or not lines:
        raise RuntimeError(f"{script} {' '.join(argv)} failed (rc={res.returncode}):\n"
                           f"{res.stderr[-3000:]}")
    return json.loads(lines[-1])


def card_toml(*, name, profile, sha, tau, recipe, seed, steps, evaluation, description,
              base_sha256=None) -> str:
    """One ``[[model]]`` entry of toponeuro/models/cards.toml for a shipped demo model.

    The fields every shipped card has, in the registry's order (``base_sha256`` only for
    weights laid over a base model); ``evaluation`` maps metric names to floats.
    """
    ev = ", ".join(f"{k} = {v:.4f}" for k, v in evaluation.items())
    base = f'base_sha256 = "{base_sha256}"\n' if base_sha256 else ""
    return (
        f'[[model]]\nname = "{name}"\nprofiles = ["{profile}"]\n'
        f'package_path = "toponeuro.models:weights/{name}.pt"\nsha256 = "{sha}"\n{base}'
        f'tau = {float(tau)}\nrecipe = "{recipe}"\nseed = {seed}\ntrain_steps = {steps}\n'
        f"evaluation = {{ {ev} }}\ndescription = \"{description}\"\n"
    )


def clopper_pearson(k: int, n: int) -> tuple[float, float]:
    """Exact (Clopper-Pearson) 95 % interval of a rate of ``k`` hits in ``n`` trials."""
    from scipy import stats

    ci = stats.binomtest(int(k), int(n)).proportion_ci(0.95, method="exact")
    return float(ci.low), float(ci.high)
