"""From an upstream's tool list to the tools this server offers: chosen, renamed, reshaped.

Everything here is a pure function of the listed tools and the config, so ``toolhost tools``
shows exactly what the model will see, and a problem names the config line that causes it.
"""

from __future__ import annotations

import copy
import fnmatch
import json
import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from toolhost.config.wirenames import MAX_WIRE_NAME, name_problem
from toolhost.errors import Problem
from toolhost.excerpt import cut
from toolhost.gateway.bounds import MAX_TOOL_CHARS, bound_entry, too_big
from toolhost.gateway.schema_root import declared, inline_root_ref, strip_fixed, written_in
from toolhost.gateway.spec import Reshape, UpstreamSpec
from toolhost.gateway.tighten import lay_over, looser, part_default
from toolhost.typos import close_matches

__all__ = ["Imported", "excluded_by", "never_shown", "reshape_tools"]

log = logging.getLogger("toolhost.gateway")
_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}\Z")  # \Z: "$" also matches before a final newline
_PLAIN_KEY = re.compile(r"[A-Za-z0-9_-]+")  # a key written bare in a key path


def _key(name: str) -> str:
    """Upstream tool ``name`` as the key of ``tools.<name>.name`` in a hint: bare when it can
    be, else quoted and escaped (a dot, a line end, an escape sequence or a bidi override an
    upstream put in a name neither splits the path nor reaches the terminal), and cut."""
    return name if _PLAIN_KEY.fullmatch(name) and len(name) <= 300 else \
        cut(json.dumps(name), 300)


def _shown(name: str) -> str:
    """An upstream's tool name in a line: escaped and cut. Every non-ASCII character is
    escaped too (``ascii``, not ``repr``): a look-alike such as a Cyrillic ``о`` in ``echо``
    would otherwise read in the warning as the very name it imitates."""
    return cut(ascii(name), 300)


@dataclass(frozen=True)
class Imported:
    """One upstream tool as this server offers it."""

    name: str  # the name the model sees (after a rename)
    upstream_name: str
    description: str
    input_schema: dict[str, Any]
    title: str | None
    annotations: dict[str, Any]
    fixed: Mapping[str, Any]
    output_schema: Any = None  # the upstream's, as listed (None: it has none)
    # the listed definition it was built from: the very one the lock checks (of a tool listed
    # twice, the first copy, which is also the one served)
    source: Mapping[str, Any] = field(default_factory=dict)


