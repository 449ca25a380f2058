"""The TOML scanners (marks, dates) hold a long string, comment run or escape run in memory
of its own size, not a regex backtracking frame per character: a 16 MiB string took 3.6 GB
(scan_marks), a 16 MiB run of comment lines 3.2 GB."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from typing import Any

import pytest

from toolhost.config.toml_dates import written_dates
from toolhost.config.toml_marks import scan_marks

N = 300_000
TEXTS = {
    "basic": 'x = "' + "a" * N + '"\n',
    "escapes": 'x = "' + "\\u00e9" * (N // 6) + '"\n',
    "multi-line": 'x = """\n' + "a\\n" * (N // 3) + '"""\n',
    "comments": "#\n" * (N // 2) + "x = 1\n",
    "array": "x = [" + ",".join(['"' + "a" * 1000 + '"'] * (N // 1000)) + "]\n",
}


def _peak(scan: Callable[[], Any]) -> int:
    tracemalloc.start()
    try:
        scan()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_a_long_run_is_scanned_in_memory_of_its_size(name: str) -> None:
    text = "toolhost = 1\nd = 1979-05-27\n" + TEXTS[name]
    marks = scan_marks(text, "c.toml", "project")
    assert ("x",) in marks and ("d",) in marks
    assert written_dates(text) == {"1979-05-27": "1979-05-27"}
    assert _peak(lambda: scan_marks(text, "c.toml", "project")) < 8 * N
    assert _peak(lambda: written_dates(text)) < 8 * N
