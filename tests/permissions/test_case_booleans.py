"""``permissions test``: a case value written as a YAML 1.1 boolean word (``off``, ``no``,
``yes``, ``on``, any case) gets a located warning: the CLI sends JSON, where
the model's ``off`` is a string, so such a case tests a call that cannot come."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.inproc import run_cli

CONFIG = """\
toolhost: 1
servers:
  ext:
    external: {type: stdio, command: some-mcp}
permissions:
  default: allow
  deny:
    - tool: mcp__ext__heater
      when: {mode: "of"}
"""


def _run(tmp_path: Path, input_text: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "pt.yaml").write_text(CONFIG)
    (tmp_path / "cases.yaml").write_text(
        "config: pt.yaml\ncases:\n  - name: heater\n    tool: mcp__ext__heater\n"
        f"    input: {input_text}\n    expect: deny\n")
    return run_cli(["permissions", "test", str(tmp_path / "cases.yaml")],
                   env={"HOME": str(tmp_path)})


@pytest.mark.parametrize(("input_text", "word", "where"), [
    ("{mode: off}", "off", "5:13"), ("{mode: NO}", "NO", "5:13"), ("{mode: yes}", "yes", "5:13"),
    ("{mode: On}", "On", "5:13"), ("{mode: Yes}", "Yes", "5:13"),
    ("{a: 1, mode: OFF}", "OFF", "5:19"), ("{opts: {mode: off}}", "off", "5:20"),
    ("{modes: [on, off]}", "on", "5:21"), ('{"mode": off}', "off", "5:13"),
])
def test_a_yaml_11_boolean_word_in_a_case_is_a_located_warning(
        tmp_path: Path, input_text: str, word: str, where: str) -> None:
    done = _run(tmp_path, input_text)
    assert f"warning: {tmp_path / 'cases.yaml'}:{where}:" in done.stderr
    assert f"{word} is read as the boolean" in done.stderr
    assert f'write "{word}"' in done.stderr


@pytest.mark.parametrize("input_text", ['{mode: "off"}', "{mode: false}", "{mode: 'no'}",
                                        "{mode: True}", "{mode: offline}", "{mode: [false]}"])
def test_json_spellings_get_no_warning(tmp_path: Path, input_text: str) -> None:
    assert "warning" not in _run(tmp_path, input_text).stderr
