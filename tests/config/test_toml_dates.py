"""TOML dates and times are held as the file wrote them (``...Z``, nine fraction digits, a
space or a lower-case ``t``), not as Python's ISO text: what a description shows and what a
message names is what the author wrote, as in YAML."""

from __future__ import annotations

import pytest

from toolhost.config.checks import TomlDate, TomlDateTime, TomlTime
from toolhost.config.toml_dates import MAX_WRITTEN_DATES, written_dates
from toolhost.config.toml_source import parse_toml
from toolhost.errors import Problem


@pytest.mark.parametrize(("literal", "kind"), [
    ("1979-05-27T07:32:00Z", TomlDateTime), ("1979-05-27t07:32:00z", TomlDateTime),
    ("1979-05-27 07:32:00", TomlDateTime), ("1979-05-27T07:32:00.999999999-07:00", TomlDateTime),
    ("1979-05-27T00:32:00.5+00:00", TomlDateTime), ("1979-05-27", TomlDate),
    ("07:32:00.999999999", TomlTime), ("07:32:00", TomlTime),
])
def test_a_date_or_time_is_held_as_written(literal: str, kind: type[TomlDate]) -> None:
    text = (f"# 1999-01-01T00:00:00Z in a comment\ntoolhost = 1\nd = {literal}\n"
            f"s = \"{literal} as text\"\nlist = [{literal}, 1979-05-27T07:32:00-07:00]\n"
            f"m = '''\n{literal}'''\n")
    problems: list[Problem] = []
    doc = parse_toml(text, "c.toml", "project", problems)
    assert doc is not None and problems == []
    assert doc.data["d"] == literal and type(doc.data["d"]) is kind
    assert doc.data["list"] == [literal, "1979-05-27T07:32:00-07:00"]
    assert doc.data["s"] == f"{literal} as text" and doc.data["m"] == f"{literal}"


def test_a_date_in_a_message_is_named_as_written() -> None:
    from toolhost.config.checks import describe

    doc = parse_toml("toolhost = 1\nd = 1979-05-27T07:32:00Z\n", "c.toml", "project", [])
    assert doc is not None and describe(doc.data["d"]) == "a date and time (1979-05-27T07:32:00Z)"


def test_past_the_cap_dates_keep_their_iso_text() -> None:
    text = "".join(f"d{i} = 1979-05-27T07:{i // 60 % 60:02}:{i % 60:02}Z\n"
                   for i in range(MAX_WRITTEN_DATES + 1))
    found = written_dates(text)
    assert len(found) == MAX_WRITTEN_DATES
    assert found["1979-05-27T07:00:00+00:00"] == "1979-05-27T07:00:00Z"


@pytest.mark.parametrize(("text", "compiled"), [("toolhost = 1\nx = 'a'\n", False),
                                                ("toolhost = 1\nx = 2026-07-28\n", True)])
def test_the_date_scan_is_compiled_only_for_a_toml_with_a_date(text: str,
                                                               compiled: bool) -> None:
    """A fresh process: a TOML without a date never compiles the scan (~1.5 M instructions
    of every TOML load when it was compiled at import)."""
    import subprocess
    import sys

    code = ("import re, sys\nfrom toolhost.config.toml_source import parse_toml\n"
            "from toolhost.config import toml_dates\n"
            "parse_toml(sys.argv[1], 'c.toml', 'project', [])\n"
            "scan = getattr(toml_dates._SCAN, 'pattern', toml_dates._SCAN)\n"
            "print(any(p == scan for (_t, p, _f) in re._cache))")
    out = subprocess.run([sys.executable, "-c", code, text], capture_output=True, text=True,
                         check=True, timeout=60).stdout
    assert out.strip() == str(compiled)
