"""A 2026-07-28 ``requestState`` is client data: however deep it nests, ``toolhost serve``
(a real process) answers -32602 naming the problem, within ``--max-depth``, logs no error,
and serves the next request."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest

from tests.modern import modern_meta

from .stdio_peer import stdio_peer

MODERN = modern_meta()


def state(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def call(request_state: str) -> dict[str, Any]:
    return {"name": "add", "arguments": {"a": 1, "b": 2}, "_meta": MODERN,
            "requestState": request_state}


@pytest.mark.parametrize("text, words", [
    ("[" * 190_000, "190,000 levels deep; the limit is 64"),
    ("[" * 100 + "]" * 100, "100 levels deep; the limit is 64"),
    ('{"a":' * 70 + "{}" + "}" * 70, "71 levels deep; the limit is 64"),
    ('{"k":' + "[" * 65 + "]" * 65 + "}", "66 levels deep"),
])
def test_a_deep_request_state_is_invalid_params(tmp_path: Path, text: str,
                                                words: str) -> None:
    config = tmp_path / "calc.yaml"
    config.write_text("toolhost: 1\nservers:\n  calc:\n    tools:\n"
                      "      add: {python: 'toolhost.demo:add'}\npermissions:\n"
                      "  default: allow\n")
    with stdio_peer(config, "--max-depth", "64", initialize=None) as peer:
        answer = peer.ask(1, "tools/call", call(state(text)))
        assert answer["error"]["code"] == -32602, answer
        message = answer["error"]["message"]
        assert "requestState" in message and words in message
        shallow = peer.ask(2, "tools/call", call(state("[[1]]")))
        assert shallow["error"]["code"] == -32602
        assert "must map request keys" in shallow["error"]["message"]
        fine = peer.ask(3, "tools/call", call(state("{}")))
        assert fine["result"]["content"][0]["text"] == "3"
    log = peer.log()
    assert "ERROR" not in log and "RecursionError" not in log
