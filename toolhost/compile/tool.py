"""A compiled tool: everything tools/list and tools/call need, built once at compile time."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from toolhost.backends.base import CallContext, Invoke, ToolFailure, ToolRaised, describe
from toolhost.compile.defaults import FillRefused, FillUnsure, InsideDefaults, fill_defaults
from toolhost.compile.fastcheck import Check, compile_check
from toolhost.compile.shaping import cut_text, shape_result
from toolhost.compile.validators import real_validator
from toolhost.config.limits import LIMITS
from toolhost.config.model import UNKNOWN, Origin
from toolhost.excerpt import cut
from toolhost.failures import log_failure
from toolhost.redaction.binary import without_secret_data
from toolhost.redaction.values import BINARY_KEYS, across_blocks, across_leaves, redact_strings
from toolhost.results import ToolResult

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

__all__ = ["CompiledTool"]

DEFAULT_MAX_OUTPUT_CHARS = 40_000  # below the ~49,000 the CLI passes intact
MAX_ERRORS = 20  # argument errors reported per call; the rest are counted, not formatted
_UNSET: Any = object()


@dataclass(frozen=True)
class CompiledTool:
    """One tool, ready to be listed and called. Frozen: a reload builds new ones."""

    name: str  # bare tool name, as in tools/list
    server: str
    description: str
    input_schema: Mapping[str, Any]
    validator: Validator  # compiled once from input_schema (a LazyValidator: at first use)
    invoke: Invoke
    title: str | None = None
    output_schema: Mapping[str, Any] | None = None
    output_validator: Validator | None = None
    annotations: Mapping[str, Any] = field(default_factory=dict)
    timeout: float | None = None
    output: Literal["structured", "text"] = "text"
    max_output_chars: int = DEFAULT_MAX_OUTPUT_CHARS
    origin: Origin = UNKNOWN
    # Defaults filled in for arguments the model left out (after validation): top-level
    # values, and ``toolhost.compile.defaults.Inside`` for those inside a given argument.
    defaults: Mapping[str, Any] = field(default_factory=dict)
    # Hides secret values in what the model reads: errors always, results too unless
    # ``redact_results`` is off (the tool's ``redact_results: false``).
    redact: Callable[[str], str] | None = None
    redact_results: bool = True
    # integral floats where the schema says integer -> ints (toolhost.compile.integers)
    integers: Callable[[Mapping[str, Any]], Any] | None = None
    # "optional" / "required": a 2026-07-28 call may run as a task (toolhost.mcp.tasks);
    # None: never (the spec's "forbidden")
    task_support: Literal["optional", "required"] | None = None
    # asks its questions in the request (InputRequiredResult), a task from
    # ``ctx.become_task()`` on (toolhost.mcp.tasks_first)
    task_ask_first: bool = False
    # an imported service's tool (an OpenAPI operation): what the model reads of its results
    # and errors has characters no person sees written as escapes (``toolhost.shown``)
    shown: bool = False
    # ``fast_check``, compiled on first use (a thousand tools load without it)
    _fast: Any = field(default=_UNSET, init=False, repr=False, compare=False)

    @property
    def fast_check(self) -> Check | None:
        """A quick "valid" for the common case, compiled from the validator (see fastcheck);
        when it cannot say yes, the validator decides."""
        fast = self._fast
        if fast is _UNSET:
            fast = compile_check(real_validator(self.validator))
            object.__setattr__(self, "_fast", fast)
        return fast  # type: ignore[no-any-return]

    @property
    def wire_name(self) -> str:
        return f"mcp__{self.server}__{self.name}"

    def descriptor(self) -> dict[str, Any]:
        """The tools/list entry."""
        out: dict[str, Any] = {"name": self.name, "description": self.description,
                               "inputSchema": dict(self.input_schema)}
        if self.title:
            out["title"] = self.title
        annotations = dict(self.annotations)
        if self.title and "title" not in annotations:
            annotations["title"] = self.title  # the CLI shows annotations.title
        if annotations:
            out["annotations"] = annotations
        if self.output_schema is not None:
            out["outputSchema"] = dict(self.output_schema)
        if self.task_support is not None:
            out["execution"] = {"taskSupport": self.task_support}
        return out

    def argument_errors(self, arguments: Mapping[str, Any]) -> list[str]:
        """Human-readable validation errors, each naming the argument."""
        errors = []
        # Bounded: a million wrong items must not build a million messages (the rest are not
        # even formatted), and a message quoting a 50 MB argument is cut to an excerpt.
        found = sorted(itertools.islice(self.validator.iter_errors(arguments), MAX_ERRORS + 1),
                       key=lambda e: [(isinstance(p, str), p) for p in e.path])
        for err in found[:MAX_ERRORS]:
            where = cut(".".join(str(p) for p in err.path), 100)
            message = cut(err.message)
            # a root-level error ("'title' is a required property") names its argument itself
            errors.append(f"{where}: {message}" if where else message)
        if len(found) > MAX_ERRORS:
            errors.append("(more errors not shown)")
        return errors

    async def call(self, arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
        """Validate, invoke with the timeout, turn any failure into an isError result, hide
        secrets (always in errors; in results unless ``redact_results`` is off), and shape what
        the model reads (structured or text, cut to ``max_output_chars``: after redaction, so
        a cut never shows the first characters of a secret)."""
        raw = result = await self._run(arguments, ctx)
        if self.redact is not None and (result.is_error or self.redact_results):
            result = redact_result(result, self.redact)
        hidden = result
        if self.shown:  # before the cut, so the limit holds as the model reads it
            from toolhost.shown import shown_result

            result = shown_result(result)
        if result.is_error:
            return cut_text(ToolResult(content=result.content, is_error=True),
                            self.max_output_chars)
        shaped = shape_result(result, tool=self.name, output=self.output,
                              output_validator=self.output_validator,
                              max_chars=self.max_output_chars)
        # "'***' is not of type 'integer'" needs a why (compared only then: not per call)
        if shaped.is_error and hidden is not raw and hidden.structured != raw.structured:
            return ToolResult.error(f"{shaped.content[0].get('text', '')} (a secret of the "
                                    "config was hidden in it as ***; see redact_results)")
        return shaped

    def _check(self, arguments: Mapping[str, Any]) -> list[str]:
        if self.validator.is_valid(arguments):
            return []
        return self.argument_errors(arguments) or ["not valid"]

    async def _run(self, arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
        if type(arguments) is not dict and not isinstance(arguments, Mapping):
            return ToolResult.error(f"Invalid arguments for tool '{self.name}': expected an "
                                    f"object, got {type(arguments).__name__}")
        try:
            fast = self.fast_check
            if fast is not None and fast(arguments):
                errors: list[str] = []
            elif (size := _size(arguments, cap := LIMITS.argument_values)) == "small":
                errors = self._check(arguments)
            elif size == "over":  # jsonschema's ~10 us an item would hold a worker for long
                errors = [f"the arguments hold more than {cap:,} values (array items and "
                          "object members together), more than are checked against this "
                          "tool's inputSchema; send fewer in one call (the server's limit "
                          "is TOOLHOST_MAX_ARGUMENT_VALUES)"]
            else:  # jsonschema spends ~10 us an item: a big argument is checked off the loop
                from anyio import to_thread

                errors = await to_thread.run_sync(self._check, arguments,
                                                  abandon_on_cancel=True)
        except OverflowError:  # jsonschema's multipleOf divides a 309+ digit integer as a float
            return ToolResult.error(f"Invalid arguments for tool '{self.name}': a number is "
                                    "too large to check against the schema (multipleOf): "
                                    "send a smaller one")
        except Exception as exc:  # fail closed: what cannot be checked is not called
            why = _why_unchecked(exc)
            ctx.log.warning("tool %s: its inputSchema cannot be checked (%s)", self.wire_name, why)
            return ToolResult.error(f"Tool '{self.name}' cannot be called: its inputSchema "
                                    f"cannot be checked ({why})")
        if errors:
            return ToolResult.error("Invalid arguments for tool "
                                    f"'{self.name}': " + "; ".join(errors))
        if self.defaults:  # a list or object default is copied: a tool may change it
            try:
                try:
                    filled = fill_defaults(self.defaults, arguments)
                except FillUnsure:  # the rules judged each branch's fill: its upstream's
                    filled = fill_defaults(self.defaults, arguments, leave_unsure=True)
            except FillRefused as exc:  # (the policy refuses it too: the tool's own lock)
                return ToolResult.error("Invalid arguments for tool "
                                        f"'{self.name}': " + exc.said(None))
            if filled is not arguments and isinstance(self.defaults, InsideDefaults):
                wrong = await _checked_off_loop(self._check, filled)
                if wrong:  # (params over an upstream's schema): it would apply it all the same
                    return ToolResult.error(
                        f"Invalid arguments for tool '{self.name}': " + "; ".join(wrong) +
                        " (a default the schema declares inside an argument, filled in for "
                        "what the call left out; send a value of it that fits)")
            arguments = dict(filled)
        if self.integers is not None:
            arguments = self.integers(arguments)
        try:
            if self.timeout is not None:
                with _fail_after()(self.timeout):
                    result = await self.invoke(arguments, ctx)
            else:
                result = await self.invoke(arguments, ctx)
        except TimeoutError:
            return ToolResult.error(f"Tool '{self.name}' timed out after {self.timeout:g}s and "
                                    "was stopped. Try a smaller request.")
        except ToolFailure as exc:  # the backend said what happened
            told = describe(exc)
            ctx.log.warning("tool %s %s", self.wire_name, told)
            message = f"Tool '{self.name}' {told}"
            return ToolResult.error(self.redact(message) if self.redact else message)
        except Exception as exc:  # a tool's failure is a result, never a crash
            # a ToolRaised carries its message, read where the tool's code ran; any other
            # exception's is read here, and one that cannot be read is said so
            shown = exc.__cause__ if isinstance(exc, ToolRaised) and exc.__cause__ else exc
            kind = exc.original_type if isinstance(exc, ToolRaised) else type(exc).__name__
            text = describe(exc)
            log_failure(ctx.log, f"tool {self.wire_name} failed", shown,  # traceback: --debug
                        kind=kind, message=text)
            return ToolResult.error(f"Tool '{self.name}' failed: {kind}: {text}" if text
                                    else f"Tool '{self.name}' failed: {kind}")
        if not isinstance(result, ToolResult):
            return ToolResult.error(f"Tool '{self.name}' produced no result (its backend "
                                    f"returned {type(result).__name__}).")
        return result


_INLINE_VALUES = 10_000  # arguments checked on the event loop: at most this many values


def _size(arguments: Mapping[str, Any], cap: int) -> str:
    """``"small"`` when ``arguments`` hold at most ``_INLINE_VALUES`` values and no string over
    100,000 characters, ``"over"`` when they hold more than ``cap`` values
    (``TOOLHOST_MAX_ARGUMENT_VALUES``), else ``"big"`` (counted without walking more than
    ``cap`` of them)."""
    values, long_string, stack = 0, False, [arguments]
    while stack:
        node = stack.pop()
        if isinstance(node, (dict, list)):
            values += len(node)
            if values > cap:
                return "over"
            stack.extend(node.values() if isinstance(node, dict) else node)
        elif isinstance(node, str) and len(node) > 100_000:
            long_string = True
    return "small" if values <= _INLINE_VALUES and not long_string else "big"


async def _checked_off_loop(check: Callable[[Mapping[str, Any]], list[str]],
                            arguments: Mapping[str, Any]) -> list[str]:
    if _size(arguments, LIMITS.argument_values) == "small":
        return check(arguments)
    from anyio import to_thread

    return await to_thread.run_sync(check, arguments, abandon_on_cancel=True)


def _why_unchecked(exc: BaseException) -> str:
    if isinstance(exc, RecursionError):
        return "it nests or refers too deeply"
    return cut(f"{type(exc).__name__}: {exc}".splitlines()[0], 200)


def _fail_after() -> Any:
    # toolhost.deadlines' fail_after (one timer per event loop, not one per call, as anyio's
    # makes), loaded with the first call: it imports asyncio and anyio, which loading and
    # validating a config never need
    global _FAIL_AFTER
    if _FAIL_AFTER is None:
        from toolhost.deadlines import fail_after

        _FAIL_AFTER = fail_after
    return _FAIL_AFTER


_FAIL_AFTER: Any = None


def redact_result(result: ToolResult, redact: Callable[[str], str]) -> ToolResult:
    """``result`` with ``redact`` applied to its text and structured content (binary data of
    images, audio and blobs is left as it is, unless it holds a secret: then the block is
    hidden whole)."""
    blocks = without_secret_data(list(result.content), redact)
    content = tuple(across_blocks(blocks, [
        {k: v if k in BINARY_KEYS else redact_strings(v, redact) for k, v in b.items()}
        for b in blocks], redact))  # a secret cut over two text blocks too
    structured = (across_leaves(result.structured, redact_strings(result.structured, redact),
                                redact)  # a secret cut over an object's values too
                  if result.structured is not None else None)
    return ToolResult(content=content, structured=structured, is_error=result.is_error)


