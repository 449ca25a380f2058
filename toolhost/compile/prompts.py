"""Compiled prompts: sandboxed jinja2 templates or a python function, arguments checked."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from toolhost.backends.base import CallContext
from toolhost.compile.content_kinds import PromptError, failure_named
from toolhost.compile.prompt_render import render_bounded
from toolhost.compile.shaping import CUT_NOTE
from toolhost.compile.string_args import NotOfType, typed_strings
from toolhost.compile.tool import CompiledTool
from toolhost.config.content_model import PromptConfig
from toolhost.excerpt import cut

if TYPE_CHECKING:
    from toolhost.backends.templating import AnyTemplate

__all__ = ["MAX_ARGUMENT_CHARS", "CompiledPrompt"]

MAX_ARGUMENT_CHARS = 1_000_000


@dataclass(frozen=True)
class CompiledPrompt:
    """A declared prompt, its templates compiled (or the python function that renders it)."""

    config: PromptConfig
    templates: tuple[tuple[str, AnyTemplate], ...] = ()  # (role, template)
    tool: CompiledTool | None = None  # a python prompt
    # declared arguments, or those of the function's signature: (name, description, required)
    arguments: tuple[tuple[str, str | None, bool], ...] = ()

    def descriptor(self) -> dict[str, Any]:
        cfg = self.config
        out: dict[str, Any] = {"name": cfg.name}
        if cfg.title:
            out["title"] = cfg.title
        if cfg.description:
            out["description"] = cfg.description
        if self.arguments:
            out["arguments"] = [
                {"name": name, **({"description": desc} if desc else {}), "required": required}
                for name, desc, required in self.arguments]
        return out

    def renamed(self, name: str) -> CompiledPrompt:
        """The same prompt listed as ``name``."""
        return replace(self, config=replace(self.config, name=name))

    async def get(self, arguments: Any, ctx: CallContext) -> dict[str, Any]:
        """The prompts/get result for ``arguments`` (a map of strings)."""
        values = self._check(arguments)
        if self.tool is not None:
            result = await self.tool.call(self._typed(values), ctx)
            invalid = f"Invalid arguments for tool '{self.tool.name}': "
            if result.is_error and result.text_content.startswith(invalid):
                # the function's own parameter types or constraints: the caller's mistake
                raise PromptError(f"prompt '{self.config.name}': " + cut(
                    result.text_content[len(invalid):], 400), invalid=True)
            if result.is_error and CUT_NOTE in result.text_content:
                # its messages as JSON were over the output cut: their head is no error
                raise PromptError(f"prompt '{self.config.name}' returned more than "
                                  f"{self.tool.max_output_chars:,} characters of messages "
                                  "(a python prompt's answer is cut like a tool's: "
                                  "max_output_chars)")
            if result.is_error:  # named as the client knows it, not the hidden tool
                raise PromptError(failure_named(result.text_content, self.tool.name,
                                                f"prompt '{cut(self.config.name, 100)}'", 500))
            messages = _messages(result.structured, result.text_content, result.content)
        else:
            every = {name: values.get(name) for name, _, _ in self.arguments}
            messages = [{"role": role, "content": {"type": "text", "text": text}}
                        for role, text in await render_bounded(self.config.name,
                                                               self.templates, every)]
        out: dict[str, Any] = {"messages": messages}
        if self.config.description:
            out["description"] = self.config.description
        return out

    def _typed(self, values: dict[str, str]) -> dict[str, Any]:
        """A python prompt's arguments (strings on the wire, as MCP has them) as the types its
        function declares (``toolhost.compile.string_args``); a string that is not one is
        the caller's mistake (-32602)."""
        assert self.tool is not None
        try:
            return typed_strings(self.tool.input_schema, values, containers=True)
        except NotOfType as exc:
            raise PromptError(f"prompt '{self.config.name}': argument {exc}",
                              invalid=True) from None

    def _check(self, arguments: Any) -> dict[str, str]:
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, Mapping):
            raise PromptError("'arguments' must be an object of strings", invalid=True)
        known = {name for name, _, _ in self.arguments}
        unknown = sorted(str(k) for k in arguments if k not in known)
        if unknown:
            raise PromptError(f"prompt '{self.config.name}' has no argument "
                              f"{cut(', '.join(map(repr, unknown)), 200)} (arguments: "
                              f"{', '.join(sorted(known)) or 'none'})", invalid=True)
        for key, value in arguments.items():
            if not isinstance(value, str):
                raise PromptError(f"argument '{key}' must be a string, got "
                                  f"{type(value).__name__}", invalid=True)
            if len(value) > MAX_ARGUMENT_CHARS:
                raise PromptError(f"argument '{key}' is {len(value):,} characters; at most "
                                  f"{MAX_ARGUMENT_CHARS:,}", invalid=True)
        missing = [name for name, _, required in self.arguments
                   if required and name not in arguments]
        if missing:
            raise PromptError(f"prompt '{self.config.name}' needs argument(s) "
                              f"{', '.join(map(repr, missing))}", invalid=True)
        return dict(arguments)


