"""``toolhost validate`` warns about a declared resource that cannot be read as written: a
``file`` or ``directory`` that is not there (it passed without a word, then every read
failed), and a URI template with two variables side by side (where one ends is a guess)."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolhost.cli import main

CONFIG = """\
toolhost: 1
servers:
  kb:
    resources:
      here: {file: here.md}
      gone: {file: gone.md}
      docs: {directory: docs/, uri: "docs://kb"}
      nodocs: {directory: nodocs/, uri: "nodocs://kb"}
      glued: {uri: "v://{a}{b}", command: [echo, "{{ a }}", "{{ b }}"]}
      apart: {uri: "w://{a}-{b}/{+c}", command: [echo, "{{ a }}", "{{ b }}", "{{ c }}"]}
"""


def test_a_missing_path_or_glued_variables_are_warned_about(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "here.md").write_text("x")
    (tmp_path / "docs").mkdir()
    config = tmp_path / "kb.yaml"
    config.write_text(CONFIG)
    assert main(["validate", str(config)]) == 0  # warnings, not errors
    warned = [line for line in capsys.readouterr().err.splitlines() if "warning:" in line]
    assert len(warned) == 3, warned
    assert "kb.yaml:6:" in warned[0] and "servers.kb.resources.gone.file" in warned[0]
    assert f"{tmp_path / 'gone.md'} does not exist" in warned[0]
    assert "servers.kb.resources.nodocs.directory" in warned[1]
    assert "lists nothing" in warned[1]
    assert "servers.kb.resources.glued.uri" in warned[2] and "side by side" in warned[2]
    assert not any("'here'" in w or "'docs'" in w or "'apart'" in w for w in warned)
