"""A path argument longer than the kernel takes in one call (PATH_MAX, 4096 bytes) names no
file a tool opens as written; resolving it cost time with the square of its segments
(``a/`` 160,000 times held one decision for 16 s, three million for hours). It is now not
judged: every deny rule meets it, no allow rule proves it, and symlinks are never resolved
along it (counted, not timed)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy
from toolhost.permissions import paths as paths_module

RULES = [("deny", "Read(//etc/shadow)"), ("allow", "Read(./**)"), ("allow", "Edit(./**)"),
         ("allow", "Glob"), ("allow", "Grep")]
LONG = "a/" * 3000 + "x"  # (6,001 characters)


def _policy(root: Path, rules: list[tuple[str, str]]) -> object:
    return compile_policy(PermissionsConfig(
        rules=[RuleConfig(effect=e, tool=t) for e, t in rules], default="ask"), cwd=str(root))


@pytest.mark.parametrize(("tool", "args"), [
    ("Read", {"file_path": LONG}), ("Read", {"file_path": "./" + LONG}),
    ("Edit", {"file_path": LONG, "old_string": "a", "new_string": "b"}),
    ("Write", {"file_path": "a/../" * 1000 + "x", "content": ""}),
    ("Grep", {"pattern": "x", "path": LONG}), ("Glob", {"pattern": "*", "path": LONG}),
])
def test_a_path_past_path_max_is_not_judged(tmp_path: Path, tool: str,
                                             args: dict[str, object]) -> None:
    decision = _policy(tmp_path, RULES).decide(tool, args)  # type: ignore[attr-defined]
    # (a Read deny rule meets the reads; the edits, which no deny names, are not allowed)
    assert decision.behavior == ("deny" if tool in ("Read", "Grep", "Glob") else "ask")
    assert "\n" not in decision.message


def test_an_argument_condition_meets_it_as_a_deny(tmp_path: Path) -> None:
    policy = compile_policy(PermissionsConfig(rules=[
        RuleConfig(effect="deny", tool="mcp__fs__read", when={"path": {"path_under": "/etc"}}),
        RuleConfig(effect="allow", tool="mcp__fs__read")], default="ask"), cwd=str(tmp_path))
    assert policy.decide("mcp__fs__read", {"path": LONG}).behavior == "deny"
    assert policy.decide("mcp__fs__read", {"path": "a/x"}).behavior == "allow"


def test_realpath_never_walks_a_path_past_path_max(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[int] = []
    real = os.path.realpath

    def counting(path: str, *args: object, **kwargs: object) -> str:
        seen.append(len(os.fspath(path)))
        return real(path, *args, **kwargs)  # type: ignore[arg-type]

    policy = _policy(tmp_path, RULES)
    monkeypatch.setattr(paths_module.os.path, "realpath", counting)
    policy.decide("Read", {"file_path": "a/" * 5000})  # type: ignore[attr-defined]
    assert seen == [] or max(seen) <= paths_module.PATH_MAX + len(str(tmp_path)) + 1


@pytest.mark.parametrize("path", ["a/" * 2000 + "x", "src/x.py", "./" + "b/" * 100 + "c"])
def test_a_path_within_path_max_stays_provable(tmp_path: Path, path: str) -> None:
    assert _policy(tmp_path, RULES).decide(  # type: ignore[attr-defined]
        "Read", {"file_path": path}).behavior == "allow"
