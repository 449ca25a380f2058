"""``servers.NAME.mcp`` and its reshaping, checked like every other key (file:line, key path)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from toolhost.config.checks import Checker
from toolhost.config.filepaths import resolve_path
from toolhost.config.model import UNKNOWN, Origin
from toolhost.config.params import build_params
from toolhost.config.tree import Path
from toolhost.config.urlcheck import url_problem
from toolhost.config.wirenames import MAX_WIRE_NAME, name_problem

__all__ = ["DEFAULT_MAX_MESSAGE_BYTES", "RESHAPE_KEYS", "UPSTREAM_KEYS", "UPSTREAM_SERVER_KEYS",
           "Reshape", "UpstreamSpec", "build_reshapes", "build_upstream", "globs"]

UPSTREAM_KEYS = ("command", "env", "cwd", "url", "headers", "timeout", "connect_timeout",
                 "max_message_bytes", "required", "elicitation")
UPSTREAM_SERVER_KEYS = ("description", "version", "mcp", "include", "exclude", "tools",
                        "timeout", "secrets")
RESHAPE_KEYS = ("name", "description", "title", "annotations", "fixed", "defaults", "params")
_NAME = re.compile(r"^[A-Za-z0-9_-]+\Z")  # \Z: "$" also matches before a final newline
# one message from an upstream (a stdio line, an HTTP answer's body): a tool's answer is cut
# at 40,000 characters anyway, and a listing of hundreds of tools fits with room to spare
DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024


@dataclass(frozen=True)
class Reshape:
    """How one upstream tool is shown to the model."""

    name: str | None = None
    description: str | None = None
    title: str | None = None
    annotations: Mapping[str, Any] = field(default_factory=dict)
    fixed: Mapping[str, Any] = field(default_factory=dict)  # removed from the schema, injected
    defaults: Mapping[str, Any] = field(default_factory=dict)
    params: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # merged: tighten
    origin: Origin = UNKNOWN


@dataclass(frozen=True)
class UpstreamSpec:
    """An upstream MCP server and what of it this server offers."""

    command: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    timeout: float | None = None  # per call
    connect_timeout: float = 30.0
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES
    # False: an upstream that cannot start does not stop the host; it is "pending" (none of
    # its tools served) and retried in the background (toolhost.gateway.pending)
    required: bool = True
    # True (``elicitation: pass``): the upstream may ask the person at toolhost's client
    # during a call (toolhost.gateway.elicit_pass); False: answered -32601 (gateway.asks)
    elicitation: bool = False
    include: tuple[str, ...] = ("*",)
    exclude: tuple[str, ...] = ()
    reshape: Mapping[str, Reshape] = field(default_factory=dict)  # by upstream tool name
    origin: Origin = UNKNOWN


def build_upstream(check: Checker, data: Mapping[str, Any], path: Path) -> UpstreamSpec | None:
    """The ``mcp:`` block of a server plus its include/exclude/tools, or None on problems."""
    here = (*path, "mcp")
    block = check.mapping(data["mcp"], here)
    if block is None:
        return None
    check.known_keys(block, here, UPSTREAM_KEYS)
    check.known_keys(data, path, UPSTREAM_SERVER_KEYS)
    has_command, has_url = "command" in block, "url" in block
    if has_command == has_url:
        check.problem(here, "an upstream has 'command' (stdio) or 'url' (Streamable HTTP)",
                      "e.g. mcp: {command: [npx, -y, some-mcp-server]} or "
                      "mcp: {url: https://mcp.example/mcp}")
        return None
    command: tuple[str, ...] = ()
    if has_command:
        before = len(check.problems)
        argv = check.str_list(block, here, "command")
        if not argv or not argv[0]:
            if argv is not None and len(check.problems) == before:  # (else said at its item)
                check.problem((*here, "command"), "the command needs a program")
            return None
        nul = [index for index, item in enumerate(argv) if "\0" in item]
        if nul:  # the kernel ends an argument at a NUL: the server could never start
            check.problem((*here, "command", nul[0]),
                          "holds a NUL character, which no argument can carry", "remove it")
            return None
        command = tuple(argv)
    url = check.string(block, here, "url")
    if url is not None and not re.match(r"^https?://[^/\s]+", url):
        check.problem((*here, "url"), f"{url!r} is not an http(s) URL")
        return None
    wrong = url_problem(url) if url is not None else None  # read as httpx reads it
    if wrong:
        check.problem((*here, "url"), wrong)
        return None
    cwd = check.string(block, here, "cwd")
    cwd = resolve_path(check, (*here, "cwd"), cwd, "directory") if cwd else None
    if command:  # a script of a shared repository is its pinned file, and only that
        from toolhost.backends.command_paths import repo_command

        declaring = check.place((*here, "command"))[0]
        listed, bad = repo_command(command, declaring, cwd)
        for message, index, hint in bad:
            check.problem((*here, "command", int(index)), message, hint)
        command = tuple(listed)
    include = globs(check, data, path, "include") or ("*",)
    exclude = globs(check, data, path, "exclude") or ()
    return UpstreamSpec(
        command=command, env=check.env_map(block, here, "env") or {},
        cwd=cwd, url=url,
        headers=check.header_map(block, here, "headers") or {},
        timeout=check.duration(block, here, "timeout") or check.duration(data, path, "timeout"),
        connect_timeout=check.duration(block, here, "connect_timeout") or 30.0,
        max_message_bytes=(check.integer(block, here, "max_message_bytes", minimum=1024)
                           or DEFAULT_MAX_MESSAGE_BYTES),
        required=check.boolean(block, here, "required") is not False,
        elicitation=_elicitation(check, block, here),
        include=include, exclude=exclude, reshape=build_reshapes(check, data, path),
        origin=check.origin(here))


def _elicitation(check: Checker, block: Mapping[str, Any], here: Path) -> bool:
    """``elicitation: pass | refuse`` (``true``/``false`` read the same), default refuse."""
    if isinstance(block.get("elicitation"), bool):
        return bool(block["elicitation"])
    return check.choice(block, here, "elicitation", ("pass", "refuse")) == "pass"


def globs(check: Checker, data: Mapping[str, Any], path: Path, key: str) -> tuple[str, ...]:
    """``include``/``exclude``: one glob or a list of them."""
    if key not in data:
        return ()
    if isinstance(data[key], str):
        return (data[key],)
    found = check.str_list(data, path, key)
    return tuple(found or ())


def build_reshapes(check: Checker, data: Mapping[str, Any], path: Path) -> dict[str, Reshape]:
    """``tools.<imported name>``: how each imported tool is shown, by its imported name."""
    if "tools" not in data:
        return {}
    here = (*path, "tools")
    block = check.mapping(data["tools"], here)
    out: dict[str, Reshape] = {}
    renamed: dict[str, str] = {}
    for upstream_name, spec in (block or {}).items():
        where = (*here, upstream_name)
        entry = check.mapping(spec, where)
        if entry is None:
            continue
        check.known_keys(entry, where, RESHAPE_KEYS)
        name = check.string(entry, where, "name")
        if name is not None and not _NAME.match(name):
            check.problem((*where, "name"), f"invalid tool name {name!r}: use letters, digits, "
                          "'_' and '-'")
        elif name is not None and (ambiguous := name_problem(name, server=str(path[-1]))):
            check.problem((*where, "name"), *ambiguous)
        elif name is not None and len(wire := f"mcp__{path[-1]}__{name}") > MAX_WIRE_NAME:
            check.problem((*where, "name"), f"the tool's full name {wire!r} is {len(wire)} "
                          f"characters; the Claude API allows {MAX_WIRE_NAME}",
                          "pick a shorter name")
        shown = name or upstream_name
        if shown in renamed:
            check.problem(where, f"two upstream tools would both be called {shown!r} "
                          f"({renamed[shown]!r} and {upstream_name!r})")
        renamed[shown] = upstream_name
        fixed = check.mapping(entry["fixed"], (*where, "fixed")) if "fixed" in entry else {}
        defaults = (check.mapping(entry["defaults"], (*where, "defaults"))
                    if "defaults" in entry else {})
        both = sorted(set(fixed or {}) & set(defaults or {}))
        if both:
            check.problem(where, f"{', '.join(both)}: fixed arguments need no default")
        params: dict[str, dict[str, Any]] = {}
        if "params" in entry:
            params, _ = build_params(check, entry["params"], (*where, "params"))
        annotations = (check.mapping(entry["annotations"], (*where, "annotations"))
                       if "annotations" in entry else {})
        out[upstream_name] = Reshape(
            name=name, description=check.string(entry, where, "description"),
            title=check.string(entry, where, "title"), annotations=dict(annotations or {}),
            fixed=dict(fixed or {}), defaults=dict(defaults or {}), params=params,
            origin=check.origin(where))
    return out