def _messages(structured: Any, text: str,
              blocks: tuple[Mapping[str, Any], ...] = ()) -> list[dict[str, Any]]:
    """A python prompt's return value as messages: a string is one user message, and so is
    each block of content that is not text (``bytes`` of a PNG: an image); a list of strings
    or {role, content} mappings is a conversation, each content a string or one MCP content
    block the client can read (never a block of another type, or with its fields missing:
    a client that validates the result would refuse it whole)."""
    items = structured.get("result") if isinstance(structured, Mapping) else None
    if isinstance(structured, Mapping) and "messages" in structured:
        items = structured["messages"]
    elif isinstance(structured, Mapping) and "result" not in structured:
        if "role" not in structured:  # an object that is no message: never its JSON as one
            raise PromptError(f"{_SHAPES} (it returned an object with keys "
                              f"{cut(', '.join(map(repr, list(structured)[:5])), 200)})")
        items = [structured]  # one {role, content} message
    elif isinstance(items, str):  # an object written out with str() (its repr): no message
        raise PromptError(f"{_SHAPES} (it returned {cut(items, 60)!r})")
    if not isinstance(items, list):
        if any(block.get("type") != "text" for block in blocks):
            return [{"role": "user", "content": _block(dict(block))} for block in blocks
                    if block.get("type") != "text" or block.get("text")]
        return [{"role": "user", "content": {"type": "text", "text": text}}]
    out = []
    for item in items:
        if isinstance(item, str):
            out.append({"role": "user", "content": {"type": "text", "text": item}})
            continue
        if not isinstance(item, Mapping) or item.get("role") not in ("user", "assistant"):
            raise PromptError(_SHAPES)
        out.append({"role": item["role"], "content": _block(item.get("content"))})
    return out


_SHAPES = ("a python prompt returns a string, bytes, one {role: user|assistant, content} "
           "mapping, or a list of strings and such mappings")
# the fields each MCP content block needs, and what they are
_BLOCKS: dict[str, dict[str, type]] = {
    "text": {"text": str}, "image": {"data": str, "mimeType": str},
    "audio": {"data": str, "mimeType": str}, "resource": {"resource": Mapping},
    "resource_link": {"uri": str, "name": str}}


def _block(content: Any) -> dict[str, Any]:
    """``content`` of one prompt message as an MCP content block (a string or a number is
    text), or a PromptError saying what it is not."""
    if isinstance(content, str) or (isinstance(content, (int, float))
                                    and not isinstance(content, bool)):
        return {"type": "text", "text": str(content)}
    kind = content.get("type") if isinstance(content, Mapping) else None
    needed = _BLOCKS.get(kind) if isinstance(kind, str) else None
    problem = None
    if needed is None or not isinstance(content, Mapping):
        problem = (f"a content of type {cut(repr(kind), 60)}" if isinstance(content, Mapping)
                   else f"a {type(content).__name__} as content")
    else:
        missing = [key for key, of in needed.items() if not isinstance(content.get(key), of)]
        if missing:
            problem = f"a {kind} content without {', '.join(map(repr, missing))}"
        elif kind in ("image", "audio") and not _base64(content["data"]):
            problem = f"an {kind} content whose 'data' is not base64"
        elif kind == "resource" and not (
                isinstance(content["resource"].get("uri"), str)
                and (isinstance(content["resource"].get("text"), str)
                     or isinstance(content["resource"].get("blob"), str))):
            problem = "an embedded resource without a 'uri' and a 'text' or 'blob'"
    if problem is not None:
        raise PromptError(f"a python prompt returned {problem}: a message's content is a "
                          "string or one block of type text, image, audio, resource or "
                          "resource_link")
    return dict(content)


def _base64(data: str) -> bool:
    try:
        base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True
