"""OpenAPI operations -> tool definitions for the ``http`` backend.

Each operation becomes one tool: its path, query and header parameters become arguments (named
so a template can print them: ``X-Request-Id`` is ``x_request_id``), a JSON request body
becomes one ``body`` argument with the body's schema, a form body becomes one argument per
field. The http options are written from that plan only after the config's reshaping, so a
fixed argument is a literal in the request, never a template the model could reach.
"""

from __future__ import annotations

import hashlib
import json
import keyword
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import quote

from toolhost.backends.http_headers import model_header_reason, query_reason
from toolhost.config.tree import Path as KeyPath
from toolhost.excerpt import cut
from toolhost.gateway.openapi_doc import OpenApiDoc, resolve_pointer
from toolhost.gateway.openapi_paths import encode_piece, is_extension, join_path, path_key_problem
from toolhost.gateway.openapi_schema import SchemaConverter

__all__ = ["METHODS", "Operation", "Plan", "operations", "plan_tool"]

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
Place = Literal["path", "query", "header", "form", "body"]
_JINJA_WORDS = frozenset({"true", "false", "none", "and", "or", "not", "in", "is", "if",
                          "else", "for", "loop", "self", "range", "dict", "lipsum", "cycler",
                          "joiner", "namespace", "caller", "varargs", "kwargs"})
_PATH_PART = re.compile(r"\{([^{}/]+)\}")
_TOOL_NAME = re.compile(r"[^A-Za-z0-9_-]+")
_HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$")  # an RFC 9110 token
MAX_DESCRIPTION = 2000


@dataclass(frozen=True)
class Operation:
    """One operation of the document, and how the config can choose it."""

    method: str  # upper case
    path: str
    operation_id: str | None
    tags: tuple[str, ...]
    where: KeyPath  # ("paths", path, method)
    node: Mapping[str, Any]
    shared: tuple[Any, ...] = ()  # the path item's own parameters

    @property
    def key(self) -> str:
        """The name a ``tools:`` entry uses: the operationId, else ``METHOD /path``."""
        return self.operation_id or f"{self.method} {self.path}"


@dataclass
class Plan:
    """What one operation's tool takes and how each argument reaches the request."""

    name: str
    description: str
    method: str
    path: str
    properties: dict[str, Any] = field(default_factory=dict)
    required: list[str] = field(default_factory=list)
    places: dict[str, tuple[Place, str]] = field(default_factory=dict)  # arg -> where, name
    defs: dict[str, Any] = field(default_factory=dict)
    annotations: dict[str, Any] = field(default_factory=dict)
    # header and query parameters the model may not fill: place, name, why, where in the
    # document
    dropped: list[tuple[str, str, str, KeyPath]] = field(default_factory=list)
    # the JSON body's media type when it is not application/json (merge-patch+json, ...)
    content_type: str = ""

    def input_schema(self) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "object", "properties": self.properties,
                                  "additionalProperties": False}
        if self.required:
            schema["required"] = self.required
        if self.defs:
            schema["$defs"] = self.defs
        return schema

    def http_options(self, base_url: str, fixed: Mapping[str, Any],
                     extra_query: Mapping[str, str],
                     extra_headers: Mapping[str, str] | None = None) -> dict[str, Any]:
        """The ``http`` backend's options; ``fixed`` arguments and the ``extra_`` query and
        headers (the operation's credentials) are written as literals. Raises
        ``ValueError`` when the URL would not go to ``base_url``'s host."""
        by_original = {(place, original): arg for arg, (place, original) in self.places.items()}

        path = ""
        for index, piece in enumerate(_PATH_PART.split(self.path)):
            if index % 2 == 0:  # literal text of the path, never a template
                path += encode_piece(piece)
                continue
            arg = by_original[("path", piece)]
            path += quote(_text(fixed[arg]), safe="") if arg in fixed else "{{ " + arg + " }}"
        url = join_path(base_url, path)  # ValueError: the host would not be base_url's
        literal = [f"{quote(k, safe='')}={quote(v, safe='')}" for k, v in extra_query.items()]
        if literal:
            url += "?" + "&".join(literal)
        options: dict[str, Any] = {"method": self.method, "url": url}
        for place in ("query", "header", "form"):
            values = {original: (_literal(fixed[arg]) if arg in fixed else "{{ " + arg + " }}")
                      for arg, (where, original) in self.places.items() if where == place}
            if place == "header":  # never a model's argument (plan_tool left those out)
                values.update({k: _literal(v) for k, v in (extra_headers or {}).items()})
            if values:
                options["headers" if place == "header" else place] = values
        body = [arg for arg, (where, _) in self.places.items() if where == "body"]
        if body:
            options["json"] = "{{ " + body[0] + " }}"
            if self.content_type:  # the config's literal: the service may insist on it
                options.setdefault("headers", {})["Content-Type"] = self.content_type
        return options


