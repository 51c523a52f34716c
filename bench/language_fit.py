"""TopoLM's verb - noun fit on a shipped demo language model: run the language job, time it
cold and warm, and write the table docs/demo_language_fit.inc shows.

    python bench/language_fit.py --out /tmp/lang-fit               # cold + warm run, the .inc
    python bench/language_fit.py --out /tmp/lang-q --quick         # small draws, no .inc
    python bench/language_fit.py --out /tmp/lang-fit --profile /tmp/lang.prof  # cProfile, run 1
    python bench/language_fit.py --out /tmp/lang-p --prepare --runs 1  # prepare, then a run
    python bench/language_fit.py --summary /tmp/lang-fit/summary.json   # table only

Each run is a child process (``--runs``, default 2) measured on its own: wall, CPU
(user + sys) and peak memory (``os.wait4``), with ``uptime``'s load before and after. The
first run starts from an empty null cache (a new folder of its own, or ``--cache``: give an
empty one for a cold run): the cold run; the second reads the cortex side from it: the warm
run. Run 2 writes to ``<out>-warm`` so the two folders can be compared
(``bench/compare_job_outputs.py``). On a shared machine the CPU time is the number to
compare; the load says how far the wall time can be trusted.

Data: the localizer csv, TopoLM's verb and noun items and its group contrast (``.nc``) from
``../shared/data`` (or the pinned downloads when absent). The .inc gives the headline, the
one count of language-selective units and every comparison row (model, cortex, verdict).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"


def _cell(side: dict) -> str:
    v = side.get("value")
    if v is None:
        return "undefined"
    p = side.get("p_value")
    null = side.get("null", "none")
    lo, hi = side.get("interval_lo"), side.get("interval_hi")
    val = f"{v:.3g}" + (f" [{lo:.3g}, {hi:.3g}]" if lo is not None and hi is not None else "")
    if p is None or null == "none":
        return f"{val} (no null)"
    return f"{val} ({null} null p = {p:.3g})"


def inc_text(summary: dict) -> str:
    """The reStructuredText the docs include, from one run's summary.json."""
    comp = summary["comparison"]
    ly, r = list(summary["per_layer"].items())[-1]
    lines = [
        "On the shipped model",
        "~~~~~~~~~~~~~~~~~~~~",
        "",
        f"``{summary['model']['name']}``, {summary['stimuli']['n_stimuli']} localizer items and "
        f"{summary.get('verb_noun', {}).get('items', {}).get('n_stimuli', 0)} verb and noun "
        f"items, {summary['settings']['null']['n_permutations']:,} draws of the model's nulls and "
        f"{summary['settings']['ruler']['n_permutations']:,} of each descriptor's null on each "
        f"side of the comparisons "
        f"(``bench/language_fit.py``). The headline:",
        "",
        f"    {summary['headline']}",
        "",
        f"Language-selective units on ``{ly}``: {r['n_language_units']:,} of "
        f"{r['n_units_with_data']:,} (one definition, everywhere in the report).",
        "",
        ".. list-table::",
        "   :header-rows: 1",
        "",
        "   * - comparison",
        "     - descriptor (statistic)",
        "     - model",
        "     - cortex",
        "     - verdict",
    ]
    for f in comp["fits"].values():
        for row in f["rows"]:
            lines += [f"   * - {f['title']}",
                      f"     - {row['descriptor']} ({row['statistic']})",
                      f"     - {_cell(row['model'])}", f"     - {_cell(row['cortex'])}",
                      f"     - **{row['verdict']}**: {row['reason']}"]
        for name, why in f["left_out"].items():
            lines += [f"   * - {f['title']}", f"     - {name}", "     - –",
                      "     - –", f"     - left out: {why}"]
    return "\n".join(lines) + "\n"


def _run_job(args) -> None:
    """One run of the language job (a child process of :func:`main`), or with
    ``--prepare-only`` its ``toponeuro.prepare("language")`` on the same settings."""
    import toponeuro
    from toponeuro.settings import CortexInput, LanguageStimuli, NullSettings, RulerRun

    local = {k: SHARED / p for k, p in (("stimuli", "langloc/fedorenko2010_stimuli.csv"),
                                        ("verb_noun", "topolm/elli_stimuli.csv"),
                                        ("nc", "topolm/group-level-contrast.nc"))}
    have = {k: p for k, p in local.items() if p.is_file()}
    kw = {"stimuli": LanguageStimuli(have.get("stimuli", "langloc"),
                                     verb_noun=have.get("verb_noun", "topolm")),
          "cortex": CortexInput(maps=str(have["nc"]) if "nc" in have else None, threshold=2.0),
          "null": NullSettings(n_permutations=args.permutations),
          "ruler": RulerRun(n_permutations=args.fit_permutations)}
    if args.prepare_only:
        toponeuro.prepare("language", **kw)
        return
    toponeuro.run_language_map(args.model, out_dir=args.out, overwrite=True, verbose=1, **kw)


