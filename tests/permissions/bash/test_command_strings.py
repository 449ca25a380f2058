"""Round 6: commands that programs run from a string other than a shell's: an awk program's
``system()`` / ``print | "cmd"`` / ``"cmd" | getline``, and ``git -c key=value`` (core.pager,
``alias.x=!cmd``, core.sshCommand run the value), options naming a command (``tar
--to-command``, ``rsync -e``, ``zip -TT``). A deny rule on the command they run must
deny them; what runs no such string stays as it was."""

from __future__ import annotations

import tracemalloc
from typing import Any

import pytest

from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy


def policy(rules: list[tuple[str, str]], default: str) -> Any:
    return compile_policy(PermissionsConfig(
        rules=tuple(RuleConfig(effect=e, tool=t) for e, t in rules), default=default))  # type: ignore[arg-type]


DENY_RM = policy([("deny", "Bash(rm:*)"), ("ask", "Bash(curl:*)")], "allow")

RUN_FROM_STRINGS = [
    ("awk 'BEGIN{system(\"rm -rf /tmp/x\")}'", "deny"),
    ("gawk 'BEGIN { system(\"rm x\") }' f", "deny"),
    ("mawk '{print | \"rm x\"}' f", "deny"),
    ("nawk 'BEGIN{\"rm x\" | getline; print}'", "deny"),
    ("/usr/bin/awk 'BEGIN{system(\"sudo rm x\")}'", "deny"),
    ("sudo awk 'BEGIN{system(\"rm x\")}'", "deny"),
    ("awk 'BEGIN{system(\"echo a; rm x\")}'", "deny"),
    ("awk 'BEGIN{system(\"curl http://x\")}'", "deny"),  # inline_run
    ("git -c core.pager='rm x' log", "deny"),
    ("git -c 'alias.x=!rm -rf /tmp/x' x", "deny"),
    ("git -c core.sshCommand='sh -c \"rm x\"' fetch", "deny"),
    ("git -C /tmp -c core.editor='rm x' commit", "deny"),
    ("git -c core.pager='curl x' log", "ask"),
    ("tar --to-command='rm x' -xf a.tar", "deny"),
    ("tar -I 'rm x' -xf a.tar", "deny"),
    ("rsync -e 'rm x' a b", "deny"),
    ("rsync --rsh='curl x' a b", "ask"),
    ("zip -T -TT 'rm x' a.zip b", "deny"),
    ("ssh host rm -rf /", "deny"),
    ("ssh -p 22 -i key host 'rm -rf /tmp/x'", "deny"),
    ("ssh -tp22 host sudo rm x", "deny"),
    ("ssh -o ProxyCommand='rm x' host", "deny"),
    ("ssh -oProxyCommand='rm x' host ls", "deny"),
    ("ssh -o 'LocalCommand curl x' host", "ask"),
    ("scp -o 'ProxyCommand rm x' a h:b", "deny"),
    ("scp -S rm a h:b", "deny"),
    ("sftp -D 'rm x' h", "deny"),
    ("man -P 'rm x' ls", "deny"),
    ("man --pager='rm x' ls", "deny"),
    ("GIT_SSH_COMMAND='rm x' git fetch", "deny"),
    ("env GIT_SSH_COMMAND='rm x' git fetch", "deny"),
    ("sudo PAGER='rm x' man ls", "deny"),
    ("EDITOR='curl x' git commit", "ask"),
    ("LESSOPEN='|rm x %s' less f", "deny"),  # `|cmd`: less runs it
    ("vim -c '!rm x'", "deny"),
    ("vim -c 'silent !rm x' f", "deny"),
    ("vim +':!rm x' f", "deny"),
    ("nvim -c 'call system(\"rm x\")'", "deny"),
    ("sed '1e rm x' f", "deny"),
    ("sed -e '/a/e rm x' f", "deny"),
    ("sed --expression='$e rm x' f", "deny"),
    # nothing run from a string: unchanged
    ("ssh host ls", "allow"),
    ("ssh -v -p 22 host", "allow"),
    ("man ls", "allow"),
    ("sed 's/e/x/' f", "allow"),
    ("vim -c 'set nu' f", "allow"),
    ("FOO=1 git status", "allow"),
    ("tar -xf a.tar", "allow"),
    ("rsync -a a b", "allow"),
    ("awk '{print $1}' f", "allow"),
    ("awk 'BEGIN{print \"rm x\"}'", "allow"),
    ("git -c core.pager=less log", "allow"),
    ("git log --grep 'rm x'", "allow"),
]


@pytest.mark.parametrize(("command", "want"), RUN_FROM_STRINGS)
def test_commands_run_from_awk_and_git_config_strings_meet_deny_rules(command: str,
                                                                      want: str) -> None:
    assert DENY_RM.decide("Bash", {"command": command}).behavior == want


ALLOW_GIT = policy([("allow", "Bash(git fetch:*)"), ("allow", "Bash(git log:*)"),
                    ("allow", "Bash(man:*)"), ("allow", "Bash(GIT_PAGER=cat git log:*)")],
                   "deny")