def operations(doc: OpenApiDoc) -> list[Operation]:
    """Every operation of the document, in document order (``x-`` keys of ``paths`` are
    extensions, not paths; any other key that is no path is left out by ``plan_tool``)."""
    found = []
    paths = doc.data.get("paths")
    for path, item in (paths.items() if isinstance(paths, Mapping) else ()):
        if not isinstance(path, str) or not isinstance(item, Mapping) or is_extension(path):
            continue  # an x-... key is a specification extension, never an operation
        shared = item.get("parameters")
        for method in METHODS:
            node = item.get(method)
            if not isinstance(node, Mapping):
                continue
            operation_id = node.get("operationId")
            tags = node.get("tags")
            found.append(Operation(
                method=method.upper(), path=path,
                operation_id=operation_id if isinstance(operation_id, str) else None,
                tags=tuple(t for t in tags if isinstance(t, str)) if isinstance(tags, list)
                else (), where=("paths", path, method), node=node,
                shared=tuple(shared) if isinstance(shared, list) else ()))
    return found


def plan_tool(doc: OpenApiDoc, op: Operation, converter: SchemaConverter,
              server_headers: frozenset[str] = frozenset(),
              query_names: frozenset[str] = frozenset()) -> Plan | str:
    """The tool for ``op``, or why it is left out. A header parameter the model may not fill
    (``model_header_reason``: framing, credentials, routing, any of ``server_headers``), or a
    query parameter a server may read as one of ``query_names`` (the credentials' query
    parameters), is dropped and named in ``Plan.dropped``; the request carries the server's
    own, if any."""
    odd = path_key_problem(op.path)
    if odd:
        return odd
    if not all(_PATH_PART.fullmatch(p) or ("{" not in p and "}" not in p)
               for p in _PATH_PART.split(op.path) if p):
        return "its path has an unbalanced '{' or '}'"
    summary = str(op.node.get("summary") or "").strip()
    details = str(op.node.get("description") or "").strip()
    text = "\n\n".join(t for t in (summary, details) if t) or f"{op.method} {op.path}"
    plan = Plan(name=tool_name(op), description=cut(text, MAX_DESCRIPTION), method=op.method,
                path=op.path, annotations=_annotations(op.method))
    params: dict[tuple[str, str], Mapping[str, Any]] = {}
    located: dict[tuple[str, str], KeyPath] = {}
    own = op.node.get("parameters")
    for at, raw in (*((("paths", op.path, "parameters", i), p) for i, p in
                         enumerate(op.shared)),
                       *(((*op.where, "parameters", i), p) for i, p in
                         enumerate(own if isinstance(own, list) else ()))):
        param = _deref(doc, raw)
        if isinstance(param, Mapping) and isinstance(param.get("name"), str):
            place, name = str(param.get("in")), param["name"]
            # the operation's win; header names are case-insensitive: one argument each
            key = (place, name.lower() if place == "header" else name)
            params[key], located[key] = param, at
    for key, param in params.items():
        place, original = key[0], param["name"]
        if place == "cookie":
            if param.get("required") is True:
                return f"it needs the cookie {original!r} (cookies are not supported)"
            continue
        if place not in ("path", "query", "header"):
            continue
        if place == "header" and original.lower() in ("accept", "content-type",
                                                       "authorization"):
            continue  # OpenAPI: such header parameters are ignored (the backend sets them)
        # compared as lenient servers do (case, '_' for '-', whitespace, Unicode forms)
        why = model_header_reason(original, server_headers) if place == "header" else None
        if not why and place == "query":
            why = query_reason(original, query_names)
        if why:
            plan.dropped.append((place, original, why, located[key]))
            continue
        if place == "header" and not _HEADER_NAME.match(original):
            if param.get("required") is True:
                return f"its header parameter {original!r} is not a valid header name"
            continue
        schema = _param_schema(param, converter)
        odd = _serialization(doc, place, param)
        if odd:  # a way of writing it into the request this importer does not follow
            if param.get("required") is True or place == "path":
                return f"its {place} parameter {original!r} {odd} (not supported)"
            continue
        where: Place = "path" if place == "path" else "query" if place == "query" else "header"
        _add(plan, where, original, schema,
             required=place == "path" or param.get("required") is True)
    missing = [p for p in _PATH_PART.findall(op.path) if ("path", p) not in params]
    if missing:
        return f"its path names {missing[0]!r}, which no parameter describes"
    why = _body(doc, op, plan, converter, query_names)
    if why:
        return why
    plan.defs = converter.take_defs()
    return plan


