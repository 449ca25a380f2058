"""Plain ``validate`` (no upstream started) reports a rule on an imported server's tool that
the config alone proves can never match: the upstream's name of a tool the config renames, a
tool it leaves out by ``exclude`` or ``include``. A name some upstream list could show is never
reported offline."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from toolhost.gateway.reshape import never_shown
from toolhost.gateway.spec import Reshape, UpstreamSpec


def spec(include: tuple[str, ...] = ("*",), exclude: tuple[str, ...] = (),
         **renames: str | None) -> UpstreamSpec:
    return UpstreamSpec(command=("x",), include=include, exclude=exclude,
                        reshape={n: Reshape(name=r) for n, r in renames.items()})


@pytest.mark.parametrize(("upstream", "tool", "said", "hint"), [
    (spec(danger="safe"), "danger", "servers.h.tools.danger.name renames upstream tool "
     "'danger' to 'safe', so no tool is called 'danger'", "'mcp__h__safe'"),
    (spec(exclude=("danger",)), "danger", "left out by servers.h.exclude ('danger')", ""),
    (spec(exclude=("dan*", "x")), "danger", "left out by servers.h.exclude ('dan*')", ""),
    # exclude ignores case (fails closed)
    (spec(exclude=("Danger",)), "danger", "left out by servers.h.exclude ('Danger')", ""),
    (spec(include=("ech*",)), "danger", "matches none of servers.h.include ('ech*')",
     "add 'danger' to include"),
    (spec(include=("ech*",), echo="say"), "Say", "matches none of servers.h.include",
     "did you mean 'mcp__h__say'?"),
    (spec(exclude=("danger",), danger="safe"), "danger", "left out by servers.h.exclude", ""),
    # renamed onto by an excluded tool: only the upstream's own 'safe' could be it, excluded
    (spec(exclude=("danger", "safe"), danger="safe"), "safe", "servers.h.exclude", ""),
])
def test_names_the_config_rules_out(upstream: UpstreamSpec, tool: str, said: str,
                                    hint: str) -> None:
    found = never_shown(upstream, "h", tool)
    assert found is not None
    assert said in found[0] and hint in found[1]


@pytest.mark.parametrize(("upstream", "tool"), [
    (spec(), "anything"),  # the upstream may list it
    (spec(danger="safe"), "safe"),  # the renamed tool
    (spec(exclude=("danger",), danger="safe"), "safe"),  # the upstream's own 'safe' may be it
    (spec(danger="safe", other="danger"), "danger"),  # another tool takes the name
    (spec(danger="danger"), "danger"),  # renamed to itself
    (spec(danger=None), "danger"),  # reshaped, not renamed
    (spec(include=("ech*",), echo="danger"), "danger"),  # a chosen tool renamed to it
    (spec(include=("ech*",), echo="say"), "say"),
    (spec(include=("ech*", "dan*")), "danger"),
    (spec(), "_x"),  # the wire name also reads as server 'h_', tool 'x' (from elsewhere)
    (spec(), "a__b"),
])
def test_names_an_upstream_may_show_pass(upstream: UpstreamSpec, tool: str) -> None:
    assert never_shown(upstream, "h", tool) is None


def test_validate_reports_them_located(tmp_path: Path) -> None:
    config = tmp_path / "g.yaml"
    config.write_text("""\
toolhost: 1
servers:
  h:
    mcp:
      command: [python3, /nonexistent/upstream.py]
    include: ["ech*", "dan*", "say"]
    exclude: [danger]
    tools:
      echo: {name: say}
permissions:
  default: allow
  deny:
    - tool: mcp__h__danger
    - tool: mcp__h__echo
      when: {text: {regex: "x"}}
    - mcp__h__say
    - mcp__h__dance
    - mcp__h__ech*
    - mcp__h
