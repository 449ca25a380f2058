"""The shell parser reads nested constructs as bash does (red team F1-F3): ``$'...'`` inside
``${...}`` and ``$(...)``, a ``#`` after a process substitution, ``<<`` inside arithmetic. Table
cases, then a property checked against bash itself: a command in which bash runs a (stub) ``rm``
is always denied under ``Bash(rm:*)``."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy
from toolhost.permissions.shell.parse import parse_command


def policy(rules: list[tuple[str, str]], default: str = "ask") -> Any:
    return compile_policy(PermissionsConfig(
        rules=[RuleConfig(effect=e, tool=t) for e, t in rules], default=default))


DENY_RM_ALLOW_ECHO = policy([("deny", "Bash(rm:*)"), ("allow", "Bash(echo:*)")])
DENY_RM_DEFAULT_ALLOW = policy([("deny", "Bash(rm:*)")], default="allow")
ALLOW_ECHO = policy([("allow", "Bash(echo:*)")])

# Each runs `rm` in bash 5.2 (checked with a logging stub program, as in the property below).
HIDDEN_RM = [
    # F1: ANSI-C quoting and braces inside ${...} and $(...)
    "echo ${x:-$'\\''} ; rm -rf /tmp/x ; echo '}' #'",
    "echo $(echo $'\\'')#; rm -rf /tmp/x #')",
    "echo ${x:-{} ; rm x ; echo }",
    "echo ${x:-${y:-{}} ; rm x ; echo }",
    "echo ${x:-$'\\\\'} ; rm x ; echo '}'",
    "echo ${x:-\"}\"} ; rm x",
    "echo \"$(echo \")\")\"; rm x",
    "echo $(echo '$(' ) ; rm x",
    "echo \"${x:-$(echo $'\\'')}\" ; rm x ; echo \"'\"",
    "echo `echo \\`rm x\\``",
    "echo \"`echo \\`rm x\\``\"",
    "echo $( # )\nrm x)",
    "echo $(cat <<EOF\n)\nEOF\n) ; rm x",
    "cat <<< $'\\'' ; rm x ; echo \"'\"",
    "echo ${x:-`echo }`} ; rm x",
    # F2: a '#' inside a word is no comment
    "echo <(true)#; rm -rf /tmp/x", "echo >(true)#; rm -rf /tmp/x",
    "echo a<(true)#; rm x", "echo ${x}#; rm x", "echo $(true)#; rm x", "echo `true`#; rm x",
    "echo $((1))#; rm x", "echo \"\"#; rm x",
    # F3: '<<' inside arithmetic is a shift
    "((x=1<<true))\nrm -rf /tmp/x\ntrue", "echo $[1<<2]\nrm -rf /tmp/x\n2]",
    "echo $((1<<2))\nrm x\n2))", "for ((i=1<<1; i<1; i++)); do :; done\nrm x\n1",
    "if ((1<<2)); then rm x; fi", "x=$((1<<2))\nrm x\n2))", "echo $[ 1 << 2 ]; rm x",
]

# Parsed the same way before and after: nothing hidden, nothing refused.
PLAIN = ["echo ${x:-a}", "echo \"${x:-a}\"", "echo $'it\\'s'", "echo $((1 + 2))",
         "echo $[1+2]", "echo ${x:-'}'}", "echo ${x:-$'}'}", "echo a # comment ; rm x"]


@pytest.mark.parametrize("command", HIDDEN_RM)
def test_commands_hidden_in_nested_constructs_meet_the_deny_rule(command: str) -> None:
    for p in (DENY_RM_ALLOW_ECHO, DENY_RM_DEFAULT_ALLOW):
        decision = p.decide("Bash", {"command": command})
        assert decision.behavior == "deny", (command, decision)
    assert ALLOW_ECHO.decide("Bash", {"command": command}).behavior != "allow"


@pytest.mark.parametrize("command", PLAIN)
def test_ordinary_nesting_stays_allowed(command: str) -> None:
    assert DENY_RM_ALLOW_ECHO.decide("Bash", {"command": command}).behavior == "allow", command


def test_arithmetic_runs_no_program_and_hides_none() -> None:
    parsed = parse_command("((x=1<<2)); echo $[1<<2] $((3<<1))")
    assert parsed.segments == [("((x=1<<2))",), ("echo", "$[1<<2]", "$((3<<1))")]
    assert parse_command("((ls); rm x)").segments == [("ls",), ("rm", "x")]  # two subshells
    assert parse_command("echo $((ls); rm x)").nested == [("ls",), ("rm", "x")]
    assert DENY_RM_DEFAULT_ALLOW.decide("Bash", {"command": "((1+2)); echo"}).behavior == "allow"


# --- against bash ---------------------------------------------------------------------------

BASH = shutil.which("bash")
PIECES = st.sampled_from([
    "${x:-$'\\''}", "$'\\''", "\"'\"", "'\"'", "$\"x\"", "${x:-{}", "<(true)#", ">(true)#",
    "((x=1<<2))", "$[1<<2]", "$((1<<2))", "`echo \\`true\\``", "$(echo \")\")", "${x:-\"}\"}",
    "# c", "\\'", "\\\"", "<<< x", "'}'", "')'", "\"}\"", "2]", "2))", "}", ")", "#'", "EOF",
    "<<EOF", "$(", "${", "`", "echo", "true", "${x:-`echo }`}", "$(# )",
])
RM = st.sampled_from(["rm x", "$(rm x)", "`rm x`", "\"$(rm x)\"", "<(rm x)", "${x:-$(rm x)}",
                      "$((1+$(rm x)))", "((1+$(rm x)))"])
JOIN = st.sampled_from(["; ", "\n", " && ", " | ", " ", ""])


@st.composite
def compositions(draw: st.DrawFn) -> str:
    parts = draw(st.lists(st.one_of(PIECES, RM), min_size=1, max_size=6))
    out = parts[0]
    for part in parts[1:]:
        out += draw(JOIN) + part
    return out


@pytest.fixture(scope="module")
def stub(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("stub")
    (root / "bin").mkdir()
    rm = root / "bin" / "rm"
    rm.write_text(f"#!/bin/sh\necho ran >> {root / 'log'}\n")
    rm.chmod(0o755)
    return root


def bash_runs_rm(stub: Path, command: str) -> bool:
    log = stub / "log"
    log.unlink(missing_ok=True)
    try:
        subprocess.run([str(BASH), "-c", command], cwd=stub, timeout=5, capture_output=True,
                       stdin=subprocess.DEVNULL, env={"PATH": str(stub / "bin")})
    except subprocess.TimeoutExpired:
        return True  # whatever it did, it is no command to allow
    return log.exists()


@pytest.mark.skipif(BASH is None, reason="needs bash")
@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(command=compositions())
def test_what_bash_runs_is_what_the_deny_rules_see(stub: Path, command: str) -> None:
    decisions = [p.decide("Bash", {"command": command}).behavior
                 for p in (DENY_RM_ALLOW_ECHO, DENY_RM_DEFAULT_ALLOW, ALLOW_ECHO)]
    if decisions[2] == "allow" or decisions[0] != "deny" or decisions[1] != "deny":
        assert not bash_runs_rm(stub, command), (command, decisions)


@pytest.mark.skipif(BASH is None, reason="needs bash")
@pytest.mark.parametrize("command", HIDDEN_RM)
def test_the_table_runs_rm_in_bash(stub: Path, command: str) -> None:
    assert bash_runs_rm(stub, command), command
    assert os.path.exists(stub / "log")
