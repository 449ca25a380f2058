"""The one small interface every backend kind implements.

A kind (``python``, ``command``, ``http``, or a plugin's) is an object with a ``name``, a
JSON Schema for its config block and a ``bind`` method. ``bind`` runs once, at compile time:
it imports, parses templates and builds clients, and returns a ``Binding`` whose ``invoke``
is all that runs per call. Errors found while binding are ``CompileError``s naming the
config line; errors while invoking become ``isError`` results.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from toolhost.config.model import ServerConfig, ToolConfig
from toolhost.results import ToolResult

__all__ = [
    "BackendKind",
    "BindContext",
    "Binding",
    "CallContext",
    "Invoke",
    "ProgressFn",
    "ToolFailure",
    "ToolRaised",
    "describe",
]

# progress(progress, total, message)
ProgressFn = Callable[[float, float | None, str | None], Awaitable[None]]


async def _no_progress(progress: float, total: float | None = None,
                       message: str | None = None) -> None:
    # the same defaults as the sender a progressToken brings (toolhost.mcp.calls): a
    # ``ctx.progress(0.5)`` never fails only because the client gave no token
    return None


def _cannot(method: str) -> Callable[..., Awaitable[Any]]:
    async def refuse(*args: Any, **kwargs: Any) -> Any:
        raise ToolFailure(
            f"cannot send {method} from here: only `toolhost serve` can ask the client "
            "(the Claude CLI under `toolhost run` has no channel for it; an HTTP client of "
            "the 2025 revisions must accept text/event-stream)")
    return refuse


# MCP's level names (ctx.log("notice", ...)) as Python's; a name not among them is info
_LEVEL_NUMBERS = {"debug": logging.DEBUG, "info": logging.INFO, "notice": logging.INFO,
                  "warning": logging.WARNING, "error": logging.ERROR,
                  "critical": logging.CRITICAL, "alert": logging.CRITICAL,
                  "emergency": logging.CRITICAL}


class CallLog(logging.LoggerAdapter):  # type: ignore[type-arg]
    """toolhost's call logger as ``ctx.log`` when no client hears the call (a tool under
    ``toolhost run``, a 2026-07-28 request without a log level, an isolated worker): the
    documented ``ctx.log("warning", "disk %s is full", disk)`` works there too, as it does
    on a client's ``ClientLog`` (a plain ``Logger`` is not callable: such a call failed)."""

    def __call__(self, level: int | str, message: str, *args: Any) -> None:
        number = level if isinstance(level, int) and not isinstance(level, bool) \
            else _LEVEL_NUMBERS.get(str(level).lower(), logging.INFO)
        self.log(number, message, *args)


# Shared defaults: a call builds one context, and building fresh closures and looking the
# logger up (under logging's lock) each time was most of its cost
_CALL_LOG = CallLog(logging.getLogger("toolhost.call"), {})
CALL_LOG = _CALL_LOG  # the default ctx.log (toolhost.mcp.tools_call gives it too)
_CANNOT_ELICIT = _cannot("elicitation/create")
_CANNOT_SAMPLE = _cannot("sampling/createMessage")
_CANNOT_ROOTS = _cannot("roots/list")
CANNOT_ROOTS = _CANNOT_ROOTS  # ctx.roots where no client can be asked (toolhost.mcp.tools_call)


async def _not_a_task() -> bool:
    # ctx.become_task() where the call cannot become a task: it simply runs on
    return False


