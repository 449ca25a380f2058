"""``permissions check`` and ``permissions test`` speak about callers: a caller given as a
token's claims or options is decided as serve decides it, and without one a decision that
depends on the caller says so (never a bare allow for a call serve would deny)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.inproc import run_cli
from toolhost.cli import main

CONFIG = """\
toolhost: 1
servers:
  db:
    tools:
      migrate: {command: [echo, hi]}
      drop: {command: [echo, hi]}
permissions:
  default: deny
  allow:
    - mcp__db__drop
    - tool: mcp__db__migrate
      callers: {groups: [platform]}
  deny:
    - tool: mcp__db__drop
      callers: {scopes: [tools:read-only], groups: ["contractor-*"]}
      message: no drop for you
"""


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_cli(["permissions", *args], cwd=cwd)


@pytest.fixture
def config(tmp_path: Path) -> Path:
    (tmp_path / "team.yaml").write_text(CONFIG)
    return tmp_path


@pytest.mark.parametrize(("tool", "caller", "decision", "code"), [
    ("drop", [], "allow", 12), ("migrate", [], "deny", 12),
    ("drop", ["--caller-scope", "tools:read-only"], "deny", 10),
    ("drop", ["--caller-group", "contractor-acme"], "deny", 10),
    ("drop", ["--caller", '{"sub": "a", "scope": "", "scp": ["tools:read-only"]}'], "deny", 10),
    ("drop", ["--caller", '{"sub": "a", "groups": {"x": 1}}'], "deny", 10),
    ("drop", ["--caller-sub", "ana"], "allow", 0),
    ("migrate", ["--caller-group", "platform"], "allow", 0),
    ("migrate", ["--caller", '{"sub": "a", "realm": {"roles": ["platform"]}}',
                 "--auth-groups-claim", "realm.roles"], "allow", 0),
    ("migrate", ["--caller", '{"sub": "a", "groups": [["platform"]]}'], "deny", 10),
])
def test_check_decides_for_the_caller_or_says_it_depends(
        config: Path, tool: str, caller: list[str], decision: str, code: int,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # in-process (the command's process: test_a_wrong_caller_is_one_line below)
    monkeypatch.chdir(config)
    args = ["permissions", "check", "--no-layers", "team.yaml", f"mcp__db__{tool}"]
    assert main([*args, "--exit-code", "--json", *caller]) == code
    out = json.loads(capsys.readouterr().out)
    assert out["decision"] == decision and out["depends_on_caller"] == (code == 12)
    main([*args, *caller])
    text = capsys.readouterr().out
    if code == 12:
        assert text.startswith("depends on the caller"), text
        assert "callers" in text and "team.yaml:" in text


@pytest.mark.parametrize("bad", ["[1]", '{"sub": ""}', "{", '{"sub": 5}'])
def test_a_wrong_caller_is_one_line(config: Path, bad: str) -> None:
    done = run("check", "--no-layers", "team.yaml", "mcp__db__drop", "--caller", bad,
               cwd=config)
    assert done.returncode == 2 and "--caller" in done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.splitlines()) == 1


def test_policy_test_cases_carry_a_caller(config: Path) -> None:
    (config / "cases.yaml").write_text(
        "config: team.yaml\ncases:\n"
        "  - {tool: mcp__db__drop, caller: {sub: a, scope: tools:read-only}, expect: deny}\n"
        "  - {tool: mcp__db__migrate, caller: {sub: a, groups: [platform]}, expect: allow}\n"
        "  - {tool: mcp__db__drop, expect: allow}\n")
    done = run("test", "--no-layers", "cases.yaml", cwd=config)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "3 passed" in done.stdout
    assert "cases.yaml:5" in done.stderr and "decided without a caller" in done.stderr
    (config / "bad.yaml").write_text(
        "config: team.yaml\ncases:\n  - {tool: mcp__db__drop, caller: [a], expect: deny}\n")
    done = run("test", "--no-layers", "bad.yaml", cwd=config)
    assert done.returncode == 1 and "bad.yaml:3" in done.stderr and "caller" in done.stderr
