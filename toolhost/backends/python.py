"""The ``python`` backend kind: call a Python function.

Config::

    add: {python: "toolhost.demo:add"}              # shorthand for {python: {function: ...}}
    shout:
      python: {function: "mypkg.text:Formatter.shout"}   # attribute path after the colon

The function is imported at compile time (an import error is a config error naming the line).
A module next to the config file that declares the tool is importable as it is (that file's
directory is appended to ``sys.path``, after everything installed, so it never shadows an
installed package); ``path:`` appends more directories, relative to that file::

    stats: {python: {function: "teamtools.stats:summary", path: ../lib}}

Its signature and docstring give the inputSchema and the description (see
``toolhost.compile.signature``). Sync functions run in toolhost's bounded, stoppable thread pool
(``toolhost.backends.threads``), coroutine functions on the event loop; with ``isolation:
process`` either runs in a worker process that is killed on timeout, cancel or crash
(``toolhost.backends.worker``). A parameter annotated ``CallContext`` receives the call's
context (from a worker thread, report progress with ``anyio.from_thread.run(ctx.progress, done,
total, message)``). The return value is mapped, and cut to ``max_output_chars`` before it is
serialised, by ``toolhost.backends.convert.to_result``; by default the model reads the
structured JSON of a dict/list result. ``validate`` refuses dangerous entry points and untyped
parameters (``toolhost.backends.python_safety``), each with an explicit opt-out.
"""

from __future__ import annotations

import functools
import inspect
import os
from collections.abc import Mapping
from contextvars import copy_context
from typing import Any

from toolhost.backends.base import BindContext, Binding, CallContext
from toolhost.backends.convert import to_result
from toolhost.backends.host_guards import HOST_STATE, IN_TOOL, contain_tasks, guard_exit
from toolhost.backends.loop_hold import INLINE_CODES, current_deadline, hold, release
from toolhost.backends.max_memory import max_memory_bytes
from toolhost.backends.python_calls import (
    PLAIN,
    guarded_await,
    guarded_call,
    guarded_collect,
    leave_fork,
    map_value,
    raised,
)
from toolhost.backends.python_import import (
    NOT_INSTALLED,
    extend_import_path,
    resolve_function,
)
from toolhost.backends.python_options import OPTIONS_SCHEMA
from toolhost.backends.python_safety import dangerous_reason, untyped_params
from toolhost.compile.signature import UnsupportedType, inspect_callable
from toolhost.compile.tool import DEFAULT_MAX_OUTPUT_CHARS
from toolhost.config.model import ToolConfig
from toolhost.config.repotree import leaves_checkout
from toolhost.errors import CompileError
from toolhost.results import ToolResult

__all__ = ["PythonKind", "resolve_function"]

