"""The process an ``isolation: process`` python tool runs in (``python -m`` this module).

It speaks one JSON object per line with the host (``toolhost.backends.worker``): first an
``init`` (the host's ``sys.path``, the function's reference, the result limit), answered with
``{"ready": true}`` or ``{"fatal": message}``; then, one at a time, ``{"call": {arguments},
"id": ..., "tool": ...}``, answered by any number of ``{"progress": [done, total, message]}``
lines and one ``{"result": CallToolResult}`` or ``{"error": {"type", "message"}}``. Only JSON
crosses: arguments arrive as the model sent them and are converted here; the return value is
mapped and cut here, so a huge result never crosses the pipe whole.

On Linux the worker is a child subreaper, and after each call, before its answer, it kills
every process below it (what the call started, also in a new session or double-forked):
nothing a call started outlives it, and the warm worker waits for the next call.

The real stdout is kept for these lines and fd 1 points at stderr, so a ``print`` in the tool
or a child process it starts cannot corrupt them. The worker is sent no secret value (the
tool's code could read it here): its stderr is a pipe the host reads through its own
scrubbing stream (``worker_stderr``), and before each answer the worker writes a mark there
so the host shows what the call wrote first; the edge of a result or error message cut here
is masked by the host. On Linux the process dies with its host
(``PR_SET_PDEATHSIG``), even if the host is killed with SIGKILL.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import json
import os
import signal
import sys
import threading
import traceback
from typing import IO, Any

from toolhost.backends.subreaper_main import first_to_go, limit_memory
from toolhost.backends.worker_stderr import MARK

WORKER_STACK_BYTES = 256 * 1024 * 1024  # deep recursion fails with RecursionError, not SIGSEGV
MAX_ERROR_CHARS = 10_000  # of an error message sent (the host masks a secret this cut)


def _die_with_parent() -> None:
    if not sys.platform.startswith("linux"):
        return  # elsewhere: the host's closing pipe ends an idle worker; see docs/backends.md
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass
    if os.getppid() == 1:  # the host died before prctl took effect
        os._exit(1)
    first_to_go()  # the OOM killer's first: a tool that allocates without bound, not the host


def _send(out: IO[bytes], lock: threading.Lock, message: dict[str, Any]) -> None:
    line = json.dumps(message, ensure_ascii=False, separators=(",", ":"), default=str)
    # a lone surrogate is only ever inside a JSON string here: its \udxxx escape is the same
    # JSON, so the host reads the very string the tool returned (as an in-process tool's)
    with lock:
        out.write(line.encode("utf-8", "backslashreplace") + b"\n")
        out.flush()


def main() -> int:
    protocol = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    requests = _claim_stdin()
    _die_with_parent()
    from toolhost.backends.reaper import enable_subreaper, end_descendants

    enable_subreaper()  # what a call starts and orphans stays below us, for end_descendants
    lock = threading.Lock()
    init = json.loads(requests.readline() or b"{}")
    sys.path[:] = [p for p in init.get("sys_path", []) if isinstance(p, str)] or sys.path
    mark = _plain_output()
    limit_memory(init.get("max_memory"))
    try:
        from toolhost.backends.python_import import resolve_function
        from toolhost.compile.signature import inspect_callable

        search = [p for p in init.get("search", []) if isinstance(p, str)]
        fn = resolve_function(str(init.get("function")), search)
        info = inspect_callable(fn)
    except BaseException as exc:  # the host imported it a moment ago; say why we could not
        _send(protocol, lock, {"fatal": f"{type(exc).__name__}: {exc}"})
        return 1
    threading.stack_size(WORKER_STACK_BYTES)
    _send(protocol, lock, {"ready": True})
    import anyio

    anyio.run(_serve, fn, info, int(init.get("limit", 40_000)), protocol, lock, end_descendants,
              requests, mark)
    return 0


def _claim_stdin() -> IO[bytes]:
    """The host's requests on a private duplicate of fd 0; fd 0 and ``sys.stdin`` read the
    null device, so the tool's ``input()`` or a child inheriting fd 0 reads end of file
    instead of waiting on (or taking) the host's next request."""
    requests = os.fdopen(os.dup(0), "rb")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 - the process's, for good
    return requests


def _plain_output() -> int:
    """``sys.stdout`` and ``sys.stderr`` both on fd 2, the host's pipe (the host scrubs what
    comes); returns a descriptor of that pipe of the worker's own, for the mark before each
    answer (the tool may move fd 2)."""
    mark = os.dup(2)
    stream = os.fdopen(os.dup(2), "w", buffering=1, encoding="utf-8",
                       errors="backslashreplace")
    sys.stderr = sys.stdout = stream
    return mark


