"""Red team round 2, as families: ANSI-C quoting decoded the way bash decodes it (F1),
backslash-newline removed where bash removes it (F2, F3), backticks inside double quotes (F6),
expansions that evaluate a variable's value as code (F4, F5), wrappers run by xargs and other
programs that run a command (F8), bash's keyword ``time`` (F7), Glob patterns under ``~``
(F9). Each table holds variants of one finding: deny ``Bash(rm:*)`` must deny every one, and
neither ``Bash(echo:*)`` nor ``default: allow`` may allow it."""

from __future__ import annotations

import os
from typing import Any

import pytest

from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy
from toolhost.permissions.bash.policy import unprovable
from toolhost.permissions.shell.parse import parse_command
from toolhost.permissions.shell.quoting import decode_ansi_c


def policy(rules: list[tuple[str, str]], default: str = "ask", cwd: str | None = None) -> Any:
    return compile_policy(PermissionsConfig(
        rules=[RuleConfig(effect=e, tool=t) for e, t in rules], default=default), cwd=cwd)


DENY_RM = policy([("deny", "Bash(rm:*)"), ("allow", "Bash(echo:*)")])
DEFAULT_ALLOW = policy([], default="allow")
DEFAULT_ALLOW_DENY = policy([("deny", "Bash(rm:*)")], default="allow")

F1_ANSI_C = [
    "echo $'\\c' ; rm -rf /tmp/x #'", "echo $'a\\c' ; rm x #'", "echo $'\\c\\\\' ; rm x #'",
    "echo x$'\\c';rm x #'", "echo ${x:-$'\\c'} ; rm x #'", "echo $'\\\\' ; rm x #'",
    "echo $'\\x' ; rm x #'", "echo $'\\u' ; rm x #'", "echo $'\\U' ; rm x #'",
    "echo $'\\q' ; rm x #'", "echo $'\\0' ; rm x", "echo $'\\c@' ; rm x", "echo $'\\cA';rm x",
    "echo $'\\\\\\c' ; rm x #'", "$'\\x72m' x", "$'r\\c'm x #'", "$'rm\\0z' x",
]
F2_F3_CONTINUATION = [
    'echo "$\\\n(rm -rf /tmp/x)"', "echo $\\\n'\\'' ; rm -rf /tmp/x #'",
    "cat <<E\n$\\\n(rm -rf /tmp/x)\nE\n", "cat <<E\nx\\\nE\ncat <<F\nE\nrm -rf /tmp/x\nF\n",
    'echo "${x:-$\\\n(rm x)}"', "echo $\\\n(rm x)", "echo $(\\\n(rm x) )", "echo `rm\\\n x`",
    "echo x;\\\nrm x", "echo x &\\\n& rm x", "echo x |\\\n| rm x", "echo x\\\n;rm x",
    "echo <\\\n(rm x)", "echo $\\\n{x:-$(rm x)}", "r\\\nm x", "echo $\\\n((1)) ; rm x",
    "echo 'a' \\\n; rm x", "cat <<-E\n\tx\\\n\tE\n\tE\nrm x\n", "echo # c \\\nrm x",
    "cat <<'E'\nx\\\nE\nrm x\n", "echo $'a\\\n' ; rm x #'", "echo 'a\\\n' ; rm x",
    "echo \"\\\\\n\" ; rm x", "echo \\\\\nrm x", "echo `echo \\\\\n`; rm x",
]
F4_F5_EVALUATED = [
    "x='$(rm -rf /tmp/x)'; echo ${x@P}", "a='$'; b='(rm x)'; x=$a$b; echo ${x@P}",
    "echo ${x@P}", "echo \"${x@P}\"", "echo ${x[0]@P}", "echo ${!x@P}",
    "a='a[$'; b='(rm x)]'; x=$a$b; echo ${y[x]}", "a='a[$'; b='(rm x)]'; x=$a$b; echo ${!x}",
    "a='a[$'; b='(rm x)]'; x=$a$b; ((x))", "a='a[$'; b='(rm x)]'; declare -i y; y=$a$b",
    "echo $((x))", "echo $(($x))", "echo $[x]", "((x)) && echo", "echo ${#a[x]}",
    "echo ${s:x}", "echo ${s:0:n}", "echo ${s:$n}", "echo \"${a[i]}\"", "echo ${!x:-y}",
    "[[ x -eq 1 ]] && echo", "[[ 1 -lt $n ]] && echo", "[[ 1 -eq 1 && y -gt 2 ]] && echo",
    "let y=x", "let 'y = x + 1'", "declare -i y", "local -i y=1", "typeset -ai y",
    "test -v 'a[i]' && echo", "[ -v 'a[n]' ] && echo", "unset 'a[i]'", "echo $((a[i]))",
    "for ((i=0; i<n; i++)); do echo; done", "cat <<E\n$((x))\nE\n", "echo ${a[$(echo 1)]}",
]
F6_BACKTICKS = [
    "echo \"`echo \\\"'\\\"; rm -rf /tmp/x; echo \\\"'\\\"`\"",
    "echo \"`echo \\\"'\\\"; rm x; echo \\\"'\\\"`\" x",
    "echo \"a`echo \\\"'\\\";rm x;echo \\\"'\\\"`b\"",
    "echo \"${x:-`echo \\\"'\\\"; rm x; echo \\\"'\\\"`}\"",
]
F8_RUN_INPUT = [f"echo rm -rf /tmp/x | xargs {w}" for w in (
    "nohup", "env", "env -i", "timeout 5", "nice", "nice -n 5", "stdbuf -o0", "setsid", "ionice",
    "sudo", "sudo -u root", "chrt 1", "taskset 1", "time", "time -p", "command", "builtin",
    "exec", "xargs", "-0 nohup", "-n 1 env", "doas", "fakeroot", "setpriv", "prlimit",
    "env -i A=1", "sudo A=1", "env -- A=1", "nice env A=1",
    "bash /dev/stdin", "sh /dev/fd/0", "bash -x /proc/self/fd/0", "source /dev/stdin",
    ". /dev/stdin", "bash <(cat)", "sh $SCRIPT", "source <(cat)",
)] + ["echo rm x | xargs -I{} sh -c '{}'", "echo rm x | xargs -I R R",
      "find . -exec '{}' \\;", "find . -exec env {} \\;", "echo rm x | parallel",
      "watch rm x", "flock /tmp/l rm x", "su -c 'rm x'", "script -c 'rm x'", "busybox rm x",
      "fakeroot rm x", "systemd-run rm x", "valgrind rm x", "unbuffer rm x"]
