"""How an in-process python tool is run: its own ``BaseException`` is its failure, and its
return value is mapped where the call's timeout can stop it.

- **A tool's BaseException is a failure, not the host's.** ``SystemExit`` (argparse, click
  and ``sys.exit()`` on a bad argument), ``KeyboardInterrupt``, ``GeneratorExit``, a
  ``BaseException`` subclass, ``BaseExceptionGroup``, and ``StopIteration`` (which a
  coroutine would turn into a misleading ``RuntimeError``) become ``ToolRaised``, an ordinary
  exception: the call's error result reads ``Tool 'x' failed: SystemExit: 2`` and every other
  call goes on. The host's own control exceptions pass (their class says
  ``toolhost_control = True``: ``ToolStopped``, which stops a sync tool's thread;
  ``InputRequired``, which asks the client for input), and so does an exception group
  holding one (a tool that asked several questions at once, in a task group). An async
  tool's ``CancelledError`` is a real cancellation (the client's
  ``notifications/cancelled``, a timeout) only when one is pending: a cancel scope around
  the call was cancelled, or the task was asked to cancel (asyncio's
  ``Task.cancelling()``); otherwise the tool raised it itself, and it is that call's
  failure.
- **A tool's exception is described where its code runs.** Its message (``str(exc)``, which
  runs the exception's own ``__str__``, or a ``KeyError``'s key's ``__repr__``) is read in the
  tool's pool thread, under the call's timeout, and carried to the loop as a ``ToolRaised``
  holding the text: a ``__str__`` that hangs is stopped like a hanging tool, one that raises
  gives ``(its message could not be read: ...)``. An async tool's plain exception (a built-in
  message of plain arguments) is read on the loop; any other is read in a pool thread too.
- **The return value is mapped off the event loop.** Mapping runs the tool's objects' own code
  (``__str__``, ``__iter__``, a Mapping's ``items``, a pydantic ``model_dump``): for a sync
  tool it runs in the tool's pool thread; for an async tool's value it runs in a pool thread
  too, inside the call's timeout, so an object whose ``__str__`` spins is stopped like a
  spinning tool and never freezes the other calls. Only small plain JSON (exact ``dict``,
  ``list``, ``str``, numbers, ``None``, at most ``PLAIN_NODES`` values) or a ``ToolResult``
  is mapped on the loop: no code of the tool's runs for it.
"""

from __future__ import annotations

import functools
import inspect
import os
from collections.abc import Awaitable, Callable
from typing import Any, NoReturn

from toolhost.backends.base import ToolFailure, ToolRaised
from toolhost.backends.convert import to_result
from toolhost.results import ToolResult

__all__ = ["PLAIN", "guarded_await", "guarded_call", "guarded_collect", "leave_fork",
           "map_value", "raised"]

# returned values mapped on the event loop: no code of the tool's runs for these
PLAIN = frozenset({str, int, float, bool, type(None), ToolResult})
_SCALARS = frozenset({str, int, float, bool, type(None)})
PLAIN_NODES = 200  # a dict or list of more values is mapped in a thread


def _own(exc: BaseException) -> bool:
    """Whether ``exc``, raised by a tool's code, is the tool's failure (not the host's: a
    class with ``toolhost_control = True``, such as ``ToolStopped`` or ``InputRequired``,
    passes through)."""
    if _control(exc):
        return False
    return not isinstance(exc, Exception) or isinstance(exc, StopIteration)


def _control(exc: BaseException) -> bool:
    """The host's control exception, or a task group's exception group holding one (a
    tool that asked several questions at once: ``InputRequired``)."""
    if getattr(type(exc), "toolhost_control", False):
        return True
    return isinstance(exc, BaseExceptionGroup) and exc.subgroup(  # noqa: F821 (3.11)
        lambda inner: getattr(type(inner), "toolhost_control", False)) is not None


def _carried(exc: BaseException) -> bool:
    """Whether ``exc`` (raised where the tool's code runs) goes to the loop as a
    ``ToolRaised`` described here: every exception but the host's control exceptions and
    the failures toolhost itself describes (``ToolFailure``, ``ToolRaised``)."""
    if _control(exc):
        return False
    return not isinstance(exc, (ToolFailure, ToolRaised))


def guarded_call(call: Callable[[], Any], limit: int) -> Any:
    """In a pool thread: ``call()``, its value mapped to a result there (an awaitable or an
    async generator is handed back as is); the tool's exception becomes a ``ToolRaised``
    described here."""
    parent = os.getpid()
    try:
        value = call()
    except BaseException as exc:
        leave_fork(parent, failed=True)
        if _carried(exc):
            raise ToolRaised(exc) from exc
        raise
    leave_fork(parent, failed=False)
    if inspect.isawaitable(value) or inspect.isasyncgen(value):
        return value
    return _mapped(value, limit)


def leave_fork(parent: int, *, failed: bool) -> None:
    """End, at once, a child process the tool forked that came back out of the tool's code
    (returned or raised instead of calling ``os._exit``): in the host's code it would be a
    second host on the same pipes, answering calls or waiting forever for a loop that is
    not there. Its exit status says whether it raised."""
    if os.getpid() != parent:
        os._exit(1 if failed else 0)


