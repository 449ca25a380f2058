"""Relative paths of a tool that reads them elsewhere than the rules' directory (round 19).

The rules judge ``path: secret.txt`` against ``run.cwd`` (``toolhost run --cwd``); a command
tool with a ``cwd:`` of its own, a python or command tool running where toolhost was started,
an imported server with an ``mcp.cwd`` elsewhere reads it in another directory, and an HTTP
tool or upstream on another machine. There a ``path_under``/``path_glob`` condition cannot
judge a relative (or ``~``) value: every deny or ask meets it, no allow proves it.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from toolhost.config import load_config
from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.host import load_host
from toolhost.permissions.policy import compile_policy
from toolhost.permissions.reading_dirs import reading_dirs

TOOL = "mcp__t__read"


def _policy(tmp: Path, dirs: dict[str, str | None] | None):  # type: ignore[no-untyped-def]
    rules = (RuleConfig("deny", TOOL, when={"path": {"path_under": str(tmp / "other")}}),
             RuleConfig("ask", TOOL, when={"path": {"path_glob": "**/*.key"}}),
             RuleConfig("allow", TOOL, when={"path": {"path_under": str(tmp / "proj")}}))
    return compile_policy(PermissionsConfig(default="deny", rules=rules), cwd=str(tmp / "proj"),
                          reading_dirs=dirs)


@pytest.mark.parametrize("dirs", [{TOOL: "other"}, {"mcp__t__": None}],
                         ids=["own-cwd", "unknown"])
@pytest.mark.parametrize(("value", "there", "here"), [
    ("notes.txt", "deny", "allow"),          # read in other/: no allow proves it
    ("./a/b.txt", "deny", "allow"),
    ("~/notes.txt", "deny", "deny"),         # the tool's home, or the remote's
    ("$HOME/notes.txt", "deny", "deny"),
    ("file:notes.txt", "deny", "allow"),
    ("sub/id.key", "deny", "ask"),           # every deny meets it first
    ("/PROJ/notes.txt", "allow", "allow"),   # absolute: decided as before
    ("/PROJ/id.key", "ask", "ask"),
    ("/OTHER/notes.txt", "deny", "deny"),
])
def test_a_relative_path_read_elsewhere_is_not_provable(
        tmp_path: Path, dirs: dict[str, str | None], value: str, there: str,
        here: str) -> None:
    (tmp_path / "proj").mkdir()
    (tmp_path / "other").mkdir()
    value = value.replace("/PROJ", str(tmp_path / "proj")).replace(
        "/OTHER", str(tmp_path / "other"))
    dirs = {k: str(tmp_path / v) if v else None for k, v in dirs.items()}
    assert _policy(tmp_path, dirs).decide(TOOL, {"path": value}).behavior == there
    same = {TOOL: str(tmp_path / "proj")}  # the rules' own directory: no over-denial
    assert _policy(tmp_path, same).decide(TOOL, {"path": value}).behavior == here
    assert _policy(tmp_path, None).decide(TOOL, {"path": value}).behavior == here


def test_a_deny_meets_a_relative_path_that_the_tool_reads_in_the_denied_directory(
        tmp_path: Path) -> None:
    """``deny path_under: other``, the tool runs in other/: ``secret.txt`` was judged
    ``proj/secret.txt`` (not denied, allowed by ``path_under: proj``); it is denied now."""
    (tmp_path / "proj").mkdir()
    (tmp_path / "other").mkdir()
    dirs = {TOOL: str(tmp_path / "other")}
    assert _policy(tmp_path, dirs).decide(TOOL, {"path": "secret.txt"}).behavior == "deny"
    assert _policy(tmp_path, None).decide(TOOL, {"path": "secret.txt"}).behavior == "allow"


def test_the_default_says_which_allow_could_not_judge_a_relative_path(tmp_path: Path) -> None:
    (tmp_path / "proj").mkdir()
    (tmp_path / "other").mkdir()
    allow = RuleConfig("allow", TOOL, when={"path": {"path_under": str(tmp_path / "proj")}})
    policy = compile_policy(PermissionsConfig(default="deny", rules=(allow,)),
                            cwd=str(tmp_path / "proj"), reading_dirs={"mcp__t__": None})
    said = policy.decide(TOOL, {"path": "notes.txt"})
    assert said.behavior == "deny" and "path_under" in said.message and \
        "send an absolute path" in said.message, said.message
    assert "send an absolute" not in policy.decide(TOOL, {"path": "/elsewhere/x"}).message


CONFIG = """\
toolhost: 1
run: {cwd: proj}
servers:
  t:
    tools:
      own:                              # its own cwd, elsewhere
        command: {argv: [cat, "{{ path }}"], cwd: other}
      here:                             # its own cwd, the rules' directory
        command: {argv: [cat, "{{ path }}"], cwd: proj}
      started:                          # no cwd: where toolhost was started
        command: [cat, "{{ path }}"]
      py:
        python: {function: "posixpath:exists", allow_untyped: true}
      web:
        http: {url: "http://127.0.0.1:9/files/{path}"}
  remote:
    mcp: {url: "http://127.0.0.1:9/mcp"}
  local:
    mcp: {command: [python, fs.py], cwd: other}
  inrules:
    mcp: {command: [python, fs.py]}
  extweb:                               # the CLI reaches it: another machine
    external: {type: http, url: "http://127.0.0.1:9/mcp"}
  extlocal:                             # the CLI starts it in its cwd
    external: {command: python, args: [fs.py], cwd: sub}
  extrules:
    external: {command: python, args: [fs.py]}
