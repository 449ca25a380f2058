"""Prometheus metrics of ``toolhost serve --transport http --metrics``: ``GET /metrics`` in
the Prometheus text format (0.0.4), behind the same Host, Origin and token checks as MCP.

No dependency: a few counters, histograms and gauges written out by hand (the format is a
page of text; ``prometheus_client`` would add a registry of process-wide globals for them).
Families (every label value bounded, so a client cannot grow the series):

- ``toolhost_http_requests_total{method,status}``: HTTP requests answered (an unknown
  method is ``other``);
- ``toolhost_http_request_duration_seconds{method}``: their durations, a histogram (``POST``
  and ``DELETE`` only: a ``GET`` stream lasts as long as its session);
- ``toolhost_rpc_requests_total{rpc,outcome}``: JSON-RPC messages by method (a method MCP
  does not define is ``other``) and outcome (``ok``, ``tool_error``, ``error``,
  ``cancelled``, ``none``: refused before it was read);
- ``toolhost_tool_calls_total{tool,decision,outcome}`` and
  ``toolhost_tool_call_duration_seconds{tool}``: ``tools/call`` by tool, permission decision
  (``allow``, ``deny``, ``ask``, ``unknown``) and outcome (``ok``, ``tool_error``,
  ``jsonrpc_error``); a tool no decision was made for (one not served) is ``?``;
- ``toolhost_permission_denials_total{tool}``: calls the rules denied;
- gauges read when scraped: ``toolhost_requests_in_flight``, ``toolhost_sessions``,
  ``toolhost_streams_open``, ``toolhost_tasks{status}``.
"""

from __future__ import annotations

import contextvars
import math
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any, TypeVar

__all__ = ["BUCKETS", "CONTENT_TYPE", "MAX_SERIES", "Metrics", "call_outcome",
           "note_decision_metric"]

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0)
MAX_SERIES = 2000  # per family: past it, new label sets are counted under "_overflow"
HTTP_METHODS = frozenset({"GET", "POST", "DELETE", "OPTIONS", "HEAD"})
RPC_METHODS = frozenset({
    "initialize", "ping", "server/discover", "tools/list", "tools/call", "prompts/list",
    "prompts/get", "resources/list", "resources/templates/list", "resources/read",
    "resources/subscribe", "resources/unsubscribe", "completion/complete",
    "logging/setLevel", "subscriptions/listen", "tasks/get", "tasks/update", "tasks/cancel",
    "notifications/initialized", "notifications/cancelled", "notifications/progress",
    "notifications/roots/list_changed"})

# the permission decision of the tools/call running in this context (set by the guard)
_decision: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar(
    "toolhost_metrics_decision", default=None)


def note_decision_metric(behavior: str) -> None:
    """The guard's decision on the call being measured (a no-op outside one)."""
    holder = _decision.get()
    if holder is not None:
        holder.append(behavior if behavior in ("allow", "deny", "ask") else "unknown")


Labels = tuple[str, ...]
T = TypeVar("T")


class _Family:
    """One metric family: its samples by label values (bounded by :data:`MAX_SERIES`)."""

    def __init__(self, name: str, kind: str, help_text: str, labels: Labels) -> None:
        self.name, self.kind, self.help, self.labels = name, kind, help_text, labels
        self.values: dict[Labels, Any] = {}

    def key(self, values: Labels) -> Labels:
        if values in self.values or len(self.values) < MAX_SERIES:
            return values
        return tuple("_overflow" for _ in values)

    def inc(self, *values: str) -> None:
        key = self.key(values)
        self.values[key] = self.values.get(key, 0) + 1

    def observe(self, seconds: float, *values: str) -> None:
        key = self.key(values)
        counts = self.values.setdefault(key, [0] * (len(BUCKETS) + 1) + [0.0])
        for i, bound in enumerate(BUCKETS):
            if seconds <= bound:
                counts[i] += 1
        counts[len(BUCKETS)] += 1  # +Inf, the count
        counts[-1] += seconds

    def copy(self) -> _Family:
        """This family as it is now (a scrape renders the copy in a worker thread while
        requests go on counting on the event loop)."""
        made = _Family(self.name, self.kind, self.help, self.labels)
        made.values = {k: v[:] if isinstance(v, list) else v for k, v in self.values.items()}
        return made

    def lines(self) -> Iterable[str]:
        yield f"# HELP {self.name} {self.help}"
        yield f"# TYPE {self.name} {self.kind}"
        for values, sample in self.values.items():
            if self.kind != "histogram":
                yield f"{self.name}{_labels(self.labels, values)} {_number(sample)}"
                continue
            for bound, count in zip((*BUCKETS, math.inf), sample, strict=False):
                le = "+Inf" if bound == math.inf else repr(bound)
                yield (f"{self.name}_bucket{_labels((*self.labels, 'le'), (*values, le))} "
                       f"{count}")
            yield f"{self.name}_sum{_labels(self.labels, values)} {_number(sample[-1])}"
            yield f"{self.name}_count{_labels(self.labels, values)} {sample[len(BUCKETS)]}"


def _labels(names: Labels, values: Labels) -> str:
    if not names:
        return ""
    inner = ",".join(f'{n}="{_escaped(v)}"' for n, v in zip(names, values, strict=True))
    return "{" + inner + "}"


