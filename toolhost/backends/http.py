"""The ``http`` backend kind: call an HTTP endpoint declared in the config.

Config::

    servers:
      issues:
        defaults:
          base_url: https://tracker.example/api/
          auth: {type: bearer, token: "${TRACKER_TOKEN}"}
        tools:
          get_issue:
            http:
              url: "issues/{id}"                  # {id} is percent-encoded
              query: {fields: "{{ fields }}"}     # appended after a query written in url
              select: /issue                      # JSON pointer into the response
            params:
              id: {type: integer}
              fields: {type: string}              # not given -> the query parameter is left out

One pooled ``httpx.AsyncClient`` per server (its default headers and auth), created on first
use and closed with the compiled tools. The URL cannot be steered elsewhere by arguments (see
``http_url``). Idempotent methods are retried on connect errors, 429 and 5xx with exponential
backoff, honouring ``Retry-After`` up to a cap. The body is read up to a size cap. Responses map
by content type: JSON -> structuredContent plus text, text -> text, image -> image. A non-2xx
status is an error result with the status and an excerpt of the body.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import anyio
import httpx
from jinja2 import TemplateError

from toolhost.backends import templating
from toolhost.backends.base import BindContext, Binding, CallContext
from toolhost.backends.http_options import IDEMPOTENT, OPTIONS_SCHEMA
from toolhost.backends.http_response import map_response, retry_delay
from toolhost.backends.http_url import UnsafeURL, compile_url, literal_query_keys, with_query
from toolhost.config.model import ServerDefaults, ToolConfig
from toolhost.errors import CompileError
from toolhost.results import ToolResult

__all__ = ["HttpKind", "make_client"]

DEFAULT_TIMEOUT = 30.0
DEFAULT_MAX_RESPONSE_BYTES = 5_000_000


def make_client(defaults: ServerDefaults) -> httpx.AsyncClient:
    """The server's pooled client: default headers and auth; no proxies or netrc from the
    environment, no redirects (a redirect could leave the declared host)."""
    headers = dict(defaults.headers)
    auth: httpx.Auth | None = None
    spec = defaults.auth or {}
    if spec.get("type") == "bearer":
        headers["Authorization"] = f"Bearer {spec['token']}"
    elif spec.get("type") == "basic":
        auth = httpx.BasicAuth(str(spec["username"]), str(spec.get("password", "")))
    elif spec.get("type") == "header":
        headers[str(spec["name"])] = str(spec["value"])
    return httpx.AsyncClient(headers=headers, auth=auth, trust_env=False,
                             follow_redirects=False,
                             timeout=httpx.Timeout(defaults.timeout or DEFAULT_TIMEOUT))


class _Client:
    """Creates the server's client on first use; closes it if it was created."""

    def __init__(self, defaults: ServerDefaults) -> None:
        self._defaults = defaults
        self._client: httpx.AsyncClient | None = None

    def get(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = make_client(self._defaults)
        return self._client

    async def aclose(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()


def _compile_body(value: Any) -> Any:
    """Strings become templates; exactly '{{ name }}' becomes a typed reference."""
    if isinstance(value, str):
        name = templating.single_variable(value)
        return ("var", name) if name else ("tpl", templating.compile_template(value))
    if isinstance(value, Mapping):
        return {str(k): _compile_body(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_compile_body(v) for v in value]
    return ("lit", value)


def _render_body(node: Any, context: Mapping[str, Any]) -> Any:
    if isinstance(node, dict):
        return {k: _render_body(v, context) for k, v in node.items()}
    if isinstance(node, list):
        return [_render_body(v, context) for v in node]
    kind, payload = node
    if kind == "var":
        return context.get(payload)
    if kind == "tpl":
        return payload.render(context)
    return payload


def _compile_fields(values: Mapping[str, str]) -> dict[str, Any]:
    """key -> (template, exact variable or None, names the template prints as values)."""
    from toolhost.backends.argv import printed_names

    return {k: (templating.compile_template(v), templating.single_variable(v),
                printed_names(v)) for k, v in values.items()}


def _render_fields(fields: Mapping[str, Any], context: Mapping[str, Any]) -> dict[str, Any]:
    """Query/header/form values. An entry is left out only when the params it prints were all
    not given (left out or null), or when it prints no value and renders empty (``{% if %}``);
    a given empty string is sent (``key=``). A list variable repeats the key."""
    out: dict[str, Any] = {}
    for key, (template, name, printed) in fields.items():
        value = context.get(name) if name else None
        if name and isinstance(value, (list, tuple)):
            out[key] = [templating.render_value(v) for v in value]
            continue
        if printed and all(context.get(n) is None for n in printed):
            continue
        text = template.render(context)
        if text or printed:
            out[key] = text
    return out


def _pairs(fields: Mapping[str, Any]) -> list[tuple[str, str]]:
    return [(k, str(v)) for k, vs in fields.items()
            for v in (vs if isinstance(vs, list) else [vs])]


class HttpKind:
    """Calls an HTTP endpoint on the declared host and path."""

    name = "http"
    shorthand: str | None = None
    options_schema: Mapping[str, Any] = OPTIONS_SCHEMA

    def bind(self, tool: ToolConfig, ctx: BindContext) -> Binding:
        origin = tool.backend.origin
        opts = tool.backend.options
        defaults = ctx.server.defaults

        def problem(message: str, key: str = "") -> CompileError:
            return CompileError([origin.problem(message, key=key)])

        method = str(opts.get("method") or "GET").upper()
        try:
            url = compile_url(str(opts.get("url", "")), defaults.base_url)
        except (ValueError, TemplateError) as exc:
            raise problem(str(exc), ".url") from None
        sources = [url.source]
        other_sources: list[str] = []
        fields: dict[str, dict[str, Any]] = {}
        try:
            for part in ("query", "headers", "form"):
                values = {str(k): str(v) for k, v in (opts.get(part) or {}).items()}
                other_sources += list(values.values())
                fields[part] = _compile_fields(values)
            body = _compile_body(opts["json"]) if "json" in opts else None
            other_sources += templating.template_strings(opts.get("json"))
            select = str(opts.get("select", ""))
            expression = None
            if select and not select.startswith("/"):
                expression = templating.ENV.compile_expression(select)
        except TemplateError as exc:
            raise problem(f"template does not parse: {exc}") from None
        both = sorted(literal_query_keys(url) & set(fields["query"]))
        if both:
            raise problem(f"query key {both[0]!r} is both in the url and in query:; write it "
                          "once (the url's query is kept, query: entries are appended)",
                          ".query")
        names = (templating.placeholders(sources, url=True)
                 | templating.placeholders(other_sources)) - set(templating.ENV.globals)
        typo = templating.misspelt_placeholder(names, tool.params)
        if typo:
            raise problem(typo)
        input_schema = templating.placeholder_schema(names, tool.params)
        unset = dict.fromkeys(names | set(tool.params))  # left out: renders empty

        def new_client() -> _Client:  # once per server: every tool shares the pool
            created = _Client(defaults)
            ctx.on_close(created.aclose)
            return created

        holder: _Client = ctx.shared("http.client", new_client)
        retries = int(opts.get("retries", 2)) if method in IDEMPOTENT else 0
        backoff = float(opts.get("backoff", 0.5))
        max_retry_after = float(opts.get("max_retry_after", 10.0))
        cap = int(opts.get("max_response_bytes") or DEFAULT_MAX_RESPONSE_BYTES)

        async def invoke(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
            context = {**unset, **arguments}
            try:
                target = with_query(url.render(context),
                                    _pairs(_render_fields(fields["query"], context)))
                request: dict[str, Any] = {
                    "headers": _render_fields(fields["headers"], context)}
                for key, value in request["headers"].items():
                    if any(c in str(value) for c in "\r\n\0"):
                        raise UnsafeURL(f"the value of header {key!r} contains a line break")
                if body is not None:
                    request["json"] = _render_body(body, context)
                elif fields["form"]:
                    request["data"] = _render_fields(fields["form"], context)
            except UnsafeURL as exc:
                return ToolResult.error(f"Refused to send the request: {exc}.")
            except TemplateError as exc:
                return ToolResult.error(f"Could not build the request: {exc}")
            client = holder.get()
            attempt = 0
            while True:
                try:
                    async with client.stream(method, target, **request) as response:
                        delay = retry_delay(response, attempt, retries, backoff,
                                            max_retry_after)
                        if delay is None:
                            data, truncated = await _read(response, cap)
                            return map_response(response, data, truncated, method=method,
                                                select=select, expression=expression,
                                                arguments=arguments, cap=cap)
                except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
                    if attempt >= retries:
                        return ToolResult.error(f"Could not connect for {method} "
                                                f"{target.split('?')[0]}: {exc}")
                    delay = backoff * 2 ** attempt
                ctx.log.info("retrying %s %s in %.2fs", method, target, delay)
                await anyio.sleep(delay)
                attempt += 1

        return Binding(invoke=invoke, input_schema=input_schema, output="structured")


async def _read(response: httpx.Response, cap: int) -> tuple[bytes, bool]:
    buf = bytearray()
    async for chunk in response.aiter_bytes():
        buf.extend(chunk)
        if len(buf) > cap:
            return bytes(buf[:cap]), True
    return bytes(buf), False
