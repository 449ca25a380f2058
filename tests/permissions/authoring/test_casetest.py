"""``toolhost permissions test CASES`` (in process: tests/inproc.py), and the shipped ones."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.inproc import run_cli

EXAMPLES = Path(__file__).parents[3] / "examples" / "policy-tests"

CONFIG = """\
toolhost: 1
servers:
  db:
    tools:
      query:
        command: [echo, "{{ table }}"]
        params:
          table: {type: string}
          limit: {type: integer, default: 10}
      drop: {command: [echo, drop]}
permissions:
  default: deny
  deny:
    - mcp__db__drop
  allow:
    - tool: mcp__db__query
      when: {table: {one_of: [orders, customers]}}
      rewrite: {clamp: {limit: {max: 100}}}
"""

CASES = """\
config: team.yaml
cases:
  - name: orders may be read
    tool: mcp__db__query
    input: {table: orders, limit: 5}
    expect: allow
    rule: team.yaml:16
  - name: a big limit is clamped
    tool: mcp__db__query
    input: {table: orders, limit: 5000}
    expect: allow
    updated_input: {table: orders, limit: 100}
  - name: drop is denied
    tool: mcp__db__drop
    expect: deny
    rule: mcp__db__drop
  - name: users are not readable
    tool: mcp__db__query
    input: {table: users}
    expect: deny
    rule: default
