"""``servers.NAME.openapi``: a server whose tools are the operations of an OpenAPI document.

The operations become ordinary ``http`` tools when the config is loaded, so everything after
that (the inputSchema, validation, the URL pinned to the declared host, rules, audit log,
redaction, timeouts, ``toolhost tools`` and ``--explain``) is what any http tool gets::

    servers:
      pets:
        openapi: {spec: ./petstore.yaml, security: {bearerAuth: "${PETS_TOKEN}"}}
        base_url: http://127.0.0.1:8080     # default: the document's first server URL
        include: [listPets, "tag:store", "GET /pets/*"]
        exclude: [deletePet]
        tools:
          showPetById: {name: get_pet, fixed: {verbose: true}, params: {petId: {maximum: 99}}}
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import logging
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path as FilePath
from typing import Any
from urllib.parse import urljoin, urlsplit

from toolhost.backends.http_headers import server_header_names
from toolhost.config.checks import Checker
from toolhost.config.filepaths import resolve_path
from toolhost.config.limits import LIMITS
from toolhost.config.model import BackendSpec, ServerDefaults, ToolConfig
from toolhost.config.repotree import fetch_cache_root
from toolhost.config.tree import LazyOrigin, Path
from toolhost.config.url_secrets import shown_url
from toolhost.config.urlcheck import url_problem
from toolhost.errors import Problem
from toolhost.excerpt import cut
from toolhost.gateway.openapi_doc import OpenApiDoc, fetch_cached, read_document
from toolhost.gateway.openapi_ops import Operation, Plan, operations, plan_tool, tool_name
from toolhost.gateway.openapi_part import check_chosen
from toolhost.gateway.openapi_schema import SchemaConverter
from toolhost.gateway.openapi_security import (
    Credentials,
    scheme_headers,
    scheme_queries,
    security,
    taken_headers,
)
from toolhost.gateway.reshape import default_unfit
from toolhost.gateway.schema_root import written_in
from toolhost.gateway.spec import Reshape, build_reshapes, globs
from toolhost.gateway.tighten import lay_over, looser, part_default
from toolhost.lockfile.guard import current_guard

log = logging.getLogger("toolhost.gateway")
_PLAIN_KEY = re.compile(r"[A-Za-z0-9_.-]+")  # a key written bare in a key path

__all__ = ["OPENAPI_KEYS", "OPENAPI_SERVER_KEYS", "OpenApiServer", "build_openapi"]

OPENAPI_KEYS = ("spec", "url", "security")
OPENAPI_SERVER_KEYS = ("description", "version", "openapi", "include", "exclude", "tools",
                       "timeout", "base_url", "headers", "auth", "secrets")


@dataclass
class OpenApiServer:
    """The tools of an OpenAPI server and the defaults its requests need."""

    tools: dict[str, ToolConfig] = field(default_factory=dict)
    defaults: ServerDefaults = field(default_factory=ServerDefaults)


def build_openapi(check: Checker, data: Mapping[str, Any], path: Path, server: str,
                  defaults: ServerDefaults) -> OpenApiServer:
    """Read the document ``data["openapi"]`` names and build one tool per chosen operation."""
    here = (*path, "openapi")
    check.known_keys(data, path, OPENAPI_SERVER_KEYS)
    raw = data["openapi"]
    short = isinstance(raw, str)
    if isinstance(raw, str):  # openapi: ./api.yaml, or openapi: https://.../openapi.json
        raw = {"url" if raw.startswith(("http://", "https://")) else "spec": raw}
    block = check.mapping(raw, here)
    if block is None:
        return OpenApiServer(defaults=defaults)
    check.known_keys(block, here, OPENAPI_KEYS)
    doc = _document(check, block, here, server, short)
    if doc is None:
        return OpenApiServer(defaults=defaults)
    base = defaults.base_url or _server_url(doc)
    if not base or not base.lower().startswith(("http://", "https://")) or "{" in base \
            or "}" in base:
        said = shown_url(base) if base else "none"
        check.problem(path, f"no absolute base URL for '{server}' (the document says "
                      f"{said!r})", "set base_url: http://host:port/prefix")
        return OpenApiServer(defaults=defaults)
    wrong = None if defaults.base_url else url_problem(base, userinfo=False)
    if wrong:  # read as httpx reads it: `http://a.example @b.example/` goes to b.example,
        # with the server's headers, and a userinfo would be sent as Basic auth
        check.problems.append(doc.problem(("servers", 0, "url"), wrong,
                                          "set base_url: in the config"))
        return OpenApiServer(defaults=defaults)
    credentials = security(check, block, here, doc,
                           taken_headers(defaults.headers, defaults.auth))
    elsewhere = None if defaults.base_url or not credentials or not doc.source_url \
        else _other_host(base, doc.source_url)
    if elsewhere:
        log.warning("%s", doc.problem(("servers", 0, "url"), f"the credentials of "
                                      f"'{server}' (openapi.security) are sent to {elsewhere}, "
                                      "a host the fetched document names, not the one it was "
                                      "fetched from", "set base_url: in the config to pin "
                                      "the host"))
    defaults = replace(defaults, base_url=base)
    chosen = _choose(check, data, path, operations(doc))
    if len(chosen) > LIMITS.openapi_operations:  # each costs about a millisecond per start
        check.problem((*path, "include") if "include" in data else (*path, "openapi"),
                      f"{len(chosen):,} operations of the document are chosen, over the "
                      f"limit of {LIMITS.openapi_operations:,}", "choose fewer with include: "
                      "or exclude:, or raise TOOLHOST_MAX_OPENAPI_OPERATIONS")
        return OpenApiServer(defaults=defaults)
    if not doc.checked:  # too large to check whole: the part the chosen ones use
        found, refused = check_chosen(doc, [(op.path, op.method) for op in chosen])
        check.problems.extend(found)
        if refused:
            check.problem((*path, "include") if "include" in data else (*path, "openapi"),
                          refused, "choose fewer with include: (only what they use is "
                          "checked), or raise TOOLHOST_MAX_OPENAPI_CHECK_VALUES (slow: "
                          "about 2 ms a value)")
            return OpenApiServer(defaults=defaults)
    reshapes = build_reshapes(check, data, path)
    keys = {op.key for op in operations(doc)}  # a reshape of an excluded one is harmless
    for key in reshapes:
        if key not in keys:
            check.problem((*path, "tools", key), f"the document has no operation {key!r}",
                          "name an operationId, or 'METHOD /path' for one without")
    converter = SchemaConverter(_components(doc), openapi_30=doc.openapi_30)
    taken = server_header_names(defaults.headers, defaults.auth) | scheme_headers(doc)
    in_query = frozenset(credentials.sent()[1]) | scheme_queries(doc)
    out = OpenApiServer(defaults=defaults)
    unmet: dict[tuple[str, ...], list[Operation]] = {}  # schemes not configured -> who needs them
    malformed: dict[Path, list[Operation]] = {}  # a requirement that is not one -> who has it
    first_of: dict[str, str] = {}  # tool name -> the operation that became it
    for op in chosen:
        plan = plan_tool(doc, op, converter, taken, in_query)
        if isinstance(plan, str):
            log.warning("%s", doc.problem(op.where, f"operation {op.key!r} is left out: {plan}"))
            continue
        moved = _own_server(doc, op, base)
        if moved is not None:
            log.warning("%s", doc.problem(moved[0], f"operation {op.key!r} names its own "
                                          f"server {moved[1]!r}; toolhost sends it to "
                                          f"{shown_url(base)!r} like every operation of the "
                                          "server (a document never moves a request, and its "
                                          "credentials, to another host)", "import it as "
                                          "another server with its own base_url: if that host "
                                          "is meant"))
        for place, name, why, where in plan.dropped:
            log.warning("%s", doc.problem(where, f"operation {op.key!r}: {place} parameter "
                                          f"{name!r} is left out: {why}; the model never "
                                          "sets it"))
        tool = _tool(check, path, server, doc, op, plan, reshapes.get(op.key, Reshape()),
                     base, credentials, (unmet, malformed))
        if tool is not None:
            if tool.name in out.tools:
                key = op.key if _PLAIN_KEY.fullmatch(op.key) else json.dumps(op.key)
                check.problem(path, f"operations {first_of[tool.name]!r} and {op.key!r} would "
                              f"both be the tool {tool.name!r}", f"rename one under "
                              f"tools.{key}.name")
                continue
            out.tools[tool.name] = tool
            first_of[tool.name] = op.key
    for missing, ops in unmet.items():  # one warning per set of schemes, not per operation
        names = ", ".join(repr(op.key) for op in ops[:3]) + (", ..." if len(ops) > 3 else "")
        who = f"operation {names} needs" if len(ops) == 1 else \
            f"{len(ops):,} operations ({names}) need"
        log.warning("%s", doc.problem((*ops[0].where, "security"), f"{who} security "
                                      f"scheme(s) {', '.join(map(repr, missing))}, which the "
                                      "config does not set", "set them under "
                                      f"servers.{server}.openapi.security"))
    for where, ops in malformed.items():  # fail closed: nothing sent, said once per place
        names = ", ".join(repr(op.key) for op in ops[:3]) + (", ..." if len(ops) > 3 else "")
        log.warning("%s", doc.problem(where, "the security requirement is not a list of "
                                      "mappings (scheme name -> scopes), so no credential is "
                                      f"sent with {_operations(len(ops))} {names}",
                                      "write it as e.g. security: [{bearerAuth: []}]"))
    return out


def _operations(count: int) -> str:
    return "operation" if count == 1 else f"{count:,} operations"


def _document(check: Checker, block: Mapping[str, Any], here: Path, server: str,
              short: bool) -> OpenApiDoc | None:
    if ("spec" in block) == ("url" in block):
        check.problem(here, "an OpenAPI server names its document with 'spec' (a file) or "
                      "'url'", "e.g. openapi: {spec: ./openapi.yaml}")
        return None
    origin = check.origin(here)
    if "spec" in block:
        spec = check.string(block, here, "spec")
        if spec is None:
            return None
        file, source = resolve_path(check, (*here, "spec"), spec), None
        return _read_located(check, file, here if short else (*here, "spec"))
    else:
        source = check.string(block, here, "url")
        fetched = fetch_cached(source, fetch_cache_root(), check.problems, origin) \
            if source else None
        if fetched is None:
            return None
        file = fetched
        guard = current_guard()
        if guard is not None:  # pulled from elsewhere: pinned like any pulled source
            guard.document(f"openapi:{server}", FilePath(file), origin)
    return read_document(file, check.problems, source_url=source)


def _read_located(check: Checker, file: str, where: Path) -> OpenApiDoc | None:
    """The document the config names at ``where``; a file that cannot be read at all (none
    there, a directory, ``/dev/zero``, too large) is said at the config's line and key."""
    found: list[Problem] = []
    doc = read_document(file, found)
    for problem in found:
        if problem.file == file and not problem.line:
            check.problem(where, f"OpenAPI document {file}: {problem.message}", problem.hint)
        else:
            check.problems.append(problem)
    return doc