""")
    done = subprocess.run([sys.executable, "-m", "toolhost", "validate", str(config)],
                          capture_output=True, text=True, timeout=60, env=dict(os.environ))
    assert done.returncode == 1, done.stderr
    lines = [line for line in done.stderr.strip().splitlines() if "warning:" not in line]
    assert len(lines) == 3, done.stderr
    assert lines[0].startswith(f"{config}:13:7: permissions.deny[0]: permission rule "
                               "'mcp__h__danger': upstream tool 'danger' is left out by "
                               "servers.h.exclude ('danger')")
    assert lines[1].startswith(f"{config}:14:7: permissions.deny[1]: permission rule "
                               "'mcp__h__echo': servers.h.tools.echo.name renames upstream "
                               "tool 'echo' to 'say', so no tool is called 'echo'")
    assert "'mcp__h__say'" in lines[1]
    # a glob that covered the tool before its rename no longer does: the deny follows the
    # name, so the tool would run unguarded (toolhost.permissions.guards)
    assert lines[2].startswith(f"{config}:18:7: permissions.deny[4]: permission rule "
                               "'mcp__h__ech*': tool 'mcp__h__echo' is renamed to "
                               f"'mcp__h__say' ({config}:9)")


# rule -> whether offline validate notes that it names an imported server's tools by a glob
GLOB_RULES = {
    "mcp__h__dang*": True, "mcp__h__ech?": True, "mcp__h__*": True, "mcp__*__delete": True,
    "mcp__h*__x": True, "mcp__?__x": True, "mcp__h__echo": False, "mcp__h": False,
    "mcp__loc__*": False, "mcp__loc__hi": False, "mcp__k*__x": False, "Bash(ls *)": False,
    "Read": False,
}


@pytest.mark.parametrize(("rule", "noted"), list(GLOB_RULES.items()))
def test_a_glob_over_an_imported_servers_tools_is_said_unchecked_offline(
        tmp_path: Path, rule: str, noted: bool) -> None:
    config = tmp_path / "g.yaml"
    config.write_text(f"""\
toolhost: 1
servers:
  h:
    mcp:
      command: [python3, /nonexistent/upstream.py]
  loc:
    tools:
      hi: {{command: [echo, hi], description: Say hi.}}
permissions:
  default: allow
  deny:
    - tool: {rule!r}
""")
    for flags in ((), ("--strict",)):  # a note, not a warning: --strict passes
        done = subprocess.run([sys.executable, "-m", "toolhost", "validate", *flags,
                               str(config)], capture_output=True, text=True, timeout=60,
                              env=dict(os.environ))
        assert done.returncode == 0, done.stderr
        notes = [line for line in done.stderr.splitlines() if "note:" in line]
        if not noted:
            assert notes == [], notes
            continue
        assert len(notes) == 1, done.stderr
        assert notes[0].startswith(
            f"{config}:12:7: permissions.deny[0]: note: permission rule {rule!r} names tools "
            "of imported server(s) 'h' by a glob; offline, validate cannot list their tools, "
            "so whether it matches one is not checked (run `toolhost validate --connect`")


@pytest.mark.parametrize(("rule", "said"), [
    # a condition on an argument the config fixes: the model never sends it
    ("{tool: mcp__h__say, when: {text: {regex: x}}}",
     "error: g.yaml:11: permissions.deny[0].when.text: permission rule 'mcp__h__say': "
     "when.text: argument 'text' of mcp__h__say is fixed by servers.h.tools.echo.fixed "
     "('hello'): the model never sends it, so the condition never holds"),
    # a glob: it may still hold for another tool
    ("{tool: 'mcp__h__f*', when: {repo: {equals: a/b}, text: {regex: x}}}",
     "warning: g.yaml:11: permissions.deny[0].when.repo: permission rule 'mcp__h__f*': "
     "when.repo: argument 'repo' of mcp__h__find is fixed by servers.h.tools.search.fixed "
     "('a/b'): the model never sends it, so the condition never holds for that tool"),
    ("allow: [{tool: mcp__h__say, when: {text: {regex: x}}}]", "warning: g.yaml:11: "
     "permissions.allow[0].when.text"),  # an allow that never holds fails closed
    ("{tool: mcp__h__say, when: {other: {regex: x}}}", None),  # not fixed
    ("{tool: mcp__h__echo, when: {text: {regex: x}}}", None),  # renamed away: said apart
    ("{tool: mcp__k__say, when: {text: {regex: x}}}", None),  # another server
])
def test_a_condition_on_a_fixed_argument_is_located(tmp_path: Path, rule: str,
                                                    said: str | None) -> None:
    from toolhost.config import load_config
    from toolhost.permissions.authoring.mistakes import review_rules

    config = tmp_path / "g.yaml"
    config.write_text(f"""\
toolhost: 1
servers:
  h:
    mcp: {{command: [python3, /nonexistent/upstream.py]}}
    tools:
      echo: {{name: say, fixed: {{text: hello}}}}
      search: {{name: find, fixed: {{repo: a/b}}}}
  k:
    mcp: {{command: [python3, /nonexistent/upstream.py]}}
permissions:
  {rule if rule.startswith("allow") else f"deny: [{rule}]"}
""")
    found = [re.sub(r"g.yaml:(\d+):\d+:", r"g.yaml:\1:", f"{f.level}: {f.problem}"
                    .replace(f"{tmp_path}/", ""))
             for f in review_rules(load_config(config, environ={}, layers=False))
             if "is fixed by" in str(f.problem)]
    if said is None:
        assert found == []
    else:
        assert len(found) == 1 and found[0].startswith(said), found
