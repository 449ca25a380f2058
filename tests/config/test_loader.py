"""load_config on small files written per test: the model it builds and the problems it finds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from toolhost.config import load_config
from toolhost.errors import ConfigError, Problem

GIT = """\
toolhost: 1
servers:
  git:
    description: Read-only git helpers
    timeout: 2m
    env: {PAGER: cat, DEPTH: 3}
    cwd: ./repo
    tools:
      log:
        description: Show recent commits
        command: [git, log, "-n", "{{ count }}"]
        params:
          count: {type: integer, default: 10, minimum: 1}
          path: string
          author: {type: string, required: false}
          since: {type: string, default: x, required: true}
        annotations: {readOnlyHint: true, title: Log}
        timeout: 500ms
      add: {python: "mypkg.math:add"}
"""


def problems(path: Path, kinds: Any, **kw: Any) -> list[Problem]:
    with pytest.raises(ConfigError) as info:
        load_config(path, kinds=kinds, layers=False, **kw)
    return list(info.value.problems)


def test_builds_the_model(write: Any, kinds: Any) -> None:
    path = write("git.yaml", GIT)
    config = load_config(path, kinds=kinds, layers=False)
    server = config.servers["git"]
    assert server.defaults.timeout == 120.0
    assert server.defaults.env == {"PAGER": "cat", "DEPTH": "3"}
    assert server.defaults.cwd == str(path.parent / "repo")
    log = server.tools["log"]
    assert log.backend.kind == "command"
    assert log.backend.options == {"argv": ["git", "log", "-n", "{{ count }}"]}
    assert log.params["path"] == {"type": "string"}
    assert "required" not in log.params["author"]
    assert log.required == ("path", "since")
    assert log.timeout == 0.5
    assert log.origin.line == 9 and log.backend.origin.line == 11
    add = server.tools["add"]
    assert add.backend.options == {"function": "mypkg.math:add"}
    assert add.required is None
    assert config.files == (str(path),)
    assert config.origins["servers.git.tools.log.timeout"].line == 18


def test_every_problem_at_once_with_line_and_hint(write: Any, kinds: Any) -> None:
    path = write("bad.yaml", """\
toolhost: 1
servers:
  git:
    descripton: typo
    timeout: soon
    tools:
      log:
        comand: [git, log]
      show:
        command: git
        python: "a:b"
      stat:
        params: {n: {type: integr}}
        http: {url: 5, methd: GET}
      nothing: {description: no backend}
permissions: {default: maybe, allow: "x"}
extra: 1
""")
    found = [(p.line, p.key_path, p.message, p.hint) for p in problems(path, kinds)]
    assert (4, "servers.git.descripton", "unknown key", "did you mean 'description'?") in found
    assert any(f[0] == 5 and "duration" in f[2] for f in found)
    assert (8, "servers.git.tools.log.comand", "unknown key",
            "did you mean 'command'?") in found
    assert any(f[0] == 10 and "array" in f[2] for f in found)  # argv must be a list
    assert any(f[0] == 11 and "exactly one backend" in f[2] for f in found)
    assert any(f[0] == 13 and f[1].endswith("n.type") and f[3] == "did you mean 'integer'?"
               for f in found)
    assert any(f[0] == 14 and f[1].endswith("http.url") and "string" in f[2] for f in found)
    assert any(f[1].endswith("http.methd") and f[3] == "did you mean 'method'?"
               for f in found)
    assert any(f[0] == 15 and "missing backend" in f[2] for f in found)
    assert any(f[0] == 16 and f[1] == "permissions.default" for f in found)
    assert any(f[0] == 16 and f[1] == "permissions.allow" for f in found)
    assert any(f[:3] == (17, "extra", "unknown key") and f[3].startswith("the keys here: ")
               and "servers" in f[3] for f in found)  # no near miss: the valid keys
    assert all(p.file == str(path) for p in problems(path, kinds))


@pytest.mark.parametrize(("text", "message"), [
    ("servers: {}\n", "missing format version"),
    ("toolhost: 2\nservers: {bad: 1}\n", "unsupported format version 2"),
    ("toolhost: '1'\n", "unsupported format version '1'"),
])
def test_version_is_reported_alone(write: Any, kinds: Any, text: str, message: str) -> None:
    found = problems(write("v.yaml", text), kinds)
    assert len(found) == 1
    assert message in found[0].message and found[0].key_path == "toolhost"


def test_names(write: Any, kinds: Any) -> None:
    long = "t" * 60
    path = write("names.yaml", f"""\
toolhost: 1
servers:
  my__server:
    tools: {{ok: {{python: "a:b"}}}}
  "bad name":
    tools: {{}}
  s:
    tools:
      {long}: {{python: "a:b"}}
      "x.y": {{python: "a:b"}}