F7_TIME = ["time -f x rm", "time -o out rm x", "time -v rm x", "time -a rm", "! time -q rm x",
           "time --format=x rm", "time -p -p rm"]


@pytest.mark.parametrize("command", F1_ANSI_C + F2_F3_CONTINUATION + F4_F5_EVALUATED
                         + F6_BACKTICKS + F8_RUN_INPUT)
def test_hidden_commands_are_denied_and_never_allowed(command: str) -> None:
    assert DENY_RM.decide("Bash", {"command": command}).behavior == "deny", command
    assert DEFAULT_ALLOW_DENY.decide("Bash", {"command": command}).behavior == "deny", command


@pytest.mark.parametrize("command", F4_F5_EVALUATED + F8_RUN_INPUT)
def test_code_from_values_or_input_is_unprovable(command: str) -> None:
    assert unprovable(command) is not None, command
    assert DEFAULT_ALLOW.decide("Bash", {"command": command}).behavior != "allow", command


@pytest.mark.parametrize("command", F7_TIME)
def test_time_keyword_takes_only_p(command: str) -> None:
    rules = [("allow", "Bash(rm:*)"), ("allow", "Bash(time:*)")]
    assert policy(rules).decide("Bash", {"command": command}).behavior != "allow", command


@pytest.mark.parametrize(("command", "allowed"), [
    ("time ls -la", True), ("time -p ls", True), ("time -p -- ls", True), ("time -- ls", True),
    ("! time ls", True), ("X=1 time -f x ls", True), ("time -f x ls", False),
    ("sudo time -f x ls", False),
])
def test_time_keyword_and_program(command: str, allowed: bool) -> None:
    p = policy([("allow", "Bash(ls:*)"), ("allow", "Bash(X=1 time:*)")])
    assert (p.decide("Bash", {"command": command}).behavior == "allow") is allowed


