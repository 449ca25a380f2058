"""Round 16: the files a toolhost policy is read from (its config and extends, the local
layer toolhost.local.yaml, the user layer) are never written with an allow rule's or the
default's leave: the next session would obey what an agent wrote there."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from toolhost.config import load_config
from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy
from toolhost.permissions.gate import declared_tool_names


def policy(rules: list[tuple[str, str]], default: str = "ask", **kw: Any) -> Any:
    return compile_policy(PermissionsConfig(
        rules=[RuleConfig(effect=e, tool=t) for e, t in rules], default=default), **kw)


OPEN = policy([("allow", "Edit"), ("allow", "Bash")], "allow")
GUARDED = policy([("deny", "Bash(rm:*)"), ("allow", "Edit"), ("allow", "Bash")], "allow")

WRITES = [
    ("Write", {"file_path": "toolhost.local.yaml", "content": "permissions: {default: allow}"}),
    ("Write", {"file_path": "./sub/../toolhost.local.toml", "content": "x"}),
    ("Edit", {"file_path": "toolhost.yaml", "old_string": "deny", "new_string": "allow"}),
    ("MultiEdit", {"file_path": "~/.config/toolhost/config.yaml", "edits": []}),
    ("Write", {"file_path": "$HOME/.config/toolhost/config.toml", "content": "x"}),
    ("Write", {"file_path": "TOOLHOST.LOCAL.YAML", "content": "x"}),
]


@pytest.mark.parametrize(("tool", "tool_input"), WRITES)
def test_a_file_tool_writing_the_policy_asks(tool: str, tool_input: dict[str, Any]) -> None:
    decision = OPEN.decide(tool, tool_input)
    assert decision.behavior == "ask"
    assert "toolhost's permissions are read from" in decision.message


def test_a_deny_rule_of_the_tool_still_denies() -> None:
    strict = policy([("deny", "Edit(./toolhost.local.yaml)"), ("allow", "Edit")], "allow")
    assert strict.decide(*WRITES[0]).behavior == "deny"


def test_the_loaded_configs_own_files_are_the_policys(tmp_path: Path) -> None:
    (tmp_path / "base.yaml").write_text("toolhost: 1\npermissions: {deny: ['Bash(rm:*)']}\n")
    (tmp_path / "team.yaml").write_text(
        "toolhost: 1\nextends: [base.yaml]\npermissions: {allow: [Edit]}\n")
    config = load_config(str(tmp_path / "team.yaml"), layers=False)
    loaded = compile_policy(config.permissions, tool_names=declared_tool_names(config),
                            cwd=str(tmp_path), files=config.files)
    for name in ("base.yaml", "team.yaml", str(tmp_path / "BASE.yaml")):
        assert loaded.decide("Write", {"file_path": name, "content": "x"}).behavior == "ask"
    assert loaded.decide("Write", {"file_path": "src/a.py", "content": "x"}).behavior == "allow"


BASH_WRITES = [
    "echo 'permissions: {default: allow}' > toolhost.local.yaml",
    "printf 'x' >> ./toolhost.yaml", "cat > toolhost.local.toml <<EOF\nx\nEOF",
    "echo x | tee toolhost.local.yaml", "cp /tmp/x toolhost.local.yaml",
    "mv x ~/.config/toolhost/config.yaml", "sed -i s/deny/allow/ toolhost.yaml",
    "python3 -c \"open('toolhost.local.yaml','w').write('x')\"",
]


@pytest.mark.parametrize("command", BASH_WRITES)
def test_a_bash_write_of_the_policy_is_not_provable(command: str) -> None:
    assert OPEN.decide("Bash", {"command": command}).behavior == "ask"
    decision = GUARDED.decide("Bash", {"command": command})
    assert decision.behavior == "deny"
    assert "toolhost's permissions are read from" in decision.message


@pytest.mark.parametrize("command", [
    "cat toolhost.yaml", "toolhost validate toolhost.yaml", "grep deny toolhost.local.yaml",
    "git diff toolhost.yaml", "toolhost permissions test cases.yaml", "ls toolhost.yaml"])
def test_reading_the_policy_is_decided_as_before(command: str) -> None:
    assert OPEN.decide("Bash", {"command": command}).behavior == "allow"
