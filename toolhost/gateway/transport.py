"""How toolhost reads an upstream: one message at most ``max_message_bytes``, read in linear time.

The upstream is not trusted, and neither is the size of what it sends. Over stdio the
``mcp`` package's client joins the pipe's chunks into a line by copying what it has so far
for every chunk (a 100 MB line takes minutes), and keeps it all in memory. So stdio
upstreams get a transport of toolhost's own (``stdio_transport``): lines are collected in one
buffer, in linear time, and a line longer than the cap ends the connection with a warning
naming the upstream (nothing after it can be framed any more; the next use starts the
upstream again). Lines that are not JSON-RPC (a banner, a stray ``print``) are logged in one
line each, the first few only, then counted (``Noise``): tracebacks only with ``--debug``.
An answer to a request that is not valid JSON-RPC answers that request with an error at once
(its waiter is not left to time out).

Over Streamable HTTP an httpx hook (``toolhost.gateway.http_caps``) counts each
answer's body: one longer than the cap, or one the upstream compressed though toolhost asked
for none (inflating is where bombs go off), is refused with an error naming the upstream; the
session and other requests carry on. Server-sent event streams are cut per event by the
``mcp`` client itself (at the same cap).
"""

from __future__ import annotations

import json
import logging
import re
import signal
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from typing import Any, TextIO

import anyio
import anyio.lowlevel

from toolhost.backends.reaper import ToolRun, enable_subreaper
from toolhost.excerpt import cut
from toolhost.gateway.liblogs import describe_invalid, quiet_library_logs, tracebacks_wanted
from toolhost.gateway.unheard import Unheard
from toolhost.gateway.value_count import MAX_ANSWER_VALUES, MAX_VALUES

__all__ = ["CAPPED", "Noise", "Wire", "quiet_mcp_logs", "size_text", "stdio_transport"]

log = logging.getLogger("toolhost.gateway")
SHOWN = 3  # lines of noise logged one by one, per connection; then a count every...
EVERY = 60.0  # ... seconds at most
_CHUNK = 1 << 16
_PARSED_MAX = 1 << 16  # a longer unreadable answer's id is found by the scan alone
CAPPED = ("tools/call", "resources/read", "prompts/get")  # answers that MAX_VALUES bounds
MAX_NOTED = 10_000  # ids of such requests under way, remembered per connection
_EXIT_SEEN_WITHIN = 1.0  # s from its stdout's end to its exit status (a process closing
# stdout and living on is not waited for longer)
_REAPED_WITHIN = 5.0  # s for a killed upstream's exit to reach the loop (a loaded machine)


def size_text(size: int) -> str:
    """``16 MiB``, ``5,000,000 bytes``: a size as a person would write it."""
    if size >= 1 << 20 and size % (1 << 20) == 0:
        return f"{size >> 20} MiB"
    return f"{size:,} bytes"


