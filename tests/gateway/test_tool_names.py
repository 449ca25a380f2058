"""The names an upstream's tools get are unambiguous: a rename that takes another listed
tool's name is a located problem (or, in a list that changed while serving, that tool is left
out), a tool listed twice is taken once, and names that make wire names ambiguous (``__``, a
leading ``_``) are left out unless the config renames them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from toolhost.gateway.reshape import reshape_tools
from toolhost.gateway.spec import Reshape, UpstreamSpec

from .conftest import at_once, hostile_config

OBJ = {"type": "object"}


def run(*words: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "toolhost", *words], capture_output=True,
                          text=True, timeout=120, env={**os.environ, **env})


def tools_env(*names: str, description: str = "") -> str:
    return json.dumps([{"name": n, "description": description or n, "inputSchema": OBJ}
                       for n in names])


def test_a_rename_onto_another_listed_tool_is_located(tmp_path: Path) -> None:
    config = hostile_config(tmp_path, extra="    tools:\n      danger: {name: safe}\n")
    for done in at_once(["validate", "--connect", str(config)], ["tools", str(config)],
                        ["serve", str(config)], HOSTILE_TOOLS=tools_env("danger", "safe")):
        assert done.returncode == 1, done.stderr
        assert ("hostile.yaml:11:7: servers.h.tools.danger.name: upstream tool 'danger' is "
                "renamed to 'safe', the name of another tool of upstream server 'h'") \
            in done.stderr, done.args
        assert "internal error" not in done.stderr and "Traceback" not in done.stderr


def test_excluding_the_other_tool_settles_it(tmp_path: Path) -> None:
    config = hostile_config(tmp_path, extra="    exclude: [safe]\n"
                            "    tools:\n      danger: {name: safe}\n")
    done = run("tools", str(config), HOSTILE_TOOLS=tools_env("danger", "safe"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("mcp__h__safe") == 1


def test_a_changed_list_leaves_the_clashing_tool_out() -> None:
    spec = UpstreamSpec(command=("x",), reshape={"danger": Reshape(name="safe")})
    listed = [{"name": n, "inputSchema": OBJ} for n in ("danger", "safe")]
    imported, problems = reshape_tools(spec, listed, "h", missing_ok=True)
    assert problems == []
    assert [(i.name, i.upstream_name) for i in imported] == [("safe", "danger")]


def test_a_changed_list_never_serves_its_own_tool_under_a_rename_s_name() -> None:
    """An upstream that drops the renamed tool (``search_issues`` -> ``search``, with a
    fixed ``repo``) and lists a ``search`` of its own: that one is left out, not served as
    the ``search`` the rules name, without the fixed argument. Before, it was served."""
    spec = UpstreamSpec(command=("x",), reshape={
        "search_issues": Reshape(name="search", fixed={"repo": "acme/app"})})
    own = {"name": "search", "inputSchema": {"type": "object", "properties": {
        "repo": {"type": "string"}, "q": {"type": "string"}}}}
    imported, problems = reshape_tools(spec, [own, {"name": "echo", "inputSchema": OBJ}],
                                       "h", missing_ok=True)
    assert problems == [] and [i.name for i in imported] == ["echo"]
    # listed again, the renamed tool is the one served under that name
    imported, _ = reshape_tools(spec, [{**own, "name": "search_issues"}], "h",
                                missing_ok=True)
    assert [(i.name, i.upstream_name, dict(i.fixed)) for i in imported] == [
        ("search", "search_issues", {"repo": "acme/app"})]


def test_a_tool_listed_twice_is_taken_once(tmp_path: Path) -> None:
    done = run("tools", str(hostile_config(tmp_path)),
               HOSTILE_TOOLS=tools_env("echo", description="DUP"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("mcp__h__echo") == 1 and "DUP" not in done.stdout
    assert "h: upstream tool 'echo' is listed twice; the second is left out" in done.stderr


@pytest.mark.parametrize(("name", "why"), [("x__y", "contains '__'"),
                                           ("_z", "starts with '_'"),
                                           ("a___b", "contains '__'")])
def test_ambiguous_upstream_names_are_left_out(tmp_path: Path, name: str, why: str) -> None:
    done = run("tools", str(hostile_config(tmp_path)), HOSTILE_TOOLS=tools_env(name))
    assert done.returncode == 0, done.stderr
    assert name not in done.stdout
    assert (f"h: upstream tool {name!r} is left out: its name {why} (rename it under "
            f"tools.{name}.name)") in done.stderr


def test_a_rename_makes_an_ambiguous_name_usable(tmp_path: Path) -> None:
    config = hostile_config(tmp_path, extra="    tools:\n      x__y: {name: x_y}\n")
    done = run("tools", str(config), HOSTILE_TOOLS=tools_env("x__y"))
    assert done.returncode == 0, done.stderr
    assert "mcp__h__x_y" in done.stdout


def test_a_rename_to_an_ambiguous_name_is_refused_offline(tmp_path: Path) -> None:
    config = hostile_config(tmp_path, extra="    tools:\n      echo: {name: a__b}\n")
    done = run("validate", str(config))
    assert done.returncode == 1
    assert "servers.h.tools.echo.name: tool name 'a__b' contains '__'" in done.stderr


@pytest.mark.parametrize("name", ["delete\n", "delete\r\n", "del\nete", "delete\x00", "del\tete",
                                  "delete ", "files.delete", "\ndelete", "delete\u2028"])
def test_an_upstream_name_with_a_control_character_is_left_out_with_a_warning(
        name: str, caplog: pytest.LogCaptureFixture) -> None:
    spec = UpstreamSpec(command=("x",))
    listed = [{"name": name, "inputSchema": {"type": "object"}},
              {"name": "kept", "inputSchema": {"type": "object"}}]
    imported, problems = reshape_tools(spec, listed, "up")
    assert [t.name for t in imported] == ["kept"] and not problems
    assert "is left out" in caplog.text


@pytest.mark.parametrize(("server", "length", "kept"), [
    ("h", 64, False), ("h", 57, False), ("h", 56, True), ("h", 55, True),
    ("longer_server", 44, True), ("longer_server", 45, False), ("h", 200, False),
])
def test_an_upstream_tool_whose_full_name_passes_64_characters_is_left_out(
        server: str, length: int, kept: bool, caplog: pytest.LogCaptureFixture) -> None:
    name = ("a-b_" * 60)[:length]
    spec = UpstreamSpec(command=("x",))
    listed = [{"name": name, "inputSchema": OBJ}, {"name": "echo", "inputSchema": OBJ}]
    imported, problems = reshape_tools(spec, listed, server)
    assert not problems
    assert all(len(f"mcp__{server}__{i.name}") <= 64 for i in imported)
    assert [i.name for i in imported] == ([name, "echo"] if kept else ["echo"])
    if not kept:
        assert f"upstream tool {name!r} is left out: its" in caplog.text
        assert f"rename it under tools.{name}.name" in caplog.text


def test_a_rename_makes_a_long_name_usable_and_a_long_rename_is_refused(
        tmp_path: Path) -> None:
    long = "a" * 64
    config = hostile_config(tmp_path, extra=f"    tools:\n      {long}: {{name: short}}\n")
    done = run("tools", str(config), HOSTILE_TOOLS=tools_env(long))
    assert done.returncode == 0, done.stderr
    assert "mcp__h__short" in done.stdout and f"mcp__h__{long}" not in done.stdout
    config = hostile_config(tmp_path, extra=f"    tools:\n      echo: {{name: {long}}}\n")
    done = run("validate", str(config))
    assert done.returncode == 1
    assert f"servers.h.tools.echo.name: the tool's full name 'mcp__h__{long}' is 72" \
        in done.stderr


def test_validate_says_a_rule_on_a_long_name_never_matches(tmp_path: Path) -> None:
    long = "a" * 64
    config = hostile_config(tmp_path).read_text().replace(
        "  default: allow\n", f"  default: allow\n  deny:\n    - tool: mcp__h__{long}\n")
    path = tmp_path / "rules.yaml"
    path.write_text(config)
    done = run("validate", str(path))
    out = done.stdout + done.stderr
    assert f"the tool's full name 'mcp__h__{long}' is 72 characters" in out, out
    assert "rename the upstream tool under servers.h.tools" in out
    connected = run("validate", "--connect", str(path), HOSTILE_TOOLS=tools_env(long))
    assert f"upstream tool '{long}' is left out: its full name" in connected.stderr


def test_an_upstream_tool_without_a_name_is_not_offered_a_rename(
        caplog: pytest.LogCaptureFixture) -> None:
    listed = [{"name": "", "inputSchema": {"type": "object"}}]
    imported, _ = reshape_tools(UpstreamSpec(command=("x",)), listed, "up")
    assert imported == []
    assert "up: upstream tool '' is left out: its name is not a valid tool name (an empty " \
        "name cannot be renamed)" in caplog.text
    assert "tools..name" not in caplog.text


def test_exclude_leaves_out_every_spelling_of_a_name() -> None:
    """An exclude glob ignores case (fails closed): an upstream listing -- or starting to
    list -- ``Delete_repo`` beside ``delete_repo`` does not slip it past ``delete_*``; include
    keeps its case (it can only narrow)."""
    from toolhost.gateway.reshape import never_shown

    spec = UpstreamSpec(command=("x",), include=("*",), exclude=("delete_*", "[Ww]ipe"))
    names = ["delete_repo", "Delete_repo", "DELETE_REPO", "dElEtE_x", "WIPE", "wipe",
             "search", "undelete_repo"]
    imported, problems = reshape_tools(spec, [{"name": n, "inputSchema": OBJ}
                                              for n in names], "up")
    assert [t.name for t in imported] == ["search", "undelete_repo"] and not problems
    said = never_shown(spec, "up", "Delete_Repo")
    assert said is not None and "left out by servers.up.exclude ('delete_*')" in said[0]
    narrow = UpstreamSpec(command=("x",), include=("search*",))
    imported, _ = reshape_tools(narrow, [{"name": n, "inputSchema": OBJ}
                                         for n in ("search", "Search")], "up")
    assert [t.name for t in imported] == ["search"]


@pytest.mark.parametrize(("name", "key"), [
    ("dot.ted", '"dot.ted"'),  # tools.dot.ted.name would be another key path
    ("a\nb", '"a\\nb"'),
    ("e\x1b[31mvil", '"e\\u001b[31mvil"'),  # an escape sequence reaches no terminal
    ("uni\u202egnp", '"uni\\u202egnp"'),  # nor a bidi override that reorders the line
])
def test_the_rename_offered_for_an_unusable_name_is_a_key_a_person_can_write(
        name: str, key: str, caplog: pytest.LogCaptureFixture) -> None:
    listed = [{"name": name, "inputSchema": OBJ}]
    reshape_tools(UpstreamSpec(command=("x",)), listed, "up")
    assert f"(rename it under tools.{key}.name)" in caplog.text
    assert all(c not in r.getMessage() for r in caplog.records for c in "\n\x1b\u202e")


def test_a_huge_unusable_name_is_said_cut(caplog: pytest.LogCaptureFixture) -> None:
    huge = "x." * 500_000  # a megabyte
    reshape_tools(UpstreamSpec(command=("x",)), [{"name": huge, "inputSchema": OBJ}], "up")
    assert "is left out" in caplog.text and len(caplog.text) < 2_000
    missing = reshape_tools(UpstreamSpec(command=("x",), reshape={"gone": Reshape()}),
                            [{"name": huge, "inputSchema": OBJ}], "up")[1]
    assert len(str(missing[0])) < 2_000


@pytest.mark.parametrize(("listed", "renames", "served"), [
    # whichever is listed first: both go (a deny naming one would not reach the other)
    (["Delete_Repo", "delete_repo", "kept"], {}, ["kept"]),
    (["delete_repo", "DELETE_REPO", "kept"], {}, ["kept"]),
    # the config's name wins over an upstream tool alike but for case
    (["search_issues", "Search", "kept"], {"search_issues": "search"}, ["search", "kept"]),
    # renamed apart by the config: both served
    (["Delete_Repo", "delete_repo"], {"Delete_Repo": "delete_repo_2"},
     ["delete_repo_2", "delete_repo"]),
    (["a", "b"], {}, ["a", "b"]),
])
@pytest.mark.parametrize("changed", [False, True])
def test_tools_alike_but_for_case_are_left_out(listed: list[str], renames: dict[str, str],
                                              served: list[str], changed: bool) -> None:
    spec = UpstreamSpec(command=("x",), reshape={n: Reshape(name=r) for n, r in
                                                 renames.items()})
    imported, problems = reshape_tools(spec, [{"name": n, "inputSchema": OBJ}
                                              for n in listed], "up", missing_ok=changed)
    assert [t.name for t in imported] == served and problems == []


def test_an_upstream_listing_a_tool_alike_but_for_case_has_both_left_out(
        tmp_path: Path) -> None:
    """A real upstream listing ``Echo`` beside ``echo``: a deny on ``mcp__h__echo`` would
    not have reached ``mcp__h__Echo``, which an upstream dispatching names without case
    runs as ``echo``."""
    done = run("tools", str(hostile_config(tmp_path)), HOSTILE_TOOLS=tools_env("Echo"))
    assert done.returncode == 0, done.stderr
    assert "mcp__h__echo" not in done.stdout.lower() and "mcp__loc__hi" in done.stdout
    assert "h: upstream tool 'Echo' is left out: its name differs only in case from " \
        "'echo'" in done.stderr


def test_a_look_alike_name_is_shown_escaped_in_its_warning(tmp_path: Path) -> None:
    """A tool named with a Cyrillic ``о`` is left out, and the warning says which character
    makes it differ: printed as is it would read as the ``echo`` it imitates."""
    config = hostile_config(tmp_path)
    done = run("tools", str(config), HOSTILE_TOOLS=tools_env("ech\u043e", "\u0435cho"))
    assert done.returncode == 0, done.stderr
    assert "upstream tool 'ech\\u043e' is left out" in done.stderr, done.stderr
    assert "upstream tool '\\u0435cho' is left out" in done.stderr, done.stderr
    assert "\u043e" not in done.stderr and "\u0435" not in done.stderr


def test_look_alikes_are_escaped_in_every_warning_naming_them(tmp_path: Path) -> None:
    """Listed twice, or listed malformed: the warning shows the name escaped as well."""
    config = hostile_config(tmp_path)
    twice = {"name": "ech\u043e", "description": "d", "inputSchema": OBJ}
    malformed = {"name": "\u0435cho", "inputSchema": True}
    done = run("tools", str(config), HOSTILE_TOOLS=json.dumps([twice, twice, malformed]))
    assert done.returncode == 0, done.stderr
    assert "upstream tool 'ech\\u043e' is listed twice" in done.stderr, done.stderr
    assert "listed the tool '\\u0435cho' malformed" in done.stderr, done.stderr
    assert "\u043e" not in done.stderr and "\u0435" not in done.stderr
