"""A server's ``resources:`` and ``prompts:`` -> ``ResourceConfig``/``PromptConfig``."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from toolhost.config.backend_block import BackendChecker
from toolhost.config.checks import Checker
from toolhost.config.content_model import (
    PromptArgument,
    PromptConfig,
    PromptMessage,
    ResourceConfig,
)
from toolhost.config.filepaths import resolve_path
from toolhost.config.params import build_params
from toolhost.config.tree import Path
from toolhost.excerpt import cut

__all__ = ["PROMPT_KEYS", "RESOURCE_KEYS", "build_prompts", "build_resources",
           "template_variables"]

RESOURCE_KEYS = ("file", "directory", "uri", "description", "title", "mime_type", "max_bytes",
                 "params", "complete")
PROMPT_KEYS = ("description", "title", "arguments", "template", "messages", "python")
ARGUMENT_KEYS = ("description", "required", "complete")
_NAME = re.compile(r"^[A-Za-z0-9_-]+\Z")  # \Z: "$" also matches before a final newline
_VAR = re.compile(r"\{(\+?)([A-Za-z_][A-Za-z0-9_]*)\}")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
MAX_RESOURCE_BYTES = 100_000_000


def template_variables(uri: str) -> list[str]:
    """The ``{name}`` / ``{+name}`` variables of a URI template, in order."""
    return [m.group(2) for m in _VAR.finditer(uri)]


def build_resources(check: Checker, data: Mapping[str, Any], path: Path, server: str,
                    kinds: BackendChecker) -> dict[str, ResourceConfig]:
    if "resources" not in data:
        return {}
    block = check.mapping(data["resources"], (*path, "resources"))
    out: dict[str, ResourceConfig] = {}
    uris: dict[str, str] = {}
    for name, spec in (block or {}).items():
        here = (*path, "resources", name)
        if not _NAME.match(name):
            check.problem(here, f"invalid resource name '{name}': use letters, digits, '_' "
                          "and '-'")
        entry = check.mapping(spec, here)
        if entry is None:
            continue
        built = _resource(check, entry, here, server, name, kinds)
        if built is None:
            continue
        if built.uri in uris:
            check.problem(here, f"URI {built.uri!r} is also the URI of resource "
                          f"'{uris[built.uri]}'")
        uris[built.uri] = name
        out[name] = built
    return out


def _resource(check: Checker, data: Mapping[str, Any], path: Path, server: str, name: str,
              kinds: BackendChecker) -> ResourceConfig | None:
    sources = [key for key in ("file", "directory") if key in data]
    uri = check.string(data, path, "uri")
    common: dict[str, Any] = dict(
        name=name, server=server, description=check.string(data, path, "description"),
        title=check.string(data, path, "title"),
        mime_type=check.string(data, path, "mime_type"),
        max_bytes=_max_bytes(check, data, path),
        origin=check.origin(path))
    if uri is not None and not _SCHEME.match(uri):
        check.problem((*path, "uri"), f"{uri!r} is not a URI: it needs a scheme",
                      "e.g. docs://runbook or tickets://{id}")
        return None
    if sources:
        check.known_keys(data, path, RESOURCE_KEYS)
        if len(sources) > 1:
            check.problem(path, "a resource is a 'file' or a 'directory', not both")
            return None
        if uri is not None and template_variables(uri):
            check.problem((*path, "uri"), "a file or directory resource has a plain URI; "
                          "{...} variables need a backend (python, command or http)")
        for key in ("params", "complete"):
            if key in data:
                check.problem((*path, key), f"'{key}' belongs to URI template resources")
        kind = sources[0]
        where = check.string(data, path, kind)
        if not where:
            if where == "":
                check.problem((*path, kind), "an empty path")
            return None
        default = f"toolhost://{server}/{name}" + ("/" if kind == "directory" else "")
        if kind == "directory" and uri is not None and not uri.endswith("/"):
            uri += "/"
        return ResourceConfig(kind="file" if kind == "file" else "directory", uri=uri or default,
                              path=resolve_path(check, (*path, kind), where,
                                                "file" if kind == "file" else "directory"),
                              **common)
    if uri is None:
        if "uri" in data:  # written, of the wrong type: said at its line already
            return None
        check.problem(path, "a resource needs 'file', 'directory', or a 'uri' template with a "
                      "backend (python, command or http)")
        return None
    odd = _unsupported(uri)
    if odd is not None:
        check.problem((*path, "uri"), f"{odd} in the URI template {cut(uri, 200)!r} is not "
                      "supported", "write {name} for one path segment, {+name} for the "
                      "rest of the URI with its slashes")
        return None
    variables = template_variables(uri)
    if not variables:
        check.problem((*path, "uri"), f"{uri!r} has no {{variable}}: a backed resource is a "
                      "URI template", "for a fixed document use 'file'")
        return None
    if len(set(variables)) != len(variables):
        check.problem((*path, "uri"), "a variable appears twice in the URI template")
    backend = kinds.backend(check, data, path, RESOURCE_KEYS)
    params, _ = build_params(check, data["params"], (*path, "params")) \
        if "params" in data else ({}, None)
    for param in params:
        if param not in variables:
            check.problem((*path, "params", param), f"'{param}' is not a variable of the URI "
                          f"template {uri!r}")
    schemas = {var: params.get(var, {"type": "string"}) for var in variables}
    complete = _complete_map(check, data, path, variables)
    if backend is None:
        return None
    return ResourceConfig(kind="template", uri=uri, backend=backend, params=schemas,
                          complete=complete, **common)


_EXPRESSION = re.compile(r"\{[^{}]*\}")


def _unsupported(uri: str) -> str | None:
    """What in ``uri`` a declared template cannot match as written (an RFC 6570 operator
    other than ``+``, a list, a modifier, an empty or unclosed brace), or None."""
    for found in _EXPRESSION.finditer(uri):
        if not _VAR.fullmatch(found.group(0)):
            return repr(found.group(0))
    rest = _EXPRESSION.sub("", uri)
    if "{" in rest or "}" in rest:
        return "an unmatched " + ("'{'" if "{" in rest else "'}'")
    return None


def _max_bytes(check: Checker, data: Mapping[str, Any], path: Path) -> int:
    value = check.integer(data, path, "max_bytes", minimum=1, maximum=MAX_RESOURCE_BYTES)
    return value or 1_000_000


def _complete_map(check: Checker, data: Mapping[str, Any], path: Path,
                  variables: list[str]) -> dict[str, Any]:
    if "complete" not in data:
        return {}
    here = (*path, "complete")
    block = check.mapping(data["complete"], here)
    out: dict[str, Any] = {}
    for var, source in (block or {}).items():
        if var not in variables:
            check.problem((*here, var), f"'{var}' is not a variable of the URI template")
            continue
        found = _complete_source(check, source, (*here, var))
        if found is not None:
            out[var] = found
    return out


_DOTTED = r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*"
_IMPORT_PATH = re.compile(f"{_DOTTED}:{_DOTTED}")  # as the python backend's `function`


def _complete_source(check: Checker, value: Any, path: Path) -> tuple[str, ...] | str | None:
    """A list of strings, or "module:function"."""
    if isinstance(value, str):
        if not _IMPORT_PATH.fullmatch(value):  # `07:32:00` (a TOML time's text) too: here,
            check.problem(path, f"{cut(value, 200)!r} is not 'module:function'",  # not at
                          "or give a list of values")  # the import, located at the owner
            return None
        return value
    if isinstance(value, list) and all(isinstance(v, (str, int, float)) and
                                       not isinstance(v, bool) for v in value):
        return tuple(str(v) for v in value)
    check.expected(path, "a list of values or 'module:function'", value)
    return None


def build_prompts(check: Checker, data: Mapping[str, Any], path: Path,
                  server: str) -> dict[str, PromptConfig]:
    if "prompts" not in data:
        return {}
    block = check.mapping(data["prompts"], (*path, "prompts"))
    out: dict[str, PromptConfig] = {}
    for name, spec in (block or {}).items():
        here = (*path, "prompts", name)
        if not _NAME.match(name):
            check.problem(here, f"invalid prompt name '{name}': use letters, digits, '_' "
                          "and '-'")
        entry = check.mapping(spec, here)
        if entry is None:
            continue
        check.known_keys(entry, here, PROMPT_KEYS)
        built = _prompt(check, entry, here, server, name)
        if built is not None:
            out[name] = built
    return out


def _prompt(check: Checker, data: Mapping[str, Any], path: Path, server: str,
            name: str) -> PromptConfig | None:
    forms = [key for key in ("template", "messages", "python") if key in data]
    if len(forms) != 1:
        check.problem(path, "a prompt has exactly one of 'template', 'messages' or 'python'"
                      + (f", found {', '.join(forms)}" if forms else ""))
        return None
    messages: list[PromptMessage] = []
    function = None
    if forms[0] == "template":
        text = check.string(data, path, "template")
        if text is None:
            return None
        messages.append(PromptMessage("user", text))
    elif forms[0] == "messages":
        items = data["messages"]
        if not isinstance(items, list) or not items:
            check.expected((*path, "messages"), "a non-empty list of {role, content}", items)
            return None
        for index, item in enumerate(items):
            here = (*path, "messages", index)
            entry = check.mapping(item, here)
            if entry is None:
                continue
            check.known_keys(entry, here, ("role", "content"))
            role = check.choice(entry, here, "role", ("user", "assistant"))
            content = check.string(entry, here, "content")
            if role is None or content is None:
                if "role" not in entry or "content" not in entry:
                    check.problem(here, "a message needs 'role' (user or assistant) and "
                                  "'content'")
                continue
            messages.append(PromptMessage(role, content))  # type: ignore[arg-type]
    else:
        function = check.string(data, path, "python")
        if function is not None and ":" not in function:
            check.problem((*path, "python"), f"{function!r} is not 'module:function'")
            return None
    return PromptConfig(name=name, server=server, arguments=_arguments(check, data, path),
                        messages=tuple(messages), function=function,
                        description=check.string(data, path, "description"),
                        title=check.string(data, path, "title"),
                        origin=check.origin(path))


def _arguments(check: Checker, data: Mapping[str, Any], path: Path) -> tuple[PromptArgument, ...]:
    if "arguments" not in data:
        return ()
    here = (*path, "arguments")
    block = check.mapping(data["arguments"], here)
    out: list[PromptArgument] = []
    for name, spec in (block or {}).items():
        where = (*here, name)
        if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", name):
            check.problem(where, f"invalid argument name '{name}': a template variable name")
        if isinstance(spec, str):
            spec = {"description": spec}
        entry = check.mapping(spec, where)
        if entry is None:
            continue
        check.known_keys(entry, where, ARGUMENT_KEYS)
        complete = (_complete_source(check, entry["complete"], (*where, "complete"))
                    if "complete" in entry else None)
        out.append(PromptArgument(name=name, description=check.string(entry, where,
                                                                      "description"),
                                  required=bool(check.boolean(entry, where, "required")),
                                  complete=complete))
    return tuple(out)