def reshape_tools(spec: UpstreamSpec, listed: list[dict[str, Any]], server: str, *,
                  missing_ok: bool = False) -> tuple[list[Imported], list[Problem]]:
    """Apply include/exclude and each ``tools.<name>`` entry to ``listed``. With
    ``missing_ok`` (a list the upstream changed while serving) an entry for a tool the
    upstream no longer has is no problem: that tool is simply gone."""
    by_name: dict[str, dict[str, Any]] = {}
    for tool in listed:
        name = tool.get("name")
        if isinstance(name, str) and name in by_name:
            log.warning("%s: upstream tool %s is listed twice; the second is left out (the "
                        "first is served, and checked against the lock)", server, _shown(name))
        elif isinstance(name, str):
            by_name[name] = tool
    problems: list[Problem] = []
    for name, reshape in spec.reshape.items():
        if name not in by_name and not missing_ok:
            close = close_matches(name, list(by_name), n=1)
            problems.append(reshape.origin.problem(
                f"upstream server '{server}' has no tool {name!r}",
                hint=f"did you mean {_shown(close[0])}?" if close else
                "its tools: " + (", ".join(map(_shown, sorted(by_name)[:20])) or "none")))
    chosen = [n for n in by_name if _chosen(spec, n)]
    # the config's renames take their names first: an upstream tool listed under a name a
    # rename gives another is never shown in its place (the rules name the renamed one),
    # also when the renamed tool is not listed now (a list changed while serving: before,
    # an upstream that dropped `search_issues` and listed a `search` of its own had it
    # served as the `search` the rules allowed, without the renamed tool's fixed arguments)
    renamed = {r.name: n for n, r in spec.reshape.items() if r.name and _chosen(spec, n)}
    alike = _alike_names(spec, chosen, renamed)
    out: list[Imported] = []
    for name in chosen:
        tool = by_name[name]
        reshape = spec.reshape.get(name, Reshape())
        shown = reshape.name or name
        if name in alike:
            log.warning("%s: upstream tool %s is left out: its name differs only in case from "
                        "%s (a rule naming one would not reach the other; rename it under "
                        "tools.%s.name)", server, _shown(name), _shown(alike[name]), _key(name))
            continue
        if renamed.get(shown, name) != name:
            other = spec.reshape[renamed[shown]]
            if missing_ok:  # the upstream's list changed while serving: keep serving
                log.warning("%s: upstream tool %s is left out: tools.%s.name gives its name "
                            "to another tool", server, _shown(name), _key(renamed[shown]))
            else:
                problems.append(other.origin.problem(
                    f"upstream tool {renamed[shown]!r} is renamed to {shown!r}, the name of "
                    f"another tool of upstream server '{server}'", key=".name",
                    hint=f"pick another name, or exclude {name!r}"))
            continue
        if not _NAME.match(shown):
            log.warning("%s: upstream tool %s is left out: its name is not a valid tool name "
                        "(%s)", server, _shown(name), f"rename it under tools.{_key(name)}.name"
                        if name else "an empty name cannot be renamed")
            continue
        wire = f"mcp__{server}__{shown}"
        if len(wire) > MAX_WIRE_NAME:  # (a rename that long is refused at load)
            log.warning("%s: upstream tool %s is left out: its full name is %d characters, "
                        "over the Claude API's %d (rename it under tools.%s.name)", server,
                        _shown(name), len(wire), MAX_WIRE_NAME, _key(name))
            continue
        ambiguous = name_problem(shown, server=server)
        if ambiguous and not reshape.name:
            log.warning("%s: upstream tool %s is left out: its name %s (rename it under "
                        "tools.%s.name)", server, _shown(name),
                        "starts with '_'" if shown.startswith("_") else "contains '__'",
                        _key(name))
            continue
        bounded = bound_entry(tool)  # what the upstream wrote for the model, cut
        size = too_big(bounded)
        if size:
            log.warning("%s: upstream tool %s is left out: its definition is %s characters, "
                        "over %s", server, _shown(str(name)), f"{size:,}", f"{MAX_TOOL_CHARS:,}")
            continue
        schema, found = _schema(bounded.get("inputSchema"), reshape, name, server)
        problems += found
        annotations = dict(bounded.get("annotations") or {})
        annotations.update(reshape.annotations)
        out.append(Imported(
            name=shown, upstream_name=name,
            description=reshape.description or str(bounded.get("description") or name),
            input_schema=schema, title=reshape.title or bounded.get("title"),
            annotations=annotations, fixed=dict(reshape.fixed),
            output_schema=bounded.get("outputSchema"), source=tool))
    return out, problems


def _alike_names(spec: UpstreamSpec, chosen: list[str], renamed: Mapping[str, str]
                 ) -> dict[str, str]:
    """The chosen upstream tools, not renamed by the config, whose name as shown differs
    only in case from another's (a config rename's too), each with one of those others.
    Every one of them is left out, whichever the upstream lists first: a deny on
    ``mcp__gh__delete_repo`` does not reach a ``Delete_Repo`` listed beside (or before) it,
    which an upstream dispatching names without case would run as ``delete_repo``."""
    given = {n for n in chosen if n in spec.reshape and spec.reshape[n].name}
    shown = {n: (spec.reshape[n].name if n in given else None) or n for n in chosen}
    groups: dict[str, set[str]] = {}
    for name in [*shown.values(), *renamed]:
        groups.setdefault(name.casefold(), set()).add(name)
    out = {}
    for name, as_shown in shown.items():
        others = sorted(groups[as_shown.casefold()] - {as_shown})
        if others and name not in given:  # (the config's own names are the config's)
            out[name] = others[0]
    return out


