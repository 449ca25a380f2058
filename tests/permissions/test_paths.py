"""A path holding a lone surrogate (round 25).

JSON carries ``"\\udc80"``; the CLI (Node) opens such a name with U+FFFD in its place, while
``os.path.realpath`` here read it as the byte 0x80 (a name with no link) or raised
UnicodeEncodeError (``\\ud800``: a traceback out of ``decide``). So ``D/\\udc80/shadow``,
where ``D/\\ufffd`` is a symlink to ``/etc``, was allowed under ``Read(//D/**)`` and read
``/etc/shadow``. Which file such a path names is unknown: every deny meets it, no allow.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy


@pytest.mark.parametrize("surrogate", ["\udc80", "\udcff", "\ud800", "\udfff", "\udbff"])
@pytest.mark.parametrize("tool", ["Read", "Grep", "Edit"])
def test_a_lone_surrogate_in_a_path_is_no_path_an_allow_proves(
        tmp_path: Path, surrogate: str, tool: str) -> None:
    (tmp_path / "\ufffd").symlink_to("/etc")
    key = "path" if tool == "Grep" else "file_path"
    rules = [RuleConfig(effect="allow", tool=f"Read(//{tmp_path}/**)"),
             RuleConfig(effect="allow", tool=f"Edit(//{tmp_path}/**)"),
             RuleConfig(effect="allow", tool=tool, when={key: {"path_under": str(tmp_path)}}),
             RuleConfig(effect="deny", tool="Read(//nowhere/**)")]
    policy = compile_policy(PermissionsConfig(rules=rules, default="ask"), cwd=str(tmp_path))
    tool_input = {key: f"{tmp_path}/{surrogate}/shadow", "pattern": "x"}
    if tool == "Edit":
        tool_input = {key: tool_input[key], "old_string": "a", "new_string": "b"}
    said = policy.decide(tool, tool_input).behavior
    assert said == ("ask" if tool == "Edit" else "deny")
    # the same name without it is still allowed
    tool_input[key] = f"{tmp_path}/plain/shadow"
    assert policy.decide(tool, tool_input).behavior == "allow"
