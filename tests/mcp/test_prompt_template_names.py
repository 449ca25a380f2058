"""``toolhost validate`` warns about a template prompt that reads a name it does not declare
under ``arguments``: every prompts/get of it fails ("'b' is undefined"), and no client can
pass the name (an undeclared argument is refused)."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolhost.cli import main

CONFIG = """\
toolhost: 1
servers:
  kb:
    prompts:
      p:
        arguments: {a: {}}
        template: "{{ a }} {{ b }} {% for i in range(2) %}{{ loop.index }}{% endfor %}"
      q:
        arguments: {a: {}}
        messages:
          - {role: user, content: "{{ a }}"}
          - {role: assistant, content: "{% set z = 1 %}{{ z }} {{ zz }}"}
      fine:
        arguments: {a: {}, range: {}}
        template: "{{ a }} {% for x in namespace(n=1).n|string %}{{ x }}{% endfor %}"
      broken:
        template: "{{ a "
"""


def test_a_template_reading_an_undeclared_name_is_warned_about(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "kb.yaml"
    config.write_text(CONFIG.replace("      broken:\n        template: \"{{ a \"\n", ""))
    assert main(["validate", str(config)]) == 0
    err = capsys.readouterr().err
    warned = [line for line in err.splitlines() if "not an argument of the prompt" in line]
    assert len(warned) == 2, err
    assert "servers.kb.prompts.p.template" in warned[0] and "'b'" in warned[0]
    assert "'a'" not in warned[0] and "'range'" not in warned[0] and "loop" not in warned[0]
    assert "servers.kb.prompts.q.messages[1].content" in warned[1] and "'zz'" in warned[1]
    assert "'z'" not in warned[1]


def test_a_template_that_does_not_parse_is_one_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "kb.yaml"
    config.write_text(CONFIG)
    assert main(["validate", str(config)]) != 0
    err = capsys.readouterr().err
    assert err.count("does not parse") == 1, err
    assert "Traceback" not in err
