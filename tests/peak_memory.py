"""Run ``toolhost`` in a process that reports its own peak memory when it ends.

The figure is the process's VmHWM (its own memory's high-water mark, KB), written to the file
named by ``PEAK_FILE``. Not ``ru_maxrss``: the kernel carries the starting process's
high-water mark over ``exec``, so a child of a long test run (pytest at ~580 MB) would read as
a big toolhost.
"""

from __future__ import annotations

import sys
from pathlib import Path

__all__ = ["peak_kb", "toolhost_argv"]

_SCRIPT = ("import os, runpy, sys\n"
           "sys.argv = ['toolhost', *sys.argv[1:]]\n"
           "try:\n"
           "    runpy.run_module('toolhost', run_name='__main__')\n"
           "finally:\n"
           "    with open('/proc/self/status') as status:\n"
           "        peak = next(line.split()[1] for line in status if line.startswith('VmHWM:'))\n"
           "    with open(os.environ['PEAK_FILE'], 'w') as out:\n"
           "        out.write(peak)\n")


def toolhost_argv(*args: str) -> list[str]:
    """The argv of ``toolhost ARGS`` that writes its peak to ``$PEAK_FILE`` when it ends."""
    return [sys.executable, "-c", _SCRIPT, *args]


def peak_kb(path: Path) -> int:
    """The peak a run wrote to ``path`` (its ``PEAK_FILE``), in KB."""
    return int(path.read_text())
