"""OpenTelemetry traces and metrics for ``toolhost serve`` (extra ``otel``, lazily imported).

toolhost uses only the OpenTelemetry *API*: what is exported, and where, is the process's
SDK configuration, e.g. ``pip install 'toolhost[otel]' opentelemetry-distro
opentelemetry-exporter-otlp`` and ``opentelemetry-instrument toolhost serve ...`` with the
standard ``OTEL_*`` variables. Without an SDK every call below is a no-op.

Per ``tools/call`` (names after OpenTelemetry's semantic conventions for MCP, where they
exist): a SERVER span ``tools/call <tool>`` with ``mcp.method.name``, ``gen_ai.tool.name``,
``gen_ai.operation.name`` (``execute_tool``), ``jsonrpc.request.id``, the permission
decision (``toolhost.permission.decision``, and the rule in ``toolhost.permission.rule``),
the caller's subject when authenticated (``enduser.id``) and ``error.type`` when the call
fails; the histogram ``mcp.server.operation.duration`` (seconds) and the counter
``toolhost.tool.calls`` with the tool, the decision and the outcome (a tool name no
permission decision was made for, e.g. one not served, is labelled ``?``: labels stay few).

Every text that goes on a span or a metric label (the tool name and request id the client
sent, the caller, the rule as ``permissions list`` shows it, an error's type) is redacted like
the audit log first, then cut: an exporter is one more place a secret must never reach.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from toolhost.serve.metrics import call_outcome

__all__ = ["Telemetry", "collector_credentials", "note_decision", "shown"]

Handle = Callable[..., Awaitable[dict[str, Any] | None]]


_HEADER_VARIABLES = tuple(f"OTEL_EXPORTER_OTLP_{kind}HEADERS"
                          for kind in ("", "TRACES_", "METRICS_", "LOGS_"))


def collector_credentials(environ: Mapping[str, str] | None = None) -> list[str]:
    """The header values the OTLP exporter sends its collector (``OTEL_EXPORTER_OTLP_HEADERS``
    and the per-signal ones, ``key=value`` pairs, percent-encoded): ``serve``'s own
    credentials, hidden like ``--token-env``'s token. A ``Bearer x`` / ``Basic x`` value is
    hidden whole and ``x`` alone too."""
    from urllib.parse import unquote

    env = __import__("os").environ if environ is None else environ
    found: list[str] = []
    for variable in _HEADER_VARIABLES:
        for pair in env.get(variable, "").split(","):
            _, sep, value = pair.partition("=")
            value = unquote(value).strip()
            if not sep or not value:
                continue
            found.append(value)
            scheme, _, credential = value.partition(" ")
            if credential.strip() and scheme.isalpha():
                found.append(credential.strip())
    return found


def shown(text: str, limit: int) -> str:
    """``text`` as it may go on a span or a label: every secret hidden, then cut to
    ``limit`` characters (in that order: a cut first could leave a secret's head in clear)."""
    from toolhost.redaction import scrub

    return scrub(text)[:limit]


class Telemetry:
    """Spans and metrics around ``tools/call``; built only when the API is installed. The API
    itself (~10 ms of imports) loads at the first tools/call, not before the first answer."""

    def __init__(self, tracer_provider: Any = None, meter_provider: Any = None) -> None:
        self._providers = (tracer_provider, meter_provider)
        self._ready = False

    def _instruments(self) -> None:
        from opentelemetry import metrics, trace

        tracer_provider, meter_provider = self._providers
        self._trace = trace
        self.tracer = trace.get_tracer("toolhost", tracer_provider=tracer_provider)
        meter = metrics.get_meter("toolhost", meter_provider=meter_provider)
        self.duration = meter.create_histogram(
            "mcp.server.operation.duration", unit="s",
            description="Duration of MCP requests handled by toolhost serve")
        self.calls = meter.create_counter(
            "toolhost.tool.calls", description="tools/call handled, by tool and outcome")
        self._ready = True

    @classmethod
    def maybe(cls, environ: Mapping[str, str] | None = None) -> Telemetry | None:
        """Telemetry when ``opentelemetry-api`` is installed and ``TOOLHOST_OTEL`` is not
        ``0``; None (and no cost) otherwise."""
        import importlib.util
        import os

        if (os.environ if environ is None else environ).get("TOOLHOST_OTEL", "") == "0":
            return None
        try:
            found = importlib.util.find_spec("opentelemetry.trace") is not None
            found = found and importlib.util.find_spec("opentelemetry.metrics") is not None
        except (ImportError, ValueError):
            found = False
        return cls() if found else None

    async def around(self, message: Mapping[str, Any], handle: Handle,
                     **kwargs: Any) -> dict[str, Any] | None:
        """``handle(message, **kwargs)``, traced and measured when it is a tools/call."""
        if message.get("method") != "tools/call" or "id" not in message:
            return await handle(message, **kwargs)
        if not self._ready:
            self._instruments()
        params = message.get("params")
        name = params.get("name") if isinstance(params, Mapping) else None
        tool = shown(name, 200) if isinstance(name, str) else "?"
        from toolhost.permissions.callers.identity import current_caller

        attributes: dict[str, Any] = {
            "mcp.method.name": "tools/call", "gen_ai.tool.name": tool,
            "gen_ai.operation.name": "execute_tool",
            "jsonrpc.request.id": shown(str(message.get("id")), 100)}
        caller = current_caller()
        if caller is not None:
            attributes["enduser.id"] = shown(caller.subject, 200)
        start = time.perf_counter()
        outcome = "error"
        # the SDK's own exception event and status would carry the exception's message (and
        # traceback) as raised: one redacted here instead
        with self.tracer.start_as_current_span(
                f"tools/call {tool}", kind=self._trace.SpanKind.SERVER,
                attributes=attributes, record_exception=False,
                set_status_on_exception=False) as span:
            try:
                answer = await handle(message, **kwargs)
            except BaseException as exc:
                kind = shown(type(exc).__name__, 100)
                said = shown(str(exc), 1000)
                span.set_attribute("error.type", kind)
                span.add_event("exception", {"exception.type": kind,
                                             "exception.message": said})
                span.set_status(self._trace.Status(self._trace.StatusCode.ERROR,
                                                   f"{kind}: {said}"))
                raise
            finally:
                elapsed = time.perf_counter() - start
            outcome = call_outcome(answer)
            if outcome != "ok":
                span.set_attribute("error.type", outcome)
                span.set_status(self._trace.Status(self._trace.StatusCode.ERROR))
            decision = _decision_of(span)
        # a metric label only names a tool the permission engine decided on (one served):
        # made-up names would each make a new series, until the SDK's cardinality limit
        # pushes the real tools' series into overflow
        labels = {"gen_ai.tool.name": tool if decision != "unknown" else "?",
                  "toolhost.outcome": outcome,
                  "toolhost.permission.decision": decision}
        self.duration.record(elapsed, {"mcp.method.name": "tools/call", **labels})
        self.calls.add(1, labels)
        return answer


def _decision_of(span: Any) -> str:
    attributes = getattr(span, "attributes", None) or {}
    value = attributes.get("toolhost.permission.decision") if hasattr(attributes, "get") else None
    return str(value) if value is not None else "unknown"


_api: list[Any] = []  # [the opentelemetry.trace module] or [None], looked up once


def note_decision(behavior: str, rule: str | None) -> None:
    """Put a permission decision on the current span (a no-op without OpenTelemetry); the
    rule redacted as the audit log and ``permissions list`` show it."""
    if not _api:
        try:
            from opentelemetry import trace
        except ImportError:
            trace = None  # type: ignore[assignment]
        _api.append(trace)
    if _api[0] is None:
        return
    span = _api[0].get_current_span()
    if not span.is_recording():
        return
    span.set_attribute("toolhost.permission.decision", shown(behavior, 20))
    if rule is not None:
        span.set_attribute("toolhost.permission.rule", shown(rule, 300))