def _other_host(base: str, source: str) -> str | None:
    """``base``'s host (scheme://host:port) when it is not ``source``'s, else None."""
    a, b = urlsplit(base), urlsplit(source)
    if (a.scheme, a.hostname, a.port) == (b.scheme, b.hostname, b.port):
        return None
    return f"{a.scheme}://{a.hostname}" + (f":{a.port}" if a.port else "")


def _server_url(doc: OpenApiDoc) -> str | None:
    servers = doc.data.get("servers")
    first = servers[0] if isinstance(servers, list) and servers else None
    if not isinstance(first, Mapping) or not isinstance(first.get("url"), str):
        return None
    url: str = first["url"]
    variables = first.get("variables")
    values = {str(name): str(var["default"]) for name, var in
              (variables.items() if isinstance(variables, Mapping) else ())
              if isinstance(var, Mapping) and "default" in var}
    # one pass: a value is never read again as a template (a default of '{b}' stays that,
    # as OpenAPI substitutes; replaced one variable after another, it took b's value)
    url = re.sub(r"\{([^{}]*)\}", lambda m: values.get(m.group(1), m.group()), url)
    if doc.source_url and not url.startswith(("http://", "https://")):
        url = urljoin(doc.source_url, url)
    return url


def _own_server(doc: OpenApiDoc, op: Operation, base: str) -> tuple[Path, str] | None:
    """Where the operation (or its path) names a server of its own other than ``base``, and
    that server's URL as it may be shown; None when it names none."""
    paths = doc.data.get("paths")
    item = paths.get(op.path) if isinstance(paths, Mapping) else None
    for where, node in (((*op.where, "servers"), op.node),
                        (("paths", op.path, "servers"), item)):
        servers = node.get("servers") if isinstance(node, Mapping) else None
        first = servers[0] if isinstance(servers, list) and servers else None
        url = first.get("url") if isinstance(first, Mapping) else None
        if isinstance(url, str):
            if urljoin(base, url).rstrip("/") == base.rstrip("/"):
                return None
            return (*where, 0, "url"), cut(shown_url(url), 200)
    return None


