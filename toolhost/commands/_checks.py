"""One check of a loaded config, shared by ``validate`` and ``lock``: what ``validate``
refuses, ``lock`` refuses too (a lock pins a config that works, not one that only loads)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from toolhost.config.model import HostConfig
    from toolhost.errors import Problem


# a problem's key path -> its server's name, and its tool's when it is inside one
_SERVER = re.compile(r"servers\.([^.\[]+)(?:\.tools\.([^.\[]+))?")


class Checked(NamedTuple):
    """What one check found: its problems, redacted, in file order."""

    errors: list[Problem]
    warnings: list[Problem]
    # the tools compiled (those of imported servers started with ``connect`` among them);
    # None when the tools were not compiled
    tools: int | None


def check_loaded(config: HostConfig, errors: list[Problem], *, compile_tools: bool = True,
                 connect: bool = False) -> Checked:
    """Every stage after loading: the tools bound to their backends (unless
    ``compile_tools`` is false), the rules against what they name, the notes. ``errors``
    holds the loader's problems so far."""
    from toolhost.commands._configs import close, compile_config, redacted
    from toolhost.permissions.authoring.mistakes import review_rules
    from toolhost.permissions.unanswered import unanswered_note

    unsure = _unsure(config, errors)
    errors = list(errors)
    compiled = None
    tools = None
    if compile_tools:
        loaded = len(errors)
        compiled = compile_config(config, problems=errors, connect=connect)
        tools = sum(len(found) for found in compiled.servers.values())
        errors[loaded:] = _not_said(errors[:loaded], errors[loaded:])
    pending = _pending(config, compiled)
    if compiled is not None:  # said after the verdict, with the other notes
        from toolhost.backends.notes import python_description_notes

        pending += python_description_notes(config, compiled)
        from toolhost.backends.python_safety import own_entry_warnings

        pending += own_entry_warnings(config)  # toolhost.cli:main as a tool
        from toolhost.backends.module_shadow import shadowed_module_warnings

        pending += shadowed_module_warnings(config)  # an installed module took the name
    try:
        findings = review_rules(config, compiled, unsure=unsure)
    finally:
        if compiled is not None:
            close(compiled)
    errors += [f.problem for f in findings if f.level == "error"]
    warnings = [*pending, *(f.problem for f in findings if f.level == "warning")]
    if compiled is not None:
        from toolhost.compile.formats import format_warnings

        warnings += format_warnings(compiled)
    from toolhost.backends.notes import (
        bidi_warnings,
        secret_argv_warnings,
        secret_name_warnings,
        short_secret_warnings,
    )
    from toolhost.compile.prompt_checks import prompt_name_warnings
    from toolhost.compile.resource_checks import resource_warnings

    warnings += secret_argv_warnings(config) + secret_name_warnings(config)
    warnings += short_secret_warnings(config) + bidi_warnings(config)
    warnings += prompt_name_warnings(config) + resource_warnings(config)
    note = unanswered_note(config, "validate")
    if note is not None:
        warnings.append(note)
    from toolhost.config.repolinks import name_checkouts

    # a rule or a warning of a fetched fragment: its cache path names no repository
    errors, warnings = name_checkouts(errors), name_checkouts(warnings)
    order = {name: i for i, name in enumerate(config.files)}

    def key(p: Problem) -> tuple[int, int, int]:
        return (order.get(p.file, len(order)), p.line, p.column)

    return Checked(sorted(redacted(config, dict.fromkeys(errors)), key=key),
                   sorted(redacted(config, dict.fromkeys(warnings)), key=key), tools)


def _unsure(config: HostConfig, loaded: list[Problem]) -> set[str]:
    """What the loader refused part of, so a rule naming it is no second problem: each tool
    with a problem (``S.T``: a wrong key can drop it), and each server left with no tools
    (``S``: its ``tools`` or the whole server was of the wrong type)."""
    out: set[str] = set()
    for problem in loaded:
        found = _SERVER.match(problem.key_path)
        if found is None:
            continue
        server, tool = found.groups()
        if tool is not None:
            out.add(f"{server}.{tool}")
        elif server not in config.servers or not config.servers[server].tools:
            out.add(server)
    return out


# a key path inside a tool's schema -> the schema's own path
_IN_SCHEMA = re.compile(r"(servers\.[^.\[]+\.(?:tools|resources)\.[^.\[]+\."
                        r"(?:params|input_schema|output_schema))[.\[]")


def _not_said(loaded: list[Problem], found: list[Problem]) -> list[Problem]:
    """``found`` (the compiler's problems) without those about a tool's schema as a whole
    (``params: inputSchema is not a valid JSON Schema at properties/p/enum``) when the loader
    already named a key inside it (``params.p.enum: expected a list``): one mistake, one
    line."""
    said = {m.group(1) for p in loaded if (m := _IN_SCHEMA.match(p.key_path))}
    return [p for p in found if p.key_path not in said]


def _pending(config: HostConfig, compiled: Any) -> list[Problem]:
    """A warning for each ``required: false`` upstream that did not start (``--connect``):
    serve and run would start without it, so it is no error (``--strict`` makes it one)."""
    found = getattr(compiled, "upstreams", None) or {}
    return [config.servers[name].upstream.origin.problem(
        f"upstream server '{name}' did not start: {upstream.pending}; it is required: false, "
        "so serve and run start without it and retry it")
        for name, upstream in found.items() if getattr(upstream, "pending", "")]
