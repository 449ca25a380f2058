"""What the ``mcp`` library and its dependencies log about an upstream: one line, rate-limited.

An upstream decides how often the client library logs (every notification it sends with
invalid params is a warning with a traceback), under logger names that are the library's
business (``mcp.client.session`` logs as ``"client"``; ``httpx`` and others as themselves or
through the root logger). So the filter goes where every record ends up, on the handlers of
the root logger (and Python's last-resort handler), and picks the records by the file that
logged them: any module of ``mcp``, ``mcp_types``, ``httpx``/``httpx2``, ``httpcore``,
``anyio``, ``pydantic``, ``jsonschema``, ``starlette``, ``sse_starlette``, ``uvicorn``, or a
logger named like one of them. Such a record:

- is one line: its traceback becomes the exception's first line (the traceback only with
  ``--debug``);
- at WARNING and above, is said at most ``SHOWN`` times a minute per message (by its format
  string, whatever the upstream put in its arguments), and library lines together at most
  ``BUDGET`` times a minute; what is held back is counted in the next line that passes.

toolhost's own records (``toolhost.*``) are left as they are. ``quiet_telemetry_logs`` does
the same for the OpenTelemetry SDK's records alone (an exporter retrying a collector that is
down warns at every retry). ``describe_invalid`` is the one
line said of what was wrong with something an upstream sent.
"""

from __future__ import annotations

import logging
import os
import time

from toolhost.excerpt import cut

__all__ = ["BUDGET", "EVERY", "SHOWN", "describe_invalid", "quiet_library_logs",
           "quiet_telemetry_logs", "tracebacks_wanted"]

SHOWN = 3  # one message said this often per minute, then counted
BUDGET = 20  # library lines per minute, all messages together
EVERY = 60.0
_PACKAGES = ("mcp", "mcp_types", "httpx", "httpx2", "httpcore", "httpcore2", "anyio",
             "pydantic", "pydantic_core", "jsonschema", "starlette", "sse_starlette",
             "uvicorn", "h11", "truststore", "opentelemetry", "jwt")
_NAMES = frozenset({"client", "root", *_PACKAGES})
_HELD = ("the MCP client library logged %d more lines about upstream servers (not shown; "
         "--debug shows tracebacks)")
_MARK = "_toolhost_library_line"  # set on a record once decided: (filter, shown?)


def tracebacks_wanted() -> bool:
    """``--debug`` (or ``TOOLHOST_DEBUG``, or ``-vv``): tracebacks are shown."""
    import sys

    from toolhost.failures import debug_enabled

    return (debug_enabled() or "--debug" in sys.argv[1:]
            or logging.getLogger().isEnabledFor(logging.DEBUG))


def _package_dirs() -> tuple[str, ...]:
    from importlib.util import find_spec

    found = []
    for name in _PACKAGES:
        try:
            spec = find_spec(name)
        except (ImportError, ValueError):
            continue
        for where in (spec.submodule_search_locations or ()) if spec else ():
            found.append(os.path.join(os.path.realpath(where), ""))
    return tuple(found)