def tool_name(op: Operation) -> str:
    """A tool name from the operationId, else from the method and path."""
    raw = op.operation_id or f"{op.method.lower()}_{op.path}"
    # one '_' at a time: '__' in a tool name would make its wire name ambiguous
    name = re.sub("_{2,}", "_", _TOOL_NAME.sub("_", raw)).strip("_") or op.method.lower()
    if len(name) > 64:  # cut, with a hash of the whole, so names alike in 64 stay apart
        name = f"{name[:57].rstrip('_')}_{hashlib.sha256(name.encode()).hexdigest()[:6]}"
    return name


def _body(doc: OpenApiDoc, op: Operation, plan: Plan, converter: SchemaConverter,
          query_names: frozenset[str] = frozenset()) -> str:
    body = _deref(doc, op.node.get("requestBody"))
    if not isinstance(body, Mapping):
        return ""
    raw = body.get("content")
    content: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
    required = body.get("required") is True
    json_type = next((t for t in content if _media(t) == "application/json"), None) or \
        next((t for t in content if _media(t).endswith("+json")), None)
    if json_type is not None:
        if _media(json_type) != "application/json":
            plan.content_type = _media(json_type)
        media = content[json_type] if isinstance(content[json_type], Mapping) else {}
        schema = converter.convert(media.get("schema", {}))
        if isinstance(schema, dict) and body.get("description") and "description" not in schema:
            schema["description"] = cut(str(body["description"]), 500)
        _add(plan, "body", "body", schema, required=required)
        return ""
    form_type = next((t for t in content
                      if _media(t) == "application/x-www-form-urlencoded"), None)
    if form_type is not None:
        media = content[form_type]
        schema = converter.convert(_deref(doc, (media or {}).get("schema", {})))
        fields = schema.get("properties") if isinstance(schema, Mapping) else None
        needed = schema.get("required") or () if isinstance(schema, Mapping) else ()
        for name, sub in (fields.items() if isinstance(fields, Mapping) else ()):
            # PHP's $_REQUEST and Rails' params read a form field over the query parameter of
            # its name: one a server may read as the credential's is dropped like such a query
            # parameter
            why = query_reason(name, query_names)
            if why:
                plan.dropped.append(("form", name, why, (*op.where, "requestBody", "content",
                                                         form_type, "schema", "properties",
                                                         name)))
                continue
            _add(plan, "form", name, sub, required=required and name in needed)
        return ""
    if required and content:
        return f"its request body is {', '.join(map(str, content))} (JSON and form bodies " \
               "are supported)"
    return ""


def _media(key: Any) -> str:
    """A media type as it compares (RFC 9110: case-insensitive, parameters aside):
    ``Application/JSON; charset=utf-8`` is ``application/json``."""
    return str(key).split(";", 1)[0].strip().lower()


def _add(plan: Plan, place: Place, original: str, schema: Any, *, required: bool) -> None:
    arg = _argument_name(original, plan.places)
    plan.places[arg] = (place, original)
    plan.properties[arg] = schema if isinstance(schema, dict) else {}
    if arg.rstrip("0123456789").endswith("_") and arg != _argument_name(original, {}):
        # two parameters of one name (a path and a query 'id'): the model is told which
        # one 'id_2' is, or it cannot tell them apart
        said = f"The {place} parameter {original!r} (another parameter has its name)."
        prop = dict(plan.properties[arg])
        prop["description"] = f"{prop['description']} {said}" if prop.get("description") \
            else said
        plan.properties[arg] = prop
    if required:
        plan.required.append(arg)


