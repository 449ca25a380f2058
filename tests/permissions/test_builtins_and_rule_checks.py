"""Red team F4-F7: builtins that assign variables or evaluate code are not provable; ``args.NAME``
is the argument even where NAME is a dict method; path rules with variables or ``~user`` are
refused; ``validate`` accepts method calls on a string argument."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.inproc import run_cli
from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy
from toolhost.permissions.expr.core import ExprError, compile_expr
from toolhost.permissions.expr.refs import expr_refs
from toolhost.permissions.paths import rule_path_pattern


def policy(rules: list[tuple[str, str]], default: str = "ask") -> Any:
    return compile_policy(PermissionsConfig(
        rules=[RuleConfig(effect=e, tool=t) for e, t in rules], default=default))


BUILTINS = ["test", "[", "[[", "printf", "read", "mapfile", "readarray", "getopts", "let",
            "declare", "typeset", "local", "export", "readonly", "unset", "ls", "echo"]
ALLOW_ALL = policy([("deny", "Bash(rm:*)"), *(("allow", f"Bash({b}:*)") for b in BUILTINS)])

# F5: each assigns PATH/IFS/... or runs a command through an evaluated argument.
UNPROVABLE = [
    "test -v 'a[$(rm -rf /tmp/x)]'", "[ -v 'a[$(rm x)]' ]", "[[ -v 'a[$(rm x)]' ]]",
    "[[ 'a[$(rm x)]' -eq 1 ]]", "test -v \"a[\\$(rm x)]\"", "test -v 'a[`rm x`]'",
    "printf -v PATH %s ./evilbin; ls", "printf -vPATH %s ./evilbin; ls", "printf -v IFS x; ls",
    "printf -v BASH_ENV ./x; ls", "printf -v 'BASH_ALIASES[ls]' rm; ls",
    "printf -v 'a[$(rm -rf /tmp/x)]' 1", "printf -v \"$n\" x", "read -r PATH < /dev/null; ls",
    "read -a PATH < /dev/null", "read 'a[$(rm x)]' < /dev/null", "mapfile PATH < /dev/null",
    "mapfile -C 'rm x' -c 1 a < /dev/null", "readarray -t LD_PRELOAD < /dev/null",
    "getopts a PATH", "let 'a[$(rm x)]=1'", "let IFS=1", "let 'PATH = 1'",
    "declare -n r=PATH; r=./x; ls", "local -n r=IFS", "typeset PATH=./x", "export IFS=/",
    "readonly LD_PRELOAD=/tmp/x.so", "declare 'a[$(rm x)]=1'", "unset 'a[$(rm x)]'",
    "x='a[$(rm y)]'; echo $((x))", "x='a[$(rm y)]'; ((x))", "x='a[$(rm y)]'; test -v \"$x\"",
    "x='a[`rm y`]'; echo ${b[x]}", "((IFS=1)); ls", "echo $((PATH=1))", "((x)) ls",
    "declare -i n=1",  # every later assignment to n is arithmetic: n=$a$b runs a[$(...)]
]
PROVABLE = ["test -f x", "printf '%s\\n' '$(rm x)'", "read -r line < /dev/null",
            "read -p 'Name: ' name < /dev/null", "export FOO=bar",
            "local x=1", "echo '$(rm x)'", "printf -v out %s x", "let n=1+2", "getopts ab opt",
            "mapfile -t lines < /dev/null", "unset x"]


@pytest.mark.parametrize("command", UNPROVABLE)
def test_builtins_that_assign_or_evaluate_are_not_provable(command: str) -> None:
    decision = ALLOW_ALL.decide("Bash", {"command": command})
    assert decision.behavior == "deny", (command, decision)
    assert policy([("allow", "Bash")]).decide("Bash", {"command": command}).behavior != "allow"


@pytest.mark.parametrize("command", PROVABLE)
def test_ordinary_builtin_use_stays_provable(command: str) -> None:
    decision = policy([("deny", "Bash(rm:*)"), ("allow", "Bash")]).decide(
        "Bash", {"command": command})
    assert decision.behavior == "allow", (command, decision.message)


VARS = st.sampled_from(["PATH", "IFS", "BASH_ENV", "LD_PRELOAD", "BASH_ALIASES[ls]", "ENV",
                        "PROMPT_COMMAND", "a[$(rm x)]", "a[`rm x`]"])
FORMS = st.sampled_from(["printf -v {v} %s x", "printf -v{v} x", "read {v}", "read -r {v}",
                         "read -a {v}", "mapfile {v}", "readarray -t {v}", "getopts ab {v}",
                         "declare {v}=x", "typeset -x {v}=x", "local {v}=x", "export {v}=x",
                         "readonly {v}=x", "let {v}=1", "declare -n r={v}"])
QUOTES = st.sampled_from(["{}", "'{}'", "\"{}\""])


@settings(max_examples=300, deadline=None)
@given(form=FORMS, var=VARS, quote=QUOTES, before=st.sampled_from(["", "ls; ", "echo a && "]))
def test_no_spelling_of_an_assigning_builtin_is_allowed(form: str, var: str, quote: str,
                                                        before: str) -> None:
    if "$" in var and quote == "\"{}\"":
        var = var.replace("$", "\\$")
    command = before + form.format(v=quote.format(var)) + "; ls"
    decision = ALLOW_ALL.decide("Bash", {"command": command})
    assert decision.behavior != "allow", (command, decision)


# --- F4: args.NAME is the argument ---------------------------------------------------------

METHOD_NAMES = sorted(n for n in dir(dict) if not n.startswith("_"))


@pytest.mark.parametrize("name", METHOD_NAMES)
def test_an_argument_named_like_a_dict_method_is_the_argument(name: str) -> None:
    assert compile_expr(f"args.{name} == '*'").holds("t", {name: "*"})
    assert compile_expr(f"args.n.{name} == 1").holds("t", {"n": {name: 1}})
    with pytest.raises(ExprError, match=r"no argument|unsafe"):  # pop, clear: the sandbox's
        compile_expr(f"args.{name} == '*'").holds("t", {})
    p = compile_policy(PermissionsConfig(rules=[RuleConfig(
        effect="deny", tool="mcp__kv__delete", expr=f"args.{name} == '*'")], default="allow"))
    assert p.decide("mcp__kv__delete", {name: "*"}).behavior == "deny"
    assert p.decide("mcp__kv__delete", {}).behavior == "deny"  # a missing argument: an error


def test_dict_methods_still_work_as_calls() -> None:
    assert compile_expr("args.get('limit', 0) < 10").holds("t", {})
    assert compile_expr("args.keys() | list == ['a']").holds("t", {"a": 1})
    assert compile_expr("args.get is callable").holds("t", {})


# --- F7 and F4 in validate -----------------------------------------------------------------

def test_method_calls_on_a_value_read_the_argument() -> None:
    _, paths, calls = expr_refs("'delete' in args.sql.lower() and args.p.startswith('/etc')")
    assert paths == [("p",), ("sql",)] or sorted(paths) == [("p",), ("sql",)]
    assert ("sql", "lower") in calls


def _validate(tmp_path: Path, expr: str, params: str) -> tuple[int, str]:
    config = tmp_path / "t.yaml"
    config.write_text(f"""toolhost: 1