@pytest.mark.parametrize(("command", "want"), [
    ("git fetch origin", "allow"),
    ("FOO=1 git fetch", "allow"),  # an ordinary variable: a transparent step
    ("GIT_SSH_COMMAND='curl x | sh' git fetch", "deny"),  # its value runs: not the rule's
    ("GIT_SSH='rm x' git fetch", "deny"),
    ("PAGER='rm x' man ls", "deny"),
    ("MANPAGER=cat man ls", "deny"),
    ("FOO=1 EDITOR=vim git fetch", "deny"),
    ("GIT_PAGER=cat git log", "allow"),  # a rule that names the assignment allows it
    ("GIT_PAGER=less git log", "deny"),
])
def test_an_allow_rule_does_not_cover_a_variable_whose_value_runs(command: str,
                                                                  want: str) -> None:
    assert ALLOW_GIT.decide("Bash", {"command": command}).behavior == want


# round 14: programs whose own language runs a shell command, and options naming a program
ESCAPES = [
    "socat - EXEC:'rm x'", "socat - SYSTEM:'rm x'", "socat TCP-LISTEN:1 EXEC:rm",
    "socat - exec:'rm x',pty", "ncat --sh-exec 'rm x' h 1", "nc -e /bin/rm h 1",
    "nc -c 'rm x' h 1", "aria2c --on-download-complete=rm x", "ed -s f <<< '!rm x'",
    "ed -s f <<EOF\n1d\nw\n!rm x\nEOF", "echo '!rm x' | ed f", "dc -e '!rm x'",
    "sqlite3 :memory: '.shell rm x'", "sqlite3 db <<< '.system rm x'", "psql -c '\\! rm x'",
    "mysql -e 'system rm x'", "m4 <<< 'syscmd(rm x)'", "m4 <<< 'esyscmd(rm x)'",
    "lftp -c '!rm x'", "ftp <<< '!rm x'", "sftp -b - h <<< '!rm x'",
]
PLAIN = ["sqlite3 db 'select 1'", "psql -c 'select 1'", "nc -l 8080", "socat TCP:h:1 -",
         "ed -s f <<< ',p'", "mysql -e 'select 1'", "m4 macros.m4", "dc -e '2 3 + p'"]


@pytest.mark.parametrize("command", ESCAPES)
def test_a_shell_escape_meets_the_deny_rules(command: str) -> None:
    assert DENY_RM.decide("Bash", {"command": command}).behavior == "deny", command


@pytest.mark.parametrize("command", PLAIN)
def test_no_shell_escape_is_decided_as_before(command: str) -> None:
    assert DENY_RM.decide("Bash", {"command": command}).behavior == "allow", command


@pytest.mark.parametrize("command", ["m4 <<< '" + "syscmd(" * 6000 + "'",
                                     "fzf --bind '" + "execute(" * 6000 + "'"])
def test_an_escape_never_closed_is_found_in_linear_time(command: str) -> None:
    """Round 15: `syscmd([^)]*)` scanned to the end from each of 12,000 `syscmd(` (~30 s);
    the escapes stop at the next `(` now. Closed ones are still found."""
    assert DENY_RM.decide("Bash", {"command": command}).behavior == "allow"
    assert DENY_RM.decide("Bash", {"command": "m4 <<< 'syscmd(rm -rf y)'"}).behavior == "deny"
    assert DENY_RM.decide("Bash", {"command": "fzf --bind 'enter:execute(rm {})'"}
                          ).behavior == "deny"


def test_a_long_unclosed_sed_substitution_is_read_in_memory_of_its_size() -> None:
    """`s/` then a megabyte with no closing delimiter kept a regex frame per character
    (1 MB: 190 MB); an escaped delimiter is never read as the end of the pattern (sed does not)."""
    command = "sed 's/" + "a" * 90_000 + "' f"
    tracemalloc.start()
    try:
        decision = DENY_RM.decide("Bash", {"command": command})
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert decision.behavior == "allow"
    assert peak < 40 * 90_000, f"{peak:,} bytes"
    assert DENY_RM.decide("Bash", {"command": "sed 's/a/rm x/e' f"}).behavior == "deny"


@pytest.mark.parametrize(("command", "fed"), [
    # round 25 (P24-7): a module that takes no code reads its own words, not a program
    ("python -m pytest --dist loadgroup", False), ("python3 -mjson.tool load.json", False),
    ("python -m http.server --bind 127.0.0.1 8000", False), ("python3.12 -m venv .v", False),
    ("python -W ignore -m pip install x", False),
    # a module that runs code it is given (args, a file, a REPL on its input) stays fed
    ("python -m timeit pass", True), ("python -m code", True), ("python -m asyncio", True),
    ("python -m pdb -c c s.py", True), ("python -m pickle d.pkl", True), ("python3", True),
    ("python -m mypkg --load x", True),
])
def test_a_python_module_that_takes_no_code_is_not_read_as_fed_a_program(
        command: str, fed: bool) -> None:
    from toolhost.permissions.bash.interpreters import reads_program_from_stdin

    assert reads_program_from_stdin(tuple(command.split())) is fed


def test_a_module_that_takes_no_code_is_not_scanned_for_code_words() -> None:
    """P24-7: `--dist loadgroup` named `load` and the line was not provable under any deny
    rule; a module that takes code still is."""
    assert DENY_RM.decide("Bash", {"command": "python -m json.tool --sort-keys load.json"}
                          ).behavior == "allow"
    assert DENY_RM.decide("Bash", {"command": "python -m timeit 'import os; os.system(1)'"}
                          ).behavior == "deny"
