"""Tasks (SEP-2663, the ``io.modelcontextprotocol/tasks`` extension of 2026-07-28): a
``tools/call`` answered at once with a task, whose tool runs on in this process.

A tool whose config says ``task_support: optional`` or ``required`` runs as a task when the
request's ``clientCapabilities`` declare the extension: the permission rules run first (in
the request), then the tool starts and the call answers ``resultType: "task"``. The client
polls ``tasks/get`` (the result is inlined once the task is terminal), answers what the tool
asks through ``tasks/update`` (``inputRequests`` / ``inputResponses``), and may
``tasks/cancel`` it, which stops the tool. ``tasks/result`` and ``tasks/list`` are the v1
surface, which SEP-2663 removed: -32601.

A task lives in the process that started it, in memory: under several replicas a client must
reach the same one. A task id is ``<tag>.<128 random bits>``, the tag this process's (8 hex
digits): another replica asked about it answers -32602 naming the replica that keeps it
(never "unknown", which a client could read as lost); an id of no replica is unknown. A task
is its caller's (serve's authenticated caller): another caller asking for it is told it is
unknown. Bounded: at most ``MAX_TASKS`` per server (the oldest terminal ones make room, the
new task's caller's own first), ``MAX_RUNNING`` running at once per caller, a task is
forgotten ``TTL_MS`` after it was created (a running one is stopped then, whether or not
anybody asks the server anything), a question waits for its answer as long as a direct
call's would, and a result is as bounded as a direct call's (the tool's
``max_output_chars``). Server shutdown stops every running task and waits a moment for their
tools to stop (``aclose``); a graceful one (``toolhost.serve.shutdown``) first waits, within
its grace, for the running tasks to end and for their results to be read by pollers still
coming (``pending``), and fails what still runs then with an error that says so
(``stop_for_shutdown``): a poller reads why, never a task that vanished.
"""

from __future__ import annotations

import datetime
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from toolhost.excerpt import cut
from toolhost.failures import log_failure
from toolhost.mcp import jsonrpc as rpc
from toolhost.mcp.client_requests import (
    DEFAULT_TIMEOUT,
    ClientRequestError,
    RoundTrip,
    client_channel,
    sendable,
)
from toolhost.mcp.jsonrpc import RpcError
from toolhost.mcp.round_trip import MAX_ANSWERS

if TYPE_CHECKING:
    import asyncio

    import anyio

# asyncio, anyio and secrets (which loads OpenSSL's hashlib) are imported where a task is
# made: every server has a task store, few configs have a task tool
# (tests/test_startup_imports.py)

__all__ = ["MAX_TASKS", "PATIENCE_MIN", "POLL_MS", "TASKS_EXTENSION", "TERMINAL", "TTL_MS",
           "UNREAD_WINDOW", "Task", "TaskChannel", "TaskStore", "declares_tasks", "tasks_required"]

log = logging.getLogger("toolhost.mcp")

TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
MAX_TASKS = 256  # tasks one server keeps (running and terminal)
MAX_RUNNING = 32  # tasks of one caller running at once
TTL_MS = 3_600_000  # a task is kept this long after it was created (ms)
POLL_MS = 500  # the poll interval suggested to clients
TERMINAL = frozenset({"completed", "failed", "cancelled"})
UNREAD_WINDOW = 60.0  # s: an unread result that ended this recently holds a shutdown
# s: how long an unread result holds a shutdown after its caller last asked (or it ended):
# at least this, or three of the caller's longest pause between asks (UNREAD_WINDOW at
# most); a poller a balancer moved to another replica never comes back here
PATIENCE_MIN = 10 * POLL_MS / 1000

Run = Callable[["TaskChannel"], Awaitable[dict[str, Any]]]


def declares_tasks(meta: Any) -> bool:
    """Whether a 2026-07-28 request's ``_meta`` declares the tasks extension."""
    caps = meta.get(rpc.CLIENT_CAPABILITIES_META_KEY) if isinstance(meta, Mapping) else None
    extensions = caps.get("extensions") if isinstance(caps, Mapping) else None
    return isinstance(extensions, Mapping) and isinstance(extensions.get(TASKS_EXTENSION),
                                                          Mapping)