permissions:
  default: deny
  allow:
    - {tool: "mcp__*", when: {path: {path_under: proj}}}
"""


def test_each_backend_says_where_it_reads_a_relative_path(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("proj", "other", "started"):
        (tmp_path / name).mkdir()
    (tmp_path / "th.yaml").write_text(CONFIG)
    monkeypatch.chdir(tmp_path / "started")
    dirs = reading_dirs(load_config(tmp_path / "th.yaml"), rules_dir=str(tmp_path / "proj"))
    started = str(tmp_path / "started")
    assert dirs == {"mcp__t__own": str(tmp_path / "other"),
                    "mcp__t__here": str(tmp_path / "proj"),
                    "mcp__t__started": started, "mcp__t__py": started,
                    "mcp__t__web": None, "mcp__remote__": None,
                    "mcp__local__": str(tmp_path / "other"), "mcp__extweb__": None,
                    "mcp__extlocal__": str(tmp_path / "proj" / "sub")}


def test_a_host_judges_relative_paths_of_a_tool_reading_elsewhere_as_unprovable(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``toolhost run``/``serve`` with ``run.cwd: proj``: ``cat secret.txt`` in other/ (or
    where toolhost was started) is no longer allowed as ``proj/secret.txt``."""
    for name in ("proj", "other"):
        (tmp_path / name).mkdir()
    own_tools = CONFIG.split("  remote:")[0] + "permissions:" + CONFIG.split("permissions:")[1]
    (tmp_path / "th.yaml").write_text(own_tools)  # (no upstream to start)
    monkeypatch.chdir(tmp_path)
    host = load_host(tmp_path / "th.yaml")
    try:
        decide = host.policy.decide
        for tool in ("own", "started", "py", "web"):
            assert decide(f"mcp__t__{tool}", {"path": "secret.txt"}).behavior == "deny", tool
            assert decide(f"mcp__t__{tool}", {
                "path": str(tmp_path / "proj" / "secret.txt")}).behavior == "allow", tool
        assert decide("mcp__t__here", {"path": "secret.txt"}).behavior == "allow"
    finally:
        anyio.run(host.aclose)


@pytest.mark.parametrize(("value", "decided"), [
    ("notes.txt", "deny"),  # read in other/ now: no allow proves it
    ("sub/id.key", "deny"),
    (None, "allow"),        # an absolute path in proj: decided as before
])
def test_a_tool_reading_where_the_host_runs_is_not_provable_once_it_moved(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str | None,
        decided: str) -> None:
    # round 22: a python tool (or a command tool without a cwd) reads a relative path where
    # the process runs now; a move no guard saw (an embedder's, a tool's native code) took it
    # away from the directory the rules judge it in
    (tmp_path / "proj").mkdir()
    (tmp_path / "other").mkdir()
    monkeypatch.chdir(tmp_path / "proj")
    policy = _policy(tmp_path, {TOOL: str(tmp_path / "proj")})
    path = value or str(tmp_path / "proj" / "notes.txt")
    assert policy.decide(TOOL, {"path": path}).behavior == "allow" or value == "sub/id.key"
    monkeypatch.chdir(tmp_path / "other")
    moved = policy.decide(TOOL, {"path": path})
    assert moved.behavior == decided, moved
    monkeypatch.chdir(tmp_path / "proj")  # back: as before
    assert policy.decide(TOOL, {"path": path}).behavior == (
        "ask" if value == "sub/id.key" else "allow")


def test_the_default_s_message_names_the_move(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "proj").mkdir()
    (tmp_path / "other").mkdir()
    monkeypatch.chdir(tmp_path / "proj")
    rules = (RuleConfig("allow", TOOL, when={"path": {"path_under": str(tmp_path / "proj")}}),)
    policy = compile_policy(PermissionsConfig(default="deny", rules=rules),
                            cwd=str(tmp_path / "proj"),
                            reading_dirs={TOOL: str(tmp_path / "proj")})
    assert policy.decide(TOOL, {"path": "notes.txt"}).behavior == "allow"
    monkeypatch.chdir(tmp_path / "other")
    moved = policy.decide(TOOL, {"path": "notes.txt"})
    assert moved.behavior == "deny"
    assert f"has moved from {tmp_path / 'proj'} to {tmp_path / 'other'}" in moved.message
