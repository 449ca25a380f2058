"""A JSON-RPC batch over stdio (MCP 2025-06-18 removed batching) is refused, and each request
in it hears so under its own id: one error with id null answered none of them, and a client
that sent a batch waited for each of its requests forever. A line that holds no request
(an empty batch, notifications, garbage) gets that one error with id null."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.serve.stdio_peer import stdio_peer

CONFIG = """\
toolhost: 1
servers:
  trips:
    tools:
      book: {python: "elicit_tools:book"}
"""


def ping(request_id: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "ping"}


NOTE = {"jsonrpc": "2.0", "method": "notifications/initialized"}
BATCHES: list[tuple[list[Any], list[Any]]] = [  # (batch, the ids its errors carry)
    ([ping(1), ping("two"), NOTE, {"jsonrpc": "2.0", "id": 3, "result": {}}], [1, "two"]),
    ([ping(4)], [4]),
    ([{"jsonrpc": "2.0", "id": None, "method": "ping"}, ping(5)], [5]),
    ([], [None]),
    ([NOTE], [None]),
    ([1, "x", [ping(6)]], [None]),
]


def test_each_request_of_a_batch_is_refused_under_its_own_id(tmp_path: Path) -> None:
    config = tmp_path / "trips.yaml"
    config.write_text(CONFIG)
    with stdio_peer(config) as peer:
        for n, (batch, ids) in enumerate(BATCHES):
            peer.send(json.dumps(batch).encode())
            peer.request(f"after-{n}", "ping")  # answered after the batch's errors
            peer.wait_for(f"after-{n}")
            got = [*peer.seen]
            peer.seen.clear()
            assert [m["id"] for m in got] == ids, (batch, got)
            for answer in got:
                assert answer["error"]["code"] == -32600
                assert "batches are not supported" in answer["error"]["message"]
