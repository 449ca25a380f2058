"""``validate --connect`` on a rule's ``when`` over an imported tool's arguments: an argument
the upstream's (open) inputSchema does not declare, and a deny/ask condition that holds for
an argument's default (a call leaving it out is sent the default, which the rules never see).
Before, both passed in silence: ``deny mcp__gh__search_issues when {q: ...}`` over a tool
taking ``query`` guarded nothing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.gateway.conftest import HOSTILE
from toolhost.permissions.upstream_args import undeclared


def test_validate_connect_says_which_conditions_on_an_imported_tool_guard_nothing(
        tmp_path: Path) -> None:
    config = tmp_path / "th.yaml"
    config.write_text(f"""\
toolhost: 1
servers:
  gh:
    mcp: {{command: [{sys.executable}, {HOSTILE}], env: {{HOSTILE_MODE: issues}}}}
    tools:
      delete_repo: {{name: remove}}
      echo: {{defaults: {{text: hello}}}}
permissions:
  default: allow
  deny:
    - {{tool: mcp__gh__search_issues, when: {{q: {{regex: "(?i).*password.*"}}}}}}
    - {{tool: mcp__gh__search_issues, when: {{query: {{regex: "(?i).*password.*"}}}}}}
    - {{tool: mcp__gh__search_issues, when: {{limit: {{min: 10}}}}}}
    - {{tool: mcp__gh__search_issues, when: {{limit: {{min: 30}}}}}}
    - {{tool: mcp__gh__search_issues, when: {{limit: {{present: false}}}}}}
    - {{tool: mcp__gh__remove, when: {{Repo: acme/prod}}}}
  ask:
    - {{tool: mcp__gh__echo, when: {{text: {{glob: "hell*"}}}}}}
  allow:
    - {{tool: mcp__gh__echo, when: {{txt: hi}}}}
    - {{tool: mcp__gh__search_issues, when: {{limit: {{max: 25}}}}}}  # allows: no guard
""")
    done = subprocess.run([sys.executable, "-m", "toolhost", "validate", "--connect",
                           str(config)], capture_output=True, text=True, timeout=120)
    said = [line for line in done.stderr.splitlines() if "warning:" in line]
    by_key = {line.split(": warning:")[0].split(":", 3)[3].strip(): line for line in said}
    assert sorted(by_key) == ["permissions.allow[0].when.txt", "permissions.ask[0].when.text",
                              "permissions.deny[0].when.q", "permissions.deny[2].when.limit",
                              "permissions.deny[5].when.Repo"], done.stderr
    assert "does not declare 'q' (the arguments it declares: limit, query, repo)" in \
        by_key["permissions.deny[0].when.q"]
    assert "never holds for a call the upstream acts on (did you mean 'query'?)" in \
        by_key["permissions.deny[0].when.q"]
    assert "did you mean 'repo'?" in by_key["permissions.deny[5].when.Repo"]
    assert "the rule never matches (did you mean 'text'?)" in \
        by_key["permissions.allow[0].when.txt"]
    assert "when.limit holds for the default of 'limit' of mcp__gh__search_issues (20)" in \
        by_key["permissions.deny[2].when.limit"]
    assert "a call that leaves 'limit' out is sent 20, and this deny rule does not meet it" in \
        by_key["permissions.deny[2].when.limit"]
    # the config's own default counts, and the hint names the config's entry
    assert "(\"hello\")" in by_key["permissions.ask[0].when.text"]
    assert "servers.gh.tools.echo.defaults" in by_key["permissions.ask[0].when.text"]
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(("schema", "path", "said"), [
    ({"properties": {"query": {}}}, ("q",), ("the arguments", "query", "query")),
    ({"properties": {"f": {"properties": {"repo": {}}}}}, ("f", "Repo"),
     ("argument 'f'", "repo", "repo")),
    # anything else about other keys: they may be read, nothing said
    ({"properties": {"query": {}}, "additionalProperties": True}, ("q",), None),
    ({"properties": {"query": {}}, "additionalProperties": {"type": "string"}}, ("q",), None),
    ({"properties": {"query": {}}, "patternProperties": {"^q": {}}}, ("q",), None),
    ({"properties": {"query": {}}, "anyOf": [{"properties": {"q": {}}}]}, ("q",), None),
    ({"$ref": "#/$defs/A", "$defs": {"A": {"properties": {"q": {}}}}}, ("q",), None),
    ({"properties": {}}, ("q",), None),  # declares nothing: a free-form tool
    ({"properties": {"query": {}}}, ("query",), None),
    ({"properties": {"items": {"type": "array"}}}, ("items", 0), None),
])
def test_an_undeclared_key_is_only_said_where_the_schema_proves_it(
        schema: dict[str, Any], path: tuple[str | int, ...],
        said: tuple[str, str, str] | None) -> None:
    assert undeclared(schema, path) == said