@dataclass(frozen=True)
class CallContext:
    """What a running call knows besides its arguments.

    Cancellation is structural: the caller runs the call inside an anyio cancel scope and
    cancels it; a backend must clean up (kill its process group, close its response) when
    cancelled.
    """

    call_id: str = ""
    tool: str = ""  # wire name, mcp__server__tool
    # The Claude CLI's id of the model's tool_use block (``_meta["claudecode/toolUseId"]``),
    # when the call came from the CLI: the id its ``can_use_tool`` named
    tool_use_id: str = ""
    progress: ProgressFn = _no_progress
    # ctx.log.info(...) / ctx.log("warning", ...): to stderr, and to the MCP client when it
    # listens (toolhost.mcp.client_log.ClientLog)
    log: logging.Logger | logging.LoggerAdapter[Any] = _CALL_LOG
    # await ctx.elicit("message", schema) -> Elicited; await ctx.sample("prompt") -> Sampled
    # (toolhost.mcp.elicit): under `toolhost serve` the MCP core binds them to the client
    # of the call; elsewhere they raise ToolFailure saying why.
    elicit: Callable[..., Awaitable[Any]] = _CANNOT_ELICIT
    sample: Callable[..., Awaitable[Any]] = _CANNOT_SAMPLE
    # await ctx.roots() -> the client's roots, [{"uri": "file:///...", "name": ...}, ...]
    roots: Callable[..., Awaitable[Any]] = _CANNOT_ROOTS
    # await ctx.become_task() -> True: the call of a tool whose config says
    # ``task_support: {mode: ..., ask_first: true}`` is answered from here on as a task
    # (its questions so far were asked in the request; toolhost.mcp.tasks_first); False
    # where it cannot (a direct call, a task already, ``toolhost run``): it runs on
    become_task: Callable[[], Awaitable[bool]] = _not_a_task


class ToolFailure(Exception):
    """Raised by a backend's ``invoke``: the call's error result reads
    ``Tool '<name>' <message>`` (e.g. "crashed: its worker process was killed by SIGSEGV")."""


class ToolRaised(Exception):
    """A tool's own ``BaseException`` that is not an ``Exception`` (``SystemExit`` from
    argparse, ``KeyboardInterrupt``, ``GeneratorExit``, a ``CancelledError`` no cancellation
    caused, ...), carried as an ordinary failure: the call's error result names the original
    (``Tool 'x' failed: SystemExit: 2``) and the host goes on. The original is
    ``__cause__``."""

    def __init__(self, original: BaseException, text: str | None = None) -> None:
        super().__init__(describe(original) if text is None else text)
        self.original_type = type(original).__name__


def describe(exc: BaseException) -> str:
    """``str(exc)``, or a note that it could not be read: a tool's exception whose
    ``__str__`` raises (or returns something that is not text) is still a one-line failure.
    The host's control exceptions (``ToolStopped`` stopping this thread) pass through."""
    try:
        return str(exc)
    except BaseException as inner:
        if getattr(type(inner), "toolhost_control", False):
            raise
        return f"(its message could not be read: {type(inner).__name__})"


class Invoke(Protocol):
    async def __call__(self, arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult: ...


@dataclass(frozen=True)
class Binding:
    """A tool bound to its backend: the per-call function plus what binding learned."""

    invoke: Invoke
    # Schema the backend generated (from a signature, template placeholders, ...). Params
    # declared in the config override its properties.
    input_schema: Mapping[str, Any] = field(
        default_factory=lambda: {"type": "object", "properties": {}})
    output_schema: Mapping[str, Any] | None = None
    description: str | None = None  # e.g. the first docstring paragraph
    output: Literal["structured", "text"] = "text"  # what the model reads by default


class BindContext:
    """Per-server resources shared by the tools of one server (e.g. one pooled HTTP client)."""

    def __init__(self, server: ServerConfig) -> None:
        self.server = server
        self._resources: dict[str, Any] = {}
        self._closers: list[Callable[[], Awaitable[None]]] = []

    def shared(self, key: str, factory: Callable[[], Any]) -> Any:
        """Return the server's resource ``key``, creating it with ``factory`` on first use."""
        if key not in self._resources:
            self._resources[key] = factory()
        return self._resources[key]

    def on_close(self, closer: Callable[[], Awaitable[None]]) -> None:
        """Await ``closer`` when the compiled tools are closed (last registered, first run)."""
        self._closers.append(closer)

    async def aclose(self) -> None:
        """Run every ``on_close`` closer once."""
        closers, self._closers = self._closers, []
        for closer in reversed(closers):
            await closer()


class BackendKind(Protocol):
    """A backend kind. Register it in the kinds dict under ``name``."""

    name: str
    # Key that a non-mapping block expands to: python: "m:f" -> {"function": "m:f"}.
    shorthand: str | None
    # JSON Schema of the (expanded) block, used by the loader to report bad keys by path.
    options_schema: Mapping[str, Any]

    def bind(self, tool: ToolConfig, ctx: BindContext) -> Binding:
        """Compile one tool. Raise ``CompileError`` naming ``tool.backend.origin``."""
        ...
