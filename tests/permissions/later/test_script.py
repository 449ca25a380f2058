"""A shell script an earlier call wrote, run by this one, is read when it is decided
(toolhost.permissions.later.script): ``bash s.sh`` holding ``rm`` is judged as ``rm`` is."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.permissions.later.test_archive import GUARDED, OPEN, decide
from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.permissions.policy import compile_policy


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
    # `--` ends source's options (it ran s.sh unread before); bash 5.3's -p PATH finds the
    # file on a path the line gives; any other option fails closed
    "source -- s.sh", ". -- ./s.sh", "command . -- s.sh", "builtin source -- s.sh",
    "source -p . s.sh", ". -p . s.sh", "source -x s.sh", "source -- /dev/stdin < s.sh",
    ". -- <(cat s.sh)", "source -- $S",
    # zsh's precommand modifiers run the script too
    "noglob bash s.sh", "nocorrect source s.sh", "- ./s.sh", "repeat 2 bash s.sh",
]
HONEST = [
    "bash ok.sh", "./ok.sh", "./app", "./py", "./bigpy", "python3 py", "bash -c 'echo hi'",
    "bash missing.sh", "bash d", "cd d && true", "exec ./ok.sh", "while false; do ./app; done",
    "ls s.sh", "cat s.sh", "bash case.sh", "X=1 bash ok.sh",
    "cd d && ls",
    "source -- ok.sh", ". -- ./ok.sh", "source -- missing.sh",
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


# (round 22) a script that changes what a name runs: sourced, for the rest of the line too.
# name: (the script's text, the command); ./evil/ls and ./evil/make log 'rm' to ./ran
CHANGES_NAMES = {
    "path_sourced": ('export PATH="$PWD/evil:$PATH"\n', "source a.sh && ls"),
    "path_dot": ("PATH=evil:$PATH\n", ". ./a.sh; ls"),
    "path_inside": ('PATH="$PWD/evil:$PATH"\nls\n', "bash a.sh"),
    "venv_activate": ('VIRTUAL_ENV="$PWD"\nexport VIRTUAL_ENV\n_OLD_PATH="${PATH:-}"\n'
                      'PATH="$VIRTUAL_ENV/evil:$PATH"\nexport PATH\nhash -r\n',
                      "source a.sh && make x"),
    "bash_env": ("export BASH_ENV=f.sh\n", "source a.sh && bash -c ls"),
    "hash_p": ('hash -p "$PWD/evil/ls" ls\n', "source a.sh; ls"),
    "declared": ('declare -x PATH="$PWD/evil:$PATH"\n', "source a.sh; ls"),
}


@pytest.mark.parametrize("name", list(CHANGES_NAMES))
def test_a_script_changing_what_names_run_is_not_provable(tmp_path: Path, name: str) -> None:
    text, command = CHANGES_NAMES[name]
    (tmp_path / "a.sh").write_text(text)
    (tmp_path / "f.sh").write_text('ls() { "$PWD/evil/ls"; }\n')
    (tmp_path / "Makefile").write_text("x: ; echo hi\n")
    (tmp_path / "evil").mkdir()
    for program in ("ls", "make"):
        (tmp_path / "evil" / program).write_text(f"#!/bin/sh\necho rm >> {tmp_path / 'ran'}\n")
        (tmp_path / "evil" / program).chmod(0o755)
    decision = decide(tmp_path, command, GUARDED)
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "SHELL": "/bin/sh"}
    subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True,
                   check=False, stdin=subprocess.DEVNULL)
    assert (tmp_path / "ran").exists()  # (the changed name ran ./evil's program: a real case)
    assert decision == "deny"


def test_the_reason_for_an_activate_script_says_what_to_run_instead(tmp_path: Path) -> None:
    (tmp_path / ".venv/bin").mkdir(parents=True)
    (tmp_path / ".venv/bin/activate").write_text(
        'VIRTUAL_ENV="/x/.venv"\nexport VIRTUAL_ENV\nPATH="$VIRTUAL_ENV/bin:$PATH"\nexport PATH\n')
    (tmp_path / "Makefile").write_text("test: ; .venv/bin/python -m compileall -q src\n")
    policy = compile_policy(PermissionsConfig(rules=[RuleConfig(effect=e, tool=t) for e, t in
                                                     GUARDED], default="ask"), cwd=str(tmp_path))
    decision = policy.decide("Bash", {"command": "source .venv/bin/activate && make test"})
    assert decision.behavior == "deny"
    assert "run its programs by their path" in decision.message
    assert policy.decide("Bash", {"command": "make test"}).behavior == "allow"
