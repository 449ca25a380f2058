"""The scripted model over real HTTP: streamed and plain answers, checks, retries, 404s."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from toolhost.scripted import ScriptedModel, parse_scenario

SCENARIO = """\
turns:
  - tool_calls:
      - {tool: mcp__demo__add, input: {a: 6, b: 7}}
      - {tool: mcp__demo__fail, input: {}}
  - expect_results:
      - {equals: "13"}
      - {is_error: true, contains: boom}
    expect_tools: {includes: [mcp__demo__add]}
    text: "6 + 7 = 13"
"""
USER = {"role": "user", "content": "add"}
TOOLS = [{"name": "mcp__demo__add"}, {"name": "mcp__demo__fail"}]


@pytest.fixture
def model() -> Iterator[ScriptedModel]:
    with ScriptedModel(parse_scenario(SCENARIO, "s.yaml")) as m:
        yield m


def _events(text: str) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for chunk in text.strip().split("\n\n"):
        event, data = chunk.split("\n")
        out.append((event.removeprefix("event: "), json.loads(data.removeprefix("data: "))))
    return out


def _turn1_assistant() -> dict[str, Any]:
    return {"role": "assistant", "content": [
        {"type": "tool_use", "id": "toolu_scripted_01_1", "name": "mcp__demo__add",
         "input": {"a": 6, "b": 7}},
        {"type": "tool_use", "id": "toolu_scripted_01_2", "name": "mcp__demo__fail",
         "input": {}}]}


def _results(add: str, fail_error: bool = True) -> dict[str, Any]:
    return {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_scripted_01_1",
         "content": [{"type": "text", "text": add}]},
        {"type": "tool_result", "tool_use_id": "toolu_scripted_01_2", "is_error": fail_error,
         "content": "boom\n\n<system-reminder>\nnoise\n</system-reminder>"}]}


def test_streamed_tool_calls_then_text(model: ScriptedModel) -> None:
    with httpx.Client(base_url=model.base_url) as client:
        r = client.post("/v1/messages?beta=true", json={
            "model": "m1", "stream": True, "messages": [USER], "tools": TOOLS})
        assert r.headers["content-type"] == "text/event-stream"
        events = _events(r.text)
        assert [e for e, _ in events] == [
            "message_start",
            "content_block_start", "content_block_delta", "content_block_stop",
            "content_block_start", "content_block_delta", "content_block_stop",
            "message_delta", "message_stop"]
        assert events[0][1]["message"]["model"] == "m1"
        assert events[1][1]["content_block"] == {
            "type": "tool_use", "id": "toolu_scripted_01_1", "name": "mcp__demo__add",
            "input": {}}
        assert json.loads(events[2][1]["delta"]["partial_json"]) == {"a": 6, "b": 7}
        assert events[7][1]["delta"]["stop_reason"] == "tool_use"

        r = client.post("/v1/messages", json={
            "model": "m1", "messages": [USER, _turn1_assistant(), _results("13")],
            "tools": TOOLS})
        body = r.json()
        assert body["content"] == [{"type": "text", "text": "6 + 7 = 13"}]
        assert body["stop_reason"] == "end_turn"
    assert model.problems() == []
    assert [q["turn"] for q in model.requests] == [1, 2]


def test_failed_checks_name_turn_expected_and_received(model: ScriptedModel) -> None:
    with httpx.Client(base_url=model.base_url) as client:
        for _ in range(2):  # a retried request must not double the failures
            client.post("/v1/messages", json={
                "messages": [USER, _turn1_assistant(), _results("14", fail_error=False)],
                "tools": TOOLS[1:]})
    assert model.problems() == [
        "s.yaml:5: turn 2: expected the model to be offered tool 'mcp__demo__add'; it was "
        "offered 1 tools: mcp__demo__fail",
        "s.yaml:6: turn 2, result of mcp__demo__add (call toolu_scripted_01_1): expected "
        "equals '13', received '14'",
        "s.yaml:7: turn 2, result of mcp__demo__fail (call toolu_scripted_01_2): expected "
        "is_error true, received false with 'boom'",
        "s.yaml:2: turn 1 was never played (1 of 2 turns were)",
    ]


def test_exhausted_scenario_stops_and_fails(model: ScriptedModel) -> None:
    final = {"role": "assistant", "content": [{"type": "text", "text": "6 + 7 = 13"}]}
    with httpx.Client(base_url=model.base_url) as client:
        r = client.post("/v1/messages", json={
            "messages": [USER, _turn1_assistant(), _results("13"), final,
                         {"role": "user", "content": "more"}]})
    assert r.json()["stop_reason"] == "end_turn"
    assert "no turn 3" in r.json()["content"][0]["text"]
    assert model.problems()[0] == (
        "s.yaml: the CLI asked for model turn 3, but the scenario has only 2 (turn 2 at line 5 "
        "ends with text)")


def test_count_tokens_unknown_routes_and_bad_bodies(model: ScriptedModel) -> None:
    with httpx.Client(base_url=model.base_url) as client:
        r = client.post("/v1/messages/count_tokens", json={"messages": [USER]})
        assert r.status_code == 200 and r.json()["input_tokens"] >= 1
        r = client.get("/v1/models")
        assert r.status_code == 404 and r.json()["error"]["type"] == "not_found_error"
        r = client.post("/v1/messages", content=b"[1, 2")
        assert r.status_code == 400
    assert {"method": "GET", "path": "/v1/models", "unknown": True} in model.requests


def test_a_delay_the_cli_hangs_up_on_ends_and_is_not_replayed(
        capfd: pytest.CaptureFixture[str]) -> None:
    # red team runner5 R5: after an interrupt (the CLI aborts the request) the thread slept
    # out the whole delay, then printed a traceback (connection reset) on the terminal, and
    # the next prompt waited for the whole delay once more
    scenario = parse_scenario("turns:\n  - text: slow\n    delay: 600\n", "d.yaml")
    body = {"model": "m", "max_tokens": 10, "messages": [USER]}
    with ScriptedModel(scenario) as model:
        with httpx.Client(base_url=model.base_url, timeout=0.3) as client, \
                pytest.raises(httpx.ReadTimeout):
            client.post("/v1/messages", json=body)  # hangs up, as an interrupt does
        abandoned = {"method": "POST", "path": "/v1/messages", "turn": 1, "abandoned": True}
        for _ in range(600):  # the hang-up is seen at once; poll for it (at most ~30 s)
            if abandoned in model.requests:
                break
            time.sleep(0.05)
        assert abandoned in model.requests
        with httpx.Client(base_url=model.base_url, timeout=30) as client:
            again = client.post("/v1/messages", json=body)
        assert again.status_code == 200
        assert again.json()["content"] == [{"type": "text", "text": "slow"}]
    assert "Traceback" not in capfd.readouterr().err