class PythonKind:
    """Calls an importable Python function, in-process or in a worker process."""

    name = "python"
    shorthand: str | None = "function"
    options_schema: Mapping[str, Any] = OPTIONS_SCHEMA

    def bind(self, tool: ToolConfig, ctx: BindContext) -> Binding:
        origin = tool.backend.origin
        options = tool.backend.options
        ref = str(options.get("function", ""))

        def problem(message: str, hint: str = "", key: str = "") -> CompileError:
            return CompileError([origin.problem(message, hint=hint, key=key)])

        extra = options.get("path")
        for written in ([extra] if isinstance(extra, str) else list(extra or [])):
            resolved = os.path.join(os.path.dirname(os.path.abspath(origin.file)), written)
            if (leaves := leaves_checkout(origin.file, resolved, written)) is not None:
                raise problem(leaves[0], leaves[1], key=".path")
        try:
            searched = extend_import_path(origin.file, extra)
        except LookupError as exc:  # too many import directories
            raise problem(str(exc), getattr(exc, "hint", ""), key=".path") from None
        # before the import (an in-process tool of the module may come later): a module's
        guard_exit()  # `from os import chdir, _exit` takes the guarded (refused in tools)
        # a thread the module starts at import must not hold the command's exit
        from toolhost.backends.import_threads import threads_noted

        try:
            with threads_noted(f"python tool module '{ref.partition(':')[0]}'"):
                fn = resolve_function(ref, searched)
        except LookupError as exc:
            hint = getattr(exc, "hint", "")
            if hint == NOT_INSTALLED and searched:
                top = ref.partition(":")[0].split(".")[0]
                hint = (f"is the package installed in this environment, or {top}.py (or "
                        f"{top}/) in {' or '.join(searched)}?")
            raise problem(str(exc), hint) from None
        danger = dangerous_reason(ref, fn)
        if danger and options.get("dangerously_allow_entry_point") is not True:
            raise problem(danger, "wrap what the tool may do in a function of your own with "
                          "typed parameters, or set dangerously_allow_entry_point: true")
        try:
            info = inspect_callable(fn)
        except (UnsupportedType, ValueError) as exc:
            raise problem(f"{ref}: {exc}", "wrap it in a function whose parameters are "
                          "keyword-callable and annotated with JSON-like types") from None
        if options.get("allow_untyped") is not True:
            untyped = untyped_params(fn, tool.params, info.context_param)
            if untyped:
                raise problem(
                    f"{ref}: parameter{'s' if len(untyped) > 1 else ''} "
                    f"{', '.join(repr(p) for p in untyped)} of the function "
                    f"{'have' if len(untyped) > 1 else 'has'} no usable type, so the model "
                    "could pass any value", "annotate it (str, int, list[str], a TypedDict, "
                    "...), declare it under params:, or set allow_untyped: true")
        limit = tool.max_output_chars or DEFAULT_MAX_OUTPUT_CHARS
        memory = _max_memory(options.get("max_memory"), options.get("isolation"))
        if isinstance(memory, str):
            raise problem(memory, "" if "write e.g." in memory else
                          "write e.g. 1GiB or 4GiB, with isolation: process", key=".max_memory")
        if options.get("pass_env") is not None and options.get("isolation") != "process":
            raise problem("pass_env needs isolation: process (an in-process tool shares the "
                          "host's whole environment)", "set isolation: process",
                          key=".pass_env")
        inline = options.get("blocking") is False
        if inline and (options.get("isolation") == "process" or info.is_async):
            raise problem(
                f"{ref}: blocking: false runs a def on the event loop; "
                + ("isolation: process runs it in a worker process" if not info.is_async
                   else "an async def runs there already"),
                "remove blocking: false" if info.is_async else
                "choose one: blocking: false (quick code, no thread hop) or isolation: "
                "process", key=".blocking")
        if options.get("isolation") == "process":
            invoke = _process_invoke(ref, searched, tool, int(options.get("workers") or 2),
                                     limit, ctx, memory, tuple(options.get("pass_env") or ()))
        else:
            invoke = _thread_invoke(fn, info, tool, limit, inline)
        return Binding(invoke=invoke, input_schema=info.input_schema,
                       output_schema=info.output_schema, description=info.description,
                       output="structured")


_MIN_MEMORY = 512 << 20  # the interpreter, its imports and a 256 MiB call thread stack


def _max_memory(raw: Any, isolation: Any) -> int | str:
    """``max_memory`` in bytes (0: none), or what is wrong with it."""
    if raw is not None and isolation != "process":
        return ("max_memory needs isolation: process (an in-process tool's memory is the "
                "host's, which no limit can separate)")
    return max_memory_bytes(raw, _MIN_MEMORY, "a worker's call thread has a 256 MiB stack")


def _process_invoke(ref: str, search: list[str], tool: ToolConfig, workers: int, limit: int,
                    ctx: BindContext, memory: int = 0, pass_env: tuple[str, ...] = ()) -> Any:
    from toolhost.backends.worker import WorkerPool, WorkerSpec

    pool = WorkerPool(WorkerSpec(function=ref, tool=tool.name, limit=limit,
                                 search=tuple(search), max_memory=memory,
                                 server_env=dict(ctx.server.defaults.env),
                                 pass_env=pass_env), workers)
    ctx.on_close(pool.aclose)
    return pool.call


