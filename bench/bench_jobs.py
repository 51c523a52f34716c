"""The two main jobs, the test lanes and the docs build: wall and CPU time, before -> after
(issue 46), each printed with the load average it was measured at.

The jobs (``toponeuro map``, ``toponeuro map --language``) run twice in one call on one
scratch cache (``$TOPONEURO_DATA``, holding a link to the real fLoc copy and the localizer csv
when ``--shared`` has them):

* **before** -- a cache with no null draws: every spin test of the cortex maps is drawn, the
  work every run did before the null cache;
* **after** -- the same command again: the cortex side's draws are read from the cache
  (``toponeuro/_io/null_cache.py``).

The two runs' ``summary.json`` are compared leaf by leaf (times and dates aside) and their
``results.nc`` variable by variable: the numbers must be identical. Each figure is the
child's own ``getrusage`` (user + sys CPU seconds, peak resident memory) and its wall time.

``--suite`` also times ``pytest -m "not slow"`` and the full suite (``-n 2``: two
pytest-xdist workers, as the README's test command; ``--workers 0``: one process), ``--docs``
the Sphinx build as ``.ci/run`` runs it (both long: minutes). Run from the repository root::

    python bench/bench_jobs.py                  # the vision job, before -> after
    python bench/bench_jobs.py --prepare        # and `toponeuro prepare`, then a first run
    python bench/bench_jobs.py --language       # and the language job
    python bench/bench_jobs.py --suite --docs   # and the test lanes and the docs build
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TIME_KEYS = {"created", "seconds"}


def load() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "n/a"


def timed(cmd: list[str], env: dict, log: Path) -> dict:
    """Run ``cmd``; its wall seconds, CPU seconds (user + sys) and peak memory (MiB)."""
    load0 = load()
    t0 = time.perf_counter()
    with open(log, "w") as out:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    return {"wall_s": round(wall, 1), "cpu_s": round(usage.ru_utime + usage.ru_stime, 1),
            "peak_mib": round(usage.ru_maxrss / 1024), "exit": os.waitstatus_to_exitcode(status),
            "load_before": load0, "load_after": load()}


def diff_leaves(a, b, path="") -> list:
    """Paths where two JSON documents differ (``created`` and ``seconds`` aside)."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b)):
            if k in TIME_KEYS and path == "":
                continue
            out += diff_leaves(a.get(k), b.get(k), f"{path}/{k}") if k in a and k in b else [
                f"{path}/{k}"]
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [p for i, (x, y) in enumerate(zip(a, b)) for p in diff_leaves(x, y, f"{path}[{i}]")]
    same = a == b or (isinstance(a, float) and isinstance(b, float) and a != a and b != b)
    return [] if same else [path]


def same_results(a: Path, b: Path) -> list:
    """``results.nc`` variables that differ between two outputs."""
    import xarray as xr

    with xr.open_dataset(a / "results.nc") as x, xr.open_dataset(b / "results.nc") as y:
        names = sorted(set(x.data_vars) | set(y.data_vars))
        return [v for v in names if v not in x or v not in y or not x[v].equals(y[v])]


def job(name: str, flags: list[str], env: dict, work: Path) -> None:
    runs = {}
    for when in ("before", "after"):
        out = work / f"{name}-{when}"
        cmd = [sys.executable, "-m", "toponeuro", "map", *flags, "--out", str(out),
               "--no-progress", "--overwrite"]
        runs[when] = timed(cmd, env, work / f"{name}-{when}.log")
        print(f"{name} {when:6s}: wall {runs[when]['wall_s']:7.1f} s, CPU "
              f"{runs[when]['cpu_s']:7.1f} s, peak {runs[when]['peak_mib']:6d} MiB, exit "
              f"{runs[when]['exit']}, load {runs[when]['load_before']} -> "
              f"{runs[when]['load_after']}", flush=True)
    b, a = runs["before"], runs["after"]
    print(f"{name}: before -> after  wall {b['wall_s']} -> {a['wall_s']} s "
          f"({b['wall_s'] / max(a['wall_s'], 1e-9):.2f}x), CPU {b['cpu_s']} -> {a['cpu_s']} s "
          f"({b['cpu_s'] / max(a['cpu_s'], 1e-9):.2f}x)")
    if b["exit"] == 0 and a["exit"] == 0:
        s0 = json.loads((work / f"{name}-before" / "summary.json").read_text())
        s1 = json.loads((work / f"{name}-after" / "summary.json").read_text())
        leaves = diff_leaves(s0, s1)
        nc = same_results(work / f"{name}-before", work / f"{name}-after")
        print(f"{name}: summary.json leaves that differ (times aside): {leaves or 'none'}; "
              f"results.nc variables that differ: {nc or 'none'}")


