"""A Python callable's signature and docstring -> inputSchema, description, outputSchema.

Each parameter becomes a property: its annotation gives the schema (see ``pytypes``), its
default makes it optional (and is advertised when it is JSON), ``T | None`` without a default is
still required but may be null, and the docstring gives its description (Google, NumPy or reST
style; an ``Annotated[T, "text"]`` description wins). A parameter annotated ``CallContext`` is
the call's context and is not part of the schema. The return annotation gives the
outputSchema when it describes a JSON object (a TypedDict, dataclass, pydantic model or
``dict``); a list return is wrapped as ``{"result": [...]}``.
"""

from __future__ import annotations

import enum
import inspect
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from toolhost.backends.base import CallContext
from toolhost.compile.pytypes import (
    Converter,
    TypeMapper,
    UnsupportedType,
    is_object_type,
    jsonable,
)
from toolhost.results import ToolResult

__all__ = ["SignatureInfo", "UnsupportedType", "inspect_callable"]

_LIST_ORIGINS = {list, tuple, set, frozenset}


@dataclass(frozen=True)
class SignatureInfo:
    """What a python tool's signature tells: its schemas, converters and context parameter."""

    input_schema: dict[str, Any]
    description: str | None
    output_schema: dict[str, Any] | None
    # param name -> JSON value to Python object, for params that need one
    converters: Mapping[str, Converter] = field(default_factory=dict)
    context_param: str | None = None  # receives the CallContext
    is_async: bool = False
    # **kwargs: T: the converter of each argument that is not a named parameter
    rest_converter: Converter | None = None

    def convert(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """The validated JSON arguments as the function's annotations say."""
        convs, rest = self.converters, self.rest_converter
        if rest is None:
            return {k: convs[k](v) if k in convs else v for k, v in arguments.items()}
        named = self.input_schema.get("properties") or {}
        return {k: convs[k](v) if k in convs else v if k in named else rest(v)
                for k, v in arguments.items()}


def _hints(fn: Callable[..., Any]) -> dict[str, Any]:
    target: Any = fn if inspect.isroutine(fn) else getattr(fn, "__call__", fn)  # noqa: B004
    try:
        return typing.get_type_hints(target, include_extras=True)
    except Exception as exc:  # a forward reference that does not resolve
        raise UnsupportedType(f"cannot resolve the annotations: {exc}") from exc


def _is_context(hint: Any) -> bool:
    while typing.get_origin(hint) is typing.Annotated:
        hint = typing.get_args(hint)[0]
    return hint is CallContext


def output_schema_for(mapper: TypeMapper, hint: Any) -> dict[str, Any] | None:
    """The outputSchema a return annotation implies, or None."""
    if hint is inspect.Signature.empty or hint is None:
        return None
    bare = hint
    while typing.get_origin(bare) is typing.Annotated:
        bare = typing.get_args(bare)[0]
    if _mentions_tool_result(bare):  # the function shapes its own result: no schema to promise
        return None
    if is_object_type(bare):
        return mapper.schema(hint)
    if (typing.get_origin(bare) or bare) in _LIST_ORIGINS:
        items = typing.get_args(bare)
        if not items or any(item in (typing.Any, object) for item in items):
            # items of any type: a `-> list` may return text and content blocks (an image, a
            # resource link), which have no structured form to promise
            return None
        return {"type": "object", "properties": {"result": mapper.schema(hint)},
                "required": ["result"]}
    return None


def _mentions_tool_result(hint: Any) -> bool:
    """Whether the return type builds its own content (a ToolResult, bytes, an image, audio,
    a resource): such a tool promises no structured output."""
    from toolhost.content import Audio, Image, Resource, ResourceLink

    if hint in (ToolResult, bytes, bytearray, Image, Audio, Resource, ResourceLink):
        return True
    return any(_mentions_tool_result(arg) for arg in typing.get_args(hint))


def inspect_callable(fn: Callable[..., Any]) -> SignatureInfo:
    """Build the schemas of ``fn``. Raises ``UnsupportedType`` naming the parameter."""
    sig = inspect.signature(fn)
    hints = _hints(fn)
    from toolhost.compile.docstrings import parse_docstring  # only python tools need it

    doc = parse_docstring(inspect.getdoc(fn))
    mapper = TypeMapper()
    props: dict[str, Any] = {}
    required: list[str] = []
    converters: dict[str, Converter] = {}
    context_param: str | None = None
    extra_allowed = False
    extra_schema: dict[str, Any] | None = None
    rest_converter: Converter | None = None
    for name, param in sig.parameters.items():
        if param.kind is param.VAR_KEYWORD:
            extra_allowed = True
            value_hint = hints.get(name, param.annotation)
            if value_hint not in (param.empty, Any, object):
                try:  # **kwargs: T: any other argument, each of type T
                    extra_schema = mapper.schema(value_hint)
                    rest_converter = mapper.converter(value_hint)
                except UnsupportedType as exc:
                    raise UnsupportedType(f"parameter '**{name}': {exc}") from exc
            continue
        if param.kind is param.VAR_POSITIONAL:
            raise UnsupportedType(f"parameter '*{name}' cannot be passed by keyword, and a tool "
                                  f"is called with keyword arguments only; take a list "
                                  f"instead ({name}: list[...])")
        if param.kind is param.POSITIONAL_ONLY:
            raise UnsupportedType(f"parameter '{name}' is positional-only; tools are called "
                                  "with keyword arguments")
        hint = hints.get(name, Any if param.annotation is param.empty else param.annotation)
        if _is_context(hint):
            context_param = name
            continue
        try:
            schema = mapper.schema(hint)
            conv = mapper.converter(hint)
        except UnsupportedType as exc:
            raise UnsupportedType(f"parameter '{name}': {exc}") from exc
        if "description" not in schema and doc.params.get(name):
            schema["description"] = doc.params[name]
        if param.default is param.empty:
            required.append(name)
        elif isinstance(param.default, enum.Enum) and jsonable(param.default.value):
            schema["default"] = param.default.value  # shown as the value the model sends
        elif jsonable(param.default):
            schema["default"] = param.default
        props[name] = schema
        if conv is not None:
            converters[name] = conv
    input_schema: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        input_schema["required"] = required
    if not extra_allowed:
        input_schema["additionalProperties"] = False
    elif extra_schema is not None:
        input_schema["additionalProperties"] = extra_schema
    try:
        output = output_schema_for(mapper, hints.get("return", sig.return_annotation))
    except UnsupportedType:
        output = None  # an unusual return type only costs the advertised outputSchema
    if mapper.defs:
        input_schema["$defs"] = dict(mapper.defs)
        if output is not None:
            output["$defs"] = dict(mapper.defs)
    target = fn if inspect.isroutine(fn) else getattr(fn, "__call__", fn)  # noqa: B004
    is_async = inspect.iscoroutinefunction(target)
    return SignatureInfo(input_schema=input_schema, description=doc.summary,
                         output_schema=output, converters=converters,
                         rest_converter=rest_converter,
                         context_param=context_param, is_async=is_async)
