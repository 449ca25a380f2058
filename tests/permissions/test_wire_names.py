"""Wire names name exactly one tool: the compile step refuses names that make mcp__S__T
ambiguous or shared, and a server rule never reaches another server's tool."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.inproc import run_cli
from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.errors import ConfigError
from toolhost.permissions import compile_policy
from toolhost.permissions.names import wire_readings


def decide(rules: list[tuple[str, str]], tool: str, default: str = "ask") -> str:
    p = compile_policy(PermissionsConfig(
        rules=tuple(RuleConfig(effect=e, tool=t) for e, t in rules),  # type: ignore[arg-type]
        default=default))  # type: ignore[arg-type]
    return p.decide(tool, {}).behavior


@pytest.mark.parametrize("rules,tool,expected", [
    ([("deny", "mcp__git_"), ("allow", "mcp__git_")], "mcp__git___log", "deny"),
    ([("deny", "mcp__git_")], "mcp__git___log", "deny"),
    ([("deny", "mcp__git_"), ("allow", "mcp__git")], "mcp__git___log", "deny"),
    ([("deny", "mcp__git")], "mcp__git___log", "deny"),
    ([("ask", "mcp__git_")], "mcp__git___log", "ask"),
    ([("allow", "mcp__git")], "mcp__git___log", "ask"),
    ([("allow", "mcp__git_")], "mcp__git___log", "ask"),
    ([("allow", "mcp__git__*")], "mcp__git___log", "ask"),
    ([("allow", "mcp__git*")], "mcp__git___log", "ask"),
    ([("allow", "mcp__git___log")], "mcp__git___log", "allow"),
    ([("allow", "mcp__prod")], "mcp__prod___drop", "ask"),
    ([("deny", "mcp__prod")], "mcp__prod___drop", "deny"),
    ([("deny", "mcp__prod_")], "mcp__prod___drop", "deny"),
    ([("allow", "mcp__a")], "mcp__a__b__c", "ask"),
    ([("deny", "mcp__a__b")], "mcp__a__b__c", "ask"),  # the tool b of server a, exactly
    ([("deny", "mcp__a__b__*")], "mcp__a__b__c", "deny"),
    ([("allow", "mcp__a__b__c")], "mcp__a__b__c", "allow"),
    ([("allow", "mcp__git")], "mcp__git__log", "allow"),
    ([("allow", "mcp__git")], "mcp__github__log", "ask"),
    ([("allow", "mcp__git")], "mcp__git_hub__log", "ask"),
    ([("deny", "mcp__git")], "mcp__git_hub__log", "ask"),
    ([("allow", "mcp__prod")], "mcp__prod__drop", "allow"),
    ([("allow", "mcp__prod")], "mcp__prod2__drop", "ask"),
    ([("allow", "mcp__git")], "mcp__git", "ask"),
])
def test_server_rules_never_reach_another_servers_tool(rules: list[tuple[str, str]],
                                                       tool: str, expected: str) -> None:
    assert decide(rules, tool) == expected


@pytest.mark.parametrize("tool", ["mcp__git__", "mcp__git"])
@pytest.mark.parametrize(("rules", "default", "expected"), [
    ([("deny", "mcp__git")], "allow", "deny"), ([("ask", "mcp__git__*")], "allow", "ask"),
    ([("deny", "mcp__git*")], "allow", "deny"), ([("allow", "mcp__git")], "ask", "ask"),
    ([("deny", "mcp__github")], "allow", "allow"),
])
def test_a_name_of_a_server_with_no_tool_meets_its_deny_and_ask_rules(
        tool: str, rules: list[tuple[str, str]], default: str, expected: str) -> None:
    # a malformed name (an upstream tool with an empty name, or no tool part at all) is
    # still the server's: its deny and ask rules apply, its allow rules do not
    assert decide(rules, tool, default) == expected


def test_readings() -> None:
    assert wire_readings("mcp__git__log") == [("git", "log")]
    assert wire_readings("mcp__git___log") == [("git", "_log"), ("git_", "log")]
    assert wire_readings("mcp__a__b__c") == [("a", "b__c"), ("a__b", "c")]
    assert wire_readings("Bash") == []
    assert len(wire_readings("mcp__" + "a__" * 10_000 + "b")) == 16  # bounded


def test_a_huge_name_from_the_cli_is_decided_in_bounded_memory() -> None:
    # A can_use_tool naming a tool of megabytes with many places to split it (a hostile or
    # broken CLI): every reading was built (a copy of the rest of the name at each place)
    # before 16 were kept: quadratic time and memory, a 1.8 MB name took the process to the
    # OOM killer. Now at most 16 are built: memory stays a few copies of the name.
    import tracemalloc

    name = "mcp__s__" + "echo__" * 3_000  # 18 KB, 3,000 places to split it
    tracemalloc.start()
    try:
        readings = wire_readings(name)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(readings) == 16 and readings[0] == ("s", name[8:])
    assert peak < 40 * len(name)  # the old way: 54 MB here (3,000 copies of 9 KB)
    huge = "mcp__s__" + "echo__" * 300_000
    assert decide([("deny", "mcp__s")], huge) == "deny"


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_cli(args, cwd=cwd)


COLLIDING = """\
toolhost: 1
servers:
  git:
    tools:
      _log: {python: "toolhost.demo:add"}
  git_:
    tools:
      log: {python: "toolhost.demo:add"}
  ok:
    tools:
      a__b: {python: "toolhost.demo:add"}
  x__y:
    external: {type: stdio, command: some-server}
