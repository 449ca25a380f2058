"""A path through a link this process may not read: another process's ``/proc/PID/root``
or ``/proc/PID/cwd`` (readlink gives EACCES without ptrace rights over it). ``os.path.realpath``
raised PermissionError there, so ``Read /proc/1/root/etc/shadow``, a ``path_under`` condition
on such a value and ``git -C /proc/1/root status`` ended the decision with a traceback
(``toolhost permissions check``: "internal error"). Now such a path is not judged: every deny
or ask rule meets it, no allow rule proves it, and the decision says why in one line.

The link is simulated (``os.readlink`` refusing one folder, as the kernel does), so the
tests hold wherever they run; the last test uses the real ``/proc/1/root`` where this
process may not read it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy
from toolhost.permissions.policy import CompiledPolicy


@pytest.fixture
def locked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A link whose target this process may not read (as /proc/1/root is)."""
    link = tmp_path / "root"
    link.symlink_to("/")
    real = os.readlink

    def readlink(path: Any, *args: Any, **kwargs: Any) -> Any:
        if os.fspath(path) == str(link):
            raise PermissionError(13, "Permission denied", str(link))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(os, "readlink", readlink)
    return link


def _policy(rules: list[tuple[str, str]], cwd: Path, **when: Any) -> CompiledPolicy:
    return compile_policy(PermissionsConfig(rules=tuple(
        RuleConfig(effect=e, tool=t, **({"when": when} if when and "mcp__" in t else {}))
        for e, t in rules), default="ask"), cwd=str(cwd))


@pytest.mark.parametrize(("tool", "key"), [("Read", "file_path"), ("Edit", "file_path"),
                                           ("Write", "file_path"),
                                           ("NotebookEdit", "notebook_path"),
                                           ("Grep", "path"), ("Glob", "path"), ("LS", "path")])
def test_a_path_tool_through_an_unreadable_link_is_denied_not_a_traceback(
        tool: str, key: str, locked: Path, tmp_path: Path) -> None:
    policy = _policy([("deny", f"{tool}(//etc/shadow)"), ("allow", tool)], tmp_path)
    decision = policy.decide(tool, {key: f"{locked}/etc/shadow", "pattern": "x"})
    assert decision.behavior == "deny"
    only_allow = _policy([("allow", f"{tool}(//**)")], tmp_path)
    assert only_allow.decide(tool, {key: f"{locked}/etc/shadow",
                                    "pattern": "x"}).behavior != "allow"


@pytest.mark.parametrize("condition", [{"path_under": "/etc"}, {"path_glob": "/etc/**"}])
def test_a_path_condition_through_an_unreadable_link_fails_closed(
        condition: dict[str, str], locked: Path, tmp_path: Path) -> None:
    tool = "mcp__files__read"
    deny = compile_policy(PermissionsConfig(rules=(
        RuleConfig(effect="deny", tool=tool, when={"path": condition}),
        RuleConfig(effect="allow", tool=tool)), default="ask"), cwd=str(tmp_path))
    assert deny.decide(tool, {"path": f"{locked}/etc/shadow"}).behavior == "deny"
    allow = compile_policy(PermissionsConfig(rules=(
        RuleConfig(effect="allow", tool=tool, when={"path": {"path_under": str(tmp_path)}}),),
        default="ask"), cwd=str(tmp_path))
    assert allow.decide(tool, {"path": f"{locked}/x/../etc/shadow"}).behavior != "allow"


@pytest.mark.parametrize("command", ["git -C {} status", "git -C {} log -1",
                                     "git -C {}/tmp checkout x -- f"])
def test_a_bash_line_through_an_unreadable_link_is_not_provable(
        command: str, locked: Path, tmp_path: Path) -> None:
    line = command.format(locked)
    guarded = _policy([("deny", "Bash(rm:*)"), ("allow", "Bash")], tmp_path)
    decision = guarded.decide("Bash", {"command": line})
    assert decision.behavior == "deny"
    assert "\n" not in decision.message
    asked = _policy([("ask", "Bash(rm:*)"), ("allow", "Bash")], tmp_path)
    assert asked.decide("Bash", {"command": line}).behavior == "ask"


def test_the_real_proc_1_root_where_it_cannot_be_read(tmp_path: Path) -> None:
    try:
        os.readlink("/proc/1/root")
    except PermissionError:
        pass
    except OSError:
        pytest.skip("no /proc/1/root here")
    else:
        pytest.skip("this process may read /proc/1/root here")
    policy = _policy([("deny", "Read(//etc/shadow)"), ("allow", "Read")], tmp_path)
    assert policy.decide("Read", {"file_path": "/proc/1/root/etc/shadow"}).behavior == "deny"
    guarded = _policy([("deny", "Bash(rm:*)"), ("allow", "Bash")], tmp_path)
    assert guarded.decide("Bash", {"command": "git -C /proc/1/root status"}).behavior == "deny"
