"""``max_memory`` and the OOM score are set by one pair of functions, for a command run's
own subreaper and for a python worker alike (``subreaper_main``, built-in modules only)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from toolhost.backends import subreaper_main, worker_main

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_DATA")


def test_the_worker_uses_the_subreapers_functions() -> None:
    assert worker_main.limit_memory is subreaper_main.limit_memory
    assert worker_main.first_to_go is subreaper_main.first_to_go
    assert not [name for name in vars(worker_main) if "limit_memory" in name
                and name != "limit_memory"]
    assert "oom_score_adj" not in Path(worker_main.__file__).read_text(encoding="utf-8")


LIMITED = """
import sys
from pathlib import Path
from toolhost.backends.subreaper_main import limit_memory
for value in (True, 0, -5, "64MiB", None, 1.5):
    limit_memory(value)  # none of these is a size: nothing is set
a = bytearray(256 * 1024 * 1024)
del a
limit_memory(64 * 1024 * 1024)
try:
    bytearray(512 * 1024 * 1024)
except MemoryError:
    print("capped")
"""


def test_a_cap_is_set_and_non_sizes_are_ignored() -> None:
    out = subprocess.run([sys.executable, "-c", LIMITED], capture_output=True, text=True,
                         timeout=60, check=True)
    assert out.stdout.strip() == "capped"