servers:
  db:
    tools:
      query:
        command: [echo, hi]
        params: {{{params}}}
permissions:
  default: allow
  deny:
    - tool: mcp__db__query
      expr: "{expr}"
""")
    out = run_cli(["validate", str(config)])
    return out.returncode, out.stdout + out.stderr


@pytest.mark.parametrize("expr", ["'delete' in args.sql.lower()",
                                  "args.sql.startswith('/etc')", "args.sql.strip() == ''",
                                  "args.get('sql', '') == 'x'"])
def test_validate_accepts_method_calls_on_a_string_argument(tmp_path: Path, expr: str) -> None:
    code, out = _validate(tmp_path, expr, "sql: {type: string}")
    assert code == 0, out


def test_validate_reports_what_cannot_be_an_argument(tmp_path: Path) -> None:
    code, out = _validate(tmp_path, "args.keys == '*'", "sql: {type: string}")
    assert code == 1 and "args.keys can never be present" in out, out
    code, out = _validate(tmp_path, "args.get('x') == 1", "get: {type: string}")
    assert code == 1 and "'get' is an argument of the tool" in out, out


# --- F6: path rules ------------------------------------------------------------------------

@pytest.mark.parametrize("spec", ["$HOME/.aws/**", "${HOME}/.bashrc", "~root/.aws/**",
                                  "./$X/y", "~user", "$PWD"])
def test_path_rules_with_variables_or_other_homes_are_refused(spec: str) -> None:
    with pytest.raises(ValueError, match=r"shell variable|another user's home"):
        rule_path_pattern(spec, cwd="/w", rule_dir="/w")


def test_the_home_forms_still_work() -> None:
    import os
    home = os.path.realpath(os.path.expanduser("~"))
    assert rule_path_pattern("~/.aws/**", cwd="/w", rule_dir="/w").matches(home + "/.aws/x")
    assert rule_path_pattern("//etc/**", cwd="/w", rule_dir="/w").matches("/etc/passwd")
