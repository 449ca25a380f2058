"""A CLI that floods toolhost with conversation messages never stops the control session:
every control request behind them is answered."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .fakecli import ECHO_SERVER, run_fake

pytestmark = pytest.mark.e2e

CONFIG = ECHO_SERVER + """\
permissions:
  default: deny
  allow: [mcp__s__echo]
"""


def _result(n: int) -> dict[str, object]:
    return {"type": "result", "subtype": "success", "is_error": False, "num_turns": 1,
            "duration_ms": 1, "total_cost_usd": 0, "result": f"r{n}", "session_id": "s"}


@pytest.mark.parametrize("results", [150, 2500])
def test_requests_after_many_unclaimed_results_are_answered(tmp_path: Path,
                                                            results: int) -> None:
    config = tmp_path / "c.yaml"
    config.write_text(CONFIG)
    lines: list[object] = [_result(n) for n in range(results)]
    lines += [{"type": "control_request", "request_id": "after", "request": {
        "subtype": "can_use_tool", "tool_name": "mcp__s__echo", "input": {"text": "z"}}},
        {"type": "control_request", "request_id": "denied", "request": {
            "subtype": "can_use_tool", "tool_name": "mcp__s__other", "input": {}}}]
    done, log = run_fake(tmp_path, config, lines, "--output", "json", wait=30, turns=0,
                         until='"request_id":"denied"')
    answers = {}
    for line in log.splitlines():
        if line.startswith("IN ") and '"control_response"' in line:
            response = json.loads(line[3:])["response"]
            answers[response["request_id"]] = response["response"]["behavior"]
    assert answers == {"after": "allow", "denied": "deny"}, (done.stderr, log[-2000:])
    assert "turn results more than turns were sent" in done.stderr