""")
    found = {(p.line, p.message.split(":")[0]) for p in problems(path, kinds)}
    assert (3, "server name 'my__server' contains '__'") in found
    assert any(line == 5 and "invalid server name" in m for line, m in found)
    assert any(line == 9 and "wire name" in m for line, m in found)
    assert any(line == 10 and "invalid tool name" in m for line, m in found)


def test_yaml_syntax_and_tags(write: Any, kinds: Any) -> None:
    found = problems(write("s.yaml", "toolhost: 1\nservers:\n  a: [1, 2\n"), kinds)
    assert found[0].message.startswith("invalid YAML") and found[0].line >= 3
    found = problems(write("t.yaml", "toolhost: 1\nservers: !!python/object:os.system {}\n"),
                     kinds)
    assert found[0].line == 2 and "unsupported YAML tag" in found[0].message
    found = problems(write("d.yaml", "toolhost: 1\nrun: {}\nrun: {}\n"), kinds)
    assert found[0].line == 3 and "duplicate key" in found[0].message


def test_yaml_anchors_and_merge_keys(write: Any, kinds: Any) -> None:
    config = load_config(write("m.yaml", """\
toolhost: 1
servers:
  s:
    tools:
      a: &base {python: "m:f", timeout: 3}
      b: {<<: *base, description: B}
"""), kinds=kinds, layers=False)
    assert config.servers["s"].tools["b"].timeout == 3.0
    assert config.servers["s"].tools["b"].description == "B"


def test_toml_syntax_error_line(write: Any, kinds: Any) -> None:
    found = problems(write("s.toml", "toolhost = 1\n\n[servers.a]\ndescription = \n"), kinds)
    assert found[0].line == 4 and found[0].message.startswith("invalid TOML")


def test_external_server_and_auth(write: Any, kinds: Any) -> None:
    path = write("ext.yaml", """\
toolhost: 1
servers:
  fs:
    external: {type: stdio, command: npx, args: [-y, server-fs]}
  api:
    base_url: http://127.0.0.1:9
    auth: {type: bearer, token: sekrit-token}
    tools: {}
  bad:
    external: {type: sse}
    tools: {}
  worse:
    auth: {type: basic, username: u}
""")
    found = {(p.line, p.message) for p in problems(path, kinds)}
    assert (10, "missing required key 'url' (sse server)") in found
    assert any(line == 11 and "external server" in m for line, m in found)
    assert (13, "missing required key 'password' (basic auth)") in found


def test_permissions_rules(write: Any, kinds: Any) -> None:
    path = write("p.yaml", """\
toolhost: 1
permissions:
  default: deny
  ask_mode: allow
  audit_log: logs/audit.jsonl
  allow:
    - mcp__git__*
    - {tool: mcp__calc__add, rewrite: {clamp: {n: [0, 9]}}}
  deny:
    - tool: Bash(rm:*)
      message: nope
""")
    config = load_config(path, kinds=kinds, layers=False)
    perms = config.permissions
    assert perms.default == "deny" and perms.ask_mode == "allow"
    assert perms.audit_log == str(path.parent / "logs" / "audit.jsonl")
    assert [(r.effect, r.tool, r.origin.line) for r in perms.rules] == [
        ("allow", "mcp__git__*", 7), ("allow", "mcp__calc__add", 8), ("deny", "Bash(rm:*)", 10)]
    assert perms.rules[1].rewrite == {"clamp": {"n": [0, 9]}}
    bad = write("q.yaml", "toolhost: 1\npermissions:\n  deny:\n    - {tol: x, rewrite: {}}\n"
                "    - 5\n")
    found = {(p.line, p.message, p.hint) for p in problems(bad, kinds)}
    assert (4, "unknown key", "did you mean 'tool'?") in found
    assert any(line == 4 and "missing required key 'tool'" in m for line, m, _ in found)
    assert any(line == 5 and "expected a mapping" in m for line, m, _ in found)


def test_plugins_and_run(write: Any, kinds: Any) -> None:
    config = load_config(write("r.yaml", """\
toolhost: 1
plugins: [toolhost-files, "toolhost-sqlite>=0.1,<1", {name: other, version: "==2"}]
settings: {toolhost-files: {root: .}}
run: {model: claude-x, max_turns: 3, cli_args: [--verbose]}
"""), kinds=kinds, layers=False)
    assert [(p.name, p.specifier) for p in config.plugins] == [
        ("toolhost-files", ""), ("toolhost-sqlite", ">=0.1,<1"), ("other", "==2")]
    assert config.settings == {"toolhost-files": {"root": "."}}
    assert config.run.max_turns == 3 and config.run.cli_args == ("--verbose",)
    found = problems(write("r2.yaml", "toolhost: 1\nplugins: ['x>=>1']\nrun: {max_turns: 0}\n"),
                     kinds)
    assert {p.line for p in found} == {2, 3}
