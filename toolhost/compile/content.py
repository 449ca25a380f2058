"""A server's resources, prompts and completions, compiled once: ``ServerContent``.

Backed resources and python prompts are compiled as hidden tools (the same binding,
validation, timeout and error handling as a tool), so every backend kind works for them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from toolhost.backends.base import BackendKind, BindContext, CallContext
from toolhost.compile.content_claims import OWN_SCHEME, arrange, is_upstream
from toolhost.compile.content_kinds import Prompt, PromptError, Resource, failure_named
from toolhost.compile.resource_uri import normalize, variables
from toolhost.compile.shaping import CUT_NOTE
from toolhost.compile.tool import CompiledTool
from toolhost.config.model import BackendSpec, ServerConfig, ToolConfig
from toolhost.errors import CompileError, ConfigError, Problem
from toolhost.excerpt import cut

if TYPE_CHECKING:  # a server with resources or prompts loads them (compile_content)
    from toolhost.compile.prompts import CompiledPrompt
    from toolhost.config.content_model import PromptConfig, ResourceConfig

__all__ = ["MAX_COMPLETIONS", "PENDING", "ServerContent", "compile_content", "kept_promise",
           "merge_content"]

MAX_COMPLETIONS = 100  # the spec's cap on completion values per answer

CompileTool = Callable[[ToolConfig], CompiledTool]


# what an imported server still pending at start offers: it may offer them once it is up
PENDING = frozenset({"resources", "prompts"})


@dataclass(frozen=True)
class ServerContent:
    """Everything a server offers besides tools. Empty for a tools-only server."""

    resources: tuple[Resource, ...] = ()
    prompts: Mapping[str, Prompt] = field(default_factory=dict)
    # completion sources: ("ref/prompt", name) or ("ref/resource", uriTemplate) -> argument ->
    # a tuple of values or a compiled function
    completions: Mapping[tuple[str, str], Mapping[str, tuple[str, ...] | CompiledTool]] = \
        field(default_factory=dict)
    # the served server of each of ``resources`` (several servers served as one), else ()
    owners: tuple[str, ...] = ()
    # capabilities offered before there is anything in them ("resources", "prompts"): an
    # imported server still pending, so a client that connects now knows to ask for them
    # (``PENDING``)
    promised: frozenset[str] = frozenset()
    # a listed prompt name -> (its server, its own name) (several servers served as one)
    prompt_owners: Mapping[str, tuple[str, str]] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.resources or self.prompts)

    def find(self, uri: str) -> tuple[Resource, Mapping[str, str]] | None:
        """The resource ``uri`` names (static first, then templates in order)."""
        found = self._lookup(uri)
        return None if found is None else (found[1], found[2])

    def owner(self, uri: str) -> str | None:
        """The served server whose resource ``uri`` names (several servers served as one),
        or None (one server, or no resource answers to it)."""
        found = self._lookup(uri)
        return None if found is None or found[0] >= len(self.owners) else \
            self.owners[found[0]]

    def _lookup(self, uri: str) -> tuple[int, Resource, Mapping[str, str]] | None:
        uri = normalize(uri)
        own = uri[:9].lower() == OWN_SCHEME  # toolhost:// is never an upstream's to answer
        resources = self.resources
        for index in sorted(range(len(resources)), key=lambda i: resources[i].is_template):
            resource = resources[index]
            if own and is_upstream(resource):
                continue
            values = resource.matches(uri)
            if values is not None:
                return index, resource, values
        return None

    def prompt_owner(self, name: str) -> tuple[str, str] | None:
        """The served server and own name of the prompt listed as ``name`` (several servers
        served as one: ``<server>__<prompt>``), or None (one server, or no such prompt)."""
        return self.prompt_owners.get(name)

    def exists(self, uri: str) -> bool:
        """Whether a read of ``uri`` (canonical) could be served: a resource answers to it
        and, for a file below a directory resource, the file is there (confined as a read is).
        What a backend serves (a template, an upstream's) cannot be known without asking it."""
        found = self.find(uri)
        if found is None:
            return False
        exists = getattr(found[0], "exists", None)
        return not callable(exists) or bool(exists(uri, found[1]))

    def canonical_uri(self, uri: str) -> str:
        """The canonical spelling of ``uri`` (``toolhost.compile.resource_uri``): the
        permission rules and the lookup of a ``resources/read`` both get this string, so no
        spelling of a resource escapes a rule on it. A URI no resource answers to is only
        normalised."""
        current = normalize(uri)
        # Re-encoding decoded values may expose dot-segments (``a%2F..%2Fb`` in a {+path}):
        # normalise and resolve again until nothing changes (each round only shortens it).
        for _ in range(8):
            found = self.find(current)
            if found is None:
                return current
            again = normalize(found[0].canonical(current, found[1]))
            if again == current:
                return current
            current = again
        return current

    def _sources(self, ref_type: str, ref: str
                 ) -> Mapping[str, tuple[str, ...] | CompiledTool]:
        sources = self.completions.get((ref_type, ref))
        if sources is None and ref_type == "ref/resource":  # the template spelled otherwise
            wanted = normalize(ref)  # (TICKETS://{id}: a scheme has no case)
            sources = next((found for (kind, template), found in self.completions.items()
                            if kind == ref_type and normalize(template) == wanted), None)
        return sources or {}

    def completion_problem(self, ref_type: str, ref: str, argument: str) -> str | None:
        """Why ``argument`` of the prompt or template ``ref`` cannot be completed (no such
        prompt; the prompt or template does not name that argument), or None. A prompt whose
        arguments are not known here (an upstream's listing without them) and a static
        resource take any name: they complete to nothing. A template no resource declares
        is a problem."""
        if argument in self._sources(ref_type, ref):  # declared: known whatever lists it
            return None
        if ref_type == "ref/prompt":
            prompt = self.prompts.get(ref)
            if prompt is None:
                return f"unknown prompt {cut(ref, 100)!r}"
            declared = prompt.descriptor().get("arguments")
            names: list[Any] | None = ([a.get("name") for a in declared if isinstance(a, Mapping)]
                     if isinstance(declared, list) else None)
            if names is None and getattr(prompt, "config", None) is not None:
                names = []  # a declared prompt without arguments
            what = f"prompt {cut(ref, 100)!r}"
        else:
            wanted = normalize(ref)
            template = next((r for r in self.resources if r.is_template and isinstance(
                r.descriptor().get("uriTemplate"), str) and normalize(
                r.descriptor()["uriTemplate"]) == wanted), None)
            if template is None:
                # a static resource completes to nothing; a template no resource declares
                # is -32602, as the TypeScript SDK answers (the spec is silent)
                if any(not r.is_template and isinstance(r.descriptor().get("uri"), str)
                       and normalize(r.descriptor()["uri"]) == wanted for r in self.resources):
                    return None
                return f"no resource template {cut(ref, 200)!r} here"
            names = sorted(variables(str(template.descriptor()["uriTemplate"])))
            what = f"resource template {cut(ref, 200)!r}"
        if names is None or argument in names:
            return None
        known = ", ".join(cut(str(n), 60) for n in names[:20]) or "none"
        return f"{what} has no argument {cut(argument, 100)!r} (its arguments: {known})"

    async def complete(self, ref_type: str, ref: str, argument: str, value: str,
                       ctx: CallContext, context: Mapping[str, str] | None = None
                       ) -> tuple[list[str], bool]:
        """Values for ``argument`` of the prompt or template ``ref`` starting with ``value``
        (case-insensitively); [] when nothing is declared for it. True with them when the
        source gave more than could be read (a function's answer cut at max_output_chars:
        the values that arrived whole are kept, and the client hears ``hasMore``).
        ``context``: the other arguments the client filled in (``context.arguments``), given
        to a completion function that has a ``context`` parameter."""
        source = self._sources(ref_type, ref).get(argument)
        if source is None:
            return [], False
        more = False
        if isinstance(source, tuple):
            values: list[str] = list(source)
        else:
            asked: dict[str, Any] = {"value": value}
            if "context" in source.input_schema.get("properties", ()):
                asked["context"] = dict(context or {})
            result = await source.call(asked, ctx)
            text = result.text_content
            if result.is_error and CUT_NOTE not in text:
                raise PromptError(_failure(source, argument, text))
            values, more = _returned(result.structured, text, argument)
            if more and not values:  # not one value arrived whole
                raise PromptError(_failure(source, argument, text))
        low = value.lower()
        return [v for v in values if v.lower().startswith(low)], more


def _returned(structured: Any, text: str, argument: str) -> tuple[list[str], bool]:
    """A completion function's values: a list's strings and numbers (a None or an object in
    it is no value), the lines of a string; when its answer was cut (more than
    max_output_chars), the values of the kept head that arrived whole, and True."""
    if isinstance(structured, Mapping) and "result" not in structured:
        raise PromptError(f"completing '{cut(argument, 100)}' failed: a completion function "
                          "returns a list of strings (it returned an object)")
    raw = structured.get("result") if isinstance(structured, Mapping) else None
    if isinstance(raw, list):
        return [str(v) for v in raw if isinstance(v, str | int | float)
                and not isinstance(v, bool)], False
    if CUT_NOTE in text:
        return _whole_values(text[:text.index(CUT_NOTE)]), True
    return [line for line in text.splitlines() if line], False


def _whole_values(head: str) -> list[str]:
    """The strings of a cut JSON array's head (``["a","b","c`` gives a and b)."""
    decoder, out, at = json.JSONDecoder(), [], 1
    if not head.startswith("["):
        return []
    while at < len(head):
        try:
            value, at = decoder.raw_decode(head, at)
        except ValueError:  # the value the cut went through
            break
        if isinstance(value, str):
            out.append(value)
        if head[at:at + 1] != ",":
            break
        at += 1
    return out


def _failure(source: CompiledTool, argument: str, text: str) -> str:
    """What a completion function's error result says, named as the client knows it (the
    argument), not by its hidden tool."""
    if CUT_NOTE in text:  # its values as JSON were over the output cut: their head is no error
        return (f"the completion values of '{cut(argument, 100)}' are more than "
                f"{source.max_output_chars:,} characters (a completion function's answer "
                "is cut like a tool's: max_output_chars)")
    return failure_named(text, source.name, f"completing '{cut(argument, 100)}'", 300)


def kept_promise(before: ServerContent | None, after: ServerContent) -> ServerContent:
    """``after`` (an upstream's new resources and prompts) still offering the capabilities
    ``before`` promised: clients were told of them, so they stay, even when empty."""
    if before is None or not before.promised or after.promised >= before.promised:
        return after
    return replace(after, promised=after.promised | before.promised)


def merge_content(contents: Mapping[str, ServerContent]) -> ServerContent:
    """Several servers served as one: resources side by side, each URI answered by one owner
    (declared resources first; an upstream's claim on a URI already owned, or on
    ``toolhost://``, left out with a warning: ``toolhost.compile.content_claims``), prompts
    named ``<server>__<prompt>`` like the tools. Each resource and prompt keeps the server
    it is of (``owner``, ``prompt_owner``), even when only one server has any: rules name
    that server, not the name the servers are served under."""
    resources, owners, _ = arrange({name: c.resources for name, c in contents.items()})
    if len(contents) <= 1:
        if not contents:
            return ServerContent()
        [(server, only)] = contents.items()
        return replace(only, resources=resources, owners=owners,
                       prompt_owners={name: (server, name) for name in only.prompts})
    promised = frozenset().union(*(c.promised for c in contents.values()))
    prompts: dict[str, Prompt] = {}
    prompt_owners: dict[str, tuple[str, str]] = {}
    completions: dict[tuple[str, str], Mapping[str, tuple[str, ...] | CompiledTool]] = {}
    for server, content in contents.items():
        for name, prompt in content.prompts.items():
            joined = f"{server}__{name}"
            prompts[joined] = prompt.renamed(joined)
            prompt_owners[joined] = (server, name)
        for (kind, ref), sources in content.completions.items():
            completions[kind, f"{server}__{ref}" if kind == "ref/prompt" else ref] = sources
    return ServerContent(resources, prompts, completions, owners, promised=promised,
                         prompt_owners=prompt_owners)


def compile_content(server: ServerConfig, kinds: Mapping[str, BackendKind], ctx: BindContext,
                    compile_tool: Callable[..., CompiledTool]) -> ServerContent:
    """Compile ``server``'s resources and prompts; CompileError lists every problem."""
    from toolhost.compile.resources import CompiledResource
    from toolhost.config.content_model import PromptConfig, ResourceConfig

    problems: list[Problem] = []

    def hidden(config: ToolConfig) -> CompiledTool | None:
        try:
            return compile_tool(config, server, kinds, ctx)
        except ConfigError as exc:
            problems.extend(exc.problems)
            return None

    resources = []
    completions: dict[tuple[str, str], dict[str, tuple[str, ...] | CompiledTool]] = {}
    for res in server.resources.values():
        assert isinstance(res, ResourceConfig)
        tool = None
        if res.kind == "template" and res.backend is not None:
            # its answer is cut at max_bytes (a read's limit), not at a tool's 40,000
            # characters: past it the read is refused, never passed on cut
            tool = hidden(ToolConfig(name=f"resource-{res.name}", server=server.name,
                                     backend=res.backend, params=res.params,
                                     required=tuple(res.params), origin=res.origin,
                                     max_output_chars=res.max_bytes + 1))
            if tool is None:
                continue
            sources: dict[str, tuple[str, ...] | CompiledTool] = {
                var: tuple(str(v) for v in schema["enum"])
                for var, schema in res.params.items() if isinstance(schema.get("enum"), list)}
            sources.update(_sources(res.complete, res, server, hidden))
            if sources:
                completions["ref/resource", res.uri] = sources
        resources.append(CompiledResource(res, tool))
    prompts: dict[str, CompiledPrompt] = {}
    for prompt in server.prompts.values():
        assert isinstance(prompt, PromptConfig)
        compiled = _prompt(prompt, hidden, problems)
        if compiled is None:
            continue
        prompts[prompt.name] = compiled
        declared = _sources({a.name: a.complete for a in prompt.arguments if a.complete},
                            prompt, server, hidden)
        if compiled.tool is not None:  # a function's Literal, Enum or bool completes itself
            for name, values in _typed_values(compiled.tool.input_schema).items():
                declared.setdefault(name, values)
        if declared:
            completions["ref/prompt", prompt.name] = declared
    if problems:
        raise CompileError(problems)
    return ServerContent(tuple(resources), prompts, completions)


def _sources(declared: Mapping[str, Any], owner: ResourceConfig | PromptConfig,
             server: ServerConfig, hidden: Callable[[ToolConfig], CompiledTool | None]
             ) -> dict[str, tuple[str, ...] | CompiledTool]:
    out: dict[str, tuple[str, ...] | CompiledTool] = {}
    for name, source in declared.items():
        if isinstance(source, tuple):
            out[name] = source
            continue
        tool = hidden(ToolConfig(
            name=f"complete-{owner.name}-{name}", server=server.name,
            backend=BackendSpec("python", {"function": source}, owner.origin),
            origin=owner.origin))
        if tool is not None:
            out[name] = tool
    return out


def _typed_values(schema: Mapping[str, Any]) -> dict[str, tuple[str, ...]]:
    """The values a python prompt's parameters can only take, as the strings a client sends:
    an enum's (``Literal``, ``Enum``) and a bool's."""
    out: dict[str, tuple[str, ...]] = {}
    props = schema.get("properties")
    for name, spec in (props.items() if isinstance(props, Mapping) else ()):
        if not isinstance(spec, Mapping):
            continue
        enum = spec.get("enum")
        if isinstance(enum, list) and enum and all(
                isinstance(v, str | int | float) and not isinstance(v, bool) for v in enum):
            out[name] = tuple(str(v) for v in enum)
        elif spec.get("type") == "boolean":
            out[name] = ("false", "true")
    return out


def _prompt(prompt: PromptConfig, hidden: Callable[[ToolConfig], CompiledTool | None],
            problems: list[Problem]) -> CompiledPrompt | None:
    from toolhost.compile.prompts import CompiledPrompt

    declared = tuple((a.name, a.description, a.required) for a in prompt.arguments)
    if prompt.function is not None:
        tool = hidden(ToolConfig(
            name=f"prompt-{prompt.name}", server=prompt.server,
            backend=BackendSpec("python", {"function": prompt.function}, prompt.origin),
            origin=prompt.origin))
        if tool is None:
            return None
        if not declared:
            props = tool.input_schema.get("properties", {})
            required = set(tool.input_schema.get("required", ()))
            declared = tuple((name, spec.get("description"), name in required)
                             for name, spec in props.items())
        return CompiledPrompt(prompt, (), tool, declared)
    from jinja2 import TemplateSyntaxError

    from toolhost.backends.templating import compile_template

    templates = []
    for index, message in enumerate(prompt.messages):
        try:
            templates.append((message.role, compile_template(message.template)))
        except TemplateSyntaxError as exc:
            key = ".template" if len(prompt.messages) == 1 and index == 0 else \
                f".messages[{index}].content"
            problems.append(prompt.origin.problem(f"template does not parse: {exc.message}",
                                                  key=key))
            return None
    return CompiledPrompt(prompt, tuple(templates), None, declared)