def _uptime() -> str:
    import os

    return "load {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


def _timed(argv: list, env: dict) -> dict:
    """Run ``argv`` as a child: its wall, CPU (user + sys) and peak memory."""
    import os
    import subprocess
    import time

    load0 = _uptime()
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, env=env)
    _, status, ru = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - t0
    if proc.returncode:
        raise SystemExit(f"the run failed (exit {proc.returncode}): {' '.join(argv)}")
    return {"wall_s": wall, "cpu_s": ru.ru_utime + ru.ru_stime, "user_s": ru.ru_utime,
            "sys_s": ru.ru_stime, "peak_gb": ru.ru_maxrss / 2**20, "load_before": load0,
            "load_after": _uptime()}


def main() -> None:
    import os
    import sys
    import tempfile

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--summary", type=Path, help="an existing run's summary.json")
    ap.add_argument("--out", type=Path, default=Path("toponeuro-language-fit"))
    ap.add_argument("--model", default="toponet_lm_demo.tau_1")
    ap.add_argument("--permutations", type=int, default=1000)
    ap.add_argument("--fit-permutations", type=int, default=199)
    ap.add_argument("--quick", action="store_true",
                    help="99 draws of the model's nulls, 19 of the ruler's; writes no .inc")
    ap.add_argument("--runs", type=int, default=2, help="1: cold only; 2: cold then warm")
    ap.add_argument("--cache", type=Path, help="the null cache folder (default: a new one)")
    ap.add_argument("--profile", type=Path, help="cProfile the first run into this file")
    ap.add_argument("--inc", type=Path, default=None)
    ap.add_argument("--prepare", action="store_true",
                    help="run `toponeuro prepare --language` (timed) before run 1, so run 1 "
                    "is the first run after it")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--prepare-only", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.quick:
        args.permutations, args.fit_permutations = 99, 19
    if args.child:
        _run_job(args)
        return
    if args.summary is None:
        cache = args.cache or Path(tempfile.mkdtemp(prefix="toponeuro-nulls-"))
        n_old = len(list(cache.glob("*.npz"))) if cache.is_dir() else 0
        # the children import the toponeuro beside this script, not an installed copy
        root = str(Path(__file__).resolve().parents[1])
        env = dict(os.environ, TOPONEURO_NULL_CACHE=str(cache), PYTHONPATH=os.pathsep.join(
            [root, *filter(None, [os.environ.get("PYTHONPATH")])]))
        base = [sys.executable, str(Path(__file__).resolve()), "--child", "--model", args.model,
                "--permutations", str(args.permutations), "--fit-permutations",
                str(args.fit_permutations)]
        print(f"null cache: {cache} ({n_old} entries before run 1"
              f"{'' if not n_old else ': run 1 is not a cold run'})")
        if args.prepare:
            r = _timed(base + ["--prepare-only"], env)
            print(f"toponeuro prepare --language: wall {r['wall_s']:.1f} s, CPU "
                  f"{r['cpu_s']:.1f} s, peak {r['peak_gb']:.2f} GB; {r['load_before']} -> "
                  f"{r['load_after']}", flush=True)
        for i in range(args.runs):
            out = args.out if i == 0 else args.out.with_name(args.out.name + "-warm")
            argv = base + ["--out", str(out)]
            if i == 0 and args.profile is not None:
                argv[1:1] = ["-m", "cProfile", "-o", str(args.profile)]
            r = _timed(argv, env)
            what = "cold" if i == 0 and not args.prepare else "warm"
            print(f"run {i + 1} ({what} cache): wall {r['wall_s']:.1f} s, "
                  f"CPU {r['cpu_s']:.1f} s (user {r['user_s']:.1f} + sys {r['sys_s']:.1f}), "
                  f"peak {r['peak_gb']:.2f} GB; {r['load_before']} -> {r['load_after']}",
                  flush=True)
        args.summary = args.out / "summary.json"
        if args.quick and args.inc is None:
            return
    summary = json.loads(args.summary.read_text())
    from toponeuro._io.output import write_text

    inc = args.inc or Path(__file__).resolve().parents[1] / "docs" / "demo_language_fit.inc"
    write_text(inc, inc_text(summary))
    print(f"wrote {inc}")


if __name__ == "__main__":
    main()