def _argument_name(original: str, taken: Mapping[str, Any]) -> str:
    """A name a template can print: letters, digits and '_', not a Jinja word, unique."""
    name = re.sub(r"[^A-Za-z0-9_]", "_", original).strip("_")[:60] or "arg"
    if name[0].isdigit():
        name = f"p_{name}"
    if name in _JINJA_WORDS or keyword.iskeyword(name) or name.startswith("_"):
        name = f"{name}_"
    unique, n = name, 2
    while unique in taken:
        unique, n = f"{name}_{n}", n + 1
    return unique


def _param_schema(param: Mapping[str, Any], converter: SchemaConverter) -> dict[str, Any]:
    raw = param.get("schema")
    if raw is None and isinstance(param.get("content"), Mapping):
        raw = {"type": "string"}  # a parameter sent as serialised content: its text
    schema = converter.convert(raw if raw is not None else {"type": "string"})
    schema = dict(schema) if isinstance(schema, Mapping) else {}
    if param.get("description") and "description" not in schema:
        schema["description"] = cut(str(param["description"]), 500)
    if param.get("deprecated") is True:
        schema["deprecated"] = True
    return schema


def _deref(doc: OpenApiDoc, node: Any) -> Any:
    """A parameter or request body, with its ``$ref`` (to components) followed."""
    for _ in range(20):  # a chain of references, not a loop
        ref = node.get("$ref") if isinstance(node, Mapping) else None
        if not isinstance(ref, str):
            return node
        node = resolve_pointer(doc.data, ref)
    return None


# the style each place is written in when the document names none, and the only one followed
_STYLE = {"path": "simple", "query": "form", "header": "simple"}


def _serialization(doc: OpenApiDoc, place: str, param: Mapping[str, Any]) -> str:
    """Why ``param`` is not sent the way the document says when the importer writes it (a
    scalar as its text; an array in a query as the parameter repeated, in a header as its
    items joined by commas), or ""; the schema's
    kinds are read through ``$ref``, ``allOf``/``anyOf``/``oneOf`` and ``type`` lists."""
    style = param.get("style")
    if style is not None and style != _STYLE[place]:
        return "is a deepObject" if style == "deepObject" else f"has style {cut(str(style), 40)!r}"
    kinds = _kinds(doc, param.get("schema"), 0) if "content" not in param else set()
    if "object" in kinds:
        return "is an object"
    if "array" in kinds and place == "path":
        return "is an array"
    if "array" in kinds and place == "query" and param.get("explode") is False:
        return "is not exploded"
    return ""


def _kinds(doc: OpenApiDoc, schema: Any, depth: int) -> set[str]:
    """The JSON types a parameter's schema allows that matter to how it is written."""
    schema = _deref(doc, schema)
    if not isinstance(schema, Mapping) or depth > 20:
        return set()
    kind = schema.get("type")
    kinds = {kind} if isinstance(kind, str) else {k for k in kind if isinstance(k, str)} \
        if isinstance(kind, list) else set()
    if kind is None and ("properties" in schema or "additionalProperties" in schema):
        kinds.add("object")
    if kind is None and ("items" in schema or "prefixItems" in schema):
        kinds.add("array")
    for key in ("allOf", "anyOf", "oneOf"):
        subs = schema.get(key)
        for sub in (subs if isinstance(subs, list) else ())[:50]:
            kinds |= _kinds(doc, sub, depth + 1)
    return kinds & {"object", "array"}


def _annotations(method: str) -> dict[str, Any]:
    if method in ("GET", "HEAD", "OPTIONS"):
        return {"readOnlyHint": True}
    if method == "DELETE":
        return {"destructiveHint": True, "idempotentHint": True}
    if method == "PUT":
        return {"idempotentHint": True}
    return {}


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return value if isinstance(value, str) else json.dumps(value)


def _literal(value: Any) -> str:
    """A fixed value as a template that prints exactly it (a Jinja string literal)."""
    return "{{ " + json.dumps(_text(value)) + " }}"