def _escaped(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _number(value: float) -> str:
    return repr(float(value)) if isinstance(value, float) else str(value)


class Metrics:
    """The counters of one server, and the gauges read from it when scraped."""

    def __init__(self) -> None:
        self.requests = _Family("toolhost_http_requests_total", "counter",
                                "HTTP requests answered, by method and status",
                                ("method", "status"))
        self.request_seconds = _Family("toolhost_http_request_duration_seconds",
                                       "histogram", "HTTP POST and DELETE durations",
                                       ("method",))
        self.rpc = _Family("toolhost_rpc_requests_total", "counter",
                           "JSON-RPC messages, by method and outcome", ("rpc", "outcome"))
        self.calls = _Family("toolhost_tool_calls_total", "counter",
                             "tools/call by tool, permission decision and outcome",
                             ("tool", "decision", "outcome"))
        self.call_seconds = _Family("toolhost_tool_call_duration_seconds", "histogram",
                                    "tools/call durations, by tool", ("tool",))
        self.denials = _Family("toolhost_permission_denials_total", "counter",
                               "tools/call the permission rules denied, by tool", ("tool",))
        # name -> (help, read): gauges read when scraped (in flight, sessions, tasks)
        self.gauges: dict[str, tuple[str, Callable[[], Mapping[Labels, float] | float]]] = {}
        self.gauge_labels: dict[str, Labels] = {}
        self._limiter: Any = None  # anyio.CapacityLimiter(1), made at the first scrape

    def gauge(self, name: str, help_text: str,
              read: Callable[[], Mapping[Labels, float] | float], labels: Labels = ()) -> None:
        """A gauge read by ``read`` at each scrape (a number, or values by labels)."""
        self.gauges[name] = (help_text, read)
        self.gauge_labels[name] = labels

    def http_request(self, method: str, status: int, fields: Mapping[str, Any],
                     seconds: float) -> None:
        """One HTTP request answered; ``fields`` are its access-log fields."""
        method = method if method in HTTP_METHODS else "other"
        self.requests.inc(method, str(status))
        if method in ("POST", "DELETE"):
            self.request_seconds.observe(seconds, method)
        rpc = fields.get("rpc")
        if isinstance(rpc, str):
            outcome = fields.get("outcome")
            self.rpc.inc(rpc if rpc in RPC_METHODS else "other",
                         outcome if isinstance(outcome, str) else "none")

    async def around_call(self, message: Mapping[str, Any],
                          handle: Callable[[], Awaitable[T]]) -> T:
        """``handle()`` (a ``tools/call``), counted and timed."""
        holder: list[str] = []
        token = _decision.set(holder)
        start = time.perf_counter()
        outcome = "jsonrpc_error"
        try:
            answer = await handle()
            outcome = call_outcome(answer if isinstance(answer, Mapping) else None)
            return answer
        finally:
            _decision.reset(token)
            elapsed = time.perf_counter() - start
            decision = holder[0] if holder else "unknown"
            params = message.get("params")
            name = params.get("name") if isinstance(params, Mapping) else None
            # only a tool the rules decided on (one served) names a series: made-up names
            # would each make a new one
            tool = name if isinstance(name, str) and decision != "unknown" else "?"
            self.calls.inc(tool, decision, outcome)
            self.call_seconds.observe(elapsed, tool)
            if decision == "deny":
                self.denials.inc(tool)

    def render(self) -> bytes:
        """The text a scrape reads (rendered here, on the caller's thread)."""
        return _text(self._families(), self._gauges())

    async def scrape(self) -> bytes:
        """:meth:`render`, the text written in a worker thread: with thousands of series a
        page takes ~1 s to write, and on the event loop it held every request and stream
        meanwhile. Only the copy of the counters (a dict copy per family) and the gauges
        are read on the loop; one scrape is written at a time."""
        import anyio
        import anyio.to_thread

        families = [family.copy() for family in self._families()]
        gauges = self._gauges()
        if self._limiter is None:
            self._limiter = anyio.CapacityLimiter(1)
        return await anyio.to_thread.run_sync(_text, families, gauges, limiter=self._limiter)

    def _families(self) -> tuple[_Family, ...]:
        return (self.requests, self.request_seconds, self.rpc, self.calls, self.call_seconds,
                self.denials)

    def _gauges(self) -> list[tuple[str, str, Labels, Mapping[Labels, float] | float]]:
        return [(name, help_text, self.gauge_labels[name], read())
                for name, (help_text, read) in self.gauges.items()]


def _text(families: Iterable[_Family],
          gauges: Iterable[tuple[str, str, Labels, Mapping[Labels, float] | float]]) -> bytes:
    out: list[str] = []
    for family in families:
        out.extend(family.lines())
    for name, help_text, labels, value in gauges:
        out.append(f"# HELP {name} {help_text}")
        out.append(f"# TYPE {name} gauge")
        if isinstance(value, Mapping):
            out.extend(f"{name}{_labels(labels, k)} {_number(v)}" for k, v in value.items())
        else:
            out.append(f"{name} {_number(value)}")
    return ("\n".join(out) + "\n").encode()


def call_outcome(answer: Mapping[str, Any] | None) -> str:
    """A ``tools/call`` answer's outcome label: ``ok``, ``tool_error`` or ``jsonrpc_error``
    (shared with the OpenTelemetry counter, so both name outcomes alike)."""
    if answer is None:
        return "ok"
    if "error" in answer:
        return "jsonrpc_error"
    result = answer.get("result")
    if isinstance(result, Mapping) and result.get("isError"):
        return "tool_error"
    return "ok"
