"""A corpus of hostile JSON-RPC messages, shared by the stdio and HTTP fault tests.

Each entry is (name, raw message bytes without the newline). The config the tests serve
(``write_config``) has an ``echo`` tool, a failing one and a hanging one; the servers run
with ``SERVE_LIMITS`` so that the size faults stay quick.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.modern import modern_meta

MIB = 1024 * 1024
SERVE_LIMITS = ["--max-message", "4MiB", "--max-argument", "1MiB"]
MODERN = modern_meta()


def write_config(path: Path) -> Path:
    path.write_text("\n".join([
        "toolhost: 1", "servers:", "  bb:", "    tools:",
        "      echo: {python: 'blackbox_tools:echo'}",
        "      summarize: {python: 'blackbox_tools:summarize'}",
        "      boom: {python: 'blackbox_tools:boom'}",
        "      hang: {python: 'blackbox_tools:hang', timeout: 30s}",
        "      watched: {python: 'blackbox_tools:watched', timeout: 60s}",
        "permissions:", "  default: allow"]) + "\n")
    return path


def msg(obj: Any) -> bytes:
    return json.dumps(obj).encode()


def call(name: Any, arguments: Any, request_id: Any = 1, **extra: Any) -> bytes:
    return msg({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                "params": {"name": name, "arguments": arguments}, **extra})


def honest(n: int) -> bytes:
    return call("echo", {"text": f"honest-{n}"}, request_id=f"honest-{n}")


def deep_arguments(depth: int) -> bytes:
    inner = "[" * depth + "]" * depth
    return (b'{"jsonrpc":"2.0","id":"deep","method":"tools/call","params":{"name":"echo",'
            b'"arguments":{"text":' + inner.encode() + b"}}}")


FAULTS: list[tuple[str, bytes]] = [
    ("not json", b"this is not json"),
    ("truncated object", b'{"jsonrpc": "2.0", "id": 1, "method": '),
    ("lone bracket", b"["),
    ("empty batch", b"[]"),
    ("batch of requests", b"[" + honest(900) + b"," + honest(901) + b"]"),
    ("a string", b'"ping"'),
    ("a number", b"42"),
    ("null", b"null"),
    ("deep arrays", b"[" * 100_000 + b"]" * 100_000),
    ("deep objects", b'{"a":' * 50_000 + b"1" + b"}" * 50_000),
    ("deep arguments", deep_arguments(5000)),
    ("a million empty objects", b'{"jsonrpc":"2.0","id":"m","method":"tools/call","params":'
                                b'{"name":"echo","arguments":{"text":[' + b"{}," * 1_200_000
                                + b'{}]}}}'),
    ("id object", msg({"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"})),
    ("id list", msg({"jsonrpc": "2.0", "id": [1, 2], "method": "tools/list"})),
    ("id true", msg({"jsonrpc": "2.0", "id": True, "method": "ping"})),
    ("id null", msg({"jsonrpc": "2.0", "id": None, "method": "ping"})),
    ("id float", msg({"jsonrpc": "2.0", "id": 1.5, "method": "ping"})),
    ("id overflow", b'{"jsonrpc": "2.0", "id": 1e999, "method": "ping"}'),
    ("id lone surrogate", b'{"jsonrpc": "2.0", "id": "\\ud800", "method": "ping"}'),
    ("id huge string", msg({"jsonrpc": "2.0", "id": "i" * 100_000, "method": "ping"})),
    ("id 5000 digits", b'{"jsonrpc": "2.0", "id": ' + b"7" * 5000 + b', "method": "ping"}'),
    ("method number", msg({"jsonrpc": "2.0", "id": 2, "method": 5})),
    ("method null", msg({"jsonrpc": "2.0", "id": 2, "method": None})),
    ("method object", msg({"jsonrpc": "2.0", "id": {"x": 1}, "method": {"x": 1}})),
    ("no method", msg({"jsonrpc": "2.0", "id": 3})),
    ("huge method", msg({"jsonrpc": "2.0", "id": 2, "method": "m" * 1_000_000})),
    ("jsonrpc 1.0", msg({"jsonrpc": "1.0", "id": 2, "method": "ping"})),
    ("params list", msg({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": [1]})),
    ("params string", msg({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": "x"})),
    ("name number", call(5, {})),
    ("name missing", msg({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {}})),
    ("name huge", call("n" * 1_000_000, {})),
    ("name lone surrogate", b'{"jsonrpc":"2.0","id":2,"method":"tools/call",'
                            b'"params":{"name":"\\udfff","arguments":{}}}'),
    ("arguments list", call("echo", [1, 2])),
    ("arguments string", call("echo", "text")),
    ("argument wrong type, huge", call("echo", {"text": ["a" * 900_000]})),
    ("argument over the limit", call("echo", {"text": "b" * (2 * MIB)})),
    ("argument NaN", b'{"jsonrpc":"2.0","id":2,"method":"tools/call",'
                     b'"params":{"name":"echo","arguments":{"text":NaN}}}'),
    ("many wrong items", call("summarize", {"values": ["v"] * 100_000})),
    ("tool raises", call("boom", {"reason": "r" * 10_000})),
    ("initialize version number", msg({"jsonrpc": "2.0", "id": 4, "method": "initialize",
                                       "params": {"protocolVersion": 2025}})),
    ("modern version object", msg({"jsonrpc": "2.0", "id": 4, "method": "ping", "params": {
        "_meta": {"io.modelcontextprotocol/protocolVersion": {"v": "x" * 10_000}}}})),
    ("cursor number", msg({"jsonrpc": "2.0", "id": 5, "method": "tools/list",
                           "params": {"cursor": 12}})),
    ("cursor huge", msg({"jsonrpc": "2.0", "id": 5, "method": "tools/list",
                         "params": {"cursor": "c" * 500_000}})),
    ("progress token object", msg({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {
        "name": "echo", "arguments": {"text": "t"}, "_meta": {"progressToken": {"a": 1}}}})),
    ("cancel unhashable", msg({"jsonrpc": "2.0", "method": "notifications/cancelled",
                               "params": {"requestId": {"a": [1]}}})),
    ("cancel unknown", msg({"jsonrpc": "2.0", "method": "notifications/cancelled",
                            "params": {"requestId": "nobody"}})),
    ("notification with id", msg({"jsonrpc": "2.0", "id": 7,
                                  "method": "notifications/initialized"})),
    ("response sent to the server", msg({"jsonrpc": "2.0", "id": 8, "result": {}})),
    ("error sent to the server", msg({"jsonrpc": "2.0", "id": 8, "error": {"code": 1}})),
    ("invalid utf-8", b'{"jsonrpc":"2.0","id":9,"method":"\xff\xfe"}'),
    ("nul bytes", b'{"jsonrpc":"2.0",\x00"id":9}'),
    ("infinity literal", b'{"jsonrpc":"2.0","id":9,"method":"ping","params":{"x":Infinity}}'),
    ("duplicate keys", b'{"jsonrpc":"2.0","id":9,"id":{"a":1},"method":"ping"}'),
    ("unknown method", msg({"jsonrpc": "2.0", "id": 10, "method": "resources/list"})),
]
