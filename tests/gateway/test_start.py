"""Imported servers are started at once: upstreams that never answer ``initialize`` cost the
start their ``connect_timeout`` (the slowest one's), not its sum, and a connection that never
became ready is not waited for any longer; each is a located error and nothing is left
running."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SILENT = ("import os, sys, time; "
          "open(sys.argv[1], 'w').write(f'{os.getpid()} {time.monotonic()}'); "
          "sys.stdin.readline(); time.sleep(300)")


def silent_config(tmp_path: Path, count: int, connect_timeout: str = "2s") -> Path:
    blocks = "".join(f"""\
  s{i}:
    mcp:
      command: [{sys.executable}, -c, "{SILENT}", {tmp_path / f's{i}.pid'}]
      connect_timeout: {connect_timeout}
""" for i in range(count))
    config = tmp_path / "silent.yaml"
    config.write_text(f"toolhost: 1\nservers:\n{blocks}permissions:\n  default: allow\n")
    return config


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_upstreams_that_never_answer_initialize_cost_one_connect_timeout(
        tmp_path: Path) -> None:
    """Four of them (what one alone is checked for, each of the four is). Started at once:
    each upstream notes when it started (the system's monotonic clock, shared by processes);
    one at a time, the last would start at least three connect_timeouts (6 s) after the
    first; at once, the spread is the spawning's, well under that at any load. (The host's
    own start-up, which dominates the run's wall time on a loaded machine, is not measured:
    a run that hangs fails by its subprocess timeout.)"""
    count = 4
    config = silent_config(tmp_path, count)
    done = subprocess.run([sys.executable, "-m", "toolhost", "tools", str(config)],
                          capture_output=True, text=True, timeout=120, env=dict(os.environ))
    assert done.returncode == 1
    for i in range(count):  # every one named, in the config's order
        assert (f"silent.yaml:{4 + 4 * i}:5: servers.s{i}.mcp: cannot start upstream server "
                f"'s{i}': TimeoutError: no answer within 2s") in done.stderr
    assert [line.split(": ")[1] for line in done.stderr.splitlines()
            if "still waiting" not in line] == [f"servers.s{i}.mcp" for i in range(count)]
    assert "Traceback" not in done.stderr
    noted = [(tmp_path / f"s{i}.pid").read_text().split() for i in range(count)]
    starts = [float(when) for _pid, when in noted]
    assert max(starts) - min(starts) < 4.0, starts  # one at a time: 6 s or more
    pids = [int(pid) for pid, _when in noted]
    assert not [pid for pid in pids if alive(pid)]
