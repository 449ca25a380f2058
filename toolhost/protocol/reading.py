"""The reading half of a control session: each line the CLI writes, taken for what it is.

A control request becomes a request to serve (``_serve``, defined by ``ControlSession``); an
answer to one of ours goes to the ``Outbox``; a ``control_cancel_request`` withdraws a
request; a conversation message goes to ``on_message``; anything unreadable is skipped with a
warning (a control request whose id can be read still gets its one answer, an error).

Over a ``PipeLines`` input a line is taken the moment it arrives when nothing read before it
is still waiting (``_take_line``): a ``can_use_tool`` the permission decides without asking
is answered in place, other requests get their tasks at once. Past 1,000 requests in flight
(or their bytes past the bound) a new one is refused with an error.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import anyio

from toolhost.errors import FrameTooLongError
from toolhost.excerpt import cut
from toolhost.limits import Limits
from toolhost.mcp import wire
from toolhost.protocol.framing import LineReader, LineTooLong, encode_line, request_id_in
from toolhost.protocol.handlers import MessageFn, PermissionFn, answer_can_use_tool_now
from toolhost.protocol.open_requests import succeeded as _succeeded
from toolhost.protocol.pipes import PipeLines
from toolhost.protocol.refusals import busy as _busy
from toolhost.protocol.refusals import duplicate as _duplicate
from toolhost.protocol.refusals import failed as _failed
from toolhost.protocol.sending import ControlSender
from toolhost.protocol.tasks import RequestTasks

__all__ = ["RequestLines"]

log = logging.getLogger("toolhost.protocol")


class RequestLines(ControlSender):
    """Lines read from the CLI, taken as requests, answers, withdrawals or messages.

    The base of ``ControlSession``, which sets the attributes below and serves requests."""

    _reader: LineReader | PipeLines
    _limits: Limits
    on_message: MessageFn | None
    # the permission's methods that answer without a pause, looked up when it is set (two
    # getattr calls per request otherwise)
    _decide_now: Any = None
    _after_answer: Any = None
    _permission: PermissionFn | None = None

    @property
    def permission(self) -> PermissionFn | None:
        """Who answers ``can_use_tool`` (None: every call is denied)."""
        return self._permission

    @permission.setter
    def permission(self, permission: PermissionFn | None) -> None:
        self._permission = permission
        self._decide_now = getattr(permission, "decide_now", None)
        self._after_answer = getattr(permission, "after_answer", None)

    async def _serve(self, request_id: str, request: Any) -> None:
        raise NotImplementedError  # ControlSession's

    async def _next_request(self) -> tuple[str, Any, int] | None:
        """Handle lines until a control request comes; return its id, body and size (None
        at end of input). One that finds the session full is refused on the spot."""
        reader = self._reader
        while True:
            try:
                line = await reader.receive_line()
            except anyio.EndOfStream:
                return None
            except FrameTooLongError as exc:
                log.warning("control session: %s", exc)
                if isinstance(exc, LineTooLong):
                    await self._refuse(exc.head, str(exc))
                continue
            if not line.strip():
                continue
            try:
                message = wire.decode(line, self._limits)
            except wire.WireError as exc:
                log.warning("control session: skipped a line (%s): %s", exc.message,
                            cut(repr(line[:300]), 200))
                await self._refuse(line[:4096], exc.message)
                continue
            if not isinstance(message, dict):
                # cut() hides secrets before it cuts (a "%.200r" cut first, leaving a start)
                log.warning("control session: skipped a JSON line that is not an object: %s",
                            cut(repr(line[:4096]), 200))
                continue
            kind = message.get("type")
            if kind == "control_request":
                request_id = message.get("request_id")
                if isinstance(request_id, str) and request_id:
                    if request_id in self._tasks.scopes:
                        await self._write(_duplicate(request_id))
                    elif self._tasks.has_room(len(line)):
                        return request_id, message.get("request"), len(line)
                    else:
                        await self._write(_busy(request_id, self._tasks))
                    continue
                elif request_id == "" or (isinstance(request_id, (int, float))
                                          and not isinstance(request_id, bool)):
                    # Not ours to serve, but answerable: the CLI waits for that id.
                    await self._write({"type": "control_response", "response": {
                        "subtype": "error", "request_id": request_id,
                        "error": "a control request's request_id must be a non-empty "
                                 "string; this one was refused"}})
                    continue
                log.warning("control session: skipped a control_request without a "
                            "request_id: %s", cut(repr(message)[:4096], 200))
            elif kind == "control_response":
                self._outbox.on_response(message.get("response"))
            elif kind == "control_cancel_request":
                _withdraw(self._tasks, message)
            elif self.on_message is not None:
                try:
                    await self.on_message(message)
                except Exception:  # a renderer's bug never stops the session
                    log.exception("on_message failed for a %r message", kind)

    def _take_waiting_requests(self) -> list[tuple[str, Any]]:
        """The control requests the CLI has written and nobody has taken yet (read, or in
        the pipe now), taken out of the queue: a stopping host answers them unserved. Other
        lines, and requests it cannot answer (no id, one already being served), stay."""
        reader = self._reader
        if isinstance(reader, PipeLines):
            reader.read_now()
        taken: list[tuple[str, Any]] = []
        scopes = self._tasks.scopes

        def take(line: bytes) -> bool:
            if line.find(b'"control_request"') < 0:
                return False
            try:
                message = wire.decode(line, self._limits)
            except wire.WireError:
                return False
            if not isinstance(message, dict) or message.get("type") != "control_request":
                return False
            request_id = message.get("request_id")
            if not isinstance(request_id, str) or not request_id or request_id in scopes:
                return False
            taken.append((request_id, message.get("request")))
            return True

        reader.take_lines(take)
        return taken

    async def _refuse(self, head: bytes, why: str) -> None:
        # A control request we could not read still gets its one answer (an error), so
        # the CLI never waits for it; other lines are only logged.
        request_id = request_id_in(head)
        if request_id is not None:
            await self._write({"type": "control_response",
                               "response": {"subtype": "error", "request_id": request_id,
                                            "error": f"toolhost could not read this control "
                                                     f"request: {why}"}})

    def _take_line(self, line: bytes) -> bool:
        """Serve a line the moment it arrives, if that needs no pause; True: it is served.

        Called by ``PipeLines`` when every earlier line has been taken (so nothing is
        overtaken: a decision is never shown before the messages the CLI sent ahead of it).
        A control request gets its task at once (no reading task woken first, none started
        after), a ``can_use_tool`` the permission decides without asking is answered on the
        spot, answers and withdrawals are noted. False: the reading task takes the line
        (conversation messages, anything malformed), as it would have anyway.
        """
        # find, not ``in``: bytes' ``in`` tries its operand as an int first and raises and
        # clears a TypeError before it searches (~1,200 instructions on 3.11, every line)
        if line.find(b'"control_', 0, 64) < 0 or self._tasks.closing \
                or not self._tasks.running:
            return False
        try:
            message = wire.decode(line, self._limits)
        except wire.WireError:
            return False
        if not isinstance(message, dict):
            return False
        kind = message.get("type")
        if kind == "control_response":
            self._outbox.on_response(message.get("response"))
            return True
        if kind == "control_cancel_request":
            _withdraw(self._tasks, message)
            return True
        request_id, request = message.get("request_id"), message.get("request")
        if kind != "control_request" or not isinstance(request_id, str) or not request_id \
                or request_id in self._tasks.scopes:  # the reading task refuses a duplicate
            return False
        # (not while an earlier request's task waits to begin: its question, or decision
        # line, would come after this answer's, out of the order they were read in)
        if (type(request) is dict or isinstance(request, Mapping)) \
                and request.get("subtype") == "can_use_tool" and not self._tasks.queued \
                and self._answer_now(request_id, request):
            return True
        if not self._tasks.has_room(len(line)):
            return False  # the reading task refuses it (it waits while the CLI does not read)
        self._tasks.spawn(request_id, self._serve, request, len(line),
                          eager=self._reader.waiting == 1)  # this line is the last one read
        return True

    def _answer_now(self, request_id: str, request: Mapping[str, Any]) -> bool:
        # A permission request decided without a pause: the answer is written at once.
        decide_now = self._decide_now
        if decide_now is None or not self._writer.can_write_now():
            return False
        try:
            response = answer_can_use_tool_now(request, decide_now)
        except Exception as exc:
            answer = _failed(request_id, exc)
        else:
            if response is None:  # an "ask": a task of its own asks
                return False
            answer = _succeeded(request_id, response)
        data = encode_line(answer)
        # decided (and audited) already: sent anyway; batched with the answers of the lines
        # read behind it, if any
        # (can_write_now said yes above, and deciding wrote nothing to the CLI)
        self._writer.put_now(data, more=self._reader.waiting > 1)
        after = self._after_answer
        if after is not None:
            try:
                after()
            except Exception:  # the answer is out: a failure here must not serve it twice
                log.exception("control session: after_answer failed")
        return True


def _withdraw(tasks: RequestTasks, message: Mapping[str, Any]) -> None:
    # Only the request the id names: the number 5 (or null, true, [1]) is not the id "5"
    # ("None", "True", "[1]"), whose task a str() of it stopped, its answer never sent.
    request_id = message.get("request_id")
    if isinstance(request_id, str):
        tasks.cancel(request_id)
    else:
        log.warning("control session: skipped a control_cancel_request whose request_id is "
                    "not a string: %s", cut(repr(request_id), 100))