class Wire:
    """What one connection's transport knows that the ``mcp`` session cannot tell: why it
    ended (``failure``), and the cap on one message."""

    def __init__(self, server: str, limit: int) -> None:
        self.server = server
        self.limit = limit
        self.failure = ""
        self.ended = ""  # how its process ended on its own (stdio: exit_said)
        self.ready = False  # initialize answered: an end from now on is news (a warning)
        self.last_words: Callable[[], str] = lambda: ""  # its last stderr lines (stdio)
        self.session_lost = False  # an HTTP upstream answered 404 to the session's id
        self.http_error = ""  # the status of the last POST answered >= 400, until a failed
        # request takes it (or a later POST succeeds)
        self.origin = ""  # an HTTP upstream's scheme://host:port, as its failures say it
        self.broke = ""  # how an HTTP upstream's connection failed (http_broke), or ""
        self.refused = ""  # why toolhost last cut an answer's body (HTTP), until taken
        self.noise = Noise(server)
        self.unheard = Unheard()  # notifications never acted on, dropped as read (stdio)
        # ids of the calls, reads and prompts under way (oldest first, at most MAX_NOTED)
        self.calls: dict[int | str, None] = {}

    def sent(self, message: Any) -> None:
        """Note a request toolhost sends whose answer is the model's (``CAPPED``)."""
        ident = getattr(message, "id", None)
        if getattr(message, "method", None) in CAPPED and isinstance(ident, (int, str)):
            if len(self.calls) >= MAX_NOTED:  # never answered (timed out): the oldest go
                del self.calls[next(iter(self.calls))]
            self.calls[ident] = None

    def answered(self, message: Any) -> None:
        """Forget a noted request once its answer (not a request of the upstream) came."""
        ident = getattr(message, "id", None)
        if not hasattr(message, "method") and isinstance(ident, (int, str)):
            self.calls.pop(ident, None)

    def last_said(self, most: int = 600) -> str:
        """Its last stderr lines, the end of them when long (a traceback's last line is
        the one a person reads)."""
        last = self.last_words()
        return last if len(last) <= most else "…" + last[-most:]

    def take_http_error(self) -> str:
        """The HTTP error status an upstream last answered (once; "" when none)."""
        said, self.http_error = self.http_error, ""
        return said

    def too_big(self, what: str = "a message") -> str:
        return (f"upstream server '{self.server}' sent {what} larger than "
                f"{size_text(self.limit)} (max_message_bytes)")


class Noise:
    """Output of an upstream that is not JSON-RPC: the first ``SHOWN`` problems are logged
    one line each, the rest counted and said at most once every ``EVERY`` seconds (and
    when the connection ends: ``flush``)."""

    def __init__(self, server: str) -> None:
        self.server = server
        self.count = 0
        self.untold = 0
        self.told_at = 0.0

    def problem(self, what: str, exc: BaseException | None = None) -> None:
        self.count += 1
        if self.count <= SHOWN:
            log.warning("upstream server '%s' %s", self.server, what,
                        exc_info=exc if exc is not None and tracebacks_wanted() else None)
            self.told_at = time.monotonic()
            return
        self.untold += 1
        if time.monotonic() - self.told_at >= EVERY:
            self.flush()

    def flush(self) -> None:
        if self.untold:
            log.warning("upstream server '%s' wrote %d more lines that are not JSON-RPC "
                        "(not shown)", self.server, self.untold)
        self.untold = 0
        self.told_at = time.monotonic()


def quiet_mcp_logs() -> None:
    """Every record the ``mcp`` library and its dependencies log: one line, rate-limited
    (``toolhost.gateway.liblogs``; once per handler, idempotent)."""
    quiet_library_logs()


def _parse(line: bytes, wire: Wire) -> Any:
    """One stdout line: a SessionMessage, or None (noise, logged)."""
    import mcp_types
    from mcp.shared.message import SessionMessage
    from pydantic import ValidationError

    error: BaseException | None = None
    ident: int | str | None = None
    cap = 0
    if _too_many_values(line, MAX_VALUES):
        # building it would hold the GIL (the host) for seconds: a call's answer (cut at
        # 40,000 characters anyway) over MAX_VALUES, any other message (a listing's page,
        # bounded tool by tool after) over MAX_ANSWER_VALUES is refused unread
        ident = _answer_id(line)
        cap = MAX_VALUES if ident in wire.calls else \
            MAX_ANSWER_VALUES if _too_many_values(line, MAX_ANSWER_VALUES) else 0
    if cap:
        what = f"more than {cap:,} JSON values (refused unread)"
    else:
        try:
            parsed = mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False)
        except (ValidationError, ValueError, RecursionError) as exc:
            error = exc
        else:
            wire.answered(parsed)
            return SessionMessage(parsed)
        what = describe_invalid(error, skip=1)
        ident = _answer_id(line)
    if ident is None and cap:
        wire.noise.problem(f"wrote a message of {what}")
        return None
    if ident is None:
        wire.noise.problem(f"wrote a line that is not JSON-RPC ({what}): "
                           f"{cut(repr(line[:200].decode('utf-8', 'replace')), 120)}", error)
        return None
    wire.calls.pop(ident, None)
    message = (f"upstream server '{wire.server}' sent an answer that is not valid JSON-RPC: "
               f"{what}" if error is not None else
               f"upstream server '{wire.server}' sent an answer of {what}")
    log.warning("%s", message)
    return SessionMessage(mcp_types.JSONRPCError(
        jsonrpc="2.0", id=ident,
        error=mcp_types.ErrorData(code=mcp_types.PARSE_ERROR, message=message)))


