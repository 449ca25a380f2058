"""``permissions test``: a case holding a value the reader refuses (a 5,000-digit integer,
``.inf``) is not run. It was decided with that value read as null and counted as passed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from toolhost.cli import main
from toolhost.permissions.authoring.casefile import read_case_file

CASES = """\
config: c.yaml
cases:
  - tool: mcp__x__y
    input: {n: BIG}
    expect: allow
  - tool: mcp__x__y
    input: {n: .inf}
    expect: allow
  - tool: mcp__x__y
    input: {deep: [1, {n: BIG}]}
    expect: allow
  - tool: mcp__x__y
    input: {n: 1}
    expect: allow
"""


def _files(tmp_path: Path) -> Path:
    (tmp_path / "c.yaml").write_text("toolhost: 1\npermissions: {default: allow}\n")
    cases = tmp_path / "t.yaml"
    cases.write_text(CASES.replace("BIG", "9" * 5000))
    return cases


def test_a_case_with_a_refused_value_is_not_run(tmp_path: Path) -> None:
    read = read_case_file(str(_files(tmp_path)))
    assert read.not_run == 3 and [case.input for case in read.cases] == [{"n": 1}]
    assert len(read.problems) == 3


def test_the_summary_counts_none_of_them_passed(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    cases = _files(tmp_path)
    assert main(["permissions", "test", str(cases)]) == 1
    out, err = capsys.readouterr()
    assert "1 case(s): 1 passed, 0 failed; 1 file(s) with problems" in out
    assert f"{cases}: 3 case(s) not run: a value of theirs is refused (above)" in err


@pytest.mark.parametrize("cwd", ["missing-dir", "/dev/null", "cases.yaml"])
def test_a_cwd_that_is_no_directory_gets_a_located_warning(tmp_path: Path, cwd: str) -> None:
    """Round 18: the cases' relative paths (and a patch, an archive, a repository a command
    reads) are judged against ``cwd``; one that is no directory tested nothing real."""
    path = tmp_path / "cases.yaml"
    path.write_text(f"config: team.yaml\ncwd: {cwd}\ncases:\n"
                    "  - {tool: Read, input: {file_path: a}, expect: allow}\n")
    read = read_case_file(str(path))
    assert not read.problems
    assert [str(w) for w in read.warnings if "is not a directory" in str(w) and
            "cases.yaml:2:" in str(w)], read.warnings
    path.write_text("config: team.yaml\ncwd: .\ncases:\n"
                    "  - {tool: Read, input: {file_path: a}, expect: allow}\n")
    assert not read_case_file(str(path)).warnings


@pytest.mark.parametrize(("cases", "got"), [("[]", "got an empty list"),
                                            ("{}", "got a mapping"), ("", "got nothing")])
def test_cases_that_are_no_list_of_cases_say_what_they_are(tmp_path: Path, cases: str,
                                                          got: str) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(f"config: c.yaml\ncases: {cases}\n")
    (problem,) = read_case_file(str(path)).problems
    assert problem.message == f"expected a non-empty list of cases, {got}"


def _bomb() -> str:
    lines = ["a: &a {x: 1, y: 1, z: 1, w: 1, v: 1, u: 1, t: 1, s: 1, r: 1, q: 1}"]
    for i in range(1, 9):
        lines.append(f"l{i}: &l{i} [" + ", ".join([f"*{'a' if i == 1 else f'l{i - 1}'}"] * 10)
                     + "]")
    return "\n".join(lines) + "\n"


def _deep() -> str:  # each anchor one list deeper than the last: 101 levels through aliases
    return "d0: &d0 [1]\n" + "".join(f"d{i}: &d{i} [*d{i - 1}]\n" for i in range(1, 102))


@pytest.mark.parametrize(("text", "stop"), [(_bomb, "an alias bomb?"),
                                            (_deep, "deep (through aliases)")])
def test_a_stop_while_reading_is_the_only_problem(tmp_path: Path, text: Any, stop: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """hostile18: after a stop the data read so far is not the file's: its anchors' keys were
    listed as "unknown key" lines and the cases after it as "got nothing"."""
    path = tmp_path / "t.yaml"
    path.write_text("config: c.yaml\n" + text() + "cases:\n"
                    "  - {tool: Read, input: {file_path: a}, expect: allow}\n")
    (problem,) = read_case_file(str(path)).problems
    assert stop in problem.message and problem.line > 1
    assert main(["permissions", "test", str(path)]) == 1
    err = capsys.readouterr().err
    assert stop in err and "unknown key" not in err and "got nothing" not in err


@pytest.mark.parametrize("config", ["config:", "config: ~", "config: null"])
def test_an_empty_config_is_a_problem_not_a_pass(tmp_path: Path, config: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """hostile18: ``config:`` left empty ran no case and the file passed (exit 0)."""
    path = tmp_path / "t.yaml"
    path.write_text(config + "\ncases:\n  - {tool: Read, input: {file_path: a}, expect: deny}\n")
    (problem,) = read_case_file(str(path)).problems
    assert (problem.line, problem.key_path) == (1, "config") and "got nothing" in problem.message
    assert main(["permissions", "test", str(path)]) == 1
    assert "1 file(s) with problems" in capsys.readouterr().out
    (tmp_path / "c.yaml").write_text("toolhost: 1\npermissions: {default: deny}\n")
    assert main(["permissions", "test", "--config", str(tmp_path / "c.yaml"), str(path)]) == 0
