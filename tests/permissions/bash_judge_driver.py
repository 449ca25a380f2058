"""Runs shell lines for ``bash_judge`` with no real effect: one JSON line in (``{"line": ...}``),
one JSON line out (``{"sentinel": bool, "timeout": bool}``; the programs log to a file).

Started as ``python bash_judge_driver.py BIN WORK [guard]``. ``BIN`` holds the only programs
on PATH: fakes of the denied programs, which append ``TRAP:name args`` to a log file, and
logging shims of the real tools, which append ``RAN:name args`` and exec the real one. With
``guard`` (the driver then runs under ``unshare -rm``) every fake is also bind-mounted over
the real program of that name, so a line that finds ``/bin/rm`` by itself (``command -p rm``,
``env -i rm``, an absolute path) still reaches the fake. Each line runs in a fresh directory
(its HOME too) holding the file ``V``, with ``env -i``-like environment and a time limit;
its whole process group is killed afterwards, and so is anything it left running in another
session (``setsid``, a double fork): the driver is their subreaper, so they cannot outlive
their line and log during a later one (a flaky "hole" on a benign line).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

# the subreaper that runs command tools: the same prctl and the same list of our children
from toolhost.backends.subreaper_main import _PR_SET_CHILD_SUBREAPER, _children, _prctl

_LIMIT = 3.0  # seconds a line may run


def _guard(bin_dir: Path, denied: list[str]) -> None:
    for name in denied:
        real = shutil.which(name, path="/usr/bin:/bin:/usr/local/bin")
        if real:  # bind the fake over the real one (the namespace is ours alone)
            subprocess.run(["/usr/bin/mount", "--bind", str(bin_dir / name), real], check=True)


def _run(line: str, bin_dir: Path, root: Path, count: int) -> dict[str, object]:
    work = root / f"w{count}"
    work.mkdir()
    (work / "V").write_text("sentinel\n")
    env = {"PATH": str(bin_dir), "HOME": str(work), "LANG": "C",
           "GIT_CONFIG_NOSYSTEM": "1", "TERM": "dumb"}
    proc = subprocess.Popen(["/bin/bash", "-c", line], cwd=work, env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    timed_out = False
    try:
        proc.wait(_LIMIT)
    except subprocess.TimeoutExpired:
        timed_out = True
    _kill_group(proc.pid)
    proc.wait()
    _kill_leftovers()
    result = {"sentinel": (work / "V").exists(), "timeout": timed_out, "count": count}
    shutil.rmtree(work, ignore_errors=True)
    return result


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def _kill_leftovers() -> None:
    """Kill and reap whatever the last line left running (all re-parented to the driver)."""
    for _ in range(200):
        left = _children()
        if not left:
            return
        for pid in left:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.005)
        with contextlib.suppress(ChildProcessError):
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass


def main() -> None:
    bin_dir, root = Path(sys.argv[1]), Path(sys.argv[2])
    denied = [p.name for p in bin_dir.iterdir() if p.read_text().startswith("#!/bin/sh\n#fake")]
    if sys.argv[3:] == ["guard"]:
        _guard(bin_dir, denied)
    # orphans of a line (setsid'd, double-forked) are re-parented to the driver, not init
    _prctl(_PR_SET_CHILD_SUBREAPER, 1)
    print(json.dumps({"ready": True}), flush=True)
    for count, raw in enumerate(sys.stdin):
        print(json.dumps(_run(json.loads(raw)["line"], bin_dir, root, count)), flush=True)


if __name__ == "__main__":
    main()
