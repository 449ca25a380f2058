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
``toolhost.compile.signature``). Sync functions run in a worker thread, coroutine functions on
the event loop. A parameter annotated ``CallContext`` receives the call's context (from a worker
thread, report progress with ``anyio.from_thread.run(ctx.progress, done, total, message)``).
The return value is mapped by ``toolhost.backends.convert.to_result``; by default the model
reads the structured JSON of a dict/list result.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import os
import sys
from collections.abc import Callable, Mapping
from typing import Any

import anyio.to_thread

from toolhost.backends.base import BindContext, Binding, CallContext
from toolhost.backends.convert import to_result
from toolhost.compile.signature import UnsupportedType, inspect_callable
from toolhost.config.model import ToolConfig
from toolhost.errors import CompileError
from toolhost.results import ToolResult

__all__ = ["PythonKind", "resolve_function"]

_DOTTED = r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*"
_REF = f"^{_DOTTED}:{_DOTTED}$"


class _NotFound(LookupError):
    """A ``LookupError`` that knows what to suggest (``hint``)."""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.hint = hint


_NOT_INSTALLED = "is the package installed in this environment?"


def _missing_module_hint(module_name: str, exc: ModuleNotFoundError) -> str:
    missing = exc.name or ""
    if missing and not (module_name == missing or module_name.startswith(missing + ".")):
        # the module exists but imports one that is not installed
        return f"'{module_name}' imports '{missing}': install it in this environment"
    return _NOT_INSTALLED


def _attribute_hint(obj: Any, part: str) -> str:
    import difflib

    names = [n for n in dir(obj) if not n.startswith("_") and callable(getattr(obj, n, None))]
    close = difflib.get_close_matches(part, names, n=1)
    if close:
        return f"did you mean '{close[0]}'?"
    return f"it has: {', '.join(sorted(names)[:10])}" if names else ""


def resolve_function(ref: str) -> Callable[..., Any]:
    """Import ``"package.module:attr.path"``. Raises ``LookupError`` with a readable message
    (and, when there is one, a suggestion in its ``hint`` attribute)."""
    module_name, sep, attr_path = ref.partition(":")
    if not sep or not module_name or not attr_path:
        raise _NotFound(f"'{ref}' is not of the form 'module.sub:function'")
    try:
        obj: Any = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        raise _NotFound(f"cannot import module '{module_name}': {exc}",
                        _missing_module_hint(module_name, exc)) from exc
    except Exception as exc:  # the module raised while importing
        raise _NotFound(f"importing '{module_name}' raised {type(exc).__name__}: {exc}",
                        f"run python -c 'import {module_name}' to see the traceback") from exc
    for i, part in enumerate(attr_path.split(".")):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            owner = ".".join([module_name, *attr_path.split(".")[:i]])
            raise _NotFound(f"'{owner}' has no attribute '{part}'",
                            _attribute_hint(obj, part)) from None
    if not callable(obj):
        raise LookupError(f"'{ref}' is a {type(obj).__name__}, not a function")
    return obj  # type: ignore[no-any-return]


def _extend_import_path(config_file: str, extra: str | list[str] | None) -> list[str]:
    """Append the declaring file's directory and ``path:`` entries to ``sys.path``; return
    them (for error hints)."""
    if not os.path.isfile(config_file):
        return []
    base = os.path.dirname(os.path.abspath(config_file))
    entries = [extra] if isinstance(extra, str) else list(extra or [])
    added = [base, *(os.path.normpath(os.path.join(base, e)) for e in entries)]
    for entry in added:
        if entry not in sys.path:
            sys.path.append(entry)
    return added


class PythonKind:
    """Calls an importable Python function."""

    name = "python"
    shorthand: str | None = "function"
    options_schema: Mapping[str, Any] = {
        "type": "object",
        "description": "Call a Python function; its signature and docstring give the schema.",
        "properties": {
            "function": {
                "type": "string",
                "pattern": _REF,
                "description": "Import path 'package.module:function' or "
                               "'package.module:object.method'.",
            },
            "path": {
                "description": "Directories to import from (appended to sys.path), relative "
                               "to the config file; that file's own directory always is.",
                "oneOf": [{"type": "string"},
                          {"type": "array", "items": {"type": "string"}}],
            },
        },
        "required": ["function"],
        "additionalProperties": False,
    }

    def bind(self, tool: ToolConfig, ctx: BindContext) -> Binding:
        origin = tool.backend.origin
        ref = str(tool.backend.options.get("function", ""))

        def problem(message: str, hint: str = "") -> CompileError:
            return CompileError([origin.problem(message, hint=hint)])

        searched = _extend_import_path(origin.file, tool.backend.options.get("path"))
        try:
            fn = resolve_function(ref)
        except LookupError as exc:
            hint = getattr(exc, "hint", "")
            if hint == _NOT_INSTALLED and searched:
                top = ref.partition(":")[0].split(".")[0]
                hint = (f"is the package installed in this environment, or {top}.py (or "
                        f"{top}/) in {' or '.join(searched)}?")
            raise problem(str(exc), hint) from None
        try:
            info = inspect_callable(fn)
        except (UnsupportedType, ValueError) as exc:
            raise problem(f"{ref}: {exc}", "wrap it in a function whose parameters are "
                          "keyword-callable and annotated with JSON-like types") from None
        converters = dict(info.converters)
        context_param = info.context_param

        def prepare(arguments: Mapping[str, Any], call_ctx: CallContext) -> dict[str, Any]:
            kwargs = {k: converters[k](v) if k in converters else v
                      for k, v in arguments.items()}
            if context_param:
                kwargs[context_param] = call_ctx
            return kwargs

        if info.is_async:
            async def invoke(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
                return to_result(await fn(**prepare(arguments, ctx)))
        else:
            async def invoke(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
                call = functools.partial(fn, **prepare(arguments, ctx))
                value = await anyio.to_thread.run_sync(call, abandon_on_cancel=True)
                if inspect.isawaitable(value):  # a sync function handing back a coroutine
                    value = await value
                return to_result(value)

        return Binding(invoke=invoke, input_schema=info.input_schema,
                       output_schema=info.output_schema, description=info.description,
                       output="structured")
