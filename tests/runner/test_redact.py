"""RedactingRenderer: no secret reaches any renderer, whatever carries it."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from toolhost.permissions.decision import Decision
from toolhost.redaction import active, remember
from toolhost.runner.redact import RedactingRenderer, redact_value
from toolhost.runner.render import JsonRenderer, TextRenderer

SECRET = "s3cr3t-value"


def redact(text: str) -> str:
    return text.replace(SECRET, "***")


MESSAGES: list[dict[str, Any]] = [
    {"type": "assistant", "message": {"content": [
        {"type": "text", "text": f"the key is {SECRET}"},
        {"type": "tool_use", "id": "t1", "name": "mcp__x__y",
         "input": {"key": SECRET, SECRET: [1, {"deep": SECRET}]}}]}},
    {"type": "user", "message": {"content": [
        {"type": "tool_result", "tool_use_id": "t1", "content": [
            {"type": "text", "text": f"echo {SECRET}"}]}]}},
    {"type": "result", "subtype": "success", "num_turns": 1, "result": SECRET},
]


def test_text_renderer_never_sees_a_secret() -> None:
    out, err = io.StringIO(), io.StringIO()
    r = RedactingRenderer(TextRenderer(out, err, color=False), redact)
    r.status(f"starting with {SECRET}")
    for message in MESSAGES:
        r.message(message)
    r.decision("mcp__x__y", Decision("deny", f"not with {SECRET}", rule=f"deny {SECRET}"))
    r.close()
    text = out.getvalue() + err.getvalue()
    assert SECRET not in text
    assert 'mcp__x__y(key="***", ***=[1, {"deep": "***"}])' in text
    assert "← mcp__x__y: echo ***" in text
    assert "denied by deny ***: not with ***" in text


def test_json_renderer_gets_the_same_structure_redacted() -> None:
    out = io.StringIO()
    r = RedactingRenderer(JsonRenderer(out), redact)
    for message in MESSAGES:
        r.message(message)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert lines == [redact_value(m, redact) for m in MESSAGES]
    assert SECRET not in out.getvalue()
    assert lines[0]["message"]["content"][1]["input"] == {"key": "***", "***": [1, {"deep": "***"}]}


def test_values_that_are_not_strings_pass_unchanged() -> None:
    assert redact_value({"n": 1, "f": 1.5, "b": True, "z": None}, redact) == {
        "n": 1, "f": 1.5, "b": True, "z": None}


def _bash_result(text: str, as_list: bool) -> dict[str, Any]:
    content: Any = [{"type": "text", "text": text}] if as_list else text
    return {"type": "user", "message": {"content": [
        {"type": "tool_result", "tool_use_id": "t", "content": content}]}}


@pytest.mark.parametrize("as_list", [False, True])
def test_a_secret_cut_between_two_tool_results_is_hidden(as_list: bool) -> None:
    # two Bash calls, each printing half of a secret too short to be known by (secrets24)
    secret = "s3cr3tT0k3nX"
    remember({secret})  # (the conftest restores the process's secrets after each test)
    out = io.StringIO()
    r = RedactingRenderer(JsonRenderer(out), active().redact)
    for half in (secret[:6], secret[6:], "done"):
        r.message(_bash_result(half, as_list))
    shown = [json.loads(line)["message"]["content"][0]["content"] for line in
             out.getvalue().splitlines()]
    texts = [part[0]["text"] if as_list else part for part in shown]
    assert texts == [secret[:6], "***", "done"]
