"""A Grep/Glob/LS whose search covers a path a ``Read(...)`` deny or ask rule names is never
allowed (by a rule or the default): it is held for a person (ask). A search that cannot reach
the path is decided as before, and the Read of the path itself stays denied."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from toolhost.config.model import Origin, PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy

HOME = os.path.expanduser("~")


def _policy(tmp_path: Path, default: str, *rules: tuple[str, str]) -> Any:
    proj = tmp_path / "proj"
    (proj / "src").mkdir(parents=True, exist_ok=True)
    (proj / "secret").mkdir(exist_ok=True)
    config = PermissionsConfig(default=default, rules=tuple(  # type: ignore[arg-type]
        RuleConfig(e, t, origin=Origin(str(tmp_path / "t.yaml"), i + 1))  # type: ignore[arg-type]
        for i, (e, t) in enumerate(rules)))
    return compile_policy(config, cwd=str(proj))


DENIES = ["Read(.env)", "Read(./secret/**)", "Read(secret/)", "Read(~/.ssh/**)",
          "Read(./secret/key.pem)", "Read(**/*.pem)"]
REACHING: list[tuple[str, str, dict[str, Any]]] = [
    ("Read(.env)", "Grep", {"pattern": "S", "path": ".", "glob": ".env",
                            "output_mode": "content"}),
    ("Read(.env)", "Grep", {"pattern": "S", "glob": "**/.env"}),
    ("Read(.env)", "Grep", {"pattern": "S", "path": "src"}),
    ("Read(.env)", "Glob", {"pattern": "**/.env"}),
    ("Read(.env)", "LS", {"path": "."}),
    ("Read(./secret/**)", "Grep", {"pattern": "S"}),
    ("Read(./secret/**)", "Grep", {"pattern": "S", "path": "/"}),
    ("Read(./secret/**)", "Grep", {"pattern": "S", "path": "secret/sub"}),
    ("Read(secret/)", "Glob", {"pattern": "*", "path": ".."}),
    ("Read(~/.ssh/**)", "Grep", {"pattern": "PRIVATE", "path": "~", "glob": ".ssh/*"}),
    ("Read(~/.ssh/**)", "Grep", {"pattern": "PRIVATE", "path": os.path.dirname(HOME)}),
    ("Read(~/.ssh/**)", "LS", {"path": "/"}),
    ("Read(./secret/key.pem)", "Grep", {"pattern": "K", "path": "secret"}),
    ("Read(./secret/key.pem)", "Grep", {"pattern": "K", "path": 3}),
    ("Read(**/*.pem)", "Grep", {"pattern": "K", "path": "src"}),
]


@pytest.mark.parametrize(("deny", "tool", "tool_input"), REACHING)
@pytest.mark.parametrize("allow", ["Grep", "Glob", "LS", "Read", "Read(//**)", None])
@pytest.mark.parametrize("effect", ["deny", "ask"])
def test_a_search_that_may_reach_a_denied_path_is_never_allowed(
        tmp_path: Path, deny: str, tool: str, tool_input: dict[str, Any], allow: str | None,
        effect: str) -> None:
    rules = [(effect, deny)] + ([("allow", allow)] if allow else [])
    decision = _policy(tmp_path, "allow", *rules).decide(tool, tool_input)
    assert decision.behavior in ("ask", "deny")
    assert decision.rule == deny or decision.behavior == "deny"


@pytest.mark.parametrize(("deny", "tool", "tool_input"), [
    ("Read(./secret/**)", "Grep", {"pattern": "S", "path": "src"}),
    ("Read(./secret/key.pem)", "Grep", {"pattern": "K", "path": "secret/other"}),
    ("Read(~/.ssh/**)", "Grep", {"pattern": "S", "path": "/usr/share"}),
    ("Read(./secret/**)", "LS", {"path": "src"}),
    ("Read(./secret/**)", "Glob", {"pattern": "*.py", "path": "src"}),
])
def test_a_search_that_cannot_reach_it_is_decided_as_before(
        tmp_path: Path, deny: str, tool: str, tool_input: dict[str, Any]) -> None:
    policy = _policy(tmp_path, "deny", ("deny", deny), ("allow", "Grep"), ("allow", "LS"),
                     ("allow", "Glob"))
    assert policy.decide(tool, tool_input).behavior == "allow"


def test_a_direct_deny_still_wins_over_a_held_search(tmp_path: Path) -> None:
    policy = _policy(tmp_path, "allow", ("deny", "Read(.env)"), ("deny", "Grep(./secret/**)"))
    assert policy.decide("Grep", {"pattern": "S", "path": "secret"}).behavior == "deny"
    assert policy.decide("Read", {"file_path": ".env"}).behavior == "deny"
