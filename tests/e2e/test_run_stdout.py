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


@pytest.mark.parametrize(("closed", "prompt"), [("<&-", ()), (">&-", ("-p", "hi")),
                                                 ("<&- >&- 2>&-", ("-p", "hi"))])
def test_started_with_stdio_closed(tmp_path: Path, closed: str,
                                   prompt: tuple[str, ...]) -> None:
    # A closed fd 0 was taken by the next file opened (the event loop's epoll), then read as
    # the turns (a hang) or covered with /dev/null (the loop broke: "internal error"); a
    # closed fd 1 left sys.stdout None (tracebacks, exit 120). Now /dev/null fills the gap.
    import shlex

    from .fakecli import ECHO_SERVER, FAKE_CLI, lines_file

    config = tmp_path / "echo.yaml"
    config.write_text(ECHO_SERVER)
    env = {**os.environ, "FAKE_LINES": str(lines_file(tmp_path, [])), "FAKE_WAIT": "0"}
    argv = [str(TOOLHOST), "run", str(config), "--cli", str(FAKE_CLI), *prompt]
    # the shell closes them; stderr is kept on fd 3 unless it is closed too
    script = f"exec {shlex.join(argv)} 3>&2 {closed}"
    done = subprocess.run(["sh", "-c", script], capture_output=True, text=True, timeout=60,
                          env=env, check=False, start_new_session=True)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr
