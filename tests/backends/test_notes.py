"""``validate`` notes a command or http tool with no description: the model is shown its name
alone (a python tool's docstring gives one). A note does not fail the check, and ``-q`` hides
it."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolhost.cli import main

CONFIG = """\
toolhost: 1
servers:
  s:
    tools:
      bare: {command: [echo, hi]}
      blank: {command: [echo, hi], description: "   "}
      fetch: {http: {url: "http://127.0.0.1:9/x"}}
      said: {command: [echo, hi], description: Says hi.}
      said_http: {http: {url: "http://127.0.0.1:9/x"}, description: Fetches x.}
      py: {python: "notes_tool:hello"}
permissions:
  allow: [mcp__s]
"""


def test_a_tool_the_model_sees_by_name_alone_is_noted(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "t.yaml"
    config.write_text(CONFIG)
    (tmp_path / "notes_tool.py").write_text('def hello() -> str:\n    """Say hello."""\n'
                                            '    return "hello"\n')
    assert main(["validate", "--no-layers", str(config)]) == 0
    out, err = capsys.readouterr()
    assert out == f"{config}: ok (1 servers, 6 tools)\n"
    notes = err.strip().splitlines()
    assert [n.split(": note: ")[0] for n in notes] == [
        f"{config}:5:7: servers.s.tools.bare", f"{config}:6:7: servers.s.tools.blank",
        f"{config}:7:7: servers.s.tools.fetch"], err
    assert notes[0].endswith(": note: command tool 'bare' has no description: the model is "
                             "shown its name alone (mcp__s__bare) to decide when to call it "
                             "(add description: one sentence on what it does and when to use "
                             "it)")
    assert "http tool 'fetch' has no description" in notes[2]
    assert main(["validate", "--no-layers", "--strict", str(config)]) == 0  # not a warning
    capsys.readouterr()
    assert main(["validate", "-q", "--no-layers", str(config)]) == 0
    assert capsys.readouterr() == ("", "")
