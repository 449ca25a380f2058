"""A shell script an earlier call wrote, run by this one, is read when it is decided
(toolhost.permissions.laterscript): ``bash s.sh`` holding ``rm`` is judged as ``rm`` is."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.permissions.test_laterarchive import GUARDED, OPEN, decide


@pytest.fixture
def root(tmp_path: Path) -> Path:
    files = {"s.sh": "rm -rf ~/x\n", "hidden.sh": "#!/bin/sh\nr${X}m -rf ~/x\n",
             "ok.sh": "#!/bin/bash\nset -e\necho hi\nls -la\n", "outer.sh": "bash s.sh\n",
             "deep.sh": "bash outer.sh\n", "py": "#!/usr/bin/env python3\nimport os\n",
             "envsh": "#!/usr/bin/env -S bash -e\nrm -rf ~/x\n", "d/s.sh": "rm -rf ~/x\n",
             "big.sh": "#!/bin/sh\n" + "echo ok\n" * 3000, "latin.sh": "echo \udcff\n",
             "bigpy": "#!/usr/bin/env python3\n" + "x = 1\n" * 4000,
             "case.sh": 'case "$1" in\n  a) echo a ;;\n  *) echo b ;;\nesac\nls -la \\\n  /tmp\n'}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_bytes(text.encode("utf-8", "surrogateescape"))
        os.chmod(tmp_path / name, 0o755)
    shutil.copy("/bin/true", tmp_path / "app")  # a binary is the program itself
    os.mkfifo(tmp_path / "fifo")
    return tmp_path


NOT_PROVABLE = [
    "bash s.sh", "sh s.sh", "source s.sh", ". ./s.sh", "./s.sh", "bash ./hidden.sh",
    "./hidden.sh", "bash -e s.sh", "bash -o pipefail s.sh", "timeout 5 bash s.sh",
    "echo go && bash s.sh", "if true; then ./s.sh; fi", "x=$(bash s.sh)", "bash d/s.sh",
    "bash outer.sh", "bash deep.sh", "./envsh", "bash fifo", "bash big.sh", "bash latin.sh",
    "cd d && bash s.sh", "exec ./s.sh", "for i in 1; do bash s.sh; done",
    "command bash s.sh", "bash $S", "bash app", "X=1 bash s.sh",
]
HONEST = [
    "bash ok.sh", "./ok.sh", "./app", "./py", "./bigpy", "python3 py", "bash -c 'echo hi'",
    "bash missing.sh", "bash d", "cd d && true", "exec ./ok.sh", "while false; do ./app; done",
    "ls s.sh", "cat s.sh", "bash case.sh", "X=1 bash ok.sh",
    "cd d && ls",
]


@pytest.mark.parametrize("command", NOT_PROVABLE)
def test_a_script_holding_what_a_rule_denies_is_not_provable(root: Path, command: str) -> None:
    assert decide(root, command, GUARDED) == "deny"


@pytest.mark.parametrize("command", HONEST)
def test_an_honest_script_or_program_is_decided_as_before(root: Path, command: str) -> None:
    assert decide(root, command, GUARDED) == "allow"


@pytest.mark.parametrize("command", ["bash s.sh", "bash ./hidden.sh", "bash fifo"])
def test_without_a_deny_or_ask_rule_the_script_is_judged_as_a_write_of_it(
        root: Path, command: str) -> None:
    assert decide(root, command, OPEN) == "allow"


def test_the_script_is_read_in_the_policy_s_folder(root: Path, tmp_path_factory:
                                                     pytest.TempPathFactory) -> None:
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    (elsewhere / "s.sh").write_text("echo fine\n")
    assert decide(elsewhere, "bash s.sh", GUARDED) == "allow"
    assert decide(root, f"bash {elsewhere / 's.sh'}", GUARDED) == "allow"
    assert decide(elsewhere, f"bash {root / 's.sh'}", GUARDED) == "deny"


@pytest.mark.parametrize("command", [
    "python3 -c 'open(\"s\",\"w\").write(\"rm -rf ~/x\")'; bash s",
    "python3 -c 'open(\"ok.sh\",\"w\").write(\"rm x\")' && bash ok.sh",
    "perl -e 'open F, \">new.sh\"; print F \"rm x\"'; source new.sh",
    "python3 -c 'open(\"app2\",\"w\")'; chmod +x app2; ./app2",
    "python3 gen.py && bash out.sh", "node build.js; sh out.sh",
])
def test_a_script_an_interpreter_on_the_line_may_write_is_not_provable(
        root: Path, command: str) -> None:
    assert decide(root, command, GUARDED) == "deny"


@pytest.mark.parametrize("command", [
    "make && ./app", "make && ./built", "cc -o built x.c && ./built", "python3 py && ./app",
    "python3 -c 'print(1)' && bash ok.sh", "npm test && bash ok.sh",
])
def test_a_program_built_on_the_line_is_decided_as_before(root: Path, command: str) -> None:
    assert decide(root, command, GUARDED) == "allow"


def test_entering_a_worktree_is_denied_where_a_bash_rule_must_follow_commands(
        root: Path) -> None:
    from toolhost.config.model import PermissionsConfig, RuleConfig
    from toolhost.permissions.policy import compile_policy

    def behavior(rules: list[tuple[str, str]], default: str) -> str:
        policy = compile_policy(PermissionsConfig(rules=[RuleConfig(effect=e, tool=t)
                                                         for e, t in rules], default=default),
                                cwd=str(root))
        return policy.decide("EnterWorktree", {"name": "w"}).behavior

    assert behavior(GUARDED, "allow") == "deny"
    assert behavior([*GUARDED, ("allow", "EnterWorktree")], "ask") == "deny"
    assert behavior(OPEN, "allow") == "allow"  # no Bash rule to follow commands for
    assert behavior([("allow", "EnterWorktree")], "deny") == "allow"
