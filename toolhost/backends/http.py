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
backoff, honouring ``Retry-After`` up to a cap. The body is read up to a size cap, inflated
with bounded memory (``http_decode``); values the request cannot carry are located errors
(``http_request``). Responses map
by content type: JSON -> structuredContent plus text, text -> text, image -> image. A non-2xx
status is an error result with the status and an excerpt of the body.
"""

from __future__ import annotations

from collections.abc import Mapping
from http.cookiejar import CookieJar, DefaultCookiePolicy
from typing import Any

import anyio
import httpx
from jinja2 import TemplateError

from toolhost.backends import templating
from toolhost.backends.base import BindContext, Binding, CallContext
from toolhost.backends.http_decode import ACCEPT_ENCODING, BodyError, read_body
from toolhost.backends.http_headers import server_header_names, tool_header_problem
from toolhost.backends.http_options import IDEMPOTENT, OPTIONS_SCHEMA
from toolhost.backends.http_request import (
    UnsendableValue,
    compile_body,
    compile_fields,
    header_values,
    pairs,
    render_body,
    render_fields,
    unencodable_message,
)
from toolhost.backends.http_response import (
    map_response,
    retry_delay,
    stale_connection,
    transport_why,
)
from toolhost.backends.http_url import (
    UnsafeURL,
    compile_url,
    literal_query_keys,
    shown_url,
    with_query,
)
from toolhost.config.model import ServerDefaults, ToolConfig
from toolhost.errors import CompileError
from toolhost.results import ToolResult

__all__ = ["HttpKind", "make_client"]

DEFAULT_TIMEOUT = 30.0
DEFAULT_MAX_RESPONSE_BYTES = 5_000_000


def make_client(defaults: ServerDefaults) -> httpx.AsyncClient:
    """The server's pooled client: default headers and auth; no proxies or netrc from the
    environment, no redirects (a redirect could leave the declared host)."""
    # only the encodings read_body inflates with bounded memory (not br/zstd, even if
    # their decoders are installed); the config's own Accept-Encoding wins
    headers = httpx.Headers({"Accept-Encoding": ACCEPT_ENCODING})
    headers.update(dict(defaults.headers))
    auth: httpx.Auth | None = None
    spec = defaults.auth or {}
    if spec.get("type") == "bearer":
        headers["Authorization"] = f"Bearer {spec['token']}"
    elif spec.get("type") == "basic":
        auth = httpx.BasicAuth(str(spec["username"]), str(spec.get("password", "")))
    elif spec.get("type") == "header":
        headers[str(spec["name"])] = str(spec["value"])
    return httpx.AsyncClient(headers=headers, auth=auth, trust_env=False, cookies=_no_cookies(),
                             follow_redirects=False,
                             timeout=httpx.Timeout(defaults.timeout or DEFAULT_TIMEOUT))


def _no_cookies() -> CookieJar:
    """A jar that keeps no cookie: each call stands alone (a ``Set-Cookie`` one call's answer
    carries is not sent with a later call, by this tool or another); a ``Cookie`` header the
    config declares is sent as declared."""
    return CookieJar(policy=DefaultCookiePolicy(allowed_domains=[]))


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
                fields[part] = compile_fields(values)
            body = compile_body(opts["json"]) if "json" in opts else None
            other_sources += templating.template_strings(opts.get("json"))
            select = str(opts.get("select", ""))
            expression = None
            if select and not select.startswith("/"):
                expression = templating.ENV.compile_expression(select)
        except TemplateError as exc:
            raise problem(f"template does not parse: {exc}") from None
        wrong = tool_header_problem(
            {str(k): str(v) for k, v in (opts.get("headers") or {}).items()},
            server_header_names(defaults.headers, defaults.auth))
        if wrong:
            raise problem(f"header {wrong[0]!r}: {wrong[1]}", f".headers.{wrong[0]}")
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
        # httpx's timeout is per read: a body trickling a byte at a time never ends. The
        # call's timeout (the tool's or the server's) bounds all of it; with none set, each
        # response must be complete within DEFAULT_TIMEOUT.
        whole = None if tool.timeout is not None or defaults.timeout else DEFAULT_TIMEOUT

        async def invoke(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
            context = {**unset, **arguments}
            client = holder.get()
            try:
                target = with_query(url.render(context),
                                    pairs(render_fields(fields["query"], context)))
                request: dict[str, Any] = {
                    "headers": header_values(fields["headers"], context)}
                if body is not None:
                    request["json"] = render_body(body, context)
                elif fields["form"]:
                    request["data"] = render_fields(fields["form"], context)
                # built here, so that a value no encoding can carry is this call's error
                prepared = client.build_request(method, target, **request)
            except (UnsafeURL, UnsendableValue) as exc:
                return ToolResult.error(f"Refused to send the request: {exc}.")
            except templating.UnrenderableValue as exc:
                return ToolResult.error("Refused to send the request: "
                                        f"{templating.unrenderable_message(exc, arguments)}.")
            except UnicodeEncodeError:
                return ToolResult.error("Refused to send the request: "
                                        f"{unencodable_message(arguments)}.")
            except ValueError as exc:  # httpx's JSON body: NaN and infinity are not JSON
                found = templating.UnrenderableValue(str(exc))
                return ToolResult.error("Refused to send the request: "
                                        f"{templating.unrenderable_message(found, arguments)}.")
            except TemplateError as exc:
                return ToolResult.error(f"Could not build the request: {exc}")
            where = f"{method} {shown_url(target.split('?')[0])}"
            attempt = 0
            stale_resent = False  # a dropped kept-alive connection is sent again once
            while True:
                response: httpx.Response | None = None
                try:
                    with anyio.fail_after(whole):
                        response = await client.send(prepared, stream=True)
                        try:
                            delay = retry_delay(response, attempt, retries, backoff,
                                                max_retry_after)
                            if delay is None:
                                data, truncated = await read_body(response, cap)
                                return map_response(response, data, truncated,
                                                    method=method, select=select,
                                                    expression=expression,
                                                    arguments=arguments, cap=cap)
                        finally:
                            await response.aclose()
                except BodyError as exc:
                    return ToolResult.error(str(exc))
                except TimeoutError:  # only ``whole``'s: the call's own timeout cancels
                    return ToolResult.error(
                        f"The response of {where} was not complete after {whole:g}s (no "
                        "timeout is set for this tool or its server; set `timeout:` to "
                        "wait longer).")
                except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
                    if attempt >= retries:
                        return ToolResult.error(f"Could not connect for {where}: {exc}")
                    delay = backoff * 2 ** attempt
                except httpx.TransportError as exc:
                    # a kept-alive connection the server had just closed: sent again (an
                    # idempotent method only, within its retries, and once even with
                    # `retries: 0`: the request never reached the server)
                    if response is not None or not stale_connection(exc) or method not in \
                            IDEMPOTENT or (attempt >= retries and stale_resent):
                        return ToolResult.error(f"No usable response to {where}: "
                                                f"{transport_why(exc)}.")
                    stale_resent = stale_resent or attempt >= retries
                    delay = 0.0
                ctx.log.info("retrying %s %s in %.2fs", method, shown_url(target), delay)
                await anyio.sleep(delay)
                attempt += 1

        return Binding(invoke=invoke, input_schema=input_schema, output="structured")
