"""resources: and prompts: in the config: every mistake located, all reported in one run."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolhost.config import load_config
from toolhost.errors import ConfigError

BAD = """\
toolhost: 1
servers:
  kb:
    resources:
      both: {file: a.md, directory: d}
      nouri: {uri: "plain"}
      novar: {uri: "docs://fixed", python: "m:f"}
      nobackend: {uri: "docs://{id}"}
      strayparam: {uri: "docs://{id}", python: "m:f", params: {other: string}}
      filevars: {file: a.md, uri: "docs://{id}"}
      big: {file: a.md, max_bytes: 999999999999}
      dup1: {file: a.md, uri: "docs://same"}
      dup2: {file: b.md, uri: "docs://same"}
      "bad name": {file: a.md}
      badcomplete: {uri: "t://{id}", python: "m:f", complete: {id: 5, nope: [a]}}
    prompts:
      none: {description: x}
      two: {template: a, python: "m:f"}
      badrole: {messages: [{role: system, content: hi}]}
      nomessages: {messages: []}
      badarg: {template: x, arguments: {"1x": {required: maybe}}}
      badfn: {python: "no_colon"}
"""


def test_every_content_mistake_is_located_in_one_run(tmp_path: Path) -> None:
    config = tmp_path / "kb.yaml"
    config.write_text(BAD)
    with pytest.raises(ConfigError) as info:
        load_config(config, layers=False)
    text = str(info.value)
    expected = {
        5: "a resource is a 'file' or a 'directory', not both",
        6: "is not a URI: it needs a scheme",
        7: "has no {variable}",
        8: "missing backend",
        9: "'other' is not a variable of the URI template",
        10: "a file or directory resource has a plain URI",
        11: "at most 100,000,000",
        13: "is also the URI of resource 'dup1'",
        14: "invalid resource name 'bad name'",
        15: "expected a list of values or 'module:function'",
        17: "exactly one of 'template', 'messages' or 'python'",
        18: "found template, python",
        19: "expected one of user | assistant",
        20: "a non-empty list of {role, content}",
        21: "invalid argument name '1x'",
        22: "'no_colon' is not 'module:function'",
    }
    for line, message in expected.items():
        assert any(f"kb.yaml:{line}:" in row and message in row for row in text.splitlines()), \
            (line, message, text)
    assert "Traceback" not in text


def test_template_syntax_errors_are_compile_errors(tmp_path: Path) -> None:
    from toolhost.compile import compile_tools

    config = tmp_path / "kb.yaml"
    config.write_text("toolhost: 1\nservers:\n  kb:\n    prompts:\n"
                      "      p: {template: 'Hello {{ name'}\n")
    with pytest.raises(ConfigError, match=r"kb\.yaml:5:.*prompts\.p\.template: template does "
                       "not parse"):
        compile_tools(load_config(config, layers=False))


YAML_TWIN = """\
toolhost: 1
servers:
  kb:
    resources:
      runbook: {file: a.md, description: d}
      t: {uri: "t://{id}", python: "m:f", params: {id: integer}, complete: {id: ["1", "2"]}}
    prompts:
      p:
        arguments: {who: {required: true, complete: [ann]}}
        messages: [{role: user, content: "Hi {{ who }}"}]
"""

TOML_TWIN = """\
toolhost = 1
[servers.kb.resources.runbook]
file = "a.md"
description = "d"
[servers.kb.resources.t]
uri = "t://{id}"
python = "m:f"
params = {id = "integer"}
complete = {id = ["1", "2"]}
[servers.kb.prompts.p]
arguments = {who = {required = true, complete = ["ann"]}}
messages = [{role = "user", content = "Hi {{ who }}"}]
"""


def test_yaml_and_toml_declare_the_same_content(tmp_path: Path) -> None:
    import dataclasses

    (tmp_path / "a.yaml").write_text(YAML_TWIN)
    (tmp_path / "a.toml").write_text(TOML_TWIN)

    def plain(path: Path) -> list[object]:
        server = load_config(path, layers=False).servers["kb"]
        items: list[object] = []
        for res in server.resources.values():
            backend = res.backend and dataclasses.replace(res.backend, origin=None)
            items.append(dataclasses.replace(res, origin=None, backend=backend))
        items += [dataclasses.replace(p, origin=None) for p in server.prompts.values()]
        return items

    assert plain(tmp_path / "a.yaml") == plain(tmp_path / "a.toml")
