"""``python -m toolhost.scripted``: prints its URL, serves, reports the verdict on SIGTERM."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

SCENARIO = """\
turns:
  - text: Hello from the script.
  - text: Never asked for.
"""


def start(path: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "toolhost.scripted", str(path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_serves_until_stopped_and_reports_turns_never_played(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(SCENARIO)
    proc = start(path)
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")
        body = json.dumps({"model": "m", "max_tokens": 10,
                           "messages": [{"role": "user", "content": "hi"}]}).encode()
        request = urllib.request.Request(url + "/v1/messages", data=body,
                                         headers={"content-type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            reply = json.load(response)
        assert reply["content"] == [{"type": "text", "text": "Hello from the script."}]
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 1
    assert "ANTHROPIC_BASE_URL=" + url in err
    assert f"scenario check failed: {path}:3: turn 2 was never played (1 of 2 turns were)" in err


def test_a_bad_scenario_is_an_error_naming_the_place(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("turns:\n  - tool_calls: nope\n")
    done = subprocess.run([sys.executable, "-m", "toolhost.scripted", str(path)],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2
    assert done.stdout == ""
    assert f"{path}:2" in done.stderr and "turns[0].tool_calls" in done.stderr


@pytest.mark.parametrize("port", ["70000", "-1", "http"])
def test_a_port_out_of_range_is_a_usage_error_not_a_traceback(tmp_path: Path,
                                                              port: str) -> None:
    path = tmp_path / "s.yaml"
    path.write_text("turns:\n  - text: hi\n")
    done = subprocess.run([sys.executable, "-m", "toolhost.scripted", str(path), "--port", port],
                          capture_output=True, text=True, timeout=30, check=False)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.splitlines()[-1].endswith(
        f"argument --port: {port!r} is not a port (0 to 65535; 0: a free one)")
