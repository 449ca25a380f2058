"""``toolhost serve`` over stdio is initialized once per connection (MCP lifecycle: the
initialization is the first interaction, its version and capabilities hold for the
connection). A second ``initialize`` was answered again: it renegotiated the protocol
version and replaced the client's capabilities under the calls in flight (a client that
declared elicitation lost it to a stray re-initialize). It is refused (-32600, naming the
request) and what the first settled stays. An ``initialize`` that fails leaves the
connection uninitialized: the capabilities it declared are not kept.

(The Claude CLI's control protocol restarts its handshake after a missing ack and is
answered again: that path is ``toolhost run``'s, tested in tests/protocol.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.serve.stdio_peer import StdioPeer, stdio_peer

CONFIG = """\
toolhost: 1
servers:
  trips:
    tools:
      book: {python: "elicit_tools:book"}
permissions:
  default: allow
"""
ELICITING = {"elicitation": {}}


def init(request_id: Any, capabilities: Any, version: Any = "2025-06-18") -> dict[str, Any]:
    params: dict[str, Any] = {"capabilities": capabilities,
                              "clientInfo": {"name": "t", "version": "1"}}
    if version is not None:
        params["protocolVersion"] = version
    return {"jsonrpc": "2.0", "id": request_id, "method": "initialize", "params": params}


def book(peer: StdioPeer, request_id: int) -> dict[str, Any]:
    """What ``book`` (which elicits) sends first: its ``elicitation/create``, or its answer."""
    peer.request(request_id, "tools/call", {"name": "book", "arguments": {"city": "Oslo"}})
    return peer.wait_for(lambda m: m.get("method") == "elicitation/create"
                         or m.get("id") == request_id)


def test_a_connection_is_initialized_once(tmp_path: Path) -> None:
    config = tmp_path / "trips.yaml"
    config.write_text(CONFIG)
    with stdio_peer(config, initialize=None) as peer:
        # a failed initialize: the elicitation it declared is not the connection's
        peer.send(init(1, ELICITING, version=None))
        assert peer.wait_for(1)["error"]["code"] == -32602
        first = book(peer, 2)
        assert first.get("id") == 2 and first["result"]["isError"], first
        assert "did not declare the 'elicitation' capability" in str(first["result"])

        peer.send(init(3, ELICITING))
        assert peer.wait_for(3)["result"]["protocolVersion"] == "2025-06-18"
        peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        for request_id, again in enumerate([init(0, {}), init(0, {}, "2024-11-05"),
                                            init(0, [], version=None)], start=4):
            again["id"] = request_id
            peer.send(again)
            refused = peer.wait_for(request_id)
            assert refused["error"]["code"] == -32600, refused
            assert f"initialize (id {request_id})" in refused["error"]["message"]
            assert "initialized once" in refused["error"]["message"]
        # the first initialize's capabilities hold: the tool's question reaches the client
        asked = book(peer, 10)
        assert asked.get("method") == "elicitation/create", asked
        peer.send({"jsonrpc": "2.0", "id": asked["id"], "result": {"action": "decline"}})
        assert peer.wait_for(10)["result"]["content"][0]["text"] == "not booked (decline)"
        # every request was answered once: no other answer came (log lines may)
        peer.request(11, "ping")
        peer.wait_for(11)
        rest = [*peer.seen, *(peer.messages.get() for _ in range(peer.messages.qsize()))]
        assert [m for m in rest if "id" in m] == []