class LibraryLines(logging.Filter):
    """The filter (see the module's docstring); one instance for the process."""

    def __init__(self, only: tuple[str, ...] = (), held: str = _HELD,
                 teller: str = "toolhost.gateway") -> None:
        super().__init__()
        self.only = frozenset(only)  # when given: the records of these loggers alone
        self.held_text, self.teller = held, teller
        self.dirs: tuple[str, ...] | None = None
        self.seen: dict[str, tuple[float, int]] = {}  # message -> (since, shown)
        self.window = (0.0, 0)  # (since, lines shown) for all messages together
        self.held = 0
        self.told = time.monotonic()  # when held-back lines were last counted

    def flush(self) -> None:
        """Say how many lines were held back (at most once a minute, and at exit)."""
        if self.held:
            logging.getLogger(self.teller).warning(self.held_text, self.held)
        self.held = 0
        self.told = time.monotonic()

    def from_library(self, record: logging.LogRecord) -> bool:
        name = record.name
        if name.startswith("toolhost"):
            return False
        if self.only:
            return name.partition(".")[0] in self.only
        if name.partition(".")[0] in _NAMES:
            return True
        if self.dirs is None:
            self.dirs = _package_dirs()
        path = os.path.realpath(record.pathname) if record.pathname else ""
        return path.startswith(self.dirs)

    def filter(self, record: logging.LogRecord) -> bool:
        decided = getattr(record, _MARK, None)
        if decided is not None and decided[0] is self:  # another handler: counted once
            return bool(decided[1])
        if not self.from_library(record):
            return True
        # below WARNING (seen with -v only) lines are not counted, only made one line
        shown = record.levelno < logging.WARNING or self._allowed(record)
        setattr(record, _MARK, (self, shown))
        if shown:
            self._one_line(record)
        return shown

    def _allowed(self, record: logging.LogRecord) -> bool:
        key = f"{record.name}:{record.msg}"[:200]  # the format string, not the upstream's args
        now = time.monotonic()
        since, count = self.window
        if now - since >= EVERY:
            since, count = now, 0
        first, shown = self.seen.get(key, (now, 0))
        if now - first >= EVERY:
            first, shown = now, 0
        if shown >= SHOWN or count >= BUDGET:
            self.held += 1
            self.seen[key], self.window = (first, shown), (since, count)
            if now - self.told >= EVERY:
                self.flush()
            return False
        if len(self.seen) > 1000:
            self.seen.clear()
        self.seen[key], self.window = (first, shown + 1), (since, count + 1)
        return True

    def _one_line(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        if record.exc_info and not tracebacks_wanted():
            exc = record.exc_info[1]
            if exc is not None:
                text = f"{text}: {describe_invalid(exc)}"
            record.exc_info = record.exc_text = record.stack_info = None
        if not tracebacks_wanted():
            text = " ".join(text.split())  # one line, whatever the upstream put in it
        if self.held:
            text = f"{text} (and {self.held} more lines like it or from the same library, " \
                   "not shown)"
            self.held = 0
        record.msg, record.args = cut(text, 400), None


_filter = LibraryLines()
# serve's exporter of traces and metrics logs a warning at every retry of a collector that is
# down (several a minute, for as long as it is down): rate-limited the same way
_telemetry = LibraryLines(only=("opentelemetry",), teller="toolhost.serve", held=(
    "the OpenTelemetry SDK logged %d more lines (an exporter's retries?; not shown, "
    "--debug shows tracebacks)"))
_registered: set[int] = set()


def quiet_library_logs() -> None:
    """Put the filter on the root logger's handlers and the last-resort handler (idempotent;
    again after logging is configured anew: a handler added later gets it too)."""
    _install(_filter)


def quiet_telemetry_logs() -> None:
    """The same for the OpenTelemetry SDK's own records alone (``serve``, ``run``, ``call``
    under ``opentelemetry-instrument``)."""
    _install(_telemetry)


def _install(chosen: LibraryLines) -> None:
    if id(chosen) not in _registered:
        import atexit

        atexit.register(chosen.flush)
        _registered.add(id(chosen))
    handlers = [*logging.getLogger().handlers]
    if logging.lastResort is not None:
        handlers.append(logging.lastResort)
    for handler in handlers:
        if chosen not in handler.filters:
            handler.addFilter(chosen)


def describe_invalid(exc: BaseException, skip: int = 0) -> str:
    """What was wrong with something an upstream sent, in one short line (a pydantic
    ValidationError's first error and how many more). ``skip``: leading parts of an error's
    location not worth saying (the union member a JSON-RPC message was tried as)."""
    errors = getattr(exc, "errors", None)
    if callable(errors) and getattr(exc, "error_count", None) is not None:
        try:
            found = errors()
        except Exception:  # pragma: no cover - a pydantic that cannot list its errors
            found = []
        if found and found[0].get("type") == "json_invalid":
            return "not JSON"
        if found:
            first = found[0]
            where = ".".join(str(p) for p in first.get("loc", ())[skip:]) or "the message"
            more = f" and {len(found) - 1} more" if len(found) > 1 else ""
            return cut(f"{where}: {first.get('msg', '?')}{more}", 200)
    return cut(f"{type(exc).__name__}: {exc}".splitlines()[0], 200)
