"""`toolhost validate` as an outsider runs it: config files written from docs/config.md alone,
broken in the ways people break them, each checked for the file, line, column and key path of
its message; valid YAML/TOML twins give identical `toolhost tools --json`."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.inproc import run_cli

# file name -> (text, expected message fragments "file:line:col: key.path: ...")
BROKEN: dict[str, tuple[str, list[str]]] = {
    "typos.yaml": ("""\
toolhost: 1
servers:
  git:
    descripton: Git tools
    tools:
      log:
        command: [git, log]
        parms: {count: integer}
      st:
        command: {argv: [git, status], stdot: text}
        params:
          x: {type: string, descriptoin: hi}
        annotations: {readOnlyHnt: true}
permisions: {}
""", ["typos.yaml:4:5: servers.git.descripton: unknown key (did you mean 'description'?)",
      "typos.yaml:8:9: servers.git.tools.log.parms: unknown key (did you mean 'params'?)",
      "typos.yaml:10:40: servers.git.tools.st.command.stdot: unknown key (did you mean 'stdout'?)",
      "typos.yaml:12:29: servers.git.tools.st.params.x.descriptoin: ",
      "typos.yaml:13:23: servers.git.tools.st.annotations.readOnlyHnt: unknown key",
      "typos.yaml:14:1: permisions: unknown key (did you mean 'permissions'?)"]),
    "typos.toml": ("""\
toolhost = 1

[servers.git]
descripton = "Git tools"

[servers.git.tools.st]
command = ["git", "status"]
params.x = {type = "string", descriptoin = "hi"}
annotations = { readOnlyHnt = true }
""", ["typos.toml:4:1: servers.git.descripton: unknown key (did you mean 'description'?)",
      "typos.toml:8:30: servers.git.tools.st.params.x.descriptoin: ",
      "typos.toml:9:17: servers.git.tools.st.annotations.readOnlyHnt: unknown key"]),
    "types.yaml": ("""\
toolhost: 1
servers:
  s:
    timeout: [5]
    tools:
      t:
        description: 5
        command: {argv: echo}
        annotations: {readOnlyHint: "yes"}
permissions:
  default: maybe
run:
  max_turns: "3"
""", ["types.yaml:4:5: servers.s.timeout: expected a positive duration",
      "types.yaml:7:9: servers.s.tools.t.description: expected a string, got an integer",
      "types.yaml:8:19: servers.s.tools.t.command.argv: expected array, got a string",
      "types.yaml:9:23: servers.s.tools.t.annotations.readOnlyHint: expected true or false",
      "types.yaml:11:3: permissions.default: expected one of allow | deny | ask, got 'maybe'",
      "types.yaml:13:3: run.max_turns: expected an integer, got a string"]),
    "missing.yaml": ("""\
toolhost: 1
servers:
  s:
    tools:
      t: {description: no backend}
      u: {http: {method: GET}}
""", ["missing.yaml:5:7: servers.s.tools.t: missing backend",
      "missing.yaml:6:11: servers.s.tools.u.http: missing required key 'url'"]),
    "version.yaml": ("toolhost: 2\nservers:\n  s:\n    descripton: x\n",
                     ["version.yaml:1:1: toolhost: unsupported format version 2"]),
    "noversion.toml": ('[servers.s.tools.t]\ncommand = ["echo"]\n',
                       ["noversion.toml:1:1: toolhost: missing format version"]),
    "cycle2.yaml": ("toolhost: 1\nextends: [cycle2b.yaml]\n",
                    ["cycle2b.yaml:3:5: extends[0]: extends cycle: cycle2.yaml -> cycle2b.yaml "
                     "-> cycle2.yaml"]),
    "cycle3.yaml": ("toolhost: 1\nextends: [sub/cycle3b.toml]\n",
                    ["sub/cycle3c.yaml:1:11: extends[0]: extends cycle: cycle3.yaml -> "
                     "sub/cycle3b.toml -> sub/cycle3c.yaml -> cycle3.yaml"]),
    "unset.yaml": ("""\
toolhost: 1
servers:
  api:
    headers:
      Authorization: "Bearer ${W3_UNSET_TOKEN:?set W3_UNSET_TOKEN first}"
    tools: {}
""", ["unset.yaml:5:7: servers.api.headers.Authorization: set W3_UNSET_TOKEN first"]),
    "names.yaml": ("""\
toolhost: 1
servers:
  bad.name: {tools: {t: {command: [echo]}}}
  a__b: {tools: {t: {command: [echo]}}}
  ok:
    tools:
      "has space": {command: [echo]}
      aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa: {command: [echo]}