def _inline(fn: Any) -> Any:
    """A ``blocking: false`` def as a coroutine function: called on the event loop as an
    async def's body would be. Its frame is what the loop-hold guard looks for, to stop it at
    its timeout (and its code, in ``INLINE_CODES``, how the guard's messages know it for one).
    In a copy of the call's context: it sees the host's guards (``IN_TOOL``), and what it
    sets stays in the call (never the host's or another call's)."""
    async def inline(**kwargs: Any) -> Any:
        value = copy_context().run(fn, **kwargs)
        if type(value) not in PLAIN and inspect.isawaitable(value):  # a def handing back a
            value = await value  # coroutine: it runs here too
        return value
    return inline


INLINE_CODES.add(_inline(None).__code__)


def _thread_invoke(fn: Any, info: Any, tool: ToolConfig, limit: int,
                   inline: bool = False) -> Any:
    context_param = info.context_param

    def prepare(arguments: Mapping[str, Any], call_ctx: CallContext) -> dict[str, Any]:
        kwargs: dict[str, Any] = info.convert(arguments)
        if context_param:
            kwargs[context_param] = call_ctx
        return kwargs

    # the process's pool, taken at the first call: toolhost.backends.threads loads asyncio
    # (~20 ms), which validating and listing never need
    pools: list[Any] = []

    def pool() -> Any:
        if not pools:
            from toolhost.backends.threads import default_pool

            pools.append(default_pool())
        return pools[0]

    def runner(ctx: CallContext) -> Any:
        return functools.partial(pool().run, tool=ctx.tool or tool.wire_name)

    if info.is_async or inline:
        # a blocking: false def takes the async def's path whole: on the loop, no thread hop
        start = _inline(fn) if inline else fn

        async def invoke_async(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
            parent = os.getpid()
            try:  # the arguments' converters run the tool's code too
                coro = start(**prepare(arguments, ctx))
                # blocking code in it holds every other call: stopped at its timeout
                held = hold(coro, ctx.tool or tool.wire_name, current_deadline())
                try:
                    value = await coro
                finally:
                    release(held)
            except BaseException as exc:  # its message is read in a pool thread
                leave_fork(parent, failed=True)  # a child it forked ends here
                await raised(exc, runner(ctx))
            leave_fork(parent, failed=False)
            if inspect.isasyncgen(value):
                value = await guarded_collect(value, limit, runner(ctx))
            if type(value) in PLAIN:  # no code of the tool's runs to map it: here
                return to_result(value, limit)
            return await map_value(value, limit, runner(ctx))

        async def invoke(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
            contain_tasks()
            token = IN_TOOL.set(True)
            HOST_STATE.enter()
            try:
                return await invoke_async(arguments, ctx)
            finally:
                HOST_STATE.leave(ctx.tool or tool.wire_name)
                IN_TOOL.reset(token)
        return invoke

    async def invoke_sync(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
        # Converted and mapped (and cut) in the thread: the tool's code (a dataclass's
        # __post_init__, a value's __str__) runs where a timeout stops it, and a huge value
        # never reaches the event loop.
        def call() -> Any:
            return fn(**prepare(arguments, ctx))
        name = ctx.tool or tool.wire_name
        pool_run = pool().run
        HOST_STATE.enter()
        try:
            value = await pool_run(functools.partial(guarded_call, call, limit), tool=name)
            if type(value) is ToolResult:  # mapped in the thread: the usual end
                return value
            run = functools.partial(pool_run, tool=name)
            if inspect.isawaitable(value):  # a sync function handing back a coroutine
                contain_tasks()
                token = IN_TOOL.set(True)
                try:
                    value = await guarded_await(value, run)
                    if inspect.isasyncgen(value):
                        value = await guarded_collect(value, limit, run)
                finally:
                    IN_TOOL.reset(token)
                value = await map_value(value, limit, run)
            elif inspect.isasyncgen(value):  # an async generator function (async def + yield)
                contain_tasks()
                token = IN_TOOL.set(True)
                try:
                    items = await guarded_collect(value, limit, run)
                finally:
                    IN_TOOL.reset(token)
                value = await map_value(items, limit, run)
        finally:
            HOST_STATE.leave(name)
        return value  # type: ignore[no-any-return]
    return invoke_sync
