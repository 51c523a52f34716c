"""TopoLM's verb - noun fit on a shipped demo language model: run the language job and write
the table docs/demo_language_fit.inc shows.

    python bench/language_fit.py --out /tmp/lang-fit --fit-permutations 199
    python bench/language_fit.py --summary /tmp/lang-fit/summary.json   # table only

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
        f"items, {summary['n_permutations']:,} draws of the model's nulls and "
        f"{comp['n_permutations']:,} of each descriptor's null on each side of the comparisons "
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--summary", type=Path, help="an existing run's summary.json")
    ap.add_argument("--out", type=Path, default=Path("toponeuro-language-fit"))
    ap.add_argument("--model", default="toponet_lm_demo.tau_1")
    ap.add_argument("--permutations", type=int, default=1000)
    ap.add_argument("--fit-permutations", type=int, default=199)
    ap.add_argument("--inc", type=Path,
                    default=Path(__file__).resolve().parents[1] / "docs" / "demo_language_fit.inc")
    args = ap.parse_args()
    if args.summary is None:
        import toponeuro
        from toponeuro.settings import CortexInput, LanguageStimuli, NullSettings, RulerRun

        local = {k: SHARED / p for k, p in (("stimuli", "langloc/fedorenko2010_stimuli.csv"),
                                            ("verb_noun", "topolm/elli_stimuli.csv"),
                                            ("nc", "topolm/group-level-contrast.nc"))}
        have = {k: p for k, p in local.items() if p.is_file()}
        toponeuro.run_language_map(
            args.model, stimuli=LanguageStimuli(have.get("stimuli", "langloc"),
                                                verb_noun=have.get("verb_noun", "topolm")),
            cortex=CortexInput(maps=str(have["nc"]) if "nc" in have else None, threshold=2.0),
            out_dir=args.out, overwrite=True, null=NullSettings(n_permutations=args.permutations),
            ruler=RulerRun(n_permutations=args.fit_permutations), verbose=1)
        args.summary = args.out / "summary.json"
    summary = json.loads(args.summary.read_text())
    from toponeuro._io.output import write_text

    write_text(args.inc, inc_text(summary))
    print(f"wrote {args.inc}")


if __name__ == "__main__":
    main()
