"""``toml_depth`` jumps from one comment, string or bracket to the next; it must answer exactly
what a walk of every character answers (the reference below, the scan it replaced).

And ``read_bounded``: a config that is not there names a close name beside it."""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from toolhost.config import limits
from toolhost.config.limits import HEADER_WEIGHT, LIMITS, toml_depth, toml_prescan

settings.register_profile("ci", derandomize=True, deadline=None, max_examples=300,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", deadline=None, max_examples=300,
                          suppress_health_check=[HealthCheck.too_slow])
PROFILE = "ci" if os.environ.get("CI") else "dev"


def _reference(text: str, limit: int) -> int:
    return _reference_prescan(text, limit, len(text) + 1)[0]


def _reference_prescan(text: str, limit: int, values: int) -> tuple[int, str]:
    depth = count = 0
    i, n = 0, len(text)
    counting = n >= values
    while i < n:
        c = text[i]
        if counting and c in ",=[{.":
            count += HEADER_WEIGHT if c == "[" and (i == 0 or text[i - 1] == "\n") else 1
            if count > values:
                return i, "values"
        if c == "#":
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        if c in "\"'":
            quote = text[i:i + 3] if text.startswith(c * 3, i) else c
            j = i + len(quote)
            while j < n and not text.startswith(quote, j) and (len(quote) == 3 or text[j] != "\n"):
                j += 2 if c == '"' and text[j] == "\\" else 1
            i = j + len(quote)
            continue
        if c in "[{":
            depth += 1
            if depth > limit:
                return i, "depth"
        elif c in "]}":
            depth = max(depth - 1, 0)
        i += 1
    return -1, ""


_TEXT = st.lists(st.sampled_from(['#', '"', "'", "[", "]", "{", "}", "\\", "\n", "a", " ",
                                  '"""', "'''", "x = ", "é", ",", "=", "\n["]),
                 max_size=60).map("".join)


@settings(settings.get_profile(PROFILE))
@given(_TEXT, st.integers(0, 4))
@example('a = "x\\"[[" [[[', 2)
@example("a = '''x\n[[''' [[[", 2)
@example('a = """x\\', 0)
@example("# [[[\n[[[", 2)
@example("# a\n  # [[\n\t\r\n#x\n[[[", 2)
@example("#\n#\n x = [[[", 2)
def test_toml_depth_answers_as_a_walk_of_every_character(text: str, limit: int) -> None:
    assert toml_depth(text, limit) == _reference(text, limit)


@settings(settings.get_profile(PROFILE))
@given(_TEXT, st.integers(0, 4), st.integers(0, 30))
@example("a = 'x,=[' [1, 2]", 9, 3)
@example('a = """x\\"""", [1]\n[t]', 9, 8)
@example("[[t]]\n[t]\nb = '''x'''',1", 9, 12)
@example('a = "x\\\n,", [', 0, 1)
@example("a = 'x\n, [", 0, 2)
def test_toml_prescan_counts_as_a_walk_of_every_character(text: str, limit: int,
                                                          values: int) -> None:
    """The prescan takes plain text, a comment or a string in one match each: the same depth
    and the same count of values as stepping through every character."""
    assert toml_prescan(text, limit, values) == _reference_prescan(text, limit, values)


class _CountingSteps:
    """A prescan pattern that counts the matches it hands to the scan's Python loop."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern, self.steps = pattern, 0

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        for found in self.pattern.finditer(text):
            self.steps += 1
            yield found


@pytest.mark.parametrize("run", ["#\n", "# a comment\n\n", "  # [x] = 'y'\r\n", "#\n\t\n"])
def test_a_run_of_comment_lines_is_skipped_in_one_step(monkeypatch: pytest.MonkeyPatch,
                                                       run: str) -> None:
    """16 MiB of comment lines were 8 million turns of the scan's Python loop (~3 s)."""
    steps = {counting: _CountingSteps(re.compile(limits._NEXT_STOP[counting]))
             for counting in (False, True)}
    monkeypatch.setattr(limits, "_NEXT", steps)
    text = "x = 1\n" + run * 50_000 + "y = [[[1]]]\n"
    assert toml_depth(text, 2) == text.index("[[[") + 2
    assert limits.toml_prescan(text, 100, 3) == (text.index("[[[") + 1, "values")
    assert sum(step.steps for step in steps.values()) < 20


