"""A CLI that says it runs in a permission mode that asks nobody is stopped at once, whenever
it says so: in a ``system/status`` message during the session (the CLI sends one when its
mode changes) or in any ``init`` (it repeats one every turn), and for a mode that is not a
mode at all (a list, a number). Before, only the first ``init`` was checked, and a mode
that could not be looked up (a list) let the session go on: the ``can_use_tool`` after it
was answered allow."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .fakecli import ECHO_SERVER, run_fake

pytestmark = pytest.mark.e2e

CONFIG = ECHO_SERVER + """\
permissions:
  default: allow
  audit_log: AUDIT
"""

ASK = {"type": "control_request", "request_id": "after", "request": {
    "subtype": "can_use_tool", "tool_name": "mcp__s__echo", "input": {"text": "x"}}}


def status(mode: Any) -> dict[str, Any]:
    return {"type": "system", "subtype": "status", "status": None, "permissionMode": mode,
            "uuid": "u", "session_id": "s"}


def init(mode: Any) -> dict[str, Any]:
    return {"type": "system", "subtype": "init", "session_id": "s", "tools": [],
            "mcp_servers": [], "model": "fake", "permissionMode": mode,
            "claude_code_version": "2.1.330"}


def allowed(log: str) -> bool:
    for line in log.splitlines():
        if line.startswith("IN ") and '"control_response"' in line:
            response = json.loads(line[3:])["response"]
            if response.get("request_id") == "after":
                return bool(response.get("response", {}).get("behavior") == "allow")
    return False


STOPPED = [status("bypassPermissions"), status("acceptEdits"), status("auto"),
           status("yolo"), status(["default"]), status({"mode": "default"}), status(5),
           init("bypassPermissions"), init(["default"]), init(None)]


@pytest.mark.parametrize("said", STOPPED, ids=[
    f"{m['subtype']}-{json.dumps(m['permissionMode'])}" for m in STOPPED])
def test_a_mode_that_asks_nobody_stops_the_cli(tmp_path: Path, said: dict[str, Any]) -> None:
    config = tmp_path / "c.yaml"
    config.write_text(CONFIG.replace("AUDIT", str(tmp_path / "audit.jsonl")))
    done, log = run_fake(tmp_path, config, [said, "#SLEEP 0.5", ASK], wait=2)
    assert done.returncode == 1, done.stdout + done.stderr
    assert not allowed(log)
    errors = [line for line in done.stderr.splitlines() if line.startswith("toolhost: error")]
    assert len(errors) == 1 and "permission mode" in errors[0], done.stderr
    assert "Traceback" not in done.stderr


GOES_ON = [status("default"), status("plan"), status("dontAsk"), status("manual"),
           status(None), init("default"), init("plan")]


@pytest.mark.parametrize("said", GOES_ON, ids=[
    f"{m['subtype']}-{json.dumps(m['permissionMode'])}" for m in GOES_ON])
def test_a_mode_that_asks_goes_on(tmp_path: Path, said: dict[str, Any]) -> None:
    config = tmp_path / "c.yaml"
    config.write_text(CONFIG.replace("AUDIT", str(tmp_path / "audit.jsonl")))
    done, log = run_fake(tmp_path, config, [said, ASK], wait=1)
    assert done.returncode == 0, done.stdout + done.stderr
    assert allowed(log)
