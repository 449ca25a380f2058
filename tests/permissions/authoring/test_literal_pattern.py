"""``validate`` warns about a deny/ask ``regex`` or ``glob`` with nothing of a pattern in it:
it holds for that exact value only, so the text it names passes anywhere else in a value. The
hint's pattern is checked against the engine itself: it holds where the written one did not."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.inproc import run_cli

HEAD = """\
toolhost: 1
servers:
  t:
    tools:
      q:
        description: run a query
        command: [echo, --, "{{ sql }}"]
        params: {sql: string}
permissions:
  default: allow
"""

_WARNING = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+):\d+: (?P<path>\S+): warning: .*"
                      r"(?:no pattern characters|has no wildcard).*"
                      r"write \{(?P<op>regex|glob): (?P<wide>\"(?:[^\"\\]|\\.)*\")\}", re.M)


def _config(tmp_path: Path, effect: str, op: str, value: str, name: str = "c.yaml") -> Path:
    rule = json.dumps({"tool": "mcp__t__q", "when": {"sql": {op: value}}})
    path = tmp_path / name
    path.write_text(HEAD + f"  {effect}:\n    - {rule}\n")
    return path


def _decision(config: Path, sql: str) -> str:
    done = run_cli(["permissions", "check", str(config), "mcp__t__q", "--input",
                    json.dumps({"sql": sql}), "--json"])
    return str(json.loads(done.stdout)["decision"])


# (operator, pattern as written, a value holding the text that the written pattern lets by)
LITERALS = [
    ("regex", "drop table", "select 1; drop table users"),
    ("regex", "(?i)drop table", "SELECT 1; DROP TABLE users"),
    ("regex", "\\.env", "cat prod.env"),
    ("regex", "rm -rf", "ls; rm -rf /"),
    ("regex", "a\\+b", "x a+b y"),
    ("regex", "secret", "my\nsecret"),
    ("glob", "prod", "db-prod-1"),
    ("glob", "/etc/passwd", "cat /etc/passwd"),
]


@pytest.mark.parametrize("effect", ["deny", "ask"])
@pytest.mark.parametrize(("op", "pattern", "value"), LITERALS)
def test_a_literal_pattern_is_warned_about_with_a_hint_that_holds(
        tmp_path: Path, effect: str, op: str, pattern: str, value: str) -> None:
    config = _config(tmp_path, effect, op, pattern)
    done = run_cli(["validate", str(config)])
    assert done.returncode == 0, done.stderr  # a warning, not an error
    found = _WARNING.search(done.stdout + done.stderr)
    assert found is not None, done.stdout + done.stderr
    assert found["line"] == "12" and found["path"] == f"permissions.{effect}[0].when.sql"
    # the rule as written lets the value by; the hint's pattern holds for it
    assert _decision(config, value) == "allow"
    widened = _config(tmp_path, effect, found["op"], json.loads(found["wide"]), "wide.yaml")
    assert _decision(widened, value) == effect
    assert run_cli(["validate", "--strict", str(config)]).returncode == 1


@pytest.mark.parametrize(("op", "pattern"), [
    ("regex", "(?is).*drop table.*"), ("regex", "\\d+"), ("regex", "a|b"),
    ("regex", "^prod$"), ("regex", "\\bx"), ("regex", "prod[0-9]"), ("glob", "*prod*"),
    ("glob", "prod?"), ("glob", "[ab]"),
])
def test_a_pattern_is_not_warned_about(tmp_path: Path, op: str, pattern: str) -> None:
    done = run_cli(["validate", "--strict", str(_config(tmp_path, "deny", op, pattern))])
    assert done.returncode == 0, done.stdout + done.stderr


def test_an_allow_rule_with_a_literal_is_left_alone(tmp_path: Path) -> None:
    # a literal in an allow rule only allows less than meant: nothing slips through
    done = run_cli(["validate", "--strict", str(_config(tmp_path, "allow", "regex", "select"))])
    assert done.returncode == 0, done.stdout + done.stderr
