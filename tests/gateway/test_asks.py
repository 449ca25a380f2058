"""An upstream's own requests to its client (elicitation, sampling, roots) are answered as
the MCP specification says for a capability the client does not have: -32601, and the
capabilities are not declared (toolhost.gateway.asks)."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

import pytest

from toolhost.gateway.client import UpstreamConnection
from toolhost.gateway.spec import UpstreamSpec

HOSTILE = Path(__file__).with_name("hostile_upstream.py")


def test_elicitation_sampling_and_roots_are_method_not_found(
        caplog: pytest.LogCaptureFixture) -> None:
    spec = UpstreamSpec(command=(sys.executable, str(HOSTILE)),
                        env={"HOSTILE_MODE": "ask"}, connect_timeout=20.0)
    connection = UpstreamConnection(spec, "h")
    try:
        with caplog.at_level(logging.WARNING, logger="toolhost.gateway"):
            first = connection.call_tool("echo", {"text": "x"}, 20)
            again = connection.call_tool("echo", {"text": "y"}, 20)  # still answered
    finally:
        connection.close()
    said = json.loads(first["content"][0]["text"])
    assert said["declared"] == {}  # no elicitation, sampling or roots capability declared
    for method, what in [("elicitation/create", "elicitation"),
                         ("sampling/createMessage", "sampling"), ("roots/list", "roots")]:
        assert said[method]["code"] == -32601, said[method]
        assert f"toolhost does not pass {method} on" in said[method]["message"]
        assert f"the {what} capability was not declared" in said[method]["message"]
    assert json.loads(again["content"][0]["text"])["roots/list"]["code"] == -32601
    warned = [r.getMessage() for r in caplog.records if "asked its client" in r.getMessage()]
    assert len(warned) == 3, warned  # once per kind, not once per request
    assert all(w.startswith("upstream server 'h' asked its client for ") for w in warned)
