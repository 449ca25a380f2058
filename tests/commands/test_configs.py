"""What a command prints for programs stays parseable when the code it runs prints: a tools
module printing at import (bound by the python kind), a plugin kind's ``bind()``, a tool
called by ``toolhost call``. ``mcp-config > .mcp.json`` wrote the junk into the file."""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path

import pytest

from toolhost.cli import main

from ..plugins.conftest import write_plugin

LOUD = '''\
import os
print("JUNK at import")
os.write(1, b"FD1 JUNK at import\\n")

def f() -> str:
    """Say ok."""
    print("JUNK at call")
    os.write(1, b"FD1 JUNK at call\\n")
    return "ok"
'''
KIND = '''\
import os
from toolhost.backends.base import Binding, ToolResult

class Loud:
    name = "loud"
    options_schema = {"type": "object", "properties": {"x": {"type": "string"}}}
    shorthand = "x"

    def bind(self, tool, ctx):
        print("JUNK in bind")
        os.write(1, b"FD1 JUNK in bind\\n")

        async def invoke(arguments, ctx):
            print("JUNK at call")
            return ToolResult.text("ok")
        return Binding(input_schema={"type": "object", "properties": {}}, invoke=invoke)

def register(registry):
    registry.add_kind(Loud())
'''


@pytest.mark.parametrize("command", [["tools", "--json"], ["mcp-config"],
                                     ["call", "s.f", "--json"]])
@pytest.mark.parametrize("backend", ["python", "plugin-kind"])
def test_what_the_code_prints_goes_to_stderr_not_into_the_json(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capfd: pytest.CaptureFixture[str], command: list[str], backend: str) -> None:
    config = tmp_path / "c.yaml"
    module = f"loud_{uuid.uuid4().hex[:12]}"  # one process: a module name per test
    if backend == "python":
        (tmp_path / f"{module}.py").write_text(LOUD)
        config.write_text("toolhost: 1\nservers:\n  s:\n    tools:\n"
                          f"      f: {{python: '{module}:f'}}\npermissions: {{default: allow}}\n")
    else:
        dist = module.replace("_", "-")
        write_plugin(tmp_path / "site", dist, "1.0.0", {module: KIND})
        monkeypatch.syspath_prepend(str(tmp_path / "site"))
        config.write_text(f"toolhost: 1\nplugins: [{dist}]\nservers:\n  s:\n    tools:\n"
                          "      f: {loud: a}\npermissions: {default: allow}\n")
    monkeypatch.chdir(tmp_path)
    try:
        rc = main([command[0], str(config), *command[1:]])
    finally:
        sys.modules.pop(module, None)
    out, err = capfd.readouterr()
    assert rc == 0, err
    json.loads(out)  # nothing else on stdout
    assert "JUNK" in err and "JUNK" not in out


# tools/call (raised), validate (listed), run and serve (load_host: compiled without
# commands._configs, the repository was left unnamed there)
@pytest.mark.parametrize("how", ["raised", "collected", "load_host"])
def test_a_tool_of_a_fetched_fragment_that_does_not_bind_names_its_repo(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    """The problem was located in the cache only (.../repos/0fa6.../base.yaml:4:27)."""
    from toolhost.commands._configs import compile_config
    from toolhost.config import load_config
    from toolhost.errors import ConfigError, Problem
    from toolhost.host import load_host

    from ..plugins.conftest import _make_repo

    monkeypatch.setenv("TOOLHOST_CACHE", str(tmp_path / "cache"))
    team = tmp_path / "team"
    _make_repo(team, {"base.yaml": "servers:\n  t:\n    tools:\n"
                      "      x: {description: x, python: 'no_such_mod_t13:f'}\n"}, tag="v5")
    config = tmp_path / "c.yaml"
    config.write_text(f"toolhost: 1\nextends:\n  - {{repo: {team.as_uri()}, rev: v5, "
                      "path: base.yaml}\n")
    loaded = load_config(config, layers=False)
    found: list[Problem] = []
    if how == "collected":
        compile_config(loaded, problems=found)
    else:
        with pytest.raises(ConfigError) as caught:
            compile_config(loaded) if how == "raised" else load_host(config)
        found = list(caught.value.problems)
    (problem,) = found
    assert "no_such_mod_t13" in problem.message and str(tmp_path / "cache") in problem.file
    assert problem.hint.endswith(f"; base.yaml of {team.as_uri()} at v5"), problem.hint