"""


def toolhost(*args: str, home: Path, cwd: Path | None = None
             ) -> subprocess.CompletedProcess[str]:
    return run_cli(args, cwd=cwd, env={"XDG_CONFIG_HOME": None, "HOME": str(home)})


@pytest.fixture
def team(tmp_path: Path) -> Path:
    (tmp_path / "team.yaml").write_text(CONFIG)
    return tmp_path


def test_passing_cases_exit_zero_and_verbose_lists_them(team: Path) -> None:
    (team / "cases.yaml").write_text(CASES)
    out = toolhost("permissions", "test", str(team / "cases.yaml"), home=team)
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.strip() == "PASS: 4 case(s): 4 passed, 0 failed"
    verbose = toolhost("permissions", "test", "-v", str(team / "cases.yaml"), home=team)
    lines = verbose.stdout.splitlines()
    assert len(lines) == 5
    assert lines[0].startswith(f"{team / 'cases.yaml'}:3:") and ": ok: orders may be read: " \
        "allow by rule 'mcp__db__query when" in lines[0]


def test_each_mismatch_is_a_located_failure_line(team: Path) -> None:
    wrong = (CASES.replace("expect: deny\n    rule: mcp__db__drop", "expect: allow")
             .replace("limit: 100}", "limit: 99}")
             .replace("rule: default", "rule: mcp__db__drop"))
    (team / "cases.yaml").write_text(wrong)
    out = toolhost("permissions", "test", str(team / "cases.yaml"), home=team)
    assert out.returncode == 1
    lines = out.stdout.splitlines()
    assert len(lines) == 4, out.stdout
    case_file = team / "cases.yaml"
    assert lines[0].startswith(f"{case_file}:8:") and "FAIL: a big limit is clamped: " \
        "allowed, but the tool would receive" in lines[0] and '"limit": 100' in lines[0]
    assert lines[1].startswith(f"{case_file}:13:") and "expected allow, got deny (rule " \
        "'mcp__db__drop' (" in lines[1] and "team.yaml:14:7" in lines[1]
    assert lines[2].startswith(f"{case_file}:16:") and "deny as expected, but by no rule " \
        "matched: the default, not 'mcp__db__drop'" in lines[2]
    assert lines[3] == "FAIL: 4 case(s): 1 passed, 3 failed"


@pytest.mark.parametrize("body, fragment", [
    ("config: team.yaml\ncases:\n  - {tool: X, input: {}, expect: alow}\n",
     ":3:26: cases[0].expect: expect must be allow, deny or ask, got str \"alow\" "
     "(did you mean 'allow'?)"),
    ("config: team.yaml\ncases:\n  - {tool: X, expect: deny, inptu: {}}\n",
     "cases[0].inptu: unknown key 'inptu'"),
    ("config: team.yaml\ncases:\n  - {tool: [X], input: 3, expect: deny}\n",
     "cases[0].tool: expected the tool name"),
    ("config: team.yaml\ncases: {a: 1}\n", ":2:1: cases: expected a non-empty list"),
    ("cases:\n  - {tool: X, expect: deny}\n", "missing 'config'"),
    ("config: nosuch.yaml\ncases:\n  - {tool: X, expect: deny}\n", "no such file"),
    ("config: team.yaml\ncases:\n  - " + "[" * 5000 + "]" * 5000 + "\n", "cases.yaml"),
    ("config: team.yaml\ncases:\n  - {tool: X, expect: deny, input: {a: "
     + "[" * 300 + "]" * 300 + "}}\n" + "  - just a string\n",
     # the file's depth limit first
     ":3:136: cases[0].input.a[0][0]…[0]: nested more than 100 mappings or lists deep"),
    ("- a\n- list\n", "a case file is a mapping"),
])
def test_malformed_case_files_get_located_errors(team: Path, body: str, fragment: str) -> None:
    (team / "cases.yaml").write_text(body)
    out = toolhost("permissions", "test", str(team / "cases.yaml"), home=team)
    assert out.returncode == 1
    assert "Traceback" not in out.stderr
    # "…" stands for what the line leaves out of a long key path
    assert all(part in out.stderr for part in fragment.split("…")), out.stderr[:3000]
    assert out.stdout.startswith("FAIL: ") or "\nFAIL: " in out.stdout


def test_a_huge_case_file_is_refused_without_reading_it(team: Path) -> None:
    big = team / "cases.yaml"
    with big.open("w") as f:
        f.write("config: team.yaml\ncases:\n")
        line = "  - {tool: mcp__db__drop, expect: deny}\n"
        f.write(line * (17 * 1024 * 1024 // len(line)))
    out = toolhost("permissions", "test", str(big), home=team)
    assert out.returncode == 1 and "a case file may have at most" in out.stderr


def test_config_override_and_a_config_that_does_not_load(team: Path) -> None:
    (team / "cases.yaml").write_text(CASES.replace("config: team.yaml\n", ""))
    ok = toolhost("permissions", "test", "--config", str(team / "team.yaml"),
                  str(team / "cases.yaml"), home=team)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    (team / "bad.yaml").write_text("toolhost: 1\npermissions: {default: alow}\n")
    bad = toolhost("permissions", "test", "--config", str(team / "bad.yaml"),
                   str(team / "cases.yaml"), home=team)
    assert bad.returncode == 1
    assert "bad.yaml:2:" in bad.stderr and "were not run" in bad.stderr


@pytest.mark.parametrize("config_name", ["team.yaml", "team.toml"])
def test_a_config_given_for_its_cases_names_the_case_files_that_test_it(
        team: Path, config_name: str) -> None:
    if config_name.endswith(".toml"):
        (team / config_name).write_text("toolhost = 1\n[permissions]\ndefault = 'deny'\n")
    (team / "cases.yaml").write_text(CASES.replace("team.yaml", config_name))
    (team / "other.yaml").write_text(CASES.replace("team.yaml", "other-config.yaml"))
    (team / "notes.toml").write_text('config = "team.yaml"\n')  # (no cases: not offered)
    out = toolhost("permissions", "test", str(team / config_name), home=team)
    assert out.returncode == 1
    (line,) = out.stderr.splitlines()
    assert line.startswith(f"{team / config_name}:1:1: {config_name} is a config file, not "
                           "a case file"), line
    assert line.endswith(f"(try: toolhost permissions test {team / 'cases.yaml'})"), line
    assert "unknown key" not in out.stderr and "missing 'config'" not in out.stderr


def test_a_config_with_no_case_file_beside_it_says_how_to_write_one(team: Path) -> None:
    out = toolhost("permissions", "test", str(team / "team.yaml"), home=team)
    assert out.returncode == 1
    (line,) = out.stderr.splitlines()
    assert "team.yaml is a config file, not a case file" in line
    assert "config: team.yaml, then cases: [...]" in line


def test_the_shipped_policy_tests_pass() -> None:
    files = sorted(str(p) for p in EXAMPLES.iterdir() if p.suffix in (".yaml", ".toml"))
    assert len(files) >= 4
    out = toolhost("permissions", "test", "--no-layers", "-v", *files, home=EXAMPLES)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "0 failed" in out.stdout and out.stdout.count(": ok: ") >= 15