def test_a_deep_array_is_found_where_it_passes_the_limit() -> None:
    text = "a = " + "[" * 5 + "]" * 5
    assert toml_depth(text, 4) == text.index("[") + 4
    assert toml_depth(text, 5) == -1


def test_a_path_with_a_nul_is_a_problem_not_a_crash() -> None:
    from toolhost.config.limits import read_bounded
    from toolhost.errors import Problem

    problems: list[Problem] = []
    assert read_bounded("/tmp/a\0b.yaml", problems) is None
    assert "NUL" in problems[0].message and "\0" not in str(problems[0])


@pytest.mark.parametrize(("present", "asked", "hint"), [
    ("toolhost.yaml", "toolhost.yml", "did you mean {d}/toolhost.yaml?"),
    ("toolhost.yaml", "toolhst.yaml", "did you mean {d}/toolhost.yaml?"),
    ("team.toml", "team.yaml", "did you mean {d}/team.toml?"),
    ("toolhost.yaml", "other.yaml", ""),
    ("notes.txt", "notes.yaml", ""),  # not a config file: never suggested
])
def test_a_missing_file_names_a_close_one_beside_it(tmp_path: Path, present: str, asked: str,
                                                    hint: str) -> None:
    from toolhost.config.limits import read_bounded
    from toolhost.errors import Problem

    (tmp_path / present).write_text("toolhost: 1\n")
    problems: list[Problem] = []
    assert read_bounded(str(tmp_path / asked), problems) is None
    (problem,) = problems
    assert problem.message == "no such file"
    assert problem.hint == hint.format(d=tmp_path)


def test_a_missing_file_in_a_missing_directory_is_still_one_line(tmp_path: Path) -> None:
    from toolhost.config.limits import read_bounded
    from toolhost.errors import Problem

    problems: list[Problem] = []
    assert read_bounded(str(tmp_path / "nope" / "c.yaml"), problems) is None
    assert [(p.message, p.hint) for p in problems] == [("no such file", "")]


@pytest.mark.parametrize(("value", "used", "said"), [
    ("abc", 16 * 1024 * 1024, "not a whole number above 0"),
    ("-5", 16 * 1024 * 1024, "not a whole number above 0"),
    ("1e9", 16 * 1024 * 1024, "not a whole number above 0"),
    ("0", 16 * 1024 * 1024, "not a whole number above 0"),
    ("9" * 31, 16 * 1024 * 1024, "of at most 30 digits"),
    ("2_000", 2000, ""),
])
def test_a_bad_limit_variable_is_warned_about_once_naming_it_and_what_is_used(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, value: str,
        used: int, said: str) -> None:
    monkeypatch.setattr(limits, "_warned", set())  # as in a fresh process
    monkeypatch.setenv("TOOLHOST_MAX_CONFIG_BYTES", value)
    with caplog.at_level(logging.WARNING, logger="toolhost.config"):
        assert LIMITS.file_bytes == used
        assert LIMITS.file_bytes == used
    lines = [r.getMessage() for r in caplog.records]
    if not said:
        assert lines == []
        return
    assert len(lines) == 1, lines  # once per process, not at every read
    assert lines[0].startswith("TOOLHOST_MAX_CONFIG_BYTES='")
    assert said in lines[0] and f"using the default {used:,}" in lines[0]
    assert len(lines[0]) < 200


def test_a_limit_over_its_ceiling_is_warned_about_and_capped(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(limits, "_warned", set())
    monkeypatch.setenv("TOOLHOST_MAX_CONFIG_DEPTH", "100000")
    with caplog.at_level(logging.WARNING, logger="toolhost.config"):
        assert LIMITS.depth == 300
    assert [r.getMessage() for r in caplog.records] == [
        "TOOLHOST_MAX_CONFIG_DEPTH='100000': it is above the most it can be; using 300"]
