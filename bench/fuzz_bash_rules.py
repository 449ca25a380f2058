"""Differential fuzzing of the Bash rules, by hand: ``python bench/fuzz_bash_rules.py [N] [SEED]``.

Generates N command lines (tests/permissions/bash_lines.py: a denied program spelled and run
many ways, inside benign commands, and benign lines), runs each for real under bash with
fakes of ``rm``/``curl``/``wget`` (tests/permissions/bash_judge.py: a fresh directory and
HOME per line, a 3 s limit, the fakes bound over the real programs in a user and mount
namespace when the machine allows one), and compares with the policies' decisions. Prints
the counts (lines tried, lines where bash ran a denied program, holes, allow-list holes,
over-denials) and every hole as a JSON line. Exit status 1 when a hole was found.
"""

from __future__ import annotations

import collections
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.permissions.bash_judge import Judge, verdicts
from tests.permissions.bash_lines import line


def main() -> int:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 19
    rng = random.Random(seed)
    counts: collections.Counter[str] = collections.Counter()
    holes, seen = [], set()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as root:
        judge = Judge(Path(root))
        try:
            for _ in range(count):
                command = line(rng)
                if command in seen:
                    continue
                seen.add(command)
                ran = judge.run(command)
                counts["tried"] += 1
                counts["ran a denied program"] += ran.denied_ran
                for found in verdicts(command, ran):
                    counts[found] += 1
                    if found != "over-deny":
                        holes.append({"kind": found, "command": command, "ran": ran.log})
        finally:
            judge.close()
    elapsed = time.perf_counter() - started
    benign = counts["tried"] - counts["ran a denied program"]
    print(f"guarded={judge.guarded} seed={seed} {dict(counts)} in {elapsed:.1f}s; "
          f"over-denial {counts['over-deny']}/{benign} lines that ran no denied program")
    for hole in holes:
        print(json.dumps(hole))
    return 1 if holes else 0


if __name__ == "__main__":
    sys.exit(main())