def _schema(raw: Any, reshape: Reshape, name: str, server: str
            ) -> tuple[dict[str, Any], list[Problem]]:
    schema: dict[str, Any] = copy.deepcopy(dict(raw)) if isinstance(raw, Mapping) else {}
    # the arguments behind a root $ref, and a fixed one out of allOf/anyOf/oneOf parts too
    schema = inline_root_ref(schema)
    named = declared(schema)
    schema = strip_fixed(schema, reshape.fixed)
    schema.setdefault("type", "object")
    props: dict[str, Any] = dict(schema.get("properties") or {})
    problems: list[Problem] = []
    closed = schema.get("additionalProperties") is False
    for key in reshape.fixed:
        if key not in props and closed:
            problems.append(reshape.origin.problem(
                f"fixed argument {key!r}: upstream tool {name!r} of '{server}' takes no such "
                f"argument (it takes {', '.join(sorted(props)) or 'none'})", key=".fixed"))
        elif named is not None and key not in named:
            # an open schema lets it through, but the upstream reads what it declares: the
            # value would be ignored, and an argument it renamed (`repo` -> `repository`, in
            # a list changed while serving) would be the model's to choose, unfixed
            problems.append(reshape.origin.problem(
                f"fixed argument {key!r}: upstream tool {name!r} of '{server}' does not "
                f"declare it (it declares {cut(', '.join(sorted(named)), 200)}), so the "
                "value would be ignored and the argument it stands for left to the model",
                key=f".fixed.{key}", hint="fix the argument by the name the upstream's "
                "schema gives it (`toolhost tools CONFIG` shows it), or leave it out"))
        props.pop(key, None)
    for key in [*reshape.defaults, *reshape.params]:
        # a boolean schema (JSON Schema's `true`: anything) as the object it stands for;
        # anything else that is not an object is not a schema: the tool is left out as
        # invalid after reshaping (compile._unusable), with nothing laid over it
        if key in props and isinstance(props[key], bool):
            props[key] = {} if props[key] else {"not": {}}
    for key, value in reshape.defaults.items():
        if key not in props:
            problems.append(reshape.origin.problem(
                f"default for {key!r}: upstream tool {name!r} has no such argument",
                key=".defaults"))
            continue
        if not isinstance(props[key], Mapping):
            continue
        props[key] = {**props[key], "default": value}
    for key, tighter in reshape.params.items():
        if key not in props:
            problems.append(reshape.origin.problem(
                f"params.{key}: upstream tool {name!r} has no such argument", key=".params"))
            continue
        if not isinstance(props[key], Mapping):
            continue
        if isinstance(props[key], Mapping) and "$ref" in props[key]:
            # a pydantic enum, a shared definition: what params tightens is behind the $ref
            props[key] = written_in(schema, props[key])
        wrong = looser(props[key], tighter, schema)
        if wrong is not None:
            problems.append(reshape.origin.problem(
                f"params may only tighten upstream tool {name!r}'s schema of {key!r}: "
                f"{wrong[0]} {wrong[1]}", key=f".params.{key}.{wrong[0]}",
                hint=f"leave {wrong[0]} out (the upstream's holds), or tighten it"))
            continue
        props[key] = lay_over(props[key], tighter)
    schema["properties"] = props
    problems += _unfit_defaults(schema, reshape, name)
    # a fixed argument is not the model's to give; one with a default may be left out
    required = [r for r in schema.get("required") or ()
                if r not in reshape.fixed and r not in reshape.defaults]
    if required:
        schema["required"] = required
    else:
        schema.pop("required", None)
    return schema, problems


def _unfit_defaults(schema: dict[str, Any], reshape: Reshape, name: str) -> list[Problem]:
    """A default that does not fit its argument's (reshaped) schema: the config's
    (``defaults``), or the upstream's own for an argument ``params`` tightens. toolhost fills a
    default in after the arguments are checked, so a call that leaves the argument out would
    send it: ``params: {limit: {maximum: 10}}`` over an upstream default of 20 sent 20."""
    keys = [k for k in [*reshape.defaults, *reshape.params] if k in schema["properties"]]
    if not keys:
        return []
    problems: list[Problem] = []
    for key in dict.fromkeys(keys):
        prop = schema["properties"][key]
        why = default_unfit(schema, prop)
        if not why:
            continue
        if key in reshape.defaults:
            problems.append(reshape.origin.problem(
                f"{cut(repr(prop['default']), 60)} does not fit the argument's schema "
                f"({why}): a call that leaves {key!r} out would send it",
                key=f".defaults.{key}", hint="choose a default the schema (and params) allow"))
        else:
            problems.append(reshape.origin.problem(
                f"the default of upstream tool {name!r} for {key!r} "
                f"({cut(repr(part_default(schema, prop)[1]), 60)}) does not fit the "
                f"tightened schema ({why}):"
                f" a call that leaves {key!r} out would send it", key=f".params.{key}",
                hint=f"set tools.{name}.defaults.{key} to a value params allow"))
    return problems


def default_unfit(root: Mapping[str, Any], prop: Any) -> str:
    """Why the ``default`` of ``prop`` (an argument's schema within the inputSchema ``root``,
    whose ``$defs`` it may name) does not fit ``prop``, in one line; "" when it does, when
    there is none, or when the schema cannot be checked here (refused at the call, with why)."""
    found, default = part_default(root, prop)  # its own, or an allOf part's, a $ref's
    if not found or not isinstance(prop, Mapping):
        return ""
    from toolhost import regex
    from toolhost.compile.schema_safety import schema_problem

    sub = {**{k: root[k] for k in ("$defs", "definitions") if k in root}, **prop,
           "default": default}
    if schema_problem(sub):
        return ""
    try:
        error = next(regex.validator_class()(sub).iter_errors(default), None)
    except Exception:
        return ""
    return "" if error is None else cut(" ".join(error.message.split()), 200)