def _mapped(value: Any, limit: int) -> ToolResult:
    """In a pool thread: ``to_result``, where the value's exception is ``ToolRaised``."""
    try:
        return to_result(value, limit)
    except BaseException as exc:
        if _carried(exc):
            raise ToolRaised(exc) from exc
        raise


# exceptions whose message is read by C code from their arguments: with plain arguments no
# code of the tool's runs, so an async tool's exception of these is described on the loop
_PLAIN_STR = frozenset({BaseException.__str__, KeyError.__str__})
_PLAIN_ARGS = frozenset({str, int, float, bool, type(None)})


def _plain_message(exc: BaseException) -> bool:
    return (type(exc).__str__ in _PLAIN_STR
            and all(type(arg) in _PLAIN_ARGS for arg in exc.args))


def _described(exc: BaseException) -> ToolRaised:
    """In a pool thread: ``exc`` as a ``ToolRaised`` (its message read here)."""
    return ToolRaised(exc)


async def guarded_await(awaitable: Awaitable[Any],
                        run: Callable[..., Awaitable[Any]] | None = None) -> Any:
    """``await awaitable``: the tool's exception becomes ``ToolRaised`` (see ``raised``); a
    ``CancelledError`` is re-raised when a real cancellation is pending (see the module
    docstring)."""
    parent = os.getpid()
    try:
        value = await awaitable
    except BaseException as exc:
        leave_fork(parent, failed=True)
        await raised(exc, run)
    leave_fork(parent, failed=False)
    return value


async def guarded_collect(agen: Any, limit: int,
                          run: Callable[..., Awaitable[Any]] | None = None) -> list[Any]:
    """The items of an async generator a tool returned, read on the loop (under the call's
    timeout) no further than can be kept: ``limit`` + 1 items (each is at least a character
    of JSON); the tool's exception becomes ``ToolRaised`` (see ``raised``)."""
    items: list[Any] = []
    try:
        try:
            async for item in agen:
                items.append(item)
                if len(items) > limit:
                    break
        finally:
            await agen.aclose()
    except BaseException as exc:
        await raised(exc, run)
    return items


async def raised(exc: BaseException,
                 run: Callable[..., Awaitable[Any]] | None = None) -> NoReturn:
    """In an ``except BaseException`` around a tool's code on the event loop: re-raise what
    is not the tool's failure, else raise it as ``ToolRaised``. Its message is read by
    ``run`` (a pool's ``run``: off the loop, under the call's timeout) unless it is a plain
    one that runs no code of the tool's."""
    if _stop_iteration(exc):  # what Python made of a coroutine's StopIteration
        exc = exc.__cause__  # type: ignore[assignment]
    elif not _own(exc):
        if not _carried(exc):
            raise exc
        if run is None or _plain_message(exc):
            raise ToolRaised(exc) from exc
        carried: ToolRaised = await run(functools.partial(_described, exc))
        raise carried from exc
    import asyncio  # loaded by then (a call runs on the event loop): not at start-up

    import anyio.lowlevel

    # a pending cancellation wins, whatever the tool made of it (it may have caught it
    # and raised SystemExit): the call is cancelled, as asked
    await anyio.lowlevel.checkpoint_if_cancelled()  # raises if a scope was cancelled
    if _cancel_pending():  # the task itself was asked to cancel (asyncio's Ctrl-C)
        raise asyncio.CancelledError() from exc
    if run is None or _plain_message(exc):
        raise ToolRaised(exc) from exc
    carried = await run(functools.partial(_described, exc))
    raise carried from exc


def _stop_iteration(exc: BaseException) -> bool:
    return (isinstance(exc, RuntimeError) and isinstance(exc.__cause__, StopIteration)
            and str(exc).endswith("raised StopIteration"))


def _cancel_pending() -> bool:
    import asyncio

    try:
        task = asyncio.current_task()
    except RuntimeError:  # not asyncio (trio): its Cancelled cannot be made by a tool
        return True
    return task is not None and task.cancelling() > 0


async def map_value(value: Any, limit: int, run: Callable[..., Awaitable[Any]]) -> ToolResult:
    """``value`` mapped to a result: at once when it is plain, else by ``run`` (a pool's
    ``run``, given the function to call) off the event loop, stoppable by the call's
    timeout."""
    if _plain(value):
        return to_result(value, limit)
    result: ToolResult = await run(functools.partial(_mapped, value, limit))
    return result


def _plain(value: Any) -> bool:
    """Whether ``value`` is small plain JSON (exact ``dict``/``list`` of exact ``str``,
    numbers, ``None``; at most ``PLAIN_NODES`` values): mapping it runs no code of the
    tool's, and takes microseconds, so it needs no thread."""
    if type(value) in PLAIN:
        return True
    todo, seen = [value], 0
    while todo:
        item = todo.pop()
        seen += 1
        if seen > PLAIN_NODES:
            return False
        kind = type(item)
        if kind is dict:
            if any(type(k) is not str for k in item):
                return False
            todo.extend(item.values())
        elif kind is list:
            todo.extend(item)
        elif kind not in _SCALARS:
            return False
    return True