def _drain(mark: int) -> None:
    """What the call wrote goes before its answer: the tool's streams flushed (whatever it
    made of them), then the mark the host waits for."""
    for stream in {id(s): s for s in (sys.stdout, sys.stderr) if s is not None}.values():
        with contextlib.suppress(Exception):  # a stream of the tool's that cannot flush
            stream.flush()
    with contextlib.suppress(OSError):  # (the host is gone)
        os.write(mark, MARK)


async def _serve(fn: Any, info: Any, limit: int, out: IO[bytes], lock: threading.Lock,
                 end_descendants: Any, requests: IO[bytes], mark: int) -> None:
    import anyio.to_thread

    from toolhost.backends.base import CallContext, ToolRaised, describe
    from toolhost.backends.convert import to_result
    from toolhost.backends.python_calls import guarded_call, guarded_collect
    from toolhost.failures import debug_enabled

    home = os.getcwd()  # where the rules judge each call's relative paths (the host's)
    while True:
        line = await anyio.to_thread.run_sync(requests.readline)
        if not line:
            return  # the host closed the pipe: it is done with us
        request = json.loads(line)

        async def progress(done: float, total: float | None, message: str | None) -> None:
            _send(out, lock, {"progress": [done, total, message]})

        ctx = CallContext(call_id=str(request.get("id", "")), tool=str(request.get("tool", "")),
                          progress=progress)
        value: Any = None
        kwargs: Any = None
        try:
            kwargs = info.convert(request["call"])
            if info.context_param:
                kwargs[info.context_param] = ctx
            if info.is_async:
                value = await fn(**kwargs)
            else:  # mapped in the thread; its BaseException is a ToolRaised from there
                value = await anyio.to_thread.run_sync(
                    guarded_call, functools.partial(fn, **kwargs), limit)
                if inspect.isawaitable(value):
                    value = await value
            if inspect.isasyncgen(value):  # read no further than can be kept
                value = await guarded_collect(value, limit)
            answer: dict[str, Any] = {"result": _bounded(to_result(value, limit), limit).to_mcp()}
        except BaseException as exc:  # SystemExit, KeyboardInterrupt...: nothing cancels
            # a worker's call (the host kills it), so every one is the tool's own failure
            if debug_enabled():  # the host logs the error itself, scrubbed, in one line
                traceback.print_exc(file=sys.stderr)
            kind = exc.original_type if isinstance(exc, ToolRaised) else type(exc).__name__
            message = describe(exc)
            answer = {"error": {"type": kind, "message": message[:MAX_ERROR_CHARS],
                                "cut": len(message) > MAX_ERROR_CHARS}}
        value = kwargs = None  # drop the call's data before waiting for the next one
        # nothing the call started outlives it: its children, a setsid or double-forked one
        # (orphans come to us, a subreaper), killed before the answer, as for command tools
        end_descendants()  # one call at a time here: nothing else waits for the loop
        _drain(mark)  # what the call wrote to fd 2 is out before its answer
        _send(out, lock, answer)
        _go_home(home)


def _go_home(home: str) -> None:
    """Back in ``home`` after a call: a tool's ``os.chdir`` (a ``cd`` op of its
    own) moved the relative paths of its later calls, judged against ``home``, elsewhere."""
    try:
        if os.getcwd() == home:
            return
    except OSError:  # (a removed directory)
        pass
    try:
        os.chdir(home)
    except OSError as exc:  # no judged directory to read in: no more calls here
        print(f"toolhost worker: cannot go back to {home!r} after a call moved it: "
              f"{exc.strerror}", file=sys.stderr)
        os._exit(70)


def _bounded(result: Any, limit: int) -> Any:
    """``result`` small enough to cross the pipe: structured content whose JSON is over
    ``limit`` is replaced by its cut JSON text, text blocks are cut to ``limit``."""
    from toolhost.compile.jsoncut import json_head, too_long
    from toolhost.compile.shaping import cut_head, cut_text
    from toolhost.results import ToolResult

    structured = result.structured
    if structured is not None and too_long(structured, limit):
        head = cut_head(json_head(structured, limit), limit, exact=False)
        others = tuple(b for b in result.content if b.get("type") != "text")
        return ToolResult(content=(*others, {"type": "text", "text": head}),
                          is_error=result.is_error)
    return cut_text(result, limit) if structured is None else result


if __name__ == "__main__":
    sys.exit(main())
