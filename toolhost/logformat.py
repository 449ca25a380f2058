"""Log lines as JSON objects, for log collectors (``TOOLHOST_LOG_FORMAT=json``).

One object a line on stderr: ``time`` (UTC, ISO 8601), ``level``, ``logger``, ``message``
(already scrubbed of the config's secrets, as every line on stderr is) and ``exception``
when a traceback is logged. What could act on a terminal (a C1 control, a bidi override,
a line separator) is written as JSON's ``\\uXXXX`` escape, as the text format escapes it.
The default stays the human ``toolhost: LEVEL: message``.

In JSON mode every line the process writes to stderr is one object, not only its log records:
``JsonLines`` turns what else is written there (toolhost's own ``toolhost: ...`` lines, a
library's or a tool's prints, a traceback) into records, a line each; uvicorn's records go
through the same handler. In text mode control characters and line breaks in a message are
escaped (``\\n``, ``\\x1b``): a client's text (a token's key id, a tool name) cannot start a
line of its own.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from typing import IO, Any

__all__ = ["ENV", "MULTILINE", "JsonFormatter", "JsonLines", "TextFormatter", "escape_controls",
           "line_level", "log_format"]

ENV = "TOOLHOST_LOG_FORMAT"
# ``log.warning("...\n%s", diff, extra={MULTILINE: True})``: the message's later lines are
# shown under its first, indented, as a located error shows its detail (a diff); each line
# escaped, so none can pose as a line of its own. Other formatters (an embedding program's,
# JSON) get the message as it is.
MULTILINE = "toolhost_multiline"
_DETAIL_LINES = 200
TEXT_FORMAT = "toolhost: %(levelname)s: %(message)s"
_OWN_LINE = re.compile(r"toolhost: (?:(internal error|error|fatal)|(warning)|(note|info)"
                       r"|(debug)): ", re.IGNORECASE)
_LINE_LEVEL = re.compile(r"^\W*(?:(error|fatal|critical|traceback)|(warn(?:ing)?)|(debug))\b",
                         re.IGNORECASE)


def line_level(text: str) -> int:
    """The logging level a line another program wrote names by its first word (``error:``,
    ``fatal``, ``Traceback``, ``warning:``, ``debug:``); ``INFO`` for any other line."""
    found = _LINE_LEVEL.match(text)
    if found is None:
        return logging.INFO
    return logging.ERROR if found.group(1) else logging.WARNING if found.group(2) \
        else logging.DEBUG


def escape_controls(text: str) -> str:
    """``text`` on one line: line breaks, other control characters and invisible format
    characters (bidi overrides, zero-width spaces) escaped (``\\n``, ``\\r``, ``\\x1b``,
    ``\\u2028``, ``\\u202e``: ``toolhost.visible``); a tab stays."""
    if text.isprintable():  # the first test: C speed
        return text
    from toolhost.visible import visible

    return "\t".join(visible(part) for part in text.split("\t"))


class TextFormatter(logging.Formatter):
    """``toolhost: LEVEL: message``, the message on one line (``escape_controls``); a
    traceback (``exc_info``) follows on its lines, its control characters escaped."""

    def __init__(self) -> None:
        super().__init__(TEXT_FORMAT)

    def formatException(self, ei: Any) -> str:
        # a traceback quotes its exception's message: what a tool or a server wrote
        from toolhost.visible import visible

        return visible(super().formatException(ei), lines=True)

    def formatStack(self, stack_info: str) -> str:
        from toolhost.visible import visible

        return visible(super().formatStack(stack_info), lines=True)

    def formatMessage(self, record: logging.LogRecord) -> str:
        if getattr(record, MULTILINE, False) is not True:
            record.message = escape_controls(record.message)
            return super().formatMessage(record)
        first, *lines = record.message.rstrip("\n").split("\n")  # a \r is escaped, no break
        record.message = escape_controls(first)
        text = super().formatMessage(record)
        text += "".join(f"\n    {escape_controls(line)}" for line in lines[:_DETAIL_LINES])
        if len(lines) > _DETAIL_LINES:
            text += f"\n    ...{len(lines) - _DETAIL_LINES:,} more lines"
        return text


class JsonFormatter(logging.Formatter):
    """``logging.Formatter`` writing one JSON object per record."""

    def format(self, record: logging.LogRecord) -> str:
        from datetime import datetime, timezone  # at the first JSON line, not at every start

        entry = {
            "time": datetime.fromtimestamp(record.created, timezone.utc)
            .isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        from toolhost.visible import inert_json

        # a log collector's reader may be a terminal too (``tail -f``): a C1 control or a
        # bidi override is written as JSON's escape, the same value
        return inert_json(json.dumps(entry, ensure_ascii=False, default=str))


def log_format(environ: dict[str, str] | None = None) -> logging.Formatter:
    """The formatter ``$TOOLHOST_LOG_FORMAT`` asks for (``json``; anything else: text)."""
    import os

    value = (os.environ if environ is None else environ).get(ENV, "").strip().lower()
    return JsonFormatter() if value == "json" else TextFormatter()


class JsonLines:
    """A text stream writing each line it is given as one JSON record on ``inner``: what is
    written to stderr besides log records (``toolhost: error: ...`` lines, prints, a
    traceback) under ``TOOLHOST_LOG_FORMAT=json``. A ``toolhost: LEVEL: `` line keeps its
    level (logger ``toolhost``); another line gets the level its first word names
    (``line_level``; logger ``stderr``). A line longer than ``HOLD`` is cut into records.

    Secrets are hidden before the text is cut into records, across writes, flushes and line
    breaks (``Redactor.stream_split``, as ``ScrubbingStream`` does): a secret written in
    pieces, in any spelling, or holding a line break (a PEM key), is one match, never two
    halves in two records. ``flush`` writes what no continuation can change (a partial line
    as a record of its own); ``finish`` writes the rest."""

    HOLD = 65_536

    def __init__(self, inner: IO[str], formatter: logging.Formatter | None = None) -> None:
        self.inner = inner
        self._formatter = formatter or JsonFormatter()
        self._line = ""  # the start of the current line, secrets hidden: final
        self._held = ""  # raw text after it, where a secret may still be on its way
        self._lock = threading.RLock()

    def write(self, text: str) -> int:
        with self._lock:
            held = self._held + text
            cut = held.rfind("\n") + 1
            if len(held) > self.HOLD:
                cut = len(held)
            if cut:
                self._held = ""
                self._shown(held[:cut], held[cut:])
            else:
                self._held = held
        return len(text)

    def _shown(self, text: str, after: str = "", *, partial: bool = False) -> None:
        # ``text`` less its open end (kept raw, before ``after``), secrets hidden, cut into
        # lines; with ``partial`` the unfinished line is a record too.
        from toolhost.redaction import active

        shown, rest = active().stream_split(text, pieces=not partial)  # (flushed: shown)
        self._held = rest + after
        *lines, last = (self._line + shown).split("\n")
        for line in lines:
            self._emit(line)
        while len(last) > self.HOLD:
            self._emit(last[:self.HOLD])
            last = last[self.HOLD:]
        if partial:
            self._emit(last)
            last = ""
        self._line = last

    def _emit(self, line: str) -> None:
        line = line.rstrip("\r")
        if not line.strip():
            return
        own = _OWN_LINE.match(line)
        if own is not None:
            level = logging.ERROR if own.group(1) else logging.WARNING if own.group(2) \
                else logging.INFO if own.group(3) else logging.DEBUG
            name, message = "toolhost", line[own.end():]
        elif line.startswith("toolhost: "):
            level, name, message = logging.INFO, "toolhost", line[len("toolhost: "):]
        else:
            level, name, message = line_level(line), "stderr", line
        record = logging.LogRecord(name, level, "", 0, message, None, None)
        self.inner.write(self._formatter.format(record) + "\n")

    def flush(self) -> None:
        with self._lock:
            self._shown(self._held, partial=True)
        self.inner.flush()

    def finish(self) -> None:
        """Write what is held, secrets hidden (at exit: nothing more follows), then finish
        ``inner`` when it can."""
        from toolhost.redaction import scrub

        with self._lock:
            self._shown(self._held, partial=True)
            held, self._held = self._held, ""
            for line in scrub(held).split("\n"):
                self._emit(line)
        self.inner.flush()
        finish = getattr(self.inner, "finish", None)
        if callable(finish):
            finish()

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:  # fileno, isatty, encoding, buffer, ...
        return getattr(self.inner, name)
