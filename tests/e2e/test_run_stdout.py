"""``toolhost run --output json``: stdout is NDJSON only, whatever a tool prints or spawns."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.serve.test_stdout_guard import NOISES, NOISY

from .conftest import TOOLHOST

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("isolation", ["in-process", "process"])
def test_stdout_is_only_json_lines(cli: str, tmp_path: Path, isolation: str,
                                   scenario: Callable[[str], Path]) -> None:
    (tmp_path / "th_noisy.py").write_text(NOISY)
    config = tmp_path / "n.yaml"
    config.write_text("toolhost: 1\nservers:\n  n:\n    tools:\n"
                      f"      noisy: {{python: {{function: 'th_noisy:noisy', "
                      f"isolation: {isolation}}}}}\n"
                      "permissions:\n  default: allow\n")
    script = scenario("""\
turns:
  - tool_calls:
      - {tool: mcp__n__noisy, input: {word: one}}
  - expect_results:
      - {equals: "quiet one"}
    text: All quiet.
""")
    done = subprocess.run([str(TOOLHOST), "run", str(config), "--script", str(script), "-p",
                           "go", "--output", "json"], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "TOOLHOST_CLI": cli}, check=False)
    assert done.returncode == 0, done.stderr
    messages = [json.loads(line) for line in done.stdout.splitlines()]  # NDJSON, every line
    assert messages[-1]["type"] == "result" and messages[-1]["subtype"] == "success"
    for noise in NOISES:
        assert noise not in done.stdout
        assert noise in done.stderr