def tasks_required(what: str) -> RpcError:
    """-32021 for a request that needs the tasks extension its client did not declare."""
    return RpcError(rpc.MISSING_CLIENT_CAPABILITY,
                    f"Missing required client capability: extensions['{TASKS_EXTENSION}'] "
                    f"({what}; declare it in _meta['{rpc.CLIENT_CAPABILITIES_META_KEY}']"
                    "['extensions'] and call again)",
                    {"requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}})


def _iso(seconds: float) -> str:
    return datetime.datetime.fromtimestamp(seconds, datetime.UTC).isoformat(
        timespec="milliseconds").replace("+00:00", "Z")


class Task:
    """One task: its status, and once terminal its result (``completed``) or error."""

    def __init__(self, task_id: str, owner: Any, ttl_ms: int = TTL_MS) -> None:
        self.id = task_id
        self.owner = owner
        self.ttl_ms = ttl_ms
        self.created = self.updated = time.time()
        self.status = "working"
        # whether its caller has seen it terminal (tasks/get, tasks/cancel, a notification):
        # a graceful shutdown waits for the results nobody has read yet
        self.read = False
        # when its caller last asked about it (tasks/get, update, cancel), and its longest
        # pause between asks (from the task's start): how soon it is expected back
        self.asked: float | None = None
        self.pause = 0.0
        self.result: dict[str, Any] | None = None
        self.error: dict[str, Any] | None = None
        self.runner: asyncio.Task[None] | None = None
        # key -> (request, event, answer box): what the tool asked and waits for
        self.waiting: dict[str, tuple[dict[str, Any], anyio.Event, list[Any]]] = {}
        # told of each change a client could see in tasks/get (notifications/tasks)
        self.on_change: Callable[[Task], None] | None = None

    def asked_now(self) -> None:
        """Its caller asked about it (``tasks/get``, ``tasks/update``, ``tasks/cancel``)."""
        now = time.time()
        self.pause = max(self.pause, now - (self.created if self.asked is None else self.asked))
        self.asked = now

    def awaited(self, now: float) -> bool:
        """Whether a graceful shutdown still waits for its caller to read its result:
        unread, and the caller not away longer than it has shown it may be."""
        if self.read:
            return False
        patience = min(max(PATIENCE_MIN, 3 * self.pause), UNREAD_WINDOW)
        return now < max(self.updated, self.asked or 0.0) + patience

    def changed(self) -> None:
        """Tell ``on_change`` (a listener's failure never costs the task)."""
        if self.on_change is not None:
            try:
                self.on_change(self)
            except Exception as exc:
                log_failure(log, f"notifications/tasks for task {self.id}", exc)

    def _set(self, status: str, *, tell: bool = True) -> None:
        if self.status not in TERMINAL and self.status != status:
            self.status = status
            self.updated = time.time()
            if tell:
                self.changed()

    def finish(self, status: str, *, result: dict[str, Any] | None = None,
               error: dict[str, Any] | None = None) -> None:
        if self.status in TERMINAL:
            return
        self._set(status, tell=False)
        self.result, self.error = result, error
        self.changed()  # with the result or error inlined

    def envelope(self) -> dict[str, Any]:
        return {"taskId": self.id, "status": self.status, "createdAt": _iso(self.created),
                "lastUpdatedAt": _iso(self.updated), "ttlMs": self.ttl_ms,
                "pollIntervalMs": POLL_MS}

    def detailed(self) -> dict[str, Any]:
        """The ``tasks/get`` result (DetailedTask)."""
        out = self.envelope()
        if self.status == "completed" and self.result is not None:
            out["result"] = self.result
        elif self.status == "failed" and self.error is not None:
            out["error"] = self.error
        elif self.status == "input_required":
            out["inputRequests"] = {key: request for key, (request, _, _) in
                                    self.waiting.items()}
        return out


class TaskChannel(RoundTrip):
    """``ctx.elicit`` / ``ctx.sample`` of a task's tool: the question waits in the task's
    ``inputRequests`` (status ``input_required``) until ``tasks/update`` answers it. Several
    questions asked at once wait together, and each answer resumes its own. Keys and the
    refused capabilities are a round trip's (``RoundTrip``); the tool is not run again."""

    def __init__(self, task: Task, capabilities: Mapping[str, Any]) -> None:
        super().__init__(capabilities, {})
        self.task = task

    async def request(self, capability: str, method: str, params: Mapping[str, Any], *,
                      timeout: float = DEFAULT_TIMEOUT, key: str | None = None
                      ) -> Mapping[str, Any]:
        key = self._new_key(capability, method, key,
                            "task (each question needs its own key)")
        if len(self._keys) >= MAX_ANSWERS:
            raise ClientRequestError(f"asked the client more than {MAX_ANSWERS} questions in "
                                     "one task")
        self._keys.add(key)
        import anyio

        task = self.task
        event, box = anyio.Event(), list[Any]()
        task.waiting[key] = ({"method": method, "params": sendable(method, params)}, event, box)
        if task.status == "input_required":
            task.changed()  # one more question: listeners hear every inputRequest
        task._set("input_required")
        try:
            with anyio.move_on_after(timeout) as waited:
                await event.wait()
        finally:
            if task.waiting.pop(key, None) is not None and not task.waiting \
                    and task.status == "input_required":
                task._set("working")
        if waited.cancelled_caught:
            raise ClientRequestError(f"got no answer to {method} (tasks/update) within "
                                     f"{timeout:g} s")
        answer = box[0]
        if not isinstance(answer, Mapping):
            raise ClientRequestError(f"got an answer to {method} that is not an object")
        return answer


class TaskStore:
    """A server's tasks, by id."""

    def __init__(self, max_tasks: int = MAX_TASKS, max_running: int = MAX_RUNNING) -> None:
        self.max_tasks = max_tasks
        self.max_running = max_running
        self.ttl_ms = TTL_MS  # how long a task is kept after it was created
        self._tasks: dict[str, Task] = {}
        # each task's end of life, on the loop: a task past its ttl is stopped and forgotten
        # then, not at the next request that happens to sweep (a server nobody asks again
        # would run it, and hold its result, for ever)
        self._expiries: dict[str, asyncio.TimerHandle] = {}
        # tasks whose tool still runs: a cancelled (terminal) one whose tool has not stopped
        # yet (it unwinds, or a thread cannot be stopped) still holds its caller's slot
        self._live: set[Task] = set()
        # each task's visible changes (toolhost.serve.served: notifications/tasks)
        self.on_change: Callable[[Task], None] | None = None
        # this process's part of its task ids ("<tag>.<128 random bits>"), made at the first
        # task: a replica asked about another's task says where it lives
        self.tag: str | None = None

    def __len__(self) -> int:
        return len(self._tasks)

    def _sweep(self, owner: Any = None, *, room: bool = False) -> None:
        cutoff = time.time() - self.ttl_ms / 1000
        for task_id in [t.id for t in self._tasks.values() if t.created < cutoff]:
            self._expire(task_id)
        if room and len(self._tasks) >= self.max_tasks:
            # the oldest terminal ones make room, the new task's caller's own first: one
            # caller starting task after task must not drop another's results before their
            # ttl (the results it drops are its own while it has any)
            terminal = [t for t in self._tasks.values() if t.status in TERMINAL]
            terminal.sort(key=lambda t: t.owner != owner)  # stable: oldest first in each
            for task in terminal:
                self._forget(task.id)
                if len(self._tasks) < self.max_tasks:
                    break

    def _expire(self, task_id: str) -> None:
        """The task's ttl is over: stopped if it still runs, and forgotten."""
        task = self._tasks.get(task_id)
        self._forget(task_id)
        if task is not None:
            self._drop(task)

    def _forget(self, task_id: str) -> None:
        self._tasks.pop(task_id, None)
        timer = self._expiries.pop(task_id, None)
        if timer is not None:
            timer.cancel()

    @staticmethod
    def _drop(task: Task) -> None:
        if task.runner is not None and not task.runner.done():
            task.finish("cancelled")
            task.runner.cancel()

    def check_room(self, owner: Any) -> None:
        """Raise -32000 (server busy) when no new task of ``owner`` may start now."""
        self._sweep(owner, room=True)
        if len(self._tasks) >= self.max_tasks:
            raise RpcError(rpc.SERVER_BUSY, f"Server busy: {self.max_tasks} tasks are running "
                           "here; cancel one or wait for one to end, then call again")
        running = sum(1 for t in self._live if t.owner == owner)
        if running >= self.max_running:
            raise RpcError(rpc.SERVER_BUSY, f"Server busy: {running} of your tasks are still "
                           "running (the limit per caller); cancel one or wait for one to "
                           "end, then call again")

    def open(self, owner: Any, capabilities: Mapping[str, Any]) -> tuple[Task, TaskChannel]:
        """A new task of ``owner`` (``tasks/get`` finds it from now on) and the channel its
        tool asks through; its runner is the caller's to set. -32000 when busy."""
        self.check_room(owner)
        import asyncio
        import secrets

        if self.tag is None:
            self.tag = secrets.token_hex(4)
        task = Task(f"{self.tag}.{secrets.token_urlsafe(16)}", owner, self.ttl_ms)
        task.on_change = self._changed
        self._tasks[task.id] = task
        self._live.add(task)
        self._expiries[task.id] = asyncio.get_running_loop().call_later(
            self.ttl_ms / 1000, self._expire, task.id)
        return task, TaskChannel(task, capabilities)

    def start(self, owner: Any, capabilities: Mapping[str, Any], run: Run,
              missing: Callable[[Mapping[str, Any]], RpcError]) -> Task:
        """Start ``run`` as a task of ``owner``; the task exists (``tasks/get`` finds it)
        when this returns. ``missing`` makes the error of a call that failed having asked
        for what the client did not declare."""
        import asyncio

        task, channel = self.open(owner, capabilities)

        async def drive() -> None:
            with client_channel(channel):
                out = await run(channel)
            if channel.refused and out.get("isError"):
                raise missing(channel.refused)
            task.finish("completed", result=out)

        task.runner = asyncio.get_running_loop().create_task(
            self.record(task, drive), name=f"toolhost task {task.id}")
        return task

    async def record(self, task: Task, work: Callable[[], Awaitable[None]]) -> None:
        """Run ``work`` (the task's tool, which finishes ``task`` when it succeeds): its
        cancellation or error becomes the task's; then the task's tool no longer runs.
        (Made here, not before: a task cancelled before it starts leaves no coroutine
        that was never awaited.)"""
        import asyncio

        try:
            await work()
        except asyncio.CancelledError:
            task.finish("cancelled")  # our own top-level task: it ends here
        except RpcError as exc:
            error: dict[str, Any] = {"code": exc.code, "message": exc.message}
            if exc.data is not None:
                error["data"] = exc.data
            task.finish("failed", error=error)
        except Exception as exc:  # a bug costs this task only, and says nothing inside
            log_failure(log, f"task {task.id}", exc)
            task.finish("failed", error={"code": rpc.INTERNAL_ERROR,
                                         "message": f"Internal error ({type(exc).__name__}); "
                                                    "the server logged it"})
        finally:
            self._live.discard(task)

    def _changed(self, task: Task) -> None:
        if self.on_change is not None:
            self.on_change(task)

    def owns(self, owner: Any, task_id: str) -> bool:
        """Whether ``task_id`` is a task of ``owner`` this store keeps."""
        task = self._tasks.get(task_id)
        return task is not None and task.owner == owner

    def find(self, owner: Any, task_id: Any) -> Task:
        if not isinstance(task_id, str):
            raise RpcError(rpc.INVALID_PARAMS, "Invalid params: 'taskId' must be a string")
        self._sweep()
        task = self._tasks.get(task_id)
        if task is None or task.owner != owner:  # another caller's task is unknown to this one
            raise RpcError(rpc.INVALID_PARAMS, self._unknown(task_id))
        task.asked_now()
        return task

    def _unknown(self, task_id: str) -> str:
        """Why ``task_id`` is not found: another replica's (its id names it), or unknown."""
        shown = cut(repr(task_id), 80)
        tag, dot, rest = task_id.partition(".")
        if dot and tag != self.tag and len(tag) == 8 and rest and all(
                c in "0123456789abcdef" for c in tag):
            return (f"Invalid params: task {shown} is not kept by this server process: "
                    f"replica {tag!r} started it and keeps it in its memory (it may still be "
                    "running there); send its tasks/get, tasks/update and tasks/cancel to "
                    "that replica (the task id's part before the '.' names it: route by the "
                    "Mcp-Name header); a replica that stopped took its tasks with it")
        return (f"Invalid params: unknown task {shown} (tasks live in the server process "
                f"that started them, for {self.ttl_ms // 1000} s)")

    def cancel(self, owner: Any, task_id: Any) -> None:
        task = self.find(owner, task_id)
        task.read = True  # its caller asked: it knows how the task ends
        if task.status not in TERMINAL:
            task.finish("cancelled")
            if task.runner is not None:
                task.runner.cancel()

    def update(self, owner: Any, task_id: Any, responses: Any) -> None:
        task = self.find(owner, task_id)
        if not isinstance(responses, Mapping):
            raise RpcError(rpc.INVALID_PARAMS,
                           "Invalid params: 'inputResponses' must map request keys to answers")
        for key, answer in responses.items():
            entry = task.waiting.pop(key, None) if isinstance(key, str) else None
            if entry is None:
                continue  # an answer nobody waits for (answered already, or never asked)
            _, event, box = entry
            box.append(answer)
            event.set()
        if not task.waiting and task.status == "input_required":
            task._set("working")  # every question is answered: the tool runs on

    def pending(self) -> int:
        """Tasks a graceful shutdown waits for: those still running, and those that ended
        whose caller has not read the result yet and is expected back: within
        :data:`PATIENCE_MIN` seconds (or three of its longest pauses between polls, at most
        :data:`UNREAD_WINDOW`) of its last ``tasks/get`` or of the task's end. A poller away
        longer (a balancer sent it to another replica once ``/readyz`` said 503, or it left)
        does not hold the shutdown for the whole grace."""
        now = time.time()
        return sum(1 for t in self._tasks.values()
                   if t.status not in TERMINAL or t.awaited(now))

    def unread(self) -> int:
        """Results of the last :data:`UNREAD_WINDOW` seconds nobody read (a shutdown says how
        many it did not wait for)."""
        recent = time.time() - UNREAD_WINDOW
        return sum(1 for t in self._tasks.values()
                   if t.status in TERMINAL and not t.read and t.updated >= recent)

    def by_status(self) -> dict[tuple[str, ...], int]:
        """How many tasks are kept, by status (every status named, 0 too)."""
        counts: dict[tuple[str, ...], int] = {
            (status,): 0 for status in ("working", "input_required", *sorted(TERMINAL))}
        for task in self._tasks.values():
            counts[(task.status,)] = counts.get((task.status,), 0) + 1
        return counts

    def keeps(self, task_id: str) -> bool:
        """Whether a task of this id is kept here (of any caller): a shutting-down server
        still answers the requests about it."""
        return task_id in self._tasks

    def stop_for_shutdown(self, why: str) -> int:
        """Fail every running task (its tool is stopped) with a -32000 error saying
        ``why``: a poller reads that the server stopped it, not a cancellation it never
        asked for, nor an unknown task. Returns how many were stopped."""
        stopped = 0
        for task in list(self._tasks.values()):
            if task.status in TERMINAL:
                continue
            task.finish("failed", error={"code": rpc.SERVER_BUSY, "message": why})
            if task.runner is not None:
                task.runner.cancel()
            stopped += 1
        return stopped

    def close(self) -> None:
        """Stop every running task (the server is shutting down); ``aclose`` also waits for
        their tools to stop."""
        for task in self._tasks.values():
            self._drop(task)
        for timer in self._expiries.values():
            timer.cancel()
        self._expiries.clear()

    async def aclose(self, grace: float = 5.0) -> None:
        """``close``, then wait up to ``grace`` seconds for every task's tool to stop (its
        ``finally`` blocks run, a command's process is ended) before the server exits: a
        tool left to the loop's teardown may outlive what it needs (the log, the
        subreaper). Shielded: it runs on while the server is being cancelled."""
        self.close()
        runners = {t.runner for t in (*self._tasks.values(), *self._live)
                   if t.runner is not None and not t.runner.done()}
        for runner in runners:  # a cancelled task's tool that has not stopped yet too
            runner.cancel()
        if not runners:
            return
        import asyncio

        import anyio

        with anyio.move_on_after(grace, shield=True):
            await asyncio.wait(runners)