""", ["names.yaml:3:3: servers.bad.name: invalid server name 'bad.name'",
      "names.yaml:4:3: servers.a__b: server name 'a__b' contains '__'",
      "names.yaml:7:7: servers.ok.tools.has space: invalid tool name 'has space'",
      "names.yaml:8:7: servers.ok.tools.aaaaaaaaaa"]),
    "dup.yaml": ("toolhost: 1\nservers:\n  s: {}\n  s: {}\n",
                 ["dup.yaml:4:3: servers.s: duplicate key"]),
    "dup.toml": ('toolhost = 1\n[servers.s]\ndescription = "a"\ndescription = "b"\n',
                 ["dup.toml:4:1: servers.s.description: duplicate key"]),
    "syntax.yaml": ("toolhost: 1\nservers:\n  s:\n    tools:\n      t: {command: [echo]\n"
                    "      u: 1\n",
                    ["syntax.yaml:6:7: servers.s.tools.t: invalid YAML: did not find "
                     "expected ',' or '}' (while parsing a flow mapping at line 5, column 10)"]),
    "syntax.toml": ('toolhost = 1\n[servers.s.tools.t]\ncommand = ["echo"\n'
                    'description = "x"\n',
                    ["syntax.toml:4:1: servers.s.tools.t.command: invalid TOML: Unclosed array"]),
    # tomllib reports these "at end of document": the message names where they opened
    "open.toml": ('toolhost = 1\n[servers.s.tools.t]\ncommand = ["echo", "]", # ]\n  "x",\n',
                  ["open.toml:3:11: servers.s.tools.t.command: invalid TOML: ",
                   "still open at the end of the file"]),
    "openstr.toml": ('toolhost = 1\n[servers.s]\ndescription = """abc\n\nmore\n',
                     ["openstr.toml:3:15: servers.s.description: invalid TOML: "
                      "Unterminated string"]),
    "twodocs.yaml": ("toolhost: 1\n---\nservers: {}\n",
                     ["twodocs.yaml:2:1: a config file holds one YAML document, found 2"]),
    "noextends.yaml": ("toolhost: 1\nextends:\n  - ./nothere.yaml\n",
                       ["noextends.yaml:3:5: extends[0]: extends: no such file: nothere.yaml"]),
}
FRAGMENTS = {
    "cycle2b.yaml": "servers: {}\nextends:\n  - cycle2.yaml\n",
    "sub/cycle3b.toml": 'extends = ["cycle3c.yaml"]\n',
    "sub/cycle3c.yaml": "extends: [../cycle3.yaml]\n",
}

TWIN_YAML = """\
toolhost: 1
servers:
  fs:
    description: File helpers
    timeout: 3s
    env: {DEPTH: 3}
    tools:
      count:
        title: Count lines
        description: Count matching lines
        command:
          argv: [grep, -c, "{% if icase %}-i{% endif %}", "--", "{{ pattern }}", "{{ files }}"]
          ok_codes: [0, 1]
        params:
          pattern: {type: string, pattern: "^[^-]", description: what to find}
          files: {type: array, items: {type: string}, minItems: 1}
          icase: {type: boolean, default: false}
        annotations: {readOnlyHint: true}
      echo: {command: [echo, "{{ text }}"]}
  web:
    base_url: http://127.0.0.1:9/api/
    tools:
      get:
        http: {url: "items/{id}", query: {q: "{{ q }}"}}
        params: {id: integer, q: {type: string, default: ""}}
        output_schema: {type: object, properties: {n: {type: integer}}}
permissions:
  default: deny
  allow: [mcp__fs, {tool: mcp__web__get, when: {id: {min: 1}}}]
"""
TWIN_TOML = """\
toolhost = 1

[servers.fs]
description = "File helpers"
timeout = "3s"
env = { DEPTH = 3 }

[servers.fs.tools.count]
title = "Count lines"
description = "Count matching lines"
annotations = { readOnlyHint = true }
command.argv = ["grep", "-c", "{% if icase %}-i{% endif %}", "--", "{{ pattern }}", "{{ files }}"]
command.ok_codes = [0, 1]

[servers.fs.tools.count.params]
pattern = { type = "string", pattern = "^[^-]", description = "what to find" }
files = { type = "array", items = { type = "string" }, minItems = 1 }
icase = { type = "boolean", default = false }

[servers.fs.tools.echo]
command = ["echo", "{{ text }}"]

[servers.web]
base_url = "http://127.0.0.1:9/api/"

[servers.web.tools.get]
http = { url = "items/{id}", query = { q = "{{ q }}" } }
params = { id = "integer", q = { type = "string", default = "" } }
output_schema = { type = "object", properties = { n = { type = "integer" } } }

[permissions]
default = "deny"
allow = ["mcp__fs", { tool = "mcp__web__get", when = { id = { min = 1 } } }]
"""


def toolhost(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(args, cwd=cwd, env={"W3_UNSET_TOKEN": None,
                                       "XDG_CONFIG_HOME": str(cwd / "no-user-config")})


@pytest.fixture(scope="module")
def validated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[int, str]]:
    root = tmp_path_factory.mktemp("blackbox")
    for name, text in [*((n, t) for n, (t, _) in BROKEN.items()), *FRAGMENTS.items()]:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    out: dict[str, tuple[int, str]] = {}
    for name in BROKEN:  # one process per file: each exit status is checked on its own
        done = toolhost(root, "validate", name)
        out[name] = (done.returncode, done.stderr)
    return out


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_broken_file_fails_naming_file_line_and_key(
        name: str, validated: dict[str, tuple[int, str]]) -> None:
    code, stderr = validated[name]
    assert code == 1, stderr
    for fragment in BROKEN[name][1]:
        assert fragment in stderr, f"{fragment!r} not in:\n{stderr}"


def test_version_problem_is_reported_alone(validated: dict[str, tuple[int, str]]) -> None:
    assert validated["version.yaml"][1].strip().count("\n") == 0


def test_twins_validate_and_list_identically(tmp_path: Path) -> None:
    (tmp_path / "twin.yaml").write_text(TWIN_YAML, encoding="utf-8")
    (tmp_path / "twin.toml").write_text(TWIN_TOML, encoding="utf-8")
    done = toolhost(tmp_path, "validate", "twin.yaml", "twin.toml")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["twin.yaml: ok (2 servers, 3 tools)",
                                        "twin.toml: ok (2 servers, 3 tools)"]
    listings = [toolhost(tmp_path, "tools", "--json", name) for name in ("twin.yaml", "twin.toml")]
    assert all(done.returncode == 0 for done in listings)
    assert listings[0].stdout == listings[1].stdout
    assert '"wireName": "mcp__fs__count"' in listings[0].stdout