def _too_many_values(line: bytes, limit: int) -> bool:
    """Whether ``line`` holds more than ``limit`` JSON values (commas and openers outside
    strings): parsing millions of them (a 15 MB line of ``[],``) holds the GIL, so every
    thread of the host, for seconds (measured up to 24 s). Counted in bounded steps, and
    only for a long line whose bytes could hold that many."""
    if len(line) <= limit or \
            line.count(b",") + line.count(b"[") + line.count(b"{") <= limit:
        return False
    count, pos, end = 0, 0, len(line)
    while pos < end:
        quote = line.find(b'"', pos, min(end, pos + _WINDOW))
        stop = quote if quote >= 0 else min(end, pos + _WINDOW)
        part = line[pos:stop]
        count += part.count(b",") + part.count(b"[") + part.count(b"{")
        if count > limit:
            return True
        pos = stop
        if quote < 0:
            continue
        pos += 1
        while pos < end:  # the string's inside, piece by piece (as _top_level reads it)
            piece = _INSIDE.match(line, pos)
            assert piece is not None
            pos = piece.end()
            if pos >= end or line[pos] == _QUOTE:
                break
            if line[pos] == _BACKSLASH and pos + 1 >= end:
                pos = end
        pos += 1
    return False


def _answer_id(line: bytes) -> int | str | None:
    """The id of what looks like an answer (``result`` or ``error`` with an id), or None;
    found without parsing when the line is no JSON the parser can read (nested deeper than
    it goes, a bad escape, cut short): its waiter is answered at once all the same."""
    if not line.lstrip().startswith(b"{"):
        return None
    data: Any = None
    if len(line) <= _PARSED_MAX:  # json.loads holds the GIL while it reads: small lines only
        try:
            data = json.loads(line)
        except (ValueError, RecursionError):
            data = None
    if data is None:
        data = _top_level(line)
    if not isinstance(data, dict) or "method" in data or not ("result" in data or "error" in data):
        return None
    ident = data.get("id")
    if isinstance(ident, float) and ident.is_integer() and abs(ident) < 2 ** 63:
        # 7.0 or 7e0 for the id 7 sent: the mcp client reads no such id, so the call would
        # wait out its deadline (600 s by default); its waiter is answered at once instead
        ident = int(ident)
    return ident if isinstance(ident, (str, int)) and not isinstance(ident, bool) else None