def prepared(env: dict, work: Path) -> None:
    """``toponeuro prepare`` into a null cache of its own, then the vision job's first run on
    it (a warm run: its cortex side is read), compared with the job's run "before"."""
    env = {**env, "TOPONEURO_NULL_CACHE": str(work / "prepared-nulls")}
    prep = timed([sys.executable, "-m", "toponeuro", "prepare"], env, work / "prepare.log")
    print(f"toponeuro prepare: wall {prep['wall_s']} s, CPU {prep['cpu_s']} s, peak "
          f"{prep['peak_mib']} MiB, exit {prep['exit']}, load {prep['load_before']} -> "
          f"{prep['load_after']}", flush=True)
    out = work / "vision-prepared"
    r = timed([sys.executable, "-m", "toponeuro", "map", "--out", str(out), "--no-progress",
               "--overwrite"], env, work / "vision-prepared.log")
    print(f"vision, first run after prepare: wall {r['wall_s']} s, CPU {r['cpu_s']} s, peak "
          f"{r['peak_mib']} MiB, exit {r['exit']}, load {r['load_before']} -> "
          f"{r['load_after']}", flush=True)
    before = work / "vision-before"
    if r["exit"] == 0 and (before / "summary.json").is_file():
        leaves = diff_leaves(json.loads((before / "summary.json").read_text()),
                             json.loads((out / "summary.json").read_text()))
        print(f"vision after prepare vs before: summary.json leaves that differ (times aside): "
              f"{leaves or 'none'}; results.nc variables that differ: "
              f"{same_results(before, out) or 'none'}")


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--language", action="store_true", help="also the language job")
    p.add_argument("--no-vision", action="store_true", help="skip the vision job")
    p.add_argument("--prepare", action="store_true",
                   help="also `toponeuro prepare`, then the vision job's first run after it")
    p.add_argument("--suite", action="store_true", help="time the fast lane and the full suite")
    p.add_argument("--workers", default="2",
                   help="pytest-xdist workers of --suite (pytest -n; '0': one process)")
    p.add_argument("--docs", action="store_true", help="time the Sphinx build")
    p.add_argument("--shared", default=str(ROOT.parent / "shared"),
                   help="the shared data folder (data/floc, data/langloc)")
    args = p.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="bench_jobs_"))
    data = work / "data"
    data.mkdir()
    shared = Path(args.shared) / "data"
    if (shared / "floc").is_dir():
        (data / "floc").symlink_to(shared / "floc")
    csv = shared / "langloc" / "fedorenko2010_stimuli.csv"
    if csv.is_file():
        (data / "langloc").mkdir()
        (data / "langloc" / "fedorenko_stimuli.csv").write_bytes(csv.read_bytes())
    env = {**os.environ, "TOPONEURO_DATA": str(data), "MPLBACKEND": "Agg",
           "PYTHONPATH": str(ROOT)}
    print(f"bench_jobs: {os.cpu_count()} CPUs, load {load()}, scratch {work}", flush=True)
    if not args.no_vision:
        job("vision", [], env, work)
        if args.prepare:
            prepared(env, work)
    if args.language:
        job("language", ["--language"], env, work)
    pytest = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
              "-n", args.workers]
    if args.suite:
        for lane, extra in (("fast lane (-m 'not slow')", ["-m", "not slow"]), ("full suite", [])):
            r = timed(pytest + extra, env, work / "suite.log")
            print(f"{lane} (-n {args.workers}): wall {r['wall_s']} s, CPU {r['cpu_s']} s, exit {r['exit']}, load "
                  f"{r['load_before']} -> {r['load_after']}", flush=True)
    if args.docs:
        r = timed([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-b", "html", "docs",
                   str(work / "html"), "-q"], env, work / "docs.log")
        print(f"docs build: wall {r['wall_s']} s, CPU {r['cpu_s']} s, exit {r['exit']}, load "
              f"{r['load_before']} -> {r['load_after']}")


if __name__ == "__main__":
    main()
