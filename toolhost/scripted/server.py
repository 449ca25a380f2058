"""A local Messages API on 127.0.0.1 that plays a scenario: the scripted model.

    with ScriptedModel(load_scenario("demo.yaml")) as model:
        env = {"ANTHROPIC_BASE_URL": model.base_url, ...}
        ...                      # run the Claude CLI against it
    model.problems()             # failed assertions and unplayed turns; [] when all went well

It answers ``POST /v1/messages`` (streamed as server-sent events when the request says
``stream: true``, as one JSON message otherwise) and ``POST /v1/messages/count_tokens``.
Anything else is answered 404 and logged, so a newer CLI asking for something new shows up
in the log instead of hanging.

A turn's ``delay`` ends early when the CLI hangs up (an interrupt aborts the request): the
answer is not sent, and when the CLI asks for that turn again (the next prompt after the
interrupt) it is answered at once, not after the whole delay once more. A client that went
away is logged, never a traceback on the person's terminal.
"""

from __future__ import annotations

import itertools
import json
import logging
import select
import socket
import threading
import time
from collections.abc import Iterator, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit

from toolhost.scripted.player import Player, Reply
from toolhost.scripted.scenario import Scenario

__all__ = ["ScriptedModel", "sse_events"]

log = logging.getLogger("toolhost.scripted")
DEFAULT_MODEL = "claude-scripted"
MAX_BODY = 256 * 1024 * 1024  # a request body: a long session's history, not a hostile stream


def sse_events(reply: Reply, *, message_id: str, model: str,
               input_tokens: int) -> Iterator[tuple[str, dict[str, Any]]]:
    """The (event, data) pairs of one streamed assistant message."""
    yield "message_start", {"type": "message_start", "message": {
        "id": message_id, "type": "message", "role": "assistant", "model": model,
        "content": [], "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": input_tokens, "output_tokens": 1}}}
    for index, block in enumerate(reply.content):
        start, deltas = _streamed(block)
        yield "content_block_start", {"type": "content_block_start", "index": index,
                                      "content_block": start}
        for delta in deltas:
            yield "content_block_delta", {"type": "content_block_delta", "index": index,
                                          "delta": delta}
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    yield "message_delta", {"type": "message_delta",
                            "delta": {"stop_reason": reply.stop_reason, "stop_sequence": None},
                            "usage": {"output_tokens": _output_tokens(reply)}}
    yield "message_stop", {"type": "message_stop"}


