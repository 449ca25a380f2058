"""An upstream that fails its first N starts, then is the test upstream (upstream_server.py).

    python flaky_upstream.py COUNTER N MODE

COUNTER is a file counting the starts (it holds the number of the last one). While that is
N or less the start fails: MODE ``crash`` exits at once, ``silent`` reads the client's first
message and never answers (writing its PID to COUNTER.pids first, one a line, so a test can
check that none is left running). MODE may list one a start (``crash,silent``: the first
start crashes, the later ones are silent; the last one named goes on). From start N+1 on it
serves over stdio; its environment (UPSTREAM_*) switches the upstream as usual. With
FLAKY_RAW=1 it is the hostile upstream's ``issues`` mode instead (the same tools listed, no
SDK to start: for tests of the listing, not of calls).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

UPSTREAM = Path(__file__).with_name("upstream_server.py")
HOSTILE = Path(__file__).with_name("hostile_upstream.py")


def main() -> None:
    counter, fails, modes = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3].split(",")
    started = int(counter.read_text() or 0) + 1 if counter.exists() else 1
    counter.write_text(str(started))
    mode = modes[min(started, len(modes)) - 1]
    if started <= fails:
        if mode == "silent":
            with open(f"{counter}.pids", "a") as pids:
                pids.write(f"{os.getpid()}\n")
            sys.stdin.readline()
            time.sleep(300)
        sys.exit(3)
    if os.environ.get("FLAKY_RAW"):
        os.execve(sys.executable, [sys.executable, str(HOSTILE)],
                  {**os.environ, "HOSTILE_MODE": "issues"})
    os.execv(sys.executable, [sys.executable, str(UPSTREAM), "stdio"])


if __name__ == "__main__":
    main()
