"""Every ``summary.json`` entry outside ``settings`` whose value equals a setting of the same
leaf name (issue 44: one name per quantity), over one or more job outputs::

    python bench/setting_copies.py RUN_DIR/summary.json [MORE/summary.json ...]

Prints one line per entry path (layers, domains and hemispheres collapsed): ``ALWAYS`` when
it equals the setting in every occurrence, ``k/n`` when in some, with the settings it
equals. A name match only: a copy under another name (``selection.q_level`` for
``units.q``) is not seen, and an entry that is ALWAYS equal in these runs may still be a
result (the finite draws a claim rests on); read the code before removing one.
"""

from __future__ import annotations

import json
import re
import sys
from collections import defaultdict


def leaves(d, path=()):
    """``(path, value)`` of every leaf of a JSON document."""
    if isinstance(d, dict):
        for k, v in d.items():
            yield from leaves(v, path + (k,))
    elif isinstance(d, list):
        for v in d:
            yield from leaves(v, path + ("[]",))
    else:
        yield path, d


def main(files: list[str]) -> None:
    stats = defaultdict(lambda: [0, 0, set()])  # (job, pattern) -> [equal, total, settings]
    for f in files:
        s = json.load(open(f))
        sett = {".".join(p): v for p, v in leaves(s.get("settings", {}))}
        layers = set(s.get("layers", []))
        for path, v in leaves({k: x for k, x in s.items() if k != "settings"}):
            if isinstance(v, bool) or v is None:
                continue
            cands = [n for n in sett if n.split(".")[-1] == path[-1]]
            if not cands:
                continue
            pat = "/".join("<layer>" if p in layers else p for p in path)
            pat = re.sub(r"\b(left|right)\b", "<hemi>", pat)
            st = stats[(s.get("job", "toponeuro map"), pat)]
            st[1] += 1
            eq = [n for n in cands if sett[n] == v]
            st[0] += bool(eq)
            st[2].update(eq)
    for (job, pat), (eq, tot, names) in sorted(stats.items()):
        tag = "ALWAYS" if eq == tot else ("never" if eq == 0 else f"{eq}/{tot}")
        print(f"{job:26s} {tag:7s} {pat}  == settings.{'|'.join(sorted(names)) or '-'}")


if __name__ == "__main__":
    main(sys.argv[1:])