def _components(doc: OpenApiDoc) -> Mapping[str, Any]:
    components = doc.data.get("components")
    schemas = components.get("schemas") if isinstance(components, Mapping) else None
    return schemas if isinstance(schemas, Mapping) else {}


def _choose(check: Checker, data: Mapping[str, Any], path: Path, ops: list[Operation]
            ) -> list[Operation]:
    include = globs(check, data, path, "include") or ("*",)
    exclude = globs(check, data, path, "exclude")
    for key, patterns in (("include", include), ("exclude", exclude)):
        for index, pattern in enumerate(patterns):
            if pattern != "*" and not any(_matches(pattern, op) for op in ops):
                check.problem((*path, key, index) if key in data and
                              isinstance(data[key], list) else (*path, key),
                              f"{pattern!r} matches no operation of the document",
                              "match an operationId, 'tag:NAME', 'GET /path' or '/path' "
                              "(globs allowed)")
    return [op for op in ops if any(_matches(p, op) for p in include)
            and not any(_matches(p, op) for p in exclude)]


def _matches(pattern: str, op: Operation) -> bool:
    if pattern.startswith("tag:"):
        return any(fnmatch.fnmatchcase(tag, pattern[4:]) for tag in op.tags)
    if pattern.startswith("/"):
        return fnmatch.fnmatchcase(op.path, pattern)
    if " " in pattern:
        method, _, where = pattern.partition(" ")
        return fnmatch.fnmatchcase(op.method, method.upper()) and \
            fnmatch.fnmatchcase(op.path, where.strip())
    return any(fnmatch.fnmatchcase(name, pattern) for name in
               (op.operation_id or "", tool_name(op)) if name)


