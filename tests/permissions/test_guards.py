"""A later layer that leaves a team's deny/ask rule with nothing to match (a rename, an
exclude or include, a swap of names) stops serve and run with the rule's line, as validate
reports it: fail closed, never a silent start with the guard gone."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from toolhost.cli import main
from toolhost.config.model import HostConfig, Origin, RuleConfig, ServerConfig
from toolhost.errors import ConfigError
from toolhost.gateway.spec import Reshape, UpstreamSpec
from toolhost.host import load_host
from toolhost.permissions.guards import dead_guards, renames

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "configs"

TEAM = """\
servers:
  tasks:
    openapi:
      spec: openapi-data/tasks.yaml
      security: {{bearerAuth: "dev-token"}}
permissions:
  default: allow
  {effect}:
    - tool: {rule}
      message: Never delete tasks.
"""

# what a later layer (here toolhost.local.yaml) writes under servers.tasks
RENAME = "      deleteTask:\n        name: remove_task\n"
SWAP = RENAME + "      getTask:\n        name: deleteTask\n"
LOOSENING = {
    "rename": "  tasks:\n    tools:\n" + RENAME,
    "swap": "  tasks:\n    tools:\n" + SWAP,
    "exclude": "  tasks:\n    exclude: [deleteTask]\n",
    "exclude_glob": "  tasks:\n    exclude: ['delete*']\n",
    "include": "  tasks:\n    include: [listTasks, getTask]\n",
}
RULES = ["mcp__tasks__deleteTask", "mcp__tasks__delete*", "mcp__tasks__*Task"]


def _project(tmp_path: Path, rule: str, local: str | None, effect: str = "deny") -> Path:
    (tmp_path / "openapi-data").mkdir()
    shutil.copy(EXAMPLES / "openapi-data" / "tasks.yaml", tmp_path / "openapi-data")
    (tmp_path / "team.yaml").write_text(TEAM.format(effect=effect, rule=json.dumps(rule)))
    config = tmp_path / "toolhost.yaml"
    config.write_text("toolhost: 1\nextends: [./team.yaml]\n")
    if local is not None:
        (tmp_path / "toolhost.local.yaml").write_text("servers:\n" + local)
    return config


def _toolhost(tmp_path: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "toolhost", *args], input=stdin, cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)


def _still_matches(kind: str, rule: str) -> bool:
    """Leaving deleteTask out (not renaming it) keeps `*Task` matching tools that are served."""
    return (kind.startswith("exclude") or kind == "include") and rule == "mcp__tasks__*Task"


DEAD = [(k, r) for k in sorted(LOOSENING) for r in RULES if not _still_matches(k, r)]
ALIVE = [(k, r) for k in sorted(LOOSENING) for r in RULES if _still_matches(k, r)]


def _refusal(config: Path) -> str:
    """The located line ``load_host`` (what serve, run and validate load with) refuses with."""
    with pytest.raises(ConfigError) as raised:
        load_host(config.name)  # as the commands below are given it, from its directory
    lines = [str(p) for p in raised.value.problems if "team.yaml:9:" in str(p)]
    assert lines, raised.value.problems
    return lines[0][lines[0].index("team.yaml:9:"):]


@pytest.mark.parametrize("effect", ["deny", "ask"])
@pytest.mark.parametrize(("kind", "rule"), DEAD)
def test_a_guard_a_later_layer_left_without_its_tool_stops_the_load(
        tmp_path: Path, kind: str, rule: str, effect: str, monkeypatch: pytest.MonkeyPatch,
        ) -> None:
    monkeypatch.chdir(tmp_path)
    config = _project(tmp_path, rule, LOOSENING[kind], effect)
    assert f"permission rule {rule!r}" in _refusal(config)


def test_serve_validate_and_run_refuse_it_with_the_rules_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the processes, for one loosening (the family, deny and ask alike, is the in-process
    # test above): serve and run on a deny, validate on an ask, one process each
    for effect in ("deny", "ask"):
        (tmp_path / effect).mkdir()
    monkeypatch.chdir(tmp_path / "deny")
    config = _project(tmp_path / "deny", "mcp__tasks__delete*", LOOSENING["swap"], "deny")
    line = _refusal(config)
    served = _toolhost(tmp_path / "deny", "serve", config.name, stdin="")
    assert served.returncode != 0
    assert "Traceback" not in served.stderr
    assert line in served.stderr, served.stderr
    # run stops before the CLI starts
    ran = _toolhost(tmp_path / "deny", "run", config.name, "--cli", "/bin/false", "-p", "go")
    assert ran.returncode != 0
    assert line in ran.stderr
    monkeypatch.chdir(tmp_path / "ask")
    config = _project(tmp_path / "ask", "mcp__tasks__delete*", LOOSENING["swap"], "ask")
    line = _refusal(config)
    checked = _toolhost(tmp_path / "ask", "validate", config.name)
    assert checked.returncode == 1
    assert line in checked.stderr


@pytest.mark.parametrize("local", [None, "  tasks:\n    tools:\n      getTask:\n"
                                         "        description: Read one task.\n"])
def test_serve_starts_and_denies_when_the_rule_still_has_its_tool(
        tmp_path: Path, local: str | None) -> None:
    config = _project(tmp_path, "mcp__tasks__deleteTask", local)
    lines = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "t", "version": "1"}}},
             {"jsonrpc": "2.0", "method": "notifications/initialized"},
             {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
              "params": {"name": "deleteTask", "arguments": {"taskId": 1}}}]
    served = _toolhost(tmp_path, "serve", config.name,
                       stdin="".join(json.dumps(m) + "\n" for m in lines))
    answers = {m.get("id"): m for m in map(json.loads, served.stdout.splitlines())}
    assert "Never delete tasks." in json.dumps(answers[2]), served.stderr


def test_a_rule_written_for_the_new_name_is_no_problem(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    config = _project(tmp_path, "mcp__tasks__remove_task", LOOSENING["rename"])
    monkeypatch.chdir(tmp_path)
    assert main(["validate", config.name]) == 0, capsys.readouterr().err


AT = Origin(file="team.yaml", line=9, column=7, key_path="permissions.deny[0]")


@pytest.mark.parametrize(("reshape", "include", "exclude", "dead"), [
    ({"delete": Reshape(name="rm")}, ("*",), (), True),
    ({"delete": Reshape(name="rm"), "get": Reshape(name="delete")}, ("*",), (), True),
    ({"delete": Reshape(name="delete")}, ("*",), (), False),
    ({"delete": Reshape(description="x")}, ("*",), (), False),
    ({}, ("*",), ("delete",), True),
    ({}, ("*",), ("del*",), True),
    ({}, ("get",), (), True),
    ({"delete": Reshape(name="rm")}, ("*",), ("delete",), True),  # not served: no rename
    ({}, ("*",), (), False),
])
def test_an_imported_server_offline(reshape: dict[str, Reshape], include: tuple[str, ...],
                                    exclude: tuple[str, ...], dead: bool) -> None:
    spec = UpstreamSpec(command=("x",), include=include, exclude=exclude, reshape=reshape)
    config = HostConfig(version=1, servers={"up": ServerConfig(name="up", upstream=spec)})
    rule = RuleConfig("deny", "mcp__up__delete", origin=AT)
    config = HostConfig(version=1, servers=config.servers,
                        permissions=type(config.permissions)(rules=(rule,)))
    found = dead_guards(config)
    assert bool(found) == dead, found
    for problem in found:
        assert (problem.file, problem.line) == ("team.yaml", 9)
    allow = RuleConfig("allow", "mcp__up__delete", origin=AT)
    config = HostConfig(version=1, servers=config.servers,
                        permissions=type(config.permissions)(rules=(allow,)))
    assert dead_guards(config) == []  # an allow that matches nothing allows nothing
    assert all(r.server == "up" for r in renames(config))


@pytest.mark.parametrize("effect", ["deny", "ask"])
@pytest.mark.parametrize(("kind", "rule"), ALIVE)
def test_a_glob_that_still_matches_served_tools_is_no_problem(
        tmp_path: Path, kind: str, rule: str, effect: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # the tool left out is not served at all, so nothing slips past the rule: no stop
    # (validate in-process: the command's process is the test above)
    config = _project(tmp_path, rule, LOOSENING[kind], effect)
    monkeypatch.chdir(tmp_path)
    assert main(["validate", config.name]) == 0, capsys.readouterr().err
    assert "team.yaml:9:" not in capsys.readouterr().err