def _streamed(block: Mapping[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A content block as the API streams it: its empty start, then its deltas."""
    kind = block.get("type")
    if kind == "tool_use":
        raw = block.get("raw_input")
        return ({"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}},
                [{"type": "input_json_delta", "partial_json": json.dumps(block["input"])
                  if raw is None else raw}])
    if kind == "thinking":
        return ({"type": "thinking", "thinking": "", "signature": ""},
                [{"type": "thinking_delta", "thinking": block.get("thinking", "")},
                 {"type": "signature_delta", "signature": block.get("signature", "")}])
    if kind == "redacted_thinking":
        return dict(block), []
    return ({"type": "text", "text": ""},
            [{"type": "text_delta", "text": block.get("text", "")}])


def _output_tokens(reply: Reply) -> int:
    return max(1, len(json.dumps(list(reply.content))) // 4)


class ScriptedModel:
    """The scripted Messages API, served from a background thread on a free loopback port."""

    def __init__(self, scenario: Scenario, *, host: str = "127.0.0.1", port: int = 0) -> None:
        self.player = Player(scenario)
        self.requests: list[dict[str, Any]] = []  # method, path, turn: what the CLI asked
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._abandoned: set[int] = set()  # turns whose delayed answer the CLI hung up on
        self._server = _Server((host, port), _handler_for(self))
        self._server.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> ScriptedModel:
        if self._thread is None:
            self._thread = threading.Thread(target=self._server.serve_forever,
                                            kwargs={"poll_interval": 0.1},
                                            name="toolhost-scripted-model", daemon=True)
            self._thread.start()
        return self

    def close(self) -> None:
        if self._thread is not None:
            self._server.shutdown()
            self._thread.join()
            self._thread = None
        self._server.server_close()

    def __enter__(self) -> ScriptedModel:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def problems(self) -> list[str]:
        """Failed assertions and turns never played; empty when the scenario passed."""
        return self.player.problems()

    # -- called from the handler threads ------------------------------------------------
    def _record(self, entry: dict[str, Any]) -> None:
        with self._lock:
            self.requests.append(entry)

    def _next_id(self) -> str:
        with self._lock:
            return f"msg_scripted_{next(self._ids):04d}"

    def _delay_of(self, turn: int, delay: float) -> float:
        with self._lock:
            return 0.0 if turn in self._abandoned else delay

    def _abandon(self, turn: int) -> None:
        with self._lock:
            self._abandoned.add(turn)


class _Server(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        # socketserver prints a traceback to stderr, which is the person's terminal under
        # `toolhost run --script`; a client hanging up mid-answer is routine (an interrupt)
        log.debug("scripted model: a request from %s failed", client_address, exc_info=True)


def _hung_up(conn: socket.socket, seconds: float) -> bool:
    """Wait ``seconds``; True as soon as the client closes the connection."""
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        readable, _, _ = select.select([conn], [], [], min(left, 0.1))
        if not readable:
            continue
        try:
            if not conn.recv(1, socket.MSG_PEEK):
                return True
        except OSError:
            return True
        time.sleep(min(left, 0.05))  # bytes of a next request: the client is still there
    return False


def _handler_for(model: ScriptedModel) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "toolhost-scripted/1"

        def log_message(self, format: str, *args: Any) -> None:
            log.debug("%s " + format, self.address_string(), *args)

        def do_POST(self) -> None:
            path = urlsplit(self.path).path.rstrip("/")
            body = self._read_json()
            if body is None:
                return
            if path in ("/v1/messages", "/v1/messages/count_tokens") \
                    and not isinstance(body.get("messages", []), list):
                self._json(400, {"type": "error", "error": {
                    "type": "invalid_request_error", "message": "messages must be a list"}})
            elif path == "/v1/messages":
                self._messages(body)
            elif path == "/v1/messages/count_tokens":
                model._record({"method": "POST", "path": path})
                self._json(200, {"input_tokens": _estimate(body)})
            else:
                self._unknown()

        def do_GET(self) -> None:
            self._unknown()

        def do_HEAD(self) -> None:
            self._unknown()

        def _unknown(self) -> None:
            model._record({"method": self.command, "path": self.path, "unknown": True})
            log.warning("scripted model: unexpected %s %s (answered 404)", self.command,
                        self.path)
            self._json(404, {"type": "error", "error": {
                "type": "not_found_error", "message": f"no route {self.command} {self.path}"}})

        def _read_json(self) -> Mapping[str, Any] | None:
            try:
                length = int(self.headers.get("Content-Length") or 0)
            except ValueError:
                length = -1
            if not 0 <= length <= MAX_BODY:  # read(-1) would wait for the client to hang up
                self.close_connection = True
                self._json(400, {"type": "error", "error": {
                    "type": "invalid_request_error",
                    "message": f"Content-Length must be 0 to {MAX_BODY} bytes"}})
                return None
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = None
            if not isinstance(body, Mapping):
                self._json(400, {"type": "error", "error": {
                    "type": "invalid_request_error", "message": "body must be a JSON object"}})
                return None
            return body

        def _messages(self, body: Mapping[str, Any]) -> None:
            reply = model.player.respond(body)
            delay = model._delay_of(reply.turn, reply.delay)
            # this request's thread only: a slow model; a hang-up ends it (module docstring)
            if delay and _hung_up(self.connection, delay):
                model._abandon(reply.turn)
                model._record({"method": "POST", "path": "/v1/messages", "turn": reply.turn,
                               "abandoned": True})
                self.close_connection = True
                return
            model._record({"method": "POST", "path": "/v1/messages", "turn": reply.turn,
                           "stream": bool(body.get("stream"))})
            message_id = model._next_id()
            name = str(body.get("model") or DEFAULT_MODEL)
            tokens = _estimate(body)
            if not body.get("stream"):
                self._json(200, {
                    "id": message_id, "type": "message", "role": "assistant", "model": name,
                    "content": [{k: v for k, v in b.items() if k != "raw_input"}
                                for b in reply.content],
                    "stop_reason": reply.stop_reason, "stop_sequence": None,
                    "usage": {"input_tokens": tokens, "output_tokens": _output_tokens(reply)}})
                return
            chunks = [f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()
                      for event, data in sse_events(reply, message_id=message_id, model=name,
                                                    input_tokens=tokens)]
            payload = b"".join(chunks)
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Content-Length", str(len(payload)))
            self.send_header("request-id", f"req_{message_id}")
            self.end_headers()
            self.wfile.write(payload)

        def _json(self, status: int, data: Mapping[str, Any]) -> None:
            payload = json.dumps(data).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    return Handler


def _estimate(body: Mapping[str, Any]) -> int:
    """A rough token count (4 characters a token): the CLI only shows it."""
    return max(1, len(json.dumps(body.get("messages", []))) // 4)