@asynccontextmanager
async def stdio_transport(argv: list[str], env: dict[str, str], cwd: str | None,
                          errlog: TextIO, wire: Wire) -> AsyncIterator[tuple[Any, Any]]:
    """Start ``argv`` and exchange JSON-RPC lines with it: the ``(read, write)`` streams the
    ``mcp`` client takes. On leaving: stdin closed, 2 s to exit, then the process group (what
    the process started, too) is terminated (and killed 2 s later).

    The process is a command run of the reaper's (``backends.reaper.ToolRun``): if toolhost
    exits before the stop ends (its own parent's deadline, an exit at interpreter end), or
    is killed outright (SIGTERM's default, SIGKILL), what the upstream started dies with it
    -- an upstream that stopped reading its stdin would otherwise run on, orphaned."""
    from mcp.shared.message import SessionMessage

    enable_subreaper()  # a descendant that leaves the upstream's group stays in our tree
    run = ToolRun()
    run.starting()
    try:
        # shielded: a cancel while the child is being spawned (a start given up at its
        # deadline) left a process asyncio killed but never waited for, whose exit its child
        # watcher then reported to a closed loop; once spawned, the stop below waits for it
        with anyio.CancelScope(shield=True):
            process = await anyio.open_process(argv, env=run.env(env), cwd=cwd, stderr=errlog,
                                               start_new_session=True)
    except BaseException:
        run.not_started()
        raise
    run.started(process.pid)
    read_w, read_r = anyio.create_memory_object_stream[Any](0)
    write_w, write_r = anyio.create_memory_object_stream[SessionMessage](0)
    writer_done = anyio.Event()

    stopping = anyio.Event()  # toolhost ends it: its exit is no news

    async def reader() -> None:
        assert process.stdout is not None
        async with read_w:
            with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
                async for line in _lines(process.stdout, wire):
                    if wire.unheard.drops_line(line):  # before it costs a parse
                        continue
                    message = _parse(line, wire)
                    if message is not None:
                        await read_w.send(message)
            # its stdout ended on its own: a crash, the OOM killer's SIGKILL. Said before the
            # session sees the end, so the failed request (and the log) say how it ended
            if not wire.failure and not stopping.is_set() and \
                    await _exited(process, _EXIT_SEEN_WITHIN) and not stopping.is_set():
                wire.ended = exit_said(process.returncode)
                wire.failure = (f"upstream server '{wire.server}' {wire.ended}; the next use "
                                "starts it again")
                if wire.ready:  # (a start that fails says it in its error)
                    last = wire.last_said()
                    log.warning("%s%s", wire.failure, f" (its last words: {last})" if last
                                else "")
        await _drain(process.stdout)  # the process must not block writing while it stops

    async def writer() -> None:
        assert process.stdin is not None
        try:
            async with write_r:
                async for message in write_r:
                    wire.sent(message.message)
                    data = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await process.stdin.send(data.encode() + b"\n")
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            await read_w.aclose()  # the session sees the end instead of waiting for ever
        finally:
            writer_done.set()

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(reader)
        tasks.start_soon(writer)
        try:
            yield read_r, write_w
        finally:
            stopping.set()
            with anyio.CancelScope(shield=True):
                read_r.close()
                write_w.close()
                with anyio.move_on_after(0.5):
                    await writer_done.wait()
                await _stop(process)
                run.end()  # what left the group, too (Linux), and the watchdog told
                wire.noise.flush()
                for stream in (read_r, write_w, read_w, write_r):
                    await stream.aclose()
            tasks.cancel_scope.cancel()


async def _lines(stdout: Any, wire: Wire) -> AsyncIterator[bytes]:
    """The lines of ``stdout`` (blank ones skipped), each copied once: linear time. A line
    longer than the cap ends the iteration, with ``wire.failure`` set."""
    buf = bytearray()
    while True:
        try:
            chunk = await stdout.receive(_CHUNK)
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError,
                OSError):
            return
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            if len(buf) + end - start > wire.limit:
                break
            line = bytes(buf + chunk[start:end]) if buf else chunk[start:end]
            buf.clear()
            start = end + 1
            if line.strip():
                yield line
        else:
            buf += chunk[start:]
            if len(buf) <= wire.limit:
                continue
        wire.failure = wire.too_big("a line") + ": the connection is dropped"
        log.warning("%s", wire.failure)
        return


def exit_said(code: int | None) -> str:
    """How an upstream's process ended on its own (``was killed by SIGKILL (signal 9) ...``,
    ``exited (status 3)``), for a line a person acts on."""
    if code is not None and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        why = (" (the OOM killer sends it when memory runs out)"
               if -code == signal.SIGKILL else "")
        return f"was killed by {name} (signal {-code}){why}"
    return f"exited (status {code})"


async def _drain(stdout: Any) -> None:
    with suppress(anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError,
                  OSError):
        while True:
            await stdout.receive(_CHUNK)