@pytest.mark.parametrize("command", [
    "ls \\\n  -la", "echo a \\\n  b", "echo \"a\\\nb\"", "cat <<'E'\nline \\\nE\n",
    "echo 'a\\\nb'", "echo $((1 + 2)) ${s:0:2} ${a[3]} ${!pre*} ${!a[@]} ${x@Q}",
    "echo \"`echo \\\"hi\\\"`\"", "let n=1+2", "test \"$n\" -gt 0",
    "echo x | xargs echo", "echo x | xargs -n 1 echo", "find . -name '*.py' -exec echo {} +",
    "echo $'\\cA\\x41\\u263a\\101\\q'", "echo $(($# + ${#x} + ${#a[@]}))",
])
def test_ordinary_lines_stay_provable(command: str) -> None:
    assert DEFAULT_ALLOW_DENY.decide("Bash", {"command": command}).behavior == "allow", command


@pytest.mark.parametrize(("command", "segments"), [
    ("ls \\\n -la", [("ls", "-la")]), ("r\\\nm x", [("rm", "x")]),
    ("echo $\\\n'\\'' ; rm x", [("echo", "'"), ("rm", "x")]),
    ("cat <<E\nx\\\nE\nE\nls", [("cat",), ("ls",)]),
    ("cat <<'E'\nx\\\nE\nls", [("cat",), ("ls",)]),
    ("echo 'a\\\nb'", [("echo", "a\\\nb")]), ("echo # a \\\nls", [("echo",), ("ls",)]),
    ("echo $'\\c' ; ls #'", [("echo", "\\c"), ("ls",)]),
])
def test_lexer_sees_what_bash_sees(command: str, segments: list[tuple[str, ...]]) -> None:
    assert parse_command(command).segments == segments


@pytest.mark.parametrize(("body", "value"), [
    ("\\c", "\\c"), ("a\\c", "a\\c"), ("\\cA", "\x01"), ("\\ca", "\x01"), ("\\c?", "\x7f"),
    ("\\c\\\\x", "\x1cx"), ("\\c@b", ""), ("a\\0b", "a"), ("\\777", "\xff"), ("\\x41z", "Az"),
    ("\\x", "\\x"), ("\\xg", "\\xg"), ("\\u263a", "\u263a"), ("\\U0001F600", "\U0001F600"),
    ("\\q\\8\\ ", "\\q\\8\\ "), ("\\e\\E\\?\\\"\\'", "\x1b\x1b?\"'"),
])
def test_ansi_c_decoding_matches_bash(body: str, value: str) -> None:
    assert decode_ansi_c(body) == value


def test_glob_patterns_under_home(tmp_path: Any) -> None:
    home = os.path.expanduser("~")
    (tmp_path / "src").mkdir()
    rules = [("deny", "Read(~/.ssh/**)"), ("allow", "Read(./src/**)")]
    strict = policy(rules, default="deny", cwd=str(tmp_path))
    loose = policy(rules[:1], default="allow", cwd=str(tmp_path))
    for pattern in ("~/.ssh/*", "~/.ssh/**", "~/.ssh/id_rsa", "~/.ssh", "~root/.ssh/*",
                    "~nosuchuser9/x/*", "*/../../.ssh/*", "~ro*/x", f"{home}/.ssh/*",
                    "../../../../../../.ssh/*", "{~/.ssh,x}/*", "src/{a,/root/.ssh}/*",
                    "{x,~root/.ssh}/*", "src/**/../../../.ssh/*"):
        for call in ({"path": "src", "pattern": pattern}, {"pattern": pattern}):
            assert strict.decide("Glob", call).behavior == "deny", call
        if pattern.startswith(("~/", f"{home}/")) or pattern == "~/.ssh":
            assert loose.decide("Glob", {"pattern": pattern}).behavior == "deny", pattern
    assert strict.decide("Glob", {"path": "src", "pattern": "**/*.py"}).behavior == "allow"