def _tool(check: Checker, path: Path, server: str, doc: OpenApiDoc, op: Operation,
          plan: Plan, reshape: Reshape, base: str, credentials: Credentials,
          said: tuple[dict[tuple[str, ...], list[Operation]], dict[Path, list[Operation]]]
          ) -> ToolConfig | None:
    where = (*path, "tools", op.key)
    fixed: dict[str, Any] = {}
    for key, value in reshape.fixed.items():
        arg = _argument(plan, key)
        if arg is None or plan.places[arg][0] == "body":
            check.problem((*where, "fixed", key), f"operation {op.key!r} has no parameter "
                          f"{key!r}" if arg is None else "a fixed argument is a path, query, "
                          "header or form parameter, not the body",
                          "its arguments: " + ", ".join(plan.places))
            continue
        if not isinstance(value, (str, int, float, bool)):
            check.problem((*where, "fixed", key), "a fixed parameter is a string, number or "
                          "boolean")
            continue
        fixed[arg] = value
        plan.properties.pop(arg, None)
    defaulted = _lay_over(check, where, "defaults", op, plan, fixed, reshape.defaults,
                          lambda schema, value: {**schema, "default": value})
    tightened = _lay_over(check, where, "params", op, plan, fixed, reshape.params,
                          lay_over)
    root = {"$defs": plan.defs} if plan.defs else {}
    for arg in sorted(defaulted | tightened):  # filled in after the check: it must fit
        why = default_unfit(root, plan.properties.get(arg))
        if why:
            key = "defaults" if arg in defaulted else "params"
            value = cut(repr(part_default(root, plan.properties[arg])[1]), 60)
            check.problem((*where, key, _written(reshape, key, plan, arg)),
                          f"the default of {arg!r} ({value}) does not fit its schema ({why}): "
                          "a call that leaves it out would send it",
                          "choose a default the document's schema and params allow")
    plan.required = [r for r in plan.required if r not in fixed and r not in defaulted]
    annotations = {**plan.annotations, **reshape.annotations}
    # (looked up when read: a JSON document's marks are made only then)
    origin = reshape.origin if reshape.origin.line else \
        LazyOrigin(doc.marks, op.where, doc.file)
    schemes, missing, malformed = credentials.for_operation(doc, op.node)
    if missing:
        said[0].setdefault(missing, []).append(op)
    if malformed:
        place = (*op.where, "security") if "security" in op.node else ("security",)
        said[1].setdefault(place, []).append(op)
    headers, query = credentials.sent(schemes)
    try:
        options = plan.http_options(base, fixed, query, headers)
    except ValueError as exc:  # the path would send the request to another host
        check.problems.append(doc.problem(("paths", op.path), f"operation {op.key!r}: {exc}",
                                          "requests go only to the server's base URL"))
        return None
    former = _fitting(plan.name, server)
    renamed = None
    if reshape.name and reshape.name != former:
        renamed = (former, check.origin((*where, "name")))
    return ToolConfig(
        name=reshape.name or former, server=server, renamed_from=renamed,
        backend=BackendSpec("http", options, origin),
        description=reshape.description or plan.description, title=reshape.title,
        input_schema=plan.input_schema(), annotations=annotations, origin=origin,
        shown=True)