async def _stop(process: Any) -> None:
    from mcp.os.posix.utilities import terminate_posix_process_tree

    with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        await process.stdin.aclose()
    exited = await _exited(process, 2.0)
    # the whole process group, whether or not its leader lingers: a server that exits at the
    # end of its stdin may leave workers it started (killpg reaches them after the leader is
    # gone; SIGTERM, SIGKILL 2 s later; a daemon that left the group escapes by design)
    with suppress(OSError, ProcessLookupError):
        await terminate_posix_process_tree(process, 2.0)
    if not exited:  # killed by now: what is left is its exit reaching this loop (bounded)
        await _exited(process, _REAPED_WITHIN)
    with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        await process.stdout.aclose()
    # the subprocess transport, closed now rather than (with a warning) when collected
    transport = getattr(getattr(process, "_process", None), "_transport", None)
    close = getattr(transport, "close", None)
    if callable(close):
        with suppress(PermissionError):
            close()


async def _exited(process: Any, within: float) -> bool:
    """Whether the process ended within ``within`` s (its returncode polled: ``wait`` would
    also wait for a grandchild holding the pipes)."""
    deadline = anyio.current_time() + within
    while process.returncode is None:
        if anyio.current_time() >= deadline:
            return False
        await anyio.sleep(0.01)
    return True


# The scan below is made of regex matches that each read a bounded stretch of the line (at
# most about 64 KiB), so that no single one holds the GIL for long whatever the line holds (a
# 15 MB answer with its id last: millions of escapes in one string, millions of openers in a
# row); the host's event loop runs in another thread and gets its turns between them.
_NEXT = re.compile(rb'["\[\]{}]')  # where the next string or bracket starts
_RUN = re.compile(rb'(?:[\[\]{}][^"\[\]{}]{0,64}){1,1024}')  # brackets, and what is between
_INSIDE = re.compile(rb'[^"\\]{0,4096}(?:\\.[^"\\]{0,64}){0,512}', re.DOTALL)  # of a string
_KEY_MAX = 256  # a longer key is none of the ones looked for
_SCALAR = re.compile(rb'[ \t\r]{0,64}:[ \t\r]{0,64}(-?[0-9]{1,64}(?![0-9.eE])'
                     rb'|"[^"\\]{0,1024}(?:\\.[^"\\]{0,1024}){0,64}")', re.DOTALL)
_WINDOW = 1 << 16
_QUOTE, _BACKSLASH = 0x22, 0x5C


def _top_level(line: bytes) -> dict[str, Any]:
    """The keys at the top of a JSON object that the parser could not read, each with its
    value when that is an integer or a string (None otherwise): no recursion, however deep
    the rest nests, and in bounded steps (``_NEXT``, ``_RUN``, ``_INSIDE``)."""
    found: dict[str, Any] = {}
    depth, pos, end = 0, 0, len(line)
    while pos < end:
        hit = _NEXT.search(line, pos, min(end, pos + _WINDOW))
        if hit is None:  # no string or bracket in this stretch: nothing changes there
            pos += _WINDOW
            continue
        pos = hit.start()
        if line[pos] != _QUOTE:  # brackets (and numbers, commas, colons): only the depth
            run = _RUN.match(line, pos)
            assert run is not None  # it starts with a bracket
            text = run.group()
            depth += text.count(b"{") + text.count(b"[") - text.count(b"}") - text.count(b"]")
            pos = run.end()
            continue
        start = pos
        pos += 1
        while True:  # the string's inside, piece by piece
            piece = _INSIDE.match(line, pos)
            assert piece is not None  # it may match nothing, never fail
            pos = piece.end()
            if pos >= end or line[pos] == _QUOTE:
                break
            if line[pos] == _BACKSLASH and pos + 1 >= end:  # cut short after a backslash
                pos = end
        if pos >= end:
            break  # a string cut short: nothing follows it
        pos += 1  # its closing quote
        if depth != 1 or pos - start > _KEY_MAX:
            continue
        after = line[pos:pos + 64].lstrip(b" \t\r")
        if not after.startswith(b":"):
            continue
        try:
            key = json.loads(line[start:pos])
            value = _SCALAR.match(line, pos)
            found.setdefault(key, json.loads(value.group(1)) if value else None)
        except ValueError:
            continue
        if "id" in found and ("result" in found or "error" in found):
            break  # all an answer needs: the rest (a deep result) is never walked
    return found