permissions:
  deny: [mcp__git_]
"""


def test_validate_names_both_origins_and_every_ambiguous_name(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(COLLIDING)
    done = run("validate", "--no-layers", "t.yaml", cwd=tmp_path)
    assert done.returncode == 1, done.stdout
    err = done.stderr
    assert "Traceback" not in err
    # the shared wire name, naming both origins
    assert "'mcp__git___log'" in err and "t.yaml:5" in err and "t.yaml:8" in err
    assert "server name 'git_' ends with '_'" in err and "rename the server" in err
    assert "tool name '_log' starts with '_'" in err
    assert "tool name 'a__b' contains '__'" in err
    assert "server name 'x__y' contains '__'" in err  # external servers too


def test_tools_call_and_permissions_agree_on_a_clean_config(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(
        "toolhost: 1\nservers:\n  git:\n    tools:\n      log: {python: 'toolhost.demo:add'}\n"
        "  git-2:\n    tools:\n      log: {python: 'toolhost.demo:add'}\n"
        "permissions:\n  default: deny\n  allow: [mcp__git]\n")
    tools = run("tools", "--no-layers", "t.yaml", cwd=tmp_path)
    assert tools.returncode == 0, tools.stderr
    assert tools.stdout.count("mcp__git__log") == 1 and "mcp__git-2__log" in tools.stdout
    for name, expected in (("mcp__git__log", "allow"), ("mcp__git-2__log", "deny")):
        check = run("permissions", "check", "--no-layers", "t.yaml", name, cwd=tmp_path)
        assert check.stdout.startswith(expected), check.stdout + check.stderr
    call = run("call", "--no-layers", "t.yaml", "mcp__git-2__log", "a=1", "b=2",
               cwd=tmp_path)
    assert call.returncode == 0 and "3" in call.stdout, call.stderr


@pytest.mark.parametrize(("written", "cli_name"), [
    ("mcp__ext__files.delete", "mcp__ext__files_delete"), ("mcp__ext.v2", "mcp__ext_v2"),
    ("mcp__ext.v2__*", "mcp__ext_v2__*"), ("mcp__ext__a.b.c", "mcp__ext__a_b_c"),
    ("mcp__e.x__t*", "mcp__e_x__t*"),
])
@pytest.mark.parametrize("effect", ["deny", "ask", "allow"])
def test_a_name_the_cli_would_rewrite_is_refused_naming_the_cli_name(
        written: str, cli_name: str, effect: str) -> None:
    with pytest.raises(ConfigError, match=f"write '{re.escape(cli_name)}'"):
        compile_policy(PermissionsConfig(rules=(RuleConfig(effect, written),)))  # type: ignore[arg-type]


def test_validate_locates_a_dotted_tool_name(tmp_path: Path) -> None:
    config = tmp_path / "toolhost.yaml"
    config.write_text("toolhost: 1\nservers:\n  ext:\n    external: {type: stdio, command: x}\n"
                      "permissions:\n  default: allow\n  deny:\n    - mcp__ext__files.delete\n")
    done = run_cli(["validate", str(config)])
    assert done.returncode != 0
    assert "toolhost.yaml:8:7" in done.stderr + done.stdout
    assert "mcp__ext__files_delete" in done.stderr + done.stdout


@pytest.mark.parametrize("pattern", ["*__log", "*log", "*", "mcp*", "*_log", "m?p__*", "*__*"])
@pytest.mark.parametrize("name", ["mcp__git___log", "mcp__git__x__log", "mcp__a__b__log"])
def test_an_allow_glob_never_matches_an_ambiguous_name(pattern: str, name: str) -> None:
    policy = compile_policy(PermissionsConfig(default="deny",
                                              rules=(RuleConfig("allow", pattern),)))
    assert policy.decide(name, {}).behavior == "deny"
    loose = compile_policy(PermissionsConfig(default="allow",
                                             rules=(RuleConfig("deny", pattern),)))
    assert loose.decide(name, {}).behavior == "deny"


@pytest.mark.parametrize("pattern", ["mcp__*__lss", "mcp__nofiles*", "mcp__?iles__zz"])
def test_validate_warns_of_a_server_glob_matching_no_declared_tool(
        tmp_path: Path, pattern: str) -> None:
    config = tmp_path / "toolhost.yaml"
    config.write_text("toolhost: 1\nservers:\n  files:\n    tools:\n      ls: {command: [ls]}\n"
                      f"permissions:\n  default: allow\n  deny:\n    - \"{pattern}\"\n")
    done = run_cli(["validate", str(config)])
    assert f"toolhost.yaml:9:7: permissions.deny[0]: warning: permission rule '{pattern}'" \
        in done.stdout + done.stderr
    assert "matches no tool declared" in done.stdout + done.stderr
