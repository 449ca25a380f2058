"""Log lines as JSON objects, for log collectors (``TOOLHOST_LOG_FORMAT=json``).

One object a line on stderr: ``time`` (UTC, ISO 8601), ``level``, ``logger``, ``message``
(already scrubbed of the config's secrets, as every line on stderr is) and ``exception``
when a traceback is logged. The default stays the human ``toolhost: LEVEL: message``.
"""

from __future__ import annotations

import json
import logging
import re

__all__ = ["ENV", "JsonFormatter", "line_level", "log_format"]

ENV = "TOOLHOST_LOG_FORMAT"
TEXT_FORMAT = "toolhost: %(levelname)s: %(message)s"
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
        return json.dumps(entry, ensure_ascii=False, default=str)


def log_format(environ: dict[str, str] | None = None) -> logging.Formatter:
    """The formatter ``$TOOLHOST_LOG_FORMAT`` asks for (``json``; anything else: text)."""
    import os

    value = (os.environ if environ is None else environ).get(ENV, "").strip().lower()
    return JsonFormatter() if value == "json" else logging.Formatter(TEXT_FORMAT)