def _chosen(spec: UpstreamSpec, name: str) -> bool:
    """Whether include/exclude would choose an upstream tool called ``name``."""
    return any(fnmatch.fnmatchcase(name, g) for g in spec.include) and \
        not excluded_by(name, spec.exclude)


def excluded_by(name: str, globs: tuple[str, ...]) -> str | None:
    """The first ``exclude`` glob that leaves out upstream tool ``name``, or None. Case is
    ignored (fails closed): ``delete_*`` also leaves out ``Delete_repo`` and ``DELETE_REPO``,
    which an upstream may list -- or start listing -- beside or instead of the tool the
    config meant to keep from the model."""
    folded = name.casefold()
    return next((g for g in globs if fnmatch.fnmatchcase(folded, g.casefold())), None)


def never_shown(spec: UpstreamSpec, server: str, tool: str) -> tuple[str, str] | None:
    """Why no tool of imported ``server`` can be called ``tool``, whatever its upstream lists,
    as (reason, hint); None when some upstream list could show one (``validate`` offline).

    A tool is shown as ``tool`` when the config renames a chosen upstream tool to it, or when
    the upstream lists ``tool`` itself, chosen by include/exclude and neither renamed away
    nor giving its name to a rename."""
    def chosen(name: str) -> bool:
        return (any(fnmatch.fnmatchcase(name, g) for g in spec.include)
                and not excluded_by(name, spec.exclude))

    wire = f"mcp__{server}__{tool}"
    if len(wire) > MAX_WIRE_NAME:
        return (f"the tool's full name {wire!r} is {len(wire)} characters, over the Claude "
                f"API's {MAX_WIRE_NAME}: an upstream tool of that name is left out, so the "
                "rule never matches", f"rename the upstream tool under servers.{server}.tools."
                f"<its name>.name and name 'mcp__{server}__<the new name>' in the rule")
    if any(r.name == tool and chosen(n) for n, r in spec.reshape.items()):
        return None
    if not _NAME.match(tool) or name_problem(tool, server=server):
        return None  # the wire name may also read as another server's tool
    prefix = f"servers.{server}"
    if excluded := [g for g in spec.exclude if excluded_by(tool, (g,))]:
        return (f"upstream tool {tool!r} is left out by {prefix}.exclude ({excluded[0]!r}), "
                "so the rule never matches", f"remove {excluded[0]!r} from exclude, or the rule")
    if not chosen(tool):
        globs = ", ".join(repr(g) for g in spec.include[:5])
        renames = [r.name for n, r in spec.reshape.items() if r.name and chosen(n)]
        near = close_matches(tool, renames, n=1) or [
            r for r in renames if r.lower() == tool.lower()]
        return (f"upstream tool {tool!r} matches none of {prefix}.include ({globs}), so the "
                "rule never matches", f"did you mean 'mcp__{server}__{near[0]}'?" if near
                else f"add {tool!r} to include, or remove the rule")
    reshape = spec.reshape.get(tool)
    if reshape is not None and reshape.name and reshape.name != tool:
        return (f"{prefix}.tools.{tool}.name renames upstream tool {tool!r} to "
                f"{reshape.name!r}, so no tool is called {tool!r}",
                f"name the tool as the model sees it: 'mcp__{server}__{reshape.name}'")
    return None


def fixed_named(spec: UpstreamSpec, server: str, matches: Any, keys: Any
                ) -> list[tuple[str, str, str, str]]:
    """The arguments among ``keys`` (a rule's ``when``) that the config fixes for a
    tool of imported ``server`` the rule's name pattern ``matches`` (a callable on wire
    names), as (argument, wire name, upstream tool, the fixed value's text): the model never
    sends such an argument (it is not in the schema it sees; a call that passes it is
    refused), so a condition on it never holds."""
    found = []
    for upstream, reshape in spec.reshape.items():
        wire = f"mcp__{server}__{reshape.name or upstream}"
        if reshape.fixed and matches(wire):
            found += [(str(key), wire, upstream, repr(reshape.fixed[key])[:80])
                      for key in keys if key in reshape.fixed]
    return found
