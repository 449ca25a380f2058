"""``servers:`` -> ``ServerConfig``/``ToolConfig``, checking every key, type and name."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

from toolhost.backends.http_headers import framing_reason
from toolhost.config.backend_block import BackendChecker
from toolhost.config.checks import Checker, describe
from toolhost.config.filepaths import resolve_path
from toolhost.config.limits import LIMITS
from toolhost.config.model import ServerConfig, ServerDefaults, ToolConfig
from toolhost.config.params import build_params
from toolhost.config.template_values import escape_spans
from toolhost.config.tree import Path
from toolhost.config.wirenames import MAX_WIRE_NAME, name_problem, wire_name_problems

__all__ = ["ANNOTATION_KEYS", "SERVER_KEYS", "TOOL_KEYS", "build_servers"]

SERVER_KEYS = ("description", "version", "timeout", "env", "cwd", "base_url", "headers",
               "auth", "secrets", "tools", "external", "resources", "prompts", "mcp", "openapi",
               "include", "exclude")
TOOL_KEYS = ("description", "title", "params", "input_schema", "annotations", "output_schema",
             "output",
             "max_output_chars", "timeout", "secrets", "redact_results", "task_support")
ANNOTATION_KEYS = {"readOnlyHint": bool, "destructiveHint": bool, "idempotentHint": bool,
                   "openWorldHint": bool, "title": str}
AUTH_FIELDS = {"bearer": ("token",), "basic": ("username", "password"),
               "header": ("name", "value")}
EXTERNAL_FIELDS = {"stdio": ("command", "args", "env", "cwd"),
                   "http": ("url", "headers"), "sse": ("url", "headers")}
NAME = re.compile(r"^[A-Za-z0-9_-]+\Z")  # \Z: "$" also matches before a final newline


# keys of the file's top level and of a tool, written in a server: where they go instead
_TOP_LEVEL = ("permissions", "plugins", "extends", "settings", "run", "serve", "toolhost")
_TOOL_LEVEL = ("command", "python", "http", "params", "input_schema", "annotations", "title",
               "output_schema", "output", "max_output_chars", "redact_results", "task_support")


def _misplaced_in_server(name: str) -> dict[str, str]:
    placed = {key: f"'{key}' is a key of the file's top level, not of a server"
              for key in _TOP_LEVEL}
    placed["permissions"] += (f"; its rules name this server's tools as mcp__{name}__TOOL"
                              if name.isidentifier() else "")
    placed.update({key: f"'{key}' is a key of a tool: write it under tools: "
                        f"{{NAME: {{{key}: ...}}}}" for key in _TOOL_LEVEL})
    return placed


def build_servers(check: Checker, value: Any, kinds: BackendChecker) -> dict[str, ServerConfig]:
    servers = check.mapping(value, ("servers",))
    out: dict[str, ServerConfig] = {}
    declared = sum(len(spec["tools"]) for spec in (servers or {}).values()
                   if isinstance(spec, dict) and isinstance(spec.get("tools"), dict))
    if declared > LIMITS.tools:  # each tool costs its build and compile at every start
        check.problem(("servers",), f"{declared:,} tools declared; the limit is "
                      f"{LIMITS.tools:,}", "raise TOOLHOST_MAX_TOOLS if this is meant")
        return out
    for name, spec in (servers or {}).items():
        path = ("servers", name)
        _check_name(check, path, name, "server")
        if (ambiguous := name_problem(name)) is not None:
            check.problem(path, *ambiguous)
        data = check.mapping(spec, path)
        if data is None:
            continue
        upstream = None
        imported = "mcp" in data or "openapi" in data
        if "mcp" in data and "openapi" in data:
            check.problem(path, "a server imports an MCP server ('mcp') or an OpenAPI "
                          "document ('openapi'), not both")
        elif "mcp" in data:  # an imported MCP server: its own key set, checked there
            from toolhost.gateway.spec import build_upstream

            upstream = build_upstream(check, data, path)
        elif not imported:
            check.known_keys(data, path, SERVER_KEYS, _misplaced_in_server(str(name)))
            for key in ("include", "exclude"):
                if key in data:
                    check.problem((*path, key), f"'{key}' chooses the tools of an imported "
                                  "server: it needs 'mcp:' or 'openapi:'")
        external = _external(check, data, path)
        tools = {} if external is not None or imported else _tools(check, data, path, name,
                                                                   kinds)
        own = _own_keys(data)
        defaults = _defaults(check, own, path)
        if "openapi" in data and "mcp" not in data:  # operations become http tools here
            from toolhost.gateway.openapi_spec import build_openapi

            generated = build_openapi(check, data, path, name, defaults)
            tools, defaults = generated.tools, generated.defaults
        resources: dict[str, Any] = {}
        prompts: dict[str, Any] = {}
        if "resources" in own or "prompts" in own:  # their model loads with the first
            from toolhost.config.build_content import build_prompts, build_resources

            resources = build_resources(check, own, path, name, kinds)
            prompts = build_prompts(check, own, path, name)
        if external is not None and (resources or prompts):
            check.problem(path, "an external server offers its own resources and prompts "
                          "(remove 'resources'/'prompts' or 'external')")
        version = check.string(data, path, "version")
        out[name] = ServerConfig(
            name=name,
            description=check.string(data, path, "description"),
            version=version or "0.1.0",
            tools=tools,
            defaults=defaults,
            external=external,
            origin=check.origin(path),
            resources=resources,
            prompts=prompts,
            upstream=upstream,
        )
    check.problems.extend(wire_name_problems(out, names=False))
    return out


def _check_name(check: Checker, path: Path, name: str, what: str) -> None:
    if not NAME.match(name):
        check.problem(path, f"invalid {what} name '{name}': use letters, digits, '_' and '-'")


def _jinja_written(text: str | None, spans: tuple[tuple[int, int], ...]
                   ) -> re.Match[str] | None:
    """The first ``{{``, ``{%`` or ``{#`` the author wrote in ``text`` (outside the spans of
    ``${VAR}`` values, which stay text)."""
    if not text:
        return None
    masked = list(text)
    for start, end in spans:
        masked[max(start, 0):max(end, 0)] = " " * len(masked[max(start, 0):max(end, 0)])
    return re.search(r"\{[{%#]", "".join(masked))


def _own_keys(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` without the keys its kind of server does not have: an imported server's
    ``env: null`` is one line ("unknown key", said by its own check), not a type error too."""
    keys: tuple[str, ...]
    if "mcp" in data and "openapi" not in data:
        from toolhost.gateway.spec import UPSTREAM_SERVER_KEYS
        keys = UPSTREAM_SERVER_KEYS
    elif "openapi" in data and "mcp" not in data:
        from toolhost.gateway.openapi_spec import OPENAPI_SERVER_KEYS
        keys = OPENAPI_SERVER_KEYS
    else:
        return data
    return {k: v for k, v in data.items() if k in keys}


def _defaults(check: Checker, data: Mapping[str, Any], path: Path) -> ServerDefaults:
    cwd = check.string(data, path, "cwd")
    check.str_list(data, path, "secrets")
    base_url = check.string(data, path, "base_url")
    if base_url:  # read as the client reads it (its module waits for a base_url)
        from toolhost.config.urlcheck import url_problem

        wrong = url_problem(base_url)
    else:
        wrong = None
    if wrong:
        check.problem((*path, "base_url"), wrong)
    found = check.substituted.get((*path, "base_url"))
    jinja = _jinja_written(base_url, found[1] if found else ()) if not wrong else None
    if base_url and found and "openapi" not in data:  # (openapi refuses any '{' in it)
        # joined onto relative urls before they are compiled: a ${VAR} value stays text
        base_url = escape_spans(base_url, found[1], every=True)
    if jinja:  # what is left is the author's own: a base is text plus {param} placeholders
        check.problem((*path, "base_url"), f"'{jinja[0]}' at character {jinja.start() + 1}: "
                      "a base_url is plain text with {param} placeholders, not a template",
                      "write the template in each tool's url, or {param}")
        base_url = escape_spans(base_url or "", ((0, len(base_url or "")),))  # once only
    return ServerDefaults(
        timeout=check.duration(data, path, "timeout"),
        env=check.env_map(data, path, "env") or {},
        cwd=resolve_path(check, (*path, "cwd"), cwd, "directory") if cwd else None,
        base_url=base_url,
        headers=check.header_map(data, path, "headers") or {},
        auth=_auth(check, data, path),
    )


def _auth(check: Checker, data: Mapping[str, Any], path: Path) -> dict[str, Any] | None:
    if "auth" not in data:
        return None
    here = (*path, "auth")
    auth = check.mapping(data["auth"], here)
    if auth is None or not check.require(auth, here, "type", " | ".join(AUTH_FIELDS)):
        return None
    kind = check.choice(auth, here, "type", tuple(AUTH_FIELDS))
    if kind is None:
        return None
    fields = AUTH_FIELDS[kind]
    check.known_keys(auth, here, ("type", *fields))
    for key in fields:
        if check.require(auth, here, key, f"{kind} auth"):
            check.string(auth, here, key)
    sent = auth.get({"bearer": "token", "header": "value"}.get(kind, ""))
    bad = next((c for c in sent if not (" " <= c <= "~" or c == "\t")), None) \
        if isinstance(sent, str) else None
    if bad is not None:  # sent as a header value: as for headers:, name the character only
        check.problem((*here, "token" if kind == "bearer" else "value"),
                      f"a header value is one line of printable ASCII, and this one holds "
                      f"U+{ord(bad):04X}", "percent-encode or base64 it if the server "
                      "expects that")
    name = auth.get("name") if kind == "header" else None
    if isinstance(name, str) and framing_reason(name):
        check.problem((*here, "name"), str(framing_reason(name)))
    return dict(auth)


def _external(check: Checker, data: Mapping[str, Any], path: Path) -> dict[str, Any] | None:
    if "external" not in data:
        return None
    here = (*path, "external")
    if "tools" in data:
        check.problem((*path, "tools"), "an external server has no tools of its own "
                      "(remove 'tools' or 'external')")
    ext = check.mapping(data["external"], here)
    if ext is None:
        return None
    kind = check.choice(ext, here, "type", tuple(EXTERNAL_FIELDS)) if "type" in ext else "stdio"
    if kind is None:
        return None
    fields = EXTERNAL_FIELDS[kind]
    check.known_keys(ext, here, ("type", *fields))
    check.require(ext, here, fields[0], f"{kind} server")
    check.string(ext, here, fields[0])
    if kind == "stdio":
        check.str_list(ext, here, "args")
        check.env_map(ext, here, "env")
        check.string(ext, here, "cwd")
        return {"type": kind, **ext, **_external_in_repo(check, ext, here)}
    check.header_map(ext, here, "headers")
    return {"type": kind, **ext}


def _external_in_repo(check: Checker, ext: Mapping[str, Any], here: Path) -> dict[str, Any]:
    """An external stdio server declared in a shared repository's file: its script is the
    checkout's file (an absolute path: the CLI starts it from the user's directory), its
    ``cwd`` inside the checkout; problems otherwise. Elsewhere passed as written."""
    from toolhost.config.repotree import checkout_root

    declaring = check.place(here)[0]
    command, args, cwd = ext.get("command"), ext.get("args") or [], ext.get("cwd")
    if (not isinstance(command, str) or not command or checkout_root(declaring) is None
            or not all(isinstance(a, str) for a in args)):
        return {}
    from toolhost.backends.command_paths import repo_command

    out: dict[str, Any] = {}
    if isinstance(cwd, str) and cwd:
        out["cwd"] = cwd = resolve_path(check, (*here, "cwd"), cwd, "directory")
    listed, bad = repo_command([command, *args], declaring, cwd if out else None)
    for message, index, hint in bad:
        key = (*here, "command") if index == "0" else (*here, "args", int(index) - 1)
        check.problem(key, message, hint)
    out["command"] = listed[0]
    if args:
        out["args"] = listed[1:]
    return out


def _tools(check: Checker, data: Mapping[str, Any], path: Path, server: str,
           kinds: BackendChecker) -> dict[str, ToolConfig]:
    if "tools" not in data:
        return {}
    tools = check.mapping(data["tools"], (*path, "tools"))
    out: dict[str, ToolConfig] = {}
    for name, spec in (tools or {}).items():
        here = (*path, "tools", name)
        _check_name(check, here, name, "tool")
        if (ambiguous := name_problem(name, server=server)) is not None:
            check.problem(here, *ambiguous)
        wire = f"mcp__{server}__{name}"
        if len(wire) > MAX_WIRE_NAME:
            check.problem(here, f"wire name '{wire}' is {len(wire)} characters, the limit is "
                          f"{MAX_WIRE_NAME}", "shorten the server or tool name")
        if not isinstance(spec, dict) and (name in TOOL_KEYS or name in kinds.kinds):
            # `description:` written one level too far left is read as a tool's name
            check.problem(here, f"expected a mapping (a tool), got {describe(spec)}",
                          f"'{name}' is read as the name of a tool: indent it under a tool")
            continue
        tool = check.mapping(spec, here)
        if tool is None:
            continue
        built = _tool(check, tool, here, server, name, kinds)
        if built is not None:
            out[name] = built
    return out


def _tool(check: Checker, data: Mapping[str, Any], path: Path, server: str, name: str,
          kinds: BackendChecker) -> ToolConfig | None:
    backend = kinds.backend(check, data, path, TOOL_KEYS)
    params, required = build_params(check, data["params"], (*path, "params")) \
        if "params" in data else ({}, None)
    check.str_list(data, path, "secrets")
    input_schema = None
    if "input_schema" in data:
        input_schema = check.mapping(data["input_schema"], (*path, "input_schema"))
        if "params" in data:
            check.problem((*path, "input_schema"), "a tool has 'params' or a whole "
                          "'input_schema', not both")
    output_schema = None
    if "output_schema" in data:
        output_schema = check.mapping(data["output_schema"], (*path, "output_schema"))
        if output_schema is not None and output_schema.get("type", "object") != "object":
            check.problem((*path, "output_schema", "type"),
                          "an output schema describes structuredContent, so its type is "
                          "'object'")
    support, ask_first = _task_support(check, data, path)
    tool = ToolConfig(
        name=name,
        server=server,
        backend=backend,  # type: ignore[arg-type]  # None only when a problem was recorded
        description=check.string(data, path, "description"),
        title=check.string(data, path, "title"),
        params=params,
        required=required,
        annotations=_annotations(check, data, path),
        input_schema=input_schema,
        output_schema=output_schema,
        output=check.choice(data, path, "output", ("structured", "text")),  # type: ignore[arg-type]
        max_output_chars=check.integer(data, path, "max_output_chars", minimum=1),
        timeout=check.duration(data, path, "timeout"),
        redact_results=check.boolean(data, path, "redact_results") is not False,
        task_support=support,
        task_ask_first=ask_first,
        origin=check.origin(path),
    )
    return tool if backend is not None else None


TASK_MODES = ("forbidden", "optional", "required")


def _task_support(check: Checker, data: Mapping[str, Any], path: Path
                  ) -> tuple[Literal["optional", "required"] | None, bool]:
    """``task_support: optional`` or ``{mode: optional, ask_first: true}``: the mode (None
    for ``forbidden``) and whether the call asks its questions first, in the request."""
    value = data.get("task_support")
    if isinstance(value, dict):
        here = (*path, "task_support")
        check.known_keys(value, here, ("mode", "ask_first"))
        if not check.require(value, here, "mode", " | ".join(TASK_MODES)):
            return None, False
        support = check.choice(value, here, "mode", TASK_MODES)
        ask_first = check.boolean(value, here, "ask_first") is True
        if ask_first and support == "forbidden":
            check.problem((*here, "ask_first"), "ask_first is for a tool that runs as a "
                          "task", "set mode: optional or required, or drop ask_first")
    elif value is not None and not isinstance(value, str):
        check.expected((*path, "task_support"), "forbidden | optional | required, or a "
                       "mapping {mode, ask_first}", value)
        return None, False
    else:
        support, ask_first = check.choice(data, path, "task_support", TASK_MODES), False
    if support in (None, "forbidden"):
        return None, False
    return support, ask_first  # type: ignore[return-value]


def _annotations(check: Checker, data: Mapping[str, Any], path: Path) -> dict[str, Any]:
    if "annotations" not in data:
        return {}
    here = (*path, "annotations")
    annotations = check.mapping(data["annotations"], here)
    if annotations is None:
        return {}
    check.known_keys(annotations, here, tuple(ANNOTATION_KEYS))
    for key, kind in ANNOTATION_KEYS.items():
        if kind is bool:
            check.boolean(annotations, here, key)
        else:
            check.string(annotations, here, key)
    return dict(annotations)
