"""A policy test case file with a long quoted key before a YAML 1.1 boolean word is read in
memory of its size: the pattern that finds the word as written kept a regex frame per
character of the key (an 8 MB key: 992 MB)."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

from toolhost.permissions.authoring.casefile import read_case_file


def test_a_long_quoted_key_in_a_case_is_read_in_memory_of_its_size(tmp_path: Path) -> None:
    key = "a" * 1_000_000
    cases = tmp_path / "cases.yaml"
    cases.write_text(f'cases:\n  - name: heater\n    tool: mcp__ext__heater\n    input:\n'
                     f'      ? "{key}"\n      : off\n    expect: deny\n')
    tracemalloc.start()
    try:
        read = read_case_file(str(cases), need_config=False)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert read.cases[0].input == {key: False}
    assert peak < 40 * len(key), f"{peak:,} bytes"
