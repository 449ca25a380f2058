"""bash's ``complete -C CMD``/``-F FUNC``/``-W '$(...)'`` and ``bind -x 'KEY: CMD'`` hand a
command to the shell, which an interactive shell runs on a Tab or a key: code the line does
not name as a program. Under a deny or ask Bash rule, or an allow list naming ``complete`` or
``bind``, they are not provable; ``complete -W 'a b'``, ``bind -l`` and the like stay
provable. bash itself, in a pseudo-terminal, shows that it runs both."""

from __future__ import annotations

import os
import select
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy

GUARDED = [("deny", "Bash(rm:*)"), ("allow", "Bash")]
ASKED = [("ask", "Bash(rm:*)"), ("allow", "Bash")]
LISTED = [("deny", "Bash(rm:*)"), ("allow", "Bash(complete:*)"), ("allow", "Bash(bind:*)"),
          ("allow", "Bash(echo:*)")]

HANDS_CODE = [
    "complete -C 'rm -rf x' ls", "complete -C'rm -rf x' ls", "complete -o default -C 'rm x' ls",
    "complete -dC 'rm x' ls", "complete -F f ls", "complete -W '$(rm -rf x)' ls",
    "complete -W'`rm -rf x`' ls", "builtin complete -C 'rm x' ls", "command complete -F f ls",
    "echo hi; complete -C 'rm x' ls", "bind -x '\"\\C-t\": rm -rf x'",
    "bind -x'\"\\C-t\": rm -rf x'", "bind -m emacs -x '\"\\C-t\": rm x'",
    "bind -mvi -x '\"\\C-t\": rm x'", "builtin bind -x 'a: rm x'", "bind -lx '\"\\C-t\": rm x'",
]
STILL_PROVABLE = ["complete -W 'a b' ls", "complete -p", "complete -r ls", "complete -o default ls",
                  "bind -l", "bind -P", "bind -m emacs -l", "bind -f inputrc",
                  "bind -q forward-char", "bind '\"\\C-a\": beginning-of-line'", "echo bind -x"]


def _decide(command: str, rules: list[tuple[str, str]]) -> str:
    policy = compile_policy(PermissionsConfig(
        rules=[RuleConfig(effect=e, tool=t) for e, t in rules], default="ask"), cwd="/")
    return policy.decide("Bash", {"command": command}).behavior


@pytest.mark.parametrize("command", HANDS_CODE)
def test_a_command_handed_to_completion_or_a_key_is_not_provable(command: str) -> None:
    assert _decide(command, GUARDED) == "deny"
    assert _decide(command, ASKED) == "ask"
    assert _decide(command, LISTED) == "deny"


@pytest.mark.parametrize("command", STILL_PROVABLE)
def test_completion_and_bindings_without_code_stay_provable(command: str) -> None:
    assert _decide(command, GUARDED) == "allow"
    assert _decide(command, LISTED) == "allow"


@pytest.mark.parametrize(("allowed", "flagged"), [
    ("Bash(complete -C x:*)", True), ("Bash(bind -x:*)", True), ("Bash(complete -F f:*)", True),
    ("Bash(complete -W a:*)", False), ("Bash(bind -l)", False),
])
def test_lint_flags_an_allow_that_hands_over_code(allowed: str, flagged: bool) -> None:
    from toolhost.permissions import lint_policy

    policy = compile_policy(PermissionsConfig(rules=[
        RuleConfig(effect="allow", tool=allowed), RuleConfig(effect="deny", tool="Bash(rm:*)")],
        default="ask"), cwd="/")
    found = [f.rule for f in lint_policy(policy) if f.code == "never-allows"]
    assert found == ([allowed] if flagged else [])


def _until(fd: int, done: Callable[[bytes], bool], limit: float = 30.0) -> bytes:
    """Read bash's output until ``done`` holds for what it printed (or ``limit`` seconds
    pass: a bound against a hang, never a timing asserted)."""
    seen = b""
    end = time.monotonic() + limit
    while not done(seen) and time.monotonic() < end:
        if select.select([fd], [], [], 0.05)[0]:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
    return seen


@pytest.mark.skipif(shutil.which("bash") is None or sys.platform == "win32",
                    reason="needs bash and a pseudo-terminal")
def test_bash_really_runs_a_completion_command_and_a_bound_key(tmp_path: Path) -> None:
    import pty

    bash = shutil.which("bash")
    assert bash is not None
    ran_c, ran_b = tmp_path / "RAN_C", tmp_path / "RAN_B"
    pid, fd = pty.fork()
    if pid == 0:  # (the child: an interactive bash reading no start-up files)
        os.chdir(tmp_path)
        os.execve(bash, ["bash", "--norc", "--noprofile", "-i"],
                  {"PATH": os.defpath, "TERM": "dumb", "HOME": str(tmp_path),
                   "INPUTRC": os.devnull, "PS1": "READY> "})

    def prompt(seen: bytes) -> bool:
        return seen.rstrip(b"\x07").endswith(b"READY> ")  # (a bell may follow it)

    try:  # each step once bash is ready for it (keys typed ahead of readline may be lost)
        _until(fd, prompt)
        for line in (b"complete -C 'touch RAN_C' ls\n", b"bind -x '\"\\C-t\": touch RAN_B'\n"):
            os.write(fd, line)
            _until(fd, prompt)
        os.write(fd, b"\x14")  # (the bound key on the empty line, then the completion)
        _until(fd, lambda _seen: ran_b.exists())
        os.write(fd, b"ls \t\t")
        _until(fd, lambda _seen: ran_c.exists())
        os.write(fd, b"\x15\nexit\n")  # (the line killed, then bash left)
    finally:
        os.waitpid(pid, 0)
        os.close(fd)
    assert ran_c.exists()
    assert ran_b.exists()