def _lay_over(check: Checker, where: Path, key: str, op: Operation, plan: Plan,
              fixed: Mapping[str, Any], entries: Mapping[str, Any],
              merge: Callable[[dict[str, Any], Any], dict[str, Any]]) -> set[str]:
    """Merge each of ``entries`` (``defaults`` or ``params``, by argument or document name)
    into its argument's schema; the arguments it touched."""
    touched: set[str] = set()
    for name, value in entries.items():
        arg = _argument(plan, name)
        if arg is None or arg in fixed:
            check.problem((*where, key, name), f"operation {op.key!r} has no parameter "
                          f"{name!r}", "its arguments: " + ", ".join(plan.properties))
            continue
        if key == "params" and "$ref" in plan.properties[arg]:  # a component's schema
            plan.properties[arg] = written_in({"$defs": plan.defs}, plan.properties[arg])
        wrong = looser(plan.properties[arg], value, {"$defs": plan.defs}) \
            if key == "params" else None
        if wrong is not None and isinstance(value, Mapping):
            check.problem((*where, key, name, wrong[0]), f"params may only tighten the "
                          f"document's schema of {arg!r}: {wrong[0]} {wrong[1]}",
                          f"leave {wrong[0]} out (the document's holds), or tighten it")
            continue
        plan.properties[arg] = merge(plan.properties[arg], value)
        touched.add(arg)
    return touched


def _written(reshape: Reshape, key: str, plan: Plan, arg: str) -> str:
    """The name under which ``reshape.<key>`` names argument ``arg`` (its own, or the
    document's), for the problem's key path."""
    entries = reshape.defaults if key == "defaults" else reshape.params
    return next((name for name in entries if _argument(plan, name) == arg), arg)


def _argument(plan: Plan, key: str) -> str | None:
    """The argument ``key`` names: its own name, or the parameter's name in the document."""
    if key in plan.places:
        return key
    return next((arg for arg, (_, original) in plan.places.items() if original == key), None)


def _fitting(name: str, server: str) -> str:
    """``name``, shortened (with a hash, so two long names stay apart) when its wire name
    ``mcp__<server>__<name>`` would pass the API's 64 characters."""
    room = 64 - len(f"mcp__{server}__")
    if len(name) <= room or room < 12:
        return name  # (a server name that leaves no room is reported by the compile step)
    digest = hashlib.sha256(name.encode()).hexdigest()[:6]
    return f"{name[:room - 7]}_{digest}"
