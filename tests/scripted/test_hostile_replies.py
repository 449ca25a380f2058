"""Replies a model could give that a tidy scenario never did: a thinking block, a chosen
stop reason, a tool_use whose input is not an object or is cut mid-JSON (``raw_input``); and
the check that every tool_use of a reply got exactly one tool_result."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from toolhost.errors import ConfigError
from toolhost.scripted import ScriptedModel, parse_scenario

HOSTILE = """\
turns:
  - thinking: hmm
    stop_reason: max_tokens
    tool_calls:
      - {tool: mcp__d__a, raw_input: '{"x": 1, "y'}
      - {tool: mcp__d__a, raw_input: '"text"'}
  - thinking: only this
"""
USER = {"role": "user", "content": "go"}


def _events(text: str) -> list[dict[str, Any]]:
    return [json.loads(chunk.split("\n")[1].removeprefix("data: "))
            for chunk in text.strip().split("\n\n")]


def test_thinking_stop_reason_and_raw_input_are_streamed_as_written() -> None:
    with ScriptedModel(parse_scenario(HOSTILE, "s.yaml")) as model:
        r = httpx.post(f"{model.base_url}/v1/messages", timeout=10,
                       json={"stream": True, "messages": [USER]})
        plain = httpx.post(f"{model.base_url}/v1/messages", timeout=10,
                           json={"messages": [USER]}).json()
    events = _events(r.text)
    starts = [e["content_block"]["type"] for e in events if e["type"] == "content_block_start"]
    deltas = [e["delta"] for e in events if e["type"] == "content_block_delta"]
    assert starts == ["thinking", "tool_use", "tool_use"]
    assert deltas[0] == {"type": "thinking_delta", "thinking": "hmm"}
    assert deltas[1]["type"] == "signature_delta"
    assert [d["partial_json"] for d in deltas[2:]] == ['{"x": 1, "y', '"text"']
    assert next(e for e in events if e["type"] == "message_delta")["delta"]["stop_reason"] \
        == "max_tokens"
    # a whole message has no partial JSON: the input as parsed, or the text when it is not
    assert [b.get("input") for b in plain["content"]] == [None, '{"x": 1, "y', "text"]
    assert plain["stop_reason"] == "max_tokens"
    assert all("raw_input" not in b for b in plain["content"])


def test_a_turn_of_thinking_alone_ends_the_turn() -> None:
    turn = parse_scenario(HOSTILE).turns[1]
    assert (turn.thinking, turn.text, turn.tool_calls, turn.stop_reason) == \
        ("only this", None, (), "end_turn")


@pytest.mark.parametrize(("call", "problem"), [
    ("{tool: mcp__d__a, input: {}, raw_input: '{}'}",
     "s.yaml:4: turns[0].tool_calls[0].raw_input: give 'input' or 'raw_input', not both"),
    ("{tool: mcp__d__a, raw_input: 5}",
     "s.yaml:4: turns[0].tool_calls[0].raw_input: must be a string"),
])
def test_raw_input_mistakes_are_located(call: str, problem: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_scenario(f"turns:\n  - text: x\n    tool_calls:\n      - {call}\n", "s.yaml")
    assert [str(p) for p in info.value.problems] == [problem]


def test_an_unknown_stop_reason_is_located_with_a_hint() -> None:
    with pytest.raises(ConfigError) as info:
        parse_scenario("turns:\n  - text: x\n    stop_reason: max_token\n", "s.yaml")
    assert [str(p) for p in info.value.problems] == [
        "s.yaml:3: turns[0].stop_reason: unknown stop reason 'max_token' (did you mean "
        "'max_tokens'?)"]


TWO_CALLS = """\
turns:
  - tool_calls:
      - {tool: mcp__d__a, id: toolu_1}
      - {tool: mcp__d__a, id: toolu_2}
  - text: done
"""
ASSISTANT = {"role": "assistant", "content": [
    {"type": "tool_use", "id": "toolu_1", "name": "mcp__d__a", "input": {}},
    {"type": "tool_use", "id": "toolu_2", "name": "mcp__d__a", "input": {}}]}


def _result(use_id: str) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": use_id, "content": "ok"}


@pytest.mark.parametrize(("ids", "problems"), [
    (["toolu_1", "toolu_2"], []),
    (["toolu_1"], ["s.yaml:2: turn 1: call 'toolu_2' ('mcp__d__a') got 0 tool results; "
                   "exactly one was expected"]),
    (["toolu_1", "toolu_2", "toolu_2"],
     ["s.yaml:2: turn 1: call 'toolu_2' ('mcp__d__a') got 2 tool results; exactly one was "
      "expected"]),
    (["toolu_1", "toolu_2", "toolu_9"],
     ["s.yaml:2: turn 1: 1 tool result(s) for 'toolu_9', a call the model did not make"]),
])
def test_every_tool_use_must_get_exactly_one_result(ids: list[str],
                                                     problems: list[str]) -> None:
    with ScriptedModel(parse_scenario(TWO_CALLS, "s.yaml")) as model:
        for messages in ([USER], [USER, ASSISTANT,
                                  {"role": "user", "content": [_result(i) for i in ids]}]):
            httpx.post(f"{model.base_url}/v1/messages", json={"messages": messages},
                       timeout=10).raise_for_status()
        assert model.problems() == problems


@pytest.mark.parametrize("length", ["-5", "x", str(2**40)])
def test_a_bad_content_length_is_answered_400_at_once(length: str) -> None:
    # -5 was read as "until the client hangs up": the request waited for ever
    import socket

    with ScriptedModel(parse_scenario(TWO_CALLS, "s.yaml")) as model:
        host, port = model.base_url.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=10) as conn:
            conn.sendall(f"POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: {length}"
                         "\r\n\r\n{}".encode())
            chunks = []
            while chunk := conn.recv(4096):  # the server closes the connection after it
                chunks.append(chunk)
            answer = b"".join(chunks).decode()
    assert answer.startswith("HTTP/1.1 400 "), answer
    assert "Content-Length must be 0 to" in answer


@pytest.mark.parametrize("messages", [5, "text", {"role": "user"}, None])
def test_messages_that_are_no_list_are_answered_400(messages: Any) -> None:
    # 5 raised TypeError in the handler: the client got a closed connection, no answer
    with ScriptedModel(parse_scenario(TWO_CALLS, "s.yaml")) as model:
        for path in ("/v1/messages", "/v1/messages/count_tokens"):
            r = httpx.post(f"{model.base_url}{path}", json={"messages": messages}, timeout=10)
            assert (r.status_code, r.json()["error"]["message"]) == \
                (400, "messages must be a list"), path
